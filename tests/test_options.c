/*
 * The convergence options (docs/solver.md, "Options"): zero means plain CCD
 * bit for bit; limb mode converges foot-placement legs in one pass, steadily
 * and within limits; the pole sets the bend plane; the generic options help
 * spines and tails; every backend agrees with the reference on all of them;
 * bad values are refused.
 */
#include "common.h"
#include "legs.h"

static void solve_ok(cik_batch *b, const cik_options *o) { cr_assert_eq(cik_solve(b, o), CIK_OK); }

/* The rotation angle between two unit quaternions, radians. */
static double angle_between(cik_quat a, cik_quat b)
{
    double w = fabs((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w);
    return 2.0 * acos(w > 1.0 ? 1.0 : w);
}

T_BACKEND_TEST(options, zero_means_plain_ccd_bit_for_bit)
{
    /* gain 1 and weights 1 are what 0 means: same bits; limb and hinge-aware
     * off, no cap: the plain semantics */
    static const wl_kind kinds[] = {WL_LEGS, WL_SPINE, WL_RANDOM};
    for (int k = 0; k < 3; ++k) {
        cik_batch *a = t_workload_batch(kinds[k], 7, 300, 4);
        cik_batch *b = t_workload_batch(kinds[k], 7, 300, 4);
        cik_options plain = t_plain_options(be, 1), ones = plain;
        ones.ccd.gain = 1.0f;
        for (int j = 0; j < CIK_MAX_JOINTS; ++j) ones.ccd.weight[j] = 1.0f;
        solve_ok(a, &plain);
        solve_ok(b, &ones);
        t_solution sa = t_capture(a), sb = t_capture(b);
        for (int i = 0; i < 300; ++i)
            cr_assert(t_same_chain(&sa, i, &sb, i), "%s %s chain %d: gain/weight 1 differs from 0",
                      cik_backend_name(be), wl_name(kinds[k]), i);
        t_release(&sa);
        t_release(&sb);
        cik_batch_destroy(a);
        cik_batch_destroy(b);
    }
}

Test(options, bad_values_refused_and_nothing_changes)
{
    cik_batch *b = t_workload_batch(WL_LEGS, 3, 40, 3);
    t_solution before = t_capture(b);
    cik_options base = cik_default_options();
    for (int k = 0; k < 17; ++k) {
        cik_options o = base;
        switch (k) {
        case 0: o.ccd.gain = -0.1f; break;
        case 1: o.ccd.gain = 2.5f; break;
        case 2: o.ccd.gain = NAN; break;
        case 3: o.ccd.max_step = -1.0f; break;
        case 4: o.ccd.max_step = 4.0f; break;
        case 5: o.ccd.weight[3] = 2.01f; break;
        case 6: o.ccd.weight[15] = -1.0f; break;
        case 7: o.ccd.hinge_aware = 2; break;
        case 8: o.ccd.limb = -1; break;
        case 9: o.ccd.dls_damping = -0.01f; break;
        case 10: o.ccd.dls_damping = 1.5f; break;
        case 11: o.ccd.dls_damping = NAN; break;
        case 12: o.ccd.stop_unreachable = 2; break;
        case 13: o.ccd.stop_unreachable = -1; break;
        case 14: o.ccd.keep_best = 2; break;
        case 15: o.ccd.keep_best = -1; break;
        default: o.ccd.max_step = INFINITY; break;
        }
        cr_assert_eq(cik_solve(b, &o), CIK_ERROR_OPTIONS, "bad option set %d accepted", k);
    }
    t_solution after = t_capture(b);
    for (int i = 0; i < 40; ++i) cr_assert(t_same_chain(&before, i, &after, i), "refused solve changed chain %d", i);
    t_release(&before);
    t_release(&after);

    /* a bad pole is refused by the setter */
    cik_chain c;
    cr_assert_eq(cik_batch_get_chain(b, 0, &c), CIK_OK);
    c.pole_weight = 1.5f;
    cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_ERROR_RANGE);
    c.pole_weight = 1.0f;
    c.pole.y = NAN;
    cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_ERROR_NON_FINITE);
    cik_batch_destroy(b);
}

