/*
 * crowdik_demo --creature quadruped|hexapod: a herd (crowdik/herd.h) walking
 * over the demo's terrain with the procedural gaits of support/creatures.h.
 * The crowd is placed and its ground built as the biped crowd's (scene.c);
 * each frame the demo animates the roots and legs (not timed), then runs
 * the herd's stages one by one, timed: probe, ground (the terrain's exact
 * shape into the contact streams, or cik_herd_ground_heightfield), place,
 * solve. The measures (docs/foot.md, "Herds in the demo") are computed here
 * from the streams, frame by frame; --dump writes the rows they come from
 * and --out draws a few creatures side-on.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "creatures.h"
#include "demo.h"
#include "scalar_math.h"

#define DEG (180.0f / SM_PI_F)
#define MAXL CIK_HERD_MAX_LEGS
#define MAXS CIK_HERD_MAX_SEGMENTS

enum { HS_PROBE, HS_GROUND, HS_PLACE, HS_SOLVE, HS_TOTAL, HS_COUNT };

/* A growing-free sample store: its capacity is known before the run. */
typedef struct samples {
    float *v;
    size_t n, cap;
} samples;

static int samples_alloc(samples *s, size_t cap)
{
    s->n = 0;
    s->cap = cap;
    s->v = malloc(sizeof(float) * (cap ? cap : 1));
    return s->v ? 0 : -1;
}
static void add(samples *s, float v)
{
    if (s->n < s->cap) s->v[s->n++] = v;
}
static float pct(samples *s, float p)
{
    qsort(s->v, s->n, sizeof(float), demo_cmp_float);
    return demo_percentile(s->v, s->n, p);
}
/* The largest sample (after pct, the last). */
static float maxof(const samples *s)
{
    float m = 0.0f;
    for (size_t i = 0; i < s->n; ++i) m = fmaxf(m, s->v[i]);
    return m;
}

/* One pictured character at one drawn frame: both roots and every leg's
 * joints and foot, animated and solved, and each foot's stance number (0
 * in swing) so that a planted foot is marked once per stance. */
typedef struct herd_record {
    cik_vec3 root[2][CIK_HERD_ROOTS];
    cik_vec3 leg[2][MAXL][MAXS + 1];
    int stance[MAXL];
} herd_record;

/* The worst case of a measure (the deepest foot below the ground, the
 * largest bend change): its size, which foot, where and in what state. */
typedef struct worst_foot {
    float depth;
    int frame, character, leg, planted, locked;
    float weight, x, z;
} worst_foot;

typedef struct herd_scene {
    const demo_options *opt;
    creature_kind kind;
    int n, legs;
    character *ch;
    cik_herd_body *bodies; /* read back from the herd: axes normalised */
    creature_gait gait;
    cik_heightfield hf;
    float *heights;
    cik_herd *herd;
    cik_herd_streams s;
    cik_herd_options ho;
    FILE *dump;
    int draw_frames;
    herd_record *rec;
    int stances[PANELS][MAXL], planted[PANELS][MAXL];
    /* the measures */
    float *times[HS_COUNT];
    float *prev; /* per foot: has, locked, solved foot x y z, then the hinge angles, solved and animated */
    long planted_frames, within1, within2, violations;
    long planted_by[MAXS + 1], within1_by[MAXS + 1], violations_by[MAXS + 1][MAXS];
    long conv_planted[MAXS + 1], conv_ok[MAXS + 1];
    double passes_planted[MAXS + 1], passes_all[MAXS + 1], count_all[MAXS + 1];
    long planted_place[TERRAIN_AT_COUNT], within1_place[TERRAIN_AT_COUNT];
    samples below, lock_move, pitch, roll;
    /* every hinge-joint frame's bend change, and its group: the foot's
     * state * 32 + segment count * 4 + joint (one array, split at the
     * report) */
    samples bend, scratch;
    unsigned char *bend_tag;
    int hinge_joint[MAXS + 1][MAXS]; /* 1: some leg has a hinge there */
    long conv_slow[MAXS + 1], conv_far[MAXS + 1]; /* planted, > 3 passes; error >= 1 mm */
    float height_lo, height_hi;
    worst_foot worst, worst_bend;
    int worst_joint;
} herd_scene;

#define PREV_STRIDE (5 + 2 * MAXS)

/* The signed angle of local rotation q about unit hinge axis a. */
static float hinge_angle(cik_quat q, cik_vec3 a)
{
    if (q.w < 0) q = quat(-q.x, -q.y, -q.z, -q.w);
    return 2.0f * atan2f(q.x * a.x + q.y * a.y + q.z * a.z, q.w);
}
/* The change from b to a, wrapped into [-pi, pi]. */
static float angle_change(float a, float b)
{
    float d = a - b;
    while (d > SM_PI_F) d -= 2.0f * SM_PI_F;
    while (d < -SM_PI_F) d += 2.0f * SM_PI_F;
    return d;
}

