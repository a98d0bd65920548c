/*
 * The demo's 3D view: records the crowd's legs frame by frame and writes one
 * HTML page that plays them with three.js (view.h; the page's script is
 * viewer/viewer.js, the format docs/viewer.md).
 *
 * Why the coding: 1,000 characters over 300 frames are 300,000
 * character-frames of 62 numbers each; as 16-bit integers that is 37 MB.
 * Motion at 60 Hz is smooth, so each number is predicted from its own last
 * two frames (linear extrapolation) and only the residual is stored,
 * Rice-coded with a parameter that adapts to each character's own recent
 * residuals. The numbers are chosen so that most residuals are 0: a hip
 * relative to the pelvis (rigid), a planted foot in world space (still), a
 * solved point relative to its animated one (a swing leg's solved pose is
 * the animated one lowered with the pelvis). The browser's decoder is a few
 * lines of integer arithmetic (viewer/viewer.js: decodeMotion).
 */
#define _POSIX_C_SOURCE 200809L
#include "view.h"

#include "bvh.h" /* bvh_read_file */

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Numbers per character and frame (docs/viewer.md: the slots). */
enum {
    SLOT_PELVIS = 0,      /* animated pelvis, world, mm (3) */
    SLOT_DROP = 3,        /* pelvis drop, mm */
    SLOT_SIDE = 4,        /* then 29 per side: */
    SIDE_ANIM = 0,        /*   animated hip, mm from the pelvis, then knee, ankle, heel, toe, world mm (15) */
    SIDE_SOLVED = 15,     /*   solved knee, ankle, heel, toe, mm from the animated ones (12) */
    SIDE_WEIGHT = 27,     /*   IK weight, in 255ths */
    SIDE_STATE = 28,      /*   VIEW_FOOT_* bits */
    SIDE_SLOTS = 29,
    SLOTS = SLOT_SIDE + 2 * SIDE_SLOTS
};

/* Rice code: a quotient >= ESCAPE is written as ESCAPE one-bits, the
 * zigzagged residual's bit count less one in 5 bits, and its bits (a foot
 * that starts to swing after a still stance, the first frame). */
#define ESCAPE 12
/* The adaptive parameter's statistics (sum of residuals, count) halve at
 * this count, so that k follows a foot from swing to stance in a few frames. */
#define CTX_RESET 8
#define CTX_CLAMP (1u << 20)
/* The statistics' start (sum, count 1) for frame 0's residuals (a pelvis's
 * world position: k = 12), frame 1's (a step's worth: k = 4), the later
 * frames' (k = 2) and the terrain's (k = 6). */
#define CTX_START_FRAME0 4096u
#define CTX_START_FRAME1 16u
#define CTX_START_LATER 4u
#define CTX_START_TERRAIN 64u

typedef struct bits {
    unsigned char *data;
    size_t bytes, cap;
    uint64_t acc; /* pending bits, MSB first */
    int pending;
    int failed;
} bits;

typedef struct ctx {
    uint32_t sum, count;
} ctx;

struct view {
    int characters, frames;
    float fps;
    char scene[256];
    cik_foot_leg (*leg)[2];
    cik_vec3 (*heel)[2], (*toe)[2];
    int32_t *prev1, *prev2; /* the last two frames' slots */
    ctx *per_character;     /* SLOTS per character, from frame 2 on */
    ctx first[2][SLOTS];    /* frames 0 and 1, shared by all characters */
    bits motion, terrain;
    float lo_x, hi_x, lo_z, hi_z; /* the area the crowd covered */
    char *report;
    size_t report_len;
    FILE *report_fp;
    int failed;
};

/* ---------------------------------------------------------------- bits */

static void bits_put(bits *b, uint32_t v, int n)
{
    if (n == 0) return;
    b->acc = (b->acc << n) | (n == 32 ? v : (v & ((1u << n) - 1u)));
    b->pending += n;
    while (b->pending >= 8) {
        if (b->bytes == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 65536;
            unsigned char *d = realloc(b->data, cap);
            if (!d) {
                b->failed = 1;
                b->pending = 0;
                return;
            }
            b->data = d;
            b->cap = cap;
        }
        b->pending -= 8;
        b->data[b->bytes++] = (unsigned char)(b->acc >> b->pending);
    }
}

