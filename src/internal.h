/*
 * The batch's stream layout, shared by src/ only.
 *
 * A batch is one 64-byte aligned allocation of equally long float streams,
 * one per component: chain-level streams (target, root, effector), then
 * CIK__JS streams per joint (rotation, offset, limit and the limit's derived
 * half-angle sines and cosines), then the result streams. Every stream holds
 * `stride` floats: the chain count rounded up to CIK__PAD lanes (so kernels
 * of 1, 4, 8 and 16 lanes, interleaved up to 4 blocks deep, never need a
 * scalar tail), plus 16 floats when that would make the stride a multiple of
 * 4 KiB (streams 4 KiB apart alias in L1 and evict each other).
 *
 * The padding lanes hold a valid chain that has converged before it starts
 * (zero offsets, target at the root), so kernels run them at no cost and
 * their results are never read.
 */
#ifndef CROWDIK_INTERNAL_H
#define CROWDIK_INTERNAL_H

#include "crowdik/crowdik.h"

#include <stddef.h>
#include <stdint.h>

/* Lanes a stream is padded to: 16 lanes (AVX-512) x 4 interleaved blocks. */
#define CIK__PAD 64

enum cik__chain_stream {
    CIK__TX, CIK__TY, CIK__TZ,         /* target, world */
    CIK__RPX, CIK__RPY, CIK__RPZ,      /* root position, world */
    CIK__RQX, CIK__RQY, CIK__RQZ, CIK__RQW, /* root rotation, world */
    CIK__EX, CIK__EY, CIK__EZ,         /* effector offset in the last joint's frame */
    CIK__PLX, CIK__PLY, CIK__PLZ,      /* pole point, world (limb mode) */
    CIK__PLW,                          /* pole weight in [0, 1]; 0 = no pole */
    CIK__CHAIN_STREAMS
};

enum cik__joint_stream {
    CIK__QX, CIK__QY, CIK__QZ, CIK__QW, /* local rotation */
    CIK__OX, CIK__OY, CIK__OZ,          /* offset in the parent's frame */
    CIK__LTYPE,                         /* limit type as a float: 0, 1, 2 */
    CIK__AX, CIK__AY, CIK__AZ,          /* unit limit axis */
    CIK__LMIN, CIK__LMAX,               /* hinge / twist range, radians */
    CIK__LSWING,                        /* swing cone half-angle, radians */
    /* Derived when the limit is set, so kernels need no transcendentals:
     * sin and cos of half of min, max and swing_max. */
    CIK__SMIN, CIK__CMIN, CIK__SMAX, CIK__CMAX, CIK__SSWING, CIK__CSWING,
    CIK__JS
};

enum cik__result_stream {
    CIK__ERR,   /* float */
    CIK__ITER,  /* int32 */
    CIK__FLAGS, /* uint32 */
    CIK__RESULT_STREAMS
};

/* When an OpenMP team gave no help (a thread arrived after all the work was
 * taken: its core was busy with other work), the next `solo_left` solves
 * run on the calling thread; `backoff` doubles while that keeps happening
 * (cik__parallel_ranges). */
typedef struct cik__team_state {
    int solo_left;
    int backoff;
} cik__team_state;

/* Runs fn(context, begin, end) over [0, count) in chunks of `chunk` (the
 * last one clipped to `count`), on up to `team` OpenMP threads (the caller
 * among them). The chunks are cut into one contiguous range per thread;
 * each thread takes the chunks of its own range first (the same thread
 * gets the same chunks from call to call, so their data stays in its
 * core's caches), then the chunks no thread has taken yet from the other
 * ranges: work that a descheduled thread has not started is done by the
 * threads that run. With `state`, a team in which some thread took no chunk makes
 * the next state->solo_left calls run on the calling thread alone. The
 * split never decides a result: callers give chunks whose results do not
 * depend on which thread or in which order they run. */
typedef void (*cik__range_fn)(const void *context, int begin, int end);
void cik__parallel_ranges(int count, int chunk, int team, cik__team_state *state, cik__range_fn fn,
                          const void *context);

