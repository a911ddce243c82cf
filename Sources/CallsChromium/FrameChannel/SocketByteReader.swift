#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocking reads from a connected socket: small reads come from a buffer, large ones go
/// straight into the caller's memory (a frame's planes are read once, into their final array).
final class SocketByteReader {
    let fd: Int32
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    init(fd: Int32, bufferSize: Int = 64 << 10) {
        self.fd = fd
        buffer = .allocate(byteCount: bufferSize, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// Fills `destination` completely; `false` when the peer closed first or the read failed.
    func readExactly(into destination: UnsafeMutableRawBufferPointer) -> Bool {
        var filled = 0
        let buffered = min(end - start, destination.count)
        if buffered > 0, let base = destination.baseAddress, let source = buffer.baseAddress {
            base.copyMemory(from: source + start, byteCount: buffered)
            start += buffered
            filled = buffered
        }
        guard let base = destination.baseAddress else { return destination.isEmpty }
        let remaining = destination.count - filled
        if remaining >= buffer.count {
            while filled < destination.count {
                let n = read(fd, base + filled, destination.count - filled)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                filled += n
            }
            return true
        }
        while filled < destination.count {
            if start == end {
                guard refill() else { return false }
            }
            let count = min(end - start, destination.count - filled)
            base.advanced(by: filled).copyMemory(from: buffer.baseAddress! + start, byteCount: count)
            start += count
            filled += count
        }
        return true
    }

    /// Reads `count` bytes into a new array; `nil` when the peer closed first.
    func readBytes(_ count: Int) -> [UInt8]? {
        var ok = false
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { storage, initialized in
            ok = readExactly(into: UnsafeMutableRawBufferPointer(storage))
            initialized = count
        }
        return ok ? bytes : nil
    }

    private func refill() -> Bool {
        start = 0
        end = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            end = n
            return true
        }
    }
}
