/*
 * A tiny pthreads job pool standing in for an engine's job system: a fixed
 * set of workers that take jobs from a queue, and a "parallel for" that cuts
 * an index range into jobs and waits for them. Shared by the examples
 * job_pool.c and foot_job_pool.c; an engine has its own.
 */
#ifndef CROWDIK_EXAMPLE_JOB_POOL_H
#define CROWDIK_EXAMPLE_JOB_POOL_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef void (*job_fn)(void *context, int begin, int end);

typedef struct job_pool {
    pthread_mutex_t lock;
    pthread_cond_t work, done;
    pthread_t *thread;
    int workers, quit;
    /* the parallel for being run: [next, end) left, `pending` jobs unfinished */
    job_fn fn;
    void *context;
    int next, end, grain, pending;
} job_pool;

static void *pool_worker(void *arg)
{
    job_pool *p = (job_pool *)arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->quit && p->next >= p->end) pthread_cond_wait(&p->work, &p->lock);
        if (p->quit) break;
        int b = p->next, e = b + p->grain < p->end ? b + p->grain : p->end;
        p->next = e;
        pthread_mutex_unlock(&p->lock);
        p->fn(p->context, b, e);
        pthread_mutex_lock(&p->lock);
        if (--p->pending == 0) pthread_cond_broadcast(&p->done);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static int pool_start(job_pool *p, int workers)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->done, NULL);
    p->thread = (pthread_t *)calloc((size_t)workers, sizeof(pthread_t));
    if (!p->thread) return 0;
    for (int i = 0; i < workers; ++i) {
        if (pthread_create(&p->thread[i], NULL, pool_worker, p) != 0) break;
        p->workers = i + 1;
    }
    return p->workers > 0;
}

/* Runs fn over [0, n) in jobs of `grain` indices and waits for all of them. */
static void pool_parallel_for(job_pool *p, job_fn fn, void *context, int n, int grain)
{
    pthread_mutex_lock(&p->lock);
    p->fn = fn;
    p->context = context;
    p->next = 0;
    p->end = n;
    p->grain = grain;
    p->pending = (n + grain - 1) / grain;
    pthread_cond_broadcast(&p->work);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
}

static void pool_stop(job_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->quit = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->workers; ++i) pthread_join(p->thread[i], NULL);
    free(p->thread);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->done);
    pthread_mutex_destroy(&p->lock);
}

#endif /* CROWDIK_EXAMPLE_JOB_POOL_H */
