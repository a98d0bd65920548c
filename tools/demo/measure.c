/*
 * crowdik_demo's measures of the feet on real motion (docs/foot.md,
 * "Measures"): the rows --dump writes, one per frame and foot, and every
 * figure of the report's table computed from those rows alone, so that
 * anyone can recompute them from the CSV.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "scalar_math.h"

#define DEG (180.0f / SM_PI_F)
/* a swing foot whose lowest point is this far over its ground is clear of it (m) */
#define SWING_CLEAR 0.002f
/* frames the swing measure looks ahead for ground that lifts the foot:
 * the pipeline's swing_lookahead, 0.1 s (its default) at the demo's 60 Hz */
#define SWING_AHEAD 6

/* ---------------------------------------------------------------- rows */

static void leg_fk(const cik_foot_leg *leg, cik_vec3 base, cik_quat pq, const cik_quat q[3], cik_vec3 out[RP_COUNT],
                   cik_vec3 *sole_n)
{
    cik_quat w0 = quat_mul(pq, q[0]), w1 = quat_mul(w0, q[1]), w2 = quat_mul(w1, q[2]);
    out[RP_HIP] = vec3_add(base, quat_rotate(pq, leg->hip));
    out[RP_KNEE] = vec3_add(out[RP_HIP], quat_rotate(w0, leg->thigh));
    out[RP_ANKLE] = vec3_add(out[RP_KNEE], quat_rotate(w1, leg->shin));
    for (int k = 0; k < CIK_FOOT_POINTS; ++k)
        out[RP_HEEL + k] = vec3_add(out[RP_ANKLE], quat_rotate(w2, leg->point[k]));
    *sole_n = vec3_normalize(quat_rotate(w2, leg->sole_normal));
}

/* Whether the ankle's limit lets the solved foot (hip and knee rotations
 * qs[0], qs[1] under the pelvis's pq) turn by the shortest arc from its
 * sole's up `sole_n` onto the ground normal `n`: the turned ankle rotation
 * exceeds the limit by at most 1e-3 rad (the demo's violation test). */
static int sole_allowed(const cik_foot_leg *leg, cik_quat pq, const cik_quat qs[3], cik_vec3 sole_n, cik_vec3 n)
{
    cik_vec3 x = vec3_cross(sole_n, n);
    float d = vec3_dot(sole_n, n);
    /* the half-way rotation (sole_n and n unit; never opposite here) */
    cik_quat arc = quat_normalize(quat(x.x, x.y, x.z, 1.0f + d));
    cik_quat w1 = quat_mul(quat_mul(pq, qs[0]), qs[1]), w2 = quat_mul(w1, qs[2]);
    cik_quat q2 = quat_normalize(quat_mul(quat_conj(w1), quat_mul(arc, w2)));
    return cik_limit_excess(&leg->limit[2], q2) <= 1e-3f;
}

void measure_row(const demo_scene *sc, const cik_foot_streams *s, int fr, int c, int side, foot_row *r)
{
    const int f = 2 * c + side;
    const cik_foot_leg *leg = &sc->rigs[c].leg[side];
    cik_quat pq = quat(s->pelvis_qx[c], s->pelvis_qy[c], s->pelvis_qz[c], s->pelvis_qw[c]);
    cik_vec3 pp = vec3(s->pelvis_x[c], s->pelvis_y[c], s->pelvis_z[c]);
    r->frame = fr;
    r->character = c;
    r->side = side;
    r->weight = s->weight[f];
    r->planted = s->planted[f];
    r->locked = s->locked[f];
    r->pelvis_drop = s->pelvis_drop[c];
    r->pivot = s->pivot[f];
    cik_quat qa[3], qs[3];
    for (int j = 0; j < 3; ++j) {
        qa[j] = quat(s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f]);
        qs[j] = quat(s->solved_x[j][f], s->solved_y[j][f], s->solved_z[j][f], s->solved_w[j][f]);
    }
    leg_fk(leg, pp, pq, qa, r->anim, &r->anim_sole_n);
    leg_fk(leg, vec3_sub(pp, vec3(0, r->pelvis_drop, 0)), pq, qs, r->solved, &r->solved_sole_n);
    for (int k = 0; k < CIK_FOOT_POINTS; ++k) r->ground_y[k] = terrain(r->solved[RP_HEEL + k].x, r->solved[RP_HEEL + k].z);
    r->ground_n = terrain_normal(r->solved[RP_BALL].x, r->solved[RP_BALL].z);
    r->floor_y = s->floor_y[c];
    r->sole_allowed = sole_allowed(leg, pq, qs, r->solved_sole_n, r->ground_n);
}

