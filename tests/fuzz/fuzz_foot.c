/*
 * libFuzzer target for crowdik's foot-placement pipeline (crowdik/foot.h).
 *
 * The input bytes become a crowd (mostly 1 to 24 characters, now and then
 * up to 400, so that a frame spans several blocks) and a list of calls: set_legs
 * with valid and invalid legs (heel, ball and toe points among the fields),
 * raw writes into the input streams (NaN, infinities, huge values, non-unit
 * quaternions, weights outside [0, 1], the floor, each point's contact),
 * heightfields (degenerate spacings, counts at and beyond
 * CIK_HEIGHTFIELD_MAX_COUNT, huge grids of lazily mapped zeros, cliffs,
 * non-finite heights), every stage (probe and place with and without a
 * frame time), the frame, and the frame's plan run in ranges, with fuzzed
 * options (every foot option valid and invalid: contacts, plant and release
 * speeds, contact time, easing, locks, the pelvis spring, soft reach, limit
 * tolerance, units) on every backend (AUTO, the available ones, unavailable
 * and out-of-range values) and 1 or 2 threads, reset, and the limit
 * functions. Properties, a violation aborts:
 *
 *   - a refused call changes nothing a caller can see (every stream, every
 *     leg, every chain and result of the batch, bitwise), and no hidden
 *     state either: a second crowd gets only the calls the first accepted,
 *     must accept each of them with the same status, and must look the
 *     same, bitwise, after every call;
 *   - create refuses exactly what set_legs refuses and then leaves `*out`
 *     as it was;
 *   - after an accepted frame every character whose inputs are valid
 *     (finite, moderate pelvis, floor and poses, quaternions of any length
 *     from 1/4 to 4, any finite weight) over a heightfield with finite
 *     moderate heights has finite outputs: animated and solved ankles,
 *     probes and contacts of every point (unit normals), targets, pelvis
 *     drop, foot orientations, solved rotations and points; planted and
 *     locked are 0 or 1, the pivot a point, and a weight from the contacts
 *     of the animation lies in [0, 1];
 *   - cik_foot_apply_limit and cik_foot_limit_excess give finite values for
 *     a valid limit and a unit rotation.
 *
 * Build: tests/fuzz/run.sh foot (clang -fsanitize=fuzzer,address,undefined).
 */
#ifndef _DEFAULT_SOURCE /* already defined where a header came first */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include "crowdik/foot.h"
#define FUZZ_NAME "fuzz_foot"
#include "foot_snapshot.h"
#include "fuzz_common.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MAX_OPS 256
#define MAX_FRAMES 12 /* solving calls: the expensive ones */

/* ------------------------------------------------------------------ */
/* Reading the input (the reader and CHECK: fuzz_common.h)             */

/* Values that break numeric code, and ordinary ones. */
static float interesting(unsigned k)
{
    static const uint32_t special_bits[] = {
        0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7f800000u, 0xff800000u, /* NaNs, infinities */
        0x00000001u, 0x80000001u, 0x007fffffu, 0x80000000u,             /* denormals, -0 */
        0x7f7fffffu, 0xff7fffffu, 0x00800000u,                          /* FLT_MAX, FLT_MIN */
        0x4cbebc20u, 0x4cbebc21u, 0x40490fdbu, 0x40490fdcu, 0xc0490fdbu, 0xc0490fdcu,
    };
    static const float plain[] = {
        0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 0.25f, 2.0f, -2.0f, 0.1f, -0.3f, 0.7071068f, 1e-3f, 1e-6f,
        1e-12f, 3.0f, 10.0f, -10.0f, 100.0f, 1e3f, 1e4f, -1e4f, 1e6f, 1e9f, 1e12f, 1e20f, 1e30f, 1e38f,
        1e-30f, 1e-38f, 1.5f, 0.9f, 0.45f, 0.42f, -0.42f, -0.05f, 0.06f, 1.01f, 16777216.0f, 16777215.0f,
    };
    return pick_value(k, special_bits, sizeof special_bits / sizeof special_bits[0], plain,
                      sizeof plain / sizeof plain[0]);
}

/* A fuzzed float: mostly small ordinary values, sometimes the tables or
 * raw bits. */
static float rd_float(reader *r)
{
    uint8_t sel = rd_u8(r);
    if (sel >= 232) return bits_to_float(rd_u32(r));
    if (sel >= 128) return interesting(sel);
    return ((float)sel - 64.0f) / 32.0f;
}

/* A moderate value (what a valid stream holds): [-8, 8). */
static float rd_small(reader *r) { return ((float)rd_u8(r) - 128.0f) / 16.0f; }

static cik_vec3 v3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}

static cik_quat rd_unit(reader *r)
{
    double x = ((int)rd_u8(r) - 128) / 64.0, y = ((int)rd_u8(r) - 128) / 64.0,
           z = ((int)rd_u8(r) - 128) / 64.0, w = ((int)rd_u8(r) - 128) / 64.0 + 0.5;
    return unit_from(x, y, z, w);
}

/* ------------------------------------------------------------------ */
/* Legs                                                                */

