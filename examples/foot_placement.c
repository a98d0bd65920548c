/*
 * Foot placement for a small crowd with crowdik's foot pipeline
 * (<crowdik/foot.h>): the part of an engine's frame that comes after the
 * animation system and before rendering.
 *
 * Set-up, once:
 *   - describe each leg (hip, thigh, shin, joint limits, where the sole is);
 *   - create a foot crowd: it owns one IK batch holding every leg;
 *   - wrap the ground in a cik_heightfield (a view of your height grid).
 * Each frame:
 *   1. write each character's root (pelvis) transform, its animated leg pose
 *      and a per-foot IK weight (1 = planted, 0 = swinging) into the crowd's
 *      streams;
 *   2. run the frame: cik_foot_crowd_frame (heightfield ground), or the five
 *      stages one by one with your own ground queries (shown at the end);
 *   3. read back the solved hip, knee and ankle rotations and how far each
 *      pelvis was lowered, and hand them to the renderer.
 *
 * Units are metres and seconds, +Y up, quaternions (x, y, z, w). The program
 * checks its own results and exits non-zero if a planted foot misses the
 * ground, so it doubles as a test.
 */
#include <crowdik/crowdik.h>
#include <crowdik/foot.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHARACTERS 8
#define FRAMES 120 /* 2 s at 60 Hz */

/* --- a little maths, as an engine would already have -------------------- */
static cik_quat q_axis(float angle, float x, float y, float z)
{
    float s = sinf(0.5f * angle);
    return (cik_quat){x * s, y * s, z * s, cosf(0.5f * angle)};
}

/* --- the engine's side: ground, characters, animation -------------------- */

/* The ground: gentle hills plus a 15 cm ledge at x = 3 (a kerb). */
static float ground(float x, float z)
{
    return 0.08f * sinf(0.9f * x) * cosf(0.7f * z) + (x > 3.0f ? 0.15f : 0.0f);
}

/* A stand-in for the engine's raycast down onto its collision mesh: height
 * and unit normal under (x, z), from the ground function's slopes. */
static void raycast_down(float x, float z, float *height, cik_vec3 *normal)
{
    const float e = 0.01f;
    *height = ground(x, z);
    float dx = (ground(x + e, z) - ground(x - e, z)) / (2 * e);
    float dz = (ground(x, z + e) - ground(x, z - e)) / (2 * e);
    float n = sqrtf(dx * dx + 1.0f + dz * dz);
    *normal = (cik_vec3){-dx / n, 1.0f / n, -dz / n};
}

typedef struct character {
    float x, z, heading; /* where it walks (heading about +Y, 0 = +Z) */
    float phase;         /* walk cycle, 0..1 */
} character;

#define WALK_SPEED 1.0f /* metres per second */
#define PELVIS_HEIGHT 0.98f /* hip bones' parent above the ground, standing */

/* One leg as the rig describes it. The bind pose (identity rotations) must
 * stand the leg on flat ground with the sole flat: here the leg hangs
 * straight down (-Y) and the foot's sole faces down. */
static cik_foot_leg make_leg(int side)
{
    cik_foot_leg leg = {0};
    leg.hip = (cik_vec3){side == 0 ? 0.1f : -0.1f, -0.05f, 0.0f}; /* in the pelvis frame */
    leg.thigh = (cik_vec3){0.0f, -0.45f, 0.0f};                   /* knee in the hip frame */
    leg.shin = (cik_vec3){0.0f, -0.42f, 0.0f};                    /* ankle in the knee frame */
    /* hip: a ball joint, twist about the thigh within +-0.6 rad, swing
     * within 1.5 rad; knee: a hinge about +X, bending 0..2.6 rad (positive
     * swings the shin backwards); ankle: a smaller ball joint */
    leg.limit[0] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.6f, 0.6f, 1.5f};
    leg.limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
    leg.limit[2] = (cik_limit){CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -0.35f, 0.35f, 0.7f};
    leg.sole_normal = (cik_vec3){0, 1, 0}; /* the sole's up, in the ankle frame */
    leg.ankle_height = 0.06f;              /* ankle above the sole */
    return leg;
}

/* The animation system's output for one leg at walk phase p (0..1): local
 * rotations of hip, knee and ankle about +X, and the IK weight (1 while the
 * foot is planted, 0 in the middle of the swing, eased in between). A real
 * engine samples its clips here; the weight usually comes from a curve
 * authored on the clip. */
