/*
 * The per-frame loop of an engine driving a crowd through crowdik's bulk path.
 *
 * A crowd of characters walks over uneven ground. Each has two legs (hip,
 * knee, ankle, toe), every leg one chain of a single batch. Set-up happens
 * once (bone lengths, limits); then, each frame:
 *
 *   1. write roots (pelvis transforms), start poses (the animation's pose) and
 *      targets (the toe on the ground) straight into the batch's streams;
 *   2. cik_solve the whole batch (OpenMP threads for big batches);
 *   3. read the solved rotations back from the streams, and check each
 *      chain's result: SKIPPED chains keep the animation's pose, UNREACHABLE
 *      ones lower their character's pelvis for the next frame.
 *
 *   crowd_frame [characters] [frames]
 */
#include <crowdik/crowdik.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "leg.h"

#define LEGS 2
#define JOINTS 3

/* --- a little quaternion maths, as an engine would already have --------- */
static cik_quat q_axis(float angle, float x, float y, float z)
{
    float s = sinf(0.5f * angle);
    return (cik_quat){x * s, y * s, z * s, cosf(0.5f * angle)};
}

static cik_vec3 q_rotate(cik_quat q, cik_vec3 v)
{
    /* v + 2w (u x v) + 2 u x (u x v) */
    cik_vec3 u = {q.x, q.y, q.z};
    cik_vec3 t = {2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x)};
    return (cik_vec3){v.x + q.w * t.x + (u.y * t.z - u.z * t.y),
                      v.y + q.w * t.y + (u.z * t.x - u.x * t.z),
                      v.z + q.w * t.z + (u.x * t.y - u.y * t.x)};
}

/* --- the engine's side: characters, animation, ground ------------------- */
typedef struct character {
    float x, z, heading, speed, phase;
    float pelvis_drop;                   /* lowered when a foot cannot reach */
    cik_quat pose[LEGS][JOINTS];         /* this frame's animated pose */
    cik_quat final_pose[LEGS][JOINTS];   /* what the renderer gets */
} character;

static float ground_height(float x, float z)
{
    float h = 0.12f * sinf(0.7f * x) * cosf(0.5f * z);
    if (x > 20.0f && x < 22.0f) h -= 0.6f; /* a ditch deeper than a leg */
    return h;
}

static const float hip_height = 0.95f;

/* The leg rig, the same for everyone (an engine reads it from the skeleton). */
static cik_chain leg_rig(int side)
{
    cik_chain c = example_leg(); /* leg.h: the leg, its limits */
    c.offset[0] = (cik_vec3){side ? 0.1f : -0.1f, -0.05f, 0.0f}; /* the hip, from the pelvis */
    return c;
}

