/*
 * crowdik_roofline: a small driver for instruction counts under callgrind
 * (docs/roofline.md). It does one kind of work a fixed number of times and
 * nothing else worth counting, so that `--toggle-collect` on the function
 * of interest gives its instructions per leg (or per character) exactly.
 *
 *   crowdik_roofline WORKLOAD BACKEND MODE CHAINS REPS
 *       WORKLOAD: legs, spine, tail (the benchmark's) or hard (6-joint
 *       random chains with far targets and folded starts: support/
 *       workloads.h). MODE: "default" (cik_default_options: on legs limb
 *       mode, one pass), "last" (the defaults with ccd.keep_best 0: each
 *       chain ends on its last pose) or "plain" (every convergence option
 *       zero, 10 passes). Before each solve the start pose is restored
 *       from a copy (cik_batch_streams), as crowdik_bench does; only
 *       cik_solve is the work.
 *   crowdik_roofline foot BACKEND CHARACTERS FRAMES [ON_EVERY]
 *       the walking crowd of bench/foot_scene.h, FRAMES frames after 8
 *       settling ones, stage by stage (cik_foot_crowd_probe, _ground_
 *       heightfield, _place, _solve, _align), one thread; with ON_EVERY,
 *       only every ON_EVERY-th character on (level of detail, from the
 *       first frame).
 *   crowdik_roofline peak SECONDS
 *       the FMA ceiling, one thread: 12 independent chains of AVX-512 (and
 *       of AVX2) FMAs, GFLOP/s (an FMA 2 flops a lane), the best of
 *       repeated runs over SECONDS; AVX2 alone on a CPU without AVX-512.
 *   crowdik_roofline bandwidth BYTES SECONDS
 *       streaming bandwidth (GB/s) over a BYTES buffer, one thread: a read
 *       pass (64-byte loads, XOR-reduced; 32-byte without AVX-512) and a
 *       read-modify-write pass,
 *       the best of repeated passes over SECONDS; a BYTES of 1 MB stays in
 *       L2, 256 MB goes to memory.
 *   crowdik_roofline bandwidth BYTES SECONDS STREAMS
 *       the same over STREAMS streams side by side in the buffer, a block
 *       of BLOCK_FLOATS (256: the foot frame's 128 characters, two feet)
 *       of every stream after the other, as the foot frame's blocks read
 *       and write their streams (docs/roofline.md).
 *
 * BACKEND is a cik_backend_name() (scalar, sse4.1, avx2, avx512) or auto.
 * Prints the work done, so that counts can be divided by it. Example:
 *   valgrind --tool=callgrind --toggle-collect=cik_solve \
 *       crowdik_roofline legs avx2 default 4096 4
 */
#include "crowdik/crowdik.h"
#include "crowdik/foot.h"
#include "foot_scene.h"
#include "workloads.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static int backend_by_name(const char *name, cik_backend *out)
{
    if (strcmp(name, "auto") == 0) {
        *out = CIK_BACKEND_AUTO;
        return 0;
    }
    for (int b = 0; b < CIK_BACKEND_COUNT; ++b)
        if (cik_backend_name((cik_backend)b) && strcmp(cik_backend_name((cik_backend)b), name) == 0) {
            *out = (cik_backend)b;
            return 0;
        }
    return -1;
}

static void usage(void)
{
    fprintf(stderr, "usage: crowdik_roofline legs|spine|tail|hard BACKEND default|last|plain CHAINS REPS\n"
                    "       crowdik_roofline foot BACKEND CHARACTERS FRAMES [ON_EVERY]\n"
                    "       crowdik_roofline peak SECONDS\n"
                    "       crowdik_roofline bandwidth BYTES SECONDS [STREAMS]\n");
}