/* ---------------------------------------------------------------- CSV */

static const char *point_name[RP_COUNT] = {"hip", "knee", "ankle", "heel", "ball", "toe"};

void dump_header(FILE *fp)
{
    fputs("frame,character,side,weight,planted,locked,pelvis_drop", fp);
    for (int which = 0; which < 2; ++which)
        for (int k = 0; k < RP_COUNT; ++k)
            fprintf(fp, ",%s_%s_x,%s_%s_y,%s_%s_z", which ? "solved" : "anim", point_name[k], which ? "solved" : "anim",
                    point_name[k], which ? "solved" : "anim", point_name[k]);
    fputs(",ground_heel_y,ground_ball_y,ground_toe_y,pivot,ground_ball_nx,ground_ball_ny,ground_ball_nz"
          ",anim_sole_nx,anim_sole_ny,anim_sole_nz,solved_sole_nx,solved_sole_ny,solved_sole_nz,floor_y,sole_allowed\n",
          fp);
}

static void put_vec(FILE *fp, cik_vec3 v) { fprintf(fp, ",%.5f,%.5f,%.5f", v.x, v.y, v.z); }

void dump_row(FILE *fp, const foot_row *r)
{
    fprintf(fp, "%d,%d,%d,%.5f,%.0f,%.0f,%.5f", r->frame, r->character, r->side, r->weight, r->planted, r->locked,
            r->pelvis_drop);
    for (int k = 0; k < RP_COUNT; ++k) put_vec(fp, r->anim[k]);
    for (int k = 0; k < RP_COUNT; ++k) put_vec(fp, r->solved[k]);
    fprintf(fp, ",%.5f,%.5f,%.5f,%.0f", r->ground_y[0], r->ground_y[1], r->ground_y[2], r->pivot);
    put_vec(fp, r->ground_n);
    put_vec(fp, r->anim_sole_n);
    put_vec(fp, r->solved_sole_n);
    fprintf(fp, ",%.5f,%d\n", r->floor_y, r->sole_allowed);
}

/* ---------------------------------------------------------------- samples */

/* A growing list of float samples (capacity fixed at creation). */
typedef struct samples {
    float *v;
    size_t n;
} samples;

enum {
    S_PLANTED_ERR, /* planted: |lowest clearance of heel, ball, toe| */
    S_PEN,         /* planted: deepest of heel, ball, toe below the ground */
    S_PEN_STEP,
    S_PEN_SLOPE,
    S_PEN_OTHER,
    S_LOCK_MOVE,  /* locked, same pivot as the last frame: pivot movement */
    S_DROP2,      /* per character: second difference of the pelvis drop */
    S_SWING_HIP,  /* weight 0: thigh direction, animated vs solved */
    S_SWING_KNEE, /* weight 0: knee angle, animated vs solved */
    S_SWING_PEN,  /* weight 0: deepest of heel, ball, toe below the ground */
    S_FREE_HIP,   /* weight 0, the foot clear of the ground: as S_SWING_HIP */
    S_FREE_KNEE,  /* the same: as S_SWING_KNEE */
    S_SOLE_TILT,  /* planted, animated sole flat: sole normal vs ground normal */
    S_SOLE_OK,    /* the same where the ankle's limit lets the sole lie on the ground */
    S_SOLE_PEEL,  /* the same, less the animated sole's own angle off its floor (>= 0) */
    S_FOOT_TURN,  /* weight > 0 in the frame or the last: the solved foot's turn less the animated one's */
    S_COUNT
};

/* What one foot carries from its last row. */
typedef struct foot_prev {
    int has;
    float locked, pivot, anim_knee, solved_knee, weight;
    /* the knees' turns from the row before (has_turn: known) */
    int has_turn;
    float anim_turn, solved_turn;
    cik_vec3 anim_heel, anim_toe, solved_toe, solved_point[CIK_FOOT_POINTS];
} foot_prev;

