/* tests/fake_driver/hostemu.c: a fake libcuda.so.1 for CPU tests that keeps "device memory" in
 * host memory; built (with the other .c files here) and run by tests/fake_libcuda.py.
 *
 * From the project's newcomer reliability probe (shared/reviews/probes/hostemu.c), extended for
 * the tests that run on it. Contexts, memory (device, managed, pitched, page-locked, registered,
 * stream-ordered), copies, streams, events, modules (with globals read from a cubin's ELF
 * symbols, so that texture references, which live in a module global, work), CUDA arrays and
 * texture and surface objects behave; kernel launches do nothing. Where it matters, as the
 * driver does:
 * - copies and memsets outside live allocations fail (CUDA_ERROR_INVALID_VALUE) instead of
 *   touching random host memory; the device has 1 GiB; allocations are 512-byte aligned;
 * - async copies that involve page-locked memory are deferred: they run only when an event
 *   recorded after them, a stream or the context is synchronized (or a synchronous copy, a
 *   memset or a free comes), so code that reuses a staging buffer before its DMA is done copies
 *   wrong data here;
 * - cuPointerGetAttribute(MEMORY_TYPE) knows page-locked, registered and device memory and
 *   answers CUDA_ERROR_INVALID_VALUE for pageable memory;
 * - the context stack is bounded (CUDA_ERROR_INVALID_VALUE beyond STACK_MAX contexts);
 * - memory pools keep the driver's statistics (pools.c);
 * - stream captures record the memsets and copies queued on the capturing stream, graphs built
 *   node by node their memset and copy nodes, and launching an instantiated graph replays them;
 *   work on the legacy stream during a capture fails and invalidates it, as does cuMemAlloc in
 *   a global-mode capture (graphs.c);
 * - cuLaunchKernelEx checks cluster shapes against the compute capability and cooperative grids
 *   against the occupancy figures the fake answers (launches.c).
 * Entry points not listed succeed without writing their outputs. hostemu_stats() reports what
 * happened, hostemu_launches() the kernel launches, for the tests to check.
 * Environment: $HOSTEMU_WITHOUT names entry points to withhold (comma-separated), as an older
 * driver lacks them; $HOSTEMU_CC is the compute capability (e.g. "80"; 9.0 without it); with
 * $HOSTEMU_NO_MEMORY_POOLS set the device says it has no memory pools. */
#include "hostemu.h"

#include <stdlib.h>
#include <string.h>

pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

void* with_room(void* items, size_t n, size_t* cap, size_t size) {
    if (n < *cap)
        return items;
    size_t grown = *cap ? 2 * *cap : 64;
    void* moved = realloc(items, grown * size);
    if (moved)
        *cap = grown;
    return moved;
}

/* {{{ known memory ranges */

static struct range* ranges;
static size_t n_ranges, cap_ranges;
static size_t device_bytes; /* held by cuMemAlloc: at most the 1 GiB the device reports */

static int memory_type(int kind) {
    return kind >= HOST_ALLOC ? 1 : 2;
}

int add_range(uintptr_t start, size_t bytes, int kind) {
    struct range x = {start, bytes ? bytes : 1, bytes, kind};
    pthread_mutex_lock(&lock);
    struct range* r = with_room(ranges, n_ranges, &cap_ranges, sizeof *r);
    if (r) {
        ranges = r;
        ranges[n_ranges++] = x;
    }
    pthread_mutex_unlock(&lock);
    return r ? OK : OUT_OF_MEMORY;
}

int take_range_locked(uintptr_t start, int kind, struct range* out) {
    for (size_t i = 0; i < n_ranges; ++i)
        if (ranges[i].start == start && ranges[i].kind == kind) {
            *out = ranges[i];
            ranges[i] = ranges[--n_ranges];
            return 1;
        }
    return 0;
}

/* The kind of the range holding p (0 when none). */
static int kind_at(uintptr_t p) {
    int kind = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_ranges && !kind; ++i)
        if (p >= ranges[i].start && p - ranges[i].start < ranges[i].size)
            kind = ranges[i].kind;
    pthread_mutex_unlock(&lock);
    return kind;
}

/* Whether [p, p + n) lies in one live range. */
static int inside(uintptr_t p, size_t n) {
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < n_ranges && !found; ++i)
        found = p >= ranges[i].start && n <= ranges[i].size &&
                p - ranges[i].start <= ranges[i].size - n;
    pthread_mutex_unlock(&lock);
    return found;
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

