// Run-time CPU feature detection for the kernel dispatcher in Swift (`VectorKernel`).

#include "CVideoFramesAVX2.h"

int cvf_cpu_supports_avx2(void) {
#if defined(__x86_64__)
    // The compiler's runtime reads CPUID and also checks that the operating system saves the
    // 256-bit registers (XGETBV), so a "yes" means AVX2 code can run.
    __builtin_cpu_init();   // idempotent; needed when called before the runtime's constructor ran
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