static cik_quat pose_q(const cik_herd_streams *s, int j, int f)
{
    return quat(s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f]);
}
static cik_quat solved_q(const cik_herd_streams *s, int j, int f)
{
    return quat(s->solved_x[j][f], s->solved_y[j][f], s->solved_z[j][f], s->solved_w[j][f]);
}
static void root_get(float *const x[], float *const y[], float *const z[], float *const qx[], float *const qy[],
                     float *const qz[], float *const qw[], int r, int c, cik_vec3 *p, cik_quat *q)
{
    *p = vec3(x[r][c], y[r][c], z[r][c]);
    *q = quat_normalize(quat(qx[r][c], qy[r][c], qz[r][c], qw[r][c]));
}
/* Root r of character c, animated (solved == 0) or solved. */
static void root_of(const cik_herd_streams *s, int solved, int r, int c, cik_vec3 *p, cik_quat *q)
{
    if (solved)
        root_get(s->solved_root_x, s->solved_root_y, s->solved_root_z, s->solved_root_qx, s->solved_root_qy,
                 s->solved_root_qz, s->solved_root_qw, r, c, p, q);
    else
        root_get(s->root_x, s->root_y, s->root_z, s->root_qx, s->root_qy, s->root_qz, s->root_qw, r, c, p, q);
}

/* Forward kinematics of foot f (leg `leg` of character c): pts[0..n-1] the
 * joints, pts[n] the foot point, animated or solved. */
static void leg_points(const herd_scene *h, int solved, int c, int l, cik_vec3 pts[MAXS + 1])
{
    const cik_herd_leg *leg = &h->bodies[c].leg[l];
    const int f = c * h->legs + l;
    cik_vec3 p;
    cik_quat q;
    root_of(&h->s, solved, leg->root, c, &p, &q);
    cik_vec3 x = vec3_add(p, quat_rotate(q, leg->hip));
    for (int j = 0; j < leg->segment_count; ++j) {
        pts[j] = x;
        q = quat_mul(q, quat_normalize(solved ? solved_q(&h->s, j, f) : pose_q(&h->s, j, f)));
        x = vec3_add(x, quat_rotate(q, leg->segment[j]));
    }
    pts[leg->segment_count] = x;
    for (int j = leg->segment_count + 1; j <= MAXS; ++j) pts[j] = vec3(0, 0, 0);
}

/* ---------------------------------------------------------------- scene */

/* The pictured characters: each reaches its feature (a step up, the ridge's
 * flank, its top's far edge, a step down) half way through a 5 s run at
 * the gait's speed. */
static void herd_panels(float speed, float out[PANELS][3])
{
    const float d = 2.5f * speed;
    const float places[PANELS][3] = {{-6.0f, 8.0f - d, 0.0f},
                                     {2.0f - d, 3.0f, 0.5f * SM_PI_F},
                                     {8.0f - d, 3.0f, 0.5f * SM_PI_F},
                                     {-26.0f, 16.0f - d, 0.0f}};
    memcpy(out, places, sizeof places);
}