struct cik_batch {
    int chain_count;
    int joint_count;
    int padded;        /* lanes per stream that kernels may touch */
    size_t stride;     /* floats between consecutive streams */
    size_t bytes;      /* the allocation's size */
    void *memory;      /* what to free */
    float *base;       /* 64-byte aligned start of stream 0 */
    cik_allocator allocator; /* allocate NULL: malloc and free */
    size_t memory_bytes;     /* the size `memory` was allocated with */
    cik__team_state team;    /* cik_solve's OpenMP back-off (solve.c) */
};

static inline float *cik__chain_stream(const cik_batch *b, int s)
{
    return b->base + (size_t)s * b->stride;
}

static inline float *cik__joint_stream(const cik_batch *b, int joint, int s)
{
    return b->base + ((size_t)CIK__CHAIN_STREAMS + (size_t)joint * CIK__JS + (size_t)s) * b->stride;
}

static inline void *cik__result_stream(const cik_batch *b, int s)
{
    return b->base +
           ((size_t)CIK__CHAIN_STREAMS + (size_t)b->joint_count * CIK__JS + (size_t)s) * b->stride;
}

/* The batch's float streams (chain, joints, results; not the enable
 * bytes), and the bytes they take. */
static inline int cik__batch_streams(const cik_batch *b)
{
    return CIK__CHAIN_STREAMS + b->joint_count * CIK__JS + CIK__RESULT_STREAMS;
}

static inline size_t cik__batch_bytes(const cik_batch *b)
{
    return (size_t)b->stride * sizeof(float) * (size_t)cik__batch_streams(b);
}

/* The level-of-detail enable stream, one byte per lane (0: the solve
 * leaves the chain alone), after the result streams. Kernels never read it:
 * the solve's range loop does (solve.c). */
static inline unsigned char *cik__enable_stream(const cik_batch *b)
{
    return (unsigned char *)(b->base + ((size_t)CIK__CHAIN_STREAMS + (size_t)b->joint_count * CIK__JS +
                                        (size_t)CIK__RESULT_STREAMS) *
                                           b->stride);
}

/* Reads chain `index` out of the streams without any check (the rotations are
 * the current pose). Used by get_chain and by the reference solver. */
void cik__read_chain(const cik_batch *b, int index, cik_chain *out);

/* Writes the rotations of `chain` back into slot `index`. */
void cik__write_rotations(cik_batch *b, int index, const cik_chain *chain);

/* Everything a solver needs for one solve: the batch and the options,
 * resolved (zero-valued options replaced by what they mean). */
typedef struct cik__kernel_job {
    const cik_batch *batch;
    float threshold;
    int max_iterations;
    /* Step factor per joint: gain * weight[j]; exactly 1 when neither is
     * set, and then the step is the plain one, bit for bit. */
    float factor[CIK_MAX_JOINTS];
    int any_factor;         /* some factor differs from 1 */
    float max_step;         /* radians; 0 = no cap */
    float cap_s, cap_c;     /* sin and cos of max_step / 2 */
    int hinge_aware;
    float dls_damping;      /* 0 = no damped least-squares steps */
    /* the fewest joints a chain has for them: 3 (on one or two joints a
     * step has little to spread, and its nearly singular solve carries
     * rounding noise the backends do not share); the foot crowd's 2: its
     * hip-knee chains with the shin as effector are the three-joint legs
     * whose ankle, the effector's joint, the solve never turned */
    int dls_min_joints;
    int limb;
    int stop_unreachable;   /* an out-of-reach chain stops as near as it gets */
    int keep_best;          /* a chain ends on its best pose of the passes */
    /* 1: a fresh group asks for the next group's cache lines ahead of it
     * (a batch past CIK_PREFETCH_MIN_BYTES, solve.c; 0 where the caller
     * has just written the lanes it solves) */
    int prefetch;
} cik__kernel_job;

/* A batch whose streams take more than this many bytes is read from
 * memory rather than from the caches: its solve asks for each next group's
 * cache lines ahead (group_prefetch in src/kernels/ccd_kernel.h). Measured
 * on 3-joint legs, one thread, on a Zen 5 VM whose L3 streams at half
 * speed past 16 MB (docs/roofline.md): 65,536 legs (21 MB) 25 to 35
 * percent faster on AVX2 and AVX-512, 20 on SSE4.1; 4,096 and 16,384 legs
 * (1.3 and 5.3 MB), still in the caches, 5 percent slower (SSE4.1 19), so
 * they do not prefetch. The foot crowd's and the herd's frames ask for
 * their next block's streams past the same size (prefetch_block in
 * src/foot/crowd.c, herd_prefetch in src/foot/herd.c). */
