/* Herds: foot placement for creatures with 1 to 8 legs of 2 to 4 segments
 * (include/crowdik/herd.h, docs/foot.md "Herds").
 *
 * The per-character stages (the animated feet, contacts, locks, the body's
 * plane fit and springs, the targets) are plain scalar code over the
 * structure-of-arrays streams, one character at a time, spread over the
 * threads in chunks of characters (a character's bits never depend on its
 * chunk). The legs are solved by the batch CCD kernels: one batch per
 * joint count, chain c * legs_of_that_count + rank. The contacts and the
 * locks follow the biped pipeline's rules (docs/foot.md) for one point. */
#include "crowdik/herd.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef CIK_HAVE_OPENMP
#include <omp.h>
#endif

#include "foot_internal.h"
#include "../scalar_math.h"

/* Per-character streams: the public ones, then the springs' states. Root r's
 * transform is HC_ROOT + 7 r + (x, y, z, qx, qy, qz, qw). */
enum {
    HC_ROOT = 0,
    HC_FLOOR = HC_ROOT + 7 * CIK_HERD_ROOTS,
    HC_HEIGHT, HC_PITCH, HC_ROLL,
    HC_SROOT, /* the solved roots, 7 per root */
    HC_SH = HC_SROOT + 7 * CIK_HERD_ROOTS, HC_SHV, HC_SP, HC_SPV, HC_SR, HC_SRV,
    HC_COLD, /* 1: the next place starts the springs afresh */
    HC_COUNT
};

/* Per-foot streams. HF_POSE + 4 k + s (k: x, y, z, w; s the joint), the same
 * for HF_SOLVED. */
enum {
    HF_POSE = 0,
    HF_WEIGHT = HF_POSE + 4 * CIK_HERD_MAX_SEGMENTS,
    HF_PLANTED, HF_LOCKED,
    HF_AFX, HF_AFY, HF_AFZ,
    HF_PROBEX, HF_PROBEZ,
    HF_CY, HF_CNX, HF_CNY, HF_CNZ,
    HF_TX, HF_TY, HF_TZ,
    HF_SOLVED,
    HF_FX = HF_SOLVED + 4 * CIK_HERD_MAX_SEGMENTS, HF_FY, HF_FZ,
    HF_ERROR, HF_PASSES,
    /* carried from frame to frame: the animated foot of the last frame (its
     * speed), the contact's age and the weight's easing, the lock's anchor
     * (x, z), the release blend's age and offset (x, z), 1 for a foot the
     * next probe starts afresh */
    HF_PREVX, HF_PREVY, HF_PREVZ, HF_CTIME, HF_EASE, HF_ANCX, HF_ANCZ, HF_BTIME, HF_BOFX, HF_BOFZ, HF_COLD,
    /* from the probe to place: the animated hip (world) */
    HF_HIPX, HF_HIPY, HF_HIPZ,
    /* constant per foot (set with the body): the leg's reach */
    HF_REACH,
    HF_COUNT
};

#define JOINT_KINDS (CIK_HERD_MAX_SEGMENTS + 1) /* batches indexed by joint count */

struct cik_herd {
    int characters, legs, feet;
    int primed;
    cik_allocator alloc;
    int segments[CIK_HERD_MAX_LEGS]; /* per leg index */
    int rank[CIK_HERD_MAX_LEGS];     /* among the legs with its joint count */
    int per_kind[JOINT_KINDS];       /* legs per character of each joint count */
    cik_batch *batch[JOINT_KINDS], *trial[JOINT_KINDS];
    cik_streams bs[JOINT_KINDS];
    cik__team_state team;
    cik_herd_body *bodies; /* per character, forward normalised */
    void *block;
    size_t block_bytes;
    float *c[HC_COUNT];
    float *f[HF_COUNT];
};

/* Characters per chunk of the threaded stages, and the fewest feet worth a
 * team. */
#define HERD_CHUNK 64
#define HERD_PARALLEL_MIN_FEET 1024

cik_herd_options cik_herd_default_options(void)
{
    cik_herd_options o;
    memset(&o, 0, sizeof o);
    o.foot = cik_foot_default_options();
    o.foot.plant_speed = 0.25f;
    o.foot.release_speed = 0.45f;
    o.max_raise = 0.0f;
    o.pitch_weight = 1.0f;
    o.roll_weight = 0.5f;
    o.max_tilt = 0.6f;
    return o;
}

static cik_status check_options(const cik_herd_options *o)
{
    cik_status s = cik__foot_check_options(&o->foot);
    if (s != CIK_OK) return s;
    if (!(o->max_raise >= 0.0f) || !isfinite(o->max_raise * o->foot.units_per_metre)) return CIK_ERROR_OPTIONS;
    if (!(o->pitch_weight >= 0.0f && o->pitch_weight <= 1.0f)) return CIK_ERROR_OPTIONS;
    if (!(o->roll_weight >= 0.0f && o->roll_weight <= 1.0f)) return CIK_ERROR_OPTIONS;
    if (!(o->max_tilt >= 0.0f && o->max_tilt <= 1.5f)) return CIK_ERROR_OPTIONS;
    return CIK_OK;
}

/* ------------------------------------------------------------------------ */
/* Bodies                                                                   */

