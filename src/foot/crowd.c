/* The crowd foot-placement pipeline (include/crowdik/foot.h, docs/foot.md). */
#include "crowdik/foot.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef CIK_HAVE_OPENMP
#include <omp.h>
#endif

#include "foot_internal.h"
#include "../scalar_math.h"


struct cik_foot_crowd {
    int characters, feet;
    int primed;
    cik__team_state team; /* the frame's OpenMP back-off (cik__parallel_ranges) */
    cik_allocator alloc;  /* allocate NULL: malloc and free */
    size_t block_bytes;   /* the size `block` was allocated with */
    cik_batch *batch;
    /* one leg's chain, where set_legs tries new legs before it touches the
     * crowd: the batch's own rules, and a refusal leaves every stream of
     * the crowd as it was */
    cik_batch *trial;
    cik_streams bs;
    cik_foot_leg *legs; /* per foot, axes and sole normal normalised */
    void *block;
    float *c[CHAR_COUNT];
    float *f[FOOT_COUNT];
    float *k[LEG_COUNT]; /* the legs' constants, one float per foot */
    /* where the kernels read them (foot_internal.h): each constant from its
     * stream or, when all left and all right feet agree, from its pattern of
     * PATTERN floats in kpat; kept up to date as legs change
     * (consts_changed, refresh_consts) */
    cik__foot_consts kc;
    float *kpat;
    /* kstale: every constant's layout is worked out again before the next
     * frame (a new crowd); krecheck[k]: constant k's alone (its stream may
     * have become a pattern: consts_changed), krecheck_any: some k's */
    int kstale, krecheck_any;
    unsigned char krecheck[LEG_COUNT];
    /* level of detail: the public enable bytes, and whether each character
     * was on at its last probe (off -> on starts it afresh) */
    unsigned char *en, *seen;
};

/* Floats in a constant's pattern: the widest kernel's lanes (16 x 4). */
#define PATTERN 64

cik_foot_options cik_foot_default_options(void)
{
    cik_foot_options o;
    memset(&o, 0, sizeof o);
    o.solver = cik_default_options();
    o.solver.threshold = 2e-4f;
    o.solver.max_iterations = 16;
    o.dt = 1.0f / 60.0f;
    o.max_pelvis_drop = 0.3f;
    o.pelvis_smooth_time = 0.06f;
    o.reach_margin = 0.002f;
    o.soft_reach = 0.96f;
    o.start = CIK_FOOT_START_ANIMATION;
    o.units_per_metre = 1.0f;
    o.contacts = CIK_FOOT_CONTACTS_ANIMATION;
    o.plant_speed = 0.6f;
    o.release_speed = 0.9f;
    o.min_contact_time = 0.05f;
    o.ease_in_time = 0.05f;
    o.ease_out_time = 0.12f;
    o.lock = 1;
    o.lock_radius = 0.12f;
    o.unlock_time = 0.2f;
    o.limit_tolerance = 0.05f;
    o.lift_speed = 0.5f;
    o.knee_speed = 5.0f;
    o.swing_lift = 1.0f;
    o.skate_height = 0.02f;
    o.held_knee_speed = 3.5f;
    o.swing_lookahead = 0.1f;
    return o;
}

/* The foot options' own ranges (check_stage adds the solver's). */
static int nonneg(float x) { return x >= 0.0f && isfinite(x); }
static int positive(float x) { return x > 0.0f && isfinite(x); }

/* The distances the speeds cover in a frame of `dt` seconds, in the
 * crowd's units, finite and above 0 (a huge frame time overflows them, a
 * denormal one flushes them to 0). */
static int speeds_fit(const cik_foot_options *o, float dt)
{
    const float u = o->units_per_metre;
    return isfinite(o->release_speed * u * dt) && o->plant_speed * u * dt > 0.0f;
}

cik_status cik__foot_check_dt(const cik_foot_options *o, float dt)
{
    if (!(dt >= 0.0f) || !isfinite(dt)) return CIK_ERROR_ARGUMENT;
    return dt == 0.0f || speeds_fit(o, dt) ? CIK_OK : CIK_ERROR_ARGUMENT;
}

cik_status cik__foot_check_options(const cik_foot_options *o)
{
    if (!positive(o->solver.threshold) || o->solver.max_iterations < 0) return CIK_ERROR_OPTIONS;
    if (!positive(o->dt) || !nonneg(o->max_pelvis_drop) || !nonneg(o->pelvis_smooth_time)) return CIK_ERROR_OPTIONS;
    if (!(o->reach_margin >= 0.0f) || !(o->reach_margin < 0.5f)) return CIK_ERROR_OPTIONS;
    if (!(o->soft_reach > 0.0f) || !(o->soft_reach <= 1.0f)) return CIK_ERROR_OPTIONS;
    if (o->start < CIK_FOOT_START_ANIMATION || o->start > CIK_FOOT_START_TWO_BONE) return CIK_ERROR_OPTIONS;
    if (o->contacts != CIK_FOOT_CONTACTS_ANIMATION && o->contacts != CIK_FOOT_CONTACTS_WEIGHTS) return CIK_ERROR_OPTIONS;
    if (!positive(o->plant_speed) || !positive(o->release_speed) || !(o->release_speed >= o->plant_speed))
        return CIK_ERROR_OPTIONS;
    if (!nonneg(o->min_contact_time) || !nonneg(o->ease_in_time) || !nonneg(o->ease_out_time)) return CIK_ERROR_OPTIONS;
    if ((o->lock != 0 && o->lock != 1) || !positive(o->lock_radius) || !nonneg(o->unlock_time)) return CIK_ERROR_OPTIONS;
    if (!nonneg(o->limit_tolerance) || !nonneg(o->lift_speed) || !isfinite(o->lift_speed * o->units_per_metre * o->dt))
        return CIK_ERROR_OPTIONS;
    if (!nonneg(o->knee_speed) || !isfinite(o->knee_speed * o->dt)) return CIK_ERROR_OPTIONS;
    if (!nonneg(o->held_knee_speed) || !isfinite(o->held_knee_speed * o->dt)) return CIK_ERROR_OPTIONS;
    if (!(o->swing_lift >= 0.0f) || !(o->swing_lift <= 1.0f)) return CIK_ERROR_OPTIONS;
    if (!nonneg(o->swing_lookahead) || !isfinite(o->swing_lookahead / o->dt)) return CIK_ERROR_OPTIONS;
    if (!nonneg(o->skate_height) || !isfinite(o->skate_height * o->units_per_metre)) return CIK_ERROR_OPTIONS;
    /* the scale and the lengths it scales finite */
    const float u = o->units_per_metre;
    if (!positive(u) || !positive(o->solver.threshold * u) || !isfinite(o->max_pelvis_drop * u) ||
        !positive(o->lock_radius * u) || !speeds_fit(o, o->dt))
        return CIK_ERROR_OPTIONS;
    /* as cik_solve: a backend this build or CPU lacks has no foot kernels */
    if (!cik_backend_available(o->solver.backend)) return CIK_ERROR_BACKEND_UNAVAILABLE;
    return CIK_OK;
}

static int vec_finite(cik_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* ------------------------------------------------------------------------ */
/* Creation                                                                 */

/* A leg as a chain: hip, knee and ankle with the ankle as the effector
 * (`joints` 3: the trial chain, whose checks and prepared limits cover the
 * ankle's too), or hip and knee with the shin as the effector (`joints` 2:
 * the crowd's batch). The solve moves the ankle, never turns it: align
 * does, so a third joint in the batch would be solved for nothing (its
 * step turns nothing, its limit clamps a rotation align replaces) and
 * read and written every frame. */
static void leg_chain(const cik_foot_leg *leg, int joints, cik_chain *c)
{
    memset(c, 0, sizeof *c);
    c->joint_count = joints;
    c->root_rotation = quat(0, 0, 0, 1);
    c->offset[0] = leg->hip;
    c->offset[1] = leg->thigh;
    c->offset[2] = leg->shin;
    for (int j = 0; j < 3; ++j) {
        c->rotation[j] = quat(0, 0, 0, 1);
        c->limit[j] = leg->limit[j];
    }
    c->effector = vec3(0, 0, 0);
    if (joints == 2) {
        c->effector = leg->shin;
        c->offset[2] = vec3(0, 0, 0);
        memset(&c->limit[2], 0, sizeof c->limit[2]);
    }
}

static cik_status check_leg(const cik_foot_leg *leg)
{
    if (!leg) return CIK_ERROR_ARGUMENT;
    if (!vec_finite(leg->hip) || !vec_finite(leg->thigh) || !vec_finite(leg->shin) ||
        !vec_finite(leg->sole_normal) || !isfinite(leg->ankle_height) || !vec_finite(leg->point[0]) ||
        !vec_finite(leg->point[1]) || !vec_finite(leg->point[2]))
        return CIK_ERROR_NON_FINITE;
    if (!(leg->ankle_height >= 0.0f) || !(vec3_length(leg->sole_normal) > 1e-6f))
        return CIK_ERROR_ARGUMENT;
    return CIK_OK;
}


/* Writes foot f's leg constants (LEG_*): limits with their half-angle sines and
 * cosines (so that the frame needs no transcendental function per foot:
 * the trial batch's, which holds the leg's three-joint chain) and the
 * foot's points. */
static void leg_prepare(cik_foot_crowd *cr, int f, const cik_foot_leg *l)
{
    float *const *k = cr->k;
    const cik_vec3 v[4] = {l->hip, l->thigh, l->shin, l->sole_normal};
    for (int i = 0; i < 4; ++i) {
        k[LEG_HIPX + 3 * i][f] = v[i].x;
        k[LEG_HIPY + 3 * i][f] = v[i].y;
        k[LEG_HIPZ + 3 * i][f] = v[i].z;
    }
    k[LEG_AH][f] = l->ankle_height;
    k[LEG_REACH][f] = vec3_length(l->thigh) + vec3_length(l->shin);
    /* the limits as the batch prepared them (install_legs set the leg's
     * chain on the trial first): one preparation, one layout for the CCD
     * and foot kernels */
    for (int j = 0; j < 3; ++j) {
        float *const *L = k + LEG_LIMIT + LIMIT_COUNT * j;
        static const int from[LIMIT_COUNT] = {CIK__LTYPE, CIK__AX, CIK__AY, CIK__AZ, CIK__SMIN,
                                              CIK__CMIN, CIK__SMAX, CIK__CMAX, CIK__SSWING, CIK__CSWING};
        for (int m = 0; m < LIMIT_COUNT; ++m) L[m][f] = cik__joint_stream(cr->trial, j, from[m])[0];
    }
    for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
        k[LEG_PTX + p][f] = l->point[p].x;
        k[LEG_PTY + p][f] = l->point[p].y;
        k[LEG_PTZ + p][f] = l->point[p].z;
    }
}