struct demo_measures {
    int frames, feet, run;
    samples s[S_COUNT];
    foot_prev *prev;
    float *drop1, *drop2; /* per character: the last two drops */
    /* per frame and foot (index frame * feet + foot), for the still frames
     * (known only once a slow run has lasted 4 frames): slow, planted, toe
     * movement animated and solved (NaN on the first frame), knee bends */
    unsigned char *slow, *planted;
    float *anim_slide, *solved_slide, *anim_knee, *solved_knee;
    /* per frame and foot: the highest ground under the foot over the
     * animation's floor (NaN: no row), and the swing rows' hip and knee
     * off the animation where nothing in that frame forces a change (NaN:
     * not such a row); measures_report leaves out those with ground over
     * the floor in the next SWING_AHEAD frames */
    float *rise, *free_hip, *free_knee;
    long pops, pop_own, pop_jumps, pop_frames, planted_frames;
};

void measures_free(demo_measures *m)
{
    if (!m) return;
    for (int k = 0; k < S_COUNT; ++k) free(m->s[k].v);
    free(m->prev);
    free(m->drop1);
    free(m->drop2);
    free(m->slow);
    free(m->planted);
    free(m->anim_slide);
    free(m->solved_slide);
    free(m->anim_knee);
    free(m->solved_knee);
    free(m->rise);
    free(m->free_hip);
    free(m->free_knee);
    free(m);
}

demo_measures *measures_create(int frames, int characters, int run)
{
    demo_measures *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->frames = frames;
    m->feet = 2 * characters;
    m->run = run;
    size_t n = (size_t)frames * (size_t)m->feet;
    int ok = 1;
    for (int k = 0; k < S_COUNT; ++k) ok &= (m->s[k].v = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->prev = calloc((size_t)m->feet, sizeof *m->prev)) != NULL;
    ok &= (m->drop1 = calloc((size_t)characters, sizeof(float))) != NULL;
    ok &= (m->drop2 = calloc((size_t)characters, sizeof(float))) != NULL;
    ok &= (m->slow = calloc(n, 1)) != NULL;
    ok &= (m->planted = calloc(n, 1)) != NULL;
    ok &= (m->anim_slide = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->solved_slide = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->anim_knee = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->solved_knee = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->rise = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->free_hip = malloc(sizeof(float) * n)) != NULL;
    ok &= (m->free_knee = malloc(sizeof(float) * n)) != NULL;
    if (!ok) {
        measures_free(m);
        return NULL;
    }
    for (size_t i = 0; i < n; ++i) m->rise[i] = m->free_hip[i] = m->free_knee[i] = NAN;
    return m;
}

static void add(samples *s, float v) { s->v[s->n++] = v; }

static float angle_deg(cik_vec3 a, cik_vec3 b)
{
    float la = vec3_length(a), lb = vec3_length(b);
    if (!(la > 0) || !(lb > 0)) return 0.0f;
    return acosf(clampf(vec3_dot(a, b) / (la * lb), -1.0f, 1.0f)) * DEG;
}

/* The angle between two directions, by atan2 (exact near 0, where acos
 * of the cosine loses the small turns of a frame). */
static float turn_deg(cik_vec3 a, cik_vec3 b)
{
    return atan2f(vec3_length(vec3_cross(a, b)), vec3_dot(a, b)) * DEG;
}

/* The knee's bend: 0 straight. */
static float knee_bend(const cik_vec3 p[RP_COUNT])
{
    return angle_deg(vec3_sub(p[RP_KNEE], p[RP_HIP]), vec3_sub(p[RP_ANKLE], p[RP_KNEE]));
}

static float horizontal(cik_vec3 a, cik_vec3 b) { return sqrtf((a.x - b.x) * (a.x - b.x) + (a.z - b.z) * (a.z - b.z)); }

/* The deepest of heel, ball and toe below the true ground (0 when none is)
 * and the lowest clearance (point height less the ground's). */
static void ground_gaps(const foot_row *r, float *deepest, float *lowest)
{
    *deepest = 0.0f;
    *lowest = INFINITY;
    for (int k = 0; k < CIK_FOOT_POINTS; ++k) {
        float gap = r->solved[RP_HEEL + k].y - r->ground_y[k];
        *deepest = fmaxf(*deepest, -gap);
        *lowest = fminf(*lowest, gap);
    }
}

