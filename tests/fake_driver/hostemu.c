/* tests/fake_driver/hostemu.c: a fake libcuda.so.1 for CPU tests that keeps "device memory" in
 * host memory; built and run by tests/fake_libcuda.py.
 *
 * From the project's newcomer reliability probe (shared/reviews/probes/hostemu.c), extended for
 * the staged-copy, exit and fuzz tests. Contexts, memory (device, managed, pitched, page-locked,
 * registered), copies, streams, events, modules (with globals read from a cubin's ELF symbols,
 * so that texture references, which live in a module global, work), CUDA arrays and texture and
 * surface objects behave; kernel launches do nothing. Where it matters, as the driver does:
 * - copies and memsets outside live allocations fail (CUDA_ERROR_INVALID_VALUE) instead of
 *   touching random host memory; the device has 1 GiB; allocations are 512-byte aligned;
 * - async copies that involve page-locked memory are deferred: they run only when an event
 *   recorded after them, a stream or the context is synchronized (or a synchronous copy, a
 *   memset or a free comes), so code that reuses a staging buffer before its DMA is done copies
 *   wrong data here;
 * - cuPointerGetAttribute(MEMORY_TYPE) knows page-locked, registered and device memory and
 *   answers CUDA_ERROR_INVALID_VALUE for pageable memory;
 * - the context stack is bounded (CUDA_ERROR_INVALID_VALUE beyond STACK_MAX contexts).
 * Entry points not listed succeed without writing their outputs. hostemu_stats() reports what
 * happened, for the tests to check. */
#include <elf.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uintptr_t dptr;
enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    NOT_FOUND = 500,
    HOST_MEMORY_NOT_REGISTERED = 713,
    NOT_SUPPORTED = 801
};
#define GiB ((size_t)1 << 30)

/* Guards the memory ranges, the deferred queue, the statistics and the device's byte count:
 * the staged-copy tests copy from several threads at once. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The array `items` of `n` elements of `size` bytes (room for *cap) with room for one more:
 * maybe moved, or NULL when out of memory (the old one then stays as it was). */
static void* with_room(void* items, size_t n, size_t* cap, size_t size) {
    if (n < *cap)
        return items;
    size_t grown = *cap ? 2 * *cap : 64;
    void* moved = realloc(items, grown * size);
    if (moved)
        *cap = grown;
    return moved;
}

/* {{{ known memory ranges */

/* What a range is; CU_MEMORYTYPE_HOST (1) for the host kinds, CU_MEMORYTYPE_DEVICE (2) else. */
enum { DEVICE_ALLOC = 1, MODULE_GLOBAL, HOST_ALLOC, HOST_REGISTERED };
struct range {
    uintptr_t start;
    size_t size;  /* at least 1, so that the range holds its start */
    size_t bytes; /* as asked for: what the statistics count */
    int kind;
};
static struct range* ranges;
static size_t n_ranges, cap_ranges;
static size_t device_bytes; /* held by cuMemAlloc: at most the 1 GiB the device reports */

static int memory_type(int kind) {
    return kind >= HOST_ALLOC ? 1 : 2;
}

