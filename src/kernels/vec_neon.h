/*
 * The vector layer for NEON (aarch64): 4 lanes. A mask is a uint32x4_t of
 * all-ones or all-zero lanes. vrsqrteq_f32 is a rough (8-bit) estimate, so
 * it gets two Newton steps.
 */
#ifndef CIK_VEC_NEON_H
#define CIK_VEC_NEON_H

/* A kernel built without these flags must not pass for this ISA. */
#if !defined(__ARM_NEON) || !defined(__aarch64__)
#error "vec_neon.h needs NEON on aarch64 (vdivq_f32, vfmaq_f32)"
#endif

#include <arm_neon.h>
#include <stdint.h>

#define CIK_NATIVE_LANES 4
#define CIK_INLINE static inline __attribute__((always_inline))

typedef float32x4_t cik_nf;
typedef uint32x4_t cik_nm;
/* int32 lanes: heightfield sample indices (n_cell, n_gather4, n_gather22) */
typedef int32x4_t cik_ni;

CIK_INLINE cik_nf n_load(const float *p) { return vld1q_f32(p); }
CIK_INLINE void n_store(float *p, cik_nf v) { vst1q_f32(p, v); }
CIK_INLINE void n_store_i32(int32_t *p, cik_nf v) { vst1q_s32(p, vcvtq_s32_f32(v)); }
CIK_INLINE cik_nf n_set1(float x) { return vdupq_n_f32(x); }
CIK_INLINE cik_nf n_add(cik_nf a, cik_nf b) { return vaddq_f32(a, b); }
CIK_INLINE cik_nf n_sub(cik_nf a, cik_nf b) { return vsubq_f32(a, b); }
CIK_INLINE cik_nf n_mul(cik_nf a, cik_nf b) { return vmulq_f32(a, b); }
CIK_INLINE cik_nf n_div(cik_nf a, cik_nf b) { return vdivq_f32(a, b); }
CIK_INLINE cik_nf n_fma(cik_nf a, cik_nf b, cik_nf c) { return vfmaq_f32(c, a, b); }
CIK_INLINE cik_nf n_fnma(cik_nf a, cik_nf b, cik_nf c) { return vfmsq_f32(c, a, b); }
CIK_INLINE cik_nf n_min(cik_nf a, cik_nf b) { return vminq_f32(a, b); }
CIK_INLINE cik_nf n_max(cik_nf a, cik_nf b) { return vmaxq_f32(a, b); }
CIK_INLINE cik_nf n_abs(cik_nf a) { return vabsq_f32(a); }
CIK_INLINE cik_nf n_floor(cik_nf a) { return vrndmq_f32(a); }
CIK_INLINE cik_nf n_neg(cik_nf a) { return vnegq_f32(a); }
CIK_INLINE cik_nf n_sqrt(cik_nf a) { return vsqrtq_f32(a); }
CIK_INLINE cik_nf n_rsqrt(cik_nf a)
{
    float32x4_t y = vrsqrteq_f32(a);
    y = vmulq_f32(y, vrsqrtsq_f32(vmulq_f32(a, y), y));
    y = vmulq_f32(y, vrsqrtsq_f32(vmulq_f32(a, y), y));
    return y;
}
CIK_INLINE cik_nm n_lt(cik_nf a, cik_nf b) { return vcltq_f32(a, b); }
CIK_INLINE cik_nm n_le(cik_nf a, cik_nf b) { return vcleq_f32(a, b); }
CIK_INLINE cik_nm n_gt(cik_nf a, cik_nf b) { return vcgtq_f32(a, b); }
CIK_INLINE cik_nm n_ge(cik_nf a, cik_nf b) { return vcgeq_f32(a, b); }
CIK_INLINE cik_nm n_eq(cik_nf a, cik_nf b) { return vceqq_f32(a, b); }
CIK_INLINE cik_nf n_sel(cik_nm m, cik_nf a, cik_nf b) { return vbslq_f32(m, a, b); }
CIK_INLINE cik_nm m_and(cik_nm a, cik_nm b) { return vandq_u32(a, b); }
CIK_INLINE cik_nm m_or(cik_nm a, cik_nm b) { return vorrq_u32(a, b); }
CIK_INLINE cik_nm m_andnot(cik_nm a, cik_nm b) { return vbicq_u32(a, b); }
CIK_INLINE cik_nm m_not(cik_nm a) { return vmvnq_u32(a); }
CIK_INLINE cik_nm m_false(void) { return vdupq_n_u32(0); }
CIK_INLINE int m_any(cik_nm a) { return vmaxvq_u32(a) != 0; }
CIK_INLINE int m_all(cik_nm a) { return vminvq_u32(a) != 0; }
/* Lane i: row_i * stride + col_i (row and col whole numbers >= 0, the
 * result within int32). */
CIK_INLINE cik_ni n_cell(cik_nf col, cik_nf row, int32_t stride)
{
    return vmlaq_n_s32(vcvtq_s32_f32(col), vcvtq_s32_f32(row), stride);
}
CIK_INLINE cik_ni n_load_ni(const int32_t *p) { return vld1q_s32(p); }
CIK_INLINE void n_store_ni(int32_t *p, cik_ni v) { vst1q_s32(p, v); }
/* Rows r0..r3 (lane j's four floats) to out[k], lane i's float k. */
CIK_INLINE void n_transpose4(float32x4_t r0, float32x4_t r1, float32x4_t r2, float32x4_t r3, cik_nf out[4])
{
    float32x4x2_t a = vtrnq_f32(r0, r1), b = vtrnq_f32(r2, r3);
    out[0] = vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0]));
    out[1] = vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1]));
    out[2] = vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0]));
    out[3] = vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1]));
}
/* out[k] lane i: base[idx_i + off + k], k < 4 (one load a lane and a
 * transpose). */
CIK_INLINE void n_gather4(const float *base, cik_ni idx, int32_t off, cik_nf out[4])
{
    const int32x4_t k = vaddq_s32(idx, vdupq_n_s32(off));
    n_transpose4(vld1q_f32(base + vgetq_lane_s32(k, 0)), vld1q_f32(base + vgetq_lane_s32(k, 1)),
                 vld1q_f32(base + vgetq_lane_s32(k, 2)), vld1q_f32(base + vgetq_lane_s32(k, 3)), out);
}
/* Two floats at p and two at q, one vector. */
CIK_INLINE float32x4_t n_pairs(const float *p, const float *q) { return vcombine_f32(vld1_f32(p), vld1_f32(q)); }
/* out[0], out[1] lane i: base[idx_i + a], base[idx_i + a + 1]; out[2],
 * out[3]: base[idx_i + b], base[idx_i + b + 1]. */
CIK_INLINE void n_gather22(const float *base, cik_ni idx, int32_t a, int32_t b, cik_nf out[4])
{
    const int32_t k0 = vgetq_lane_s32(idx, 0), k1 = vgetq_lane_s32(idx, 1), k2 = vgetq_lane_s32(idx, 2),
                  k3 = vgetq_lane_s32(idx, 3);
    n_transpose4(n_pairs(base + (k0 + a), base + (k0 + b)), n_pairs(base + (k1 + a), base + (k1 + b)),
                 n_pairs(base + (k2 + a), base + (k2 + b)), n_pairs(base + (k3 + a), base + (k3 + b)), out);
}

#endif
