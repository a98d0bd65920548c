/*
 * The crowd's stream layout and the foot stages' vector kernels, shared by
 * src/foot only.
 *
 * Every stage but the solve is a loop over feet with the same body for every
 * foot, so it runs as a structure-of-arrays kernel (foot_kernel.h) written
 * once against the solver's vector layer (src/kernels/vec_<isa>.h and
 * vec_wide.h) and compiled once per instruction set (foot_<isa>.c), like the
 * CCD kernel. A lane is a foot; per-lane control flow is selects. The crowd
 * keeps, next to its public streams, the legs' constants as streams (one
 * float per foot) and scratch streams that carry a block's intermediate
 * values from one kernel pass to the next; all are allocated with the crowd.
 */
#ifndef CROWDIK_FOOT_INTERNAL_H
#define CROWDIK_FOOT_INTERNAL_H

#include "crowdik/foot.h"

#include "../internal.h"

/* Steepest ground slope (dh/dx, dh/dz) the normals are taken from: a
 * steeper one (a cliff between two samples, a spacing near FLT_MIN) is
 * clamped to it, so that the squared slopes stay finite (2e36 < FLT_MAX)
 * and the normal comes out finite and unit, horizontal for a wall. No
 * terrain with any meaning is that steep: real slopes are never changed. */
#define CIK__HF_MAX_SLOPE 1e18f

/* Per-character float streams. */
enum { C_PX, C_PY, C_PZ, C_QX, C_QY, C_QZ, C_QW, C_DROP, C_STATE, C_COUNT };

/* Per-foot float streams: the public ones, then internal ones. */
enum {
    F_POSE = 0, /* 12: x[3] y[3] z[3] w[3] */
    F_WEIGHT = 12,
    F_AAX, F_AAY, F_AAZ,
    F_PROBEX, F_PROBEZ,
    F_CY, F_CNX, F_CNY, F_CNZ,
    F_TX, F_TY, F_TZ,
    F_AX, F_AY, F_AZ,
    F_FQX, F_FQY, F_FQZ, F_FQW,
    F_AFX, F_AFY, F_AFZ, F_AFW, /* animated foot world rotation */
    F_DFX, F_DFY, F_DFZ, F_DFW, /* desired foot world rotation */
    F_COUNT
};

/* Scratch streams of one block (BLOCK characters in crowd.c), on the
 * running thread's stack, so that they never leave the cache: the
 * character's pelvis copied to both of its feet (lanes are feet), the hip's
 * offset from the pelvis in the world, the leg's comfortable reach, what
 * the foot needs of the pelvis drop, the drop; the ground stage's cell
 * fractions, 1 where the point needs the border-aware scalar sample, the
 * cell's column and row (int32), and the twelve heights the interior
 * formula reads (G_H names them). Foot i is element i - s0 of a block's
 * scratch. */
enum {
    S_EPX, S_EPY, S_EPZ, S_EQX, S_EQY, S_EQZ, S_EQW,
    S_HOX, S_HOY, S_HOZ, S_LIM, S_NEED, S_DROP,
    S_GU, S_GV, S_GBORDER, S_GIX, S_GIZ, S_GH,
    S_COUNT = S_GH + 12
};

/* The twelve heights around a point in cell (ix, iz), p = row iz, q = row
 * iz + 1: p[-1], p[0], p[1], p[2], q[-1], q[0], q[1], q[2], p[-row],
 * p[1 - row], q[row], q[row + 1]. */
enum { G_PM1, G_P0, G_P1, G_P2, G_QM1, G_Q0, G_Q1, G_Q2, G_PUP0, G_PUP1, G_QDN0, G_QDN1 };

/* A prepared limit (fm_limit): type as a float, unit axis, cos and sin of
 * the half bounds. */
enum { L_TYPE, L_AX, L_AY, L_AZ, L_CMIN, L_SMIN, L_CMAX, L_SMAX, L_CSWING, L_SSWING, L_COUNT };

/* Per-foot leg constants (one float per foot, set with the legs). */
enum {
    K_HIPX, K_HIPY, K_HIPZ,
    K_THX, K_THY, K_THZ,
    K_SHX, K_SHY, K_SHZ,
    K_SOLEX, K_SOLEY, K_SOLEZ, /* unit */
    K_AH,                      /* ankle height */
    K_REACH,                   /* |thigh| + |shin| */
    /* the two-bone knee: |t + R(axis, k) s|^2 = kts + 2 (kC + kA cos k +
     * kB sin k), (cphi, sphi) = (kA, kB) / kM; K_HINGE 1 for a hinge knee */
    K_KA, K_KB, K_KC, K_KM, K_KTS, K_CPHI, K_SPHI, K_HINGE,
    K_LIMIT, /* K_LIMIT + L_COUNT * joint + L_*: the prepared limits */
    K_COUNT = K_LIMIT + 3 * L_COUNT
};

/* Where a kernel reads the leg constants: constant k of foot i is
 * p[k][i & mask[k]]. A constant that is the same for every left foot and
 * the same for every right foot (the limits, the sole, often all of a leg)
 * is read from a short pattern (left, right, left, ...; mask 1) that stays
 * in the cache, any other from its stream (mask -1): the same values, less
 * memory traffic. */
typedef struct cik__foot_consts {
    const float *p[K_COUNT];
    int mask[K_COUNT];
} cik__foot_consts;

/* What a kernel pass reads and writes: the crowd's streams and the stage's
 * arguments. */
typedef struct cik__foot_job {
    float *const *f;       /* F_COUNT per-foot streams */
    float *s[S_COUNT];     /* the block's scratch streams, foot s0 first */
    int s0;
    const cik__foot_consts *k; /* the leg constants */
    const cik_streams *bs; /* the batch's streams */
    /* place */
    float margin, threshold;
    int start;
    /* ground: the grid (origin, spacing, last cell a point may start an
     * interior sample in) and 1 / (2 spacing) */
    float ox, oz, sx, sz, umax, vmax;
    float ix2, iz2;
} cik__foot_job;

/* A pass over feet [begin, end): multiples of `lanes`, 64-byte aligned. */
typedef void (*cik__foot_fn)(const cik__foot_job *job, int begin, int end);

typedef struct cik__foot_kernel {
    int lanes;
    cik__foot_fn probe;   /* stage 1 */
    cik__foot_fn ground_cells; /* stage 2 first: each point's cell, border or not */
    cik__foot_fn ground;  /* stage 2 from the gathered heights */
    cik__foot_fn place_a; /* stage 3 before the pelvis drop: targets, desired feet, needs */
    cik__foot_fn place_b; /* stage 3 after it: roots, pulled-in targets, start poses */
    cik__foot_fn align;   /* stage 5 */
} cik__foot_kernel;

extern const cik__foot_kernel cik__foot_kernel_scalar;
#ifdef CIK__X86
extern const cik__foot_kernel cik__foot_kernel_sse;
extern const cik__foot_kernel cik__foot_kernel_avx2;
extern const cik__foot_kernel cik__foot_kernel_avx512;
#endif
#ifdef CIK__ARM64
extern const cik__foot_kernel cik__foot_kernel_neon;
#endif

/* The ground stage's scalar part (heightfield.c) for points [begin, end)
 * of the job's block, after ground_cells: the S_GH heights of the interior
 * points' cells; a point near the border (S_GBORDER 1) is sampled here in
 * full, into the contact streams. */
void cik__foot_ground_gather(const cik__foot_job *job, const cik_heightfield *hf, int begin, int end);

#endif
