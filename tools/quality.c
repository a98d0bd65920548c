/*
 * crowdik_validate --quality: how well the solver converges and how natural
 * its poses are, per workload, for plain CCD (every convergence option
 * zero: the solver semantics exactly) and for cik_default_options() side by
 * side:
 *
 *   within 1/2/5/10   chains converged within that many passes, percent
 *   mean              mean passes run
 *   err p50/p99/max   |effector - target| after the solve, mm
 *   viol              chains with a joint outside its limit (by > 1e-3 rad)
 *   bias              end-effector bias: mean rotation of the root joint over
 *                     mean rotation of the tip joint (start pose -> solution)
 *   jit p50/p99       pose change for a 5 mm target move: the largest joint
 *                     rotation between the solutions for T and T + 5 mm (in a
 *                     random direction), both from the same start, degrees
 *   rjit99            the same p99 over the moves whose T + 5 mm stays within
 *                     the chain's reach (a move out of reach makes the chain
 *                     stretch straight: a large change the geometry demands)
 *   wjit99            the same p99 with T + 5 mm solved from T's solution (a
 *                     warm start, as between the frames of an animation)
 *   joint99           the largest single-joint rotation of a solve (start
 *                     pose -> solution), p99, degrees
 *   ns/chain          solve time per chain, best backend, one thread
 * and per workload a path row: every target moves along a circle of 2 cm
 * radius, 32 frames, each frame solved from the last frame's solution (warm
 * starts, as in an animation): converged frames, the frames whose target
 * left the chain's reach (the circle runs up to 4 cm from the workload's
 * target, and spines' targets lie close to full extension), converged
 * frames among those within reach, mean passes, and the frame-to-frame
 * jitter (the largest joint rotation between consecutive frames, p50/p99,
 * degrees; a smooth solver follows the 0.4 cm per frame target with small
 * steady changes). Folded rows start spines and tails curled in one plane
 * (every joint bent alike, half a turn in all or as far as the swing limits
 * allow, wl_fold) instead of from the animated pose.
 */
#include "quality.h"

#include "crowdik/crowdik.h"
#include "scalar_math.h"
#include "workloads.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define Q_PI 3.14159265358979

/* Exit status when a solve cannot run (out of memory, a solver refusal):
 * the same code in every crowdik tool. */
enum { EXIT_CANNOT_RUN = 3 };