static void bits_flush(bits *b)
{
    if (b->pending) bits_put(b, 0, 8 - b->pending);
}

static void rice_put(bits *b, ctx *c, int64_t residual)
{
    if (residual > INT32_MAX) residual = INT32_MAX;
    if (residual < -INT32_MAX) residual = -INT32_MAX;
    uint32_t z = residual >= 0 ? (uint32_t)(2 * residual) : (uint32_t)(-2 * residual - 1);
    int k = 0;
    while (k < 24 && ((uint64_t)c->count << k) < c->sum) ++k;
    uint32_t q = z >> k;
    if (q >= ESCAPE) {
        int n = 1;
        while (n < 32 && (z >> n)) ++n;
        bits_put(b, (1u << ESCAPE) - 1u, ESCAPE);
        bits_put(b, (uint32_t)(n - 1), 5);
        bits_put(b, z, n);
    } else {
        bits_put(b, ((1u << q) - 1u) << 1, (int)q + 1); /* q ones, a zero */
        bits_put(b, z, k);
    }
    c->sum += z < CTX_CLAMP ? z : CTX_CLAMP;
    if (++c->count == CTX_RESET) {
        c->sum >>= 1;
        c->count >>= 1;
    }
}

/* ---------------------------------------------------------------- math */

static cik_vec3 v3(float x, float y, float z)
{
    cik_vec3 v = {x, y, z};
    return v;
}
static cik_vec3 vadd(cik_vec3 a, cik_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static cik_quat qmul(cik_quat a, cik_quat b)
{
    cik_quat q = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return q;
}
static cik_vec3 qrot(cik_quat q, cik_vec3 v)
{
    cik_vec3 t = v3(2 * (q.y * v.z - q.z * v.y), 2 * (q.z * v.x - q.x * v.z), 2 * (q.x * v.y - q.y * v.x));
    return v3(v.x + q.w * t.x + (q.y * t.z - q.z * t.y), v.y + q.w * t.y + (q.z * t.x - q.x * t.z),
              v.z + q.w * t.z + (q.x * t.y - q.y * t.x));
}

/* Positions in steps of QUANTUM_MM: 2 mm is below what a view of a crowd
 * shows, and each halving of the step costs about one bit per moving number
 * (1,000 characters over 5 s: 6.8 MB at 1 mm, 5.9 MB at 2 mm). */
#define QUANTUM_MM 2

/* Quantised, clamped; a non-finite coordinate (a skipped chain's) draws at
 * the reference point instead of breaking the page. */
static int32_t mm(float metres)
{
    if (!isfinite(metres)) return 0;
    float v = metres * (1000.0f / QUANTUM_MM);
    if (v > 1e9f) v = 1e9f;
    if (v < -1e9f) v = -1e9f;
    return (int32_t)lrintf(v);
}

/* ---------------------------------------------------------------- recording */

const char *view_assets_dir(void)
{
    const char *env = getenv("CROWDIK_VIEWER_DIR");
    if (env && *env) return env;
#ifdef CROWDIK_VIEWER_DIR
    return CROWDIK_VIEWER_DIR;
#else
    return "viewer";
#endif
}

/* The files the page is made of, under the assets folder. */
static const char *const asset_files[] = {
    "page.html",
    "viewer.js",
    "node_modules/three/build/three.core.js",
    "node_modules/three/build/three.module.js",
    "node_modules/three/examples/jsm/controls/OrbitControls.js",
};
enum { ASSET_PAGE, ASSET_VIEWER, ASSET_CORE, ASSET_MODULE, ASSET_ORBIT, ASSET_COUNT };

int view_check_assets(const char *dir, char *err, size_t errsz)
{
    for (int i = 0; i < ASSET_COUNT; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, asset_files[i]);
        FILE *fp = fopen(path, "rb");
        if (fp) {
            fclose(fp);
            continue;
        }
        if (i >= ASSET_CORE)
            snprintf(err, errsz,
                     "--view needs three.js, which is not installed (%s: %s); install it with: npm ci --prefix %s",
                     path, strerror(errno), dir);
        else
            snprintf(err, errsz, "--view: cannot read the page's %s: %s (set CROWDIK_VIEWER_DIR to crowdik's viewer/)",
                     path, strerror(errno));
        return -1;
    }
    return 0;
}