static cik_limit limit_of(int type, float ax, float ay, float az, float lo, float hi, float swing)
{
    cik_limit l;
    memset(&l, 0, sizeof l);
    l.type = (cik_limit_type)type;
    l.axis = v3(ax, ay, az);
    l.min_angle = lo;
    l.max_angle = hi;
    l.swing_max = swing;
    return l;
}

/* The workload legs: thigh 0.45, shin 0.42, ankle 6 cm above the sole. */
static void base_legs(cik_foot_leg legs[2])
{
    memset(legs, 0, 2 * sizeof *legs);
    for (int s = 0; s < 2; ++s) {
        legs[s].hip = v3(s ? -0.1f : 0.1f, -0.05f, 0.0f);
        legs[s].thigh = v3(0.0f, -0.45f, 0.0f);
        legs[s].shin = v3(0.0f, -0.42f, 0.0f);
        legs[s].limit[0] = limit_of(CIK_LIMIT_SWING_TWIST, 0, -1, 0, -0.6f, 0.6f, 1.5f);
        legs[s].limit[1] = limit_of(CIK_LIMIT_HINGE, 1, 0, 0, 0.0f, 2.6f, 0.0f);
        legs[s].limit[2] = limit_of(CIK_LIMIT_SWING_TWIST, 0, -1, 0, -0.35f, 0.35f, 0.7f);
        legs[s].sole_normal = v3(0, 1, 0);
        legs[s].ankle_height = 0.06f;
    }
}

/* The base legs with a few fields changed: mostly still valid, now and
 * then not (the library decides; the target only checks consistency). */
