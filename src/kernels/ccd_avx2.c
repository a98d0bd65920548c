/* The CCD kernel for avx2: one include of the shared kernel source, compiled
 * with this target's flags (see CMakeLists.txt). */
#include "vec_avx2.h"

#ifndef CIK_IL
#define CIK_IL 2 /* interleaved native vectors: measured best, see docs/performance.md */
#endif
#define CIK_KERNEL_SYMBOL cik__kernel_avx2
#define CIK_KERNEL_BACKEND CIK_BACKEND_AVX2
#include "ccd_kernel.h"
