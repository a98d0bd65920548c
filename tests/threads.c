/*
 * The documented-safe concurrency, run on plain threads so that
 * ThreadSanitizer can check it (tools/test.sh builds this without OpenMP:
 * TSan does not know libgomp's synchronisation). One case per run, named on
 * the command line, so that each case makes the first calls of its process:
 *
 *   batches    different batches solved at the same time, each thread's
 *              first solve on AUTO (the dispatch choice made concurrently)
 *   const      const functions on one solved batch at the same time
 *   crowds     different crowds sharing one heightfield, frames at the
 *              same time
 *   create     crowds created at the same time (the first AUTO choice)
 *   herd       one herd's frame run as ranges of its plan on every thread
 *
 * Each case also checks its results: a thread's solve equals the same
 * solve on the main thread afterwards. Exit 0 when every check holds.
 */
#include <crowdik/crowdik.h>
#include <crowdik/foot.h>
#include <crowdik/herd.h>

#include "workloads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define CHAINS 300

static pthread_barrier_t start;
static int failures;
static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what, int t)
{
    pthread_mutex_lock(&fail_lock);
    ++failures;
    fprintf(stderr, "threads: %s (thread %d)\n", what, t);
    pthread_mutex_unlock(&fail_lock);
}

/* Every rotation and result of a batch, in one buffer, for comparison. */
static size_t snapshot(const cik_batch *b, float *out)
{
    size_t k = 0;
    for (int i = 0; i < cik_batch_chain_count(b); ++i) {
        for (int j = 0; j < cik_batch_joint_count(b); ++j) {
            cik_quat q;
            cik_batch_get_rotation(b, i, j, &q);
            memcpy(out + k, &q, sizeof q);
            k += 4;
        }
        cik_result r;
        cik_batch_result(b, i, &r);
        memcpy(out + k, &r, sizeof r);
        k += sizeof r / sizeof(float);
    }
    return k;
}

static float *alloc_snapshot(void)
{
    float *p = calloc((size_t)CHAINS * (4 * CIK_MAX_JOINTS + 4), sizeof(float));
    if (!p) abort();
    return p;
}

/* ---- batches: each thread its own batch, first solve on AUTO ---------- */

typedef struct batch_job {
    int t;
    cik_batch *b;
} batch_job;

static void *solve_own(void *arg)
{
    batch_job *job = arg;
    cik_options o = cik_default_options(); /* AUTO */
    o.threads = 1;
    pthread_barrier_wait(&start);
    if (cik_solve(job->b, &o) != CIK_OK) fail("cik_solve refused", job->t);
    return NULL;
}

static void case_batches(void)
{
    pthread_t th[THREADS];
    batch_job jobs[THREADS];
    for (int t = 0; t < THREADS; ++t) {
        jobs[t].t = t;
        if (cik_batch_create(CHAINS, 6, &jobs[t].b) != CIK_OK) abort();
        if (wl_fill(jobs[t].b, WL_RANDOM, 40 + (uint64_t)t, 0) != CIK_OK) abort();
        pthread_create(&th[t], NULL, solve_own, &jobs[t]);
    }
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    float *got = alloc_snapshot(), *want = alloc_snapshot();
    for (int t = 0; t < THREADS; ++t) {
        size_t n = snapshot(jobs[t].b, got);
        cik_batch *again = NULL;
        cik_batch_create(CHAINS, 6, &again);
        wl_fill(again, WL_RANDOM, 40 + (uint64_t)t, 0);
        cik_options o = cik_default_options();
        o.threads = 1;
        cik_solve(again, &o);
        if (snapshot(again, want) != n || memcmp(got, want, n * sizeof(float)) != 0)
            fail("a concurrent solve differs from the same solve alone", t);
        cik_batch_destroy(again);
        cik_batch_destroy(jobs[t].b);
    }
    free(got);
    free(want);
}

/* ---- const: const functions on one batch ------------------------------- */

static const cik_batch *shared_batch;

