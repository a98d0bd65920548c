/*
 * The foot stages' kernels, written once against the vector layer
 * (src/kernels/vec_<isa>.h and vec_wide.h) and compiled once per instruction
 * set by src/kernels/isa.c (with the CCD kernel), which includes a
 * vec_<isa>.h and defines CIK_FOOT_SYMBOL and CIK_IL first. The scalar build (one lane) also runs the feet
 * that do not fill a vector at the end of the crowd.
 *
 * A lane is a foot; the passes are the stages' per-foot math (docs/foot.md)
 * with every branch turned into selects: both sides are computed and the
 * lane keeps the one its condition picks. Lanes masked out may compute
 * junk; it is never selected, and the floors (K_TINY) keep it finite. A select on a mask that no lane of the
 * vector sets is skipped (limit types, the seeding), which changes nothing.
 */
#include "foot_internal.h"

/* Interleaved native vectors, as the CCD kernel: measured best (docs/foot.md).
 * The one-lane build sets CIK_IL itself. */
#ifndef CIK_IL
#ifndef CIK_FOOT_IL
#define CIK_FOOT_IL 2
#endif
#define CIK_IL CIK_FOOT_IL
#endif

#include "../kernels/vec_wide.h"
#include "../kernels/vec_math.h"

#include <math.h>
#include <stdint.h>

/* Loads and stores of the crowd's streams, the leg constants and the
 * block's scratch; the arithmetic is vec_math.h's. */
CIK_INLINE vf ld(const float *const *s, int k, int i) { return v_load(s[k] + i); }
/* Leg constant k at foot i (a vector starts at an even foot, so a pattern
 * is read from its start). */
CIK_INLINE vf kld(const cik__foot_consts *K, int k, int i) { return v_load(K->p[k] + (i & K->mask[k])); }
CIK_INLINE v3 kv3(const cik__foot_consts *K, int k, int i)
{
    v3 r = {kld(K, k, i), kld(K, k + 1, i), kld(K, k + 2, i)};
    return r;
}
/* The block's scratch stream k at foot i. */
CIK_INLINE vf sld(const cik__foot_job *job, int k, int i) { return v_load(job->s[k] + (i - job->s0)); }
CIK_INLINE void sst(const cik__foot_job *job, int k, int i, vf a) { v_store(job->s[k] + (i - job->s0), a); }
CIK_INLINE v3 v3_sld(const cik__foot_job *job, int k, int i)
{
    v3 r = {sld(job, k, i), sld(job, k + 1, i), sld(job, k + 2, i)};
    return r;
}
CIK_INLINE vq q_sld(const cik__foot_job *job, int k, int i)
{
    vq r = {sld(job, k, i), sld(job, k + 1, i), sld(job, k + 2, i), sld(job, k + 3, i)};
    return r;
}
CIK_INLINE v3 v3_ld(const float *const *s, int k, int i) { return v3_load(s[k], s[k + 1], s[k + 2], i); }
CIK_INLINE void v3_st(float *const *s, int k, int i, v3 a)
{
    v_store(s[k] + i, a.x);
    v_store(s[k + 1] + i, a.y);
    v_store(s[k + 2] + i, a.z);
}
CIK_INLINE v3 v3_of(vf x, vf y, vf z)
{
    v3 r = {x, y, z};
    return r;
}
CIK_INLINE vq q4(vf x, vf y, vf z, vf w)
{
    vq r = {x, y, z, w};
    return r;
}
CIK_INLINE vq q_ld(const float *const *s, int kx, int ky, int kz, int kw, int i)
{
    return q_load(s[kx], s[ky], s[kz], s[kw], i);
}
CIK_INLINE void q_st(float *const *s, int kx, int ky, int kz, int kw, int i, vq q)
{
    v_store(s[kx] + i, q.x);
    v_store(s[ky] + i, q.y);
    v_store(s[kz] + i, q.z);
    v_store(s[kw] + i, q.w);
}
CIK_INLINE vq q_neg(vq a) { return q4(v_neg(a.x), v_neg(a.y), v_neg(a.z), v_neg(a.w)); }
CIK_INLINE vq q_conj(vq a) { return q4(v_neg(a.x), v_neg(a.y), v_neg(a.z), a.w); }
CIK_INLINE vf q_dot(vq a, vq b) { return v_fma(a.x, b.x, v_fma(a.y, b.y, v_fma(a.z, b.z, v_mul(a.w, b.w)))); }
/* fm_qnorm: the identity where the length is not positive. */
CIK_INLINE vq q_norm(vq q)
{
    vf n2 = q_dot(q, q), k = v_rsqrt(v_max(n2, v_set1(K_TINY)));
    vm ok = v_gt(n2, v_set1(0.0f));
    vf z = v_set1(0.0f);
    return q4(v_sel(ok, v_mul(q.x, k), z), v_sel(ok, v_mul(q.y, k), z), v_sel(ok, v_mul(q.z, k), z),
              v_sel(ok, v_mul(q.w, k), v_set1(1.0f)));
}
/* The shortest arc taking unit a onto unit b, any pair: a half turn about a
 * perpendicular axis (a x X, or a x Y when a is near X) when opposite
 * (unlike the CCD kernel's q_arc, whose callers handle the half turn). */
