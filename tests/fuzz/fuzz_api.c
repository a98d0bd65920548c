/*
 * libFuzzer target for crowdik's public API.
 *
 * The input bytes become a batch (chain count, joint count, generated start
 * chains) and a list of operations: set_chain with mutated fields, the other
 * setters, raw writes through cik_batch_streams (NaN with payloads,
 * infinities, denormals, huge and zero values, scaled quaternions), solves
 * with fuzzed options on a randomly chosen backend, and calls with bad
 * indices and null pointers. Properties are checked inside the target and a
 * violation aborts:
 *
 *   - a refused call changes nothing (every chain and result, bitwise);
 *   - an accepted setter call changes only what it names, and the setters
 *     accept exactly what the header documents (away from the tolerance
 *     boundaries);
 *   - cik_solve refuses bad options / unavailable backends, else after the
 *     solve every chain with valid data (finite, within CIK_MAX_COORDINATE,
 *     near-unit rotations) is not SKIPPED, has a finite error, a pass count
 *     within max_iterations, and finite rotations that are unit length
 *     (within 1e-3) unless left bitwise as they were; nothing but rotations
 *     and results changes;
 *   - every chain with invalid data is SKIPPED with a NaN error and its pose
 *     bit-for-bit untouched;
 *   - the other chains match, bitwise, a solve (same backend and options) of
 *     a batch rebuilt by replaying the same operations in which every
 *     skipped chain is replaced by a valid default chain.
 *
 * Build: tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#define FUZZ_NAME "fuzz_api"
#include "fuzz_common.h"
#include "workloads.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHAINS 40
/* Long inputs are long call sequences: every op reads a few bytes (3 to
 * about 60), so run.sh's -max_len (16384) holds up to about MAX_OPS of them;
 * checked solves replay the program so far, hence fewer of those. */
#define MAX_OPS 1024
#define MAX_SOLVES 16
#define PI_F 3.14159265358979f

/* ------------------------------------------------------------------ */
/* Reading the input (the reader and CHECK: fuzz_common.h)             */


/* Values that break numeric code, plus ordinary ones so that valid chains
 * stay common. */
static float interesting(unsigned k)
{
    static const uint32_t special_bits[] = {
        0x7fc00000u, /* quiet NaN */
        0xffc00000u, /* negative quiet NaN */
        0x7f800001u, /* signalling NaN */
        0x7fc0beefu, /* NaN with a payload */
        0x7f800000u, /* +inf */
        0xff800000u, /* -inf */
        0x00000001u, /* smallest denormal */
        0x80000001u, /* negative denormal */
        0x007fffffu, /* largest denormal */
        0x80000000u, /* -0 */
        0x7f7fffffu, /* FLT_MAX */
        0xff7fffffu, /* -FLT_MAX */
        0x4cbebc20u, /* 1e8 == CIK_MAX_COORDINATE */
        0x4cbebc21u, /* just beyond it */
        0xccbebc20u, /* -1e8 */
        0xccbebc21u, /* just beyond -1e8 */
        0x40490fdbu, /* pi as a float */
        0x40490fdcu, /* just above pi */
        0xc0490fdbu, /* -pi */
        0xc0490fdcu, /* just below -pi */
    };
    static const float plain[] = {
        0.0f,  1.0f,   -1.0f, 0.5f,  -0.5f, 0.25f,  2.0f,   -2.0f,   0.1f,  -0.3f, 0.7071068f,
        1e-3f, 1e-6f,  1e-7f, 1e-12f, 3.0f, 10.0f,  -10.0f, 100.0f,  1e3f,  1e6f,  -1e6f,
        1e7f,  5e7f,   1e9f,  1e12f, 1e20f, 1e30f,  1e38f,  -1e38f,  1e-30f, 1e-38f,
        1.5f,  0.9f,   0.45f, 0.42f, 0.15f, -0.42f, 1.01f,  1.0104f, 1.0106f, 0.989f,
    };
    return pick_value(k, special_bits, sizeof special_bits / sizeof special_bits[0], plain,
                      sizeof plain / sizeof plain[0]);
}

/* A fuzzed float: mostly from the tables, sometimes raw bits. */
static float rd_float(reader *r)
{
    uint8_t sel = rd_u8(r);
    if (sel >= 224) return bits_to_float(rd_u32(r));
    if (sel >= 112) return interesting(sel);
    /* small ordinary values keep most chains valid */
    return ((float)sel - 56.0f) / 16.0f;
}

static cik_vec3 rd_vec(reader *r)
{
    cik_vec3 v;
    v.x = rd_float(r);
    v.y = rd_float(r);
    v.z = rd_float(r);
    return v;
}

static const float scale_table[] = {
    1.0f,  1.0004f, 0.9996f, 1.005f, 0.995f, 1.0099f, 0.9901f, 1.0101f, 0.9899f, 1.0104f,
    1.0106f, 0.9894f, 0.9896f, 1.02f, 0.5f, 2.0f,    0.0f,    -1.0f,   1e-20f, 1e20f,
};

/* A quaternion: unit, a unit one scaled by a factor from the table, or raw
 * fuzzed components. */
