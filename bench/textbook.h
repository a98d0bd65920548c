/*
 * The textbook baseline: CCD as a programmer writes it from the classic
 * chapter, for comparison with crowdik's solvers in the same binary.
 *
 * Every chain is a small scene graph: a root node (the chain's root frame),
 * one node per joint and an effector node, each with a local and a world
 * 4x4 matrix. A CCD step takes the joint's and the effector's positions from
 * the world matrices, finds the delta rotation with acos and a cross-product
 * axis (axis-angle), skips it inside the classic dead zone (dot > 0.9999),
 * re-extracts the joint's world rotation from its world matrix, turns the
 * new world rotation back into a local one, applies the joint limit by way
 * of axis-angle (hinge) or a quaternion swing-twist split with acos/atan2,
 * and recomputes the world matrices of the joint's whole subtree.
 *
 * It solves one chain at a time on the calling thread. It has no stall
 * breaker and skips antiparallel steps, as the listing does.
 */
#ifndef CROWDIK_BENCH_TEXTBOOK_H
#define CROWDIK_BENCH_TEXTBOOK_H

#include "crowdik/crowdik.h"

typedef struct tb_set tb_set;

/* Builds the scene graphs of `count` chains (copied). NULL when out of
 * memory. */
tb_set *tb_create(const cik_chain *chains, int count);
void tb_destroy(tb_set *set);

/* Puts every chain back into its start pose (the local matrices it was
 * created with). */
void tb_reset(tb_set *set);

/* The classic dead zone: a step is skipped when the unit vectors towards the
 * effector and the target have a dot product above this (0.8 degrees). */
#define TB_CLASSIC_DEAD_ZONE 0.9999f

/* Solves every chain: at most `max_passes` CCD passes, converged when the
 * effector is closer than `threshold` to the target; steps whose dot product
 * exceeds `dead_zone` are skipped (TB_CLASSIC_DEAD_ZONE as in the listing;
 * anything above 1 turns the dead zone off, which makes the baseline
 * converge as crowdik does, at the cost of every step). */
void tb_solve(tb_set *set, float threshold, int max_passes, float dead_zone);

/* The outcome of the last solve of chain `index`. */
void tb_result(const tb_set *set, int index, float *error, int *passes, int *converged);

int tb_count(const tb_set *set);
int tb_joint_count(const tb_set *set);

/* The effector's world position of chain `index` (current pose). */
cik_vec3 tb_effector(const tb_set *set, int index);

#endif
