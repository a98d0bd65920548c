/*
 * crowdik foot placement: put the feet of a whole crowd on uneven ground,
 * every frame, with one batched CCD solve.
 *
 * Pipeline per frame (docs/foot.md has the details and the reasons):
 *   1. cik_foot_crowd_probe        forward kinematics of the animated pose:
 *                                  animated ankle positions and foot
 *                                  orientations; the probe points (x, z)
 *                                  under which each foot looks for ground.
 *   2. cik_foot_crowd_ground_heightfield   samples a heightfield at the
 *                                  probes, or the caller writes the contact
 *                                  streams itself (its own raycasts).
 *   3. cik_foot_crowd_place        foot targets (contact + ankle height along
 *                                  the normal, blended with the animation by
 *                                  the IK weight), pelvis lowering (clamped,
 *                                  smoothed over frames), the start pose of
 *                                  every leg written into the batch.
 *   4. cik_foot_crowd_solve        one cik_solve over all legs of all
 *                                  characters.
 *   5. cik_foot_crowd_align        each ankle turned so the sole lies on the
 *                                  ground normal (blended by the weight),
 *                                  within the ankle's limit; solved ankle
 *                                  positions and foot orientations written.
 * cik_foot_crowd_frame runs 1..5 with a heightfield, one block of characters
 * after the other in a single parallel region (the same bits as the five
 * calls in turn, faster: each block stays in the cache). On an engine's own
 * job system, cik_foot_crowd_frame_plan_init checks a frame once and
 * cik_foot_crowd_frame_range runs it for ranges of characters on any
 * threads (the same bits again, whatever the split).
 *
 * Conventions: as crowdik.h (single precision, Hamilton quaternions (x, y, z,
 * w), radians). The options' lengths (max pelvis drop, drop speed, the
 * solver's threshold) are in metres; the crowd's world (legs, pelvis,
 * heightfield, every output) is in the engine's units, options.units_per_metre
 * of them a metre (1 by default, 100 for an engine in centimetres). +Y is up: the heightfield gives y over (x, z), and the pelvis is
 * lowered along -Y. Time in seconds.
 *
 * Legs: each character has two legs (side 0 = left, 1 = right); foot index
 * f = 2 * character + side is also the leg's chain index in the batch. A leg
 * is a three-joint crowdik chain (hip, knee, ankle) rooted at the pelvis,
 * whose end effector is the ankle joint itself (effector offset zero). The
 * ankle, not the toe, is the effector because the ankle's orientation is
 * decided afterwards by the ground normal: with the toe as effector, CCD would
 * spend the ankle joint on reaching the toe and the sole alignment would then
 * move the toe away again. Reaching with hip and knee and orienting with the
 * ankle keeps the two jobs apart, and the ankle position fully determines the
 * sole's contact point once the sole is aligned.
 *
 * Ownership: a crowd owns its batch and every stream; cik_foot_crowd_streams
 * hands out pointers into them, valid until the crowd is destroyed. A
 * heightfield is a view: the caller owns `heights` and keeps it alive while
 * the heightfield is used. No function here allocates except
 * cik_foot_crowd_create and cik_foot_crowd_create_with (through the
 * caller's allocator); none prints.
 *
 * Thread safety: as crowdik.h. A crowd needs exclusive access during the
 * frame functions; different crowds are independent. The one exception:
 * cik_foot_crowd_frame_range calls on disjoint ranges of one crowd's plan
 * may run at the same time.
 *
 * The header compiles as C99, C11 and C++.
 */
#ifndef CROWDIK_FOOT_H
#define CROWDIK_FOOT_H

#include "crowdik/crowdik.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Heightfield                                                              */

/** Most samples a heightfield has along x or along z: 2^24, the last count
 *  up to which every sample index is exact in the single-precision grid
 *  coordinates the sampling works in. */
#define CIK_HEIGHTFIELD_MAX_COUNT 16777216

/** A regular grid of ground heights over the x-z plane (a view: the caller
 *  owns `heights`). Sample (ix, iz) lies at world (origin_x + ix * spacing_x,
 *  heights[iz * count_x + ix], origin_z + iz * spacing_z). */
