/*
 * Convergence rates of the reference solver on generated workloads with
 * fixed seeds. The floors are the measured figures less a small margin:
 * they guard against regressions in the solver's semantics (a lost
 * antiparallel case, a reintroduced aligned cut-off, a broken stall
 * breaker). No timing here.
 */
#include "common.h"

/* Floors: measured figures less a margin of about two points (percent of
 * chains converged). Measured with the reference solver at the seeds below:
 * legs 80.36 % (mean 5.891 passes), legs without limits 88.78 %, spine
 * 13.50 %, tail 5.30 %; random chains at 30 passes, J = 2..8, without limits
 * 77.65 91.50 95.85 97.25 98.05 98.20 98.65 %, with limits 51.65 68.85 81.45
 * 87.80 89.80 91.85 92.85 %. */
#define LEGS_FLOOR 78.0
#define LEGS_MEAN_PASSES_CEIL 6.2
#define LEGS_FREE_FLOOR 86.5
#define SPINE_FLOOR 11.0
#define TAIL_FLOOR 4.0
#define RANDOM_PASSES 30
static const double random_floor_free[7] = {75.5, 89.5, 94.0, 95.5, 96.5, 96.5, 97.0};
static const double random_floor_limits[7] = {49.5, 66.5, 79.0, 85.5, 87.5, 89.5, 90.5};

static wl_stats solve_stats(wl_kind kind, uint64_t seed, int n, int joints, int passes, float threshold)
{
    cik_batch *b = t_workload_batch(kind, seed, n, joints);
    cik_options o = t_plain_options(CIK_BACKEND_REFERENCE, 0);
    o.max_iterations = passes;
    o.threshold = threshold;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    float *scratch = (float *)malloc(sizeof(float) * (size_t)n);
    cr_assert_not_null(scratch);
    wl_stats s;
    wl_collect(b, &s, scratch);
    free(scratch);
    cik_batch_destroy(b);
    cr_assert_eq(s.chains, n);
    cr_assert_eq(s.skipped, 0);
    return s;
}

Test(convergence, legs_reference_10_passes_1mm)
{
    wl_stats s = solve_stats(WL_LEGS, 1, 10000, 3, 10, 1e-3f);
    double rate = 100.0 * s.converged / s.chains;
    cr_log_info("legs (10000, 10 passes, 1 mm): converged %.2f%%, mean passes %.3f, unreachable %d, "
                "error p50 %.3g p99 %.3g max %.3g",
                rate, s.mean_passes, s.unreachable, s.error_p50, s.error_p99, s.error_max);
    /* every leg target comes from a pose within the limits */
    cr_assert_eq(s.unreachable, 0);
    cr_assert_geq(rate, LEGS_FLOOR, "legs converged %.2f%% < %.2f%%", rate, LEGS_FLOOR);
    cr_assert_leq(s.mean_passes, LEGS_MEAN_PASSES_CEIL, "legs mean passes %.3f", s.mean_passes);
    wl_stats f = solve_stats(WL_LEGS_NO_LIMITS, 1, 10000, 3, 10, 1e-3f);
    double free_rate = 100.0 * f.converged / f.chains;
    cr_log_info("legs without limits: converged %.2f%%, mean passes %.3f", free_rate, f.mean_passes);
    cr_assert_geq(free_rate, LEGS_FREE_FLOOR);
}

Test(convergence, spine_and_tail)
{
    wl_stats s = solve_stats(WL_SPINE, 2, 3000, 5, 10, 1e-3f);
    double rs = 100.0 * s.converged / s.chains;
    wl_stats t = solve_stats(WL_TAIL, 3, 2000, 12, 10, 1e-3f);
    double rt = 100.0 * t.converged / t.chains;
    cr_log_info("spine: converged %.2f%%, mean passes %.3f; tail: converged %.2f%%, mean passes %.3f", rs,
                s.mean_passes, rt, t.mean_passes);
    cr_assert_geq(rs, SPINE_FLOOR);
    cr_assert_geq(rt, TAIL_FLOOR);
}

Test(convergence, random_chains_per_joint_count)
{
    for (int limits = 0; limits <= 1; ++limits) {
        for (int J = 2; J <= 8; ++J) {
            wl_kind kind = limits ? WL_RANDOM : WL_RANDOM_NO_LIMITS;
            wl_stats s = solve_stats(kind, 40 + (uint64_t)J, 2000, J, RANDOM_PASSES, 1e-3f);
            double rate = 100.0 * s.converged / s.chains;
            double floor = limits ? random_floor_limits[J - 2] : random_floor_free[J - 2];
            cr_log_info("%s J=%d (2000, %d passes, 1 mm): converged %.2f%%, mean passes %.3f", wl_name(kind), J,
                        RANDOM_PASSES, rate, s.mean_passes);
            cr_assert_geq(rate, floor, "%s J=%d converged %.2f%% < floor %.2f%%", wl_name(kind), J, rate, floor);
        }
    }
}

/* Creatures' legs of three and four segments (a hock; a horse's fetlock),
 * with the defaults, on every backend: within 1 mm in at most three passes
 * on at least 99.9 % of chains, and no joint off its limit. */
