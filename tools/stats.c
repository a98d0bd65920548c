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

/* Exit statuses, the same in every crowdik tool. */
enum { EXIT_USAGE = 2, EXIT_CANNOT_RUN = 3 };

/* Solves one row three times from its start pose and keeps the fastest: the
 * first solve of a process also pays for starting the thread team, for the
 * batch's first touch of its pages and for cold caches (that one solve made
 * the AVX-512 legs row read 1,040 ns per chain where the benchmark measures
 * 32). The statistics are the last solve's (every solve gives the same
 * bits). */
static int run(wl_kind kind, int joints, int chains, cik_backend be, int passes, int threads, float *scratch)
{
    cik_batch *b;
    cik_status st = cik_batch_create(chains, joints, &b);
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik_stats: %s\n", cik_status_string(st));
        return EXIT_CANNOT_RUN;
    }
    cik_options o = cik_default_options();
    o.backend = be;
    o.max_iterations = passes;
    o.threads = threads;
    double best = 1e30;
    for (int rep = 0; st == CIK_OK && rep < 3; ++rep) {
        st = wl_fill(b, kind, 1, 0);
        double t0 = wl_now();
        if (st == CIK_OK) st = cik_solve(b, &o);
        double t = wl_now() - t0;
        if (t < best) best = t;
    }
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik_stats: %s\n", cik_status_string(st));
        cik_batch_destroy(b);
        return EXIT_CANNOT_RUN;
    }
    wl_stats s;
    wl_collect(b, &s, scratch);
    printf("%-17s %2d %-9s %6d %7.2f %7.2f %9.3f %9.3f %9.3f %8.1f %9.1f\n", wl_name(kind), joints,
           cik_backend_name(be), passes, 100.0 * s.converged / s.chains, s.mean_passes, 1e3 * s.error_p50,
           1e3 * s.error_p99, 1e3 * s.error_max, 100.0 * s.unreachable / s.chains, 1e9 * best / chains);
    cik_batch_destroy(b);
    return 0;
}

static const char *usage =
    "usage: crowdik_stats [CHAINS] [--threads N]\n"
    "Solves CHAINS (default 10000) generated chains per workload with the\n"
    "reference and the best kernel, threshold 1 mm, and prints statistics.\n"
    "\n"
    "  --threads N  solver threads (default 1, the calling thread, as the\n"
    "               benchmark's figures; 0 = all)\n"
    "\n"
    "Columns: workload (the generated chains), J (joints per chain), backend\n"
    "(the reference or the best kernel), passes (the most allowed), conv %\n"
    "(chains that met the threshold), mean (mean passes), err p50/p99/max\n"
    "(effector to target, mm, over chains not skipped), unreach% (flagged\n"
    "unreachable), ns/chain (the fastest of three solves from the start pose,\n"
    "divided by CHAINS).\n"
    "\n"
    "Exit status: 0 done, 2 a bad option, 3 cannot run (out of memory, a\n"
    "solver refusal). The same codes in every crowdik tool.\n";

/* A whole number in [lo, hi] or -1. */
static long parse_count(const char *v, long lo, long hi)
{
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : -1;
    return v && *v && !*end && n >= lo && n <= hi ? n : -1;
}

int main(int argc, char **argv)
{
    int chains = 10000, threads = 1, have_chains = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--threads")) {
            long v = parse_count(i + 1 < argc ? argv[i + 1] : NULL, 0, 4096);
            if (v < 0) {
                fprintf(stderr, "crowdik_stats: --threads needs an integer in [0, 4096] (try --help)\n");
                return EXIT_USAGE;
            }
            threads = (int)v;
            ++i;
        } else if (a[0] == '-' && !(a[1] >= '0' && a[1] <= '9')) {
            fprintf(stderr, "crowdik_stats: unknown option '%s' (try --help)\n", a);
            return EXIT_USAGE;
        } else if (have_chains) {
            fprintf(stderr, "crowdik_stats: one argument at most, CHAINS (try --help)\n");
            return EXIT_USAGE;
        } else {
            long v = parse_count(a, 1, 10000000);
            if (v < 0) {
                fprintf(stderr, "crowdik_stats: CHAINS must be an integer in [1, 10000000], not '%s'\n", a);
                return EXIT_USAGE;
            }
            chains = (int)v;
            have_chains = 1;
        }
    }
    float *scratch = malloc(sizeof(float) * (size_t)chains);
    if (!scratch) {
        fprintf(stderr, "crowdik_stats: out of memory\n");
        return EXIT_CANNOT_RUN;
    }
    cik_backend best = cik_backend_best();
    printf("crowdik %s: %d chains per row, threshold 1 mm (errors in mm), best kernel %s, %d thread(s)%s\n\n",
           cik_version(), chains, cik_backend_name(best), threads, threads ? "" : " (0: all)");
    printf("%-17s %2s %-9s %6s %7s %7s %9s %9s %9s %8s %9s\n", "workload", "J", "backend", "passes", "conv %",
           "mean", "err p50", "err p99", "err max", "unreach%", "ns/chain");
    static const struct { wl_kind kind; int joints; } rows[] = {
        {WL_LEGS, 3}, {WL_LEGS_NO_LIMITS, 3}, {WL_SPINE, 5}, {WL_TAIL, 12},
        {WL_RANDOM, 2}, {WL_RANDOM, 4}, {WL_RANDOM, 8}, {WL_RANDOM_NO_LIMITS, 4}};
    int fail = 0;
    for (size_t r = 0; !fail && r < sizeof rows / sizeof rows[0]; ++r) {
        fail = run(rows[r].kind, rows[r].joints, chains, CIK_BACKEND_REFERENCE, 10, threads, scratch);
        if (!fail && rows[r].kind == WL_LEGS)
            fail = run(rows[r].kind, rows[r].joints, chains, CIK_BACKEND_REFERENCE, 20, threads, scratch);
        if (!fail) fail = run(rows[r].kind, rows[r].joints, chains, best, 10, threads, scratch);
    }
    free(scratch);
    return fail;
}