/* Where the foot is for the split of the penetration: at a step when any
 * of heel, ball and toe is, else on a slope when any is, else elsewhere. */
static int foot_place(const foot_row *r)
{
    int place = TERRAIN_AT_OTHER;
    for (int k = 0; k < CIK_FOOT_POINTS; ++k) {
        int p = terrain_place(r->solved[RP_HEEL + k].x, r->solved[RP_HEEL + k].z);
        if (p < place) place = p;
    }
    return place;
}

/* The measures that want the last frame: pivot, toe slide, knee pops, the
 * foot's turn (heel to toe) beyond the animated foot's. */
static void add_motion(demo_measures *m, const foot_row *r, foot_prev *p, size_t i, float ak, float sk)
{
    float speed = fminf(vec3_length(vec3_sub(r->anim[RP_HEEL], p->anim_heel)),
                        vec3_length(vec3_sub(r->anim[RP_TOE], p->anim_toe))) *
                  (float)DEMO_HZ;
    m->slow[i] = speed < (m->run ? 1.0f : 0.5f);
    m->anim_slide[i] = horizontal(r->anim[RP_TOE], p->anim_toe);
    m->solved_slide[i] = horizontal(r->solved[RP_TOE], p->solved_toe);
    float ds = sk - p->solved_knee, da = ak - p->anim_knee;
    int pop = fabsf(ds - da) > 5.0f;
    /* a jump of the animation's own that the solve smooths: the animated
     * knee turned more than the solved one, and its turn changed more from
     * the last frame's than the solved knee's did (a capture's knee
     * snapping straight while the solved knee, bent by the ground, goes
     * on as it went) */
    int smoothed = p->has_turn && fabsf(ds) < fabsf(da) &&
                   fabsf(ds - p->solved_turn) < fabsf(da - p->anim_turn);
    p->has_turn = 1;
    p->anim_turn = da;
    p->solved_turn = ds;
    m->pops += pop;
    m->pop_own += pop && !smoothed;
    /* of those, the ones where the solved knee turned faster than the
     * animated one: the rest lag an animated knee that moves fast */
    m->pop_jumps += pop && fabsf(ds) > fabsf(da);
    m->pop_frames++;
    int piv = (int)r->pivot;
    if (r->locked > 0.5f && p->locked > 0.5f && r->pivot == p->pivot && piv >= 0 && piv < CIK_FOOT_POINTS)
        add(&m->s[S_LOCK_MOVE], vec3_length(vec3_sub(r->solved[RP_HEEL + piv], p->solved_point[piv])));
    if (r->weight > 0.0f || p->weight > 0.0f) {
        float solved = turn_deg(vec3_sub(p->solved_point[CIK_FOOT_TOE], p->solved_point[CIK_FOOT_HEEL]),
                                vec3_sub(r->solved[RP_TOE], r->solved[RP_HEEL]));
        float anim = turn_deg(vec3_sub(p->anim_toe, p->anim_heel), vec3_sub(r->anim[RP_TOE], r->anim[RP_HEEL]));
        add(&m->s[S_FOOT_TURN], solved - anim);
    }
}

