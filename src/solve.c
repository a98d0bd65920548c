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
    o.ccd.gain = 0.0f;
    o.ccd.max_step = 0.05f;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) o.ccd.weight[j] = 0.0f;
    o.ccd.hinge_aware = 1;
    /* damped least-squares steps around each sweep: spines, tails and legs
     * without a hinge converge within a few passes (docs/solver.md) */
    o.ccd.dls_damping = 0.05f;
    o.ccd.limb = CIK_LIMB_AUTO;
    /* a target out of reach: no passes after the chain lies straight
     * toward it (legs with the ankle as effector: docs/solver.md) */
    o.ccd.stop_unreachable = 1;
    /* a chain never ends farther from its target than at its best pass
     * (docs/solver.md) */
    o.ccd.keep_best = 1;
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
    if (!(o->ccd.gain >= 0.0f && o->ccd.gain <= 2.0f)) return CIK_ERROR_OPTIONS;
    if (!(o->ccd.max_step >= 0.0f && o->ccd.max_step <= 3.14159265f)) return CIK_ERROR_OPTIONS;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j)
        if (!(o->ccd.weight[j] >= 0.0f && o->ccd.weight[j] <= 2.0f)) return CIK_ERROR_OPTIONS;
    if (o->ccd.hinge_aware != 0 && o->ccd.hinge_aware != 1) return CIK_ERROR_OPTIONS;
    if (!(o->ccd.dls_damping >= 0.0f && o->ccd.dls_damping <= 1.0f)) return CIK_ERROR_OPTIONS;
    if (o->ccd.limb != CIK_LIMB_OFF && o->ccd.limb != CIK_LIMB_AUTO) return CIK_ERROR_OPTIONS;
    if (o->ccd.stop_unreachable != 0 && o->ccd.stop_unreachable != 1) return CIK_ERROR_OPTIONS;
    if (o->ccd.keep_best != 0 && o->ccd.keep_best != 1) return CIK_ERROR_OPTIONS;
    return CIK_OK;
}


static cik__kernel_job make_job(const cik_batch *b, const cik_options *o)
{
    cik__kernel_job job;
    job.batch = b;
    job.threshold = o->threshold;
    job.max_iterations = o->max_iterations;
    float gain = o->ccd.gain == 0.0f ? 1.0f : o->ccd.gain;
    job.any_factor = 0;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
        job.factor[j] = gain * (o->ccd.weight[j] == 0.0f ? 1.0f : o->ccd.weight[j]);
        if (j < b->joint_count && job.factor[j] != 1.0f) job.any_factor = 1;
    }
    job.max_step = o->ccd.max_step;
    job.cap_s = (float)sin(0.5 * o->ccd.max_step);
    job.cap_c = (float)cos(0.5 * o->ccd.max_step);
    job.hinge_aware = o->ccd.hinge_aware;
    job.dls_damping = o->ccd.dls_damping;
    job.dls_min_joints = 3;
    job.limb = o->ccd.limb;
    job.stop_unreachable = o->ccd.stop_unreachable;
    job.keep_best = o->ccd.keep_best;
    job.prefetch = cik__batch_bytes(b) > CIK_PREFETCH_MIN_BYTES;
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

/* Marks an initialised plan (cik_solve_plan_init). */
#define CIK__PLAN_MAGIC 0x63696b50u

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
    out->magic = CIK__PLAN_MAGIC;
    return CIK_OK;
}

/* The most lanes a kernel group has (AVX-512: two 16-lane blocks). */
#define CIK__MAX_GROUP 32
#define CIK__MAX_STREAMS (CIK__CHAIN_STREAMS + CIK_MAX_JOINTS * CIK__JS + CIK__RESULT_STREAMS)

/* The stack scratch of the pool: one group of the longest chains, or
 * several groups of shorter ones. */
#define CIK__SCRATCH_FLOATS (CIK__MAX_STREAMS * CIK__MAX_GROUP)
#define CIK__POOL_MAX 512 /* lanes: more than the scratch holds of 1-joint chains */

/* A pool of chains that are solved together in full groups on the stack
 * instead of in place: the chains of groups that a range cuts, and the
 * enabled chains of partly disabled groups. `capacity` lanes (whole groups,
 * as many as the scratch holds, so that the kernel's regrouping works
 * across them) are solved at a time. */
