/*
 * crowdik_demo's crowd: characters placed at random (the pictured ones
 * where the picture wants them), a heightfield over their whole walk, and
 * the frame loop: the animation a game would hand over, the pipeline's
 * stages timed one by one, then what the report measures and what the
 * picture draws (neither timed).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "demo.h"
#include "scalar_math.h"

double demo_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* xorshift64*: the crowd's placement, the same for a seed everywhere */
static float urand(uint64_t *state, float lo, float hi)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    uint32_t r = (uint32_t)((*state * 0x2545F4914F6CDD1Dull) >> 40);
    return lo + (hi - lo) * (float)r * (1.0f / 16777216.0f);
}

/* The biped crowd's pictured characters: a step up, up the ridge, over the
 * ridge top, a step down (x, z, heading). */
static const float biped_panels[PANELS][3] = {
    {-6.0f, 5.0f, 0.0f}, {-2.0f, 3.0f, 0.5f * SM_PI_F}, {6.5f, 3.0f, 0.5f * SM_PI_F}, {-26.0f, 13.0f, 0.0f}};

float place_crowd(const demo_options *opt, character *ch, int n, const float panel_place[PANELS][3])
{
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(opt->seed + 1) + 1;
    float half = 0.5f * sqrtf((float)n) * 2.5f + 2.0f;
    for (int c = 0; c < n; ++c) {
        character *k = &ch[c];
        k->x0 = urand(&rng, -half, half);
        k->z0 = urand(&rng, -half, half);
        k->heading = urand(&rng, -SM_PI_F, SM_PI_F);
        k->size = urand(&rng, 0.9f, 1.1f);
        k->phase = urand(&rng, 0.0f, 10.0f);
        if (c < PANELS) {
            k->x0 = panel_place[c][0];
            k->z0 = panel_place[c][1];
            k->heading = panel_place[c][2];
            k->size = 1.0f;
            k->phase = 0.3f * (float)c;
        }
    }
    return half;
}

/* The crowd's places and rigs; returns the half side of its square. */
static float place_characters(demo_scene *sc)
{
    float half = place_crowd(sc->opt, sc->ch, sc->characters, biped_panels);
    for (int c = 0; c < sc->characters; ++c) {
        if (sc->opt->bvh_path) {
            sc->rigs[c] = sc->clip.rig;
            sc->ch[c].size = 1.0f;
        } else {
            procedural_rig(sc->ch[c].size, &sc->rigs[c]);
        }
    }
    return half;
}

int build_ground(const demo_options *o, float speed, float half, cik_heightfield *hf, float **heights)
{
    float reach_out = fmaxf(half, 26.0f) + 2.0f + speed * (float)o->frames * DEMO_DT + 2.0f;
    hf->spacing_x = hf->spacing_z = 0.1f;
    hf->origin_x = hf->origin_z = -reach_out;
    hf->count_x = hf->count_z = (int)(2.0f * reach_out / 0.1f) + 2;
    float *h = malloc(sizeof(float) * (size_t)hf->count_x * (size_t)hf->count_z);
    *heights = h;
    if (!h) return -1;
    for (int iz = 0; iz < hf->count_z; ++iz)
        for (int ix = 0; ix < hf->count_x; ++ix)
            h[(size_t)iz * (size_t)hf->count_x + (size_t)ix] =
                terrain(hf->origin_x + (float)ix * hf->spacing_x, hf->origin_z + (float)iz * hf->spacing_z);
    hf->heights = h;
    return 0;
}

int scene_create(const demo_options *opt, demo_scene *sc, char *err, size_t errsz)
{
    memset(sc, 0, sizeof *sc);
    sc->opt = opt;
    sc->characters = opt->characters;
    if (opt->bvh_path && clip_load(opt->bvh_path, opt->legs_spec, opt->bvh_scale, opt->loop, &sc->clip, err, errsz))
        return EXIT_USAGE;
    sc->ch = calloc((size_t)sc->characters, sizeof *sc->ch);
    sc->rigs = calloc((size_t)sc->characters, sizeof *sc->rigs);
    sc->draw_frames = (opt->frames + DRAW_EVERY - 1) / DRAW_EVERY;
    sc->rec = calloc((size_t)PANELS * (size_t)sc->draw_frames, sizeof(record));
    if (!sc->ch || !sc->rigs || !sc->rec) {
        snprintf(err, errsz, "out of memory");
        return EXIT_CANNOT_RUN;
    }
    sc->run = opt->bvh_path && sc->clip.speed > RUN_SPEED;
    terrain_select(opt->terrain);
    float half = place_characters(sc);
    if (build_ground(opt, opt->bvh_path ? sc->clip.speed : WALK_SPEED, half, &sc->hf, &sc->heights)) {
        snprintf(err, errsz, "out of memory for the terrain");
        return EXIT_CANNOT_RUN;
    }
    cik_status st = cik_foot_crowd_create(sc->characters, sc->rigs[0].leg, &sc->crowd);
    for (int c = 1; st == CIK_OK && c < sc->characters; ++c) st = cik_foot_crowd_set_legs(sc->crowd, c, sc->rigs[c].leg);
    if (st != CIK_OK) {
        snprintf(err, errsz, "cannot build the crowd: %s", cik_status_string(st));
        return EXIT_CANNOT_RUN;
    }
    return 0;
}