static void rd_legs(reader *r, cik_foot_leg legs[2])
{
    base_legs(legs);
    int edits = rd_u8(r) % 8;
    for (int e = 0; e < edits; ++e) {
        uint8_t field = rd_u8(r);
        cik_foot_leg *l = &legs[field >> 7];
        int j = (field >> 4) % 3;
        switch (field % 16) {
        case 0: l->hip = v3(rd_small(r) / 8, rd_small(r) / 8, rd_small(r) / 8); break;
        case 1: l->thigh = v3(rd_small(r) / 8, rd_small(r) / 8, rd_small(r) / 8); break;
        case 2: l->shin = v3(rd_small(r) / 8, rd_small(r) / 8, rd_small(r) / 8); break;
        case 3: l->sole_normal = v3(rd_small(r), rd_small(r), rd_small(r)); break;
        case 4: l->ankle_height = rd_float(r); break;
        case 5: l->limit[j].type = (cik_limit_type)(rd_u8(r) % 5 == 4 ? 7 : rd_u8(r) % 3); break;
        case 6: l->limit[j].axis = v3(rd_small(r), rd_small(r), rd_small(r)); break;
        case 7: l->limit[j].min_angle = rd_small(r) / 2; break;
        case 8: l->limit[j].max_angle = rd_small(r) / 2; break;
        case 9: l->limit[j].swing_max = rd_small(r) / 2; break;
        case 10: l->limit[j].min_angle = rd_float(r); break;
        case 11: l->limit[j].max_angle = rd_float(r); break;
        case 12: l->thigh.z = rd_float(r); break;
        case 13: /* a foot point: mostly a plausible one, now and then anything */
            if (rd_u8(r) & 1) l->point[j] = v3(rd_small(r) / 32, rd_small(r) / 32, rd_small(r) / 16);
            else l->point[j].z = rd_float(r);
            break;
        case 14: l->sole_normal.y = rd_float(r); break;
        default: /* a bone of length zero, or both legs alike */
            if (field & 1) l->shin = v3(0, 0, 0);
            else legs[1] = legs[0];
            break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* Heightfields                                                        */

typedef struct ground {
    cik_heightfield hf;
    float *heights; /* owned, unless it is the zeros below */
    int valid_heights; /* every height finite and within +-1e6 */
    int drawn;         /* 1 once rd_ground filled it */
} ground;

/* The huge grids' heights: one read-only mapping of zero pages, made once
 * (a calloc of that size under AddressSanitizer clears and poisons it on
 * every run, seconds each), large enough for 2^24 x 3 floats. */
#define ZEROS_FLOATS ((size_t)CIK_HEIGHTFIELD_MAX_COUNT * 3)
static const float *zeros(void)
{
    static void *p;
    if (!p) {
        p = mmap(NULL, ZEROS_FLOATS * sizeof(float), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        CHECK(p != MAP_FAILED, "mmap of the zero heights");
    }
    return (const float *)p;
}

static void ground_free(ground *g)
{
    free(g->heights);
    memset(g, 0, sizeof *g);
}

/* A heightfield: a small grid with fuzzed heights (slopes, cliffs,
 * non-finite ones), a huge one of zeros (calloc maps it lazily), or one the
 * library must refuse (counts, spacings, origin, NULL heights). */
static void rd_ground(reader *r, ground *g)
{
    ground_free(g);
    uint8_t kind = rd_u8(r);
    int cx = 2 + rd_u8(r) % 40, cz = 2 + rd_u8(r) % 40;
    size_t alloc;
    switch (kind % 8) {
    case 0: cx = CIK_HEIGHTFIELD_MAX_COUNT, cz = 2 + kind % 2; break;
    case 1: cz = CIK_HEIGHTFIELD_MAX_COUNT, cx = 2 + kind % 2; break;
    case 2: cx = 2048 + (int)(kind % 3), cz = 2048 - (int)(kind % 5); break;
    case 3: /* beyond the documented counts (or nonsense): refused unread */
        cx = (kind & 16) ? CIK_HEIGHTFIELD_MAX_COUNT + 1 : (int)rd_u32(r);
        cz = (kind & 32) ? 2 : (int)rd_u32(r);
        if (cx >= 2 && cx <= CIK_HEIGHTFIELD_MAX_COUNT && cz >= 2 && cz <= CIK_HEIGHTFIELD_MAX_COUNT)
            cx = (kind & 64) ? 1 : -cx; /* drawn valid: made invalid, the buffer is a stub */
        break;
    default: break;
    }
    if (kind % 8 == 3) alloc = 4; /* never read: validate refuses first */
    else alloc = (size_t)cx * (size_t)cz;
    g->valid_heights = 1;
    if (kind % 8 < 3) {
        CHECK(alloc <= ZEROS_FLOATS, "%zu floats", alloc);
        g->hf.heights = zeros();
    } else {
        g->heights = calloc(alloc, sizeof(float));
        CHECK(g->heights != NULL, "calloc of %zu floats", alloc);
        g->hf.heights = g->heights;
    }
    if (kind % 8 >= 4) {
        /* small grids: heights from a short fuzzed pattern */
        float pat[8];
        int np = 1 + rd_u8(r) % 8;
        for (int k = 0; k < np; ++k) {
            pat[k] = (rd_u8(r) & 1) ? rd_float(r) : rd_small(r) / 4;
            if (!isfinite(pat[k]) || fabsf(pat[k]) > 1e6f) g->valid_heights = 0;
        }
        uint8_t step = rd_u8(r);
        for (size_t k = 0; k < alloc; ++k) g->heights[k] = pat[(k * (1 + step % 7) + k / (size_t)cx) % (size_t)np];
    }
    g->hf.count_x = cx;
    g->hf.count_z = cz;
    g->hf.origin_x = (rd_u8(r) & 3) ? -0.5f * (float)(cx < 64 ? cx : 64) * 0.25f : rd_float(r);
    g->hf.origin_z = (rd_u8(r) & 3) ? -0.5f * (float)(cz < 64 ? cz : 64) * 0.25f : rd_float(r);
    uint8_t sp = rd_u8(r);
    g->hf.spacing_x = sp < 192 ? 0.05f + 0.01f * (float)(sp % 50) : rd_float(r);
    sp = rd_u8(r);
    g->hf.spacing_z = sp < 192 ? 0.05f + 0.01f * (float)(sp % 50) : rd_float(r);
    if (rd_u8(r) == 255) g->hf.heights = NULL;
    g->drawn = 1;
}

/* ------------------------------------------------------------------ */
/* Options                                                             */

static cik_backend rd_backend(reader *r)
{
    uint8_t b = rd_u8(r);
    static const int odd[] = {CIK_BACKEND_AUTO, CIK_BACKEND_NEON, CIK_BACKEND_COUNT, -1, 1000};
    if (b >= 230) return (cik_backend)odd[b % 5];
    return (cik_backend)(b % CIK_BACKEND_COUNT); /* AUTO, REFERENCE .. NEON */
}

static void rd_options(reader *r, cik_foot_options *o)
{
    *o = cik_foot_default_options();
    o->solver.backend = rd_backend(r);
    uint8_t th = rd_u8(r);
    o->solver.threads = th >= 250 ? -1 : 1 + th % 2;
    o->solver.max_iterations = (int)(rd_u8(r) % 20) - 1;
    uint8_t t = rd_u8(r);
    if (t >= 240) o->solver.threshold = rd_float(r);
    else if (t >= 120) o->solver.threshold = 1e-5f * (float)(t - 119);
    uint8_t cv = rd_u8(r);
    if (cv < 64) {
        o->solver.ccd.gain = o->solver.ccd.max_step = 0.0f;
        o->solver.ccd.hinge_aware = 0;
        o->solver.ccd.limb = CIK_LIMB_OFF;
    } else if (cv >= 224) {
        o->solver.ccd.gain = cv >= 250 ? rd_float(r) : 0.5f + 0.01f * (float)(rd_u8(r) % 150);
        o->solver.ccd.max_step = cv == 249 ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 40);
        o->solver.ccd.hinge_aware = cv == 247 ? 3 : rd_u8(r) & 1;
        o->solver.ccd.limb = cv == 246 ? 7 : rd_u8(r) & 1;
    }
    uint8_t f = rd_u8(r);
    if (f & 1) o->dt = (f & 2) ? rd_float(r) : 0.001f * (float)(1 + rd_u8(r));
    if (f & 4) o->max_pelvis_drop = (f & 8) ? rd_float(r) : 0.01f * (float)rd_u8(r);
    if (f & 16) o->pelvis_smooth_time = (f & 8) ? rd_float(r) : 0.005f * (float)rd_u8(r);
    if (f & 32) o->soft_reach = (f & 8) ? rd_float(r) : 0.005f * (float)rd_u8(r); /* beyond 1 too */
    if (f & 64) o->reach_margin = (f & 8) ? rd_float(r) : 0.002f * (float)rd_u8(r);
    if (f & 128) o->start = (int)(rd_u8(r) % 5) - 1;
    else o->start = rd_u8(r) % 3;
    /* the contacts and locks: each option, now and then, a fuzzed value
     * (mostly a valid one, sometimes out of its range) */
    uint8_t g = rd_u8(r);
    if (g & 1) {
        uint8_t c = rd_u8(r);
        o->contacts = c < 250 ? c % 2 : (int)c - 252; /* -2 .. 3 */
    }
    if (g & 2) {
        uint8_t k = rd_u8(r);
        o->plant_speed = k < 200 ? 0.02f * (float)(1 + k % 100) : rd_float(r);
        k = rd_u8(r);
        /* above the plant speed, or (the last cases) below it or anything */
        o->release_speed = k < 200 ? o->plant_speed * (1.0f + 0.01f * (float)(k % 100)) : k < 230 ? 0.5f * o->plant_speed
                                                                                               : rd_float(r);
    }
    if (g & 4) o->min_contact_time = (g & 64) ? rd_float(r) : 0.01f * (float)rd_u8(r);
    if (g & 8) {
        o->ease_in_time = (g & 64) ? rd_float(r) : 0.005f * (float)rd_u8(r);
        o->ease_out_time = (g & 64) ? rd_float(r) : 0.005f * (float)rd_u8(r);
    }
    if (g & 16) {
        uint8_t k = rd_u8(r);
        o->lock = k < 240 ? k % 2 : (int)k - 243; /* -3 .. 12 */
    }
    if (g & 32) {
        o->lock_radius = (g & 64) ? rd_float(r) : 0.005f * (float)rd_u8(r); /* 0 too */
        o->unlock_time = (g & 64) ? rd_float(r) : 0.01f * (float)rd_u8(r);
    }
    if (g & 128) {
        uint8_t k = rd_u8(r);
        o->limit_tolerance = k < 220 ? 0.002f * (float)k : rd_float(r);
        k = rd_u8(r);
        if (k >= 224) o->units_per_metre = k >= 248 ? rd_float(r) : (k & 1 ? 100.0f : 0.01f);
    }
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

/* Everything about the crowd the API shows, as bytes (foot_snapshot.h). */
static void snap_take(cik_foot_crowd *cr, foot_snapshot *sn)
{
    cik_status st = foot_snapshot_take(cr, sn);
    CHECK(st == CIK_OK, "snapshot: status %d", (int)st);
}

/* ------------------------------------------------------------------ */
/* Valid input and finite output                                       */

static int finite_within(float x, float bound) { return isfinite(x) && fabsf(x) <= bound; }

/* A pose or pelvis quaternion the pipeline must cope with: finite
 * components, length between 1/4 and 4. */
static int quat_ok(float x, float y, float z, float w)
{
    if (!finite_within(x, 4) || !finite_within(y, 4) || !finite_within(z, 4) || !finite_within(w, 4))
        return 0;
    double n2 = (double)x * x + (double)y * y + (double)z * z + (double)w * w;
    return n2 >= 1.0 / 16.0 && n2 <= 16.0;
}

static int character_valid(const cik_foot_streams *s, int c)
{
    if (!finite_within(s->pelvis_x[c], 1e4f) || !finite_within(s->pelvis_y[c], 1e4f) ||
        !finite_within(s->pelvis_z[c], 1e4f) || !finite_within(s->floor_y[c], 1e4f))
        return 0;
    if (!quat_ok(s->pelvis_qx[c], s->pelvis_qy[c], s->pelvis_qz[c], s->pelvis_qw[c])) return 0;
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        if (!isfinite(s->weight[f])) return 0;
        for (int j = 0; j < 3; ++j)
            if (!quat_ok(s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f])) return 0;
    }
    return 1;
}

/* The legs' lengths, so that a valid leg's outputs have a bound. */
static int legs_moderate(cik_foot_crowd *cr, int c)
{
    cik_foot_leg legs[2];
    CHECK(cik_foot_crowd_get_legs(cr, c, legs) == CIK_OK, "get_legs %d", c);
    for (int s = 0; s < 2; ++s) {
        const cik_vec3 v[3] = {legs[s].hip, legs[s].thigh, legs[s].shin};
        for (int k = 0; k < 3; ++k)
            if (!finite_within(v[k].x, 1e3f) || !finite_within(v[k].y, 1e3f) || !finite_within(v[k].z, 1e3f))
                return 0;
        if (!finite_within(legs[s].ankle_height, 1e3f)) return 0;
        for (int p = 0; p < CIK_FOOT_POINTS; ++p)
            if (!finite_within(legs[s].point[p].x, 1e3f) || !finite_within(legs[s].point[p].y, 1e3f) ||
                !finite_within(legs[s].point[p].z, 1e3f))
                return 0;
    }
    return 1;
}

/* `contacts`: the frame's options' (a weight from the animation's contacts
 * lies in [0, 1]). */
static void check_finite_outputs(cik_foot_crowd *cr, int contacts)
{
    cik_foot_streams s;
    CHECK(cik_foot_crowd_streams(cr, &s) == CIK_OK, "streams");
    for (int c = 0; c < s.character_count; ++c) {
        if (!character_valid(&s, c) || !legs_moderate(cr, c)) continue;
        CHECK(isfinite(s.pelvis_drop[c]), "character %d: pelvis drop %g", c, s.pelvis_drop[c]);
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            const float out[] = {s.anim_ankle_x[f], s.anim_ankle_y[f], s.anim_ankle_z[f], s.target_x[f],
                                 s.target_y[f],     s.target_z[f],     s.ankle_x[f],      s.ankle_y[f],
                                 s.ankle_z[f],      s.foot_qx[f],      s.foot_qy[f],      s.foot_qz[f],
                                 s.foot_qw[f]};
            for (size_t k = 0; k < sizeof out / sizeof out[0]; ++k)
                CHECK(isfinite(out[k]), "character %d foot %d: output %zu is %g", c, f, k, out[k]);
            CHECK((s.planted[f] == 0.0f || s.planted[f] == 1.0f) && (s.locked[f] == 0.0f || s.locked[f] == 1.0f),
                  "foot %d: planted %g, locked %g", f, s.planted[f], s.locked[f]);
            CHECK(s.pivot[f] == 0.0f || s.pivot[f] == 1.0f || s.pivot[f] == 2.0f, "foot %d: pivot %g", f, s.pivot[f]);
            if (contacts == CIK_FOOT_CONTACTS_ANIMATION)
                CHECK(s.weight[f] >= 0.0f && s.weight[f] <= 1.0f, "foot %d: weight %g from the contacts", f,
                      s.weight[f]);
            for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
                const float pts[] = {s.probe_x[p][f], s.probe_z[p][f], s.contact_y[p][f], s.point_x[p][f],
                                     s.point_y[p][f], s.point_z[p][f]};
                for (size_t k = 0; k < sizeof pts / sizeof pts[0]; ++k)
                    CHECK(isfinite(pts[k]), "character %d foot %d point %d: output %zu is %g", c, f, p, k, pts[k]);
                float nl = sqrtf(s.contact_nx[p][f] * s.contact_nx[p][f] + s.contact_ny[p][f] * s.contact_ny[p][f] +
                                 s.contact_nz[p][f] * s.contact_nz[p][f]);
                CHECK(fabsf(nl - 1.0f) < 1e-3f, "foot %d point %d: contact normal of length %g", f, p, nl);
            }
            for (int j = 0; j < 3; ++j)
                CHECK(isfinite(s.solved_x[j][f]) && isfinite(s.solved_y[j][f]) && isfinite(s.solved_z[j][f]) &&
                          isfinite(s.solved_w[j][f]),
                      "character %d foot %d: solved rotation %d (%g %g %g %g)", c, f, j, s.solved_x[j][f],
                      s.solved_y[j][f], s.solved_z[j][f], s.solved_w[j][f]);
        }
    }
}

