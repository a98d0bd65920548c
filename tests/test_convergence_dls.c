/*
 * Damped least-squares steps (cik_options.ccd.dls_damping, docs/solver.md,
 * "Damped least-squares steps"): the rotation one step gives where the math
 * fixes it, scale invariance, every backend against the reference on
 * thousands of generated chains, and the convergence the defaults reach on
 * spines, tails and legs without limits.
 */
#include "common.h"
#include "legs.h"

/* Three joints at the origin (zero offsets), effector 1 * `scale` along +X,
 * target at angle `a` about +Z on the effector's circle; hinges about Z or
 * free joints. (The steps run on chains of three joints or more.) */
static cik_chain arc_chain(double a, double scale, int hinge)
{
    cik_chain c = t_chain(3);
    c.effector = t_v3((float)scale, 0, 0);
    c.target = t_v3((float)(scale * cos(a)), (float)(scale * sin(a)), 0);
    for (int j = 0; hinge && j < 3; ++j) {
        c.limit[j] = limit_hinge(t_v3(0, 0, 1), -3.0f, 3.0f);
    }
    return c;
}

/*
 * Every joint has r = E - P[j] = (s, 0, 0); with e = T - E the step solves
 * (lambda^2 I + 3 (|r|^2 I - r r^T)) y = e (free joints) or
 * (lambda^2 I + 3 k k^T) y = e with k = Z x r (hinges): both give
 * y_y = e_y / (3 s^2 + lambda^2), and each joint turns about Z by
 * w_z = s y_y, applied as normalize(w / 2, 1): angle 2 atan(w_z / 2). With
 * lambda = damping * reach = damping * s, w_z = sin(a) / (3 + damping^2) for
 * every scale s. A threshold of 1 cm lets the pass end right after the step
 * (the error left is below 2 mm), so the rotations are the step's alone.
 */
T_BACKEND_TEST(dls, one_step_rotation_is_the_damped_solution)
{
    static const double damping[] = {0.05, 0.2, 0.5};
    static const double scales[] = {1.0, 2.0, 0.25};
    const double a = 0.02;
    for (int h = 0; h < 2; ++h)
        for (int d = 0; d < 3; ++d)
            for (int s = 0; s < 3; ++s) {
                cik_chain c = arc_chain(a, scales[s], h);
                cik_options o = t_plain_options(be, 1);
                o.threshold = (float)(0.01 * scales[s]);
                o.max_iterations = 1;
                o.ccd.dls_damping = (float)damping[d];
                t_solved solved = t_solve_chain(&c, &o);
                cik_result r = solved.r;
                c = solved.c;
                double wz = sin(a) / (3.0 + damping[d] * damping[d]);
                double want = 2.0 * atan(0.5 * wz);
                cr_assert_eq(r.iterations, 1);
                cr_assert(r.flags & CIK_RESULT_CONVERGED, "%s hinge %d damping %g scale %g: not converged",
                          cik_backend_name(be), h, damping[d], scales[s]);
                for (int j = 0; j < 3; ++j) {
                    double got = t_angle_about(c.rotation[j], t_v3(0, 0, 1));
                    cr_assert(fabs(got - want) < 2e-6, "%s hinge %d damping %g scale %g joint %d: angle %.8f, want %.8f",
                              cik_backend_name(be), h, damping[d], scales[s], j, got, want);
                    /* a rotation about Z alone */
                    cr_assert(fabs(c.rotation[j].x) < 1e-7 && fabs(c.rotation[j].y) < 1e-7);
                }
                double err = scales[s] * 2.0 * sin(0.5 * (a - 3.0 * want));
                cr_assert(fabs(r.error - err) < 4e-6 * scales[s], "%s: error %g, want %g", cik_backend_name(be),
                          r.error, err);
            }
}

/* Without the step the same pass is a plain CCD sweep whose tip joint
 * aligns exactly: the option is what made the angles above. */
