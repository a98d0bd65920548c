/*
 * three.js's CCDIKSolver (examples/jsm/animation/CCDIKSolver.js, the
 * updateOne() loop, as of three.js commit 0255e15) written in C, one chain
 * at a time, as a baseline for crowdik's solvers on the same chains.
 * peer_threejs.c says what it follows and where it had to choose.
 */
#ifndef CROWDIK_BENCH_PEER_THREEJS_H
#define CROWDIK_BENCH_PEER_THREEJS_H

#include "crowdik/crowdik.h"

/* One link of the IK (three.js `links[j]`): `limitation` (a hinge axis, or
 * has_limitation 0) and the Euler XYZ clamp rotationMin/rotationMax
 * (has_rotation_limits 0: none). */
typedef struct threejs_link {
    int has_limitation;
    cik_vec3 limitation;
    int has_rotation_limits;
    cik_vec3 rotation_min, rotation_max;
} threejs_link;

/* The IK parameter object (three.js `iks[i]`): iteration, minAngle,
 * maxAngle and the links, indexed here by crowdik's joint index (joint 0 =
 * the root; three.js lists them from the effector's parent down). */
typedef struct threejs_ik {
    int iteration;
    float min_angle, max_angle;
    threejs_link link[CIK_MAX_JOINTS];
} threejs_ik;

/* The parameters a three.js user would write for `chain`: `iteration`
 * iterations, minAngle 0, maxAngle 1 (the values of the solver's own
 * example), crowdik's limits in three.js's limit model (peer_threejs.c). */
void threejs_ik_from_chain(const cik_chain *chain, int iteration, threejs_ik *out);

/* Solves `chain` in place (its rotations are the start pose and become the
 * solution) as CCDIKSolver.updateOne does. Returns the iterations run. */
int threejs_ccd_solve(cik_chain *chain, const threejs_ik *ik);

#endif