static int finite3(cik_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static void leg_chain(const cik_herd_leg *leg, cik_chain *c)
{
    memset(c, 0, sizeof *c);
    c->joint_count = leg->segment_count;
    c->root_rotation = quat_identity();
    c->offset[0] = leg->hip;
    for (int s = 0; s < leg->segment_count; ++s) {
        if (s > 0) c->offset[s] = leg->segment[s - 1];
        c->rotation[s] = quat_identity();
        c->limit[s] = leg->limit[s];
    }
    c->effector = leg->segment[leg->segment_count - 1];
}

static float leg_reach(const cik_herd_leg *leg)
{
    float r = 0.0f;
    for (int s = 0; s < leg->segment_count; ++s) r += vec3_length(leg->segment[s]);
    return r;
}

/* The body's own rules, before any batch sees it: counts, roots, finite
 * values, a leg that reaches somewhere, a usable forward. `shape`: the
 * herd's leg layout to match (NULL at creation). */
static cik_status check_body(const cik_herd_body *b, const cik_herd *shape)
{
    if (!b || b->leg_count < 1 || b->leg_count > CIK_HERD_MAX_LEGS) return CIK_ERROR_ARGUMENT;
    if (shape && b->leg_count != shape->legs) return CIK_ERROR_ARGUMENT;
    if (!finite3(b->forward)) return CIK_ERROR_NON_FINITE;
    cik_vec3 fw = vec3_normalize(b->forward);
    if (!(vec3_length(b->forward) > 1e-6f) || !(fw.x * fw.x + fw.z * fw.z > 1e-6f)) return CIK_ERROR_ARGUMENT;
    for (int l = 0; l < b->leg_count; ++l) {
        const cik_herd_leg *leg = &b->leg[l];
        if (leg->root != CIK_HERD_PELVIS && leg->root != CIK_HERD_CHEST) return CIK_ERROR_ARGUMENT;
        if (leg->segment_count < 2 || leg->segment_count > CIK_HERD_MAX_SEGMENTS) return CIK_ERROR_ARGUMENT;
        if (shape && leg->segment_count != shape->segments[l]) return CIK_ERROR_ARGUMENT;
        if (!finite3(leg->hip)) return CIK_ERROR_NON_FINITE;
        for (int s = 0; s < leg->segment_count; ++s)
            if (!finite3(leg->segment[s])) return CIK_ERROR_NON_FINITE;
        float reach = leg_reach(leg);
        if (!(reach > 0.0f) || !isfinite(reach)) return CIK_ERROR_ARGUMENT;
    }
    return CIK_OK;
}

/* Every leg of `b` through the batches' own checks (limits, ranges) on the
 * one-chain trial batches, so that a refusal leaves the herd untouched. */
static cik_status try_legs(cik_herd *h, const cik_herd_body *b)
{
    for (int l = 0; l < b->leg_count; ++l) {
        cik_chain c;
        leg_chain(&b->leg[l], &c);
        cik_status s = cik_batch_set_chain(h->trial[b->leg[l].segment_count], 0, &c);
        if (s != CIK_OK) return s;
    }
    return CIK_OK;
}

/* Installs a checked body for character `ch`: its legs' chains (read back
 * from the batch, so that the herd keeps the axes the batch normalised),
 * the legs' reach. */
static void install_body(cik_herd *h, int ch, const cik_herd_body *b)
{
    cik_herd_body nb = *b;
    nb.forward = vec3_normalize(b->forward);
    for (int l = 0; l < h->legs; ++l) {
        const int n = h->segments[l];
        cik_chain c;
        leg_chain(&b->leg[l], &c);
        const int idx = ch * h->per_kind[n] + h->rank[l];
        cik_batch_set_chain(h->batch[n], idx, &c);
        cik_batch_get_chain(h->batch[n], idx, &c);
        for (int s = 0; s < n; ++s) nb.leg[l].limit[s] = c.limit[s];
        h->f[HF_REACH][ch * h->legs + l] = leg_reach(&b->leg[l]);
    }
    for (int l = h->legs; l < CIK_HERD_MAX_LEGS; ++l) memset(&nb.leg[l], 0, sizeof nb.leg[l]);
    h->bodies[ch] = nb;
}

static void forget_character(cik_herd *h, int ch)
{
    h->c[HC_COLD][ch] = 1.0f;
    for (int l = 0; l < h->legs; ++l) {
        int f = ch * h->legs + l;
        h->f[HF_COLD][f] = 1.0f;
        h->f[HF_PLANTED][f] = h->f[HF_LOCKED][f] = 0.0f;
        h->f[HF_CTIME][f] = h->f[HF_EASE][f] = h->f[HF_BTIME][f] = 0.0f;
        h->f[HF_BOFX][f] = h->f[HF_BOFZ][f] = 0.0f;
    }
}

void cik_herd_destroy(cik_herd *h)
{
    if (!h) return;
    cik_allocator a = h->alloc;
    for (int k = 0; k < JOINT_KINDS; ++k) {
        cik_batch_destroy(h->batch[k]);
        cik_batch_destroy(h->trial[k]);
    }
    cik__foot_release(&a, h->block, h->block_bytes);
    cik__foot_release(&a, h->bodies, sizeof(cik_herd_body) * (size_t)h->characters);
    cik__foot_release(&a, h, sizeof *h);
}

cik_status cik_herd_create_with(int character_count, const cik_herd_body *body, const cik_allocator *allocator,
                                cik_herd **out)
{
    if (!out || character_count < 1 || character_count > (1 << 23)) return CIK_ERROR_ARGUMENT;
    cik_allocator a = {NULL, NULL, NULL};
    if (allocator) {
        if (!allocator->allocate || !allocator->free) return CIK_ERROR_ARGUMENT;
        a = *allocator;
    }
    cik_status s = check_body(body, NULL);
    if (s != CIK_OK) return s;
    cik_herd *h = (cik_herd *)cik__foot_allocate(&a, sizeof *h, _Alignof(cik_herd));
    if (!h) return CIK_ERROR_OUT_OF_MEMORY;
    memset(h, 0, sizeof *h);
    h->alloc = a;
    h->characters = character_count;
    h->legs = body->leg_count;
    h->feet = h->legs * character_count;
    for (int l = 0; l < h->legs; ++l) {
        const int n = body->leg[l].segment_count;
        h->segments[l] = n;
        h->rank[l] = h->per_kind[n]++;
    }
    const cik_allocator *ap = a.allocate ? &a : NULL;
    for (int n = 2; n < JOINT_KINDS && s == CIK_OK; ++n) {
        if (!h->per_kind[n]) continue;
        s = cik_batch_create_with(character_count * h->per_kind[n], n, ap, &h->batch[n]);
        if (s == CIK_OK) s = cik_batch_create_with(1, n, ap, &h->trial[n]);
        if (s == CIK_OK) cik_batch_streams(h->batch[n], &h->bs[n]);
    }
    if (s == CIK_OK) s = try_legs(h, body);
    if (s != CIK_OK) {
        cik_herd_destroy(h);
        return s;
    }
    size_t cstride = ((size_t)character_count + 15) & ~(size_t)15;
    size_t fstride = ((size_t)h->feet + 15) & ~(size_t)15;
    if ((fstride * sizeof(float)) % 4096 == 0) fstride += 16; /* streams 4 KiB apart alias in L1 */
    size_t floats = cstride * HC_COUNT + fstride * HF_COUNT;
    h->block_bytes = floats * sizeof(float) + 64;
    h->block = cik__foot_allocate(&a, h->block_bytes, 64);
    h->bodies = (cik_herd_body *)cik__foot_allocate(&a, sizeof(cik_herd_body) * (size_t)character_count,
                                                     _Alignof(cik_herd_body));
    if (!h->block || !h->bodies) {
        cik_herd_destroy(h);
        return CIK_ERROR_OUT_OF_MEMORY;
    }
    float *p = (float *)(((uintptr_t)h->block + 63) & ~(uintptr_t)63);
    memset(p, 0, floats * sizeof(float));
    for (int i = 0; i < HC_COUNT; ++i, p += cstride) h->c[i] = p;
    for (int i = 0; i < HF_COUNT; ++i, p += fstride) h->f[i] = p;
    for (int ch = 0; ch < character_count; ++ch) {
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) h->c[HC_ROOT + 7 * r + 6][ch] = h->c[HC_SROOT + 7 * r + 6][ch] = 1.0f;
        install_body(h, ch, body);
        forget_character(h, ch);
    }
    for (int f = 0; f < h->feet; ++f) {
        for (int s2 = 0; s2 < CIK_HERD_MAX_SEGMENTS; ++s2)
            h->f[HF_POSE + 12 + s2][f] = h->f[HF_SOLVED + 12 + s2][f] = 1.0f;
        h->f[HF_WEIGHT][f] = 1.0f;
        h->f[HF_CNY][f] = 1.0f;
    }
    *out = h;
    return CIK_OK;
}