static float animate_leg(float p, cik_quat q[3])
{
    const float pi = 3.14159265f;
    float swing = p > 0.6f ? (p - 0.6f) / 0.4f : 0.0f; /* 0..1 through the swing */
    float hip = p <= 0.6f ? 0.35f - 0.7f * p / 0.6f : -0.35f + 0.7f * (swing - sinf(2 * pi * swing) / (2 * pi));
    float knee = 0.1f + (p > 0.6f ? 0.9f * sinf(pi * swing) : 0.0f);
    q[0] = q_axis(-hip, 1, 0, 0); /* negative about +X: the thigh forward */
    q[1] = q_axis(knee, 1, 0, 0);
    q[2] = q_axis(hip - knee * 0.5f, 1, 0, 0);
    /* weight: out over the first 15 % of the swing, in over the last 30 % */
    float w = swing < 0.15f ? 1.0f - swing / 0.15f : (swing > 0.7f ? (swing - 0.7f) / 0.3f : 0.0f);
    return p <= 0.6f ? 1.0f : w * w * (3.0f - 2.0f * w);
}

/* Step 1: write one character's input for this frame into the streams. */
static void write_character(const cik_foot_streams *s, int c, const character *ch)
{
    /* the root: the pelvis transform in the world, from the character
     * controller (here: the ground under the character plus the standing
     * height; the pipeline lowers it when a foot needs it) */
    cik_quat heading = q_axis(ch->heading, 0, 1, 0);
    s->pelvis_x[c] = ch->x;
    s->pelvis_y[c] = ground(ch->x, ch->z) + PELVIS_HEIGHT;
    s->pelvis_z[c] = ch->z;
    s->pelvis_qx[c] = heading.x;
    s->pelvis_qy[c] = heading.y;
    s->pelvis_qz[c] = heading.z;
    s->pelvis_qw[c] = heading.w;
    /* the animated legs: foot f = 2 * character + side */
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        cik_quat q[3];
        float p = ch->phase + 0.5f * (float)side;
        s->weight[f] = animate_leg(p - floorf(p), q);
        for (int j = 0; j < 3; ++j) {
            s->pose_x[j][f] = q[j].x;
            s->pose_y[j][f] = q[j].y;
            s->pose_z[j][f] = q[j].z;
            s->pose_w[j][f] = q[j].w;
        }
    }
}

/* Checks the frame's planted feet: each ankle within 2 mm of its target,
 * the target above the ground under it, nothing NaN. Returns the number of
 * problems. */
static int check_frame(const cik_foot_crowd *crowd, const cik_foot_streams *s)
{
    int bad = 0;
    for (int f = 0; f < s->foot_count; ++f) {
        cik_result r;
        cik_batch_result(cik_foot_crowd_batch(crowd), f, &r);
        if (!isfinite(s->ankle_y[f]) || !isfinite(s->pelvis_drop[f / 2]) || (r.flags & CIK_RESULT_SKIPPED)) {
            bad++;
            continue;
        }
        if (s->weight[f] < 1.0f) continue;
        float dx = s->ankle_x[f] - s->target_x[f], dy = s->ankle_y[f] - s->target_y[f];
        float dz = s->ankle_z[f] - s->target_z[f];
        float h = ground(s->ankle_x[f], s->ankle_z[f]);
        if (sqrtf(dx * dx + dy * dy + dz * dz) > 0.002f || s->ankle_y[f] < h) bad++;
    }
    return bad;
}

