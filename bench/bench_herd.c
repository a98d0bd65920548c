/*
 * The herd frame: cik_herd_frame on a walking herd of quadrupeds (hind legs
 * of four segments, front legs of three) or hexapods (support/creatures.h),
 * over rolling ground with a slope, 1,000 and 10,000 characters, one thread
 * and all threads.
 *
 * Benchmark name: herd/frame/creature:K/characters:N/threads:T/manual_time
 * (K 1 quadruped, 2 hexapod; T as in bench_ccd.c). Each iteration writes
 * the next frame of every character's gait into the herd's input streams
 * (untimed: the animation system's work), then times cik_herd_frame alone.
 *
 * Counters: frame_ms (mean of the timed frames), ns_per_leg, chars_per_s,
 * cpu_frame_ms (threads:1: the calling thread's CPU time per frame),
 * mean_passes and converged (under the threshold) of the last frame's legs.
 */
#include "bench_herd.h"

#include "crowdik/herd.h"
#include "bench_timing.h"
#include "creatures.h"
#include "shim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GRID 401 /* 40 m at 10 cm */

static struct {
    int kind, characters, frame;
    cik_herd *herd;
    cik_herd_streams s;
    creature_gait gait;
    float *heights;
    cik_heightfield hf;
} fx = {0};

void bench_herd_cleanup(void)
{
    cik_herd_destroy(fx.herd);
    if (fx.gait.poses) creature_gait_free(&fx.gait);
    free(fx.heights);
    memset(&fx, 0, sizeof fx);
}

static const char *fixture(int kind, int characters)
{
    if (fx.kind == kind && fx.characters == characters) return NULL;
    bench_herd_cleanup();
    cik_herd_body body;
    creature_body((creature_kind)kind, 1.0f, &body);
    if (creature_gait_build((creature_kind)kind, &body, &fx.gait)) return "the gait could not be built";
    if (cik_herd_create(characters, &body, &fx.herd) != CIK_OK) return "cik_herd_create failed";
    cik_herd_streams_get(fx.herd, &fx.s);
    fx.heights = (float *)malloc(sizeof(float) * GRID * GRID);
    if (!fx.heights) return "out of memory";
    for (int iz = 0; iz < GRID; ++iz)
        for (int ix = 0; ix < GRID; ++ix) {
            float x = -20.0f + 0.1f * (float)ix, z = -20.0f + 0.1f * (float)iz;
            fx.heights[iz * GRID + ix] = 0.08f * z + 0.15f * sinf(0.9f * x) * cosf(0.7f * z);
        }
    cik_heightfield hf = {-20.0f, -20.0f, 0.1f, 0.1f, GRID, GRID, fx.heights};
    fx.hf = hf;
    fx.kind = kind;
    fx.characters = characters;
    return NULL;
}

/* Frame `frame` of every character's gait: characters on a grid over the
 * middle 30 m, each with its own phase and heading, walking over the
 * ground (after 30 s all start again, the herd reset as after a cut). */
static void write_frame(void *ctx)
{
    (void)ctx;
    if (fx.frame == 1800) { /* 30 s: back to the start, as after a cut */
        fx.frame = 0;
        cik_herd_reset(fx.herd);
    }
    const int n = fx.characters, side = (int)ceilf(sqrtf((float)n));
    const float pitch = 30.0f / (float)side, t = (float)fx.frame++ / 60.0f;
    for (int c = 0; c < n; ++c) {
        float tc = t + 0.0137f * (float)(c % 97), yaw = 0.7f * (float)c;
        creature_pose p;
        creature_gait_sample(&fx.gait, tc, &p);
        float travel = fx.gait.speed * tc - 3.0f;
        cik_vec3 at = {-15.0f + pitch * (float)(c % side) + travel * sinf(yaw), 0.0f,
                       -15.0f + pitch * (float)(c / side) + travel * cosf(yaw)};
        cik_heightfield_sample(&fx.hf, at.x, at.z, &at.y, NULL);
        creature_pose_write(&p, &fx.s, c, at, yaw, 0);
    }
}

static int frame_step(void *ctx)
{
    return cik_herd_frame(fx.herd, &fx.hf, (const cik_herd_options *)ctx, 0.0f) != CIK_OK;
}

