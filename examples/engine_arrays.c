/*
 * The per-frame copy between an engine's own arrays and the batch, with the
 * conversion helpers instead of hand-written loops.
 *
 * The engine keeps an array of character structs (pelvis transform, foot
 * targets) and a pose array [leg][joint] of local rotations. Each frame it
 * writes roots, targets and the animated pose into the batch with strided
 * copies, solves, reads the solved rotations back into its pose array, and
 * takes the world transform of every joint (for the skinning palette, or
 * to place props on the feet) from cik_batch_world_pose, computed for all
 * legs at once rather than by a forward-kinematics call per leg. It prints
 * the time of both ways to get the world positions.
 *
 *   engine_arrays [characters]
 */
#define _POSIX_C_SOURCE 199309L
#include <crowdik/crowdik.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOINTS 3

typedef struct character {          /* the engine's own layout */
    char name[24];
    cik_vec3 pelvis[2];             /* the hip joints' parent, per leg */
    cik_quat pelvis_rotation[2];
    cik_vec3 foot_target[2];
} character;

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int main(int argc, char **argv)
{
    int characters = argc > 1 ? atoi(argv[1]) : 5000;
    if (characters < 1) return 2;
    const int legs = 2 * characters;
    character *crowd = (character *)calloc((size_t)characters, sizeof(character));
    cik_quat(*pose)[JOINTS] = (cik_quat(*)[JOINTS])calloc((size_t)legs, sizeof *pose);
    cik_quat *world_q = (cik_quat *)calloc((size_t)legs * JOINTS, sizeof(cik_quat));
    cik_vec3 *world_p = (cik_vec3 *)calloc((size_t)legs * JOINTS, sizeof(cik_vec3));
    cik_vec3 *toes = (cik_vec3 *)calloc((size_t)legs, sizeof(cik_vec3));
    cik_batch *b = NULL;
    if (!crowd || !pose || !world_q || !world_p || !toes || cik_batch_create(legs, JOINTS, &b) != CIK_OK) return 1;

    cik_chain c;
    memset(&c, 0, sizeof c);
    c.joint_count = JOINTS;
    c.root_rotation = (cik_quat){0, 0, 0, 1};
    for (int j = 0; j < JOINTS; ++j) c.rotation[j] = (cik_quat){0, 0, 0, 1};
    c.offset[1] = (cik_vec3){0, -0.45f, 0};
    c.offset[2] = (cik_vec3){0, -0.42f, 0};
    c.effector = (cik_vec3){0, -0.06f, 0.14f};
    c.limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
    for (int i = 0; i < legs; ++i) {
        c.offset[0] = (cik_vec3){i & 1 ? 0.1f : -0.1f, -0.05f, 0};
        cik_batch_set_chain(b, i, &c);
    }

    /* this frame's engine data */
    for (int k = 0; k < characters; ++k) {
        snprintf(crowd[k].name, sizeof crowd[k].name, "walker %d", k);
        for (int s = 0; s < 2; ++s) {
            float x = (float)(k % 100), z = (float)(k / 100);
            crowd[k].pelvis[s] = (cik_vec3){x, 0.95f, z};
            crowd[k].pelvis_rotation[s] = (cik_quat){0, 0, 0, 1};
            crowd[k].foot_target[s] = (cik_vec3){x + (s ? 0.1f : -0.1f), 0.05f * sinf(x + z), z + 0.12f};
            for (int j = 0; j < JOINTS; ++j) pose[s * characters + k][j] = (cik_quat){0, 0, 0, 1};
        }
    }
    /* chain s * characters + k is character k's leg s: one strided copy per
     * side, sizeof(character) bytes from one character's value to the next */
    for (int s = 0; s < 2; ++s) {
        cik_batch_write_roots(b, s * characters, characters, &crowd[0].pelvis[s], sizeof(character),
                              &crowd[0].pelvis_rotation[s], sizeof(character));
        cik_batch_write_targets(b, s * characters, characters, &crowd[0].foot_target[s], sizeof(character));
    }
    for (int j = 0; j < JOINTS; ++j) cik_batch_write_rotations(b, j, 0, legs, &pose[0][j], sizeof pose[0]);

    cik_solve(b, NULL);

    for (int j = 0; j < JOINTS; ++j) cik_batch_read_rotations(b, j, 0, legs, &pose[0][j], sizeof pose[0]);
    /* (the second call is the one timed: the first touches the output
     * arrays' fresh pages) */
    cik_batch_world_pose(b, 0, legs, world_q, world_p, toes);
    double t0 = now_ms();
    cik_batch_world_pose(b, 0, legs, world_q, world_p, toes);
    double t_pose = now_ms() - t0;
    t0 = now_ms();
    double sum = 0.0;
    for (int i = 0; i < legs; ++i) {
        cik_vec3 jp[JOINTS], e;
        cik_batch_forward(b, i, jp, &e);
        sum += e.y;
    }
    double t_forward = now_ms() - t0;
    double worst = 0.0;
    for (int i = 0; i < legs; ++i) {
        const cik_vec3 tgt = crowd[i % characters].foot_target[i / characters];
        double d = sqrt((toes[i].x - tgt.x) * (toes[i].x - tgt.x) + (toes[i].y - tgt.y) * (toes[i].y - tgt.y) +
                        (toes[i].z - tgt.z) * (toes[i].z - tgt.z));
        worst = d > worst ? d : worst;
    }
    printf("%d legs: largest toe-to-target gap %.2g m; world pose of every joint %.3f ms, "
           "a cik_batch_forward per leg %.3f ms (checksum %.3f)\n",
           legs, worst, t_pose, t_forward, sum);
    cik_batch_destroy(b);
    free(crowd);
    free(pose);
    free(world_q);
    free(world_p);
    free(toes);
    return worst < 1e-2 ? 0 : 1;
}
