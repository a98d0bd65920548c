/*
 * crowdik_validate --hash: one 64-bit FNV-1a hash of the solved rotations
 * and one of the results (error, passes, flags) per generated workload,
 * options set and backend, and the same for a foot crowd's frames. Two
 * builds give the same lines exactly when they solve to the same bits: the
 * check that a change which should not touch the math did not.
 *
 *   crowdik_validate --hash [--chains N]
 *
 * Only the public API, so that the file builds against any version of the
 * library with the same workloads.
 */
#include "hash.h"

#include "crowdik/crowdik.h"
#include "crowdik/foot.h"
#include "legs.h"
#include "workloads.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; ++i) h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}
#define FNV0 0xcbf29ce484222325ull

/* The hashes of one solved batch: rotations, then results. */
static void batch_hash(const cik_batch *b, uint64_t *rot, uint64_t *res)
{
    const int n = cik_batch_chain_count(b), J = cik_batch_joint_count(b);
    *rot = *res = FNV0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < J; ++j) {
            cik_quat q;
            cik_batch_get_rotation(b, i, j, &q);
            *rot = fnv(*rot, &q, sizeof q);
        }
        cik_result r;
        cik_batch_result(b, i, &r);
        *res = fnv(*res, &r.error, sizeof r.error);
        *res = fnv(*res, &r.iterations, sizeof r.iterations);
        *res = fnv(*res, &r.flags, sizeof r.flags);
    }
}

/* A walking crowd over rolling ground, `frames` frames on backend `be`. */
static int foot_hash(cik_backend be, int characters, int frames, uint64_t *rot, uint64_t *res)
{
    enum { HN = 65 };
    static float h[HN * HN];
    for (int iz = 0; iz < HN; ++iz)
        for (int ix = 0; ix < HN; ++ix) {
            float x = -16.0f + 0.5f * (float)ix, z = -16.0f + 0.5f * (float)iz;
            h[iz * HN + ix] = 0.12f * sinf(0.7f * x) + 0.08f * cosf(0.9f * z + 0.3f * x);
        }
    cik_heightfield hf = {-16.0f, -16.0f, 0.5f, 0.5f, HN, HN, h};
    cik_foot_leg legs[2];
    legs_adult(1.0f, legs);
    cik_foot_crowd *cr;
    if (cik_foot_crowd_create(characters, legs, &cr) != CIK_OK) return -1;
    cik_foot_streams s;
    cik_foot_crowd_streams(cr, &s);
    cik_foot_options o = cik_foot_default_options();
    o.solver.backend = be;
    o.solver.threads = 1;
    *rot = *res = FNV0;
    for (int t = 0; t < frames; ++t) {
        for (int c = 0; c < characters; ++c) {
            float ph = 0.37f * (float)c + 0.21f * (float)t, yaw = 0.3f * (float)c + 0.05f * (float)t;
            s.pelvis_x[c] = -14.0f + 0.8f * (float)(c % 36) + 0.02f * (float)t;
            s.pelvis_y[c] = 0.93f + 0.03f * sinf(ph);
            s.pelvis_z[c] = -14.0f + 0.9f * (float)(c / 36);
            s.pelvis_qx[c] = s.pelvis_qz[c] = 0.0f;
            s.pelvis_qy[c] = sinf(0.5f * yaw);
            s.pelvis_qw[c] = cosf(0.5f * yaw);
            for (int side = 0; side < 2; ++side) {
                int f = 2 * c + side;
                float hip = 0.25f * sinf(ph + 3.1f * (float)side), knee = 0.2f + 0.15f * (1.0f + sinf(ph + 1.0f));
                float a[3] = {-hip, knee, hip - knee};
                for (int j = 0; j < 3; ++j) {
                    s.pose_x[j][f] = sinf(0.5f * a[j]);
                    s.pose_y[j][f] = s.pose_z[j][f] = 0.0f;
                    s.pose_w[j][f] = cosf(0.5f * a[j]);
                }
            }
        }
        if (cik_foot_crowd_frame_dt(cr, &hf, &o, t % 3 == 0 ? 1.0f / 30.0f : 1.0f / 60.0f) != CIK_OK) {
            cik_foot_crowd_destroy(cr);
            return -1;
        }
        uint64_t r1, r2;
        batch_hash(cik_foot_crowd_batch(cr), &r1, &r2);
        *rot = fnv(*rot, &r1, sizeof r1);
        *res = fnv(*res, &r2, sizeof r2);
        const size_t nf = sizeof(float) * (size_t)s.foot_count;
        const float *out[] = {s.ankle_x, s.ankle_y, s.ankle_z, s.foot_qx, s.foot_qy, s.foot_qz, s.foot_qw,
                              s.weight, s.planted, s.locked, s.target_x, s.target_y, s.target_z,
                              s.solved_x[2], s.solved_y[2], s.solved_z[2], s.solved_w[2]};
        for (size_t i = 0; i < sizeof out / sizeof out[0]; ++i) *rot = fnv(*rot, out[i], nf);
        *rot = fnv(*rot, s.pelvis_drop, sizeof(float) * (size_t)characters);
    }
    cik_foot_crowd_destroy(cr);
    return 0;
}