void scene_free(demo_scene *sc)
{
    if (sc->crowd) cik_foot_crowd_destroy(sc->crowd);
    free(sc->heights);
    free(sc->ch);
    free(sc->rigs);
    free(sc->rec);
    if (sc->dump) fclose(sc->dump);
    clip_free(&sc->clip);
    memset(sc, 0, sizeof *sc);
}

void stats_free(demo_stats *st)
{
    for (int k = 0; k < ST_COUNT; ++k) free(st->times[k]);
    measures_free(st->m);
    memset(st, 0, sizeof *st);
}

static int stats_alloc(demo_stats *st, int frames, int characters, int run)
{
    memset(st, 0, sizeof *st);
    int ok = 1;
    for (int k = 0; k < ST_COUNT; ++k) ok &= (st->times[k] = malloc(sizeof(float) * (size_t)frames)) != NULL;
    st->m = measures_create(frames, characters, run);
    return ok && st->m ? 0 : -1;
}

void character_follow_ground(character *k, int fr, float x, float z)
{
    float g = terrain(x, z);
    k->floor = fr == 0 ? g : k->floor + (g - k->floor) * (1.0f - expf(-DEMO_DT / 0.1f));
}

/* What a game's animation system hands over for frame `fr`: every
 * character's pelvis (world), the character controller's ground under it
 * (floor_y) and the animated leg pose; with --contacts weights also the IK
 * weights (by default the pipeline finds the contacts from the motion). */
static void animate(demo_scene *sc, int fr, const cik_foot_streams *s)
{
    const float t = (float)fr * DEMO_DT;
    const int bvh = sc->opt->bvh_path != NULL;
    for (int c = 0; c < sc->characters; ++c) {
        character *k = &sc->ch[c];
        pose p;
        cik_vec3 travel;
        if (bvh) {
            travel = vec3_sub(clip_sample(&sc->clip, t + k->phase, &p), clip_sample(&sc->clip, k->phase, NULL));
            p.pelvis.x = p.pelvis.z = 0;
        } else {
            walk_pose(&sc->rigs[c], k->size, t + k->phase, &p);
            travel = vec3(0, 0, WALK_SPEED * k->size * t);
        }
        cik_quat hq = quat_axis_angle(k->heading, 0, 1, 0);
        cik_vec3 cp = vec3_add(vec3(k->x0, 0, k->z0), quat_rotate(hq, vec3_add(travel, vec3(p.pelvis.x, 0, p.pelvis.z))));
        character_follow_ground(k, fr, cp.x, cp.z);
        cik_quat pq = quat_normalize(quat_mul(hq, p.pelvis_q));
        s->pelvis_x[c] = cp.x;
        s->pelvis_y[c] = k->floor + p.pelvis.y;
        s->pelvis_z[c] = cp.z;
        s->pelvis_qx[c] = pq.x;
        s->pelvis_qy[c] = pq.y;
        s->pelvis_qz[c] = pq.z;
        s->pelvis_qw[c] = pq.w;
        s->floor_y[c] = k->floor;
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            for (int j = 0; j < 3; ++j) {
                s->pose_x[j][f] = p.q[side][j].x;
                s->pose_y[j][f] = p.q[side][j].y;
                s->pose_z[j][f] = p.q[side][j].z;
                s->pose_w[j][f] = p.q[side][j].w;
            }
            if (sc->opt->contacts == CIK_FOOT_CONTACTS_WEIGHTS) s->weight[f] = p.weight[side];
        }
    }
}

static cik_quat solved_q(const cik_foot_streams *s, int j, int f)
{
    return quat(s->solved_x[j][f], s->solved_y[j][f], s->solved_z[j][f], s->solved_w[j][f]);
}

