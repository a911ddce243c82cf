import Foundation
import Testing
@testable import VideoFrames

/// The run-time choice between the AVX2 and the Swift SIMD kernels.
@Suite("Vector kernel selection")
struct VectorKernelSelectionTests {
    typealias Kernel = FrameConverter.VectorKernel

    @Test("AVX2 masked off: the Swift kernels, whatever is requested", arguments: [nil, "avx2", "swift", "", "AVX-512"] as [String?])
    func withoutAVX2(requested: String?) {
        #expect(Kernel.choose(cpu: CPUFeatures(avx2: false), requested: requested) == .swiftSIMD)
    }

    @Test("AVX2 present: AVX2 unless the Swift kernels are requested")
    func withAVX2() {
        let cpu = CPUFeatures(avx2: true)
        #expect(Kernel.choose(cpu: cpu, requested: nil) == .avx2)
        #expect(Kernel.choose(cpu: cpu, requested: "avx2") == .avx2)
        #expect(Kernel.choose(cpu: cpu, requested: "garbage") == .avx2)
        #expect(Kernel.choose(cpu: cpu, requested: "swift") == .swiftSIMD)
    }

    /// The process's choice follows the rule from this machine's CPU (read independently from
    /// /proc/cpuinfo on Linux) and its environment.
    @Test func thisProcess() throws {
        #if arch(x86_64) && os(Linux)
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let flags = cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") }.map { $0.split(separator: " ").map(String.init) } ?? []
        #expect(CPUFeatures.current.avx2 == flags.contains("avx2"))
        #elseif !arch(x86_64)
        #expect(CPUFeatures.current.avx2 == false)
        #endif
        let requested = ProcessInfo.processInfo.environment[Kernel.environmentVariable]
        #expect(Kernel.selected == Kernel.choose(cpu: .current, requested: requested))
        // Scripts/test.sh runs this suite a second time with CALLSCOPE_FRAMES_KERNEL=swift.
        if requested == "swift" {
            #expect(Kernel.selected == .swiftSIMD)
            #expect(FrameConverter.Kernel(.vectorized) == .swiftSIMD)
        }
    }
}

/// What the AVX2 BGRA → I420 kernel assumes of the biases it is given (it multiplies them in as
/// 256 and 1024 times a 16-bit multiplier).
@Suite("AVX2 kernel constants")
struct AVX2ConstantsTests {
    @Test(arguments: YUVColorSpace.all)
    func biasesFitTheConstantLane(space: YUVColorSpace) {
        let k = RGBToYUVCoefficients(space)
        #expect(k.lumaBias % 256 == 0 && k.lumaBias / 256 <= Int32(Int16.max))
        #expect(RGBToYUVCoefficients.chromaBias % 1024 == 0 && RGBToYUVCoefficients.chromaBias / 1024 <= Int32(Int16.max))
    }
}