void measures_add(demo_measures *m, const foot_row *r)
{
    const int f = 2 * r->character + r->side;
    const size_t i = (size_t)r->frame * (size_t)m->feet + (size_t)f;
    foot_prev *p = &m->prev[f];
    float ak = knee_bend(r->anim), sk = knee_bend(r->solved);
    m->anim_knee[i] = ak;
    m->solved_knee[i] = sk;
    m->planted[i] = r->planted > 0.5f;
    m->rise[i] = fmaxf(fmaxf(r->ground_y[0], r->ground_y[1]), r->ground_y[2]) - r->floor_y;
    m->anim_slide[i] = m->solved_slide[i] = NAN;
    if (p->has) add_motion(m, r, p, i, ak, sk);
    float deepest, lowest;
    ground_gaps(r, &deepest, &lowest);
    if (m->planted[i]) {
        m->planted_frames++;
        add(&m->s[S_PLANTED_ERR], fabsf(lowest));
        add(&m->s[S_PEN], deepest);
        add(&m->s[S_PEN_STEP + foot_place(r)], deepest);
        if (angle_deg(r->anim_sole_n, vec3(0, 1, 0)) < 10.0f) {
            add(&m->s[S_SOLE_TILT], angle_deg(r->solved_sole_n, r->ground_n));
            if (r->sole_allowed) {
                const float off = angle_deg(r->solved_sole_n, r->ground_n);
                add(&m->s[S_SOLE_OK], off);
                /* a heel the animation peels (up to 10 degrees here) may
                 * peel as much off the ground */
                add(&m->s[S_SOLE_PEEL], fmaxf(0.0f, off - angle_deg(r->anim_sole_n, vec3(0, 1, 0))));
            }
        }
    }
    if (!(r->weight > 0.0f)) {
        float hip = angle_deg(vec3_sub(r->anim[RP_KNEE], r->anim[RP_HIP]),
                              vec3_sub(r->solved[RP_KNEE], r->solved[RP_HIP]));
        add(&m->s[S_SWING_HIP], hip);
        add(&m->s[S_SWING_KNEE], fabsf(sk - ak));
        add(&m->s[S_SWING_PEN], deepest);
        /* nothing holds the foot up (its lowest point SWING_CLEAR over its
         * ground), no ground under it is above the animation's floor
         * (which lifts a swing foot by its rise, swing_lift) and the
         * animated foot is more than twice the pelvis drop above its floor
         * (lowered by the drop with the animation's angles, it would be
         * more than the drop again above it: it is not landing, so it
         * need not yet take the drop into its knee): what moved the leg
         * off its animation is the pipeline's own, not the ground's or
         * the pelvis drop's */
        float anim_low = fminf(fminf(r->anim[RP_HEEL].y, r->anim[RP_BALL].y), r->anim[RP_TOE].y);
        if (lowest > SWING_CLEAR && m->rise[i] <= SWING_CLEAR && anim_low - r->floor_y > 2.0f * r->pelvis_drop) {
            m->free_hip[i] = hip;
            m->free_knee[i] = fabsf(sk - ak);
        }
    }
    if (r->side == 0) {
        int c = r->character;
        if (r->frame >= 2) add(&m->s[S_DROP2], fabsf(r->pelvis_drop - 2.0f * m->drop1[c] + m->drop2[c]));
        m->drop2[c] = m->drop1[c];
        m->drop1[c] = r->pelvis_drop;
    }
    p->has = 1;
    p->weight = r->weight;
    p->locked = r->locked;
    p->pivot = r->pivot;
    p->anim_knee = ak;
    p->solved_knee = sk;
    p->anim_heel = r->anim[RP_HEEL];
    p->anim_toe = r->anim[RP_TOE];
    p->solved_toe = r->solved[RP_TOE];
    for (int k = 0; k < CIK_FOOT_POINTS; ++k) p->solved_point[k] = r->solved[RP_HEEL + k];
}

/* ---------------------------------------------------------------- report */

static float pct(samples *s, float p)
{
    qsort(s->v, s->n, sizeof(float), demo_cmp_float);
    return demo_percentile(s->v, s->n, p);
}

static float share_below(const samples *s, float limit)
{
    size_t k = 0;
    for (size_t i = 0; i < s->n; ++i) k += s->v[i] <= limit;
    return s->n ? 100.0f * (float)k / (float)s->n : 0.0f;
}

/* The still frames: runs of at least 4 slow frames per foot. Fills the
 * still-frame figures; the slide samples go into `as` and `ss`. */
typedef struct still_figures {
    long still, still_planted, anim_straight, solved_straight;
} still_figures;

static still_figures still_frames(const demo_measures *m, samples *as, samples *ss)
{
    still_figures sf = {0, 0, 0, 0};
    for (int f = 0; f < m->feet; ++f)
        for (int fr = 0; fr < m->frames;) {
            int end = fr;
            while (end < m->frames && m->slow[(size_t)end * (size_t)m->feet + (size_t)f]) ++end;
            if (end - fr >= 4)
                for (int k = fr; k < end; ++k) {
                    size_t i = (size_t)k * (size_t)m->feet + (size_t)f;
                    sf.still++;
                    sf.still_planted += m->planted[i];
                    sf.anim_straight += m->anim_knee[i] < 8.0f;
                    sf.solved_straight += m->solved_knee[i] < 8.0f;
                    if (isfinite(m->anim_slide[i])) {
                        add(as, m->anim_slide[i]);
                        add(ss, m->solved_slide[i]);
                    }
                }
            fr = end > fr ? end : fr + 1;
        }
    return sf;
}

