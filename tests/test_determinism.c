/*
 * Determinism: for every backend this CPU runs, the same inputs give bitwise
 * the same rotations and results (compared with memcmp, never with a
 * tolerance)
 *   - across repeated solves of the same inputs,
 *   - across thread counts 1, 2, 3, 4, 8 and 16 (more threads than cores is
 *     fine: every lane is solved alone, whichever thread takes its chunk),
 *   - across batch positions and sizes: a chain solved alone, in a batch of
 *     17, 100 or 1000 chains, at the first, a middle or the last slot, with
 *     other chains of the same workload (and SKIPPED chains) beside it.
 * The chains are generated (support/workloads.c): chain i of a workload
 * depends only on (seed, i), so it can be put anywhere.
 */
#include "common.h"

#define SEED 20261130u
#define BASE_CHAINS 1000

static const wl_kind kinds[] = {WL_LEGS, WL_RANDOM, WL_RANDOM_HARD};
#define KIND_COUNT ((int)(sizeof kinds / sizeof kinds[0]))
#define RANDOM_JOINTS 6

static int joints_of(wl_kind kind) { return wl_joint_count(kind, RANDOM_JOINTS); }

/* Chain `index` of the workload, with every 29th chain (by workload index)
 * made invalid through the bulk path so that SKIPPED lanes sit among valid
 * ones: the solve must neither touch them nor let them disturb their
 * neighbours. */
static void put_chain(cik_batch *b, int slot, wl_kind kind, int index)
{
    cik_chain c;
    wl_chain(kind, SEED, index, joints_of(kind), &c);
    cr_assert_eq(cik_batch_set_chain(b, slot, &c), CIK_OK, "%s chain %d refused", wl_name(kind), index);
    if (index % 29 == 28) {
        cik_streams s;
        cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
        s.target_y[slot] = NAN;
    }
}

/* The base batch: workload chains 0 .. BASE_CHAINS-1 in order. */
static cik_batch *base_batch(wl_kind kind)
{
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(BASE_CHAINS, joints_of(kind), &b), CIK_OK);
    for (int i = 0; i < BASE_CHAINS; ++i) put_chain(b, i, kind, i);
    return b;
}

static t_solution solve_capture(cik_batch *b, cik_backend be, int threads)
{
    cik_options o = t_options(be, threads);
    cr_assert_eq(cik_solve(b, &o), CIK_OK, "%s, %d threads: solve refused", cik_backend_name(be), threads);
    return t_capture(b);
}

/* The first chain of `a` (of n) that differs from `b`, or -1. */
static int first_difference(const t_solution *a, const t_solution *b)
{
    for (int i = 0; i < a->n; ++i)
        if (!t_same_chain(a, i, b, i)) return i;
    return -1;
}

T_BACKEND_TEST(determinism, repeated_runs_and_thread_counts)
{
    const int threads[] = {1, 2, 3, 4, 8, 16};
    const int thread_count = (int)(sizeof threads / sizeof threads[0]);
    long compared = 0;
    for (int k = 0; k < KIND_COUNT; ++k) {
        cik_batch *b = base_batch(kinds[k]);
        t_solution first = solve_capture(b, be, 1);
        int skipped = 0;
        for (int i = 0; i < first.n; ++i) skipped += (first.res[i].flags & CIK_RESULT_SKIPPED) != 0;
        cr_assert_eq(skipped, BASE_CHAINS / 29, "%s %s: %d chains skipped", cik_backend_name(be),
                     wl_name(kinds[k]), skipped);
        cik_batch_destroy(b);
        /* every thread count, each twice: a fresh batch of the same inputs each time */
        for (int rep = 0; rep < 2; ++rep) {
            for (int t = 0; t < thread_count; ++t) {
                b = base_batch(kinds[k]);
                t_solution s = solve_capture(b, be, threads[t]);
                cik_batch_destroy(b);
                int d = first_difference(&s, &first);
                cr_assert_eq(d, -1, "%s %s: chain %d differs with %d threads (run %d) from 1 thread",
                             cik_backend_name(be), wl_name(kinds[k]), d, threads[t], rep + 1);
                compared += s.n;
                t_release(&s);
            }
        }
        t_release(&first);
    }
    cr_log_info("determinism: %ld chain solves bitwise equal across repeated runs and 1..16 threads", compared);
}