static int herd_create(const demo_options *o, herd_scene *h, char *err, size_t errsz)
{
    memset(h, 0, sizeof *h);
    h->opt = o;
    h->kind = (creature_kind)o->creature;
    h->n = o->characters;
    cik_herd_body b1;
    creature_body(h->kind, 1.0f, &b1);
    h->legs = b1.leg_count;
    /* one gait at size 1: a creature of size s walks it with the same
     * angles and timing, every length and its speed scaled by s */
    if (creature_gait_build(h->kind, &b1, &h->gait)) {
        snprintf(err, errsz, "cannot build the %s gait", creature_name(h->kind));
        return EXIT_CANNOT_RUN;
    }
    const size_t n = (size_t)h->n, feet = n * (size_t)h->legs, frames = (size_t)o->frames;
    h->ch = calloc(n, sizeof *h->ch);
    h->bodies = calloc(n, sizeof *h->bodies);
    h->prev = calloc(feet * PREV_STRIDE, sizeof(float));
    h->draw_frames = (o->frames + DRAW_EVERY - 1) / DRAW_EVERY;
    h->rec = calloc((size_t)PANELS * (size_t)h->draw_frames, sizeof *h->rec);
    int bad = !h->ch || !h->bodies || !h->prev || !h->rec;
    for (int k = 0; k < HS_COUNT; ++k) bad |= !(h->times[k] = malloc(sizeof(float) * frames));
    if (bad) {
        snprintf(err, errsz, "out of memory");
        return EXIT_CANNOT_RUN;
    }
    terrain_select(o->terrain);
    float panels[PANELS][3];
    herd_panels(h->gait.speed, panels);
    float half = place_crowd(o, h->ch, h->n, panels);
    if (build_ground(o, 1.1f * h->gait.speed, half, &h->hf, &h->heights)) {
        snprintf(err, errsz, "out of memory for the terrain");
        return EXIT_CANNOT_RUN;
    }
    cik_status st = cik_herd_create(h->n, &b1, &h->herd);
    for (int c = 0; st == CIK_OK && c < h->n; ++c) {
        cik_herd_body b;
        creature_body(h->kind, h->ch[c].size, &b);
        st = cik_herd_set_body(h->herd, c, &b);
        if (st == CIK_OK) st = cik_herd_get_body(h->herd, c, &h->bodies[c]);
    }
    if (st == CIK_OK) st = cik_herd_streams_get(h->herd, &h->s);
    if (st != CIK_OK) {
        snprintf(err, errsz, "cannot build the herd: %s", cik_status_string(st));
        return EXIT_CANNOT_RUN;
    }
    /* the measures' storage: per foot-frame, per hinge-joint frame */
    size_t all = 0;
    for (int l = 0; l < h->legs; ++l)
        for (int j = 0; j < b1.leg[l].segment_count; ++j)
            if (b1.leg[l].limit[j].type == CIK_LIMIT_HINGE) {
                h->hinge_joint[b1.leg[l].segment_count][j] = 1;
                all += n * frames;
            }
    bad |= samples_alloc(&h->bend, all) | samples_alloc(&h->scratch, all);
    bad |= !(h->bend_tag = malloc(all ? all : 1));
    bad |= samples_alloc(&h->below, feet * frames) | samples_alloc(&h->lock_move, feet * frames);
    bad |= samples_alloc(&h->pitch, n * frames) | samples_alloc(&h->roll, n * frames);
    if (bad) {
        snprintf(err, errsz, "out of memory for the measures");
        return EXIT_CANNOT_RUN;
    }
    h->ho = cik_herd_default_options();
    h->ho.foot.dt = DEMO_DT;
    h->ho.foot.solver.backend = o->backend;
    h->ho.foot.solver.threads = o->threads;
    h->ho.foot.contacts = o->contacts;
    if (o->plant_speed > 0) {
        /* released at 1.5 times the plant speed, as the biped's */
        h->ho.foot.plant_speed = o->plant_speed;
        h->ho.foot.release_speed = 1.5f * o->plant_speed;
    }
    h->height_lo = INFINITY;
    h->height_hi = -INFINITY;
    return 0;
}

static void herd_free(herd_scene *h)
{
    cik_herd_destroy(h->herd);
    creature_gait_free(&h->gait);
    free(h->heights);
    free(h->ch);
    free(h->bodies);
    free(h->prev);
    free(h->rec);
    for (int k = 0; k < HS_COUNT; ++k) free(h->times[k]);
    free(h->bend.v);
    free(h->scratch.v);
    free(h->bend_tag);
    free(h->below.v);
    free(h->lock_move.v);
    free(h->pitch.v);
    free(h->roll.v);
    if (h->dump) fclose(h->dump);
}

/* What a game's animation system hands over for frame `fr`: both roots
 * (the gait's, carried to the character's place and heading, on the
 * controller's ground), floor_y and the legs' local rotations; with
 * --contacts weights also the gait's stance as the IK weights. */
static void animate(herd_scene *h, int fr)
{
    const cik_herd_streams *s = &h->s;
    const float t = (float)fr * DEMO_DT;
    for (int c = 0; c < h->n; ++c) {
        character *k = &h->ch[c];
        creature_pose p;
        creature_gait_sample(&h->gait, t + k->phase, &p);
        cik_quat hq = quat_axis_angle(k->heading, 0, 1, 0);
        cik_vec3 cp = vec3_add(vec3(k->x0, 0, k->z0), quat_rotate(hq, vec3(0, 0, h->gait.speed * k->size * t)));
        character_follow_ground(k, fr, cp.x, cp.z);
        s->floor_y[c] = k->floor;
        for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
            cik_vec3 rp = vec3_add(cp, quat_rotate(hq, vec3_scale(p.root_p[r], k->size)));
            cik_quat rq = quat_normalize(quat_mul(hq, p.root_q[r]));
            s->root_x[r][c] = rp.x;
            s->root_y[r][c] = k->floor + k->size * p.root_p[r].y;
            s->root_z[r][c] = rp.z;
            s->root_qx[r][c] = rq.x;
            s->root_qy[r][c] = rq.y;
            s->root_qz[r][c] = rq.z;
            s->root_qw[r][c] = rq.w;
        }
        for (int l = 0; l < h->legs; ++l) {
            const int f = c * h->legs + l;
            for (int j = 0; j < MAXS; ++j) {
                s->pose_x[j][f] = p.q[l][j].x;
                s->pose_y[j][f] = p.q[l][j].y;
                s->pose_z[j][f] = p.q[l][j].z;
                s->pose_w[j][f] = p.q[l][j].w;
            }
            if (h->opt->contacts == CIK_FOOT_CONTACTS_WEIGHTS) s->weight[f] = p.stance[l];
        }
    }
}

