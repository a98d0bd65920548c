/* The BVH loader (support/bvh.h): hand-written files with the oddities real
 * files have, malformed files, and the CMU clips in ../shared/data/mocap
 * (mocap.cs.cmu.edu; the database was created with funding from NSF
 * EIA-0196217) when they are present. */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bvh.h"

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/crowdik_bvh_XXXXXX");
    cr_assert_not_null(mkdtemp(tmpdir));
}

/* Writes `text` to a file in the temp dir and loads it. */
static int load_text(const char *name, const char *text, bvh_clip *c, char *err, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f);
    fwrite(text, 1, strlen(text), f);
    fclose(f);
    int rc = bvh_load(path, c, err, n);
    remove(path);
    return rc;
}

/* A two-legged skeleton in the MotionBuilder naming, with a placeholder
 * for the line end and odd spellings. */
static const char *mb_template =
    "HIERARCHY@"
    "ROOT Hips@"
    "{@"
    "\tOFFSET 0.00000 0.00000 0.00000@"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation   @"
    "\tJOINT LeftUpLeg@"
    "\t{@"
    "\t\tOFFSET 1 -1 0@"
    "\t\tCHANNELS 3 Xrotation Zrotation Yrotation@"
    "\t\tJOINT LeftLeg@"
    "\t\t{@"
    "\t\t\tOFFSET 0 -4 0@"
    "\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\tJOINT LeftFoot@"
    "\t\t\t{@"
    "\t\t\t\tOFFSET 0 -4 0@"
    "\t\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\t\tJOINT LeftToeBase@"
    "\t\t\t\t{@"
    "\t\t\t\t\tOFFSET 0 -0.5 1.5@"
    "\t\t\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\t\t\tEnd Site@"
    "\t\t\t\t\t{@"
    "\t\t\t\t\t\tOFFSET 0 0 .5@"
    "\t\t\t\t\t}@"
    "\t\t\t\t}@"
    "\t\t\t}@"
    "\t\t}@"
    "\t}@"
    "\tJOINT RightUpLeg@"
    "\t{@"
    "\t\tOFFSET -1 -1 0@"
    "\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\tJOINT RightLeg@"
    "\t\t{@"
    "\t\t\tOFFSET 0 -4 0@"
    "\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\tJOINT RightFoot@"
    "\t\t\t{@"
    "\t\t\t\tOFFSET 0 -4 0@"
    "\t\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\t\tJOINT RightToeBase@"
    "\t\t\t\t{@"
    "\t\t\t\t\tOFFSET 0 -0.5 1.5@"
    "\t\t\t\t\tCHANNELS 3 Zrotation Yrotation Xrotation@"
    "\t\t\t\t\tEnd Site@"
    "\t\t\t\t\t{@"
    "\t\t\t\t\t\tOFFSET 0 0 1e-05@"
    "\t\t\t\t\t}@"
    "\t\t\t\t}@"
    "\t\t\t}@"
    "\t\t}@"
    "\t}@"
    "}@"
    "MOTION@"
    "Frames:\t2@"
    "Frame Time: .0083333 @"
    "0 9 0 90 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 @"
    "1.5 9.5 -2e-1 0 0 0 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0@";

/* The template with each '@' replaced by `eol` (cycling through it for mixed
 * line ends). */
static char *with_eol(const char *tmpl, const char *const *eols, int n_eol)
{
    size_t len = strlen(tmpl) * 3 + 1;
    char *out = malloc(len), *o = out;
    int k = 0;
    for (const char *p = tmpl; *p; ++p) {
        if (*p == '@') {
            const char *e = eols[k++ % n_eol];
            size_t el = strlen(e);
            memcpy(o, e, el);
            o += el;
        } else {
            *o++ = *p;
        }
    }
    *o = 0;
    return out;
}

static void check_template_clip(const bvh_clip *c)
{
    cr_assert_eq(c->joint_count, 9);
    cr_assert_eq(c->channel_count, 30);
    cr_assert_eq(c->frame_count, 2);
    cr_assert_float_eq(c->frame_time, 0.0083333, 1e-9);
    cr_assert_eq(c->joints[1].channels[0], BVH_XROT);
    cr_assert_eq(c->joints[1].channels[1], BVH_ZROT);
    cr_assert_eq(c->joints[1].channels[2], BVH_YROT);
    cr_assert(c->joints[4].has_end);
    cr_assert_float_eq(c->joints[4].end_offset[2], 0.5f, 1e-7f);
    cr_assert_float_eq(c->joints[8].end_offset[2], 1e-5f, 1e-10f);
    cr_assert_float_eq(c->motion[30 + 2], -0.2f, 1e-7f);
    bvh_leg legs[2];
    char err[256];
    cr_assert_eq(bvh_find_legs(c, legs, err, sizeof err), 0, "%s", err);
    cr_assert_eq(legs[0].hip, 1);
    cr_assert_eq(legs[0].knee, 2);
    cr_assert_eq(legs[0].ankle, 3);
    cr_assert_eq(legs[0].toe, 4);
    cr_assert_eq(legs[1].hip, 5);
    /* FK: frame 0 turns the root 90 degrees about Z, so the left hip's
     * offset (1, -1, 0) lands at (1, 1, 0) from the root at (0, 9, 0) */
    cik_vec3 pos[9], end[9];
    cik_quat rot[9];
    bvh_pose(c, 0, pos, rot, end);
    cr_assert_float_eq(pos[1].x, 1.0f, 1e-5f);
    cr_assert_float_eq(pos[1].y, 10.0f, 1e-5f);
    /* frame 1: root at (1.5, 9.5, -0.2), the left hip turned 10 degrees
     * about X: the knee swings back (-Z) by 4 sin 10 */
    bvh_pose(c, 1, pos, rot, end);
    cr_assert_float_eq(pos[2].x, 2.5f, 1e-5f);
    cr_assert_float_eq(pos[2].z, -0.2f - 4.0f * sinf(10.0f * 3.14159265f / 180.0f), 1e-5f);
    cik_vec3 toe = bvh_toe_position(c, &legs[0], pos, end);
    cr_assert(toe.z > pos[3].z, "the toe is ahead of the ankle");
}

