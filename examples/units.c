/*
 * A foot crowd in an engine's own units and at its own frame rate.
 *
 * The engine works in centimetres: legs, pelvis, heightfield and every
 * output are in centimetres, and options.units_per_metre = 100 is the one
 * change to the options (their lengths stay metres). The frame time changes
 * from frame to frame and is given to each cik_foot_crowd_frame_dt call.
 * The example runs the same crowd in metres beside it and checks that the
 * centimetre poses are the metre poses scaled by 100, and that a frame time
 * given per call is the frame time written into options.dt. It exits
 * non-zero when a check fails.
 *
 *   units [characters] [frames]
 */
#include <crowdik/foot.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GRID = 97 };
static float heights_m[GRID * GRID], heights_cm[GRID * GRID];

static cik_heightfield make_ground(float scale, float *heights)
{
    for (int iz = 0; iz < GRID; ++iz)
        for (int ix = 0; ix < GRID; ++ix) {
            float x = -12.0f + 0.25f * (float)ix, z = -12.0f + 0.25f * (float)iz;
            float h = 0.14f * sinf(0.8f * x) * cosf(0.5f * z) + (x > 2.0f ? 0.12f : 0.0f);
            heights[iz * GRID + ix] = scale * h;
        }
    cik_heightfield hf = {-12.0f * scale, -12.0f * scale, 0.25f * scale, 0.25f * scale, GRID, GRID, heights};
    return hf;
}

static cik_limit swing_twist(float twist, float swing)
{
    cik_limit l = {CIK_LIMIT_SWING_TWIST, {0, -1, 0}, -twist, twist, swing};
    return l;
}

static void make_legs(float scale, cik_foot_leg legs[2])
{
    for (int side = 0; side < 2; ++side) {
        cik_foot_leg *l = &legs[side];
        memset(l, 0, sizeof *l);
        l->hip = (cik_vec3){scale * (side ? -0.1f : 0.1f), scale * -0.05f, 0.0f};
        l->thigh = (cik_vec3){0.0f, scale * -0.45f, 0.0f};
        l->shin = (cik_vec3){0.0f, scale * -0.42f, 0.0f};
        l->limit[0] = swing_twist(0.6f, 1.5f);
        l->limit[1] = (cik_limit){CIK_LIMIT_HINGE, {1, 0, 0}, 0.0f, 2.6f, 0.0f};
        l->limit[2] = swing_twist(0.35f, 0.7f);
        l->sole_normal = (cik_vec3){0.0f, 1.0f, 0.0f};
        l->ankle_height = scale * 0.06f;
    }
}

static void animate(cik_foot_crowd *crowd, float scale, float time)
{
    cik_foot_streams s;
    cik_foot_crowd_streams(crowd, &s);
    for (int c = 0; c < s.character_count; ++c) {
        float phase = 0.41f * (float)c + 6.0f * time;
        float heading = 0.2f * (float)(c % 7);
        s.pelvis_x[c] = scale * (-10.0f + 0.7f * (float)(c % 30) + 1.1f * fmodf(time, 4.0f));
        s.pelvis_y[c] = scale * (0.93f + 0.02f * sinf(2.0f * phase));
        s.pelvis_z[c] = scale * (-10.0f + 0.8f * (float)(c / 30 % 25));
        s.pelvis_qx[c] = 0.0f;
        s.pelvis_qy[c] = sinf(0.5f * heading);
        s.pelvis_qz[c] = 0.0f;
        s.pelvis_qw[c] = cosf(0.5f * heading);
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            float swing = sinf(phase + 3.14159265f * (float)side);
            float hip = 0.35f * swing, knee = 0.15f + (swing < -0.3f ? 0.6f * (-swing - 0.3f) : 0.0f);
            float angle[3] = {-hip, knee, hip - 0.5f * knee};
            for (int j = 0; j < 3; ++j) {
                s.pose_x[j][f] = sinf(0.5f * angle[j]);
                s.pose_y[j][f] = 0.0f;
                s.pose_z[j][f] = 0.0f;
                s.pose_w[j][f] = cosf(0.5f * angle[j]);
            }
            s.weight[f] = swing < -0.3f ? 0.0f : (swing < 0.0f ? 1.0f + swing / 0.3f : 1.0f);
        }
    }
}