cik_status cik_herd_create(int character_count, const cik_herd_body *body, cik_herd **out)
{
    return cik_herd_create_with(character_count, body, NULL, out);
}

cik_status cik_herd_set_body(cik_herd *h, int character, const cik_herd_body *body)
{
    if (!h || character < 0 || character >= h->characters) return CIK_ERROR_ARGUMENT;
    cik_status s = check_body(body, h);
    if (s == CIK_OK) s = try_legs(h, body);
    if (s != CIK_OK) return s;
    install_body(h, character, body);
    return CIK_OK;
}

cik_status cik_herd_get_body(const cik_herd *h, int character, cik_herd_body *body)
{
    if (!h || !body || character < 0 || character >= h->characters) return CIK_ERROR_ARGUMENT;
    *body = h->bodies[character];
    return CIK_OK;
}

int cik_herd_character_count(const cik_herd *h) { return h ? h->characters : 0; }
int cik_herd_leg_count(const cik_herd *h) { return h ? h->legs : 0; }

const cik_batch *cik_herd_batch(const cik_herd *h, int joint_count)
{
    if (!h || joint_count < 2 || joint_count >= JOINT_KINDS) return NULL;
    return h->batch[joint_count];
}

int cik_herd_chain_index(const cik_herd *h, int character, int leg)
{
    if (!h || character < 0 || character >= h->characters || leg < 0 || leg >= h->legs) return -1;
    return character * h->per_kind[h->segments[leg]] + h->rank[leg];
}

cik_status cik_herd_reset(cik_herd *h)
{
    if (!h) return CIK_ERROR_ARGUMENT;
    for (int ch = 0; ch < h->characters; ++ch) forget_character(h, ch);
    h->primed = 0;
    return CIK_OK;
}

cik_status cik_herd_reset_character(cik_herd *h, int character)
{
    if (!h || character < 0 || character >= h->characters) return CIK_ERROR_ARGUMENT;
    forget_character(h, character);
    return CIK_OK;
}