/* ------------------------------------------------------------------ */
/* The program                                                         */

enum {
    OP_SET_LEGS,
    OP_WRITE,      /* one value into an input stream */
    OP_POSE,       /* a whole character posed (valid values) */
    OP_GROUND_NEW, /* a new heightfield */
    OP_PROBE,
    OP_GROUND,
    OP_PLACE,
    OP_SOLVE,
    OP_ALIGN,
    OP_FRAME,
    OP_FRAME2, /* the frame again, more often */
    OP_RESET,
    OP_LIMIT,
    OP_MISC,
    OP_PLAN, /* the frame's plan, run in ranges */
    OP_KINDS
};

/* The input streams a write may hit: per character 0..7, per foot 8...
 * (the weight, then each point's contact). */
static float *input_stream(const cik_foot_streams *s, int k, int *per_foot)
{
    float *c[] = {s->pelvis_x,  s->pelvis_y,  s->pelvis_z,  s->pelvis_qx,
                  s->pelvis_qy, s->pelvis_qz, s->pelvis_qw, s->floor_y};
    *per_foot = k >= 8;
    if (k < 8) return c[k];
    k -= 8;
    if (k < 12) {
        int j = k % 3;
        float *q[] = {s->pose_x[j], s->pose_y[j], s->pose_z[j], s->pose_w[j]};
        return q[k / 3];
    }
    k -= 12;
    if (k == 0) return s->weight;
    k -= 1;
    int p = (k / 4) % CIK_FOOT_POINTS;
    float *f[] = {s->contact_y[p], s->contact_nx[p], s->contact_ny[p], s->contact_nz[p]};
    return f[k % 4];
}
#define INPUT_STREAMS (8 + 12 + 1 + 4 * CIK_FOOT_POINTS)

