/*
 * Joint limits hold on every solved rotation, for every backend this CPU
 * runs: hinges keep only the rotation about their axis within [min, max],
 * swing-twist joints keep their twist in range and their swing inside the
 * cone, and every rotation stays unit length.
 */
#include "common.h"

#include "crowdik/foot.h"
#include "legs.h"

#include <stdio.h>

#define ANGLE_TOL 1e-4
#define UNIT_TOL 1e-5

/* Checks one rotation against one (normalised) limit; returns 0 and fills
 * `why` on a violation. */
static int limit_holds(cik_quat q, const cik_limit *l, char *why, size_t n)
{
    double len = t_qlen(q);
    if (!(fabs(len - 1.0) <= UNIT_TOL)) {
        snprintf(why, n, "|q| = %.9g", len);
        return 0;
    }
    if (l->type == CIK_LIMIT_HINGE) {
        double a = t_angle_about(q, l->axis);
        double s = (double)q.x * l->axis.x + (double)q.y * l->axis.y + (double)q.z * l->axis.z;
        double off = sqrt(pow(q.x - s * l->axis.x, 2) + pow(q.y - s * l->axis.y, 2) + pow(q.z - s * l->axis.z, 2));
        if (off > ANGLE_TOL) {
            snprintf(why, n, "hinge: off-axis part %.3g", off);
            return 0;
        }
        if (!t_angle_in(a, l->min_angle, l->max_angle, ANGLE_TOL)) {
            snprintf(why, n, "hinge angle %.9g outside [%.9g, %.9g]", a, l->min_angle, l->max_angle);
            return 0;
        }
    } else if (l->type == CIK_LIMIT_SWING_TWIST) {
        double tw, sw;
        t_swing_twist(q, l->axis, &tw, &sw);
        if (!t_angle_in(tw, l->min_angle, l->max_angle, ANGLE_TOL)) {
            snprintf(why, n, "twist %.9g outside [%.9g, %.9g]", tw, l->min_angle, l->max_angle);
            return 0;
        }
        if (sw > l->swing_max + ANGLE_TOL) {
            snprintf(why, n, "swing %.9g > swing_max %.9g", sw, l->swing_max);
            return 0;
        }
    }
    return 1;
}

T_BACKEND_TEST(limits, random_limited_chains_every_backend)
{
    const int n = 700;
    long checked = 0;
    for (int J = 1; J <= 8; ++J) {
        cik_batch *b = t_workload_batch(WL_RANDOM, 100 + (uint64_t)J, n, J);
        /* the start poses satisfy the limits too (the generator's promise) */
        cik_options o = t_plain_options(be, 0);
        o.max_iterations = 12;
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        for (int i = 0; i < n; ++i) {
            cik_chain c;
            cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
            for (int j = 0; j < J; ++j) {
                char why[160];
                cr_assert(limit_holds(c.rotation[j], &c.limit[j], why, sizeof why),
                          "%s J=%d chain %d joint %d (type %d): %s", cik_backend_name(be), J, i, j,
                          (int)c.limit[j].type, why);
                ++checked;
            }
        }
        cik_batch_destroy(b);
    }
    cr_log_info("limits: %s: %ld joint rotations within their limits", cik_backend_name(be), checked);
}

/* A single hinge joint about +Z, effector along +X, target at angle theta in
 * the XY plane: the solved angle. */
static double hinge_result(cik_backend be, float lo, float hi, double theta, int *ok)
{
    cik_chain c = t_chain(1);
    c.effector = t_v3(1, 0, 0);
    c.limit[0] = limit_hinge(t_v3(0, 0, 1), lo, hi);
    c.target = t_v3((float)cos(theta), (float)sin(theta), 0);
    cik_options o = t_plain_options(be, 1);
    cik_quat q = t_solve_chain(&c, &o).c.rotation[0];
    char why[160];
    *ok = limit_holds(q, &c.limit[0], why, sizeof why);
    if (!*ok) cr_log_error("%s hinge [%g, %g] theta %.9g: %s", cik_backend_name(be), lo, hi, theta, why);
    cr_assert(fabs(q.x) + fabs(q.y) < 1e-6, "rotation off the hinge axis");
    return t_angle_about(q, t_v3(0, 0, 1));
}