typedef struct cik_heightfield {
    float origin_x, origin_z;
    /** Grid spacing, finite and >= FLT_MIN (a normal float, so that its
     *  reciprocal is finite). */
    float spacing_x, spacing_z;
    /** Samples along x and z, each in [2, CIK_HEIGHTFIELD_MAX_COUNT]. */
    int count_x, count_z;
    /** count_x * count_z heights, row-major in z (x varies fastest). */
    const float *heights;
} cik_heightfield;

/** CIK_OK when `hf` is usable: non-null heights, counts in [2,
 *  CIK_HEIGHTFIELD_MAX_COUNT] whose count_x * count_z floats a size_t
 *  can count in bytes,
 *  spacings finite and >= FLT_MIN, a finite origin (ARGUMENT otherwise).
 *  Heights are not scanned: heights within +-1e30 give finite heights and
 *  unit normals (a slope steeper than 1e18 is taken as 1e18); others give
 *  what they give. A valid heightfield is never read outside its grid. */
CIK_API cik_status cik_heightfield_validate(const cik_heightfield *hf);

/** Height and unit normal at (x, z). The height is the bilinear
 *  interpolation of the four surrounding samples; the normal is the bilinear
 *  interpolation (renormalised) of per-sample normals taken from central
 *  differences (one-sided at the border). Both are exact on planes and
 *  continuous everywhere, including across cell edges. Outside the grid the
 *  position is clamped to its border. `height` or `normal` may be NULL. */
CIK_API cik_status cik_heightfield_sample(const cik_heightfield *hf, float x, float z,
                                          float *height, cik_vec3 *normal);

/** cik_heightfield_sample for `count` points at once: reads x[i], z[i] and
 *  writes height[i] and (normal_x, normal_y, normal_z)[i]. The normal arrays
 *  may all be NULL (heights only). */
CIK_API cik_status cik_heightfield_sample_many(const cik_heightfield *hf, int count,
                                               const float *x, const float *z, float *height,
                                               float *normal_x, float *normal_y,
                                               float *normal_z);

/* ------------------------------------------------------------------------ */
/* Legs and the crowd                                                       */

/** One leg's skeleton. The bind pose (identity rotations) must stand the leg
 *  on flat ground with the sole flat: the sole's up direction is
 *  `sole_normal` in the ankle's frame, and the ankle is `ankle_height` above
 *  the sole along it. */
typedef struct cik_foot_leg {
    /** Hip joint origin in the pelvis frame. */
    cik_vec3 hip;
    /** Knee origin in the hip's frame (the thigh). */
    cik_vec3 thigh;
    /** Ankle origin in the knee's frame (the shin). */
    cik_vec3 shin;
    /** Limits of hip, knee, ankle (as cik_limit in crowdik.h). */
    cik_limit limit[3];
    /** Up direction of the sole in the ankle's frame (non-zero; normalised). */
    cik_vec3 sole_normal;
    /** Height of the ankle above the sole (>= 0, world units). */
    float ankle_height;
} cik_foot_leg;

/** Pipeline options. Start from cik_foot_default_options(). */
typedef struct cik_foot_options {
    /** The batch solve. Default threshold 2e-4 (0.2 mm), 16 passes. */
    cik_options solver;
    /** Frame time in seconds (> 0), for the pelvis smoothing, where a call
     *  takes no frame time of its own (the calls without dt, and dt 0).
     *  Default 1/60. */
    float dt;
    /** Most the pelvis may be lowered (>= 0, metres). Default 0.3. */
    float max_pelvis_drop;
    /** Fastest the pelvis goes down when a foot needs it (> 0, metres per
     *  second). Default 2.5. */
    float pelvis_drop_speed;
    /** Time constant of the pelvis going back up when the need shrinks
     *  (>= 0 seconds; 0 = at once). Default 0.12. */
    float pelvis_rise_time;
    /** Fraction of a leg's full reach (|thigh| + |shin|) kept in reserve so
     *  the knee never locks straight, in [0, 0.5). Default 0.002. */
    float reach_margin;
    /** The start pose each leg's CCD solve begins from (CIK_FOOT_START_*).
     *  Default CIK_FOOT_START_TWO_BONE. */
    int start;
    /** The engine's world units in a metre (> 0, finite): max_pelvis_drop,
     *  pelvis_drop_speed and solver.threshold are metres and are multiplied
     *  by it; legs, pelvis, heightfield and outputs are in the engine's
     *  units. 1 (metres: Unity, Godot) by default; 100 for centimetres
     *  (Unreal). 1 changes no bit. */
    float units_per_metre;
} cik_foot_options;