cik_status cik_herd_streams_get(cik_herd *h, cik_herd_streams *o)
{
    if (!h || !o) return CIK_ERROR_ARGUMENT;
    memset(o, 0, sizeof *o);
    o->character_count = h->characters;
    o->leg_count = h->legs;
    o->foot_count = h->feet;
    for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
        float **in[7] = {&o->root_x[r], &o->root_y[r], &o->root_z[r], &o->root_qx[r],
                         &o->root_qy[r], &o->root_qz[r], &o->root_qw[r]};
        float **sv[7] = {&o->solved_root_x[r], &o->solved_root_y[r], &o->solved_root_z[r], &o->solved_root_qx[r],
                         &o->solved_root_qy[r], &o->solved_root_qz[r], &o->solved_root_qw[r]};
        for (int k = 0; k < 7; ++k) {
            *in[k] = h->c[HC_ROOT + 7 * r + k];
            *sv[k] = h->c[HC_SROOT + 7 * r + k];
        }
    }
    o->floor_y = h->c[HC_FLOOR];
    for (int s = 0; s < CIK_HERD_MAX_SEGMENTS; ++s) {
        o->pose_x[s] = h->f[HF_POSE + s];
        o->pose_y[s] = h->f[HF_POSE + 4 + s];
        o->pose_z[s] = h->f[HF_POSE + 8 + s];
        o->pose_w[s] = h->f[HF_POSE + 12 + s];
        o->solved_x[s] = h->f[HF_SOLVED + s];
        o->solved_y[s] = h->f[HF_SOLVED + 4 + s];
        o->solved_z[s] = h->f[HF_SOLVED + 8 + s];
        o->solved_w[s] = h->f[HF_SOLVED + 12 + s];
    }
    o->weight = h->f[HF_WEIGHT];
    o->planted = h->f[HF_PLANTED];
    o->locked = h->f[HF_LOCKED];
    o->anim_foot_x = h->f[HF_AFX];
    o->anim_foot_y = h->f[HF_AFY];
    o->anim_foot_z = h->f[HF_AFZ];
    o->probe_x = h->f[HF_PROBEX];
    o->probe_z = h->f[HF_PROBEZ];
    o->contact_y = h->f[HF_CY];
    o->contact_nx = h->f[HF_CNX];
    o->contact_ny = h->f[HF_CNY];
    o->contact_nz = h->f[HF_CNZ];
    o->body_height = h->c[HC_HEIGHT];
    o->body_pitch = h->c[HC_PITCH];
    o->body_roll = h->c[HC_ROLL];
    o->target_x = h->f[HF_TX];
    o->target_y = h->f[HF_TY];
    o->target_z = h->f[HF_TZ];
    o->foot_x = h->f[HF_FX];
    o->foot_y = h->f[HF_FY];
    o->foot_z = h->f[HF_FZ];
    o->error = h->f[HF_ERROR];
    o->passes = h->f[HF_PASSES];
    return CIK_OK;
}

/* ------------------------------------------------------------------------ */
/* The frame                                                                */

/* What the stages need from the options and the frame time, worked out
 * once per call, in the herd's units and per frame. */
typedef struct herd_args {
    cik_herd *h;
    const cik_heightfield *hf;
    int primed, contacts, lock;
    float dt, plant2, release2, min_contact, ease_in, ease_out, first_plant;
    float radius2, unlock_time, margin, soft, tol_cos;
    float max_drop, max_raise, pitch_w, roll_w, max_tilt;
    float spring_w, spring_k; /* 1 / time, exp(-dt / time); now: no smoothing */
    int spring_now;
} herd_args;

static cik_status prepare(cik_herd *h, const cik_herd_options *opt, float dt, herd_args *a, cik_options *so)
{
    if (!h) return CIK_ERROR_ARGUMENT;
    cik_herd_options d = cik_herd_default_options();
    if (!opt) opt = &d;
    cik_status s = check_options(opt);
    if (s != CIK_OK) return s;
    if (!(dt >= 0.0f) || !isfinite(dt)) return CIK_ERROR_ARGUMENT;
    const cik_foot_options *o = &opt->foot;
    const float u = o->units_per_metre;
    *so = o->solver;
    so->threshold = o->solver.threshold * u;
    memset(a, 0, sizeof *a);
    a->h = h;
    a->dt = dt > 0.0f ? dt : o->dt;
    a->primed = h->primed;
    a->contacts = o->contacts;
    a->lock = o->lock;
    float ps = o->plant_speed * u * a->dt, rs = o->release_speed * u * a->dt;
    a->plant2 = ps * ps;
    a->release2 = rs * rs;
    a->min_contact = o->min_contact_time;
    a->ease_in = o->ease_in_time > 0.0f ? a->dt / o->ease_in_time : 2.0f;
    a->ease_out = o->ease_out_time > 0.0f ? a->dt / o->ease_out_time : 2.0f;
    a->first_plant = 0.05f * u;
    a->radius2 = o->lock_radius * u * o->lock_radius * u;
    a->unlock_time = o->unlock_time;
    a->margin = o->reach_margin;
    a->soft = o->soft_reach;
    a->tol_cos = cosf(0.5f * (o->limit_tolerance < 6.0f ? o->limit_tolerance : 6.0f));
    a->max_drop = o->max_pelvis_drop * u;
    a->max_raise = opt->max_raise * u;
    a->pitch_w = opt->pitch_weight;
    a->roll_w = opt->roll_weight;
    a->max_tilt = opt->max_tilt;
    a->spring_now = !(o->pelvis_smooth_time >= 1e-6f);
    a->spring_w = a->spring_now ? 0.0f : 1.0f / o->pelvis_smooth_time;
    a->spring_k = a->spring_now ? 0.0f : expf(-a->dt / o->pelvis_smooth_time);
    return CIK_OK;
}

static float smooth01(float x)
{
    x = clampf(x, 0.0f, 1.0f);
    return x * x * (3.0f - 2.0f * x);
}

static cik_vec3 ld3(float *const *s, int k, int i) { return vec3(s[k][i], s[k + 1][i], s[k + 2][i]); }
static void st3(float *const *s, int k, int i, cik_vec3 v)
{
    s[k][i] = v.x;
    s[k + 1][i] = v.y;
    s[k + 2][i] = v.z;
}
static cik_quat ld4(float *const *s, int k, int stride, int i)
{
    return quat(s[k][i], s[k + stride][i], s[k + 2 * stride][i], s[k + 3 * stride][i]);
}
static void root_of(const cik_herd *h, int base, int ch, int r, cik_vec3 *p, cik_quat *q)
{
    const int k = base + 7 * r;
    *p = vec3(h->c[k][ch], h->c[k + 1][ch], h->c[k + 2][ch]);
    *q = quat_normalize(quat(h->c[k + 3][ch], h->c[k + 4][ch], h->c[k + 5][ch], h->c[k + 6][ch]));
}

/* Forward kinematics of foot f's leg from root (p, q) with the rotations of
 * stream group `rot` (HF_POSE or HF_SOLVED): the hip and the foot point;
 * `joints` (may be NULL) gets every joint's world position. */
