/* tests/hostemu.c: a host-memory "libcuda" for CPU tests: contexts, memory, copies, streams and
 * events (kernel launches do nothing). Built by the tests that use it (tests/hostemu.py).
 *
 * Async copies that involve page-locked memory are deferred, as on a GPU: they run only when an
 * event recorded after them, a stream or the context is synchronized (or a synchronous copy
 * comes), so code that reuses a staging buffer before its DMA is done copies wrong data here.
 * cuPointerGetAttribute(MEMORY_TYPE) knows page-locked, registered and device memory and
 * answers CUDA_ERROR_INVALID_VALUE for pageable memory, as the driver does.
 * hostemu_stats() reports what happened, for the tests to check; hostemu_launches() the kernel
 * launches (cuLaunchKernel and cuLaunchKernelEx, with the latter's attributes).
 * Stream-ordered allocation (cuMemAllocAsync, memory pools) is emulated with the driver's
 * statistics. $HOSTEMU_WITHOUT names entry points to withhold (comma-separated), as an older
 * driver lacks them; with $HOSTEMU_NO_MEMORY_POOLS set the device says it has no memory pools. */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uintptr_t dptr;
enum { OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, INVALID_CONTEXT = 201 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread void* stack[64];
static __thread int depth = 0;
static char primary_ctx_storage[16];

/* {{{ known memory ranges */

enum { HOST = 1, DEVICE = 2 };
struct range {
    uintptr_t start;
    size_t size;
    int type;
};
static struct range* ranges;
static size_t n_ranges, cap_ranges;

static int add_range(uintptr_t start, size_t size, int type) {
    pthread_mutex_lock(&lock);
    if (n_ranges == cap_ranges) {
        size_t cap = cap_ranges ? 2 * cap_ranges : 64;
        struct range* r = realloc(ranges, cap * sizeof *r);
        if (!r) {
            pthread_mutex_unlock(&lock);
            return OUT_OF_MEMORY;
        }
        ranges = r;
        cap_ranges = cap;
    }
    ranges[n_ranges].start = start;
    ranges[n_ranges].size = size ? size : 1;
    ranges[n_ranges].type = type;
    ++n_ranges;
    pthread_mutex_unlock(&lock);
    return OK;
}

static void drop_range(uintptr_t start) {
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_ranges; ++i)
        if (ranges[i].start == start) {
            ranges[i] = ranges[--n_ranges];
            break;
        }
    pthread_mutex_unlock(&lock);
}

/* The type of the range holding p (0 when none); the caller holds the lock. */
static int type_of_locked(uintptr_t p) {
    for (size_t i = 0; i < n_ranges; ++i)
        if (p >= ranges[i].start && p - ranges[i].start < ranges[i].size)
            return ranges[i].type;
    return 0;
}

static int type_of(uintptr_t p) {
    pthread_mutex_lock(&lock);
    int t = type_of_locked(p);
    pthread_mutex_unlock(&lock);
    return t;
}

/* }}} */

/* {{{ statistics: what the tests read */

enum {
    LIVE_HOST_ALLOCS,
    LIVE_HOST_BYTES,
    ASYNC_HTOD,
    ASYNC_DTOH,
    SYNC_HTOD,
    SYNC_DTOH,
    PENDING,
    N_STATS
};
static long long stats[N_STATS];

void hostemu_stats(long long* out) {
    pthread_mutex_lock(&lock);
    memcpy(out, stats, sizeof stats);
    pthread_mutex_unlock(&lock);
}

/* }}} */

/* {{{ the deferred queue of async copies (one for all streams: stricter than CUDA's order) */

struct op {
    unsigned long long seq;
    void* dst;
    const void* src;
    size_t n;
    int stat;
};
static struct op* ops;
static size_t n_ops, cap_ops;
static unsigned long long next_seq;

static int defer(void* dst, const void* src, size_t n, int stat) {
    pthread_mutex_lock(&lock);
    if (n_ops == cap_ops) {
        size_t cap = cap_ops ? 2 * cap_ops : 64;
        struct op* o = realloc(ops, cap * sizeof *o);
        if (!o) {
            pthread_mutex_unlock(&lock);
            return OUT_OF_MEMORY;
        }
        ops = o;
        cap_ops = cap;
    }
    struct op x = {++next_seq, dst, src, n, stat};
    ops[n_ops++] = x;
    stats[PENDING] = (long long)n_ops;
    pthread_mutex_unlock(&lock);
    return OK;
}