T_BACKEND_TEST(convergence, creature_legs_within_three_passes)
{
    enum { N = 4000 };
    const wl_kind kinds[] = {WL_HOCK_LEG, WL_HIND_LEG};
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        const int J = wl_joint_count(kinds[k], 0);
        cik_batch *b = t_workload_batch(kinds[k], 77, N, J);
        cik_options o = t_options(be, 0);
        o.threshold = 1e-3f;
        o.max_iterations = 3;
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        int converged = 0;
        float worst = 0.0f;
        for (int i = 0; i < N; ++i) {
            cik_result r;
            cik_chain c;
            cr_assert_eq(cik_batch_result(b, i, &r), CIK_OK);
            cr_assert_eq(cik_batch_get_chain(b, i, &c), CIK_OK);
            converged += (r.flags & CIK_RESULT_CONVERGED) != 0;
            for (int j = 0; j < J; ++j) {
                float e = cik_limit_excess(&c.limit[j], c.rotation[j]);
                worst = e > worst ? e : worst;
            }
        }
        double rate = 100.0 * converged / N;
        cr_log_info("%s, %s: %.2f %% within 1 mm in 3 passes, worst limit excess %.2g rad", cik_backend_name(be),
                    wl_name(kinds[k]), rate, (double)worst);
        cr_assert_geq(rate, 99.9, "%s, %s: %.2f %% within 1 mm in 3 passes", cik_backend_name(be), wl_name(kinds[k]),
                      rate);
        cr_assert_leq(worst, 1e-3f, "%s, %s: a joint %.3g rad off its limit", cik_backend_name(be), wl_name(kinds[k]),
                      (double)worst);
        cik_batch_destroy(b);
    }
}

/* ccd.keep_best: on chains where limited, capped or damped steps can take
 * a chain farther from its target than an earlier pass left it (the hard
 * random chains, random chains with limits; 6 joints and fewer are
 * regrouped, 8 are not), with the defaults and with plain CCD plus
 * keep_best, on every backend and on two threads: each chain's result is,
 * bit for bit, its best pass boundary of the same solve without it (the
 * least error of the solves stopped after 0, 1, ..., 10 passes, which take
 * the same steps), the rotations those of the full solve where no earlier
 * pass is better, else of the earliest solve with that error, the
 * pass count the full solve's, converged exactly when that error is under
 * the threshold. */
T_BACKEND_TEST(convergence, keep_best_ends_on_the_best_pass)
{
    enum { N = 2000, P = 10 };
    const struct {
        wl_kind kind;
        int joints;
    } w[] = {{WL_RANDOM_HARD, 6}, {WL_RANDOM, 4}, {WL_RANDOM, 8}, {WL_RANDOM_HARD, 3}};
    for (int plain = 0; plain <= 1; ++plain)
        for (size_t t = 0; t < sizeof w / sizeof w[0]; ++t) {
            const int J = wl_joint_count(w[t].kind, w[t].joints);
            const uint64_t seed = 91 + (uint64_t)t;
            cik_options o = plain ? t_plain_options(be, 2) : t_options(be, 2);
            /* bk[k]: stopped after k passes, without keep_best */
            cik_batch *bk[P + 1];
            const float *e[P + 1];
            o.ccd.keep_best = 0;
            for (int k = 0; k <= P; ++k) {
                bk[k] = t_workload_batch(w[t].kind, seed, N, J);
                o.max_iterations = k;
                cr_assert_eq(cik_solve(bk[k], &o), CIK_OK);
                cik_streams s;
                cr_assert_eq(cik_batch_streams(bk[k], &s), CIK_OK);
                e[k] = s.result_error;
            }
            cik_batch *kb = t_workload_batch(w[t].kind, seed, N, J);
            o.ccd.keep_best = 1;
            cr_assert_eq(cik_solve(kb, &o), CIK_OK);
            int improved = 0;
            double sum_last = 0.0, sum_best = 0.0;
            for (int i = 0; i < N; ++i) {
                int at = 0;
                for (int k = 1; k <= P; ++k)
                    if (e[k][i] < e[at][i]) at = k;
                if (e[P][i] == e[at][i]) at = P; /* the last pose where no earlier one is better */
                const float best = e[at][i];
                cik_result r, rl;
                cik_chain c0, c1;
                cr_assert_eq(cik_batch_result(kb, i, &r), CIK_OK);
                cr_assert_eq(cik_batch_result(bk[P], i, &rl), CIK_OK);
                cr_assert(r.error == best, "%s %s J=%d chain %d: error %.9g, best pass %d %.9g",
                          cik_backend_name(be), wl_name(w[t].kind), J, i, (double)r.error, at, (double)best);
                cr_assert_eq(r.iterations, rl.iterations);
                cr_assert_eq((r.flags & CIK_RESULT_CONVERGED) != 0, best < o.threshold);
                cr_assert_eq(r.flags & CIK_RESULT_UNREACHABLE, rl.flags & CIK_RESULT_UNREACHABLE);
                cr_assert_eq(cik_batch_get_chain(bk[at], i, &c0), CIK_OK);
                cr_assert_eq(cik_batch_get_chain(kb, i, &c1), CIK_OK);
                cr_assert(memcmp(c0.rotation, c1.rotation, sizeof(cik_quat) * (size_t)J) == 0,
                          "%s %s J=%d chain %d: not the pose of pass %d", cik_backend_name(be), wl_name(w[t].kind),
                          J, i, at);
                improved += rl.error > best;
                sum_last += rl.error;
                sum_best += best;
            }
            cr_log_info("%s %s %s J=%d: %d of %d chains end on an earlier pass, mean error %.4f -> %.4f",
                        cik_backend_name(be), plain ? "plain" : "defaults", wl_name(w[t].kind), J, improved, N,
                        sum_last / N, sum_best / N);
            /* the hard chains exercise it */
            if (w[t].kind == WL_RANDOM_HARD && w[t].joints == 6) cr_assert_gt(improved, 0);
            cik_batch_destroy(kb);
            for (int k = 0; k <= P; ++k) cik_batch_destroy(bk[k]);
        }
}