typedef struct q_row {
    double within[4]; /* 1, 2, 5, 10 passes */
    double mean_passes;
    double err_p50, err_p99, err_max;
    long violations;
    double bias;
    double jit_p50, jit_p99;
    double jit_reach_p99; /* jit p99 over the moves that stay within reach */
    double jit_warm_p99;  /* jit p99, T + 5 mm solved from T's solution */
    double unreachable;   /* path rows: frames with the target out of reach, percent */
    double within_reach;  /* path rows: converged frames among those within reach, percent */
    double joint_p99; /* largest single-joint rotation per solve, p99, degrees */
    double ns;
} q_row;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double percentile(double *v, int n, double p)
{
    if (n == 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    int i = (int)(p * (n - 1) + 0.5);
    return v[i];
}

/* Radians by which `q` lies outside limit `l` (0 inside). */
double quality_limit_violation(cik_quat q, const cik_limit *l)
{
    if (l->type == CIK_LIMIT_NONE) return 0.0;
    if (q.w < 0) q = (cik_quat){-q.x, -q.y, -q.z, -q.w};
    double s = (double)q.x * l->axis.x + (double)q.y * l->axis.y + (double)q.z * l->axis.z;
    double tn = sqrt(s * s + (double)q.w * q.w);
    double angle = tn > 0 ? 2.0 * atan2(s, q.w) : 0.0;
    double out = 0.0;
    if (angle < l->min_angle) out = l->min_angle - angle;
    if (angle > l->max_angle) out = angle - l->max_angle;
    cik_quat twist = {(float)(l->axis.x * s / tn), (float)(l->axis.y * s / tn), (float)(l->axis.z * s / tn),
                      (float)(q.w / tn)};
    if (!(tn > 0)) twist = (cik_quat){0, 0, 0, 1};
    double swing = quat_angle_between(twist, q); /* swing = q * conj(twist) has this angle */
    double allowed = l->type == CIK_LIMIT_HINGE ? 0.0 : l->swing_max;
    if (swing - allowed > out) out = swing - allowed;
    return out;
}

/* Start poses of a row besides the workload's animated one. */
enum { Q_ANIMATED, Q_BIND, Q_FOLDED };

typedef struct q_case {
    wl_kind kind;
    int joints;
    int start; /* Q_ANIMATED, Q_BIND (every joint at identity) or Q_FOLDED */
} q_case;

/* Writes a pole half a metre ahead of each leg's animated knee (the
 * workload's knees bend towards the root frame's +Z). */
static void set_leg_poles(cik_batch *b)
{
    int n = cik_batch_chain_count(b);
    for (int i = 0; i < n; ++i) {
        cik_chain c;
        cik_vec3 P[CIK_MAX_JOINTS];
        cik_batch_get_chain(b, i, &c);
        cik_chain_forward(&c, P, NULL);
        cik_quat r = c.root_rotation, rc = {-r.x, -r.y, -r.z, r.w};
        cik_quat f = quat_mul(quat_mul(r, (cik_quat){0.0f, 0.0f, 0.5f, 0.0f}), rc);
        c.pole = (cik_vec3){P[1].x + f.x, P[1].y + f.y, P[1].z + f.z};
        c.pole_weight = 1.0f;
        cik_batch_set_chain(b, i, &c);
    }
}

static cik_batch *make_batch(q_case k, int chains, unsigned seed, int poles)
{
    cik_batch *b = NULL;
    if (cik_batch_create(chains, k.joints, &b) != CIK_OK) return NULL;
    if (wl_fill(b, k.kind, seed, 0) != CIK_OK) {
        cik_batch_destroy(b);
        return NULL;
    }
    if (poles) set_leg_poles(b);
    if (k.start == Q_FOLDED && wl_fold_batch(b, seed, 0) != CIK_OK) {
        cik_batch_destroy(b);
        return NULL;
    }
    if (k.start == Q_BIND) {
        /* start from the bind pose: every joint at identity */
        cik_streams st;
        cik_batch_streams(b, &st);
        for (int j = 0; j < k.joints; ++j)
            for (int i = 0; i < chains; ++i) {
                st.rotation_x[j][i] = st.rotation_y[j][i] = st.rotation_z[j][i] = 0.0f;
                st.rotation_w[j][i] = 1.0f;
            }
    }
    return b;
}

/* Moves every target by 5 mm in a random direction. */
static void nudge_targets(cik_batch *b, unsigned seed)
{
    wl_rng r;
    wl_seed(&r, seed * 7919u + 17u);
    cik_streams s;
    cik_batch_streams(b, &s);
    for (int i = 0; i < s.chain_count; ++i) {
        float d[3], k = 0.005f / sqrtf(wl_in_ball(&r, 1e-4f, d));
        s.target_x[i] += d[0] * k;
        s.target_y[i] += d[1] * k;
        s.target_z[i] += d[2] * k;
    }
}

/* The largest joint rotation between the poses of chain i in a and b, degrees. */
static double largest_change(const cik_batch *a, const cik_batch *b, int i)
{
    cik_chain ca, cb;
    cik_batch_get_chain(a, i, &ca);
    cik_batch_get_chain(b, i, &cb);
    double worst = 0;
    for (int j = 0; j < ca.joint_count; ++j) {
        double x = quat_angle_between(ca.rotation[j], cb.rotation[j]);
        if (x > worst) worst = x;
    }
    return worst * 180.0 / Q_PI;
}

/* The row of a measured workload: b solved (in t seconds), moved solved
 * for its nudged targets from the start, warm for them from b's solution,
 * start the unsolved chains; v and joint scratch of `chains` doubles. */
static void fill_row(const cik_batch *b, const cik_batch *moved, const cik_batch *start, const cik_batch *warm,
                     int chains, double t, double *v, double *joint, q_row *row)
{
    memset(row, 0, sizeof *row);
    row->ns = 1e9 * t / chains;
    static const int within[4] = {1, 2, 5, 10};
    double root_sum = 0, tip_sum = 0;
    for (int i = 0; i < chains; ++i) {
        cik_result r;
        cik_chain c, c0, cm;
        cik_batch_result(b, i, &r);
        cik_batch_get_chain(b, i, &c);
        cik_batch_get_chain(start, i, &c0);
        cik_batch_get_chain(moved, i, &cm);
        for (int w = 0; w < 4; ++w)
            if ((r.flags & CIK_RESULT_CONVERGED) && r.iterations <= within[w]) row->within[w] += 1;
        row->mean_passes += r.iterations;
        v[i] = r.error;
        int bad = 0;
        for (int j = 0; j < c.joint_count; ++j) bad |= quality_limit_violation(c.rotation[j], &c.limit[j]) > 1e-3;
        row->violations += bad;
        double jmax = 0;
        for (int j = 0; j < c.joint_count; ++j) {
            double a = quat_angle_between(c0.rotation[j], c.rotation[j]);
            if (a > jmax) jmax = a;
        }
        joint[i] = jmax * 180.0 / Q_PI;
        root_sum += quat_angle_between(c0.rotation[0], c.rotation[0]);
        tip_sum += quat_angle_between(c0.rotation[c.joint_count - 1], c.rotation[c.joint_count - 1]);
    }
    for (int w = 0; w < 4; ++w) row->within[w] *= 100.0 / chains;
    row->mean_passes /= chains;
    row->bias = tip_sum > 0 ? root_sum / tip_sum : 0.0;
    row->err_max = percentile(v, chains, 1.0) * 1e3;
    row->err_p99 = percentile(v, chains, 0.99) * 1e3;
    row->err_p50 = percentile(v, chains, 0.5) * 1e3;
    for (int i = 0; i < chains; ++i) v[i] = largest_change(b, moved, i);
    row->jit_p99 = percentile(v, chains, 0.99);
    row->jit_p50 = percentile(v, chains, 0.5);
    int m = 0;
    for (int i = 0; i < chains; ++i) {
        cik_result r;
        cik_batch_result(moved, i, &r);
        if (!(r.flags & CIK_RESULT_UNREACHABLE)) v[m++] = largest_change(b, moved, i);
    }
    row->jit_reach_p99 = percentile(v, m, 0.99);
    for (int i = 0; i < chains; ++i) v[i] = largest_change(b, warm, i);
    row->jit_warm_p99 = percentile(v, chains, 0.99);
    row->joint_p99 = percentile(joint, chains, 0.99);
}

static int measure(q_case k, const cik_options *o, int chains, unsigned seed, int poles, q_row *row)
{
    cik_batch *b = make_batch(k, chains, seed, poles), *moved = make_batch(k, chains, seed, poles);
    cik_batch *start = make_batch(k, chains, seed, poles), *warm = make_batch(k, chains, seed, poles);
    double *v = malloc(sizeof(double) * (size_t)chains), *joint = malloc(sizeof(double) * (size_t)chains);
    cik_status st = b && moved && start && warm && v && joint ? CIK_OK : CIK_ERROR_OUT_OF_MEMORY;
    if (st == CIK_OK) {
        nudge_targets(moved, seed);
        nudge_targets(warm, seed);
    }
    double t0 = wl_now();
    if (st == CIK_OK) st = cik_solve(b, o);
    double t = wl_now() - t0;
    if (st == CIK_OK) st = cik_solve(moved, o);
    /* the warm start: T + 5 mm from T's solution */
    if (st == CIK_OK) {
        cik_streams from, to;
        cik_batch_streams(b, &from);
        cik_batch_streams(warm, &to);
        for (int j = 0; j < k.joints; ++j) {
            size_t bytes = sizeof(float) * (size_t)chains;
            memcpy(to.rotation_x[j], from.rotation_x[j], bytes);
            memcpy(to.rotation_y[j], from.rotation_y[j], bytes);
            memcpy(to.rotation_z[j], from.rotation_z[j], bytes);
            memcpy(to.rotation_w[j], from.rotation_w[j], bytes);
        }
        st = cik_solve(warm, o);
    }
    if (st != CIK_OK)
        fprintf(stderr, "crowdik_validate: cik_solve: %s\n", cik_status_string(st));
    else
        fill_row(b, moved, start, warm, chains, t, v, joint, row);
    cik_batch_destroy(b);
    cik_batch_destroy(moved);
    cik_batch_destroy(start);
    cik_batch_destroy(warm);
    free(v);
    free(joint);
    return st != CIK_OK;
}

#define PATH_FRAMES 32

/* The path row: targets on a 2 cm circle about the workload's target (in
 * a random plane per chain), PATH_FRAMES frames, each solved from the last
 * one's solution. */
static int measure_path(q_case k, const cik_options *o, int chains, unsigned seed, q_row *row)
{
    cik_batch *b = make_batch(k, chains, seed, 0);
    cik_vec3 *center = malloc(sizeof(cik_vec3) * (size_t)chains * 3);
    cik_quat *last = malloc(sizeof(cik_quat) * (size_t)chains * CIK_MAX_JOINTS);
    double *v = malloc(sizeof(double) * (size_t)chains * PATH_FRAMES);
    int ok = b && center && last && v;
    if (!ok) fprintf(stderr, "crowdik_validate: out of memory\n");
    memset(row, 0, sizeof *row);
    wl_rng r;
    wl_seed(&r, seed * 104729u + 3u);
    for (int i = 0; ok && i < chains; ++i) {
        cik_chain c;
        cik_batch_get_chain(b, i, &c);
        center[3 * i] = c.target;
        /* two unit vectors spanning a random plane */
        float u[3], w[3], n = sqrtf(wl_in_ball(&r, 1e-2f, u));
        for (int a = 0; a < 3; ++a) u[a] /= n;
        do {
            w[0] = wl_uniform(&r, -1, 1), w[1] = wl_uniform(&r, -1, 1), w[2] = wl_uniform(&r, -1, 1);
            float d = w[0] * u[0] + w[1] * u[1] + w[2] * u[2];
            for (int a = 0; a < 3; ++a) w[a] -= d * u[a];
            n = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
        } while (n < 1e-2f);
        n = sqrtf(n);
        center[3 * i + 1] = (cik_vec3){u[0], u[1], u[2]};
        center[3 * i + 2] = (cik_vec3){w[0] / n, w[1] / n, w[2] / n};
        for (int j = 0; j < c.joint_count; ++j) last[i * CIK_MAX_JOINTS + j] = c.rotation[j];
    }
    long frames = 0, conv = 0, passes = 0, out = 0, conv_in = 0;
    int m = 0;
    for (int f = 1; ok && f <= PATH_FRAMES; ++f) {
        double ph = 2.0 * Q_PI * f / PATH_FRAMES;
        float cu = (float)(0.02 * (cos(ph) - 1.0)), sw = (float)(0.02 * sin(ph));
        for (int i = 0; i < chains; ++i) {
            cik_chain c;
            cik_batch_get_chain(b, i, &c);
            cik_vec3 t = center[3 * i], u = center[3 * i + 1], w = center[3 * i + 2];
            c.target = (cik_vec3){t.x + cu * u.x + sw * w.x, t.y + cu * u.y + sw * w.y, t.z + cu * u.z + sw * w.z};
            cik_batch_set_chain(b, i, &c);
        }
        cik_status st = cik_solve(b, o);
        if (st != CIK_OK) {
            fprintf(stderr, "crowdik_validate: cik_solve: %s\n", cik_status_string(st));
            ok = 0;
        }
        for (int i = 0; ok && i < chains; ++i) {
            cik_result res;
            cik_chain c;
            cik_batch_result(b, i, &res);
            cik_batch_get_chain(b, i, &c);
            ++frames;
            conv += (res.flags & CIK_RESULT_CONVERGED) != 0;
            if (res.flags & CIK_RESULT_UNREACHABLE)
                ++out;
            else
                conv_in += (res.flags & CIK_RESULT_CONVERGED) != 0;
            passes += res.iterations;
            double worst = 0;
            for (int j = 0; j < c.joint_count; ++j) {
                double a = quat_angle_between(last[i * CIK_MAX_JOINTS + j], c.rotation[j]);
                if (a > worst) worst = a;
                last[i * CIK_MAX_JOINTS + j] = c.rotation[j];
            }
            v[m++] = worst * 180.0 / Q_PI;
        }
    }
    if (ok) {
        row->within[3] = 100.0 * (double)conv / (double)frames;
        row->unreachable = 100.0 * (double)out / (double)frames;
        row->within_reach = frames > out ? 100.0 * (double)conv_in / (double)(frames - out) : 0.0;
        row->mean_passes = (double)passes / (double)frames;
        row->jit_p99 = percentile(v, m, 0.99);
        row->jit_p50 = percentile(v, m, 0.5);
    }
    cik_batch_destroy(b);
    free(center);
    free(last);
    free(v);
    return ok ? 0 : 1;
}

static void print_path_row(const char *workload, int joints, const char *config, const q_row *r)
{
    printf("%-15s %2d %-14s path: converged frames %6.2f %% (out of reach %5.2f %%, converged within reach %6.2f %%), "
           "mean passes %5.2f, frame-to-frame jitter p50 %5.2f p99 %5.2f deg\n",
           workload, joints, config, r->within[3], r->unreachable, r->within_reach, r->mean_passes, r->jit_p50,
           r->jit_p99);
}

static void print_row(const char *workload, int joints, const char *config, const q_row *r)
{
    printf("%-15s %2d %-14s %6.2f %6.2f %6.2f %6.2f %5.2f %7.3f %7.3f %8.3f %5ld %5.2f %6.2f %6.2f %6.2f %6.2f %7.2f "
           "%8.1f\n",
           workload, joints, config, r->within[0], r->within[1], r->within[2], r->within[3], r->mean_passes,
           r->err_p50, r->err_p99, r->err_max, r->violations, r->bias, r->jit_p50, r->jit_p99, r->jit_reach_p99,
           r->jit_warm_p99, r->joint_p99, r->ns);
}

static int parse_float(const char *opt, const char *v, double lo, double hi, float *out)
{
    char *end;
    if (!v) {
        fprintf(stderr, "crowdik_validate: %s needs a value\n", opt);
        return 0;
    }
    double x = strtod(v, &end);
    if (end == v || *end || !(x >= lo && x <= hi)) {
        fprintf(stderr, "crowdik_validate: %s wants a number in [%g, %g], got '%s'\n", opt, lo, hi, v);
        return 0;
    }
    *out = (float)x;
    return 1;
}

static void quality_usage(void)
{
    printf("usage: crowdik_validate --quality [options]\n"
           "Convergence and pose quality per workload, plain CCD against the\n"
           "defaults (cik_default_options) side by side; 1 mm, at most 10 passes,\n"
           "one thread.\n\n"
           "  --chains N        chains per workload (default 10000)\n"
           "  --seed N          generator seed (default 1)\n"
           "  --backend NAME    reference, scalar, sse4.1, avx2, avx512, neon (default:\n"
           "                    the best this CPU runs)\n"
           "  --help            this text\n"
           "Any of these adds a third configuration, \"custom\": the defaults with\n"
           "  --gain G          CCD gain G, in [0, 2]\n"
           "  --max-step A      step cap A radians, in [0, pi]\n"
           "  --weights LIST    per-joint weights in [0, 2], comma-separated, root first\n"
           "  --hinge-aware B   hinge-aware steps off or on (0 or 1)\n"
           "  --limb B          limb mode off or on (0 or 1)\n"
           "  --dls D           damped least-squares steps' damping D in [0, 1] (0 = off)\n"
           "  --keep-best B     end on the last pose (0) or the best pass's (1)\n\n"
           "Columns (one row per workload and configuration):\n"
           "  J               joints per chain\n"
           "  options         plain CCD, defaults, defaults+pole (legs with a pole\n"
           "                  ahead of the knee) or custom\n"
           "  <=1 ... <=10    percent of chains converged within 1, 2, 5, 10 passes\n"
           "  mean            mean passes\n"
           "  err p50/p99/max effector to target after the solve, mm\n"
           "  viol            chains with a joint off its limit by more than 1e-3 rad\n"
           "  bias            end-effector bias: mean rotation of the root joint over\n"
           "                  mean rotation of the tip joint (start pose to solution)\n"
           "  jit50, jit99    pose change for a 5 mm target move (the largest joint\n"
           "                  rotation between the two solutions), p50 and p99, degrees\n"
           "  rjit99          jit99 over the moves that stay within reach\n"
           "  wjit99          jit99 with T + 5 mm solved from T's solution (warm)\n"
           "  joint99         the largest single-joint rotation of a solve (start pose\n"
           "                  to solution), p99, degrees\n"
           "  ns/chain        solve time per chain, one thread\n"
           "Path rows: targets on a 2 cm circle over 32 frames, each frame solved from\n"
           "the last one's solution: converged frames, mean passes, frame-to-frame\n"
           "largest joint change (p50, p99); out-of-reach frames and the rate within\n"
           "reach. Straight rows start from the bind pose, folded rows from spines\n"
           "and tails curled in one plane.\n\n"
           "Exit status: 0 done, 1 the defaults put a joint off its limit, 2 a bad\n"
           "option, 3 cannot run (out of memory, a solver refusal). The same codes in\n"
           "every crowdik tool.\n");
}

/* What --quality was asked for. */
typedef struct q_args {
    int chains, custom;
    unsigned seed;
    cik_options def, cus; /* the defaults (on the chosen backend), the custom options */
} q_args;

/* Reads the --quality options into `q`: -1 to run, else the exit status
 * (0 after --help, 2 for a bad option). */
static int quality_args(int argc, char **argv, q_args *q)
{
    q->chains = 10000;
    q->custom = 0;
    q->seed = 1;
    q->def = cik_default_options();
    q->def.threads = 1;
    q->def.backend = cik_backend_best();
    q->cus = q->def;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        float x = 0.0f;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            quality_usage();
            return 0;
        } else if (!strcmp(a, "--chains") || !strcmp(a, "--seed")) {
            if (!parse_float(a, v, a[2] == 'c' ? 1 : 0, a[2] == 'c' ? 1e7 : 2147483647.0, &x)) return 2;
            if (a[2] == 'c')
                q->chains = (int)x;
            else
                q->seed = (unsigned)x;
            ++i;
        } else if (!strcmp(a, "--backend")) {
            int found = 0;
            for (int be = CIK_BACKEND_REFERENCE; be < CIK_BACKEND_COUNT && v; ++be) {
                if (!strcmp(v, cik_backend_name((cik_backend)be))) {
                    if (!cik_backend_available((cik_backend)be)) {
                        fprintf(stderr, "crowdik_validate: backend %s is not available here\n", v);
                        return 2;
                    }
                    q->def.backend = q->cus.backend = (cik_backend)be;
                    found = 1;
                }
            }
            if (!found) {
                fprintf(stderr, "crowdik_validate: unknown backend '%s'\n", v ? v : "");
                return 2;
            }
            ++i;
        } else if (!strcmp(a, "--gain")) {
            if (!parse_float(a, v, 0, 2, &q->cus.ccd.gain)) return 2;
            q->custom = 1, ++i;
        } else if (!strcmp(a, "--max-step")) {
            if (!parse_float(a, v, 0, 3.14159265, &q->cus.ccd.max_step)) return 2;
            q->custom = 1, ++i;
        } else if (!strcmp(a, "--dls")) {
            if (!parse_float(a, v, 0, 1, &q->cus.ccd.dls_damping)) return 2;
            q->custom = 1, ++i;
        } else if (!strcmp(a, "--hinge-aware") || !strcmp(a, "--limb") || !strcmp(a, "--keep-best")) {
            if (!parse_float(a, v, 0, 1, &x)) return 2;
            if (x != 0 && x != 1) {
                fprintf(stderr, "crowdik_validate: %s wants 0 or 1\n", a);
                return 2;
            }
            if (a[2] == 'h')
                q->cus.ccd.hinge_aware = (int)x;
            else if (a[2] == 'k')
                q->cus.ccd.keep_best = (int)x;
            else
                q->cus.ccd.limb = (int)x;
            q->custom = 1, ++i;
        } else if (!strcmp(a, "--weights")) {
            if (!v) {
                fprintf(stderr, "crowdik_validate: --weights needs a value\n");
                return 2;
            }
            const char *p = v;
            for (int j = 0; j < CIK_MAX_JOINTS; ++j) q->cus.ccd.weight[j] = 0.0f;
            for (int j = 0; *p; ++j) {
                char *end;
                double w = strtod(p, &end);
                if (end == p || j >= CIK_MAX_JOINTS || !(w >= 0 && w <= 2) || (*end && *end != ',')) {
                    fprintf(stderr, "crowdik_validate: --weights wants up to %d numbers in [0, 2], got '%s'\n",
                            CIK_MAX_JOINTS, v);
                    return 2;
                }
                q->cus.ccd.weight[j] = (float)w;
                p = *end ? end + 1 : end;
            }
            q->custom = 1, ++i;
        } else {
            fprintf(stderr, "crowdik_validate: unknown --quality option '%s' (try --quality --help)\n", a);
            return 2;
        }
    }
    return -1;
}