static cik_quat rd_quat(reader *r)
{
    uint8_t mode = rd_u8(r) % 4;
    if (mode == 3) {
        cik_quat q;
        q.x = rd_float(r);
        q.y = rd_float(r);
        q.z = rd_float(r);
        q.w = rd_float(r);
        return q;
    }
    double x = ((int)rd_u8(r) - 128) / 64.0, y = ((int)rd_u8(r) - 128) / 64.0,
           z = ((int)rd_u8(r) - 128) / 64.0, w = ((int)rd_u8(r) - 128) / 64.0;
    cik_quat q = unit_from(x, y, z, w);
    if (mode == 0) return q;
    float s = scale_table[rd_u8(r) % (sizeof scale_table / sizeof scale_table[0])];
    q.x *= s;
    q.y *= s;
    q.z *= s;
    q.w *= s;
    return q;
}

/* ------------------------------------------------------------------ */
/* The operations                                                      */

enum op_kind {
    OP_SET_CHAIN,
    OP_SET_TARGET,
    OP_SET_ROOT,
    OP_SET_ROTATION,
    OP_BULK_WRITE,
    OP_BULK_SCALE,
    OP_SOLVE,
    OP_MISC,
    OP_KINDS
};

typedef struct op {
    int kind;
    int index;
    int joint;
    int stream; /* OP_BULK_WRITE: which stream value; OP_BULK_SCALE: -1 root, else joint */
    float value;
    cik_vec3 v;
    cik_quat q;
    cik_options options;
    cik_chain chain;
} op;

typedef struct program {
    int chain_count, joint_count;
    int kind; /* wl_kind for the start chains */
    uint64_t seed;
    int op_count;
    op ops[MAX_OPS + 1]; /* + the closing solve */
} program;

/* An index: mostly a valid one, sometimes out of range or negative. */
static int rd_index(reader *r, int n)
{
    uint8_t b = rd_u8(r);
    if (b < 224 && n > 0) return b % n;
    switch (b % 4) {
    case 0: return -1;
    case 1: return n;
    case 2: return n + (b % 7);
    default: return INT32_MIN + (b % 3);
    }
}

static cik_backend pick_backend(reader *r)
{
    static const cik_backend usable[] = {CIK_BACKEND_REFERENCE, CIK_BACKEND_SCALAR, CIK_BACKEND_SSE,
                                         CIK_BACKEND_AVX2, CIK_BACKEND_AVX512};
    uint8_t b = rd_u8(r);
    if (b >= 240) {
        /* AUTO, unavailable or out-of-range values: refused or accepted */
        static const int odd[] = {CIK_BACKEND_AUTO, CIK_BACKEND_NEON, CIK_BACKEND_COUNT, -1, 1000};
        return (cik_backend)odd[b % 5];
    }
    /* a random available one among REFERENCE..AVX512 */
    int start = b % 5;
    for (int k = 0; k < 5; ++k) {
        cik_backend be = usable[(start + k) % 5];
        if (cik_backend_available(be)) return be;
    }
    return CIK_BACKEND_REFERENCE;
}

static void rd_options(reader *r, cik_options *o)
{
    *o = cik_default_options();
    uint8_t t = rd_u8(r);
    if (t >= 200) o->threshold = rd_float(r); /* 0, negative, NaN, inf, denormal, huge */
    else if (t >= 100) o->threshold = 1e-4f * (float)(t - 99);
    o->max_iterations = (int)(rd_u8(r) % 34) - 2; /* -2..31 */
    o->backend = pick_backend(r);
    uint8_t th = rd_u8(r);
    o->threads = th >= 250 ? -1 : th % 4;
    /* the convergence options: plain CCD, the defaults, or drawn (now and
     * then out of range) */
    uint8_t cv = rd_u8(r);
    if (cv < 64) {
        o->ccd.gain = o->ccd.max_step = 0.0f;
        o->ccd.hinge_aware = 0;
        o->ccd.limb = CIK_LIMB_OFF;
        o->ccd.stop_unreachable = 0;
        o->ccd.keep_best = 0;
    } else if (cv >= 192) {
        o->ccd.gain = cv >= 250 ? rd_float(r) : 0.5f + 0.01f * (float)(rd_u8(r) % 150);
        o->ccd.max_step = cv == 249 ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 40);
        o->ccd.weight[rd_u8(r) % CIK_MAX_JOINTS] = cv == 248 ? rd_float(r) : 0.02f * (float)(rd_u8(r) % 100);
        o->ccd.hinge_aware = cv == 247 ? 3 : rd_u8(r) & 1;
        o->ccd.limb = cv == 246 ? 7 : rd_u8(r) & 1;
        o->ccd.stop_unreachable = cv == 245 ? 2 : (int)(cv & 1);
        o->ccd.keep_best = cv == 244 ? -1 : (int)((cv >> 1) & 1);
    }
}

