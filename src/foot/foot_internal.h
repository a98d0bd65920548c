/*
 * The crowd's stream layout and the foot stages' vector kernels, shared by
 * src/foot only.
 *
 * Every stage but the solve is a loop over feet with the same body for every
 * foot, so it runs as a structure-of-arrays kernel (foot_kernel.h) written
 * once against the solver's vector layer (src/kernels/vec_<isa>.h and
 * vec_wide.h) and compiled once per instruction set with the CCD kernel
 * (src/kernels/isa.c). A lane is a foot; per-lane control flow is selects. The crowd
 * keeps, next to its public streams, the legs' constants as streams (one
 * float per foot) and scratch streams that carry a block's intermediate
 * values from one kernel pass to the next; all are allocated with the crowd.
 */
#ifndef CROWDIK_FOOT_INTERNAL_H
#define CROWDIK_FOOT_INTERNAL_H

#include "crowdik/foot.h"

#include "../internal.h"

#include <math.h>
#include <stdint.h>

/* Steepest ground slope (dh/dx, dh/dz) the normals are taken from: a
 * steeper one (a cliff between two samples, a spacing near FLT_MIN) is
 * clamped to it, so that the squared slopes stay finite (2e36 < FLT_MAX)
 * and the normal comes out finite and unit, horizontal for a wall. No
 * terrain with any meaning is that steep: real slopes are never changed. */
#define CIK__HF_MAX_SLOPE 1e18f

/* Per-character float streams: the pelvis and the floor (in; the eight
 * that pelvis_to_feet copies to the feet, in this order), the drop (out),
 * the drop spring's state (position, velocity), the drop before the last,
 * the last need and its rise. */
enum { CHAR_PX, CHAR_PY, CHAR_PZ, CHAR_QX, CHAR_QY, CHAR_QZ, CHAR_QW, CHAR_FLOOR, CHAR_DROP, CHAR_STATE, CHAR_STATEV,
       CHAR_DROP2, /* the drop of the frame before the last */
       CHAR_NEED,  /* the last frame's need (the spring's lead) */
       CHAR_RISE,  /* its rise from the frame before */
       CHAR_COUNT };

/* Per-foot float streams: the public ones, then internal ones. Per-point
 * streams are three in a row (heel, ball, toe), the probes' four (the
 * swing foot's look-ahead point after them). */
