/*
 * 3-vectors, quaternions and joint limits over the kernel vector
 * (vec_wide.h): one lane a chain (CCD kernel) or a foot (foot kernels). The
 * operations both kernels share, written once; each kernel keeps the ones
 * whose edge cases are its own (the CCD kernel's q_arc leaves the half turn
 * to its callers, the foot's q_arc_any turns about a perpendicular axis;
 * the foot's q_norm falls back to the identity). Include after vec_wide.h.
 */
#ifndef CIK_VEC_MATH_H
#define CIK_VEC_MATH_H

/* Floor for a squared length before a reciprocal square root, so that lanes
 * masked out by a zero length compute finite junk instead of inf * 0. */
#define K_TINY 1e-30f

typedef struct { vf x, y, z; } v3;
typedef struct { vf x, y, z, w; } vq;

CIK_INLINE v3 v3_load(const float *x, const float *y, const float *z, int i)
{
    v3 r = {v_load(x + i), v_load(y + i), v_load(z + i)};
    return r;
}
CIK_INLINE v3 v3_add(v3 a, v3 b) { v3 r = {v_add(a.x, b.x), v_add(a.y, b.y), v_add(a.z, b.z)}; return r; }
CIK_INLINE v3 v3_sub(v3 a, v3 b) { v3 r = {v_sub(a.x, b.x), v_sub(a.y, b.y), v_sub(a.z, b.z)}; return r; }
CIK_INLINE v3 v3_scale(v3 a, vf s) { v3 r = {v_mul(a.x, s), v_mul(a.y, s), v_mul(a.z, s)}; return r; }
CIK_INLINE vf v3_dot(v3 a, v3 b) { return v_fma(a.x, b.x, v_fma(a.y, b.y, v_mul(a.z, b.z))); }
CIK_INLINE v3 v3_cross(v3 a, v3 b)
{
    v3 r = {v_fnma(a.z, b.y, v_mul(a.y, b.z)), v_fnma(a.x, b.z, v_mul(a.z, b.x)),
            v_fnma(a.y, b.x, v_mul(a.x, b.y))};
    return r;
}
CIK_INLINE v3 v3_sel(vm m, v3 a, v3 b)
{
    v3 r = {v_sel(m, a.x, b.x), v_sel(m, a.y, b.y), v_sel(m, a.z, b.z)};
    return r;
}

CIK_INLINE vq q_load(const float *x, const float *y, const float *z, const float *w, int i)
{
    vq r = {v_load(x + i), v_load(y + i), v_load(z + i), v_load(w + i)};
    return r;
}
CIK_INLINE vq q_mul(vq a, vq b)
{
    vq r;
    r.x = v_fma(a.w, b.x, v_fma(a.x, b.w, v_fnma(a.z, b.y, v_mul(a.y, b.z))));
    r.y = v_fma(a.w, b.y, v_fma(a.y, b.w, v_fnma(a.x, b.z, v_mul(a.z, b.x))));
    r.z = v_fma(a.w, b.z, v_fma(a.z, b.w, v_fnma(a.y, b.x, v_mul(a.x, b.y))));
    r.w = v_fnma(a.x, b.x, v_fnma(a.y, b.y, v_fnma(a.z, b.z, v_mul(a.w, b.w))));
    return r;
}
CIK_INLINE vq q_sel(vm m, vq a, vq b)
{
    vq r = {v_sel(m, a.x, b.x), v_sel(m, a.y, b.y), v_sel(m, a.z, b.z), v_sel(m, a.w, b.w)};
    return r;
}
/* v' = q v q* = v + w t + u x t with u = q.xyz, t = 2 u x v. */
CIK_INLINE v3 q_rotate(vq q, v3 v)
{
    v3 u = {q.x, q.y, q.z};
    v3 t = v3_cross(u, v);
    t = v3_scale(t, v_set1(2.0f));
    v3 ut = v3_cross(u, t);
    v3 r = {v_add(v_fma(q.w, t.x, v.x), ut.x), v_add(v_fma(q.w, t.y, v.y), ut.y),
            v_add(v_fma(q.w, t.z, v.z), ut.z)};
    return r;
}

/* a / |a| for a quaternion; junk (but finite) where a is zero: callers
 * never pass one (products of unit quaternions). */
CIK_INLINE vq q_normalize(vq a)
{
    vf n2 = v_fma(a.x, a.x, v_fma(a.y, a.y, v_fma(a.z, a.z, v_mul(a.w, a.w))));
    vf inv = v_rsqrt(v_max(n2, v_set1(K_TINY)));
    vq r = {v_mul(a.x, inv), v_mul(a.y, inv), v_mul(a.z, inv), v_mul(a.w, inv)};
    return r;
}

/* (s, c) / |(s, c)|, or (0, 1) where it has no length (atan2(0, 0) = 0). */
CIK_INLINE void normalize_pair(vf *s, vf *c)
{
    vf n2 = v_fma(*s, *s, v_mul(*c, *c));
    vm zero = v_lt(n2, v_set1(K_TINY));
    vf inv = v_rsqrt(v_max(n2, v_set1(K_TINY)));
    *s = v_sel(zero, v_set1(0.0f), v_mul(*s, inv));
    *c = v_sel(zero, v_set1(1.0f), v_mul(*c, inv));
}