/* Runs the queued copies up to sequence number `seq`, in order. */
static void run_until(unsigned long long seq) {
    pthread_mutex_lock(&lock);
    size_t k = 0;
    while (k < n_ops && ops[k].seq <= seq) {
        memcpy(ops[k].dst, ops[k].src, ops[k].n);
        ++stats[ops[k].stat];
        ++k;
    }
    memmove(ops, ops + k, (n_ops - k) * sizeof *ops);
    n_ops -= k;
    stats[PENDING] = (long long)n_ops;
    pthread_mutex_unlock(&lock);
}

static void flush(void) {
    run_until((unsigned long long)-1);
}

/* }}} */

static int ok(void) {
    return OK;
}
static int get_count(int* c) {
    *c = 1;
    return OK;
}
static int drv_ver(int* v) {
    *v = 13000;
    return OK;
}
static int dev_get(int* d, int o) {
    if (o != 0)
        return 101;
    *d = 0;
    return OK;
}
static int dev_name(char* n, int len, int d) {
    strncpy(n, "HostEmu GPU", len);
    return OK;
}
/* Compute capability 9.0, or $HOSTEMU_CC (e.g. "80"); below 9.0 there are no clusters
 * (attribute 120, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH). */
static int compute_capability(void) {
    const char* cc = getenv("HOSTEMU_CC");
    return cc ? atoi(cc) : 90;
}
static int dev_attr(int* v, int a, int d) {
    if (a == 115 && getenv("HOSTEMU_NO_MEMORY_POOLS")) { /* MEMORY_POOLS_SUPPORTED */
        *v = 0;
        return OK;
    }
    if (a == 75 || a == 76) {
        *v = a == 75 ? compute_capability() / 10 : compute_capability() % 10;
        return OK;
    }
    if (a == 120) {
        *v = compute_capability() >= 90;
        return OK;
    }
    *v = (a == 1 ? 1024 : (a == 16 ? 4 : (a == 10 ? 32 : 65536)));
    return OK;
}
static int dev_mem(size_t* b, int d) {
    *b = (size_t)1 << 30;
    return OK;
}
static int ctx_create(void** c, unsigned f, int d) {
    *c = malloc(16);
    stack[depth++] = *c;
    return OK;
}
static int ctx_destroy(void* c) {
    for (int i = 0; i < depth; ++i)
        if (stack[i] == c) {
            memmove(stack + i, stack + i + 1, (depth - i - 1) * sizeof(void*));
            --depth;
            break;
        }
    if (c != primary_ctx_storage)
        free(c);
    return OK;
}
static int ctx_push(void* c) {
    stack[depth++] = c;
    return OK;
}
static int ctx_pop(void** c) {
    if (!depth)
        return INVALID_CONTEXT;
    void* t = stack[--depth];
    if (c)
        *c = t;
    return OK;
}
static int ctx_get(void** c) {
    *c = depth ? stack[depth - 1] : NULL;
    return OK;
}
static int ctx_set(void* c) {
    if (depth)
        stack[depth - 1] = c;
    else if (c)
        stack[depth++] = c;
    return OK;
}
static int ctx_dev(int* d) {
    if (!depth)
        return INVALID_CONTEXT;
    *d = 0;
    return OK;
}
static int ctx_api(void* c, unsigned* v) {
    *v = 13000;
    return OK;
}
static int prim_retain(void** c, int d) {
    *c = primary_ctx_storage;
    return OK;
}
static int prim_state(int d, unsigned* f, int* a) {
    *f = 0;
    *a = 1;
    return OK;
}
static void release_pools(void);
static int ctx_sync(void) {
    if (!depth)
        return INVALID_CONTEXT;
    flush();
    release_pools();
    return OK;
}