static float angle_between(float ax, float ay, float az, float aw, float bx, float by, float bz, float bw)
{
    double sign = (double)ax * bx + (double)ay * by + (double)az * bz + (double)aw * bw < 0.0 ? -1.0 : 1.0;
    double dx = ax - sign * bx, dy = ay - sign * by, dz = az - sign * bz, dw = aw - sign * bw;
    double chord = sqrt(dx * dx + dy * dy + dz * dz + dw * dw);
    return (float)(4.0 * asin(chord < 2.0 ? 0.5 * chord : 1.0));
}

static int equal(const float *a, const float *b, int n)
{
    return memcmp(a, b, sizeof(float) * (size_t)n) == 0;
}

static int check(const char *what, double worst, double allowed, const char *unit, const char *why)
{
    printf("  %s: %.2g %s apart, allowed %.2g: %s\n    (%s)\n", what, worst, unit, allowed,
           worst <= allowed ? "ok" : "FAILED", why);
    return worst <= allowed ? 0 : 1;
}

int main(int argc, char **argv)
{
    int characters = argc > 1 ? atoi(argv[1]) : 600;
    int frames = argc > 2 ? atoi(argv[2]) : 90;
    if (characters < 1 || frames < 1) {
        fprintf(stderr, "usage: units [characters] [frames]\n");
        return 2;
    }
    const float cm = 100.0f;
    cik_foot_leg legs_m[2], legs_cm[2];
    make_legs(1.0f, legs_m);
    make_legs(cm, legs_cm);
    cik_heightfield ground_m = make_ground(1.0f, heights_m), ground_cm = make_ground(cm, heights_cm);

    cik_foot_crowd *metres = NULL, *centimetres = NULL, *rewritten = NULL;
    if (cik_foot_crowd_create(characters, legs_m, &metres) != CIK_OK ||
        cik_foot_crowd_create(characters, legs_cm, &centimetres) != CIK_OK ||
        cik_foot_crowd_create(characters, legs_m, &rewritten) != CIK_OK) {
        fprintf(stderr, "units: could not create the crowds\n");
        return 1;
    }

    cik_foot_options options_m = cik_foot_default_options();
    options_m.max_pelvis_drop = 0.08f;
    cik_foot_options options_cm = options_m;
    options_cm.units_per_metre = cm;

    cik_foot_streams m, c, r;
    cik_foot_crowd_streams(metres, &m);
    cik_foot_crowd_streams(centimetres, &c);
    cik_foot_crowd_streams(rewritten, &r);

    const float rates[] = {60.0f, 60.0f, 144.0f, 30.0f, 60.0f, 24.0f, 90.0f, 60.0f};
    float time = 0.0f, slowest = 1e9f, fastest = 0.0f;
    float worst_ankle = 0.0f, worst_drop = 0.0f, worst_rotation = 0.0f, worst_foot = 0.0f, deepest = 0.0f;
    int same = 1, failed = 0;
    for (int frame = 0; frame < frames; ++frame) {
        float rate = rates[frame % (int)(sizeof rates / sizeof rates[0])];
        float dt = 1.0f / rate;
        slowest = rate < slowest ? rate : slowest;
        fastest = rate > fastest ? rate : fastest;

        animate(metres, 1.0f, time);
        animate(centimetres, cm, time);
        animate(rewritten, 1.0f, time);
        cik_foot_options per_frame = options_m;
        per_frame.dt = dt;
        if (cik_foot_crowd_frame_dt(metres, &ground_m, &options_m, dt) != CIK_OK ||
            cik_foot_crowd_frame_dt(centimetres, &ground_cm, &options_cm, dt) != CIK_OK ||
            cik_foot_crowd_frame(rewritten, &ground_m, &per_frame) != CIK_OK) {
            fprintf(stderr, "units: frame %d refused\n", frame);
            failed = 1;
            break;
        }
        time += dt;

        for (int k = 0; k < characters; ++k) {
            float d = fabsf(c.pelvis_drop[k] / cm - m.pelvis_drop[k]);
            worst_drop = d > worst_drop ? d : worst_drop;
            deepest = c.pelvis_drop[k] > deepest ? c.pelvis_drop[k] : deepest;
        }
        for (int f = 0; f < m.foot_count; ++f) {
            float dx = c.ankle_x[f] / cm - m.ankle_x[f], dy = c.ankle_y[f] / cm - m.ankle_y[f];
            float dz = c.ankle_z[f] / cm - m.ankle_z[f];
            float d = sqrtf(dx * dx + dy * dy + dz * dz);
            worst_ankle = d > worst_ankle ? d : worst_ankle;
            for (int j = 0; j < 3; ++j) {
                float a = angle_between(c.solved_x[j][f], c.solved_y[j][f], c.solved_z[j][f], c.solved_w[j][f],
                                        m.solved_x[j][f], m.solved_y[j][f], m.solved_z[j][f], m.solved_w[j][f]);
                worst_rotation = a > worst_rotation ? a : worst_rotation;
            }
            float a = angle_between(c.foot_qx[f], c.foot_qy[f], c.foot_qz[f], c.foot_qw[f], m.foot_qx[f], m.foot_qy[f],
                                    m.foot_qz[f], m.foot_qw[f]);
            worst_foot = a > worst_foot ? a : worst_foot;
        }
        same = same && equal(m.pelvis_drop, r.pelvis_drop, characters);
        for (int j = 0; j < 3; ++j)
            same = same && equal(m.solved_x[j], r.solved_x[j], m.foot_count) &&
                   equal(m.solved_y[j], r.solved_y[j], m.foot_count) &&
                   equal(m.solved_z[j], r.solved_z[j], m.foot_count) &&
                   equal(m.solved_w[j], r.solved_w[j], m.foot_count);
        same = same && equal(m.ankle_x, r.ankle_x, m.foot_count) && equal(m.ankle_y, r.ankle_y, m.foot_count) &&
               equal(m.ankle_z, r.ankle_z, m.foot_count) && equal(m.foot_qx, r.foot_qx, m.foot_count) &&
               equal(m.foot_qy, r.foot_qy, m.foot_count) && equal(m.foot_qz, r.foot_qz, m.foot_count) &&
               equal(m.foot_qw, r.foot_qw, m.foot_count);
    }

    const double threshold = (double)options_m.solver.threshold;
    printf("%d characters, %d frames at %.0f to %.0f Hz (%.2f s), in centimetres and in metres\n", characters,
           frames, (double)slowest, (double)fastest, (double)time);
    printf("centimetres / 100 against metres (not bitwise: x 100 rounds, and each crowd rounds at other places):\n");
    failed |= check("ankles", worst_ankle, 2.0 * threshold, "m",
                    "twice the 0.2 mm solve threshold: a start pose right at the threshold can be kept in one "
                    "unit and solved onto its target in the other");
    failed |= check("pelvis drops", worst_drop, 4e-5, "m",
                    "float rounding of coordinates up to 12 m, where a float step is 1e-6 m, and of the planted "
                    "knees' bound on the drop, a bend worked out from distances squared, within a few steps "
                    "of 1e-6 m near a straight knee, which the drop's spring carries for some frames (1.2e-5 "
                    "over five frames of one character), and its lead, which feeds a need that rises "
                    "ahead by 2 time constants over the frame times its rise (7 at 60 Hz, 17 at 144 Hz): "
                    "2.0e-5 since 0.32, 2e-5 allowed before");
    failed |= check("foot orientations", worst_foot, 3e-3, "rad",
                    "float rounding of the ground normals, and the heel lift: a leg within rounding of its "
                    "comfortable reach lifts its heel in one unit and not in the other (2.1e-3 in one frame of "
                    "one foot easing out, its contacts the same in both units)");
    failed |= check("hip, knee and ankle rotations", worst_rotation, 0.02, "rad",
                    "that threshold's move of an ankle turns a nearly straight knee (bent 0.13 rad, the reach "
                    "margin) by up to 0.015 rad");
    const double limit_cm = 100.0 * (double)options_m.max_pelvis_drop;
    int limited = deepest <= limit_cm * (1.0 + 1e-6);
    printf("deepest pelvis drop in centimetres %.4f, max_pelvis_drop %.2f m: %s\n", (double)deepest,
           (double)options_m.max_pelvis_drop, limited ? "ok" : "FAILED");
    printf("frame time per call against options.dt rewritten each frame: %s\n",
           same ? "bitwise equal" : "DIFFERENT");
    failed |= !limited || !same;

    cik_foot_crowd_destroy(metres);
    cik_foot_crowd_destroy(centimetres);
    cik_foot_crowd_destroy(rewritten);
    return failed ? 1 : 0;
}
