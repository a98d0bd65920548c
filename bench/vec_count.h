/*
 * A counting vector layer for crowdik_flops (bench/roofline_flops.c): one
 * float a native lane, as vec_scalar.h, with every arithmetic operation
 * counted by kind. Compiled with CIK_IL = W it runs the CCD kernel on
 * groups of W lanes, so the counts are the lane operations a W-lane build
 * executes, the lanes that ride along converged or masked included.
 * Not part of the library.
 */
#ifndef CIK_VEC_COUNT_H
#define CIK_VEC_COUNT_H

#include <math.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 1
#define CIK_INLINE static inline __attribute__((always_inline))
#define CIK_COUNT_FN static inline __attribute__((always_inline, no_instrument_function))

enum {
    OP_ADD, OP_MUL, OP_FMA, OP_DIV, OP_SQRT, OP_RSQRT, OP_MINMAX, OP_SIGN, OP_CMP, OP_SEL, OP_LOAD, OP_STORE,
    OP_KINDS
};
/* Lane operations by kind, added to the function the kernel is in (roofline_flops.c). */
void count_op(int kind);

typedef float cik_nf;
typedef int cik_nm;
typedef int32_t cik_ni;

CIK_COUNT_FN cik_nf n_load(const float *p) { count_op(OP_LOAD); return *p; }
CIK_COUNT_FN void n_store(float *p, cik_nf v) { count_op(OP_STORE); *p = v; }
CIK_COUNT_FN void n_store_i32(int32_t *p, cik_nf v) { count_op(OP_STORE); *p = (int32_t)v; }
CIK_COUNT_FN cik_nf n_set1(float x) { return x; }
CIK_COUNT_FN cik_nf n_add(cik_nf a, cik_nf b) { count_op(OP_ADD); return a + b; }
CIK_COUNT_FN cik_nf n_sub(cik_nf a, cik_nf b) { count_op(OP_ADD); return a - b; }
CIK_COUNT_FN cik_nf n_mul(cik_nf a, cik_nf b) { count_op(OP_MUL); return a * b; }
CIK_COUNT_FN cik_nf n_div(cik_nf a, cik_nf b) { count_op(OP_DIV); return a / b; }
CIK_COUNT_FN cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { count_op(OP_FMA); return a * b + c; }
CIK_COUNT_FN cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { count_op(OP_FMA); return c - a * b; }
CIK_COUNT_FN cik_nf n_min(cik_nf a, cik_nf b) { count_op(OP_MINMAX); return a < b ? a : b; }
CIK_COUNT_FN cik_nf n_max(cik_nf a, cik_nf b) { count_op(OP_MINMAX); return a > b ? a : b; }
CIK_COUNT_FN cik_nf n_abs(cik_nf a) { count_op(OP_SIGN); return fabsf(a); }
CIK_COUNT_FN cik_nf n_floor(cik_nf a) { count_op(OP_SIGN); return floorf(a); }
CIK_COUNT_FN cik_nf n_neg(cik_nf a) { count_op(OP_SIGN); return -a; }
CIK_COUNT_FN cik_nf n_sqrt(cik_nf a) { count_op(OP_SQRT); return sqrtf(a); }
CIK_COUNT_FN cik_nf n_rsqrt(cik_nf a) { count_op(OP_RSQRT); return 1.0f / sqrtf(a); }
CIK_COUNT_FN cik_nm n_lt(cik_nf a, cik_nf b) { count_op(OP_CMP); return a < b; }
CIK_COUNT_FN cik_nm n_le(cik_nf a, cik_nf b) { count_op(OP_CMP); return a <= b; }
CIK_COUNT_FN cik_nm n_gt(cik_nf a, cik_nf b) { count_op(OP_CMP); return a > b; }
CIK_COUNT_FN cik_nm n_ge(cik_nf a, cik_nf b) { count_op(OP_CMP); return a >= b; }
CIK_COUNT_FN cik_nm n_eq(cik_nf a, cik_nf b) { count_op(OP_CMP); return a == b; }
CIK_COUNT_FN cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { count_op(OP_SEL); return m ? a : b; }
CIK_COUNT_FN cik_nm m_and(cik_nm a, cik_nm b) { return a & b; }
CIK_COUNT_FN cik_nm m_or(cik_nm a, cik_nm b) { return a | b; }
CIK_COUNT_FN cik_nm m_andnot(cik_nm a, cik_nm b) { return a & !b; }
CIK_COUNT_FN cik_nm m_not(cik_nm a) { return !a; }
CIK_COUNT_FN cik_nm m_false(void) { return 0; }
CIK_COUNT_FN int m_any(cik_nm a) { return a; }
CIK_COUNT_FN int m_all(cik_nm a) { return a; }
CIK_COUNT_FN cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride) { return (int32_t)row * stride + (int32_t)col; }
CIK_COUNT_FN cik_ni n_load_ni(const int32_t *p) { return *p; }
CIK_COUNT_FN void n_store_ni(int32_t *p, cik_ni v) { *p = v; }
CIK_COUNT_FN void n_gather4(const float *base, cik_ni idx, int32_t off, cik_nf out[4])
{
    for (int k = 0; k < 4; ++k) {
        count_op(OP_LOAD);
        out[k] = base[idx + off + k];
    }
}
CIK_COUNT_FN void n_gather22(const float *base, cik_ni idx, int32_t a, int32_t b, cik_nf out[4])
{
    for (int k = 0; k < 4; ++k) count_op(OP_LOAD);
    out[0] = base[idx + a];
    out[1] = base[idx + a + 1];
    out[2] = base[idx + b];
    out[3] = base[idx + b + 1];
}

#endif