static int mem_alloc(dptr* p, size_t n) {
    if (!depth)
        return INVALID_CONTEXT;
    *p = (dptr)calloc(1, n ? n : 1);
    return *p ? add_range(*p, n, DEVICE) : OUT_OF_MEMORY;
}
static int mem_free(dptr p) {
    flush();
    drop_range(p);
    free((void*)p);
    return OK;
}
static int mem_info(size_t* f, size_t* t) {
    if (!depth)
        return INVALID_CONTEXT;
    *f = (size_t)1 << 29;
    *t = (size_t)1 << 30;
    return OK;
}
static int host_alloc(void** p, size_t n, unsigned f) {
    if (!depth)
        return INVALID_CONTEXT;
    *p = calloc(1, n ? n : 1);
    if (!*p)
        return OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    ++stats[LIVE_HOST_ALLOCS];
    stats[LIVE_HOST_BYTES] += (long long)n;
    pthread_mutex_unlock(&lock);
    return add_range((uintptr_t)*p, n, HOST);
}
static int host_free(void* p) {
    flush();
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_ranges; ++i)
        if (ranges[i].start == (uintptr_t)p) {
            --stats[LIVE_HOST_ALLOCS];
            stats[LIVE_HOST_BYTES] -= (long long)ranges[i].size;
            break;
        }
    pthread_mutex_unlock(&lock);
    drop_range((uintptr_t)p);
    free(p);
    return OK;
}
static int host_register(void* p, size_t n, unsigned f) {
    return add_range((uintptr_t)p, n, HOST);
}
static int host_unregister(void* p) {
    flush();
    drop_range((uintptr_t)p);
    return OK;
}

static int sync_copy(void* d, const void* s, size_t n, int stat) {
    flush();
    memcpy(d, s, n);
    pthread_mutex_lock(&lock);
    ++stats[stat];
    pthread_mutex_unlock(&lock);
    return OK;
}
static int htod(dptr d, const void* s, size_t n) {
    return sync_copy((void*)d, s, n, SYNC_HTOD);
}
static int dtoh(void* d, dptr s, size_t n) {
    return sync_copy(d, (const void*)s, n, SYNC_DTOH);
}
static int dtod(dptr d, dptr s, size_t n) {
    flush();
    memmove((void*)d, (void*)s, n);
    return OK;
}
/* From or to pageable memory an async copy is synchronous, as in CUDA. */
static int htod_a(dptr d, const void* s, size_t n, void* st) {
    return type_of((uintptr_t)s) == HOST ? defer((void*)d, s, n, ASYNC_HTOD) : htod(d, s, n);
}
static int dtoh_a(void* d, dptr s, size_t n, void* st) {
    return type_of((uintptr_t)d) == HOST ? defer(d, (const void*)s, n, ASYNC_DTOH) : dtoh(d, s, n);
}
static int dtod_a(dptr d, dptr s, size_t n, void* st) {
    return dtod(d, s, n);
}
static int cpy(dptr d, dptr s, size_t n) {
    flush();
    memmove((void*)d, (void*)s, n);
    return OK;
}
static int cpy_a(dptr d, dptr s, size_t n, void* st) {
    return cpy(d, s, n);
}
static int set8(dptr d, unsigned char v, size_t n) {
    flush();
    memset((void*)d, v, n);
    return OK;
}
static int set16(dptr d, unsigned short v, size_t n) {
    flush();
    unsigned short* p = (void*)d;
    for (size_t i = 0; i < n; ++i)
        p[i] = v;
    return OK;
}
static int set32(dptr d, unsigned v, size_t n) {
    flush();
    unsigned* p = (void*)d;
    for (size_t i = 0; i < n; ++i)
        p[i] = v;
    return OK;
}
static int set8a(dptr d, unsigned char v, size_t n, void* s) {
    return set8(d, v, n);
}
static int set16a(dptr d, unsigned short v, size_t n, void* s) {
    return set16(d, v, n);
}
static int set32a(dptr d, unsigned v, size_t n, void* s) {
    return set32(d, v, n);
}