/* After a character's legs changed: where the kernels read each leg
 * constant, kept true without scanning the crowd. A constant read from its
 * pattern stays there where the character's new values are the pattern's,
 * and is read from its stream from then on where they differ. A constant
 * read from its stream (so, now) is looked at again before the next frame
 * (refresh_consts, that constant alone) where every foot may agree: the
 * character is character 0, or its new values are character 0's. Before,
 * any change of legs had the next frame compare every constant of every
 * foot: a character spawned into a running crowd of 10,000 cost that frame
 * 8 to 11 million instructions (docs/foot.md, Memory). Nothing to do while
 * the whole crowd is due to be looked at (kstale: a new crowd). */
static void consts_changed(cik_foot_crowd *cr, int character)
{
    if (cr->kstale) return;
    const int f = 2 * character;
    for (int k = 0; k < LEG_COUNT; ++k) {
        const float *v = cr->k[k];
        if (cr->kc.mask[k] == 1 && memcmp(&v[f], cr->kpat + (size_t)PATTERN * k, 2 * sizeof(float)) != 0) {
            cr->kc.p[k] = v;
            cr->kc.mask[k] = -1;
        }
        if (cr->kc.mask[k] != 1 && (character == 0 || memcmp(&v[f], v, 2 * sizeof(float)) == 0)) {
            cr->krecheck[k] = 1;
            cr->krecheck_any = 1;
        }
    }
}

static cik_status install_legs(cik_foot_crowd *cr, int character, const cik_foot_leg legs[2])
{
    for (int side = 0; side < 2; ++side) {
        cik_status s = check_leg(&legs[side]);
        if (s != CIK_OK) return s;
    }
    /* both legs through the batch's checks on the trial chain before either
     * is kept: writing one into the crowd's batch and putting it back on a
     * refusal would not give the same bits (set_chain renormalises, clears
     * the result), so nothing is written until both pass */
    cik_chain c[2];
    for (int side = 0; side < 2; ++side) {
        leg_chain(&legs[side], 3, &c[side]);
        cik_status s = cik_batch_set_chain(cr->trial, 0, &c[side]);
        if (s != CIK_OK) return s;
    }
    for (int side = 0; side < 2; ++side) {
        /* the trial accepted it: the crowd's batch, with the same rules,
         * takes its hip and knee too */
        cik_chain two;
        leg_chain(&legs[side], 2, &two);
        cik_status s = cik_batch_set_chain(cr->batch, 2 * character + side, &two);
        if (s != CIK_OK) return s;
    }
    for (int side = 0; side < 2; ++side) {
        int f = 2 * character + side;
        /* the leg's prepared limits, ankle included, on the trial (which
         * accepted this chain above) */
        (void)cik_batch_set_chain(cr->trial, 0, &c[side]);
        cik_foot_leg l = legs[side];
        l.sole_normal = vec3_normalize(l.sole_normal);
        if (vec3_dot(l.point[0], l.point[0]) == 0.0f && vec3_dot(l.point[1], l.point[1]) == 0.0f &&
            vec3_dot(l.point[2], l.point[2]) == 0.0f)
            for (int p = 0; p < CIK_FOOT_POINTS; ++p) l.point[p] = vec3_scale(l.sole_normal, -l.ankle_height);
        for (int j = 0; j < 3; ++j)
            if (l.limit[j].type != CIK_LIMIT_NONE) l.limit[j].axis = vec3_normalize(l.limit[j].axis);
        cr->legs[f] = l;
        leg_prepare(cr, f, &l);
    }
    consts_changed(cr, character);
    return CIK_OK;
}

/* The state that feet [f0, f1) carry from frame to frame as a fresh crowd
 * has it: nothing planted or locked, no blend; `cold` marks them for the
 * probe's first-frame rules (a single character's reset; the crowd's
 * reset clears `primed` instead). */
static void forget_feet(cik_foot_crowd *cr, int f0, int f1, float cold)
{
    static const int zero[] = {FOOT_PLANTED, FOOT_LOCKED, FOOT_HOLD, FOOT_PIVOT, FOOT_CTIME, FOOT_EASE, FOOT_ANCX, FOOT_ANCZ,
                               FOOT_ANCFX, FOOT_ANCFZ, FOOT_BOFX, FOOT_BOFZ, FOOT_BYS,
                               FOOT_PLX, FOOT_PLZ, FOOT_YAWS, FOOT_KDC, FOOT_KDS, FOOT_SLIP, FOOT_AHLIFT, FOOT_LIFT, FOOT_DOWN, FOOT_LIFTED};
    for (int f = f0; f < f1; ++f) {
        for (size_t k = 0; k < sizeof zero / sizeof zero[0]; ++k) cr->f[zero[k]][f] = 0.0f;
        cr->f[FOOT_BTIME][f] = 1e30f;
        cr->f[FOOT_BYC][f] = 1.0f;
        cr->f[FOOT_YAWC][f] = 1.0f;
        cr->f[FOOT_COLD][f] = cold;
    }
}

/* The whole crowd afresh: no smoothing, no frame run. */
static void forget(cik_foot_crowd *cr)
{
    cr->primed = 0;
    memset(cr->c[CHAR_STATE], 0, sizeof(float) * (size_t)cr->characters);
    memset(cr->c[CHAR_STATEV], 0, sizeof(float) * (size_t)cr->characters);
    forget_feet(cr, 0, cr->feet, 0.0f);
}

/* One character afresh: its feet cold, its pelvis spring's state not
 * finite, which the next place takes as "start at the need". */
static void forget_character(cik_foot_crowd *cr, int c)
{
    cr->c[CHAR_STATE][c] = NAN;
    cr->c[CHAR_STATEV][c] = 0.0f;
    forget_feet(cr, 2 * c, 2 * c + 2, COLD_AFRESH);
}

void *cik__foot_allocate(const cik_allocator *a, size_t size, size_t alignment)
{
    return a->allocate ? a->allocate(a->user, size, alignment) : malloc(size);
}

void cik__foot_release(const cik_allocator *a, void *p, size_t size)
{
    if (!p) return;
    if (a->allocate)
        a->free(a->user, p, size);
    else
        free(p);
}

cik_status cik_foot_crowd_create_with(int character_count, const cik_foot_leg legs[2],
                                      const cik_allocator *allocator, cik_foot_crowd **out)
{
    if (!out || !legs || character_count < 1 || character_count > (1 << 26))
        return CIK_ERROR_ARGUMENT;
    cik_allocator a = {NULL, NULL, NULL};
    if (allocator) {
        if (!allocator->allocate || !allocator->free) return CIK_ERROR_ARGUMENT;
        a = *allocator;
    }
    for (int side = 0; side < 2; ++side) {
        cik_status s = check_leg(&legs[side]);
        if (s != CIK_OK) return s;
    }
    cik_foot_crowd *cr = (cik_foot_crowd *)cik__foot_allocate(&a, sizeof *cr, _Alignof(cik_foot_crowd));
    if (!cr) return CIK_ERROR_OUT_OF_MEMORY;
    memset(cr, 0, sizeof *cr);
    cr->alloc = a;
    cr->characters = character_count;
    cr->feet = 2 * character_count;
    const cik_allocator *ap = a.allocate ? &a : NULL;
    cik_status s = cik_batch_create_with(cr->feet, 2, ap, &cr->batch);
    if (s == CIK_OK) s = cik_batch_create_with(1, 3, ap, &cr->trial);
    if (s != CIK_OK) {
        cik_foot_crowd_destroy(cr);
        return s;
    }
    cik_batch_streams(cr->batch, &cr->bs);
    size_t cstride = ((size_t)cr->characters + 15) & ~(size_t)15; /* 64-byte multiples */
    /* whole vectors of the widest kernel (16 lanes, two interleaved): the
     * crowd's last feet run in one (tail_vector) */
    size_t fstride = ((size_t)cr->feet + 31) & ~(size_t)31;
    if ((fstride * sizeof(float)) % 4096 == 0) fstride += 16; /* streams 4 KiB apart alias in L1 */
    size_t floats = cstride * CHAR_COUNT + fstride * (FOOT_COUNT + LEG_COUNT) + (size_t)PATTERN * LEG_COUNT +
                    cstride / 2; /* the enable and seen bytes */
    /* 64 bytes more, aligned by hand: malloc does not align to 64, and an
     * allocator asked for 64 need not be trusted with the streams' layout */
    cr->block_bytes = floats * sizeof(float) + 64;
    cr->block = cik__foot_allocate(&a, cr->block_bytes, 64);
    cr->legs = (cik_foot_leg *)cik__foot_allocate(&a, sizeof(cik_foot_leg) * (size_t)cr->feet, _Alignof(cik_foot_leg));
    if (!cr->block || !cr->legs) {
        cik_foot_crowd_destroy(cr);
        return CIK_ERROR_OUT_OF_MEMORY;
    }
    float *p = (float *)(((uintptr_t)cr->block + 63) & ~(uintptr_t)63);
    memset(p, 0, floats * sizeof(float));
    for (int i = 0; i < CHAR_COUNT; ++i, p += cstride) cr->c[i] = p;
    for (int i = 0; i < FOOT_COUNT; ++i, p += fstride) cr->f[i] = p;
    for (int i = 0; i < LEG_COUNT; ++i, p += fstride) cr->k[i] = p;
    cr->kpat = p;
    p += (size_t)PATTERN * LEG_COUNT;
    cr->en = (unsigned char *)p;
    cr->seen = cr->en + cstride;
    memset(cr->en, 1, 2 * cstride);
    cr->kstale = 1; /* every constant looked at before the first frame */
    for (int c = 0; c < cr->characters; ++c) {
        cr->c[CHAR_QW][c] = 1.0f;
        s = install_legs(cr, c, legs);
        if (s != CIK_OK) {
            cik_foot_crowd_destroy(cr);
            return s;
        }
    }
    for (int f = 0; f < cr->feet; ++f) {
        cr->f[FOOT_POSE + 9][f] = cr->f[FOOT_POSE + 10][f] = cr->f[FOOT_POSE + 11][f] = 1.0f;
        cr->f[FOOT_WEIGHT][f] = 1.0f;
        for (int p = 0; p < FOOT_PROBES; ++p) cr->f[FOOT_CNY + p][f] = 1.0f;
        cr->f[FOOT_CY + FOOT_AHEAD][f] = -FLT_MAX; /* no ground ahead known */
        cr->f[FOOT_FQW][f] = cr->f[FOOT_AFW][f] = cr->f[FOOT_DFW][f] = cr->f[FOOT_SAW][f] = 1.0f;
    }
    forget(cr);
    *out = cr;
    return CIK_OK;
}

