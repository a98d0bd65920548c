/* The foot stages' kernels for scalar: one include of the shared kernel source,
 * compiled with this target's flags (see CMakeLists.txt). */
#include "../kernels/vec_scalar.h"

#define CIK_IL 1
#define CIK_FOOT_SYMBOL cik__foot_kernel_scalar
#include "foot_kernel.h"