static int handle_create(void** h, unsigned f) {
    if (!depth)
        return INVALID_CONTEXT;
    *h = calloc(1, 8);
    return OK;
}
static int handle_create_prio(void** h, unsigned f, int p) {
    return handle_create(h, f);
}
static int handle_destroy(void* h) {
    free(h);
    return OK;
}
static int stream_sync(void* s) {
    flush();
    release_pools();
    return OK;
}
/* An event holds the sequence number of the last queued copy when it was recorded. */
static int event_record(void* e, void* s) {
    pthread_mutex_lock(&lock);
    *(unsigned long long*)e = next_seq;
    pthread_mutex_unlock(&lock);
    return OK;
}
static int event_sync(void* e) {
    pthread_mutex_lock(&lock);
    unsigned long long seq = *(unsigned long long*)e;
    pthread_mutex_unlock(&lock);
    run_until(seq);
    release_pools();
    return OK;
}
static int elapsed(float* ms, void* a, void* b) {
    *ms = 0.5f;
    return OK;
}
static int ptr_attr(void* data, int attr, dptr p) {
    if (attr == 1) {
        *(void**)data = depth ? stack[depth - 1] : primary_ctx_storage;
        return OK;
    }
    if (attr == 2) {
        int t = type_of(p);
        if (!t)
            return INVALID_VALUE;
        *(unsigned*)data = (unsigned)t;
        return OK;
    }
    memset(data, 0, 8);
    return OK;
}
static int mod_load(void** m, const void* img) {
    if (!depth)
        return INVALID_CONTEXT;
    *m = malloc(8);
    return OK;
}
static int mod_load_ex(void** m, const void* img, unsigned n, void* o, void** v) {
    return mod_load(m, img);
}
static int mod_unload(void* m) {
    free(m);
    return OK;
}
static int mod_fn(void** f, void* m, const char* name) {
    *f = malloc(8);
    return OK;
}
static int fn_attr(int* v, int a, void* f) {
    *v = (a == 0) ? 1024 : 0;
    return OK;
}
static int param_info(void* f, size_t i, size_t* off, size_t* sz) {
    return 801;
}

/* {{{ launches: counted, and cuLaunchKernelEx's configuration kept */

/* CUlaunchConfig and CUlaunchAttribute of cuda.h (CUDA 12/13), as far as read here. */
struct launch_attribute {
    int id; /* 2: cooperative, 4: cluster dimension */
    char pad[4];
    union {
        char bytes[64];
        int cooperative;
        struct {
            unsigned x, y, z;
        } cluster;
    } value;
};
struct launch_config {
    unsigned grid[3], block[3], shared;
    void* stream;
    struct launch_attribute* attrs;
    unsigned n_attrs;
};

enum { BLOCKS_PER_SM = 16, SMS = 4, COOPERATIVE_LAUNCH_TOO_LARGE = 720, NOT_SUPPORTED = 801 };
/* plain launches, Ex launches, then the last Ex launch's grid[3], block[3], cluster[3],
 * cooperative, attribute count */
static long long launches[13];

static int launch_plain(void) {
    pthread_mutex_lock(&lock);
    ++launches[0];
    pthread_mutex_unlock(&lock);
    return OK;
}
static int launch_ex(const struct launch_config* c, void* f, void** params, void** extra) {
    long long rec[13] = {0};
    for (int i = 0; i < 3; ++i) {
        rec[2 + i] = c->grid[i];
        rec[5 + i] = c->block[i];
    }
    for (unsigned i = 0; i < c->n_attrs; ++i) {
        const struct launch_attribute* a = &c->attrs[i];
        if (a->id == 4) {
            rec[8] = a->value.cluster.x;
            rec[9] = a->value.cluster.y;
            rec[10] = a->value.cluster.z;
        } else if (a->id == 2) {
            rec[11] = a->value.cooperative;
        }
    }
    rec[12] = c->n_attrs;
    if ((rec[8] || rec[9] || rec[10]) && compute_capability() < 90)
        return NOT_SUPPORTED;
    /* A cooperative grid must fit at once: BLOCKS_PER_SM (the occupancy below) x SMS. */
    if (rec[11] && rec[2] * rec[3] * rec[4] > BLOCKS_PER_SM * SMS)
        return COOPERATIVE_LAUNCH_TOO_LARGE;
    pthread_mutex_lock(&lock);
    rec[0] = launches[0];
    rec[1] = launches[1] + 1;
    memcpy(launches, rec, sizeof rec);
    pthread_mutex_unlock(&lock);
    return OK;
}
static int occupancy_blocks(int* n, void* f, int block_size, size_t smem) {
    *n = BLOCKS_PER_SM;
    return OK;
}
static int occupancy_block_size(int* min_grid, int* block, void* f, void* to_smem, size_t smem,
                                int limit) {
    *block = (limit > 0 && limit < 256) ? limit : 256;
    *min_grid = BLOCKS_PER_SM * SMS;
    return OK;
}
static int cluster_size(int* n, void* f, const struct launch_config* c) {
    *n = 8;
    return OK;
}
/* Resident clusters: the SMs' blocks shared out, for the cluster shape the configuration gives. */
static int active_clusters(int* n, void* f, const struct launch_config* c) {
    for (unsigned i = 0; i < c->n_attrs; ++i)
        if (c->attrs[i].id == 4) {
            const unsigned x = c->attrs[i].value.cluster.x, y = c->attrs[i].value.cluster.y,
                           z = c->attrs[i].value.cluster.z;
            *n = (int)(BLOCKS_PER_SM * SMS / (x * y * z));
            return OK;
        }
    return INVALID_VALUE;
}

