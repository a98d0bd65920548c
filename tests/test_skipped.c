/*
 * Non-finite data written through the bulk path: the chain is SKIPPED (pose
 * untouched bit for bit, error NaN, no passes) and no other chain notices,
 * for every backend this CPU runs.
 */
#include "common.h"

#define N 100
#define JOINTS 4

/* The stream a case corrupts. */
static float *stream_of(const cik_streams *s, int which)
{
    switch (which) {
    case 0: return s->target_x;
    case 1: return s->target_z;
    case 2: return s->root_position_y;
    case 3: return s->root_rotation_w;
    case 4: return s->root_rotation_x;
    case 5: return s->rotation_x[0];
    case 6: return s->rotation_w[JOINTS - 1];
    default: return s->rotation_z[JOINTS / 2];
    }
}
static const char *stream_name[] = {"target_x",        "target_z",   "root_position_y", "root_rotation_w",
                                    "root_rotation_x", "rotation_x[0]", "rotation_w[last]", "rotation_z[mid]"};
#define STREAM_CASES 8

T_BACKEND_TEST(skipped, non_finite_chain_is_skipped_alone)
{
    const float bad[] = {NAN, INFINITY, -INFINITY};
    const int positions[] = {0, 1, 37, 63, 64, N - 1};
    long cases = 0;
    cik_options o = t_options(be, 1);
    o.max_iterations = 6;
    /* the clean solve every corrupted one is compared against */
    cik_batch *clean = t_workload_batch(WL_RANDOM, 77, N, JOINTS);
    cr_assert_eq(cik_solve(clean, &o), CIK_OK);
    t_solution ref = t_capture(clean);
    cik_batch_destroy(clean);

    for (int w = 0; w < STREAM_CASES; ++w) {
        for (int v = 0; v < 3; ++v) {
            for (int pi = 0; pi < 6; ++pi) {
                int k = positions[pi];
                cik_batch *b = t_workload_batch(WL_RANDOM, 77, N, JOINTS);
                cik_streams st;
                cr_assert_eq(cik_batch_streams(b, &st), CIK_OK);
                stream_of(&st, w)[k] = bad[v];
                t_solution before = t_capture(b);
                cr_assert_eq(cik_solve(b, &o), CIK_OK);
                t_solution after = t_capture(b);
                const cik_result *r = &after.res[k];
                cr_assert_eq(r->flags, CIK_RESULT_SKIPPED, "%s %s=%g chain %d: flags %u", cik_backend_name(be),
                             stream_name[w], bad[v], k, r->flags);
                cr_assert(isnan(r->error), "%s: error %g", cik_backend_name(be), r->error);
                cr_assert_eq(r->iterations, 0);
                cr_assert_eq(memcmp(&before.rot[(size_t)k * JOINTS], &after.rot[(size_t)k * JOINTS],
                                    sizeof(cik_quat) * JOINTS),
                             0, "%s %s: skipped chain's pose changed", cik_backend_name(be), stream_name[w]);
                /* the bad value itself is still there, bit for bit */
                float now = stream_of(&st, w)[k];
                cr_assert_eq(memcmp(&now, &bad[v], sizeof now), 0);
                for (int i = 0; i < N; ++i) {
                    if (i == k) continue;
                    cr_assert(t_same_chain(&after, i, &ref, i),
                              "%s %s=%g at chain %d changed chain %d's solution", cik_backend_name(be),
                              stream_name[w], bad[v], k, i);
                }
                t_release(&before);
                t_release(&after);
                cik_batch_destroy(b);
                ++cases;
            }
        }
    }
    t_release(&ref);
    cr_log_info("skipped: %ld corrupted batches checked", cases);
    cr_assert_gt(cases, 0);
}

T_BACKEND_TEST(skipped, every_chain_skipped)
{
    cik_batch *b = t_workload_batch(WL_LEGS, 3, 300, 3);
    cik_streams st;
    cr_assert_eq(cik_batch_streams(b, &st), CIK_OK);
    for (int i = 0; i < 300; ++i) st.target_y[i] = NAN;
    t_solution before = t_capture(b);
    cik_options o = t_options(be, 2);
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    t_solution after = t_capture(b);
    cr_assert_eq(memcmp(before.rot, after.rot, sizeof(cik_quat) * 300 * 3), 0);
    for (int i = 0; i < 300; ++i) {
        cr_assert_eq(after.res[i].flags, CIK_RESULT_SKIPPED);
        cr_assert(isnan(after.res[i].error));
        cr_assert_eq(after.res[i].iterations, 0);
    }
    /* writing a finite target back makes the chains solvable again */
    for (int i = 0; i < 300; ++i) st.target_y[i] = 0.1f;
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    cik_result r;
    cr_assert_eq(cik_batch_result(b, 0, &r), CIK_OK);
    cr_assert_eq(r.flags & CIK_RESULT_SKIPPED, 0u);
    cr_assert(isfinite(r.error));
    t_release(&before);
    t_release(&after);
    cik_batch_destroy(b);
}
