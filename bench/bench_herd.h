/* The herd frame benchmarks (bench_herd.c). */
#ifndef CROWDIK_BENCH_HERD_H
#define CROWDIK_BENCH_HERD_H

/* Registers herd/frame for quadrupeds and hexapods, 1,000 and 10,000
 * characters (quick: 1,000), on one thread and on all threads. */
void bench_herd_register(int quick);

/* Frees what the herd benchmarks keep between runs. */
void bench_herd_cleanup(void);

#endif
