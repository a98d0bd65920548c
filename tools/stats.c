/*
 * crowdik_stats: solves generated batches (adult legs with limits, random
 * chains) with the reference solver and with the best kernel on this CPU,
 * and prints convergence and error statistics side by side.
 */
#include "crowdik/crowdik.h"
#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run(wl_kind kind, int joints, int chains, cik_backend be, int passes, float *scratch)
{
    cik_batch *b;
    cik_status st = cik_batch_create(chains, joints, &b);
    if (st == CIK_OK) st = wl_fill(b, kind, 1, 0);
    cik_options o = cik_default_options();
    o.backend = be;
    o.max_iterations = passes;
    double t0 = wl_now();
    if (st == CIK_OK) st = cik_solve(b, &o);
    double t = wl_now() - t0;
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik_stats: %s\n", cik_status_string(st));
        cik_batch_destroy(b);
        return 1;
    }
    wl_stats s;
    wl_collect(b, &s, scratch);
    printf("%-17s %2d %-9s %6d %7.2f %7.2f %9.3f %9.3f %9.3f %8.1f %9.1f\n", wl_name(kind), joints,
           cik_backend_name(be), passes, 100.0 * s.converged / s.chains, s.mean_passes, 1e3 * s.error_p50,
           1e3 * s.error_p99, 1e3 * s.error_max, 100.0 * s.unreachable / s.chains, 1e9 * t / chains);
    cik_batch_destroy(b);
    return 0;
}

int main(int argc, char **argv)
{
    int chains = 10000;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: crowdik_stats [CHAINS]\nSolves CHAINS (default 10000) generated chains per workload with\n"
               "the reference and the best kernel, threshold 1e-3, and prints statistics.\n");
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "crowdik_stats: one argument at most, CHAINS (try --help)\n");
        return 2;
    }
    if (argc > 1) {
        char *end;
        long v = strtol(argv[1], &end, 10);
        if (argv[1][0] == '-' && !(argv[1][1] >= '0' && argv[1][1] <= '9')) {
            fprintf(stderr, "crowdik_stats: unknown option '%s' (try --help)\n", argv[1]);
            return 2;
        }
        if (!argv[1][0] || *end || v < 1 || v > 10000000) {
            fprintf(stderr, "crowdik_stats: CHAINS must be an integer in [1, 10000000], not '%s'\n", argv[1]);
            return 2;
        }
        chains = (int)v;
    }
    float *scratch = malloc(sizeof(float) * (size_t)chains);
    if (!scratch) {
        fprintf(stderr, "crowdik_stats: out of memory\n");
        return 1;
    }
    cik_backend best = cik_backend_best();
    printf("crowdik %s: %d chains per row, threshold 1 mm (errors in mm), best kernel %s\n\n", cik_version(),
           chains, cik_backend_name(best));
    printf("%-17s %2s %-9s %6s %7s %7s %9s %9s %9s %8s %9s\n", "workload", "J", "backend", "passes", "conv %",
           "mean", "err p50", "err p99", "err max", "unreach%", "ns/chain");
    static const struct { wl_kind kind; int joints; } rows[] = {
        {WL_LEGS, 3}, {WL_LEGS_NO_LIMITS, 3}, {WL_SPINE, 5}, {WL_TAIL, 12},
        {WL_RANDOM, 2}, {WL_RANDOM, 4}, {WL_RANDOM, 8}, {WL_RANDOM_NO_LIMITS, 4}};
    int fail = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; ++r) {
        fail |= run(rows[r].kind, rows[r].joints, chains, CIK_BACKEND_REFERENCE, 10, scratch);
        if (rows[r].kind == WL_LEGS) fail |= run(rows[r].kind, rows[r].joints, chains, CIK_BACKEND_REFERENCE, 20, scratch);
        fail |= run(rows[r].kind, rows[r].joints, chains, best, 10, scratch);
    }
    free(scratch);
    return fail;
}