/* Where an angle outside [lo, hi] goes: to the bound nearer round the
 * circle, the max where it lies counterclockwise of the range's middle
 * (docs/solver.md). */
static double nearer_bound(double theta, double lo, double hi)
{
    if (theta >= lo && theta <= hi) return theta;
    double d = theta - 0.5 * (lo + hi);
    if (d > M_PI) d -= 2 * M_PI;
    if (d < -M_PI) d += 2 * M_PI;
    return d >= 0 ? hi : lo;
}

T_BACKEND_TEST(limits, hinge_near_pi_half_angle_pitfall)
{
    for (int k = -179; k <= 179; k += 2) {
        double theta = k * M_PI / 180.0;
        int ok;
        /* [0, 3.14159]: angles down to -90 degrees clamp to 0, those past it
         * to 3.14159 (nearer round the back) */
        double a = hinge_result(be, 0.0f, 3.14159f, theta, &ok);
        double want = theta >= 0 ? theta : (theta > -M_PI / 2 ? 0.0 : 3.14159);
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [0, 3.14159] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
        /* [-3.14159, 0]: angles up to 90 degrees clamp to 0, those past it
         * to -3.14159 */
        a = hinge_result(be, -3.14159f, 0.0f, theta, &ok);
        want = theta <= 0 ? theta : (theta < M_PI / 2 ? 0.0 : -3.14159);
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [-3.14159, 0] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
        /* [-3.14159, 3.14159]: everything in range is reached */
        a = hinge_result(be, -3.14159f, 3.14159f, theta, &ok);
        cr_assert(ok && fabs(a - theta) < 1e-4, "%s [-3.14159, 3.14159] theta %.6f: angle %.9g",
                  cik_backend_name(be), theta, a);
        /* a narrow range containing 0: the nearer bound round the circle
         * (theta below -162.8 degrees goes to 1.3) */
        a = hinge_result(be, -0.7f, 1.3f, theta, &ok);
        want = nearer_bound(theta, -0.7f, 1.3f);
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [-0.7, 1.3] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
        /* a range off 0: [0.4, 2.2], the middle 1.3, the far side at -1.84 */
        a = hinge_result(be, 0.4f, 2.2f, theta, &ok);
        want = nearer_bound(theta, 0.4f, 2.2f);
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [0.4, 2.2] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
    }
    /* exactly behind: a half turn about the hinge axis, angle pi, beyond
     * 3.14159: clamped to 3.14159 (w = cos(3.14159 / 2) > 0, not 0) */
    int ok;
    double a = hinge_result(be, -3.14159f, 3.14159f, M_PI, &ok);
    cr_assert(ok, "%s: half turn escapes the [-3.14159, 3.14159] hinge (angle %.9g)", cik_backend_name(be), a);
    cr_assert(fabs(fabs(a) - 3.14159) < 1e-5, "%s: angle %.9g", cik_backend_name(be), a);
    a = hinge_result(be, 0.0f, 3.14159f, M_PI, &ok);
    cr_assert(ok && fabs(a - 3.14159) < 1e-5, "%s: [0, 3.14159] half turn: angle %.9g", cik_backend_name(be), a);
}