EXPORTED void hostemu_stats(long long* out) {
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
    struct op x = {next_seq + 1, dst, src, n, stat};
    struct op* o = with_room(ops, n_ops, &cap_ops, sizeof *o);
    if (o) {
        ops = o;
        ops[n_ops++] = x;
        next_seq = x.seq;
        stats[PENDING] = (long long)n_ops;
    }
    pthread_mutex_unlock(&lock);
    return o ? OK : OUT_OF_MEMORY;
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

void flush(void) {
    run_until((unsigned long long)-1);
}

/* }}} */

/* {{{ device and contexts */

#define STACK_MAX 4096 /* contexts pushed at once */
static __thread void* stack[STACK_MAX];
__thread int depth = 0;
static char primary_ctx_storage[16];

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
        return INVALID_DEVICE;
    *d = 0;
    return OK;
}
static int dev_name(char* n, int len, int d) {
    strncpy(n, "HostEmu GPU", len);
    return OK;
}
int compute_capability(void) {
    const char* cc = getenv("HOSTEMU_CC");
    return cc ? atoi(cc) : 90;
}
static int dev_attr(int* v, int a, int d) {
    /* {attribute, value}: max threads per block (1), multiprocessors (16), warp size (10),
       texture alignment (14), shared memory per block (8), memory pools supported (115) */
    static const int known[][2] = {{1, 1024}, {16, 4}, {10, 32}, {14, 512}, {8, 49152}, {115, 1}};
    if (a == 75 || a == 76) { /* COMPUTE_CAPABILITY_MAJOR, _MINOR */
        *v = a == 75 ? compute_capability() / 10 : compute_capability() % 10;
        return OK;
    }
    if (a == 120) { /* CLUSTER_LAUNCH */
        *v = compute_capability() >= 90;
        return OK;
    }
    if (a == 115 && getenv("HOSTEMU_NO_MEMORY_POOLS")) {
        *v = 0;
        return OK;
    }
    *v = 65536;
    for (size_t i = 0; i < sizeof known / sizeof known[0]; ++i)
        if (known[i][0] == a)
            *v = known[i][1];
    return OK;
}
static int dev_mem(size_t* b, int d) {
    *b = GiB;
    return OK;
}
static int ctx_push(void* c) {
    if (depth == STACK_MAX)
        return INVALID_VALUE;
    stack[depth++] = c;
    return OK;
}
static int ctx_create(void** c, unsigned f, int d) {
    if (depth == STACK_MAX)
        return INVALID_VALUE;
    *c = malloc(16);
    return ctx_push(*c);
}
static int ctx_destroy(void* c) {
    flush();
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
int ctx_sync(void) {
    if (!depth)
        return INVALID_CONTEXT;
    flush();
    release_pools();
    return OK;
}

/* }}} */

/* {{{ memory */

int mem_alloc(dptr* p, size_t n) {
    if (!depth)
        return INVALID_CONTEXT;
    /* (a real driver refuses 0 bytes; here sizes that kernels would have computed are 0) */
    size_t rounded = n ? (n + 511) / 512 * 512 : 512;
    pthread_mutex_lock(&lock);
    int fits = rounded >= n && rounded <= GiB - device_bytes;
    if (fits)
        device_bytes += rounded;
    pthread_mutex_unlock(&lock);
    if (!fits)
        return OUT_OF_MEMORY;
    void* q = aligned_alloc(512, rounded);
    if (!q || add_range((uintptr_t)q, rounded, DEVICE_ALLOC) != OK) {
        free(q);
        pthread_mutex_lock(&lock);
        device_bytes -= rounded;
        pthread_mutex_unlock(&lock);
        return OUT_OF_MEMORY;
    }
    memset(q, 0, rounded);
    *p = (dptr)q;
    return OK;
}
/* Managed memory is host memory the host touches directly: it must be real. */
static int mem_alloc_managed(dptr* p, size_t n, unsigned flags) {
    return mem_alloc(p, n);
}
static int mem_alloc_pitch(dptr* p, size_t* pitch, size_t width, size_t height, unsigned elem) {
    if (width == 0 || height == 0 || width > GiB)
        return INVALID_VALUE;
    *pitch = (width + 511) / 512 * 512;
    if (height > GiB / *pitch)
        return OUT_OF_MEMORY;
    return mem_alloc(p, *pitch * height);
}
static int mem_free(dptr p) {
    flush();
    struct range r;
    pthread_mutex_lock(&lock);
    int found = take_range_locked(p, DEVICE_ALLOC, &r);
    if (found)
        device_bytes -= r.size;
    pthread_mutex_unlock(&lock);
    if (!found) /* memory from a pool, which cuMemFree frees too */
        return free_pool_block(p);
    free((void*)p);
    return OK;
}
static int mem_info(size_t* f, size_t* t) {
    if (!depth)
        return INVALID_CONTEXT;
    *f = GiB / 2;
    *t = GiB;
    return OK;
}
static int host_alloc(void** p, size_t n, unsigned f) {
    if (!depth)
        return INVALID_CONTEXT;
    if (n > GiB) /* page-locked memory is scarce too */
        return OUT_OF_MEMORY;
    void* q = calloc(1, n ? n : 1);
    if (!q || add_range((uintptr_t)q, n, HOST_ALLOC) != OK) {
        free(q);
        return OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&lock);
    ++stats[LIVE_HOST_ALLOCS];
    stats[LIVE_HOST_BYTES] += (long long)n;
    pthread_mutex_unlock(&lock);
    *p = q;
    return OK;
}
static int host_free(void* p) {
    flush();
    struct range r;
    pthread_mutex_lock(&lock);
    int found = take_range_locked((uintptr_t)p, HOST_ALLOC, &r);
    if (found) {
        --stats[LIVE_HOST_ALLOCS];
        stats[LIVE_HOST_BYTES] -= (long long)r.bytes;
    }
    pthread_mutex_unlock(&lock);
    if (!found)
        return INVALID_VALUE;
    free(p);
    return OK;
}
static int host_register(void* p, size_t n, unsigned f) {
    return add_range((uintptr_t)p, n, HOST_REGISTERED);
}
static int host_unregister(void* p) {
    flush();
    struct range r;
    pthread_mutex_lock(&lock);
    int found = take_range_locked((uintptr_t)p, HOST_REGISTERED, &r);
    pthread_mutex_unlock(&lock);
    return found ? OK : HOST_MEMORY_NOT_REGISTERED;
}

/* }}} */

/* {{{ copies and memsets */

static int sync_copy(void* d, const void* s, size_t n, int stat) {
    flush();
    memcpy(d, s, n);
    pthread_mutex_lock(&lock);
    ++stats[stat];
    pthread_mutex_unlock(&lock);
    return OK;
}
int htod(dptr d, const void* s, size_t n) {
    if (!inside(d, n))
        return INVALID_VALUE;
    return sync_copy((void*)d, s, n, SYNC_HTOD);
}
int dtoh(void* d, dptr s, size_t n) {
    if (!inside(s, n))
        return INVALID_VALUE;
    return sync_copy(d, (const void*)s, n, SYNC_DTOH);
}
int dtod(dptr d, dptr s, size_t n) {
    if (!inside(d, n) || !inside(s, n))
        return INVALID_VALUE;
    flush();
    memmove((void*)d, (void*)s, n);
    return OK;
}
static int is_page_locked(const void* p) {
    return memory_type(kind_at((uintptr_t)p)) == 1;
}
/* From or to pageable memory an async copy is synchronous, as in CUDA. */
int htod_a(dptr d, const void* s, size_t n, void* st) {
    if (!inside(d, n))
        return INVALID_VALUE;
    return is_page_locked(s) ? defer((void*)d, s, n, ASYNC_HTOD) : htod(d, s, n);
}
int dtoh_a(void* d, dptr s, size_t n, void* st) {
    if (!inside(s, n))
        return INVALID_VALUE;
    return is_page_locked(d) ? defer(d, (const void*)s, n, ASYNC_DTOH) : dtoh(d, s, n);
}
int dtod_a(dptr d, dptr s, size_t n, void* st) {
    return dtod(d, s, n);
}
int set8(dptr d, unsigned char v, size_t n) {
    if (!inside(d, n))
        return INVALID_VALUE;
    flush();
    memset((void*)d, v, n);
    return OK;
}
int set16(dptr d, unsigned short v, size_t n) {
    if (n > SIZE_MAX / 2 || !inside(d, 2 * n))
        return INVALID_VALUE;
    flush();
    unsigned short* p = (void*)d;
    for (size_t i = 0; i < n; ++i)
        p[i] = v;
    return OK;
}
int set32(dptr d, unsigned v, size_t n) {
    if (n > SIZE_MAX / 4 || !inside(d, 4 * n))
        return INVALID_VALUE;
    flush();
    unsigned* p = (void*)d;
    for (size_t i = 0; i < n; ++i)
        p[i] = v;
    return OK;
}
int set8a(dptr d, unsigned char v, size_t n, void* s) {
    return set8(d, v, n);
}
int set16a(dptr d, unsigned short v, size_t n, void* s) {
    return set16(d, v, n);
}
int set32a(dptr d, unsigned v, size_t n, void* s) {
    return set32(d, v, n);
}
static int ptr_attr(void* data, int attr, dptr p) {
    if (attr == 1) { /* CU_POINTER_ATTRIBUTE_CONTEXT */
        *(void**)data = depth ? stack[depth - 1] : primary_ctx_storage;
        return OK;
    }
    if (attr == 2) { /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
        int kind = kind_at(p);
        if (!kind)
            return INVALID_VALUE;
        *(unsigned*)data = (unsigned)memory_type(kind);
        return OK;
    }
    memset(data, 0, 8);
    return OK;
}

/* }}} */

/* {{{ streams and events */

static int handle_create(void** h, unsigned f) {
    if (!depth)
        return INVALID_CONTEXT;
    *h = calloc(1, sizeof(unsigned long long));
    return *h ? OK : OUT_OF_MEMORY;
}
static int handle_create_prio(void** h, unsigned f, int p) {
    return handle_create(h, f);
}
static int handle_destroy(void* h) {
    free(h);
    return OK;
}
/* A stream said to be done (cuStreamQuery) has run its copies too. */
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

/* }}} */

/* This file's entry points; its copies and memsets, cuMemAlloc and cuCtxSynchronize enter
 * through graphs.c, which records or refuses them during a capture. */
/* clang-format off */
static const struct entry core_entries[] = {
    {"cuDeviceGetCount", get_count}, {"cuDriverGetVersion", drv_ver}, {"cuDeviceGet", dev_get},
    {"cuDeviceGetName", dev_name}, {"cuDeviceGetAttribute", dev_attr},
    {"cuDeviceTotalMem", dev_mem}, {"cuCtxCreate", ctx_create}, {"cuCtxDestroy", ctx_destroy},
    {"cuCtxPushCurrent", ctx_push}, {"cuCtxPopCurrent", ctx_pop}, {"cuCtxGetCurrent", ctx_get},
    {"cuCtxSetCurrent", ctx_set}, {"cuCtxGetDevice", ctx_dev}, {"cuCtxGetApiVersion", ctx_api},
    {"cuDevicePrimaryCtxRetain", prim_retain}, {"cuDevicePrimaryCtxGetState", prim_state},
    {"cuMemAllocManaged", mem_alloc_managed}, {"cuMemAllocPitch", mem_alloc_pitch},
    {"cuMemFree", mem_free}, {"cuMemGetInfo", mem_info}, {"cuMemHostAlloc", host_alloc},
    {"cuMemFreeHost", host_free}, {"cuMemHostRegister", host_register},
    {"cuMemHostUnregister", host_unregister}, {"cuPointerGetAttribute", ptr_attr},
    {"cuStreamCreate", handle_create}, {"cuStreamCreateWithPriority", handle_create_prio},
    {"cuStreamDestroy", handle_destroy}, {"cuStreamSynchronize", stream_sync},
    {"cuStreamQuery", stream_sync}, {"cuEventCreate", handle_create},
    {"cuEventDestroy", handle_destroy}, {"cuEventRecord", event_record},
    {"cuEventSynchronize", event_sync}, {"cuEventQuery", event_sync},
    {"cuEventElapsedTime", elapsed}, {NULL, NULL}};
/* clang-format on */

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
EXPORTED int cuGetProcAddress_v2(const char* sym, void** pfn, int ver, unsigned long long flags,
                                 int* status) {
    if (withheld(sym)) {
        *pfn = NULL;
        if (status)
            *status = 1;
        return NOT_FOUND;
    }
    if (status)
        *status = 0;
    *pfn = (void*)ok;
    static const struct entry* const tables[] = {core_entries, module_entries, pool_entries,
                                                 graph_entries, launch_entries};
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; ++t)
        for (const struct entry* e = tables[t]; e->name; ++e)
            if (!strcmp(sym, e->name)) {
                *pfn = e->fn;
                return OK;
            }
    return OK;
}
