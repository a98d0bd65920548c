/* The CCD kernel for neon: one include of the shared kernel source, compiled
 * with this target's flags (see CMakeLists.txt). */
#include "vec_neon.h"

#ifndef CIK_IL
#define CIK_IL 2 /* interleaved native vectors: measured best, see docs/performance.md */
#endif
#define CIK_KERNEL_SYMBOL cik__kernel_neon
#define CIK_KERNEL_BACKEND CIK_BACKEND_NEON
#include "ccd_kernel.h"
