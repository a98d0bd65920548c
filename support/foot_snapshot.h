/*
 * A foot crowd as its API shows it, as bytes: every stream, every
 * character's legs, every chain of its batch and that chain's result. Two
 * crowds with equal snapshots look the same to a caller, so the tests and
 * the foot fuzz target take one before and after a call that must change
 * nothing (a refused one) and compare. Header only; not part of libcrowdik.
 */
#ifndef CROWDIK_SUPPORT_FOOT_SNAPSHOT_H
#define CROWDIK_SUPPORT_FOOT_SNAPSHOT_H

#include <stdlib.h>
#include <string.h>

#include "crowdik/foot.h"

typedef struct foot_snapshot {
    unsigned char *p;
    size_t n, cap;
} foot_snapshot;

/* CIK_ERROR_OUT_OF_MEMORY where the buffer cannot grow (it stays valid). */
static inline cik_status foot_snapshot_add(foot_snapshot *sn, const void *src, size_t bytes)
{
    if (sn->n + bytes > sn->cap) {
        size_t cap = 2 * (sn->n + bytes);
        unsigned char *p = (unsigned char *)realloc(sn->p, cap);
        if (p == NULL) return CIK_ERROR_OUT_OF_MEMORY;
        sn->p = p;
        sn->cap = cap;
    }
    memcpy(sn->p + sn->n, src, bytes);
    sn->n += bytes;
    return CIK_OK;
}

/* Replaces sn's contents (its buffer reused) with the snapshot of cr; the
 * first status that is not CIK_OK where a call fails. */
static inline cik_status foot_snapshot_take(cik_foot_crowd *cr, foot_snapshot *sn)
{
    sn->n = 0;
    cik_foot_streams s;
    cik_status st = cik_foot_crowd_streams(cr, &s);
    if (st != CIK_OK) return st;
    const size_t C = (size_t)s.character_count * sizeof(float), F = (size_t)s.foot_count * sizeof(float);
    float *per_c[] = {s.pelvis_x,  s.pelvis_y,  s.pelvis_z, s.pelvis_qx,   s.pelvis_qy,
                      s.pelvis_qz, s.pelvis_qw, s.floor_y,  s.pelvis_drop};
    float *per_f[] = {s.weight,       s.planted,  s.locked,   s.pivot,    s.anim_ankle_x, s.anim_ankle_y,
                      s.anim_ankle_z, s.target_x, s.target_y, s.target_z, s.ankle_x,      s.ankle_y,
                      s.ankle_z,      s.foot_qx,  s.foot_qy,  s.foot_qz,  s.foot_qw};
    for (size_t i = 0; i < sizeof per_c / sizeof per_c[0] && st == CIK_OK; ++i)
        st = foot_snapshot_add(sn, per_c[i], C);
    for (size_t i = 0; i < sizeof per_f / sizeof per_f[0] && st == CIK_OK; ++i)
        st = foot_snapshot_add(sn, per_f[i], F);
    for (int p = 0; p < CIK_FOOT_POINTS; ++p) {
        float *q[] = {s.probe_x[p],    s.probe_z[p], s.contact_y[p], s.contact_nx[p], s.contact_ny[p],
                      s.contact_nz[p], s.point_x[p], s.point_y[p],   s.point_z[p]};
        for (size_t k = 0; k < sizeof q / sizeof q[0] && st == CIK_OK; ++k) st = foot_snapshot_add(sn, q[k], F);
    }
    for (int j = 0; j < 3; ++j) {
        float *q[] = {s.pose_x[j],   s.pose_y[j],   s.pose_z[j],   s.pose_w[j],
                      s.solved_x[j], s.solved_y[j], s.solved_z[j], s.solved_w[j]};
        for (size_t k = 0; k < sizeof q / sizeof q[0] && st == CIK_OK; ++k) st = foot_snapshot_add(sn, q[k], F);
    }
    for (int c = 0; c < s.character_count && st == CIK_OK; ++c) {
        /* zeroed first, so that padding compares equal */
        cik_foot_leg legs[2];
        memset(legs, 0, sizeof legs);
        st = cik_foot_crowd_get_legs(cr, c, legs);
        if (st == CIK_OK) st = foot_snapshot_add(sn, legs, sizeof legs);
    }
    const cik_batch *b = cik_foot_crowd_batch(cr);
    for (int f = 0; f < s.foot_count && st == CIK_OK; ++f) {
        cik_chain ch;
        cik_result res;
        memset(&ch, 0, sizeof ch);
        memset(&res, 0, sizeof res);
        st = cik_batch_get_chain(b, f, &ch);
        if (st == CIK_OK) st = cik_batch_result(b, f, &res);
        if (st == CIK_OK) st = foot_snapshot_add(sn, &ch, sizeof ch);
        if (st == CIK_OK) st = foot_snapshot_add(sn, &res, sizeof res);
    }
    return st;
}

static inline int foot_snapshot_same(const foot_snapshot *a, const foot_snapshot *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

static inline void foot_snapshot_free(foot_snapshot *sn)
{
    free(sn->p);
    sn->p = NULL;
    sn->n = sn->cap = 0;
}

#endif
