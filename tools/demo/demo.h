/*
 * crowdik_demo's shared types: the characters' rigs and poses (motion.c),
 * the crowd and its frame loop (scene.c), the picture (draw.c), the
 * command line and report (main.c) and the herds (herd.c).
 *
 * Coordinates: world y up; character space x lateral (left +), y up from
 * the floor, z forward; metres and seconds.
 */
#ifndef CROWDIK_DEMO_H
#define CROWDIK_DEMO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "crowdik/crowdik.h"
#include "crowdik/foot.h"

#define DEMO_HZ 60
#define DEMO_DT (1.0f / (float)DEMO_HZ)
#define WALK_SPEED 1.1f      /* metres per second at size 1 */
#define RIDGE_SLOPE_DEG 15.0f
#define PANELS 4             /* characters in the picture */
#define DRAW_EVERY 10        /* frames between the picture's records */

/* qsort order of floats. */
static inline int demo_cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}
/* Percentile p in [0, 1] of n sorted values (nearest rank; 0 when empty). */
static inline float demo_percentile(const float *sorted, size_t n, float p)
{
    if (!n) return 0.0f;
    size_t i = (size_t)(p * (float)(n - 1) + 0.5f);
    return sorted[i < n ? i : n - 1];
}

/* ---------------------------------------------------------------- motion.c */

/* One character's legs; heel, ball and toe are the legs' points
 * (cik_foot_leg.point, ankle frame). */
typedef struct rig {
    cik_foot_leg leg[2];
} rig;

/* One character's animated pose, character space. */
typedef struct pose {
    cik_vec3 pelvis;
    cik_quat pelvis_q;
    cik_quat q[2][3];
    float weight[2];
} pose;

/* How a clip loops (--loop): LOOP_BLEND (the default) from a start frame
 * in its first 0.25 s to the end frame of its second half whose pose and
 * velocities match it best, the next loop cross-faded in from the frames
 * past the end; LOOP_RAW from its last frame straight back to its first. */
enum { LOOP_BLEND, LOOP_RAW };

/* A BVH clip turned into poses for the demo's rig. */
typedef struct clip_anim {
    int frames; /* usable frames (the clip's frames 1..N-1) */
    float dt;   /* seconds per clip frame */
    pose *poses;
    /* the loop, in poses (pose f is the clip's frame f + 1): it plays
     * loop_start .. loop_end, the first `fade` frames of each loop blended
     * from the frames past loop_end into those past loop_start (0: none) */
    int loop_start, loop_end, fade;
    cik_vec3 travel; /* root travel over the loop, character space, metres */
    float speed;     /* mean speed over the loop, metres per second */
    float scale;
    rig rig;
    char legs_desc[160];
} clip_anim;

/* The ground (--terrain): procedural (hills everywhere, a RIDGE_SLOPE_DEG
 * ridge along x, 10 cm steps along z) or flat (height 0). */
enum { TERRAIN_PROCEDURAL, TERRAIN_FLAT };
void terrain_select(int kind);
/* The selected terrain's exact height at (x, z). */
float terrain(float x, float z);
/* Its exact unit normal at (x, z): central differences of the exact shape
 * at 1 mm, the steps left out (a step's top and foot are level: the normal
 * is up on either side of the edge). */
cik_vec3 terrain_normal(float x, float z);
/* Where (x, z) lies, for the measures: TERRAIN_AT_STEP within 15 cm (along
 * z) of a step's edge, TERRAIN_AT_SLOPE on a ridge flank, else
 * TERRAIN_AT_OTHER (always on flat ground). */
enum { TERRAIN_AT_STEP, TERRAIN_AT_SLOPE, TERRAIN_AT_OTHER, TERRAIN_AT_COUNT };
int terrain_place(float x, float z);
/* The workload legs (support/legs.h) at body size s, heel, ball and toe
 * added. */
void procedural_rig(float s, rig *r);
/* Procedural walk at time t (seconds) for body size s. */
void walk_pose(const rig *r, float s, float t, pose *out);
/* Loads a clip (legs by name, or by `legs_spec` "L,K,A[,T]:R,K,A[,T]");
 * scale_opt > 0 overrides the detected scale; `loop` is LOOP_*. 0, or -1
 * with a message in err and nothing to free. */
int clip_load(const char *path, const char *legs_spec, float scale_opt, int loop, clip_anim *ca, char *err,
              size_t errsz);
void clip_free(clip_anim *ca);
/* The clip at time t, looped as loaded; `out` (may be NULL) gets the pose.
 * Returns where the pelvis is (character space, x and z, travel carried
 * on); pose and pelvis are continuous in t, across the loop's wrap too,
 * with LOOP_BLEND. */
cik_vec3 clip_sample(const clip_anim *ca, float t, pose *out);

/* ---------------------------------------------------------------- scene.c */

