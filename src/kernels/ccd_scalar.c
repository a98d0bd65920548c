/* The CCD kernel for scalar: one include of the shared kernel source, compiled
 * with this target's flags (see CMakeLists.txt). */
#include "vec_scalar.h"

#ifndef CIK_IL
#define CIK_IL 1 /* interleaved native vectors: measured best, see docs/performance.md */
#endif
#define CIK_KERNEL_SYMBOL cik__kernel_scalar
#define CIK_KERNEL_BACKEND CIK_BACKEND_SCALAR
#include "ccd_kernel.h"
