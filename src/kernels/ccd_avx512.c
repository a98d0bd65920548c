/* The CCD kernel for avx512: one include of the shared kernel source, compiled
 * with this target's flags (see CMakeLists.txt). */
#include "vec_avx512.h"

#ifndef CIK_IL
#define CIK_IL 2 /* interleaved native vectors: measured best, see docs/performance.md */
#endif
#define CIK_KERNEL_SYMBOL cik__kernel_avx512
#define CIK_KERNEL_BACKEND CIK_BACKEND_AVX512
#include "ccd_kernel.h"