static int add_range(uintptr_t start, size_t bytes, int kind) {
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

/* Removes the range of this kind that starts at `start` into *out; 0 when there is none. The
 * caller holds the lock. */
static int take_range_locked(uintptr_t start, int kind, struct range* out) {
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

/* Before memory is freed or touched synchronously, what was queued for it must have run. */
static void flush(void) {
    run_until((unsigned long long)-1);
}

/* }}} */

/* {{{ device and contexts */

#define STACK_MAX 4096 /* contexts pushed at once */
static __thread void* stack[STACK_MAX];
static __thread int depth = 0;
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
static int dev_attr(int* v, int a, int d) {
    /* {attribute, value}: compute capability 9.0 (75, 76), max threads per block (1),
       multiprocessors (16), warp size (10), texture alignment (14), shared memory per block (8) */
    static const int known[][2] = {{75, 9},  {76, 0},   {1, 1024}, {16, 4},
                                   {10, 32}, {14, 512}, {8, 49152}};
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
static int ctx_sync(void) {
    if (!depth)
        return INVALID_CONTEXT;
    flush();
    return OK;
}

/* }}} */

/* {{{ memory */

static int mem_alloc(dptr* p, size_t n) {
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
    if (!found)
        return INVALID_VALUE;
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
static int htod(dptr d, const void* s, size_t n) {
    if (!inside(d, n))
        return INVALID_VALUE;
    return sync_copy((void*)d, s, n, SYNC_HTOD);
}
static int dtoh(void* d, dptr s, size_t n) {
    if (!inside(s, n))
        return INVALID_VALUE;
    return sync_copy(d, (const void*)s, n, SYNC_DTOH);
}
static int dtod(dptr d, dptr s, size_t n) {
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
static int htod_a(dptr d, const void* s, size_t n, void* st) {
    if (!inside(d, n))
        return INVALID_VALUE;
    return is_page_locked(s) ? defer((void*)d, s, n, ASYNC_HTOD) : htod(d, s, n);
}
static int dtoh_a(void* d, dptr s, size_t n, void* st) {
    if (!inside(s, n))
        return INVALID_VALUE;
    return is_page_locked(d) ? defer(d, (const void*)s, n, ASYNC_DTOH) : dtoh(d, s, n);
}
static int dtod_a(dptr d, dptr s, size_t n, void* st) {
    return dtod(d, s, n);
}
static int cpy_a(dptr d, dptr s, size_t n, void* st) {
    return dtod(d, s, n);
}
static int set8(dptr d, unsigned char v, size_t n) {
    if (!inside(d, n))
        return INVALID_VALUE;
    flush();
    memset((void*)d, v, n);
    return OK;
}
static int set16(dptr d, unsigned short v, size_t n) {
    if (n > SIZE_MAX / 2 || !inside(d, 2 * n))
        return INVALID_VALUE;
    flush();
    unsigned short* p = (void*)d;
    for (size_t i = 0; i < n; ++i)
        p[i] = v;
    return OK;
}
static int set32(dptr d, unsigned v, size_t n) {
    if (n > SIZE_MAX / 4 || !inside(d, 4 * n))
        return INVALID_VALUE;
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
    return OK;
}
static int elapsed(float* ms, void* a, void* b) {
    *ms = 0.5f;
    return OK;
}

/* }}} */

/* {{{ modules: a copy of the cubin, to find globals in it; globals get host memory once */

struct global {
    char name[128];
    dptr ptr;
    size_t size;
    struct global* next;
};
struct module {
    unsigned char* image;
    size_t size;
    struct global* globals;
};
static size_t elf_size(const unsigned char* img) {
    /* Byte by byte: an image that is not ELF may be a short NUL-terminated PTX text, and the
       comparison must stop at its first differing byte, before its end. */
    if (img[0] != ELFMAG0 || img[1] != ELFMAG1 || img[2] != ELFMAG2 || img[3] != ELFMAG3)
        return 0;
    const Elf64_Ehdr* eh = (const Elf64_Ehdr*)img;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64)
        return 0;
    size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    const Elf64_Shdr* sh = (const Elf64_Shdr*)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i)
        if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > end)
            end = sh[i].sh_offset + sh[i].sh_size;
    return end;
}
static int mod_load(void** m, const void* img) {
    if (!depth)
        return INVALID_CONTEXT;
    struct module* mod = calloc(1, sizeof *mod);
    mod->size = elf_size(img);
    if (mod->size) {
        mod->image = malloc(mod->size);
        memcpy(mod->image, img, mod->size);
    }
    *m = mod;
    return OK;
}
static int mod_load_ex(void** m, const void* img, unsigned n, void* o, void** v) {
    return mod_load(m, img);
}
static int mod_unload(void* m) {
    struct module* mod = m;
    flush();
    for (struct global* g = mod->globals; g;) {
        struct global* next = g->next;
        struct range r;
        pthread_mutex_lock(&lock);
        take_range_locked(g->ptr, MODULE_GLOBAL, &r);
        pthread_mutex_unlock(&lock);
        free((void*)g->ptr);
        free(g);
        g = next;
    }
    free(mod->image);
    free(mod);
    return OK;
}
/* The global `name`: allocated and filled from the image's symbol the first time. */
static int mod_global(dptr* p, size_t* bytes, void* m, const char* name) {
    struct module* mod = m;
    struct global* g = mod->globals;
    while (g && strcmp(g->name, name))
        g = g->next;
    if (!g) {
        if (!mod->image || strlen(name) >= sizeof g->name)
            return NOT_FOUND;
        const Elf64_Ehdr* eh = (const Elf64_Ehdr*)mod->image;
        const Elf64_Shdr* sh = (const Elf64_Shdr*)(mod->image + eh->e_shoff);
        const Elf64_Sym* sym = NULL;
        for (int i = 0; i < eh->e_shnum && !sym; ++i) {
            if (sh[i].sh_type != SHT_SYMTAB)
                continue;
            const Elf64_Sym* syms = (const Elf64_Sym*)(mod->image + sh[i].sh_offset);
            const char* strs = (const char*)(mod->image + sh[sh[i].sh_link].sh_offset);
            for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym) && !sym; ++k)
                if (ELF64_ST_TYPE(syms[k].st_info) == STT_OBJECT &&
                    !strcmp(strs + syms[k].st_name, name))
                    sym = &syms[k];
        }
        if (!sym || sym->st_shndx == SHN_UNDEF || sym->st_shndx >= eh->e_shnum)
            return NOT_FOUND;
        const Elf64_Shdr* sec = &sh[sym->st_shndx];
        g = calloc(1, sizeof *g);
        strcpy(g->name, name);
        g->size = sym->st_size;
        g->ptr = (dptr)calloc(1, g->size ? g->size : 1);
        add_range(g->ptr, g->size, MODULE_GLOBAL);
        if (sec->sh_type != SHT_NOBITS)
            memcpy((void*)g->ptr, mod->image + sec->sh_offset + sym->st_value, g->size);
        g->next = mod->globals;
        mod->globals = g;
    }
    if (p)
        *p = g->ptr;
    if (bytes)
        *bytes = g->size;
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
    return NOT_SUPPORTED;
}

