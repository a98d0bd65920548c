/* The textbook CCD baseline (see textbook.h). */
#include "textbook.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 4x4 matrices are column-major: m[col * 4 + row]; translation m[12..14]. */
typedef struct tb_node {
    float local[16];
    float world[16];
    int parent, first_child, next_sibling;
    int joint;      /* 1 for a joint node */
    cik_limit limit;
} tb_node;

typedef struct tb_scene {
    int first_node; /* into tb_set.nodes: root, joints 0..J-1, effector */
    cik_vec3 target;
    float error;
    int passes, converged;
} tb_scene;

struct tb_set {
    int count, joints, nodes_per_scene;
    tb_node *nodes;
    tb_scene *scenes;
    float *start_local; /* the start pose: each node's local matrix */
};

/* ---- small matrix and vector functions --------------------------------- */

static void mat_identity(float *m)
{
    memset(m, 0, sizeof(float) * 16);
    m[0] = m[5] = m[10] = m[15] = 1.0f;
}

static void mat_mul(float *out, const float *a, const float *b)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r)
            out[c * 4 + r] = a[0 * 4 + r] * b[c * 4 + 0] + a[1 * 4 + r] * b[c * 4 + 1] +
                             a[2 * 4 + r] * b[c * 4 + 2] + a[3 * 4 + r] * b[c * 4 + 3];
}

/* Rotation part from a unit quaternion; translation left alone. */
static void mat_set_rotation_quat(float *m, float x, float y, float z, float w)
{
    m[0] = 1 - 2 * (y * y + z * z);
    m[1] = 2 * (x * y + z * w);
    m[2] = 2 * (x * z - y * w);
    m[4] = 2 * (x * y - z * w);
    m[5] = 1 - 2 * (x * x + z * z);
    m[6] = 2 * (y * z + x * w);
    m[8] = 2 * (x * z + y * w);
    m[9] = 2 * (y * z - x * w);
    m[10] = 1 - 2 * (x * x + y * y);
}

/* Rodrigues: rotation by `angle` about the unit axis (x, y, z), as a 3x3
 * stored column-major in r[9]. */
static void rot3_axis_angle(float *r, float x, float y, float z, float angle)
{
    float c = cosf(angle), s = sinf(angle), t = 1.0f - c;
    r[0] = c + t * x * x;
    r[1] = t * x * y + s * z;
    r[2] = t * x * z - s * y;
    r[3] = t * x * y - s * z;
    r[4] = c + t * y * y;
    r[5] = t * y * z + s * x;
    r[6] = t * x * z + s * y;
    r[7] = t * y * z - s * x;
    r[8] = c + t * z * z;
}

/* The world rotation re-extracted from a world matrix: its 3x3 part with
 * each column normalised (removes any scale). */
static void rot3_from_mat(float *r, const float *m)
{
    for (int c = 0; c < 3; ++c) {
        float x = m[c * 4 + 0], y = m[c * 4 + 1], z = m[c * 4 + 2];
        float n = sqrtf(x * x + y * y + z * z);
        float k = n > 0.0f ? 1.0f / n : 0.0f;
        r[c * 3 + 0] = x * k;
        r[c * 3 + 1] = y * k;
        r[c * 3 + 2] = z * k;
    }
}

static void rot3_mul(float *out, const float *a, const float *b)
{
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            out[c * 3 + r] = a[0 * 3 + r] * b[c * 3 + 0] + a[1 * 3 + r] * b[c * 3 + 1] + a[2 * 3 + r] * b[c * 3 + 2];
}

/* out = transpose(a) * b (inverse of a rotation times b). */
static void rot3_tmul(float *out, const float *a, const float *b)
{
    for (int c = 0; c < 3; ++c)
        for (int r = 0; r < 3; ++r)
            out[c * 3 + r] = a[r * 3 + 0] * b[c * 3 + 0] + a[r * 3 + 1] * b[c * 3 + 1] + a[r * 3 + 2] * b[c * 3 + 2];
}