#ifndef CIK_PREFETCH_MIN_BYTES
#define CIK_PREFETCH_MIN_BYTES (8u << 20)
#endif

/* The reference solver: chains [begin, end) one at a time, SPEC step by step. */
void cik__solve_reference(cik_batch *b, const cik__kernel_job *job, int begin, int end);

/* A vector kernel: solves lanes [begin, end) (multiples of its group width,
 * end <= batch->padded). */
typedef void (*cik__kernel_fn)(const cik__kernel_job *job, int begin, int end);

typedef struct cik__kernel {
    cik_backend backend;
    int group_lanes; /* lanes per interleaved group: a block boundary multiple */
    cik__kernel_fn solve;
} cik__kernel;

/* A solve checked and resolved once, then run over ranges of chains by
 * cik_solve's threads or by the foot frame, block by block. */
typedef struct cik__solve_plan {
    cik__kernel_job job;
    const cik__kernel *kernel; /* NULL: the reference solver */
    int threads;               /* the options' thread count */
    unsigned magic;            /* set by cik__solve_prepare */
} cik__solve_plan;

/* Checks the options (and the backend) as cik_solve does: CIK_OK and the
 * plan, or the status cik_solve would return. */
cik_status cik__solve_prepare(const cik_batch *b, const cik_options *options, cik__solve_plan *out);

/* Solves exactly chains [begin, end) (clipped to the batch): whole groups
 * in place, the chains of a group the range splits in a group on the stack
 * (cik_solve_range in crowdik.h). */
void cik__solve_range(const cik__solve_plan *plan, int begin, int end);

/* cik_solve after its checks: every chain of `b` (the plan's batch) on the
 * plan's threads. */
void cik__solve_run(cik_batch *b, const cik__solve_plan *plan);

/* Solves chains lanes[0 .. n) (distinct, in the batch), whatever their
 * enable bytes, in full groups on the stack: the bits each gets in place. */
void cik__solve_lanes(const cik__solve_plan *plan, const int *lanes, int n);

/* The dispatch table (src/dispatch.c): one row per cik_backend, the only
 * place that knows which instruction sets exist. Each built instruction set
 * is one translation unit (src/kernels/isa.c) that defines its CCD kernel
 * cik__kernel_<isa> and its foot kernels cik__foot_kernel_<isa>. */
struct cik__foot_kernel; /* src/foot/foot_internal.h */

typedef struct cik__isa {
    cik_backend backend;
    const char *name;      /* cik_backend_name's answer */
    int (*cpu_runs)(void); /* this CPU executes the instruction set */
    /* NULL when not built into this library (and for AUTO and REFERENCE:
     * the reference solves without a kernel) */
    const cik__kernel *ccd;
    /* the foot stages' kernels for this backend: the same instruction set;
     * the one-lane build for REFERENCE; NULL when not built in */
    const struct cik__foot_kernel *foot;
} cik__isa;

/* The row a backend uses on this build and CPU, AUTO resolved to the best
 * one; NULL when the backend is unknown, not built in or not run by this
 * CPU (then cik_solve refuses it with CIK_ERROR_BACKEND_UNAVAILABLE). */
const cik__isa *cik__isa_usable(cik_backend backend);

/* Whether the foot crowd's frame asks for its next block's streams while a
 * block runs (prefetch_block in src/foot/crowd.c; a crowd past
 * CIK_PREFETCH_MIN_BYTES), by the CPU's maker (src/dispatch.c, with the
 * library's other CPU tests): not on Intel's, whose own prefetchers follow
 * the crowd's streams (10,000 characters were slower with it on an Intel
 * Xeon, with any part of it or spread over the block's stages), on every
 * other (8 to 21 percent faster with it on an AMD EPYC Zen 4; docs/foot.md,
 * Speed, 0.36.0). The herd's and the solve's prefetches are not gated by
 * it: the herd was faster with its own on both. CIK_CROWD_PREFETCH defined
 * as 1 or 0 at build time fixes the choice. */
int cik__crowd_prefetch(void);

#endif /* CROWDIK_INTERNAL_H */
