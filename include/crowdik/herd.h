/*
 * crowdik herds: foot placement for crowds of creatures with any number of
 * legs (1 to 8), each leg a chain of 2 to 4 segments (a horse's hind leg:
 * thigh, shin, cannon and pastern; a dog's front leg; an insect's coxa,
 * femur and tibia), solved by the batch CCD. The biped pipeline
 * (crowdik/foot.h) is the tool for two-legged characters with heel, ball
 * and toe; a herd's feet are single points (a hoof's sole, a paw's pad, a
 * spider's tip).
 *
 * Pipeline per frame (docs/foot.md, "Herds", has the rules and the reasons):
 *   1. cik_herd_probe      forward kinematics of the animated pose (each
 *                          foot point in the world), the contacts (from
 *                          the foot's own speed, or the caller's weights),
 *                          the foot locks, and where to probe the ground.
 *   2. cik_herd_ground_heightfield   samples a heightfield under every
 *                          probe, or the caller writes the contact streams
 *                          (its own raycasts).
 *   3. cik_herd_place      the body: a plane fitted through the ground
 *                          under the feet gives the body's pitch and roll
 *                          (shares of the slope, pitch_weight and
 *                          roll_weight), then the body is lowered (or
 *                          raised, within max_raise) so that the lowest
 *                          planted leg keeps the animation's bend; height,
 *                          pitch and roll each follow a critically damped
 *                          spring. Both roots (pelvis and chest) move with
 *                          the body. Then the foot targets (planted: on the
 *                          ground at its lock; swing: the animation's
 *                          angles carried by the body, never below the
 *                          ground), targets beyond reach brought in softly,
 *                          and the legs' start poses (the animation).
 *   4. cik_herd_solve      one cik_solve per leg shape (all legs of the
 *                          herd with the same joint count in one batch),
 *                          then the solved rotations and feet written out.
 * cik_herd_frame runs 1..4 with a heightfield.
 *
 * Roots: a leg hangs from the pelvis (CIK_HERD_PELVIS: the hind legs of a
 * quadruped, every leg of a biped or an insect) or from the chest
 * (CIK_HERD_CHEST: a quadruped's front legs, the shoulder girdle). The
 * caller animates both roots' world transforms per character (from its
 * skeleton: the chest may move against the pelvis as the spine flexes);
 * the body's correction (a turn about the centre of the hips, then a
 * vertical move) is applied to both.
 *
 * Conventions, units, ownership and thread safety: as crowdik/foot.h.
 * The options' lengths and speeds are metres (foot.units_per_metre scales
 * them); +Y is up. No function here allocates except cik_herd_create and
 * cik_herd_create_with; none prints.
 *
 * The header compiles as C99, C11 and C++.
 */
#ifndef CROWDIK_HERD_H
#define CROWDIK_HERD_H

#include "crowdik/foot.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most legs per character and segments per leg. */
#define CIK_HERD_MAX_LEGS 8
#define CIK_HERD_MAX_SEGMENTS 4

/** The roots a leg may hang from (cik_herd_leg.root). */
#define CIK_HERD_PELVIS 0
#define CIK_HERD_CHEST 1
#define CIK_HERD_ROOTS 2

/** One leg: joint 0 (hip or shoulder) at `hip` in its root's frame, then
 *  one joint per segment but the last. Segment s runs from joint s to
 *  joint s + 1 (`segment[s]` is joint s + 1's origin in joint s's frame);
 *  the last segment ends at the foot point, the point that touches the
 *  ground (the sole of the hoof, the tip of the claw), in the last joint's
 *  frame. A leg of n segments is an n-joint crowdik chain whose effector
 *  is the foot point. */
typedef struct cik_herd_leg {
    /** CIK_HERD_PELVIS or CIK_HERD_CHEST. */
    int root;
    /** 2 to CIK_HERD_MAX_SEGMENTS. */
    int segment_count;
    /** Joint 0's origin in the root's frame. */
    cik_vec3 hip;
    /** segment_count offsets (the others are not read); together longer
     *  than zero. */
    cik_vec3 segment[CIK_HERD_MAX_SEGMENTS];
    /** Each joint's limit (as cik_limit in crowdik.h): a swing-twist at
     *  the hip or shoulder, hinges at knee, hock, fetlock. */
    cik_limit limit[CIK_HERD_MAX_SEGMENTS];
} cik_herd_leg;