/* A chain for set_chain: a generated one, then a few fields overwritten. */
static void rd_chain(reader *r, const program *pg, cik_chain *c)
{
    uint8_t src = rd_u8(r);
    int J = pg->joint_count;
    wl_chain((wl_kind)(WL_RANDOM + src % 3), pg->seed + 1 + (src >> 2), src, J, c);
    if (rd_u8(r) >= 250) c->joint_count = (rd_u8(r) % 20) - 1; /* mismatch */
    int edits = rd_u8(r) % 6;
    for (int e = 0; e < edits; ++e) {
        uint8_t field = rd_u8(r);
        int j = (field >> 4) % J;
        switch (field % 16) {
        case 14: c->pole = rd_vec(r); break;
        case 15: c->pole_weight = rd_u8(r) >= 200 ? rd_float(r) : 0.01f * (float)(rd_u8(r) % 101); break;
        case 0: c->target = rd_vec(r); break;
        case 1: c->root_position = rd_vec(r); break;
        case 2: c->root_rotation = rd_quat(r); break;
        case 3: c->effector = rd_vec(r); break;
        case 4: c->offset[j] = rd_vec(r); break;
        case 5: c->rotation[j] = rd_quat(r); break;
        case 6: c->limit[j].type = (cik_limit_type)(int)(rd_u8(r) % 5 == 4 ? -1 : rd_u8(r) % 4); break;
        case 7: c->limit[j].axis = rd_vec(r); break;
        case 8: c->limit[j].min_angle = rd_float(r); break;
        case 9: c->limit[j].max_angle = rd_float(r); break;
        case 10: c->limit[j].swing_max = rd_float(r); break;
        case 11: c->target.x = rd_float(r); break;
        case 12: c->offset[j].y = rd_float(r); break;
        default: c->rotation[j].w = rd_float(r); break;
        }
    }
}

static void parse(const uint8_t *data, size_t size, program *pg)
{
    reader rr = {data, size}, *r = &rr;
    memset(pg, 0, sizeof *pg);
    pg->chain_count = rd_u8(r) % MAX_CHAINS;
    pg->joint_count = 1 + rd_u8(r) % CIK_MAX_JOINTS;
    pg->kind = WL_RANDOM + rd_u8(r) % 3;
    pg->seed = rd_u8(r);
    int n = pg->chain_count, J = pg->joint_count, solves = 0;
    while (rr.n > 0 && pg->op_count < MAX_OPS) {
        op *o = &pg->ops[pg->op_count];
        memset(o, 0, sizeof *o);
        o->kind = rd_u8(r) % OP_KINDS;
        if (o->kind == OP_SOLVE && ++solves > MAX_SOLVES) o->kind = OP_MISC;
        switch (o->kind) {
        case OP_SET_CHAIN:
            o->index = rd_index(r, n);
            rd_chain(r, pg, &o->chain);
            break;
        case OP_SET_TARGET:
            o->index = rd_index(r, n);
            o->v = rd_vec(r);
            break;
        case OP_SET_ROOT:
            o->index = rd_index(r, n);
            o->v = rd_vec(r);
            o->q = rd_quat(r);
            break;
        case OP_SET_ROTATION:
            o->index = rd_index(r, n);
            o->joint = (int)(rd_u8(r) % (J + 2)) - 1;
            o->q = rd_quat(r);
            break;
        case OP_BULK_WRITE:
            o->index = n > 0 ? rd_u8(r) % n : 0;
            o->stream = rd_u8(r) % (10 + 4 * J + 4);
            o->value = rd_float(r);
            break;
        case OP_BULK_SCALE:
            o->index = n > 0 ? rd_u8(r) % n : 0;
            o->stream = (int)(rd_u8(r) % (J + 1)) - 1;
            o->value = rd_u8(r) >= 200 ? rd_float(r)
                                       : scale_table[rd_u8(r) % (sizeof scale_table / sizeof scale_table[0])];
            break;
        case OP_SOLVE: rd_options(r, &o->options); break;
        default:
            o->index = rd_index(r, n);
            o->joint = (int)(rd_u8(r) % (J + 2)) - 1;
            break;
        }
        pg->op_count++;
    }
}

/* ------------------------------------------------------------------ */
/* Snapshots                                                           */

typedef struct snapshot {
    int n;
    cik_chain chain[MAX_CHAINS];
    cik_result result[MAX_CHAINS];
} snapshot;

static void take(const cik_batch *b, snapshot *s)
{
    s->n = cik_batch_chain_count(b);
    for (int i = 0; i < s->n; ++i) {
        memset(&s->chain[i], 0, sizeof s->chain[i]);
        CHECK(cik_batch_get_chain(b, i, &s->chain[i]) == CIK_OK, "get_chain %d", i);
        CHECK(cik_batch_result(b, i, &s->result[i]) == CIK_OK, "result %d", i);
    }
}

static int same_chain(const cik_chain *a, const cik_chain *b) { return memcmp(a, b, sizeof *a) == 0; }
static int same_result(const cik_result *a, const cik_result *b) { return memcmp(a, b, sizeof *a) == 0; }

static void expect_unchanged(const snapshot *before, const snapshot *after, const char *what)
{
    CHECK(before->n == after->n, "%s: chain count changed", what);
    for (int i = 0; i < before->n; ++i) {
        CHECK(same_chain(&before->chain[i], &after->chain[i]), "%s changed chain %d", what, i);
        CHECK(same_result(&before->result[i], &after->result[i]), "%s changed result %d", what, i);
    }
}

/* ------------------------------------------------------------------ */
/* What the header promises about data                                 */

enum { NO = 0, YES = 1, MAYBE = 2 };