T_BACKEND_TEST(dls, off_is_plain_ccd)
{
    cik_chain c = arc_chain(0.02, 1.0, 0);
    cik_options o = t_plain_options(be, 1);
    o.threshold = 0.01f;
    o.max_iterations = 1;
    c = t_solve_chain(&c, &o).c;
    cr_assert(fabs(t_angle_about(c.rotation[2], t_v3(0, 0, 1)) - 0.02) < 2e-6);
    cr_assert(fabs(t_angle_about(c.rotation[0], t_v3(0, 0, 1))) < 1e-7);
}

/* Every kernel against the reference with the steps on, on spines, tails,
 * random chains with and without limits and legs: one pass in lockstep
 * (effector within 1e-5 of the chain's scale on at least 99.9 percent of
 * chains, relative to the chain's scale) and the same converged flag and
 * pass count after 10 passes on at least 99.9 percent (tails: 99.5,
 * docs/solver.md). */
T_KERNEL_TEST(dls, backends_agree_with_the_reference)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL, WL_RANDOM, WL_RANDOM_NO_LIMITS, WL_LEGS_NO_LIMITS};
    static const int joints[] = {0, 0, 6, 4, 0};
    const int n = 1000;
    long chains = 0, over = 0;
    for (int k = 0; k < 5; ++k) {
        /* the scale from every joint: these crowds stand up to 50 m from
         * the origin */
        t_agreement ag = {0, 0, 0.0, 0, 0};
        t_agree(&ag, (t_chains){kinds[k], 91, n, joints[k], 0}, t_options(CIK_BACKEND_REFERENCE, 1), be, 1);
        long same = ag.same, total = ag.total;
        chains += ag.chains;
        over += ag.over;
        cr_log_info("%s %s: %ld of %ld same passes and converged flag, %ld over 1e-5 after one pass",
                    cik_backend_name(be), wl_name(kinds[k]), same, total, ag.over);
        long allowed = kinds[k] == WL_TAIL ? 5 : 1; /* per 1000 */
        cr_assert_geq(same * 1000, total * (1000 - allowed), "%s %s: pass counts differ from the reference",
                      cik_backend_name(be), wl_name(kinds[k]));
    }
    cr_assert_leq(over * 1000, chains, "%s: %ld of %ld chains off the reference after one pass", cik_backend_name(be),
                  over, chains);
}

/* Converged within `passes` passes, percent, with the defaults. */
static double within(wl_kind kind, int bind, int passes, int n)
{
    cik_batch *b = t_workload_batch(kind, 1, n, 0);
    if (bind) {
        cik_streams st;
        cik_batch_streams(b, &st);
        for (int j = 0; j < cik_batch_joint_count(b); ++j)
            for (int i = 0; i < n; ++i) {
                st.rotation_x[j][i] = st.rotation_y[j][i] = st.rotation_z[j][i] = 0.0f;
                st.rotation_w[j][i] = 1.0f;
            }
    }
    cik_options o = t_options(cik_backend_best(), 1);
    o.max_iterations = passes;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    long conv = 0;
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cik_batch_result(b, i, &r);
        conv += (r.flags & CIK_RESULT_CONVERGED) != 0;
    }
    cik_batch_destroy(b);
    return 100.0 * (double)conv / n;
}

/* The defaults on the --quality workloads (2,000 chains each here, seed 1). */
Test(dls, defaults_converge_spines_tails_and_free_legs)
{
    const int n = 2000;
    double spine10 = within(WL_SPINE, 0, 10, n), tail16 = within(WL_TAIL, 0, 16, n);
    double legs2 = within(WL_LEGS_NO_LIMITS, 0, 2, n);
    double spine_straight = within(WL_SPINE, 1, 10, n);
    cr_log_info("spine <= 10: %.2f%%, tail <= 16: %.2f%%, legs without limits <= 2: %.2f%%, straight spine <= 10: "
                "%.2f%%",
                spine10, tail16, legs2, spine_straight);
    cr_assert_geq(spine10, 99.0);
    cr_assert_geq(tail16, 95.0);
    cr_assert_geq(legs2, 99.0);
    cr_assert_geq(spine_straight, 99.0);
}

/* The folded start (wl_fold) is the curl the math fixes: every joint bent
 * by the same angle about one axis across the bones, so the effector's bone
 * has turned from the first bone by the bends of joints 1 to J-1. A tail
 * (12 joints, swing limit 0.5 rad) bends pi / 12 per joint, half a turn
 * with joint 0's (folded back on itself); a spine (5 joints, swing limit
 * 0.375 rad) stops at 98 percent of its limit, 0.3675 rad per joint. */