/* A bad pole written on the bulk path makes its chain SKIPPED. */
T_BACKEND_TEST(options, bad_pole_on_the_bulk_path_is_skipped)
{
    cik_batch *b = t_workload_batch(WL_LEGS, 3, 40, 3);
    cik_streams s;
    cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
    s.pole_weight[5] = -0.5f;
    s.pole_x[6] = INFINITY;
    cik_options o = t_options(be, 1);
    solve_ok(b, &o);
    for (int i = 5; i <= 6; ++i) {
        cik_result r;
        cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
        cr_assert_eq(r.flags, CIK_RESULT_SKIPPED, "%s: chain %d with a bad pole not skipped", cik_backend_name(be), i);
    }
    cik_batch_destroy(b);
}

/* Legs with limits, foot-placement-like targets: the acceptance. */
T_BACKEND_TEST(options, limb_mode_lands_legs_in_one_pass)
{
    const int n = 10000;
    cik_batch *b = t_workload_batch(WL_LEGS, 11, n, 3);
    cik_batch *moved = t_workload_batch(WL_LEGS, 11, n, 3);
    cik_batch *start = t_workload_batch(WL_LEGS, 11, n, 3);
    /* the same legs with every target moved 5 mm */
    wl_rng rng;
    wl_seed(&rng, 99);
    cik_streams s;
    cr_assert_eq(cik_batch_streams(moved, &s), CIK_OK);
    for (int i = 0; i < n; ++i) {
        float x = wl_uniform(&rng, -1, 1), y = wl_uniform(&rng, -1, 1), z = wl_uniform(&rng, -1, 1);
        float k = 0.005f / sqrtf(x * x + y * y + z * z + 1e-12f);
        s.target_x[i] += x * k;
        s.target_y[i] += y * k;
        s.target_z[i] += z * k;
    }
    cik_options o = t_options(be, 1);
    solve_ok(b, &o);
    solve_ok(moved, &o);
    long within2 = 0, within5 = 0, passes = 0, violations = 0;
    double *jit = malloc(sizeof(double) * (size_t)n);
    cr_assert_not_null(jit);
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cik_chain c, cm;
        cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(moved, i, &cm), CIK_OK);
        int conv = (r.flags & CIK_RESULT_CONVERGED) != 0;
        within2 += conv && r.iterations <= 2;
        within5 += conv && r.iterations <= 5;
        passes += r.iterations;
        /* limits: hinge knee in range and on its axis, hip and ankle
         * swing and twist in range */
        double knee = t_angle_about(c.rotation[1], c.limit[1].axis);
        double off = fabs(c.rotation[1].y) + fabs(c.rotation[1].z);
        int bad = !t_angle_in(knee, c.limit[1].min_angle, c.limit[1].max_angle, 1e-4) || off > 1e-4;
        for (int j = 0; j < 3; j += 2) {
            double tw, sw;
            t_swing_twist(c.rotation[j], c.limit[j].axis, &tw, &sw);
            bad |= !t_angle_in(tw, c.limit[j].min_angle, c.limit[j].max_angle, 1e-4) ||
                   sw > c.limit[j].swing_max + 1e-4;
        }
        violations += bad;
        double worst = 0;
        for (int j = 0; j < 3; ++j) {
            double a = angle_between(c.rotation[j], cm.rotation[j]);
            worst = a > worst ? a : worst;
        }
        jit[i] = worst * 180.0 / M_PI;
    }
    /* p99 of the pose change */
    int above4 = 0;
    for (int i = 0; i < n; ++i) above4 += jit[i] > 4.0;
    free(jit);
    cr_log_info("%s legs, defaults: %.2f%% within 2 passes, %.2f%% within 5, mean passes %.3f, %ld limit "
                "violations, %.2f%% of 5 mm moves change the pose by more than 4 degrees",
                cik_backend_name(be), 100.0 * within2 / n, 100.0 * within5 / n, (double)passes / n, violations,
                100.0 * above4 / n);
    cr_assert_geq(within2 * 1000, 999L * n, "%s: %ld of %d within 2 passes", cik_backend_name(be), within2, n);
    cr_assert_eq(within5, n, "%s: %ld of %d within 5 passes", cik_backend_name(be), within5, n);
    cr_assert_leq((double)passes / n, 1.5);
    cr_assert_eq(violations, 0);
    cr_assert_leq(above4 * 100, n, "%s: pose change p99 above 4 degrees", cik_backend_name(be));
    cik_batch_destroy(b);
    cik_batch_destroy(moved);
    cik_batch_destroy(start);
}

/* Limb mode is the first pass, whatever the pass limit: with one pass
 * allowed every backend still lands the legs (the vector kernels take
 * another path when no group can stop early for regrouping). */