int quality_main(int argc, char **argv)
{
    q_args q;
    int status = quality_args(argc, argv, &q);
    if (status >= 0) return status;
    const int chains = q.chains, custom = q.custom;
    const unsigned seed = q.seed;
    const cik_options def = q.def, cus = q.cus;
    cik_options plain = cik_plain_options();
    plain.threads = def.threads;
    plain.backend = def.backend;

    printf("crowdik %s quality: %d chains per row, seed %u, backend %s, threshold 1 mm, 10 passes\n", cik_version(),
           chains, seed, cik_backend_name(def.backend));
    printf("defaults: gain %.2f, max_step %.3f rad, hinge_aware %d, dls_damping %.3f, limb %d, stop_unreachable %d, "
           "keep_best %d, weights",
           def.ccd.gain == 0 ? 1.0 : def.ccd.gain, def.ccd.max_step, def.ccd.hinge_aware, def.ccd.dls_damping, def.ccd.limb,
           def.ccd.stop_unreachable, def.ccd.keep_best);
    for (int j = 0; j < 4; ++j) printf(" %.2f", def.ccd.weight[j] == 0 ? 1.0 : def.ccd.weight[j]);
    printf(" ...\n\n");
    printf("%-15s %2s %-14s %6s %6s %6s %6s %5s %7s %7s %8s %5s %5s %6s %6s %6s %6s %7s %8s\n", "workload", "J",
           "options", "<=1", "<=2", "<=5", "<=10", "mean", "err p50", "err p99", "err max", "viol", "bias", "jit50",
           "jit99", "rjit99", "wjit99", "joint99", "ns/chain");
    static const q_case cases[] = {{WL_LEGS, 3, Q_ANIMATED},  {WL_LEGS, 3, Q_BIND},   {WL_LEGS_NO_LIMITS, 3, Q_ANIMATED},
                                   {WL_SPINE, 5, Q_ANIMATED}, {WL_SPINE, 5, Q_BIND}, {WL_SPINE, 5, Q_FOLDED},
                                   {WL_TAIL, 12, Q_ANIMATED}, {WL_TAIL, 12, Q_BIND}, {WL_TAIL, 12, Q_FOLDED},
                                   {WL_HOCK_LEG, 3, Q_ANIMATED}, {WL_HIND_LEG, 4, Q_ANIMATED}};
    static const char *const bind_names[] = {[WL_LEGS] = "legs-from-bind", [WL_SPINE] = "spine-straight",
                                             [WL_TAIL] = "tail-straight"};
    static const char *const folded_names[] = {[WL_SPINE] = "spine-folded", [WL_TAIL] = "tail-folded"};
    int failed = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        q_row r;
        const char *name = cases[c].start == Q_BIND     ? bind_names[cases[c].kind]
                           : cases[c].start == Q_FOLDED ? folded_names[cases[c].kind]
                                                        : wl_name(cases[c].kind);
        if (measure(cases[c], &plain, chains, seed, 0, &r)) return EXIT_CANNOT_RUN;
        print_row(name, cases[c].joints, "plain CCD", &r);
        double plain_mean = r.mean_passes;
        if (measure(cases[c], &def, chains, seed, 0, &r)) return EXIT_CANNOT_RUN;
        print_row(name, cases[c].joints, "defaults", &r);
        failed |= r.violations != 0;
        double def_mean = r.mean_passes;
        if (cases[c].kind == WL_LEGS && cases[c].start == Q_ANIMATED) {
            if (measure(cases[c], &def, chains, seed, 1, &r)) return EXIT_CANNOT_RUN;
            print_row(name, cases[c].joints, "defaults+pole", &r);
            failed |= r.violations != 0;
        }
        if (custom) {
            if (measure(cases[c], &cus, chains, seed, 0, &r)) return EXIT_CANNOT_RUN;
            print_row(name, cases[c].joints, "custom", &r);
        }
        if (cases[c].start == Q_ANIMATED) {
            if (measure_path(cases[c], &plain, chains, seed, &r)) return EXIT_CANNOT_RUN;
            print_path_row(name, cases[c].joints, "plain CCD", &r);
            if (measure_path(cases[c], &def, chains, seed, &r)) return EXIT_CANNOT_RUN;
            print_path_row(name, cases[c].joints, "defaults", &r);
        }
        printf("%-15s    mean passes: defaults %.2fx fewer than plain CCD\n", "", plain_mean / def_mean);
    }
    if (failed) printf("\nFAILED: the defaults violated a joint limit\n");
    return failed;
}
