/* The foot stages' kernels for avx512: one include of the shared kernel source,
 * compiled with this target's flags (see CMakeLists.txt). A build that lists
 * the sources itself without those flags gets the one-lane kernel under this
 * name instead: slower, the same results. */
#if defined(__AVX512F__) && defined(__AVX2__) && defined(__FMA__)
#include "../kernels/vec_avx512.h"
#else
#include "../kernels/vec_scalar.h"
#endif

#define CIK_FOOT_SYMBOL cik__foot_kernel_avx512
#include "foot_kernel.h"
