/*
 * libFuzzer target for crowdik's herds (crowdik/herd.h): creatures with 1
 * to 8 legs of 2 to 4 segments hanging from the pelvis or the chest.
 *
 * The input bytes become a herd (mostly 1 to 24 characters, now and then
 * up to 300, so that a frame spans several chunks of 64 characters and
 * several vectors; a leg layout of 1 to 8 legs, segment counts 2 to 4
 * mixed, roots pelvis and chest, limits valid and invalid) and a list of
 * calls: set_body with valid and invalid bodies (of the herd's layout and
 * of others), raw writes into the input streams (roots, floor, poses,
 * weights, the ground's heights: NaN, infinities, huge values, non-unit
 * quaternions, weights outside [0, 1]), whole characters posed,
 * heightfields (as fuzz_foot's: degenerate spacings, huge counts,
 * non-finite heights), every stage (probe and place with a frame time of
 * 0, positive, negative or NaN), ground, solve, the frame, reset and
 * reset_character (valid and out of range), with fuzzed options (every
 * foot option and max_raise, pitch_weight, roll_weight, max_tilt, valid
 * and out of their ranges) on every backend (AUTO, the available ones,
 * unavailable and out-of-range values) and 1 or 2 threads. Properties, a
 * violation aborts:
 *
 *   - a refused call changes nothing a caller can see (every stream, every
 *     body, every batch's chains and results, bitwise), and no hidden
 *     state either: a second herd gets only the calls the first accepted,
 *     must accept each of them with the same status, and must look the
 *     same, bitwise, after every call;
 *   - create refuses exactly what set_body refuses for a body of the
 *     herd's layout, and then leaves `*out` as it was;
 *   - after an accepted frame every character whose inputs are valid
 *     (finite, moderate roots, floor and poses, quaternions of any length
 *     from 1/4 to 4, any finite weight; legs within 1e3) over a heightfield
 *     with finite moderate heights has finite outputs: animated feet,
 *     probes, ground heights, targets, the body's height, pitch and roll,
 *     the solved roots and rotations, the feet, and an error that is NaN
 *     only for a chain its batch says it SKIPPED; planted and locked are 0
 *     or 1, and a weight from the animation's contacts lies in [0, 1].
 *
 * Build: tests/fuzz/run.sh herd (clang -fsanitize=fuzzer,address,undefined).
 */
#ifndef _DEFAULT_SOURCE /* already defined where a header came first */
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS, MAP_NORESERVE */
#endif
#include "crowdik/herd.h"
#define FUZZ_NAME "fuzz_herd"
#include "fuzz_common.h"
#include "herd_snapshot.h"

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
/* Bodies                                                              */

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

/* A leg layout: the leg count and each leg's segment count and root. */
typedef struct layout {
    int legs;
    int segments[CIK_HERD_MAX_LEGS];
    int root[CIK_HERD_MAX_LEGS];
} layout;

static void rd_layout(reader *r, layout *ly)
{
    memset(ly, 0, sizeof *ly);
    ly->legs = 1 + rd_u8(r) % CIK_HERD_MAX_LEGS;
    for (int l = 0; l < ly->legs; ++l) {
        uint8_t b = rd_u8(r);
        ly->segments[l] = 2 + b % 3;
        ly->root[l] = (b >> 2) & 1;
    }
}

/* A valid body of the layout: legs 0.9 long split into equal segments
 * with a slight forward bend, a swing-twist at the hip or shoulder, hinges
 * below it bending either way. */