view *view_create(int characters, float fps, const char *scene)
{
    view *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->characters = characters;
    v->fps = fps;
    snprintf(v->scene, sizeof v->scene, "%s", scene ? scene : "");
    size_t n = (size_t)characters;
    v->leg = calloc(n, sizeof *v->leg);
    v->heel = calloc(n, sizeof *v->heel);
    v->toe = calloc(n, sizeof *v->toe);
    v->prev1 = calloc(n * SLOTS, sizeof(int32_t));
    v->prev2 = calloc(n * SLOTS, sizeof(int32_t));
    v->per_character = calloc(n * SLOTS, sizeof(ctx));
    v->report_fp = open_memstream(&v->report, &v->report_len);
    if (!v->leg || !v->heel || !v->toe || !v->prev1 || !v->prev2 || !v->per_character || !v->report_fp) {
        view_destroy(v);
        return NULL;
    }
    for (size_t i = 0; i < n * SLOTS; ++i) v->per_character[i] = (ctx){CTX_START_LATER, 1};
    for (int f = 0; f < 2; ++f)
        for (int i = 0; i < SLOTS; ++i) v->first[f][i] = (ctx){f ? CTX_START_FRAME1 : CTX_START_FRAME0, 1};
    v->lo_x = v->lo_z = INFINITY;
    v->hi_x = v->hi_z = -INFINITY;
    return v;
}

void view_set_legs(view *v, int character, const cik_foot_leg leg[2], const cik_vec3 heel[2], const cik_vec3 toe[2])
{
    if (!v || character < 0 || character >= v->characters) return;
    for (int s = 0; s < 2; ++s) {
        v->leg[character][s] = leg[s];
        v->heel[character][s] = heel[s];
        v->toe[character][s] = toe[s];
    }
}

/* p - origin in mm, subtracted before rounding: a point rigid to its origin
 * (a hip on the pelvis) stays the same integer as both move. */
static void put_point(int32_t *slot, cik_vec3 p, cik_vec3 origin)
{
    slot[0] = mm(p.x - origin.x);
    slot[1] = mm(p.y - origin.y);
    slot[2] = mm(p.z - origin.z);
}