static void bm_herd(cikb_state *s)
{
    const int kind = (int)cikb_range(s, 0), characters = (int)cikb_range(s, 1);
    const char *why = fixture(kind, characters);
    if (why) {
        cikb_skip_with_error(s, why);
        return;
    }
    cik_herd_options o = cik_herd_default_options();
    o.foot.solver.threads = (int)cikb_range(s, 2);
    for (int i = 0; i < 8; ++i) { /* contacts, locks and springs under way; caches warm */
        write_frame(NULL);
        cik_herd_frame(fx.herd, &fx.hf, &o, 0.0f);
    }
    double seconds = 0.0, cpu_seconds = 0.0;
    const int cpu_clock = o.foot.solver.threads == 1;
    cikb_timed timed = {write_frame, frame_step, &o, cpu_clock};
    if (cikb_run_timed(s, &timed, &seconds, &cpu_seconds)) {
        cikb_skip_with_error(s, "cik_herd_frame refused");
        return;
    }
    const double iterations = (double)cikb_iterations(s), legs = (double)fx.s.foot_count;
    cikb_counter(s, "frame_ms", iterations > 0 ? seconds * 1e3 / iterations : 0.0, CIKB_PLAIN);
    cikb_counter(s, "ns_per_leg", iterations > 0 ? seconds * 1e9 / (iterations * legs) : 0.0, CIKB_PLAIN);
    cikb_counter(s, "chars_per_s", (double)characters * iterations, CIKB_RATE);
    if (cpu_clock && iterations > 0) cikb_counter(s, "cpu_frame_ms", cpu_seconds * 1e3 / iterations, CIKB_PLAIN);
    const float thr = o.foot.solver.threshold * o.foot.units_per_metre;
    double passes = 0.0, converged = 0.0;
    for (int f = 0; f < fx.s.foot_count; ++f) {
        passes += fx.s.passes[f];
        converged += fx.s.error[f] < thr ? 1.0 : 0.0;
    }
    cikb_counter(s, "mean_passes", passes / legs, CIKB_PLAIN);
    cikb_counter(s, "converged", converged / legs, CIKB_PLAIN);
}

static void add(int kind, int characters, int threads)
{
    static const char *const arg_names[] = {"creature", "characters", "threads"};
    int64_t args[3] = {kind, characters, threads};
    cikb_bench *b = cikb_register("herd/frame", bm_herd, NULL);
    cikb_arg_names(b, arg_names, 3);
    cikb_args(b, args, 3);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

/* Level of detail: a tenth of the herd on, every tenth character (lod:1:
 * every chunk runs) or the first tenth (lod:2: a herd ordered by
 * distance), to read beside herd/frame/creature:1/characters:10000. */
static void bm_herd_lod(cikb_state *s)
{
    const int characters = (int)cikb_range(s, 1), pattern = (int)cikb_range(s, 3);
    const char *why = fixture((int)cikb_range(s, 0), characters);
    if (why) {
        cikb_skip_with_error(s, why);
        return;
    }
    for (int c = 0; c < characters; ++c)
        fx.s.enabled[c] = (unsigned char)(pattern == 1 ? c % 10 == 0 : c < characters / 10);
    bm_herd(s);
    memset(fx.s.enabled, 1, (size_t)characters);
}

static void add_lod(int pattern)
{
    static const char *const arg_names[] = {"creature", "characters", "threads", "lod"};
    int64_t args[4] = {CREATURE_QUADRUPED, 10000, 1, pattern};
    cikb_bench *b = cikb_register("herd/frame_lod", bm_herd_lod, NULL);
    cikb_arg_names(b, arg_names, 4);
    cikb_args(b, args, 4);
    cikb_use_manual_time(b);
    cikb_time_unit(b, 'u');
}

void bench_herd_register(int quick)
{
    static const int sizes[] = {1000, 10000};
    for (int kind = CREATURE_QUADRUPED; kind <= CREATURE_HEXAPOD; ++kind)
        for (int z = 0; z < (quick ? 1 : 2); ++z) {
            add(kind, sizes[z], 1);
            add(kind, sizes[z], 0);
        }
    if (!quick)
        for (int pattern = 1; pattern <= 2; ++pattern) add_lod(pattern);
}