Test(bvh, line_ends_tabs_numbers_trailing_spaces)
{
    make_tmpdir();
    const char *lf[1] = {"\n"}, *crlf[1] = {"\r\n"}, *mixed[3] = {"\r\n", "\n", "  \t\r\n"};
    const char *const *sets[3] = {lf, crlf, mixed};
    int counts[3] = {1, 1, 3};
    for (int k = 0; k < 3; ++k) {
        char *text = with_eol(mb_template, sets[k], counts[k]);
        bvh_clip c;
        char err[256];
        cr_assert_eq(load_text("t.bvh", text, &c, err, sizeof err), 0, "eol set %d: %s", k, err);
        check_template_clip(&c);
        bvh_free(&c);
        free(text);
    }
    rmdir(tmpdir);
}

Test(bvh, daz_names_and_end_site_toe)
{
    const char *text = "HIERARCHY\nROOT hip\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition "
                       "Zrotation Yrotation Xrotation\n"
                       "  JOINT lThigh\n  {\n    OFFSET 8 -2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "    JOINT lShin\n    {\n      OFFSET 0 -36.8 0.7\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "      JOINT lFoot\n      {\n        OFFSET -0.7 -45.1 -5.1\n        CHANNELS 3 Zrotation "
                       "Xrotation Yrotation\n        End Site\n        {\n          OFFSET 1.1 -3.7 12.1\n        }\n"
                       "      }\n    }\n  }\n"
                       "  JOINT rThigh\n  {\n    OFFSET -8 -2 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "    JOINT rShin\n    {\n      OFFSET 0 -36.8 0.7\n      CHANNELS 3 Zrotation Xrotation Yrotation\n"
                       "      JOINT rFoot\n      {\n        OFFSET 0.7 -45.1 -5.1\n        CHANNELS 3 Zrotation "
                       "Xrotation Yrotation\n        End Site\n        {\n          OFFSET -1.1 -3.7 12.1\n        }\n"
                       "      }\n    }\n  }\n}\nMOTION\nFrames:\t1\nFrame Time:\t0.00833333\n"
                       "1 90 2 2.32434e-15 0.0 -3.10601e-17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
    bvh_clip c;
    char err[256];
    cr_assert_eq(bvh_parse(text, strlen(text), &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.joint_count, 7);
    cr_assert_eq(c.frame_count, 1);
    bvh_leg legs[2];
    cr_assert_eq(bvh_find_legs(&c, legs, err, sizeof err), 0, "%s", err);
    cr_assert_eq(legs[0].toe, -1);
    cr_assert_eq(c.joints[legs[1].ankle].parent, legs[1].knee);
    cr_assert_float_eq(bvh_detect_scale(&c, &legs[0]), 0.01f, 1e-7f);
    /* legs named on the command line */
    bvh_leg l;
    cr_assert_eq(bvh_find_leg(&c, "LTHIGH", "lshin", "lFoot", NULL, &l, err, sizeof err), 0, "%s", err);
    cr_assert_neq(bvh_find_leg(&c, "lThigh", "rShin", "rFoot", NULL, &l, err, sizeof err), 0);
    cr_assert(strstr(err, "chain") != NULL, "%s", err);
    cr_assert_neq(bvh_find_leg(&c, "nope", "lShin", "lFoot", NULL, &l, err, sizeof err), 0);
    bvh_free(&c);
}

/* Each malformed file fails with the right line number and no crash. */
Test(bvh, malformed_files_report_the_line)
{
    static const struct {
        const char *text;
        int line;
        const char *what;
    } cases[] = {
        {"", 1, "HIERARCHY"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0\n  CHANNELS 0\n}\n", 5, "OFFSET value"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 x1\n", 4, "OFFSET value"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 7 Xposition\n", 5, "channel count"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Wrotation\n", 5, "unknown channel"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n  JOINT A\n  {\n", 8, "end of the file"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 2\nFrame Time: "
         "0.1\n1\n",
         11, "ends after 1 of 2"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 2 Xrotation Yrotation\n}\nMOTION\nFrames: 2\nFrame "
         "Time: 0.1\n1 2\n3\n",
         11, "1 values, expected 2"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: "
         "0.1\n1 2\n",
         10, "more than 1"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: "
         "0.1\nnan\n",
         10, "bad number"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: -3\n", 8,
         "frame count"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: "
         "0\n",
         9, "positive"},
        {"HIERARCHY\r\nROOT Hips\r\n{\r\n  OFFSET 0 0 0\r\n  CHANNELS 1 Xrotation\r\n  End Site\r\n  {\r\n  "
         "}\r\n",
         8, "OFFSET"},
        {"HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 1 Xrotation\n}\nMOTION\nFrames: 1\nFrame Time: "
         "0.1\n1\n2\n",
         11, "after the 1 declared"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bvh_clip c;
        char err[256];
        int rc = bvh_parse(cases[i].text, strlen(cases[i].text), &c, err, sizeof err);
        cr_assert_neq(rc, 0, "case %zu parsed", i);
        char want[32];
        snprintf(want, sizeof want, "line %d:", cases[i].line);
        cr_assert(strncmp(err, want, strlen(want)) == 0, "case %zu: '%s', expected %s", i, err, want);
        cr_assert(strstr(err, cases[i].what) != NULL, "case %zu: '%s' lacks '%s'", i, err, cases[i].what);
    }
    /* every truncation of a valid file fails cleanly or parses */
    const char *lf[1] = {"\n"};
    char *text = with_eol(mb_template, lf, 1);
    size_t n = strlen(text);
    for (size_t cut = 0; cut < n; cut += 7) {
        bvh_clip c;
        char err[256];
        if (bvh_parse(text, cut, &c, err, sizeof err) == 0) bvh_free(&c);
        else cr_assert(strncmp(err, "line ", 5) == 0, "cut %zu: %s", cut, err);
    }
    free(text);
    /* a missing file */
    bvh_clip c;
    char err[256];
    cr_assert_neq(bvh_load("/nonexistent/dir/x.bvh", &c, err, sizeof err), 0);
    cr_assert(strstr(err, "x.bvh") != NULL);
}

/* ------------------------------------------------------------ real clips */

#define MOCAP CROWDIK_SOURCE_DIR "/../shared/data/mocap/"

static void real_clip(const char *file, int joints, int channels, int frames, float scale, float hip_ankle_m)
{
    char path[1024];
    snprintf(path, sizeof path, MOCAP "%s", file);
    if (access(path, R_OK) != 0) {
        cr_skip_test("%s is absent (the CMU clips live in ../shared/data/mocap)", path);
        return;
    }
    bvh_clip c;
    char err[512];
    cr_assert_eq(bvh_load(path, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c.joint_count, joints, "%s: %d joints", file, c.joint_count);
    cr_assert_eq(c.channel_count, channels);
    cr_assert_eq(c.frame_count, frames);
    cr_assert_float_eq(c.frame_time, 1.0 / 120.0, 1e-5);
    bvh_leg legs[2];
    cr_assert_eq(bvh_find_legs(&c, legs, err, sizeof err), 0, "%s", err);
    float s = bvh_detect_scale(&c, &legs[0]);
    cr_assert_float_eq(s, scale, 1e-5f, "%s: scale %g", file, s);
    const float *k = c.joints[legs[0].knee].offset, *a = c.joints[legs[0].ankle].offset;
    float len = s * (sqrtf(k[0] * k[0] + k[1] * k[1] + k[2] * k[2]) + sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
    cr_assert_float_eq(len, hip_ankle_m, 0.01f, "%s: hip to ankle %g m", file, len);
    /* frame 0 is the reference pose: legs near vertical, ankles below hips */
    cik_vec3 *pos = malloc(sizeof(cik_vec3) * (size_t)c.joint_count);
    cik_vec3 *end = malloc(sizeof(cik_vec3) * (size_t)c.joint_count);
    cik_quat *rot = malloc(sizeof(cik_quat) * (size_t)c.joint_count);
    bvh_pose(&c, 0, pos, rot, end);
    for (int side = 0; side < 2; ++side) {
        cik_vec3 h = pos[legs[side].hip], an = pos[legs[side].ankle];
        float dx = an.x - h.x, dy = an.y - h.y, dz = an.z - h.z;
        cr_assert(dy < 0 && sqrtf(dx * dx + dz * dz) < 0.2f * -dy, "%s: frame 0 leg %d not vertical", file, side);
    }
    free(pos);
    free(end);
    free(rot);
    bvh_free(&c);
}

Test(bvh, cmu_12_01_walk) { real_clip("cmu_12_01_walk.bvh", 31, 96, 524, 0.0254f / 0.45f, 0.789f); }
Test(bvh, cmu_49_04_run_leap) { real_clip("cmu_49_04_run_leap.bvh", 31, 96, 252, 0.0254f / 0.45f, 0.840f); }
Test(bvh, cmu_02_03_runjog_daz) { real_clip("cmu_02_03_runjog_daz.bvh", 43, 132, 174, 0.01f, 0.8223f); }
