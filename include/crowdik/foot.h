/*
 * crowdik foot placement: put the feet of a whole crowd on uneven ground,
 * every frame, with one batched CCD solve.
 *
 * Pipeline per frame (docs/foot.md has the details and the reasons):
 *   1. cik_foot_crowd_probe        forward kinematics of the animated pose
 *                                  (ankle, foot orientation, heel, ball and
 *                                  toe); the contacts: which feet are planted
 *                                  (from the animated motion itself, or the
 *                                  caller's weights), their IK weights, and
 *                                  the foot locks (a planted foot's contact
 *                                  point stays where it landed); the probe
 *                                  points (x, z) under heel, ball and toe.
 *   2. cik_foot_crowd_ground_heightfield   samples a heightfield at the
 *                                  probes, or the caller writes the contact
 *                                  streams itself (its own raycasts).
 *   3. cik_foot_crowd_place        foot targets (planted: the foot resting on
 *                                  the ground at its lock, no point below it;
 *                                  swing: the animation's angles, never
 *                                  through the ground), the pelvis lowered
 *                                  so that the legs keep the animation's
 *                                  bend and the swing feet its clearance (a
 *                                  critically damped spring), targets beyond
 *                                  reach approached softly, the start pose of
 *                                  every leg (the animation) written into the
 *                                  batch.
 *   4. cik_foot_crowd_solve        one cik_solve over all legs of all
 *                                  characters (limb mode: one pass).
 *   5. cik_foot_crowd_align        each ankle turned so the sole lies on the
 *                                  ground (blended by the weight; a sole the
 *                                  animation holds flat, with contacts from
 *                                  the animation, by twice its easing:
 *                                  docs/foot.md), within the
 *                                  ankle's limit; a foot the limit leaves
 *                                  with a point more than 2.5 mm below its
 *                                  ground (a held foot: 1 mm, or its pivot
 *                                  turned 1 mm off its target's) is moved
 *                                  back, solved and aligned again (at most
 *                                  twice); solved ankle, foot
 *                                  orientation, heel, ball and toe written.
 * cik_foot_crowd_frame runs 1..5 with a heightfield, one block of characters
 * after the other in a single parallel region (the same bits as the five
 * calls in turn, faster: each block stays in the cache). On an engine's own
 * job system, cik_foot_crowd_frame_plan_init checks a frame once and
 * cik_foot_crowd_frame_range runs it for ranges of characters on any
 * threads (the same bits again, whatever the split).
 *
 * Conventions: as crowdik.h (single precision, Hamilton quaternions (x, y, z,
 * w), radians). The options' lengths and speeds (max pelvis drop, plant
 * speeds, lock radius, the solver's threshold) are in metres; the crowd's world (legs, pelvis,
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

/** The points where a foot meets the ground (cik_foot_leg.point). */
#define CIK_FOOT_HEEL 0
#define CIK_FOOT_BALL 1
#define CIK_FOOT_TOE 2
#define CIK_FOOT_POINTS 3

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
    /** Heel, ball (under the toe joint) and toe tip in the ankle's frame,
     *  at the sole (CIK_FOOT_HEEL, _BALL, _TOE): the ground is probed under
     *  each, no point of a foot is placed below it, and a planted foot
     *  rolls over them (docs/foot.md gives the rule that derives them from
     *  a skeleton with only an ankle and a toe end). All three zero (a
     *  zeroed leg): each is the point ankle_height below the ankle along
     *  -sole_normal. */
    cik_vec3 point[CIK_FOOT_POINTS];
} cik_foot_leg;

/** Where the planted feet come from (cik_foot_options.contacts). */
/** From the animated motion: a foot is planted while its heel, ball or
 *  toe moves slower than plant_speed (released above release_speed, after
 *  min_contact_time), and its IK weight eases in and out; the crowd keeps
 *  each foot's state across frames. The weight stream is an output. */
#define CIK_FOOT_CONTACTS_ANIMATION 0
/** From the caller's weight stream (in): planted where the weight is 1. */
#define CIK_FOOT_CONTACTS_WEIGHTS 1

