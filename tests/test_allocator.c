/*
 * Batches on an engine's allocator (cik_batch_create_with): every byte a
 * batch owns comes from the allocator and goes back to it, with the size it
 * was allocated with and the alignment asked for; an allocator that fails
 * or breaks its contract gets a clear status and has nothing left
 * allocated; such a batch solves to the same bits as a malloc one.
 */
#include "common.h"

#define SLOTS 16

typedef struct counting {
    void *pointer[SLOTS];
    size_t size[SLOTS];
    int live, allocations, frees, wrong_size;
    int fail_at;      /* the allocation number (1-based) that fails; 0 none */
    int misalign_at;  /* the allocation number handed out 4 bytes off */
} counting;

static void *count_allocate(void *user, size_t size, size_t alignment)
{
    counting *c = (counting *)user;
    int n = ++c->allocations;
    cr_assert(alignment >= 1 && alignment <= 64 && (alignment & (alignment - 1)) == 0, "alignment %zu",
              alignment);
    if (n == c->fail_at) return NULL;
    /* 64-byte blocks, rounded as aligned_alloc needs; room for the
     * misaligned case */
    char *p = (char *)aligned_alloc(64, (size + 16 + 63) / 64 * 64);
    cr_assert(p);
    if (n == c->misalign_at) p += 4; /* aligned for nothing wider than a float */
    for (int i = 0; i < SLOTS; ++i)
        if (!c->pointer[i]) {
            c->pointer[i] = p;
            c->size[i] = size;
            ++c->live;
            return p;
        }
    cr_assert_fail("more than %d live allocations", SLOTS);
    return NULL;
}

static void count_free(void *user, void *pointer, size_t size)
{
    counting *c = (counting *)user;
    ++c->frees;
    for (int i = 0; i < SLOTS; ++i)
        if (c->pointer[i] == pointer) {
            if (c->size[i] != size) ++c->wrong_size;
            c->pointer[i] = NULL;
            --c->live;
            char *p = (char *)pointer;
            if ((uintptr_t)p % 64 != 0) p -= 4;
            free(p);
            return;
        }
    cr_assert_fail("free of a pointer the allocator never gave: %p", pointer);
}

static cik_allocator allocator_of(counting *c)
{
    memset(c, 0, sizeof *c);
    cik_allocator a = {count_allocate, count_free, c};
    return a;
}

Test(allocator, every_byte_through_it)
{
    counting c;
    cik_allocator a = allocator_of(&c);
    static const int sizes[][2] = {{0, 1}, {1, 3}, {1000, 3}, {4096, 16}};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        cik_batch *b = NULL;
        cr_assert_eq(cik_batch_create_with(sizes[k][0], sizes[k][1], &a, &b), CIK_OK);
        cr_expect_eq(c.live, 2, "the header and the streams");
        size_t held = c.size[0] + c.size[1];
        cr_expect_eq(cik_batch_memory_bytes(b), held, "memory_bytes %zu, allocator holds %zu",
                     cik_batch_memory_bytes(b), held);
        cik_streams s;
        cr_assert_eq(cik_batch_streams(b, &s), CIK_OK);
        cr_expect_eq((uintptr_t)s.target_x % 64, 0u, "streams 64-byte aligned");
        cik_batch_destroy(b);
        cr_expect_eq(c.live, 0, "%d chains: %d allocations left", sizes[k][0], c.live);
    }
    cr_expect_eq(c.allocations, 8);
    cr_expect_eq(c.frees, 8);
    cr_expect_eq(c.wrong_size, 0, "free given the allocation's size");
}

Test(allocator, failures_leave_nothing)
{
    counting c;
    cik_allocator a = allocator_of(&c);
    cik_batch *sentinel = (cik_batch *)&c, *b = sentinel;
    for (int fail = 1; fail <= 2; ++fail) {
        allocator_of(&c);
        c.fail_at = fail;
        cr_expect_eq(cik_batch_create_with(100, 3, &a, &b), CIK_ERROR_OUT_OF_MEMORY, "allocation %d fails", fail);
        cr_expect_eq(b, sentinel, "out unchanged");
        cr_expect_eq(c.live, 0, "allocation %d fails: %d left", fail, c.live);
        allocator_of(&c);
        c.misalign_at = fail;
        cr_expect_eq(cik_batch_create_with(100, 3, &a, &b), CIK_ERROR_ARGUMENT, "allocation %d misaligned", fail);
        cr_expect_eq(b, sentinel, "out unchanged");
        cr_expect_eq(c.live, 0, "allocation %d misaligned: %d left", fail, c.live);
    }
    cik_allocator half = a;
    half.free = NULL;
    cr_expect_eq(cik_batch_create_with(100, 3, &half, &b), CIK_ERROR_ARGUMENT);
    half = a;
    half.allocate = NULL;
    cr_expect_eq(cik_batch_create_with(100, 3, &half, &b), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_create_with(-1, 3, &a, &b), CIK_ERROR_ARGUMENT);
    cr_expect_eq(cik_batch_create_with(100, 3, &a, NULL), CIK_ERROR_ARGUMENT);
    cr_expect_eq(b, sentinel);
    cr_expect_eq(c.live, 0);
}

Test(allocator, solves_like_malloc)
{
    counting c;
    cik_allocator a = allocator_of(&c);
    cik_batch *own = NULL, *plain = t_workload_batch(WL_LEGS, 7u, 300, 3);
    cr_assert_eq(cik_batch_create_with(300, 3, &a, &own), CIK_OK);
    cr_assert_eq(wl_fill(own, WL_LEGS, 7u, 0), CIK_OK);
    cik_options o = cik_default_options();
    cr_assert_eq(cik_solve(own, &o), CIK_OK);
    cr_assert_eq(cik_solve(plain, &o), CIK_OK);
    t_solution x = t_capture(own), y = t_capture(plain);
    for (int i = 0; i < 300; ++i) cr_expect(t_same_chain(&x, i, &y, i), "chain %d", i);
    cr_expect_eq(c.allocations, 2, "the solve allocated nothing through it");
    t_release(&x);
    t_release(&y);
    cik_batch_destroy(own);
    cik_batch_destroy(plain);
    cr_expect_eq(c.live, 0);
}
