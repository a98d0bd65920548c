/* Herds: foot placement for creatures with 1 to 8 legs of 2 to 4 segments
 * (include/crowdik/herd.h, docs/foot.md "Herds").
 *
 * The per-foot parts of the stages (the animated feet, contacts, locks,
 * targets, start poses, solved feet) are vector kernels (herd_kernel.h,
 * compiled with the foot kernels per instruction set); the per-character
 * body (the plane fit, the tilt, the height, their springs) is scalar code
 * here between them. The legs are solved by the batch CCD kernels: one
 * batch per joint count, leg l of character c its chain c * per_kind[n] +
 * rank[l]. The frame runs chunks of characters, each through all four
 * stages, its legs' solves included, on whichever thread takes it (a
 * character's bits never depend on its chunk). The contacts and the locks
 * follow the biped pipeline's rules (docs/foot.md) for one point. */
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


#define JOINT_KINDS (CIK_HERD_MAX_SEGMENTS + 1) /* batches indexed by joint count */
typedef char herd_segments_match[CIK__HERD_SEGMENTS == CIK_HERD_MAX_SEGMENTS ? 1 : -1];

struct cik_herd {
    int characters, legs, feet;
    int primed;
    cik_allocator alloc;
    int segments[CIK_HERD_MAX_LEGS]; /* per leg index */
    int rank[CIK_HERD_MAX_LEGS];     /* among the legs with its joint count */
    int per_kind[JOINT_KINDS];       /* legs per character of each joint count */
    /* one batch per joint count the body has: leg l of character c is chain
     * c * per_kind[n] + rank[l] (whole vectors of chains of one shape: a
     * batch that held every foot with the other shapes off solved 1.3 to
     * 1.7 times slower, gathering its enabled chains) */
    cik_batch *batch[JOINT_KINDS], *trial[JOINT_KINDS];
    cik_streams bs[JOINT_KINDS];
    cik__team_state team;
    cik_herd_body *bodies; /* per character, forward normalised */
    void *block;
    size_t block_bytes;
    float *c[HC_COUNT];
    float *f[HF_COUNT];
    /* level of detail: the public enable bytes, and whether each character
     * was on at its last probe (off -> on starts it afresh) */
    unsigned char *en, *seen;
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
 * and the kernels' per-foot constants (four segments, the unused ones
 * zero with no limit). */
