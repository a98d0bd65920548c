/*
 * The foot-placement frame: cik_foot_crowd_frame on a walking crowd
 * (foot_scene.h), 256, 1,000 and 10,000 characters, one thread and all
 * threads.
 *
 * Benchmark name: foot/frame/characters:N/threads:T/manual_time (T as in
 * bench_ccd.c: 1 = options.solver.threads 1, 0 = all). Each iteration copies
 * the next animated frame of the scene's bank into the crowd's input streams
 * (untimed: the animation system's work), then times cik_foot_crowd_frame
 * alone with a monotonic clock (manual time).
 *
 * After the timed loop the same crowd runs STAGE_FRAMES more frames stage by
 * stage (probe, ground, place, solve, align: the staged calls, each over the
 * whole crowd, with the results cik_foot_crowd_frame gives block by block),
 * each stage timed on its own; the median of each stage is reported.
 *
 * Counters (docs/benchmarks.md): chars_per_s, ns_per_char, frame_ms (mean
 * of the timed frames), cpu_ns_per_char (threads:1 only: the calling
 * thread's CPU time, which other processes do not inflate), probe_ms, ground_ms, place_ms, solve_ms, align_ms
 * (stage medians; with threads:1 also probe_cpu_ms ... align_cpu_ms, the
 * medians of the calling thread's CPU time), solve_share (solve_ms over the stages' sum), mean_passes
 * and converged of the last frame's leg solves.
 *
 * foot/frame_lod/characters:10000/threads:1/lod:P: the same frame with a
 * tenth of the characters on (lod:1 every tenth, lod:2 the first tenth),
 * to read beside foot/frame/characters:10000/threads:1.
 *
 * foot/frame_spawn/characters:10000/threads:1: the same frame with one
 * character's legs set again before it (cik_foot_crowd_set_legs, untimed:
 * a character spawned into a running crowd every frame), to read beside
 * foot/frame/characters:10000/threads:1: what a change of legs costs the
 * next frame.
 */
#include "bench_foot.h"

#include "crowdik/foot.h"
#include "foot_scene.h"
#include "bench_timing.h"
#include "shim.h"
#include "workloads.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEED 1u
#define BANK_FRAMES 8
#define STAGE_FRAMES 64

enum { S_PROBE, S_GROUND, S_PLACE, S_SOLVE, S_ALIGN, S_COUNT };
static const char *const stage_counter[S_COUNT] = {"probe_ms", "ground_ms", "place_ms", "solve_ms", "align_ms"};
static const char *const stage_cpu_counter[S_COUNT] = {"probe_cpu_ms", "ground_cpu_ms", "place_cpu_ms", "solve_cpu_ms",
                                                       "align_cpu_ms"};

/* One scene and crowd, rebuilt when the size changes. */
static struct {
    int characters;
    foot_scene scene;
    cik_foot_crowd *crowd;
    cik_foot_streams streams;
    int frame;
    int spawn; /* foot/frame_spawn: a character's legs set before each frame */
} fx = {0};

void bench_foot_cleanup(void)
{
    cik_foot_crowd_destroy(fx.crowd);
    if (fx.characters) foot_scene_free(&fx.scene);
    fx.crowd = NULL;
    fx.characters = 0;
}