cik_status cik_foot_crowd_create(int character_count, const cik_foot_leg legs[2], cik_foot_crowd **out)
{
    return cik_foot_crowd_create_with(character_count, legs, NULL, out);
}

void cik_foot_crowd_destroy(cik_foot_crowd *cr)
{
    if (!cr) return;
    const cik_allocator a = cr->alloc;
    cik_batch_destroy(cr->batch);
    cik_batch_destroy(cr->trial);
    cik__foot_release(&a, cr->block, cr->block_bytes);
    cik__foot_release(&a, cr->legs, sizeof(cik_foot_leg) * (size_t)cr->feet);
    cik__foot_release(&a, cr, sizeof *cr);
}

cik_status cik_foot_crowd_set_legs(cik_foot_crowd *cr, int character, const cik_foot_leg legs[2])
{
    if (!cr || !legs || character < 0 || character >= cr->characters) return CIK_ERROR_ARGUMENT;
    return install_legs(cr, character, legs);
}

cik_status cik_foot_crowd_get_legs(const cik_foot_crowd *cr, int character, cik_foot_leg legs[2])
{
    if (!cr || !legs || character < 0 || character >= cr->characters) return CIK_ERROR_ARGUMENT;
    legs[0] = cr->legs[2 * character];
    legs[1] = cr->legs[2 * character + 1];
    return CIK_OK;
}

int cik_foot_crowd_character_count(const cik_foot_crowd *cr) { return cr ? cr->characters : 0; }

const cik_batch *cik_foot_crowd_batch(const cik_foot_crowd *cr) { return cr ? cr->batch : NULL; }

cik_status cik_foot_crowd_reset(cik_foot_crowd *cr)
{
    if (!cr) return CIK_ERROR_ARGUMENT;
    forget(cr);
    return CIK_OK;
}

cik_status cik_foot_crowd_reset_character(cik_foot_crowd *cr, int character)
{
    if (!cr || character < 0 || character >= cr->characters) return CIK_ERROR_ARGUMENT;
    forget_character(cr, character);
    return CIK_OK;
}

cik_status cik_foot_crowd_streams(cik_foot_crowd *cr, cik_foot_streams *o)
{
    if (!cr || !o) return CIK_ERROR_ARGUMENT;
    memset(o, 0, sizeof *o);
    o->character_count = cr->characters;
    o->foot_count = cr->feet;
    o->pelvis_x = cr->c[CHAR_PX];
    o->pelvis_y = cr->c[CHAR_PY];
    o->pelvis_z = cr->c[CHAR_PZ];
    o->pelvis_qx = cr->c[CHAR_QX];
    o->pelvis_qy = cr->c[CHAR_QY];
    o->pelvis_qz = cr->c[CHAR_QZ];
    o->pelvis_qw = cr->c[CHAR_QW];
    o->floor_y = cr->c[CHAR_FLOOR];
    for (int j = 0; j < 3; ++j) {
        o->pose_x[j] = cr->f[FOOT_POSE + j];
        o->pose_y[j] = cr->f[FOOT_POSE + 3 + j];
        o->pose_z[j] = cr->f[FOOT_POSE + 6 + j];
        o->pose_w[j] = cr->f[FOOT_POSE + 9 + j];
        o->solved_x[j] = j < 2 ? cr->bs.rotation_x[j] : cr->f[FOOT_SAX];
        o->solved_y[j] = j < 2 ? cr->bs.rotation_y[j] : cr->f[FOOT_SAY];
        o->solved_z[j] = j < 2 ? cr->bs.rotation_z[j] : cr->f[FOOT_SAZ];
        o->solved_w[j] = j < 2 ? cr->bs.rotation_w[j] : cr->f[FOOT_SAW];
    }
    o->weight = cr->f[FOOT_WEIGHT];
    o->planted = cr->f[FOOT_PLANTED];
    o->locked = cr->f[FOOT_LOCKED];
    o->pivot = cr->f[FOOT_PIVOT];
    o->anim_ankle_x = cr->f[FOOT_AAX];
    o->anim_ankle_y = cr->f[FOOT_AAY];
    o->anim_ankle_z = cr->f[FOOT_AAZ];
    for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
        o->probe_x[p] = cr->f[FOOT_PROBEX + p];
        o->probe_z[p] = cr->f[FOOT_PROBEZ + p];
        o->contact_y[p] = cr->f[FOOT_CY + p];
        o->contact_nx[p] = cr->f[FOOT_CNX + p];
        o->contact_ny[p] = cr->f[FOOT_CNY + p];
        o->contact_nz[p] = cr->f[FOOT_CNZ + p];
        o->point_x[p] = cr->f[FOOT_PTX + p];
        o->point_y[p] = cr->f[FOOT_PTY + p];
        o->point_z[p] = cr->f[FOOT_PTZ + p];
    }
    o->probe_ahead_x = cr->f[FOOT_PROBEX + FOOT_AHEAD];
    o->probe_ahead_z = cr->f[FOOT_PROBEZ + FOOT_AHEAD];
    o->contact_ahead_y = cr->f[FOOT_CY + FOOT_AHEAD];
    o->pelvis_drop = cr->c[CHAR_DROP];
    o->target_x = cr->f[FOOT_TX];
    o->target_y = cr->f[FOOT_TY];
    o->target_z = cr->f[FOOT_TZ];
    o->ankle_x = cr->f[FOOT_AX];
    o->ankle_y = cr->f[FOOT_AY];
    o->ankle_z = cr->f[FOOT_AZ];
    o->foot_qx = cr->f[FOOT_FQX];
    o->foot_qy = cr->f[FOOT_FQY];
    o->foot_qz = cr->f[FOOT_FQZ];
    o->foot_qw = cr->f[FOOT_FQW];
    o->enabled = cr->en;
    return CIK_OK;
}
/* ------------------------------------------------------------------------ */
/* The frame                                                                */
/*
 * Every stage works on each character alone (the solve on each leg), so the
 * frame cuts the characters into ranges (chunks that OpenMP threads take as
 * they come, or the caller's own ranges, cik_foot_crowd_frame_range) and
 * runs every stage on blocks of BLOCK characters of a range, one after the
 * other, so that a block's streams stay in the cache from stage to stage.
 *
 * Within a block each stage is a vector kernel over the feet
 * (foot_kernel.h, one lane a foot, compiled per instruction set and chosen
 * like the solver's), with two small scalar loops: the per-character ones
 * (the pelvis copied to both feet; the pelvis drop, the larger need of the
 * two feet, smoothed) and the ground stage's gather of heights. Nothing calls
 * a transcendental function per foot: limits and the heel lift use
 * half-angle algebra (foot_kernel.h).
 */

/* Below this many feet the stages run on the calling thread (a parallel
 * region costs more than the work). */
#define PARALLEL_MIN_FEET 512
/* The most a held knee's rate (place_a's dmin) changes the pelvis drop's
 * rate, in metres per second squared: 3 mm a frame squared at 60 Hz (2 and
 * 4 measured: docs/foot.md, Since 0.11.0). */
#define HOLD_ACCEL 10.8f
/* The pelvis spring's lead: a need that rose in this frame and the one
 * before is fed to the spring ahead by the lesser rise times 2 time
 * constants over the frame, less half a frame (a critically damped spring
 * stepped frame by frame toward each frame's need follows a ramp that far
 * behind), at most SPRING_LEAD_MAX metres; a step (one frame's rise)
 * is not led. Without it the drop lagged a stance leg's
 * rising need by up to a centimetre, and the heel lifted for what the
 * pelvis had not yet given: the procedural walk's sole on terrain 3.70
 * degrees beyond its own angle instead of 2.78 (docs/foot.md, Since
 * 0.32.0; measured on the way, a lead from one frame's rise alone: at
 * most 5 mm, that sole 3.02; at most 2 cm, the 02_03 jog's swing knees
 * on flat ground 5.22 degrees off the animation, p99). */
#define SPRING_LEAD_MAX 0.0075f
/* Settling rounds after align (raise, solve, align): the second catches
 * the shin's change after the first raise (settle_run). */
#define SETTLE_ROUNDS 2
/* Characters per block of the staged passes. */
#define BLOCK 128
/* Ranges (the threads' chunks, the caller's ranges) start and end at
 * multiples of this many characters, so that every block but the crowd's
 * last starts and ends on a whole number of vectors of every kernel (64
 * feet: 4 AVX-512 vectors): loads stay aligned, and only the crowd's last
 * block runs a vector with lanes masked (tail_vector), whatever the split. */
#define ALIGN_CHARS 32

static int thread_count(int threads, int feet)
{
#ifdef CIK_HAVE_OPENMP
    if (feet < PARALLEL_MIN_FEET || threads == 1) return 1;
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    (void)feet;
    return 1;
#endif
}


/* The foot kernels for a solver backend, from the dispatch table: the same
 * instruction set, the best this CPU runs for AUTO, the one-lane build for
 * REFERENCE; NULL for a backend cik_solve refuses (check_options refuses it
 * first). */
static const cik__foot_kernel *kernel_for(cik_backend backend)
{
    const cik__isa *isa = cik__isa_usable(backend);
    return isa ? isa->foot : NULL;
}

/* Runs a pass of the chosen kernel over feet [f0, f1), whole vectors of
 * it (run_block's tail_vector rounds the crowd's end up). */