T_BACKEND_TEST(limits, swing_twist_cone_every_backend)
{
    /* a swing-twist joint about the bone (+X) aimed at targets all round:
     * the swing never leaves the cone and never twists */
    const float cones[] = {0.0f, 0.3f, 1.5f, 3.0f, 3.14159f};
    for (int ci = 0; ci < 5; ++ci) {
        const int n = 64;
        cik_batch *b = NULL;
        cr_assert_eq(cik_batch_create(n, 1, &b), CIK_OK);
        for (int i = 0; i < n; ++i) {
            cik_chain c = t_chain(1);
            c.effector = t_v3(1, 0, 0);
            c.limit[0] = limit_swing_twist(t_v3(1, 0, 0), -0.2f, 0.2f, cones[ci]);
            double el = M_PI * (i + 0.5) / n, az = 2.4 * i;
            c.target = t_v3((float)cos(el), (float)(sin(el) * cos(az)), (float)(sin(el) * sin(az)));
            cr_assert_eq(cik_batch_set_chain(b, i, &c), CIK_OK);
        }
        cik_options o = t_plain_options(be, 1);
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        for (int i = 0; i < n; ++i) {
            cik_chain c;
            cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
            char why[160];
            cr_assert(limit_holds(c.rotation[0], &c.limit[0], why, sizeof why), "%s cone %g target %d: %s",
                      cik_backend_name(be), cones[ci], i, why);
            double tw, sw, el = M_PI * (i + 0.5) / n;
            t_swing_twist(c.rotation[0], c.limit[0].axis, &tw, &sw);
            /* the bone points at the target as far as the cone lets it */
            double want = el < cones[ci] ? el : cones[ci];
            cr_assert(fabs(sw - want) < 2e-3, "%s cone %g target %d: swing %.9g, expected %.9g",
                      cik_backend_name(be), cones[ci], i, sw, want);
            cr_assert(fabs(tw) < 1e-4, "twist %.9g", tw);
        }
        cik_batch_destroy(b);
    }
}

/* ------------------------------------------------ one rotation, scalar */

static cik_quat aa(float angle, float x, float y, float z)
{
    float n = sqrtf(x * x + y * y + z * z), s = sinf(0.5f * angle) / n;
    return t_q(x * s, y * s, z * s, cosf(0.5f * angle));
}
static void assert_quat(cik_quat a, cik_quat b, float tol, const char *what)
{
    cr_assert(fabsf(a.x - b.x) <= tol && fabsf(a.y - b.y) <= tol && fabsf(a.z - b.z) <= tol &&
                  fabsf(a.w - b.w) <= tol,
              "%s: (%g %g %g %g), expected (%g %g %g %g)", what, a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w);
}

Test(limit_apply, hinge_clamps_drops_off_axis_and_measures)
{
    cik_limit l = {CIK_LIMIT_HINGE, t_v3(0, 0, 2), -0.5f, 1.0f, 0.0f};
    assert_quat(cik_limit_apply(&l, aa(1.5f, 0, 0, 1)), aa(1.0f, 0, 0, 1), 1e-6f, "above max");
    assert_quat(cik_limit_apply(&l, aa(-0.9f, 0, 0, 1)), aa(-0.5f, 0, 0, 1), 1e-6f, "below min");
    cr_assert_float_eq(cik_limit_excess(&l, aa(1.5f, 0, 0, 1)), 0.5f, 1e-5f);
    cr_assert_float_eq(cik_limit_excess(&l, aa(-0.9f, 0, 0, 1)), 0.4f, 1e-5f);
    /* a rotation about another axis is not the hinge's: dropped, and its
     * angle is the excess */
    assert_quat(cik_limit_apply(&l, aa(0.2f, 1, 0, 0)), t_q(0, 0, 0, 1), 1e-6f, "off axis");
    cr_assert_float_eq(cik_limit_excess(&l, aa(0.2f, 1, 0, 0)), 0.2f, 1e-5f);
    cr_assert_float_eq(cik_limit_excess(&l, aa(0.3f, 0, 0, 1)), 0.0f, 0.0f);
}

/* Past a bound across the half turn: a knee bent to -pi (range [-pi, 0])
 * and 0.2 rad further is +pi - 0.2 after w >= 0; it goes back to -pi, 0.2
 * away, not to 0, 2.94 away round the other side. Likewise a range off 0
 * on both of its sides, and the excess is the distance to that bound. */
