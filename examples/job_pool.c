/*
 * crowdik on an engine's own job system instead of OpenMP.
 *
 * A tiny pthreads job pool stands in for the engine's: a fixed set of
 * workers that take jobs from a queue, and a "parallel for" that cuts an
 * index range into jobs and waits for them. The crowd's legs are one batch;
 * each frame the solve is prepared once (cik_solve_plan_init: options and
 * backend checked) and cut into ranges that the workers solve with
 * cik_solve_range, each on its own thread. The ranges need not line up with
 * the solver's vector groups; the result is bitwise what one cik_solve
 * gives, which the example checks at the end.
 *
 *   job_pool [legs] [frames] [workers]
 */
#include <crowdik/crowdik.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the engine's job pool (job_pool.h) --------------------------------- */
#include "job_pool.h"
#include "leg.h"

/* --- the crowd's legs ------------------------------------------------------ */
static cik_chain leg(int index)
{
    cik_chain c = example_leg(); /* leg.h: the leg, its limits */
    c.root_position = (cik_vec3){(float)(index % 100), 0.95f, (float)(index / 100)};
    c.offset[0] = (cik_vec3){index & 1 ? 0.1f : -0.1f, -0.05f, 0.0f};
    return c;
}

/* This frame's foot targets: ground that rises and falls under the crowd. */
static void write_targets(cik_batch *b, int frame)
{
    cik_streams s;
    cik_batch_streams(b, &s);
    for (int i = 0; i < s.chain_count; ++i) {
        float x = s.root_position_x[i], z = s.root_position_z[i];
        s.target_x[i] = x + (i & 1 ? 0.1f : -0.1f);
        s.target_y[i] = 0.1f * sinf(0.3f * x + 0.05f * (float)frame) * cosf(0.2f * z);
        s.target_z[i] = z + 0.15f * sinf(0.1f * (float)(frame + i));
    }
}

/* The job: one range of the batch, on whichever worker took it. */
static void solve_job(void *context, int begin, int end)
{
    const cik_solve_plan *plan = (const cik_solve_plan *)context;
    cik_status st = cik_solve_range(plan, begin, end);
    if (st != CIK_OK) fprintf(stderr, "range [%d, %d): %s\n", begin, end, cik_status_string(st));
}

static int build(cik_batch **out, int legs)
{
    if (cik_batch_create(legs, 3, out) != CIK_OK) return 0;
    for (int i = 0; i < legs; ++i) {
        cik_chain c = leg(i);
        if (cik_batch_set_chain(*out, i, &c) != CIK_OK) return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    int legs = argc > 1 ? atoi(argv[1]) : 2000;
    int frames = argc > 2 ? atoi(argv[2]) : 20;
    int workers = argc > 3 ? atoi(argv[3]) : 4;
    if (legs < 1 || frames < 1 || workers < 1) {
        fprintf(stderr, "usage: job_pool [legs] [frames] [workers]\n");
        return 2;
    }
    cik_batch *batch = NULL, *check = NULL;
    if (!build(&batch, legs) || !build(&check, legs)) {
        fprintf(stderr, "job_pool: could not set up the batch\n");
        return 1;
    }
    job_pool pool;
    if (!pool_start(&pool, workers)) {
        fprintf(stderr, "job_pool: no worker threads\n");
        return 1;
    }
    cik_options options = cik_default_options();
    /* Jobs of 100 legs: deliberately not a multiple of the vector groups,
     * to show that any cut gives the same bits. An engine would take a
     * multiple of cik_solve_plan_alignment (64 always is), which solves
     * every group in place. */
    const int grain = 100;
    int same = 1;
    for (int frame = 0; frame < frames; ++frame) {
        write_targets(batch, frame);
        cik_solve_plan plan;
        cik_status st = cik_solve_plan_init(&plan, batch, &options);
        if (st != CIK_OK) {
            fprintf(stderr, "job_pool: %s\n", cik_status_string(st));
            return 1;
        }
        pool_parallel_for(&pool, solve_job, &plan, legs, grain);

        /* the same frame with one cik_solve on one thread, for comparison */
        write_targets(check, frame);
        cik_options one = options;
        one.threads = 1;
        cik_solve(check, &one);
        for (int i = 0; i < legs && same; ++i)
            for (int j = 0; j < 3; ++j) {
                cik_quat a, b;
                cik_batch_get_rotation(batch, i, j, &a);
                cik_batch_get_rotation(check, i, j, &b);
                if (memcmp(&a, &b, sizeof a) != 0) same = 0;
            }
    }
    int converged = 0;
    for (int i = 0; i < legs; ++i) {
        cik_result r;
        cik_batch_result(batch, i, &r);
        converged += (r.flags & CIK_RESULT_CONVERGED) != 0;
    }
    printf("%d legs, %d frames on %d workers in jobs of %d legs: %d converged in the last frame; %s\n", legs,
           frames, pool.workers, grain, converged, same ? "bitwise equal to cik_solve" : "DIFFERENT from cik_solve");
    pool_stop(&pool);
    cik_batch_destroy(batch);
    cik_batch_destroy(check);
    return same ? 0 : 1;
}
