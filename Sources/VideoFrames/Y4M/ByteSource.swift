#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a reader's bytes come from: memory, a file, a pipe.
public protocol ByteSource {
    /// Fills the start of `buffer` with the next bytes and returns how many; 0 only at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Bytes already in memory.
public struct ByteArraySource: ByteSource, Sendable {
    /// All the bytes.
    public let bytes: [UInt8]
    /// How many have been read.
    public private(set) var position = 0

    /// A source over `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Copies the next bytes into `buffer`; 0 once all were read.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { all in
            buffer.baseAddress!.copyMemory(from: all.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}

/// A file, read with buffered C I/O, closed when the last copy goes away.
public final class FileByteSource: ByteSource {
    private let file: UnsafeMutablePointer<FILE>
    /// The path it was opened with.
    public let path: String

    /// Opens `path` for reading; throws ``VideoFrameError/Code/io`` when it cannot.
    public init(path: String) throws {
        guard let file = fopen(path, "rb") else {
            throw VideoFrameError(.io, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        self.file = file
        self.path = path
    }

    deinit { fclose(file) }

    /// Reads the next bytes of the file into `buffer`; 0 at its end.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        let count = fread(base, 1, buffer.count, file)
        if count == 0, ferror(file) != 0 {
            throw VideoFrameError(.io, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return count
    }
}