Test(dls, folded_start_is_a_planar_curl)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL};
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 100; ++i) {
            cik_chain c;
            wl_chain(kinds[k], 1, i, 0, &c);
            wl_fold(&c, 1, i);
            int J = c.joint_count;
            double per = kinds[k] == WL_TAIL ? M_PI / 12.0 : 0.98 * 0.375;
            cik_quat q0 = c.rotation[0];
            for (int j = 0; j < J; ++j) {
                cik_quat q = c.rotation[j];
                cr_assert(fabs(q.x - q0.x) + fabs(q.y - q0.y) + fabs(q.z - q0.z) + fabs(q.w - q0.w) < 1e-7,
                          "%s chain %d: joint %d bends unlike joint 0", wl_name(kinds[k]), i, j);
            }
            cr_assert(fabs(2.0 * atan2(sqrt(q0.x * q0.x + q0.y * q0.y + q0.z * q0.z), q0.w) - per) < 1e-6);
            /* the effector bone's world direction against the first bone's
             * (joint 0's parent frame is the root's) */
            cik_vec3 P[CIK_MAX_JOINTS], E;
            cik_chain_forward(&c, P, &E);
            cik_vec3 first = {P[1].x - P[0].x, P[1].y - P[0].y, P[1].z - P[0].z};
            cik_vec3 last = {E.x - P[J - 1].x, E.y - P[J - 1].y, E.z - P[J - 1].z};
            double cosang = (first.x * last.x + first.y * last.y + first.z * last.z) / (t_len3(first) * t_len3(last));
            /* joints 1 .. J-1 turn the first bone's direction to the last's */
            double want = cos((J - 1) * per);
            cr_assert(fabs(cosang - want) < 2e-5, "%s chain %d: cos %.7f, want %.7f", wl_name(kinds[k]), i, cosang,
                      want);
        }
}

/* Folded spines and tails with the defaults (2,000 each, seed 1): within 10
 * passes on at least 99 percent (issue: "the straight and folded starts
 * converge too"; measured 100 percent, see docs/solver.md), no limit
 * violated. */
Test(dls, defaults_converge_folded_starts)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL};
    const int n = 2000;
    for (int k = 0; k < 2; ++k) {
        cik_batch *b = t_workload_batch(kinds[k], 1, n, 0);
        cr_assert_eq(wl_fold_batch(b, 1, 0), CIK_OK);
        cik_options o = t_options(cik_backend_best(), 1);
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        long conv = 0, outside = 0;
        for (int i = 0; i < n; ++i) {
            cik_result r;
            cik_chain c;
            cik_batch_result(b, i, &r);
            cik_batch_get_chain(b, i, &c);
            conv += (r.flags & CIK_RESULT_CONVERGED) != 0;
            for (int j = 0; j < c.joint_count; ++j) {
                double twist, swing;
                t_swing_twist(c.rotation[j], c.limit[j].axis, &twist, &swing);
                outside += swing > c.limit[j].swing_max + 1e-3 || !t_angle_in(twist, c.limit[j].min_angle,
                                                                                c.limit[j].max_angle, 1e-3);
            }
        }
        cr_log_info("folded %s: %ld of %d within 10 passes", wl_name(kinds[k]), conv, n);
        cr_assert_geq(conv * 100, 99L * n, "folded %s: %ld of %d converged", wl_name(kinds[k]), conv, n);
        cr_assert_eq(outside, 0, "folded %s: %ld joints outside their limits", wl_name(kinds[k]), outside);
        cik_batch_destroy(b);
    }
}

/* Every kernel against the reference from the folded starts, 1,000 spines
 * and 1,000 tails: one pass in lockstep (effector within 1e-5 of the
 * chain's scale on at least 99.9 percent) and the same converged flag and
 * pass count after 10 passes on at least 99.9 percent (tails: 99.5,
 * docs/solver.md). */