/* --ground exact: the ground under every probe from the terrain's exact
 * shape, as an engine's raycasts would give it. */
static void ground_exact(const cik_herd_streams *s)
{
    for (int f = 0; f < s->foot_count; ++f) {
        s->contact_y[f] = terrain(s->probe_x[f], s->probe_z[f]);
    }
}

/* The herd's stages one by one, each timed (t[0..4]). */
static cik_status run_stages(herd_scene *h, double t[5])
{
    t[0] = demo_now();
    cik_status st = cik_herd_probe(h->herd, &h->ho, DEMO_DT);
    t[1] = demo_now();
    if (st == CIK_OK && h->opt->exact)
        ground_exact(&h->s);
    else if (st == CIK_OK)
        st = cik_herd_ground_heightfield(h->herd, &h->hf, &h->ho);
    t[2] = demo_now();
    if (st == CIK_OK) st = cik_herd_place(h->herd, &h->ho, DEMO_DT);
    t[3] = demo_now();
    if (st == CIK_OK) st = cik_herd_solve(h->herd, &h->ho);
    t[4] = demo_now();
    return st;
}

/* ---------------------------------------------------------------- measures */

static void herd_dump_header(FILE *fp)
{
    fputs("frame,character,leg,segments,weight,planted,locked,body_height,body_pitch,body_roll,"
          "anim_foot_x,anim_foot_y,anim_foot_z,solved_foot_x,solved_foot_y,solved_foot_z",
          fp);
    for (int j = 0; j < MAXS; ++j) fprintf(fp, ",j%d_x,j%d_y,j%d_z", j, j, j);
    fputs(",ground_y\n", fp);
}

/* Foot f of character c at frame fr, from the streams after the solve. */
static void measure_foot(herd_scene *h, int fr, int c, int l, int drawn)
{
    const cik_herd_streams *s = &h->s;
    const int f = c * h->legs + l;
    const cik_herd_leg *leg = &h->bodies[c].leg[l];
    const int n = leg->segment_count;
    float *pv = h->prev + (size_t)f * PREV_STRIDE;
    cik_vec3 foot = vec3(s->foot_x[f], s->foot_y[f], s->foot_z[f]);
    const float g = terrain(foot.x, foot.z);
    const int planted = s->planted[f] > 0.5f && s->weight[f] >= 0.999f, locked = s->locked[f] > 0.5f;
    const float gap = foot.y - g;
    if (planted) {
        int place = terrain_place(foot.x, foot.z);
        h->planted_frames++;
        h->planted_by[n]++;
        h->planted_place[place]++;
        if (fabsf(gap) <= 0.01f) {
            h->within1++;
            h->within1_by[n]++;
            h->within1_place[place]++;
        }
        h->within2 += fabsf(gap) <= 0.002f;
        h->conv_planted[n]++;
        h->conv_ok[n] += s->error[f] < 1e-3f && s->passes[f] <= 3.0f;
        h->conv_slow[n] += s->passes[f] > 3.0f;
        h->conv_far[n] += !(s->error[f] < 1e-3f);
        h->passes_planted[n] += s->passes[f];
    }
    h->passes_all[n] += s->passes[f];
    h->count_all[n] += 1.0;
    float depth = fmaxf(0.0f, -gap);
    add(&h->below, depth);
    if (depth > h->worst.depth) {
        worst_foot w = {depth, fr, c, l, s->planted[f] > 0.5f, locked, s->weight[f], foot.x, foot.z};
        h->worst = w;
    }
    if (pv[0] > 0.5f && pv[1] > 0.5f && locked)
        add(&h->lock_move, vec3_length(vec3_sub(foot, vec3(pv[2], pv[3], pv[4]))));
    for (int j = 0; j < n; ++j) {
        cik_quat q = solved_q(s, j, f);
        if (cik_limit_excess(&leg->limit[j], q) > 1e-3f) {
            h->violations++;
            h->violations_by[n][j]++;
        }
        if (leg->limit[j].type != CIK_LIMIT_HINGE) continue;
        float sa = hinge_angle(q, leg->limit[j].axis), aa = hinge_angle(pose_q(s, j, f), leg->limit[j].axis);
        if (pv[0] > 0.5f) {
            float ds = fabsf(angle_change(sa, pv[5 + j])), da = fabsf(angle_change(aa, pv[5 + MAXS + j]));
            float excess = fmaxf(0.0f, ds - da) * DEG;
            /* the foot's state: planted, easing in or out, swing */
            const int state = s->weight[f] >= 0.999f ? 0 : (s->weight[f] > 0.0f ? 1 : 2);
            if (h->bend.n < h->bend.cap) h->bend_tag[h->bend.n] = (unsigned char)(state * 32 + n * 4 + j);
            add(&h->bend, excess);
            if (excess > h->worst_bend.depth) {
                worst_foot w = {excess, fr, c, l, s->planted[f] > 0.5f, locked, s->weight[f], foot.x, foot.z};
                h->worst_bend = w;
                h->worst_joint = j;
            }
        }
        pv[5 + j] = sa;
        pv[5 + MAXS + j] = aa;
    }
    pv[0] = 1.0f;
    pv[1] = locked ? 1.0f : 0.0f;
    pv[2] = foot.x;
    pv[3] = foot.y;
    pv[4] = foot.z;
    if (h->dump || drawn) {
        cik_vec3 pts[MAXS + 1];
        leg_points(h, 1, c, l, pts);
        if (h->dump) {
            FILE *fp = h->dump;
            fprintf(fp, "%d,%d,%d,%d,%.5f,%d,%d,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f,%.5f", fr, c, l, n,
                    s->weight[f], s->planted[f] > 0.5f, locked, s->body_height[c], s->body_pitch[c], s->body_roll[c],
                    s->anim_foot_x[f], s->anim_foot_y[f], s->anim_foot_z[f], foot.x, foot.y, foot.z);
            for (int j = 0; j < MAXS; ++j) {
                cik_vec3 p = j < n ? pts[j] : vec3(0, 0, 0);
                fprintf(fp, ",%.5f,%.5f,%.5f", p.x, p.y, p.z);
            }
            fprintf(fp, ",%.5f\n", g);
        }
    }
}