#define RUN(k, name, job, f0, f1) (k)->name((job), (f0), (f1))

/* What the probe and place stages need from the options and the frame
 * time, worked out once per call: the options in the crowd's units, rates
 * per frame, the springs' constants. */
typedef struct frame_args {
    float dt;
    int primed;
    /* the pelvis spring: 1 / time constant, exp(-dt / time), 0 time: at once */
    float pelvis_w, pelvis_k;
    int pelvis_now;
    float max_drop;
    float hold_accel; /* the most a held knee's rate changes the drop's rate in a frame */
    float lead, lead_max; /* the spring's lead: 2 time constants over dt less 1/2, its most */
    cik__foot_job job; /* the fields of the probe and place kernels */
} frame_args;

/* Lengths and speeds in the options are metres; the crowd's world is in
 * units_per_metre units (1 * x is x exactly, so the default changes no
 * bit). `dt` is the frame time, 0 for the options' own. */
static frame_args frame_prepare(const cik_foot_crowd *cr, const cik_foot_options *opt, float dt)
{
    frame_args a;
    memset(&a, 0, sizeof a);
    const float u = opt->units_per_metre;
    if (dt == 0.0f) dt = opt->dt;
    a.dt = dt;
    a.primed = cr->primed;
    cik__spring_constants(opt->pelvis_smooth_time, dt, &a.pelvis_w, &a.pelvis_k, &a.pelvis_now);
    a.max_drop = opt->max_pelvis_drop * u;
    a.hold_accel = HOLD_ACCEL * dt * dt * u;
    /* the lag of the spring's step (exact for a goal held over the frame)
     * behind a ramp given at each frame's end: 2 time constants less half
     * a frame, in frames */
    a.lead = a.pelvis_now ? 0.0f : 2.0f / (a.pelvis_w * dt) - 0.5f;
    a.lead = a.lead > 0.0f ? a.lead : 0.0f;
    a.lead_max = SPRING_LEAD_MAX * u;
    cik__foot_job *j = &a.job;
    j->dt = dt;
    j->primed = cr->primed;
    j->contacts = opt->contacts;
    j->lock = opt->lock;
    j->plant_speed = opt->plant_speed * u;
    j->release_speed = opt->release_speed * u;
    j->lift = opt->lift_speed * u * dt;
    j->min_contact = opt->min_contact_time;
    /* the weight's easing per frame: all of it at once for a time of 0 */
    j->ease_in = opt->ease_in_time > dt ? dt / opt->ease_in_time : 1.0f;
    j->ease_out = opt->ease_out_time > dt ? dt / opt->ease_out_time : 1.0f;
    j->lock_radius = opt->lock_radius * u;
    j->unlock_time = opt->unlock_time;
    j->first_plant = 0.02f * u; /* 5 cm planted the jog's landing feet 4 cm up */
    j->lift_contact = 0.005f * u;
    j->hold_below = 0.005f * u; /* 5 mm above the floor before 0.14: docs/foot.md */
    j->settle_depth = 0.0025f * u;
    j->slide_depth = 0.001f * u;
    j->margin = opt->reach_margin;
    j->soft = opt->soft_reach;
    j->threshold = opt->solver.threshold * u;
    /* tolerance 0: every limited rotation clamped (|dot| is never below 2) */
    j->tol_cos = opt->limit_tolerance > 0.0f ? cosf(0.5f * opt->limit_tolerance) : 2.0f;
    /* the knee's rate: off at 0, and where a frame allows 3 rad or more
     * (no knee bends that far: nothing to limit) */
    const float kn = opt->knee_speed * dt, hk = opt->held_knee_speed * dt;
    j->knee_on = kn > 0.0f && kn < 3.0f;
    j->knee_c = cosf(kn);
    j->knee_s = sinf(kn);
    j->hold_on = hk > 0.0f && hk < 3.0f;
    j->hold_c = cosf(hk);
    j->hold_s = sinf(hk);
    const float lf = LIFT_FADE_SPEED * dt < 1.5f ? LIFT_FADE_SPEED * dt : 1.5f;
    j->lift_fade_c = cosf(lf);
    j->lift_fade_s = sinf(lf);
    j->knee_clear = 0.01f * u;
    j->swing_lift = opt->swing_lift;
    j->ahead = opt->swing_lift > 0.0f && opt->swing_lookahead > 0.0f ? opt->swing_lookahead / dt : 0.0f;
    j->skate = opt->skate_height * u;
    return a;
}

/* Copies the pelvis and floor of the block's characters [c0, c1) to both
 * of their feet (SCRATCH_EP*, SCRATCH_EQ*, SCRATCH_EFLOOR): the kernels'
 * lanes are feet. */
static void pelvis_to_feet(float *const *cs, const cik__foot_job *job, int c0, int c1)
{
    for (int s = 0; s < 8; ++s) {
        const float *src = cs[CHAR_PX + s] + c0;
        float *dst = job->s[SCRATCH_EPX + s] + (2 * c0 - job->s0);
        for (int c = 0; c < c1 - c0; ++c) dst[2 * c] = dst[2 * c + 1] = src[c];
    }
}

/* A held knee's bound on the pelvis drop x (and its rate v): side 1, the
 * least drop the two feet ask for, m0 and m1 (dmin: a knee straightening
 * too fast); side -1, the most (dmax: a knee bending too fast); the
 * bound's own change of the drop's rate capped at accel a frame (d1, d2:
 * the last two drops); x moved onto it where it lies beyond, the rate at
 * least (side 1) or at most (side -1) what that move takes. Products by
 * side are exact: one comparison serves both ways. */
static void hold_bound(float side, float m0, float m1, float d1, float d2, float accel, float dt, float *x, float *v)
{
    float m = side * m0 > side * m1 ? m0 : m1;
    const float cap = 2.0f * d1 - d2 + side * accel;
    m = side * m < side * cap ? m : cap;
    if (side * m > side * *x && isfinite(m)) {
        const float vx = (m - d1) / dt, vb = side * *v > side * vx ? *v : vx;
        /* the rate taken in as the bound reaches into the spring's drop:
         * in full from a tenth of accel on (at once, a rounding on either
         * side of the bound set the rate or not: the pelvis drops of
         * examples/units.c's crowds in centimetres and in metres 1 mm
         * apart a frame later) */
        const float depth = side * (m - *x), span = 0.1f * accel;
        *v += (vb - *v) * (depth < span ? depth / span : 1.0f);
        *x = m;
    }
}

/* Stage 3 between the kernel passes, the block's characters [c0, c1): the
 * larger need of the two feet (the lower foot decides), clamped, followed
 * by the critically damped spring (frame_args), a rising need led by its
 * rise (SPRING_LEAD_MAX). */
static void pelvis_drop(float *const *cs, const cik__foot_job *job, const frame_args *fa, int c0, int c1)
{
    const float *need_f = job->s[SCRATCH_NEED] + (2 * c0 - job->s0);
    const float *dmin_f = job->s[SCRATCH_DMIN] + (2 * c0 - job->s0);
    const float *dmax_f = job->s[SCRATCH_DMAX] + (2 * c0 - job->s0);
    float *drop_f = job->s[SCRATCH_DROP] + (2 * c0 - job->s0);
    float *state = cs[CHAR_STATE] + c0, *vel = cs[CHAR_STATEV] + c0, *drop = cs[CHAR_DROP] + c0;
    float *drop2 = cs[CHAR_DROP2] + c0, *last_need = cs[CHAR_NEED] + c0, *last_rise = cs[CHAR_RISE] + c0;
    const float w = fa->pelvis_w, e = fa->pelvis_k, dt = fa->dt;
    const unsigned char *on = job->on ? job->on + c0 : NULL;
    for (int c = 0; c < c1 - c0; ++c) {
        if (on && !on[c]) { /* off: its state kept, a drop for its lanes */
            drop_f[2 * c] = drop_f[2 * c + 1] = 0.0f;
            continue;
        }
        float need = 0.0f, n0 = need_f[2 * c], n1 = need_f[2 * c + 1];
        need = n0 > need ? n0 : need;
        need = n1 > need ? n1 : need;
        need = need > fa->max_drop ? fa->max_drop : need;
        float x = state[c], v = vel[c];
        const float d1 = drop[c], d2 = drop2[c];
        const int fresh = !fa->primed || fa->pelvis_now || !isfinite(x) || !isfinite(v);
        float rise = need - last_need[c];
        if (fresh) {
            x = need;
            v = 0.0f;
            rise = 0.0f;
        } else {
            /* a need that rose in this frame and the one before led by
             * what the spring would lag a ramp of the lesser rise (a
             * step, a need that falls, a last one not finite are not) */
            float goal = need, lead = rise < last_rise[c] ? rise : last_rise[c];
            if (lead > 0.0f && lead < fa->max_drop) {
                lead *= fa->lead;
                goal += lead < fa->lead_max ? lead : fa->lead_max;
                goal = goal > fa->max_drop ? fa->max_drop : goal;
            }
            cik__spring_step(w, e, dt, goal, &x, &v);
            /* a held knee on ground above the floor straightening faster
             * than held_knee_speed (dmin, place_a): the pelvis comes down
             * to hold it; then one bending faster (dmax): the pelvis comes
             * down no farther than holds it, and wins where the two feet
             * disagree (the other way round, the pelvis coming down for
             * one foot's straightening knee bent the other's, a foot
             * landing on lower ground, beyond its rate: the 12_01 walk's
             * knee pops on terrain 4.36 -> 3.81 per 1000, docs/foot.md,
             * Since 0.25.1); each changes the drop's rate by at most
             * hold_accel a frame */
            hold_bound(1.0f, dmin_f[2 * c], dmin_f[2 * c + 1], d1, d2, fa->hold_accel, dt, &x, &v);
            hold_bound(-1.0f, dmax_f[2 * c], dmax_f[2 * c + 1], d1, d2, fa->hold_accel, dt, &x, &v);
        }
        x = x < 0.0f ? 0.0f : (x > fa->max_drop ? fa->max_drop : x);
        drop2[c] = fresh || !isfinite(d1) ? x : d1; /* a fresh start: as if standing */
        last_need[c] = need;
        last_rise[c] = rise;
        state[c] = x;
        vel[c] = v;
        drop[c] = x;
        drop_f[2 * c] = drop_f[2 * c + 1] = x;
    }
}