CIK_INLINE vq q_arc_any(v3 a, v3 b)
{
    vf d = v3_dot(a, b);
    v3 x = v3_cross(a, b);
    vq r = q_norm(q4(x.x, x.y, x.z, v_add(v_set1(1.0f), d)));
    vm opposite = v_lt(d, v_set1(-0.999999f));
    if (w_any(opposite)) {
        vf z = v_set1(0.0f);
        vm use_x = v_lt(v_abs(a.x), v_set1(0.9f));
        v3 p = v3_sel(use_x, v3_of(z, a.z, v_neg(a.y)), v3_of(v_neg(a.z), z, a.x));
        vf n2 = v3_dot(p, p);
        p = v3_sel(v_gt(n2, z), v3_scale(p, v_rsqrt(v_max(n2, v_set1(K_TINY)))), p);
        r = q_sel(opposite, q4(p.x, p.y, p.z, z), r);
    }
    return r;
}
/* Normalised linear interpolation along the shorter way. */
CIK_INLINE vq q_nlerp(vq a, vq b, vf t)
{
    vf s = v_sel(v_lt(q_dot(a, b), v_set1(0.0f)), v_neg(t), t);
    return q_norm(q4(v_add(a.x, v_fnma(a.x, t, v_mul(b.x, s))), v_add(a.y, v_fnma(a.y, t, v_mul(b.y, s))),
                     v_add(a.z, v_fnma(a.z, t, v_mul(b.z, s))), v_add(a.w, v_fnma(a.w, t, v_mul(b.w, s)))));
}

/* SPEC joint limits (vec_math.h's limit_clamp, the CCD kernel's) for the
 * prepared limit at k[base + LIMIT_*], none, hinge or swing-twist per lane. */
CIK_INLINE vq apply_limit(const cik__foot_consts *k, int base, int i, vq q)
{
    vf type = kld(k, base + LIMIT_TYPE, i);
    vm hinge = v_eq(type, v_set1((float)CIK_LIMIT_HINGE));
    vm swing_twist = v_eq(type, v_set1((float)CIK_LIMIT_SWING_TWIST));
    if (!w_any(w_or(hinge, swing_twist))) return q;
    lane_limit l = {kv3(k, base + LIMIT_AX, i),
                    kld(k, base + LIMIT_SMIN, i), kld(k, base + LIMIT_CMIN, i),
                    kld(k, base + LIMIT_SMAX, i), kld(k, base + LIMIT_CMAX, i),
                    kld(k, base + LIMIT_SSWING, i), kld(k, base + LIMIT_CSWING, i)};
    return limit_clamp(hinge, swing_twist, &l, q);
}

