/*
 * crowdik_demo's picture: a side view of the pictured characters, one
 * panel each, drawn once per output through a small canvas: into an SVG
 * file, or into an RGB raster (anti-aliased lines and discs, filled
 * polygons; no text) that libpng writes as a PNG.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "scalar_math.h"
#ifdef CROWDIK_DEMO_PNG
#include <png.h>
#endif

/* ---------------------------------------------------------------- canvas */

static void px_blend(canvas *cv, int x, int y, uint32_t col, float a)
{
    if (x < 0 || y < 0 || x >= cv->w || y >= cv->h || !(a > 0.0f)) return;
    if (a > 1.0f) a = 1.0f;
    unsigned char *p = cv->rgb + 3 * ((size_t)y * (size_t)cv->w + (size_t)x);
    for (int k = 0; k < 3; ++k) {
        float c = (float)((col >> (16 - 8 * k)) & 255u);
        p[k] = (unsigned char)((float)p[k] + (c - (float)p[k]) * a + 0.5f);
    }
}

/* A segment `width` pixels wide; coverage from each pixel centre's distance
 * to the segment (one pixel of anti-aliasing). */
static void raster_segment(canvas *cv, float x0, float y0, float x1, float y1, float width, uint32_t col)
{
    float r = 0.5f * width + 0.5f;
    int xa = (int)floorf(fminf(x0, x1) - r), xb = (int)ceilf(fmaxf(x0, x1) + r);
    int ya = (int)floorf(fminf(y0, y1) - r), yb = (int)ceilf(fmaxf(y0, y1) + r);
    xa = xa < 0 ? 0 : xa;
    ya = ya < 0 ? 0 : ya;
    xb = xb >= cv->w ? cv->w - 1 : xb;
    yb = yb >= cv->h ? cv->h - 1 : yb;
    float dx = x1 - x0, dy = y1 - y0, l2 = dx * dx + dy * dy;
    for (int y = ya; y <= yb; ++y)
        for (int x = xa; x <= xb; ++x) {
            float px = (float)x + 0.5f - x0, py = (float)y + 0.5f - y0;
            float t = l2 > 0.0f ? clampf((px * dx + py * dy) / l2, 0.0f, 1.0f) : 0.0f;
            float ex = px - t * dx, ey = py - t * dy;
            px_blend(cv, x, y, col, r - sqrtf(ex * ex + ey * ey));
        }
}

void cv_text(canvas *cv, float x, float y, int size, const char *text)
{
    if (cv->svg) fprintf(cv->svg, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"%d\">%s</text>\n", x, y, size, text);
}

/* A polyline through n points (xy pairs), dashed 3 on 2 off if asked. */
void cv_polyline(canvas *cv, const float *xy, int n, uint32_t col, float width, int dashed)
{
    if (cv->svg) {
        fprintf(cv->svg, "<path d=\"");
        for (int i = 0; i < n; ++i) fprintf(cv->svg, "%c%.1f %.1f", i ? 'L' : 'M', xy[2 * i], xy[2 * i + 1]);
        fprintf(cv->svg, "\" fill=\"none\" stroke=\"#%06x\" stroke-width=\"%.1f\" stroke-linejoin=\"round\"%s/>\n",
                (unsigned)col, width, dashed ? " stroke-dasharray=\"3 2\"" : "");
        return;
    }
    float along = 0.0f; /* position in the dash pattern, carried over corners */
    for (int i = 0; i + 1 < n; ++i) {
        float x0 = xy[2 * i], y0 = xy[2 * i + 1], x1 = xy[2 * i + 2], y1 = xy[2 * i + 3];
        if (!dashed) {
            raster_segment(cv, x0, y0, x1, y1, width, col);
            continue;
        }
        float len = sqrtf((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)), s = 0.0f;
        while (s < len) {
            float phase = fmodf(along, 5.0f), step = phase < 3.0f ? 3.0f - phase : 5.0f - phase;
            float e = fminf(len, s + step);
            if (phase < 3.0f && len > 0.0f)
                raster_segment(cv, x0 + (x1 - x0) * s / len, y0 + (y1 - y0) * s / len, x0 + (x1 - x0) * e / len,
                               y0 + (y1 - y0) * e / len, width, col);
            along += e - s;
            s = e;
        }
    }
}

