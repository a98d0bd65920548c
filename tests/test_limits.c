/*
 * Joint limits hold on every solved rotation, for every backend this CPU
 * runs: hinges keep only the rotation about their axis within [min, max],
 * swing-twist joints keep their twist in range and their swing inside the
 * cone, and every rotation stays unit length.
 */
#include "common.h"

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
    c.limit[0].type = CIK_LIMIT_HINGE;
    c.limit[0].axis = t_v3(0, 0, 1);
    c.limit[0].min_angle = lo;
    c.limit[0].max_angle = hi;
    c.target = t_v3((float)cos(theta), (float)sin(theta), 0);
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(1, 1, &b), CIK_OK);
    cr_assert_eq(cik_batch_set_chain(b, 0, &c), CIK_OK);
    cik_options o = t_plain_options(be, 1);
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    cik_quat q;
    cr_assert_eq(cik_batch_get_rotation(b, 0, 0, &q), CIK_OK);
    cik_batch_destroy(b);
    char why[160];
    *ok = limit_holds(q, &c.limit[0], why, sizeof why);
    if (!*ok) cr_log_error("%s hinge [%g, %g] theta %.9g: %s", cik_backend_name(be), lo, hi, theta, why);
    cr_assert(fabs(q.x) + fabs(q.y) < 1e-6, "rotation off the hinge axis");
    return t_angle_about(q, t_v3(0, 0, 1));
}

T_BACKEND_TEST(limits, hinge_near_pi_half_angle_pitfall)
{
    for (int k = -179; k <= 179; k += 2) {
        double theta = k * M_PI / 180.0;
        int ok;
        /* [0, 3.14159]: negative angles clamp to 0 */
        double a = hinge_result(be, 0.0f, 3.14159f, theta, &ok);
        double want = theta < 0 ? 0.0 : theta;
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [0, 3.14159] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
        /* [-3.14159, 0]: positive angles clamp to 0 */
        a = hinge_result(be, -3.14159f, 0.0f, theta, &ok);
        want = theta > 0 ? 0.0 : theta;
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [-3.14159, 0] theta %.6f: angle %.9g, expected %.9g",
                  cik_backend_name(be), theta, a, want);
        /* [-3.14159, 3.14159]: everything in range is reached */
        a = hinge_result(be, -3.14159f, 3.14159f, theta, &ok);
        cr_assert(ok && fabs(a - theta) < 1e-4, "%s [-3.14159, 3.14159] theta %.6f: angle %.9g",
                  cik_backend_name(be), theta, a);
        /* a narrow range containing 0: the nearer bound */
        a = hinge_result(be, -0.7f, 1.3f, theta, &ok);
        want = theta < -0.7 ? -0.7 : (theta > 1.3 ? 1.3 : theta);
        cr_assert(ok && fabs(a - want) < 1e-4, "%s [-0.7, 1.3] theta %.6f: angle %.9g, expected %.9g",
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
            c.limit[0].type = CIK_LIMIT_SWING_TWIST;
            c.limit[0].axis = t_v3(1, 0, 0);
            c.limit[0].min_angle = -0.2f;
            c.limit[0].max_angle = 0.2f;
            c.limit[0].swing_max = cones[ci];
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
