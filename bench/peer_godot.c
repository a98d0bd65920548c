/*
 * Godot's CCDIK modification in C (see peer_godot.h).
 *
 * Followed: scene/resources/skeleton_modification_3d_ccdik.cpp and
 * SkeletonModification3D::clamp_angle (skeleton_modification_3d.cpp) of
 * godotengine/godot, Godot 4.0's development line (commit 10b812d of the
 * modification; the modification stack, before CCDIK3D replaced it). One execution: every joint from the root to
 * the tip (use_high_quality_solve: for every i, joints i..tip), and for each
 * joint (_execute_ccdik_joint): the tip and the target in the joint's rest
 * space (global_pose_to_local_pose: the parent's pose times the bone's rest,
 * so the joint's origin with its parent's orientation); nothing when the tip
 * is within 0.01 of the target; else the two points projected on the plane
 * of the joint's one CCDIK axis, the difference of their 2D angles (atan2)
 * applied with rotate_local (on the right of the local basis); with the
 * constraint on, the local basis as axis-angle, the angle increased by pi
 * when the axis points against the CCDIK axis (the source's note: "the angle
 * is OVER 180 degrees"), clamp_angle (angles and bounds mapped to [0, 2 pi),
 * the bounds swapped into order, an angle outside them, or inside with
 * invert, set to the nearer bound on the circle), and the basis rebuilt from
 * the axis and the clamped angle; then the children refreshed
 * (force_update_bone_children_transforms). The modification's strength is 1.
 *
 * Where we had to choose:
 * - Iterations: the modification has none, it runs once per frame. We run
 *   up to crowdik's pass count (10) executions back to back, as ten calls,
 *   and stop once one changes nothing (every joint's tip within 0.01).
 * - Limits, crowdik's model mapped onto Godot's one axis per joint: a hinge
 *   about a coordinate axis keeps that axis and its range. A swing-twist
 *   joint gets one bending axis perpendicular to its twist axis (X where
 *   possible, so a leg's hip and ankle flex about X, the way the leg's
 *   animation moves them; along a spine or tail the joints alternate between
 *   the two perpendicular axes so that the chain bends in 3D) with the
 *   constraint +-swing_max. A range with min < 0 <= max needs invert on: in
 *   [0, 2 pi) its bounds swap and the allowed range becomes the other arc,
 *   which invert turns back (what a Godot user has to set). The twist, and a
 *   hip's abduction, have no axis: Godot's modification cannot move them.
 * - Axis-angle (Basis::get_axis_angle) is taken from the local quaternion
 *   with w >= 0: angle 2 acos(w) in [0, pi], axis its normalised vector part
 *   ((0, 1, 0) for the identity, as Godot returns).
 * - The pose is kept as world quaternions and positions, not Godot's
 *   Transform3D and global pose arrays: a cheaper port, not a slower one.
 */
#include "peer_godot.h"

#include "peer_chain.h"

#define GODOT_TAU 6.28318530717958647692f
#define GODOT_PI 3.14159265358979323846f

static cik_vec3 unit_axis(int k) { return vec3(k == 0 ? 1.0f : 0.0f, k == 1 ? 1.0f : 0.0f, k == 2 ? 1.0f : 0.0f); }

/* SkeletonModification3D::clamp_angle */
static float clamp_angle(float angle, float lo, float hi, int invert)
{
    if (angle < 0) angle = GODOT_TAU + angle;
    if (lo < 0) lo = GODOT_TAU + lo;
    if (hi < 0) hi = GODOT_TAU + hi;
    if (lo > hi) {
        float t = lo;
        lo = hi;
        hi = t;
    }
    int beyond = angle < lo || angle > hi;
    int within = angle > lo && angle < hi;
    if ((!invert && beyond) || (invert && within)) {
        float ca = cosf(angle), sa = sinf(angle);
        float dlo = (ca - cosf(lo)) * (ca - cosf(lo)) + (sa - sinf(lo)) * (sa - sinf(lo));
        float dhi = (ca - cosf(hi)) * (ca - cosf(hi)) + (sa - sinf(hi)) * (sa - sinf(hi));
        angle = dlo <= dhi ? lo : hi;
    }
    return angle;
}

