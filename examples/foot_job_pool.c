/*
 * The crowd's foot-placement frame on an engine's own job system.
 *
 * The same tiny pthreads job pool as job_pool.c (job_pool.h) stands in for the engine's.
 * Each frame is checked once (cik_foot_crowd_frame_plan_init: options, this
 * frame's time, the heightfield) and cut into jobs of whole blocks of
 * CIK_FOOT_RANGE_ALIGNMENT characters, which the workers run with
 * cik_foot_crowd_frame_range: probe, ground, place, solve and align for
 * their characters, on their own thread. The frame time varies from frame
 * to frame (it is an argument, not an option). At the end the example
 * checks that a second crowd, run with one cik_foot_crowd_frame_dt per
 * frame, got the same bits.
 *
 *   foot_job_pool [characters] [frames] [workers]
 */
#include <crowdik/foot.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the engine's job pool (job_pool.h) --------------------------------- */
#include "job_pool.h"

/* --- the crowd ------------------------------------------------------------ */
static cik_limit swing_twist(float twist, float swing)
{
    cik_limit l = {CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -twist, twist, swing};
    return l;
}

/* Two adult legs: -Y down the leg, +X the knee's hinge axis. */
static void make_legs(cik_foot_leg legs[2])
{
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg *l = &legs[side];
        memset(l, 0, sizeof *l);
        l->hip = (cik_vec3){side ? -0.1f : 0.1f, -0.05f, 0.0f};
        l->thigh = (cik_vec3){0.0f, -0.45f, 0.0f};
        l->shin = (cik_vec3){0.0f, -0.42f, 0.0f};
        l->limit[0] = swing_twist(0.6f, 1.5f);
        l->limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
        l->limit[2] = swing_twist(0.35f, 0.7f);
        l->sole_normal = (cik_vec3){0.0f, 1.0f, 0.0f};
        l->ankle_height = 0.06f;
        /* heel, ball and toe on the sole, in the ankle frame */
        l->point[CIK_FOOT_HEEL] = (cik_vec3){0.0f, -0.06f, -0.05f};
        l->point[CIK_FOOT_BALL] = (cik_vec3){0.0f, -0.06f, 0.10f};
        l->point[CIK_FOOT_TOE] = (cik_vec3){0.0f, -0.06f, 0.14f};
    }
}

/* Rolling ground under the crowd. */
enum { GRID = 129 };
static float heights[GRID * GRID];

static cik_heightfield make_ground(void)
{
    for (int iz = 0; iz < GRID; ++iz)
        for (int ix = 0; ix < GRID; ++ix)
            heights[iz * GRID + ix] = 0.15f * sinf(0.4f * (float)ix) * cosf(0.3f * (float)iz);
    cik_heightfield hf = {-32.0f, -32.0f, 0.5f, 0.5f, GRID, GRID, heights};
    return hf;
}

/* This frame's animation: characters walking on a grid, knees bent. */
static void animate(cik_foot_crowd *crowd, int frame)
{
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);
    for (int c = 0; c < s.character_count; ++c) {
        float phase = 0.3f * (float)c + 0.2f * (float)frame;
        s.pelvis_x[c] = -30.0f + 0.8f * (float)(c % 75) + 0.01f * (float)frame;
        s.pelvis_y[c] = 0.92f;
        s.pelvis_z[c] = -30.0f + 0.8f * (float)(c / 75);
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            float hip = 0.3f * sinf(phase + 3.14159f * (float)side), knee = 0.25f;
            float angle[3] = {-hip, knee, hip - knee};
            for (int j = 0; j < 3; ++j) {
                s.pose_x[j][f] = sinf(0.5f * angle[j]);
                s.pose_y[j][f] = s.pose_z[j][f] = 0.0f;
                s.pose_w[j][f] = cosf(0.5f * angle[j]);
            }
            s.weight[f] = sinf(phase + 3.14159f * (float)side) > 0.5f ? 0.0f : 1.0f; /* swing or stance */
        }
    }
}

/* The job: one range of characters, on whichever worker took it. */
static void frame_job(void *context, int begin, int end)
{
    const cik_foot_frame_plan *plan = (const cik_foot_frame_plan *)context;
    cik_status st = cik_foot_crowd_frame_range(plan, begin, end);
    if (st != CIK_OK) fprintf(stderr, "range [%d, %d): %s\n", begin, end, cik_status_string(st));
}

