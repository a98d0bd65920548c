/*
 * The engine baselines of the benchmark suite (bench/peer_threejs.c,
 * bench/peer_godot.c, bench/two_bone.c) solve what they claim: ozz's
 * two-bone IK reaches every reachable ankle target, three.js's and Godot's
 * CCD land a one-joint chain on a target on its circle and keep their
 * limits. The benchmark's numbers mean something only if these hold.
 *
 * The baselines are benchmark code, not part of libcrowdik: their sources
 * are compiled into this test directly.
 */
#include <criterion/criterion.h>

#include "../bench/peer_godot.c"
#include "../bench/peer_threejs.c"
#include "../bench/two_bone.c"
#include "workloads.h"

#include <stdlib.h>

static float effector_error(const cik_chain *c)
{
    peer_pose w;
    peer_pose_update(c, &w, 0);
    return vec3_length(vec3_sub(w.effector, c->target));
}

/* The workload's leg with the ankle as effector and, as target, the ankle
 * under the toe target (as bench_peers.c builds legs-ankle). */
static void ankle_leg(int index, cik_chain *c)
{
    memset(c, 0, sizeof *c);
    wl_chain(WL_LEGS, 1, index, 0, c);
    peer_pose w;
    peer_pose_update(c, &w, 0);
    c->target = vec3_sub(c->target, quat_rotate(w.q[2], c->effector));
    c->effector = vec3(0, 0, 0);
}

Test(two_bone, reaches_every_reachable_ankle_target)
{
    int reachable = 0;
    for (int i = 0; i < 4096; ++i) {
        cik_chain c;
        ankle_leg(i, &c);
        peer_pose w;
        peer_pose_update(&c, &w, 0);
        float l1 = vec3_length(c.offset[1]), l2 = vec3_length(c.offset[2]);
        float d = vec3_length(vec3_sub(c.target, w.p[0]));
        int inside = d < l1 + l2 - 1e-3f && d > fabsf(l1 - l2) + 1e-3f;
        int outside = d > l1 + l2 + 1e-4f || d < fabsf(l1 - l2) - 1e-4f;
        int reached = two_bone_solve_leg(&c);
        /* ozz's `reached` says the same, away from float noise at the bounds */
        if (inside || outside)
            cr_assert_eq(reached, inside, "leg %d: reached %d, distance %g of %g", i, reached, (double)d,
                         (double)(l1 + l2));
        if (!inside) continue;
        ++reachable;
        cr_assert_lt(effector_error(&c), 1e-3f, "leg %d: %g m from its target", i, (double)effector_error(&c));
    }
    /* the ankle under the toe target, with the foot as the start pose holds
     * it, lies beyond full extension for about one leg in eight */
    cr_assert_gt(reachable, 3500, "only %d of 4096 legs reachable", reachable);
}

/* A straight leg hanging down, the target d below the hip: the law of
 * cosines gives the knee's angle, pi minus the triangle's angle at the knee,
 * and the pole (forward, +Z) puts the knee in front. */
Test(two_bone, straight_leg_bends_by_the_law_of_cosines_towards_the_pole)
{
    cik_chain c;
    memset(&c, 0, sizeof c);
    c.joint_count = 3;
    c.root_rotation = quat_identity();
    c.offset[1] = vec3(0, -0.45f, 0);
    c.offset[2] = vec3(0, -0.42f, 0);
    for (int j = 0; j < 3; ++j) c.rotation[j] = quat_identity();
    c.limit[1].type = CIK_LIMIT_HINGE;
    c.limit[1].axis = vec3(1, 0, 0);
    c.limit[1].max_angle = 2.6f;
    /* a slight bend so that the bend plane is defined */
    c.rotation[1] = quat_axis_angle(0.1f, 1, 0, 0);
    float d = 0.7f;
    c.target = vec3(0, -d, 0);
    cr_assert(two_bone_solve_leg(&c));
    cr_assert_lt(effector_error(&c), 1e-5f);
    float interior = acosf((0.45f * 0.45f + 0.42f * 0.42f - d * d) / (2 * 0.45f * 0.42f));
    cik_quat k = c.rotation[1];
    float knee = 2 * atan2f(k.x, k.w); /* the knee turns about +X only */
    cr_assert_float_eq(knee, SM_PI_F - interior, 1e-4f);
    cr_assert_float_eq(k.y, 0.0f, 1e-5f);
    cr_assert_float_eq(k.z, 0.0f, 1e-5f);
    peer_pose w;
    peer_pose_update(&c, &w, 0);
    cr_assert_gt(w.p[1].z, 0.1f, "the knee should point forward, to the pole (z = %g)", (double)w.p[1].z);
}

