/*
 * Generated workloads with fixed seeds, shared by the tools, the tests and
 * the benchmarks: adult legs as in foot placement, spines, tails and random
 * chains. Chain i of a workload depends only on (seed, i), so the same chain
 * can be placed anywhere in any batch.
 */
#ifndef CROWDIK_WORKLOADS_H
#define CROWDIK_WORKLOADS_H

#include "crowdik/crowdik.h"

#include <stdint.h>

typedef enum wl_kind {
    /* hip swing-twist, knee hinge, ankle swing-twist, toe effector; thigh
     * 0.45 m, shin 0.42 m, foot 0.15 m (each scaled by 0.85..1.15); start
     * pose an animated stance, target reachable and near it */
    WL_LEGS,
    WL_LEGS_NO_LIMITS,
    WL_SPINE,   /* 5 joints, swing-twist limits, target near the start pose */
    WL_TAIL,    /* 12 joints, swing-twist limits */
    /* random chains: joint count given, unit-scale bones, limits of every
     * type mixed (or none), reachable targets from a random pose */
    WL_RANDOM,
    WL_RANDOM_NO_LIMITS,
    /* random chains with some far (unreachable) targets, antiparallel and
     * straight starts, zero-length bones: the hard cases */
    WL_RANDOM_HARD,
    /* a creature's hind leg, every joint limited, the hoof or toe tip the
     * effector, the start an animated stance, the target the tip of a
     * nearby pose: 3 joints (hip swing-twist, stifle and hock hinges, bending
     * opposite ways: femur 0.40, tibia 0.45, cannon 0.30 m) or 4 (a horse's,
     * with the fetlock hinge and a 0.12 m pastern), scaled by 0.9..1.1 */
    WL_HOCK_LEG,
    WL_HIND_LEG
} wl_kind;

typedef struct wl_rng {
    uint64_t s;
} wl_rng;

void wl_seed(wl_rng *r, uint64_t seed);
uint32_t wl_next(wl_rng *r);
float wl_uniform(wl_rng *r, float lo, float hi);
/* A point v uniform in the unit ball less the ball of squared radius
 * min_n2 about its centre (drawn in the cube and rejected until it lies
 * there, x then y then z); returns its squared length. */
float wl_in_ball(wl_rng *r, float min_n2, float v[3]);

/* The joint count a workload uses (WL_RANDOM*: `random_joints`). */
int wl_joint_count(wl_kind kind, int random_joints);

/* Generates chain `index` of workload `kind` (depends only on seed, index). */
void wl_chain(wl_kind kind, uint64_t seed, int index, int joint_count, cik_chain *out);

/* Fills every chain of `b` (chain i = wl_chain(kind, seed, first + i)).
 * Returns CIK_OK or the first refusal. */
cik_status wl_fill(cik_batch *b, wl_kind kind, uint64_t seed, int first);

/* The folded start of a spine or tail (bones along the effector offset's
 * direction): every joint bent by the same angle about one axis across the
 * bones, random per (seed, index), so that the chain curls in one plane:
 * pi / joint_count (half a turn in all, the chain folded back on itself),
 * or 98 percent of a swing-twist joint's swing limit where that is less
 * (a spine's 0.375 rad: 1.84 rad in all). Keeps the target. */
void wl_fold(cik_chain *c, uint64_t seed, int index);
/* wl_fold on every chain of `b` (chain i as index first + i). Returns
 * CIK_OK or the first refusal. */
cik_status wl_fold_batch(cik_batch *b, uint64_t seed, int first);

const char *wl_name(wl_kind kind);

/* Quaternion helpers for generators and tests. */
cik_quat wl_angle_axis(float angle, float x, float y, float z);
cik_quat wl_qmul(cik_quat a, cik_quat b);



/* Convergence statistics of a solved batch. */
typedef struct wl_stats {
    int chains;
    int converged, unreachable, skipped;
    double mean_passes;
    float error_p50, error_p99, error_max; /* over chains not skipped */
} wl_stats;

/* `scratch` holds at least cik_batch_chain_count(b) floats. */
void wl_collect(const cik_batch *b, wl_stats *out, float *scratch);

/* Seconds on a monotonic clock. */
double wl_now(void);
#endif