static void *read_shared(void *arg)
{
    int t = (int)(size_t)arg;
    pthread_barrier_wait(&start);
    for (int rep = 0; rep < 3; ++rep) {
        for (int i = 0; i < cik_batch_chain_count(shared_batch); ++i) {
            cik_chain c;
            cik_result r;
            cik_vec3 p[CIK_MAX_JOINTS], e;
            cik_quat q;
            if (cik_batch_get_chain(shared_batch, i, &c) != CIK_OK ||
                cik_batch_result(shared_batch, i, &r) != CIK_OK ||
                cik_batch_forward(shared_batch, i, p, &e) != CIK_OK ||
                cik_batch_get_rotation(shared_batch, i, 0, &q) != CIK_OK) {
                fail("a const query refused", t);
                return NULL;
            }
            cik_vec3 e2;
            if (cik_chain_forward(&c, NULL, &e2) != CIK_OK || memcmp(&e, &e2, sizeof e) != 0)
                fail("cik_chain_forward disagrees with cik_batch_forward", t);
        }
        if (cik_batch_memory_bytes(shared_batch) == 0) fail("no memory reported", t);
    }
    return NULL;
}

static void case_const(void)
{
    cik_batch *b = NULL;
    if (cik_batch_create(CHAINS, 5, &b) != CIK_OK || wl_fill(b, WL_RANDOM, 7, 0) != CIK_OK) abort();
    cik_options o = cik_default_options();
    o.threads = 1;
    if (cik_solve(b, &o) != CIK_OK) abort();
    shared_batch = b;
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; ++t) pthread_create(&th[t], NULL, read_shared, (void *)(size_t)t);
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    cik_batch_destroy(b);
}

/* ---- crowds: different crowds, one heightfield; crowds created together - */

enum { HF_N = 40 };
static float heights[HF_N * HF_N];
static cik_heightfield ground;
static cik_foot_leg legs[2];

static void make_scene(void)
{
    for (int z = 0; z < HF_N; ++z)
        for (int x = 0; x < HF_N; ++x) heights[z * HF_N + x] = 0.05f * (float)((x * 7 + z * 3) % 5) - 0.1f;
    ground.origin_x = ground.origin_z = -10.0f;
    ground.spacing_x = ground.spacing_z = 0.5f;
    ground.count_x = ground.count_z = HF_N;
    ground.heights = heights;
    memset(legs, 0, sizeof legs);
    for (int s = 0; s < 2; ++s) {
        legs[s].hip.x = s ? -0.1f : 0.1f;
        legs[s].hip.y = -0.05f;
        legs[s].thigh.y = -0.45f;
        legs[s].shin.y = -0.42f;
        legs[s].limit[1].type = CIK_LIMIT_HINGE;
        legs[s].limit[1].axis.x = 1.0f;
        legs[s].limit[1].min_angle = 0.0f;
        legs[s].limit[1].max_angle = 2.6f;
        legs[s].sole_normal.y = 1.0f;
        legs[s].ankle_height = 0.06f;
        legs[s].point[CIK_FOOT_HEEL] = (cik_vec3){0.0f, -0.06f, -0.05f};
        legs[s].point[CIK_FOOT_BALL] = (cik_vec3){0.0f, -0.06f, 0.10f};
        legs[s].point[CIK_FOOT_TOE] = (cik_vec3){0.0f, -0.06f, 0.14f};
    }
}

/* Writes an animated pose into a crowd: pelvis above the ground, a bent
 * knee; the same every frame of a seed, so that the contacts from the
 * animation plant and lock the feet from the second frame on (the state a
 * crowd carries across frames takes part). */
static void pose(cik_foot_crowd *cr, int seed)
{
    cik_foot_streams s;
    cik_foot_crowd_streams(cr, &s);
    for (int c = 0; c < s.character_count; ++c) {
        s.pelvis_x[c] = -8.0f + 0.7f * (float)(c % 20) + 0.01f * (float)seed;
        s.pelvis_y[c] = 0.9f;
        s.pelvis_z[c] = -8.0f + 0.7f * (float)(c / 20);
        s.pelvis_qx[c] = s.pelvis_qy[c] = s.pelvis_qz[c] = 0.0f;
        s.pelvis_qw[c] = 1.0f;
    }
    for (int f = 0; f < s.foot_count; ++f) {
        for (int j = 0; j < 3; ++j) {
            s.pose_x[j][f] = j == 1 ? 0.2588190f : 0.0f; /* knee bent 30 degrees */
            s.pose_y[j][f] = s.pose_z[j][f] = 0.0f;
            s.pose_w[j][f] = j == 1 ? 0.9659258f : 1.0f;
        }
        s.weight[f] = 1.0f;
    }
}

