/*
 * A batch on the engine's own allocator (cik_batch_create_with).
 *
 * Engines route every allocation through their own heaps to budget and
 * track memory. Here the "engine heap" is a fixed arena with a byte budget
 * that counts what is live; the batch takes its header and its streams from
 * it at creation and gives them back at destruction, and the solves in
 * between allocate nothing.
 *
 *   allocator [legs]
 */
#include <crowdik/crowdik.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "leg.h"

/* A bump arena: enough for a demonstration, as a game's level heap. */
typedef struct arena {
    unsigned char *memory;
    size_t capacity, used, live_bytes;
    int live_blocks;
} arena;

static void *arena_allocate(void *user, size_t size, size_t alignment)
{
    arena *a = (arena *)user;
    uintptr_t start = ((uintptr_t)(a->memory + a->used) + alignment - 1) & ~(uintptr_t)(alignment - 1);
    size_t offset = (size_t)(start - (uintptr_t)a->memory);
    if (offset > a->capacity || size > a->capacity - offset) return NULL; /* over budget */
    a->used = offset + size;
    a->live_bytes += size;
    ++a->live_blocks;
    return (void *)start;
}

static void arena_free(void *user, void *pointer, size_t size)
{
    arena *a = (arena *)user;
    (void)pointer; /* a bump arena frees all at once; it only counts here */
    a->live_bytes -= size;
    --a->live_blocks;
}

int main(int argc, char **argv)
{
    int legs = argc > 1 ? atoi(argv[1]) : 1000;
    if (legs < 0) return 2;
    arena heap = {NULL, 4u << 20, 0, 0, 0};
    heap.memory = (unsigned char *)malloc(heap.capacity);
    if (!heap.memory) return 1;
    cik_allocator allocator = {arena_allocate, arena_free, &heap};

    cik_batch *legs_batch = NULL;
    cik_status st = cik_batch_create_with(legs, 3, &allocator, &legs_batch);
    if (st != CIK_OK) {
        fprintf(stderr, "allocator: %s\n", cik_status_string(st));
        return 1;
    }
    printf("batch of %d legs: %zu bytes in %d blocks from the arena (cik_batch_memory_bytes %zu)\n", legs,
           heap.live_bytes, heap.live_blocks, cik_batch_memory_bytes(legs_batch));

    cik_chain c = example_leg(); /* leg.h: the leg, its limits */
    for (int i = 0; i < legs; ++i) {
        c.target = (cik_vec3){0.1f, -0.8f + 0.0001f * (float)i, 0.2f};
        cik_batch_set_chain(legs_batch, i, &c);
    }
    size_t before = heap.used;
    for (int frame = 0; frame < 10; ++frame) cik_solve(legs_batch, NULL);
    printf("10 solves took %zu bytes more from the arena\n", heap.used - before);

    /* a budget too small: a clear status, nothing left allocated */
    arena tiny = {heap.memory, 256, 0, 0, 0};
    cik_allocator small = {arena_allocate, arena_free, &tiny};
    cik_batch *none = NULL;
    st = cik_batch_create_with(legs, 3, &small, &none);
    printf("with a 256-byte budget: %s, %d blocks left\n", cik_status_string(st), tiny.live_blocks);

    cik_batch_destroy(legs_batch);
    printf("after cik_batch_destroy: %zu bytes in %d blocks live\n", heap.live_bytes, heap.live_blocks);
    int ok = heap.live_blocks == 0 && heap.live_bytes == 0 && st == CIK_ERROR_OUT_OF_MEMORY && tiny.live_blocks == 0;
    free(heap.memory);
    return ok ? 0 : 1;
}