/** Start poses for the leg solve. CCD reaches a target in few passes when
 *  only the direction is off, but opens or closes a knee (a target nearer
 *  or farther than the animated ankle) slowly, a little per pass, most of
 *  all on a near-straight stance leg. So the pipeline can seed the solve:
 *  ANIMATION starts from the animated pose (clamped into the limits); KNEE
 *  also sets the knee hinge angle so that hip-to-ankle distance equals
 *  hip-to-target distance (exact for any hinge axis and bone offsets);
 *  TWO_BONE also swings the hip (shortest arc, hip limit applied) so the
 *  start pose meets the target whenever the limits allow, and CCD refines
 *  what the limits left over. KNEE and TWO_BONE need a hinge knee; other
 *  knees start from the animation. */
#define CIK_FOOT_START_ANIMATION 0
#define CIK_FOOT_START_KNEE 1
#define CIK_FOOT_START_TWO_BONE 2

/** threshold 2e-4, 16 passes, AUTO backend, all threads, dt 1/60, drop 0.3
 *  at most at 2.5 per second, rise time 0.12 s, reach margin 0.002, start
 *  CIK_FOOT_START_TWO_BONE, units_per_metre 1. */
CIK_API cik_foot_options cik_foot_default_options(void);

/** A crowd of characters, each a pelvis and two legs, with its batch. */
typedef struct cik_foot_crowd cik_foot_crowd;

/** Creates a crowd of `character_count` (>= 1) characters, every one with
 *  the legs `legs[0]` (left) and `legs[1]` (right). Allocates the batch and
 *  all streams once; nothing is allocated per frame. Refuses bad legs
 *  (ARGUMENT, NON_FINITE or LIMIT as cik_batch_set_chain) and reports
 *  OUT_OF_MEMORY; on any refusal `*out` is left as it was. The animated
 *  pose starts as the bind pose, pelvis at the origin, weights 1, contacts
 *  flat at height 0. */
CIK_API cik_status cik_foot_crowd_create(int character_count, const cik_foot_leg legs[2],
                                         cik_foot_crowd **out);

/** cik_foot_crowd_create with all of the crowd's memory (the crowd, its
 *  streams, its batch) from `allocator` (copied; NULL means malloc and free).
 *  Refuses an allocator without both functions (ARGUMENT) and, as
 *  cik_batch_create_with, one that returns memory less aligned than asked;
 *  on any refusal whatever it gave went back to it. cik_foot_crowd_destroy
 *  frees through it; nothing else calls it. */
CIK_API cik_status cik_foot_crowd_create_with(int character_count, const cik_foot_leg legs[2],
                                              const cik_allocator *allocator, cik_foot_crowd **out);

/** Frees a crowd and everything it owns. NULL is accepted. */
CIK_API void cik_foot_crowd_destroy(cik_foot_crowd *crowd);

/** Gives one character its own legs (setup, not per frame); refuses bad
 *  legs as cik_foot_crowd_create does, and a refused call changes nothing
 *  (neither leg of any character, no stream). */
CIK_API cik_status cik_foot_crowd_set_legs(cik_foot_crowd *crowd, int character,
                                           const cik_foot_leg legs[2]);

/** Reads a character's legs back. */
CIK_API cik_status cik_foot_crowd_get_legs(const cik_foot_crowd *crowd, int character,
                                           cik_foot_leg legs[2]);

/** Number of characters (0 for NULL). */
CIK_API int cik_foot_crowd_character_count(const cik_foot_crowd *crowd);

