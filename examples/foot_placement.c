/*
 * Foot placement for a small crowd with crowdik's foot pipeline
 * (<crowdik/foot.h>): the part of an engine's frame that comes after the
 * animation system and before rendering.
 *
 * Set-up, once:
 *   - describe each leg (hip, thigh, shin, joint limits, where the sole is,
 *     and the foot's heel, ball and toe);
 *   - create a foot crowd: it owns one IK batch holding every leg;
 *   - wrap the ground in a cik_heightfield (a view of your height grid).
 * Each frame:
 *   1. write each character's root (pelvis) transform, the height of the
 *      ground its controller stands on, and its animated leg pose into the
 *      crowd's streams. Which feet are planted the pipeline finds from the
 *      animated motion itself (a foot slow enough is planted, its IK weight
 *      eased in, and locked where it landed); or, with
 *      CIK_FOOT_CONTACTS_WEIGHTS, the caller gives a per-foot IK weight
 *      (1 = planted, 0 = swinging), as the staged frame at the end does;
 *   2. run the frame: cik_foot_crowd_frame (heightfield ground), or the five
 *      stages one by one with your own ground queries (shown at the end);
 *   3. read back the solved hip, knee and ankle rotations and how far each
 *      pelvis was lowered, and hand them to the renderer.
 *
 * Units are metres and seconds, +Y up, quaternions (x, y, z, w). The program
 * checks its own results and exits non-zero if a planted foot misses its
 * target or its ankle goes below the ground, so it doubles as a test; it
 * prints how close the planted heels, balls and toes come to the ground.
 */
#include <crowdik/crowdik.h>
#include <crowdik/foot.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    /* where the foot meets the ground, in the ankle frame on the sole: the
     * heel behind the ankle, the ball under the toe joint, the toe tip
     * (docs/foot.md derives them from a skeleton's ankle and toe) */
    leg.point[CIK_FOOT_HEEL] = (cik_vec3){0.0f, -0.06f, -0.05f};
    leg.point[CIK_FOOT_BALL] = (cik_vec3){0.0f, -0.06f, 0.10f};
    leg.point[CIK_FOOT_TOE] = (cik_vec3){0.0f, -0.06f, 0.14f};
    return leg;
}

/* The animation system's output for one leg at walk phase p (0..1): local
 * rotations of hip, knee and ankle about +X, the leg's height from the
 * pelvis to the sole (so that the caller can stand the pelvis on its
 * stance feet), and an IK weight (1 while the foot is planted, 0 in the
 * middle of the swing, eased in between). A real engine samples its clips
 * here; a weight like this comes from a curve authored on the clip, for
 * CIK_FOOT_CONTACTS_WEIGHTS. */
static float animate_leg(float p, cik_quat q[3], float *height)
{
    const float pi = 3.14159265f;
    float swing = p > 0.6f ? (p - 0.6f) / 0.4f : 0.0f; /* 0..1 through the swing */
    float hip = p <= 0.6f ? 0.35f - 0.7f * p / 0.6f : -0.35f + 0.7f * (swing - sinf(2 * pi * swing) / (2 * pi));
    float lift = p > 0.6f ? 0.9f * sinf(pi * swing) : 0.0f;
    float knee = 0.2f + lift; /* bent a little in stance, as a walk's knee is */
    q[0] = q_axis(-hip, 1, 0, 0); /* negative about +X: the thigh forward */
    q[1] = q_axis(knee, 1, 0, 0);
    q[2] = q_axis(hip - 0.2f - 0.5f * lift, 1, 0, 0); /* the foot flat in stance, toes down in swing */
    *height = 0.05f + 0.45f * cosf(hip) + 0.42f * cosf(knee - hip) + 0.06f;
    /* weight: out over the first 15 % of the swing, in over the last 30 % */
    float w = swing < 0.15f ? 1.0f - swing / 0.15f : (swing > 0.7f ? (swing - 0.7f) / 0.3f : 0.0f);
    return p <= 0.6f ? 1.0f : w * w * (3.0f - 2.0f * w);
}

/* Step 1: write one character's input for this frame into the streams
 * (the weight too: the frames with contacts from the animation overwrite
 * it, the staged frame at the end uses it). */