static int finite3(cik_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static int in_range3(cik_vec3 v)
{
    return fabsf(v.x) <= CIK_MAX_COORDINATE && fabsf(v.y) <= CIK_MAX_COORDINATE &&
           fabsf(v.z) <= CIK_MAX_COORDINATE;
}
static double qnorm2(cik_quat q)
{
    return (double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w;
}
static int finite4(cik_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

static int and3(int a, int b)
{
    if (a == NO || b == NO) return NO;
    if (a == MAYBE || b == MAYBE) return MAYBE;
    return YES;
}

/* At solve time: squared length within CIK_UNIT_SQUARED_TOLERANCE of 1
 * (the library computes it in float, so a thin band is either). */
static int solve_quat_ok(cik_quat q)
{
    if (!finite4(q)) return NO;
    double d = fabs(qnorm2(q) - 1.0);
    if (!(d == d)) return NO;
    if (fabs(d - CIK_UNIT_SQUARED_TOLERANCE) < 1e-4) return MAYBE;
    return d <= CIK_UNIT_SQUARED_TOLERANCE ? YES : NO;
}

static int solve_vec_ok(cik_vec3 v) { return finite3(v) && in_range3(v) ? YES : NO; }

static int solve_chain_ok(const cik_chain *c)
{
    int ok = and3(solve_vec_ok(c->target), solve_vec_ok(c->root_position));
    ok = and3(ok, solve_quat_ok(c->root_rotation));
    ok = and3(ok, solve_vec_ok(c->effector));
    ok = and3(ok, solve_vec_ok(c->pole));
    ok = and3(ok, c->pole_weight >= 0.0f && c->pole_weight <= 1.0f ? YES : NO);
    for (int j = 0; j < c->joint_count; ++j) {
        ok = and3(ok, solve_vec_ok(c->offset[j]));
        ok = and3(ok, solve_quat_ok(c->rotation[j]));
    }
    return ok;
}

/* Setters: length within 1e-2 of 1 (normalised when accepted). */
static int set_quat_ok(cik_quat q)
{
    if (!finite4(q)) return NO;
    double d = fabs(sqrt(qnorm2(q)) - 1.0);
    if (!(d == d)) return NO;
    if (fabs(d - 1e-2) < 1e-5) return MAYBE;
    return d <= 1e-2 ? YES : NO;
}

static int angle_ok(float a) { return a >= -PI_F && a <= PI_F; }

static int set_limit_ok(const cik_limit *l)
{
    if (!finite3(l->axis) || !isfinite(l->min_angle) || !isfinite(l->max_angle) ||
        !isfinite(l->swing_max))
        return NO;
    if (l->type == CIK_LIMIT_NONE) return YES;
    if (l->type != CIK_LIMIT_HINGE && l->type != CIK_LIMIT_SWING_TWIST) return NO;
    double n = sqrt((double)l->axis.x * l->axis.x + (double)l->axis.y * l->axis.y +
                    (double)l->axis.z * l->axis.z);
    if (!angle_ok(l->min_angle) || !angle_ok(l->max_angle) || l->min_angle > l->max_angle) return NO;
    if (l->type == CIK_LIMIT_SWING_TWIST && !(l->swing_max >= 0.0f && l->swing_max <= PI_F)) return NO;
    if (n == 0.0) return NO;
    if (n < 1e-6) return MAYBE; /* "a zero axis": how small counts as zero is the library's call */
    return YES;
}

static int set_chain_ok(const cik_chain *c, int J)
{
    if (c->joint_count != J) return NO;
    int ok = finite3(c->target) && in_range3(c->target) && finite3(c->root_position) &&
                     in_range3(c->root_position) && finite3(c->effector) && in_range3(c->effector) &&
                     finite3(c->pole) && in_range3(c->pole) && c->pole_weight >= 0.0f && c->pole_weight <= 1.0f
                 ? YES
                 : NO;
    ok = and3(ok, set_quat_ok(c->root_rotation));
    for (int j = 0; j < J; ++j) {
        ok = and3(ok, finite3(c->offset[j]) && in_range3(c->offset[j]) ? YES : NO);
        ok = and3(ok, set_quat_ok(c->rotation[j]));
        ok = and3(ok, set_limit_ok(&c->limit[j]));
    }
    return ok;
}

static int same_vec(cik_vec3 a, cik_vec3 b) { return memcmp(&a, &b, sizeof a) == 0; }

/* An accepted quaternion is stored normalised: unit and along the input. */
static void expect_normalised(cik_quat in, cik_quat out, const char *what)
{
    double n = sqrt(qnorm2(in));
    double e = fabs(out.x - in.x / n) + fabs(out.y - in.y / n) + fabs(out.z - in.z / n) +
               fabs(out.w - in.w / n);
    CHECK(e < 1e-6, "%s: stored (%g %g %g %g) for (%g %g %g %g)", what, out.x, out.y, out.z,
          out.w, in.x, in.y, in.z, in.w);
}

static void expect_unit_axis(cik_vec3 in, cik_vec3 out)
{
    double n = sqrt((double)in.x * in.x + (double)in.y * in.y + (double)in.z * in.z);
    double e = fabs(out.x - in.x / n) + fabs(out.y - in.y / n) + fabs(out.z - in.z / n);
    CHECK(e < 1e-6, "limit axis stored (%g %g %g) for (%g %g %g)", out.x, out.y, out.z, in.x, in.y,
          in.z);
}

static const char *status_ok(cik_status st) { return cik_status_string(st); }

static void expect_refusal_status(cik_status st)
{
    CHECK(st >= CIK_ERROR_ARGUMENT && st <= CIK_ERROR_RANGE, "unknown status %d", (int)st);
    const char *s = cik_status_string(st);
    CHECK(s && s[0], "no text for status %d", (int)st);
}

/* ------------------------------------------------------------------ */
/* Running the program                                                 */

static cik_chain default_chain(int J)
{
    cik_chain c;
    memset(&c, 0, sizeof c);
    c.joint_count = J;
    c.root_rotation.w = 1.0f;
    for (int j = 0; j < J; ++j) c.rotation[j].w = 1.0f;
    return c;
}

static float *stream_at(const cik_streams *s, int k)
{
    float *chain_level[10] = {s->target_x,        s->target_y,        s->target_z,
                              s->root_position_x, s->root_position_y, s->root_position_z,
                              s->root_rotation_x, s->root_rotation_y, s->root_rotation_z,
                              s->root_rotation_w};
    if (k < 10) return chain_level[k];
    k -= 10;
    if (k >= 4 * s->joint_count) {
        /* the pole streams, after the rotations */
        float *pole[4] = {s->pole_x, s->pole_y, s->pole_z, s->pole_weight};
        return pole[(k - 4 * s->joint_count) % 4];
    }
    int j = k / 4;
    switch (k % 4) {
    case 0: return s->rotation_x[j];
    case 1: return s->rotation_y[j];
    case 2: return s->rotation_z[j];
    default: return s->rotation_w[j];
    }
}

static cik_status expected_solve_status(const cik_options *o)
{
    if (!(o->threshold > 0.0f) || !isfinite(o->threshold) || o->max_iterations < 0 || o->threads < 0)
        return CIK_ERROR_OPTIONS;
    if (!(o->ccd.gain >= 0.0f && o->ccd.gain <= 2.0f) || !(o->ccd.max_step >= 0.0f && o->ccd.max_step <= 3.14159265f))
        return CIK_ERROR_OPTIONS;
    for (int j = 0; j < CIK_MAX_JOINTS; ++j)
        if (!(o->ccd.weight[j] >= 0.0f && o->ccd.weight[j] <= 2.0f)) return CIK_ERROR_OPTIONS;
    if ((o->ccd.hinge_aware != 0 && o->ccd.hinge_aware != 1) || (o->ccd.limb != CIK_LIMB_OFF && o->ccd.limb != CIK_LIMB_AUTO))
        return CIK_ERROR_OPTIONS;
    if (o->ccd.stop_unreachable != 0 && o->ccd.stop_unreachable != 1) return CIK_ERROR_OPTIONS;
    if (o->ccd.keep_best != 0 && o->ccd.keep_best != 1) return CIK_ERROR_OPTIONS;
    if ((unsigned)o->backend >= CIK_BACKEND_COUNT) return CIK_ERROR_BACKEND_UNAVAILABLE;
    if (!cik_backend_available(o->backend)) return CIK_ERROR_BACKEND_UNAVAILABLE;
    return CIK_OK;
}

static void apply(cik_batch *b, const program *pg, const op *o, int check);

/* Executes ops [0, count) on a fresh batch without checks: a replay. */
static cik_batch *replay(const program *pg, int count)
{
    cik_batch *b = NULL;
    CHECK(cik_batch_create(pg->chain_count, pg->joint_count, &b) == CIK_OK && b, "replay create");
    CHECK(wl_fill(b, (wl_kind)pg->kind, pg->seed, 0) == CIK_OK, "replay fill");
    for (int k = 0; k < count; ++k) apply(b, pg, &pg->ops[k], 0);
    return b;
}

static snapshot s_before, s_after, s_other;

/* Before aborting on a mismatch: what differs. */
static void dump_pair(const char *what, int i, const cik_chain *a, const cik_result *ra,
                      const cik_chain *b, const cik_result *rb)
{
    if (same_chain(a, b) && same_result(ra, rb)) return;
    fprintf(stderr, "fuzz_api: %s, chain %d:\n", what, i);
    fprintf(stderr, "  result error %.9g / %.9g, passes %d / %d, flags %u / %u\n", ra->error,
            rb->error, ra->iterations, rb->iterations, ra->flags, rb->flags);
    for (int j = 0; j < a->joint_count; ++j) {
        const cik_quat *p = &a->rotation[j], *q = &b->rotation[j];
        if (memcmp(p, q, sizeof *p) == 0) continue;
        fprintf(stderr, "  joint %d rotation (%.9g %.9g %.9g %.9g) / (%.9g %.9g %.9g %.9g)\n", j,
                p->x, p->y, p->z, p->w, q->x, q->y, q->z, q->w);
    }
}

static void check_solve(cik_batch *b, const program *pg, const op *o)
{
    const int n = pg->chain_count, J = pg->joint_count;
    const cik_options *opt = &o->options;
    take(b, &s_before);
    cik_status st = cik_solve(b, opt);
    cik_status want = expected_solve_status(opt);
    CHECK(st == want, "cik_solve returned %d (%s), expected %d (backend %d, threshold %g, passes %d, threads %d)",
          (int)st, status_ok(st), (int)want, (int)opt->backend, opt->threshold, opt->max_iterations,
          opt->threads);
    take(b, &s_after);
    if (st != CIK_OK) {
        expect_unchanged(&s_before, &s_after, "refused cik_solve");
        return;
    }
    const char *bn = cik_backend_name(opt->backend);
    int skipped_any = 0;
    for (int i = 0; i < n; ++i) {
        const cik_chain *c0 = &s_before.chain[i], *c1 = &s_after.chain[i];
        const cik_result *r = &s_after.result[i];
        int valid = solve_chain_ok(c0);
        int skipped = (r->flags & CIK_RESULT_SKIPPED) != 0;
        skipped_any |= skipped;
        CHECK(valid == MAYBE || valid == (skipped ? NO : YES),
              "%s: chain %d valid=%d but skipped=%d", bn, i, valid, skipped);
        if (skipped) {
            CHECK(isnan(r->error), "%s: skipped chain %d has error %g", bn, i, r->error);
            CHECK(r->flags == CIK_RESULT_SKIPPED, "%s: skipped chain %d flags %u", bn, i, r->flags);
            CHECK(same_chain(c0, c1), "%s: skipped chain %d was modified", bn, i);
            continue;
        }
        CHECK(isfinite(r->error) && r->error >= 0.0f, "%s: chain %d error %g", bn, i, r->error);
        CHECK(r->iterations >= 0 && r->iterations <= opt->max_iterations,
              "%s: chain %d ran %d passes of %d", bn, i, r->iterations, opt->max_iterations);
        CHECK(((r->flags & CIK_RESULT_CONVERGED) != 0) == (r->error < opt->threshold),
              "%s: chain %d converged flag %u with error %g, threshold %g", bn, i, r->flags, r->error,
              opt->threshold);
        CHECK((r->flags & ~(unsigned)(CIK_RESULT_CONVERGED | CIK_RESULT_UNREACHABLE)) == 0,
              "%s: chain %d flags %u", bn, i, r->flags);
        /* only the rotations change */
        cik_chain masked = *c1;
        for (int j = 0; j < J; ++j) masked.rotation[j] = c0->rotation[j];
        CHECK(same_chain(c0, &masked), "%s: solve changed more than rotations of chain %d", bn, i);
        for (int j = 0; j < J; ++j) {
            cik_quat q = c1->rotation[j];
            if (memcmp(&q, &c0->rotation[j], sizeof q) == 0) continue;
            CHECK(finite4(q) && fabs(sqrt(qnorm2(q)) - 1.0) <= 1e-3,
                  "%s: chain %d joint %d rotation (%g %g %g %g), |q| = %g", bn, i, j, q.x, q.y, q.z,
                  q.w, sqrt(qnorm2(q)));
        }
    }
    /* forward kinematics of solved chains is finite */
    for (int i = 0; i < n; ++i) {
        if (s_after.result[i].flags & CIK_RESULT_SKIPPED) continue;
        cik_vec3 P[CIK_MAX_JOINTS], E;
        CHECK(cik_batch_forward(b, i, P, &E) == CIK_OK, "forward %d", i);
        CHECK(finite3(E), "%s: chain %d effector not finite after solve", bn, i);
        for (int j = 0; j < J; ++j) CHECK(finite3(P[j]), "%s: chain %d joint %d not finite", bn, i, j);
    }

    /* The other chains: the same as a solve in which each skipped chain is
     * replaced by a valid default chain in the same slot. */
    int k = (int)(o - pg->ops);
    cik_batch *other = replay(pg, k);
    take(other, &s_other);
    for (int i = 0; i < n; ++i) {
        CHECK(same_chain(&s_other.chain[i], &s_before.chain[i]) &&
                  same_result(&s_other.result[i], &s_before.result[i]),
              "replaying the same operations gave a different chain %d (nondeterministic)", i);
    }
    cik_chain def = default_chain(J);
    for (int i = 0; i < n; ++i)
        if (s_after.result[i].flags & CIK_RESULT_SKIPPED)
            if (getenv("FUZZ_API_VERBOSE")) fprintf(stderr, "fuzz_api: chain %d skipped, replaced\n", i);
    for (int i = 0; i < n; ++i)
        if (s_after.result[i].flags & CIK_RESULT_SKIPPED)
            CHECK(cik_batch_set_chain(other, i, &def) == CIK_OK, "default chain refused");
    CHECK(cik_solve(other, opt) == CIK_OK, "second solve refused");
    take(other, &s_other);
    for (int i = 0; i < n; ++i) {
        if (s_after.result[i].flags & CIK_RESULT_SKIPPED) {
            CHECK(!(s_other.result[i].flags & CIK_RESULT_SKIPPED), "default chain %d skipped", i);
            continue;
        }
        dump_pair("solved alone / with skipped neighbours replaced", i, &s_after.chain[i],
                  &s_after.result[i], &s_other.chain[i], &s_other.result[i]);
        CHECK(same_chain(&s_other.chain[i], &s_after.chain[i]),
              "%s: chain %d solved differently with%s skipped neighbours replaced", bn, i,
              skipped_any ? "" : " (no)");
        CHECK(same_result(&s_other.result[i], &s_after.result[i]),
              "%s: chain %d result differs (error %g vs %g, passes %d vs %d, flags %u vs %u) with skipped neighbours replaced",
              bn, i, s_after.result[i].error, s_other.result[i].error, s_after.result[i].iterations,
              s_other.result[i].iterations, s_after.result[i].flags, s_other.result[i].flags);
    }
    cik_batch_destroy(other);
}

static void check_misc(cik_batch *b, const program *pg, const op *o)
{
    const int n = pg->chain_count, J = pg->joint_count;
    int i = o->index, j = o->joint;
    int index_ok = i >= 0 && i < n, joint_ok = j >= 0 && j < J;
    cik_chain c;
    cik_result r;
    cik_quat q;
    cik_vec3 P[CIK_MAX_JOINTS], E;
    take(b, &s_before);
    CHECK((cik_batch_get_chain(b, i, &c) == CIK_OK) == index_ok, "get_chain index %d", i);
    CHECK((cik_batch_result(b, i, &r) == CIK_OK) == index_ok, "result index %d", i);
    CHECK((cik_batch_get_rotation(b, i, j, &q) == CIK_OK) == (index_ok && joint_ok),
          "get_rotation %d %d", i, j);
    CHECK((cik_batch_forward(b, i, P, &E) == CIK_OK) == index_ok, "forward index %d", i);
    CHECK((cik_batch_forward(b, i, NULL, NULL) == CIK_OK) == index_ok, "forward with nulls");
    CHECK(cik_batch_get_chain(b, i, NULL) != CIK_OK, "get_chain into NULL");
    CHECK(cik_batch_result(b, i, NULL) != CIK_OK, "result into NULL");
    CHECK(cik_batch_get_rotation(b, i, j, NULL) != CIK_OK, "get_rotation into NULL");
    CHECK(cik_batch_set_chain(b, i, NULL) != CIK_OK, "set_chain from NULL");
    CHECK(cik_batch_streams(b, NULL) != CIK_OK, "streams into NULL");
    CHECK(cik_batch_set_chain(NULL, 0, &s_before.chain[0]) != CIK_OK, "set_chain on NULL");
    CHECK(cik_batch_get_chain(NULL, 0, &c) != CIK_OK, "get_chain on NULL");
    CHECK(cik_solve(NULL, NULL) != CIK_OK, "solve NULL");
    CHECK(cik_batch_chain_count(NULL) == 0 && cik_batch_joint_count(NULL) == 0 &&
              cik_batch_memory_bytes(NULL) == 0,
          "counts of NULL");
    CHECK(cik_batch_chain_count(b) == n && cik_batch_joint_count(b) == J, "counts");
    CHECK(cik_batch_memory_bytes(b) > 0, "memory bytes");
    if (index_ok && joint_ok) {
        CHECK(memcmp(&q, &s_before.chain[i].rotation[j], sizeof q) == 0, "get_rotation disagrees");
    }
    if (index_ok) {
        cik_vec3 P2[CIK_MAX_JOINTS], E2;
        CHECK(cik_chain_forward(&c, P2, &E2) == CIK_OK, "chain_forward");
        CHECK(memcmp(&E, &E2, sizeof E) == 0 && memcmp(P, P2, sizeof(cik_vec3) * (size_t)J) == 0,
              "batch_forward and chain_forward disagree on chain %d", i);
        c.joint_count = (j & 1) ? 0 : CIK_MAX_JOINTS + 1;
        CHECK(cik_chain_forward(&c, P2, &E2) == CIK_ERROR_ARGUMENT, "chain_forward bad count");
    }
    CHECK(cik_chain_forward(NULL, P, &E) != CIK_OK, "chain_forward NULL");
    /* batches that cannot exist */
    cik_batch *bad = (cik_batch *)&s_before; /* must stay untouched */
    CHECK(cik_batch_create(-1 - (j & 7), J, &bad) == CIK_ERROR_ARGUMENT && bad == (cik_batch *)&s_before,
          "create with a negative count");
    CHECK(cik_batch_create(n, j <= 0 ? j : CIK_MAX_JOINTS + j, &bad) == CIK_ERROR_ARGUMENT &&
              bad == (cik_batch *)&s_before,
          "create with joint count out of range");
    CHECK(cik_batch_create(n, J, NULL) == CIK_ERROR_ARGUMENT, "create into NULL");
    for (int be = -1; be <= CIK_BACKEND_COUNT; ++be) {
        const char *name = cik_backend_name((cik_backend)be);
        CHECK(name && name[0], "backend name %d", be);
    }
    CHECK(cik_backend_available(cik_backend_best()), "best backend unavailable");
    take(b, &s_after);
    expect_unchanged(&s_before, &s_after, "a read-only call");
}

static void apply(cik_batch *b, const program *pg, const op *o, int check)
{
    const int n = pg->chain_count, J = pg->joint_count;
    const int i = o->index;
    cik_status st;
    int want = YES;
    if (check && o->kind != OP_SOLVE && o->kind != OP_MISC) take(b, &s_before);
    switch (o->kind) {
    case OP_SET_CHAIN:
        st = cik_batch_set_chain(b, i, &o->chain);
        want = (i >= 0 && i < n) ? set_chain_ok(&o->chain, J) : NO;
        break;
    case OP_SET_TARGET:
        st = cik_batch_set_target(b, i, o->v);
        want = (i >= 0 && i < n && finite3(o->v) && in_range3(o->v)) ? YES : NO;
        break;
    case OP_SET_ROOT:
        st = cik_batch_set_root(b, i, o->v, o->q);
        want = (i >= 0 && i < n && finite3(o->v) && in_range3(o->v)) ? set_quat_ok(o->q) : NO;
        break;
    case OP_SET_ROTATION:
        st = cik_batch_set_rotation(b, i, o->joint, o->q);
        want = (i >= 0 && i < n && o->joint >= 0 && o->joint < J) ? set_quat_ok(o->q) : NO;
        break;
    case OP_BULK_WRITE:
    case OP_BULK_SCALE: {
        if (n == 0) return;
        cik_streams s;
        memset(&s, 0xa5, sizeof s);
        CHECK(cik_batch_streams(b, &s) == CIK_OK, "streams");
        CHECK(s.chain_count == n && s.joint_count == J, "stream counts");
        for (int j = 0; j < CIK_MAX_JOINTS; ++j) {
            CHECK((s.rotation_x[j] != NULL) == (j < J) && (s.rotation_w[j] != NULL) == (j < J),
                  "stream pointer for joint %d", j);
            if (j < J) CHECK(((uintptr_t)s.rotation_x[j] & 63) == 0, "stream not 64-byte aligned");
        }
        if (o->kind == OP_BULK_WRITE) {
            stream_at(&s, o->stream)[i] = o->value;
        } else {
            int first = o->stream < 0 ? 6 : 10 + 4 * o->stream;
            for (int c = 0; c < 4; ++c) stream_at(&s, first + c)[i] *= o->value;
        }
        if (check) {
            take(b, &s_after);
            for (int k = 0; k < n; ++k)
                if (k != i)
                    CHECK(same_chain(&s_before.chain[k], &s_after.chain[k]),
                          "a stream write to chain %d changed chain %d", i, k);
        }
        return;
    }
    case OP_SOLVE:
        if (check) check_solve(b, pg, o);
        else (void)cik_solve(b, &o->options);
        return;
    default:
        if (check) check_misc(b, pg, o);
        return;
    }
    if (!check) return;

    take(b, &s_after);
    if (want != MAYBE)
        CHECK((st == CIK_OK) == (want == YES), "setter op %d on chain %d returned %d (%s), expected %s",
              o->kind, i, (int)st, status_ok(st), want == YES ? "ok" : "a refusal");
    if (st != CIK_OK) {
        expect_refusal_status(st);
        expect_unchanged(&s_before, &s_after, "a refused setter");
        return;
    }
    /* accepted: only chain i changed, and only what the call names */
    for (int k = 0; k < n; ++k) {
        if (k == i) continue;
        CHECK(same_chain(&s_before.chain[k], &s_after.chain[k]) &&
                  same_result(&s_before.result[k], &s_after.result[k]),
              "setter on chain %d changed chain %d", i, k);
    }
    const cik_chain *c0 = &s_before.chain[i], *c1 = &s_after.chain[i];
    cik_chain expect = *c0;
    switch (o->kind) {
    case OP_SET_CHAIN: {
        const cik_chain *in = &o->chain;
        CHECK(same_vec(c1->target, in->target) && same_vec(c1->root_position, in->root_position) &&
                  same_vec(c1->effector, in->effector) && same_vec(c1->pole, in->pole) &&
                  c1->pole_weight == in->pole_weight,
              "set_chain stored other vectors");
        expect_normalised(in->root_rotation, c1->root_rotation, "set_chain root rotation");
        for (int j = 0; j < J; ++j) {
            CHECK(same_vec(c1->offset[j], in->offset[j]), "set_chain offset %d", j);
            expect_normalised(in->rotation[j], c1->rotation[j], "set_chain rotation");
            const cik_limit *l0 = &in->limit[j], *l1 = &c1->limit[j];
            CHECK(l1->type == l0->type, "limit type %d stored as %d", (int)l0->type, (int)l1->type);
            if (l0->type != CIK_LIMIT_NONE) {
                expect_unit_axis(l0->axis, l1->axis);
                CHECK(l1->min_angle == l0->min_angle && l1->max_angle == l0->max_angle,
                      "limit range stored differently");
                if (l0->type == CIK_LIMIT_SWING_TWIST)
                    CHECK(l1->swing_max == l0->swing_max, "swing stored differently");
            }
        }
        const cik_result *r = &s_after.result[i];
        CHECK(r->error == 0.0f && r->iterations == 0 && r->flags == 0, "set_chain kept a result");
        CHECK(solve_chain_ok(c1) == YES, "set_chain stored data a solve would skip");
        return;
    }
    case OP_SET_TARGET:
        CHECK(same_vec(c1->target, o->v), "set_target stored something else");
        expect.target = o->v;
        break;
    case OP_SET_ROOT:
        CHECK(same_vec(c1->root_position, o->v), "set_root stored another position");
        expect_normalised(o->q, c1->root_rotation, "set_root");
        expect.root_position = o->v;
        expect.root_rotation = c1->root_rotation;
        break;
    case OP_SET_ROTATION:
        expect_normalised(o->q, c1->rotation[o->joint], "set_rotation");
        expect.rotation[o->joint] = c1->rotation[o->joint];
        break;
    }
    CHECK(same_chain(&expect, c1), "setter op %d changed more of chain %d than it names", o->kind, i);
}

static program g_program;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    program *pg = &g_program;
    parse(data, size, pg);
    cik_batch *b = NULL;
    CHECK(cik_batch_create(pg->chain_count, pg->joint_count, &b) == CIK_OK && b, "create %d x %d",
          pg->chain_count, pg->joint_count);
    CHECK(wl_fill(b, (wl_kind)pg->kind, pg->seed, 0) == CIK_OK, "generated chains refused");
    for (int k = 0; k < pg->op_count; ++k) apply(b, pg, &pg->ops[k], 1);
    /* always end with a checked solve on some backend */
    {
        op *last = &pg->ops[pg->op_count++];
        memset(last, 0, sizeof *last);
        last->kind = OP_SOLVE;
        last->options = cik_default_options();
        last->options.backend = (cik_backend)((size % 5) + 1);
        if (!cik_backend_available(last->options.backend)) last->options.backend = CIK_BACKEND_SCALAR;
        apply(b, pg, last, 1);
    }
    cik_batch_destroy(b);
    return 0;
}