static void install_body(cik_herd *h, int ch, const cik_herd_body *b)
{
    cik_herd_body nb = *b;
    nb.forward = vec3_normalize(b->forward);
    float *const *F = h->f;
    for (int l = 0; l < h->legs; ++l) {
        const int n = h->segments[l], f = ch * h->legs + l;
        cik_chain c;
        leg_chain(&b->leg[l], &c);
        const int idx = ch * h->per_kind[n] + h->rank[l];
        cik_batch_set_chain(h->batch[n], idx, &c);
        cik_batch_get_chain(h->batch[n], idx, &c);
        F[HF_HIP][f] = b->leg[l].hip.x;
        F[HF_HIP + 1][f] = b->leg[l].hip.y;
        F[HF_HIP + 2][f] = b->leg[l].hip.z;
        for (int s = 0; s < CIK_HERD_MAX_SEGMENTS; ++s) {
            cik_vec3 sg = s < n ? b->leg[l].segment[s] : vec3(0, 0, 0);
            F[HF_SEG + 3 * s][f] = sg.x;
            F[HF_SEG + 3 * s + 1][f] = sg.y;
            F[HF_SEG + 3 * s + 2][f] = sg.z;
            cik_limit lm;
            memset(&lm, 0, sizeof lm);
            if (s < n) lm = c.limit[s];
            if (s < n) nb.leg[l].limit[s] = lm;
            float swing = lm.type == CIK_LIMIT_SWING_TWIST ? lm.swing_max : 0.0f;
            float v[LIMIT_COUNT];
            v[LIMIT_TYPE] = (float)lm.type;
            v[LIMIT_AX] = lm.axis.x;
            v[LIMIT_AY] = lm.axis.y;
            v[LIMIT_AZ] = lm.axis.z;
            v[LIMIT_SMIN] = sinf(0.5f * lm.min_angle);
            v[LIMIT_CMIN] = cosf(0.5f * lm.min_angle);
            v[LIMIT_SMAX] = sinf(0.5f * lm.max_angle);
            v[LIMIT_CMAX] = cosf(0.5f * lm.max_angle);
            v[LIMIT_SSWING] = sinf(0.5f * swing);
            v[LIMIT_CSWING] = cosf(0.5f * swing);
            for (int k = 0; k < LIMIT_COUNT; ++k) F[HF_LIM + LIMIT_COUNT * s + k][f] = v[k];
        }
        F[HF_NSEG][f] = (float)n;
        F[HF_REACH][f] = leg_reach(&b->leg[l]);
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
    /* whole vectors of the widest kernel (16 lanes, two interleaved): the
     * herd's last feet run in one (run_kernel) */
    size_t fstride = ((size_t)h->feet + 31) & ~(size_t)31;
    if ((fstride * sizeof(float)) % 4096 == 0) fstride += 16; /* streams 4 KiB apart alias in L1 */
    size_t floats = cstride * HC_COUNT + fstride * HF_COUNT + cstride / 2; /* the enable and seen bytes */
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
    h->en = (unsigned char *)p;
    h->seen = h->en + cstride;
    memset(h->en, 1, 2 * cstride);
    for (int ch = 0; ch < character_count; ++ch) {
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) h->c[HC_ROOT + 7 * r + 6][ch] = h->c[HC_SROOT + 7 * r + 6][ch] = 1.0f;
        install_body(h, ch, body);
        forget_character(h, ch);
    }
    for (int f = 0; f < h->feet; ++f) {
        for (int s2 = 0; s2 < CIK_HERD_MAX_SEGMENTS; ++s2)
            h->f[HF_POSE + 12 + s2][f] = h->f[HF_SOLVED + 12 + s2][f] = 1.0f;
        h->f[HF_WEIGHT][f] = 1.0f;
        h->f[HF_RP + 6][f] = h->f[HF_SRP + 6][f] = 1.0f;
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
    o->enabled = h->en;
    return CIK_OK;
}

/* ------------------------------------------------------------------------ */
/* The frame                                                                */

/* What the stages need from the options and the frame time, worked out
 * once per call, in the herd's units and per frame: the kernels' job, then
 * the body's own. */
typedef struct herd_args {
    cik_herd *h;
    const cik__foot_kernel *k;
    cik_heightfield hf; /* a copy of the view, not of the heights */
    int has_hf;
    cik__herd_job job;
    float max_drop, max_raise, pitch_w, roll_w, max_tilt;
    float spring_w, spring_k; /* 1 / time, exp(-dt / time) */
    int spring_now;           /* no smoothing */
} herd_args;

static cik_status prepare(cik_herd *h, const cik_herd_options *opt, float dt, herd_args *a, cik_options *so)
{
    if (!h) return CIK_ERROR_ARGUMENT;
    cik_herd_options d = cik_herd_default_options();
    if (!opt) opt = &d;
    cik_status s = check_options(opt);
    if (s != CIK_OK) return s;
    s = cik__foot_check_dt(&opt->foot, dt);
    if (s != CIK_OK) return s;
    const cik_foot_options *o = &opt->foot;
    const float u = o->units_per_metre;
    *so = o->solver;
    so->threshold = o->solver.threshold * u;
    memset(a, 0, sizeof *a);
    a->h = h;
    const cik__isa *isa = cik__isa_usable(o->solver.backend);
    if (!isa || !isa->foot) return CIK_ERROR_BACKEND_UNAVAILABLE;
    a->k = isa->foot;
    cik__herd_job *j = &a->job;
    j->f = h->f;
    j->dt = dt > 0.0f ? dt : o->dt;
    j->primed = h->primed;
    j->contacts = o->contacts;
    j->lock = o->lock;
    float ps = o->plant_speed * u * j->dt, rs = o->release_speed * u * j->dt;
    j->plant2 = ps * ps;
    j->release2 = rs * rs;
    j->min_contact = o->min_contact_time;
    j->ease_in = o->ease_in_time > 0.0f ? j->dt / o->ease_in_time : 2.0f;
    j->ease_out = o->ease_out_time > 0.0f ? j->dt / o->ease_out_time : 2.0f;
    j->first_plant = 0.02f * u; /* 5 cm planted the low swing feet of a gait's first frame */
    j->radius2 = o->lock_radius * u * o->lock_radius * u;
    j->unlock_time = o->unlock_time;
    j->margin = o->reach_margin;
    j->soft = o->soft_reach;
    j->tol = o->limit_tolerance < 7.0f ? o->limit_tolerance : 7.0f;
    j->tol_c = cosf(0.5f * j->tol);
    j->tol_s = sinf(0.5f * j->tol);
    a->max_drop = o->max_pelvis_drop * u;
    a->max_raise = opt->max_raise * u;
    a->pitch_w = opt->pitch_weight;
    a->roll_w = opt->roll_weight;
    a->max_tilt = opt->max_tilt;
    cik__spring_constants(o->pelvis_smooth_time, j->dt, &a->spring_w, &a->spring_k, &a->spring_now);
    return CIK_OK;
}

static cik_vec3 ld3(float *const *s, int k, int i) { return vec3(s[k][i], s[k + 1][i], s[k + 2][i]); }

/* q / |q| with one division; a zero quaternion becomes the identity. */
static cik_quat unit(cik_quat q)
{
    float n2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(n2 > 0.0f)) return quat_identity();
    float k = 1.0f / sqrtf(n2);
    return quat(q.x * k, q.y * k, q.z * k, q.w * k);
}