static cik_vec3 leg_fk(const cik_herd *h, const cik_herd_leg *leg, int f, int rot, cik_vec3 p, cik_quat q,
                       cik_vec3 *hip, cik_vec3 *joints)
{
    cik_vec3 x = vec3_add(p, quat_rotate(q, leg->hip));
    *hip = x;
    for (int s = 0; s < leg->segment_count; ++s) {
        if (joints) joints[s] = x;
        q = quat_mul(q, quat_normalize(ld4(h->f, rot + s, CIK_HERD_MAX_SEGMENTS, f)));
        x = vec3_add(x, quat_rotate(q, leg->segment[s]));
    }
    return x;
}

/* Stage 1 for characters [c0, c1): the animated feet, the contacts (one
 * point's speed, as the biped's slowest point), the locks, the probes. */
static void probe_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    for (int ch = c0; ch < c1; ++ch) {
        const cik_herd_body *b = &h->bodies[ch];
        cik_vec3 rp[CIK_HERD_ROOTS];
        cik_quat rq[CIK_HERD_ROOTS];
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) root_of(h, HC_ROOT, ch, r, &rp[r], &rq[r]);
        const float floor_y = h->c[HC_FLOOR][ch];
        for (int l = 0; l < h->legs; ++l) {
            const int f = ch * h->legs + l;
            const cik_herd_leg *leg = &b->leg[l];
            cik_vec3 hip, foot = leg_fk(h, leg, f, HF_POSE, rp[leg->root], rq[leg->root], &hip, NULL);
            st3(F, HF_AFX, f, foot);
            st3(F, HF_HIPX, f, hip);
            const int cold = !a->primed || F[HF_COLD][f] > 0.0f;
            F[HF_COLD][f] = 0.0f;
            cik_vec3 d = vec3_sub(foot, ld3(F, HF_PREVX, f));
            float moved2 = cold ? 1e30f : vec3_dot(d, d);
            if (!(moved2 < 1e30f)) moved2 = 1e30f; /* NaN: as if fast */
            st3(F, HF_PREVX, f, foot);
            const int was = F[HF_PLANTED][f] > 0.0f;
            float age = F[HF_CTIME][f] + a->dt;
            int planted, plant_event;
            if (a->contacts == CIK_FOOT_CONTACTS_ANIMATION) {
                int slow = cold ? foot.y < floor_y + a->first_plant : moved2 < a->plant2;
                int fast = moved2 > a->release2;
                plant_event = slow && !was;
                int release = was && fast && age >= a->min_contact;
                planted = plant_event || (was && !release);
                if (plant_event || release) age = 0.0f;
                float ease = F[HF_EASE][f];
                if (!(fabsf(ease) < 2.0f)) ease = 0.0f;
                ease = planted ? fminf(ease + a->ease_in, 1.0f) : fmaxf(ease - a->ease_out, 0.0f);
                if (cold) ease = planted ? 1.0f : 0.0f;
                F[HF_EASE][f] = ease;
                F[HF_WEIGHT][f] = smooth01(ease);
            } else {
                float w = F[HF_WEIGHT][f];
                planted = w >= 0.999f;
                plant_event = planted && !was;
                if (plant_event || (was && !planted)) age = 0.0f;
            }
            F[HF_PLANTED][f] = planted ? 1.0f : 0.0f;
            F[HF_CTIME][f] = age;
            /* the release blend fading out */
            float bt = F[HF_BTIME][f] + a->dt;
            float blend = a->unlock_time > 0.0f ? 1.0f - smooth01(bt / a->unlock_time) : 0.0f;
            if (!(fabsf(F[HF_BOFX][f]) < 1e30f && fabsf(F[HF_BOFZ][f]) < 1e30f)) blend = 0.0f;
            float px = foot.x + blend * F[HF_BOFX][f], pz = foot.z + blend * F[HF_BOFZ][f];
            int locked = F[HF_LOCKED][f] > 0.0f && !cold;
            float ax = F[HF_ANCX][f], az = F[HF_ANCZ][f];
            if (locked && !(fabsf(ax) < 1e30f && fabsf(az) < 1e30f)) locked = 0;
            if (locked) {
                /* released when the foot lifts, when the animation drifts
                 * lock_radius away, or when the anchor is beyond reach of
                 * the animated hip */
                float dx = ax - foot.x, dz = az - foot.z;
                cik_vec3 v = vec3_sub(vec3(ax, foot.y, az), hip);
                float reach = F[HF_REACH][f] * (1.0f - a->margin);
                if (!planted || dx * dx + dz * dz > a->radius2 || vec3_dot(v, v) > reach * reach || !a->lock) {
                    locked = 0;
                    F[HF_BOFX][f] = dx;
                    F[HF_BOFZ][f] = dz;
                    bt = 0.0f;
                    px = ax;
                    pz = az;
                } else {
                    px = ax;
                    pz = az;
                }
            } else if (a->lock && planted) {
                locked = 1; /* where the foot is (the blend's offset included) */
                F[HF_ANCX][f] = ax = px;
                F[HF_ANCZ][f] = az = pz;
            }
            if (cold) bt = 1e30f;
            F[HF_BTIME][f] = bt;
            F[HF_LOCKED][f] = locked ? 1.0f : 0.0f;
            F[HF_PROBEX][f] = px;
            F[HF_PROBEZ][f] = pz;
        }
    }
}

/* A critically damped spring from (x, v) toward `goal` (foot.h's pelvis
 * spring); `now`: at the goal at once. */
static void spring(const herd_args *a, int now, float goal, float *x, float *v)
{
    if (now || a->spring_now || !isfinite(*x) || !isfinite(*v)) {
        *x = goal;
        *v = 0.0f;
        return;
    }
    float d = *x - goal, j = *v + a->spring_w * d;
    *x = goal + (d + j * a->dt) * a->spring_k;
    *v = (*v - a->spring_w * a->dt * j) * a->spring_k;
    if (fabsf(*x - goal) < 1e-20f) *x = goal;
    if (fabsf(*v) < 1e-20f) *v = 0.0f;
}