static void base_body(const layout *ly, cik_herd_body *b)
{
    memset(b, 0, sizeof *b);
    b->leg_count = ly->legs;
    b->forward = v3(0, 0, 1);
    for (int l = 0; l < ly->legs; ++l) {
        cik_herd_leg *leg = &b->leg[l];
        const int n = ly->segments[l];
        leg->root = ly->root[l];
        leg->segment_count = n;
        leg->hip = v3((l & 1) ? -0.15f : 0.15f, -0.05f, 0.1f * (float)(l / 2));
        for (int s = 0; s < n; ++s) {
            leg->segment[s] = v3(0.0f, -0.9f / (float)n, (s & 1) ? -0.02f : 0.02f);
            if (s == 0) leg->limit[s] = limit_of(CIK_LIMIT_SWING_TWIST, 0, -1, 0, -0.6f, 0.6f, 1.2f);
            else if (s & 1) leg->limit[s] = limit_of(CIK_LIMIT_HINGE, 1, 0, 0, 0.0f, 2.6f, 0.0f);
            else leg->limit[s] = limit_of(CIK_LIMIT_HINGE, 1, 0, 0, -2.6f, 0.0f, 0.0f);
        }
    }
}

/* The base body with a few fields changed: mostly still valid and of the
 * layout, now and then not (the library decides; the target only checks
 * consistency). */
static void rd_body(reader *r, const layout *ly, cik_herd_body *b)
{
    base_body(ly, b);
    int edits = rd_u8(r) % 8;
    for (int e = 0; e < edits; ++e) {
        uint8_t field = rd_u8(r), at = rd_u8(r);
        cik_herd_leg *l = &b->leg[at % CIK_HERD_MAX_LEGS];
        int j = (at >> 3) % CIK_HERD_MAX_SEGMENTS;
        switch (field % 16) {
        case 0: l->hip = v3(rd_small(r) / 8, rd_small(r) / 8, rd_small(r) / 8); break;
        case 1: l->segment[j] = v3(rd_small(r) / 8, rd_small(r) / 8, rd_small(r) / 8); break;
        case 2: b->forward = v3(rd_small(r), rd_small(r), rd_small(r)); break;
        case 3: /* vertical, zero or non-finite now and then */
            if (field & 16) b->forward = v3(0, rd_small(r), 0);
            else b->forward.x = rd_float(r);
            break;
        case 4: l->limit[j].type = (cik_limit_type)(rd_u8(r) % 5 == 4 ? 7 : rd_u8(r) % 3); break;
        case 5: l->limit[j].axis = v3(rd_small(r), rd_small(r), rd_small(r)); break;
        case 6: l->limit[j].min_angle = rd_small(r) / 2; break;
        case 7: l->limit[j].max_angle = rd_small(r) / 2; break;
        case 8: l->limit[j].swing_max = rd_small(r) / 2; break;
        case 9: l->limit[j].min_angle = rd_float(r); break;
        case 10: l->segment[j].z = rd_float(r); break;
        case 11: l->root = (int)(rd_u8(r) % 5) - 1; break; /* -1 .. 3 */
        case 12: l->segment_count = (int)(rd_u8(r) % 6); break; /* another layout, or none */
        case 13: b->leg_count = (int)(rd_u8(r) % 11); break; /* 0 .. 10 */
        case 14: /* a leg of length zero */
            for (int s = 0; s < CIK_HERD_MAX_SEGMENTS; ++s) l->segment[s] = v3(0, 0, 0);
            break;
        default: l->hip.y = rd_float(r); break;
        }
    }
}

/* Whether a body has the layout of the herd (leg count, segment counts). */
static int same_layout(const cik_herd_body *b, const layout *ly)
{
    if (b->leg_count != ly->legs) return 0;
    for (int l = 0; l < ly->legs; ++l)
        if (b->leg[l].segment_count != ly->segments[l]) return 0;
    return 1;
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

static void rd_foot_options(reader *r, cik_foot_options *o)
{
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
    if (f & 128) o->start = (int)(rd_u8(r) % 5) - 1; /* not used by a herd: any value */
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

/* The herd's options: the foot options, then the body's (each now and
 * then fuzzed: mostly within its range, sometimes anything). */
static void rd_options(reader *r, cik_herd_options *o)
{
    *o = cik_herd_default_options();
    rd_foot_options(r, &o->foot);
    uint8_t b = rd_u8(r);
    if (b & 1) o->max_raise = (b & 16) ? rd_float(r) : 0.005f * (float)rd_u8(r);
    if (b & 2) o->pitch_weight = (b & 16) ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 101);
    if (b & 4) o->roll_weight = (b & 16) ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 101);
    if (b & 8) o->max_tilt = (b & 16) ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 151);
}

