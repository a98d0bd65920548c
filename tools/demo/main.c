/*
 * crowdik_demo: a crowd walking over uneven ground, its feet placed every
 * frame by the batched foot-placement pipeline (include/crowdik/foot.h).
 *
 * With no arguments: 1000 characters, a procedural walk cycle, procedural
 * terrain (hills, a 15-degree ridge, 10 cm steps), 300 frames at 60 Hz. It
 * prints the time per frame and per stage, the measures of the feet
 * (measure.c: contacts, feet on the ground, locks, knees, pelvis, swing
 * legs), limit violations and convergence, and writes an SVG of a few
 * characters side-on. --bvh FILE drives the crowd with a motion-capture clip;
 * --view FILE.html also writes the whole run as a 3D page (view.h); --dump
 * FILE.csv the rows the measures come from.
 *
 * This file: the command line and the report. motion.c: terrain, rigs, the
 * walk and the clip; scene.c: the crowd and its frames; measure.c: the rows
 * and the measures; draw.c: the picture; view.c: the 3D page; herd.c: a
 * herd of quadrupeds or hexapods instead (--creature).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "creatures.h"
#include "demo.h"
#include "view.h"

static const char *usage =
    "usage: crowdik_demo [options]\n"
    "\n"
    "Runs a crowd walking over uneven ground and places every foot every frame\n"
    "with crowdik's batched foot-placement pipeline. Prints the time per frame\n"
    "and per stage, the measures of the feet (contacts, feet on the ground,\n"
    "locks, knees, pelvis, swing legs; docs/foot.md), joint-limit violations\n"
    "and solver convergence, and writes an SVG of a few characters side-on\n"
    "(animated legs faint, solved legs solid).\n"
    "\n"
    "  --creature KIND  biped (default: the crowd of people, heel, ball and toe),\n"
    "                   quadruped (hind legs of 4 segments, front legs of 3, a walk)\n"
    "                   or hexapod (6 legs of 3 segments, a tripod gait): a herd\n"
    "                   (crowdik/herd.h); --bvh, --legs, --view and --png are for\n"
    "                   the biped only\n"
    "  --characters N   crowd size (default 1000)\n"
    "  --frames N       frames to run at 60 Hz (default 300 = 5 s)\n"
    "  --threads N      solver threads (default 0 = all)\n"
    "  --backend NAME   auto, reference, scalar, sse4.1, avx2, avx512, neon (default\n"
    "                   auto: the best this CPU runs)\n"
    "  --seed N         crowd placement seed (default 1)\n"
    "  --out PATH       SVG output (default crowdik_demo.svg)\n"
    "  --png PATH       also the picture as a PNG (no text)\n"
    "  --view PATH      also an HTML page that plays the run in 3D in a browser\n"
    "                   (needs three.js: npm ci --prefix viewer; docs/viewer.md)\n"
    "  --bvh FILE       drive the crowd with a BVH clip instead of the built-in walk\n"
    "                   (legs found by name, scale detected from the leg length)\n"
    "  --bvh-scale F    file units to metres (default: detected)\n"
    "  --loop MODE      how --bvh loops: blend (default: from a start in the clip's\n"
    "                   first 0.25 s to the end in its second half that matches it\n"
    "                   best in pose and velocity, cross-faded over up to 0.25 s)\n"
    "                   or raw (last frame straight back to the first: the pose\n"
    "                   jumps)\n"
    "  --legs L:R       leg joints for --bvh, e.g.\n"
    "                   LeftUpLeg,LeftLeg,LeftFoot,LeftToeBase:RightUpLeg,RightLeg,RightFoot,RightToeBase\n"
    "  --start MODE     deprecated, no effect: the legs start from the animation\n"
    "                   and the solver's limb mode seeds them (animation, knee,\n"
    "                   two-bone accepted)\n"
    "  --terrain KIND   procedural (default: hills, a 15-degree ridge, 10 cm steps)\n"
    "                   or flat (height 0 everywhere)\n"
    "  --ground KIND    heightfield (default: the pipeline samples a 10 cm grid of\n"
    "                   the terrain) or exact (the demo gives the ground under heel,\n"
    "                   ball and toe from the terrain's exact shape, as raycasts do)\n"
    "  --contacts FROM  animation (default: the pipeline finds the planted feet in\n"
    "                   the motion) or weights (the demo's own weights, to compare)\n"
    "  --plant-speed V  plant below V m/s, release above 1.5 V (default 0.6 and 0.9;\n"
    "                   1.1 and 1.6 for a clip faster than 1.8 m/s on average)\n"
    "  --lift-speed V   a planted foot whose heel, ball and toe all rise faster\n"
    "                   than V m/s lifts off (default 0.5; 0 off)\n"
    "  --knee-speed V   a foot not planted in full bends its knee at most V rad/s\n"
    "                   beyond the animation's own change (default 5; 0 off)\n"
    "  --held-knee-speed V  a locked foot's knee straightens at most V rad/s\n"
    "                   beyond the animation's: the pelvis comes down to hold it;\n"
    "                   a locked or planted one's bends no faster: the pelvis\n"
    "                   comes down no faster for the other foot (default 4; 0 off)\n"
    "  --swing-lift V   how much of the ground's rise above the animation's floor\n"
    "                   lifts a swing foot, 0 to 1 (default 1: the animation's\n"
    "                   clearance over higher ground; 0: only where the ground\n"
    "                   would be above the foot)\n"
    "  --swing-lookahead T  how far ahead (seconds of the toe's motion) a swing\n"
    "                   foot looks for the ground it comes over (default 0.1;\n"
    "                   0 off)\n"
    "  --skate-height H a planted foot whose heel and toe stay within H m of the\n"
    "                   animation's floor is not released by its speed (default\n"
    "                   0.02; 0 off: a skating foot lets go)\n"
    "  --dump PATH      also a CSV, one row per frame and foot: contacts, pelvis\n"
    "                   drop, animated and solved hip, knee, ankle, heel, ball, toe,\n"
    "                   the ground under the solved heel, ball, toe (docs/foot.md)\n"
    "  --quiet          print the report only (no progress line)\n"
    "  --help           this text\n"
    "\n"
    "Exit status: 0 done, 1 a solved joint broke its limit, 2 a bad option or a\n"
    "clip that cannot be read or used, 3 cannot run (out of memory, a solver\n"
    "refusal, an output that cannot be written). The same codes in every\n"
    "crowdik tool.\n"
    "\n"
    "Mocap data from mocap.cs.cmu.edu: the database was created with funding from\n"
    "NSF EIA-0196217.\n";

static const char *start_names[3] = {"animation", "knee", "two-bone"};

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (!*s || *e || errno || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* `v` among `names` (count of them) into *out: 0, or -1. */
static int parse_name(const char *v, const char *const *names, int count, int *out)
{
    for (int k = 0; k < count; ++k)
        if (!strcmp(v, names[k])) {
            *out = k;
            return 0;
        }
    return -1;
}

