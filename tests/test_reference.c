/*
 * The reference solver (CIK_BACKEND_REFERENCE) on hand-built chains whose
 * outcome the math determines: analytic joint angles, exact clamps, the
 * antiparallel and collinear starts, degenerate chains, unreachable targets
 * and the consistency of the results it records. Plain CCD (every
 * convergence option zero): the solver semantics exactly.
 */
#include "common.h"
#include "legs.h"

/* Solves one chain alone with the reference; returns its result and the
 * solved chain in *out. */
static cik_result solve_one(const cik_chain *c, float threshold, int max_iterations, cik_chain *out)
{
    cik_options o = t_plain_options(CIK_BACKEND_REFERENCE, 1);
    o.threshold = threshold;
    o.max_iterations = max_iterations;
    t_solved s = t_solve_chain(c, &o);
    *out = s.c;
    /* the recorded error is the distance the solved pose leaves */
    cr_assert(fabs(t_dist(s.e, out->target) - s.r.error) <= 1e-5, "error %.9g vs |E-T| %.9g", s.r.error,
              t_dist(s.e, out->target));
    return s.r;
}

static cik_vec3 effector_of(const cik_chain *c)
{
    cik_vec3 e;
    cr_assert_eq(cik_chain_forward(c, NULL, &e), CIK_OK);
    return e;
}

static void expect_quat(cik_quat q, cik_quat want, double tol, const char *what)
{
    /* q and -q are the same rotation */
    double d1 = fabs(q.x - want.x) + fabs(q.y - want.y) + fabs(q.z - want.z) + fabs(q.w - want.w);
    double d2 = fabs(q.x + want.x) + fabs(q.y + want.y) + fabs(q.z + want.z) + fabs(q.w + want.w);
    cr_assert(fmin(d1, d2) <= tol, "%s: got (%.9g, %.9g, %.9g, %.9g), expected (%.9g, %.9g, %.9g, %.9g)", what,
              q.x, q.y, q.z, q.w, want.x, want.y, want.z, want.w);
}

static void expect_finite_unit(const cik_chain *c, cik_result r)
{
    cr_assert(isfinite(r.error), "error %g", r.error);
    for (int j = 0; j < c->joint_count; ++j) {
        cr_assert(t_quat_finite(c->rotation[j]), "joint %d rotation not finite", j);
        cr_assert(fabs(t_qlen(c->rotation[j]) - 1.0) <= 1e-5, "joint %d |q| = %.9g", j, t_qlen(c->rotation[j]));
    }
}

Test(reference, single_joint_exact_arc)
{
    /* effector along +X, target along +Y: one step turns the joint 90 degrees about +Z */
    cik_chain c = t_chain(1);
    c.effector = t_v3(1, 0, 0);
    c.target = t_v3(0, 1, 0);
    cik_chain s;
    cik_result r = solve_one(&c, 1e-3f, 10, &s);
    cr_assert_eq(r.iterations, 1);
    cr_assert_eq(r.flags, CIK_RESULT_CONVERGED);
    cr_assert_lt(r.error, 1e-6);
    expect_quat(s.rotation[0], t_angle_axis(M_PI / 2, 0, 0, 1), 1e-6, "joint 0");
}