/* A closed polygon, filled (even-odd, pixel centres) and outlined. */
void cv_polygon(canvas *cv, const float *xy, int n, uint32_t fill, uint32_t stroke, float width)
{
    if (cv->svg) {
        fprintf(cv->svg, "<path d=\"");
        for (int i = 0; i < n; ++i) fprintf(cv->svg, "%c%.1f %.1f", i ? 'L' : 'M', xy[2 * i], xy[2 * i + 1]);
        fprintf(cv->svg, "Z\" fill=\"#%06x\" stroke=\"#%06x\" stroke-width=\"%.1f\"/>\n", (unsigned)fill,
                (unsigned)stroke, width);
        return;
    }
    float *xs = malloc(sizeof(float) * (size_t)n);
    if (!xs) return;
    for (int y = 0; y < cv->h; ++y) {
        float yc = (float)y + 0.5f;
        int m = 0;
        for (int i = 0; i < n; ++i) {
            float ax = xy[2 * i], ay = xy[2 * i + 1];
            float bx = xy[2 * ((i + 1) % n)], by = xy[2 * ((i + 1) % n) + 1];
            if ((ay <= yc) != (by <= yc)) xs[m++] = ax + (yc - ay) * (bx - ax) / (by - ay);
        }
        qsort(xs, (size_t)m, sizeof(float), demo_cmp_float);
        for (int k = 0; k + 1 < m; k += 2)
            for (int x = (int)ceilf(xs[k] - 0.5f); (float)x + 0.5f <= xs[k + 1]; ++x) px_blend(cv, x, y, fill, 1.0f);
    }
    free(xs);
    float *closed = malloc(sizeof(float) * 2 * (size_t)(n + 1));
    if (!closed) return;
    memcpy(closed, xy, sizeof(float) * 2 * (size_t)n);
    closed[2 * n] = xy[0];
    closed[2 * n + 1] = xy[1];
    cv_polyline(cv, closed, n + 1, stroke, width, 0);
    free(closed);
}

void cv_disc(canvas *cv, float cx, float cy, float r, uint32_t col)
{
    if (cv->svg) {
        fprintf(cv->svg, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.0f\" fill=\"#%06x\"/>\n", cx, cy, r, (unsigned)col);
        return;
    }
    raster_segment(cv, cx, cy, cx, cy, 2.0f * r - 1.0f, col);
}

/* 8-bit RGB through libpng at its default compression: a picture of a few
 * flat colours is a hundred kilobytes or so instead of the raster's
 * megabytes. */