/* }}} */

/* {{{ CUDA arrays (their descriptor: width, height, depth, format, channels, flags), texture
 * and surface objects */

struct array3d {
    size_t w, h, d;
    int format;
    unsigned channels, flags;
};
static int array_create(void** a, const struct array3d* desc2d) {
    if (!depth)
        return INVALID_CONTEXT;
    struct array3d* arr = calloc(1, sizeof *arr);
    arr->w = desc2d->w; /* CUDA_ARRAY_DESCRIPTOR: w, h, format, channels */
    arr->h = desc2d->h;
    memcpy(&arr->format, (const char*)desc2d + 2 * sizeof(size_t), 2 * sizeof(int));
    *a = arr;
    return OK;
}
static int array3d_create(void** a, const struct array3d* desc) {
    if (!depth)
        return INVALID_CONTEXT;
    struct array3d* arr = malloc(sizeof *arr);
    *arr = *desc;
    *a = arr;
    return OK;
}
static int array_desc(void* out, void* a) {
    const struct array3d* arr = a;
    memcpy(out, arr, 2 * sizeof(size_t));
    memcpy((char*)out + 2 * sizeof(size_t), &arr->format, 2 * sizeof(int));
    return OK;
}
static int array3d_desc(struct array3d* out, void* a) {
    *out = *(const struct array3d*)a;
    return OK;
}
static int array_destroy(void* a) {
    free(a);
    return OK;
}
static unsigned long long next_object = 1;
static int object_create(unsigned long long* h, const void* res, const void* tex,
                         const void* view) {
    if (!depth)
        return INVALID_CONTEXT;
    pthread_mutex_lock(&lock);
    *h = next_object++;
    pthread_mutex_unlock(&lock);
    return OK;
}
static int surf_create(unsigned long long* h, const void* res) {
    return object_create(h, res, NULL, NULL);
}