/* What the report measures of frame `fr` (not timed). */
static void measure(demo_scene *sc, const cik_foot_streams *s, int fr, demo_stats *st)
{
    const cik_batch *batch = cik_foot_crowd_batch(sc->crowd);
    /* the pipeline keeps animated rotations that are off a limit by less
     * than limit_tolerance: a violation is a rotation beyond that */
    const float allowed = cik_foot_default_options().limit_tolerance + 1e-3f;
    for (int c = 0; c < sc->characters; ++c) {
        float drop = s->pelvis_drop[c];
        st->drop_sum += drop;
        if (drop > st->drop_max) st->drop_max = drop;
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            const cik_foot_leg *leg = &sc->rigs[c].leg[side];
            cik_result res;
            cik_batch_result(batch, f, &res);
            st->passes += res.iterations;
            st->converged += (res.flags & CIK_RESULT_CONVERGED) ? 1 : 0;
            st->solved_chains += 1;
            for (int j = 0; j < 3; ++j) {
                cik_quat q = solved_q(s, j, f);
                if (cik_limit_excess(&leg->limit[j], q) > allowed) st->violations++;
                if (j == 1) {
                    float ang = 2.0f * atan2f(q.x, q.w < 0 ? -q.w : q.w) * (q.w < 0 ? -1.0f : 1.0f);
                    if (ang < -1e-3f) st->hinge_back++;
                }
            }
            foot_row row;
            measure_row(sc, s, fr, c, side, &row);
            measures_add(st->m, &row);
            if (sc->dump) dump_row(sc->dump, &row);
        }
    }
}

/* Counts the pictured feet's stances every frame (a stance: planted), so
 * that two records of one stance are known to be one footprint. */
static void track_stances(demo_scene *sc, const cik_foot_streams *s)
{
    for (int c = 0; c < PANELS && c < sc->characters; ++c)
        for (int side = 0; side < 2; ++side) {
            int planted = s->planted[2 * c + side] > 0.5f;
            if (planted && !sc->planted[c][side]) sc->stances[c][side]++;
            sc->planted[c][side] = planted;
        }
}

/* The picture's record of frame `fr`: the pictured characters' legs, as
 * animated and as solved, by forward kinematics from the streams. */
static void record_frame(demo_scene *sc, const cik_foot_streams *s, int fr)
{
    for (int c = 0; c < PANELS && c < sc->characters; ++c) {
        record *r = &sc->rec[(size_t)(fr / DRAW_EVERY) * PANELS + (size_t)c];
        cik_quat pq = quat(s->pelvis_qx[c], s->pelvis_qy[c], s->pelvis_qz[c], s->pelvis_qw[c]);
        cik_vec3 pp = vec3(s->pelvis_x[c], s->pelvis_y[c], s->pelvis_z[c]);
        r->pelvis = pp;
        r->pelvis_solved = vec3_sub(pp, vec3(0, s->pelvis_drop[c], 0));
        const rig *rg = &sc->rigs[c];
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            const cik_foot_leg *leg = &rg->leg[side];
            r->stance[side] = sc->planted[c][side] ? sc->stances[c][side] : 0;
            for (int which = 0; which < 2; ++which) {
                cik_vec3 base = which ? r->pelvis_solved : pp;
                cik_quat q[3];
                for (int j = 0; j < 3; ++j)
                    q[j] = which ? solved_q(s, j, f) : quat(s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f]);
                cik_vec3 *o = which ? r->solved[side] : r->anim[side];
                cik_quat w0 = quat_mul(pq, q[0]), w1 = quat_mul(w0, q[1]), w2 = quat_mul(w1, q[2]);
                o[0] = vec3_add(base, quat_rotate(pq, leg->hip));
                o[1] = vec3_add(o[0], quat_rotate(w0, leg->thigh));
                o[2] = vec3_add(o[1], quat_rotate(w1, leg->shin));
                o[3] = vec3_add(o[2], quat_rotate(w2, leg->point[CIK_FOOT_HEEL]));
                o[4] = vec3_add(o[2], quat_rotate(w2, leg->point[CIK_FOOT_TOE]));
            }
        }
    }
}

/* --ground exact: the ground under every probe from the terrain's exact
 * shape, as an engine's raycasts would give it (the look-ahead point's
 * where the options use it). */
static void ground_exact(const cik_foot_streams *s, const cik_foot_options *fo)
{
    if (fo->swing_lookahead > 0.0f && fo->swing_lift > 0.0f)
        for (int f = 0; f < s->foot_count; ++f) s->contact_ahead_y[f] = terrain(s->probe_ahead_x[f], s->probe_ahead_z[f]);
    for (int f = 0; f < s->foot_count; ++f)
        for (int k = 0; k < CIK_FOOT_POINTS; ++k) {
            float x = s->probe_x[k][f], z = s->probe_z[k][f];
            cik_vec3 n = terrain_normal(x, z);
            s->contact_y[k][f] = terrain(x, z);
            s->contact_nx[k][f] = n.x;
            s->contact_ny[k][f] = n.y;
            s->contact_nz[k][f] = n.z;
        }
}

