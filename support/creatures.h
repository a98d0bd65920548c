/*
 * Creatures for the herd (crowdik/herd.h): a quadruped (hind legs of four
 * segments with hock and fetlock, front legs of three), a hexapod (three
 * segments: coxa, femur, tibia) and a biped (three segments), their
 * standing poses, and a procedural gait for each (a lateral-sequence walk,
 * a tripod gait, a walk) built once by solving the legs toward footfall
 * trajectories whose stance feet stand still on flat ground. Shared by the
 * demo, the tests and the benchmarks. Not part of libcrowdik.
 *
 * Character space: x lateral (left +), y up from the floor, z forward;
 * metres, seconds. The pelvis frame's +Z is forward.
 */
#ifndef CROWDIK_SUPPORT_CREATURES_H
#define CROWDIK_SUPPORT_CREATURES_H

#include "crowdik/herd.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum creature_kind {
    CREATURE_BIPED = 0,
    CREATURE_QUADRUPED = 1,
    CREATURE_HEXAPOD = 2
} creature_kind;

/* "biped", "quadruped", "hexapod"; NULL for others. */
const char *creature_name(creature_kind kind);
/* The kind named `name`, or -1. */
int creature_parse(const char *name);

/* The body at size `size` (1: a horse 1.45 m at the hips, a hexapod 0.3 m
 * at the thorax, a person 0.95 m). */
void creature_body(creature_kind kind, float size, cik_herd_body *body);

/* One animated pose, character space: the roots ([CIK_HERD_PELVIS],
 * [CIK_HERD_CHEST]; the chest equals the pelvis where no leg hangs from
 * it), each leg's local rotations, and whether the gait has the foot on
 * the ground (1) or in the air (0). */
typedef struct creature_pose {
    cik_vec3 root_p[CIK_HERD_ROOTS];
    cik_quat root_q[CIK_HERD_ROOTS];
    cik_quat q[CIK_HERD_MAX_LEGS][CIK_HERD_MAX_SEGMENTS];
    float stance[CIK_HERD_MAX_LEGS];
} creature_pose;

/* The standing pose: every foot on the floor (y = 0) under its hip, the
 * joints bent as the creature stands. */
void creature_stance(creature_kind kind, const cik_herd_body *body, creature_pose *pose);

/* A looping gait: `frames` poses `dt` apart; the character moves `speed`
 * metres per second along +z, and a foot in stance stands still on the
 * floor (in the world) to within the solve's 0.05 mm. */
typedef struct creature_gait {
    int frames;
    float dt, speed;
    creature_pose *poses;
} creature_gait;

/* Builds the gait of `kind` for `body` at 60 Hz. 0 on success, -1 when out
 * of memory or when a leg could not follow its footfall path (then nothing
 * is held). */
int creature_gait_build(creature_kind kind, const cik_herd_body *body, creature_gait *gait);
void creature_gait_free(creature_gait *gait);

/* The pose at time t (seconds, any value: the gait loops), interpolated
 * between frames (roots and rotations normalised-lerped) with the
 * character's travel removed (the roots move only with the gait's bob). */
void creature_gait_sample(const creature_gait *gait, float t, creature_pose *pose);

/* Writes `pose` into character c's input streams: the roots carried to
 * world position `at` (the character's origin on its floor) and turned by
 * `yaw` radians about +Y, the legs' rotations, floor_y = at.y; with
 * `weights` also each foot's weight (the gait's stance: 1 or 0). */
void creature_pose_write(const creature_pose *pose, const cik_herd_streams *s, int c, cik_vec3 at, float yaw,
                         int weights);

#ifdef __cplusplus
}
#endif

#endif