/* What the report measures of frame `fr` and the picture's record. */
static void measure(herd_scene *h, int fr)
{
    const cik_herd_streams *s = &h->s;
    const int draw = fr % DRAW_EVERY == 0;
    for (int c = 0; c < h->n; ++c) {
        add(&h->pitch, fabsf(s->body_pitch[c]) * DEG);
        add(&h->roll, fabsf(s->body_roll[c]) * DEG);
        h->height_lo = fminf(h->height_lo, s->body_height[c]);
        h->height_hi = fmaxf(h->height_hi, s->body_height[c]);
        for (int l = 0; l < h->legs; ++l) measure_foot(h, fr, c, l, 0);
    }
    for (int c = 0; c < PANELS && c < h->n; ++c) {
        herd_record *r = draw ? &h->rec[(size_t)(fr / DRAW_EVERY) * PANELS + (size_t)c] : NULL;
        for (int l = 0; l < h->legs; ++l) {
            int planted = s->planted[c * h->legs + l] > 0.5f;
            if (planted && !h->planted[c][l]) h->stances[c][l]++;
            h->planted[c][l] = planted;
            if (!r) continue;
            r->stance[l] = planted ? h->stances[c][l] : 0;
            for (int which = 0; which < 2; ++which) leg_points(h, which, c, l, r->leg[which][l]);
        }
        if (!r) continue;
        for (int which = 0; which < 2; ++which)
            for (int k = 0; k < CIK_HERD_ROOTS; ++k) {
                cik_quat q;
                root_of(s, which, k, c, &r->root[which][k], &q);
            }
    }
}

/* ---------------------------------------------------------------- report */

static void row(const char *what, const char *value, const char *target)
{
    printf("  %-56s %18s  %s\n", what, value, target);
}

/* "p99 / max" of `s` times `scale` with `decimals`, or "-" without samples. */
static void p99_max(char *v, size_t vz, samples *s, float scale, int decimals)
{
    if (!s->n) {
        snprintf(v, vz, "-");
        return;
    }
    float p = scale * pct(s, 0.99f);
    snprintf(v, vz, "%.*f / %.*f", decimals, p, decimals, scale * maxof(s));
}

/* The bend changes whose tag & mask is `want`, into h->scratch. */
static void bend_group(herd_scene *h, unsigned mask, unsigned want)
{
    h->scratch.n = 0;
    for (size_t i = 0; i < h->bend.n; ++i)
        if ((h->bend_tag[i] & mask) == want) h->scratch.v[h->scratch.n++] = h->bend.v[i];
}

static double share(long k, long n) { return n ? 100.0 * (double)k / (double)n : 0.0; }

