/*
 * The vector layer for AVX-512F: 16 lanes. A mask is a __mmask16 (one bit a
 * lane), so selects are masked moves.
 */
#ifndef CIK_VEC_AVX512_H
#define CIK_VEC_AVX512_H

/* A kernel built without these flags must not pass for this ISA. */
#if !defined(__AVX512F__)
#error "vec_avx512.h needs AVX-512F: compile with -mavx512f"
#endif

#include <immintrin.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 16
#define CIK_INLINE static inline __attribute__((always_inline))

typedef __m512 cik_nf;
typedef __mmask16 cik_nm;
/* int32 lanes: heightfield sample indices (n_cell, n_gather) */
typedef __m512i cik_ni;

CIK_INLINE cik_nf n_load(const float *p) { return _mm512_load_ps(p); }
CIK_INLINE void n_store(float *p, cik_nf v) { _mm512_store_ps(p, v); }
CIK_INLINE void n_store_i32(int32_t *p, cik_nf v) { _mm512_store_si512((void *)p, _mm512_cvttps_epi32(v)); }
CIK_INLINE cik_nf n_set1(float x) { return _mm512_set1_ps(x); }
CIK_INLINE cik_nf n_add(cik_nf a, cik_nf b) { return _mm512_add_ps(a, b); }
CIK_INLINE cik_nf n_sub(cik_nf a, cik_nf b) { return _mm512_sub_ps(a, b); }
CIK_INLINE cik_nf n_mul(cik_nf a, cik_nf b) { return _mm512_mul_ps(a, b); }
CIK_INLINE cik_nf n_div(cik_nf a, cik_nf b) { return _mm512_div_ps(a, b); }
CIK_INLINE cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { return _mm512_fmadd_ps(a, b, c); }
CIK_INLINE cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { return _mm512_fnmadd_ps(a, b, c); }
CIK_INLINE cik_nf n_min(cik_nf a, cik_nf b) { return _mm512_min_ps(a, b); }
CIK_INLINE cik_nf n_max(cik_nf a, cik_nf b) { return _mm512_max_ps(a, b); }
CIK_INLINE cik_nf n_abs(cik_nf a) { return _mm512_abs_ps(a); }
CIK_INLINE cik_nf n_floor(cik_nf a) { return _mm512_roundscale_ps(a, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC); }
CIK_INLINE cik_nf n_neg(cik_nf a) { return _mm512_sub_ps(_mm512_setzero_ps(), a); }
CIK_INLINE cik_nf n_sqrt(cik_nf a) { return _mm512_sqrt_ps(a); }
/* 14-bit estimate and one Newton step: full single precision. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a)
{
    __m512 y = _mm512_rsqrt14_ps(a);
    __m512 h = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), a), _mm512_mul_ps(y, y));
    return _mm512_mul_ps(y, _mm512_sub_ps(_mm512_set1_ps(1.5f), h));
}
CIK_INLINE cik_nm n_lt(cik_nf a, cik_nf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ); }
CIK_INLINE cik_nm n_le(cik_nf a, cik_nf b) { return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ); }
CIK_INLINE cik_nm n_gt(cik_nf a, cik_nf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ); }
CIK_INLINE cik_nm n_ge(cik_nf a, cik_nf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GE_OQ); }
CIK_INLINE cik_nm n_eq(cik_nf a, cik_nf b) { return _mm512_cmp_ps_mask(a, b, _CMP_EQ_OQ); }
CIK_INLINE cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { return _mm512_mask_blend_ps(m, b, a); }
CIK_INLINE cik_nm m_and(cik_nm a, cik_nm b) { return (cik_nm)(a & b); }
CIK_INLINE cik_nm m_or(cik_nm a, cik_nm b) { return (cik_nm)(a | b); }
CIK_INLINE cik_nm m_andnot(cik_nm a, cik_nm b) { return (cik_nm)(a & ~b); }
CIK_INLINE cik_nm m_not(cik_nm a) { return (cik_nm)~a; }
CIK_INLINE cik_nm m_false(void) { return 0; }
CIK_INLINE int m_any(cik_nm a) { return a != 0; }
CIK_INLINE int m_all(cik_nm a) { return a == 0xFFFF; }
/* Lane i: row_i * stride + col_i (row and col whole numbers >= 0, the
 * result within int32); base[idx_i + off]. */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride)
{
    return _mm512_add_epi32(_mm512_mullo_epi32(_mm512_cvttps_epi32(row), _mm512_set1_epi32(stride)), _mm512_cvttps_epi32(col));
}
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return _mm512_load_si512((const void *)p); }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { _mm512_store_si512((void *)p, v); }
CIK_INLINE cik_nf n_gather(const float *base, cik_ni idx, int32_t off)
{
    return _mm512_i32gather_ps(_mm512_add_epi32(idx, _mm512_set1_epi32(off)), base, 4);
}

#endif
