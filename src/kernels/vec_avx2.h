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
/* int32 lanes: heightfield sample indices (n_cell, n_gather4, n_gather22) */
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
#if CIK_EXACT_RSQRT
/* 1 / sqrt(a), both correctly rounded: the same bits on every CPU maker
 * (CROWDIK_EXACT_RSQRT), where the estimate below is each maker's own. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a) { return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(a)); }
#else
/* 12-bit estimate and one Newton step, ~23 bits. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a)
{
    __m256 y = _mm256_rsqrt_ps(a);
    __m256 h = _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), a), _mm256_mul_ps(y, y));
    return _mm256_mul_ps(y, _mm256_sub_ps(_mm256_set1_ps(1.5f), h));
}
#endif
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
 * result within int32). */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride)
{
    return _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvttps_epi32(row), _mm256_set1_epi32(stride)), _mm256_cvttps_epi32(col));
}
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return _mm256_load_si256((const __m256i *)p); }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { _mm256_store_si256((__m256i *)p, v); }
/* Rows r[j] holding lanes j and j + 4 (four floats each, one a 128-bit
 * block) to out[k], lane i's float k: a 4x4 transpose in both blocks. */
CIK_INLINE void n_transpose4(const __m256 r[4], cik_nf out[4])
{
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpacklo_ps(r[2], r[3]);
    __m256 t2 = _mm256_unpackhi_ps(r[0], r[1]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    out[0] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t1)));
    out[1] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t0), _mm256_castps_pd(t1)));
    out[2] = _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(t2), _mm256_castps_pd(t3)));
    out[3] = _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(t2), _mm256_castps_pd(t3)));
}
/* out[k] lane i: base[idx_i + off + k], k < 4 (one 128-bit load a lane
 * and a transpose: a gather instruction fetches every float on its own). */
CIK_INLINE void n_gather4(const float *base, cik_ni idx, int32_t off, cik_nf out[4])
{
    _Alignas(32) int32_t k[8];
    _mm256_store_si256((__m256i *)k, idx);
    __m256 r[4];
    for (int j = 0; j < 4; ++j)
        r[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(base + (k[j] + off))),
                                    _mm_loadu_ps(base + (k[j + 4] + off)), 1);
    n_transpose4(r, out);
}
/* Two floats at p and two at q, one block. */
CIK_INLINE __m128 n_pairs(const float *p, const float *q)
{
    return _mm_loadh_pi(_mm_castsi128_ps(_mm_loadu_si64(p)), (const __m64 *)q);
}
/* out[0], out[1] lane i: base[idx_i + a], base[idx_i + a + 1]; out[2],
 * out[3]: base[idx_i + b], base[idx_i + b + 1]. */
CIK_INLINE void n_gather22(const float *base, cik_ni idx, int32_t a, int32_t b, cik_nf out[4])
{
    _Alignas(32) int32_t k[8];
    _mm256_store_si256((__m256i *)k, idx);
    __m256 r[4];
    for (int j = 0; j < 4; ++j)
        r[j] = _mm256_insertf128_ps(_mm256_castps128_ps256(n_pairs(base + (k[j] + a), base + (k[j] + b))),
                                    n_pairs(base + (k[j + 4] + a), base + (k[j + 4] + b)), 1);
    n_transpose4(r, out);
}

#endif
