/* Small vector and quaternion helpers shared by the foot-placement sources. */
#ifndef CROWDIK_FOOT_MATH_H
#define CROWDIK_FOOT_MATH_H

#include <math.h>

#include "crowdik/crowdik.h"

static inline cik_vec3 fm_v(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}
static inline cik_vec3 fm_add(cik_vec3 a, cik_vec3 b) { return fm_v(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cik_vec3 fm_sub(cik_vec3 a, cik_vec3 b) { return fm_v(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cik_vec3 fm_scale(cik_vec3 a, float s) { return fm_v(a.x * s, a.y * s, a.z * s); }
static inline float fm_dot(cik_vec3 a, cik_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline float fm_len(cik_vec3 a) { return sqrtf(fm_dot(a, a)); }
static inline cik_vec3 fm_cross(cik_vec3 a, cik_vec3 b)
{
    return fm_v(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline cik_vec3 fm_norm(cik_vec3 a)
{
    float n = fm_len(a);
    return n > 0.0f ? fm_scale(a, 1.0f / n) : a;
}

static inline cik_quat fm_q(float x, float y, float z, float w)
{
    cik_quat q = {x, y, z, w};
    return q;
}
static inline cik_quat fm_qmul(cik_quat a, cik_quat b)
{
    return fm_q(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline cik_quat fm_qconj(cik_quat q) { return fm_q(-q.x, -q.y, -q.z, q.w); }
static inline cik_quat fm_qnorm(cik_quat q)
{
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(n > 0.0f)) return fm_q(0, 0, 0, 1);
    n = 1.0f / n;
    return fm_q(q.x * n, q.y * n, q.z * n, q.w * n);
}
static inline cik_vec3 fm_rot(cik_quat q, cik_vec3 v)
{
    /* v + 2 w (u x v) + 2 u x (u x v) */
    cik_vec3 u = fm_v(q.x, q.y, q.z);
    cik_vec3 t = fm_scale(fm_cross(u, v), 2.0f);
    return fm_add(fm_add(v, fm_scale(t, q.w)), fm_cross(u, t));
}
static inline cik_quat fm_angle_axis(float angle, cik_vec3 axis)
{
    cik_vec3 a = fm_norm(axis);
    float s = sinf(0.5f * angle);
    return fm_q(a.x * s, a.y * s, a.z * s, cosf(0.5f * angle));
}
#endif