static void report(herd_scene *h)
{
    const demo_options *o = h->opt;
    static const char *stage_name[HS_COUNT] = {"probe (FK, contacts)", "ground", "place", "solve",
                                               "frame (probe..solve)"};
    const cik_herd_options *ho = &h->ho;
    printf("crowdik %s herd demo: %d %ss (%d legs), %d frames at 60 Hz, backend %s, %s\n", cik_version(), h->n,
           creature_name(h->kind), h->n * h->legs, o->frames,
           cik_backend_name(o->backend == CIK_BACKEND_AUTO ? cik_backend_best() : o->backend),
           o->threads ? "threads as given" : "all threads");
    printf("solve: threshold %.2f mm, at most %d passes; contacts from the %s; ground: %s terrain, %s\n",
           1e3 * ho->foot.solver.threshold, ho->foot.solver.max_iterations,
           o->contacts ? "gait's stance (weights)" : "animation", o->terrain ? "flat" : "procedural",
           o->exact ? "exact (the demo's own contacts)" : "heightfield");
    printf("motion: procedural %s gait, %.3f m/s at size 1, %.2f s cycle\n", creature_name(h->kind), h->gait.speed,
           (double)h->gait.frames * h->gait.dt);
    const size_t nf = (size_t)o->frames;
    double mean = 0.0;
    for (size_t k = 0; k < nf; ++k) mean += h->times[HS_TOTAL][k];
    mean /= (double)nf;
    printf("\ntime per frame (ms)      median      p99\n");
    for (int k = 0; k < HS_COUNT; ++k) {
        qsort(h->times[k], nf, sizeof(float), demo_cmp_float);
        printf("  %-22s %8.3f %8.3f\n", k == HS_GROUND && o->exact ? "ground (exact, demo)" : stage_name[k],
               1e3 * demo_percentile(h->times[k], nf, 0.5f), 1e3 * demo_percentile(h->times[k], nf, 0.99f));
    }
    printf("frame: mean %.3f ms, median %.3f ms, %.0f characters per ms\n", 1e3 * mean,
           1e3 * demo_percentile(h->times[HS_TOTAL], nf, 0.5f), mean > 0 ? (double)h->n / (1e3 * mean) : 0.0);

    char v[96];
    printf("\nmeasures: %zu foot-frames, %ld planted (weight 1)\n", h->below.n, h->planted_frames);
    row("measure", "value", "target");
    snprintf(v, sizeof v, "%.2f %%", share(h->within1, h->planted_frames));
    row("planted: foot within 1 cm of the ground", v, ">= 99 %");
    for (int n = 2; n <= MAXS; ++n)
        if (h->planted_by[n]) {
            char what[80];
            snprintf(what, sizeof what, "  %d-segment legs", n);
            snprintf(v, sizeof v, "%.2f %%", share(h->within1_by[n], h->planted_by[n]));
            row(what, v, "");
        }
    static const char *place_name[TERRAIN_AT_COUNT] = {"  near a step edge", "  on a slope", "  elsewhere"};
    for (int k = 0; k < TERRAIN_AT_COUNT; ++k)
        if (h->planted_place[k]) {
            snprintf(v, sizeof v, "%.2f %% of %ld", share(h->within1_place[k], h->planted_place[k]),
                     h->planted_place[k]);
            row(place_name[k], v, "");
        }
    snprintf(v, sizeof v, "%.2f %%", share(h->within2, h->planted_frames));
    row("planted: foot within 2 mm of the ground", v, "");
    p99_max(v, sizeof v, &h->below, 1e3f, 2);
    row("any foot below the ground, p99 / max mm", v, "<= 5 (p99)");
    p99_max(v, sizeof v, &h->lock_move, 1e3f, 3);
    row("locked foot movement per frame, p99 / max mm", v, "<= 0.5 (p99)");
    snprintf(v, sizeof v, "%ld", h->violations);
    row("limit violations (excess > 1e-3 rad)", v, "0");
    for (int n = 2; n <= MAXS; ++n)
        for (int j = 0; j < MAXS; ++j)
            if (h->violations_by[n][j]) {
                char what[80];
                snprintf(what, sizeof what, "  %d-segment legs, joint %d", n, j);
                snprintf(v, sizeof v, "%ld", h->violations_by[n][j]);
                row(what, v, "");
            }
    bend_group(h, 0, 0);
    p99_max(v, sizeof v, &h->scratch, 1.0f, 2);
    row("bend change beyond the animation's, p99 / max deg", v, "<= 5 (p99)");
    for (int n = 2; n <= MAXS; ++n)
        for (int j = 0; j < MAXS; ++j)
            if (h->hinge_joint[n][j]) {
                char what[80];
                snprintf(what, sizeof what, "  %d-segment legs, joint %d (hinge)", n, j);
                bend_group(h, 0x1f, n * 4 + j);
                p99_max(v, sizeof v, &h->scratch, 1.0f, 2);
                row(what, v, "");
            }
    static const char *state_name[3] = {"  planted (weight 1)", "  easing in or out", "  swing (weight 0)"};
    for (int k = 0; k < 3; ++k) {
        bend_group(h, 0x60, k * 32);
        p99_max(v, sizeof v, &h->scratch, 1.0f, 2);
        row(state_name[k], v, "");
    }
    for (int n = 2; n <= MAXS; ++n)
        if (h->conv_planted[n]) {
            char what[96];
            snprintf(what, sizeof what, "%d-segment legs: planted < 1 mm in <= 3 passes", n);
            snprintf(v, sizeof v, "%.3f %%", share(h->conv_ok[n], h->conv_planted[n]));
            row(what, v, ">= 99.9 %");
            snprintf(what, sizeof what, "  planted: over 3 passes / error >= 1 mm");
            snprintf(v, sizeof v, "%.3f / %.3f %%", share(h->conv_slow[n], h->conv_planted[n]),
                     share(h->conv_far[n], h->conv_planted[n]));
            row(what, v, "");
            snprintf(what, sizeof what, "  mean passes, planted / all");
            snprintf(v, sizeof v, "%.2f / %.2f", h->passes_planted[n] / (double)h->conv_planted[n],
                     h->passes_all[n] / h->count_all[n]);
            row(what, v, "");
        }
    p99_max(v, sizeof v, &h->pitch, 1.0f, 2);
    row("body pitch, p99 / max deg", v, "");
    p99_max(v, sizeof v, &h->roll, 1.0f, 2);
    row("body roll, p99 / max deg", v, "");
    snprintf(v, sizeof v, "%.1f .. %.1f", 1e3f * h->height_lo, 1e3f * h->height_hi);
    row("body height (move from the animation), mm", v, "");
    if (h->worst.depth > 0.0f) {
        const worst_foot *w = &h->worst;
        printf("deepest foot: %.2f mm below at frame %d, character %d, leg %d (%s, %s, weight %.3f) at x %.2f z %.2f "
               "(%s)\n",
               1e3 * w->depth, w->frame, w->character, w->leg, w->planted ? "planted" : "swing",
               w->locked ? "locked" : "not locked", w->weight, w->x, w->z,
               place_name[terrain_place(w->x, w->z)] + 2);
    }
    if (h->worst_bend.depth > 0.0f) {
        const worst_foot *w = &h->worst_bend;
        printf("largest bend change: %.2f deg beyond the animation's at frame %d, character %d, leg %d, joint %d (%s, "
               "%s, weight %.3f) at x %.2f z %.2f (%s)\n",
               w->depth, w->frame, w->character, w->leg, h->worst_joint, w->planted ? "planted" : "swing",
               w->locked ? "locked" : "not locked", w->weight, w->x, w->z, place_name[terrain_place(w->x, w->z)] + 2);
    }
}