static const char *const terrain_names[2] = {"procedural", "flat"};
static const char *const ground_names[2] = {"heightfield", "exact"};
/* in the order of CIK_FOOT_CONTACTS_ANIMATION, _WEIGHTS */
static const char *const contacts_names[2] = {"animation", "weights"};
/* in the order of LOOP_BLEND, LOOP_RAW */
static const char *const loop_names[2] = {"blend", "raw"};

static int parse_backend(const char *v, cik_backend *out)
{
    for (int b = 0; b < CIK_BACKEND_COUNT; ++b)
        if (!strcmp(v, b == 0 ? "auto" : cik_backend_name((cik_backend)b))) {
            *out = (cik_backend)b;
            return 0;
        }
    return -1;
}

/* A value >= 0 (finite) into *x: 0, else 1. */
static int nonneg_value(const char *v, float *x)
{
    char *e;
    *x = strtof(v, &e);
    return *e || !(*x >= 0) || !isfinite(*x) ? 1 : 0;
}

/* One option and its value: 0, 1 for a bad value, -1 for an unknown
 * option. */
static int parse_option(const char *a, const char *v, demo_options *o)
{
    if (!strcmp(a, "--characters")) return parse_int(v, 1, 10000000, &o->characters) ? 1 : 0;
    if (!strcmp(a, "--frames")) return parse_int(v, 1, 1000000, &o->frames) ? 1 : 0;
    if (!strcmp(a, "--threads")) return parse_int(v, 0, 4096, &o->threads) ? 1 : 0;
    if (!strcmp(a, "--seed")) return parse_int(v, 0, 2147483647, &o->seed) ? 1 : 0;
    if (!strcmp(a, "--backend")) return parse_backend(v, &o->backend) ? 1 : 0;
    if (!strcmp(a, "--creature")) return (o->creature = creature_parse(v)) < 0 ? 1 : 0;
    if (!strcmp(a, "--out")) o->out_path = v;
    else if (!strcmp(a, "--png")) o->png_path = v;
    else if (!strcmp(a, "--view")) o->view_path = v;
    else if (!strcmp(a, "--bvh")) o->bvh_path = v;
    else if (!strcmp(a, "--dump")) o->dump_path = v;
    else if (!strcmp(a, "--terrain")) return parse_name(v, terrain_names, 2, &o->terrain) ? 1 : 0;
    else if (!strcmp(a, "--ground")) return parse_name(v, ground_names, 2, &o->exact) ? 1 : 0;
    else if (!strcmp(a, "--contacts")) return parse_name(v, contacts_names, 2, &o->contacts) ? 1 : 0;
    else if (!strcmp(a, "--loop")) return parse_name(v, loop_names, 2, &o->loop) ? 1 : 0;
    else if (!strcmp(a, "--plant-speed")) {
        char *e;
        o->plant_speed = strtof(v, &e);
        return *e || !(o->plant_speed > 0) || !isfinite(o->plant_speed) ? 1 : 0;
    }
    else if (!strcmp(a, "--lift-speed")) return nonneg_value(v, &o->lift_speed);
    else if (!strcmp(a, "--knee-speed")) return nonneg_value(v, &o->knee_speed);
    else if (!strcmp(a, "--held-knee-speed")) return nonneg_value(v, &o->held_knee_speed);
    else if (!strcmp(a, "--swing-lift")) return nonneg_value(v, &o->swing_lift) || o->swing_lift > 1.0f;
    else if (!strcmp(a, "--swing-lookahead")) return nonneg_value(v, &o->swing_lookahead);
    else if (!strcmp(a, "--skate-height")) return nonneg_value(v, &o->skate_height);
    else if (!strcmp(a, "--legs")) o->legs_spec = v;
    else if (!strcmp(a, "--bvh-scale")) {
        char *e;
        o->bvh_scale = strtof(v, &e);
        return *e || !(o->bvh_scale > 0) || !isfinite(o->bvh_scale) ? 1 : 0;
    } else if (!strcmp(a, "--start")) {
        o->start = -1;
        for (int k = 0; k < 3; ++k)
            if (!strcmp(v, start_names[k])) o->start = k;
        return o->start < 0 ? 1 : 0;
    } else
        return -1;
    return 0;
}