/* A transform into streams k .. k + 6 (x, y, z, qx, qy, qz, qw) at i. */
static void put_pose(float *const *s, int k, int i, cik_vec3 p, cik_quat q)
{
    s[k][i] = p.x;
    s[k + 1][i] = p.y;
    s[k + 2][i] = p.z;
    s[k + 3][i] = q.x;
    s[k + 4][i] = q.y;
    s[k + 5][i] = q.z;
    s[k + 6][i] = q.w;
}

static void root_of(const cik_herd *h, int base, int ch, int r, cik_vec3 *p, cik_quat *q)
{
    const int k = base + 7 * r;
    *p = vec3(h->c[k][ch], h->c[k + 1][ch], h->c[k + 2][ch]);
    *q = unit(quat(h->c[k + 3][ch], h->c[k + 4][ch], h->c[k + 5][ch], h->c[k + 6][ch]));
}

/* A kernel pass over feet [f0, f1), whole vectors of it: the herd's last
 * feet that fill no whole vector run in one more, its lanes past the end
 * computed and never stored (lod_chunk sets the live stream for that
 * chunk, 0 past the end; the herd's streams are padded to whole vectors of
 * the widest kernel), as the crowd's (tail_vector in crowd.c). */
static void run_kernel(cik__herd_fn vec, int lanes, const cik__herd_job *job, int f0, int f1)
{
    if (f1 > f0) vec(job, f0, f0 + (f1 - f0 + lanes - 1) / lanes * lanes);
}
#define RUN(a, name, f0, f1) run_kernel((a)->k->name, (a)->k->lanes, &(a)->job, (f0), (f1))

/* Stage 1 for characters [c0, c1): each foot gets its leg's animated root
 * and its character's floor, then the probe pass. */
static void probe_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    for (int ch = c0; ch < c1; ++ch) {
        if (!h->en[ch]) continue;
        const cik_herd_body *b = &h->bodies[ch];
        for (int l = 0; l < h->legs; ++l) {
            const int f = ch * h->legs + l, k = HC_ROOT + 7 * b->leg[l].root;
            for (int x = 0; x < 7; ++x) F[HF_RP + x][f] = h->c[k + x][ch];
            F[HF_FLOOR][f] = h->c[HC_FLOOR][ch];
        }
    }
    RUN(a, herd_probe, c0 * h->legs, c1 * h->legs);
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
    cik__spring_step(a->spring_w, a->spring_k, a->job.dt, goal, x, v);
}

/* Stage 3 for characters [c0, c1): the body of each character (the plane
 * fit, the tilt, the height, their springs, the solved roots), handed to
 * its feet (HF_SRP, the solved root of each foot's leg), then the place
 * pass. */