/* Stage 1: forward kinematics of the animation: the animated ankle (the
 * probe point under it) and foot orientation. */
static void k_probe(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 p = v3_sld(job, SCRATCH_EPX, i);
        vq w0 = q_mul(r, q_ld(cF, FOOT_POSE + 0, FOOT_POSE + 3, FOOT_POSE + 6, FOOT_POSE + 9, i));
        vq w1 = q_mul(w0, q_ld(cF, FOOT_POSE + 1, FOOT_POSE + 4, FOOT_POSE + 7, FOOT_POSE + 10, i));
        vq w2 = q_norm(q_mul(w1, q_ld(cF, FOOT_POSE + 2, FOOT_POSE + 5, FOOT_POSE + 8, FOOT_POSE + 11, i)));
        v3 a = v3_add(v3_add(v3_add(p, q_rotate(r, kv3(K, LEG_HIPX, i))), q_rotate(w0, kv3(K, LEG_THX, i))),
                       q_rotate(w1, kv3(K, LEG_SHX, i)));
        v3_st(F, FOOT_AAX, i, a);
        v_store(F[FOOT_PROBEX] + i, a.x);
        v_store(F[FOOT_PROBEZ] + i, a.z);
        q_st(F, FOOT_AFX, FOOT_AFY, FOOT_AFZ, FOOT_AFW, i, w2);
    }
}

/* Stage 2, first pass: each probe point's cell and its position in it, as
 * heightfield.c's interior test and formula have them (the same division,
 * floor(u) = (int)u for u >= 1); a point outside the interior is marked
 * for the border-aware scalar sample and its cell is not used. */
static void k_ground_cells(const cik__foot_job *job, int begin, int end)
{
    const float *const *cF = (const float *const *)job->f;
    const vf ox = v_set1(job->ox), oz = v_set1(job->oz), sx = v_set1(job->sx), sz = v_set1(job->sz);
    const vf one = v_set1(1.0f), umax = v_set1(job->umax - 2.0f), vmax = v_set1(job->vmax - 2.0f);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf u = v_div(v_sub(ld(cF, FOOT_PROBEX, i), ox), sx), v = v_div(v_sub(ld(cF, FOOT_PROBEZ, i), oz), sz);
        vm inside = w_and(w_and(v_ge(u, one), v_lt(u, umax)), w_and(v_ge(v, one), v_lt(v, vmax)));
        /* border lanes (NaN included) get cell (1, 1): never read */
        u = v_sel(inside, u, one);
        v = v_sel(inside, v, one);
        vf fu = v_floor(u), fv = v_floor(v);
        sst(job, SCRATCH_GU, i, v_sub(u, fu));
        sst(job, SCRATCH_GV, i, v_sub(v, fv));
        sst(job, SCRATCH_GBORDER, i, v_sel(inside, v_set1(0.0f), one));
        v_store_i32((int32_t *)job->s[SCRATCH_GIX] + (i - job->s0), fu);
        v_store_i32((int32_t *)job->s[SCRATCH_GIZ] + (i - job->s0), fv);
    }
}

/* heightfield.c's hf_slope: a slope within +-CIK__HF_MAX_SLOPE. */
CIK_INLINE vf slope(vf g) { return v_max(v_min(g, v_set1(CIK__HF_MAX_SLOPE)), v_set1(-CIK__HF_MAX_SLOPE)); }

/* Stage 2 after cik__foot_ground_gather: heightfield.c's formula for a
 * point away from the border (bilinear height; the per-sample normals from
 * central differences, interpolated, renormalised) on the gathered heights;
 * points the gather sampled itself (SCRATCH_GBORDER) keep what it wrote. */