T_BACKEND_TEST(options, limb_mode_with_a_one_pass_limit)
{
    const int n = 1000;
    for (int limit = 1; limit <= 4; limit += 3) {
        cik_batch *b = t_workload_batch(WL_LEGS, 11, n, 3);
        cik_options o = t_options(be, 1);
        o.max_iterations = limit;
        solve_ok(b, &o);
        int converged = 0;
        for (int i = 0; i < n; ++i) {
            cik_result r;
            cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
            converged += (r.flags & CIK_RESULT_CONVERGED) != 0 && r.iterations == 1;
        }
        cr_assert_geq(converged, n - 1, "%s, at most %d passes: %d of %d legs converged in one pass",
                      cik_backend_name(be), limit, converged, n);
        cik_batch_destroy(b);
    }
}

T_BACKEND_TEST(options, limb_mode_from_the_bind_pose)
{
    /* straight legs (every rotation identity): the knee's first-order effect
     * on the distance is zero, the middle joint still closes it */
    const int n = 4000;
    cik_batch *b = t_workload_batch(WL_LEGS, 5, n, 3);
    cik_streams s;
    cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < n; ++i) {
            s.rotation_x[j][i] = s.rotation_y[j][i] = s.rotation_z[j][i] = 0.0f;
            s.rotation_w[j][i] = 1.0f;
        }
    cik_options o = t_options(be, 1);
    solve_ok(b, &o);
    long conv = 0;
    for (int i = 0; i < n; ++i) {
        cik_result r;
        cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
        conv += (r.flags & CIK_RESULT_CONVERGED) && r.iterations <= 2;
    }
    cr_log_info("%s legs from the bind pose: %.2f%% within 2 passes", cik_backend_name(be), 100.0 * conv / n);
    cr_assert_geq(conv * 1000, 995L * n);
    cik_batch_destroy(b);
}

T_BACKEND_TEST(options, limb_mode_leaves_other_chains_alone)
{
    /* spines are not limb-shaped: limb on or off, the same bits */
    static const wl_kind kinds[] = {WL_SPINE, WL_LEGS_NO_LIMITS};
    for (int k = 0; k < 2; ++k) {
        cik_batch *a = t_workload_batch(kinds[k], 2, 500, 0), *b = t_workload_batch(kinds[k], 2, 500, 0);
        cik_options on = t_options(be, 1), off = on;
        off.ccd.limb = CIK_LIMB_OFF;
        solve_ok(a, &on);
        solve_ok(b, &off);
        t_solution sa = t_capture(a), sb = t_capture(b);
        for (int i = 0; i < 500; ++i)
            cr_assert(t_same_chain(&sa, i, &sb, i), "%s %s chain %d changed by limb mode", cik_backend_name(be),
                      wl_name(kinds[k]), i);
        t_release(&sa);
        t_release(&sb);
        cik_batch_destroy(a);
        cik_batch_destroy(b);
    }
}

/* A straight leg along -Y, hinge +X (positive angles bend the knee towards
 * +Z), target straight below: without a pole the bend plane is whatever
 * the hip's shortest arcs leave; with a pole ahead (+Z) or to the side (+X)
 * the knee ends on the pole's side. */
T_BACKEND_TEST(options, pole_sets_the_bend_plane)
{
    static const float poles[3][3] = {{0, -0.45f, 1}, {1, -0.45f, 0}, {-0.7f, -0.45f, -0.7f}};
    for (int p = 0; p < 3; ++p) {
        cik_chain c = t_chain(3);
        c.offset[1] = t_v3(0, -0.45f, 0);
        c.offset[2] = t_v3(0, -0.42f, 0);
        c.effector = t_v3(0, -0.05f, 0);
        c.limit[0] = limit_swing_twist(t_v3(0, -1, 0), -3.0f, 3.0f, 1.5f);
        c.limit[1] = limit_hinge(t_v3(1, 0, 0), 0.0f, 2.6f);
        c.target = t_v3(0, -0.75f, 0);
        c.pole = t_v3(poles[p][0], poles[p][1], poles[p][2]);
        c.pole_weight = 1.0f;
        cik_options o = t_options(be, 1);
        t_solved s = t_solve_chain(&c, &o);
        const cik_vec3 *P = s.p;
        cr_assert(s.r.flags & CIK_RESULT_CONVERGED, "%s pole %d: error %g", cik_backend_name(be), p, s.r.error);
        /* the knee's offset from the hip-target line (the Y axis) points
         * at the pole's horizontal direction */
        double kx = P[1].x, kz = P[1].z, px = c.pole.x, pz = c.pole.z;
        double cosang = (kx * px + kz * pz) / (sqrt(kx * kx + kz * kz) * sqrt(px * px + pz * pz));
        cr_assert_gt(cosang, 0.999, "%s pole %d: knee (%g, %g) not towards the pole (%g, %g)",
                     cik_backend_name(be), p, kx, kz, px, pz);
    }
}