T_BACKEND_TEST(determinism, batch_positions_and_sizes)
{
    const int sizes[] = {1, 17, 100, 1000};
    /* workload chains placed; 28 and 57 are SKIPPED ones */
    const int picked[] = {0, 5, 28, 57, 130, 999};
    const int size_count = (int)(sizeof sizes / sizeof sizes[0]);
    const int pick_count = (int)(sizeof picked / sizeof picked[0]);
    long compared = 0;
    for (int k = 0; k < KIND_COUNT; ++k) {
        cik_batch *base = base_batch(kinds[k]);
        t_solution ref = solve_capture(base, be, 1);
        cik_batch_destroy(base);
        for (int si = 0; si < size_count; ++si) {
            const int n = sizes[si];
            /* the picked chains go to the first, a middle and the last slot */
            const int slots[] = {0, n / 2 + 1 < n ? n / 2 + 1 : 0, n - 1};
            for (int sl = 0; sl < 3; ++sl) {
                cik_batch *b = NULL;
                cr_assert_eq(cik_batch_create(n, joints_of(kinds[k]), &b), CIK_OK);
                /* other slots: other chains of the workload, SKIPPED ones among them */
                for (int i = 0; i < n; ++i) put_chain(b, i, kinds[k], 1000 + 3 * i + sl);
                /* one batch per picked chain keeps the other slots as they are */
                for (int p = 0; p < pick_count; ++p) {
                    const int slot = slots[sl], idx = picked[p];
                    put_chain(b, slot, kinds[k], idx);
                    t_solution s = solve_capture(b, be, p % 2 ? 4 : 1);
                    cr_assert(t_same_chain(&s, slot, &ref, idx),
                              "%s %s: chain %d at slot %d of %d differs from slot %d of %d", cik_backend_name(be),
                              wl_name(kinds[k]), idx, slot, n, idx, BASE_CHAINS);
                    ++compared;
                    t_release(&s);
                    /* the solve changed the rotations of the others: start them again */
                    for (int i = 0; i < n; ++i) put_chain(b, i, kinds[k], 1000 + 3 * i + sl);
                }
                cik_batch_destroy(b);
            }
        }
        t_release(&ref);
    }
    cr_log_info("determinism: %ld placements bitwise equal to the same chain in the base batch", compared);
}

/*
 * Regrouping (src/kernels/ccd_kernel.h): a vector group whose lanes are
 * mostly done hands its unfinished lanes to a pool, and they are solved on
 * beside other groups' lanes. Plain CCD on legs (passes spread from 1 to 10)
 * regroups a lot; a chain must end with the same bits whatever it was
 * regrouped with: in order, in reverse order on two threads, alone.
 */
T_BACKEND_TEST(determinism, regrouped_lanes_keep_their_bits)
{
    enum { N = 2048 };
    const int picked[] = {0, 1, 7, 100, 511, 1024, 2047};
    long compared = 0;
    cik_batch *fwd = NULL, *rev = NULL;
    cr_assert_eq(cik_batch_create(N, 3, &fwd), CIK_OK);
    cr_assert_eq(cik_batch_create(N, 3, &rev), CIK_OK);
    for (int i = 0; i < N; ++i) {
        put_chain(fwd, i, WL_LEGS, i);
        put_chain(rev, N - 1 - i, WL_LEGS, i);
    }
    cik_options o1 = t_plain_options(be, 1), o2 = t_plain_options(be, 2);
    cr_assert_eq(cik_solve(fwd, &o1), CIK_OK);
    cr_assert_eq(cik_solve(rev, &o2), CIK_OK);
    t_solution a = t_capture(fwd), r = t_capture(rev);
    long multi = 0;
    for (int i = 0; i < N; ++i) {
        cr_assert(t_same_chain(&a, i, &r, N - 1 - i), "%s: leg %d differs in reverse order",
                  cik_backend_name(be), i);
        multi += a.res[i].iterations > 4;
        ++compared;
    }
    cr_assert_gt(multi, N / 4, "%s: too few legs ran long enough to be regrouped", cik_backend_name(be));
    for (int p = 0; p < (int)(sizeof picked / sizeof picked[0]); ++p) {
        cik_batch *one = NULL;
        cr_assert_eq(cik_batch_create(1, 3, &one), CIK_OK);
        put_chain(one, 0, WL_LEGS, picked[p]);
        cr_assert_eq(cik_solve(one, &o1), CIK_OK);
        t_solution s = t_capture(one);
        cr_assert(t_same_chain(&s, 0, &a, picked[p]), "%s: leg %d alone differs", cik_backend_name(be),
                  picked[p]);
        ++compared;
        t_release(&s);
        cik_batch_destroy(one);
    }
    t_release(&a);
    t_release(&r);
    cik_batch_destroy(fwd);
    cik_batch_destroy(rev);
    cr_log_info("determinism: %ld regrouped plain-CCD legs bitwise equal", compared);
}

/*
 * A batch past CIK_PREFETCH_MIN_BYTES (8 MiB: 28,672 three-joint legs take
 * 8.4 MiB of streams) asks for each next group's cache lines ahead of it
 * (group_prefetch in src/kernels/ccd_kernel.h). Its chains must end with
 * the bits the same chains get in a batch of 1000, defaults and plain CCD
 * (regrouped), one thread and two.
 */
