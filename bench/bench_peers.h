/* The engine baselines' benchmarks (bench_peers.c). */
#ifndef CROWDIK_BENCH_PEERS_H
#define CROWDIK_BENCH_PEERS_H

/* Registers three.js's and Godot's CCD on the CCD workloads, ozz's two-bone
 * IK and crowdik on the legs with the ankle as effector (quick: small
 * batches only). */
void bench_peers_register(int quick);

/* Frees what the baselines keep between runs. */
void bench_peers_cleanup(void);

#endif
