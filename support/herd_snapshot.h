/*
 * A herd as its API shows it, as bytes: every stream, every character's
 * body, every chain of each of its batches (one per leg shape) and that
 * chain's result. Two herds with equal snapshots look the same to a caller,
 * so the herd fuzz target takes one before and after a call that must
 * change nothing (a refused one) and compares (as foot_snapshot.h does for
 * a foot crowd). Header only; not part of libcrowdik.
 */
#ifndef CROWDIK_SUPPORT_HERD_SNAPSHOT_H
#define CROWDIK_SUPPORT_HERD_SNAPSHOT_H

#include <stdlib.h>
#include <string.h>

#include "crowdik/herd.h"

typedef struct herd_snapshot {
    unsigned char *p;
    size_t n, cap;
} herd_snapshot;

/* CIK_ERROR_OUT_OF_MEMORY where the buffer cannot grow (it stays valid). */
static inline cik_status herd_snapshot_add(herd_snapshot *sn, const void *src, size_t bytes)
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

/* Replaces sn's contents (its buffer reused) with the snapshot of h; the
 * first status that is not CIK_OK where a call fails. */
static inline cik_status herd_snapshot_take(cik_herd *h, herd_snapshot *sn)
{
    sn->n = 0;
    cik_herd_streams s;
    cik_status st = cik_herd_streams_get(h, &s);
    if (st != CIK_OK) return st;
    const size_t C = (size_t)s.character_count * sizeof(float), F = (size_t)s.foot_count * sizeof(float);
    float *per_c[] = {s.floor_y, s.body_height, s.body_pitch, s.body_roll};
    float *per_f[] = {s.weight,   s.planted,  s.locked,   s.anim_foot_x, s.anim_foot_y, s.anim_foot_z,
                      s.probe_x,  s.probe_z,  s.contact_y, s.target_x,   s.target_y,    s.target_z,
                      s.foot_x,   s.foot_y,   s.foot_z,    s.error,      s.passes};
    for (size_t i = 0; i < sizeof per_c / sizeof per_c[0] && st == CIK_OK; ++i)
        st = herd_snapshot_add(sn, per_c[i], C);
    for (int r = 0; r < CIK_HERD_ROOTS; ++r) {
        float *q[] = {s.root_x[r],        s.root_y[r],        s.root_z[r],        s.root_qx[r],
                      s.root_qy[r],       s.root_qz[r],       s.root_qw[r],       s.solved_root_x[r],
                      s.solved_root_y[r], s.solved_root_z[r], s.solved_root_qx[r], s.solved_root_qy[r],
                      s.solved_root_qz[r], s.solved_root_qw[r]};
        for (size_t k = 0; k < sizeof q / sizeof q[0] && st == CIK_OK; ++k) st = herd_snapshot_add(sn, q[k], C);
    }
    for (size_t i = 0; i < sizeof per_f / sizeof per_f[0] && st == CIK_OK; ++i)
        st = herd_snapshot_add(sn, per_f[i], F);
    for (int j = 0; j < CIK_HERD_MAX_SEGMENTS; ++j) {
        float *q[] = {s.pose_x[j],   s.pose_y[j],   s.pose_z[j],   s.pose_w[j],
                      s.solved_x[j], s.solved_y[j], s.solved_z[j], s.solved_w[j]};
        for (size_t k = 0; k < sizeof q / sizeof q[0] && st == CIK_OK; ++k) st = herd_snapshot_add(sn, q[k], F);
    }
    for (int c = 0; c < s.character_count && st == CIK_OK; ++c) {
        /* zeroed first, so that padding compares equal */
        cik_herd_body body;
        memset(&body, 0, sizeof body);
        st = cik_herd_get_body(h, c, &body);
        if (st == CIK_OK) st = herd_snapshot_add(sn, &body, sizeof body);
    }
    for (int n = 2; n <= CIK_HERD_MAX_SEGMENTS && st == CIK_OK; ++n) {
        const cik_batch *b = cik_herd_batch(h, n);
        const int chains = b ? cik_batch_chain_count(b) : 0;
        for (int i = 0; i < chains && st == CIK_OK; ++i) {
            cik_chain ch;
            cik_result res;
            memset(&ch, 0, sizeof ch);
            memset(&res, 0, sizeof res);
            st = cik_batch_get_chain(b, i, &ch);
            if (st == CIK_OK) st = cik_batch_result(b, i, &res);
            if (st == CIK_OK) st = herd_snapshot_add(sn, &ch, sizeof ch);
            if (st == CIK_OK) st = herd_snapshot_add(sn, &res, sizeof res);
        }
    }
    return st;
}

static inline int herd_snapshot_same(const herd_snapshot *a, const herd_snapshot *b)
{
    return a->n == b->n && memcmp(a->p, b->p, a->n) == 0;
}

static inline void herd_snapshot_free(herd_snapshot *sn)
{
    free(sn->p);
    sn->p = NULL;
    sn->n = sn->cap = 0;
}

#endif