/* Which stages a staged pass runs. */
enum { DO_PROBE = 1, DO_GROUND = 2, DO_PLACE = 4, DO_SOLVE = 8, DO_ALIGN = 16 };
#define DO_FRAME (DO_PROBE | DO_GROUND | DO_PLACE | DO_SOLVE | DO_ALIGN)

/* Everything a pass over characters needs, checked and worked out once:
 * the staged calls build one on the stack, cik_foot_crowd_frame_plan_init
 * in the caller's cik_foot_frame_plan. Read-only while ranges run. */
typedef struct frame_plan {
    unsigned magic;
    int stages;
    int threads; /* options.solver.threads (run_stages only) */
    int has_hf, has_pa;
    int prefetch; /* 1: the crowd's state is past CIK_PREFETCH_MIN_BYTES on a CPU whose prefetchers
                   * do not follow its streams (prefetch_block, cik__crowd_prefetch) */
    cik_foot_crowd *cr;
    const cik__foot_kernel *k;
    cik_heightfield hf; /* a copy of the view, not of the heights */
    frame_args pa;
    cik__solve_plan solve;
} frame_plan;

#define FRAME_PLAN_MAGIC 0x63696b46u

/* The public plan holds the internal one. */
typedef char frame_plan_fits[sizeof(frame_plan) <= sizeof(((cik_foot_frame_plan *)0)->opaque) ? 1 : -1];
typedef char frame_alignment_public[ALIGN_CHARS == CIK_FOOT_RANGE_ALIGNMENT ? 1 : -1];

/* Settling. After align, a weighted foot with a point more than
 * settle_depth below its ground (the ankle's limit kept the sole from
 * following a slope or a bend of the shin) has its target raised by that
 * much (k_settle), its leg solved and its foot aligned once more; then the
 * check again, up to SETTLE_ROUNDS raises (the second catches the shin's
 * change after the first raise). A few percent of the feet are raised, so
 * they are pooled over the thread's range, across blocks, and settled in
 * full vector groups: their batch lanes solved in a group on the stack
 * (cik__solve_lanes), and the streams that align and the check read and
 * write gathered into a scratch job, run there and scattered back. A foot's
 * bits depend on its own lanes only (the kernels are lane-wise, a solve's
 * bits do not depend on the lanes beside it), so they are what settling in
 * place gives, whatever the range split. A leg off for level of detail is
 * never pooled. */
/* Feet settled together: a step of the widest foot kernel (16 AVX-512
 * lanes, two interleaved), a whole number of every kernel's. */
#define SETTLE_GROUP 32
typedef struct settle_pool {
    int foot[2 * SETTLE_GROUP];
    unsigned char round[2 * SETTLE_GROUP];
    int count;
} settle_pool;

/* The streams the gathered align and check touch: the batch's (root, the
 * hip's and knee's solved rotations, the ankle's, the target's height), the
 * feet's (the animated knee's rotation and the knee's bend off it with
 * them), and the leg constants, each a row of SETTLE_GROUP floats. */
static const int settle_foot_streams[] = {
    FOOT_DFX, FOOT_DFY, FOOT_DFZ, FOOT_DFW, FOOT_AX, FOOT_AY, FOOT_AZ, FOOT_FQX, FOOT_FQY, FOOT_FQZ, FOOT_FQW,
    FOOT_PTX, FOOT_PTX + 1, FOOT_PTX + 2, FOOT_PTY, FOOT_PTY + 1, FOOT_PTY + 2, FOOT_PTZ, FOOT_PTZ + 1,
    FOOT_PTZ + 2, FOOT_CY, FOOT_CY + 1, FOOT_CY + 2, FOOT_WEIGHT, FOOT_TX, FOOT_TY, FOOT_TZ, FOOT_HOLD, FOOT_PIVOT,
    FOOT_SLIP, FOOT_POSE + 1, FOOT_POSE + 4, FOOT_POSE + 7, FOOT_POSE + 10, FOOT_KDC, FOOT_KDS, FOOT_LOCKED,
    FOOT_SAX, FOOT_SAY, FOOT_SAZ, FOOT_SAW};
#define SETTLE_FOOT_STREAMS ((int)(sizeof settle_foot_streams / sizeof settle_foot_streams[0]))
/* what align writes (the rest is read) */
static const int settle_foot_out[] = {FOOT_AX, FOOT_AY, FOOT_AZ, FOOT_FQX, FOOT_FQY, FOOT_FQZ, FOOT_FQW,
                                      FOOT_PTX, FOOT_PTX + 1, FOOT_PTX + 2, FOOT_PTY, FOOT_PTY + 1,
                                      FOOT_PTY + 2, FOOT_PTZ, FOOT_PTZ + 1, FOOT_PTZ + 2, FOOT_SLIP,
                                      FOOT_KDC, FOOT_KDS, FOOT_LOCKED, FOOT_SAX, FOOT_SAY, FOOT_SAZ, FOOT_SAW};
#define SETTLE_FOOT_OUT ((int)(sizeof settle_foot_out / sizeof settle_foot_out[0]))
static const int settle_consts[] = {
    LEG_HIPX, LEG_HIPY, LEG_HIPZ, LEG_THX, LEG_THY, LEG_THZ, LEG_SHX, LEG_SHY, LEG_SHZ,
    LEG_PTX, LEG_PTX + 1, LEG_PTX + 2, LEG_PTY, LEG_PTY + 1, LEG_PTY + 2, LEG_PTZ, LEG_PTZ + 1, LEG_PTZ + 2,
    LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_TYPE, LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_AX,
    LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_AY, LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_AZ,
    LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_SMIN, LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_CMIN,
    LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_SMAX, LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_CMAX,
    LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_SSWING, LEG_LIMIT + 2 * LIMIT_COUNT + LIMIT_CSWING};
#define SETTLE_CONSTS ((int)(sizeof settle_consts / sizeof settle_consts[0]))
/* batch streams: root rotation (4) and position (3), rotations of joints
 * 0 and 1 (8), target (3) */
#define SETTLE_BATCH 18

/* Where a cik_streams keeps the batch streams the gathered job reads
 * (root rotation and position, the rotations of hip and knee, the
 * target), in the order of settle_run's rows. */
static void settle_batch_streams(cik_streams *s, float **p[SETTLE_BATCH])
{
    float **q[SETTLE_BATCH] = {&s->root_rotation_x, &s->root_rotation_y, &s->root_rotation_z,
                               &s->root_rotation_w, &s->root_position_x, &s->root_position_y,
                               &s->root_position_z, &s->rotation_x[0], &s->rotation_y[0],
                               &s->rotation_z[0], &s->rotation_w[0], &s->rotation_x[1],
                               &s->rotation_y[1], &s->rotation_z[1], &s->rotation_w[1],
                               &s->target_x, &s->target_y, &s->target_z};
    memcpy(p, q, sizeof q);
}
/* the rows of the target */
#define SETTLE_TARGET 15

/* Aligns the feet foot[0 .. n) (their legs just solved) on a gathered
 * job and scatters the results back; with `again` (else NULL), also the
 * depth check (k_settle) of the feet whose again[i] is 1: raised[i] tells
 * whether foot i was raised (its raised target written back), 0 for the
 * others. Out of line: its rows are on the stack only while it runs, not
 * under the solve's scratch. */
static __attribute__((noinline)) void settle_align(const frame_plan *fp, const cik__foot_job *job, const int *foot,
                                                   int n, const unsigned char *again, int *raised)
{
    cik_foot_crowd *cr = fp->cr;
    const cik__foot_kernel *k = fp->k;
    const int lanes = k->lanes;
    const int padded = (n + lanes - 1) / lanes * lanes;
    /* the gathered job: lane i is foot from[i] (the last one repeated) */
    int from[SETTLE_GROUP];
    for (int i = 0; i < padded; ++i) from[i] = foot[i < n ? i : n - 1];
    _Alignas(64) float fs[SETTLE_FOOT_STREAMS][SETTLE_GROUP], ks[SETTLE_CONSTS][SETTLE_GROUP],
        bsd[SETTLE_BATCH][SETTLE_GROUP], need[SETTLE_GROUP];
    float *gf[FOOT_COUNT] = {0};
    cik__foot_consts gk;
    memset(&gk, 0, sizeof gk);
    cik_streams gbs;
    memset(&gbs, 0, sizeof gbs);
    float **src_b[SETTLE_BATCH], **dst_b[SETTLE_BATCH];
    settle_batch_streams(&cr->bs, src_b);
    settle_batch_streams(&gbs, dst_b);
    for (int s = 0; s < SETTLE_FOOT_STREAMS; ++s) {
        const float *src = cr->f[settle_foot_streams[s]];
        for (int i = 0; i < padded; ++i) fs[s][i] = src[from[i]];
        gf[settle_foot_streams[s]] = fs[s];
    }
    for (int c = 0; c < SETTLE_CONSTS; ++c) {
        const int kc = settle_consts[c];
        const float *src = cr->kc.p[kc];
        const int mask = cr->kc.mask[kc];
        for (int i = 0; i < padded; ++i) ks[c][i] = src[from[i] & mask];
        gk.p[kc] = ks[c];
        gk.mask[kc] = -1;
    }
    for (int s = 0; s < SETTLE_BATCH; ++s) {
        for (int i = 0; i < padded; ++i) bsd[s][i] = (*src_b[s])[from[i]];
        *dst_b[s] = bsd[s];
    }
    cik__foot_job g = *job;
    g.f = gf;
    g.k = &gk;
    g.bs = &gbs;
    g.on = NULL;
    g.s0 = 0;
    g.s[SCRATCH_NEED] = need;
    k->align(&g, 0, padded);
    /* back: the solved ankle and foot */
    for (int o = 0; o < SETTLE_FOOT_OUT; ++o) {
        const int id = settle_foot_out[o];
        for (int i = 0; i < n; ++i) cr->f[id][foot[i]] = gf[id][i];
    }
    if (!again) return;
    k->settle(&g, 0, padded);
    for (int i = 0; i < n; ++i) {
        raised[i] = again[i] && need[i] != 0.0f;
        if (!raised[i]) continue;
        cr->f[FOOT_TX][foot[i]] = gf[FOOT_TX][i];
        cr->f[FOOT_TY][foot[i]] = gf[FOOT_TY][i];
        cr->f[FOOT_TZ][foot[i]] = gf[FOOT_TZ][i];
        cr->bs.target_x[foot[i]] = bsd[SETTLE_TARGET][i];
        cr->bs.target_y[foot[i]] = bsd[SETTLE_TARGET + 1][i];
        cr->bs.target_z[foot[i]] = bsd[SETTLE_TARGET + 2][i];
    }
}