/* Stage 3 for characters [c0, c1): the body (plane fit, tilt, height,
 * springs), the solved roots, the targets, the chains' roots, targets,
 * poles and start poses. */
static void place_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    float *const *C = h->c;
    const int L = h->legs;
    for (int ch = c0; ch < c1; ++ch) {
        const cik_herd_body *b = &h->bodies[ch];
        const int f0 = ch * L;
        const float floor_y = C[HC_FLOOR][ch];
        cik_vec3 rp[CIK_HERD_ROOTS];
        cik_quat rq[CIK_HERD_ROOTS];
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) root_of(h, HC_ROOT, ch, r, &rp[r], &rq[r]);
        /* the ground plane under the feet: heights over the animation's
         * floor, weighted least squares about their weighted centre (a
         * planted foot counts five times a swing foot), the slope's
         * normal equations with a small ridge so that feet in a line
         * (a trot's diagonal pair) give the slope along that line only */
        float sw = 0, sx = 0, sz = 0, sd = 0;
        for (int l = 0; l < L; ++l) {
            int f = f0 + l;
            float w = 0.25f + clampf(F[HF_WEIGHT][f], 0.0f, 1.0f);
            sw += w;
            sx += w * F[HF_PROBEX][f];
            sz += w * F[HF_PROBEZ][f];
            sd += w * (F[HF_CY][f] - floor_y);
        }
        float cx = sx / sw, cz = sz / sw;
        float sxx = 0, sxz = 0, szz = 0, sxd = 0, szd = 0, md = sd / sw;
        for (int l = 0; l < L; ++l) {
            int f = f0 + l;
            float w = 0.25f + clampf(F[HF_WEIGHT][f], 0.0f, 1.0f);
            float dx = F[HF_PROBEX][f] - cx, dz = F[HF_PROBEZ][f] - cz, dd = F[HF_CY][f] - floor_y - md;
            sxx += w * dx * dx;
            sxz += w * dx * dz;
            szz += w * dz * dz;
            sxd += w * dx * dd;
            szd += w * dz * dd;
        }
        /* the slope along each principal axis of the feet's spread, where
         * the spread along it is more than 1e-4 of the largest (feet in a
         * line, a trot's diagonal pair, give the slope along the line only) */
        float gx = 0.0f, gz = 0.0f;
        {
            float tr = 0.5f * (sxx + szz), df = 0.5f * (sxx - szz);
            float rt = sqrtf(df * df + sxz * sxz);
            float l0 = tr + rt, l1 = tr - rt;
            /* the first axis: (sxz, l0 - sxx), or (l0 - szz, sxz) when that is zero */
            float ex = sxz, ez = l0 - sxx;
            if (fabsf(ex) + fabsf(ez) < 1e-30f) {
                ex = l0 - szz;
                ez = sxz;
            }
            float en = sqrtf(ex * ex + ez * ez);
            if (!(en > 0.0f)) { /* a round spread: any axis */
                ex = en = 1.0f;
                ez = 0.0f;
            }
            if (l0 > 0.0f) {
                ex /= en;
                ez /= en;
                float g0 = (ex * sxd + ez * szd) / l0;
                float g1 = l1 > 1e-4f * l0 ? (-ez * sxd + ex * szd) / l1 : 0.0f;
                gx = g0 * ex - g1 * ez;
                gz = g0 * ez + g1 * ex;
            }
        }
        if (!isfinite(gx) || !isfinite(gz)) gx = gz = 0.0f;
        /* the body's forward and left (up x forward), horizontal */
        cik_vec3 fw = quat_rotate(rq[CIK_HERD_PELVIS], b->forward);
        fw.y = 0.0f;
        float fl = vec3_length(fw);
        float pitch_goal = 0.0f, roll_goal = 0.0f;
        cik_vec3 left = vec3(0, 0, 0);
        if (fl > 1e-6f) {
            fw = vec3_scale(fw, 1.0f / fl);
            left = vec3(fw.z, 0.0f, -fw.x);
            pitch_goal = clampf(atanf(gx * fw.x + gz * fw.z) * a->pitch_w, -a->max_tilt, a->max_tilt);
            roll_goal = clampf(atanf(gx * left.x + gz * left.z) * a->roll_w, -a->max_tilt, a->max_tilt);
        } else {
            fw = vec3(0, 0, 1);
            left = vec3(1, 0, 0);
        }
        const int cold = !a->primed || C[HC_COLD][ch] > 0.0f;
        C[HC_COLD][ch] = 0.0f;
        spring(a, cold, pitch_goal, &C[HC_SP][ch], &C[HC_SPV][ch]);
        spring(a, cold, roll_goal, &C[HC_SR][ch], &C[HC_SRV][ch]);
        const float pitch = C[HC_SP][ch], roll = C[HC_SR][ch];
        /* front up: a turn about left by -pitch; left side up: about forward by +roll */
        cik_quat tilt = quat_mul(quat_axis_angle(roll, fw.x, fw.y, fw.z), quat_axis_angle(-pitch, left.x, left.y, left.z));
        /* the pivot: the centre of the animated hips */
        cik_vec3 pivot = vec3(0, 0, 0);
        for (int l = 0; l < L; ++l) pivot = vec3_add(pivot, ld3(F, HF_HIPX, f0 + l));
        pivot = vec3_scale(pivot, 1.0f / (float)L);
        /* the height: the lowest weighted need of the legs after the tilt
         * (the planted leg whose ground is lowest keeps the animation's
         * bend), a swing leg needing nothing */
        float goal = a->max_raise;
        int any = 0;
        for (int l = 0; l < L; ++l) {
            int f = f0 + l;
            float w = clampf(F[HF_WEIGHT][f], 0.0f, 1.0f);
            if (!(w > 0.0f)) continue;
            cik_vec3 hp = ld3(F, HF_HIPX, f);
            float moved = vec3_add(quat_rotate(tilt, vec3_sub(hp, pivot)), pivot).y - hp.y;
            /* the ground's offset from the animation's floor under this
             * foot (not the foot's clearance: a foot easing out of its
             * stance is lifted, and the body must not follow it down) */
            float need = (F[HF_CY][f] - floor_y) - moved;
            float g = w * need + (1.0f - w) * a->max_raise;
            if (!any || g < goal) goal = g;
            any = 1;
        }
        if (!any) goal = 0.0f;
        if (!isfinite(goal)) goal = 0.0f;
        goal = clampf(goal, -a->max_drop, a->max_raise);
        spring(a, cold, goal, &C[HC_SH][ch], &C[HC_SHV][ch]);
        float height = clampf(C[HC_SH][ch], -a->max_drop, a->max_raise);
        C[HC_HEIGHT][ch] = height;
        C[HC_PITCH][ch] = pitch;
        C[HC_ROLL][ch] = roll;
        /* the solved roots */
        cik_vec3 lift = vec3(0, height, 0);
        cik_vec3 sp[CIK_HERD_ROOTS];
        cik_quat sq[CIK_HERD_ROOTS];
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
            sp[r] = vec3_add(vec3_add(pivot, quat_rotate(tilt, vec3_sub(rp[r], pivot))), lift);
            sq[r] = quat_normalize(quat_mul(tilt, rq[r]));
            const int k = HC_SROOT + 7 * r;
            C[k][ch] = sp[r].x;
            C[k + 1][ch] = sp[r].y;
            C[k + 2][ch] = sp[r].z;
            C[k + 3][ch] = sq[r].x;
            C[k + 4][ch] = sq[r].y;
            C[k + 5][ch] = sq[r].z;
            C[k + 6][ch] = sq[r].w;
        }
        for (int l = 0; l < L; ++l) {
            const int f = f0 + l;
            const cik_herd_leg *leg = &b->leg[l];
            const int n = leg->segment_count, root = leg->root;
            float w = clampf(F[HF_WEIGHT][f], 0.0f, 1.0f);
            if (!(w == w)) w = 0.0f;
            cik_vec3 anim = ld3(F, HF_AFX, f), ahip = ld3(F, HF_HIPX, f);
            /* swing: the animated foot carried by the body (its angles);
             * planted: at the probe (the lock), as high above the ground as
             * the animation has it above its floor (on it in stance, rising
             * with the animation as the foot lifts and its weight eases
             * out); never below the ground */
            cik_vec3 ts = vec3_add(vec3_add(pivot, quat_rotate(tilt, vec3_sub(anim, pivot))), lift);
            float g = F[HF_CY][f];
            float tp = g + fmaxf(anim.y - floor_y, 0.0f);
            float wxz = F[HF_LOCKED][f] > 0.0f ? 1.0f : w;
            cik_vec3 t = vec3(ts.x + wxz * (F[HF_PROBEX][f] - ts.x), ts.y + w * (tp - ts.y),
                              ts.z + wxz * (F[HF_PROBEZ][f] - ts.z));
            if (t.y < g) t.y = g;
            /* beyond the animation's extension and soft of the reach: in
             * softly toward (1 - margin) of the reach (foot.h) */
            cik_vec3 hip = vec3_add(sp[root], quat_rotate(sq[root], leg->hip));
            cik_vec3 v = vec3_sub(t, hip);
            float d2 = vec3_dot(v, v), reach = F[HF_REACH][f];
            float ext = vec3_length(vec3_sub(anim, ahip));
            float lmax = fmaxf(reach * (1.0f - a->margin), fminf(ext, reach));
            float d0 = fminf(fmaxf(ext, reach * a->soft), lmax);
            if (d2 > d0 * d0) {
                float d = sqrtf(d2), span = lmax - d0, ds;
                if (span > reach * 1e-6f) {
                    float x = (d - d0) / span;
                    ds = d0 + span * x / (1.0f + x);
                } else {
                    ds = fminf(d, lmax);
                }
                t = vec3_add(hip, vec3_scale(v, ds / d));
            }
            st3(F, HF_TX, f, t);
            /* the chain: root, target and the start pose (rotations beyond
             * a limit by more than the tolerance clamped into it). No pole:
             * the start is the animation, whose bend plane the limb step's
             * aim keeps for the small corrections a herd asks for, while a
             * pole's twist about the hip-to-foot line is a swing that an
             * insect's coxa (mostly a yaw joint) clamps, which cost up to
             * 5 passes on the hexapod's legs easing out of their stance */
            const cik_streams *bs = &h->bs[n];
            const int i = ch * h->per_kind[n] + h->rank[l];
            bs->root_position_x[i] = sp[root].x;
            bs->root_position_y[i] = sp[root].y;
            bs->root_position_z[i] = sp[root].z;
            bs->root_rotation_x[i] = sq[root].x;
            bs->root_rotation_y[i] = sq[root].y;
            bs->root_rotation_z[i] = sq[root].z;
            bs->root_rotation_w[i] = sq[root].w;
            bs->target_x[i] = t.x;
            bs->target_y[i] = t.y;
            bs->target_z[i] = t.z;
            for (int s = 0; s < n; ++s) {
                cik_quat r = quat_normalize(ld4(F, HF_POSE + s, CIK_HERD_MAX_SEGMENTS, f));
                cik_quat c = cik_limit_apply(&leg->limit[s], r);
                float dot = fabsf(r.x * c.x + r.y * c.y + r.z * c.z + r.w * c.w);
                if (dot < a->tol_cos) r = c;
                bs->rotation_x[s][i] = r.x;
                bs->rotation_y[s][i] = r.y;
                bs->rotation_z[s][i] = r.z;
                bs->rotation_w[s][i] = r.w;
            }
        }
    }
}