static void write_character(const cik_foot_streams *s, int c, const character *ch)
{
    /* the animated legs: foot f = 2 * character + side */
    float stand = 1e30f;
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        cik_quat q[3];
        float p = ch->phase + 0.5f * (float)side, height;
        s->weight[f] = animate_leg(p - floorf(p), q, &height);
        if (s->weight[f] >= 1.0f && height < stand) stand = height;
        for (int j = 0; j < 3; ++j) {
            s->pose_x[j][f] = q[j].x;
            s->pose_y[j][f] = q[j].y;
            s->pose_z[j][f] = q[j].z;
            s->pose_w[j][f] = q[j].w;
        }
    }
    /* the root: the pelvis transform in the world, from the character
     * controller and the animation (here: the ground under the character
     * plus the height of the lower stance leg, so that the animation's
     * stance feet stand on flat ground; the pipeline lowers it where the
     * ground under a foot needs it) */
    cik_quat heading = q_axis(ch->heading, 0, 1, 0);
    s->pelvis_x[c] = ch->x;
    s->pelvis_y[c] = ground(ch->x, ch->z) + stand;
    s->pelvis_z[c] = ch->z;
    s->pelvis_qx[c] = heading.x;
    s->pelvis_qy[c] = heading.y;
    s->pelvis_qz[c] = heading.z;
    s->pelvis_qw[c] = heading.w;
    /* the ground the animation's feet stand on (the controller's): where
     * the ground under a swinging foot is lower, the pelvis comes down so
     * that the foot keeps its clearance */
    s->floor_y[c] = ground(ch->x, ch->z);
}

/* What the frames' feet in full stance (planted, weight 1) show: how many
 * there were, how many had their lowest point (heel, ball or toe) within
 * 1 cm of the ground under it, and how deep their deepest point went below
 * it; and the problems: feet whose results are not finite or were
 * skipped, stance ankles more than 2 mm off their targets or below the
 * ground under them. */
typedef struct stance_record {
    int feet, on_ground, problems;
    int depth_count;
    float depth[CHARACTERS * 2 * (FRAMES + 1)];
} stance_record;

/* Adds this frame's feet; `hf` is the ground the pipeline was given (NULL:
 * the exact ground, as the raycasts see it). */
