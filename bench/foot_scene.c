/* The benchmarks' foot-placement scene (foot_scene.h). */
#include "foot_scene.h"

#include "legs.h"
#include "workloads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI_F 3.14159265f
#define SPACING 0.1f     /* heightfield, metres */
#define CROWD_PITCH 1.5f /* metres between characters */
#define WALK_SPEED 1.1f  /* metres per second at size 1 */
#define WALK_PERIOD 1.0f /* seconds */
#define STANCE 0.6f      /* stance fraction of the cycle */
#define DT (1.0f / 60.0f)

/* Floats per bank frame: pelvis x y z qx qy qz qw and the floor's height
 * per character, then per foot 12 pose floats (x[3] y[3] z[3] w[3]) and
 * the weight. */
#define C_FLOATS 8
#define F_FLOATS 13

static float terrain(float x, float z)
{
    float h = 0.18f * sinf(0.31f * x + 0.5f) * cosf(0.23f * z) + 0.07f * sinf(0.83f * x - 0.61f * z);
    float k = tanf(15.0f * PI_F / 180.0f);
    float xm = fmodf(x + 2400.0f, 24.0f);
    float r = xm < 4 ? k * xm : (xm < 8 ? 4 * k : (xm < 12 ? k * (12 - xm) : 0));
    float zm = fmodf(z + 1600.0f, 16.0f);
    return h + r + (zm >= 8.0f ? 0.10f : 0.0f);
}

static float smooth01(float x) { return x <= 0 ? 0 : (x >= 1 ? 1 : x * x * (3 - 2 * x)); }

/* Sagittal two-bone leg: hip flexion, knee and ankle angles (about +X) that
 * put the ankle at (dy, dz) from the hip with the foot at world pitch `pitch`. */
static void leg_angles(float ta, float tb, float dy, float dz, float pitch, float out[3])
{
    float d = sqrtf(dy * dy + dz * dz), dmax = (ta + tb) * 0.9995f;
    if (d > dmax) d = dmax;
    float ck = (d * d - ta * ta - tb * tb) / (2 * ta * tb);
    float k = acosf(ck < -1 ? -1 : (ck > 1 ? 1 : ck));
    float uy = -(ta + tb * cosf(k)), uz = -tb * sinf(k);
    float th = atan2f(uz, -uy) - atan2f(dz, -dy);
    out[0] = th;
    out[1] = k;
    float a = pitch - th - k;
    out[2] = a < -0.3f ? -0.3f : (a > 0.3f ? 0.3f : a);
}

typedef struct walker {
    float x0, z0, heading, size, phase;
} walker;

/* One character's pelvis and legs at time t (seconds), written to frame
 * `dst` of the bank. */
static void walk(const foot_scene *sc, const walker *w, int c, float t, float *dst)
{
    const int C = sc->characters, F = 2 * C;
    const cik_foot_leg *leg = &sc->legs[2 * c];
    float s = w->size, L = WALK_SPEED * s * WALK_PERIOD * STANCE, ah = leg[0].ankle_height;
    float fy[2], fz[2], pitch[2], weight[2];
    float ph0 = (t + w->phase) / WALK_PERIOD;
    for (int side = 0; side < 2; ++side) {
        float ph = ph0 + (side ? 0.5f : 0.0f);
        ph -= floorf(ph);
        if (ph < STANCE) {
            fy[side] = ah;
            fz[side] = L * 0.5f - L * ph / STANCE;
            pitch[side] = 0.0f;
            weight[side] = 1.0f;
        } else {
            float u = (ph - STANCE) / (1 - STANCE);
            fz[side] = -L * 0.5f + L * (u - sinf(2 * PI_F * u) / (2 * PI_F));
            fy[side] = ah + 0.11f * s * sinf(PI_F * u) * (1.0f - 0.3f * u);
            pitch[side] = -0.25f * sinf(PI_F * u) + 0.15f * sinf(2 * PI_F * u);
            weight[side] = u < 0.12f ? 1.0f - smooth01(u / 0.12f) : (u > 0.88f ? smooth01((u - 0.88f) / 0.12f) : 0.0f);
        }
    }
    float ta = -leg[0].thigh.y, tb = -leg[0].shin.y;
    float dmax = sqrtf(ta * ta + tb * tb + 2 * ta * tb * cosf(0.2f));
    float hip_y = 1e9f;
    for (int side = 0; side < 2; ++side) {
        if (weight[side] < 0.5f && !(fy[side] < ah + 0.02f)) continue;
        float y = fy[side] + sqrtf(dmax * dmax - fz[side] * fz[side]);
        if (y < hip_y) hip_y = y;
    }
    /* world pelvis: walked along the heading, at the ground under it */
    float ch = cosf(w->heading), sh = sinf(w->heading);
    float along = WALK_SPEED * s * t;
    float px = w->x0 + sh * along, pz = w->z0 + ch * along;
    dst[0 * C + c] = px;
    dst[1 * C + c] = terrain(px, pz) + hip_y - leg[0].hip.y;
    dst[2 * C + c] = pz;
    dst[3 * C + c] = 0.0f;
    dst[4 * C + c] = sinf(0.5f * w->heading);
    dst[5 * C + c] = 0.0f;
    dst[6 * C + c] = cosf(0.5f * w->heading);
    dst[7 * C + c] = terrain(px, pz); /* the controller's ground: the animation's floor */
    float *fdst = dst + C_FLOATS * C;
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        float ang[3];
        leg_angles(ta, tb, fy[side] - (hip_y + leg[side].hip.y - leg[0].hip.y), fz[side], pitch[side], ang);
        for (int j = 0; j < 3; ++j) {
            fdst[(0 + j) * F + f] = sinf(0.5f * ang[j]);
            fdst[(3 + j) * F + f] = 0.0f;
            fdst[(6 + j) * F + f] = 0.0f;
            fdst[(9 + j) * F + f] = cosf(0.5f * ang[j]);
        }
        fdst[12 * F + f] = weight[side];
    }
}

