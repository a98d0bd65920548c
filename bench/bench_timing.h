/*
 * The manually timed loop the benchmarks share (bench_ccd.c, bench_peers.c,
 * bench_foot.c): per iteration an untimed step that sets the input up again,
 * then the timed step; wall time (and, where asked, the calling thread's CPU
 * time) summed over the timed steps only, and each batch's share handed to
 * Google Benchmark with cikb_set_iteration_time; and what the chain
 * benchmarks (bench_ccd.c, bench_peers.c) report and keep around it.
 *
 * Static inline with the steps passed as pointers to functions of the
 * caller's file: the compiler sees them at the call and inlines them, so
 * the timed region holds the same code as a loop written out by hand.
 */
#ifndef CROWDIK_BENCH_TIMING_H
#define CROWDIK_BENCH_TIMING_H

#include "shim.h"
#include "workloads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The calling thread's CPU clock in seconds (a system call of about 0.3 us):
 * preemption on a busy machine does not inflate it. */
static inline double cikb_thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct cikb_timed {
    void (*setup)(void *ctx); /* untimed, before each timed step; may be NULL */
    int (*step)(void *ctx);   /* timed; nonzero when the call it times refused */
    void *ctx;
    int cpu_clock;            /* read the thread's CPU clock around each step too */
} cikb_timed;

/* Runs Google Benchmark's batches of `t`, adding the timed steps' wall time
 * to *seconds and their CPU time to *cpu_seconds (when t->cpu_clock).
 * Returns nonzero when any step did. */
static inline int cikb_run_timed(cikb_state *s, const cikb_timed *t, double *seconds,
                                 double *cpu_seconds)
{
    int failed = 0;
    for (int64_t n; (n = cikb_batch(s)) > 0;) {
        double batch_start = *seconds;
        for (int64_t i = 0; i < n; ++i) {
            if (t->setup) t->setup(t->ctx);
            double c0 = t->cpu_clock ? cikb_thread_cpu_now() : 0.0, t0 = wl_now();
            failed |= t->step(t->ctx);
            *seconds += wl_now() - t0;
            if (t->cpu_clock) *cpu_seconds += cikb_thread_cpu_now() - c0;
        }
        cikb_set_iteration_time(s, *seconds - batch_start);
    }
    return failed;
}

/* The joints' rotations of `st` (`chains` chains) into `saved` (4 floats a
 * joint and chain), or back from it when `restore`: each timed solve starts
 * from the same pose. */
static inline void cikb_rotations_copy(const cik_streams *st, size_t chains, float *saved, int restore)
{
    for (int j = 0; j < st->joint_count; ++j) {
        float *stream[4] = {st->rotation_x[j], st->rotation_y[j], st->rotation_z[j], st->rotation_w[j]};
        for (size_t c = 0; c < 4; ++c) {
            float *keep = saved + (4 * (size_t)j + c) * chains;
            if (restore)
                memcpy(stream[c], keep, sizeof(float) * chains);
            else
                memcpy(keep, stream[c], sizeof(float) * chains);
        }
    }
}

/* The counters of a chain benchmark (docs/benchmarks.md): the rate and the
 * time per chain from the timed seconds (and the thread's CPU time when
 * measured), joint steps per second, mean passes and the converged
 * fraction, over the run's iterations of `chains` chains of `joints`. */
static inline void cikb_report_chains(cikb_state *s, int chains, int joints, double seconds, double cpu_seconds,
                                      double mean_passes, double converged)
{
    double total = (double)chains * (double)cikb_iterations(s);
    cikb_counter(s, "chains_per_s", total, CIKB_RATE);
    cikb_counter(s, "ns_per_chain", total > 0 ? seconds * 1e9 / total : 0.0, CIKB_PLAIN);
    if (cpu_seconds > 0.0) cikb_counter(s, "cpu_ns_per_chain", cpu_seconds * 1e9 / total, CIKB_PLAIN);
    cikb_counter(s, "joint_steps_per_s", total * mean_passes * joints, CIKB_RATE);
    cikb_counter(s, "mean_passes", mean_passes, CIKB_PLAIN);
    cikb_counter(s, "converged", converged, CIKB_PLAIN);
}

/* A batch kept with its start pose, for timed solves that each start from
 * it (bench_ccd.c, bench_peers.c): the batch, its streams, its start
 * rotations (cikb_rotations_copy's layout) and the scratch cikb_run_solve
 * wants. */
typedef struct cikb_posed {
    cik_batch *batch;
    cik_streams streams;
    float *start, *scratch;
} cikb_posed;

/* Takes `batch` (owned from now on, on failure too: cikb_posed_free frees
 * it) with its current rotations as the start pose. NULL, or why not. */
static inline const char *cikb_posed_init(cikb_posed *p, cik_batch *batch)
{
    memset(p, 0, sizeof *p);
    p->batch = batch;
    cik_batch_streams(batch, &p->streams);
    const size_t chains = (size_t)p->streams.chain_count, joints = (size_t)p->streams.joint_count;
    p->start = (float *)malloc(sizeof(float) * 4 * joints * chains);
    p->scratch = (float *)malloc(sizeof(float) * chains);
    if (!p->start || !p->scratch) return "out of memory";
    cikb_rotations_copy(&p->streams, chains, p->start, 0);
    return NULL;
}

/* The batch back at its start pose. */
static inline void cikb_posed_restore(const cikb_posed *p)
{
    cikb_rotations_copy(&p->streams, (size_t)p->streams.chain_count, p->start, 1);
}

static inline void cikb_posed_free(cikb_posed *p)
{
    cik_batch_destroy(p->batch);
    free(p->start);
    free(p->scratch);
    memset(p, 0, sizeof *p);
}

/* cik_solve timed as above, each time from the start pose that `restore`
 * writes back. */
typedef struct cikb_solve {
    cik_batch *batch;
    const cik_options *options;
    void (*restore)(void);
} cikb_solve;

static inline void cikb_solve_setup(void *ctx) { ((cikb_solve *)ctx)->restore(); }

static inline int cikb_solve_step(void *ctx)
{
    const cikb_solve *c = (const cikb_solve *)ctx;
    return cik_solve(c->batch, c->options) != CIK_OK;
}

/* Times cik_solve of `batch` from `restore`'s start pose, then reads the
 * batch's mean passes and its converged fraction (`scratch`: wl_collect's).
 * Returns nonzero, the run skipped with an error, when cik_solve refused. */
static inline int cikb_run_solve(cikb_state *s, cik_batch *batch, const cik_options *o, void (*restore)(void),
                                 int cpu_clock, float *scratch, double *seconds, double *cpu_seconds,
                                 double *mean_passes, double *converged)
{
    cikb_solve c = {batch, o, restore};
    cikb_timed t = {cikb_solve_setup, cikb_solve_step, &c, cpu_clock};
    if (cikb_run_timed(s, &t, seconds, cpu_seconds)) {
        cikb_skip_with_error(s, "cik_solve refused");
        return 1;
    }
    wl_stats st;
    wl_collect(batch, &st, scratch);
    *mean_passes = st.mean_passes;
    *converged = st.chains ? (double)st.converged / st.chains : 0.0;
    return 0;
}

#endif