static const char *fixture(int characters)
{
    if (fx.characters == characters) return NULL;
    bench_foot_cleanup();
    if (foot_scene_create(characters, BANK_FRAMES, SEED, &fx.scene)) return "out of memory";
    fx.characters = characters;
    if (foot_scene_crowd(&fx.scene, &fx.crowd) != CIK_OK) {
        bench_foot_cleanup();
        return "cik_foot_crowd_create failed";
    }
    cik_foot_crowd_streams(fx.crowd, &fx.streams);
    fx.frame = 0;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The timed step (bench_timing.h): one frame of the scene's next input. */
typedef struct frame_run {
    const cik_heightfield *ground;
    const cik_foot_options *options;
} frame_run;

static void frame_setup(void *ctx)
{
    (void)ctx;
    if (fx.spawn) {
        const int c = (int)((unsigned)fx.frame * 2654435761u % (unsigned)fx.characters);
        cik_foot_crowd_set_legs(fx.crowd, c, &fx.scene.legs[2 * c]);
    }
    foot_scene_write(&fx.scene, fx.frame++, &fx.streams);
}

static int frame_step(void *ctx)
{
    frame_run *r = (frame_run *)ctx;
    return cik_foot_crowd_frame(fx.crowd, r->ground, r->options) != CIK_OK;
}

static void bm_frame(cikb_state *s)
{
    int characters = (int)cikb_range(s, 0);
    const char *why = fixture(characters);
    if (why) {
        cikb_skip_with_error(s, why);
        return;
    }
    cik_foot_options o = cik_foot_default_options();
    o.solver.threads = (int)cikb_range(s, 1);
    const cik_heightfield *hf = &fx.scene.ground;
    /* settle the pelvis smoothing and warm the caches */
    for (int i = 0; i < BANK_FRAMES; ++i) {
        foot_scene_write(&fx.scene, fx.frame++, &fx.streams);
        cik_foot_crowd_frame(fx.crowd, hf, &o);
    }
    double seconds = 0.0, cpu_seconds = 0.0;
    int cpu_clock = o.solver.threads == 1;
    frame_run run = {hf, &o};
    cikb_timed timed = {frame_setup, frame_step, &run, cpu_clock};
    int failed = cikb_run_timed(s, &timed, &seconds, &cpu_seconds);
    if (failed) {
        cikb_skip_with_error(s, "cik_foot_crowd_frame refused");
        return;
    }
    int64_t iterations = cikb_iterations(s);
    double total = (double)characters * (double)iterations;
    cikb_counter(s, "chars_per_s", total, CIKB_RATE);
    cikb_counter(s, "ns_per_char", total > 0 ? seconds * 1e9 / total : 0.0, CIKB_PLAIN);
    cikb_counter(s, "frame_ms", iterations > 0 ? seconds * 1e3 / (double)iterations : 0.0, CIKB_PLAIN);
    if (cpu_clock && total > 0) cikb_counter(s, "cpu_ns_per_char", cpu_seconds * 1e9 / total, CIKB_PLAIN);

    /* the stages one by one, untimed by Google Benchmark */
    static double t[S_COUNT][STAGE_FRAMES], u[S_COUNT][STAGE_FRAMES];
    for (int k = 0; k < STAGE_FRAMES; ++k) {
        foot_scene_write(&fx.scene, fx.frame++, &fx.streams);
        double w[S_COUNT + 1], c[S_COUNT + 1];
        for (int i = 0; i <= S_COUNT; ++i) {
            w[i] = wl_now();
            c[i] = cpu_clock ? cikb_thread_cpu_now() : 0.0;
            if (i == S_PROBE) cik_foot_crowd_probe(fx.crowd, &o);
            else if (i == S_GROUND) cik_foot_crowd_ground_heightfield(fx.crowd, hf, &o);
            else if (i == S_PLACE) cik_foot_crowd_place(fx.crowd, &o);
            else if (i == S_SOLVE) cik_foot_crowd_solve(fx.crowd, &o);
            else if (i == S_ALIGN) cik_foot_crowd_align(fx.crowd, &o);
        }
        for (int i = 0; i < S_COUNT; ++i) {
            t[i][k] = w[i + 1] - w[i];
            u[i][k] = c[i + 1] - c[i];
        }
    }
    double sum = 0.0, median[S_COUNT];
    for (int i = 0; i < S_COUNT; ++i) {
        qsort(t[i], STAGE_FRAMES, sizeof(double), cmp_double);
        median[i] = 0.5 * (t[i][STAGE_FRAMES / 2 - 1] + t[i][STAGE_FRAMES / 2]);
        sum += median[i];
        cikb_counter(s, stage_counter[i], median[i] * 1e3, CIKB_PLAIN);
        if (cpu_clock) {
            qsort(u[i], STAGE_FRAMES, sizeof(double), cmp_double);
            double m = 0.5 * (u[i][STAGE_FRAMES / 2 - 1] + u[i][STAGE_FRAMES / 2]);
            cikb_counter(s, stage_cpu_counter[i], m * 1e3, CIKB_PLAIN);
        }
    }
    cikb_counter(s, "solve_share", sum > 0 ? median[S_SOLVE] / sum : 0.0, CIKB_PLAIN);

    const cik_batch *b = cik_foot_crowd_batch(fx.crowd);
    double passes = 0.0, converged = 0.0;
    for (int f = 0; f < 2 * characters; ++f) {
        cik_result r;
        cik_batch_result(b, f, &r);
        passes += r.iterations;
        converged += (r.flags & CIK_RESULT_CONVERGED) ? 1.0 : 0.0;
    }
    cikb_counter(s, "mean_passes", passes / (2.0 * characters), CIKB_PLAIN);
    cikb_counter(s, "converged", converged / (2.0 * characters), CIKB_PLAIN);
}

static void add(int characters, int threads)
{
    static const char *const arg_names[] = {"characters", "threads"};
    int64_t args[2] = {characters, threads};
    cikb_bench *b = cikb_register("foot/frame", bm_frame, NULL);
    cikb_arg_names(b, arg_names, 2);
    cikb_args(b, args, 2);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

/* Level of detail: the frame with a tenth of the characters on
 * (cik_foot_streams.enabled), every tenth (lod:1, scattered: every group
 * of 16 has one on) or the first tenth (lod:2, a crowd ordered by
 * distance). */
static void bm_frame_lod(cikb_state *s)
{
    const int characters = (int)cikb_range(s, 0), pattern = (int)cikb_range(s, 2);
    const char *why = fixture(characters);
    if (why) {
        cikb_skip_with_error(s, why);
        return;
    }
    for (int c = 0; c < characters; ++c)
        fx.streams.enabled[c] = (unsigned char)(pattern == 1 ? c % 10 == 0 : c < characters / 10);
    bm_frame(s);
    memset(fx.streams.enabled, 1, (size_t)characters);
}

static void add_lod(int characters, int pattern)
{
    static const char *const arg_names[] = {"characters", "threads", "lod"};
    int64_t args[3] = {characters, 1, pattern};
    cikb_bench *b = cikb_register("foot/frame_lod", bm_frame_lod, NULL);
    cikb_arg_names(b, arg_names, 3);
    cikb_args(b, args, 3);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

/* A character's legs set again before every frame (frame_setup). */
static void bm_frame_spawn(cikb_state *s)
{
    fx.spawn = 1;
    bm_frame(s);
    fx.spawn = 0;
}

static void add_spawn(int characters)
{
    static const char *const arg_names[] = {"characters", "threads"};
    int64_t args[2] = {characters, 1};
    cikb_bench *b = cikb_register("foot/frame_spawn", bm_frame_spawn, NULL);
    cikb_arg_names(b, arg_names, 2);
    cikb_args(b, args, 2);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

void bench_foot_register(int quick)
{
    static const int full_sizes[] = {1000, 10000, 256};
    int nsizes = quick ? 1 : 3;
    /* 256: just above the size from which the frame uses threads (crowd.c's
     * PARALLEL_MIN_FEET) */
    for (int z = 0; z < nsizes; ++z) {
        add(full_sizes[z], 1);
        add(full_sizes[z], 0);
    }
    if (!quick) {
        for (int pattern = 1; pattern <= 2; ++pattern) add_lod(10000, pattern);
        add_spawn(10000);
    }
}