static void place_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    float *const *C = h->c;
    const int L = h->legs;
    for (int ch = c0; ch < c1; ++ch) {
        if (!h->en[ch]) continue;
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
        const int cold = !a->job.primed || C[HC_COLD][ch] > 0.0f;
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
        float goal = a->max_raise, needs[CIK_HERD_MAX_LEGS], weights[CIK_HERD_MAX_LEGS], top = -INFINITY;
        int any = 0;
        for (int l = 0; l < L; ++l) {
            weights[l] = 0.0f;
            int f = f0 + l;
            /* a swing foot counts from a tenth of its leg's reach above its
             * floor on, as the place pass brings it to its own ground: the
             * body starts toward a lower footfall before the foot lands */
            float w = clampf(F[HF_WEIGHT][f], 0.0f, 1.0f);
            float clear = F[HF_AFY][f] - floor_y, span = 0.1f * F[HF_REACH][f];
            float near = span > 0.0f ? clampf(1.0f - clear / span, 0.0f, 1.0f) : 0.0f;
            if (near > w) w = near;
            if (!(w > 0.0f)) continue;
            cik_vec3 hp = ld3(F, HF_HIPX, f);
            cik_vec3 ht = vec3_add(quat_rotate(tilt, vec3_sub(hp, pivot)), pivot);
            float moved = ht.y - hp.y;
            /* the ground's offset from the animation's floor under this
             * foot (not the foot's clearance: a foot easing out of its
             * stance is lifted, and the body must not follow it down) */
            float need = (F[HF_CY][f] - floor_y) - moved;
            /* and no lower than lets the leg reach its planted target
             * within the soft reach (or the animation's own extension):
             * a leg stretched past it would hold its foot above the
             * ground until the body came down */
            cik_vec3 af = ld3(F, HF_AFX, f), ah = ld3(F, HF_HIPX, f);
            float ext = vec3_length(vec3_sub(af, ah)), reach = F[HF_REACH][f];
            float d0 = fminf(fmaxf(ext, reach * a->job.soft), fmaxf(reach * (1.0f - a->job.margin), fminf(ext, reach)));
            float dx = F[HF_PROBEX][f] - ht.x, dz = F[HF_PROBEZ][f] - ht.z;
            float ty = F[HF_CY][f];
            float v2 = d0 * d0 - dx * dx - dz * dz;
            if (v2 > 0.0f) {
                float reachable = sqrtf(v2) - (ht.y - ty);
                if (reachable < need) need = reachable;
            }
            needs[l] = need;
            weights[l] = w;
            if (need > top) top = need;
            any = 1;
        }
        /* a leg eases its need in by its weight from the highest need of
         * the legs (not from max_raise: legs that all ease in would lift
         * the body by part of max_raise, whatever the ground) */
        const float free_need = fminf(top, a->max_raise);
        for (int l = 0; l < L && any; ++l) {
            if (!(weights[l] > 0.0f)) continue;
            float g = weights[l] * needs[l] + (1.0f - weights[l]) * free_need;
            if (g < goal) goal = g;
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
            sq[r] = unit(quat_mul(tilt, rq[r]));
            put_pose(C, HC_SROOT + 7 * r, ch, sp[r], sq[r]);
        }
        for (int l = 0; l < L; ++l) {
            const int root = b->leg[l].root;
            put_pose(F, HF_SRP, f0 + l, sp[root], sq[root]);
        }
    }
    RUN(a, herd_place, c0 * L, c1 * L);
    /* into the batches: each leg's chain root, target and start pose */
    for (int ch = c0; ch < c1; ++ch) {
        if (!h->en[ch]) continue;
        for (int l = 0; l < L; ++l) {
            const int f = ch * L + l, n = h->segments[l];
            const cik_streams *bs = &h->bs[n];
            const int i = ch * h->per_kind[n] + h->rank[l];
            bs->root_position_x[i] = F[HF_SRP][f];
            bs->root_position_y[i] = F[HF_SRP + 1][f];
            bs->root_position_z[i] = F[HF_SRP + 2][f];
            bs->root_rotation_x[i] = F[HF_SRP + 3][f];
            bs->root_rotation_y[i] = F[HF_SRP + 4][f];
            bs->root_rotation_z[i] = F[HF_SRP + 5][f];
            bs->root_rotation_w[i] = F[HF_SRP + 6][f];
            bs->target_x[i] = F[HF_TX][f];
            bs->target_y[i] = F[HF_TY][f];
            bs->target_z[i] = F[HF_TZ][f];
            for (int s = 0; s < n; ++s) {
                bs->rotation_x[s][i] = F[HF_START + s][f];
                bs->rotation_y[s][i] = F[HF_START + CIK_HERD_MAX_SEGMENTS + s][f];
                bs->rotation_z[s][i] = F[HF_START + 2 * CIK_HERD_MAX_SEGMENTS + s][f];
                bs->rotation_w[s][i] = F[HF_START + 3 * CIK_HERD_MAX_SEGMENTS + s][f];
            }
        }
    }
}