void godot_ccdik_from_chain(const cik_chain *c, godot_ccdik *m)
{
    m->high_quality = 0;
    int bend = 0; /* alternates the bending axis of swing-twist joints */
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        godot_ccdik_joint *g = &m->joint[j];
        g->axis = 0;
        g->enable_constraint = g->invert = 0;
        g->angle_min = g->angle_max = 0.0f;
        if (j >= c->joint_count) continue;
        const cik_limit *lim = &c->limit[j];
        float sign;
        int k = peer_coordinate_axis(vec3_normalize(lim->axis), &sign);
        if (lim->type == CIK_LIMIT_HINGE && k >= 0) {
            g->axis = k;
            g->enable_constraint = 1;
            g->angle_min = sign > 0 ? lim->min_angle : -lim->max_angle;
            g->angle_max = sign > 0 ? lim->max_angle : -lim->min_angle;
        } else if (lim->type == CIK_LIMIT_SWING_TWIST && k >= 0) {
            int first = k == 0 ? 1 : 0, second = k == 2 ? 1 : 2;
            g->axis = (bend++ & 1) ? second : first;
            g->enable_constraint = 1;
            g->angle_min = -lim->swing_max;
            g->angle_max = lim->swing_max;
        }
        g->invert = g->enable_constraint && g->angle_min < 0 && g->angle_max >= 0;
    }
}

/* _execute_ccdik_joint; returns 1 when it changed the joint. */
static int execute_joint(cik_chain *c, peer_pose *w, const godot_ccdik_joint *g, int j)
{
    cik_quat rest_q = peer_parent_rotation(c, w, j), inv = quat_conj(rest_q);
    cik_vec3 tip = quat_rotate(inv, vec3_sub(w->effector, w->p[j]));
    cik_vec3 target = quat_rotate(inv, vec3_sub(c->target, w->p[j]));
    if (vec3_length(vec3_sub(tip, target)) <= 0.01f) return 0;

    /* the plane of the axis: (y, z) for X, (z, x) for Y, (x, y) for Z */
    int u = (g->axis + 1) % 3, v = (g->axis + 2) % 3;
    float delta = atan2f(peer_component(target, v), peer_component(target, u)) - atan2f(peer_component(tip, v), peer_component(tip, u));
    cik_vec3 axis = unit_axis(g->axis);
    cik_quat local = quat_mul(c->rotation[j], quat_axis_angle(delta, axis.x, axis.y, axis.z));

    if (g->enable_constraint) {
        cik_quat q = local.w < 0 ? quat(-local.x, -local.y, -local.z, -local.w) : local;
        float vn = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z);
        cik_vec3 rot_axis = vn > 1e-7f ? vec3(q.x / vn, q.y / vn, q.z / vn) : vec3(0, 1, 0);
        float angle = 2.0f * acosf(clampf(q.w, -1.0f, 1.0f));
        if (peer_component(rot_axis, g->axis) < 0) {
            angle += GODOT_PI;
            rot_axis = axis;
        }
        angle = clamp_angle(angle, g->angle_min, g->angle_max, g->invert);
        local = quat_axis_angle(angle, rot_axis.x, rot_axis.y, rot_axis.z);
    }
    c->rotation[j] = local;
    peer_pose_update(c, w, j);
    return 1;
}

int godot_ccdik_solve(cik_chain *c, const godot_ccdik *m, int executions)
{
    peer_pose w;
    peer_pose_update(c, &w, 0);
    int J = c->joint_count, n = 0;
    while (n < executions) {
        ++n;
        int changed = 0;
        if (m->high_quality) {
            for (int i = 0; i < J; ++i)
                for (int j = i; j < J; ++j) changed |= execute_joint(c, &w, &m->joint[j], j);
        } else {
            for (int j = 0; j < J; ++j) changed |= execute_joint(c, &w, &m->joint[j], j);
        }
        if (!changed) break;
    }
    return n;
}