/* }}} */

/* clang-format off */
static const struct {
    const char* name;
    void* fn;
} table[] = {
    {"cuFuncGetParamInfo", param_info}, {"cuDeviceGetCount", get_count},
    {"cuDriverGetVersion", drv_ver}, {"cuDeviceGet", dev_get}, {"cuDeviceGetName", dev_name},
    {"cuDeviceGetAttribute", dev_attr}, {"cuDeviceTotalMem", dev_mem}, {"cuCtxCreate", ctx_create},
    {"cuCtxDestroy", ctx_destroy}, {"cuCtxPushCurrent", ctx_push}, {"cuCtxPopCurrent", ctx_pop},
    {"cuCtxGetCurrent", ctx_get}, {"cuCtxSetCurrent", ctx_set}, {"cuCtxGetDevice", ctx_dev},
    {"cuCtxGetApiVersion", ctx_api}, {"cuDevicePrimaryCtxRetain", prim_retain},
    {"cuDevicePrimaryCtxGetState", prim_state}, {"cuCtxSynchronize", ctx_sync},
    {"cuMemAlloc", mem_alloc}, {"cuMemAllocManaged", mem_alloc_managed},
    {"cuMemAllocPitch", mem_alloc_pitch}, {"cuMemFree", mem_free}, {"cuMemGetInfo", mem_info},
    {"cuMemHostAlloc", host_alloc}, {"cuMemFreeHost", host_free},
    {"cuMemHostRegister", host_register}, {"cuMemHostUnregister", host_unregister},
    {"cuMemcpyHtoD", htod}, {"cuMemcpyDtoH", dtoh}, {"cuMemcpyDtoD", dtod},
    {"cuMemcpyHtoDAsync", htod_a}, {"cuMemcpyDtoHAsync", dtoh_a}, {"cuMemcpyDtoDAsync", dtod_a},
    {"cuMemcpy", dtod}, {"cuMemcpyAsync", cpy_a}, {"cuMemsetD8", set8}, {"cuMemsetD16", set16},
    {"cuMemsetD32", set32}, {"cuMemsetD8Async", set8a}, {"cuMemsetD16Async", set16a},
    {"cuMemsetD32Async", set32a}, {"cuPointerGetAttribute", ptr_attr},
    {"cuStreamCreate", handle_create}, {"cuStreamCreateWithPriority", handle_create_prio},
    {"cuStreamDestroy", handle_destroy}, {"cuStreamSynchronize", stream_sync},
    {"cuStreamQuery", stream_sync}, {"cuEventCreate", handle_create},
    {"cuEventDestroy", handle_destroy}, {"cuEventRecord", event_record},
    {"cuEventSynchronize", event_sync}, {"cuEventQuery", event_sync},
    {"cuEventElapsedTime", elapsed}, {"cuModuleLoadData", mod_load},
    {"cuModuleLoadDataEx", mod_load_ex}, {"cuModuleUnload", mod_unload},
    {"cuModuleGetFunction", mod_fn}, {"cuModuleGetGlobal", mod_global},
    {"cuFuncGetAttribute", fn_attr}, {"cuArrayCreate", array_create},
    {"cuArray3DCreate", array3d_create}, {"cuArrayDestroy", array_destroy},
    {"cuArrayGetDescriptor", array_desc}, {"cuArray3DGetDescriptor", array3d_desc},
    {"cuTexObjectCreate", object_create}, {"cuTexObjectDestroy", ok},
    {"cuSurfObjectCreate", surf_create}, {"cuSurfObjectDestroy", ok}};
/* clang-format on */

/* Every other entry point succeeds and does nothing. */
int cuGetProcAddress_v2(const char* sym, void** pfn, int ver, unsigned long long flags,
                        int* status) {
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