static void k_ground(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const float *const *cF = (const float *const *)F;
    const vf ix2 = v_set1(job->ix2), iz2 = v_set1(job->iz2), one = v_set1(1.0f), z = v_set1(0.0f);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf fu = sld(job, SCRATCH_GU, i), fv = sld(job, SCRATCH_GV, i);
        vf h[12];
        for (int g = 0; g < 12; ++g) h[g] = sld(job, SCRATCH_GH + g, i);
        vf gu = v_sub(one, fu), gv = v_sub(one, fv);
        vf w00 = v_mul(gu, gv), w10 = v_mul(fu, gv), w01 = v_mul(gu, fv), w11 = v_mul(fu, fv);
        vf height = v_fma(w00, h[GATHER_P0], v_fma(w10, h[GATHER_P1], v_fma(w01, h[GATHER_Q0], v_mul(w11, h[GATHER_Q1]))));
        vf gx00 = slope(v_mul(v_sub(h[GATHER_P1], h[GATHER_PM1]), ix2)), gz00 = slope(v_mul(v_sub(h[GATHER_Q0], h[GATHER_PUP0]), iz2));
        vf gx10 = slope(v_mul(v_sub(h[GATHER_P2], h[GATHER_P0]), ix2)), gz10 = slope(v_mul(v_sub(h[GATHER_Q1], h[GATHER_PUP1]), iz2));
        vf gx01 = slope(v_mul(v_sub(h[GATHER_Q1], h[GATHER_QM1]), ix2)), gz01 = slope(v_mul(v_sub(h[GATHER_QDN0], h[GATHER_P0]), iz2));
        vf gx11 = slope(v_mul(v_sub(h[GATHER_Q2], h[GATHER_Q0]), ix2)), gz11 = slope(v_mul(v_sub(h[GATHER_QDN1], h[GATHER_P1]), iz2));
        vf a = v_mul(w00, v_rsqrt(v_fma(gx00, gx00, v_fma(gz00, gz00, one))));
        vf b = v_mul(w10, v_rsqrt(v_fma(gx10, gx10, v_fma(gz10, gz10, one))));
        vf c = v_mul(w01, v_rsqrt(v_fma(gx01, gx01, v_fma(gz01, gz01, one))));
        vf d = v_mul(w11, v_rsqrt(v_fma(gx11, gx11, v_fma(gz11, gz11, one))));
        vf nx = v_neg(v_fma(a, gx00, v_fma(b, gx10, v_fma(c, gx01, v_mul(d, gx11)))));
        vf ny = v_add(v_add(a, b), v_add(c, d));
        vf nz = v_neg(v_fma(a, gz00, v_fma(b, gz10, v_fma(c, gz01, v_mul(d, gz11)))));
        vf n2 = v_fma(nx, nx, v_fma(ny, ny, v_mul(nz, nz)));
        vf k = v_sel(v_gt(n2, z), v_rsqrt(v_max(n2, v_set1(K_TINY))), one);
        vm border = v_gt(sld(job, SCRATCH_GBORDER, i), z);
        v_store(F[FOOT_CY] + i, v_sel(border, ld(cF, FOOT_CY, i), height));
        v_store(F[FOOT_CNX] + i, v_sel(border, ld(cF, FOOT_CNX, i), v_mul(nx, k)));
        v_store(F[FOOT_CNY] + i, v_sel(border, ld(cF, FOOT_CNY, i), v_mul(ny, k)));
        v_store(F[FOOT_CNZ] + i, v_sel(border, ld(cF, FOOT_CNZ, i), v_mul(nz, k)));
    }
}

/* Stage 3, first pass: the target (planted: the ankle above the contact
 * along the normal, blended with the animation by the weight, never below
 * the planted height), the desired foot orientation, the hip's world
 * offset, the comfortable reach and what the foot needs of the pelvis drop. */