typedef struct lane_pool {
    int lane[CIK__POOL_MAX];
    int count, capacity;
} lane_pool;

static void pool_init(const cik__solve_plan *plan, lane_pool *pool)
{
    const int g = plan->kernel->group_lanes;
    const int streams = cik__batch_streams(plan->job.batch);
    int cap = CIK__SCRATCH_FLOATS / streams / g * g;
    if (cap > CIK__POOL_MAX) cap = CIK__POOL_MAX / g * g;
    pool->count = 0;
    pool->capacity = cap;
}

/* Solves the pooled chains (all of them: at most `capacity`) in a scratch
 * batch of whole groups (lanes past them copies of the last one) and copies
 * their rotations and results back. A lane's result depends on its own data
 * only (the kernels' masks freeze each lane on its own, and regrouping keeps
 * the bits), so these are the bits the chains get in place. Out of line:
 * its scratch is on the stack only while it runs. */
static __attribute__((noinline)) void solve_pooled(const cik__solve_plan *plan, lane_pool *pool)
{
    const cik_batch *b = plan->job.batch;
    const int g = plan->kernel->group_lanes;
    const int n = pool->count;
    const int lanes = (n + g - 1) / g * g;
    const int *lane = pool->lane;
    pool->count = 0;
    if (n == 0) return;
    int from_lane[CIK__POOL_MAX];
    for (int k = 0; k < lanes; ++k) from_lane[k] = lane[k < n ? k : n - 1];

    _Alignas(64) float scratch[CIK__SCRATCH_FLOATS];
    cik_batch sb = *b;
    sb.chain_count = sb.padded = lanes;
    sb.stride = (size_t)lanes;
    sb.base = scratch;
    sb.memory = NULL;
    for (int s = 0; s < CIK__CHAIN_STREAMS; ++s) {
        const float *from = cik__chain_stream(b, s);
        float *to = cik__chain_stream(&sb, s);
        for (int k = 0; k < lanes; ++k) to[k] = from[from_lane[k]];
    }
    /* (the raw swing limit is the reference's; kernels use its sine and
     * cosine) */
    for (int j = 0; j < b->joint_count; ++j)
        for (int s = 0; s < CIK__JS; ++s) {
            if (s == CIK__LSWING) continue;
            const float *from = cik__joint_stream(b, j, s);
            float *to = cik__joint_stream(&sb, j, s);
            for (int k = 0; k < lanes; ++k) to[k] = from[from_lane[k]];
        }
    cik__kernel_job job = plan->job;
    job.batch = &sb;
    job.prefetch = 0;
    plan->kernel->solve(&job, 0, lanes);
    for (int j = 0; j < b->joint_count; ++j)
        for (int s = CIK__QX; s <= CIK__QW; ++s) {
            const float *from = cik__joint_stream(&sb, j, s);
            float *to = cik__joint_stream(b, j, s);
            for (int k = 0; k < n; ++k) to[lane[k]] = from[k];
        }
    for (int s = 0; s < CIK__RESULT_STREAMS; ++s) {
        const uint32_t *from = (const uint32_t *)cik__result_stream(&sb, s);
        uint32_t *to = (uint32_t *)cik__result_stream(b, s);
        for (int k = 0; k < n; ++k) to[lane[k]] = from[k];
    }
}

/* The reference over [begin, end), the enabled chains only. */
static void reference_range(const cik__solve_plan *plan, int begin, int end)
{
    cik_batch *b = (cik_batch *)plan->job.batch;
    const unsigned char *en = cik__enable_stream(b);
    for (int i = begin; i < end;) {
        while (i < end && !en[i]) ++i;
        int run = i;
        while (i < end && en[i]) ++i;
        if (run < i) cik__solve_reference(b, &plan->job, run, i);
    }
}

/* Adds chain i to the pool, solving the pool when it is full. */
static void pool_push(const cik__solve_plan *plan, lane_pool *pool, int i)
{
    pool->lane[pool->count++] = i;
    if (pool->count == pool->capacity) solve_pooled(plan, pool);
}

/* Adds the enabled chains of [begin, end) to the pool. */
static void pool_add(const cik__solve_plan *plan, lane_pool *pool, const unsigned char *en, int begin, int end)
{
    for (int i = begin; i < end; ++i)
        if (en[i]) pool_push(plan, pool, i);
}

