/*
 * Every kernel of one instruction set: the CCD kernel (ccd_kernel.h) and the
 * foot stages' kernels (foot_kernel.h), written once against the vector
 * layer and compiled here once per instruction set. CMakeLists.txt builds
 * this file once for each row of its CROWDIK_ISAS list with that row's
 * flags and defines
 *   CIK_ISA          the row's name (scalar, sse, avx2, avx512, neon): the
 *                    kernels are cik__kernel_<name> and cik__foot_kernel_<name>
 *   CIK_ISA_BACKEND  its cik_backend without the prefix (SSE: CIK_BACKEND_SSE)
 *   CIK_ISA_HEADER   its vector header, "vec_<name>.h", which stops the
 *                    build with #error when the flags do not enable the ISA
 * and src/dispatch.c's table points at what it defines.
 */
#if !defined(CIK_ISA) || !defined(CIK_ISA_BACKEND) || !defined(CIK_ISA_HEADER)
#error "isa.c is compiled by CMakeLists.txt's per-ISA loop, which defines CIK_ISA, CIK_ISA_BACKEND, CIK_ISA_HEADER"
#endif

#include CIK_ISA_HEADER

/* Native vectors interleaved per kernel vector, one number for both kernels
 * (they share vec_wide.h's `vf`): two is measured best for the CCD kernel
 * (docs/performance.md) and the foot stages (docs/foot.md); one lane needs
 * no interleaving. The sanitizer build sets CIK_IL=1 itself. */
#ifndef CIK_IL
#if CIK_NATIVE_LANES == 1
#define CIK_IL 1
#else
#define CIK_IL 2
#endif
#endif

#define CIK__ISA_CAT2(a, b) a##b
#define CIK__ISA_CAT(a, b) CIK__ISA_CAT2(a, b)

#define CIK_KERNEL_SYMBOL CIK__ISA_CAT(cik__kernel_, CIK_ISA)
#define CIK_KERNEL_BACKEND CIK__ISA_CAT(CIK_BACKEND_, CIK_ISA_BACKEND)
/* Both kernel sources have a static apply_limit and a static q_arc of their
 * own (with edge cases of their own): each gets a distinct name here so that
 * both fit in one translation unit. */
#define apply_limit ccd_apply_limit
#define q_arc ccd_q_arc
#include "ccd_kernel.h"
#undef apply_limit
#undef q_arc

#define CIK_FOOT_SYMBOL CIK__ISA_CAT(cik__foot_kernel_, CIK_ISA)
#define apply_limit foot_apply_limit
#define q_arc foot_q_arc
#include "../foot/foot_kernel.h"
#undef apply_limit
#undef q_arc
