#if arch(x86_64)
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The size of this machine's last-level (L3) cache, for ``SharedDestinationReuse``.
enum LastLevelCache {
    /// Bytes, read once: Linux's `/sys/devices/system/cpu/cpu0/cache` (the index whose level is
    /// 3), Darwin's `hw.l3cachesize`; 0 when unknown. (glibc's `sysconf(_SC_LEVEL3_CACHE_SIZE)`
    /// is not used: on the bench machine, a KVM guest, it reports 320 MiB for a 32 MiB L3.)
    static let bytes: Int = read()

    private static func read() -> Int {
        #if canImport(Darwin)
        var value: Int64 = 0
        var size = MemoryLayout<Int64>.size
        return sysctlbyname("hw.l3cachesize", &value, &size, nil, 0) == 0 ? Int(max(value, 0)) : 0
        #else
        for index in 0..<8 {
            let directory = "/sys/devices/system/cpu/cpu0/cache/index\(index)/"
            guard let level = firstLine(directory + "level") else { break }
            if level == "3", let size = firstLine(directory + "size") { return parseSize(size) ?? 0 }
        }
        return 0
        #endif
    }

    /// A sysfs cache size ("32768K", "32M", "1048576") in bytes; nil when it is not one.
    static func parseSize(_ text: String) -> Int? {
        var digits = Substring(text)
        var unit = 1
        switch digits.last {
        case "K": unit = 1 << 10
        case "M": unit = 1 << 20
        case "G": unit = 1 << 30
        default: break
        }
        if unit > 1 { digits = digits.dropLast() }
        guard let value = Int(digits), value >= 0, value <= Int.max / unit else { return nil }
        return value * unit
    }

    /// The first line of a small text file, without its newline; nil when it cannot be read.
    private static func firstLine(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return nil }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return line.hasSuffix("\n") ? String(line.dropLast()) : line
    }
}
#endif