void cik__solve_range(const cik__solve_plan *plan, int begin, int end)
{
    const cik_batch *b = plan->job.batch;
    if (end > b->chain_count) end = b->chain_count;
    if (begin < 0) begin = 0;
    if (end <= begin) return;
    if (!plan->kernel) {
        reference_range(plan, begin, end);
        return;
    }
    /* Runs of whole, fully enabled groups are solved in place: at the
     * batch's end the last group may run into the padding lanes, which hold
     * converged chains and are never read back. The enabled chains of a
     * group that the range cuts or that is partly disabled go to the pool,
     * which solves them in full groups on the stack; a fully disabled group
     * costs its scan. */
    const int g = plan->kernel->group_lanes;
    const unsigned char *en = cik__enable_stream(b);
    int a0 = (begin + g - 1) / g * g;
    int a1 = end == b->chain_count ? (end + g - 1) / g * g : end / g * g;
    lane_pool pool;
    pool_init(plan, &pool);
    pool_add(plan, &pool, en, begin, end < a0 ? end : a0);
    int run = -1; /* start of the current run of in-place groups */
    for (int lane = a0; lane < a1; lane += g) {
        const int last = lane + g < b->chain_count ? lane + g : b->chain_count;
        int on = 0;
        for (int i = lane; i < last; ++i) on += en[i] != 0;
        if (on == last - lane) {
            if (run < 0) run = lane;
            continue;
        }
        if (run >= 0) plan->kernel->solve(&plan->job, run, lane);
        run = -1;
        if (on > 0) pool_add(plan, &pool, en, lane, last);
    }
    if (run >= 0) plan->kernel->solve(&plan->job, run, a1);
    pool_add(plan, &pool, en, a1 > a0 ? a1 : a0, end);
    solve_pooled(plan, &pool);
}

void cik__solve_lanes(const cik__solve_plan *plan, const int *lanes, int n)
{
    if (!plan->kernel) {
        for (int k = 0; k < n; ++k) cik__solve_reference((cik_batch *)plan->job.batch, &plan->job, lanes[k], lanes[k] + 1);
        return;
    }
    lane_pool pool;
    pool_init(plan, &pool);
    for (int k = 0; k < n; ++k) pool_push(plan, &pool, lanes[k]);
    solve_pooled(plan, &pool);
}

/* The public plan holds the internal one. */
typedef char cik__plan_fits[sizeof(cik__solve_plan) <= sizeof(((cik_solve_plan *)0)->opaque) ? 1 : -1];

static const cik__solve_plan *plan_of(const cik_solve_plan *plan)
{
    if (!plan) return NULL;
    const cik__solve_plan *p = (const cik__solve_plan *)(const void *)&plan->opaque;
    return p->magic == CIK__PLAN_MAGIC ? p : NULL;
}

cik_status cik_solve_plan_init(cik_solve_plan *plan, cik_batch *batch, const cik_options *options)
{
    if (!plan || !batch) return CIK_ERROR_ARGUMENT;
    cik__solve_plan p;
    cik_status st = cik__solve_prepare(batch, options, &p);
    if (st != CIK_OK) return st;
    if (p.kernel && p.kernel->group_lanes > CIK__MAX_GROUP) return CIK_ERROR_BACKEND_UNAVAILABLE;
    memset(plan, 0, sizeof *plan);
    memcpy(&plan->opaque, &p, sizeof p);
    return CIK_OK;
}

cik_status cik_solve_range(const cik_solve_plan *plan, int begin, int end)
{
    const cik__solve_plan *p = plan_of(plan);
    if (!p || begin < 0 || begin > end || end > p->job.batch->chain_count) return CIK_ERROR_ARGUMENT;
    cik__solve_range(p, begin, end);
    return CIK_OK;
}

int cik_solve_plan_alignment(const cik_solve_plan *plan)
{
    const cik__solve_plan *p = plan_of(plan);
    if (!p) return 0;
    return p->kernel ? p->kernel->group_lanes : 1;
}