int main(int argc, char **argv)
{
    int characters = argc > 1 ? atoi(argv[1]) : 3000;
    int frames = argc > 2 ? atoi(argv[2]) : 20;
    int workers = argc > 3 ? atoi(argv[3]) : 4;
    if (characters < 1 || frames < 1 || workers < 1) {
        fprintf(stderr, "usage: foot_job_pool [characters] [frames] [workers]\n");
        return 2;
    }
    cik_foot_leg legs[2];
    make_legs(legs);
    cik_foot_crowd *crowd = NULL, *check = NULL;
    if (cik_foot_crowd_create(characters, legs, &crowd) != CIK_OK ||
        cik_foot_crowd_create(characters, legs, &check) != CIK_OK) {
        fprintf(stderr, "foot_job_pool: could not create the crowds\n");
        return 1;
    }
    job_pool pool;
    if (!pool_start(&pool, workers)) {
        fprintf(stderr, "foot_job_pool: no worker threads\n");
        return 1;
    }
    cik_heightfield ground = make_ground();
    cik_foot_options options = cik_foot_default_options();
    /* the animation says which feet stand (the weights animate() writes);
     * without this line the pipeline finds the contacts from the motion */
    options.contacts = CIK_FOOT_CONTACTS_WEIGHTS;
    /* Jobs of 64 characters: range bounds must be multiples of
     * CIK_FOOT_RANGE_ALIGNMENT (the last range may end at the crowd's end). */
    const int grain = 2 * CIK_FOOT_RANGE_ALIGNMENT;
    int same = 1;
    for (int frame = 0; frame < frames; ++frame) {
        /* the engine's frame time: 60 Hz with a slow frame now and then */
        float dt = frame % 7 == 3 ? 1.0f / 24.0f : 1.0f / 60.0f;
        animate(crowd, frame);
        cik_foot_frame_plan plan;
        cik_status st = cik_foot_crowd_frame_plan_init(&plan, crowd, &ground, &options, dt);
        if (st != CIK_OK) {
            fprintf(stderr, "foot_job_pool: %s\n", cik_status_string(st));
            return 1;
        }
        pool_parallel_for(&pool, frame_job, &plan, characters, grain);

        /* the same frame in one call on one thread, for comparison */
        animate(check, frame);
        cik_foot_options one = options;
        one.solver.threads = 1;
        cik_foot_crowd_frame_dt(check, &ground, &one, dt);
        cik_foot_streams a, b;
        cik_foot_crowd_streams(crowd, &a);
        cik_foot_crowd_streams(check, &b);
        size_t bytes = sizeof(float) * (size_t)a.foot_count;
        for (int j = 0; j < 3; ++j)
            same = same && memcmp(a.solved_x[j], b.solved_x[j], bytes) == 0 &&
                   memcmp(a.solved_w[j], b.solved_w[j], bytes) == 0;
        for (int p = 0; p < CIK_FOOT_POINTS; ++p)
            same = same && memcmp(a.point_y[p], b.point_y[p], bytes) == 0;
        same = same && memcmp(a.ankle_y, b.ankle_y, bytes) == 0 && memcmp(a.foot_qw, b.foot_qw, bytes) == 0 &&
               memcmp(a.locked, b.locked, bytes) == 0 &&
               memcmp(a.pelvis_drop, b.pelvis_drop, sizeof(float) * (size_t)a.character_count) == 0;
    }
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);
    float deepest = 0.0f;
    for (int c = 0; c < characters; ++c) deepest = s.pelvis_drop[c] > deepest ? s.pelvis_drop[c] : deepest;
    printf("%d characters, %d frames on %d workers in jobs of %d characters: deepest pelvis drop %.3f m\n",
           characters, frames, pool.workers, grain, deepest);
    printf("bitwise equal to cik_foot_crowd_frame_dt on one thread: %s\n", same ? "yes" : "NO");
    pool_stop(&pool);
    cik_foot_crowd_destroy(crowd);
    cik_foot_crowd_destroy(check);
    return same ? 0 : 1;
}