Test(options, generic_options_help_spines_and_tails)
{
    static const wl_kind kinds[] = {WL_SPINE, WL_TAIL};
    const int n = 3000;
    for (int k = 0; k < 2; ++k) {
        cik_batch *a = t_workload_batch(kinds[k], 4, n, 0), *b = t_workload_batch(kinds[k], 4, n, 0);
        cik_options plain = t_plain_options(cik_backend_best(), 1), def = t_options(cik_backend_best(), 1);
        solve_ok(a, &plain);
        solve_ok(b, &def);
        long ca = 0, cb = 0;
        double ea = 0, eb = 0;
        for (int i = 0; i < n; ++i) {
            cik_result ra, rb;
            cik_batch_result(a, i, &ra);
            cik_batch_result(b, i, &rb);
            ca += (ra.flags & CIK_RESULT_CONVERGED) != 0;
            cb += (rb.flags & CIK_RESULT_CONVERGED) != 0;
            ea += ra.error;
            eb += rb.error;
        }
        cr_log_info("%s: converged %.1f%% plain, %.1f%% defaults; mean error %.2f mm plain, %.2f mm defaults",
                    wl_name(kinds[k]), 100.0 * ca / n, 100.0 * cb / n, 1e3 * ea / n, 1e3 * eb / n);
        cr_assert_gt(cb, ca + ca / 5, "%s: defaults converge no better than plain CCD", wl_name(kinds[k]));
        cr_assert_lt(eb, 0.75 * ea);
        cik_batch_destroy(a);
        cik_batch_destroy(b);
    }
}

/* Every backend against the reference with every generic option on: one
 * pass in lockstep, and the same pass counts after a full solve. */
T_KERNEL_TEST(options, backends_agree_with_every_option)
{
    static const wl_kind kinds[] = {WL_RANDOM, WL_RANDOM_NO_LIMITS, WL_SPINE, WL_LEGS};
    static const int joints[] = {1, 2, 3, 5, 8};
    cik_options custom = cik_default_options();
    custom.ccd.gain = 1.3f;
    custom.ccd.max_step = 0.12f;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) custom.ccd.weight[j] = 1.0f - 0.04f * (float)j;
    const int n = 400;
    t_agreement ag = {0, 0, 0.0, 0, 0};
    for (int k = 0; k < 4; ++k) {
        for (int ji = 0; ji < 5; ++ji) {
            int J = joints[ji];
            if (kinds[k] == WL_SPINE || kinds[k] == WL_LEGS) {
                if (ji > 0) continue;
                J = 0;
            }
            /* the scale from the root and the effector */
            t_agree(&ag, (t_chains){kinds[k], 40 + (uint64_t)ji, n, J, 0}, custom, be, 0);
            cr_assert_leq(ag.worst, 1e-3, "%s %s J=%d: %g apart after one pass", cik_backend_name(be),
                          wl_name(kinds[k]), J, ag.worst);
        }
    }
    cr_log_info("%s with every option: %ld of %ld chains over 1e-5 after one pass; %ld of %ld same passes and "
                "converged flag",
                cik_backend_name(be), ag.over, ag.chains, ag.same, ag.total);
    cr_assert_leq(ag.over * 1000, ag.chains, "%s: too many chains off the reference after one pass",
                  cik_backend_name(be));
    cr_assert_geq(ag.same * 1000, ag.total * 999, "%s: pass counts differ from the reference", cik_backend_name(be));
}

