/* The foot stages' kernels for sse: one include of the shared kernel source,
 * compiled with this target's flags (see CMakeLists.txt). A build that lists
 * the sources itself without those flags gets the one-lane kernel under this
 * name instead: slower, the same results. */
#if defined(__SSE4_1__)
#include "../kernels/vec_sse.h"
#else
#include "../kernels/vec_scalar.h"
#endif

#define CIK_FOOT_SYMBOL cik__foot_kernel_sse
#include "foot_kernel.h"