typedef struct crowd_job {
    int t;
    cik_foot_crowd *cr;
} crowd_job;

static void *frames_own(void *arg)
{
    crowd_job *job = arg;
    cik_foot_options o = cik_foot_default_options();
    o.solver.threads = 1;
    pthread_barrier_wait(&start);
    for (int k = 0; k < 3; ++k) {
        pose(job->cr, job->t);
        if (cik_foot_crowd_frame(job->cr, &ground, &o) != CIK_OK) fail("a frame refused", job->t);
        float y;
        cik_vec3 n;
        if (cik_heightfield_sample(&ground, 0.3f * (float)job->t, 1.0f, &y, &n) != CIK_OK)
            fail("a sample refused", job->t);
    }
    return NULL;
}

static void *create_own(void *arg)
{
    crowd_job *job = arg;
    pthread_barrier_wait(&start);
    if (cik_foot_crowd_create(50, legs, &job->cr) != CIK_OK) fail("a crowd refused", job->t);
    return NULL;
}

static void case_crowds(int create_together)
{
    make_scene();
    pthread_t th[THREADS];
    crowd_job jobs[THREADS];
    for (int t = 0; t < THREADS; ++t) {
        jobs[t].t = t;
        jobs[t].cr = NULL;
        if (!create_together && cik_foot_crowd_create(50, legs, &jobs[t].cr) != CIK_OK) abort();
        pthread_create(&th[t], NULL, create_together ? create_own : frames_own, &jobs[t]);
    }
    for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
    for (int t = 0; t < THREADS; ++t) {
        if (!jobs[t].cr) continue;
        if (!create_together) {
            /* the same frames again on the main thread: the same feet */
            cik_foot_crowd *again = NULL;
            cik_foot_crowd_create(50, legs, &again);
            cik_foot_options o = cik_foot_default_options();
            o.solver.threads = 1;
            for (int k = 0; k < 3; ++k) {
                pose(again, t);
                cik_foot_crowd_frame(again, &ground, &o);
            }
            cik_foot_streams a, b;
            cik_foot_crowd_streams(jobs[t].cr, &a);
            cik_foot_crowd_streams(again, &b);
            const size_t bytes = sizeof(float) * (size_t)a.foot_count;
            if (memcmp(a.ankle_y, b.ankle_y, bytes) != 0 || memcmp(a.solved_w[1], b.solved_w[1], bytes) != 0 ||
                memcmp(a.weight, b.weight, bytes) != 0 || memcmp(a.locked, b.locked, bytes) != 0 ||
                memcmp(a.point_y[CIK_FOOT_TOE], b.point_y[CIK_FOOT_TOE], bytes) != 0)
                fail("concurrent frames differ from the same frames alone", t);
            /* the feet planted and locked (the carried state was used) */
            for (int f = 0; f < a.foot_count; ++f)
                if (a.locked[f] != 1.0f) fail("a foot of a still pose is not locked", t);
            cik_foot_crowd_destroy(again);
        }
        cik_foot_crowd_destroy(jobs[t].cr);
    }
}

/* ---- herd: one herd, its frame's ranges on every thread at once ------ */

enum { HERD_CHARS = 5 * CIK_HERD_RANGE_ALIGNMENT - 10 }; /* five ranges, a short last one */

static cik_herd *make_herd(void)
{
    cik_herd_body b;
    memset(&b, 0, sizeof b);
    b.leg_count = 4;
    b.forward.z = 1.0f;
    for (int l = 0; l < 4; ++l) {
        b.leg[l].root = l < 2 ? CIK_HERD_PELVIS : CIK_HERD_CHEST;
        b.leg[l].segment_count = l < 2 ? 4 : 3;
        b.leg[l].hip.x = l % 2 ? -0.2f : 0.2f;
        for (int s = 0; s < b.leg[l].segment_count; ++s) {
            b.leg[l].segment[s].y = -0.9f / (float)b.leg[l].segment_count;
            b.leg[l].segment[s].z = s == 1 ? 0.05f : 0.0f;
        }
        b.leg[l].limit[1].type = CIK_LIMIT_HINGE;
        b.leg[l].limit[1].axis.x = 1.0f;
        b.leg[l].limit[1].min_angle = -1.5f;
        b.leg[l].limit[1].max_angle = 1.5f;
    }
    cik_herd *h = NULL;
    if (cik_herd_create(HERD_CHARS, &b, &h) != CIK_OK) abort();
    return h;
}