/* Quaternion (x, y, z, w) of a rotation matrix (the trace method). */
static void quat_from_rot3(const float *m, float *q)
{
    float tr = m[0] + m[4] + m[8];
    if (tr > 0.0f) {
        float s = sqrtf(tr + 1.0f) * 2.0f;
        q[3] = 0.25f * s;
        q[0] = (m[5] - m[7]) / s;
        q[1] = (m[6] - m[2]) / s;
        q[2] = (m[1] - m[3]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        float s = sqrtf(1.0f + m[0] - m[4] - m[8]) * 2.0f;
        q[3] = (m[5] - m[7]) / s;
        q[0] = 0.25f * s;
        q[1] = (m[3] + m[1]) / s;
        q[2] = (m[6] + m[2]) / s;
    } else if (m[4] > m[8]) {
        float s = sqrtf(1.0f + m[4] - m[0] - m[8]) * 2.0f;
        q[3] = (m[6] - m[2]) / s;
        q[0] = (m[3] + m[1]) / s;
        q[1] = 0.25f * s;
        q[2] = (m[7] + m[5]) / s;
    } else {
        float s = sqrtf(1.0f + m[8] - m[0] - m[4]) * 2.0f;
        q[3] = (m[1] - m[3]) / s;
        q[0] = (m[6] + m[2]) / s;
        q[1] = (m[7] + m[5]) / s;
        q[2] = 0.25f * s;
    }
}

static void rot3_from_quat(float *r, const float *q)
{
    float m[16];
    mat_set_rotation_quat(m, q[0], q[1], q[2], q[3]);
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) r[c * 3 + k] = m[c * 4 + k];
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

/* ---- joint limits ------------------------------------------------------ */

/* Hinge: the local rotation as axis-angle, its angle about the hinge axis
 * (2 atan2(sin(a/2) (n . h), cos(a/2))) clamped, rebuilt about the axis. */
static void limit_hinge(float *r, const cik_limit *l)
{
    float c = clampf(0.5f * (r[0] + r[4] + r[8] - 1.0f), -1.0f, 1.0f);
    float angle = acosf(c);
    float nx = r[5] - r[7], ny = r[6] - r[2], nz = r[1] - r[3];
    float n = sqrtf(nx * nx + ny * ny + nz * nz);
    float along = 0.0f;
    if (n > 1e-6f) along = (nx * l->axis.x + ny * l->axis.y + nz * l->axis.z) / n;
    float hinge = 2.0f * atan2f(sinf(0.5f * angle) * along, cosf(0.5f * angle));
    hinge = clampf(hinge, l->min_angle, l->max_angle);
    rot3_axis_angle(r, l->axis.x, l->axis.y, l->axis.z, hinge);
}

/* Swing-twist: split the rotation's quaternion into swing * twist about the
 * axis, clamp the twist angle (atan2) and the swing angle (acos). */
static void limit_swing_twist(float *r, const cik_limit *l)
{
    float q[4];
    quat_from_rot3(r, q);
    if (q[3] < 0.0f)
        for (int k = 0; k < 4; ++k) q[k] = -q[k];
    float ax = l->axis.x, ay = l->axis.y, az = l->axis.z;
    float d = q[0] * ax + q[1] * ay + q[2] * az;
    float tw[4] = {d * ax, d * ay, d * az, q[3]};
    float tn = sqrtf(tw[0] * tw[0] + tw[1] * tw[1] + tw[2] * tw[2] + tw[3] * tw[3]);
    if (tn > 1e-9f) {
        for (int k = 0; k < 4; ++k) tw[k] /= tn;
    } else {
        tw[0] = tw[1] = tw[2] = 0.0f;
        tw[3] = 1.0f;
    }
    /* swing = q * conj(twist) */
    float sw[4] = {-q[3] * tw[0] + q[0] * tw[3] - q[1] * tw[2] + q[2] * tw[1],
                   -q[3] * tw[1] + q[1] * tw[3] - q[2] * tw[0] + q[0] * tw[2],
                   -q[3] * tw[2] + q[2] * tw[3] - q[0] * tw[1] + q[1] * tw[0],
                   q[3] * tw[3] + q[0] * tw[0] + q[1] * tw[1] + q[2] * tw[2]};
    float twist = 2.0f * atan2f(tw[0] * ax + tw[1] * ay + tw[2] * az, tw[3]);
    twist = clampf(twist, l->min_angle, l->max_angle);
    tw[0] = sinf(0.5f * twist) * ax;
    tw[1] = sinf(0.5f * twist) * ay;
    tw[2] = sinf(0.5f * twist) * az;
    tw[3] = cosf(0.5f * twist);
    if (sw[3] < 0.0f)
        for (int k = 0; k < 4; ++k) sw[k] = -sw[k];
    float swing = 2.0f * acosf(clampf(sw[3], -1.0f, 1.0f));
    if (swing > l->swing_max) {
        float sn = sqrtf(sw[0] * sw[0] + sw[1] * sw[1] + sw[2] * sw[2]);
        if (sn > 1e-9f) {
            float s = sinf(0.5f * l->swing_max) / sn;
            sw[0] *= s;
            sw[1] *= s;
            sw[2] *= s;
            sw[3] = cosf(0.5f * l->swing_max);
        }
    }
    /* q = swing * twist */
    float out[4] = {sw[3] * tw[0] + sw[0] * tw[3] + sw[1] * tw[2] - sw[2] * tw[1],
                    sw[3] * tw[1] - sw[0] * tw[2] + sw[1] * tw[3] + sw[2] * tw[0],
                    sw[3] * tw[2] + sw[0] * tw[1] - sw[1] * tw[0] + sw[2] * tw[3],
                    sw[3] * tw[3] - sw[0] * tw[0] - sw[1] * tw[1] - sw[2] * tw[2]};
    rot3_from_quat(r, out);
}

/* ---- the scene graph --------------------------------------------------- */

/* world = parent's world * local for `n` and its whole subtree. */
static void update_world(tb_node *nodes, int n)
{
    tb_node *node = &nodes[n];
    if (node->parent < 0)
        memcpy(node->world, node->local, sizeof node->world);
    else
        mat_mul(node->world, nodes[node->parent].world, node->local);
    for (int c = node->first_child; c >= 0; c = nodes[c].next_sibling) update_world(nodes, c);
}

static void add_child(tb_node *nodes, int parent, int child)
{
    nodes[child].parent = parent;
    nodes[child].next_sibling = nodes[parent].first_child;
    nodes[parent].first_child = child;
}

static void load_chain(tb_node *nodes, const cik_chain *c)
{
    int J = c->joint_count;
    for (int n = 0; n < J + 2; ++n) {
        memset(&nodes[n], 0, sizeof nodes[n]);
        nodes[n].parent = nodes[n].first_child = nodes[n].next_sibling = -1;
        mat_identity(nodes[n].local);
    }
    /* root frame */
    mat_set_rotation_quat(nodes[0].local, c->root_rotation.x, c->root_rotation.y, c->root_rotation.z,
                          c->root_rotation.w);
    nodes[0].local[12] = c->root_position.x;
    nodes[0].local[13] = c->root_position.y;
    nodes[0].local[14] = c->root_position.z;
    for (int j = 0; j < J; ++j) {
        tb_node *n = &nodes[1 + j];
        const cik_quat *q = &c->rotation[j];
        mat_set_rotation_quat(n->local, q->x, q->y, q->z, q->w);
        n->local[12] = c->offset[j].x;
        n->local[13] = c->offset[j].y;
        n->local[14] = c->offset[j].z;
        n->joint = 1;
        n->limit = c->limit[j];
        float a = sqrtf(n->limit.axis.x * n->limit.axis.x + n->limit.axis.y * n->limit.axis.y +
                        n->limit.axis.z * n->limit.axis.z);
        if (a > 0.0f) {
            n->limit.axis.x /= a;
            n->limit.axis.y /= a;
            n->limit.axis.z /= a;
        }
        add_child(nodes, j, 1 + j);
    }
    tb_node *e = &nodes[J + 1];
    e->local[12] = c->effector.x;
    e->local[13] = c->effector.y;
    e->local[14] = c->effector.z;
    add_child(nodes, J, J + 1);
}

tb_set *tb_create(const cik_chain *chains, int count)
{
    tb_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    int J = count > 0 ? chains[0].joint_count : 1;
    s->count = count;
    s->joints = J;
    s->nodes_per_scene = J + 2;
    size_t nn = (size_t)(count > 0 ? count : 1) * (size_t)s->nodes_per_scene;
    s->nodes = malloc(sizeof(tb_node) * nn);
    s->scenes = calloc((size_t)(count > 0 ? count : 1), sizeof(tb_scene));
    s->start_local = malloc(sizeof(float) * 16 * nn);
    if (!s->nodes || !s->scenes || !s->start_local) {
        tb_destroy(s);
        return NULL;
    }
    for (int i = 0; i < count; ++i) {
        tb_node *nodes = &s->nodes[(size_t)i * s->nodes_per_scene];
        load_chain(nodes, &chains[i]);
        s->scenes[i].first_node = i * s->nodes_per_scene;
        s->scenes[i].target = chains[i].target;
        for (int n = 0; n < s->nodes_per_scene; ++n)
            memcpy(&s->start_local[((size_t)i * s->nodes_per_scene + n) * 16], nodes[n].local, sizeof(float) * 16);
        update_world(nodes, 0);
    }
    return s;
}

void tb_destroy(tb_set *s)
{
    if (!s) return;
    free(s->nodes);
    free(s->scenes);
    free(s->start_local);
    free(s);
}

void tb_reset(tb_set *s)
{
    size_t nn = (size_t)s->count * s->nodes_per_scene;
    for (size_t n = 0; n < nn; ++n) memcpy(s->nodes[n].local, &s->start_local[n * 16], sizeof(float) * 16);
}

static float effector_error(const tb_node *eff, cik_vec3 t)
{
    float dx = eff->world[12] - t.x, dy = eff->world[13] - t.y, dz = eff->world[14] - t.z;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static void solve_scene(tb_node *nodes, int J, tb_scene *sc, float threshold, int max_passes, float dead_zone)
{
    const tb_node *eff = &nodes[J + 1];
    cik_vec3 t = sc->target;
    int pass = 0;
    update_world(nodes, 0);
    for (; pass < max_passes; ++pass) {
        if (effector_error(eff, t) < threshold) break;
        for (int j = J - 1; j >= 0; --j) {
            tb_node *n = &nodes[1 + j];
            float px = n->world[12], py = n->world[13], pz = n->world[14];
            float ax = eff->world[12] - px, ay = eff->world[13] - py, az = eff->world[14] - pz;
            float bx = t.x - px, by = t.y - py, bz = t.z - pz;
            float la = sqrtf(ax * ax + ay * ay + az * az), lb = sqrtf(bx * bx + by * by + bz * bz);
            if (la < 1e-6f || lb < 1e-6f) continue;
            ax /= la, ay /= la, az /= la;
            bx /= lb, by /= lb, bz /= lb;
            float d = ax * bx + ay * by + az * bz;
            if (d > dead_zone) continue; /* the classic dead zone */
            float angle = acosf(clampf(d, -1.0f, 1.0f));
            float kx = ay * bz - az * by, ky = az * bx - ax * bz, kz = ax * by - ay * bx;
            float kl = sqrtf(kx * kx + ky * ky + kz * kz);
            if (kl < 1e-6f) continue;
            kx /= kl, ky /= kl, kz /= kl;

            float delta[9], world[9], new_world[9], parent[9], local[9];
            rot3_axis_angle(delta, kx, ky, kz, angle);
            rot3_from_mat(world, n->world);
            rot3_mul(new_world, delta, world);
            rot3_from_mat(parent, nodes[n->parent].world);
            rot3_tmul(local, parent, new_world);
            if (n->limit.type == CIK_LIMIT_HINGE)
                limit_hinge(local, &n->limit);
            else if (n->limit.type == CIK_LIMIT_SWING_TWIST)
                limit_swing_twist(local, &n->limit);
            for (int c = 0; c < 3; ++c)
                for (int r = 0; r < 3; ++r) n->local[c * 4 + r] = local[c * 3 + r];
            update_world(nodes, 1 + j); /* the joint's subtree */
        }
    }
    sc->passes = pass;
    sc->error = effector_error(eff, t);
    sc->converged = sc->error < threshold;
}

void tb_solve(tb_set *s, float threshold, int max_passes, float dead_zone)
{
    for (int i = 0; i < s->count; ++i)
        solve_scene(&s->nodes[s->scenes[i].first_node], s->joints, &s->scenes[i], threshold, max_passes,
                    dead_zone);
}

void tb_result(const tb_set *s, int index, float *error, int *passes, int *converged)
{
    const tb_scene *sc = &s->scenes[index];
    if (error) *error = sc->error;
    if (passes) *passes = sc->passes;
    if (converged) *converged = sc->converged;
}

int tb_count(const tb_set *s) { return s->count; }
int tb_joint_count(const tb_set *s) { return s->joints; }

cik_vec3 tb_effector(const tb_set *s, int index)
{
    const tb_node *e = &s->nodes[s->scenes[index].first_node + s->joints + 1];
    cik_vec3 v = {e->world[12], e->world[13], e->world[14]};
    return v;
}