/* ---------------------------------------------------------------- picture */

#define POSE_STEP 6 /* every 6th record: one pose per 60 frames (1 s; a herd walks slower than people) */

static const uint32_t leg_colour[MAXL] = {0x2050d0u, 0xd03020u, 0x20a060u, 0xc08000u,
                                          0x8040c0u, 0x00a0b0u, 0x606060u, 0xa06040u};

static int draw_herd(const herd_scene *h, const char *path, char *err, size_t errsz)
{
    const int panels = h->n < PANELS ? h->n : PANELS;
    panel pn[PANELS];
    float height_total = 40.0f;
    /* a small creature drawn larger: its hips about a metre high on the
     * page (the biped picture's scale for a horse, three times it for the
     * hexapod) */
    creature_pose stand;
    creature_stance(h->kind, &h->bodies[0], &stand);
    const float zoom = clampf(1.0f / fmaxf(stand.root_p[CIK_HERD_PELVIS].y, 1e-3f), 1.0f, 3.0f);
    for (int c = 0; c < panels; ++c) {
        pn[c] = panel_start(&h->ch[c]);
        pn[c].px *= zoom;
        pn[c].d_lo /= zoom;
        float hi = -1e9f, ahead = -1e9f;
        for (int k = 0; k < h->draw_frames; ++k) {
            const herd_record *r = &h->rec[(size_t)k * PANELS + (size_t)c];
            for (int which = 0; which < 2; ++which) {
                for (int q = 0; q < CIK_HERD_ROOTS; ++q) {
                    hi = fmaxf(hi, r->root[which][q].y);
                    ahead = fmaxf(ahead, panel_along(&pn[c], r->root[which][q]) + 0.5f);
                }
                for (int l = 0; l < h->legs; ++l)
                    for (int j = 0; j <= h->bodies[c].leg[l].segment_count; ++j)
                        ahead = fmaxf(ahead, panel_along(&pn[c], r->leg[which][l][j]) + 0.5f);
            }
        }
        panel_fit(&pn[c], hi, ahead);
        height_total += panel_height(&pn[c]);
    }
    canvas cv;
    if (canvas_open(&cv, path, 0, height_total, err, errsz)) return -1;
    char line[256];
    snprintf(line, sizeof line,
             "crowdik herd (%s), side view, a pose every %.2f s (grey dashed: animation; solid: solved, a colour "
             "per leg; black: the body; dot: a planted foot)",
             creature_name(h->kind), (double)(DRAW_EVERY * POSE_STEP) * DEMO_DT);
    cv_text(&cv, 10, 22, 16, line);
    float oy = 40.0f;
    for (int c = 0; c < panels; ++c) {
        const panel *p = &pn[c];
        snprintf(line, sizeof line, "%s %d: %s", creature_name(h->kind), c, panel_titles[c]);
        float bottom = panel_ground(&cv, p, oy, line);
        int marked[MAXL] = {0};
        for (int k = 0; k < h->draw_frames; k += POSE_STEP) {
            const herd_record *r = &h->rec[(size_t)k * PANELS + (size_t)c];
            for (int which = 0; which < 2; ++which) {
                /* the body: the first leg's hip, the pelvis, the chest, the
                 * last leg's hip (a hexapod's legs all hang from the pelvis:
                 * its body is the line from its front to its hind hips) */
                float xy[2 * (MAXS + 2)];
                const cik_vec3 body[4] = {r->leg[which][0][0], r->root[which][CIK_HERD_PELVIS],
                                          r->root[which][CIK_HERD_CHEST], r->leg[which][h->legs - 1][0]};
                for (int q = 0; q < 4; ++q) {
                    xy[2 * q] = screen_x(p, body[q]);
                    xy[2 * q + 1] = screen_y(p, oy, body[q]);
                }
                cv_polyline(&cv, xy, 4, which ? 0x000000u : 0xa0a0a0u, which ? 2.5f : 1.0f, !which);
                /* the far legs (odd: right) first */
                for (int pass = 1; pass >= 0; --pass)
                    for (int l = 0; l < h->legs; ++l) {
                        if (l % 2 != pass) continue;
                        const cik_herd_leg *leg = &h->bodies[c].leg[l];
                        cik_vec3 root = r->root[which][leg->root];
                        xy[0] = screen_x(p, root);
                        xy[1] = screen_y(p, oy, root);
                        for (int j = 0; j <= leg->segment_count; ++j) {
                            xy[2 * j + 2] = screen_x(p, r->leg[which][l][j]);
                            xy[2 * j + 3] = screen_y(p, oy, r->leg[which][l][j]);
                        }
                        int pts = leg->segment_count + 2;
                        if (which)
                            cv_polyline(&cv, xy, pts, leg_colour[l], 1.8f, 0);
                        else
                            cv_polyline(&cv, xy, pts, 0xa0a0a0u, 1.0f, 1);
                        if (which && r->stance[l] && r->stance[l] != marked[l]) {
                            marked[l] = r->stance[l];
                            cv_disc(&cv, xy[2 * pts - 2], xy[2 * pts - 1], 3.0f, leg_colour[l]);
                        }
                    }
            }
        }
        oy = bottom + 10.0f;
    }
    return canvas_close(&cv, path, err, errsz);
}