#define FOOT_AHEAD CIK_FOOT_POINTS
#define FOOT_PROBES (CIK_FOOT_POINTS + 1)
enum {
    FOOT_POSE = 0, /* 12: x[3] y[3] z[3] w[3] */
    FOOT_WEIGHT = 12,
    FOOT_PLANTED, FOOT_LOCKED, FOOT_PIVOT,
    FOOT_AAX, FOOT_AAY, FOOT_AAZ,
    /* the probes and the ground under them: four in a row, heel, ball,
     * toe and the look-ahead point (FOOT_AHEAD; the ground stage writes
     * its height alone, its normal streams are never read) */
    FOOT_PROBEX, FOOT_PROBEZ = FOOT_PROBEX + FOOT_PROBES,
    FOOT_CY = FOOT_PROBEZ + FOOT_PROBES, FOOT_CNX = FOOT_CY + FOOT_PROBES, FOOT_CNY = FOOT_CNX + FOOT_PROBES,
    FOOT_CNZ = FOOT_CNY + FOOT_PROBES,
    FOOT_TX = FOOT_CNZ + FOOT_PROBES, FOOT_TY, FOOT_TZ,
    FOOT_AX, FOOT_AY, FOOT_AZ,
    FOOT_FQX, FOOT_FQY, FOOT_FQZ, FOOT_FQW,
    FOOT_PTX, FOOT_PTY = FOOT_PTX + 3, FOOT_PTZ = FOOT_PTY + 3, /* solved points */
    FOOT_AFX = FOOT_PTZ + 3, FOOT_AFY, FOOT_AFZ, FOOT_AFW, /* animated foot world rotation */
    FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, /* desired foot world rotation */
    /* carried from frame to frame: the animated points of the last frame
     * (the contacts' speeds; y over the animation's floor); the contact's
     * age and the weight's easing state; the lock's anchor (the pivot's x,
     * z) and heading (the foot's forward x, z when it locked); the release
     * blend's age, offset (x, z) and heading turn (half-angle sin, cos
     * about up) */
    FOOT_PREVX, FOOT_PREVY = FOOT_PREVX + 3, FOOT_PREVZ = FOOT_PREVY + 3,
    FOOT_CTIME = FOOT_PREVZ + 3, FOOT_EASE,
    FOOT_ANCX, FOOT_ANCZ, FOOT_ANCFX, FOOT_ANCFZ,
    FOOT_BTIME, FOOT_BOFX, FOOT_BOFZ, FOOT_BYS, FOOT_BYC,
    /* from the probe to place, this frame: the planned pivot (x, z) and the
     * heading turn of the foot (half-angle sin, cos about up) */
    FOOT_PLX, FOOT_PLZ, FOOT_YAWS, FOOT_YAWC,
    /* COLD_AFRESH: the next probe starts this foot afresh, as the crowd's
     * first frame (cik_foot_crowd_reset_character, a character switched
     * back on); COLD_UNSEEN: planted by its height alone on such a frame
     * and not seen slow since (skate_height does not hold it); 0: neither */
    FOOT_COLD,
    /* the lock's state (1 held); the public FOOT_LOCKED is it once the
     * weight is in in full (the foot down, its point still) */
    FOOT_HOLD,
    /* the knee's bend off the animation's (cos, sin) in the last frame's
     * target; (0, 0): none yet */
    FOOT_KDC, FOOT_KDS,
    /* the animation's floor in the last frame (FOOT_PREVY is over it) */
    FOOT_PREVF,
    /* 1: the last align turned a held foot within the ankle's limit so
     * that its pivot left its place (the lock cannot hold it) */
    FOOT_SLIP,
    /* from the probe to place: how much the animation's floor rises by the
     * time the foot is at its look-ahead point (its rise in the last frame
     * times the frames ahead) */
    FOOT_AHRISE,
    /* from the probe to place: 1 / the frames the look-ahead point is
     * ahead (1 where it is not ahead); carried: the lift that the ground
     * ahead added in the last frame (it grows by that share of its goal a
     * frame) */
    FOOT_AHINV, FOOT_AHLIFT,
    /* carried: the heel lift's turn in the last frame's target (its sine;
     * 0 none, below 0 a heel let down) */
    FOOT_LIFT,
    /* carried: 1 once a planted foot is down on its ground (the knee's
     * rate no longer holds its target up by more than slide_depth); 0
     * while it lands, and whenever it is not planted */
    FOOT_DOWN,
    /* carried: how far place_a took the ankle above its resting height in
     * the held knee's bound (the last frame's target's) */
    FOOT_LIFTED,
    /* from the probe to place: the frames until the animated foot's first
     * point coming down reaches the floor at this frame's speed (1e30:
     * none coming down; the pre-tilt) */
    FOOT_LAND,
    /* out of align: the solved ankle's local rotation (public solved_*[2];
     * the batch's chains are hip and knee, the ankle their effector) */
    FOOT_SAX, FOOT_SAY, FOOT_SAZ, FOOT_SAW,
    FOOT_COUNT
};

/* The most a heel lift (place_b) comes down in a second, in radians:
 * where the rule lifts the heel less than it did (or not at all: the
 * foot let go, its toe off the ground), the lift fades at this rate. */
#define LIFT_FADE_SPEED 6.0f

/* FOOT_COLD's values besides 0 (k_probe tells them apart by the
 * midpoints). */
#define COLD_AFRESH 1.0f
#define COLD_UNSEEN 0.5f

/* Scratch streams of one block (BLOCK characters in crowd.c), on the
 * running thread's stack, so that they never leave the cache: the
 * character's pelvis and floor copied to both of its feet (lanes are feet), the hip's
 * offset from the pelvis in the world, the leg's comfortable reach, what
 * the foot needs of the pelvis drop, the drop; the ground stage's cell
 * fractions, 1 where the point needs the border-aware scalar sample, and
 * the index of the cell's sample in the heights (int32). Foot i is element
 * i - s0 of a block's scratch. */
enum {
    SCRATCH_EPX, SCRATCH_EPY, SCRATCH_EPZ, SCRATCH_EQX, SCRATCH_EQY, SCRATCH_EQZ, SCRATCH_EQW, SCRATCH_EFLOOR,
    SCRATCH_HOX, SCRATCH_HOY, SCRATCH_HOZ, SCRATCH_LIM, SCRATCH_NEED, SCRATCH_DROP, SCRATCH_REST, SCRATCH_PVX, SCRATCH_PVY, SCRATCH_PVZ,
    SCRATCH_DMIN, /* the least drop that keeps a held knee from straightening faster than held_knee_speed */
    SCRATCH_DMAX, /* the most drop that keeps a held knee from bending faster than held_knee_speed */
    SCRATCH_LIVE, /* level of detail: 1 where the foot's character is on (job->on set) */
    SCRATCH_GU, SCRATCH_GV, SCRATCH_GBORDER, SCRATCH_GIDX,
    /* place_a to place_b: the swing target's shift in x and z that keeps
     * the animated foot's lowest point where the animation has it under
     * the desired orientation */
    SCRATCH_SHX, SCRATCH_SHZ,
    SCRATCH_COUNT
};