/** The crowd's batch (one chain per foot, index 2 * character + side), to
 *  read results (cik_batch_result) after cik_foot_crowd_solve. */
CIK_API const cik_batch *cik_foot_crowd_batch(const cik_foot_crowd *crowd);

/** Forgets the pelvis smoothing: the next frame takes the pelvis drop it
 *  needs at once (use after a teleport or a cut). */
CIK_API cik_status cik_foot_crowd_reset(cik_foot_crowd *crowd);

/** The crowd's streams: one float per character (`c`) or per foot (`f`),
 *  all owned by the crowd. The caller writes the inputs (marked in) before
 *  the frame and reads the outputs (out). */
typedef struct cik_foot_streams {
    int character_count;
    int foot_count; /* 2 * character_count */
    /* in, c: animated pelvis position and rotation (world) */
    float *pelvis_x, *pelvis_y, *pelvis_z;
    float *pelvis_qx, *pelvis_qy, *pelvis_qz, *pelvis_qw;
    /* in, f: animated local rotations of hip [0], knee [1], ankle [2] */
    float *pose_x[3], *pose_y[3], *pose_z[3], *pose_w[3];
    /* in, f: IK weight in [0, 1]: 1 = the foot stands on the ground (stance),
     * 0 = it follows the animation (swing) */
    float *weight;
    /* out of probe, f: animated ankle (world) and where to look for ground */
    float *anim_ankle_x, *anim_ankle_y, *anim_ankle_z;
    float *probe_x, *probe_z;
    /* in to place, f: ground contact under the probe: height and unit normal
     * (written by cik_foot_crowd_ground_heightfield, or by the caller) */
    float *contact_y, *contact_nx, *contact_ny, *contact_nz;
    /* out of place, c: how far the pelvis was lowered (>= 0) */
    float *pelvis_drop;
    /* out of place, f: the ankle target the legs are solved for (pulled in
     * to the leg's reach when the pelvis drop was not enough) */
    float *target_x, *target_y, *target_z;
    /* out of align, f: solved local rotations (hip, knee, ankle; these point
     * into the batch's rotation streams) */
    float *solved_x[3], *solved_y[3], *solved_z[3], *solved_w[3];
    /* out of align, f: solved ankle position and foot orientation (world) */
    float *ankle_x, *ankle_y, *ankle_z;
    float *foot_qx, *foot_qy, *foot_qz, *foot_qw;
} cik_foot_streams;

/** Fills `out` with the crowd's stream pointers. */
CIK_API cik_status cik_foot_crowd_streams(cik_foot_crowd *crowd, cik_foot_streams *out);

/* Every stage and the frame take the same options and refuse the same ones
 * before they change anything: OPTIONS for a foot option out of its range
 * or a solver option cik_solve refuses (threads < 0 among them),
 * BACKEND_UNAVAILABLE for a backend cik_solve refuses. A refused call
 * leaves the crowd as it was. NULL options = defaults. Each call runs on
 * its own options' threads and backend (solver.threads, solver.backend);
 * no call depends on the options of an earlier one. */

/** Stage 1: forward kinematics of the animated pose (writes anim_ankle_*,
 *  probe_*). */
CIK_API cik_status cik_foot_crowd_probe(cik_foot_crowd *crowd, const cik_foot_options *options);

/** Stage 2: samples `hf` under every probe into the contact streams;
 *  refuses a bad heightfield (ARGUMENT) after the options. */
CIK_API cik_status cik_foot_crowd_ground_heightfield(cik_foot_crowd *crowd, const cik_heightfield *hf,
                                                     const cik_foot_options *options);

/** Stage 3: foot targets, pelvis lowering and the legs' start poses (the
 *  animated pose, clamped into the joint limits). */
CIK_API cik_status cik_foot_crowd_place(cik_foot_crowd *crowd, const cik_foot_options *options);

/** cik_foot_crowd_place with this frame's time `dt` in seconds (finite,
 *  >= 0; 0 = options.dt), for a variable frame rate without rewriting the
 *  options; ARGUMENT for a negative or non-finite dt (after the options). */