static int run_chains(const char *workload, cik_backend backend, const char *mode, int chains, int reps)
{
    int plain = strcmp(mode, "plain") == 0, last = strcmp(mode, "last") == 0;
    if (!plain && !last && strcmp(mode, "default") != 0) {
        usage();
        return 2;
    }
    wl_kind kind;
    int joints = 0;
    if (strcmp(workload, "legs") == 0)
        kind = WL_LEGS;
    else if (strcmp(workload, "spine") == 0)
        kind = WL_SPINE;
    else if (strcmp(workload, "tail") == 0)
        kind = WL_TAIL;
    else if (strcmp(workload, "hard") == 0) {
        kind = WL_RANDOM_HARD;
        joints = 6;
    } else {
        usage();
        return 2;
    }
    /* as crowdik_bench: threshold 1 mm, at most 10 passes, one thread */
    cik_options o = plain ? cik_plain_options() : cik_default_options();
    if (last) o.ccd.keep_best = 0;
    o.max_iterations = 10;
    o.threshold = 1e-3f;
    o.threads = 1;
    o.backend = backend;
    cik_batch *b = NULL;
    if (cik_batch_create(chains, wl_joint_count(kind, joints), &b) != CIK_OK || wl_fill(b, kind, 1, 0) != CIK_OK) {
        fprintf(stderr, "crowdik_roofline: cannot build the %s batch\n", workload);
        cik_batch_destroy(b);
        return 1;
    }
    cik_streams st;
    cik_batch_streams(b, &st);
    const size_t n = (size_t)chains;
    float *start = malloc(sizeof(float) * 4 * (size_t)st.joint_count * n);
    float *scratch = malloc(sizeof(float) * n);
    if (!start || !scratch) return 1;
    for (int j = 0; j < st.joint_count; ++j) {
        float *stream[4] = {st.rotation_x[j], st.rotation_y[j], st.rotation_z[j], st.rotation_w[j]};
        for (int c = 0; c < 4; ++c) memcpy(start + (4 * (size_t)j + (size_t)c) * n, stream[c], sizeof(float) * n);
    }
    for (int r = 0; r < reps; ++r) {
        for (int j = 0; j < st.joint_count; ++j) {
            float *stream[4] = {st.rotation_x[j], st.rotation_y[j], st.rotation_z[j], st.rotation_w[j]};
            for (int c = 0; c < 4; ++c) memcpy(stream[c], start + (4 * (size_t)j + (size_t)c) * n, sizeof(float) * n);
        }
        cik_status s = cik_solve(b, &o);
        if (s != CIK_OK) {
            fprintf(stderr, "crowdik_roofline: cik_solve: %s\n", cik_status_string(s));
            return 1;
        }
    }
    wl_stats ws;
    wl_collect(b, &ws, scratch);
    printf("%s %s %s: %d chains x %d solves = %d chain solves, mean passes %.3f, converged %d, error p50 %.4g p99 %.4g\n",
           workload, cik_backend_name(backend == CIK_BACKEND_AUTO ? cik_backend_best() : backend), mode, chains,
           reps, chains * reps, ws.mean_passes, ws.converged, (double)ws.error_p50, (double)ws.error_p99);
    free(scratch);
    free(start);
    cik_batch_destroy(b);
    return 0;
}

