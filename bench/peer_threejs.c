/*
 * three.js's CCDIKSolver in C (see peer_threejs.h).
 *
 * Followed: examples/jsm/animation/CCDIKSolver.js of mrdoob/three.js
 * (updateOne, as of commit 0255e15). For `iteration` iterations, every link from the
 * effector's parent down to the root: the effector and target directions in
 * the link's world frame (the inverse of its world rotation applied), the
 * angle acos(dot) clamped to [-1, 1]; a step under 1e-5 rad is skipped ("to
 * prevent vibration of bone"); the angle is raised to minAngle and clamped to
 * maxAngle; the rotation about the normalised cross product is multiplied on
 * the right of the link's local quaternion; then `limitation` (the local
 * quaternion replaced by (axis sqrt(1 - w^2), w): a hinge that keeps w and
 * so only positive angles about the axis), then rotationMin / rotationMax
 * (the local rotation's Euler XYZ angles clamped component by component and
 * turned back into a quaternion), then the link's world matrices refreshed.
 * An iteration in which no link rotated ends the solve. There is no distance
 * test: the solver does not stop at a threshold, it runs its iterations.
 *
 * Where we had to choose:
 * - Parameters: minAngle 0 and maxAngle 1 rad, the values of the solver's
 *   own documented example; iteration = crowdik's pass count (10).
 * - Limits, crowdik's model mapped onto three.js's. A hinge whose range is
 *   one-sided ([lo, hi] with lo >= 0, as a knee) gets `limitation` = its
 *   axis (hi <= 0: the negated axis), which is how three.js's MMD loader
 *   limits knees, plus the Euler clamp of its range when the axis is a
 *   coordinate axis (the other two angles clamped to 0). A swing-twist limit
 *   about a coordinate axis becomes an Euler box: the twist's angle clamped
 *   to its range, the two other angles to +-swing_max (a box that holds the
 *   swing cone, and its corners beyond). Limits about other axes have no
 *   three.js form and are left out (the workloads here have none).
 * - The pose is kept as world quaternions and positions instead of three.js's
 *   4x4 matrices (decompose() per step): a cheaper port, not a slower one.
 * - A zero vector normalises to zero as in three.js (Vector3.normalize
 *   divides by length || 1).
 */
#include "peer_threejs.h"

#include "peer_chain.h"

/* three.js Euler.setFromRotationMatrix, order XYZ, from a unit quaternion. */
static cik_vec3 euler_xyz(cik_quat q)
{
    float m11 = 1 - 2 * (q.y * q.y + q.z * q.z), m12 = 2 * (q.x * q.y - q.w * q.z);
    float m13 = 2 * (q.x * q.z + q.w * q.y);
    float m22 = 1 - 2 * (q.x * q.x + q.z * q.z), m23 = 2 * (q.y * q.z - q.w * q.x);
    float m32 = 2 * (q.y * q.z + q.w * q.x), m33 = 1 - 2 * (q.x * q.x + q.y * q.y);
    cik_vec3 e;
    e.y = asinf(clampf(m13, -1, 1));
    if (fabsf(m13) < 0.9999999f) {
        e.x = atan2f(-m23, m33);
        e.z = atan2f(-m12, m11);
    } else {
        e.x = atan2f(m32, m22);
        e.z = 0;
    }
    return e;
}

/* three.js Quaternion.setFromEuler, order XYZ. */
static cik_quat quat_from_euler_xyz(cik_vec3 e)
{
    float c1 = cosf(0.5f * e.x), c2 = cosf(0.5f * e.y), c3 = cosf(0.5f * e.z);
    float s1 = sinf(0.5f * e.x), s2 = sinf(0.5f * e.y), s3 = sinf(0.5f * e.z);
    return quat(s1 * c2 * c3 + c1 * s2 * s3, c1 * s2 * c3 - s1 * c2 * s3, c1 * c2 * s3 + s1 * s2 * c3,
                c1 * c2 * c3 - s1 * s2 * s3);
}

