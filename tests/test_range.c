/*
 * Range solves (cik_solve_plan_init, cik_solve_range): for every backend
 * this CPU runs, a batch solved as random, unaligned, disjoint ranges by
 * several threads at once is bitwise the batch that one cik_solve gives;
 * a range touches no chain outside it; bad plans and ranges are refused
 * with nothing changed. Chains are generated (tools/workloads.c), with
 * SKIPPED chains among them.
 */
#include "common.h"

#include <criterion/parameterized.h>
#include <pthread.h>

#define SEED 20261201u
#define CHAINS 777 /* not a multiple of any group: the last group is cut */
#define THREADS 4
#define SPLITS 3

static const wl_kind kinds[] = {WL_LEGS, WL_SPINE, WL_TAIL, WL_RANDOM_HARD};
#define KIND_COUNT ((int)(sizeof kinds / sizeof kinds[0]))

static cik_batch *make_batch(wl_kind kind)
{
    cik_batch *b = t_workload_batch(kind, SEED, CHAINS, 6);
    cik_streams s;
    cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
    for (int i = 13; i < CHAINS; i += 41) s.target_x[i] = NAN; /* SKIPPED lanes among the others */
    return b;
}

typedef struct range_work {
    const cik_solve_plan *plan;
    const int *cut; /* range r is [cut[r], cut[r + 1]) */
    int ranges;
    int next;       /* the next range to take, shared */
    pthread_mutex_t lock;
    int failures;
} range_work;

static void *worker(void *arg)
{
    range_work *w = (range_work *)arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        int r = w->next < w->ranges ? w->next++ : -1;
        pthread_mutex_unlock(&w->lock);
        if (r < 0) return NULL;
        if (cik_solve_range(w->plan, w->cut[r], w->cut[r + 1]) != CIK_OK) {
            pthread_mutex_lock(&w->lock);
            ++w->failures;
            pthread_mutex_unlock(&w->lock);
        }
    }
}

/* Random cut points in (0, CHAINS): `ranges` ranges, some empty, most not
 * aligned to any group. */
static int random_cuts(wl_rng *rng, int *cut, int max_ranges)
{
    int ranges = 1 + (int)(wl_next(rng) % (uint32_t)max_ranges);
    cut[0] = 0;
    for (int r = 1; r < ranges; ++r) cut[r] = (int)(wl_next(rng) % (uint32_t)(CHAINS + 1));
    cut[ranges] = CHAINS;
    /* sort (insertion: a few dozen values) */
    for (int i = 1; i < ranges; ++i)
        for (int k = i; k > 1 && cut[k] < cut[k - 1]; --k) {
            int t = cut[k];
            cut[k] = cut[k - 1];
            cut[k - 1] = t;
        }
    return ranges;
}

static int first_difference(const t_solution *a, const t_solution *b)
{
    for (int i = 0; i < a->n; ++i)
        if (!t_same_chain(a, i, b, i)) return i;
    return -1;
}

T_BACKEND_TEST(range, threads_bitwise)
{
    wl_rng rng;
    wl_seed(&rng, SEED ^ (uint64_t)be);
    for (int k = 0; k < KIND_COUNT; ++k) {
        cik_options o = t_options(be, 1);
        cik_batch *whole = make_batch(kinds[k]);
        cr_assert_eq(cik_solve(whole, &o), CIK_OK);
        t_solution want = t_capture(whole);
        cik_batch_destroy(whole);
        for (int split = 0; split < SPLITS; ++split) {
            cik_batch *b = make_batch(kinds[k]);
            cik_solve_plan plan;
            cr_assert_eq(cik_solve_plan_init(&plan, b, &o), CIK_OK);
            int cut[65];
            range_work w;
            w.plan = &plan;
            w.cut = cut;
            w.ranges = random_cuts(&rng, cut, split == 0 ? 3 : 64);
            w.next = 0;
            w.failures = 0;
            pthread_mutex_init(&w.lock, NULL);
            pthread_t th[THREADS];
            for (int t = 0; t < THREADS; ++t) cr_assert_eq(pthread_create(&th[t], NULL, worker, &w), 0);
            for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
            pthread_mutex_destroy(&w.lock);
            cr_assert_eq(w.failures, 0, "%s: a range was refused", cik_backend_name(be));
            t_solution got = t_capture(b);
            int d = first_difference(&want, &got);
            cr_expect_eq(d, -1, "%s, %s, %d ranges: chain %d differs from cik_solve", cik_backend_name(be),
                         wl_name(kinds[k]), w.ranges, d);
            t_release(&got);
            cik_batch_destroy(b);
        }
        t_release(&want);
    }
}

/* One range inside one group and one across two: the chains in it get
 * cik_solve's bits, every chain outside keeps its start bits. */
T_BACKEND_TEST(range, touches_only_its_chains)
{
    static const int ranges[][2] = {{3, 9}, {20, 45}, {70, 70}, {700, CHAINS}};
    cik_options o = t_options(be, 1);
    cik_batch *whole = make_batch(WL_LEGS);
    t_solution start = t_capture(whole);
    cr_assert_eq(cik_solve(whole, &o), CIK_OK);
    t_solution want = t_capture(whole);
    cik_batch_destroy(whole);
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; ++r) {
        cik_batch *b = make_batch(WL_LEGS);
        cik_solve_plan plan;
        cr_assert_eq(cik_solve_plan_init(&plan, b, &o), CIK_OK);
        cr_assert_eq(cik_solve_range(&plan, ranges[r][0], ranges[r][1]), CIK_OK);
        t_solution got = t_capture(b);
        for (int i = 0; i < CHAINS; ++i) {
            int inside = i >= ranges[r][0] && i < ranges[r][1];
            cr_expect(t_same_chain(inside ? &want : &start, i, &got, i), "%s, range [%d, %d): chain %d %s",
                      cik_backend_name(be), ranges[r][0], ranges[r][1], i,
                      inside ? "differs from cik_solve" : "was touched");
        }
        t_release(&got);
        cik_batch_destroy(b);
    }
    t_release(&start);
    t_release(&want);
}

Test(range, refusals_change_nothing)
{
    cik_batch *b = make_batch(WL_LEGS);
    t_solution before = t_capture(b);
    cik_solve_plan plan, zero;
    memset(&zero, 0, sizeof zero);
    cik_options bad = cik_default_options();
    bad.threshold = -1.0f;
    cr_expect_eq(cik_solve_plan_init(NULL, b, NULL), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_plan_init(&plan, NULL, NULL), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_plan_init(&plan, b, &bad), CIK_ERROR_OPTIONS);
    cr_expect_eq(cik_solve_range(NULL, 0, 1), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_range(&zero, 0, 1), CIK_ERROR_ARGUMENT, "an uninitialised plan");
    cr_expect_eq(cik_solve_plan_alignment(&zero), 0);
    cr_assert_eq(cik_solve_plan_init(&plan, b, NULL), CIK_OK);
    cr_expect_eq(cik_solve_range(&plan, -1, 5), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_range(&plan, 6, 5), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_range(&plan, 0, CHAINS + 1), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_solve_range(&plan, 5, 5), CIK_OK, "an empty range is fine");
    int align = cik_solve_plan_alignment(&plan);
    cr_expect(align >= 1 && 64 % align == 0, "alignment %d divides 64", align);
    t_solution after = t_capture(b);
    for (int i = 0; i < CHAINS; ++i) cr_expect(t_same_chain(&before, i, &after, i), "chain %d changed", i);
    t_release(&before);
    t_release(&after);
    cik_batch_destroy(b);
}