T_KERNEL_TEST(dls, folded_starts_agree_with_the_reference)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL};
    const int n = 1000;
    for (int k = 0; k < 2; ++k) {
        t_agreement ag = {0, 0, 0.0, 0, 0};
        t_agree(&ag, (t_chains){kinds[k], 1, n, 0, 1}, t_options(CIK_BACKEND_REFERENCE, 1), be, 1);
        long same = ag.same, over = ag.over;
        cr_log_info("%s folded %s: %ld of %d same passes and converged flag, %ld over 1e-5 after one pass",
                    cik_backend_name(be), wl_name(kinds[k]), same, n, over);
        long allowed = kinds[k] == WL_TAIL ? 5 : 1; /* per 1000 */
        cr_assert_geq(same * 1000, (long)n * (1000 - allowed), "%s folded %s: pass counts differ from the reference",
                      cik_backend_name(be), wl_name(kinds[k]));
        cr_assert_leq(over * 1000, (long)n, "%s folded %s: %ld chains off the reference after one pass",
                      cik_backend_name(be), wl_name(kinds[k]), over);
    }
}

/* A warm start, as between the frames of an animation: each spine and tail
 * solved for its target T with the defaults, then for T + 5 mm (a random
 * direction) from that solution. Of the moves whose target stays within
 * reach, at least 99 percent converge within 10 passes (measured 100). */
Test(dls, defaults_converge_warm_starts_within_reach)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL};
    const int n = 2000;
    for (int k = 0; k < 2; ++k) {
        cik_batch *b = t_workload_batch(kinds[k], 1, n, 0);
        cik_options o = t_options(cik_backend_best(), 1);
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        wl_rng r;
        wl_seed(&r, 77);
        for (int i = 0; i < n; ++i) {
            cik_chain c;
            cik_batch_get_chain(b, i, &c);
            float d[3], s = 0.005f / sqrtf(wl_in_ball(&r, 1e-4f, d));
            c.target = t_v3(c.target.x + d[0] * s, c.target.y + d[1] * s, c.target.z + d[2] * s);
            cr_assert_eq(cik_batch_set_chain(b, i, &c), CIK_OK);
        }
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        long in_reach = 0, conv = 0;
        for (int i = 0; i < n; ++i) {
            cik_result res;
            cik_batch_result(b, i, &res);
            if (res.flags & CIK_RESULT_UNREACHABLE) continue;
            ++in_reach;
            conv += (res.flags & CIK_RESULT_CONVERGED) != 0;
        }
        cr_log_info("warm %s: %ld of %ld moves within reach converged", wl_name(kinds[k]), conv, in_reach);
        cr_assert_geq(in_reach, n / 2);
        cr_assert_geq(conv * 100, 99 * in_reach, "warm %s: %ld of %ld converged", wl_name(kinds[k]), conv, in_reach);
        cik_batch_destroy(b);
    }
}

/* The hard start: a straight three-joint chain (bones 0.5 along +X,
 * reach 1.5) with the target straight behind its root, the root free or a
 * hinge about Z. Plain CCD turns the root half a turn and then creeps (31
 * passes at 1.2 behind with the hinge; the defaults without the damped
 * steps 60); the defaults land every case within 10 passes, no farther
 * than the threshold. */
T_BACKEND_TEST(dls, straight_chain_with_the_target_behind_its_root)
{
    static const float behind[] = {0.6f, 0.9f, 1.2f, 1.35f};
    for (int hinge = 0; hinge < 2; ++hinge)
        for (int k = 0; k < 4; ++k) {
            cik_chain c = t_chain(3);
            c.offset[1] = c.offset[2] = c.effector = t_v3(0.5f, 0, 0);
            if (hinge) {
                c.limit[0] = limit_hinge(t_v3(0, 0, 1), -3.14159f, 3.14159f);
            }
            c.target = t_v3(-behind[k], 0, 0);
            cik_options o = t_options(be, 1);
            t_solved s = t_solve_chain(&c, &o);
            cr_assert(s.r.flags & CIK_RESULT_CONVERGED, "%s hinge %d, target %.2f behind: error %g after %d passes",
                      cik_backend_name(be), hinge, behind[k], s.r.error, s.r.iterations);
            cr_assert(t_dist(s.e, c.target) < 1e-3);
        }
}