static void record_frame(const cik_foot_crowd *crowd, const cik_foot_streams *s, const cik_heightfield *hf,
                         stance_record *rec)
{
    for (int f = 0; f < s->foot_count; ++f) {
        cik_result r;
        cik_batch_result(cik_foot_crowd_batch(crowd), f, &r);
        if (!isfinite(s->ankle_y[f]) || !isfinite(s->pelvis_drop[f / 2]) || (r.flags & CIK_RESULT_SKIPPED)) {
            rec->problems++;
            continue;
        }
        if (!(s->planted[f] > 0.0f) || s->weight[f] < 1.0f) continue;
        float dx = s->ankle_x[f] - s->target_x[f], dy = s->ankle_y[f] - s->target_y[f];
        float dz = s->ankle_z[f] - s->target_z[f], under = ground(s->ankle_x[f], s->ankle_z[f]);
        if (hf) cik_heightfield_sample(hf, s->ankle_x[f], s->ankle_z[f], &under, NULL);
        if (sqrtf(dx * dx + dy * dy + dz * dz) > 0.002f || s->ankle_y[f] < under) rec->problems++;
        float lowest = 1e30f, deepest = 0.0f;
        for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
            float x = s->point_x[p][f], z = s->point_z[p][f], h = ground(x, z);
            if (hf) cik_heightfield_sample(hf, x, z, &h, NULL);
            float clearance = s->point_y[p][f] - h;
            lowest = clearance < lowest ? clearance : lowest;
            deepest = -clearance > deepest ? -clearance : deepest;
        }
        rec->feet++;
        rec->on_ground += fabsf(lowest) <= 0.01f;
        rec->depth[rec->depth_count++] = deepest;
    }
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
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
     * walking at 60 Hz (0.2 mm threshold, at most 30 cm of pelvis drop,
     * contacts from the animation: planted below 0.6 m/s, locked where the
     * foot landed) */
    cik_foot_options options = cik_foot_default_options();
    options.dt = 1.0f / 60.0f;

    /* the streams: pointers into the crowd, valid until it is destroyed */
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);

    character ch[CHARACTERS];
    for (int c = 0; c < CHARACTERS; ++c) /* in a row, walking along +X onto the kerb */
        ch[c] = (character){0.5f * (float)(c % 4), 0.8f * (float)c, 1.5707963f, 0.13f * (float)c};

    /* --- the frame loop --------------------------------------------------- */
    static stance_record rec;
    int planted = 0;
    float max_drop = 0.0f;
    for (int frame = 0; frame < FRAMES; ++frame) {
        /* 1. the animation system's output goes into the streams */
        for (int c = 0; c < CHARACTERS; ++c) write_character(&s, c, &ch[c]);
        /*    level of detail: the last character is out of view for half a
         *    second; with its byte off the crowd leaves it alone (every
         *    stream of it keeps its bits) and costs close to nothing for a
         *    run of 16 such characters; back on, it starts afresh */
        const int far = CHARACTERS - 1;
        s.enabled[far] = frame >= 60 && frame < 90 ? 0 : 1;
        const float far_knee = s.solved_x[1][2 * far];

        /* 2. the whole crowd's feet in one call: forward kinematics, ground
         *    under every foot, targets and pelvis drop, one batched IK solve,
         *    soles turned onto the ground */
        st = cik_foot_crowd_frame(crowd, &hf, &options);
        if (st != CIK_OK) {
            fprintf(stderr, "frame %d: %s\n", frame, cik_status_string(st));
            return 1;
        }
        if (!s.enabled[far] && memcmp(&far_knee, &s.solved_x[1][2 * far], sizeof far_knee) != 0) {
            fprintf(stderr, "frame %d: character %d is off, and its knee changed\n", frame, far);
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
        record_frame(crowd, &s, &hf, &rec);
        for (int f = 0; f < s.foot_count; ++f) planted += s.planted[f] > 0.0f;
        if (frame == 1 || frame == FRAMES - 1) {
            int f = 0; /* character 0's left foot */
            printf("frame %3d: character 0 at x %.2f m, pelvis lowered %.1f mm; left foot %s, weight %.2f, "
                   "heel y %.3f, toe y %.3f, ground under them %.3f, %.3f m\n",
                   frame, (double)ch[0].x, 1e3 * (double)s.pelvis_drop[0],
                   s.locked[f] > 0.0f ? "locked" : (s.planted[f] > 0.0f ? "planted" : "swinging"),
                   (double)s.weight[f], (double)s.point_y[CIK_FOOT_HEEL][f], (double)s.point_y[CIK_FOOT_TOE][f],
                   (double)ground(s.point_x[CIK_FOOT_HEEL][f], s.point_z[CIK_FOOT_HEEL][f]),
                   (double)ground(s.point_x[CIK_FOOT_TOE][f], s.point_z[CIK_FOOT_TOE][f]));
        }

        /* the game moves on: the character controller and the walk cycle */
        for (int c = 0; c < CHARACTERS; ++c) {
            ch[c].x += WALK_SPEED * options.dt * sinf(ch[c].heading);
            ch[c].z += WALK_SPEED * options.dt * cosf(ch[c].heading);
            ch[c].phase += options.dt; /* a 1 s cycle */
        }
    }

    /* --- the same frame with your own ground queries and contacts --------
     * Without a heightfield, run the stages yourself and write a contact (a
     * height and a unit normal) under each foot's heel, ball and toe probe
     * between cik_foot_crowd_probe and cik_foot_crowd_place: a raycast down
     * onto the collision mesh, a navmesh query... Here the weights are the
     * animation's own curve (CIK_FOOT_CONTACTS_WEIGHTS). */
    cik_foot_options staged = options;
    staged.contacts = CIK_FOOT_CONTACTS_WEIGHTS;
    for (int c = 0; c < CHARACTERS; ++c) write_character(&s, c, &ch[c]);
    st = cik_foot_crowd_probe(crowd, &staged); /* animated feet, contacts, locks: probe_x, probe_z */
    for (int f = 0; st == CIK_OK && f < s.foot_count; ++f)
        for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
            cik_vec3 n;
            raycast_down(s.probe_x[p][f], s.probe_z[p][f], &s.contact_y[p][f], &n);
            s.contact_nx[p][f] = n.x;
            s.contact_ny[p][f] = n.y;
            s.contact_nz[p][f] = n.z;
        }
    /* and one more ray per foot, at the swing foot's look-ahead point
     * (swing_lookahead: it rises before a step up); the height is enough */
    for (int f = 0; st == CIK_OK && f < s.foot_count; ++f) {
        cik_vec3 n;
        raycast_down(s.probe_ahead_x[f], s.probe_ahead_z[f], &s.contact_ahead_y[f], &n);
    }
    if (st == CIK_OK) st = cik_foot_crowd_place(crowd, &staged); /* targets, pelvis drop, start poses */
    if (st == CIK_OK) st = cik_foot_crowd_solve(crowd, &staged); /* one cik_solve over every leg */
    if (st == CIK_OK) st = cik_foot_crowd_align(crowd, &staged); /* soles onto the ground */
    if (st != CIK_OK) {
        fprintf(stderr, "staged frame: %s\n", cik_status_string(st));
        return 1;
    }
    record_frame(crowd, &s, NULL, &rec);

    /* the measures of the feet in full stance: the lowest point on the
     * ground, the deepest point below it (the kerb's edge, a 10 cm cell
     * ramp in the heightfield, is where they are worst) */
    qsort(rec.depth, (size_t)rec.depth_count, sizeof(float), by_value);
    float p99 = rec.depth_count ? rec.depth[(rec.depth_count * 99) / 100] : 0.0f;
    float on = rec.feet ? (float)rec.on_ground / (float)rec.feet : 0.0f;
    int ok = rec.problems == 0 && rec.feet > 0;
    printf("%d characters, %d frames: %d foot-frames planted, pelvis lowered at most %.1f mm; of %d feet in full "
           "stance %.1f %% with the lowest point within 1 cm of the ground, the deepest point %.2f mm below it "
           "(99th percentile); %d planted-foot problems\n",
           CHARACTERS, FRAMES + 1, planted, 1e3 * (double)max_drop, rec.feet, 100.0 * (double)on, 1e3 * (double)p99,
           rec.problems);
    cik_foot_crowd_destroy(crowd);
    return ok ? 0 : 1;
}