int foot_scene_create(int characters, int frames, uint64_t seed, foot_scene *out)
{
    memset(out, 0, sizeof *out);
    out->characters = characters;
    out->frames = frames;
    int side_n = (int)ceilf(sqrtf((float)characters));
    float half = 0.5f * CROWD_PITCH * (float)side_n + 3.0f;
    cik_heightfield *hf = &out->ground;
    hf->origin_x = hf->origin_z = -half;
    hf->spacing_x = hf->spacing_z = SPACING;
    hf->count_x = hf->count_z = (int)(2.0f * half / SPACING) + 2;
    size_t nh = (size_t)hf->count_x * (size_t)hf->count_z;
    size_t per_frame = (size_t)C_FLOATS * (size_t)characters + (size_t)F_FLOATS * 2 * (size_t)characters;
    out->heights = malloc(sizeof(float) * nh);
    out->legs = malloc(sizeof(cik_foot_leg) * 2 * (size_t)characters);
    out->bank = malloc(sizeof(float) * per_frame * (size_t)frames);
    walker *w = malloc(sizeof(walker) * (size_t)characters);
    if (!out->heights || !out->legs || !out->bank || !w) {
        free(w);
        foot_scene_free(out);
        return -1;
    }
    for (int iz = 0; iz < hf->count_z; ++iz)
        for (int ix = 0; ix < hf->count_x; ++ix)
            out->heights[(size_t)iz * (size_t)hf->count_x + (size_t)ix] =
                terrain(hf->origin_x + (float)ix * SPACING, hf->origin_z + (float)iz * SPACING);
    hf->heights = out->heights;
    wl_rng rng;
    wl_seed(&rng, seed);
    for (int c = 0; c < characters; ++c) {
        int gx = c % side_n, gz = c / side_n;
        w[c].x0 = ((float)gx - 0.5f * (float)(side_n - 1)) * CROWD_PITCH + wl_uniform(&rng, -0.3f, 0.3f);
        w[c].z0 = ((float)gz - 0.5f * (float)(side_n - 1)) * CROWD_PITCH + wl_uniform(&rng, -0.3f, 0.3f);
        w[c].heading = wl_uniform(&rng, -PI_F, PI_F);
        w[c].size = wl_uniform(&rng, 0.9f, 1.1f);
        w[c].phase = wl_uniform(&rng, 0.0f, WALK_PERIOD);
        legs_adult(w[c].size, &out->legs[2 * c]);
        /* the procedural rig's heel, ball and toe (docs/foot.md) */
        for (int side = 0; side < 2; ++side) {
            cik_foot_leg *l = &out->legs[2 * c + side];
            const float sz = w[c].size;
            l->point[CIK_FOOT_HEEL] = (cik_vec3){0.0f, -0.06f * sz, -0.05f * sz};
            l->point[CIK_FOOT_BALL] = (cik_vec3){0.0f, -0.06f * sz, 0.10f * sz};
            l->point[CIK_FOOT_TOE] = (cik_vec3){0.0f, -0.06f * sz, 0.14f * sz};
        }
    }
    for (int k = 0; k < frames; ++k)
        for (int c = 0; c < characters; ++c) walk(out, &w[c], c, (float)k * DT, out->bank + per_frame * (size_t)k);
    free(w);
    return 0;
}

void foot_scene_free(foot_scene *sc)
{
    free(sc->heights);
    free(sc->legs);
    free(sc->bank);
    memset(sc, 0, sizeof *sc);
}

cik_status foot_scene_crowd(const foot_scene *sc, cik_foot_crowd **out)
{
    cik_status st = cik_foot_crowd_create(sc->characters, sc->legs, out);
    for (int c = 1; st == CIK_OK && c < sc->characters; ++c) st = cik_foot_crowd_set_legs(*out, c, &sc->legs[2 * c]);
    if (st != CIK_OK) {
        cik_foot_crowd_destroy(*out);
        *out = NULL;
    }
    return st;
}

void foot_scene_write(const foot_scene *sc, int frame, const cik_foot_streams *s)
{
    const size_t C = (size_t)sc->characters, F = 2 * C;
    const float *src = sc->bank + (C_FLOATS * C + F_FLOATS * F) * (size_t)(frame % sc->frames);
    float *const cdst[C_FLOATS] = {s->pelvis_x,  s->pelvis_y,  s->pelvis_z,  s->pelvis_qx,
                                   s->pelvis_qy, s->pelvis_qz, s->pelvis_qw, s->floor_y};
    for (int i = 0; i < C_FLOATS; ++i) memcpy(cdst[i], src + (size_t)i * C, sizeof(float) * C);
    src += C_FLOATS * C;
    for (int j = 0; j < 3; ++j) {
        memcpy(s->pose_x[j], src + (size_t)(0 + j) * F, sizeof(float) * F);
        memcpy(s->pose_y[j], src + (size_t)(3 + j) * F, sizeof(float) * F);
        memcpy(s->pose_z[j], src + (size_t)(6 + j) * F, sizeof(float) * F);
        memcpy(s->pose_w[j], src + (size_t)(9 + j) * F, sizeof(float) * F);
    }
    memcpy(s->weight, src + 12 * F, sizeof(float) * F);
}