/* A frame time: mostly 0 (the options') or a few ms, sometimes anything
 * (negative, NaN, infinite: refused). */
static float rd_dt(reader *r)
{
    uint8_t how = rd_u8(r);
    if (how >= 224) return rd_float(r);
    if (how >= 216) return -0.002f * (float)(1 + how % 8);
    return 0.002f * (float)(how % 32);
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

/* Everything about the herd the API shows, as bytes (herd_snapshot.h). */
static void snap_take(cik_herd *h, herd_snapshot *sn)
{
    cik_status st = herd_snapshot_take(h, sn);
    CHECK(st == CIK_OK, "snapshot: status %d", (int)st);
}

/* ------------------------------------------------------------------ */
/* Valid input and finite output                                       */

static int finite_within(float x, float bound) { return isfinite(x) && fabsf(x) <= bound; }

/* A pose or root quaternion the pipeline must cope with: finite
 * components, length between 1/4 and 4. */
static int quat_ok(float x, float y, float z, float w)
{
    if (!finite_within(x, 4) || !finite_within(y, 4) || !finite_within(z, 4) || !finite_within(w, 4))
        return 0;
    double n2 = (double)x * x + (double)y * y + (double)z * z + (double)w * w;
    return n2 >= 1.0 / 16.0 && n2 <= 16.0;
}

/* Both roots (the body's correction moves both), the floor, each leg's
 * weight and the rotations of its segments. */
static int character_valid(const cik_herd_streams *s, const cik_herd_body *b, int c)
{
    if (!finite_within(s->floor_y[c], 1e4f)) return 0;
    for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
        if (!finite_within(s->root_x[r][c], 1e4f) || !finite_within(s->root_y[r][c], 1e4f) ||
            !finite_within(s->root_z[r][c], 1e4f))
            return 0;
        if (!quat_ok(s->root_qx[r][c], s->root_qy[r][c], s->root_qz[r][c], s->root_qw[r][c])) return 0;
    }
    for (int l = 0; l < s->leg_count; ++l) {
        int f = s->leg_count * c + l;
        if (!isfinite(s->weight[f])) return 0;
        for (int j = 0; j < b->leg[l].segment_count; ++j)
            if (!quat_ok(s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f])) return 0;
    }
    return 1;
}

/* The legs' lengths, so that a valid leg's outputs have a bound. */
static int body_moderate(const cik_herd_body *b)
{
    for (int l = 0; l < b->leg_count; ++l) {
        const cik_herd_leg *leg = &b->leg[l];
        if (!finite_within(leg->hip.x, 1e3f) || !finite_within(leg->hip.y, 1e3f) || !finite_within(leg->hip.z, 1e3f))
            return 0;
        for (int s = 0; s < leg->segment_count; ++s)
            if (!finite_within(leg->segment[s].x, 1e3f) || !finite_within(leg->segment[s].y, 1e3f) ||
                !finite_within(leg->segment[s].z, 1e3f))
                return 0;
    }
    return 1;
}

/* `contacts`: the frame's options' (a weight from the animation's contacts
 * lies in [0, 1]). */