static void herd_pose(cik_herd *h, int frame)
{
    cik_herd_streams s;
    cik_herd_streams_get(h, &s);
    for (int c = 0; c < s.character_count; ++c)
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
            s.root_x[r][c] = -8.0f + 0.8f * (float)(c % 20) + 0.002f * (float)frame;
            s.root_y[r][c] = 0.85f;
            s.root_z[r][c] = -8.0f + 1.6f * (float)(c / 20) + (r ? 0.5f : -0.5f);
            s.root_qx[r][c] = s.root_qy[r][c] = s.root_qz[r][c] = 0.0f;
            s.root_qw[r][c] = 1.0f;
        }
}

typedef struct herd_job {
    int t;
    const cik_herd_frame_plan *plan;
} herd_job;

static void *herd_ranges(void *arg)
{
    herd_job *job = arg;
    pthread_barrier_wait(&start);
    for (int b = job->t * CIK_HERD_RANGE_ALIGNMENT; b < HERD_CHARS; b += THREADS * CIK_HERD_RANGE_ALIGNMENT) {
        int e = b + CIK_HERD_RANGE_ALIGNMENT < HERD_CHARS ? b + CIK_HERD_RANGE_ALIGNMENT : HERD_CHARS;
        if (cik_herd_frame_range(job->plan, b, e) != CIK_OK) fail("a herd range refused", job->t);
    }
    return NULL;
}

static void case_herd(void)
{
    make_scene();
    cik_herd *h = make_herd(), *alone = make_herd();
    cik_herd_options o = cik_herd_default_options();
    o.foot.solver.threads = 1;
    for (int frame = 0; frame < 3; ++frame) {
        herd_pose(h, frame);
        herd_pose(alone, frame);
        cik_herd_frame_plan plan;
        if (cik_herd_frame_plan_init(&plan, h, &ground, &o, 0.0f) != CIK_OK) fail("the herd's plan refused", 0);
        pthread_t th[THREADS];
        herd_job jobs[THREADS];
        for (int t = 0; t < THREADS; ++t) {
            jobs[t].t = t;
            jobs[t].plan = &plan;
            pthread_create(&th[t], NULL, herd_ranges, &jobs[t]);
        }
        for (int t = 0; t < THREADS; ++t) pthread_join(th[t], NULL);
        if (cik_herd_frame(alone, &ground, &o, 0.0f) != CIK_OK) fail("the herd's frame refused", 0);
    }
    cik_herd_streams a, b;
    cik_herd_streams_get(h, &a);
    cik_herd_streams_get(alone, &b);
    const size_t bytes = sizeof(float) * (size_t)a.foot_count;
    if (memcmp(a.foot_y, b.foot_y, bytes) != 0 || memcmp(a.solved_w[1], b.solved_w[1], bytes) != 0 ||
        memcmp(a.locked, b.locked, bytes) != 0 ||
        memcmp(a.body_height, b.body_height, sizeof(float) * (size_t)a.character_count) != 0)
        fail("the herd's ranges on threads differ from its frame", 0);
    for (int f = 0; f < a.foot_count; ++f)
        if (a.locked[f] != 1.0f) fail("a herd foot of a still pose is not locked", 0);
    cik_herd_destroy(h);
    cik_herd_destroy(alone);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s batches|const|crowds|create|herd\n", argv[0]);
        return 2;
    }
    pthread_barrier_init(&start, NULL, THREADS);
    if (!strcmp(argv[1], "batches")) case_batches();
    else if (!strcmp(argv[1], "const")) case_const();
    else if (!strcmp(argv[1], "crowds")) case_crowds(0);
    else if (!strcmp(argv[1], "create")) case_crowds(1);
    else if (!strcmp(argv[1], "herd")) case_herd();
    else {
        fprintf(stderr, "threads: unknown case %s\n", argv[1]);
        return 2;
    }
    pthread_barrier_destroy(&start);
    if (failures) return 1;
    printf("threads %s: %d threads, every check held\n", argv[1], THREADS);
    return 0;
}
