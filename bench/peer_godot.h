/*
 * Godot's CCDIK modification (SkeletonModification3DCCDIK,
 * scene/resources/skeleton_modification_3d_ccdik.cpp, Godot 4.0's
 * development line) written in C, one chain at a time, as a baseline for
 * crowdik's solvers on the same chains. peer_godot.c says what it follows
 * and where it had to choose.
 */
#ifndef CROWDIK_BENCH_PEER_GODOT_H
#define CROWDIK_BENCH_PEER_GODOT_H

#include "crowdik/crowdik.h"

/* One joint's data (Godot's CCDIK_Joint_Data): the one local axis it turns
 * about (0, 1, 2: X, Y, Z), and its constraint (radians, invert as Godot's
 * joint_constraint_angles_invert). */
typedef struct godot_ccdik_joint {
    int axis;
    int enable_constraint;
    float angle_min, angle_max;
    int invert;
} godot_ccdik_joint;

typedef struct godot_ccdik {
    int high_quality; /* use_high_quality_solve */
    godot_ccdik_joint joint[CIK_MAX_JOINTS];
} godot_ccdik;

/* The joint data a Godot user would set for `chain` (peer_godot.c). */
void godot_ccdik_from_chain(const cik_chain *chain, godot_ccdik *out);

/* Runs the modification's _execute on `chain` in place up to `executions`
 * times (Godot runs it once per frame), stopping early once an execution
 * changes nothing. Returns the executions run. */
int godot_ccdik_solve(cik_chain *chain, const godot_ccdik *m, int executions);

#endif
