/*
 * crowdik_bench: CCD throughput on the generated workloads, every backend
 * this CPU runs plus the reference solver and the textbook baseline, batch
 * sizes from 16 to 65,536 chains, one thread and all threads.
 *
 * Benchmark names: WORKLOAD/SOLVER/chains:N/threads:T/manual_time, where
 * SOLVER is a cik_backend_name(), "textbook" (the classic listing, with its
 * dead zone) or "textbook-no-dead-zone" (the same without it), and T is 1
 * or 0 (0 = all: options.threads = 0, OpenMP's default team). Only the solve is timed: the
 * start pose is restored through the bulk path (cik_batch_streams) before
 * each solve, outside the measured time, so every solve does the same work.
 *
 * Counters (docs/benchmarks.md): chains_per_s, ns_per_chain,
 * joint_steps_per_s (chains * mean passes * joints per second), mean_passes,
 * converged (fraction of chains), and on large single-threaded runs
 * cpu_ns_per_chain (the calling thread's CPU time).
 *
 * The foot-placement frame benchmarks (bench_foot.c) and the engine
 * baselines (bench_peers.c: three.js's and Godot's CCD, ozz-animation's
 * two-bone IK) register with these.
 */
#define _POSIX_C_SOURCE 200809L
#include "crowdik/crowdik.h"
#include "bench_foot.h"
#include "bench_herd.h"
#include "bench_peers.h"
#include "bench_timing.h"
#include "shim.h"
#include "textbook.h"
#include "workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEED 1u
#define THRESHOLD 1e-3f
#define PASSES 10
#define SOLVER_TEXTBOOK (-1)
#define SOLVER_TEXTBOOK_NO_DEAD_ZONE (-2)
/* From this many chains on, single-threaded runs also read the calling
 * thread's CPU clock around each solve (a system call of about 0.3 us here,
 * noise next to a solve of this size): cpu_ns_per_chain, which a busy
 * machine's preemption does not inflate. */
#define CPU_CLOCK_MIN_CHAINS 4096

typedef struct bench_case {
    wl_kind kind;
    int solver; /* a cik_backend, or SOLVER_TEXTBOOK* */
    int plain;  /* 1: plain CCD (every convergence option zero), else the defaults */
} bench_case;

/* ---- fixtures: built once per (workload, size), reused by the runs ---- */

typedef struct fixture {
    wl_kind kind;
    int chains;
    cikb_posed posed; /* the batch and its start pose */
    tb_set *textbook;
} fixture;

static fixture fx = {WL_LEGS, -1, {NULL, {0}, NULL, NULL}, NULL};

static void fixture_free(void)
{
    cikb_posed_free(&fx.posed);
    tb_destroy(fx.textbook);
    memset(&fx, 0, sizeof fx);
    fx.chains = -1;
}

static void pose_restore(void) { cikb_posed_restore(&fx.posed); }

/* The fixture for (kind, chains); NULL with `why` set on failure. */
static const fixture *fixture_get(wl_kind kind, int chains, int textbook, const char **why)
{
    if (fx.chains != chains || fx.kind != kind) {
        fixture_free();
        cik_batch *b = NULL;
        if (cik_batch_create(chains, wl_joint_count(kind, 0), &b) != CIK_OK) {
            *why = "cik_batch_create failed";
            return NULL;
        }
        *why = wl_fill(b, kind, SEED, 0) != CIK_OK ? "generating the workload failed" : NULL;
        if (*why) cik_batch_destroy(b);
        if (!*why) *why = cikb_posed_init(&fx.posed, b);
        if (*why) {
            fixture_free();
            return NULL;
        }
        fx.kind = kind;
        fx.chains = chains;
    }
    if (textbook && !fx.textbook) {
        /* the same chains, read back from the batch */
        cik_chain *c = malloc(sizeof(cik_chain) * (size_t)chains);
        if (!c) {
            *why = "out of memory";
            return NULL;
        }
        pose_restore();
        for (int i = 0; i < chains; ++i) cik_batch_get_chain(fx.posed.batch, i, &c[i]);
        fx.textbook = tb_create(c, chains);
        free(c);
        if (!fx.textbook) {
            *why = "out of memory";
            return NULL;
        }
    }
    return &fx;
}

/* ---- the benchmark ------------------------------------------------------ */

