// Run-time CPU feature detection for the kernel dispatcher in Swift (`VectorKernel`).

#include "CVideoFramesAVX2.h"

#if defined(__x86_64__) && defined(__APPLE__)
#include <sys/sysctl.h>
#endif

int cvf_cpu_supports_avx2(void) {
#if defined(__x86_64__) && defined(__APPLE__)
    // Apple's toolchain (Intel Macs, the iOS Simulator on them) does not link
    // `__builtin_cpu_supports`. The kernel answers instead: `hw.optional.avx2_0` is 1 when the
    // CPU has AVX2 and the system saves the 256-bit registers; a missing name (an old system)
    // means no.
    int value = 0;
    size_t size = sizeof(value);
    if (sysctlbyname("hw.optional.avx2_0", &value, &size, NULL, 0) != 0) return 0;
    return value != 0 ? 1 : 0;
#elif defined(__x86_64__)
    // The compiler's runtime reads CPUID and also checks that the operating system saves the
    // 256-bit registers (XGETBV), so a "yes" means AVX2 code can run.
    __builtin_cpu_init();   // idempotent; needed when called before the runtime's constructor ran
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}