/* The pipeline's stages one by one, each timed. */
static cik_status run_stages(demo_scene *sc, const cik_foot_options *fo, const cik_foot_streams *s, double t[6])
{
    t[0] = demo_now();
    cik_status st = cik_foot_crowd_probe_dt(sc->crowd, fo, DEMO_DT);
    t[1] = demo_now();
    if (st == CIK_OK && sc->opt->exact)
        ground_exact(s, fo);
    else if (st == CIK_OK)
        st = cik_foot_crowd_ground_heightfield(sc->crowd, &sc->hf, fo);
    t[2] = demo_now();
    if (st == CIK_OK) st = cik_foot_crowd_place_dt(sc->crowd, fo, DEMO_DT);
    t[3] = demo_now();
    if (st == CIK_OK) st = cik_foot_crowd_solve(sc->crowd, fo);
    t[4] = demo_now();
    if (st == CIK_OK) st = cik_foot_crowd_align(sc->crowd, fo);
    t[5] = demo_now();
    return st;
}

/* The pipeline's options for the demo's motion and command line. */
static cik_foot_options foot_options(const demo_scene *sc)
{
    const demo_options *o = sc->opt;
    cik_foot_options fo = cik_foot_default_options();
    fo.dt = DEMO_DT;
    fo.solver.backend = o->backend;
    fo.solver.threads = o->threads;
    fo.start = o->start;
    fo.contacts = o->contacts;
    if (sc->run) {
        fo.plant_speed = RUN_PLANT_SPEED;
        fo.release_speed = RUN_RELEASE_SPEED;
    }
    if (o->lift_speed >= 0) fo.lift_speed = o->lift_speed;
    if (o->knee_speed >= 0) fo.knee_speed = o->knee_speed;
    if (o->held_knee_speed >= 0) fo.held_knee_speed = o->held_knee_speed;
    if (o->swing_lift >= 0) fo.swing_lift = o->swing_lift;
    if (o->swing_lookahead >= 0) fo.swing_lookahead = o->swing_lookahead;
    if (o->skate_height >= 0) fo.skate_height = o->skate_height;
    if (o->plant_speed > 0) {
        /* released at 1.5 times the plant speed, the defaults' ratio */
        fo.plant_speed = o->plant_speed;
        fo.release_speed = 1.5f * o->plant_speed;
    }
    return fo;
}

/* --dump: the file and its header row. */
static int open_dump(demo_scene *sc, char *err, size_t errsz)
{
    if (!sc->opt->dump_path) return 0;
    if (!(sc->dump = fopen(sc->opt->dump_path, "w"))) {
        snprintf(err, errsz, "cannot write %s: %s", sc->opt->dump_path, strerror(errno));
        return -1;
    }
    dump_header(sc->dump);
    return 0;
}

static int close_dump(demo_scene *sc, char *err, size_t errsz)
{
    if (!sc->dump) return 0;
    int bad = ferror(sc->dump);
    bad |= fclose(sc->dump) != 0;
    sc->dump = NULL;
    if (bad) snprintf(err, errsz, "cannot write %s: %s", sc->opt->dump_path, strerror(errno));
    return bad ? -1 : 0;
}

int scene_run(demo_scene *sc, demo_stats *st, char *err, size_t errsz)
{
    const demo_options *o = sc->opt;
    if (stats_alloc(st, o->frames, sc->characters, sc->run)) {
        snprintf(err, errsz, "out of memory for statistics");
        return -1;
    }
    cik_foot_streams s;
    cik_foot_crowd_streams(sc->crowd, &s);
    cik_foot_options fo = foot_options(sc);
    if (open_dump(sc, err, errsz)) return -1;
    int tty = !o->quiet && isatty(2) && (double)o->frames * sc->characters > 2e5;
    for (int fr = 0; fr < o->frames; ++fr) {
        double t0 = demo_now(), t[6];
        animate(sc, fr, &s);
        cik_status cs = run_stages(sc, &fo, &s, t);
        if (cs != CIK_OK) {
            snprintf(err, errsz, "frame %d failed: %s", fr, cik_status_string(cs));
            return -1;
        }
        st->times[ST_ANIM][fr] = (float)(t[0] - t0);
        for (int k = 0; k < 5; ++k) st->times[ST_PROBE + k][fr] = (float)(t[k + 1] - t[k]);
        st->times[ST_TOTAL][fr] = (float)(t[5] - t[0]);
        measure(sc, &s, fr, st);
        track_stances(sc, &s);
        if (fr % DRAW_EVERY == 0) record_frame(sc, &s, fr);
        if (sc->hook && sc->hook(sc->hook_user, sc, fr, &s)) {
            snprintf(err, errsz, "frame %d: the frame hook failed", fr);
            return -1;
        }
        if (tty && (fr % 10 == 0 || fr == o->frames - 1)) {
            fprintf(stderr, "\rframe %d/%d", fr + 1, o->frames);
            fflush(stderr);
        }
    }
    if (tty) fprintf(stderr, "\r%40s\r", "");
    return close_dump(sc, err, errsz);
}