int main(void)
{
    /* --- set-up, once ---------------------------------------------------- */
    const cik_foot_leg legs[2] = {make_leg(0), make_leg(1)};
    cik_foot_crowd *crowd;
    cik_status st = cik_foot_crowd_create(CHARACTERS, legs, &crowd); /* allocates; per frame nothing does */
    if (st != CIK_OK) {
        fprintf(stderr, "cik_foot_crowd_create: %s\n", cik_status_string(st));
        return 1;
    }
    /* characters of another size get their own legs: cik_foot_crowd_set_legs */

    /* the ground as a heightfield: a grid of heights, 10 cm apart, over
     * [-2, 8] x [-2, 8] m (the crowd object only keeps a view of it) */
    enum { NX = 101, NZ = 101 };
    static float heights[NX * NZ];
    cik_heightfield hf = {-2.0f, -2.0f, 0.1f, 0.1f, NX, NZ, heights};
    for (int iz = 0; iz < NZ; ++iz)
        for (int ix = 0; ix < NX; ++ix)
            heights[iz * NX + ix] = ground(hf.origin_x + 0.1f * (float)ix, hf.origin_z + 0.1f * (float)iz);

    /* the pipeline's options: metres and seconds; the defaults suit a human
     * at 60 Hz (0.2 mm threshold, at most 30 cm of pelvis drop) */
    cik_foot_options options = cik_foot_default_options();
    options.dt = 1.0f / 60.0f;

    /* the streams: pointers into the crowd, valid until it is destroyed */
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);

    character ch[CHARACTERS];
    for (int c = 0; c < CHARACTERS; ++c) /* in a row, walking along +X onto the kerb */
        ch[c] = (character){0.5f * (float)(c % 4), 0.8f * (float)c, 1.5707963f, 0.13f * (float)c};

    /* --- the frame loop --------------------------------------------------- */
    int problems = 0;
    float max_drop = 0.0f;
    for (int frame = 0; frame < FRAMES; ++frame) {
        /* 1. the animation system's output goes into the streams */
        for (int c = 0; c < CHARACTERS; ++c) write_character(&s, c, &ch[c]);

        /* 2. the whole crowd's feet in one call: forward kinematics, ground
         *    under every foot, targets and pelvis drop, one batched IK solve,
         *    soles turned onto the ground */
        st = cik_foot_crowd_frame(crowd, &hf, &options);
        if (st != CIK_OK) {
            fprintf(stderr, "frame %d: %s\n", frame, cik_status_string(st));
            return 1;
        }

        /* 3. what the renderer gets: the pelvis lowered by pelvis_drop, the
         *    solved local rotations of hip, knee and ankle */
        for (int c = 0; c < CHARACTERS; ++c) {
            float pelvis_y = s.pelvis_y[c] - s.pelvis_drop[c];
            for (int side = 0; side < 2; ++side) {
                int f = 2 * c + side;
                cik_quat hip = {s.solved_x[0][f], s.solved_y[0][f], s.solved_z[0][f], s.solved_w[0][f]};
                cik_quat knee = {s.solved_x[1][f], s.solved_y[1][f], s.solved_z[1][f], s.solved_w[1][f]};
                cik_quat ankle = {s.solved_x[2][f], s.solved_y[2][f], s.solved_z[2][f], s.solved_w[2][f]};
                (void)hip, (void)knee, (void)ankle; /* -> the skeleton's local rotations */
            }
            (void)pelvis_y; /* -> the skeleton's root */
            if (s.pelvis_drop[c] > max_drop) max_drop = s.pelvis_drop[c];
        }
        problems += check_frame(crowd, &s);
        if (frame == 0 || frame == FRAMES - 1) {
            int f = 0; /* character 0's left foot */
            printf("frame %3d: character 0 at x %.2f m, pelvis lowered %.1f mm; left foot weight %.2f, ankle "
                   "(%.3f, %.3f, %.3f), ground under it %.3f m\n",
                   frame, (double)ch[0].x, 1e3 * (double)s.pelvis_drop[0], (double)s.weight[f], (double)s.ankle_x[f],
                   (double)s.ankle_y[f], (double)s.ankle_z[f], (double)ground(s.ankle_x[f], s.ankle_z[f]));
        }

        /* the game moves on: the character controller and the walk cycle */
        for (int c = 0; c < CHARACTERS; ++c) {
            ch[c].x += WALK_SPEED * options.dt * sinf(ch[c].heading);
            ch[c].z += WALK_SPEED * options.dt * cosf(ch[c].heading);
            ch[c].phase += options.dt; /* a 1 s cycle */
        }
    }

    /* --- the same frame with your own ground queries ----------------------
     * Without a heightfield, run the stages yourself and write a contact (a
     * height and a unit normal) under each foot's probe point between
     * cik_foot_crowd_probe and cik_foot_crowd_place: a raycast down onto the
     * collision mesh, a navmesh query... */
    for (int c = 0; c < CHARACTERS; ++c) write_character(&s, c, &ch[c]);
    st = cik_foot_crowd_probe(crowd, &options); /* animated ankles: probe_x, probe_z */
    for (int f = 0; st == CIK_OK && f < s.foot_count; ++f) {
        cik_vec3 n;
        raycast_down(s.probe_x[f], s.probe_z[f], &s.contact_y[f], &n);
        s.contact_nx[f] = n.x;
        s.contact_ny[f] = n.y;
        s.contact_nz[f] = n.z;
    }
    if (st == CIK_OK) st = cik_foot_crowd_place(crowd, &options); /* targets, pelvis drop, start poses */
    if (st == CIK_OK) st = cik_foot_crowd_solve(crowd, &options); /* one cik_solve over every leg */
    if (st == CIK_OK) st = cik_foot_crowd_align(crowd, &options); /* soles onto the ground normal */
    if (st != CIK_OK) {
        fprintf(stderr, "staged frame: %s\n", cik_status_string(st));
        return 1;
    }
    problems += check_frame(crowd, &s);

    printf("%d characters, %d frames: pelvis lowered at most %.1f mm; %d planted-foot problems\n", CHARACTERS,
           FRAMES + 1, 1e3 * (double)max_drop, problems);
    cik_foot_crowd_destroy(crowd);
    return problems == 0 ? 0 : 1;
}
