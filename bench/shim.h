/*
 * A C interface to Google Benchmark (1.7 or later), so that crowdik's
 * benchmarks are plain C against the public API.
 *
 * A benchmark is a function `void fn(cikb_state *s)`. It sets up outside the
 * timed loop, then runs the loop in batches: cikb_batch() starts the clock
 * and returns how many iterations to run (0 when the benchmark is done), so
 * the loop itself costs one call per batch rather than one per iteration:
 *
 *     for (int64_t n; (n = cikb_batch(s)) > 0;)
 *         for (int64_t i = 0; i < n; ++i) work();
 *
 * With manual timing (cikb_use_manual_time at registration) the benchmark
 * measures its own time and reports it with cikb_set_iteration_time once per
 * batch; Google Benchmark then uses that time for its statistics, its rate
 * counters and its choice of iteration count.
 *
 * Registration (before cikb_main runs the benchmarks):
 *
 *     cikb_bench *b = cikb_register("legs/avx2", fn, user_pointer);
 *     int64_t args[2] = {16384, 1};
 *     cikb_arg_names(b, names, 2);
 *     cikb_args(b, args, 2);
 *
 * cikb_main parses the command line (Google Benchmark's --benchmark_* flags
 * plus --quick, see below), calls the registration hook and runs.
 */
#ifndef CROWDIK_BENCH_SHIM_H
#define CROWDIK_BENCH_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cikb_state cikb_state; /* one run of a benchmark */
typedef struct cikb_bench cikb_bench; /* a registered benchmark */
typedef void (*cikb_fn)(cikb_state *state);

/* ---- the timed loop ---------------------------------------------------- */

/* Starts the clock on the first call and returns the iteration count of the
 * whole run (Google Benchmark's chosen count) as one batch; returns 0 on the
 * next call, which stops the clock. Call it until it returns 0. */
int64_t cikb_batch(cikb_state *s);

/* Runs in batches of n (the last may overshoot by up to n - 1 iterations,
 * which are counted): 1 while more iterations are wanted, 0 when done. */
int cikb_keep_running_batch(cikb_state *s, int64_t n);

/* Iterations counted so far (after the loop: the total). */
int64_t cikb_iterations(const cikb_state *s);

/* With manual timing: adds `seconds` to the measured time. Call once per
 * batch with the batch's time (or once per iteration). */
void cikb_set_iteration_time(cikb_state *s, double seconds);

/* Excludes work from the automatic timer. About 1.5 us per pair: never per
 * iteration of a short loop. */
void cikb_pause_timing(cikb_state *s);
void cikb_resume_timing(cikb_state *s);

/* Reports an error: the run stops and its result is marked as an error.
 * Call before the loop or leave the loop right after. */
void cikb_skip_with_error(cikb_state *s, const char *message);

/* A label printed next to the result (and stored in the JSON output). */
void cikb_set_label(cikb_state *s, const char *label);

/* ---- arguments --------------------------------------------------------- */

/* The i-th argument of this run (cikb_args at registration). */
int64_t cikb_range(const cikb_state *s, int i);
/* This thread's index and the thread count of a multi-threaded run
 * (cikb_threads at registration). */
int cikb_thread_index(const cikb_state *s);
int cikb_thread_count(const cikb_state *s);
/* The pointer given to cikb_register. */
void *cikb_user(const cikb_state *s);

/* ---- counters ---------------------------------------------------------- */

typedef enum cikb_counter_kind {
    CIKB_PLAIN = 0,       /* reported as given */
    CIKB_RATE = 1,        /* divided by the measured time: per second */
    CIKB_AVERAGE = 2,     /* divided by the iteration count: per iteration */
    CIKB_AVERAGE_RATE = 3,/* divided by both */
    CIKB_INVERSE_RATE = 4 /* time divided by the value: seconds per unit */
} cikb_counter_kind;

/* Sets a user counter (shown as a column, stored in the JSON output). For
 * a rate, `value` is the total over all iterations of the run. */
void cikb_counter(cikb_state *s, const char *name, double value, cikb_counter_kind kind);

/* ---- registration ------------------------------------------------------ */

/* Registers `fn` under `name`; `user` is handed back by cikb_user. The
 * name is copied. Returns a handle for the settings below. */
cikb_bench *cikb_register(const char *name, cikb_fn fn, void *user);
/* Adds one argument tuple (one run per call). */
void cikb_args(cikb_bench *b, const int64_t *args, int count);
/* Names the arguments ("chains" gives "name/chains:4096/..."). */
void cikb_arg_names(cikb_bench *b, const char *const *names, int count);
/* Runs the benchmark in `threads` threads at once (one run per call). */
void cikb_threads(cikb_bench *b, int threads);
/* The benchmark measures its own time (cikb_set_iteration_time). */
void cikb_use_manual_time(cikb_bench *b);
/* Wall-clock time instead of the calling thread's CPU time. */
void cikb_use_real_time(cikb_bench *b);
/* Minimum seconds per run (overrides --benchmark_min_time). */
void cikb_min_time(cikb_bench *b, double seconds);
/* Fixed iteration count. */
void cikb_fixed_iterations(cikb_bench *b, int64_t iterations);
/* Time unit of the report: 'n' ns, 'u' us, 'm' ms, 's' s. */
void cikb_time_unit(cikb_bench *b, char unit);

/* A key/value pair for the report's context (machine, versions). */
void cikb_add_context(const char *key, const char *value);

/* ---- main -------------------------------------------------------------- */

/* Runs the suite. Handles Google Benchmark's flags and --quick: then
 * `register_fn` is called with quick = 1 (register a small matrix) and the
 * minimum time per run becomes 0.01 s; otherwise it is `min_time` seconds
 * (0: Google Benchmark's default); --benchmark_min_time overrides both.
 * --help prints `usage` and Google Benchmark's help. Returns the process
 * exit status. */
int cikb_main(int argc, char **argv, void (*register_fn)(int quick), const char *usage, double min_time);

/* ---- optimisation barriers --------------------------------------------- */

/* Keep `p`'s pointee alive / force pending stores (C equivalents of
 * DoNotOptimize and ClobberMemory). */
static inline void cikb_do_not_optimize(const void *p) { __asm__ __volatile__("" : : "r,m"(p) : "memory"); }
static inline void cikb_clobber_memory(void) { __asm__ __volatile__("" ::: "memory"); }

#ifdef __cplusplus
}
#endif

#endif
