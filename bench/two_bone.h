/*
 * ozz-animation's IKTwoBoneJob (src/animation/runtime/ik_two_bone_job.cc of
 * guillaumeblanc/ozz-animation) written in C with scalar math, one chain at
 * a time: the closed-form two-bone IK engines use for legs, as the baseline
 * for crowdik's limb solve on the same legs. two_bone.c says what it follows
 * and where it had to choose.
 */
#ifndef CROWDIK_BENCH_TWO_BONE_H
#define CROWDIK_BENCH_TWO_BONE_H

#include "crowdik/crowdik.h"

/* The job's inputs (IKTwoBoneJob's fields). Joint transforms are model
 * space (world here), as rotation and position, not ozz's 4x4 matrices. */
typedef struct two_bone_job {
    cik_vec3 target;      /* model space */
    cik_vec3 mid_axis;    /* unit, in the mid joint's local space */
    cik_vec3 pole_vector; /* model space */
    float twist_angle, soften, weight;
    cik_quat start_rotation, mid_rotation;
    cik_vec3 start_position, mid_position, end_position;
} two_bone_job;

/* Runs the job: the corrections to multiply on the right of the start and
 * mid joints' local rotations. Returns `reached` as ozz does (the target
 * within the softened reach and beyond |d1 - d2|); 0 with identity
 * corrections for a weight <= 0. */
int two_bone_run(const two_bone_job *job, cik_quat *start_correction, cik_quat *mid_correction);

/* The leg solve a game writes around the job: joints 0, 1, 2 of `chain` as
 * start (hip), mid (knee), end (ankle), the chain's target for the ankle
 * (the effector offset is not used), the knee's hinge axis for mid_axis (its
 * sign as ozz wants it), the character's forward (root rotation times +Z)
 * as the pole, soften 1 (no softening), weight 1, twist 0; the corrections
 * applied to the chain's hip and knee rotations. Returns `reached`. */
int two_bone_solve_leg(cik_chain *chain);

#endif