/* Two-joint limbs (hip and knee, the ankle as the effector: the foot
 * crowd's legs), solved by limb mode's knee step and aim (docs/solver.md,
 * Limb mode): the legs of WL_LEGS cut at the ankle, roots at the origin so
 * that a hundredth of a millimetre is above the floats' resolution, the
 * targets the ankle of a pose within the knee's hinge range (half of them
 * near the start pose, half from nearly straight, 0.01 rad, to 2.51 rad).
 * With a threshold of 0.01 mm every leg meets its target in its one limb
 * pass on every backend, and ends where the reference puts it. (The
 * knee's second closing, for what its closed form in float leaves, does
 * not change these legs: they pass without it.) */
T_BACKEND_TEST(options, two_joint_limbs_meet_their_targets_in_one_pass)
{
    const int n = 4000;
    const float threshold = 1e-5f;
    cik_batch *legs = t_workload_batch(WL_LEGS, 23, n, 3);
    cik_batch *b = NULL, *ref = NULL;
    cr_assert_eq(cik_batch_create(n, 2, &b), CIK_OK);
    cr_assert_eq(cik_batch_create(n, 2, &ref), CIK_OK);
    for (int i = 0; i < n; ++i) {
        cik_chain c;
        cr_assert_eq(cik_batch_get_chain(legs, i, &c), CIK_OK);
        /* the target's pose: the start pose's knee bent on by the
         * difference the workload drew for the toe's pose, hip turned too */
        cik_chain t = c;
        t.joint_count = 2;
        t.root_position = t_v3(0.0f, c.root_position.y, 0.0f);
        t.effector = c.offset[2];
        const double dk = 0.3 * (double)((i % 7) - 3) / 3.0, dh = 0.1 * (double)((i % 5) - 2) / 2.0;
        double bend = t_angle_about(c.rotation[1], c.limit[1].axis) + dk;
        bend = i % 2 ? 0.01 + 0.25 * (double)(i % 11) : (bend < 0.05 ? 0.05 : (bend > 2.5 ? 2.5 : bend));
        const cik_quat h = t_angle_axis(dh, 1, 0, 0), q = c.rotation[0];
        cik_chain p = t;
        p.rotation[0] = t_q(h.w * q.x + h.x * q.w + h.y * q.z - h.z * q.y, h.w * q.y - h.x * q.z + h.y * q.w + h.z * q.x,
                            h.w * q.z + h.x * q.y - h.y * q.x + h.z * q.w, h.w * q.w - h.x * q.x - h.y * q.y - h.z * q.z);
        p.rotation[1] = t_angle_axis(bend, 1, 0, 0);
        cr_assert_eq(cik_chain_forward(&p, NULL, &t.target), CIK_OK);
        cr_assert_eq(cik_batch_set_chain(b, i, &t), CIK_OK);
        cr_assert_eq(cik_batch_set_chain(ref, i, &t), CIK_OK);
    }
    cik_batch_destroy(legs);
    cik_options o = t_options(be, 1), r = t_options(CIK_BACKEND_REFERENCE, 1);
    o.threshold = r.threshold = threshold;
    solve_ok(b, &o);
    solve_ok(ref, &r);
    int met = 0;
    double worst = 0.0, apart = 0.0;
    for (int i = 0; i < n; ++i) {
        cik_result res;
        cik_chain c, cr;
        cr_assert_eq(cik_batch_result(b, i, &res), CIK_OK);
        met += (res.flags & CIK_RESULT_CONVERGED) != 0 && res.iterations <= 1 && res.error <= threshold;
        worst = res.error > worst ? res.error : worst;
        cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
        cr_assert_eq(cik_batch_get_chain(ref, i, &cr), CIK_OK);
        cik_vec3 e, er;
        cr_assert_eq(cik_chain_forward(&c, NULL, &e), CIK_OK);
        cr_assert_eq(cik_chain_forward(&cr, NULL, &er), CIK_OK);
        const double d = sqrt((e.x - er.x) * (e.x - er.x) + (e.y - er.y) * (e.y - er.y) + (e.z - er.z) * (e.z - er.z));
        apart = d > apart ? d : apart;
    }
    cr_log_info("%s two-joint limbs: %d of %d within %g m in one pass, worst error %.3g m, %.3g m from the reference",
                cik_backend_name(be), met, n, (double)threshold, worst, apart);
    cr_assert_eq(met, n, "%s: %d of %d two-joint limbs met the target in one pass (worst %g m)", cik_backend_name(be),
                 met, n, worst);
    cr_assert_leq(apart, 2.0 * threshold, "%s: an ankle %g m from the reference's", cik_backend_name(be), apart);
    cik_batch_destroy(b);
    cik_batch_destroy(ref);
}