/* ---------------------------------------------------------------- run */

static int herd_run(herd_scene *h, char *err, size_t errsz)
{
    const demo_options *o = h->opt;
    if (o->dump_path) {
        if (!(h->dump = fopen(o->dump_path, "w"))) {
            snprintf(err, errsz, "cannot write %s: %s", o->dump_path, strerror(errno));
            return -1;
        }
        herd_dump_header(h->dump);
    }
    int tty = !o->quiet && isatty(2) && (double)o->frames * h->n > 2e5;
    for (int fr = 0; fr < o->frames; ++fr) {
        double t[5];
        animate(h, fr);
        cik_status cs = run_stages(h, t);
        if (cs != CIK_OK) {
            snprintf(err, errsz, "frame %d failed: %s", fr, cik_status_string(cs));
            return -1;
        }
        for (int k = 0; k < 4; ++k) h->times[HS_PROBE + k][fr] = (float)(t[k + 1] - t[k]);
        h->times[HS_TOTAL][fr] = (float)(t[4] - t[0]);
        measure(h, fr);
        if (tty && (fr % 10 == 0 || fr == o->frames - 1)) {
            fprintf(stderr, "\rframe %d/%d", fr + 1, o->frames);
            fflush(stderr);
        }
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    if (h->dump) {
        int bad = ferror(h->dump);
        bad |= fclose(h->dump) != 0;
        h->dump = NULL;
        if (bad) {
            snprintf(err, errsz, "cannot write %s: %s", o->dump_path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

int herd_main(const demo_options *o)
{
    herd_scene h;
    char err[1024];
    int rc = herd_create(o, &h, err, sizeof err);
    if (rc == 0 && herd_run(&h, err, sizeof err)) rc = EXIT_CANNOT_RUN;
    if (rc == 0) {
        report(&h);
        if (o->out_path && draw_herd(&h, o->out_path, err, sizeof err))
            rc = EXIT_CANNOT_RUN;
        else if (o->out_path)
            printf("\npicture: %s\n", o->out_path);
    }
    if (rc)
        fprintf(stderr, "crowdik_demo: %s\n", err);
    else
        rc = h.violations == 0 ? 0 : EXIT_CHECK_FAILED;
    herd_free(&h);
    return rc;
}