/** Pipeline options. Start from cik_foot_default_options(). */
typedef struct cik_foot_options {
    /** The batch solve. Default threshold 2e-4 (0.2 mm), 16 passes, limb
     *  mode on (the closed-form two-bone first pass). */
    cik_options solver;
    /** Frame time in seconds (> 0), for the calls that take no frame time of
     *  their own (and dt 0). Default 1/60. */
    float dt;
    /** Most the pelvis may be lowered (>= 0, metres). Default 0.3. */
    float max_pelvis_drop;
    /** Smoothing time of the pelvis drop (>= 0 seconds; below 1e-6 = none): a
     *  critically damped spring with this time constant follows the drop
     *  the legs need, so the pelvis moves with a continuous velocity; a
     *  need that keeps rising is fed to it ahead by what the spring lags a
     *  ramp (at most 7.5 mm; docs/foot.md, pelvis drop). Default 0.06. */
    float pelvis_smooth_time;
    /** Fraction of a leg's full reach (|thigh| + |shin|) it never exceeds,
     *  so the knee never locks straight, in [0, 0.5). Default 0.002. */
    float reach_margin;
    /** Where the soft approach to full extension starts, as a fraction of
     *  the reach, in (0, 1]: a target farther than this (and farther than
     *  the animation's own extension) is brought in smoothly toward
     *  (1 - reach_margin) of the reach instead of being clamped there, so
     *  the knee straightens gradually. Default 0.96. */
    float soft_reach;
    /** Deprecated (kept for one minor version): every value starts the legs
     *  from the animation; the closed-form two-bone start is the solver's
     *  limb mode (solver.ccd.limb). CIK_FOOT_START_* only. */
    int start;
    /** The engine's world units in a metre (> 0, finite): the options'
     *  lengths and speeds are metres and are multiplied by it; legs, pelvis,
     *  heightfield and outputs are in the engine's units. 1 (metres: Unity,
     *  Godot) by default; 100 for centimetres (Unreal). 1 changes no bit. */
    float units_per_metre;
    /** CIK_FOOT_CONTACTS_ANIMATION (default) or CIK_FOOT_CONTACTS_WEIGHTS. */
    int contacts;
    /** A foot plants when its slowest point (heel, ball or toe) is slower
     *  than this (> 0, metres per second) and releases when all of them are
     *  faster than release_speed (>= plant_speed). Defaults 0.6 and 0.9; a
     *  run wants about 1.1 and 1.6 (docs/foot.md). */
    float plant_speed, release_speed;
    /** Shortest contact (>= 0 seconds): a planted foot stays planted at
     *  least this long. Default 0.05. */
    float min_contact_time;
    /** Times the IK weight takes to come in after a foot plants and to go
     *  out after it lifts (>= 0 seconds; smoothstep). Defaults 0.05, 0.12. */
    float ease_in_time, ease_out_time;
    /** Foot locking (1 on, 0 off; default 1): while planted, the foot's
     *  contact point and heading stay where it landed. The pivot is the
     *  lowest of heel, ball and toe in the animation (the foot rolls from
     *  heel to ball to toe, each held in turn; on uneven ground a point
     *  on the ground is held rather than one hanging over a step's edge).
     *  A lock releases when the
     *  foot lifts, when the animation has moved lock_radius (> 0, metres;
     *  default 0.12) away from it, when holding it would take the leg
     *  beyond its reach, or when the ankle's limit turned the held foot so
     *  that its pivot moved (the last frame's align); the foot then blends
     *  back to the animation over unlock_time (>= 0 seconds; default 0.2). */
    int lock;
    float lock_radius, unlock_time;
    /** Animated rotations outside a joint's limit by less than this angle
     *  (>= 0, radians) are kept as they are, not clamped: motion capture
     *  sits slightly off a hinge. 0: every rotation through the clamp (a
     *  kept one comes back with w >= 0). Default 0.05. */
    float limit_tolerance;
    /** A planted foot whose every point (heel, ball and toe) rises faster
     *  than this over the animation's floor (floor_y; >= 0, metres per
     *  second; 0: off) is lifting off: it
     *  releases (after min_contact_time) however slow it still is, and a
     *  lifting foot does not plant. At toe-off the animation raises the
     *  whole foot while its speed is still under release_speed; without
     *  the rule a lock held the rising foot and the pelvis dragged it.
     *  Default 0.5. Herds (herd.h) do not use it. */
    float lift_speed;
    /** The most a knee's bend may change in a second beyond the
     *  animation's own change, on a foot not planted in full (weight below
     *  1: swinging, easing in or out) and on a planted foot until it is
     *  down on its ground (since 0.24: a foot landing on ground below its
     *  floor comes down onto it at this rate, not in the frames its
     *  weight eases in), in radians per second (>= 0; 0: off). The target
     *  of such a foot moves along the line from its hip (a planted foot's
     *  straight up: it does not slide) so that its knee bends no faster:
     *  when a foot lets go of a lock its knee eases back to the
     *  animation's bend instead of snapping to it. A longer leg is taken
     *  only on a foot not planted that stays 1 cm above its resting
     *  height (a swing foot at weight 0) or above it (a foot easing out,
     *  since 0.25), and the target moves by at most 8 percent of the reach (16
     *  on a swing foot at weight 0, since 0.18). Default 5 (4.8
     *  degrees per frame at 60 Hz: a swing leg that the terrain bent far
     *  from the animation is back on it sooner, and no frame turns the
     *  knee by 5 degrees beyond the animation's).
     *  Locked feet have their own rate, held_knee_speed. Herds (herd.h)
     *  do not use it. */
    float knee_speed;
    /** How much of the ground's rise above the animation's floor
     *  (`floor_y`), under a foot not planted in full, lifts that foot
     *  (0 to 1): 1 keeps the animation's clearance over higher ground (a
     *  swing foot over an uphill slope or onto a step comes down on it as
     *  the animation comes down on its floor), 0 lifts a swing foot only
     *  where the ground would be above it (crowdik 0.10's rule: the foot
     *  stopped against the ground and its knee bent at once). Lower ground
     *  lowers the pelvis instead (max_pelvis_drop). It scales as well the
     *  pelvis drop a swing foot takes back over the last four drops of its
     *  way down to its floor (since 0.17: the knee takes the drop in over
     *  the end of the swing instead of in the frames the ground stops the
     *  foot). Default 1. Herds (herd.h) do not use it. */
    float swing_lift;
    /** A planted foot whose heel and toe are both within this height of
     *  the animation's floor (`floor_y`; >= 0, metres; 0: off) is not
     *  released by its speed: the animation is skating it along its floor
     *  (motion capture's feet slide in stance: the CMU jog's planted feet
     *  with heel and toe that low move at up to 3.6 m/s, their slowest
     *  point), and the lock holds it until the foot lifts (above this height,
     *  or faster than lift_speed) or the animation is lock_radius away.
     *  Without it the skate released the lock, the foot caught up with
     *  the animation and planted again. A foot planted by its height alone
     *  on a first frame (no speed yet) is held so only once it has been
     *  seen slow. A character that shuffles its feet along the floor
     *  without lifting them wants 0. Default 0.02. Herds
     *  (herd.h) do not use it. */
    float skate_height;
    /** The knee's rate of a held foot (locked, at full weight) on ground
     *  above the animation's floor (floor_y), level with it or at most
     *  5 mm below it, in radians per second (>= 0; 0: off): where its knee
     *  would straighten faster than this beyond the animation's (the floor
     *  catching up with a foot that landed on a step, a push-off on level
     *  ground), the pelvis comes down to hold it, the drop's rate changing
     *  by at most 3 mm a frame squared at 60 Hz beyond its spring's; a
     *  planted foot at full weight with its toe tip on the ground lifts
     *  its heel about it for what the pelvis does not hold (a foot held
     *  on its heel or ball hands its lock to the toe tip; since 0.27,
     *  before only a foot held on its toe tip or not held),
     *  and lowers it (while it is over its ground) where its knee would
     *  bend faster than this beyond the animation's. Every locked or
     *  planted foot at full weight, on any ground, also keeps the pelvis
     *  from coming down (for the other foot) faster than lets its knee
     *  bend at this rate beyond the animation's, its ankle taken as high
     *  as the last frame's heel lift put it (since 0.25: before, only a
     *  locked foot, its heel down). (Since 0.21, with or without this rate, a
     *  foot that is not planted lifts its heel no more than it did in the
     *  last frame, and a lifted heel comes down at most 6 rad/s: a foot
     *  let go at push-off turns with the animation.)
     *  Default 3.5 (3.3 degrees per frame at 60 Hz; 4 before 0.27):
     *  lower than knee_speed, because a held leg's solve and settling add
     *  their own small turns of the knee to the one this rate allows. Herds (herd.h) do not use
     *  it. */
    float held_knee_speed;
    /** How far ahead a swing foot looks for the ground it will come over,
     *  in seconds of its toe's motion in the last frame (>= 0; 0: off).
     *  The probe adds a fourth point, `probe_ahead_*`, that far along the
     *  animated toe's way (no farther than where the foot, coming down at
     *  its speed, meets the floor, but at least 2 frames of its motion,
     *  and at most 0.4 of the leg's reach; a
     *  planted, held or cold foot looks under its toe), and the ground
     *  there counts in swing_lift's rise: a swing foot coming to a step up
     *  rises over the frames before it gets there, at most at knee_speed,
     *  instead of in the frame its toe crosses the edge (crowdik 0.17: the
     *  knee bent by up to 38 degrees in that frame); a step up ahead also
     *  raises a low swing foot for the pelvis drop it will give back over
     *  the step (since 0.20: before, a foot just off the ground gave the
     *  whole drop back in the frame its toe crossed the edge); and lower
     *  ground ahead asks the pelvis for half its drop below the floor
     *  (since 0.26: the pelvis starts down before the foot is over it).
     *  The ground stage
     *  samples the fourth point only when this and swing_lift are above 0;
     *  a caller with its own raycasts fills `contact_ahead_y` (or leaves it
     *  at -FLT_MAX, as the crowd is made: no ground ahead). Default 0.1.
     *  Herds (herd.h) do not use it. */
    float swing_lookahead;
} cik_foot_options;