/* The swing rows clear of the ground where nothing forces a change in
 * their frame (measures_add) and no ground the foot comes over in the
 * next SWING_AHEAD frames is above the animation's floor (the look-ahead
 * lifts a swing foot before a step up, swing_lookahead): the pipeline's
 * own change to the swing leg, into S_FREE_HIP and S_FREE_KNEE. */
static void free_swing(demo_measures *m)
{
    for (int f = 0; f < m->feet; ++f)
        for (int fr = 0; fr < m->frames; ++fr) {
            size_t i = (size_t)fr * (size_t)m->feet + (size_t)f;
            if (isnan(m->free_hip[i])) continue;
            int forced = 0;
            for (int k = 1; k <= SWING_AHEAD && fr + k < m->frames; ++k)
                forced |= m->rise[i + (size_t)k * (size_t)m->feet] > SWING_CLEAR;
            if (forced) continue;
            add(&m->s[S_FREE_HIP], m->free_hip[i]);
            add(&m->s[S_FREE_KNEE], m->free_knee[i]);
        }
}

/* One line of the table: the measure, its value (already formatted; "-"
 * when it has no samples), the target; columns two spaces apart at least,
 * none inside a column. */
static void row(void (*out)(const char *fmt, ...), const char *what, const char *value, size_t samples,
                const char *target)
{
    out("  %-54s %16s  %s\n", what, samples ? value : "-", target);
}

