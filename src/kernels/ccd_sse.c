/* The CCD kernel for sse: one include of the shared kernel source, compiled
 * with this target's flags (see CMakeLists.txt). */
#include "vec_sse.h"

#ifndef CIK_IL
#define CIK_IL 2 /* interleaved native vectors: measured best, see docs/performance.md */
#endif
#define CIK_KERNEL_SYMBOL cik__kernel_sse
#define CIK_KERNEL_BACKEND CIK_BACKEND_SSE
#include "ccd_kernel.h"