/* Settles the pool's first entries (a vector group, or what is left):
 * solves their legs, aligns their feet and, before their last round,
 * checks them again; a foot raised again goes back into the pool. The
 * pool never holds more than SETTLE_GROUP + 1 feet: a foot goes back at
 * most once, after the feet ahead of it. */
static void settle_run(const frame_plan *fp, const cik__foot_job *job, settle_pool *sp)
{
    const int n = sp->count < SETTLE_GROUP ? sp->count : SETTLE_GROUP;
    if (n <= 0) return;
    int foot[SETTLE_GROUP], check = 0, raised[SETTLE_GROUP];
    unsigned char round[SETTLE_GROUP], again[SETTLE_GROUP];
    for (int i = 0; i < n; ++i) {
        foot[i] = sp->foot[i];
        round[i] = sp->round[i];
        again[i] = round[i] + 1 < SETTLE_ROUNDS;
        check |= again[i];
    }
    sp->count -= n;
    for (int i = 0; i < sp->count; ++i) {
        sp->foot[i] = sp->foot[i + n];
        sp->round[i] = sp->round[i + n];
    }
    cik__solve_lanes(&fp->solve, foot, n);
    settle_align(fp, job, foot, n, check ? again : NULL, raised);
    if (!check) return;
    for (int i = 0; i < n; ++i) {
        if (!raised[i]) continue;
        sp->foot[sp->count] = foot[i];
        sp->round[sp->count++] = (unsigned char)(round[i] + 1);
    }
}

/* Pools foot f for its settling round `round`, settling a full group. */
static void settle_add(const frame_plan *fp, const cik__foot_job *job, settle_pool *sp, int f, int round)
{
    sp->foot[sp->count] = f;
    sp->round[sp->count++] = (unsigned char)round;
    if (sp->count >= SETTLE_GROUP) settle_run(fp, job, sp);
}

/* Characters in a gathered run: a step of the widest foot kernel (32
 * feet: 16 AVX-512 lanes, two interleaved), a whole number of every
 * kernel's. */
#define GATHER_CHARS 16
typedef char gathered_whole_step[2 * GATHER_CHARS % 32 == 0 ? 1 : -1];
/* What a gathered run's rows take: its scratch, the per-foot streams, the
 * leg constants and the batch's rows (2 GATHER_CHARS lanes each), the
 * per-character streams; and the scratch of a block and of a gathered run,
 * the larger (26.5 KiB). */
#define GATHER_FLOATS \
    ((SCRATCH_COUNT + FOOT_COUNT + LEG_COUNT + SETTLE_BATCH) * 2 * GATHER_CHARS + CHAR_COUNT * GATHER_CHARS)
#define SCRATCH_FLOATS (GATHER_FLOATS > SCRATCH_COUNT * 2 * BLOCK ? GATHER_FLOATS : SCRATCH_COUNT * 2 * BLOCK)

/* A gathered run (run_gathered): its characters' streams copied side by
 * side, character j of the run at j (its feet at 2j, 2j + 1). */
typedef struct gathered {
    float *const *c;  /* the gathered per-character streams */
    const int *ch;    /* the crowd's character of each (the last repeated) */
    const int *foot;  /* the crowd's foot of each of the first `feet` lanes */
    int n;            /* characters of the run (the rest repeat its last) */
    cik_streams *bs;  /* the gathered batch streams (settle_batch_streams's) */
} gathered;

/* A per-foot stream's values of characters ch[0 .. n) into the gathered
 * row r, and back; a character's two feet are one 8-byte copy. */
static void pairs_in(float *r, const float *crowd, const int *ch, int n)
{
    for (int j = 0; j < n; ++j) memcpy(r + 2 * j, crowd + 2 * ch[j], 2 * sizeof(float));
}

static void pairs_out(float *crowd, const float *r, const int *ch, int n)
{
    for (int j = 0; j < n; ++j) memcpy(crowd + 2 * ch[j], r + 2 * j, 2 * sizeof(float));
}

/* The gathered batch rows from the crowd's batch (back 0) or back into it
 * (back 1: the run's own characters only). */
static void gathered_batch(const cik_foot_crowd *cr, const gathered *g, int back)
{
    float **crowd[SETTLE_BATCH], **rows[SETTLE_BATCH];
    settle_batch_streams((cik_streams *)&cr->bs, crowd);
    settle_batch_streams(g->bs, rows);
    for (int s = 0; s < SETTLE_BATCH; ++s)
        if (back)
            pairs_out(*crowd[s], *rows[s], g->ch, g->n);
        else
            pairs_in(*rows[s], *crowd[s], g->ch, GATHER_CHARS);
}

/* What a gathered run's stages wrote back into the crowd, its characters'
 * rows: every per-foot stream but the animated pose (the stages only read
 * it), the pelvis drop and its spring, the batch's streams. */
static void gathered_scatter(cik_foot_crowd *cr, const cik__foot_job *job, const gathered *g)
{
    for (int k = FOOT_POSE + 12; k < FOOT_COUNT; ++k) pairs_out(cr->f[k], job->f[k], g->ch, g->n);
    for (int k = CHAR_DROP; k < CHAR_COUNT; ++k)
        for (int j = 0; j < g->n; ++j) cr->c[k][g->ch[j]] = g->c[k][j];
    gathered_batch(cr, g, 1);
}

/* The crowd's last feet that fill no whole vector of the kernel, feet
 * [f0, f1) of the block (f1 the crowd's end), run in one vector up to f1v
 * instead of through the one-lane build: the lanes past the crowd's end
 * are computed and never stored, as those of a character off for level of
 * detail (SCRATCH_LIVE 0, job->on set; the crowd's foot and leg streams
 * are padded to whole vectors of the widest kernel, and the batch's to
 * CIK__PAD lanes). Their scratch starts at 0, so that they compute on
 * defined values. The tail's feet get the vector kernel's bits, as every
 * other foot (through the one-lane build they differed in the last
 * bits, and cost about 5 percent of a 1,000-character frame on AVX-512:
 * 16 feet). */
static void tail_vector(const cik_foot_crowd *cr, cik__foot_job *job, int f0, int f1, int f1v)
{
    for (int k = 0; k < SCRATCH_COUNT; ++k)
        memset(job->s[k] + (f1 - job->s0), 0, sizeof(float) * (size_t)(f1v - f1));
    if (!job->on) {
        float *live = job->s[SCRATCH_LIVE] - job->s0;
        for (int f = f0; f < f1; ++f) live[f] = 1.0f;
        job->on = cr->en;
    }
}

/* Runs the plan's stages over characters [b, e) of the block whose
 * scratch starts at foot job->s0: whole groups of LOD_GROUP characters
 * (or the crowd's end); with `g`, over a gathered run (job's streams are
 * its rows). */
static void run_block(const frame_plan *fp, cik__foot_job *job, int b, int e, settle_pool *sp, const gathered *g)
{
    cik_foot_crowd *cr = fp->cr;
    const cik__foot_kernel *k = fp->k;
    const int stages = fp->stages;
    const cik_heightfield *hf = fp->has_hf ? &fp->hf : NULL;
    const frame_args *pa = fp->has_pa ? &fp->pa : NULL;
    const int f0 = 2 * b, f1 = 2 * e;
    float *const *cs = g ? g->c : cr->c;
    /* the vector kernels' end: past f1 at the crowd's end (tail_vector) */
    int fv = f1;
    const unsigned char *on = job->on;
    if (!g && (f1 - f0) % k->lanes != 0) {
        fv = f0 + (f1 - f0 + k->lanes - 1) / k->lanes * k->lanes;
        tail_vector(cr, job, f0, f1, fv);
    }
    if (stages & (DO_PROBE | DO_PLACE)) pelvis_to_feet(cs, job, b, e);
    if (stages & DO_PROBE) RUN(k, probe, job, f0, fv);
    if (stages & DO_GROUND)
        for (job->point = 0; job->point < (job->ahead > 0.0f ? FOOT_PROBES : CIK_FOOT_POINTS); ++job->point) {
            RUN(k, ground_cells, job, f0, fv);
            RUN(k, ground, job, f0, fv);
            cik__foot_ground_border(job, hf, f0, f1);
        }
    if (stages & DO_PLACE) {
        RUN(k, place_a, job, f0, fv);
        pelvis_drop(cs, job, pa, b, e);
        RUN(k, place_b, job, f0, fv);
    }
    /* the block's legs, while what place wrote is still in the cache */
    if (stages & DO_SOLVE) {
        if (g) {
            gathered_batch(cr, g, 1);
            cik__solve_lanes(&fp->solve, g->foot, 2 * g->n);
            gathered_batch(cr, g, 0);
        } else {
            cik__solve_range(&fp->solve, f0, f1);
        }
    }
    if (stages & DO_ALIGN) {
        RUN(k, align, job, f0, fv);
        /* the feet to settle (settle_add) */
        RUN(k, settle, job, f0, fv);
        const float *moved = job->s[SCRATCH_NEED] - job->s0;
        const unsigned char *en = cr->bs.enabled;
        if (g) {
            gathered_scatter(cr, job, g);
            for (int f = 0; f < 2 * g->n; ++f)
                if (moved[f] != 0.0f) settle_add(fp, job, sp, g->foot[f], 0);
            return;
        }
        for (int f = f0; f < f1; ++f)
            if (moved[f] != 0.0f && en[f]) settle_add(fp, job, sp, f, 0);
    }
    if (g) gathered_scatter(cr, job, g);
    job->on = on;
}