/** Start poses (deprecated, see cik_foot_options.start): all three start
 *  the legs from the animation. */
#define CIK_FOOT_START_ANIMATION 0
#define CIK_FOOT_START_KNEE 1
#define CIK_FOOT_START_TWO_BONE 2

/** threshold 2e-4, 16 passes, limb mode, AUTO backend, all threads, dt
 *  1/60, drop at most 0.3 smoothed over 0.06 s, reach margin 0.002, soft
 *  reach 0.96, start ANIMATION, units_per_metre 1, contacts from the
 *  animation (plant 0.6, release 0.9 m/s, at least 0.05 s, easing 0.05 in
 *  and 0.12 s out, lift speed 0.5 m/s), locking on (radius 0.12, unlock
 *  0.2 s), limit tolerance 0.05 rad, knee speed 5 rad/s, swing lift 1,
 *  skate height 0.02, held knee speed 4 rad/s, swing look-ahead 0.1 s. */
CIK_API cik_foot_options cik_foot_default_options(void);

/** A crowd of characters, each a pelvis and two legs, with its batch. */
typedef struct cik_foot_crowd cik_foot_crowd;

/** Creates a crowd of `character_count` (>= 1) characters, every one with
 *  the legs `legs[0]` (left) and `legs[1]` (right). Allocates the batch and
 *  all streams once; nothing is allocated per frame. Refuses bad legs
 *  (ARGUMENT, NON_FINITE or LIMIT as cik_batch_set_chain) and reports
 *  OUT_OF_MEMORY; on any refusal `*out` is left as it was. The animated
 *  pose starts as the bind pose, pelvis at the origin, weights 1, contacts
 *  flat at height 0, no foot planted. */
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
 *  (neither leg of any character, no stream). Its cost is the character's
 *  own (two legs checked and prepared): a character spawned into a running
 *  crowd does not make the next frame look at the others' legs. */