/* Vector3.normalize: divides by the length, or by 1 for a zero vector. */
static cik_vec3 normalize_or_zero(cik_vec3 v)
{
    float n = vec3_length(v);
    return vec3_scale(v, 1.0f / (n > 0 ? n : 1.0f));
}

void threejs_ik_from_chain(const cik_chain *c, int iteration, threejs_ik *ik)
{
    ik->iteration = iteration;
    ik->min_angle = 0.0f;
    ik->max_angle = 1.0f;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        threejs_link *l = &ik->link[j];
        l->has_limitation = l->has_rotation_limits = 0;
        l->limitation = l->rotation_min = l->rotation_max = vec3(0, 0, 0);
        if (j >= c->joint_count) continue;
        const cik_limit *lim = &c->limit[j];
        cik_vec3 axis = vec3_normalize(lim->axis);
        float sign;
        int k = peer_coordinate_axis(axis, &sign);
        /* the range as an angle about the positive coordinate axis */
        float lo = sign > 0 ? lim->min_angle : -lim->max_angle, hi = sign > 0 ? lim->max_angle : -lim->min_angle;
        if (lim->type == CIK_LIMIT_HINGE) {
            if (lim->min_angle >= 0) {
                l->has_limitation = 1;
                l->limitation = axis;
            } else if (lim->max_angle <= 0) {
                l->has_limitation = 1;
                l->limitation = vec3_scale(axis, -1.0f);
            }
            if (k >= 0) {
                l->has_rotation_limits = 1;
                peer_set_component(&l->rotation_min, k, lo);
                peer_set_component(&l->rotation_max, k, hi);
            }
        } else if (lim->type == CIK_LIMIT_SWING_TWIST && k >= 0) {
            l->has_rotation_limits = 1;
            l->rotation_min = vec3(-lim->swing_max, -lim->swing_max, -lim->swing_max);
            l->rotation_max = vec3(lim->swing_max, lim->swing_max, lim->swing_max);
            peer_set_component(&l->rotation_min, k, lo);
            peer_set_component(&l->rotation_max, k, hi);
        }
    }
}

int threejs_ccd_solve(cik_chain *c, const threejs_ik *ik)
{
    peer_pose w;
    peer_pose_update(c, &w, 0);
    const cik_vec3 target = c->target;
    int J = c->joint_count, i = 0;
    while (i < ik->iteration) {
        ++i;
        int rotated = 0;
        for (int j = J - 1; j >= 0; --j) { /* links[0] is the effector's parent */
            const threejs_link *link = &ik->link[j];
            cik_quat inv = quat_conj(w.q[j]);
            cik_vec3 ev = normalize_or_zero(quat_rotate(inv, vec3_sub(w.effector, w.p[j])));
            cik_vec3 tv = normalize_or_zero(quat_rotate(inv, vec3_sub(target, w.p[j])));
            float angle = acosf(clampf(vec3_dot(tv, ev), -1.0f, 1.0f));
            if (angle < 1e-5f) continue;
            if (angle < ik->min_angle) angle = ik->min_angle;
            if (angle > ik->max_angle) angle = ik->max_angle;
            cik_vec3 axis = normalize_or_zero(vec3_cross(ev, tv));
            float s = sinf(0.5f * angle);
            cik_quat q = quat(axis.x * s, axis.y * s, axis.z * s, cosf(0.5f * angle));
            cik_quat local = quat_mul(c->rotation[j], q);
            if (link->has_limitation) {
                float cw = local.w > 1.0f ? 1.0f : local.w;
                float c2 = sqrtf(1 - cw * cw);
                local = quat(link->limitation.x * c2, link->limitation.y * c2, link->limitation.z * c2, cw);
            }
            if (link->has_rotation_limits) {
                cik_vec3 e = euler_xyz(local);
                for (int k = 0; k < 3; ++k)
                    peer_set_component(&e, k, clampf(peer_component(e, k), peer_component(link->rotation_min, k),
                                                peer_component(link->rotation_max, k)));
                local = quat_from_euler_xyz(e);
            }
            c->rotation[j] = local;
            peer_pose_update(c, &w, j); /* link.updateMatrixWorld(true) */
            rotated = 1;
        }
        if (!rotated) break;
    }
    return i;
}