/** One character's body: its legs (foot index f = leg_count * character +
 *  leg) and which way it faces. */
typedef struct cik_herd_body {
    /** 1 to CIK_HERD_MAX_LEGS. */
    int leg_count;
    /** The body's forward direction in the pelvis frame (non-zero, not
     *  along +-Y; normalised): the body pitches about the horizontal axis
     *  across it and rolls about it. */
    cik_vec3 forward;
    cik_herd_leg leg[CIK_HERD_MAX_LEGS];
} cik_herd_body;

/** Herd options. Start from cik_herd_default_options(). */
typedef struct cik_herd_options {
    /** The biped pipeline's options with the same meaning: the solver,
     *  dt, units_per_metre, contacts (the foot point's speed against
     *  plant_speed and release_speed, min_contact_time, ease_in_time,
     *  ease_out_time), lock, lock_radius, unlock_time, reach_margin,
     *  soft_reach, limit_tolerance; max_pelvis_drop is the most the body
     *  is lowered, pelvis_smooth_time the smoothing of its height, pitch
     *  and roll. `start` is not used. */
    cik_foot_options foot;
    /** Most the body may be raised above the animation (>= 0, metres): a
     *  herd whose character controller lags the ground under all of its
     *  feet. Default 0 (only lowered, as the biped pelvis). */
    float max_raise;
    /** Shares of the ground plane's slope along and across the body that
     *  the body takes (each in [0, 1]). Defaults 1 (pitch with the slope)
     *  and 0.5. */
    float pitch_weight, roll_weight;
    /** Most the body may be pitched or rolled (radians, in [0, 1.5]).
     *  Default 0.6. */
    float max_tilt;
} cik_herd_options;

/** The foot defaults (cik_foot_default_options: threshold 0.2 mm, 16
 *  passes, limb mode) with contacts from the animation at plant 0.25 and
 *  release 0.45 m/s (one point, slower than a heel's), max_raise 0, pitch
 *  weight 1, roll weight 0.5, max tilt 0.6. */
CIK_API cik_herd_options cik_herd_default_options(void);

/** A crowd of creatures that share one leg layout (the same leg count and
 *  the same segment count per leg index). */
typedef struct cik_herd cik_herd;

/** Creates a herd of `character_count` (1 to 2^23) characters with `body`.
 *  Refuses, leaving `*out` as it was: a leg count or segment count out of
 *  range, a root that is neither pelvis nor chest, a zero-length leg, a
 *  forward direction that is zero or vertical (ARGUMENT); a NaN or infinity
 *  (NON_FINITE); an offset beyond CIK_MAX_COORDINATE (RANGE); a bad limit
 *  (LIMIT, as cik_batch_set_chain); OUT_OF_MEMORY. The animated pose starts
 *  as the bind pose with both roots at the origin, no foot planted. */
CIK_API cik_status cik_herd_create(int character_count, const cik_herd_body *body, cik_herd **out);

/** cik_herd_create with all of its memory from `allocator` (as
 *  cik_foot_crowd_create_with). */
CIK_API cik_status cik_herd_create_with(int character_count, const cik_herd_body *body,
                                        const cik_allocator *allocator, cik_herd **out);

/** Frees a herd. NULL is accepted. */
CIK_API void cik_herd_destroy(cik_herd *herd);

/** Gives one character its own body (sizes, limits, roots), which must
 *  have the herd's leg count and segment counts (ARGUMENT otherwise); a
 *  refused call changes nothing. */
CIK_API cik_status cik_herd_set_body(cik_herd *herd, int character, const cik_herd_body *body);

/** Reads a character's body back. */
CIK_API cik_status cik_herd_get_body(const cik_herd *herd, int character, cik_herd_body *body);