/* Stage 4's outputs for characters [c0, c1): each foot's solved rotations,
 * error and passes from its batch, then the output pass. */
static void output_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    float *const *F = h->f;
    for (int ch = c0; ch < c1; ++ch) {
        if (!h->en[ch]) continue;
        for (int l = 0; l < h->legs; ++l) {
            const int f = ch * h->legs + l, n = h->segments[l];
            const cik_streams *bs = &h->bs[n];
            const int i = ch * h->per_kind[n] + h->rank[l];
            for (int s = 0; s < n; ++s) {
                F[HF_SOLVED + s][f] = bs->rotation_x[s][i];
                F[HF_SOLVED + CIK_HERD_MAX_SEGMENTS + s][f] = bs->rotation_y[s][i];
                F[HF_SOLVED + 2 * CIK_HERD_MAX_SEGMENTS + s][f] = bs->rotation_z[s][i];
                F[HF_SOLVED + 3 * CIK_HERD_MAX_SEGMENTS + s][f] = bs->rotation_w[s][i];
            }
            F[HF_ERROR][f] = bs->result_error[i];
            F[HF_PASSES][f] = (float)bs->result_iterations[i];
        }
    }
    RUN(a, herd_output, c0 * h->legs, c1 * h->legs);
}

/* Heights only: a single-point foot has no sole to align. With characters
 * off in the chunk, the runs of on characters one at a time. */
static void ground_part(const herd_args *a, int c0, int c1)
{
    cik_herd *h = a->h;
    for (int b = c0; b < c1;) {
        if (!h->en[b]) {
            ++b;
            continue;
        }
        int e = b + 1;
        while (e < c1 && h->en[e]) ++e;
        const int f0 = b * h->legs, n = (e - b) * h->legs;
        cik_heightfield_sample_many(&a->hf, n, h->f[HF_PROBEX] + f0, h->f[HF_PROBEZ] + f0, h->f[HF_CY] + f0, NULL,
                                    NULL, NULL);
        b = e;
    }
}

enum { DO_PROBE = 1, DO_GROUND = 2, DO_PLACE = 4, DO_OUTPUT = 8 };

typedef struct part_job {
    const herd_args *a;
    int stages;
} part_job;

/* Level of detail for characters [c0, c1) (at most one chunk): their legs'
 * chains follow the enable bytes; with the probe, a character switched
 * back on starts afresh. 0 when every one is off (nothing to run); else
 * `la` is `a`, with the kernels' live stream set where some are off (their
 * lanes are computed, never stored). */
static int lod_chunk(const herd_args *a, int c0, int c1, int probe, herd_args *la)
{
    cik_herd *h = a->h;
    int on = 0;
    for (int c = c0; c < c1; ++c) {
        const int e = h->en[c] != 0;
        on += e;
        if (probe) {
            if (e && !h->seen[c]) forget_character(h, c);
            h->seen[c] = (unsigned char)e;
        }
    }
    for (int n = 2; n < JOINT_KINDS; ++n) {
        if (!h->batch[n]) continue;
        unsigned char *be = h->bs[n].enabled;
        const int k = h->per_kind[n];
        for (int c = c0; c < c1; ++c)
            for (int r = 0; r < k; ++r) be[c * k + r] = h->en[c] ? 1 : 0;
    }
    if (!on) return 0;
    *la = *a;
    la->job.live = NULL;
    /* the herd's last feet that fill no whole vector run in one, its lanes
     * past the end masked by the live stream (0 there: never written) */
    const int tail = c1 == h->characters && (c1 - c0) * h->legs % a->k->lanes != 0;
    if (on < c1 - c0 || tail) {
        float *live = h->f[HF_LIVE];
        for (int c = c0; c < c1; ++c)
            for (int l = 0; l < h->legs; ++l) live[c * h->legs + l] = h->en[c] ? 1.0f : 0.0f;
        la->job.live = live;
    }
    return 1;
}

