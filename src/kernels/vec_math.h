/*
 * 3-vectors and quaternions over the kernel vector (vec_wide.h): one lane a
 * chain (CCD kernel) or a foot (foot kernels). The operations both kernels
 * share; each kernel keeps the ones whose edge cases are its own (the
 * shortest arc, normalisation with or without an identity fallback).
 * Include after vec_wide.h.
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

#endif