/* A walk cycle: hip swings, knee bends in the swing phase. */
static void animate(character *ch, float dt)
{
    ch->phase += dt * ch->speed * 3.0f;
    ch->x += dt * ch->speed * sinf(ch->heading);
    ch->z += dt * ch->speed * cosf(ch->heading);
    for (int leg = 0; leg < LEGS; ++leg) {
        float p = ch->phase + (float)leg * 3.14159265f;
        ch->pose[leg][0] = q_axis(-0.35f * sinf(p), 1, 0, 0);
        ch->pose[leg][1] = q_axis(0.1f + 0.6f * fmaxf(0.0f, cosf(p)), 1, 0, 0);
        ch->pose[leg][2] = q_axis(0.1f * sinf(p), 1, 0, 0);
    }
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int characters = argc > 1 ? atoi(argv[1]) : 2000;
    int frames = argc > 2 ? atoi(argv[2]) : 60;
    if (characters < 1 || frames < 1) {
        fprintf(stderr, "usage: crowd_frame [characters >= 1] [frames >= 1]\n");
        return 2;
    }
    int chains = characters * LEGS; /* chain c is leg c % 2 of character c / 2 */

    character *crowd = calloc((size_t)characters, sizeof *crowd);
    if (!crowd) return 1;
    srand(7);
    for (int i = 0; i < characters; ++i) {
        crowd[i].x = 40.0f * (float)rand() / (float)RAND_MAX;
        crowd[i].z = 40.0f * (float)rand() / (float)RAND_MAX;
        crowd[i].heading = 6.2831853f * (float)rand() / (float)RAND_MAX;
        crowd[i].speed = 0.8f + 0.8f * (float)rand() / (float)RAND_MAX;
        crowd[i].phase = 6.2831853f * (float)rand() / (float)RAND_MAX;
    }

    /* --- set-up, once: one batch for every leg (all have 3 joints) ------- */
    cik_batch *batch = NULL;
    cik_status st = cik_batch_create(chains, JOINTS, &batch);
    for (int c = 0; st == CIK_OK && c < chains; ++c) {
        cik_chain rig = leg_rig(c % LEGS);
        st = cik_batch_set_chain(batch, c, &rig); /* validated here, once */
    }
    cik_streams s;
    if (st == CIK_OK) st = cik_batch_streams(batch, &s); /* valid until destroy */
    if (st != CIK_OK) {
        fprintf(stderr, "crowdik set-up failed: %s\n", cik_status_string(st));
        cik_batch_destroy(batch);
        free(crowd);
        return 1;
    }

    cik_options options = cik_default_options();
    options.threshold = 0.005f; /* 5 mm is invisible at crowd distance */
    options.max_iterations = 8;
    options.threads = 0;        /* OpenMP's default team for a batch this big */

    printf("crowdik %s, %s backend: %d characters, %d leg chains, %zu bytes\n", cik_version(),
           cik_backend_name(cik_backend_best()), characters, chains, cik_batch_memory_bytes(batch));

    const float dt = 1.0f / 30.0f;
    long total_skipped = 0, injected = 0;
    double solve_seconds = 0.0;
    for (int frame = 0; frame < frames; ++frame) {
        /* --- 1. animation, then the bulk write of roots, poses, targets -- */
        for (int i = 0; i < characters; ++i) {
            character *ch = &crowd[i];
            animate(ch, dt);
            cik_quat heading = q_axis(ch->heading, 0, 1, 0);
            cik_vec3 pelvis = {ch->x, ground_height(ch->x, ch->z) + hip_height - ch->pelvis_drop, ch->z};
            for (int leg = 0; leg < LEGS; ++leg) {
                int c = i * LEGS + leg;
                s.root_position_x[c] = pelvis.x;
                s.root_position_y[c] = pelvis.y;
                s.root_position_z[c] = pelvis.z;
                s.root_rotation_x[c] = heading.x;
                s.root_rotation_y[c] = heading.y;
                s.root_rotation_z[c] = heading.z;
                s.root_rotation_w[c] = heading.w;
                /* Start from the animated pose: IK only corrects it. (Skip
                 * this to warm-start from last frame's solution instead.) */
                for (int j = 0; j < JOINTS; ++j) {
                    s.rotation_x[j][c] = ch->pose[leg][j].x;
                    s.rotation_y[j][c] = ch->pose[leg][j].y;
                    s.rotation_z[j][c] = ch->pose[leg][j].z;
                    s.rotation_w[j][c] = ch->pose[leg][j].w;
                }
                /* Target: the toe below the hip, a stride ahead or behind,
                 * put on the ground. */
                float stride = 0.3f * sinf(ch->phase + (float)leg * 3.14159265f);
                cik_vec3 hip = q_rotate(heading, (cik_vec3){leg ? 0.1f : -0.1f, 0.0f, stride + 0.14f});
                float tx = pelvis.x + hip.x, tz = pelvis.z + hip.z;
                s.target_x[c] = tx;
                s.target_y[c] = ground_height(tx, tz);
                s.target_z[c] = tz;
            }
        }
        /* Bad data happens (a NaN from a physics glitch, say): the bulk path
         * does not validate, the chain is SKIPPED and nothing else suffers. */
        if (frame == frames / 2) {
            s.target_y[chains / 3] = NAN;
            ++injected;
        }

        /* --- 2. solve every leg of the crowd ----------------------------- */
        double t0 = now();
        st = cik_solve(batch, &options);
        solve_seconds += now() - t0;
        if (st != CIK_OK) { /* only bad options or an unavailable backend */
            fprintf(stderr, "cik_solve: %s\n", cik_status_string(st));
            break;
        }

        /* --- 3. read back -------------------------------------------------- */
        int converged = 0, unreachable = 0, skipped = 0;
        for (int i = 0; i < characters; ++i) {
            character *ch = &crowd[i];
            float shortfall = 0.0f;
            for (int leg = 0; leg < LEGS; ++leg) {
                int c = i * LEGS + leg;
                cik_result r;
                cik_batch_result(batch, c, &r);
                if (r.flags & CIK_RESULT_SKIPPED) {
                    /* Non-finite input: the chain's rotations are untouched.
                     * Render the animated pose and fix the data upstream. */
                    ++skipped;
                    for (int j = 0; j < JOINTS; ++j) ch->final_pose[leg][j] = ch->pose[leg][j];
                    continue;
                }
                if (r.flags & CIK_RESULT_CONVERGED) ++converged;
                if (r.flags & CIK_RESULT_UNREACHABLE) {
                    /* The leg points at the target as far as it reaches
                     * (within limits): usable this frame. Lower the pelvis by
                     * the gap so the foot gets there in the next frames. */
                    ++unreachable;
                    if (r.error > shortfall) shortfall = r.error;
                }
                for (int j = 0; j < JOINTS; ++j)
                    ch->final_pose[leg][j] = (cik_quat){s.rotation_x[j][c], s.rotation_y[j][c],
                                                        s.rotation_z[j][c], s.rotation_w[j][c]};
            }
            /* Ease the pelvis towards the needed drop, at most 30 cm. */
            float want = fminf(shortfall + ch->pelvis_drop, 0.3f);
            if (shortfall == 0.0f) want = 0.0f;
            ch->pelvis_drop += 0.2f * (want - ch->pelvis_drop);
        }
        total_skipped += skipped;
        if (frame % 15 == 0 || frame == frames - 1 || skipped)
            printf("frame %3d: %6d converged, %4d unreachable, %4d neither, %d skipped\n", frame,
                   converged, unreachable, chains - converged - unreachable - skipped, skipped);
    }

    printf("solve: %.3f ms per frame for %d chains\n", 1e3 * solve_seconds / frames, chains);
    cik_batch_destroy(batch);
    free(crowd);
    if (st != CIK_OK || total_skipped != injected) {
        fprintf(stderr, "crowd_frame: unexpected result\n");
        return 1;
    }
    return 0;
}
