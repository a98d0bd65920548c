/*
 * The vector layer for AVX2 with FMA: 8 lanes. A mask is a vector of
 * all-ones or all-zero lanes.
 */
#ifndef CIK_VEC_AVX2_H
#define CIK_VEC_AVX2_H

/* A kernel built without these flags must not pass for this ISA. */
#if !defined(__AVX2__) || !defined(__FMA__)
#error "vec_avx2.h needs AVX2 and FMA: compile with -mavx2 -mfma"
#endif

#include <immintrin.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 8
#define CIK_INLINE static inline __attribute__((always_inline))

typedef __m256 cik_nf;
typedef __m256 cik_nm;
/* int32 lanes: heightfield sample indices (n_cell, n_gather) */
typedef __m256i cik_ni;

CIK_INLINE cik_nf n_load(const float *p) { return _mm256_load_ps(p); }
CIK_INLINE void n_store(float *p, cik_nf v) { _mm256_store_ps(p, v); }
CIK_INLINE void n_store_i32(int32_t *p, cik_nf v) { _mm256_store_si256((__m256i *)p, _mm256_cvttps_epi32(v)); }
CIK_INLINE cik_nf n_set1(float x) { return _mm256_set1_ps(x); }
CIK_INLINE cik_nf n_add(cik_nf a, cik_nf b) { return _mm256_add_ps(a, b); }
CIK_INLINE cik_nf n_sub(cik_nf a, cik_nf b) { return _mm256_sub_ps(a, b); }
CIK_INLINE cik_nf n_mul(cik_nf a, cik_nf b) { return _mm256_mul_ps(a, b); }
CIK_INLINE cik_nf n_div(cik_nf a, cik_nf b) { return _mm256_div_ps(a, b); }
CIK_INLINE cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { return _mm256_fmadd_ps(a, b, c); }
CIK_INLINE cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { return _mm256_fnmadd_ps(a, b, c); }
CIK_INLINE cik_nf n_min(cik_nf a, cik_nf b) { return _mm256_min_ps(a, b); }
CIK_INLINE cik_nf n_max(cik_nf a, cik_nf b) { return _mm256_max_ps(a, b); }
CIK_INLINE cik_nf n_abs(cik_nf a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
CIK_INLINE cik_nf n_floor(cik_nf a) { return _mm256_floor_ps(a); }
CIK_INLINE cik_nf n_neg(cik_nf a) { return _mm256_xor_ps(_mm256_set1_ps(-0.0f), a); }
CIK_INLINE cik_nf n_sqrt(cik_nf a) { return _mm256_sqrt_ps(a); }
/* 12-bit estimate and one Newton step, ~23 bits. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a)
{
    __m256 y = _mm256_rsqrt_ps(a);
    __m256 h = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), a), _mm256_mul_ps(y, y));
    return _mm256_mul_ps(y, _mm256_sub_ps(_mm256_set1_ps(1.5f), h));
}
CIK_INLINE cik_nm n_lt(cik_nf a, cik_nf b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
CIK_INLINE cik_nm n_le(cik_nf a, cik_nf b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
CIK_INLINE cik_nm n_gt(cik_nf a, cik_nf b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
CIK_INLINE cik_nm n_ge(cik_nf a, cik_nf b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
CIK_INLINE cik_nm n_eq(cik_nf a, cik_nf b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
CIK_INLINE cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { return _mm256_blendv_ps(b, a, m); }
CIK_INLINE cik_nm m_and(cik_nm a, cik_nm b) { return _mm256_and_ps(a, b); }
CIK_INLINE cik_nm m_or(cik_nm a, cik_nm b) { return _mm256_or_ps(a, b); }
CIK_INLINE cik_nm m_andnot(cik_nm a, cik_nm b) { return _mm256_andnot_ps(b, a); }
CIK_INLINE cik_nm m_not(cik_nm a) { return _mm256_xor_ps(a, _mm256_castsi256_ps(_mm256_set1_epi32(-1))); }
CIK_INLINE cik_nm m_false(void) { return _mm256_setzero_ps(); }
CIK_INLINE int m_any(cik_nm a) { return _mm256_movemask_ps(a) != 0; }
CIK_INLINE int m_all(cik_nm a) { return _mm256_movemask_ps(a) == 0xFF; }
/* Lane i: row_i * stride + col_i (row and col whole numbers >= 0, the
 * result within int32); base[idx_i + off]. */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride)
{
    return _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(row), _mm256_set1_epi32(stride)), _mm256_cvttps_epi32(col));
}
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return _mm256_load_si256((const __m256i *)p); }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { _mm256_store_si256((__m256i *)p, v); }
CIK_INLINE cik_nf n_gather(const float *base, cik_ni idx, int32_t off)
{
    return _mm256_i32gather_ps(base, _mm256_add_epi32(idx, _mm256_set1_epi32(off)), 4);
}

#endif