Test(reference, two_joint_planar_analytic_angles)
{
    /* Two unit bones along +X, both hinges about +Z, the elbow bending one
     * way only ([0, pi]). Target (1, 1, 0): the law of cosines gives the
     * elbow 90 degrees and the shoulder 0, uniquely. */
    cik_chain c = t_chain(2);
    c.offset[1] = t_v3(1, 0, 0);
    c.effector = t_v3(1, 0, 0);
    c.limit[0] = limit_hinge(t_v3(0, 0, 1), -3.14159f, 3.14159f);
    c.limit[1] = c.limit[0];
    c.limit[1].min_angle = 0.0f;
    c.rotation[0] = t_angle_axis(-0.5, 0, 0, 1);
    c.rotation[1] = t_angle_axis(0.2, 0, 0, 1);
    c.target = t_v3(1, 1, 0);
    cik_chain s;
    cik_result r = solve_one(&c, 1e-5f, 200, &s);
    cr_assert(r.flags & CIK_RESULT_CONVERGED, "error %g after %d passes", r.error, r.iterations);
    cr_assert_lt(t_dist(effector_of(&s), c.target), 1e-5);
    double a0 = t_angle_about(s.rotation[0], t_v3(0, 0, 1)), a1 = t_angle_about(s.rotation[1], t_v3(0, 0, 1));
    cr_assert(fabs(a0 - 0.0) < 1e-3, "shoulder %.9g", a0);
    cr_assert(fabs(a1 - M_PI / 2) < 1e-3, "elbow %.9g", a1);

    /* A general target (0.3, 1.2, 0): elbow acos((d^2 - 2) / 2), shoulder
     * atan2(ty, tx) - atan2(sin e, 1 + cos e). */
    c.target = t_v3(0.3f, 1.2f, 0.0f);
    r = solve_one(&c, 1e-5f, 200, &s);
    cr_assert(r.flags & CIK_RESULT_CONVERGED, "error %g", r.error);
    double d2 = 0.3 * 0.3 + 1.2 * 1.2, e = acos((d2 - 2.0) / 2.0);
    double sh = atan2(1.2, 0.3) - atan2(sin(e), 1.0 + cos(e));
    a0 = t_angle_about(s.rotation[0], t_v3(0, 0, 1));
    a1 = t_angle_about(s.rotation[1], t_v3(0, 0, 1));
    cr_assert(fabs(a0 - sh) < 1e-3, "shoulder %.9g, expected %.9g", a0, sh);
    cr_assert(fabs(a1 - e) < 1e-3, "elbow %.9g, expected %.9g", a1, e);
    /* hinges keep only the rotation about their axis */
    cr_assert(fabs(s.rotation[0].x) + fabs(s.rotation[0].y) + fabs(s.rotation[1].x) + fabs(s.rotation[1].y) < 1e-6);
}

Test(reference, two_joint_free_chain_reaches)
{
    /* no limits: a straight chain along X bends to targets inside its reach */
    cik_chain c = t_chain(2);
    c.offset[1] = t_v3(1, 0, 0);
    c.effector = t_v3(1, 0, 0);
    const float ang[] = {0.3f, 1.0f, 2.0f, -2.5f, 3.0f};
    for (int i = 0; i < 5; ++i) {
        c.target = t_v3(1.5f * cosf(ang[i]), 1.5f * sinf(ang[i]), 0.2f);
        cik_chain s;
        cik_result r = solve_one(&c, 1e-3f, 100, &s);
        cr_assert_eq(r.flags, CIK_RESULT_CONVERGED, "angle %g: flags %u error %g", ang[i], r.flags, r.error);
        cr_assert_lt(t_dist(effector_of(&s), c.target), 1e-3);
        expect_finite_unit(&s, r);
    }
}

Test(reference, hinge_clamps_to_exact_max)
{
    /* the target needs 120 degrees about Z, the hinge allows 90 */
    cik_chain c = t_chain(1);
    c.effector = t_v3(1, 0, 0);
    c.limit[0].type = CIK_LIMIT_HINGE;
    c.limit[0].axis = t_v3(0, 0, 2); /* any length: normalised when set */
    c.limit[0].min_angle = -1.0f;
    c.limit[0].max_angle = (float)(M_PI / 2);
    c.target = t_v3(cosf(2.0943951f), sinf(2.0943951f), 0);
    cik_chain s;
    cik_result r = solve_one(&c, 1e-3f, 10, &s);
    expect_quat(s.rotation[0], t_angle_axis(M_PI / 2, 0, 0, 1), 1e-6, "hinge at max");
    cr_assert_eq(r.flags, 0u);
    cr_assert_eq(r.iterations, 10);
    /* the effector stops at (0, 1, 0) */
    cr_assert(fabs(r.error - t_dist(t_v3(0, 1, 0), c.target)) < 1e-5, "error %.9g", r.error);

    /* and -120 degrees clamps to the minimum, -1 rad */
    c.target = t_v3(cosf(-2.0943951f), sinf(-2.0943951f), 0);
    r = solve_one(&c, 1e-3f, 10, &s);
    expect_quat(s.rotation[0], t_angle_axis(-1.0, 0, 0, 1), 1e-6, "hinge at min");

    /* an axis off the target's plane: only the rotation about the axis stays */
    c.limit[0].axis = t_v3(0, 0, 1);
    c.limit[0].min_angle = -3.14159f;
    c.limit[0].max_angle = 3.14159f;
    c.target = t_v3(0, 0.6f, 0.8f);
    r = solve_one(&c, 1e-3f, 10, &s);
    cr_assert(fabs(s.rotation[0].x) + fabs(s.rotation[0].y) < 1e-6);
    cr_assert(fabs(t_angle_about(s.rotation[0], t_v3(0, 0, 1)) - M_PI / 2) < 1e-4, "angle %.9g",
              t_angle_about(s.rotation[0], t_v3(0, 0, 1)));
}