/* The command line into `o`: 0 to run, 1 when --help was printed, 2 on a
 * usage error (message printed). */
static int parse_args(int argc, char **argv, demo_options *o)
{
    static const char *with_value[] = {"--characters", "--frames", "--threads", "--backend", "--seed", "--out",
                                       "--png", "--view", "--bvh", "--bvh-scale", "--legs", "--start",
                                       "--dump", "--terrain", "--ground", "--contacts", "--plant-speed",
                                       "--lift-speed", "--knee-speed", "--held-knee-speed", "--swing-lift", "--swing-lookahead", "--skate-height", "--creature",
                                       "--loop"};
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 1;
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        int needs = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; ++k) needs |= !strcmp(a, with_value[k]);
        if (!needs) {
            fprintf(stderr, "crowdik_demo: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        const char *v = i + 1 < argc ? argv[++i] : NULL;
        if (!v) {
            fprintf(stderr, "crowdik_demo: %s needs a value (see --help)\n", a);
            return 2;
        }
        if (parse_option(a, v, o)) {
            fprintf(stderr, "crowdik_demo: bad value '%s' for %s (see --help)\n", v, a);
            return 2;
        }
        if (!strcmp(a, "--backend") && !cik_backend_available(o->backend)) {
            fprintf(stderr, "crowdik_demo: backend '%s' is not available on this build or CPU\n", v);
            return 2;
        }
    }
    if (o->legs_spec && !o->bvh_path) {
        fprintf(stderr, "crowdik_demo: --legs needs --bvh\n");
        return 2;
    }
    if (o->creature != CREATURE_BIPED) {
        /* a herd has its own gaits and draws its own picture */
        const char *biped_only[4] = {o->bvh_path ? "--bvh" : NULL, o->legs_spec ? "--legs" : NULL,
                                     o->view_path ? "--view" : NULL, o->png_path ? "--png" : NULL};
        for (int k = 0; k < 4; ++k)
            if (biped_only[k]) {
                fprintf(stderr, "crowdik_demo: %s is for --creature biped only, not %s\n", biped_only[k],
                        creature_name((creature_kind)o->creature));
                return 2;
            }
    }
    return 0;
}