Test(limit_apply, nearer_bound_round_the_circle)
{
    const float pi = 3.14159265f;
    cik_limit knee = {CIK_LIMIT_HINGE, t_v3(0, 0, 1), -pi, 0.0f, 0.0f};
    cik_quat q = cik_limit_apply(&knee, aa(pi - 0.2f, 0, 0, 1));
    cr_assert(fabs(t_angle_about(q, t_v3(0, 0, 1)) + pi) < 1e-5 || fabs(t_angle_about(q, t_v3(0, 0, 1)) - pi) < 1e-5,
              "knee past -pi: angle %.7g, expected -pi", t_angle_about(q, t_v3(0, 0, 1)));
    cr_assert_float_eq(cik_limit_excess(&knee, aa(pi - 0.2f, 0, 0, 1)), 0.2f, 1e-5f);
    assert_quat(cik_limit_apply(&knee, aa(1.2f, 0, 0, 1)), aa(0.0f, 0, 0, 1), 1e-6f, "knee past 0");
    cr_assert_float_eq(cik_limit_excess(&knee, aa(1.2f, 0, 0, 1)), 1.2f, 1e-5f);
    /* [0.4, 2.2]: the middle 1.3, the far side's middle 1.3 - pi = -1.84 */
    cik_limit h = {CIK_LIMIT_HINGE, t_v3(0, 0, 1), 0.4f, 2.2f, 0.0f};
    assert_quat(cik_limit_apply(&h, aa(-1.7f, 0, 0, 1)), aa(0.4f, 0, 0, 1), 1e-6f, "just above the far side's middle");
    assert_quat(cik_limit_apply(&h, aa(-2.0f, 0, 0, 1)), aa(2.2f, 0, 0, 1), 1e-6f, "just below it");
    cr_assert_float_eq(cik_limit_excess(&h, aa(-2.0f, 0, 0, 1)), 2 * pi - 4.2f, 1e-5f);
    cr_assert_float_eq(cik_limit_excess(&h, aa(3.0f, 0, 0, 1)), 0.8f, 1e-5f);
    /* a swing-twist joint's twist the same way */
    cik_limit st = {CIK_LIMIT_SWING_TWIST, t_v3(0, 1, 0), -pi, -1.0f, 0.5f};
    assert_quat(cik_limit_apply(&st, aa(pi - 0.1f, 0, 1, 0)), aa(-pi, 0, 1, 0), 1e-6f, "twist past -pi");
}

Test(limit_apply, swing_twist_clamps_each_part)
{
    cik_limit l = {CIK_LIMIT_SWING_TWIST, t_v3(0, 1, 0), -0.2f, 0.2f, 0.5f};
    cik_quat in = wl_qmul(aa(0.8f, 1, 0, 0), aa(0.1f, 0, 1, 0)); /* swing 0.8 about x, twist 0.1 */
    assert_quat(cik_limit_apply(&l, in), wl_qmul(aa(0.5f, 1, 0, 0), aa(0.1f, 0, 1, 0)), 1e-6f, "swing");
    cr_assert_float_eq(cik_limit_excess(&l, in), 0.3f, 1e-5f);
    in = wl_qmul(aa(0.3f, 0, 0, 1), aa(0.5f, 0, 1, 0));
    assert_quat(cik_limit_apply(&l, in), wl_qmul(aa(0.3f, 0, 0, 1), aa(0.2f, 0, 1, 0)), 1e-6f, "twist");
    cr_assert_float_eq(cik_limit_excess(&l, in), 0.3f, 1e-5f);
    cik_limit none = {CIK_LIMIT_NONE, t_v3(0, 0, 0), 0, 0, 0};
    cik_quat neg = t_q(0.6f, 0, 0, -0.8f);
    assert_quat(cik_limit_apply(&none, neg), neg, 0.0f, "none");
    assert_quat(cik_limit_apply(NULL, neg), neg, 0.0f, "NULL");
    cr_assert_eq(cik_limit_excess(NULL, neg), 0.0f);
}

/* Within its limit a rotation comes back as the solver leaves it: w >= 0
 * (the former foot.h function returned -q as it was). The deprecated names
 * are the same functions. */