/* Stage 4's outputs for characters [c0, c1): solved rotations, feet,
 * errors, passes. */
static void output_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    for (int ch = c0; ch < c1; ++ch) {
        const cik_herd_body *b = &h->bodies[ch];
        for (int l = 0; l < h->legs; ++l) {
            const int f = ch * h->legs + l, n = h->segments[l];
            const cik_herd_leg *leg = &b->leg[l];
            const cik_streams *bs = &h->bs[n];
            const int i = ch * h->per_kind[n] + h->rank[l];
            for (int s = 0; s < n; ++s) {
                F[HF_SOLVED + s][f] = bs->rotation_x[s][i];
                F[HF_SOLVED + 4 + s][f] = bs->rotation_y[s][i];
                F[HF_SOLVED + 8 + s][f] = bs->rotation_z[s][i];
                F[HF_SOLVED + 12 + s][f] = bs->rotation_w[s][i];
            }
            cik_vec3 p = vec3(bs->root_position_x[i], bs->root_position_y[i], bs->root_position_z[i]);
            cik_quat q = quat(bs->root_rotation_x[i], bs->root_rotation_y[i], bs->root_rotation_z[i],
                              bs->root_rotation_w[i]);
            cik_vec3 hip, foot = leg_fk(h, leg, f, HF_SOLVED, p, q, &hip, NULL);
            st3(F, HF_FX, f, foot);
            F[HF_ERROR][f] = bs->result_error[i];
            F[HF_PASSES][f] = (float)bs->result_iterations[i];
        }
    }
}