/* Level of detail: characters whose enable byte is 0 are left alone. A
 * group of LOD_GROUP characters (at multiples of it: 32 feet, a whole step
 * of every foot kernel) with none on is skipped; runs of groups
 * with some on run as one: gathered where at most half of the run's
 * characters are on (run_gathered), else in place, their off characters'
 * lanes computed but never stored (the kernels' pstore, the scalar loops'
 * checks of job->on; the lanes are independent, so the on ones get the
 * bits they get with all on). The off legs are off in the batch too, so
 * the solve leaves them. */
#define LOD_GROUP 16
typedef char lod_groups_whole_ranges[ALIGN_CHARS % LOD_GROUP == 0 && BLOCK % LOD_GROUP == 0 ? 1 : -1];

static int group_on(const cik_foot_crowd *cr, int g, int ge)
{
    int on = 0;
    for (int c = g; c < ge; ++c) on += cr->en[c] != 0;
    return on;
}

/* Runs [b, e), whole groups with some character on, in place: the off
 * characters' lanes computed, never stored (SCRATCH_LIVE and job->on,
 * read by pstore and the scalar loops), unless `all` are on. */
static void run_in_place(const frame_plan *fp, cik__foot_job *job, int b, int e, int all, settle_pool *sp)
{
    const unsigned char *en = fp->cr->en;
    if (!all) {
        float *live = job->s[SCRATCH_LIVE] - job->s0;
        for (int f = 2 * b; f < 2 * e; ++f) live[f] = en[f >> 1] ? 1.0f : 0.0f;
        job->on = en;
    }
    run_block(fp, job, b, e, sp, NULL);
    job->on = NULL;
}

/* Level of detail, scattered: the characters on among [b, e), gathered
 * GATHER_CHARS at a time (the last repeated to fill the vectors, its
 * copies never stored) into rows side by side, run there, and scattered
 * back; the crowd's last feet that no whole vector holds run in place, as
 * they do with every character on (tail_vector). Every stage of a
 * foot is lane-wise and the gathered legs are solved by cik__solve_lanes,
 * so a character gets the bits it gets in place. The rows, the gathered
 * run's scratch with them, take the block's scratch (`buf`, GATHER_FLOATS
 * of it): the block's own scratch is what the runs in place write before
 * they read it (SCRATCH_LIVE too: run_in_place). */
static __attribute__((noinline)) void run_gathered(const frame_plan *fp, cik__foot_job *job, float *buf, int b, int e,
                                                   settle_pool *sp)
{
    cik_foot_crowd *cr = fp->cr;
    const int lanes = fp->k->lanes;
    /* characters before the crowd's last vector's (tail_vector), in whole LOD groups */
    int whole = 2 * cr->characters / lanes * lanes / 2 / LOD_GROUP * LOD_GROUP;
    whole = whole < b ? b : (whole > e ? e : whole);
    const int gl = 2 * GATHER_CHARS; /* lanes of a gathered run */
    float *fl[FOOT_COUNT], *cl[CHAR_COUNT], *kl[LEG_COUNT], **rows[SETTLE_BATCH];
    int ch[GATHER_CHARS], foot[2 * GATHER_CHARS];
    cik__foot_consts gk = cr->kc;
    cik_streams gbs;
    memset(&gbs, 0, sizeof gbs);
    settle_batch_streams(&gbs, rows);
    cik__foot_job gj = *job;
    float *p = buf;
    for (int k = 0; k < SCRATCH_COUNT; ++k, p += gl) gj.s[k] = p;
    for (int k = 0; k < FOOT_COUNT; ++k, p += gl) fl[k] = p;
    for (int k = 0; k < LEG_COUNT; ++k, p += gl) kl[k] = p;
    for (int s = 0; s < SETTLE_BATCH; ++s, p += gl) *rows[s] = p;
    for (int k = 0; k < CHAR_COUNT; ++k, p += GATHER_CHARS) cl[k] = p;
    for (int k = 0; k < LEG_COUNT; ++k)
        if (gk.mask[k] != 1) gk.p[k] = kl[k]; /* a pattern's lanes keep their side */
    gj.f = fl;
    gj.k = &gk;
    gj.bs = &gbs;
    gj.s0 = 0;
    gj.on = NULL;
    gathered g = {cl, ch, foot, 0, &gbs};
    for (int c = b; c < whole;) {
        int n = 0;
        for (; c < whole && n < GATHER_CHARS; ++c)
            if (cr->en[c]) ch[n++] = c;
        if (n == 0) break;
        for (int j = n; j < GATHER_CHARS; ++j) ch[j] = ch[n - 1];
        for (int j = 0; j < n; ++j) {
            foot[2 * j] = 2 * ch[j];
            foot[2 * j + 1] = 2 * ch[j] + 1;
        }
        for (int k = 0; k < CHAR_COUNT; ++k)
            for (int j = 0; j < GATHER_CHARS; ++j) cl[k][j] = cr->c[k][ch[j]];
        for (int k = 0; k < FOOT_COUNT; ++k) pairs_in(fl[k], cr->f[k], ch, GATHER_CHARS);
        for (int k = 0; k < LEG_COUNT; ++k)
            if (gk.mask[k] != 1) pairs_in(kl[k], cr->kc.p[k], ch, GATHER_CHARS);
        g.n = n;
        gathered_batch(cr, &g, 0);
        run_block(fp, &gj, 0, GATHER_CHARS, sp, &g);
    }
    if (whole < e) run_in_place(fp, job, whole, e, 0, sp);
}

static void run_lod(const frame_plan *fp, cik__foot_job *job, float *buf, int b, int e, settle_pool *sp)
{
    cik_foot_crowd *cr = fp->cr;
    for (int g = b; g < e;) {
        int ge = e - g < LOD_GROUP ? e : g + LOD_GROUP, on = group_on(cr, g, ge);
        if (on == 0) {
            g = ge;
            continue;
        }
        /* the run of groups with some on from g */
        int h = ge;
        while (h < e) {
            int he = e - h < LOD_GROUP ? e : h + LOD_GROUP, n = group_on(cr, h, he);
            if (n == 0) break;
            on += n;
            h = he;
        }
        /* gathered where at most half of the run is on (a gathered lane
         * costs its copies in and out besides its work) */
        if (2 * on <= h - g)
            run_gathered(fp, job, buf, g, h, sp);
        else
            run_in_place(fp, job, g, h, on == h - g, sp);
        g = h;
    }
}

/* The enable bytes of characters [b, e) as the stages need them: a
 * character switched on since its last probe starts afresh (DO_PROBE), and
 * the batch's bytes of its legs follow it (the solve). */
static void follow_enable(const frame_plan *fp, int b, int e)
{
    cik_foot_crowd *cr = fp->cr;
    if (fp->stages & DO_PROBE)
        for (int c = b; c < e; ++c) {
            if (cr->en[c] && !cr->seen[c]) forget_character(cr, c);
            cr->seen[c] = cr->en[c] != 0;
        }
    if (fp->stages & (DO_SOLVE | DO_ALIGN))
        for (int c = b; c < e; ++c) cr->bs.enabled[2 * c] = cr->bs.enabled[2 * c + 1] = cr->en[c] != 0;
}

/* Asks for the streams of characters [b, e) (their own, their feet's,
 * the leg constants read from streams, their legs' in the batch), before
 * the block that holds them runs. A large crowd is not in the cache when a
 * block starts (about 200 streams of 128 characters or 256 feet, some
 * 3,000 cache lines a block with the benchmark's legs), and the
 * hardware's prefetchers follow far fewer streams than the
 * stages read side by side: asked for while the block before runs, they
 * are mostly there when their block starts. The benchmark's 10,000
 * characters (18.5 MB), 0.33.0 against 0.34.0 side by side: 5.58 -> 4.42
 * ms on one thread, 2.56 -> 2.12 on two; 1,000 characters (1.9 MB, in the
 * caches) about 4 percent slower with it, so only a crowd past
 * CIK_PREFETCH_MIN_BYTES asks (docs/foot.md, Speed, 0.34.0), and not on
 * an Intel CPU, whose own prefetchers follow these streams and where the
 * prefetch made 10,000 characters slower (cik__crowd_prefetch in
 * src/dispatch.c; docs/foot.md, Speed, 0.36.0).
 * Prefetches change no value. Not kept: the heights under the next
 * block's feet, asked for from where its probes were in the last frame
 * (the ground stage asks for its rows a few vectors ahead itself,
 * GROUND_AHEAD); the block after the next; a quarter of the next block
 * before each stage; loads of every line of the block before it runs. */
CIK__PREFETCH_INLINE void prefetch_block(const cik_foot_crowd *cr, int b, int e)
{
    for (int k = 0; k < FOOT_COUNT; ++k)
        if (k != FOOT_CNX + FOOT_AHEAD && k != FOOT_CNY + FOOT_AHEAD && k != FOOT_CNZ + FOOT_AHEAD) /* never used */
            cik__prefetch_lines(cr->f[k], 2 * (size_t)b, 2 * (size_t)e);
    for (int k = 0; k < CHAR_COUNT; ++k) cik__prefetch_lines(cr->c[k], (size_t)b, (size_t)e);
    for (int k = 0; k < LEG_COUNT; ++k)
        if (cr->kc.mask[k] != 1) cik__prefetch_lines(cr->kc.p[k], 2 * (size_t)b, 2 * (size_t)e);
    cik__prefetch_chains(cr->batch, 2 * (size_t)b, 2 * (size_t)e);
}