/** Characters and legs per character (0 for NULL). */
CIK_API int cik_herd_character_count(const cik_herd *herd);
CIK_API int cik_herd_leg_count(const cik_herd *herd);

/** Forgets what the herd carries between frames (contacts, locks, the
 *  body's springs), for all characters or one (a teleport, a cut). */
CIK_API cik_status cik_herd_reset(cik_herd *herd);
CIK_API cik_status cik_herd_reset_character(cik_herd *herd, int character);

/** The herd's streams: one float per character (c) or per foot (f = leg
 *  count * character + leg), owned by the herd. */
typedef struct cik_herd_streams {
    int character_count, leg_count;
    int foot_count; /* leg_count * character_count */
    /* in, c: the animated roots' world transforms ([CIK_HERD_PELVIS],
     * [CIK_HERD_CHEST]; a body without chest legs may leave the chest) */
    float *root_x[CIK_HERD_ROOTS], *root_y[CIK_HERD_ROOTS], *root_z[CIK_HERD_ROOTS];
    float *root_qx[CIK_HERD_ROOTS], *root_qy[CIK_HERD_ROOTS], *root_qz[CIK_HERD_ROOTS],
        *root_qw[CIK_HERD_ROOTS];
    /* in, c: the height of the animation's floor (as foot.h's floor_y) */
    float *floor_y;
    /* in, f: animated local rotations of joint 0 .. segment_count - 1 */
    float *pose_x[CIK_HERD_MAX_SEGMENTS], *pose_y[CIK_HERD_MAX_SEGMENTS], *pose_z[CIK_HERD_MAX_SEGMENTS],
        *pose_w[CIK_HERD_MAX_SEGMENTS];
    /* f: IK weight in [0, 1] (in with CIK_FOOT_CONTACTS_WEIGHTS, out of
     * probe with _ANIMATION) */
    float *weight;
    /* out of probe, f: planted (in contact) and locked, 1 or 0; the
     * animated foot point (world); where to look for ground */
    float *planted, *locked;
    float *anim_foot_x, *anim_foot_y, *anim_foot_z;
    float *probe_x, *probe_z;
    /* in to place, f: the ground's height under the probe (a single-point
     * foot needs no normal: it has no sole to align) */
    float *contact_y;
    /* out of place, c: the body's vertical move (negative: lowered), pitch
     * (positive: the front up) and roll (positive: the right side, -X of
     * the forward, down... see docs/foot.md) in radians, and the corrected
     * roots' world transforms to pose the skeleton with */
    float *body_height, *body_pitch, *body_roll;
    float *solved_root_x[CIK_HERD_ROOTS], *solved_root_y[CIK_HERD_ROOTS], *solved_root_z[CIK_HERD_ROOTS];
    float *solved_root_qx[CIK_HERD_ROOTS], *solved_root_qy[CIK_HERD_ROOTS], *solved_root_qz[CIK_HERD_ROOTS],
        *solved_root_qw[CIK_HERD_ROOTS];
    /* out of place, f: the foot target the leg is solved for */
    float *target_x, *target_y, *target_z;
    /* out of solve, f: solved local rotations, the solved foot point
     * (world), the solve's error (world units) and passes */
    float *solved_x[CIK_HERD_MAX_SEGMENTS], *solved_y[CIK_HERD_MAX_SEGMENTS],
        *solved_z[CIK_HERD_MAX_SEGMENTS], *solved_w[CIK_HERD_MAX_SEGMENTS];
    float *foot_x, *foot_y, *foot_z;
    float *error, *passes;
    /* in, c: level of detail, one byte per character, 1 (run) when the
     * herd is created. Every stage and the frame leave a character whose
     * byte is 0 alone (every stream above and what it carries from frame to
     * frame keep their bits, its legs are not solved), and the others'
     * results do not depend on it. A chunk of CIK_HERD_RANGE_ALIGNMENT
     * characters (at multiples of it) that are all off costs close to
     * nothing; an off character among on ones is computed, never stored.
     * A character switched back on starts afresh at its next probe, as
     * after cik_herd_reset_character. Change the bytes between frames. */
    unsigned char *enabled;
} cik_herd_streams;