static int run_foot(cik_backend backend, int characters, int frames, int on_every)
{
    foot_scene sc;
    if (foot_scene_create(characters, 64, 1, &sc)) return 1;
    cik_foot_crowd *crowd = NULL;
    if (foot_scene_crowd(&sc, &crowd) != CIK_OK) return 1;
    cik_foot_streams fs;
    cik_foot_crowd_streams(crowd, &fs);
    for (int c = 0; c < characters; ++c) fs.enabled[c] = c % on_every == 0;
    cik_foot_options o = cik_foot_default_options();
    o.solver.threads = 1;
    o.solver.backend = backend;
    int frame = 0;
    for (int i = 0; i < 8; ++i) {
        foot_scene_write(&sc, frame++, &fs);
        if (cik_foot_crowd_frame(crowd, &sc.ground, &o) != CIK_OK) return 1;
    }
    for (int k = 0; k < frames; ++k) {
        foot_scene_write(&sc, frame++, &fs);
        cik_foot_crowd_probe(crowd, &o);
        cik_foot_crowd_ground_heightfield(crowd, &sc.ground, &o);
        cik_foot_crowd_place(crowd, &o);
        cik_foot_crowd_solve(crowd, &o);
        cik_foot_crowd_align(crowd, &o);
    }
    printf("foot %s: %d characters x %d frames = %d character frames\n",
           cik_backend_name(backend == CIK_BACKEND_AUTO ? cik_backend_best() : backend), characters, frames,
           characters * frames);
    cik_foot_crowd_destroy(crowd);
    foot_scene_free(&sc);
    return 0;
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static uint64_t read_pass_avx512(const float *p, size_t n)
{
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    for (size_t i = 0; i < n; i += 32) {
        acc0 = _mm512_xor_si512(acc0, _mm512_load_si512((const void *)(p + i)));
        acc1 = _mm512_xor_si512(acc1, _mm512_load_si512((const void *)(p + i + 16)));
    }
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_xor_si512(acc0, acc1));
}
__attribute__((target("avx512f"))) static void update_pass_avx512(float *p, size_t n)
{
    const __m512 one = _mm512_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 16) _mm512_store_ps(p + i, _mm512_add_ps(_mm512_load_ps(p + i), one));
}
/* the same passes with 32-byte loads, on a CPU without AVX-512 */
__attribute__((target("avx2"))) static uint64_t read_pass_avx2(const float *p, size_t n)
{
    __m256i acc0 = _mm256_setzero_si256(), acc1 = _mm256_setzero_si256();
    for (size_t i = 0; i < n; i += 16) {
        acc0 = _mm256_xor_si256(acc0, _mm256_load_si256((const __m256i *)(const void *)(p + i)));
        acc1 = _mm256_xor_si256(acc1, _mm256_load_si256((const __m256i *)(const void *)(p + i + 8)));
    }
    acc0 = _mm256_xor_si256(acc0, acc1);
    uint64_t o[4];
    _mm256_storeu_si256((__m256i *)(void *)o, acc0);
    return o[0] + o[1] + o[2] + o[3];
}
__attribute__((target("avx2"))) static void update_pass_avx2(float *p, size_t n)
{
    const __m256 one = _mm256_set1_ps(1.0f);
    for (size_t i = 0; i < n; i += 8) _mm256_store_ps(p + i, _mm256_add_ps(_mm256_load_ps(p + i), one));
}
#endif

#if defined(__x86_64__)
#define PEAK_ROUNDS 100000
#define PEAK_CHAINS 12
__attribute__((target("avx512f"))) static float peak_avx512(float x)
{
    __m512 a[PEAK_CHAINS], m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_CHAINS; ++k) a[k] = _mm512_set1_ps(x + (float)k);
    for (int r = 0; r < PEAK_ROUNDS; ++r)
        for (int k = 0; k < PEAK_CHAINS; ++k) a[k] = _mm512_fmadd_ps(a[k], m, c);
    __m512 s = a[0];
    for (int k = 1; k < PEAK_CHAINS; ++k) s = _mm512_add_ps(s, a[k]);
    return _mm512_reduce_add_ps(s);
}
__attribute__((target("avx2,fma"))) static float peak_avx2(float x)
{
    __m256 a[PEAK_CHAINS], m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    for (int k = 0; k < PEAK_CHAINS; ++k) a[k] = _mm256_set1_ps(x + (float)k);
    for (int r = 0; r < PEAK_ROUNDS; ++r)
        for (int k = 0; k < PEAK_CHAINS; ++k) a[k] = _mm256_fmadd_ps(a[k], m, c);
    __m256 s = a[0];
    for (int k = 1; k < PEAK_CHAINS; ++k) s = _mm256_add_ps(s, a[k]);
    float o[8];
    _mm256_storeu_ps(o, s);
    return o[0] + o[7];
}
#endif

static int run_peak(double seconds)
{
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        fprintf(stderr, "crowdik_roofline peak: needs AVX2 and FMA\n");
        return 1;
    }
    /* AVX-512 where the CPU has it; AVX2 alone otherwise */
    const int has512 = __builtin_cpu_supports("avx512f");
    double best512 = 1e30, best256 = 1e30;
    float sink = 0.0f;
    for (double start = wl_now(); wl_now() - start < seconds;) {
        double t0 = wl_now();
        if (has512) sink += peak_avx512(sink);
        double t1 = wl_now();
        sink += peak_avx2(sink);
        double t2 = wl_now();
        if (t1 - t0 < best512) best512 = t1 - t0;
        if (t2 - t1 < best256) best256 = t2 - t1;
    }
    const double fmas = (double)PEAK_ROUNDS * PEAK_CHAINS;
    if (has512)
        printf("peak: AVX-512 FMA %.1f GFLOP/s, AVX2 FMA %.1f GFLOP/s (one thread) [%g]\n", fmas * 32.0 / best512 * 1e-9,
               fmas * 16.0 / best256 * 1e-9, (double)(sink != sink));
    else
        printf("peak: AVX2 FMA %.1f GFLOP/s (one thread; no AVX-512 on this CPU) [%g]\n", fmas * 16.0 / best256 * 1e-9,
               (double)(sink != sink));
    return 0;