typedef struct world {
    cik_foot_crowd *a, *b; /* b gets only what a accepted */
    cik_foot_streams sa, sb;
    ground g;
    foot_snapshot s0, s1;
    int frames;
} world;

/* A call on both crowds: a refused one must change nothing on a, and is
 * not made on b; an accepted one must be accepted by b too; then a and b
 * must look the same. */
#define BOTH(call_a, call_b, what)                                                                 \
    do {                                                                                           \
        snap_take(w->a, &w->s0);                                                                   \
        cik_status st_ = (call_a);                                                                 \
        if (st_ != CIK_OK) {                                                                       \
            snap_take(w->a, &w->s1);                                                               \
            CHECK(foot_snapshot_same(&w->s0, &w->s1), "a refused %s (status %d) changed the crowd", \
                  what, (int)st_);                                                                 \
        } else {                                                                                   \
            cik_status sb_ = (call_b);                                                             \
            CHECK(sb_ == st_, "%s: %d on one crowd, %d on its twin", what, (int)st_, (int)sb_);    \
        }                                                                                          \
        snap_take(w->b, &w->s1);                                                                   \
        snap_take(w->a, &w->s0);                                                                   \
        CHECK(foot_snapshot_same(&w->s0, &w->s1), "after %s (status %d) the twins differ", what,   \
              (int)st_);                                                                           \
        last = st_;                                                                                \
    } while (0)

