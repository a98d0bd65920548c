/*
 * The vector layer for one lane: plain floats, the portable fallback behind
 * CIK_BACKEND_SCALAR and the baseline the SIMD builds are measured against.
 * A mask is an int (0 or 1).
 */
#ifndef CIK_VEC_SCALAR_H
#define CIK_VEC_SCALAR_H

#include <math.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 1
#define CIK_INLINE static inline __attribute__((always_inline))

typedef float cik_nf;
typedef int cik_nm;
/* int32 lanes: heightfield sample indices (n_cell, n_gather4, n_gather22) */
typedef int32_t cik_ni;

CIK_INLINE cik_nf n_load(const float *p) { return *p; }
CIK_INLINE void n_store(float *p, cik_nf v) { *p = v; }
CIK_INLINE void n_store_i32(int32_t *p, cik_nf v) { *p = (int32_t)v; }
CIK_INLINE cik_nf n_set1(float x) { return x; }
CIK_INLINE cik_nf n_add(cik_nf a, cik_nf b) { return a + b; }
CIK_INLINE cik_nf n_sub(cik_nf a, cik_nf b) { return a - b; }
CIK_INLINE cik_nf n_mul(cik_nf a, cik_nf b) { return a * b; }
CIK_INLINE cik_nf n_div(cik_nf a, cik_nf b) { return a / b; }
CIK_INLINE cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { return a * b + c; }
CIK_INLINE cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { return c - a * b; }
CIK_INLINE cik_nf n_min(cik_nf a, cik_nf b) { return a < b ? a : b; }
CIK_INLINE cik_nf n_max(cik_nf a, cik_nf b) { return a > b ? a : b; }
CIK_INLINE cik_nf n_abs(cik_nf a) { return fabsf(a); }
CIK_INLINE cik_nf n_floor(cik_nf a) { return floorf(a); }
CIK_INLINE cik_nf n_neg(cik_nf a) { return -a; }
CIK_INLINE cik_nf n_sqrt(cik_nf a) { return sqrtf(a); }
CIK_INLINE cik_nf n_rsqrt(cik_nf a) { return 1.0f / sqrtf(a); }
CIK_INLINE cik_nm n_lt(cik_nf a, cik_nf b) { return a < b; }
CIK_INLINE cik_nm n_le(cik_nf a, cik_nf b) { return a <= b; }
CIK_INLINE cik_nm n_gt(cik_nf a, cik_nf b) { return a > b; }
CIK_INLINE cik_nm n_ge(cik_nf a, cik_nf b) { return a >= b; }
CIK_INLINE cik_nm n_eq(cik_nf a, cik_nf b) { return a == b; }
CIK_INLINE cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { return m ? a : b; }
CIK_INLINE cik_nm m_and(cik_nm a, cik_nm b) { return a & b; }
CIK_INLINE cik_nm m_or(cik_nm a, cik_nm b) { return a | b; }
CIK_INLINE cik_nm m_andnot(cik_nm a, cik_nm b) { return a & !b; }
CIK_INLINE cik_nm m_not(cik_nm a) { return !a; }
CIK_INLINE cik_nm m_false(void) { return 0; }
CIK_INLINE int m_any(cik_nm a) { return a; }
CIK_INLINE int m_all(cik_nm a) { return a; }
/* row * stride + col (whole numbers >= 0, the result within int32). */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride) { return (int32_t)row * stride + (int32_t)col; }
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return *p; }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { *p = v; }
/* out[k]: base[idx + off + k], k < 4. */
CIK_INLINE void n_gather4(const float *base, cik_ni idx, int32_t off, cik_nf out[4])
{
    for (int k = 0; k < 4; ++k) out[k] = base[idx + off + k];
}
/* out[0], out[1]: base[idx + a], base[idx + a + 1]; out[2], out[3]:
 * base[idx + b], base[idx + b + 1]. */
CIK_INLINE void n_gather22(const float *base, cik_ni idx, int32_t a, int32_t b, cik_nf out[4])
{
    out[0] = base[idx + a];
    out[1] = base[idx + a + 1];
    out[2] = base[idx + b];
    out[3] = base[idx + b + 1];
}

#endif