/* One swing-twist joint (its limit about X, twist in +-0.3 rad, swing at
 * most `swing`), the bone along `bone`, solved for `target` (1 mm, 10
 * passes): the solved joint's twist and swing about the limit's axis. */
static cik_quat solve_swing_twist(cik_vec3 bone, float swing, cik_vec3 target, cik_result *r, double *tw, double *sw)
{
    cik_chain c = t_chain(1), s;
    c.effector = bone;
    c.limit[0] = limit_swing_twist(t_v3(1, 0, 0), -0.3f, 0.3f, swing);
    c.target = target;
    *r = solve_one(&c, 1e-3f, 10, &s);
    t_swing_twist(s.rotation[0], c.limit[0].axis, tw, sw);
    return s.rotation[0];
}

Test(reference, swing_cone_clamp)
{
    /* swing-twist about X (the bone), target 90 degrees off the bone: pure
     * swing, clamped to the 0.5 rad cone */
    cik_result r;
    double tw, sw;
    cik_quat q = solve_swing_twist(t_v3(1, 0, 0), 0.5f, t_v3(0, 1, 0), &r, &tw, &sw);
    cr_assert_leq(sw, 0.5 + 1e-5, "swing %.9g", sw);
    cr_assert(fabs(sw - 0.5) < 1e-5, "swing %.9g should sit on the cone", sw);
    cr_assert(fabs(tw) < 1e-5, "twist %.9g", tw);
    expect_quat(q, t_angle_axis(0.5, 0, 0, 1), 1e-5, "swing toward +Y");
    cr_assert_eq(r.flags, 0u);

    /* a cone of 0 keeps the bone on its axis */
    solve_swing_twist(t_v3(1, 0, 0), 0.0f, t_v3(0, 1, 0), &r, &tw, &sw);
    cr_assert_leq(sw, 1e-5, "swing %.9g", sw);
}

Test(reference, twist_clamp)
{
    /* twist axis X, the bone along Y: reaching +Z is a pure 90 degree twist
     * about X, clamped to 0.3 rad */
    cik_result r;
    double tw, sw;
    cik_quat q = solve_swing_twist(t_v3(0, 1, 0), 1.0f, t_v3(0, 0, 1), &r, &tw, &sw);
    cr_assert(fabs(tw - 0.3) < 1e-5, "twist %.9g", tw);
    cr_assert_lt(sw, 1e-5, "swing %.9g", sw);
    expect_quat(q, t_angle_axis(0.3, 1, 0, 0), 1e-5, "twist about X");
    /* the other way clamps to the minimum */
    solve_swing_twist(t_v3(0, 1, 0), 1.0f, t_v3(0, 0, -1), &r, &tw, &sw);
    cr_assert(fabs(tw + 0.3) < 1e-5, "twist %.9g", tw);
}

Test(reference, antiparallel_start_converges)
{
    /* straight chain along +X of unit bones, target straight behind the
     * root at a quarter and half the reach (a single joint reaches only its
     * sphere: the point straight behind). The first step at the tip is a
     * half turn; two equal bones then fold onto the root and need the stall
     * breaker. */
    const float behind[] = {-0.25f, -0.5f};
    for (int J = 1; J <= 6; ++J) {
        for (int i = 0; i < 2; ++i) {
            cik_chain c = t_chain(J);
            for (int j = 1; j < J; ++j) c.offset[j] = t_v3(1, 0, 0);
            c.effector = t_v3(1, 0, 0);
            c.target = t_v3(J == 1 ? -1.0f : behind[i] * (float)J, 0, 0);
            cik_chain s;
            cik_result r = solve_one(&c, 1e-3f, 30, &s);
            expect_finite_unit(&s, r);
            cr_assert(r.flags & CIK_RESULT_CONVERGED, "J=%d target x=%g: error %g after %d passes", J,
                      c.target.x, r.error, r.iterations);
            cr_assert_gt(r.iterations, 0);
        }
    }
    /* a hinge joint turns about its own axis for the half turn */
    cik_chain c = t_chain(1);
    c.effector = t_v3(1, 0, 0);
    c.limit[0] = limit_hinge(t_v3(0, 1, 0), -3.14159f, 3.14159f);
    c.target = t_v3(-1, 0, 0);
    cik_chain s;
    cik_result r = solve_one(&c, 1e-3f, 10, &s);
    cr_assert(r.flags & CIK_RESULT_CONVERGED, "error %g", r.error);
    cr_assert(fabs(s.rotation[0].x) + fabs(s.rotation[0].z) < 1e-6, "rotation stays about Y");
}