Test(two_bone, zero_weight_changes_nothing)
{
    two_bone_job job;
    memset(&job, 0, sizeof job);
    job.weight = 0.0f;
    cik_quat s = quat(1, 0, 0, 0), m = quat(1, 0, 0, 0);
    cr_assert_eq(two_bone_run(&job, &s, &m), 0);
    cr_assert(s.w == 1.0f && s.x == 0.0f && m.w == 1.0f && m.x == 0.0f);
}

/* One joint turning about Z, a unit bone along +X, the target on its circle
 * at 0.6 rad: one step aligns it exactly (0.6 < three.js's maxAngle 1). */
static void one_joint(cik_chain *c, float target_angle)
{
    memset(c, 0, sizeof *c);
    c->joint_count = 1;
    c->root_rotation = quat_identity();
    c->rotation[0] = quat_identity();
    c->effector = vec3(1, 0, 0);
    c->target = vec3(cosf(target_angle), sinf(target_angle), 0);
}

Test(threejs, one_step_lands_on_a_target_within_max_angle)
{
    cik_chain c;
    one_joint(&c, 0.6f);
    threejs_ik ik;
    threejs_ik_from_chain(&c, 10, &ik);
    int iterations = threejs_ccd_solve(&c, &ik);
    cr_assert_lt(effector_error(&c), 1e-5f);
    /* the second iteration finds nothing to turn and ends the solve */
    cr_assert_eq(iterations, 2);
    cr_assert_float_eq(2 * atan2f(c.rotation[0].z, c.rotation[0].w), 0.6f, 1e-5f);
}

Test(threejs, max_angle_caps_each_step)
{
    cik_chain c;
    one_joint(&c, 2.5f);
    threejs_ik ik;
    threejs_ik_from_chain(&c, 1, &ik);
    cr_assert_eq(threejs_ccd_solve(&c, &ik), 1);
    cr_assert_float_eq(2 * atan2f(c.rotation[0].z, c.rotation[0].w), 1.0f, 1e-5f);
}

/* A knee (hinge about +X, [0, 2.6]) pushed to hyperextend: limitation keeps
 * it on the positive side and the Euler clamp at 0. */
Test(threejs, knee_limit_holds)
{
    for (int i = 0; i < 1024; ++i) {
        cik_chain c;
        memset(&c, 0, sizeof c);
        wl_chain(WL_LEGS, 1, i, 0, &c);
        threejs_ik ik;
        threejs_ik_from_chain(&c, 10, &ik);
        threejs_ccd_solve(&c, &ik);
        cik_quat k = quat_normalize(c.rotation[1]);
        cr_assert_float_eq(k.y, 0.0f, 1e-4f);
        cr_assert_float_eq(k.z, 0.0f, 1e-4f);
        float angle = 2 * atan2f(k.x, k.w);
        cr_assert(angle >= -1e-4f && angle <= 2.6f + 1e-4f, "leg %d: knee at %g rad", i, (double)angle);
    }
}

Test(godot, one_execution_lands_on_a_target_on_the_axis_circle)
{
    cik_chain c;
    one_joint(&c, 0.6f);
    godot_ccdik m;
    godot_ccdik_from_chain(&c, &m);
    m.joint[0].axis = 2; /* Z */
    /* the second execution finds the tip within 0.01 and changes nothing */
    cr_assert_eq(godot_ccdik_solve(&c, &m, 10), 2);
    cr_assert_lt(effector_error(&c), 1e-5f);
}

/* Godot's constraint as the source writes it: a hinge in [0, 2.6] asked for
 * -0.2 reads as 0.2 about the negated axis, pi is added, and clamp_angle
 * takes the nearer bound on the circle: 2.6, fully bent. */
Test(godot, constraint_reproduces_the_source)
{
    cik_chain c;
    one_joint(&c, -0.2f);
    c.limit[0].type = CIK_LIMIT_HINGE;
    c.limit[0].axis = vec3(0, 0, 1);
    c.limit[0].max_angle = 2.6f;
    godot_ccdik m;
    godot_ccdik_from_chain(&c, &m);
    cr_assert_eq(m.joint[0].axis, 2);
    cr_assert_eq(m.joint[0].invert, 0);
    godot_ccdik_solve(&c, &m, 1);
    cr_assert_float_eq(2 * atan2f(c.rotation[0].z, c.rotation[0].w), 2.6f, 1e-4f);
}