#else
    (void)seconds;
    fprintf(stderr, "crowdik_roofline peak: x86-64 only\n");
    return 1;
#endif
}

/* The foot frame's block: 128 characters' two feet. */
#define BLOCK_FLOATS 256

static int run_bandwidth(size_t bytes, double seconds, int streams)
{
#if defined(__x86_64__)
    if (!__builtin_cpu_supports("avx2")) {
        fprintf(stderr, "crowdik_roofline bandwidth: needs AVX2\n");
        return 1;
    }
    /* 64-byte loads and stores where the CPU has AVX-512, else 32-byte */
    const int has512 = __builtin_cpu_supports("avx512f");
    /* whole blocks of every stream (main refuses STREAMS < 1) */
    const size_t per = bytes / sizeof(float) / (size_t)streams / BLOCK_FLOATS * BLOCK_FLOATS;
    size_t n = streams > 1 ? per * (size_t)streams : bytes / sizeof(float) / 32 * 32;
    float *p = n ? aligned_alloc(64, n * sizeof(float)) : NULL;
    if (!p) return 1;
    for (size_t i = 0; i < n; ++i) p[i] = (float)i;
    /* one stream: the whole buffer at once; streams: block by block */
    const size_t step = streams > 1 ? BLOCK_FLOATS : n, count = streams > 1 ? per : n;
    double best_read = 1e30, best_update = 1e30;
    uint64_t sink = 0;
    for (double start = wl_now(); wl_now() - start < seconds;) {
        double t0 = wl_now();
        for (size_t b = 0; b < count; b += step)
            for (int k = 0; k < streams; ++k)
                sink ^= has512 ? read_pass_avx512(p + (size_t)k * count + b, step)
                               : read_pass_avx2(p + (size_t)k * count + b, step);
        double t1 = wl_now();
        for (size_t b = 0; b < count; b += step)
            for (int k = 0; k < streams; ++k) {
                if (has512)
                    update_pass_avx512(p + (size_t)k * count + b, step);
                else
                    update_pass_avx2(p + (size_t)k * count + b, step);
            }
        double t2 = wl_now();
        if (t1 - t0 < best_read) best_read = t1 - t0;
        if (t2 - t1 < best_update) best_update = t2 - t1;
    }
    const double b = (double)(n * sizeof(float));
    printf("bandwidth %zu bytes (%s, %d stream%s): read %.1f GB/s (%.3f ms), read+write %.1f GB/s (bytes read plus "
           "written; %.3f ms) [%llu]\n",
           n * sizeof(float), has512 ? "AVX-512" : "AVX2", streams, streams > 1 ? "s" : "", b / best_read * 1e-9,
           best_read * 1e3, 2.0 * b / best_update * 1e-9, best_update * 1e3, (unsigned long long)(sink & 1));
    free(p);
    return 0;
#else
    (void)bytes;
    (void)seconds;
    (void)streams;
    fprintf(stderr, "crowdik_roofline bandwidth: x86-64 only\n");
    return 1;
#endif
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "peak") == 0) return run_peak(atof(argv[2]));
    if ((argc == 4 || argc == 5) && strcmp(argv[1], "bandwidth") == 0) {
        const int streams = argc == 5 ? atoi(argv[4]) : 1;
        if (streams < 1) {
            usage();
            return 2;
        }
        return run_bandwidth((size_t)strtoull(argv[2], NULL, 10), atof(argv[3]), streams);
    }
    cik_backend backend;
    if (argc < 5 || backend_by_name(argv[2], &backend)) {
        usage();
        return 2;
    }
    if (strcmp(argv[1], "foot") != 0 && argc == 6) return run_chains(argv[1], backend, argv[3], atoi(argv[4]), atoi(argv[5]));
    if (strcmp(argv[1], "foot") == 0 && (argc == 5 || (argc == 6 && atoi(argv[5]) >= 1)))
        return run_foot(backend, atoi(argv[3]), atoi(argv[4]), argc == 6 ? atoi(argv[5]) : 1);
    usage();
    return 2;
}