/* Runs the plan's stages over characters [c0, c1) in blocks. */
static void run_part(const frame_plan *fp, int c0, int c1)
{
    cik_foot_crowd *cr = fp->cr;
    const cik_heightfield *hf = fp->has_hf ? &fp->hf : NULL;
    const frame_args *pa = fp->has_pa ? &fp->pa : NULL;
    /* the blocks' scratch (and the gathered runs', run_gathered): on this
     * thread's stack, 26.5 KiB, never allocated */
    _Alignas(64) float scratch[SCRATCH_FLOATS];
    cik__foot_job job;
    if (pa)
        job = pa->job;
    else
        memset(&job, 0, sizeof job);
    job.on = NULL;
    job.f = cr->f;
    job.k = &cr->kc;
    job.bs = &cr->bs;
    for (int i = 0; i < SCRATCH_COUNT; ++i) job.s[i] = scratch + 2 * BLOCK * i;
    if (hf) {
        job.ox = hf->origin_x;
        job.oz = hf->origin_z;
        job.sx = hf->spacing_x;
        job.sz = hf->spacing_z;
        job.umax = (float)(hf->count_x - 1);
        /* the kernel's int32 sample indices reach rows below this; the
         * rows past it (a heightfield of more than 2^31 samples) are
         * sampled as the border's */
        const int rows = (int)(INT32_MAX / hf->count_x) - 1;
        job.vmax = (float)(hf->count_z - 1 < rows ? hf->count_z - 1 : rows);
        job.ix2 = 0.5f / hf->spacing_x;
        job.iz2 = 0.5f / hf->spacing_z;
        job.heights = hf->heights;
        job.row = hf->count_x;
    }
    settle_pool sp;
    sp.count = 0;
    for (int b = c0; b < c1; b += BLOCK) {
        int e = c1 - b < BLOCK ? c1 : b + BLOCK;
        job.s0 = 2 * b;
        /* the next block (after the range's last, the crowd's next: the
         * thread's next, mostly, cik__parallel_ranges) */
        if (fp->prefetch && e < cr->characters)
            prefetch_block(cr, e, cr->characters - e < BLOCK ? cr->characters : e + BLOCK);
        follow_enable(fp, b, e);
        if (memchr(cr->en + b, 0, (size_t)(e - b)))
            run_lod(fp, &job, scratch, b, e, &sp);
        else
            run_block(fp, &job, b, e, &sp, NULL);
    }
    while (sp.count > 0) settle_run(fp, &job, &sp);
}


/* Chooses where the kernels read each leg constant: its pattern when every
 * left foot and every right foot has the same bits, else its stream. */
static void refresh_consts(cik_foot_crowd *cr)
{
    for (int k = 0; k < LEG_COUNT; ++k) {
        if (!cr->kstale && !cr->krecheck[k]) continue;
        cr->krecheck[k] = 0;
        const float *v = cr->k[k];
        int same = 1;
        for (int f = 2; f < cr->feet && same; ++f) same = memcmp(&v[f], &v[f & 1], sizeof(float)) == 0;
        if (same) {
            float *pat = cr->kpat + (size_t)PATTERN * k;
            for (int j = 0; j < PATTERN; ++j) pat[j] = v[j & 1];
            cr->kc.p[k] = pat;
            cr->kc.mask[k] = 1;
        } else {
            cr->kc.p[k] = v;
            cr->kc.mask[k] = -1;
        }
    }
    cr->kstale = 0;
    cr->krecheck_any = 0;
}

static void run_chunk(const void *context, int c0, int c1) { run_part((const frame_plan *)context, c0, c1); }

/* Runs the plan's stages over all characters on the options' thread count:
 * about four chunks a thread, of whole ALIGN_CHARS blocks, each thread's
 * own first (cik__parallel_ranges; a character's results do not depend on
 * its chunk). */
static void run_stages(const frame_plan *fp)
{
    cik_foot_crowd *cr = fp->cr;
    const int nc = cr->characters;
    if (cr->kstale || cr->krecheck_any) refresh_consts(cr);
    int nt = thread_count(fp->threads, cr->feet);
    const int per = 4 * (nt > 1 ? nt : 1);
    const int chunk = ((nc + per - 1) / per + ALIGN_CHARS - 1) / ALIGN_CHARS * ALIGN_CHARS;
    cik__parallel_ranges(nc, chunk, nt, &cr->team, run_chunk, fp);
}

/* Checks everything a call takes before it changes anything (so that every
 * stage accepts and refuses the same options: the solver's with cik_solve's
 * own rules, backend included; then the frame time, then the heightfield)
 * and fills `fp` for `stages`. `so` receives the solver options in the
 * crowd's units. */
static cik_status prepare(cik_foot_crowd *cr, const cik_foot_options *opt, float dt, int stages,
                          const cik_heightfield *hf, frame_plan *fp, cik_options *so)
{
    cik_foot_options defaults = cik_foot_default_options();
    if (!cr) return CIK_ERROR_ARGUMENT;
    if (!opt) opt = &defaults;
    cik_status s = cik__foot_check_options(opt);
    if (s != CIK_OK) return s;
    *so = opt->solver;
    so->threshold = opt->solver.threshold * opt->units_per_metre;
    memset(fp, 0, sizeof *fp);
    s = cik__solve_prepare(cr->batch, so, &fp->solve);
    if (s != CIK_OK) return s;
    /* the frame solves a block's legs right after place wrote them: they
     * are in the cache, whatever the batch's size */
    fp->solve.job.prefetch = 0;
    /* the legs are hip-knee chains (leg_chain): damped least-squares steps
     * as they had with the ankle in the chain */
    fp->solve.job.dls_min_joints = 2;
    fp->prefetch = cr->block_bytes + cik__batch_bytes(cr->batch) > CIK_PREFETCH_MIN_BYTES && cik__crowd_prefetch();
    s = cik__foot_check_dt(opt, dt);
    if (s != CIK_OK) return s;
    if (stages & DO_GROUND) {
        s = cik_heightfield_validate(hf);
        if (s != CIK_OK) return s;
        fp->hf = *hf;
        fp->has_hf = 1;
    }
    fp->magic = FRAME_PLAN_MAGIC;
    fp->stages = stages;
    fp->threads = opt->solver.threads;
    fp->cr = cr;
    fp->k = kernel_for(opt->solver.backend);
    /* every stage's job fields (the align stage's settling reads the
     * threshold), whichever stages run */
    fp->pa = frame_prepare(cr, opt, dt);
    fp->has_pa = 1;
    return CIK_OK;
}

/* One public stage call (or the frame): checked, then run over the whole
 * crowd on the options' threads; a place makes the carried state mean
 * something (primed). The solve stage is cik_solve's split of the frame's
 * solve plan (its legs' damped steps: prepare) over the crowd's batch,
 * its off legs off. */
static cik_status run_call(cik_foot_crowd *cr, const cik_foot_options *opt, float dt, int stages,
                           const cik_heightfield *hf)
{
    frame_plan fp;
    cik_options so;
    cik_status s = prepare(cr, opt, dt, stages, hf, &fp, &so);
    if (s != CIK_OK) return s;
    if (stages == DO_SOLVE) {
        follow_enable(&fp, 0, cr->characters);
        cik__solve_run(cr->batch, &fp.solve);
        return CIK_OK;
    }
    /* the frame: every stage, one block of characters after the other, in
     * one parallel region, so that each block's streams stay in the cache
     * from stage to stage */
    run_stages(&fp);
    if (stages & DO_PLACE) cr->primed = 1;
    return CIK_OK;
}

cik_status cik_foot_crowd_probe_dt(cik_foot_crowd *cr, const cik_foot_options *opt, float dt)
{
    return run_call(cr, opt, dt, DO_PROBE, NULL);
}

cik_status cik_foot_crowd_probe(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    return cik_foot_crowd_probe_dt(cr, opt, 0.0f);
}

cik_status cik_foot_crowd_ground_heightfield(cik_foot_crowd *cr, const cik_heightfield *hf,
                                             const cik_foot_options *opt)
{
    return run_call(cr, opt, 0.0f, DO_GROUND, hf);
}

cik_status cik_foot_crowd_place_dt(cik_foot_crowd *cr, const cik_foot_options *opt, float dt)
{
    return run_call(cr, opt, dt, DO_PLACE, NULL);
}

cik_status cik_foot_crowd_place(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    return cik_foot_crowd_place_dt(cr, opt, 0.0f);
}

cik_status cik_foot_crowd_solve(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    return run_call(cr, opt, 0.0f, DO_SOLVE, NULL);
}

cik_status cik_foot_crowd_align(cik_foot_crowd *cr, const cik_foot_options *opt)
{
    return run_call(cr, opt, 0.0f, DO_ALIGN, NULL);
}

cik_status cik_foot_crowd_frame_dt(cik_foot_crowd *cr, const cik_heightfield *hf, const cik_foot_options *opt,
                                   float dt)
{
    return run_call(cr, opt, dt, DO_FRAME, hf);
}

cik_status cik_foot_crowd_frame(cik_foot_crowd *cr, const cik_heightfield *hf, const cik_foot_options *opt)
{
    return cik_foot_crowd_frame_dt(cr, hf, opt, 0.0f);
}

/* ------------------------------------------------------------------------ */
/* The frame on the caller's threads                                        */

static const frame_plan *plan_of(const cik_foot_frame_plan *plan)
{
    if (!plan) return NULL;
    const frame_plan *p = (const frame_plan *)(const void *)&plan->opaque;
    return p->magic == FRAME_PLAN_MAGIC ? p : NULL;
}

cik_status cik_foot_crowd_frame_plan_init(cik_foot_frame_plan *plan, cik_foot_crowd *cr, const cik_heightfield *hf,
                                          const cik_foot_options *opt, float dt)
{
    if (!plan) return CIK_ERROR_ARGUMENT;
    frame_plan fp;
    cik_options so;
    cik_status s = prepare(cr, opt, dt, DO_FRAME, hf, &fp, &so);
    if (s != CIK_OK) return s;
    /* what the ranges share, made ready here so that they only read it: the
     * leg constants' layout, and the pelvis smoothing's "a frame has run"
     * (the plan captured the value before this frame) */
    if (cr->kstale || cr->krecheck_any) refresh_consts(cr);
    cr->primed = 1;
    memset(plan, 0, sizeof *plan);
    memcpy(&plan->opaque, &fp, sizeof fp);
    return CIK_OK;
}

cik_status cik_foot_crowd_frame_range(const cik_foot_frame_plan *plan, int begin, int end)
{
    const frame_plan *fp = plan_of(plan);
    if (!fp) return CIK_ERROR_ARGUMENT;
    const int nc = fp->cr->characters;
    if (begin < 0 || begin > end || end > nc) return CIK_ERROR_ARGUMENT;
    /* a bound inside a vector of feet: the ranges on either side would
     * both store that vector (tail_vector's masked lanes) */
    if ((begin % ALIGN_CHARS != 0 && begin != nc) || (end % ALIGN_CHARS != 0 && end != nc))
        return CIK_ERROR_ARGUMENT;
    if (begin < end) run_part(fp, begin, end);
    return CIK_OK;
}