int view_frame(view *v, const cik_foot_streams *s, const unsigned char *foot_state)
{
    if (!v || v->failed) return -1;
    int32_t cur[SLOTS];
    for (int c = 0; c < v->characters; ++c) {
        cik_quat pq = {s->pelvis_qx[c], s->pelvis_qy[c], s->pelvis_qz[c], s->pelvis_qw[c]};
        cik_vec3 pp = v3(s->pelvis_x[c], s->pelvis_y[c], s->pelvis_z[c]);
        float drop = s->pelvis_drop[c];
        cur[SLOT_PELVIS + 0] = mm(pp.x);
        cur[SLOT_PELVIS + 1] = mm(pp.y);
        cur[SLOT_PELVIS + 2] = mm(pp.z);
        cur[SLOT_DROP] = mm(drop);
        if (isfinite(pp.x) && isfinite(pp.z)) {
            v->lo_x = fminf(v->lo_x, pp.x);
            v->hi_x = fmaxf(v->hi_x, pp.x);
            v->lo_z = fminf(v->lo_z, pp.z);
            v->hi_z = fmaxf(v->hi_z, pp.z);
        }
        for (int side = 0; side < 2; ++side) {
            int f = 2 * c + side;
            int32_t *o = cur + SLOT_SIDE + SIDE_SLOTS * side;
            const cik_foot_leg *leg = &v->leg[c][side];
            cik_vec3 anim[5];
            for (int solved = 0; solved < 2; ++solved) {
                cik_quat q[3];
                for (int j = 0; j < 3; ++j) {
                    cik_quat a = {s->pose_x[j][f], s->pose_y[j][f], s->pose_z[j][f], s->pose_w[j][f]};
                    cik_quat b = {s->solved_x[j][f], s->solved_y[j][f], s->solved_z[j][f], s->solved_w[j][f]};
                    q[j] = solved ? b : a;
                }
                cik_vec3 base = solved ? v3(pp.x, pp.y - drop, pp.z) : pp;
                cik_quat w0 = qmul(pq, q[0]), w1 = qmul(w0, q[1]), w2 = qmul(w1, q[2]);
                cik_vec3 hip = vadd(base, qrot(pq, leg->hip));
                cik_vec3 knee = vadd(hip, qrot(w0, leg->thigh));
                cik_vec3 ankle = vadd(knee, qrot(w1, leg->shin));
                cik_vec3 pts[5] = {hip, knee, ankle, vadd(ankle, qrot(w2, v->heel[c][side])),
                                   vadd(ankle, qrot(w2, v->toe[c][side]))};
                /* the solved hip is the animated one lowered by the drop: not stored */
                if (!solved) {
                    put_point(o + SIDE_ANIM, hip, pp);
                    for (int k = 1; k < 5; ++k) {
                        put_point(o + SIDE_ANIM + 3 * k, pts[k], v3(0, 0, 0));
                        anim[k] = pts[k];
                    }
                } else {
                    for (int k = 1; k < 5; ++k) put_point(o + SIDE_SOLVED + 3 * (k - 1), pts[k], anim[k]);
                }
            }
            float w = s->weight[f];
            w = isfinite(w) ? (w < 0 ? 0 : (w > 1 ? 1 : w)) : 0;
            o[SIDE_WEIGHT] = (int32_t)lrintf(w * 255.0f);
            o[SIDE_STATE] = foot_state ? foot_state[f] : (w >= 0.999f ? (int32_t)VIEW_FOOT_PLANTED : 0);
        }
        int32_t *p1 = v->prev1 + (size_t)c * SLOTS, *p2 = v->prev2 + (size_t)c * SLOTS;
        int64_t res[SLOTS];
        for (int i = 0; i < SLOTS; ++i) {
            int in_side = (i - SLOT_SIDE) % SIDE_SLOTS;
            int step = i >= SLOT_SIDE && in_side == SIDE_STATE;
            /* the first frame's world points start from the pelvis */
            int world = i >= SLOT_SIDE && in_side >= SIDE_ANIM + 3 && in_side < SIDE_SOLVED;
            int64_t predicted = v->frames == 0           ? (world ? cur[SLOT_PELVIS + in_side % 3] : 0)
                                : v->frames == 1 || step ? p1[i]
                                                         : 2 * (int64_t)p1[i] - p2[i];
            res[i] = (int64_t)cur[i] - predicted;
        }
        for (int i = 0; i < SLOTS; ++i) {
            /* heel and toe move with the ankle: their residuals less the ankle's */
            int64_t r = res[i];
            int in_side = (i - SLOT_SIDE) % SIDE_SLOTS;
            if (i >= SLOT_SIDE && ((in_side >= SIDE_ANIM + 9 && in_side < SIDE_ANIM + 15) ||
                                   (in_side >= SIDE_SOLVED + 6 && in_side < SIDE_SOLVED + 12)))
                r -= res[i - (in_side < SIDE_SOLVED ? (in_side - SIDE_ANIM - 6) / 3 * 3 : (in_side - SIDE_SOLVED - 3) / 3 * 3)];
            ctx *cx = v->frames < 2 ? &v->first[v->frames][i] : &v->per_character[(size_t)c * SLOTS + (size_t)i];
            rice_put(&v->motion, cx, r);
            p2[i] = p1[i];
            p1[i] = cur[i];
        }
    }
    v->frames++;
    if (v->motion.failed) v->failed = 1;
    return v->failed ? -1 : 0;
}

FILE *view_report(view *v) { return v ? v->report_fp : NULL; }

size_t view_motion_bytes(const view *v) { return v ? v->motion.bytes : 0; }
size_t view_terrain_bytes(const view *v) { return v ? v->terrain.bytes : 0; }

/* ---------------------------------------------------------------- the page */

/* At most this many terrain samples a side: the whole crowd's ground in one
 * mesh a software renderer still draws at speed; small scenes get 5 cm. */
#define TERRAIN_MAX 512
#define TERRAIN_MIN_SPACING 0.05f
#define TERRAIN_MARGIN 3.0f

typedef struct grid {
    float x0, z0, spacing;
    int nx, nz;
} grid;

