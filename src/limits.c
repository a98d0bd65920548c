/*
 * Joint limits on one rotation, in plain scalar code: the public
 * cik_limit_apply and cik_limit_excess (crowdik.h), and their deprecated
 * foot.h names. The kernels clamp with vec_math.h's limit_clamp; the
 * reference has its own (it shares no code with the kernels). These follow
 * the specification (docs/solver.md): w >= 0 first, a hinge keeps only the
 * rotation about its axis, an angle outside its range goes to the nearer
 * bound round the circle, the swing angle is 2 atan2(|swing.xyz|, swing.w)
 * (precise for small swings, where 2 acos(swing.w) is not).
 */
#include "crowdik/crowdik.h"
#include "crowdik/foot.h"

#include "scalar_math.h"

#include <math.h>

/* q with w >= 0, its twist about the unit axis (identity where it has no
 * length) and the twist's angle. */
static cik_quat twist_of(cik_quat *q, cik_vec3 axis, float *angle)
{
    if (q->w < 0.0f) *q = quat(-q->x, -q->y, -q->z, -q->w);
    float s = q->x * axis.x + q->y * axis.y + q->z * axis.z;
    float tn = sqrtf(s * s + q->w * q->w);
    cik_quat twist = tn > 1e-12f ? quat(axis.x * (s / tn), axis.y * (s / tn), axis.z * (s / tn), q->w / tn)
                                 : quat(0, 0, 0, 1);
    *angle = 2.0f * atan2f(twist.x * axis.x + twist.y * axis.y + twist.z * axis.z, twist.w);
    return twist;
}

float cik_limit_excess(const cik_limit *l, cik_quat q)
{
    if (!l || l->type == CIK_LIMIT_NONE) return 0.0f;
    cik_vec3 axis = vec3_normalize(l->axis);
    float angle;
    cik_quat twist = twist_of(&q, axis, &angle);
    /* round the circle to the nearer bound */
    float e = fabsf(angle - clamp_angle_circular(angle, l->min_angle, l->max_angle));
    if (e > 3.14159265358979f) e = 2.0f * 3.14159265358979f - e;
    cik_quat swing = quat_mul(q, quat_conj(twist));
    float sangle = 2.0f * atan2f(vec3_length(vec3(swing.x, swing.y, swing.z)), fabsf(swing.w));
    /* a hinge allows no swing at all, a swing-twist joint up to swing_max */
    float allowed = l->type == CIK_LIMIT_HINGE ? 0.0f : l->swing_max;
    if (sangle - allowed > e) e = sangle - allowed;
    return e;
}

cik_quat cik_limit_apply(const cik_limit *l, cik_quat q)
{
    if (!l || l->type == CIK_LIMIT_NONE) return q;
    cik_vec3 axis = vec3_normalize(l->axis);
    float angle;
    cik_quat twist = twist_of(&q, axis, &angle);
    cik_quat clamped = quat_axis_angle(clamp_angle_circular(angle, l->min_angle, l->max_angle), axis.x, axis.y, axis.z);
    if (l->type == CIK_LIMIT_HINGE) return clamped;
    cik_quat swing = quat_mul(q, quat_conj(twist));
    if (swing.w < 0.0f) swing = quat(-swing.x, -swing.y, -swing.z, -swing.w);
    cik_vec3 sa = vec3(swing.x, swing.y, swing.z);
    float n = vec3_length(sa);
    if (n > 1e-12f && 2.0f * atan2f(n, swing.w) > l->swing_max)
        swing = quat_axis_angle(l->swing_max, sa.x, sa.y, sa.z);
    return quat_normalize(quat_mul(swing, clamped));
}

/* The foot.h names, deprecated: kept for one minor version. */
cik_quat cik_foot_apply_limit(const cik_limit *l, cik_quat q) { return cik_limit_apply(l, q); }
float cik_foot_limit_excess(const cik_limit *l, cik_quat q) { return cik_limit_excess(l, q); }