CIK_API cik_status cik_foot_crowd_set_legs(cik_foot_crowd *crowd, int character,
                                           const cik_foot_leg legs[2]);

/** Reads a character's legs back. */
CIK_API cik_status cik_foot_crowd_get_legs(const cik_foot_crowd *crowd, int character,
                                           cik_foot_leg legs[2]);

/** Number of characters (0 for NULL). */
CIK_API int cik_foot_crowd_character_count(const cik_foot_crowd *crowd);

/** The crowd's batch (one chain per foot, index 2 * character + side), to
 *  read results (cik_batch_result) after cik_foot_crowd_solve. Its chains
 *  are hip and knee with the shin as the effector (since 0.33: the ankle,
 *  which the solve never turned, is align's, solved_*[2] in the streams). */
CIK_API const cik_batch *cik_foot_crowd_batch(const cik_foot_crowd *crowd);

/** Forgets what the crowd carries from frame to frame (pelvis smoothing,
 *  contacts, foot locks, swing smoothing): the next frame starts afresh
 *  (use after a teleport or a cut). */
CIK_API cik_status cik_foot_crowd_reset(cik_foot_crowd *crowd);

/** The same for one character (a teleport, a cut, a character taken from a
 *  pool): its next probe starts afresh, as the first frame does (feet
 *  within 2 cm of its floor planted at full weight, no locks, the pelvis
 *  unsmoothed); the other characters keep what they carry. ARGUMENT for a
 *  null crowd or a character out of range. */