static void k_place_a(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const vf z = v_set1(0.0f), one = v_set1(1.0f), keep = v_set1(1.0f - job->margin);
    for (int i = begin; i < end; i += CIK_LANES) {
        vf w = ld(cF, FOOT_WEIGHT, i);
        w = v_sel(v_gt(w, z), v_min(w, one), z);
        v3 a = v3_ld(cF, FOOT_AAX, i);
        v3 n = v3_ld(cF, FOOT_CNX, i);
        vf nl2 = v3_dot(n, n);
        n = v3_sel(v_gt(nl2, v_set1(1e-12f)), v3_scale(n, v_rsqrt(v_max(nl2, v_set1(K_TINY)))), v3_of(z, one, z));
        /* planted: the ankle above the contact along the normal */
        vf ah = kld(K, LEG_AH, i);
        v3 tp = v3_of(v_fma(n.x, ah, a.x), v_fma(n.y, ah, ld(cF, FOOT_CY, i)), v_fma(n.z, ah, a.z));
        v3 t = v3_of(v_fma(v_sub(tp.x, a.x), w, a.x), v_fma(v_sub(tp.y, a.y), w, a.y), v_fma(v_sub(tp.z, a.z), w, a.z));
        t.y = v_sel(v_lt(t.y, tp.y), tp.y, t.y); /* no foot below the ground */
        v3_st(F, FOOT_TX, i, t);
        /* desired foot orientation: the animated one turned so the sole lies
         * on the ground normal, blended by the weight */
        vq af = q_ld(cF, FOOT_AFX, FOOT_AFY, FOOT_AFZ, FOOT_AFW, i);
        v3 sole = q_rotate(af, kv3(K, LEG_SOLEX, i));
        vq df = q_sel(v_gt(w, z), q_mul(q_arc_any(sole, n), af), af);
        df = q_sel(v_lt(w, one), q_nlerp(af, df, w), df);
        q_st(F, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i, df);
        /* pelvis: what this foot needs beyond the leg's comfortable reach
         * (or beyond the animation's own extension, if longer) */
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 hip_off = q_rotate(r, kv3(K, LEG_HIPX, i));
        sst(job, SCRATCH_HOX, i, hip_off.x);
        sst(job, SCRATCH_HOY, i, hip_off.y);
        sst(job, SCRATCH_HOZ, i, hip_off.z);
        v3 hip = v3_add(v3_sld(job, SCRATCH_EPX, i), hip_off);
        vf lim = v_mul(kld(K, LEG_REACH, i), keep);
        v3 ah_v = v3_sub(a, hip);
        vf anim = v_sqrt(v3_dot(ah_v, ah_v));
        lim = v_sel(v_gt(anim, lim), anim, lim);
        sst(job, SCRATCH_LIM, i, lim);
        /* drop_need: how far the hip must come down so that t is lim away;
         * nothing when reachable (or NaN) or above the hip, the hip level
         * when t is beyond reach sideways */
        v3 v = v3_sub(t, hip);
        vf lim2 = v_mul(lim, lim), h2 = v_fma(v.x, v.x, v_mul(v.z, v.z));
        vm none = w_or(w_not(v_gt(v3_dot(v, v), lim2)), v_ge(v.y, z));
        vf need = v_sel(v_ge(h2, lim2), v_neg(v.y), v_sub(v_neg(v_sqrt(v_max(v_sub(lim2, h2), z))), v.y));
        sst(job, SCRATCH_NEED, i, v_sel(none, z, need));
    }
}

/* The knee hinge angle in [lo, hi] that puts the ankle `dist` from the hip:
 * |t + R(axis, k) s| = dist, i.e. kC + kA cos k + kB sin k = (dist^2 - |t|^2
 * - |s|^2) / 2 = want, i.e. kM cos(k - phi) = want. Of the two solutions
 * k = phi +- acos(want / kM), clamped, the one that fits best, nearer the
 * current angle on a tie. Angles are half-angle unit vectors (sin(k/2),
 * cos(k/2)) with cos(k/2) >= 0: cos k and sin k of the solutions follow from
 * the angle-sum identities, the half angle from cos k, limits compare as in
 * vec_math.h's clamp_about_axis, and of two angles the one nearer the current angle (cur_s,
 * cur_c) has the larger cos of half the difference. The mask says where the
 * result differs from the current angle by more than 1e-6 rad (and the knee
 * has a solution). */