T_BACKEND_TEST(determinism, a_batch_past_the_prefetch_size_keeps_the_bits)
{
    enum { N = 28672, SMALL = 1000 };
    long compared = 0;
    cik_batch *big = NULL, *small = NULL;
    cr_assert_eq(cik_batch_create(N, 3, &big), CIK_OK);
    cr_assert_gt(cik_batch_memory_bytes(big), (size_t)8 << 20, "the batch must be past the prefetch size");
    cr_assert_eq(cik_batch_create(SMALL, 3, &small), CIK_OK);
    for (int plain = 0; plain < 2; ++plain)
        for (int threads = 1; threads <= 2; ++threads) {
            for (int i = 0; i < N; ++i) put_chain(big, i, WL_LEGS, i);
            cik_options o = plain ? t_plain_options(be, threads) : t_options(be, threads);
            cr_assert_eq(cik_solve(big, &o), CIK_OK);
            t_solution a = t_capture(big);
            /* the big batch's chains in windows of SMALL, each in a small
             * batch at another slot (shifted by 37) */
            for (int w = 0; w < N; w += 7 * SMALL) {
                for (int i = 0; i < SMALL; ++i) put_chain(small, i, WL_LEGS, w + (i + 37) % SMALL);
                cik_options o1 = plain ? t_plain_options(be, 1) : t_options(be, 1);
                cr_assert_eq(cik_solve(small, &o1), CIK_OK);
                t_solution s = t_capture(small);
                for (int i = 0; i < SMALL && w + (i + 37) % SMALL < N; ++i) {
                    const int k = w + (i + 37) % SMALL;
                    cr_assert(t_same_chain(&s, i, &a, k), "%s%s, %d threads: leg %d of the %d-leg batch differs",
                              cik_backend_name(be), plain ? " plain" : "", threads, k, N);
                    ++compared;
                }
                t_release(&s);
            }
            t_release(&a);
        }
    cik_batch_destroy(big);
    cik_batch_destroy(small);
    cr_log_info("determinism: %ld legs of a %d-leg batch bitwise equal to the same legs in small batches", compared,
                N);
}

/*
 * The sign of an unlimited joint's rotation must not depend on the chains
 * beside it, SKIPPED ones included. A kernel once turned every lane of a
 * vector group to w >= 0 when any lane's joint was limited: a SKIPPED
 * chain with a limited joint then flipped its unlimited neighbours to -q
 * (the same rotation, other bits), found by fuzz_api (seeds bulk_scale and
 * crash-sse-neighbour-sign in tests/fuzz/corpus_api).
 */
T_BACKEND_TEST(determinism, unlimited_sign_beside_skipped_limited_chains)
{
    cik_chain free_chain, limited;
    t_sign_pair(&free_chain, &limited);
    const int n = 32; /* two full groups of the widest kernel */
    cik_options o = t_plain_options(be, 1);
    cik_batch *b = NULL;
    cik_quat alone;
    cr_assert_eq(cik_batch_create(1, 1, &b), CIK_OK);
    cr_assert_eq(cik_batch_set_chain(b, 0, &free_chain), CIK_OK);
    cr_assert_eq(cik_solve(b, &o), CIK_OK);
    cr_assert_eq(cik_batch_get_rotation(b, 0, 0, &alone), CIK_OK);
    cik_batch_destroy(b);
    cr_assert_lt(alone.w, 0.0f, "%s: the free chain's solution should keep w < 0", cik_backend_name(be));
    for (int slot = 0; slot < n; slot += 5) {
        cr_assert_eq(cik_batch_create(n, 1, &b), CIK_OK);
        cik_streams s;
        cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
        for (int i = 0; i < n; ++i) {
            cr_assert_eq(cik_batch_set_chain(b, i, i == slot ? &free_chain : &limited), CIK_OK);
            if (i != slot) s.target_x[i] = NAN; /* SKIPPED, limit and all */
        }
        cr_assert_eq(cik_solve(b, &o), CIK_OK);
        cik_quat mixed;
        cik_result r;
        cr_assert_eq(cik_batch_get_rotation(b, slot, 0, &mixed), CIK_OK);
        cr_assert_eq(cik_batch_result(b, (slot + 1) % n, &r), CIK_OK);
        cr_assert_eq(r.flags, CIK_RESULT_SKIPPED);
        cik_batch_destroy(b);
        cr_assert_eq(memcmp(&alone, &mixed, sizeof alone), 0,
                     "%s: slot %d: alone (%.9g %.9g %.9g %.9g), beside skipped limited chains "
                     "(%.9g %.9g %.9g %.9g)",
                     cik_backend_name(be), slot, alone.x, alone.y, alone.z, alone.w, mixed.x, mixed.y, mixed.z,
                     mixed.w);
    }
}
