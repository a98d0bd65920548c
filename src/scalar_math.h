/*
 * Scalar 3-vectors and quaternions around crowdik's public types (cik_vec3,
 * cik_quat): the one copy of this small math for the library's scalar code
 * (the crowd's set-up, the heightfield, the public limit functions) and,
 * through support/scalar_math.h, for the tools, tests, benchmarks and
 * examples. The kernels have their own lane math (src/kernels/) and the
 * reference keeps its own (an oracle shares no code with what it checks).
 *
 * Quaternions are (x, y, z, w), unit, and compose as in crowdik.h:
 * quat_mul(a, b) applies b first, then a.
 */
#ifndef CROWDIK_SCALAR_MATH_H
#define CROWDIK_SCALAR_MATH_H

#include <math.h>

#include "crowdik/crowdik.h"

static inline float clampf(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* An angle in [-pi, pi] clamped to [lo, hi] (-pi <= lo <= hi <= pi) on the
 * circle, as the solver's joint limits clamp (docs/solver.md): one outside
 * goes to the bound it is nearer to round either way (the max where it
 * lies counterclockwise of the range's middle). */
static inline float clamp_angle_circular(float a, float lo, float hi)
{
    if (a >= lo && a <= hi) return a;
    const float pi = 3.14159265358979f;
    float d = a - 0.5f * (lo + hi);
    if (d > pi) d -= 2.0f * pi;
    if (d < -pi) d += 2.0f * pi;
    return d >= 0.0f ? hi : lo;
}

static inline cik_vec3 vec3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}
static inline cik_vec3 vec3_add(cik_vec3 a, cik_vec3 b) { return vec3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline cik_vec3 vec3_sub(cik_vec3 a, cik_vec3 b) { return vec3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline cik_vec3 vec3_scale(cik_vec3 a, float s) { return vec3(a.x * s, a.y * s, a.z * s); }
static inline float vec3_dot(cik_vec3 a, cik_vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline cik_vec3 vec3_cross(cik_vec3 a, cik_vec3 b)
{
    return vec3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline float vec3_length(cik_vec3 a) { return sqrtf(vec3_dot(a, a)); }
/* A zero vector stays zero (no direction to give it). */
static inline cik_vec3 vec3_normalize(cik_vec3 a)
{
    float n = vec3_length(a);
    return n > 0 ? vec3_scale(a, 1.0f / n) : a;
}
static inline cik_quat quat(float x, float y, float z, float w)
{
    cik_quat q = {x, y, z, w};
    return q;
}
static inline cik_quat quat_identity(void) { return quat(0, 0, 0, 1); }
static inline cik_quat quat_mul(cik_quat a, cik_quat b)
{
    return quat(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}
static inline cik_quat quat_conj(cik_quat q) { return quat(-q.x, -q.y, -q.z, q.w); }
/* `angle` radians about (x, y, z), which need not be unit length. */
static inline cik_quat quat_axis_angle(float angle, float x, float y, float z)
{
    float n = sqrtf(x * x + y * y + z * z), s = sinf(0.5f * angle) / n;
    return quat(x * s, y * s, z * s, cosf(0.5f * angle));
}
/* q v q*, as v + w t + u x t with t = 2 u x v (u the vector part): two
 * cross products instead of the 3x3 matrix. */
static inline cik_vec3 quat_rotate(cik_quat q, cik_vec3 v)
{
    cik_vec3 t = vec3(2 * (q.y * v.z - q.z * v.y), 2 * (q.z * v.x - q.x * v.z), 2 * (q.x * v.y - q.y * v.x));
    return vec3(v.x + q.w * t.x + (q.y * t.z - q.z * t.y), v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
                v.z + q.w * t.z + (q.x * t.y - q.y * t.x));
}
/* A zero quaternion becomes the identity (nothing better to return). */
static inline cik_quat quat_normalize(cik_quat q)
{
    float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return n > 0 ? quat(q.x / n, q.y / n, q.z / n, q.w / n) : quat_identity();
}
#endif