/** Fills `out` with the herd's stream pointers. */
CIK_API cik_status cik_herd_streams_get(cik_herd *herd, cik_herd_streams *out);

/* Every stage and the frame refuse bad options (OPTIONS; the foot options'
 * ranges and max_raise, pitch_weight, roll_weight, max_tilt out of theirs)
 * and an unavailable backend (BACKEND_UNAVAILABLE) before they change
 * anything. NULL options = defaults. `dt` 0 = options.foot.dt; a negative
 * or non-finite dt is ARGUMENT. */

/** Stage 1: animated feet, contacts, locks, probes. */
CIK_API cik_status cik_herd_probe(cik_herd *herd, const cik_herd_options *options, float dt);

/** Stage 2: the heightfield under every probe (ARGUMENT for a bad one). */
CIK_API cik_status cik_herd_ground_heightfield(cik_herd *herd, const cik_heightfield *hf,
                                               const cik_herd_options *options);

/** Stage 3: the body, the targets and the start poses. */
CIK_API cik_status cik_herd_place(cik_herd *herd, const cik_herd_options *options, float dt);

/** Stage 4: the solves and the outputs. */
CIK_API cik_status cik_herd_solve(cik_herd *herd, const cik_herd_options *options);

/** Stages 1 to 4 with ground from `hf`. */
CIK_API cik_status cik_herd_frame(cik_herd *herd, const cik_heightfield *hf, const cik_herd_options *options,
                                  float dt);

/* ------------------------------------------------------------------------ */
/* The frame on an engine's job system                                      */

/** Range bounds of cik_herd_frame_range are multiples of this many
 *  characters (or the character count): whole vectors of feet and whole
 *  groups of chains, which keeps the bits independent of the split. */
#define CIK_HERD_RANGE_ALIGNMENT 64

/** One frame of one herd checked and worked out once, for ranges of
 *  characters run on the engine's threads. Caller-owned storage, no
 *  allocation; its contents are private. */
typedef struct cik_herd_frame_plan {
    union {
        void *align_pointer;
        double align_double;
        unsigned char bytes[2048];
    } opaque;
} cik_herd_frame_plan;

/** Starts a frame: refuses what cik_herd_frame refuses, in the same order
 *  (options, dt, then the heightfield; a null plan is ARGUMENT), changing
 *  nothing; otherwise fills `plan` and counts as the frame for the body's
 *  springs. Then run cik_herd_frame_range over ranges that together cover
 *  [0, character count) once, on any threads, before the next init; until
 *  the last range returns nothing else may touch the herd, its streams or
 *  the heights `hf` views. The options' `threads` is not used. */
CIK_API cik_status cik_herd_frame_plan_init(cik_herd_frame_plan *plan, cik_herd *herd, const cik_heightfield *hf,
                                            const cik_herd_options *options, float dt);

/** The frame's four stages for characters [begin, end), their legs'
 *  solves included, on the calling thread: every character gets the bits
 *  cik_herd_frame gives it, whatever the split; calls on disjoint ranges
 *  of one plan may run at the same time. Refuses, changing nothing: a null
 *  or uninitialised plan, bounds outside 0 <= begin <= end <= character
 *  count, a bound that is neither a multiple of CIK_HERD_RANGE_ALIGNMENT
 *  nor the character count (ARGUMENT). Allocates nothing, takes no lock. */
CIK_API cik_status cik_herd_frame_range(const cik_herd_frame_plan *plan, int begin, int end);

/** The batch that solves legs of `joint_count` joints (2 to 4; NULL when
 *  the herd has none), to read cik_batch_result: leg l of character c is
 *  its chain cik_herd_chain_index(herd, c, l). */
CIK_API const cik_batch *cik_herd_batch(const cik_herd *herd, int joint_count);
CIK_API int cik_herd_chain_index(const cik_herd *herd, int character, int leg);

#ifdef __cplusplus
}
#endif

#endif /* CROWDIK_HERD_H */
