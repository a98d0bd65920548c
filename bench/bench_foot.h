/* The foot-placement frame benchmarks (bench_foot.c). */
#ifndef CROWDIK_BENCH_FOOT_H
#define CROWDIK_BENCH_FOOT_H

/* Registers foot/frame for 1,000 and 10,000 characters (quick: 1,000), on
 * one thread and on all threads. */
void bench_foot_register(int quick);

/* Frees what the foot benchmarks keep between runs. */
void bench_foot_cleanup(void);

#endif