static void run_part(const void *context, int c0, int c1)
{
    const part_job *j = (const part_job *)context;
    for (int b = c0; b < c1; b += HERD_CHUNK) {
        const int e = c1 - b < HERD_CHUNK ? c1 : b + HERD_CHUNK;
        herd_args la;
        if (!lod_chunk(j->a, b, e, j->stages & DO_PROBE, &la)) continue;
        if (j->stages & DO_PROBE) probe_part(&la, b, e);
        if (j->stages & DO_GROUND) ground_part(&la, b, e);
        if (j->stages & DO_PLACE) place_part(&la, b, e);
        if (j->stages & DO_OUTPUT) output_part(&la, b, e);
    }
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

/* Chunks of HERD_CHUNK characters (whole vectors of feet of every
 * instruction set: a foot's bits never depend on its chunk). */
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
 * changes (every batch takes the same). */
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
        a.hf = *hf;
        a.has_hf = 1;
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



/* The whole frame: checked once into a plan (the options, the frame time,
 * the heightfield, a solve plan per leg shape), then run range by range,
 * each range all four stages of its characters, the solves of their legs
 * included (cik_herd_frame on its threads, cik_herd_frame_range on the
 * engine's). */
typedef struct herd_plan {
    unsigned magic;
    herd_args a;
    cik__solve_plan solve[JOINT_KINDS - 2]; /* per joint count 2 .. 4 */
    int prefetch; /* 1: the herd's state is past CIK_PREFETCH_MIN_BYTES (herd_prefetch) */
} herd_plan;

#define HERD_PLAN_MAGIC 0x63696b48u

typedef char herd_plan_fits[sizeof(herd_plan) <= sizeof(((cik_herd_frame_plan *)0)->opaque) ? 1 : -1];
typedef char herd_alignment_public[HERD_CHUNK == CIK_HERD_RANGE_ALIGNMENT ? 1 : -1];

static const herd_plan *herd_plan_of(const cik_herd_frame_plan *plan)
{
    if (!plan) return NULL;
    const herd_plan *p = (const herd_plan *)(const void *)&plan->opaque;
    return p->magic == HERD_PLAN_MAGIC ? p : NULL;
}

static cik_status plan_prepare(cik_herd *h, const cik_heightfield *hf, const cik_herd_options *options, float dt,
                               herd_plan *p, int *threads)
{
    memset(p, 0, sizeof *p);
    cik_options so;
    cik_status s = prepare(h, options, dt, &p->a, &so);
    if (s != CIK_OK) return s;
    for (int n = 2; n < JOINT_KINDS; ++n) {
        if (!h->batch[n]) continue;
        s = cik__solve_prepare(h->batch[n], &so, &p->solve[n - 2]);
        if (s != CIK_OK) return s;
        /* a chunk's legs are solved right after place wrote them: in the
         * cache, whatever the batch's size */
        p->solve[n - 2].job.prefetch = 0;
    }
    s = cik_heightfield_validate(hf);
    if (s != CIK_OK) return s;
    p->a.hf = *hf;
    p->a.has_hf = 1;
    size_t bytes = h->block_bytes;
    for (int n = 2; n < JOINT_KINDS; ++n)
        if (h->batch[n]) bytes += cik__batch_bytes(h->batch[n]);
    p->prefetch = bytes > CIK_PREFETCH_MIN_BYTES;
    p->magic = HERD_PLAN_MAGIC;
    *threads = so.threads;
    return CIK_OK;
}

/* Asks for the streams of characters [b, e) (their own, their feet's,
 * their legs' in the batches) before the chunk that holds them runs: a
 * large herd is not in the cache when a chunk starts, and the stages read
 * far more streams side by side than the hardware's prefetchers follow
 * (the crowd's prefetch_block). Prefetches change no value. */
CIK__PREFETCH_INLINE void herd_prefetch(const cik_herd *h, int b, int e)
{
    const size_t legs = (size_t)h->legs;
    for (int k = 0; k < HF_COUNT; ++k) cik__prefetch_lines(h->f[k], (size_t)b * legs, (size_t)e * legs);
    for (int k = 0; k < HC_COUNT; ++k) cik__prefetch_lines(h->c[k], (size_t)b, (size_t)e);
    for (int n = 2; n < JOINT_KINDS; ++n)
        if (h->batch[n]) cik__prefetch_chains(h->batch[n], (size_t)b * h->per_kind[n], (size_t)e * h->per_kind[n]);
}

/* Characters [begin, end) of a plan's frame, on the calling thread. The
 * chunk after each is asked for while it runs (after the range's last,
 * the herd's next chunk: the thread's next, mostly, cik__parallel_ranges). */
static void plan_range(const herd_plan *p, int begin, int end)
{
    cik_herd *h = p->a.h;
    for (int b = begin; b < end; b += HERD_CHUNK) {
        const int e = end - b < HERD_CHUNK ? end : b + HERD_CHUNK;
        if (p->prefetch && e < h->characters)
            herd_prefetch(h, e, h->characters - e < HERD_CHUNK ? h->characters : e + HERD_CHUNK);
        herd_args la;
        if (!lod_chunk(&p->a, b, e, 1, &la)) continue;
        probe_part(&la, b, e);
        ground_part(&la, b, e);
        place_part(&la, b, e);
        /* the chunk's chains are contiguous in every batch: character c's
         * legs of one shape are chains c * per_kind .. c * per_kind +
         * per_kind - 1 */
        for (int n = 2; n < JOINT_KINDS; ++n)
            if (h->batch[n]) cik__solve_range(&p->solve[n - 2], b * h->per_kind[n], e * h->per_kind[n]);
        output_part(&la, b, e);
    }
}

static void plan_chunk(const void *context, int begin, int end) { plan_range((const herd_plan *)context, begin, end); }

cik_status cik_herd_frame_plan_init(cik_herd_frame_plan *plan, cik_herd *h, const cik_heightfield *hf,
                                    const cik_herd_options *options, float dt)
{
    if (!plan) return CIK_ERROR_ARGUMENT;
    herd_plan p;
    int threads;
    cik_status s = plan_prepare(h, hf, options, dt, &p, &threads);
    if (s != CIK_OK) return s;
    /* the plan captured "a frame has run" before this one; the springs of
     * the next frame smooth from this one */
    h->primed = 1;
    memset(plan, 0, sizeof *plan);
    memcpy(&plan->opaque, &p, sizeof p);
    return CIK_OK;
}

cik_status cik_herd_frame_range(const cik_herd_frame_plan *plan, int begin, int end)
{
    const herd_plan *p = herd_plan_of(plan);
    if (!p) return CIK_ERROR_ARGUMENT;
    const int nc = p->a.h->characters;
    if (begin < 0 || begin > end || end > nc) return CIK_ERROR_ARGUMENT;
    /* a bound inside a vector of feet: the ranges on either side would
     * both store that vector (run_kernel's masked lanes) */
    if ((begin % CIK_HERD_RANGE_ALIGNMENT != 0 && begin != nc) || (end % CIK_HERD_RANGE_ALIGNMENT != 0 && end != nc))
        return CIK_ERROR_ARGUMENT;
    if (begin < end) plan_range(p, begin, end);
    return CIK_OK;
}

/* The frame: one parallel pass over chunks of characters, each chunk's
 * stages and solves one after the other while its streams are in the
 * cache (the same bits as the staged calls). */
cik_status cik_herd_frame(cik_herd *h, const cik_heightfield *hf, const cik_herd_options *o, float dt)
{
    herd_plan p;
    int threads;
    cik_status s = plan_prepare(h, hf, o, dt, &p, &threads);
    if (s != CIK_OK) return s;
    h->primed = 1;
    cik__parallel_ranges(h->characters, HERD_CHUNK, team_of(h, threads), &h->team, plan_chunk, &p);
    return CIK_OK;
}