Test(reference, collinear_target_unsticks)
{
    /* straight chain along +X, target on its line between the last joint
     * and the effector: every step is aligned, only unstick() can bend it */
    for (int J = 2; J <= 6; ++J) {
        cik_chain c = t_chain(J);
        for (int j = 1; j < J; ++j) c.offset[j] = t_v3(1, 0, 0);
        c.effector = t_v3(1, 0, 0);
        c.target = t_v3((float)J - 0.4f, 0, 0);
        cik_chain s;
        cik_result r = solve_one(&c, 1e-3f, 30, &s);
        expect_finite_unit(&s, r);
        cr_assert(r.flags & CIK_RESULT_CONVERGED, "J=%d: error %g after %d passes", J, r.error, r.iterations);
        cr_assert_gt(r.iterations, 1, "J=%d must need the stall breaker", J);
        /* with one pass the chain is still straight: nothing could move, so
         * the unstick bend is all that happened */
        r = solve_one(&c, 1e-3f, 1, &s);
        cr_assert_eq(r.iterations, 1);
        cr_assert(fabs(r.error - 0.4) > 1e-3, "unstick must have bent the chain");
    }
}

Test(reference, target_at_joint_or_root)
{
    for (int J = 2; J <= 5; ++J) {
        for (int k = 0; k < J; ++k) {
            cik_chain c = t_chain(J);
            c.root_position = t_v3(0.5f, 1.0f, -2.0f);
            c.offset[0] = t_v3(0.1f, 0, 0);
            for (int j = 1; j < J; ++j) c.offset[j] = t_v3(0, 0.7f, 0.2f);
            c.effector = t_v3(0, 0.5f, 0);
            c.rotation[1] = t_angle_axis(0.3, 1, 0, 0);
            cik_vec3 p[CIK_MAX_JOINTS];
            cr_assert_eq(cik_chain_forward(&c, p, NULL), CIK_OK);
            c.target = p[k];
            cik_chain s;
            cik_result r = solve_one(&c, 1e-3f, 20, &s);
            expect_finite_unit(&s, r);
            cr_assert_eq(r.flags & CIK_RESULT_UNREACHABLE, 0u);
        }
    }
}

Test(reference, zero_length_bones_stay_finite)
{
    /* a zero bone in the middle, a zero effector, and a chain with nothing at all */
    for (int variant = 0; variant < 3; ++variant) {
        cik_chain c = t_chain(4);
        c.offset[1] = t_v3(0.8f, 0, 0);
        c.offset[2] = variant == 0 ? t_v3(0, 0, 0) : t_v3(0.5f, 0.2f, 0);
        c.offset[3] = t_v3(0.4f, 0, 0.1f);
        c.effector = variant >= 1 ? t_v3(0, 0, 0) : t_v3(0.6f, 0, 0);
        if (variant == 2)
            for (int j = 0; j < 4; ++j) c.offset[j] = t_v3(0, 0, 0);
        c.rotation[2] = t_angle_axis(0.4, 0, 1, 0);
        c.target = t_v3(0.3f, 0.9f, 0.2f);
        cik_chain s;
        cik_result r = solve_one(&c, 1e-3f, 20, &s);
        expect_finite_unit(&s, r);
        if (variant == 2) {
            /* everything sits at the root: nothing can move */
            cr_assert(fabs(r.error - t_len3(c.target)) < 1e-6, "error %g", r.error);
            cr_assert(r.flags & CIK_RESULT_UNREACHABLE);
        } else {
            cr_assert(r.flags & CIK_RESULT_CONVERGED, "variant %d: error %g", variant, r.error);
        }
    }
}