/* A prepared limit: the batch's own (internal.h's joint streams CIK__LTYPE
 * to CIK__CSWING without the raw angles), copied from the crowd's batch when
 * the legs are set: type as a float, unit axis, sin then cos of half of
 * min_angle, max_angle and swing_max (vec_math.h's lane_limit). */
enum {
    LIMIT_TYPE, LIMIT_AX, LIMIT_AY, LIMIT_AZ, LIMIT_SMIN, LIMIT_CMIN, LIMIT_SMAX, LIMIT_CMAX,
    LIMIT_SSWING, LIMIT_CSWING, LIMIT_COUNT
};

/* Per-foot leg constants (one float per foot, set with the legs). */
enum {
    LEG_HIPX, LEG_HIPY, LEG_HIPZ,
    LEG_THX, LEG_THY, LEG_THZ,
    LEG_SHX, LEG_SHY, LEG_SHZ,
    LEG_SOLEX, LEG_SOLEY, LEG_SOLEZ, /* unit */
    LEG_AH,                          /* ankle height */
    LEG_REACH,                       /* |thigh| + |shin| */
    LEG_PTX, LEG_PTY = LEG_PTX + 3, LEG_PTZ = LEG_PTY + 3, /* heel, ball, toe (ankle frame) */
    LEG_LIMIT = LEG_PTZ + 3, /* LEG_LIMIT + LIMIT_COUNT * joint + LIMIT_*: the prepared limits */
    LEG_COUNT = LEG_LIMIT + 3 * LIMIT_COUNT
};

/* Where a kernel reads the leg constants: constant k of foot i is
 * p[k][i & mask[k]]. A constant that is the same for every left foot and
 * the same for every right foot (the limits, the sole, often all of a leg)
 * is read from a short pattern (left, right, left, ...; mask 1) that stays
 * in the cache, any other from its stream (mask -1): the same values, less
 * memory traffic. */
typedef struct cik__foot_consts {
    const float *p[LEG_COUNT];
    int mask[LEG_COUNT];
} cik__foot_consts;

/* What a kernel pass reads and writes: the crowd's streams and the stage's
 * arguments. */
typedef struct cik__foot_job {
    float *const *f;       /* FOOT_COUNT per-foot streams */
    float *s[SCRATCH_COUNT];     /* the block's scratch streams, foot s0 first */
    int s0;
    const cik__foot_consts *k; /* the leg constants */
    const cik_streams *bs; /* the batch's streams */
    /* the frame time; 1 when the crowd has run a frame since it was made
     * or reset (the carried state means something) */
    float dt;
    int primed;
    /* probe: contacts (speeds, times and 1 / easing times, 0 for none) and
     * locks */
    int contacts, lock;
    float plant_speed, release_speed, min_contact, ease_in, ease_out;
    float lift; /* lift_speed times the frame time (0: the rule off) */
    float lock_radius, unlock_time;
    float first_plant; /* the first frame's plant height above the floor */
    float lift_contact; /* a toe tip this near its ground holds a heel lift */
    float settle_depth; /* a point deeper than this below its ground is settled */
    float slide_depth;  /* a held foot this deep, or its pivot this far off its target's, is settled */
    /* place: reach margin and soft reach; cos of half the limit tolerance */
    float margin, soft, threshold;
    float tol_cos;
    /* the most the knee's bend may change beyond the animation's in a
     * frame (cos, sin); knee_on 0: no limit; a lengthened leg's foot stays
     * this far above its resting height */
    float knee_c, knee_s, knee_clear;
    int knee_on;
    /* the same for a held foot's knee (held_knee_speed, place_a's dmin);
     * hold_on 0: no rule */
    float hold_c, hold_s;
    int hold_on;
    float lift_fade_c, lift_fade_s; /* the most a heel lift comes down in a frame (cos, sin) */
    float hold_below; /* a held foot on ground above the floor, or at most this far below it: its knee's rate bounds the drop */
    float swing_lift; /* cik_foot_options.swing_lift */
    float ahead; /* swing_lookahead in frames (0: off, also with swing_lift 0) */
    float skate; /* skate_height in the crowd's units (0: off) */
    /* ground: the grid (origin, spacing, last cell a point may start an
     * interior sample in), 1 / (2 spacing), the heights and their row
     * length */
    float ox, oz, sx, sz, umax, vmax;
    float ix2, iz2;
    const float *heights;
    int32_t row;
    int point; /* the ground passes' point (CIK_FOOT_HEEL, _BALL, _TOE) */
    /* level of detail: the crowd's enable bytes (one per character) while a
     * group with characters off runs, else NULL; the ground gather skips
     * the off feet, whose results are put back anyway */
    const unsigned char *on;
} cik__foot_job;