CIK_INLINE vm knee_for_distance(const cik__foot_consts *K, int i, vf dist, vf cur_s, vf cur_c, vf *ks, vf *kc)
{
    const int l = LEG_LIMIT + LIMIT_COUNT * 1;
    const vf z = v_set1(0.0f), one = v_set1(1.0f), half = v_set1(0.5f);
    vf kM = kld(K, LEG_KM, i), kA = kld(K, LEG_KA, i), kB = kld(K, LEG_KB, i);
    vf cphi = kld(K, LEG_CPHI, i), sphi = kld(K, LEG_SPHI, i);
    vf cmax = kld(K, l + LIMIT_CMAX, i), smax = kld(K, l + LIMIT_SMAX, i);
    vf cmin = kld(K, l + LIMIT_CMIN, i), smin = kld(K, l + LIMIT_SMIN, i);
    vm valid = v_gt(kM, v_set1(1e-9f));
    vf want = v_sub(v_mul(half, v_sub(v_mul(dist, dist), kld(K, LEG_KTS, i))), kld(K, LEG_KC, i));
    vf c = v_div(want, v_sel(valid, kM, one));
    c = v_max(v_min(c, one), v_set1(-1.0f));
    vf r = v_sqrt(v_max(v_mul(v_sub(one, c), v_add(one, c)), z)); /* sin(acos c), accurate near c = +-1 */
    vf best_s = cur_s, best_c = cur_c, best_err = v_set1(INFINITY), best_near = v_set1(-2.0f);
    for (int k = 0; k < 2; ++k) {
        vf sr = k ? v_neg(r) : r;
        vf cosk = v_fnma(sphi, sr, v_mul(cphi, c));
        vf sink = v_fma(cphi, sr, v_mul(sphi, c));
        /* half angle, k in [-pi, pi]: cos(k/2) >= 0 */
        vf hc = v_sqrt(v_max(z, v_mul(half, v_add(one, cosk))));
        vf hs_far = v_sqrt(v_max(z, v_mul(half, v_sub(one, cosk))));
        hs_far = v_sel(v_lt(sink, z), v_neg(hs_far), hs_far);
        vm big = v_gt(hc, half);
        vf hs = v_sel(big, v_div(sink, v_add(v_sel(big, hc, one), v_sel(big, hc, one))), hs_far);
        vm up = v_gt(v_fnma(hc, smax, v_mul(hs, cmax)), z);
        vm lo = w_andnot(v_lt(v_fnma(hc, smin, v_mul(hs, cmin)), z), up);
        vm clamped = w_or(up, lo);
        hs = v_sel(up, smax, v_sel(lo, smin, hs));
        hc = v_sel(up, cmax, v_sel(lo, cmin, hc));
        cosk = v_sel(clamped, v_fnma(hs, hs, v_mul(hc, hc)), cosk);
        sink = v_sel(clamped, v_mul(v_add(hs, hs), hc), sink);
        vf e = v_abs(v_sub(v_fma(kA, cosk, v_mul(kB, sink)), want));
        vf near = v_fma(hc, cur_c, v_mul(hs, cur_s)); /* cos((k - current) / 2) */
        vm better = w_or(v_lt(e, v_sub(best_err, v_set1(1e-7f))),
                         w_and(v_le(v_abs(v_sub(e, best_err)), v_set1(1e-7f)), v_gt(near, best_near)));
        best_s = v_sel(better, hs, best_s);
        best_c = v_sel(better, hc, best_c);
        best_err = v_sel(better, e, best_err);
        best_near = v_sel(better, near, best_near);
    }
    *ks = best_s;
    *kc = best_c;
    /* |k - current| > 1e-6 rad: |sin((k - current) / 2)| > 5e-7 */
    return w_and(valid, v_gt(v_abs(v_fnma(best_c, cur_s, v_mul(best_s, cur_c))), v_set1(5e-7f)));
}