CIK_API cik_status cik_foot_crowd_reset_character(cik_foot_crowd *crowd, int character);

/** The crowd's streams: one float per character (`c`) or per foot (`f`),
 *  all owned by the crowd. The caller writes the inputs (marked in) before
 *  the frame and reads the outputs (out). */
typedef struct cik_foot_streams {
    int character_count;
    int foot_count; /* 2 * character_count */
    /* in, c: animated pelvis position and rotation (world) */
    float *pelvis_x, *pelvis_y, *pelvis_z;
    float *pelvis_qx, *pelvis_qy, *pelvis_qz, *pelvis_qw;
    /* in, c: the height of the animation's floor under the character in
     * the world (where its feet stand on flat ground: the character
     * controller's ground); where the ground under a swing foot is lower,
     * the pelvis comes down so that the foot keeps its clearance, where
     * it is higher the foot is lifted (swing_lift); a foot lifts off when
     * it rises over this floor faster than lift_speed; a held foot on
     * ground above it keeps its knee's rate (held_knee_speed) as this floor
     * catches up. Default 0: a character on terrain away from y = 0
     * needs its own. */
    float *floor_y;
    /* in, f: animated local rotations of hip [0], knee [1], ankle [2] */
    float *pose_x[3], *pose_y[3], *pose_z[3], *pose_w[3];
    /* f: IK weight in [0, 1]: 1 = the foot stands on the ground (stance),
     * 0 = it follows the animation (swing). In with
     * CIK_FOOT_CONTACTS_WEIGHTS, out of probe with _ANIMATION. */
    float *weight;
    /* out of probe, f: 1 where the foot is planted (in contact), else 0;
     * 1 where it is locked: its pivot held still in x, z and on the ground
     * (from the frame the weight is in in full: while it eases in after
     * the plant the held foot still comes down; with contacts from the
     * animation, a foot that its first frame plants by its height alone
     * locks from its second, if still planted; place sets it back to 0
     * while a held foot's leg cannot bring it down to its ground: it
     * hangs straight over its place; while knee_speed holds a landing
     * foot up; and settling where its raise puts the held point more than
     * slide_depth above its ground, the lock going on), else 0; which
     * point the lock holds
     * (CIK_FOOT_HEEL, _BALL, _TOE) */
    float *planted, *locked, *pivot;
    /* out of probe, f: animated ankle (world) and, per point (heel, ball,
     * toe), where to look for ground: under the locked foot where it is
     * locked */
    float *anim_ankle_x, *anim_ankle_y, *anim_ankle_z;
    float *probe_x[CIK_FOOT_POINTS], *probe_z[CIK_FOOT_POINTS];
    /* in to place, f, per point: ground under the probe: height and unit
     * normal (written by cik_foot_crowd_ground_heightfield, or by the
     * caller: its raycasts) */
    float *contact_y[CIK_FOOT_POINTS], *contact_nx[CIK_FOOT_POINTS], *contact_ny[CIK_FOOT_POINTS],
        *contact_nz[CIK_FOOT_POINTS];
    /* out of probe, f: the swing foot's look-ahead point (swing_lookahead:
     * its toe moved on by its last frame's motion; under the toe where
     * the foot is planted); in to place, f: the ground's height there
     * (-FLT_MAX: none known, as the crowd is made) */
    float *probe_ahead_x, *probe_ahead_z;
    float *contact_ahead_y;
    /* out of place, c: how far the pelvis was lowered (>= 0) */
    float *pelvis_drop;
    /* out of place, f: the ankle target the legs are solved for (a foot
     * starting afresh, the crowd's first frame or a character reset or
     * switched back on, has target_y NaN from its probe to its place:
     * no last target) */
    float *target_x, *target_y, *target_z;
    /* out of align, f: solved local rotations (hip, knee, ankle; hip and
     * knee point into the batch's rotation streams, the ankle into the
     * crowd's own: the batch's chains are hip and knee) */
    float *solved_x[3], *solved_y[3], *solved_z[3], *solved_w[3];
    /* out of align, f: solved ankle position and foot orientation (world),
     * and the solved heel, ball and toe (world) */
    float *ankle_x, *ankle_y, *ankle_z;
    float *foot_qx, *foot_qy, *foot_qz, *foot_qw;
    float *point_x[CIK_FOOT_POINTS], *point_y[CIK_FOOT_POINTS], *point_z[CIK_FOOT_POINTS];
    /* in, c: level of detail, one byte per character, 1 (run) when the
     * crowd is created. Every stage and the frame leave a character whose
     * byte is 0 alone: every stream above (its solved legs among them) and
     * what it carries from frame to frame keep their bits, and the other
     * characters' results do not depend on it. A group of 16 characters
     * (at multiples of 16) that are all off costs close to nothing; where
     * at most half of a run of groups is on, the on characters are
     * gathered side by side and run there (an off one costs nothing, an on
     * one its copies besides its work), else an off character among on
     * ones costs less than an on one (its lanes are computed, never
     * stored, its legs not solved); keep far characters in runs where
     * many are off (docs/foot.md). A
     * character switched back on starts afresh at its next probe, as after
     * cik_foot_crowd_reset_character. Change the bytes between frames, not
     * between the stages of one frame. */
    unsigned char *enabled;
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

/** Stage 1: forward kinematics of the animated pose, the contacts and the
 *  foot locks (writes anim_ankle_*, planted, locked, probe_*, and weight
 *  with CIK_FOOT_CONTACTS_ANIMATION). */
CIK_API cik_status cik_foot_crowd_probe(cik_foot_crowd *crowd, const cik_foot_options *options);

/** cik_foot_crowd_probe with this frame's time `dt` (as
 *  cik_foot_crowd_place_dt): the contacts' speeds and timers use it. */
CIK_API cik_status cik_foot_crowd_probe_dt(cik_foot_crowd *crowd, const cik_foot_options *options, float dt);

/** Stage 2: samples `hf` under every probe into the contact streams;
 *  refuses a bad heightfield (ARGUMENT) after the options. */
CIK_API cik_status cik_foot_crowd_ground_heightfield(cik_foot_crowd *crowd, const cik_heightfield *hf,
                                                     const cik_foot_options *options);

/** Stage 3: foot targets, pelvis lowering and the legs' start poses (the
 *  animated pose; rotations beyond a limit by more than limit_tolerance
 *  clamped into it). */
CIK_API cik_status cik_foot_crowd_place(cik_foot_crowd *crowd, const cik_foot_options *options);

/** cik_foot_crowd_place with this frame's time `dt` in seconds (finite,
 *  >= 0; 0 = options.dt), for a variable frame rate without rewriting the
 *  options; ARGUMENT for a negative or non-finite dt (after the options). */
CIK_API cik_status cik_foot_crowd_place_dt(cik_foot_crowd *crowd, const cik_foot_options *options, float dt);

/** Stage 4: one cik_solve over all legs. */
CIK_API cik_status cik_foot_crowd_solve(cik_foot_crowd *crowd, const cik_foot_options *options);

/** Stage 5: ankle alignment and the solved ankle, foot and point outputs. */
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
        unsigned char bytes[1024];
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