Test(limit_apply, within_the_limit_w_made_positive)
{
    cik_limit h = {CIK_LIMIT_HINGE, t_v3(1, 0, 0), 0.0f, 2.6f, 0.0f};
    cik_limit st = {CIK_LIMIT_SWING_TWIST, t_v3(0, -1, 0), -0.6f, 0.6f, 1.5f};
    cik_quat qh = aa(0.7f, 1, 0, 0), qs = wl_qmul(aa(0.4f, 0, 0, 1), aa(0.3f, 0, -1, 0));
    cik_quat nh = t_q(-qh.x, -qh.y, -qh.z, -qh.w), ns = t_q(-qs.x, -qs.y, -qs.z, -qs.w);
    assert_quat(cik_foot_apply_limit(&h, nh), qh, 1e-6f, "hinge, -q");
    assert_quat(cik_foot_apply_limit(&st, ns), qs, 1e-6f, "swing-twist, -q");
    assert_quat(cik_limit_apply(&st, ns), cik_foot_apply_limit(&st, ns), 0.0f, "alias");
    cr_assert_eq(cik_foot_limit_excess(&st, ns), cik_limit_excess(&st, ns));
}

/* The foot kernels clamp with the solver's limits: an animated pose within
 * its limits but given as -q comes out of the pipeline (a leg that needs no
 * pass) with w >= 0, as the solver and cik_limit_apply give it. */
T_KERNEL_TEST(limits, foot_start_pose_as_the_solver_limits_it)
{
    cik_foot_leg legs[2];
    legs_adult(1.0f, legs);
    cik_foot_crowd *cr;
    cr_assert_eq(cik_foot_crowd_create(1, legs, &cr), CIK_OK);
    cik_foot_streams s;
    cr_assert_eq(cik_foot_crowd_streams(cr, &s), CIK_OK);
    static float h[16];
    cik_heightfield hf = {-2.0f, -2.0f, 1.0f, 1.0f, 4, 4, h};
    for (int i = 0; i < 16; ++i) h[i] = -5.0f; /* far below: swing feet only */
    s.pelvis_x[0] = 0, s.pelvis_y[0] = 1.0f, s.pelvis_z[0] = 0;
    s.pelvis_qx[0] = 0, s.pelvis_qy[0] = 0, s.pelvis_qz[0] = 0, s.pelvis_qw[0] = 1;
    const cik_quat pose[3] = {wl_qmul(aa(0.3f, 0, 0, 1), aa(0.2f, 0, -1, 0)), aa(0.5f, 1, 0, 0), aa(0.2f, 0, 0, 1)};
    for (int f = 0; f < 2; ++f) {
        s.weight[f] = 0.0f; /* follow the animation: the target is the animated ankle */
        for (int j = 0; j < 3; ++j) {
            s.pose_x[j][f] = -pose[j].x, s.pose_y[j][f] = -pose[j].y;
            s.pose_z[j][f] = -pose[j].z, s.pose_w[j][f] = -pose[j].w;
        }
    }
    cik_foot_options o = cik_foot_default_options();
    o.solver.backend = be;
    o.start = CIK_FOOT_START_ANIMATION;
    o.limit_tolerance = 0.0f; /* every start rotation through the limit clamp */
    cr_assert_eq(cik_foot_crowd_frame(cr, &hf, &o), CIK_OK);
    for (int f = 0; f < 2; ++f)
        for (int j = 0; j < 2; ++j) { /* the ankle is turned by align */
            cik_quat got = t_q(s.solved_x[j][f], s.solved_y[j][f], s.solved_z[j][f], s.solved_w[j][f]);
            cik_quat want = cik_limit_apply(&legs[f].limit[j], t_q(-pose[j].x, -pose[j].y, -pose[j].z, -pose[j].w));
            cr_assert(want.w > 0.0f);
            assert_quat(got, want, 2e-6f, j ? "knee" : "hip");
        }
    cik_foot_crowd_destroy(cr);
}