CIK_API cik_status cik_foot_crowd_place_dt(cik_foot_crowd *crowd, const cik_foot_options *options, float dt);

/** Stage 4: one cik_solve over all legs. */
CIK_API cik_status cik_foot_crowd_solve(cik_foot_crowd *crowd, const cik_foot_options *options);

/** Stage 5: ankle alignment and the solved ankle and foot outputs. */
CIK_API cik_status cik_foot_crowd_align(cik_foot_crowd *crowd, const cik_foot_options *options);

/** Stages 1 to 5 with ground from `hf`, block by block (the results are
 *  those of the five staged calls). Refuses bad options, then a bad
 *  heightfield (ARGUMENT), before it changes anything. */
CIK_API cik_status cik_foot_crowd_frame(cik_foot_crowd *crowd, const cik_heightfield *hf,
                                        const cik_foot_options *options);

/** cik_foot_crowd_frame with this frame's time `dt` in seconds (finite,
 *  >= 0; 0 = options.dt): the call for a variable frame rate. Refuses bad
 *  options, then a bad dt (ARGUMENT), then a bad heightfield (ARGUMENT). */
CIK_API cik_status cik_foot_crowd_frame_dt(cik_foot_crowd *crowd, const cik_heightfield *hf,
                                           const cik_foot_options *options, float dt);

/* ------------------------------------------------------------------------ */
/* The frame on an engine's job system                                      */

/** Range bounds of cik_foot_crowd_frame_range are multiples of this many
 *  characters (or the crowd's character count): a range then holds whole
 *  vectors of feet of every instruction set, which is what makes the bits
 *  independent of the split. */
#define CIK_FOOT_RANGE_ALIGNMENT 32

/** One frame of one crowd checked and worked out once (options, frame
 *  time, heightfield view, backend, the solve), for ranges of characters
 *  run on the engine's threads. Caller-owned storage, no allocation; its
 *  contents are private. */
typedef struct cik_foot_frame_plan {
    union {
        void *align_pointer;
        double align_double;
        unsigned char bytes[512];
    } opaque;
} cik_foot_frame_plan;

/** Starts a frame: refuses what cik_foot_crowd_frame_dt refuses, in the
 *  same order (and a null plan, ARGUMENT), changing nothing; otherwise fills
 *  `plan` and counts as the frame for the pelvis smoothing (the next frame
 *  smooths from this one). Then run cik_foot_crowd_frame_range over ranges
 *  that together cover [0, character count) once, on any threads, before
 *  the next init; until the last range returns, nothing else may touch the
 *  crowd, its streams, or the heights `hf` views. The options' `threads`
 *  is not used. A plan serves one frame: init again for the next. */
CIK_API cik_status cik_foot_crowd_frame_plan_init(cik_foot_frame_plan *plan, cik_foot_crowd *crowd,
                                                  const cik_heightfield *hf, const cik_foot_options *options,
                                                  float dt);

/** Runs the frame's five stages for characters [begin, end), blocks of them
 *  at a time, on the calling thread. Every character gets the bits that
 *  cik_foot_crowd_frame_dt gives it, whatever the split, the caller and the
 *  thread; calls on DISJOINT ranges of one plan may run at the same time.
 *  Refuses, changing nothing: a null or uninitialised plan, bounds outside
 *  0 <= begin <= end <= character count, a bound that is neither a multiple
 *  of CIK_FOOT_RANGE_ALIGNMENT nor the character count (ARGUMENT).
 *  Allocates nothing, takes no lock. */
CIK_API cik_status cik_foot_crowd_frame_range(const cik_foot_frame_plan *plan, int begin, int end);

/** Deprecated: cik_limit_apply (crowdik.h), under its former name; kept for
 *  one minor version. */
CIK_API cik_quat cik_foot_apply_limit(const cik_limit *limit, cik_quat q);

/** Deprecated: cik_limit_excess (crowdik.h), under its former name; kept for
 *  one minor version. */
CIK_API float cik_foot_limit_excess(const cik_limit *limit, cik_quat q);

#ifdef __cplusplus
}
#endif

#endif /* CROWDIK_FOOT_H */
