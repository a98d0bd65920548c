/*
 * The public API's small print: status strings, backend names, default
 * options, backend availability, batch creation limits and the empty batch.
 */
#include "common.h"

#include <limits.h>
#include <stdio.h>

static const cik_status all_statuses[] = {
    CIK_OK,           CIK_ERROR_ARGUMENT,           CIK_ERROR_NON_FINITE, CIK_ERROR_LIMIT,
    CIK_ERROR_OUT_OF_MEMORY, CIK_ERROR_BACKEND_UNAVAILABLE, CIK_ERROR_OPTIONS, CIK_ERROR_NOT_UNIT};
#define STATUS_COUNT ((int)(sizeof all_statuses / sizeof all_statuses[0]))

Test(api, status_strings_distinct_and_non_empty)
{
    for (int i = 0; i < STATUS_COUNT; ++i) {
        const char *s = cik_status_string(all_statuses[i]);
        cr_assert_not_null(s, "status %d", (int)all_statuses[i]);
        cr_assert_gt(strlen(s), 0, "status %d has an empty string", (int)all_statuses[i]);
        for (int k = 0; k < i; ++k)
            cr_assert_str_neq(s, cik_status_string(all_statuses[k]), "statuses %d and %d share \"%s\"",
                              (int)all_statuses[i], (int)all_statuses[k], s);
    }
    cr_assert_str_eq(cik_status_string(CIK_OK), "ok");
    /* Values outside the enum still get a string, distinct from the known ones. */
    const cik_status bad[] = {(cik_status)8, (cik_status)-1, (cik_status)1000};
    for (int i = 0; i < 3; ++i) {
        const char *s = cik_status_string(bad[i]);
        cr_assert_not_null(s);
        cr_assert_gt(strlen(s), 0);
        for (int k = 0; k < STATUS_COUNT; ++k) cr_assert_str_neq(s, cik_status_string(all_statuses[k]));
    }
}

Test(api, version_matches_header)
{
    char expect[64];
    snprintf(expect, sizeof expect, "%d.%d.%d", CIK_VERSION_MAJOR, CIK_VERSION_MINOR, CIK_VERSION_PATCH);
    cr_assert_str_eq(cik_version(), expect);
}

Test(api, backend_names_and_availability)
{
    static const char *names[CIK_BACKEND_COUNT] = {"auto", "reference", "scalar", "sse4.1",
                                                   "avx2", "avx512",    "neon"};
    for (int b = 0; b < CIK_BACKEND_COUNT; ++b) {
        cr_assert_str_eq(cik_backend_name((cik_backend)b), names[b], "backend %d", b);
        int a = cik_backend_available((cik_backend)b);
        cr_assert(a == 0 || a == 1, "backend %d availability %d", b, a);
        cr_log_info("backend %-9s available: %d", names[b], a);
    }
    cr_assert_str_eq(cik_backend_name((cik_backend)CIK_BACKEND_COUNT), "unknown");
    cr_assert_str_eq(cik_backend_name((cik_backend)-1), "unknown");
    cr_assert_str_eq(cik_backend_name((cik_backend)12345), "unknown");

    cr_assert_eq(cik_backend_available(CIK_BACKEND_AUTO), 1);
    cr_assert_eq(cik_backend_available(CIK_BACKEND_REFERENCE), 1);
    cr_assert_eq(cik_backend_available(CIK_BACKEND_SCALAR), 1);
    cr_assert_eq(cik_backend_available((cik_backend)CIK_BACKEND_COUNT), 0);
    cr_assert_eq(cik_backend_available((cik_backend)-1), 0);
    cr_assert_eq(cik_backend_available((cik_backend)99), 0);
#if defined(__x86_64__) || defined(__i386__)
    cr_assert_eq(cik_backend_available(CIK_BACKEND_NEON), 0, "NEON on x86");
#endif
#if defined(__aarch64__)
    cr_assert_eq(cik_backend_available(CIK_BACKEND_SSE), 0, "SSE on aarch64");
#endif

    cik_backend best = cik_backend_best();
    cr_assert_neq(best, CIK_BACKEND_AUTO);
    cr_assert_neq(best, CIK_BACKEND_REFERENCE);
    cr_assert_eq(cik_backend_available(best), 1);
    cr_assert_eq(cik_backend_best(), best, "best backend is stable");
    /* best is the fastest available: nothing later in the SIMD order is available */
#if defined(__x86_64__) || defined(__i386__)
    if (cik_backend_available(CIK_BACKEND_AVX512)) cr_assert_eq(best, CIK_BACKEND_AVX512);
#endif
    cr_log_info("best backend: %s", cik_backend_name(best));
}

/* The solve settings every preset shares (1 mm, 10 passes, the best
 * backend, the default threads, no gain, no weights) and its own CCD
 * tuning. */
static void expect_preset(cik_options o, int limb, int hinge_aware, float max_step, int stop, const char *name)
{
    /* keep_best goes with stop_unreachable: on in the defaults, off in plain CCD */
    cr_assert_eq(o.ccd.keep_best, stop, "%s", name);
    cr_assert_eq(o.threshold, 1e-3f, "%s", name);
    cr_assert_eq(o.max_iterations, 10, "%s", name);
    cr_assert_eq(o.backend, CIK_BACKEND_AUTO, "%s", name);
    cr_assert_eq(o.threads, 0, "%s", name);
    cr_assert_eq(o.ccd.limb, limb, "%s", name);
    cr_assert_eq(o.ccd.hinge_aware, hinge_aware, "%s", name);
    cr_assert_eq(o.ccd.stop_unreachable, stop, "%s", name);
    cr_assert_eq(o.ccd.max_step, max_step, "%s", name);
    cr_assert_eq(o.ccd.gain, 0.0f, "%s", name);
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) cr_assert_eq(o.ccd.weight[j], 0.0f, "%s", name);
}