static void check_finite_outputs(cik_herd *h, int contacts)
{
    cik_herd_streams s;
    CHECK(cik_herd_streams_get(h, &s) == CIK_OK, "streams");
    for (int c = 0; c < s.character_count; ++c) {
        cik_herd_body b;
        CHECK(cik_herd_get_body(h, c, &b) == CIK_OK, "get_body %d", c);
        if (!character_valid(&s, &b, c) || !body_moderate(&b)) continue;
        CHECK(isfinite(s.body_height[c]) && isfinite(s.body_pitch[c]) && isfinite(s.body_roll[c]),
              "character %d: body height %g, pitch %g, roll %g", c, s.body_height[c], s.body_pitch[c],
              s.body_roll[c]);
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
            const float q[] = {s.solved_root_x[r][c],  s.solved_root_y[r][c],  s.solved_root_z[r][c],
                               s.solved_root_qx[r][c], s.solved_root_qy[r][c], s.solved_root_qz[r][c],
                               s.solved_root_qw[r][c]};
            for (size_t k = 0; k < sizeof q / sizeof q[0]; ++k)
                CHECK(isfinite(q[k]), "character %d: solved root %d's value %zu is %g", c, r, k, q[k]);
        }
        for (int l = 0; l < s.leg_count; ++l) {
            int f = s.leg_count * c + l, n = b.leg[l].segment_count;
            const float out[] = {s.anim_foot_x[f], s.anim_foot_y[f], s.anim_foot_z[f], s.probe_x[f],
                                 s.probe_z[f],     s.contact_y[f],   s.target_x[f],    s.target_y[f],
                                 s.target_z[f],    s.foot_x[f],      s.foot_y[f],      s.foot_z[f],
                                 s.passes[f]};
            for (size_t k = 0; k < sizeof out / sizeof out[0]; ++k)
                CHECK(isfinite(out[k]), "character %d leg %d: output %zu is %g", c, l, k, out[k]);
            CHECK((s.planted[f] == 0.0f || s.planted[f] == 1.0f) && (s.locked[f] == 0.0f || s.locked[f] == 1.0f),
                  "foot %d: planted %g, locked %g", f, s.planted[f], s.locked[f]);
            if (contacts == CIK_FOOT_CONTACTS_ANIMATION)
                CHECK(s.weight[f] >= 0.0f && s.weight[f] <= 1.0f, "foot %d: weight %g from the contacts", f,
                      s.weight[f]);
            for (int j = 0; j < n; ++j)
                CHECK(isfinite(s.solved_x[j][f]) && isfinite(s.solved_y[j][f]) && isfinite(s.solved_z[j][f]) &&
                          isfinite(s.solved_w[j][f]),
                      "character %d leg %d: solved rotation %d (%g %g %g %g)", c, l, j, s.solved_x[j][f],
                      s.solved_y[j][f], s.solved_z[j][f], s.solved_w[j][f]);
            const cik_batch *batch = cik_herd_batch(h, n);
            cik_result res;
            CHECK(batch && cik_batch_result(batch, cik_herd_chain_index(h, c, l), &res) == CIK_OK,
                  "character %d leg %d: no result", c, l);
            CHECK(isfinite(s.error[f]) || (res.flags & CIK_RESULT_SKIPPED),
                  "character %d leg %d: error %g, flags %u", c, l, s.error[f], res.flags);
            CHECK(isfinite(s.error[f]) == isfinite(res.error) || (isnan(s.error[f]) && isnan(res.error)),
                  "character %d leg %d: error %g, the batch's %g", c, l, s.error[f], res.error);
        }
    }
}

/* ------------------------------------------------------------------ */
/* The program                                                         */

enum {
    OP_SET_BODY,
    OP_WRITE,      /* one value into an input stream */
    OP_POSE,       /* a whole character posed (valid values) */
    OP_GROUND_NEW, /* a new heightfield */
    OP_PROBE,
    OP_GROUND,
    OP_PLACE,
    OP_SOLVE,
    OP_FRAME,
    OP_FRAME2, /* the frame again, more often */
    OP_FRAME3,
    OP_RESET,
    OP_MISC,
    OP_KINDS
};

