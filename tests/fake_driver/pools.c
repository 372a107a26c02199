/* tests/fake_driver/pools.c: the fake libcuda's stream-ordered memory (cuMemAllocAsync, memory
 * pools and their statistics). */
#include <stdlib.h>
#include <string.h>

#include "hostemu.h"

/* A pool counts bytes as the driver reports them: used (lent out) and reserved (used, plus
 * freed memory kept for reuse). A synchronization (context, stream, event) gives back what is
 * reserved beyond the release threshold, as cuMemPoolTrimTo does beyond its argument. A free
 * first runs the deferred copies (which were queued before it), then is complete when it
 * returns. */

struct pool {
    unsigned long long threshold, reserved, reserved_high, used, used_high;
};
struct block {
    uintptr_t start;
    size_t size;
    struct pool* pool;
};
enum {
    MAX_POOLS = 64,
    RELEASE_THRESHOLD = 4, /* CUmemPool_attribute; those below are the reuse policies */
    RESERVED_CURRENT,
    RESERVED_HIGH,
    USED_CURRENT,
    USED_HIGH
};
static struct pool default_pool;
static struct pool* pools[MAX_POOLS] = {&default_pool};
static int n_pools = 1;
static struct block* blocks;
static size_t n_blocks, cap_blocks;

static void keep_within(struct pool* p, unsigned long long keep) {
    if (p->reserved > keep)
        p->reserved = p->used > keep ? p->used : keep;
}

void release_pools(void) {
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_pools; ++i)
        keep_within(pools[i], pools[i]->threshold);
    pthread_mutex_unlock(&lock);
}

static int pool_create(struct pool** out, const void* props) {
    pthread_mutex_lock(&lock);
    int rc = OUT_OF_MEMORY;
    if (n_pools < MAX_POOLS && (*out = calloc(1, sizeof **out))) {
        pools[n_pools++] = *out;
        rc = OK;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
static int pool_destroy(struct pool* p) {
    if (p == &default_pool)
        return INVALID_VALUE;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_pools; ++i)
        if (pools[i] == p) {
            pools[i] = pools[--n_pools];
            break;
        }
    int in_use = p->used != 0; /* the driver frees it once its blocks are freed: here, never */
    pthread_mutex_unlock(&lock);
    if (!in_use)
        free(p);
    return OK;
}
static int device_pool(struct pool** out, int dev) {
    if (dev != 0)
        return INVALID_DEVICE;
    *out = &default_pool;
    return OK;
}
static int alloc_from_pool(dptr* out, size_t n, struct pool* p, void* stream) {
    if (!stream && !depth)
        return INVALID_CONTEXT;
    if (n == 0)
        return INVALID_VALUE;
    void* mem = calloc(1, n);
    if (!mem)
        return OUT_OF_MEMORY;
    if (add_range((uintptr_t)mem, n, POOL_ALLOC) != OK) {
        free(mem);
        return OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&lock);
    struct block* b = with_room(blocks, n_blocks, &cap_blocks, sizeof *b);
    if (b) {
        blocks = b;
        blocks[n_blocks++] = (struct block){(uintptr_t)mem, n, p};
        p->used += n;
        if (p->used > p->reserved)
            p->reserved = p->used;
        if (p->used > p->used_high)
            p->used_high = p->used;
        if (p->reserved > p->reserved_high)
            p->reserved_high = p->reserved;
    } else {
        struct range r;
        take_range_locked((uintptr_t)mem, POOL_ALLOC, &r);
    }
    pthread_mutex_unlock(&lock);
    if (!b) {
        free(mem);
        return OUT_OF_MEMORY;
    }
    *out = (dptr)mem;
    return OK;
}
static int alloc_async(dptr* out, size_t n, void* stream) {
    return alloc_from_pool(out, n, &default_pool, stream);
}
int free_pool_block(dptr p) {
    flush(); /* the copies queued before the free read or write the block first */
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < n_blocks && blocks[i].start != p)
        ++i;
    int found = i < n_blocks;
    if (found) {
        struct range r;
        take_range_locked(p, POOL_ALLOC, &r);
        blocks[i].pool->used -= blocks[i].size;
        blocks[i] = blocks[--n_blocks];
    }
    pthread_mutex_unlock(&lock);
    if (!found)
        return INVALID_VALUE;
    free((void*)p);
    return OK;
}
static int free_async(dptr p, void* stream) {
    return free_pool_block(p);
}
static int pool_trim(struct pool* p, size_t keep) {
    pthread_mutex_lock(&lock);
    keep_within(p, keep);
    pthread_mutex_unlock(&lock);
    return OK;
}
static int pool_set(struct pool* p, int attr, void* value) {
    /* (the reuse policies below RELEASE_THRESHOLD are ints, and taken as they come) */
    unsigned long long v = attr < RELEASE_THRESHOLD ? 0 : *(unsigned long long*)value;
    int rc = OK;
    pthread_mutex_lock(&lock);
    if (attr == RELEASE_THRESHOLD)
        p->threshold = v;
    else if (attr == RESERVED_HIGH && v == 0)
        p->reserved_high = p->reserved;
    else if (attr == USED_HIGH && v == 0)
        p->used_high = p->used;
    else if (attr >= RELEASE_THRESHOLD)
        rc = INVALID_VALUE;
    pthread_mutex_unlock(&lock);
    return rc;
}
static int pool_get(struct pool* p, int attr, void* value) {
    if (attr < RELEASE_THRESHOLD) { /* the reuse policies: int flags, all on */
        *(int*)value = 1;
        return OK;
    }
    pthread_mutex_lock(&lock);
    unsigned long long v = attr == RELEASE_THRESHOLD  ? p->threshold
                           : attr == RESERVED_CURRENT ? p->reserved
                           : attr == RESERVED_HIGH    ? p->reserved_high
                           : attr == USED_CURRENT     ? p->used
                                                      : p->used_high;
    pthread_mutex_unlock(&lock);
    *(unsigned long long*)value = v;
    return attr <= USED_HIGH ? OK : INVALID_VALUE;
}

/* clang-format off */
const struct entry pool_entries[] = {
    {"cuMemAllocAsync", alloc_async}, {"cuMemAllocFromPoolAsync", alloc_from_pool},
    {"cuMemFreeAsync", free_async}, {"cuMemPoolCreate", pool_create},
    {"cuMemPoolDestroy", pool_destroy}, {"cuMemPoolTrimTo", pool_trim},
    {"cuMemPoolSetAttribute", pool_set}, {"cuMemPoolGetAttribute", pool_get},
    {"cuDeviceGetDefaultMemPool", device_pool}, {"cuDeviceGetMemPool", device_pool},
    {NULL, NULL}};
/* clang-format on */