/* --view: the report goes to stdout and, when a page is written, into the
 * page too (report_copy is the view's stream). */
static FILE *report_copy;
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (report_copy) {
        va_start(ap, fmt);
        vfprintf(report_copy, fmt, ap);
        va_end(ap);
    }
}

static void print_report(const demo_scene *sc, demo_stats *st)
{
    static const char *stage_name[ST_COUNT] = {"animation (input)", "probe (FK, contacts)", "ground", "place",
                                               "solve", "align", "frame (probe..align)"};
    const demo_options *o = sc->opt;
    cik_foot_options fo = cik_foot_default_options();
    report("crowdik %s foot placement demo: %d characters (%d legs), %d frames at 60 Hz, backend %s, %s\n",
           cik_version(), o->characters, 2 * o->characters, o->frames,
           cik_backend_name(o->backend == CIK_BACKEND_AUTO ? cik_backend_best() : o->backend),
           o->threads ? "threads as given" : "all threads");
    report("solve: threshold %.2f mm, at most %d passes; contacts from the %s%s; ground: %s terrain, %s\n",
           1e3 * fo.solver.threshold, fo.solver.max_iterations, o->contacts ? "demo's weights" : "animation",
           sc->run ? " (a run: plant 1.1, release 1.6 m/s)" : "", terrain_names[o->terrain],
           o->exact ? "exact (the demo's own contacts)" : "heightfield");
    if (o->bvh_path) {
        /* the loop in the file's frame numbers (frame 0 the reference pose) */
        const clip_anim *ca = &sc->clip;
        char loop[96];
        if (ca->fade > 0)
            snprintf(loop, sizeof loop, "looped frames %d..%d, %.2f s cross-fade", ca->loop_start + 1,
                     ca->loop_end + 1, (double)ca->fade * ca->dt);
        else
            snprintf(loop, sizeof loop, "looped frames %d..%d, no cross-fade", ca->loop_start + 1, ca->loop_end + 1);
        report("motion: %s (%d frames at %.0f fps, scale %.6g m/unit, legs %s; ankle height %.3f m; %s)\n",
               o->bvh_path, ca->frames, 1.0 / ca->dt, ca->scale, ca->legs_desc, ca->rig.leg[0].ankle_height, loop);
    } else
        report("motion: procedural walk, 1.1 m/s, 1 s cycle\n");
    if (o->plant_speed > 0)
        report("contacts: plant below %.2f m/s, release above %.2f m/s\n", o->plant_speed, 1.5 * o->plant_speed);
    report("\ntime per frame (ms)      median      p99\n");
    const size_t nf = (size_t)o->frames;
    for (int k = 0; k < ST_COUNT; ++k) {
        qsort(st->times[k], nf, sizeof(float), demo_cmp_float);
        report("  %-22s %8.3f %8.3f\n", k == ST_GROUND && o->exact ? "ground (exact, demo)" : stage_name[k],
               1e3 * demo_percentile(st->times[k], nf, 0.5f), 1e3 * demo_percentile(st->times[k], nf, 0.99f));
    }
    measures_report(st->m, report);
    if (!o->exact && o->terrain == 0) /* the procedural terrain on its heightfield */
        report("  (the targets are for ground given exactly, --ground exact, as an engine's raycasts give it:\n"
               "   the 10 cm heightfield ramps each 10 cm step over one cell and smooths the normals, so feet\n"
               "   and soles near a step edge or a crease are judged against ground the solve never saw)\n");
    report("\nlimit violations: %ld (knees bent backwards: %ld)\n", st->violations, st->hinge_back);
    report("converged: %.2f%% of leg solves, mean passes %.2f\n", 100.0 * st->converged / st->solved_chains,
           st->passes / st->solved_chains);
    report("pelvis lowered: mean %.1f mm, max %.1f mm\n",
           1e3 * st->drop_sum / ((double)o->frames * o->characters), 1e3 * st->drop_max);
}

/* --view: the page and each foot's planted and locked bits of a frame. */
typedef struct view_hook_data {
    view *vw;
    unsigned char *state;
} view_hook_data;