static void code_terrain(view *v, float (*ground)(float x, float z), grid *g)
{
    float lo_x = v->lo_x - TERRAIN_MARGIN, lo_z = v->lo_z - TERRAIN_MARGIN;
    float ex = v->hi_x - v->lo_x + 2 * TERRAIN_MARGIN, ez = v->hi_z - v->lo_z + 2 * TERRAIN_MARGIN;
    if (!(ex > 0) || !(ez > 0)) ex = ez = 2 * TERRAIN_MARGIN, lo_x = lo_z = -TERRAIN_MARGIN;
    float sp = fmaxf(TERRAIN_MIN_SPACING, fmaxf(ex, ez) / (float)(TERRAIN_MAX - 1));
    g->spacing = sp;
    g->x0 = sp * floorf(lo_x / sp);
    g->z0 = sp * floorf(lo_z / sp);
    g->nx = (int)ceilf(ex / sp) + 2;
    g->nz = (int)ceilf(ez / sp) + 2;
    if (g->nx > TERRAIN_MAX) g->nx = TERRAIN_MAX;
    if (g->nz > TERRAIN_MAX) g->nz = TERRAIN_MAX;
    int32_t *row = malloc(sizeof(int32_t) * 2 * (size_t)g->nx);
    if (!row) {
        v->terrain.failed = 1;
        return;
    }
    /* rows predicted from the left, the one above and the one above-left
     * (a plane's height exactly) */
    ctx c = {CTX_START_TERRAIN, 1};
    for (int iz = 0; iz < g->nz; ++iz) {
        int32_t *cur = row + (iz & 1) * g->nx, *up = row + ((iz + 1) & 1) * g->nx;
        for (int ix = 0; ix < g->nx; ++ix) {
            cur[ix] = mm(ground(g->x0 + (float)ix * sp, g->z0 + (float)iz * sp));
            int64_t p = iz == 0 ? (ix ? cur[ix - 1] : 0)
                                : (ix ? (int64_t)cur[ix - 1] + up[ix] - up[ix - 1] : up[ix]);
            rice_put(&v->terrain, &c, cur[ix] - p);
        }
    }
    free(row);
    bits_flush(&v->terrain);
}

static void put_base64(FILE *fp, const unsigned char *d, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char out[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t x = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        out[0] = tab[x >> 18];
        out[1] = tab[(x >> 12) & 63];
        out[2] = i + 1 < n ? tab[(x >> 6) & 63] : '=';
        out[3] = i + 2 < n ? tab[x & 63] : '=';
        fwrite(out, 1, 4, fp);
    }
}

/* A JSON string; '<' as \u003c so that no text can close the script
 * element it sits in. */
static void put_json_string(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; ++s) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(fp, "\\%c", ch);
        else if (ch == '\n')
            fputs("\\n", fp);
        else if (ch < 0x20 || ch == '<')
            fprintf(fp, "\\u%04x", ch);
        else
            fputc(ch, fp);
    }
    fputc('"', fp);
}

static char *read_file(const char *path, size_t *len, char *err, size_t errsz)
{
    int open_errno;
    char *buf = bvh_read_file(path, len, &open_errno);
    if (!buf && open_errno)
        snprintf(err, errsz, "cannot read %s: %s", path, strerror(open_errno));
    else if (!buf)
        snprintf(err, errsz, "cannot read %s", path);
    return buf;
}

/* Script text goes into the page verbatim inside a <script> element, which
 * ends at the first "</script" whatever the quoting; such a file (none of
 * three.js's today) is refused rather than broken. */
static int script_safe(const char *s)
{
    for (; (s = strchr(s, '<')) != NULL; ++s)
        if (!strncmp(s, "<!--", 4) || (s[1] == '/' && !strncasecmp(s + 2, "script", 6))) return 0;
    return 1;
}