static void ground_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    const int f0 = c0 * h->legs, n = (c1 - c0) * h->legs;
    cik_heightfield_sample_many(a->hf, n, h->f[HF_PROBEX] + f0, h->f[HF_PROBEZ] + f0, h->f[HF_CY] + f0,
                                h->f[HF_CNX] + f0, h->f[HF_CNY] + f0, h->f[HF_CNZ] + f0);
}

enum { DO_PROBE = 1, DO_GROUND = 2, DO_PLACE = 4, DO_OUTPUT = 8 };

typedef struct part_job {
    const herd_args *a;
    int stages;
} part_job;

static void run_part(const void *context, int c0, int c1)
{
    const part_job *j = (const part_job *)context;
    if (j->stages & DO_PROBE) probe_part(j->a, c0, c1);
    if (j->stages & DO_GROUND) ground_part(j->a, c0, c1);
    if (j->stages & DO_PLACE) place_part(j->a, c0, c1);
    if (j->stages & DO_OUTPUT) output_part(j->a, c0, c1);
}

static int team_of(const cik_herd *h, int threads)
{
#ifdef CIK_HAVE_OPENMP
    if (h->feet < HERD_PARALLEL_MIN_FEET || threads == 1) return 1;
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)h;
    (void)threads;
    return 1;
#endif
}

static void run_stages(cik_herd *h, const herd_args *a, int stages, int threads)
{
    part_job j = {a, stages};
    cik__parallel_ranges(h->characters, HERD_CHUNK, team_of(h, threads), &h->team, run_part, &j);
}

static cik_status solve_all(cik_herd *h, const cik_options *so)
{
    for (int n = 2; n < JOINT_KINDS; ++n) {
        if (!h->batch[n]) continue;
        cik_status s = cik_solve(h->batch[n], so);
        if (s != CIK_OK) return s;
    }
    return CIK_OK;
}

/* The solver options the solve would refuse, refused before anything
 * changes (the batch checks its own; every batch takes the same). */
static cik_status check_solver(cik_herd *h, const cik_options *so)
{
    for (int n = 2; n < JOINT_KINDS; ++n) {
        if (!h->batch[n]) continue;
        cik__solve_plan plan;
        cik_status s = cik__solve_prepare(h->batch[n], so, &plan);
        if (s != CIK_OK) return s;
    }
    return CIK_OK;
}

static cik_status run_call(cik_herd *h, const cik_herd_options *opt, float dt, int stages, const cik_heightfield *hf)
{
    herd_args a;
    cik_options so;
    cik_status s = prepare(h, opt, dt, &a, &so);
    if (s == CIK_OK) s = check_solver(h, &so);
    if (s != CIK_OK) return s;
    if (stages & DO_GROUND) {
        s = cik_heightfield_validate(hf);
        if (s != CIK_OK) return s;
        a.hf = hf;
    }
    int pre = stages & (DO_PROBE | DO_GROUND | DO_PLACE);
    if (pre) run_stages(h, &a, pre, so.threads);
    if (stages & DO_PLACE) h->primed = 1;
    if (stages & DO_OUTPUT) {
        s = solve_all(h, &so);
        if (s != CIK_OK) return s;
        run_stages(h, &a, DO_OUTPUT, so.threads);
    }
    return CIK_OK;
}

cik_status cik_herd_probe(cik_herd *h, const cik_herd_options *o, float dt) { return run_call(h, o, dt, DO_PROBE, NULL); }

cik_status cik_herd_ground_heightfield(cik_herd *h, const cik_heightfield *hf, const cik_herd_options *o)
{
    return run_call(h, o, 0.0f, DO_GROUND, hf);
}

cik_status cik_herd_place(cik_herd *h, const cik_herd_options *o, float dt) { return run_call(h, o, dt, DO_PLACE, NULL); }

cik_status cik_herd_solve(cik_herd *h, const cik_herd_options *o) { return run_call(h, o, 0.0f, DO_OUTPUT, NULL); }

cik_status cik_herd_frame(cik_herd *h, const cik_heightfield *hf, const cik_herd_options *o, float dt)
{
    return run_call(h, o, dt, DO_PROBE | DO_GROUND | DO_PLACE | DO_OUTPUT, hf);
}