/* Stage 3, second pass (after the per-character drop is in SCRATCH_DROP): the
 * roots, the targets pulled in to the reach, the start poses (the animation
 * clamped into the limits, seeded where it misses the target). */
static void k_place_b(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const cik_streams *bs = job->bs;
    const vf z = v_set1(0.0f), thr2 = v_set1(job->threshold * job->threshold);
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q_norm(q_sld(job, SCRATCH_EQX, i));
        v3 pl = v3_sld(job, SCRATCH_EPX, i);
        pl.y = v_sub(pl.y, sld(job, SCRATCH_DROP, i));
        v_store(bs->root_position_x + i, pl.x);
        v_store(bs->root_position_y + i, pl.y);
        v_store(bs->root_position_z + i, pl.z);
        v_store(bs->root_rotation_x + i, r.x);
        v_store(bs->root_rotation_y + i, r.y);
        v_store(bs->root_rotation_z + i, r.z);
        v_store(bs->root_rotation_w + i, r.w);
        vq q[3];
        for (int j = 0; j < 3; ++j)
            q[j] = apply_limit(K, LEG_LIMIT + LIMIT_COUNT * j, i,
                               q_ld(cF, FOOT_POSE + j, FOOT_POSE + 3 + j, FOOT_POSE + 6 + j, FOOT_POSE + 9 + j, i));
        v3 t = v3_ld(cF, FOOT_TX, i);
        v3 hip = v3_add(pl, v3_sld(job, SCRATCH_HOX, i));
        /* a target still out of reach after the pelvis drop is pulled in to
         * the reach: the leg then points at it, knee not locked */
        v3 v = v3_sub(t, hip);
        vf d2 = v3_dot(v, v), lim = sld(job, SCRATCH_LIM, i);
        vm pull = v_gt(d2, v_mul(lim, lim));
        if (w_any(pull)) {
            t = v3_sel(pull, v3_add(hip, v3_scale(v, v_div(lim, v_sqrt(v_max(d2, v_set1(K_TINY)))))), t);
            v3_st(F, FOOT_TX, i, t);
            v = v3_sub(t, hip);
        }
        v_store(bs->target_x + i, t.x);
        v_store(bs->target_y + i, t.y);
        v_store(bs->target_z + i, t.z);
        v3 thigh = kv3(K, LEG_THX, i), shin = kv3(K, LEG_SHX, i);
        /* a start pose that already meets the target is left alone */
        if (job->start != CIK_FOOT_START_ANIMATION) {
            v3 e = v3_add(hip, q_rotate(q_mul(r, q[0]), v3_add(thigh, q_rotate(q[1], shin))));
            v3 de = v3_sub(e, t);
            vm seed = w_and(v_ge(v3_dot(de, de), thr2), v_gt(kld(K, LEG_HINGE, i), z));
            if (w_any(seed)) {
                /* the seed: the knee for the distance, then (TWO_BONE) the
                 * hip swung by the shortest arc toward the target, its limit
                 * applied */
                v3 ka = kv3(K, LEG_LIMIT + LIMIT_COUNT + LIMIT_AX, i);
                vq q1 = q_sel(v_lt(q[1].w, z), q_neg(q[1]), q[1]);
                vf s = v3_dot(v3_of(q1.x, q1.y, q1.z), ka), n2 = v_fma(s, s, v_mul(q1.w, q1.w));
                vm nok = v_gt(n2, z);
                vf nk = v_rsqrt(v_max(n2, v_set1(K_TINY)));
                vf cur_s = v_sel(nok, v_mul(s, nk), z), cur_c = v_sel(nok, v_mul(q1.w, nk), v_set1(1.0f));
                vf ks, kc;
                vm moved = w_and(seed, knee_for_distance(K, i, v_sqrt(v3_dot(v, v)), cur_s, cur_c, &ks, &kc));
                q[1] = q_sel(moved, q4(v_mul(ka.x, ks), v_mul(ka.y, ks), v_mul(ka.z, ks), kc), q[1]);
                if (job->start == CIK_FOOT_START_TWO_BONE) {
                    vq w0 = q_mul(r, q[0]);
                    v3 el = q_rotate(w0, v3_add(thigh, q_rotate(q[1], shin)));
                    vf el2 = v3_dot(el, el), bl2 = v3_dot(v, v);
                    vm ok = w_and(seed, w_and(v_gt(el2, v_set1(1e-12f)), v_gt(bl2, v_set1(1e-12f))));
                    vq turn = q_arc_any(v3_scale(el, v_rsqrt(v_max(el2, v_set1(K_TINY)))),
                                    v3_scale(v, v_rsqrt(v_max(bl2, v_set1(K_TINY)))));
                    ok = w_andnot(ok, v_gt(turn.w, v_set1(0.9999999f)));
                    if (w_any(ok)) {
                        vq q0 = q_norm(q_mul(q_conj(r), q_mul(turn, w0)));
                        q[0] = q_sel(ok, apply_limit(K, LEG_LIMIT, i, q0), q[0]);
                    }
                }
            }
        }
        for (int j = 0; j < 3; ++j) {
            v_store(bs->rotation_x[j] + i, q[j].x);
            v_store(bs->rotation_y[j] + i, q[j].y);
            v_store(bs->rotation_z[j] + i, q[j].z);
            v_store(bs->rotation_w[j] + i, q[j].w);
        }
    }
}

