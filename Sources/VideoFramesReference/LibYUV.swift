#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import VideoFrames

/// libyuv, the reference implementation of these conversions, loaded at run time with `dlopen`
/// when the machine has it (`libyuv.so.0`, `libyuv.so`, `libyuv.dylib`), for side-by-side
/// tests and benchmarks. The package never links it.
///
/// libyuv's "ARGB" is B, G, R, A in memory: our ``PixelFormat/bgra``.
public struct LibYUV: @unchecked Sendable {
    // `@unchecked Sendable`: C function and data pointers into a library that is never
    // unloaded; the struct is immutable and libyuv's functions are thread-safe.

    typealias I420ToARGBMatrix = @convention(c) (UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32,
                                                  UnsafeMutablePointer<UInt8>?, Int32, UnsafeRawPointer?, Int32, Int32) -> Int32
    typealias NV12ToARGBMatrix = @convention(c) (UnsafePointer<UInt8>?, Int32, UnsafePointer<UInt8>?, Int32,
                                                  UnsafeMutablePointer<UInt8>?, Int32, UnsafeRawPointer?, Int32, Int32) -> Int32
    typealias ARGBToI420 = @convention(c) (UnsafePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32,
                                            UnsafeMutablePointer<UInt8>?, Int32, UnsafeMutablePointer<UInt8>?, Int32, Int32, Int32) -> Int32
    typealias MaskCPUFlags = @convention(c) (Int32) -> Int32

    /// The library file that was loaded.
    public let path: String
    let i420ToARGB: I420ToARGBMatrix
    let nv12ToARGB: NV12ToARGBMatrix
    let argbToI420: ARGBToI420?
    let argbToJ420: ARGBToI420?
    let constants: [YUVColorSpace: UnsafeRawPointer]
    let maskCPUFlags: MaskCPUFlags?

    /// libyuv, or `nil` when no copy with the functions needed can be loaded.
    public static let shared: LibYUV? = load()

    /// Loads libyuv from the first of `candidates` that opens and has `I420ToARGBMatrix`,
    /// `NV12ToARGBMatrix` and the BT.601 constants.
    public static func load(candidates: [String] = ["libyuv.so.0", "libyuv.so", "libyuv.dylib"]) -> LibYUV? {
        for path in candidates {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else { continue }
            func symbol(_ name: String) -> UnsafeMutableRawPointer? { dlsym(handle, name) }
            guard let i420 = symbol("I420ToARGBMatrix"), let nv12 = symbol("NV12ToARGBMatrix") else {
                dlclose(handle)
                continue
            }
            var constants: [YUVColorSpace: UnsafeRawPointer] = [:]
            let names: [(YUVColorSpace, String)] = [(.bt601Limited, "kYuvI601Constants"), (.bt601Full, "kYuvJPEGConstants"),
                                                     (.bt709Limited, "kYuvH709Constants"), (.bt709Full, "kYuvF709Constants")]
            for (space, name) in names {
                if let pointer = symbol(name) { constants[space] = UnsafeRawPointer(pointer) }
            }
            guard constants[.bt601Limited] != nil else {
                dlclose(handle)
                continue
            }
            return LibYUV(path: path,
                          i420ToARGB: unsafeBitCast(i420, to: I420ToARGBMatrix.self),
                          nv12ToARGB: unsafeBitCast(nv12, to: NV12ToARGBMatrix.self),
                          argbToI420: symbol("ARGBToI420").map { unsafeBitCast($0, to: ARGBToI420.self) },
                          argbToJ420: symbol("ARGBToJ420").map { unsafeBitCast($0, to: ARGBToI420.self) },
                          constants: constants,
                          maskCPUFlags: symbol("MaskCpuFlags").map { unsafeBitCast($0, to: MaskCPUFlags.self) })
        }
        return nil
    }

    /// Whether libyuv can do this conversion in this colour space.
    public func supports(from source: PixelFormat, to destination: PixelFormat, colorSpace: YUVColorSpace) -> Bool {
        switch (source, destination) {
        case (.i420, .bgra), (.nv12, .bgra): constants[colorSpace] != nil
        case (.bgra, .i420): colorSpace == .bt601Limited ? argbToI420 != nil : colorSpace == .bt601Full && argbToJ420 != nil
        default: false
        }
    }

    /// Converts with libyuv: `I420ToARGBMatrix`, `NV12ToARGBMatrix`, or `ARGBToI420` /
    /// `ARGBToJ420` (BT.601 only). Throws when libyuv lacks the conversion or reports failure.
    public func convert(_ source: VideoFrame, into destination: MutableVideoFrame, colorSpace: YUVColorSpace) throws {
        guard source.width == destination.width, source.height == destination.height else {
            throw VideoFrameError(.sizeMismatch, "source is \(source.width)x\(source.height), destination \(destination.width)x\(destination.height)")
        }
        guard supports(from: source.format, to: destination.format, colorSpace: colorSpace) else {
            throw VideoFrameError(.unsupportedConversion, "libyuv at \(path) has no \(source.format) → \(destination.format) for \(colorSpace)")
        }
        func read(_ plane: VideoPlane) -> UnsafePointer<UInt8>? { plane.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        func write(_ plane: MutableVideoPlane) -> UnsafeMutablePointer<UInt8>? { plane.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) }
        let (width, height) = (Int32(source.width), Int32(source.height))
        let status: Int32
        switch source.format {
        case .i420:
            let (y, u, v, d) = (source.plane(0), source.plane(1), source.plane(2), destination.plane(0))
            status = i420ToARGB(read(y), Int32(y.stride), read(u), Int32(u.stride), read(v), Int32(v.stride),
                                write(d), Int32(d.stride), constants[colorSpace], width, height)
        case .nv12:
            let (y, uv, d) = (source.plane(0), source.plane(1), destination.plane(0))
            status = nv12ToARGB(read(y), Int32(y.stride), read(uv), Int32(uv.stride), write(d), Int32(d.stride), constants[colorSpace], width, height)
        case .bgra:
            let function = colorSpace == .bt601Limited ? argbToI420! : argbToJ420!
            let (s, y, u, v) = (source.plane(0), destination.plane(0), destination.plane(1), destination.plane(2))
            status = function(read(s), Int32(s.stride), write(y), Int32(y.stride), write(u), Int32(u.stride), write(v), Int32(v.stride), width, height)
        }
        guard status == 0 else {
            throw VideoFrameError(.unsupportedConversion, "libyuv returned \(status) for \(source.format) → \(destination.format) \(source.width)x\(source.height)")
        }
    }

    /// Whether ``withoutWideVectors(_:)`` can restrict libyuv (it needs `MaskCpuFlags`).
    public var canRestrictVectorWidth: Bool { maskCPUFlags != nil }

    /// Runs `body` with libyuv restricted to its 128-bit x86 code (SSSE3/SSE4.1: AVX, AVX2 and
    /// AVX-512 masked off through `MaskCpuFlags`), then gives libyuv back every instruction set
    /// it detects. A same-vector-width reference for our kernels, which Swift compiles for the
    /// SSE2 baseline. The flags are process-wide: do not convert with libyuv on other threads
    /// meanwhile. Without `MaskCpuFlags`, `body` runs unrestricted.
    public func withoutWideVectors<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard let maskCPUFlags else { return try body() }
        // libyuv's cpu_id.h: initialised, x86, SSE2, SSSE3, SSE4.1, SSE4.2, ERMS.
        let narrow: Int32 = 0x1 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x800
        _ = maskCPUFlags(narrow)
        defer { _ = maskCPUFlags(-1) }
        return try body()
    }
}
