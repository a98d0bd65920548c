/*
 * Scalar math for the tools, tests, benchmarks and examples: the library's
 * own scalar 3-vectors and quaternions (src/scalar_math.h, one copy for
 * both) and what only the tools need (interpolation).
 */
#ifndef CROWDIK_SUPPORT_SCALAR_MATH_H
#define CROWDIK_SUPPORT_SCALAR_MATH_H

#include "../src/scalar_math.h"

#define SM_PI_F 3.14159265f

static inline cik_vec3 vec3_lerp(cik_vec3 a, cik_vec3 b, float u) { return vec3_add(a, vec3_scale(vec3_sub(b, a), u)); }

/* The angle (radians, in [0, pi]) of the rotation from unit quaternion a
 * to b, either sign of either: 2 atan2(|v|, |w|) of conj(a) b. */
static inline double quat_angle_between(cik_quat a, cik_quat b)
{
    cik_quat d = quat_mul(quat_conj(a), b);
    double v = sqrt((double)d.x * d.x + (double)d.y * d.y + (double)d.z * d.z);
    return 2.0 * atan2(v, fabs((double)d.w));
}

/* Spherical interpolation along the shorter arc (b's sign flipped when the
 * two lie in opposite hemispheres); nearly equal rotations fall back to a
 * normalised lerp, where slerp's sin(theta) would lose precision. */
static inline cik_quat quat_slerp(cik_quat a, cik_quat b, float u)
{
    float d = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (d < 0) {
        b = quat(-b.x, -b.y, -b.z, -b.w);
        d = -d;
    }
    float wa = 1.0f - u, wb = u;
    if (d < 0.9995f) {
        float th = acosf(d), s = sinf(th);
        wa = sinf((1.0f - u) * th) / s;
        wb = sinf(u * th) / s;
    }
    return quat_normalize(quat(wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w));
}

#endif