int hash_main(int argc, char **argv)
{
    int chains = 2000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--chains") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "crowdik_validate: --chains needs an integer in [1, 1000000]\n");
                return 2;
            }
            chains = (int)v;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: crowdik_validate --hash [--chains N]\n"
                   "Prints a hash of the solved rotations and one of the results per workload\n"
                   "(N chains, default 2000), options (defaults, plain CCD) and backend, and the\n"
                   "same for 30 frames of a foot crowd of 500 characters (its rotations hash\n"
                   "also covers the crowd's outputs). Two builds print the same lines exactly\n"
                   "when they solve to the same bits.\n\n"
                   "Exit status: 0 done, 2 a bad option, 3 cannot run (out of memory, a\n"
                   "solver refusal). The same codes in every crowdik tool.\n");
            return 0;
        } else {
            fprintf(stderr, "crowdik_validate: unknown --hash option '%s' (try --hash --help)\n", argv[i]);
            return 2;
        }
    }
    static const struct {
        wl_kind kind;
        int joints;
    } w[] = {{WL_LEGS, 3}, {WL_LEGS_NO_LIMITS, 3}, {WL_SPINE, 5}, {WL_TAIL, 12}, {WL_RANDOM, 5}, {WL_RANDOM_HARD, 6}};
    printf("%-18s %-9s %-9s %-18s %-18s\n", "workload", "options", "backend", "rotations", "results");
    for (int be = CIK_BACKEND_REFERENCE; be < CIK_BACKEND_COUNT; ++be) {
        if (be == CIK_BACKEND_AUTO || !cik_backend_available((cik_backend)be)) continue;
        for (size_t k = 0; k < sizeof w / sizeof w[0]; ++k)
            for (int plain = 0; plain < 2; ++plain) {
                cik_batch *b;
                if (cik_batch_create(chains, w[k].joints, &b) != CIK_OK) return 3;
                if (wl_fill(b, w[k].kind, 1, 0) != CIK_OK) return 3;
                cik_options o = plain ? cik_plain_options() : cik_default_options();
                o.backend = (cik_backend)be;
                o.threads = 1;
                if (cik_solve(b, &o) != CIK_OK) return 3;
                uint64_t rot, res;
                batch_hash(b, &rot, &res);
                printf("%-18s %-9s %-9s %016llx   %016llx\n", wl_name(w[k].kind), plain ? "plain" : "defaults",
                       cik_backend_name((cik_backend)be), (unsigned long long)rot, (unsigned long long)res);
                cik_batch_destroy(b);
            }
        uint64_t rot, res;
        if (foot_hash((cik_backend)be, 500, 30, &rot, &res)) return 3;
        printf("%-18s %-9s %-9s %016llx   %016llx\n", "foot-frames", "defaults", cik_backend_name((cik_backend)be),
               (unsigned long long)rot, (unsigned long long)res);
    }
    return 0;
}
