/*
 * crowdik_validate --bvh: a clip's legs, their limits from the clip's own
 * joint ranges, and the rows of chains the agreement tables solve.
 */
#ifndef CROWDIK_VALIDATE_CLIP_H
#define CROWDIK_VALIDATE_CLIP_H

#include "crowdik/crowdik.h"
#include "workloads.h"

/* One leg in one clip frame, in the demo's convention: frame 0 (the
 * reference pose) is the bind pose, so every joint's canonical frame is its
 * frame-0 world frame, offsets are frame-0 world vectors (metres) and a
 * local rotation is conj(W_parent) W_joint with W = R_frame conj(R_frame0). */
typedef struct clip_leg {
    cik_vec3 root_position; /* the hip's parent joint, metres */
    cik_quat root_rotation; /* its canonical world rotation */
    cik_quat q[3];          /* hip, knee, ankle */
    cik_vec3 effector;      /* toe tip in the ankle's frame, metres */
} clip_leg;

typedef struct clip_set {
    int frames;          /* usable frames: the clip's 1..N-1 */
    float fps, scale;
    int has_toe;
    char legs[240];
    cik_vec3 offset[2][3]; /* per side: hip (from its parent), thigh, shin */
    clip_leg *leg;         /* frames * 2, frame-major */
    cik_limit limit[2][3]; /* from the clip's own ranges (clip_limits) */
} clip_set;

/* Loads a clip's legs: 0, or with a message on stderr 2 (a clip that cannot
 * be read or used) or 3 (out of memory). */
int clip_set_load(const char *path, clip_set *cs);
void clip_set_limits(clip_set *cs);

/* The clip's rows: chain (frame i, side) starts from frame i's pose and is
 * solved for the effector position of frame i + ahead, both poses clamped
 * into the limits (or not, with limits off) and the target put in frame i's
 * root frame, so it is reachable. `perturb` > 0 then moves the target by up
 * to that many metres in a random direction (not always reachable). */
typedef struct clip_row {
    const clip_set *cs;
    int ahead, limits;
    float perturb;
    unsigned seed;
} clip_row;

/* The chains of a row: two per frame that has one `ahead` of it. */
int clip_row_chains(const clip_row *row);
/* Every chain of `b` from the row (built as it is set, not kept, so that
 * memory follows the clip's size and not five rows of 1 KB chains per
 * frame), repeated when the batch is larger. */
cik_status clip_fill(cik_batch *b, const clip_row *row);

#endif