/* ------------------------------------------------------------------------ */
/* Herds (herd.c, herd_kernel.h)                                            */

#define CIK__HERD_SEGMENTS 4 /* CIK_HERD_MAX_SEGMENTS */

/* A herd's per-foot streams (foot f = legs * character + leg). HF_POSE +
 * 4 k + s (k: x, y, z, w; s the joint), the same for HF_SOLVED. Every leg
 * runs through the kernels as four segments: a shorter one's last offsets
 * are zero and its last rotations the identity. */
enum {
    HF_POSE = 0,
    HF_WEIGHT = HF_POSE + 4 * CIK__HERD_SEGMENTS,
    HF_PLANTED, HF_LOCKED,
    HF_AFX, HF_AFY, HF_AFZ,
    HF_PROBEX, HF_PROBEZ,
    HF_CY,
    HF_TX, HF_TY, HF_TZ,
    HF_SOLVED,
    HF_FX = HF_SOLVED + 4 * CIK__HERD_SEGMENTS, HF_FY, HF_FZ,
    HF_ERROR, HF_PASSES,
    /* carried from frame to frame: the animated foot of the last frame (its
     * speed), the contact's age and the weight's easing, the lock's anchor
     * (x, z), the release blend's age and offset (x, z), 1 for a foot the
     * next probe starts afresh */
    HF_PREVX, HF_PREVY, HF_PREVZ, HF_CTIME, HF_EASE, HF_ANCX, HF_ANCZ, HF_BTIME, HF_BOFX, HF_BOFZ, HF_COLD,
    /* how much of the release blend is left (1 at the release, 0 once
     * unlock_time has passed), from the probe to place; the animation's
     * lift of the foot when its lock released, carried */
    HF_BLEND, HF_BLIFT,
    /* level of detail: 1 where the foot's character is on (set per pass) */
    HF_LIVE,
    /* within a frame: the animated root of the foot's leg (x, y, z, qx,
     * qy, qz, qw), its floor; the animated hip; the solved root (the
     * body's correction applied to the animated one) */
    HF_RP, HF_FLOOR = HF_RP + 7,
    HF_HIPX, HF_HIPY, HF_HIPZ,
    HF_SRP, /* 7 */
    HF_START = HF_SRP + 7, /* the start pose, laid out as HF_POSE */
    /* constant per foot (set with the body): the hip (3), the four
     * segments (3 each), the segment count, the reach; per joint s its
     * prepared limit at HF_LIM + LIMIT_COUNT s + LIMIT_* (hinge: no swing,
     * sine 0, cosine 1) */
    HF_HIP = HF_START + 4 * CIK__HERD_SEGMENTS,
    HF_SEG = HF_HIP + 3,
    HF_NSEG = HF_SEG + 3 * CIK__HERD_SEGMENTS,
    HF_REACH,
    HF_LIM,
    HF_COUNT = HF_LIM + LIMIT_COUNT * CIK__HERD_SEGMENTS
};

/* What a herd kernel pass reads and writes. */
typedef struct cik__herd_job {
    float *const *f; /* HF_COUNT streams */
    /* level of detail: 1 per foot whose character is on (HF_LIVE) while a
     * pass holds characters that are off, else NULL */
    const float *live;
    int primed, contacts, lock;
    float dt, plant2, release2, min_contact, ease_in, ease_out, first_plant;
    float radius2, unlock_time, margin, soft, tol, tol_c, tol_s;
} cik__herd_job;

typedef void (*cik__herd_fn)(const cik__herd_job *job, int begin, int end);

/* A pass over feet [begin, end): multiples of `lanes`, 64-byte aligned. */
typedef void (*cik__foot_fn)(const cik__foot_job *job, int begin, int end);