static int write_png(const char *path, const unsigned char *rgb, int w, int h, char *err, size_t errsz)
{
#ifndef CROWDIK_DEMO_PNG
    (void)rgb;
    (void)w;
    (void)h;
    snprintf(err, errsz, "cannot write %s: this crowdik_demo was built without libpng (install libpng-dev)", path);
    return -1;
#else
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        snprintf(err, errsz, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int ok = png && info;
    /* libpng reports its errors by longjmp to here; the rows pointers are
     * the image's own, so there is nothing else to release. */
    if (ok && setjmp(png_jmpbuf(png))) ok = 0;
    else if (ok) {
        png_init_io(png, fp);
        png_set_IHDR(png, info, (png_uint_32)w, (png_uint_32)h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (int y = 0; y < h; ++y) png_write_row(png, rgb + (size_t)y * 3 * (size_t)w);
        png_write_end(png, NULL);
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    if (fclose(fp) != 0) ok = 0;
    if (!ok) snprintf(err, errsz, "cannot write %s", path);
    return ok ? 0 : -1;
#endif
}

/* ---------------------------------------------------------------- picture */

#define PX_PER_M 150.0f
#define POSE_STEP 3 /* every 3rd record: one pose per 30 frames (0.5 s) */

const char *const panel_titles[PANELS] = {"a 10 cm step up", "up a 15-degree slope", "over the ridge top and down",
                                          "a 10 cm step down"};

float panel_along(const panel *p, cik_vec3 q) { return vec3_dot(vec3_sub(q, p->start), p->dir); }
/* Distance along the walk of ground sample i of 240 across the panel. */
static float sample_at(const panel *p, int i) { return p->d_lo + (float)i * ((PICTURE_W - 60.0f) / p->px) / 240.0f; }

panel panel_start(const character *k)
{
    panel p;
    memset(&p, 0, sizeof p);
    p.start = vec3(k->x0, 0, k->z0);
    p.dir = quat_rotate(quat_axis_angle(k->heading, 0, 1, 0), vec3(0, 0, 1));
    p.d_lo = -0.8f;
    p.px = PX_PER_M;
    return p;
}

void panel_fit(panel *p, float hi, float ahead)
{
    if (ahead > sample_at(p, 240)) p->px = (PICTURE_W - 60.0f) / (ahead - p->d_lo);
    float lo = 1e9f;
    for (int i = 0; i <= 240; ++i) {
        cik_vec3 q = vec3_add(p->start, vec3_scale(p->dir, sample_at(p, i)));
        lo = fminf(lo, terrain(q.x, q.z));
    }
    p->top = hi + 0.25f;
    p->bottom = lo - 0.15f;
}

static panel panel_of(const demo_scene *sc, int c)
{
    panel p = panel_start(&sc->ch[c]);
    /* every drawn point, with half a metre to spare ahead */
    float hi = -1e9f, ahead = -1e9f;
    for (int k = 0; k < sc->draw_frames; ++k) {
        const record *r = &sc->rec[(size_t)k * PANELS + (size_t)c];
        hi = fmaxf(hi, r->pelvis.y);
        for (int side = 0; side < 2; ++side)
            for (int j = 0; j < 5; ++j) {
                hi = fmaxf(hi, fmaxf(r->anim[side][j].y, r->solved[side][j].y) - 0.1f);
                ahead = fmaxf(ahead, fmaxf(panel_along(&p, r->anim[side][j]), panel_along(&p, r->solved[side][j])) + 0.5f);
            }
    }
    panel_fit(&p, hi, ahead);
    return p;
}

float panel_height(const panel *p) { return (p->top - p->bottom) * p->px + 40.0f; }
float screen_x(const panel *p, cik_vec3 q) { return 40.0f + p->px * (panel_along(p, q) - p->d_lo); }
float screen_y(const panel *p, float oy, cik_vec3 q) { return oy + 30.0f + p->px * (p->top - q.y); }

float panel_ground(canvas *cv, const panel *p, float oy, const char *title)
{
    float panel_bottom = oy + 30.0f + (p->top - p->bottom) * p->px;
    cv_text(cv, 10, oy + 18, 14, title);
    float ground[2 * 243];
    for (int i = 0; i <= 240; ++i) {
        cik_vec3 q = vec3_add(p->start, vec3_scale(p->dir, sample_at(p, i)));
        q.y = terrain(q.x, q.z);
        ground[2 * i] = screen_x(p, q);
        ground[2 * i + 1] = screen_y(p, oy, q);
    }
    ground[482] = PICTURE_W - 20.0f;
    ground[483] = panel_bottom;
    ground[484] = 40.0f;
    ground[485] = panel_bottom;
    cv_polygon(cv, ground, 243, 0xece4d4u, 0x806040u, 1.5f);
    return panel_bottom;
}

/* One record's legs: animated dashed grey, solved solid (blue left, red
 * right), the solved pelvis a dot. A foot whose stance an earlier pose
 * already drew (foot[side] == 0) ends at the ankle: the same footprint drawn
 * again, rolled onto its toe, would cross the first as a bow-tie. */
static void draw_record(canvas *cv, const panel *p, float oy, const record *r, const int foot[2])
{
    for (int which = 0; which < 2; ++which) {
        for (int side = 1; side >= 0; --side) {
            const cik_vec3 *o = which ? r->solved[side] : r->anim[side];
            cik_vec3 pel = which ? r->pelvis_solved : r->pelvis;
            /* pelvis, hip, knee, ankle, heel, toe, back to the ankle */
            const cik_vec3 *pts[7] = {&pel, &o[0], &o[1], &o[2], &o[3], &o[4], &o[2]};
            int n = foot[side] ? 7 : 4;
            float xy[14];
            for (int i = 0; i < n; ++i) {
                xy[2 * i] = screen_x(p, *pts[i]);
                xy[2 * i + 1] = screen_y(p, oy, *pts[i]);
            }
            if (which)
                cv_polyline(cv, xy, n, side ? 0xd03020u : 0x2050d0u, 1.8f, 0);
            else
                cv_polyline(cv, xy, n, 0xa0a0a0u, 1.0f, 1);
        }
        if (which) cv_disc(cv, screen_x(p, r->pelvis_solved), screen_y(p, oy, r->pelvis_solved), 3.0f, 0x000000u);
    }
}

/* Panel c at pixel row oy: its title, the ground along its walk, its
 * records. Returns the panel's bottom row. */
static float draw_panel(canvas *cv, const demo_scene *sc, int c, const panel *p, float oy)
{
    char line[256];
    snprintf(line, sizeof line, "character %d: %s%s", c, panel_titles[c],
             sc->opt->bvh_path ? " (the mocap clip on the procedural terrain)" : "");
    float panel_bottom = panel_ground(cv, p, oy, line);
    int drawn[2] = {0, 0}; /* the last stance whose foot is drawn, per side */
    for (int k = 0; k < sc->draw_frames; k += POSE_STEP) {
        const record *r = &sc->rec[(size_t)k * PANELS + (size_t)c];
        int foot[2];
        for (int side = 0; side < 2; ++side) {
            foot[side] = r->stance[side] == 0 || r->stance[side] != drawn[side];
            if (r->stance[side]) drawn[side] = r->stance[side];
        }
        draw_record(cv, p, oy, r, foot);
    }
    return panel_bottom;
}

int canvas_open(canvas *cv, const char *path, int png, float height, char *err, size_t errsz)
{
    memset(cv, 0, sizeof *cv);
    cv->w = (int)PICTURE_W;
    cv->h = (int)ceilf(height);
    if (!png) {
        cv->svg = fopen(path, "w");
        if (!cv->svg) {
            snprintf(err, errsz, "cannot write %s: %s", path, strerror(errno));
            return -1;
        }
        fprintf(cv->svg,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "font-family=\"sans-serif\" font-size=\"14\">\n<rect width=\"100%%\" height=\"100%%\" "
                "fill=\"white\"/>\n",
                PICTURE_W, height);
    } else {
        cv->rgb = malloc((size_t)cv->w * (size_t)cv->h * 3);
        if (!cv->rgb) {
            snprintf(err, errsz, "out of memory for the PNG");
            return -1;
        }
        memset(cv->rgb, 255, (size_t)cv->w * (size_t)cv->h * 3);
    }
    return 0;
}

int canvas_close(canvas *cv, const char *path, char *err, size_t errsz)
{
    if (cv->svg) {
        fprintf(cv->svg, "</svg>\n");
        int bad = ferror(cv->svg);
        bad |= fclose(cv->svg) != 0;
        cv->svg = NULL;
        if (bad) {
            snprintf(err, errsz, "cannot write %s", path);
            return -1;
        }
        return 0;
    }
    int rc = write_png(path, cv->rgb, cv->w, cv->h, err, errsz);
    free(cv->rgb);
    cv->rgb = NULL;
    return rc;
}

int draw_picture(const demo_scene *sc, const char *path, int png, char *err, size_t errsz)
{
    int panels = sc->characters < PANELS ? sc->characters : PANELS;
    panel pn[PANELS];
    float height_total = 40.0f;
    for (int c = 0; c < panels; ++c) {
        pn[c] = panel_of(sc, c);
        height_total += panel_height(&pn[c]); /* title 30, gap 10 */
    }
    canvas cv;
    if (canvas_open(&cv, path, png, height_total, err, errsz)) return -1;
    char line[256];
    snprintf(line, sizeof line,
             "crowdik foot placement, side view, a pose every %.2f s (grey dashed: animation; solid: solved, "
             "blue left leg, red right leg; dot: pelvis)",
             (double)(DRAW_EVERY * POSE_STEP) * DEMO_DT);
    cv_text(&cv, 10, 22, 16, line);
    float oy = 40.0f;
    for (int c = 0; c < panels; ++c) oy = draw_panel(&cv, sc, c, &pn[c], oy) + 10.0f;
    return canvas_close(&cv, path, err, errsz);
}