/* Stage 5: the ankle turned to the desired foot orientation under the
 * solved shin, within its limit; the solved ankle and foot written out. */
static void k_align(const cik__foot_job *job, int begin, int end)
{
    float *const *F = job->f;
    const cik__foot_consts *K = job->k;
    const float *const *cF = (const float *const *)F;
    const cik_streams *bs = job->bs;
    for (int i = begin; i < end; i += CIK_LANES) {
        vq r = q4(v_load(bs->root_rotation_x + i), v_load(bs->root_rotation_y + i),
                  v_load(bs->root_rotation_z + i), v_load(bs->root_rotation_w + i));
        v3 p = v3_of(v_load(bs->root_position_x + i), v_load(bs->root_position_y + i),
                   v_load(bs->root_position_z + i));
        vq q0 = q4(v_load(bs->rotation_x[0] + i), v_load(bs->rotation_y[0] + i), v_load(bs->rotation_z[0] + i),
                   v_load(bs->rotation_w[0] + i));
        vq q1 = q4(v_load(bs->rotation_x[1] + i), v_load(bs->rotation_y[1] + i), v_load(bs->rotation_z[1] + i),
                   v_load(bs->rotation_w[1] + i));
        vq w0 = q_mul(r, q0), w1 = q_mul(w0, q1);
        v3 a = v3_add(v3_add(v3_add(p, q_rotate(r, kv3(K, LEG_HIPX, i))), q_rotate(w0, kv3(K, LEG_THX, i))),
                       q_rotate(w1, kv3(K, LEG_SHX, i)));
        vq df = q_ld(cF, FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, i);
        vq q2 = apply_limit(K, LEG_LIMIT + 2 * LIMIT_COUNT, i, q_norm(q_mul(q_conj(w1), df)));
        v_store(bs->rotation_x[2] + i, q2.x);
        v_store(bs->rotation_y[2] + i, q2.y);
        v_store(bs->rotation_z[2] + i, q2.z);
        v_store(bs->rotation_w[2] + i, q2.w);
        vq w2 = q_norm(q_mul(w1, q2));
        v3_st(F, FOOT_AX, i, a);
        q_st(F, FOOT_FQX, FOOT_FQY, FOOT_FQZ, FOOT_FQW, i, w2);
    }
}

const cik__foot_kernel CIK_FOOT_SYMBOL = {CIK_LANES, k_probe, k_ground_cells, k_ground, k_place_a, k_place_b, k_align};