void measures_report(demo_measures *m, void (*out)(const char *fmt, ...))
{
    size_t n = (size_t)m->frames * (size_t)m->feet;
    samples as = {malloc(sizeof(float) * n), 0}, ss = {malloc(sizeof(float) * n), 0};
    if (!as.v || !ss.v) {
        out("\nmeasures: out of memory\n");
        free(as.v);
        free(ss.v);
        return;
    }
    still_figures sf = still_frames(m, &as, &ss);
    m->s[S_FREE_HIP].n = m->s[S_FREE_KNEE].n = 0;
    free_swing(m);
    double still = sf.still ? (double)sf.still : 1.0;
    out("\nmeasures: %ld foot-frames, %ld planted (%zu near a step edge, %zu on a slope, %zu elsewhere), %ld still "
        "(heel or toe slower than %.1f m/s for 4+ frames)\n",
        (long)n, m->planted_frames, m->s[S_PEN_STEP].n, m->s[S_PEN_SLOPE].n, m->s[S_PEN_OTHER].n, sf.still,
        m->run ? 1.0 : 0.5);
    char v[64];
    row(out, "measure", "value", 1, "target");
    snprintf(v, sizeof v, "%.1f %%", 100.0 * (double)sf.still_planted / still);
    row(out, "still foot-frames planted", v, (size_t)sf.still, ">= 95 %");
    samples *e = &m->s[S_PLANTED_ERR];
    snprintf(v, sizeof v, "%.1f %%", share_below(e, 0.01f));
    row(out, "planted: lowest point within 1 cm of the ground", v, e->n, ">= 99 %");
    snprintf(v, sizeof v, "%.1f %%", share_below(e, 0.002f));
    row(out, "planted: lowest point within 2 mm of the ground", v, e->n, ">= 95 %");
    static const char *pen_label[4] = {"planted: a point below the ground, p99 mm", "  near a step edge",
                                       "  on a slope", "  elsewhere"};
    for (int k = 0; k < 4; ++k) {
        snprintf(v, sizeof v, "%.2f", 1e3f * pct(&m->s[S_PEN + k], 0.99f));
        row(out, pen_label[k], v, m->s[S_PEN + k].n, "<= 5");
    }
    snprintf(v, sizeof v, "%.3f", 1e3f * pct(&m->s[S_LOCK_MOVE], 0.99f));
    row(out, "locked: pivot movement per frame, p99 mm", v, m->s[S_LOCK_MOVE].n, "<= 0.5");
    float a99 = 1e3f * pct(&as, 0.99f), s99 = 1e3f * pct(&ss, 0.99f);
    snprintf(v, sizeof v, "%.2f -> %.2f", a99, s99);
    row(out, "still: toe slide per frame, p99 mm, anim -> solved", v, as.n, "no worse");
    snprintf(v, sizeof v, "%.2f", m->pop_frames ? 1000.0 * (double)m->pop_own / (double)m->pop_frames : 0.0);
    row(out, "knee pops the solve makes (> 5 deg beyond anim.) /1000", v, (size_t)m->pop_frames, "<= 2");
    snprintf(v, sizeof v, "%.2f", m->pop_frames ? 1000.0 * (double)m->pops / (double)m->pop_frames : 0.0);
    row(out, "  with the animation's own jumps that it smooths", v, (size_t)m->pop_frames, "(all)");
    snprintf(v, sizeof v, "%.2f", m->pop_frames ? 1000.0 * (double)m->pop_jumps / (double)m->pop_frames : 0.0);
    row(out, "  the solved knee turning faster than the animated one", v, (size_t)m->pop_frames, "(part)");
    snprintf(v, sizeof v, "%.2f", pct(&m->s[S_FOOT_TURN], 0.99f));
    row(out, "weighted: foot turn beyond the anim. per frame, p99 deg", v, m->s[S_FOOT_TURN].n, "(all)");
    snprintf(v, sizeof v, "%.1f -> %.1f %%", 100.0 * (double)sf.anim_straight / still,
             100.0 * (double)sf.solved_straight / still);
    row(out, "still: knee straight (< 8 deg), anim -> solved", v, (size_t)sf.still, "<= +2 points");
    samples *d = &m->s[S_DROP2];
    float d99 = 1e3f * pct(d, 0.99f); /* sorts: the maximum is last */
    snprintf(v, sizeof v, "%.2f / %.2f", d99, d->n ? 1e3f * d->v[d->n - 1] : 0.0f);
    row(out, "pelvis drop 2nd difference, p99 / max, mm/frame^2", v, d->n, "<= 5 (p99)");
    float h99 = pct(&m->s[S_SWING_HIP], 0.99f), k99 = pct(&m->s[S_SWING_KNEE], 0.99f);
    snprintf(v, sizeof v, "%.2f / %.2f", h99, k99);
    row(out, "swing (weight 0): hip / knee off the anim., p99 deg", v, m->s[S_SWING_HIP].n, "(forced)");
    snprintf(v, sizeof v, "%.2f / %.2f", pct(&m->s[S_FREE_HIP], 0.99f), pct(&m->s[S_FREE_KNEE], 0.99f));
    row(out, "  clear of the ground (nothing forces a change)", v, m->s[S_FREE_HIP].n, "<= 5");
    snprintf(v, sizeof v, "%.2f", 1e3f * pct(&m->s[S_SWING_PEN], 0.99f));
    row(out, "swing: a point below the ground, p99 mm", v, m->s[S_SWING_PEN].n, "<= 5");
    snprintf(v, sizeof v, "%.2f", pct(&m->s[S_SOLE_TILT], 0.99f));
    row(out, "planted, animated sole flat: sole off normal, p99 deg", v, m->s[S_SOLE_TILT].n, "(all)");
    /* how many of those rows the two figures below count (the rest: the
     * ankle's limit keeps the sole off the ground, a shin the pelvis drop
     * leans far over the foot) */
    snprintf(v, sizeof v, "%.1f %%",
             m->s[S_SOLE_TILT].n ? 100.0 * (double)m->s[S_SOLE_OK].n / (double)m->s[S_SOLE_TILT].n : 0.0);
    row(out, "  rows the ankle's limit allows a flat sole, share", v, m->s[S_SOLE_TILT].n, "(all)");
    snprintf(v, sizeof v, "%.2f", pct(&m->s[S_SOLE_OK], 0.99f));
    row(out, "  where the ankle's limit allows it", v, m->s[S_SOLE_OK].n, "(all)");
    snprintf(v, sizeof v, "%.2f", pct(&m->s[S_SOLE_PEEL], 0.99f));
    row(out, "    beyond the animated sole's own angle", v, m->s[S_SOLE_PEEL].n, "<= 3");
    free(as.v);
    free(ss.v);
}