Test(reference, unreachable_target_stretches)
{
    cik_chain c = t_chain(3);
    c.root_position = t_v3(1, 0, 0);
    c.offset[0] = t_v3(0.2f, 0, 0); /* before joint 0: not part of the reach */
    c.offset[1] = t_v3(1, 0, 0);
    c.offset[2] = t_v3(0.5f, 0, 0);
    c.effector = t_v3(0.5f, 0, 0);
    c.rotation[1] = t_angle_axis(0.7, 0, 0, 1);
    const cik_vec3 targets[] = {t_v3(1.2f, 5.0f, 0.0f), t_v3(-4.0f, 0.0f, 0.0f), t_v3(4.0f, 2.0f, -3.0f)};
    for (int i = 0; i < 3; ++i) {
        c.target = targets[i];
        cik_chain s;
        cik_result r = solve_one(&c, 1e-3f, 50, &s);
        expect_finite_unit(&s, r);
        cr_assert(r.flags & CIK_RESULT_UNREACHABLE, "target %d", i);
        cr_assert_eq(r.flags & CIK_RESULT_CONVERGED, 0u);
        cik_vec3 p[CIK_MAX_JOINTS];
        cr_assert_eq(cik_chain_forward(&s, p, NULL), CIK_OK);
        double expect = t_dist(c.target, p[0]) - 2.0; /* reach 1 + 0.5 + 0.5 */
        cr_assert(fabs(r.error - expect) < 1e-3, "target %d: error %.9g, distance - reach %.9g", i, r.error,
                  expect);
    }
}

Test(reference, already_converged_does_nothing)
{
    for (int J = 1; J <= CIK_MAX_JOINTS; J += 3) {
        cik_chain c;
        wl_chain(WL_RANDOM, 7, J, J, &c);
        c.target = effector_of(&c);
        c.target.x += 4e-4f;
        cik_batch *b = NULL;
        cr_assert_eq(cik_batch_create(1, J, &b), CIK_OK);
        cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_OK);
        cik_chain before, after;
        cr_assert_eq(cik_batch_get_chain(b, 0, &before), CIK_OK);
        cik_options o = t_plain_options(CIK_BACKEND_REFERENCE, 1);
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(b, 0, &after), CIK_OK);
        cik_result r;
        cr_assert_eq(cik_batch_result(b, 0, &r), CIK_OK);
        cr_assert_eq(r.iterations, 0, "J=%d", J);
        cr_assert(r.flags & CIK_RESULT_CONVERGED);
        cr_assert(fabs(r.error - 4e-4) < 1e-5, "error %g", r.error);
        cr_assert_eq(memcmp(before.rotation, after.rotation, sizeof before.rotation), 0, "pose changed");
        cik_batch_destroy(b);
    }
}

Test(reference, results_consistent_with_pose)
{
    const wl_kind kinds[] = {WL_RANDOM, WL_RANDOM_NO_LIMITS, WL_RANDOM_HARD, WL_LEGS};
    const float thresholds[] = {1e-3f, 1e-2f};
    for (int k = 0; k < 4; ++k) {
        for (int t = 0; t < 2; ++t) {
            int J = 2 + 2 * k, n = 500;
            cik_batch *b = t_workload_batch(kinds[k], 11 + (uint64_t)t, n, J);
            cik_options o = t_plain_options(CIK_BACKEND_REFERENCE, 0);
            o.threshold = thresholds[t];
            o.max_iterations = 8;
            cr_assert_eq(cik_solve(b, &o), CIK_OK);
            for (int i = 0; i < n; ++i) {
                cik_chain c;
                cik_result r;
                cik_vec3 p[CIK_MAX_JOINTS], e;
                cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
                cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
                cr_assert_eq(cik_batch_forward(b, i, p, &e), CIK_OK);
                double err = t_dist(e, c.target);
                cr_assert(fabs(err - r.error) <= 1e-5, "%s chain %d: error %.9g, |E-T| %.9g", wl_name(kinds[k]),
                          i, r.error, err);
                cr_assert_eq((r.flags & CIK_RESULT_CONVERGED) != 0, r.error < o.threshold, "chain %d", i);
                cr_assert_eq(r.flags & CIK_RESULT_SKIPPED, 0u);
                cr_assert(r.iterations >= 0 && r.iterations <= o.max_iterations);
                /* the loop only stops early on convergence */
                if (r.iterations < o.max_iterations) cr_assert(r.flags & CIK_RESULT_CONVERGED, "chain %d", i);
                double dist = t_dist(c.target, p[0]), reach = t_reach(&c);
                if (fabs(dist - reach) > 1e-4)
                    cr_assert_eq((r.flags & CIK_RESULT_UNREACHABLE) != 0, dist > reach,
                                 "%s chain %d: |T-P0| %.9g reach %.9g flags %u", wl_name(kinds[k]), i, dist, reach,
                                 r.flags);
                for (int j = 0; j < c.joint_count; ++j)
                    cr_assert(fabs(t_qlen(c.rotation[j]) - 1.0) <= 1e-5, "chain %d joint %d", i, j);
            }
            cik_batch_destroy(b);
        }
    }
}
