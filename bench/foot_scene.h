/*
 * A foot-placement scene for the benchmarks: a crowd of walking characters
 * on procedural ground, with a bank of animated frames that is copied into
 * the crowd's input streams before each frame (what a game's animation
 * system hands over). Deterministic for a seed.
 *
 * The ground: hills, a 15-degree ridge every 24 m along x and 10 cm steps
 * every 8 m along z, sampled every 10 cm over the crowd's square. The
 * characters: the workload legs (thigh 0.45 m, shin 0.42 m, limits as in
 * support/legs.h) scaled by 0.9..1.1, on a jittered 1.5 m grid, each with
 * its own heading and walk phase. The animation: a 1 s walk cycle (60 %
 * stance), analytic two-bone legs in the sagittal plane, pelvis at the
 * ground height under it (a character controller without smoothing), the
 * animation's floor that ground; the feet have the procedural rig's heel,
 * ball and toe. The contacts are the pipeline's own (from the animation);
 * the bank's weights serve CIK_FOOT_CONTACTS_WEIGHTS.
 */
#ifndef CROWDIK_BENCH_FOOT_SCENE_H
#define CROWDIK_BENCH_FOOT_SCENE_H

#include "crowdik/foot.h"

#include <stdint.h>

typedef struct foot_scene {
    int characters;
    int frames;            /* frames in the bank (consecutive at 60 Hz) */
    cik_heightfield ground;
    float *heights;        /* owned by the scene */
    cik_foot_leg *legs;    /* 2 per character */
    float *bank;           /* frames x (8 per character + 13 per foot) floats */
} foot_scene;

/* Builds a scene (0 on success, -1 out of memory). */
int foot_scene_create(int characters, int frames, uint64_t seed, foot_scene *out);
void foot_scene_free(foot_scene *sc);

/* A crowd with the scene's legs (CIK_OK or the crowd's refusal). */
cik_status foot_scene_crowd(const foot_scene *sc, cik_foot_crowd **out);

/* Writes bank frame `frame % frames` into the crowd's input streams:
 * pelvis position and rotation, the floor, pose rotations, weights. */
void foot_scene_write(const foot_scene *sc, int frame, const cik_foot_streams *s);

#endif