typedef struct demo_options {
    int characters, frames, threads, seed, quiet;
    const char *out_path, *png_path, *bvh_path, *legs_spec;
    /* --view FILE.html: the animated page (view.c), written from the
     * frame hook below when set */
    const char *view_path;
    /* --dump FILE.csv: one row per frame and foot (measure.c) */
    const char *dump_path;
    float bvh_scale;
    cik_backend backend;
    int start;    /* CIK_FOOT_START_* */
    int terrain;  /* TERRAIN_* */
    int exact;    /* --ground exact: the demo's own contacts from terrain() */
    int contacts; /* CIK_FOOT_CONTACTS_* */
    float plant_speed; /* --plant-speed (m/s), 0 = by the motion */
    float lift_speed;  /* --lift-speed (m/s), negative = the default */
    float knee_speed;  /* --knee-speed (rad/s), negative = the default */
    float held_knee_speed; /* --held-knee-speed (rad/s), negative = the default */
    float swing_lift;  /* --swing-lift (0 to 1), negative = the default */
    float swing_lookahead; /* --swing-lookahead (seconds), negative = the default */
    float skate_height; /* --skate-height (m), negative = the default */
    int creature;      /* --creature: creature_kind (support/creatures.h), 0 the biped crowd */
    int loop;          /* --loop: LOOP_* */
} demo_options;

typedef struct character {
    float x0, z0, heading, size, phase;
    float floor; /* the character controller's ground height (smoothed) */
} character;

/* Seconds on a monotonic clock. */
double demo_now(void);
/* Places n characters at random over a square (the same for a seed
 * everywhere), the first PANELS at panel_place's x, z and heading, size 1;
 * returns the half side of the square. */
float place_crowd(const demo_options *opt, character *ch, int n, const float panel_place[PANELS][3]);
/* The heightfield: 10 cm spacing over the crowd's square (half side `half`)
 * and the pictured characters' places, grown by the farthest walk at
 * `speed` m/s. 0, or -1 when out of memory (*heights to free either way). */
int build_ground(const demo_options *opt, float speed, float half, cik_heightfield *hf, float **heights);
/* The character controller's ground under (x, z) at frame fr, smoothed
 * over 0.1 s (a controller steps up a step over a few frames). */
void character_follow_ground(character *k, int fr, float x, float z);

/* Per drawn frame and pictured character: pelvis, both legs' hip, knee,
 * ankle, heel, toe, as animated and as solved; per foot the stance it is
 * planted in (counted from 1 along the run; 0 in swing; planted as the
 * pipeline's planted stream says), so that the picture draws a planted
 * foot once and not once per pose. */
typedef struct record {
    cik_vec3 anim[2][5], solved[2][5];
    cik_vec3 pelvis, pelvis_solved;
    int stance[2];
} record;

enum { ST_ANIM, ST_PROBE, ST_GROUND, ST_PLACE, ST_SOLVE, ST_ALIGN, ST_TOTAL, ST_COUNT };

/* ---------------------------------------------------------------- measure.c */

/* The joints and points of a leg in a dump row, in order. */
enum { RP_HIP, RP_KNEE, RP_ANKLE, RP_HEEL, RP_BALL, RP_TOE, RP_COUNT };

/* One frame and foot as --dump writes it (world, metres): the animated
 * positions by forward kinematics of the animated pose, the solved ones
 * from the solved rotations and the lowered pelvis, the true terrain height
 * under the solved heel, ball and toe; then the pivot, the exact ground
 * normal under the solved ball and the sole's up, animated and solved. */
typedef struct foot_row {
    int frame, character, side;
    float weight, planted, locked, pelvis_drop;
    cik_vec3 anim[RP_COUNT], solved[RP_COUNT];
    float ground_y[CIK_FOOT_POINTS];
    float pivot;
    cik_vec3 ground_n, anim_sole_n, solved_sole_n;
    float floor_y; /* the animation's floor (the character's floor_y) */
    /* 1 where the ankle's limit lets the solved foot lie on the ground
     * under its ball with the solved shin (the foot turned by the shortest
     * arc from its sole's up to the normal is within the limit), else 0 */
    int sole_allowed;
} foot_row;

/* The measures' samples, and what they carry from frame to frame. */
typedef struct demo_measures demo_measures;

/* What the report prints. */
typedef struct demo_stats {
    float *times[ST_COUNT]; /* seconds per frame and stage */
    double passes, converged, solved_chains, drop_sum;
    float drop_max;
    long violations, hinge_back;
    demo_measures *m;
} demo_stats;

typedef struct demo_scene demo_scene;
/* Called after every frame with the crowd's streams (solved and animated);
 * the --view writer hooks in here. */
typedef int (*demo_frame_hook)(void *user, const demo_scene *sc, int frame, const cik_foot_streams *s);

struct demo_scene {
    const demo_options *opt;
    int characters;
    character *ch;
    rig *rigs;
    clip_anim clip; /* zero without --bvh */
    cik_heightfield hf;
    float *heights;
    cik_foot_crowd *crowd;
    int draw_frames;
    record *rec; /* draw_frames x PANELS */
    int stances[PANELS][2]; /* stances begun so far per pictured foot */
    int planted[PANELS][2]; /* whether that foot is planted now */
    int run; /* the motion is a run (mean speed over RUN_SPEED) */
    FILE *dump; /* --dump */
    demo_frame_hook hook;
    void *hook_user;
};