Test(api, default_options)
{
    /* the best measured convergence settings (docs/solver.md) */
    expect_preset(cik_default_options(), CIK_LIMB_AUTO, 1, 0.05f, 1, "defaults");
    /* plain CCD: the same solve settings, every convergence option zero */
    expect_preset(cik_plain_options(), CIK_LIMB_OFF, 0, 0.0f, 0, "plain");
}

Test(api, solve_refuses_unknown_and_unavailable_backends)
{
    cik_batch *b = t_workload_batch(WL_LEGS, 1, 4, 3);
    const int bad[] = {CIK_BACKEND_COUNT, 8, 99, -1, INT_MAX, INT_MIN};
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); ++i) {
        cik_options o = t_options((cik_backend)bad[i], 1);
        cr_assert_eq(cik_solve(b, &o), CIK_ERROR_BACKEND_UNAVAILABLE, "backend %d", bad[i]);
    }
    for (int k = 0; k < CIK_BACKEND_COUNT; ++k) {
        cik_options o = t_options((cik_backend)k, 1);
        cik_status expect = cik_backend_available((cik_backend)k) ? CIK_OK : CIK_ERROR_BACKEND_UNAVAILABLE;
        cr_assert_eq(cik_solve(b, &o), expect, "backend %s", cik_backend_name((cik_backend)k));
    }
    /* null options: the defaults */
    cr_assert_eq(cik_solve(b, NULL), CIK_OK);
    cr_assert_eq(cik_solve(NULL, NULL), CIK_ERROR_ARGUMENT);
    cik_batch_destroy(b);
}

Test(api, empty_batch)
{
    cik_batch *b = NULL;
    cr_assert_eq(cik_batch_create(0, 3, &b), CIK_OK);
    cr_assert_not_null(b);
    cr_assert_eq(cik_batch_chain_count(b), 0);
    cr_assert_eq(cik_batch_joint_count(b), 3);
    for (int k = 0; k < CIK_BACKEND_COUNT; ++k) {
        if (!cik_backend_available((cik_backend)k)) continue;
        for (int threads = 0; threads <= 2; ++threads) {
            cik_options o = t_options((cik_backend)k, threads);
            cr_assert_eq(cik_solve(b, &o), CIK_OK, "backend %s", cik_backend_name((cik_backend)k));
        }
    }
    cik_streams s;
    cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
    cr_assert_eq(s.chain_count, 0);
    cr_assert_eq(s.joint_count, 3);
    cik_chain c;
    cik_result r;
    cr_assert_eq(cik_batch_get_chain(b, 0, &c), CIK_ERROR_ARGUMENT);
    cr_assert_eq(cik_batch_result(b, 0, &r), CIK_ERROR_ARGUMENT);
    cik_batch_destroy(b);
}

Test(api, create_refuses_bad_counts)
{
    cik_batch *sentinel = (cik_batch *)(uintptr_t)0x1234;
    const int joints[] = {0, -1, CIK_MAX_JOINTS + 1, 17, 1000, INT_MIN};
    for (int i = 0; i < (int)(sizeof joints / sizeof joints[0]); ++i) {
        cik_batch *b = sentinel;
        cr_assert_eq(cik_batch_create(4, joints[i], &b), CIK_ERROR_ARGUMENT, "joint_count %d", joints[i]);
        cr_assert_eq(b, sentinel, "out written on refusal");
    }
    const int chains[] = {-1, -1000, INT_MIN};
    for (int i = 0; i < 3; ++i) {
        cik_batch *b = sentinel;
        cr_assert_eq(cik_batch_create(chains[i], 3, &b), CIK_ERROR_ARGUMENT, "chain_count %d", chains[i]);
        cr_assert_eq(b, sentinel);
    }
    cr_assert_eq(cik_batch_create(4, 3, NULL), CIK_ERROR_ARGUMENT);
    /* every joint count in range is accepted */
    for (int j = 1; j <= CIK_MAX_JOINTS; ++j) {
        cik_batch *b = NULL;
        cr_assert_eq(cik_batch_create(5, j, &b), CIK_OK, "joint_count %d", j);
        cr_assert_eq(cik_batch_joint_count(b), j);
        cr_assert_eq(cik_batch_chain_count(b), 5);
        /* at least every stream of every chain */
        cr_assert_geq(cik_batch_memory_bytes(b), (size_t)5 * sizeof(float) * (size_t)(13 + 20 * j));
        cik_batch_destroy(b);
    }
}

Test(api, huge_chain_counts_refused_without_crash)
{
    const int chains[] = {INT_MAX, INT_MAX - 1, INT_MAX - 63, INT_MAX / 2 + 1};
    for (int i = 0; i < (int)(sizeof chains / sizeof chains[0]); ++i) {
        cik_batch *b = NULL;
        cik_status st = cik_batch_create(chains[i], CIK_MAX_JOINTS, &b);
        cr_assert(st == CIK_ERROR_OUT_OF_MEMORY || st == CIK_ERROR_ARGUMENT,
                  "chain_count %d with %d joints: status %d (%s)", chains[i], CIK_MAX_JOINTS, (int)st,
                  cik_status_string(st));
        cr_assert_null(b);
    }
}

Test(api, null_batch_queries)
{
    cr_assert_eq(cik_batch_chain_count(NULL), 0);
    cr_assert_eq(cik_batch_joint_count(NULL), 0);
    cr_assert_eq(cik_batch_memory_bytes(NULL), 0);
    cik_batch_destroy(NULL);
}