/* The back-off after a team that gave no help: solves on one thread, first
 * this many, four times more each time teams keep giving none, up to the
 * most (so a busy machine pays for a probing team in at most 1 of
 * SOLO_MAX + 1 solves, and a machine that frees up uses its cores again
 * after at most SOLO_MAX solves). */
#define SOLO_FIRST 16
#define SOLO_MAX 1024

/* The most ranges a team's chunks are cut into (threads past it share
 * ranges). */
#define CIK__RANGES 64

void cik__parallel_ranges(int count, int chunk, int team, cik__team_state *state, cik__range_fn fn,
                          const void *context)
{
    if (count <= 0) return;
    if (chunk < 1) chunk = 1;
    const int chunks = (int)(((long long)count + chunk - 1) / chunk);
    if (team > chunks) team = chunks;
    if (team > 1 && state && state->solo_left > 0) {
        --state->solo_left;
        team = 1;
    }
    if (team <= 1) {
        fn(context, 0, count);
        return;
    }
#ifdef CIK_HAVE_OPENMP
    /* The chunks in `ranges` contiguous runs; range r is thread r's (mod
     * ranges): a thread takes its own range's chunks first, so the same
     * thread solves the same chains from one call to the next and finds
     * their streams in its own core's caches; then it helps with the
     * other ranges in turn (work a descheduled thread has not started). */
    const int ranges = team < CIK__RANGES ? team : CIK__RANGES;
    int next[CIK__RANGES], end[CIK__RANGES];
    for (int r = 0; r < ranges; ++r) {
        next[r] = (int)((long long)chunks * r / ranges);
        end[r] = (int)((long long)chunks * (r + 1) / ranges);
    }
    int idle = 0;
#pragma omp parallel num_threads(team)
    {
        int mine = 0;
        const int own = omp_get_thread_num() % ranges;
        for (int k = 0; k < ranges; ++k) {
            const int r = (own + k) % ranges;
            for (;;) {
                int c;
#pragma omp atomic capture
                c = next[r]++;
                if (c >= end[r]) break;
                ++mine;
                int begin = c * chunk;
                fn(context, begin, count - begin < chunk ? count : begin + chunk);
            }
        }
        if (!mine) {
#pragma omp atomic update
            ++idle;
        }
    }
    if (state) {
        if (idle > 0) {
            state->backoff = state->backoff ? (state->backoff < SOLO_MAX ? 4 * state->backoff : SOLO_MAX)
                                            : SOLO_FIRST;
            state->solo_left = state->backoff;
        } else {
            state->backoff = 0;
        }
    }
#endif
}

/* cik_solve's chunk of the batch: units of kernel groups (or chains). */
typedef struct solve_chunks {
    const cik__solve_plan *plan;
    int unit;
} solve_chunks;

static void solve_units(const void *context, int u0, int u1)
{
    const solve_chunks *sc = (const solve_chunks *)context;
    cik__solve_range(sc->plan, u0 * sc->unit, u1 * sc->unit);
}

/* Chunks per thread: enough that the threads that run can take over what a
 * descheduled one has not started; few enough that a chunk (at least
 * CIK__PAD chains) keeps regrouping's pool fed. */
#define CHUNKS_PER_THREAD 4

cik_status cik_solve(cik_batch *b, const cik_options *options)
{
    cik__solve_plan plan;
    cik_status st = cik__solve_prepare(b, options, &plan);
    if (st != CIK_OK) return st;
    cik__solve_run(b, &plan);
    return CIK_OK;
}

void cik__solve_run(cik_batch *b, const cik__solve_plan *plan)
{
    if (b->chain_count == 0) return;
    const cik__kernel *k = plan->kernel;
    /* The reference splits chains, a kernel whole groups of lanes. Each
     * chain's result depends on its own data alone, never on the chunk or
     * the thread that solves it, so the dynamic split keeps the bits. */
    int unit = k ? k->group_lanes : 1;
    int units = (b->chain_count + unit - 1) / unit;
    int team = team_size(b, plan->threads, units);
    const int per = CHUNKS_PER_THREAD * (team > 1 ? team : 1);
    int chunk = (units + per - 1) / per;
    if (chunk < CIK__PAD / unit) chunk = CIK__PAD / unit;
    solve_chunks sc = {plan, unit};
    cik__parallel_ranges(units, chunk, team, &b->team, solve_units, &sc);
}
