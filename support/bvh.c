/* BVH loader (see bvh.h). */
#define _POSIX_C_SOURCE 200809L
#include "bvh.h"

#include "scalar_math.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define BVH_MAX_JOINTS 4096
#define BVH_MAX_DEPTH 256
#define BVH_MAX_FRAMES 10000000

typedef struct lexer {
    const char *p, *end;
    int line;
    char tok[256];
    int tok_line;
    char *err;
    size_t err_size;
} lexer;

static void fail(lexer *lx, int line, const char *fmt, ...)
{
    if (!lx->err || !lx->err_size) return;
    int n = snprintf(lx->err, lx->err_size, "line %d: ", line);
    if (n < 0 || (size_t)n >= lx->err_size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lx->err + n, lx->err_size - (size_t)n, fmt, ap);
    va_end(ap);
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

/* Next whitespace-separated token; 0 at the end of the text. */
static int next(lexer *lx)
{
    while (lx->p < lx->end && is_space(*lx->p)) {
        if (*lx->p == '\n') lx->line++;
        lx->p++;
    }
    if (lx->p >= lx->end) {
        lx->tok[0] = 0;
        lx->tok_line = lx->line;
        return 0;
    }
    size_t n = 0;
    lx->tok_line = lx->line;
    while (lx->p < lx->end && !is_space(*lx->p)) {
        if (n + 1 < sizeof lx->tok) lx->tok[n++] = *lx->p;
        lx->p++;
    }
    lx->tok[n] = 0;
    return 1;
}

/* The next token; at the end of the file 0 and the failure "expected
 * <what>, found the end of the file" (`what` in quotes where quoted). */
static int need(lexer *lx, const char *what, int quoted)
{
    if (next(lx)) return 1;
    fail(lx, lx->tok_line,
         quoted ? "expected '%s', found the end of the file" : "expected %s, found the end of the file", what);
    return 0;
}

static int expect(lexer *lx, const char *word)
{
    if (!need(lx, word, 1)) return -1;
    if (strcasecmp(lx->tok, word) != 0) {
        fail(lx, lx->tok_line, "expected '%s', found '%.40s'", word, lx->tok);
        return -1;
    }
    return 0;
}

static int parse_float_tok(const char *s, double *out)
{
    if (!*s) return -1;
    char *e;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e != 0 || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int number(lexer *lx, double *out, const char *what)
{
    if (!need(lx, what, 0)) return -1;
    if (parse_float_tok(lx->tok, out) != 0) {
        fail(lx, lx->tok_line, "expected %s, found '%.40s'", what, lx->tok);
        return -1;
    }
    return 0;
}

static int channel_code(const char *s)
{
    static const char *names[6] = {"Xposition", "Yposition", "Zposition",
                                   "Xrotation", "Yrotation", "Zrotation"};
    for (int i = 0; i < 6; ++i)
        if (strcasecmp(s, names[i]) == 0) return i;
    return -1;
}

static int offset3(lexer *lx, float o[3])
{
    if (expect(lx, "OFFSET")) return -1;
    for (int k = 0; k < 3; ++k) {
        double v;
        if (number(lx, &v, "an OFFSET value")) return -1;
        o[k] = (float)v;
    }
    return 0;
}

/* Parses a joint body after its name (from '{' to '}'). */
static int joint_body(lexer *lx, bvh_clip *c, int *cap, int index, int depth)
{
    if (depth > BVH_MAX_DEPTH) {
        fail(lx, lx->tok_line, "hierarchy nested deeper than %d", BVH_MAX_DEPTH);
        return -1;
    }
    if (expect(lx, "{")) return -1;
    if (offset3(lx, c->joints[index].offset)) return -1;
    if (expect(lx, "CHANNELS")) return -1;
    double n;
    if (number(lx, &n, "a channel count")) return -1;
    if (n < 0 || n > 6 || n != floor(n)) {
        fail(lx, lx->tok_line, "channel count %.40s is not 0..6", lx->tok);
        return -1;
    }
    bvh_joint *j = &c->joints[index];
    j->channel_count = (int)n;
    j->channel_offset = c->channel_count;
    for (int k = 0; k < j->channel_count; ++k) {
        if (!need(lx, "a channel name", 0)) return -1;
        int code = channel_code(lx->tok);
        if (code < 0) {
            fail(lx, lx->tok_line, "unknown channel '%.40s'", lx->tok);
            return -1;
        }
        j->channels[k] = code;
    }
    c->channel_count += j->channel_count;
    for (;;) {
        if (!next(lx)) {
            fail(lx, lx->tok_line, "missing '}' (the file ends inside joint '%s')",
                 c->joints[index].name);
            return -1;
        }
        if (strcmp(lx->tok, "}") == 0) return 0;
        if (strcasecmp(lx->tok, "JOINT") == 0) {
            if (!next(lx)) {
                fail(lx, lx->tok_line, "expected a joint name");
                return -1;
            }
            if (c->joint_count >= BVH_MAX_JOINTS) {
                fail(lx, lx->tok_line, "more than %d joints", BVH_MAX_JOINTS);
                return -1;
            }
            if (c->joint_count == *cap) {
                int nc = *cap * 2;
                bvh_joint *nj = realloc(c->joints, sizeof(bvh_joint) * (size_t)nc);
                if (!nj) {
                    fail(lx, lx->tok_line, "out of memory");
                    return -1;
                }
                c->joints = nj;
                *cap = nc;
            }
            int child = c->joint_count++;
            memset(&c->joints[child], 0, sizeof(bvh_joint));
            snprintf(c->joints[child].name, BVH_NAME_MAX, "%.63s", lx->tok);
            c->joints[child].parent = index;
            if (joint_body(lx, c, cap, child, depth + 1)) return -1;
        } else if (strcasecmp(lx->tok, "End") == 0) {
            if (expect(lx, "Site")) return -1;
            if (expect(lx, "{")) return -1;
            bvh_joint *jj = &c->joints[index];
            if (offset3(lx, jj->end_offset)) return -1;
            jj->has_end = 1;
            if (expect(lx, "}")) return -1;
        } else {
            fail(lx, lx->tok_line, "expected JOINT, End Site or '}', found '%.40s'", lx->tok);
            return -1;
        }
    }
}

int bvh_parse(const char *text, size_t len, bvh_clip *out, char *err, size_t err_size)
{
    if (err && err_size) err[0] = 0;
    if (!out) return -1;
    memset(out, 0, sizeof *out);
    lexer lx = {text, text ? text + len : NULL, 1, {0}, 1, err, err_size};
    if (!text) {
        fail(&lx, 0, "no text");
        return -1;
    }
    bvh_clip c;
    memset(&c, 0, sizeof c);
    int cap = 64;
    c.joints = calloc((size_t)cap, sizeof(bvh_joint));
    if (!c.joints) {
        fail(&lx, 1, "out of memory");
        return -1;
    }
    /* skip a UTF-8 byte-order mark */
    if (len >= 3 && (unsigned char)text[0] == 0xEF && (unsigned char)text[1] == 0xBB &&
        (unsigned char)text[2] == 0xBF)
        lx.p += 3;
    if (expect(&lx, "HIERARCHY")) goto bad;
    if (expect(&lx, "ROOT")) goto bad;
    if (!next(&lx)) {
        fail(&lx, lx.tok_line, "expected the root's name");
        goto bad;
    }
    c.joint_count = 1;
    snprintf(c.joints[0].name, BVH_NAME_MAX, "%.63s", lx.tok);
    c.joints[0].parent = -1;
    if (joint_body(&lx, &c, &cap, 0, 0)) goto bad;
    if (expect(&lx, "MOTION")) goto bad;
    /* "Frames:" N (also "Frames" ":" N or "Frames:N") */
    if (!next(&lx) || strncasecmp(lx.tok, "Frames", 6) != 0) {
        fail(&lx, lx.tok_line, "expected 'Frames:', found '%.40s'", lx.tok);
        goto bad;
    }
    double frames;
    {
        const char *rest = lx.tok + 6;
        if (*rest == ':') rest++;
        else if (*rest == 0) {
            if (expect(&lx, ":")) goto bad;
        } else {
            fail(&lx, lx.tok_line, "expected 'Frames:', found '%.40s'", lx.tok);
            goto bad;
        }
        if (*rest) {
            if (parse_float_tok(rest, &frames)) {
                fail(&lx, lx.tok_line, "bad frame count '%.40s'", rest);
                goto bad;
            }
        } else if (number(&lx, &frames, "the frame count")) {
            goto bad;
        }
    }
    if (frames < 0 || frames > BVH_MAX_FRAMES || frames != floor(frames)) {
        fail(&lx, lx.tok_line, "bad frame count %.0f", frames);
        goto bad;
    }
    if (expect(&lx, "Frame")) goto bad;
    if (!next(&lx) || strncasecmp(lx.tok, "Time:", 5) != 0) {
        fail(&lx, lx.tok_line, "expected 'Time:', found '%.40s'", lx.tok);
        goto bad;
    }
    double ft;
    if (lx.tok[5]) {
        if (parse_float_tok(lx.tok + 5, &ft)) {
            fail(&lx, lx.tok_line, "bad frame time '%.40s'", lx.tok + 5);
            goto bad;
        }
    } else if (number(&lx, &ft, "the frame time")) {
        goto bad;
    }
    if (!(ft > 0.0)) {
        fail(&lx, lx.tok_line, "frame time must be positive");
        goto bad;
    }
    c.frame_count = (int)frames;
    c.frame_time = ft;
    if (c.channel_count == 0 && c.frame_count > 0) {
        fail(&lx, lx.tok_line, "the hierarchy has no channels");
        goto bad;
    }
    size_t values = (size_t)c.frame_count * (size_t)c.channel_count;
    c.motion = malloc(values ? values * sizeof(float) : sizeof(float));
    if (!c.motion) {
        fail(&lx, lx.tok_line, "out of memory for %d frames", c.frame_count);
        goto bad;
    }
    /* frames: one row per line, exactly channel_count values each */
    for (int f = 0; f < c.frame_count; ++f) {
        /* skip to the first non-blank line */
        while (lx.p < lx.end && is_space(*lx.p)) {
            if (*lx.p == '\n') lx.line++;
            lx.p++;
        }
        if (lx.p >= lx.end) {
            fail(&lx, lx.line, "the file ends after %d of %d frames", f, c.frame_count);
            goto bad;
        }
        int row_line = lx.line;
        int k = 0;
        for (;;) {
            while (lx.p < lx.end && (*lx.p == ' ' || *lx.p == '\t' || *lx.p == '\r')) lx.p++;
            if (lx.p >= lx.end || *lx.p == '\n') break;
            next(&lx);
            double v;
            if (parse_float_tok(lx.tok, &v)) {
                fail(&lx, row_line, "frame %d: bad number '%.40s'", f, lx.tok);
                goto bad;
            }
            if (k >= c.channel_count) {
                fail(&lx, row_line, "frame %d has more than %d values", f, c.channel_count);
                goto bad;
            }
            c.motion[(size_t)f * (size_t)c.channel_count + (size_t)k++] = (float)v;
        }
        if (k != c.channel_count) {
            fail(&lx, row_line, "frame %d has %d values, expected %d", f, k, c.channel_count);
            goto bad;
        }
    }
    if (next(&lx)) {
        fail(&lx, lx.tok_line, "unexpected '%.40s' after the %d declared frames", lx.tok,
             c.frame_count);
        goto bad;
    }
    *out = c;
    return 0;
bad:
    free(c.joints);
    free(c.motion);
    return -1;
}

char *bvh_read_file(const char *path, size_t *len, int *open_errno)
{
    *open_errno = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        *open_errno = errno ? errno : EIO;
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        n += fread(buf + n, 1, cap - n, fp);
        if (n < cap) break;
        /* 1 GiB at most: past that a clip is a mistake, not motion */
        char *nb = cap < ((size_t)1 << 30) ? realloc(buf, 2 * cap + 1) : NULL;
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int read_error = ferror(fp);
    fclose(fp);
    if (!buf || read_error) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int bvh_load(const char *path, bvh_clip *out, char *err, size_t err_size)
{
    if (out) memset(out, 0, sizeof *out);
    size_t len = 0;
    int open_errno;
    char *buf = bvh_read_file(path, &len, &open_errno);
    if (!buf) {
        if (err && err_size) {
            if (open_errno)
                snprintf(err, err_size, "%s: %s", path, strerror(open_errno));
            else
                snprintf(err, err_size, "%s: cannot read the file", path);
        }
        return -1;
    }
    char msg[256];
    int rc = bvh_parse(buf, len, out, msg, sizeof msg);
    free(buf);
    if (rc != 0 && err && err_size) snprintf(err, err_size, "%s: %s", path, msg);
    return rc;
}

void bvh_free(bvh_clip *c)
{
    if (!c) return;
    free(c->joints);
    free(c->motion);
    memset(c, 0, sizeof *c);
}

static const char *base_name(const char *s)
{
    const char *colon = strrchr(s, ':');
    return colon ? colon + 1 : s;
}

int bvh_find_joint(const bvh_clip *c, const char *name)
{
    if (!c || !name) return -1;
    for (int i = 0; i < c->joint_count; ++i)
        if (strcasecmp(c->joints[i].name, name) == 0) return i;
    for (int i = 0; i < c->joint_count; ++i)
        if (strcasecmp(base_name(c->joints[i].name), name) == 0) return i;
    return -1;
}

int bvh_find_leg(const bvh_clip *c, const char *hip, const char *knee, const char *ankle,
                 const char *toe, bvh_leg *out, char *err, size_t err_size)
{
    const char *names[3] = {hip, knee, ankle};
    int idx[3];
    for (int k = 0; k < 3; ++k) {
        idx[k] = bvh_find_joint(c, names[k]);
        if (idx[k] < 0) {
            if (err && err_size) snprintf(err, err_size, "no joint named '%s'", names[k] ? names[k] : "");
            return -1;
        }
    }
    if (c->joints[idx[1]].parent != idx[0] || c->joints[idx[2]].parent != idx[1]) {
        if (err && err_size)
            snprintf(err, err_size, "'%s' -> '%s' -> '%s' is not a parent-child chain", hip, knee, ankle);
        return -1;
    }
    int t = -1;
    if (toe) {
        t = bvh_find_joint(c, toe);
        if (t < 0 || c->joints[t].parent != idx[2]) {
            if (err && err_size) snprintf(err, err_size, "no toe joint '%s' under '%s'", toe, ankle);
            return -1;
        }
    } else if (!c->joints[idx[2]].has_end) {
        for (int i = 0; i < c->joint_count; ++i)
            if (c->joints[i].parent == idx[2]) {
                t = i;
                break;
            }
        if (t < 0) {
            if (err && err_size) snprintf(err, err_size, "'%s' has no toe (no child, no End Site)", ankle);
            return -1;
        }
    }
    out->hip = idx[0];
    out->knee = idx[1];
    out->ankle = idx[2];
    out->toe = t;
    return 0;
}

int bvh_find_legs(const bvh_clip *c, bvh_leg legs[2], char *err, size_t err_size)
{
    static const char *schemes[][2][4] = {
        {{"LeftUpLeg", "LeftLeg", "LeftFoot", "LeftToeBase"},
         {"RightUpLeg", "RightLeg", "RightFoot", "RightToeBase"}},
        {{"LeftUpLeg", "LeftLeg", "LeftFoot", NULL}, {"RightUpLeg", "RightLeg", "RightFoot", NULL}},
        {{"lThigh", "lShin", "lFoot", NULL}, {"rThigh", "rShin", "rFoot", NULL}},
        {{"LeftHip", "LeftKnee", "LeftAnkle", NULL}, {"RightHip", "RightKnee", "RightAnkle", NULL}},
        {{"L_Hip", "L_Knee", "L_Ankle", NULL}, {"R_Hip", "R_Knee", "R_Ankle", NULL}},
    };
    for (size_t s = 0; s < sizeof schemes / sizeof schemes[0]; ++s) {
        bvh_leg l[2];
        int ok = 1;
        for (int side = 0; side < 2 && ok; ++side) {
            const char *const *n = schemes[s][side];
            if (bvh_find_leg(c, n[0], n[1], n[2], n[3], &l[side], NULL, 0) != 0) ok = 0;
        }
        if (ok) {
            legs[0] = l[0];
            legs[1] = l[1];
            return 0;
        }
    }
    if (err && err_size)
        snprintf(err, err_size,
                 "no legs found (tried LeftUpLeg/LeftLeg/LeftFoot[/LeftToeBase], "
                 "lThigh/lShin/lFoot, LeftHip/LeftKnee/LeftAnkle); name them with --legs");
    return -1;
}

void bvh_pose(const bvh_clip *c, int frame, cik_vec3 *pos, cik_quat *rot, cik_vec3 *end)
{
    if (frame < 0) frame = 0;
    if (frame >= c->frame_count) frame = c->frame_count - 1;
    const float *row = c->frame_count > 0 ? c->motion + (size_t)frame * (size_t)c->channel_count : NULL;
    const double deg = 3.14159265358979323846 / 180.0;
    for (int i = 0; i < c->joint_count; ++i) {
        const bvh_joint *j = &c->joints[i];
        cik_vec3 t = {j->offset[0], j->offset[1], j->offset[2]};
        cik_quat q = {0, 0, 0, 1};
        for (int k = 0; row && k < j->channel_count; ++k) {
            float v = row[j->channel_offset + k];
            int ch = j->channels[k];
            if (ch <= BVH_ZPOS) {
                if (ch == BVH_XPOS) t.x += v;
                else if (ch == BVH_YPOS) t.y += v;
                else t.z += v;
            } else {
                double h = 0.5 * v * deg;
                float s = (float)sin(h);
                cik_quat r = {ch == BVH_XROT ? s : 0.0f, ch == BVH_YROT ? s : 0.0f,
                              ch == BVH_ZROT ? s : 0.0f, (float)cos(h)};
                q = quat_mul(q, r);
            }
        }
        if (j->parent < 0) {
            pos[i] = t;
            rot[i] = q;
        } else {
            cik_vec3 o = quat_rotate(rot[j->parent], t);
            cik_vec3 pp = pos[j->parent];
            pos[i].x = pp.x + o.x;
            pos[i].y = pp.y + o.y;
            pos[i].z = pp.z + o.z;
            rot[i] = quat_mul(rot[j->parent], q);
        }
        if (end) {
            if (j->has_end) {
                cik_vec3 e = {j->end_offset[0], j->end_offset[1], j->end_offset[2]};
                cik_vec3 o = quat_rotate(rot[i], e);
                end[i].x = pos[i].x + o.x;
                end[i].y = pos[i].y + o.y;
                end[i].z = pos[i].z + o.z;
            } else {
                end[i] = pos[i];
            }
        }
    }
}

cik_vec3 bvh_toe_position(const bvh_clip *c, const bvh_leg *leg, const cik_vec3 *pos,
                          const cik_vec3 *end)
{
    if (leg->toe >= 0) return c->joints[leg->toe].has_end ? end[leg->toe] : pos[leg->toe];
    return end[leg->ankle];
}

float bvh_detect_scale(const bvh_clip *c, const bvh_leg *leg)
{
    const float *a = c->joints[leg->knee].offset, *b = c->joints[leg->ankle].offset;
    double len = sqrt((double)a[0] * a[0] + (double)a[1] * a[1] + (double)a[2] * a[2]) +
                 sqrt((double)b[0] * b[0] + (double)b[1] * b[1] + (double)b[2] * b[2]);
    static const double candidates[] = {1.0, 0.01, 0.001, 0.0254, 0.0254 / 0.45};
    double best = 1.0, best_err = 1e30;
    if (!(len > 0.0)) return 1.0f;
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; ++i) {
        double e = fabs(log(len * candidates[i] / 0.82)); /* a typical hip-to-ankle length */
        if (e < best_err) {
            best_err = e;
            best = candidates[i];
        }
    }
    return (float)best;
}
