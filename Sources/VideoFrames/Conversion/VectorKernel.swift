import CVideoFramesAVX2

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FrameConverter {
    /// The vector kernels behind ``Implementation/vectorized``, chosen once per process from the
    /// CPU's features.
    public enum VectorKernel: String, Sendable, Hashable, CaseIterable {
        /// 256-bit AVX2 kernels (x86-64 CPUs that have AVX2), written in C because Swift
        /// cannot compile one function for a wider instruction set than its module's.
        case avx2
        /// The Swift SIMD kernels, 128-bit (SSE2 on x86-64, NEON on arm64): every other CPU.
        case swiftSIMD = "swift"

        /// The environment variable that forces a kernel: `swift` always runs the Swift SIMD
        /// kernels; `avx2` (or no value) runs AVX2 where the CPU has it. Other values are ignored.
        public static let environmentVariable = "CALLSCOPE_FRAMES_KERNEL"

        /// The kernel ``Implementation/vectorized`` runs in this process, decided on first use
        /// from the CPU and ``environmentVariable``.
        public static let selected: VectorKernel = choose(cpu: .current, requested: getenv(environmentVariable).map { String(cString: $0) })

        /// The kernel for a CPU with `cpu`'s features when `requested` (the environment
        /// variable's value, if set) asks for one: AVX2 only where the CPU runs it and it was
        /// not declined.
        static func choose(cpu: CPUFeatures, requested: String?) -> VectorKernel {
            if requested == VectorKernel.swiftSIMD.rawValue { return .swiftSIMD }
            return cpu.avx2 ? .avx2 : .swiftSIMD
        }
    }
}

/// What the dispatcher needs to know about the CPU.
struct CPUFeatures: Sendable, Hashable {
    /// AVX2 instructions run (the CPU has them and the operating system saves their registers).
    var avx2: Bool

    /// This machine's CPU. Always without AVX2 outside x86-64.
    static let current = CPUFeatures(avx2: cvf_cpu_supports_avx2() != 0)
}