/* The textbook's timed step (bench_timing.h), from its start pose. */
typedef struct tb_run {
    tb_set *set;
    float dead_zone;
} tb_run;

static void tb_run_setup(void *ctx) { tb_reset(((tb_run *)ctx)->set); }

static int tb_run_step(void *ctx)
{
    tb_run *r = (tb_run *)ctx;
    tb_solve(r->set, THRESHOLD, PASSES, r->dead_zone);
    return 0;
}

static void bm_ccd(cikb_state *s)
{
    const bench_case *bc = cikb_user(s);
    int chains = (int)cikb_range(s, 0), threads = (int)cikb_range(s, 1);
    const char *why = "";
    int textbook = bc->solver < 0;
    const fixture *f = fixture_get(bc->kind, chains, textbook, &why);
    if (!f) {
        cikb_skip_with_error(s, why);
        return;
    }
    int J = f->posed.streams.joint_count;
    double seconds = 0.0, cpu_seconds = 0.0, mean_passes = 0.0, converged = 0.0;
    int cpu_clock = threads == 1 && chains >= CPU_CLOCK_MIN_CHAINS;

    if (textbook) {
        float dead_zone = bc->solver == SOLVER_TEXTBOOK ? TB_CLASSIC_DEAD_ZONE : 2.0f;
        tb_run run = {f->textbook, dead_zone};
        cikb_timed t = {tb_run_setup, tb_run_step, &run, cpu_clock};
        cikb_run_timed(s, &t, &seconds, &cpu_seconds);
        long passes = 0, conv = 0;
        for (int i = 0; i < chains; ++i) {
            int p, c;
            tb_result(f->textbook, i, NULL, &p, &c);
            passes += p;
            conv += c;
        }
        mean_passes = (double)passes / chains;
        converged = (double)conv / chains;
    } else {
        cik_options o = bc->plain ? cik_plain_options() : cik_default_options();
        o.threshold = THRESHOLD;
        o.max_iterations = PASSES;
        o.backend = (cik_backend)bc->solver;
        o.threads = threads;
        if (cikb_run_solve(s, f->posed.batch, &o, pose_restore, cpu_clock, f->posed.scratch, &seconds, &cpu_seconds,
                           &mean_passes, &converged))
            return;
    }
    cikb_report_chains(s, chains, J, seconds, cpu_seconds, mean_passes, converged);
}

/* ---- registration ------------------------------------------------------- */

static const wl_kind kinds[] = {WL_LEGS, WL_LEGS_NO_LIMITS, WL_HOCK_LEG, WL_HIND_LEG, WL_SPINE, WL_TAIL};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))
/* per workload: the backends with the default options, the textbook and its
 * variant, then the backends solving plain CCD */
#define PLAIN0 (CIK_BACKEND_COUNT + 2)
static bench_case cases[NKINDS][2 * CIK_BACKEND_COUNT + 2];

static void add(bench_case *bc, int chains, int threads)
{
    char name[64];
    const char *solver = bc->solver == SOLVER_TEXTBOOK             ? "textbook"
                         : bc->solver == SOLVER_TEXTBOOK_NO_DEAD_ZONE ? "textbook-no-dead-zone"
                                                                      : cik_backend_name((cik_backend)bc->solver);
    snprintf(name, sizeof name, "%s/%s%s", wl_name(bc->kind), solver, bc->plain ? "-plain" : "");
    static const char *const arg_names[] = {"chains", "threads"};
    int64_t args[2] = {chains, threads};
    cikb_bench *b = cikb_register(name, bm_ccd, bc);
    cikb_arg_names(b, arg_names, 2);
    cikb_args(b, args, 2);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

static void add_context(void)
{
    char model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "model name", 10)) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t') p++;
                    p[strcspn(p, "\n")] = 0;
                    snprintf(model, sizeof model, "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    char buf[256];
    cikb_add_context("cpu_model", model);
    cikb_add_context("crowdik_version", cik_version());
    cikb_add_context("crowdik_best_backend", cik_backend_name(cik_backend_best()));
    buf[0] = 0;
    for (int be = CIK_BACKEND_SCALAR; be < CIK_BACKEND_COUNT; ++be)
        if (cik_backend_available((cik_backend)be))
            snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%s", buf[0] ? "," : "",
                     cik_backend_name((cik_backend)be));
    cikb_add_context("crowdik_backends", buf);
    snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    cikb_add_context("online_cpus", buf);
    const char *omp = getenv("OMP_NUM_THREADS");
    cikb_add_context("omp_num_threads", omp ? omp : "(unset)");