static void pose_character(reader *r, world *w, int c)
{
    float x = rd_small(r), y = 0.9f + rd_small(r) / 64, z = rd_small(r), floor = rd_small(r) / 32;
    cik_quat pq = rd_unit(r);
    float scale = (rd_u8(r) & 7) ? 1.0f : 0.5f + (float)(rd_u8(r) % 64) / 32.0f; /* non-unit now and then */
    for (int t = 0; t < 2; ++t) {
        cik_foot_streams *s = t ? &w->sb : &w->sa;
        s->pelvis_x[c] = x;
        s->pelvis_y[c] = y;
        s->pelvis_z[c] = z;
        s->pelvis_qx[c] = pq.x * scale;
        s->pelvis_qy[c] = pq.y * scale;
        s->pelvis_qz[c] = pq.z * scale;
        s->pelvis_qw[c] = pq.w * scale;
        s->floor_y[c] = floor;
    }
    for (int side = 0; side < 2; ++side) {
        int f = 2 * c + side;
        float wt = rd_small(r) / 4; /* [-2, 2): outside [0, 1] too */
        cik_quat q[3];
        for (int j = 0; j < 3; ++j) q[j] = rd_unit(r);
        for (int t = 0; t < 2; ++t) {
            cik_foot_streams *s = t ? &w->sb : &w->sa;
            s->weight[f] = wt;
            for (int j = 0; j < 3; ++j) {
                s->pose_x[j][f] = q[j].x;
                s->pose_y[j][f] = q[j].y;
                s->pose_z[j][f] = q[j].z;
                s->pose_w[j][f] = q[j].w;
            }
        }
    }
}