typedef struct cik__foot_kernel {
    int lanes;
    cik__foot_fn probe;   /* stage 1 */
    cik__foot_fn ground_cells; /* stage 2 first: each point's cell, border or not */
    cik__foot_fn ground;  /* stage 2: the interior points' heights and normals */
    cik__foot_fn place_a; /* stage 3 before the pelvis drop: targets, desired feet, needs */
    cik__foot_fn place_b; /* stage 3 after it: roots, pulled-in targets, start poses */
    cik__foot_fn align;   /* stage 5 */
    cik__foot_fn settle;  /* stage 5 after align: targets raised where a point is below its ground */
    /* the herd's per-foot passes (herd_kernel.h) */
    cik__herd_fn herd_probe;  /* animated feet, contacts, locks, probes */
    cik__herd_fn herd_place;  /* targets and the chains' roots and start poses */
    cik__herd_fn herd_output; /* solved rotations and feet */
} cik__foot_kernel;

/* The one-lane build (src/kernels/isa.c): the REFERENCE and SCALAR
 * backends' kernel; the others are the dispatch table's. */
extern const cik__foot_kernel cik__foot_kernel_scalar;

/* The ground stage's scalar part (heightfield.c) for feet [begin, end) of
 * the job's block and its point job->point, after the kernel's ground
 * pass: the points near the border (SCRATCH_GBORDER 1) sampled in full,
 * into the contact streams. */
void cik__foot_ground_border(const cik__foot_job *job, const cik_heightfield *hf, int begin, int end);

/* Shared by the biped crowd (crowd.c) and the herd (herd.c): the foot
 * options' ranges (the solver's own are cik_solve's), and the allocator
 * or malloc. */
cik_status cik__foot_check_options(const cik_foot_options *o);
/* A frame time given to a call: finite, >= 0 (0: the options'), and one
 * whose speed distances neither overflow nor flush to 0, as the options'
 * own dt; ARGUMENT otherwise. */
cik_status cik__foot_check_dt(const cik_foot_options *o, float dt);
void *cik__foot_allocate(const cik_allocator *a, size_t size, size_t alignment);
void cik__foot_release(const cik_allocator *a, void *p, size_t size);

/* Always inlined where they are used, as every function that prefetches:
 * GCC finds a function whose only effects are prefetches pure and drops
 * the calls to it (GCC 12 at -O1 and above: before 0.34.0 the foot frame's
 * and the herd's prefetches of the next block were never executed). */
#define CIK__PREFETCH_INLINE static inline __attribute__((always_inline))

/* Asks for the cache lines of stream s's elements [i0, i1), to be written
 * (prefetches change no value): a block's streams before the block runs
 * (the crowd's prefetch_block, the herd's herd_prefetch). */
CIK__PREFETCH_INLINE void cik__prefetch_lines(const float *s, size_t i0, size_t i1)
{
    for (size_t i = i0 & ~(size_t)15; i < i1; i += 16) __builtin_prefetch(s + i, 1, 2);
}

/* The same for chains [i0, i1) of every stream of a batch. */
CIK__PREFETCH_INLINE void cik__prefetch_chains(const cik_batch *b, size_t i0, size_t i1)
{
    for (int k = 0; k < cik__batch_streams(b); ++k) cik__prefetch_lines(cik__chain_stream(b, k), i0, i1);
}

/* The spring's constants for a time constant `time` and a frame dt; a time
 * below a microsecond (a denormal among them, whose reciprocal overflows)
 * is no smoothing at all (*now). */
static inline void cik__spring_constants(float time, float dt, float *w, float *k, int *now)
{
    *now = !(time >= 1e-6f);
    *w = *now ? 0.0f : 1.0f / time;
    *k = *now ? 0.0f : expf(-dt / time);
}

/* One step of the critically damped spring of the pelvis (and of a herd's
 * body) from (x, v) toward `goal` over dt: w = 1 / time constant,
 * k = exp(-w dt). Past 80 time constants it is at the goal (k is below
 * 2e-35, and (d + j dt) k would be 0 * inf for a huge dt); below 1e-20 an
 * offset or a speed is 0, never a denormal that every later use would pay
 * for. */
static inline void cik__spring_step(float w, float k, float dt, float goal, float *x, float *v)
{
    float d = *x - goal, j = *v + w * d, nx = goal, nv = 0.0f;
    if (w * dt <= 80.0f) {
        nx = goal + (d + j * dt) * k;
        nv = (*v - w * dt * j) * k;
    }
    if (!(fabsf(nx - goal) >= 1e-20f) || !isfinite(nx)) nx = goal;
    if (!(fabsf(nv) >= 1e-20f) || !isfinite(nv)) nv = 0.0f;
    *x = nx;
    *v = nv;
}

#endif