#ifdef __VERSION__
    cikb_add_context("compiler", __VERSION__);
#endif
    snprintf(buf, sizeof buf,
             "threshold %g, at most %d passes, seed %u; SOLVER: cik_default_options(), SOLVER-plain: every "
             "convergence option zero (plain CCD)",
             (double)THRESHOLD, PASSES, SEED);
    cikb_add_context("solver_options", buf);
}

static void register_all(int quick)
{
    static const int full_sizes[] = {16, 256, 4096, 16384, 65536};
    static const int quick_sizes[] = {16, 256};
    const int *sizes = quick ? quick_sizes : full_sizes;
    int nsizes = quick ? 2 : 5;
    int all_threads = sysconf(_SC_NPROCESSORS_ONLN) > 1; /* else "all" is one */

    add_context();
    for (int k = 0; k < NKINDS; ++k) {
        for (int s = 0; s < CIK_BACKEND_COUNT; ++s) cases[k][s].kind = kinds[k], cases[k][s].solver = s;
        cases[k][CIK_BACKEND_COUNT].kind = kinds[k];
        cases[k][CIK_BACKEND_COUNT].solver = SOLVER_TEXTBOOK;
        cases[k][CIK_BACKEND_COUNT + 1].kind = kinds[k];
        cases[k][CIK_BACKEND_COUNT + 1].solver = SOLVER_TEXTBOOK_NO_DEAD_ZONE;
        for (int s = 0; s < CIK_BACKEND_COUNT; ++s)
            cases[k][PLAIN0 + s].kind = kinds[k], cases[k][PLAIN0 + s].solver = s, cases[k][PLAIN0 + s].plain = 1;
    }
    /* Ordered so that consecutive runs share a fixture: workload, size,
     * threads, solver. */
    for (int k = 0; k < NKINDS; ++k) {
        for (int z = 0; z < nsizes; ++z) {
            for (int t = 0; t < 1 + all_threads; ++t) {
                for (int be = CIK_BACKEND_REFERENCE; be < CIK_BACKEND_COUNT; ++be)
                    if (cik_backend_available((cik_backend)be)) add(&cases[k][be], sizes[z], t == 0 ? 1 : 0);
            }
            /* the textbook solves one chain at a time on one thread; its
             * variant without the dead zone converges as crowdik does */
            add(&cases[k][CIK_BACKEND_COUNT], sizes[z], 1);
            add(&cases[k][CIK_BACKEND_COUNT + 1], sizes[z], 1);
            /* plain CCD, the solver semantics exactly: one thread */
            for (int be = CIK_BACKEND_REFERENCE; be < CIK_BACKEND_COUNT; ++be)
                if (cik_backend_available((cik_backend)be)) add(&cases[k][PLAIN0 + be], sizes[z], 1);
        }
    }
    bench_foot_register(quick);
    bench_herd_register(quick);
    bench_peers_register(quick);
}

static const char usage[] =
    "crowdik_bench: CCD throughput of every crowdik backend, the reference\n"
    "solver and the textbook baseline on generated workloads.\n\n"
    "The foot-placement frame (foot/frame/characters:N/threads:T, bench_foot.c)\n"
    "runs too: --benchmark_filter=^foot/ for it alone. The engine baselines\n"
    "(SOLVER threejs, godot, two-bone; bench_peers.c) run on one thread.\n\n"
    "  --quick   small batches (16 and 256 chains, 1,000 characters) and a 0.01 s\n"
    "            minimum time per run unless --benchmark_min_time is given: a\n"
    "            smoke test for CI\n"
    "  Google Benchmark's flags follow, e.g. --benchmark_filter=legs/,\n"
    "  --benchmark_out=FILE --benchmark_out_format=json, --benchmark_min_time=0.1\n"
    "  (a bare number of seconds in Google Benchmark 1.7). The full suite uses\n"
    "  0.1 s unless told otherwise. Report: tools/bench_report.py FILE.\n\n";

int main(int argc, char **argv)
{
    int rc = cikb_main(argc, argv, register_all, usage, 0.1);
    fixture_free();
    bench_foot_cleanup();
    bench_herd_cleanup();
    bench_peers_cleanup();
    return rc;
}