static void run_op(reader *r, world *w)
{
    const int C = w->sa.character_count;
    cik_status last = CIK_OK;
    uint8_t kind = rd_u8(r) % OP_KINDS;
    if ((kind == OP_SOLVE || kind == OP_FRAME || kind == OP_FRAME2 || kind == OP_PLAN) && ++w->frames > MAX_FRAMES)
        kind = OP_PROBE;
    switch (kind) {
    case OP_SET_LEGS: {
        cik_foot_leg legs[2];
        rd_legs(r, legs);
        uint8_t ci = rd_u8(r);
        int c = ci < 240 ? ci % C : (ci & 1 ? C : -1);
        BOTH(cik_foot_crowd_set_legs(w->a, c, legs), cik_foot_crowd_set_legs(w->b, c, legs), "set_legs");
        /* create agrees with set_legs on these legs, and leaves *out alone
         * when it refuses */
        if (c >= 0 && c < C && (rd_u8(r) & 7) == 0) {
            cik_foot_crowd *mark = (cik_foot_crowd *)&w->g, *out = mark;
            cik_status cs = cik_foot_crowd_create(1, legs, &out);
            CHECK(cs == last, "create says %d, set_legs %d", (int)cs, (int)last);
            if (cs == CIK_OK) cik_foot_crowd_destroy(out);
            else CHECK(out == mark, "a refused create wrote *out");
        }
        break;
    }
    case OP_WRITE: {
        int per_foot, k = rd_u8(r) % INPUT_STREAMS;
        float *sa = input_stream(&w->sa, k, &per_foot), *sb = input_stream(&w->sb, k, &per_foot);
        uint8_t at = rd_u8(r);
        int index = per_foot ? at % (2 * C) : at % C;
        float v = rd_float(r);
        sa[index] = sb[index] = v;
        break;
    }
    case OP_POSE: {
        int n = 1 + rd_u8(r) % 8;
        for (int k = 0; k < n; ++k) pose_character(r, w, rd_u8(r) % C);
        break;
    }
    case OP_GROUND_NEW: rd_ground(r, &w->g); break;
    case OP_PROBE: {
        cik_foot_options o;
        rd_options(r, &o);
        uint8_t how = rd_u8(r);
        const cik_foot_options *op = how < 16 ? NULL : &o;
        float dt = how >= 224 ? rd_float(r) : 0.002f * (float)(how % 32); /* 0: the options' */
        if (how & 1) BOTH(cik_foot_crowd_probe(w->a, op), cik_foot_crowd_probe(w->b, op), "probe");
        else BOTH(cik_foot_crowd_probe_dt(w->a, op, dt), cik_foot_crowd_probe_dt(w->b, op, dt), "probe_dt");
        break;
    }
    case OP_GROUND:
        if (!w->g.drawn) rd_ground(r, &w->g);
        BOTH(cik_foot_crowd_ground_heightfield(w->a, &w->g.hf, NULL),
             cik_foot_crowd_ground_heightfield(w->b, &w->g.hf, NULL), "ground");
        break;
    case OP_PLACE:
    case OP_SOLVE:
    case OP_ALIGN: {
        cik_foot_options o;
        rd_options(r, &o);
        uint8_t how = rd_u8(r);
        const cik_foot_options *op = how == 0 ? NULL : &o;
        float dt = how >= 224 ? rd_float(r) : 0.002f * (float)(how % 32);
        if (kind == OP_PLACE && (how & 1))
            BOTH(cik_foot_crowd_place_dt(w->a, op, dt), cik_foot_crowd_place_dt(w->b, op, dt), "place_dt");
        else if (kind == OP_PLACE) BOTH(cik_foot_crowd_place(w->a, op), cik_foot_crowd_place(w->b, op), "place");
        if (kind == OP_SOLVE) BOTH(cik_foot_crowd_solve(w->a, op), cik_foot_crowd_solve(w->b, op), "solve");
        if (kind == OP_ALIGN) BOTH(cik_foot_crowd_align(w->a, op), cik_foot_crowd_align(w->b, op), "align");
        break;
    }
    case OP_FRAME:
    case OP_FRAME2: {
        cik_foot_options o;
        rd_options(r, &o);
        if (!w->g.drawn) rd_ground(r, &w->g);
        uint8_t how = rd_u8(r);
        const cik_heightfield *hf = how == 0 ? NULL : &w->g.hf;
        float dt = how >= 224 ? rd_float(r) : 0.002f * (float)(how % 32);
        if (how & 1) BOTH(cik_foot_crowd_frame_dt(w->a, hf, &o, dt), cik_foot_crowd_frame_dt(w->b, hf, &o, dt), "frame_dt");
        else BOTH(cik_foot_crowd_frame(w->a, hf, &o), cik_foot_crowd_frame(w->b, hf, &o), "frame");
        if (last == CIK_OK && w->g.valid_heights) check_finite_outputs(w->a, o.contacts);
        break;
    }
    case OP_PLAN: {
        /* the frame's plan on a and, once accepted, the same on b: ranges
         * of fuzzed bounds (refusals change nothing), then the rest of the
         * crowd in aligned ranges, so that every character ran once */
        cik_foot_options o;
        rd_options(r, &o);
        if (!w->g.drawn) rd_ground(r, &w->g);
        float dt = rd_u8(r) >= 224 ? rd_float(r) : 0.0f;
        static cik_foot_frame_plan pa, pb;
        BOTH(cik_foot_crowd_frame_plan_init(&pa, w->a, &w->g.hf, &o, dt),
             cik_foot_crowd_frame_plan_init(&pb, w->b, &w->g.hf, &o, dt), "plan_init");
        if (last != CIK_OK) break;
        const int A = CIK_FOOT_RANGE_ALIGNMENT;
        /* a bad range first: refused, nothing changed */
        int b0 = (int)(rd_u8(r) % 8) * 8 - 16, e0 = b0 + (int)(rd_u8(r) % 80);
        int aligned = (b0 % A == 0 || b0 == C) && (e0 % A == 0 || e0 == C) && b0 >= 0 && b0 <= e0 && e0 <= C;
        if (!aligned) {
            snap_take(w->a, &w->s0);
            CHECK(cik_foot_crowd_frame_range(&pa, b0, e0) == CIK_ERROR_ARGUMENT, "range [%d, %d) of %d accepted",
                  b0, e0, C);
            snap_take(w->a, &w->s1);
            CHECK(foot_snapshot_same(&w->s0, &w->s1), "a refused range changed the crowd");
        }
        /* the crowd in ranges, last first on a, in order on b */
        int nr = (C + A - 1) / A;
        for (int k = nr - 1; k >= 0; --k) {
            int e = (k + 1) * A < C ? (k + 1) * A : C;
            CHECK(cik_foot_crowd_frame_range(&pa, k * A, e) == CIK_OK, "range [%d, %d)", k * A, e);
        }
        for (int k = 0; k < nr; ++k) {
            int e = (k + 1) * A < C ? (k + 1) * A : C;
            CHECK(cik_foot_crowd_frame_range(&pb, k * A, e) == CIK_OK, "range [%d, %d)", k * A, e);
        }
        snap_take(w->a, &w->s0);
        snap_take(w->b, &w->s1);
        CHECK(foot_snapshot_same(&w->s0, &w->s1), "the plan's ranges in another order differ");
        if (w->g.valid_heights) check_finite_outputs(w->a, o.contacts);
        break;
    }
    case OP_RESET: BOTH(cik_foot_crowd_reset(w->a), cik_foot_crowd_reset(w->b), "reset"); break;
    case OP_LIMIT: {
        cik_foot_leg legs[2];
        rd_legs(r, legs);
        const cik_limit *l = &legs[rd_u8(r) & 1].limit[rd_u8(r) % 3];
        cik_quat q = rd_unit(r);
        cik_quat out = cik_foot_apply_limit(l, q);
        float e = cik_foot_limit_excess(l, q);
        cik_foot_crowd *probe = NULL;
        /* a limit the crowd accepts is a valid limit */
        int valid = cik_foot_crowd_create(1, legs, &probe) == CIK_OK;
        cik_foot_crowd_destroy(probe);
        if (valid) {
            CHECK(isfinite(out.x) && isfinite(out.y) && isfinite(out.z) && isfinite(out.w),
                  "apply_limit gave (%g %g %g %g)", out.x, out.y, out.z, out.w);
            CHECK(isfinite(e) && e >= 0.0f, "limit_excess gave %g", e);
            CHECK(cik_foot_limit_excess(l, out) < 2e-3f, "a limited rotation is %g outside the limit",
                  cik_foot_limit_excess(l, out));
        }
        break;
    }
    default: {
        /* calls that must refuse: bad indices, NULL pointers */
        cik_foot_leg legs[2];
        cik_foot_streams s;
        CHECK(cik_foot_crowd_get_legs(w->a, C, legs) == CIK_ERROR_ARGUMENT, "get_legs past the end");
        CHECK(cik_foot_crowd_get_legs(w->a, -1, legs) == CIK_ERROR_ARGUMENT, "get_legs -1");
        CHECK(cik_foot_crowd_get_legs(w->a, 0, NULL) == CIK_ERROR_ARGUMENT, "get_legs NULL");
        CHECK(cik_foot_crowd_streams(NULL, &s) == CIK_ERROR_ARGUMENT, "streams NULL");
        CHECK(cik_foot_crowd_probe(NULL, NULL) == CIK_ERROR_ARGUMENT, "probe NULL");
        CHECK(cik_foot_crowd_probe_dt(NULL, NULL, 0.0f) == CIK_ERROR_ARGUMENT, "probe_dt NULL");
        CHECK(cik_foot_crowd_frame_range(NULL, 0, 0) == CIK_ERROR_ARGUMENT, "range NULL");
        CHECK(cik_foot_crowd_character_count(w->a) == C, "character count");
        BOTH(cik_foot_crowd_set_legs(w->a, 0, NULL), cik_foot_crowd_set_legs(w->b, 0, NULL), "set_legs NULL");
        BOTH(cik_foot_crowd_ground_heightfield(w->a, NULL, NULL), cik_foot_crowd_ground_heightfield(w->b, NULL, NULL),
             "ground NULL");
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader rr = {data, size}, *r = &rr;
    static world wd;
    world *w = &wd;
    uint8_t sz = rd_u8(r);
    /* mostly small crowds (fast runs), now and then up to 400 characters
     * (several blocks, a vector-filling remainder) */
    int characters = sz < 200 ? 1 + sz % 24 : sz < 240 ? 25 + sz % 56 : 81 + (int)(rd_u8(r) % 160) * 2;
    cik_foot_leg legs[2];
    rd_legs(r, legs);
    cik_foot_crowd *mark = (cik_foot_crowd *)w, *out = mark;
    cik_status st = cik_foot_crowd_create(characters, legs, &out);
    if (st != CIK_OK) {
        CHECK(out == mark, "a refused create (status %d) wrote *out", (int)st);
        base_legs(legs);
        st = cik_foot_crowd_create(characters, legs, &out);
        CHECK(st == CIK_OK, "create of %d characters with the base legs: %d", characters, (int)st);
    }
    w->a = out;
    CHECK(cik_foot_crowd_create(characters, legs, &w->b) == CIK_OK, "the twin");
    CHECK(cik_foot_crowd_streams(w->a, &w->sa) == CIK_OK && cik_foot_crowd_streams(w->b, &w->sb) == CIK_OK,
          "streams");
    w->frames = 0;
    /* the start pose from a generator seeded by one byte, so that the
     * input's bytes go to the calls */
    uint32_t seed = 0x9e3779b9u * (1u + rd_u8(r));
    for (int c = 0; c < characters; ++c) {
        uint8_t gen[64];
        for (size_t k = 0; k < sizeof gen; ++k) {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            gen[k] = (uint8_t)(seed >> 24);
        }
        reader g = {gen, sizeof gen};
        pose_character(&g, w, c);
    }
    for (int k = 0; k < MAX_OPS && rr.n > 0; ++k) run_op(r, w);
    /* always end with a frame over a valid ground and default options */
    {
        cik_status last = CIK_OK;
        ground_free(&w->g);
        static float flat[16 * 16];
        cik_heightfield hf = {-2.0f, -2.0f, 0.25f, 0.25f, 16, 16, flat};
        w->g.hf = hf;
        BOTH(cik_foot_crowd_frame(w->a, &w->g.hf, NULL), cik_foot_crowd_frame(w->b, &w->g.hf, NULL), "last frame");
        CHECK(last == CIK_OK, "the last frame was refused: %d", (int)last);
        check_finite_outputs(w->a, CIK_FOOT_CONTACTS_ANIMATION);
    }
    cik_foot_crowd_destroy(w->a);
    cik_foot_crowd_destroy(w->b);
    ground_free(&w->g);
    return 0;
}