static void put_meta(FILE *fp, const view *v, const grid *g)
{
    fprintf(fp, "{\"format\": 1, \"characters\": %d, \"frames\": %d, \"fps\": %g, \"slots\": %d, \"quantumMm\": %d, ",
            v->characters, v->frames, (double)v->fps, SLOTS, QUANTUM_MM);
    fprintf(fp, "\"escape\": %d, \"contextReset\": %d, \"contextClamp\": %u, ", ESCAPE, CTX_RESET, CTX_CLAMP);
    fprintf(fp, "\"contextStart\": [%u, %u, %u, %u], ", CTX_START_FRAME0, CTX_START_FRAME1, CTX_START_LATER,
            CTX_START_TERRAIN);
    fprintf(fp, "\"motionBytes\": %zu, \"terrainBytes\": %zu, ", v->motion.bytes, v->terrain.bytes);
    fprintf(fp, "\"terrain\": {\"x0\": %.4f, \"z0\": %.4f, \"spacing\": %.4f, \"nx\": %d, \"nz\": %d}, ", (double)g->x0,
            (double)g->z0, (double)g->spacing, g->nx, g->nz);
    fputs("\"scene\": ", fp);
    put_json_string(fp, v->scene);
    fputs(", \"report\": ", fp);
    put_json_string(fp, v->report ? v->report : "");
    fputs("}", fp);
}

int view_write(view *v, const char *path, const char *dir, float (*ground)(float x, float z), char *err,
               size_t errsz)
{
    if (!v || v->failed || v->frames == 0) {
        snprintf(err, errsz, "%s", v && v->frames == 0 ? "no frames recorded" : "out of memory for the view");
        return -1;
    }
    fflush(v->report_fp);
    bits_flush(&v->motion);
    grid g;
    code_terrain(v, ground, &g);
    if (v->motion.failed || v->terrain.failed) {
        snprintf(err, errsz, "out of memory for the view");
        return -1;
    }
    char *asset[ASSET_COUNT] = {0};
    size_t len[ASSET_COUNT];
    int rc = -1;
    for (int i = 0; i < ASSET_COUNT; ++i) {
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, asset_files[i]);
        if (!(asset[i] = read_file(p, &len[i], err, errsz))) goto done;
        if (i != ASSET_PAGE && !script_safe(asset[i])) {
            snprintf(err, errsz, "%s holds '</script' or '<!--' and cannot be inlined", p);
            goto done;
        }
    }
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        snprintf(err, errsz, "cannot write %s: %s", path, strerror(errno));
        goto done;
    }
    /* the template with @NAME@ markers replaced */
    const char *t = asset[ASSET_PAGE];
    for (const char *m; (m = strchr(t, '@')) != NULL;) {
        fwrite(t, 1, (size_t)(m - t), fp);
        static const char *const names[] = {"@THREE_CORE@", "@THREE_MODULE@", "@ORBIT_CONTROLS@", "@VIEWER_JS@",
                                            "@META@", "@MOTION@", "@TERRAIN@"};
        int which = -1;
        for (int k = 0; k < 7 && which < 0; ++k)
            if (!strncmp(m, names[k], strlen(names[k]))) which = k;
        if (which < 0) {
            fputc('@', fp);
            t = m + 1;
            continue;
        }
        switch (which) {
        case 0: fwrite(asset[ASSET_CORE], 1, len[ASSET_CORE], fp); break;
        case 1: fwrite(asset[ASSET_MODULE], 1, len[ASSET_MODULE], fp); break;
        case 2: fwrite(asset[ASSET_ORBIT], 1, len[ASSET_ORBIT], fp); break;
        case 3: fwrite(asset[ASSET_VIEWER], 1, len[ASSET_VIEWER], fp); break;
        case 4: put_meta(fp, v, &g); break;
        case 5: put_base64(fp, v->motion.data, v->motion.bytes); break;
        default: put_base64(fp, v->terrain.data, v->terrain.bytes); break;
        }
        t = m + strlen(names[which]);
    }
    fputs(t, fp);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad)
        snprintf(err, errsz, "cannot write %s", path);
    else
        rc = 0;
done:
    for (int i = 0; i < ASSET_COUNT; ++i) free(asset[i]);
    return rc;
}

void view_destroy(view *v)
{
    if (!v) return;
    if (v->report_fp) fclose(v->report_fp);
    free(v->report);
    free(v->leg);
    free(v->heel);
    free(v->toe);
    free(v->prev1);
    free(v->prev2);
    free(v->per_character);
    free(v->motion.data);
    free(v->terrain.data);
    free(v);
}
