/*
 * The vector layer for SSE4.1: 4 lanes. A mask is a vector of all-ones or
 * all-zero lanes. No FMA on this target: fma is a multiply and an add.
 */
#ifndef CIK_VEC_SSE_H
#define CIK_VEC_SSE_H

/* A kernel built without these flags must not pass for this ISA. */
#if !defined(__SSE4_1__)
#error "vec_sse.h needs SSE4.1: compile with -msse4.1"
#endif

#include <smmintrin.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 4
#define CIK_INLINE static inline __attribute__((always_inline))

typedef __m128 cik_nf;
typedef __m128 cik_nm;
/* int32 lanes: heightfield sample indices (n_cell, n_gather4, n_gather22) */
typedef __m128i cik_ni;

CIK_INLINE cik_nf n_load(const float *p) { return _mm_load_ps(p); }
CIK_INLINE void n_store(float *p, cik_nf v) { _mm_store_ps(p, v); }
CIK_INLINE void n_store_i32(int32_t *p, cik_nf v) { _mm_store_si128((__m128i *)p, _mm_cvttps_epi32(v)); }
CIK_INLINE cik_nf n_set1(float x) { return _mm_set1_ps(x); }
CIK_INLINE cik_nf n_add(cik_nf a, cik_nf b) { return _mm_add_ps(a, b); }
CIK_INLINE cik_nf n_sub(cik_nf a, cik_nf b) { return _mm_sub_ps(a, b); }
CIK_INLINE cik_nf n_mul(cik_nf a, cik_nf b) { return _mm_mul_ps(a, b); }
CIK_INLINE cik_nf n_div(cik_nf a, cik_nf b) { return _mm_div_ps(a, b); }
CIK_INLINE cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
CIK_INLINE cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { return _mm_sub_ps(c, _mm_mul_ps(a, b)); }
CIK_INLINE cik_nf n_min(cik_nf a, cik_nf b) { return _mm_min_ps(a, b); }
CIK_INLINE cik_nf n_max(cik_nf a, cik_nf b) { return _mm_max_ps(a, b); }
CIK_INLINE cik_nf n_abs(cik_nf a) { return _mm_andnot_ps(_mm_set1_ps(-0.0f), a); }
CIK_INLINE cik_nf n_floor(cik_nf a) { return _mm_floor_ps(a); }
CIK_INLINE cik_nf n_neg(cik_nf a) { return _mm_xor_ps(_mm_set1_ps(-0.0f), a); }
CIK_INLINE cik_nf n_sqrt(cik_nf a) { return _mm_sqrt_ps(a); }
#if CIK_EXACT_RSQRT
/* 1 / sqrt(a), both correctly rounded: the same bits on every CPU maker
 * (CROWDIK_EXACT_RSQRT), where the estimate below is each maker's own. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a) { return _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(a)); }
#else
/* 12-bit estimate and one Newton step: y' = y (1.5 - 0.5 a y^2), ~23 bits. */
CIK_INLINE cik_nf n_rsqrt(cik_nf a)
{
    __m128 y = _mm_rsqrt_ps(a);
    __m128 h = _mm_mul_ps(_mm_mul_ps(_mm_set1_ps(0.5f), a), _mm_mul_ps(y, y));
    return _mm_mul_ps(y, _mm_sub_ps(_mm_set1_ps(1.5f), h));
}
#endif
CIK_INLINE cik_nm n_lt(cik_nf a, cik_nf b) { return _mm_cmplt_ps(a, b); }
CIK_INLINE cik_nm n_le(cik_nf a, cik_nf b) { return _mm_cmple_ps(a, b); }
CIK_INLINE cik_nm n_gt(cik_nf a, cik_nf b) { return _mm_cmpgt_ps(a, b); }
CIK_INLINE cik_nm n_ge(cik_nf a, cik_nf b) { return _mm_cmpge_ps(a, b); }
CIK_INLINE cik_nm n_eq(cik_nf a, cik_nf b) { return _mm_cmpeq_ps(a, b); }
CIK_INLINE cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { return _mm_blendv_ps(b, a, m); }
CIK_INLINE cik_nm m_and(cik_nm a, cik_nm b) { return _mm_and_ps(a, b); }
CIK_INLINE cik_nm m_or(cik_nm a, cik_nm b) { return _mm_or_ps(a, b); }
CIK_INLINE cik_nm m_andnot(cik_nm a, cik_nm b) { return _mm_andnot_ps(b, a); }
CIK_INLINE cik_nm m_not(cik_nm a) { return _mm_xor_ps(a, _mm_castsi128_ps(_mm_set1_epi32(-1))); }
CIK_INLINE cik_nm m_false(void) { return _mm_setzero_ps(); }
CIK_INLINE int m_any(cik_nm a) { return _mm_movemask_ps(a) != 0; }
CIK_INLINE int m_all(cik_nm a) { return _mm_movemask_ps(a) == 0xF; }
/* Lane i: row_i * stride + col_i (row and col whole numbers >= 0, the
 * result within int32). */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride)
{
    return _mm_add_epi32(_mm_mullo_epi32(_mm_cvttps_epi32(row), _mm_set1_epi32(stride)), _mm_cvttps_epi32(col));
}
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return _mm_load_si128((const __m128i *)p); }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { _mm_store_si128((__m128i *)p, v); }
/* Rows r[j] (lane j's four floats) to out[k], lane i's float k. */
CIK_INLINE void n_transpose4(const __m128 r[4], cik_nf out[4])
{
    __m128 t0 = _mm_unpacklo_ps(r[0], r[1]), t1 = _mm_unpacklo_ps(r[2], r[3]);
    __m128 t2 = _mm_unpackhi_ps(r[0], r[1]), t3 = _mm_unpackhi_ps(r[2], r[3]);
    out[0] = _mm_movelh_ps(t0, t1);
    out[1] = _mm_movehl_ps(t1, t0);
    out[2] = _mm_movelh_ps(t2, t3);
    out[3] = _mm_movehl_ps(t3, t2);
}
/* out[k] lane i: base[idx_i + off + k], k < 4 (one load a lane and a
 * transpose). */
CIK_INLINE void n_gather4(const float *base, cik_ni idx, int32_t off, cik_nf out[4])
{
    _Alignas(16) int32_t k[4];
    _mm_store_si128((__m128i *)k, idx);
    __m128 r[4];
    for (int j = 0; j < 4; ++j) r[j] = _mm_loadu_ps(base + (k[j] + off));
    n_transpose4(r, out);
}
/* Two floats at p and two at q, one vector. */
CIK_INLINE __m128 n_pairs(const float *p, const float *q)
{
    return _mm_loadh_pi(_mm_castsi128_ps(_mm_loadu_si64(p)), (const __m64 *)q);
}
/* out[0], out[1] lane i: base[idx_i + a], base[idx_i + a + 1]; out[2],
 * out[3]: base[idx_i + b], base[idx_i + b + 1]. */
CIK_INLINE void n_gather22(const float *base, cik_ni idx, int32_t a, int32_t b, cik_nf out[4])
{
    _Alignas(16) int32_t k[4];
    _mm_store_si128((__m128i *)k, idx);
    __m128 r[4];
    for (int j = 0; j < 4; ++j) r[j] = n_pairs(base + (k[j] + a), base + (k[j] + b));
    n_transpose4(r, out);
}

#endif
