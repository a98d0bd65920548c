/*
 * Solving: options, the solve plan (its kernel from the dispatch table,
 * src/dispatch.c), and the OpenMP split of a batch into contiguous blocks of
 * lanes.
 */
#include "internal.h"

#include <math.h>
#include <string.h>
#include <stddef.h>

#ifdef CIK_HAVE_OPENMP
#include <omp.h>
#endif

/* Below this many chains a solve runs on the calling thread. Measured on
 * 3-joint legs, AVX-512 (two 16-lane blocks interleaved: 32 lanes a group),
 * 2 cores, with OpenMP's pool warm: one group takes the same time on 1 or 2
 * threads (4.2 us either way at 16 and 32 chains), two groups already gain
 * 1.5x (64 chains: 8.7 us vs 5.7 us), 256 chains 1.8x, 4096 and up 2.0x.
 * So a batch is split as soon as it has two groups' worth of chains. */
#ifndef CIK_PARALLEL_MIN_CHAINS
#define CIK_PARALLEL_MIN_CHAINS 64
#endif

const char *cik_version(void)
{
#define CIK__STR2(x) #x
#define CIK__STR(x) CIK__STR2(x)
    return CIK__STR(CIK_VERSION_MAJOR) "." CIK__STR(CIK_VERSION_MINOR) "." CIK__STR(CIK_VERSION_PATCH);
}

cik_options cik_default_options(void)
{
    cik_options o;
    o.threshold = 1e-3f;
    o.max_iterations = 10;
    o.backend = CIK_BACKEND_AUTO;
    o.threads = 0;
    /* measured with crowdik_validate --quality (docs/solver.md): a 0.05 rad
     * cap per step doubles to quadruples what spines and tails reach in 10
     * passes; gains above 1 and weights did not help on top of it */
    o.gain = 0.0f;
    o.max_step = 0.05f;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) o.weight[j] = 0.0f;
    o.hinge_aware = 1;
    o.limb = CIK_LIMB_AUTO;
    return o;
}

cik_options cik_plain_options(void)
{
    cik_options o;
    memset(&o, 0, sizeof o);
    o.threshold = 1e-3f;
    o.max_iterations = 10;
    o.backend = CIK_BACKEND_AUTO;
    return o;
}

/* CIK_OK, or CIK_ERROR_OPTIONS for anything outside the documented ranges
 * (NaN fails every comparison, so it is refused too). */
static cik_status check_options(const cik_options *o)
{
    if (!(o->threshold > 0.0f) || !isfinite(o->threshold) || o->max_iterations < 0 || o->threads < 0)
        return CIK_ERROR_OPTIONS;
    if (!(o->gain >= 0.0f && o->gain <= 2.0f)) return CIK_ERROR_OPTIONS;
    if (!(o->max_step >= 0.0f && o->max_step <= 3.14159265f)) return CIK_ERROR_OPTIONS;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j)
        if (!(o->weight[j] >= 0.0f && o->weight[j] <= 2.0f)) return CIK_ERROR_OPTIONS;
    if (o->hinge_aware != 0 && o->hinge_aware != 1) return CIK_ERROR_OPTIONS;
    if (o->limb != CIK_LIMB_OFF && o->limb != CIK_LIMB_AUTO) return CIK_ERROR_OPTIONS;
    return CIK_OK;
}

static cik__kernel_job make_job(const cik_batch *b, const cik_options *o)
{
    cik__kernel_job job;
    job.batch = b;
    job.threshold = o->threshold;
    job.max_iterations = o->max_iterations;
    float gain = o->gain == 0.0f ? 1.0f : o->gain;
    job.any_factor = 0;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        job.factor[j] = gain * (o->weight[j] == 0.0f ? 1.0f : o->weight[j]);
        if (j < b->joint_count && job.factor[j] != 1.0f) job.any_factor = 1;
    }
    job.max_step = o->max_step;
    job.cap_s = (float)sin(0.5 * o->max_step);
    job.cap_c = (float)cos(0.5 * o->max_step);
    job.hinge_aware = o->hinge_aware;
    job.limb = o->limb;
    return job;
}

static int team_size(const cik_batch *b, int threads, int units)
{
#ifdef CIK_HAVE_OPENMP
    if (threads == 1 || b->chain_count < CIK_PARALLEL_MIN_CHAINS) return 1;
    int n = threads > 0 ? threads : omp_get_max_threads();
    return n < units ? n : units;
#else
    (void)b;
    (void)threads;
    (void)units;
    return 1;
#endif
}

cik_status cik__solve_prepare(const cik_batch *b, const cik_options *options, cik__solve_plan *out)
{
    cik_options o = options ? *options : cik_default_options();
    if (!b) return CIK_ERROR_ARGUMENT;
    if (check_options(&o) != CIK_OK) return CIK_ERROR_OPTIONS;
    const cik__isa *isa = cik__isa_usable(o.backend); /* src/dispatch.c */
    if (!isa) return CIK_ERROR_BACKEND_UNAVAILABLE;
    out->job = make_job(b, &o);
    out->kernel = isa->ccd; /* NULL for the reference */
    out->threads = o.threads;
    return CIK_OK;
}

void cik__solve_range(const cik__solve_plan *plan, int begin, int end)
{
    const cik_batch *b = plan->job.batch;
    if (end > b->chain_count) end = b->chain_count;
    if (end <= begin) return;
    if (!plan->kernel) {
        cik__solve_reference((cik_batch *)b, &plan->job, begin, end);
        return;
    }
    /* whole groups: the last one may run into the padding lanes, which
     * hold converged chains and are never read back */
    int g = plan->kernel->group_lanes;
    plan->kernel->solve(&plan->job, begin, (end + g - 1) / g * g);
}

cik_status cik_solve(cik_batch *b, const cik_options *options)
{
    cik__solve_plan plan;
    cik_status st = cik__solve_prepare(b, options, &plan);
    if (st != CIK_OK) return st;
    if (b->chain_count == 0) return CIK_OK;
    const cik__kernel *k = plan.kernel;
    /* The reference splits chains, a kernel whole groups of lanes: a static
     * split into one contiguous block per thread, so that each chain's
     * result is independent of the team size. */
    int unit = k ? k->group_lanes : 1;
    int units = (b->chain_count + unit - 1) / unit;
    int team = team_size(b, plan.threads, units);
    if (team <= 1) {
        cik__solve_range(&plan, 0, b->chain_count);
        return CIK_OK;
    }
#ifdef CIK_HAVE_OPENMP
#pragma omp parallel num_threads(team)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int u0 = (int)((long long)units * t / nt), u1 = (int)((long long)units * (t + 1) / nt);
        cik__solve_range(&plan, u0 * unit, u1 * unit);
    }
#endif
    return CIK_OK;
}