/* Exit statuses, the same in every crowdik tool (each --help says them). */
enum { EXIT_CHECK_FAILED = 1, EXIT_USAGE = 2, EXIT_CANNOT_RUN = 3 };

/* Builds the crowd, its rigs and its ground: 0, or with a message EXIT_USAGE
 * (a clip that cannot be read or used) or EXIT_CANNOT_RUN (out of memory). */
int scene_create(const demo_options *opt, demo_scene *sc, char *err, size_t errsz);
/* Runs every frame, filling the statistics and the picture's records: 0,
 * or -1 with a message. */
int scene_run(demo_scene *sc, demo_stats *st, char *err, size_t errsz);
void scene_free(demo_scene *sc);
void stats_free(demo_stats *st);
/* A clip faster than this on average (m/s) is a run: the contacts plant and
 * release at RUN_PLANT_SPEED / RUN_RELEASE_SPEED, and the evaluator's still
 * feet are those slower than 1.0 m/s instead of 0.5. */
#define RUN_SPEED 1.8f
#define RUN_PLANT_SPEED 1.1f
#define RUN_RELEASE_SPEED 1.6f

/* measure.c: the row of frame `fr`, foot f = 2 c + side, from the streams
 * after the align stage. */
void measure_row(const demo_scene *sc, const cik_foot_streams *s, int fr, int c, int side, foot_row *r);
/* The measures' storage for `frames` frames of `characters`; NULL when out
 * of memory. */
demo_measures *measures_create(int frames, int characters, int run);
void measures_free(demo_measures *m);
/* Adds one row (rows come frame by frame, in foot order). */
void measures_add(demo_measures *m, const foot_row *r);
/* The CSV's header line and one row (no error handling: ferror after). */
void dump_header(FILE *fp);
void dump_row(FILE *fp, const foot_row *r);
/* Prints the measures' table through `out` (printf-like). */
void measures_report(demo_measures *m, void (*out)(const char *fmt, ...));

/* ---------------------------------------------------------------- draw.c */

/* The picture's canvas: an SVG file, or an RGB raster written as a PNG. */
typedef struct canvas {
    FILE *svg;          /* SVG output, or NULL */
    unsigned char *rgb; /* raster, w * h * 3 bytes, or NULL */
    int w, h;
} canvas;
#define PICTURE_W 1200.0f
/* A canvas PICTURE_W wide and `height` pixels high: 0, or -1 with a message. */
int canvas_open(canvas *cv, const char *path, int png, float height, char *err, size_t errsz);
/* Ends the SVG or writes the PNG: 0, or -1 with a message. */
int canvas_close(canvas *cv, const char *path, char *err, size_t errsz);
void cv_text(canvas *cv, float x, float y, int size, const char *text);
/* A polyline through n points (xy pairs), dashed 3 on 2 off if asked. */
void cv_polyline(canvas *cv, const float *xy, int n, uint32_t col, float width, int dashed);
void cv_polygon(canvas *cv, const float *xy, int n, uint32_t fill, uint32_t stroke, float width);
void cv_disc(canvas *cv, float cx, float cy, float r, uint32_t col);

/* A panel's frame: where its character starts, the way it walks, the
 * distance along the walk at its left edge and its scale (a run or a leap
 * goes farther in the same time than the walk: the panel zooms out to keep
 * every pose in it), and the heights (metres) of its top and bottom edges. */
typedef struct panel {
    cik_vec3 start, dir;
    float d_lo, px, top, bottom;
} panel;
extern const char *const panel_titles[PANELS];
/* A panel along character k's walk at the default scale. */
panel panel_start(const character *k);
/* Zooms out to keep `ahead` (metres along the walk) in view, and sets the
 * top above `hi` and the bottom under the terrain along the panel. */
void panel_fit(panel *p, float hi, float ahead);
float panel_along(const panel *p, cik_vec3 q);
/* Pixels the panel takes, its title and gap included. */
float panel_height(const panel *p);
/* Side-on: forward to the right, up up; oy the panel's top in pixels. */
float screen_x(const panel *p, cik_vec3 q);
float screen_y(const panel *p, float oy, cik_vec3 q);
/* The panel's title and the terrain along its walk; returns its bottom row. */
float panel_ground(canvas *cv, const panel *p, float oy, const char *title);

/* Writes the side view of the pictured characters: an SVG (png == 0) or a
 * PNG (no text). 0, or -1 with a message. */
int draw_picture(const demo_scene *sc, const char *path, int png, char *err, size_t errsz);

/* ---------------------------------------------------------------- herd.c */

/* --creature quadruped|hexapod: the herd's run, report, --dump and picture
 * (crowdik/herd.h, support/creatures.h). Returns the exit status; messages
 * on stderr. */
int herd_main(const demo_options *opt);

#endif