/* The input streams a write may hit: per character 0..14 (each root's
 * seven, the floor), per foot 15.. (the poses, the weight, the ground). */
#define CHAR_STREAMS (7 * CIK_HERD_ROOTS + 1)
#define INPUT_STREAMS (CHAR_STREAMS + 4 * CIK_HERD_MAX_SEGMENTS + 2)
static float *input_stream(const cik_herd_streams *s, int k, int *per_foot)
{
    *per_foot = k >= CHAR_STREAMS;
    if (k < 7 * CIK_HERD_ROOTS) {
        int r = k / 7;
        float *c[] = {s->root_x[r], s->root_y[r], s->root_z[r], s->root_qx[r], s->root_qy[r], s->root_qz[r],
                      s->root_qw[r]};
        return c[k % 7];
    }
    if (k == 7 * CIK_HERD_ROOTS) return s->floor_y;
    k -= CHAR_STREAMS;
    if (k < 4 * CIK_HERD_MAX_SEGMENTS) {
        int j = k % CIK_HERD_MAX_SEGMENTS;
        float *q[] = {s->pose_x[j], s->pose_y[j], s->pose_z[j], s->pose_w[j]};
        return q[k / CIK_HERD_MAX_SEGMENTS];
    }
    return k == 4 * CIK_HERD_MAX_SEGMENTS ? s->weight : s->contact_y;
}

typedef struct world {
    cik_herd *a, *b; /* b gets only what a accepted */
    cik_herd_streams sa, sb;
    layout ly;
    ground g;
    herd_snapshot s0, s1;
    int frames;
} world;

/* A call on both herds: a refused one must change nothing on a, and is
 * not made on b; an accepted one must be accepted by b too; then a and b
 * must look the same. */
#define BOTH(call_a, call_b, what)                                                                 \
    do {                                                                                           \
        snap_take(w->a, &w->s0);                                                                   \
        cik_status st_ = (call_a);                                                                 \
        if (st_ != CIK_OK) {                                                                       \
            snap_take(w->a, &w->s1);                                                               \
            CHECK(herd_snapshot_same(&w->s0, &w->s1), "a refused %s (status %d) changed the herd", \
                  what, (int)st_);                                                                 \
        } else {                                                                                   \
            cik_status sb_ = (call_b);                                                             \
            CHECK(sb_ == st_, "%s: %d on one herd, %d on its twin", what, (int)st_, (int)sb_);     \
        }                                                                                          \
        snap_take(w->b, &w->s1);                                                                   \
        snap_take(w->a, &w->s0);                                                                   \
        CHECK(herd_snapshot_same(&w->s0, &w->s1), "after %s (status %d) the twins differ", what,   \
              (int)st_);                                                                           \
        last = st_;                                                                                \
    } while (0)

/* Near the identity mostly (a standing pose: feet near the floor), any
 * rotation now and then. */
static cik_quat rd_joint(reader *r)
{
    uint8_t k = rd_u8(r);
    if (k < 32) return rd_unit(r);
    return unit_from(((int)rd_u8(r) - 128) / 512.0, ((int)rd_u8(r) - 128) / 512.0, ((int)rd_u8(r) - 128) / 512.0,
                     1.0);
}

