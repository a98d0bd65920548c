/*
 * The demo's 3D view (crowdik_demo --view FILE.html): one self-contained
 * HTML page that plays the whole run in a browser from disk, with no server
 * and no network. It holds three.js (from viewer/node_modules, installed by
 * `npm ci --prefix viewer`), the page's own script (viewer/viewer.js), the
 * terrain, and every character's animated and solved legs per frame,
 * quantised to millimetres and entropy-coded (docs/viewer.md has the format).
 *
 * Use: view_check_assets before the run (so that a missing three.js fails
 * at once), view_create, view_set_legs per character, view_frame after each
 * frame's align stage, print the report into view_report's stream too, then
 * view_write and view_destroy.
 */
#ifndef CROWDIK_DEMO_VIEW_H
#define CROWDIK_DEMO_VIEW_H

#include <stddef.h>
#include <stdio.h>

#include "crowdik/foot.h"

typedef struct view view;

/* A foot's state per frame, as bits: on the ground, and held where it landed. */
#define VIEW_FOOT_PLANTED 1u
#define VIEW_FOOT_LOCKED 2u

/* The folder holding the page template, its script and node_modules: the
 * CROWDIK_VIEWER_DIR environment variable, else the source tree's viewer/
 * (compiled in). */
const char *view_assets_dir(void);

/* 0 when every file the page needs is readable under `dir`; otherwise -1 and
 * `err` says which is missing and the command that installs it. */
int view_check_assets(const char *dir, char *err, size_t errsz);

/* A view of `characters` characters played at `fps`; `scene` is a one-line
 * title. NULL when out of memory. */
view *view_create(int characters, float fps, const char *scene);

/* The character's leg geometry (hip offset, thigh, shin in cik_foot_leg) and
 * its heel and toe in the ankle frame, per side (0 left, 1 right). */
void view_set_legs(view *v, int character, const cik_foot_leg leg[2], const cik_vec3 heel[2],
                   const cik_vec3 toe[2]);

/* Records one frame from the crowd's streams after the align stage: the
 * animated and the solved legs, pelvis, the pelvis drop and each foot's IK
 * weight. `foot_state` (VIEW_FOOT_* bits, 2 per character) may be NULL: a
 * foot is then planted when its weight is 1, never locked. Returns -1 when
 * out of memory (the view then writes nothing). */
int view_frame(view *v, const cik_foot_streams *s, const unsigned char *foot_state);

/* A stream whose text the page shows beside the view (the demo's report). */
FILE *view_report(view *v);

/* Writes the page, the terrain drawn from `ground` (height at x, z) under the
 * area the crowd covered. 0 on success; -1 with `err` set otherwise. */
int view_write(view *v, const char *path, const char *assets_dir, float (*ground)(float x, float z), char *err,
               size_t errsz);

/* Bytes of coded motion and terrain data so far (after view_write: both). */
size_t view_motion_bytes(const view *v);
size_t view_terrain_bytes(const view *v);

void view_destroy(view *v);

#endif