/* scene_run's frame hook for --view: the frame's legs into the page. */
static int view_hook(void *user, const demo_scene *sc, int frame, const cik_foot_streams *s)
{
    (void)frame;
    view_hook_data *d = user;
    for (int f = 0; f < 2 * sc->characters; ++f)
        d->state[f] = (unsigned char)((s->planted[f] > 0.5f ? VIEW_FOOT_PLANTED : 0u) |
                                      (s->locked[f] > 0.5f ? VIEW_FOOT_LOCKED : 0u));
    return view_frame(d->vw, s, d->state);
}

int main(int argc, char **argv)
{
    demo_options o;
    memset(&o, 0, sizeof o);
    o.characters = 1000;
    o.frames = 300;
    o.seed = 1;
    o.out_path = "crowdik_demo.svg";
    o.backend = CIK_BACKEND_AUTO;
    o.start = CIK_FOOT_START_TWO_BONE;
    o.lift_speed = -1.0f;
    o.knee_speed = -1.0f;
    o.held_knee_speed = -1.0f;
    o.swing_lift = -1.0f;
    o.swing_lookahead = -1.0f;
    o.skate_height = -1.0f;
    int pr = parse_args(argc, argv, &o);
    if (pr) return pr == 1 ? 0 : EXIT_USAGE;
    if (o.creature != CREATURE_BIPED) return herd_main(&o);

    demo_scene sc;
    demo_stats st;
    memset(&st, 0, sizeof st);
    /* view.c's messages name a path or two: room for both */
    char err[4608];
    /* --view: fail before the run when three.js is not installed */
    if (o.view_path && view_check_assets(view_assets_dir(), err, sizeof err)) {
        fprintf(stderr, "crowdik_demo: %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    view *vw = NULL;
    view_hook_data hook = {NULL, NULL};
    int rc = scene_create(&o, &sc, err, sizeof err);
    /* --view: the page records every character's legs every frame, from
     * scene_run's frame hook */
    if (rc == 0 && o.view_path) {
        char title[256];
        snprintf(title, sizeof title, "%d characters, %s", sc.characters, o.bvh_path ? o.bvh_path : "procedural walk");
        vw = view_create(sc.characters, (float)DEMO_HZ, title);
        hook.state = malloc(2 * (size_t)sc.characters);
        if (!vw || !hook.state) {
            snprintf(err, sizeof err, "out of memory for --view");
            rc = EXIT_CANNOT_RUN;
        } else {
            for (int c = 0; c < sc.characters; ++c) {
                const cik_foot_leg *l = sc.rigs[c].leg;
                cik_vec3 heel[2] = {l[0].point[CIK_FOOT_HEEL], l[1].point[CIK_FOOT_HEEL]};
                cik_vec3 toe[2] = {l[0].point[CIK_FOOT_TOE], l[1].point[CIK_FOOT_TOE]};
                view_set_legs(vw, c, l, heel, toe);
            }
            report_copy = view_report(vw);
            hook.vw = vw;
            sc.hook = view_hook;
            sc.hook_user = &hook;
        }
    }
    if (rc == 0 && scene_run(&sc, &st, err, sizeof err)) rc = EXIT_CANNOT_RUN;
    if (rc) {
        fprintf(stderr, "crowdik_demo: %s\n", err);
        goto done;
    }
    print_report(&sc, &st);
    const char *pictures[2] = {o.out_path, o.png_path};
    for (int k = 0; k < 2; ++k) {
        if (!pictures[k]) continue;
        if (draw_picture(&sc, pictures[k], k, err, sizeof err)) {
            fprintf(stderr, "crowdik_demo: %s\n", err);
            rc = EXIT_CANNOT_RUN;
            goto done;
        }
        printf("%spicture: %s\n", k ? "" : "\n", pictures[k]);
    }
    if (vw) {
        report_copy = NULL;
        if (view_write(vw, o.view_path, view_assets_dir(), terrain, err, sizeof err)) {
            fprintf(stderr, "crowdik_demo: %s\n", err);
            rc = EXIT_CANNOT_RUN;
            goto done;
        }
        printf("view: %s (%d characters, %d frames; motion %.2f MB, terrain %.2f MB)\n", o.view_path,
               sc.characters, o.frames, 1e-6 * (double)view_motion_bytes(vw),
               1e-6 * (double)view_terrain_bytes(vw));
    }
    rc = st.violations == 0 ? 0 : EXIT_CHECK_FAILED;
done:
    report_copy = NULL;
    view_destroy(vw);
    free(hook.state);
    stats_free(&st);
    scene_free(&sc);
    return rc;
}