static void pose_character(reader *r, world *w, int c)
{
    const int L = w->sa.leg_count;
    float x = rd_small(r), y = 0.9f + rd_small(r) / 64, z = rd_small(r), floor = rd_small(r) / 32;
    float chest_dy = rd_small(r) / 64;
    cik_quat pq[CIK_HERD_ROOTS] = {rd_joint(r), rd_joint(r)};
    float scale = (rd_u8(r) & 7) ? 1.0f : 0.5f + (float)(rd_u8(r) % 64) / 32.0f; /* non-unit now and then */
    for (int t = 0; t < 2; ++t) {
        cik_herd_streams *s = t ? &w->sb : &w->sa;
        for (int rt = 0; rt < CIK_HERD_ROOTS; ++rt) {
            s->root_x[rt][c] = x;
            s->root_y[rt][c] = y + (rt ? chest_dy : 0.0f);
            s->root_z[rt][c] = z + (rt ? 0.8f : 0.0f);
            s->root_qx[rt][c] = pq[rt].x * scale;
            s->root_qy[rt][c] = pq[rt].y * scale;
            s->root_qz[rt][c] = pq[rt].z * scale;
            s->root_qw[rt][c] = pq[rt].w * scale;
        }
        s->floor_y[c] = floor;
    }
    for (int l = 0; l < L; ++l) {
        int f = L * c + l;
        float wt = rd_small(r) / 4; /* [-2, 2): outside [0, 1] too */
        cik_quat q[CIK_HERD_MAX_SEGMENTS];
        for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j) q[j] = rd_joint(r);
        for (int t = 0; t < 2; ++t) {
            cik_herd_streams *s = t ? &w->sb : &w->sa;
            s->weight[f] = wt;
            for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j) {
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
    const int C = w->sa.character_count, L = w->sa.leg_count;
    cik_status last = CIK_OK;
    uint8_t kind = rd_u8(r) % OP_KINDS;
    if ((kind == OP_SOLVE || kind == OP_FRAME || kind == OP_FRAME2 || kind == OP_FRAME3) && ++w->frames > MAX_FRAMES)
        kind = OP_PROBE;
    switch (kind) {
    case OP_SET_BODY: {
        cik_herd_body body;
        rd_body(r, &w->ly, &body);
        uint8_t ci = rd_u8(r);
        int c = ci < 240 ? ci % C : (ci & 1 ? C : -1);
        BOTH(cik_herd_set_body(w->a, c, &body), cik_herd_set_body(w->b, c, &body), "set_body");
        /* create agrees with set_body on a body of the herd's layout, and
         * leaves *out alone when it refuses */
        if (c >= 0 && c < C && same_layout(&body, &w->ly)) {
            cik_herd *mark = (cik_herd *)&w->g, *out = mark;
            cik_status cs = cik_herd_create(1, &body, &out);
            CHECK(cs == last, "create says %d, set_body %d", (int)cs, (int)last);
            if (cs == CIK_OK) cik_herd_destroy(out);
            else CHECK(out == mark, "a refused create wrote *out");
        }
        break;
    }
    case OP_WRITE: {
        int per_foot, k = rd_u8(r) % INPUT_STREAMS;
        float *sa = input_stream(&w->sa, k, &per_foot), *sb = input_stream(&w->sb, k, &per_foot);
        uint16_t at = (uint16_t)(rd_u8(r) | rd_u8(r) << 8);
        int index = per_foot ? at % (L * C) : at % C;
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
        cik_herd_options o;
        rd_options(r, &o);
        const cik_herd_options *op = (rd_u8(r) & 15) == 0 ? NULL : &o;
        float dt = rd_dt(r);
        BOTH(cik_herd_probe(w->a, op, dt), cik_herd_probe(w->b, op, dt), "probe");
        break;
    }
    case OP_GROUND: {
        if (!w->g.drawn) rd_ground(r, &w->g);
        cik_herd_options o;
        rd_options(r, &o);
        const cik_herd_options *op = (rd_u8(r) & 3) == 0 ? NULL : &o;
        BOTH(cik_herd_ground_heightfield(w->a, &w->g.hf, op), cik_herd_ground_heightfield(w->b, &w->g.hf, op),
             "ground");
        break;
    }
    case OP_PLACE:
    case OP_SOLVE: {
        cik_herd_options o;
        rd_options(r, &o);
        const cik_herd_options *op = (rd_u8(r) & 15) == 0 ? NULL : &o;
        if (kind == OP_PLACE) {
            float dt = rd_dt(r);
            BOTH(cik_herd_place(w->a, op, dt), cik_herd_place(w->b, op, dt), "place");
        } else {
            BOTH(cik_herd_solve(w->a, op), cik_herd_solve(w->b, op), "solve");
        }
        break;
    }
    case OP_FRAME:
    case OP_FRAME2:
    case OP_FRAME3: {
        cik_herd_options o;
        rd_options(r, &o);
        if (!w->g.drawn) rd_ground(r, &w->g);
        uint8_t how = rd_u8(r);
        const cik_heightfield *hf = how == 0 ? NULL : &w->g.hf;
        const cik_herd_options *op = how == 1 ? NULL : &o;
        float dt = rd_dt(r);
        BOTH(cik_herd_frame(w->a, hf, op, dt), cik_herd_frame(w->b, hf, op, dt), "frame");
        if (last == CIK_OK && w->g.valid_heights)
            check_finite_outputs(w->a, op ? o.foot.contacts : CIK_FOOT_CONTACTS_ANIMATION);
        break;
    }
    case OP_RESET: {
        uint8_t how = rd_u8(r);
        if (how & 1) {
            BOTH(cik_herd_reset(w->a), cik_herd_reset(w->b), "reset");
        } else {
            int c = how < 224 ? (int)(how >> 1) % C : (how & 2 ? C : -1 - (how & 4));
            BOTH(cik_herd_reset_character(w->a, c), cik_herd_reset_character(w->b, c), "reset_character");
            CHECK((last == CIK_OK) == (c >= 0 && c < C), "reset_character(%d) of %d: %d", c, C, (int)last);
        }
        break;
    }
    default: {
        /* calls that must refuse: bad indices, NULL pointers; the
         * layout's queries */
        cik_herd_body body;
        cik_herd_streams s;
        CHECK(cik_herd_get_body(w->a, C, &body) == CIK_ERROR_ARGUMENT, "get_body past the end");
        CHECK(cik_herd_get_body(w->a, -1, &body) == CIK_ERROR_ARGUMENT, "get_body -1");
        CHECK(cik_herd_get_body(w->a, 0, NULL) == CIK_ERROR_ARGUMENT, "get_body NULL");
        CHECK(cik_herd_streams_get(NULL, &s) == CIK_ERROR_ARGUMENT, "streams NULL");
        CHECK(cik_herd_streams_get(w->a, NULL) == CIK_ERROR_ARGUMENT, "streams into NULL");
        CHECK(cik_herd_probe(NULL, NULL, 0.0f) == CIK_ERROR_ARGUMENT, "probe NULL");
        CHECK(cik_herd_frame(NULL, &w->g.hf, NULL, 0.0f) == CIK_ERROR_ARGUMENT, "frame NULL");
        CHECK(cik_herd_reset(NULL) == CIK_ERROR_ARGUMENT, "reset NULL");
        CHECK(cik_herd_set_body(NULL, 0, &body) == CIK_ERROR_ARGUMENT, "set_body on NULL");
        CHECK(cik_herd_character_count(w->a) == C && cik_herd_leg_count(w->a) == L, "counts");
        CHECK(cik_herd_character_count(NULL) == 0 && cik_herd_leg_count(NULL) == 0, "counts of NULL");
        CHECK(cik_herd_batch(w->a, 1) == NULL && cik_herd_batch(w->a, CIK_HERD_MAX_SEGMENTS + 1) == NULL,
              "a batch of a joint count out of range");
        CHECK(cik_herd_chain_index(w->a, C, 0) == -1 && cik_herd_chain_index(w->a, 0, L) == -1 &&
                  cik_herd_chain_index(w->a, -1, 0) == -1,
              "chain index out of range");
        /* every leg has its own chain in the batch of its shape */
        int per[CIK_HERD_MAX_SEGMENTS + 1] = {0};
        for (int l = 0; l < L; ++l) per[w->ly.segments[l]]++;
        for (int n = 2; n <= CIK_HERD_MAX_SEGMENTS; ++n) {
            const cik_batch *b = cik_herd_batch(w->a, n);
            CHECK((b != NULL) == (per[n] > 0), "batch of %d joints: %p for %d legs", n, (const void *)b, per[n]);
            if (b) CHECK(cik_batch_chain_count(b) == C * per[n] && cik_batch_joint_count(b) == n, "batch of %d", n);
        }
        uint8_t c = rd_u8(r);
        for (int l = 0; l < L; ++l) {
            int i = cik_herd_chain_index(w->a, c % C, l);
            CHECK(i >= 0 && i < C * per[w->ly.segments[l]], "chain index %d", i);
            for (int m = 0; m < l; ++m)
                if (w->ly.segments[m] == w->ly.segments[l])
                    CHECK(cik_herd_chain_index(w->a, c % C, m) != i, "legs %d and %d share chain %d", m, l, i);
        }
        BOTH(cik_herd_set_body(w->a, 0, NULL), cik_herd_set_body(w->b, 0, NULL), "set_body NULL");
        BOTH(cik_herd_ground_heightfield(w->a, NULL, NULL), cik_herd_ground_heightfield(w->b, NULL, NULL),
             "ground NULL");
        BOTH(cik_herd_frame(w->a, NULL, NULL, 0.0f), cik_herd_frame(w->b, NULL, NULL, 0.0f), "frame without ground");
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
    /* mostly small herds (fast runs), now and then up to 300 characters
     * (several chunks of 64, a vector-filling remainder) */
    int characters = sz < 200 ? 1 + sz % 24 : sz < 240 ? 25 + sz % 56 : 81 + (int)(rd_u8(r) % 220);
    rd_layout(r, &w->ly);
    cik_herd_body body;
    rd_body(r, &w->ly, &body);
    cik_herd *mark = (cik_herd *)w, *out = mark;
    cik_status st = cik_herd_create(characters, &body, &out);
    if (st != CIK_OK) {
        CHECK(out == mark, "a refused create (status %d) wrote *out", (int)st);
        base_body(&w->ly, &body);
        st = cik_herd_create(characters, &body, &out);
        CHECK(st == CIK_OK, "create of %d characters with the base body: %d", characters, (int)st);
    } else if (!same_layout(&body, &w->ly)) {
        /* an edit gave another layout, which the library accepted: it is
         * the herd's */
        memset(&w->ly, 0, sizeof w->ly);
        w->ly.legs = body.leg_count;
        for (int l = 0; l < body.leg_count; ++l) {
            w->ly.segments[l] = body.leg[l].segment_count;
            w->ly.root[l] = body.leg[l].root;
        }
    }
    w->a = out;
    CHECK(cik_herd_create(characters, &body, &w->b) == CIK_OK, "the twin");
    CHECK(cik_herd_streams_get(w->a, &w->sa) == CIK_OK && cik_herd_streams_get(w->b, &w->sb) == CIK_OK, "streams");
    CHECK(w->sa.leg_count == w->ly.legs && w->sa.foot_count == w->ly.legs * characters, "the herd's counts");
    w->frames = 0;
    /* the start pose from a generator seeded by one byte, so that the
     * input's bytes go to the calls */
    uint32_t seed = 0x9e3779b9u * (1u + rd_u8(r));
    for (int c = 0; c < characters; ++c) {
        uint8_t gen[160];
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
        BOTH(cik_herd_frame(w->a, &w->g.hf, NULL, 0.0f), cik_herd_frame(w->b, &w->g.hf, NULL, 0.0f), "last frame");
        CHECK(last == CIK_OK, "the last frame was refused: %d", (int)last);
        check_finite_outputs(w->a, CIK_FOOT_CONTACTS_ANIMATION);
    }
    cik_herd_destroy(w->a);
    cik_herd_destroy(w->b);
    ground_free(&w->g);
    return 0;
}
