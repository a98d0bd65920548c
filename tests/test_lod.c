/*
 * Level of detail (cik_streams.enabled): for every backend this CPU runs,
 * a solve with some chains disabled leaves each disabled chain's rotations
 * and results bitwise as they were, and gives each enabled chain bitwise
 * what a solve of the whole batch gives it, whether the enabled chains are
 * scattered, in whole groups or in runs, through cik_solve on one or two
 * threads or through cik_solve_range.
 */
#include "common.h"

#include <criterion/parameterized.h>

#define SEED 20261202u
#define CHAINS 1000

static const wl_kind kinds[] = {WL_LEGS, WL_SPINE, WL_TAIL, WL_RANDOM_HARD};
#define KIND_COUNT ((int)(sizeof kinds / sizeof kinds[0]))

/* Enable patterns: scattered at 10 % and 60 %, alternating runs of 40
 * (cutting groups), and everything but chain 0. */
static int pattern_on(int pattern, wl_rng *rng, int i)
{
    switch (pattern) {
    case 0: return wl_next(rng) % 10 == 0;
    case 1: return wl_next(rng) % 10 < 6;
    case 2: return (i / 40) % 2 == 0;
    default: return i != 0;
    }
}
#define PATTERNS 4

T_BACKEND_TEST(lod, disabled_untouched_enabled_exact)
{
    wl_rng rng;
    wl_seed(&rng, SEED);
    for (int k = 0; k < KIND_COUNT; ++k) {
        cik_batch *whole = t_workload_batch(kinds[k], SEED, CHAINS, 6);
        cik_streams s;
        cr_assert_eq(cik_batch_streams(whole, &s), CIK_OK);
        for (int i = 0; i < CHAINS; ++i) cr_assert_eq(s.enabled[i], 1, "enabled from the start");
        cik_options o = t_options(be, 1);
        cr_assert_eq(cik_solve(whole, &o), CIK_OK);
        t_solution want = t_capture(whole);
        cik_batch_destroy(whole);
        for (int pattern = 0; pattern < PATTERNS; ++pattern)
            for (int how = 0; how < 3; ++how) {
                cik_batch *b = t_workload_batch(kinds[k], SEED, CHAINS, 6);
                /* a first solve on other targets, so that disabled chains
                 * have results of their own to keep */
                cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
                static float target_y[CHAINS];
                for (int i = 0; i < CHAINS; ++i) {
                    target_y[i] = s.target_y[i];
                    s.target_y[i] -= 0.01f;
                }
                cr_assert_eq(cik_solve(b, &o), CIK_OK);
                for (int i = 0; i < CHAINS; ++i) s.target_y[i] = target_y[i];
                cik_batch *start = t_workload_batch(kinds[k], SEED, CHAINS, 6);
                /* the workload's start rotations, with the first solve's results */
                cik_streams s0;
                cr_assert_eq(cik_batch_streams(start, &s0), CIK_OK);
                for (int j = 0; j < s.joint_count; ++j)
                    for (int i = 0; i < CHAINS; ++i) {
                        s.rotation_x[j][i] = s0.rotation_x[j][i];
                        s.rotation_y[j][i] = s0.rotation_y[j][i];
                        s.rotation_z[j][i] = s0.rotation_z[j][i];
                        s.rotation_w[j][i] = s0.rotation_w[j][i];
                    }
                cik_batch_destroy(start);
                t_solution before = t_capture(b);
                for (int i = 0; i < CHAINS; ++i) s.enabled[i] = (unsigned char)pattern_on(pattern, &rng, i);
                if (how == 0) {
                    cr_assert_eq(cik_solve(b, &o), CIK_OK);
                } else if (how == 1) {
                    cik_options two = t_options(be, 2);
                    cr_assert_eq(cik_solve(b, &two), CIK_OK);
                } else {
                    cik_solve_plan plan;
                    cr_assert_eq(cik_solve_plan_init(&plan, b, &o), CIK_OK);
                    for (int c = 0; c < CHAINS; c += 77)
                        cr_assert_eq(cik_solve_range(&plan, c, c + 77 < CHAINS ? c + 77 : CHAINS), CIK_OK);
                }
                t_solution got = t_capture(b);
                int bad = 0;
                for (int i = 0; i < CHAINS && bad < 5; ++i) {
                    int ok = s.enabled[i] ? t_same_chain(&want, i, &got, i) : t_same_chain(&before, i, &got, i);
                    if (!ok) ++bad;
                    cr_expect(ok, "%s, %s, pattern %d, solve %d: %s chain %d %s", cik_backend_name(be),
                              wl_name(kinds[k]), pattern, how, s.enabled[i] ? "enabled" : "disabled", i,
                              s.enabled[i] ? "differs from the whole solve" : "was touched");
                }
                t_release(&before);
                t_release(&got);
                cik_batch_destroy(b);
            }
        t_release(&want);
    }
}