/* The driver's names for the errors the fake makes up here; pycuda's own table names the rest. */
static int error_name(int code, const char** name) {
    if (code != COOPERATIVE_LAUNCH_TOO_LARGE)
        return INVALID_VALUE;
    *name = "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
    return OK;
}

void hostemu_launches(long long* out) {
    pthread_mutex_lock(&lock);
    memcpy(out, launches, sizeof launches);
    pthread_mutex_unlock(&lock);
}

/* }}} */

/* {{{ stream-ordered memory pools (cuMemAllocAsync and kin)
 *
 * A pool counts bytes as the driver reports them: used (lent out) and reserved (used, plus
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
    RELEASE_THRESHOLD = 4,
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

static void release_pools(void) {
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
        return 101;
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
    pthread_mutex_lock(&lock);
    if (n_blocks == cap_blocks) {
        size_t cap = cap_blocks ? 2 * cap_blocks : 64;
        struct block* b = realloc(blocks, cap * sizeof *b);
        if (!b) {
            pthread_mutex_unlock(&lock);
            free(mem);
            return OUT_OF_MEMORY;
        }
        blocks = b;
        cap_blocks = cap;
    }
    struct block b = {(uintptr_t)mem, n, p};
    blocks[n_blocks++] = b;
    p->used += n;
    if (p->used > p->reserved)
        p->reserved = p->used;
    if (p->used > p->used_high)
        p->used_high = p->used;
    if (p->reserved > p->reserved_high)
        p->reserved_high = p->reserved;
    pthread_mutex_unlock(&lock);
    *out = (dptr)mem;
    return add_range((uintptr_t)mem, n, DEVICE);
}
static int alloc_async(dptr* out, size_t n, void* stream) {
    return alloc_from_pool(out, n, &default_pool, stream);
}
static int free_async(dptr ptr, void* stream) {
    flush(); /* the copies queued before the free read or write the block first */
    pthread_mutex_lock(&lock);
    size_t i = 0;
    while (i < n_blocks && blocks[i].start != ptr)
        ++i;
    if (i == n_blocks) {
        pthread_mutex_unlock(&lock);
        return INVALID_VALUE;
    }
    blocks[i].pool->used -= blocks[i].size;
    blocks[i] = blocks[--n_blocks];
    pthread_mutex_unlock(&lock);
    drop_range(ptr);
    free((void*)ptr);
    return OK;
}
static int pool_trim(struct pool* p, size_t keep) {
    pthread_mutex_lock(&lock);
    keep_within(p, keep);
    pthread_mutex_unlock(&lock);
    return OK;
}
static int pool_set(struct pool* p, int attr, void* value) {
    unsigned long long v = *(unsigned long long*)value;
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

/* }}} */

static const struct {
    const char* name;
    void* fn;
} table[] = {
    {"cuGetErrorName", error_name},
    {"cuLaunchKernel", launch_plain},
    {"cuLaunchKernelEx", launch_ex},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", occupancy_blocks},
    {"cuOccupancyMaxPotentialBlockSize", occupancy_block_size},
    {"cuOccupancyMaxPotentialClusterSize", cluster_size},
    {"cuOccupancyMaxActiveClusters", active_clusters},
    {"cuFuncGetParamInfo", param_info},
    {"cuDeviceGetCount", get_count},
    {"cuDriverGetVersion", drv_ver},
    {"cuDeviceGet", dev_get},
    {"cuDeviceGetName", dev_name},
    {"cuDeviceGetAttribute", dev_attr},
    {"cuDeviceTotalMem", dev_mem},
    {"cuCtxCreate", ctx_create},
    {"cuCtxDestroy", ctx_destroy},
    {"cuCtxPushCurrent", ctx_push},
    {"cuCtxPopCurrent", ctx_pop},
    {"cuCtxGetCurrent", ctx_get},
    {"cuCtxSetCurrent", ctx_set},
    {"cuCtxGetDevice", ctx_dev},
    {"cuCtxGetApiVersion", ctx_api},
    {"cuDevicePrimaryCtxRetain", prim_retain},
    {"cuDevicePrimaryCtxGetState", prim_state},
    {"cuCtxSynchronize", ctx_sync},
    {"cuMemAlloc", mem_alloc},
    {"cuMemFree", mem_free},
    {"cuMemGetInfo", mem_info},
    {"cuMemHostAlloc", host_alloc},
    {"cuMemFreeHost", host_free},
    {"cuMemHostRegister", host_register},
    {"cuMemHostUnregister", host_unregister},
    {"cuMemcpyHtoD", htod},
    {"cuMemcpyDtoH", dtoh},
    {"cuMemcpyDtoD", dtod},
    {"cuMemcpyHtoDAsync", htod_a},
    {"cuMemcpyDtoHAsync", dtoh_a},
    {"cuMemcpyDtoDAsync", dtod_a},
    {"cuMemcpy", cpy},
    {"cuMemcpyAsync", cpy_a},
    {"cuMemsetD8", set8},
    {"cuMemsetD16", set16},
    {"cuMemsetD32", set32},
    {"cuMemsetD8Async", set8a},
    {"cuMemsetD16Async", set16a},
    {"cuMemsetD32Async", set32a},
    {"cuStreamCreate", handle_create},
    {"cuStreamCreateWithPriority", handle_create_prio},
    {"cuStreamDestroy", handle_destroy},
    {"cuStreamSynchronize", stream_sync},
    {"cuEventCreate", handle_create},
    {"cuEventDestroy", handle_destroy},
    {"cuEventRecord", event_record},
    {"cuEventSynchronize", event_sync},
    {"cuEventQuery", event_sync},
    {"cuEventElapsedTime", elapsed},
    {"cuPointerGetAttribute", ptr_attr},
    {"cuModuleLoadData", mod_load},
    {"cuModuleLoadDataEx", mod_load_ex},
    {"cuModuleUnload", mod_unload},
    {"cuModuleGetFunction", mod_fn},
    {"cuFuncGetAttribute", fn_attr},
    {"cuMemAllocAsync", alloc_async},
    {"cuMemAllocFromPoolAsync", alloc_from_pool},
    {"cuMemFreeAsync", free_async},
    {"cuMemPoolCreate", pool_create},
    {"cuMemPoolDestroy", pool_destroy},
    {"cuMemPoolTrimTo", pool_trim},
    {"cuMemPoolSetAttribute", pool_set},
    {"cuMemPoolGetAttribute", pool_get},
    {"cuDeviceGetDefaultMemPool", device_pool},
    {"cuDeviceGetMemPool", device_pool},
};

/* Whether $HOSTEMU_WITHOUT (comma-separated names) lists `sym`: an older driver's lack. */
static int withheld(const char* sym) {
    const char* list = getenv("HOSTEMU_WITHOUT");
    size_t len = strlen(sym);
    for (const char* p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, sym, len) && (p[len] == ',' || p[len] == '\0'))
            return 1;
    return 0;
}

/* Every other entry point succeeds and does nothing; those $HOSTEMU_WITHOUT names are not
 * found (CUDA_ERROR_NOT_FOUND, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND). */
int cuGetProcAddress_v2(const char* sym, void** pfn, int ver, unsigned long long flags,
                        int* status) {
    if (withheld(sym)) {
        *pfn = NULL;
        if (status)
            *status = 1;
        return 500;
    }
    if (status)
        *status = 0;
    *pfn = (void*)ok;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (!strcmp(sym, table[i].name)) {
            *pfn = table[i].fn;
            break;
        }
    return OK;
}