/* Clamps a unit half-angle pair (s, c) = (sin h, cos h), c >= 0, to the
 * range whose half-angle sines and cosines are given, and returns the
 * rotation (axis * s, c). h > phi <=> sin(h - phi) = s cos(phi) - c sin(phi)
 * > 0, valid because both half-angles lie in [-pi/2, pi/2]. Comparing s with
 * sin(phi) instead would fail near +-pi/2, where sin is flat. An angle
 * outside the range goes to the bound nearer round the circle
 * (docs/solver.md): the angle's distance to a bound round the circle is
 * twice the half-angles' distance d in [0, pi/2], where sin^2 grows with
 * d, and sin^2 has period pi, so the nearer bound is the one whose sine
 * above, sin(h - phi), is the smaller in magnitude (the max on a tie). */
CIK_INLINE vq clamp_about_axis(vf s, vf c, v3 axis, vf smin, vf cmin, vf smax, vf cmax)
{
    const vf z = v_set1(0.0f);
    const vf dmax = v_fnma(c, smax, v_mul(s, cmax)), dmin = v_fnma(c, smin, v_mul(s, cmin));
    const vm out = w_or(v_gt(dmax, z), v_lt(dmin, z));
    const vm to_max = v_ge(v_mul(dmin, dmin), v_mul(dmax, dmax));
    s = v_sel(out, v_sel(to_max, smax, smin), s);
    c = v_sel(out, v_sel(to_max, cmax, cmin), c);
    vq r = {v_mul(axis.x, s), v_mul(axis.y, s), v_mul(axis.z, s), c};
    return r;
}

/* A prepared joint limit over lanes, as the batch prepares it (internal.h's
 * joint streams, the foot's leg constants copy them): the unit axis and the
 * sines and cosines of half the bounds, so that clamping needs no
 * transcendental function. */
typedef struct lane_limit {
    v3 axis;
    vf smin, cmin, smax, cmax; /* half of min_angle, max_angle */
    vf sswing, cswing;         /* half of swing_max */
} lane_limit;

/* SPEC joint limits (docs/solver.md) on rotation q: hinge on the lanes of
 * `hinge`, swing-twist on those of `swing_twist`, the others unchanged.
 * Only limited lanes are flipped to w >= 0: an unlimited joint keeps its
 * sign whatever its neighbours in the vector are (as in the reference). A
 * limited rotation always comes back rebuilt from its clamped parts (a
 * hinge drops any rotation off its axis), so a rotation within the limit
 * returns as the same rotation with w >= 0, up to rounding. */
CIK_INLINE vq limit_clamp(vm hinge, vm swing_twist, const lane_limit *l, vq q)
{
    vm limited = w_or(hinge, swing_twist);
    const vq unflipped = q;
    vm flip = v_lt(q.w, v_set1(0.0f));
    vq nq = {v_neg(q.x), v_neg(q.y), v_neg(q.z), v_neg(q.w)};
    q = q_sel(flip, nq, q);
    v3 u = {q.x, q.y, q.z};
    vf s = v3_dot(u, l->axis), c = q.w;
    normalize_pair(&s, &c);
    vq out = q;
    if (w_any(hinge)) out = q_sel(hinge, clamp_about_axis(s, c, l->axis, l->smin, l->cmin, l->smax, l->cmax), out);
    if (w_any(swing_twist)) {
        /* q = swing * twist, twist = (axis s, c) normalised */
        v3 axis = l->axis;
        vq twist = {v_mul(axis.x, s), v_mul(axis.y, s), v_mul(axis.z, s), c};
        vq conj_twist = {v_neg(twist.x), v_neg(twist.y), v_neg(twist.z), twist.w};
        vq swing = q_mul(q, conj_twist);
        twist = clamp_about_axis(s, c, axis, l->smin, l->cmin, l->smax, l->cmax);
        /* swing half-angle atan2(|swing.xyz|, swing.w) > swing_max / 2, by
         * the same sign test (swing.w >= 0 since q.w and twist.w are). */
        v3 sv = {swing.x, swing.y, swing.z};
        vf len2 = v3_dot(sv, sv);
        vf inv = v_rsqrt(v_max(len2, v_set1(K_TINY)));
        vf len = v_mul(len2, inv);
        vf ssw = l->sswing, csw = l->cswing;
        vm over = w_and(v_gt(v_fnma(swing.w, ssw, v_mul(len, csw)), v_set1(0.0f)),
                        v_gt(len2, v_set1(0.0f)));
        vf k = v_mul(inv, ssw);
        vq clamped = {v_mul(sv.x, k), v_mul(sv.y, k), v_mul(sv.z, k), csw};
        swing = q_sel(over, clamped, swing);
        out = q_sel(swing_twist, q_normalize(q_mul(swing, twist)), out);
    }
    return q_sel(limited, out, unflipped);
}

#endif
