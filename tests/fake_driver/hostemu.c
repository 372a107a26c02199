/* tests/fake_driver/hostemu.c: a fake libcuda.so.1 that keeps "device memory" in host memory.
 *
 * From the project's newcomer reliability probe (shared/reviews/probes/hostemu.c), extended
 * for the exit tests: CUDA arrays, texture and surface objects, and module globals read from a
 * cubin's ELF symbols (so that texture references, which live in a module global, work).
 * Contexts, memory, copies, streams, events and modules behave, and stream captures and graphs
 * record and replay their memsets and copies; kernel launches do nothing.
 * Copies and memsets outside live allocations fail (CUDA_ERROR_INVALID_VALUE) as on a real
 * driver. Entry points not listed succeed without writing their outputs.
 * Build: gcc -shared -fPIC -O1 -o libcuda.so.1 hostemu.c
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
typedef uintptr_t dptr;
#define STACK_MAX 4096 /* contexts pushed at once; beyond: CUDA_ERROR_INVALID_VALUE */
static __thread void* stack[STACK_MAX];
static __thread int depth = 0;
static char primary_ctx_storage[16];
static int ok(void) { return 0; }
static int get_count(int* c) { *c = 1; return 0; }
static int drv_ver(int* v) { *v = 13000; return 0; }
static int dev_get(int* d, int o) { if (o != 0) return 101; *d = 0; return 0; }
static int dev_name(char* n, int len, int d) { strncpy(n, "HostEmu GPU", len); return 0; }
static int dev_attr(int* v, int a, int d) {
    /* 75/76: compute capability 9.0; 1: max threads per block; 16: SMs; 10: warp size;
       14: texture alignment; 8: shared memory per block */
    *v = (a == 75) ? 9 : (a == 76 ? 0 : (a == 1 ? 1024 : (a == 16 ? 4 : (a == 10 ? 32 : 65536))));
    if (a == 14) *v = 512;
    if (a == 8) *v = 49152;
    return 0;
}
static int dev_mem(size_t* b, int d) { *b = (size_t)1 << 30; return 0; }
static int ctx_create(void** c, unsigned f, int d) {
    if (depth == STACK_MAX) return 1;
    *c = malloc(16);
    stack[depth++] = *c;
    return 0;
}
static int ctx_destroy(void* c) {
    for (int i = 0; i < depth; ++i)
        if (stack[i] == c) { memmove(stack + i, stack + i + 1, (depth - i - 1) * sizeof(void*)); --depth; break; }
    if (c != primary_ctx_storage) free(c);
    return 0;
}
static int ctx_push(void* c) { if (depth == STACK_MAX) return 1; stack[depth++] = c; return 0; }
static int ctx_pop(void** c) { if (!depth) return 201; void* t = stack[--depth]; if (c) *c = t; return 0; }
static int ctx_get(void** c) { *c = depth ? stack[depth - 1] : NULL; return 0; }
static int ctx_set(void* c) { if (depth) stack[depth - 1] = c; else if (c) stack[depth++] = c; return 0; }
static int ctx_dev(int* d) { if (!depth) return 201; *d = 0; return 0; }
static int ctx_api(void* c, unsigned* v) { *v = 13000; return 0; }
static int prim_retain(void** c, int d) { *c = primary_ctx_storage; return 0; }
static int prim_state(int d, unsigned* f, int* a) { *f = 0; *a = 1; return 0; }
static int need_ctx(void) { return depth ? 0 : 201; }
/* Live device and page-locked allocations: copies and memsets outside them fail with
   CUDA_ERROR_INVALID_VALUE, as the driver's do, instead of touching random host memory. */
struct span { uintptr_t start; size_t size; };
static struct span* spans;
static size_t span_count, span_capacity;
static size_t device_bytes; /* held by mem_alloc: at most the 1 GiB the device reports */
static void track(uintptr_t p, size_t n) {
    if (span_count == span_capacity) {
        span_capacity = span_capacity ? 2 * span_capacity : 256;
        spans = realloc(spans, span_capacity * sizeof *spans);
    }
    spans[span_count].start = p;
    spans[span_count++].size = n;
}
static int untrack(uintptr_t p) {
    for (size_t i = 0; i < span_count; ++i)
        if (spans[i].start == p) { spans[i] = spans[--span_count]; return 1; }
    return 0;
}
static int inside(uintptr_t p, size_t n) {
    for (size_t i = 0; i < span_count; ++i)
        if (p >= spans[i].start && n <= spans[i].size && p - spans[i].start <= spans[i].size - n) return 1;
    return 0;
}
/* 512-byte aligned, as the driver's allocations are (texture alignment) */
static int mem_alloc(dptr* p, size_t n) {
    if (!depth) return 201;
    /* (a real driver refuses 0 bytes; here sizes that kernels would have computed are 0) */
    size_t rounded = n ? (n + 511) / 512 * 512 : 512;
    if (rounded < n || rounded > ((size_t)1 << 30) - device_bytes) return 2; /* out of memory */
    *p = (dptr)aligned_alloc(512, rounded);
    if (!*p) return 2;
    memset((void*)*p, 0, rounded);
    track(*p, rounded);
    device_bytes += rounded;
    return 0;
}
/* Managed memory is host memory the host touches directly: it must be real. */
static int mem_alloc_managed(dptr* p, size_t n, unsigned flags) { return mem_alloc(p, n); }
static int mem_alloc_pitch(dptr* p, size_t* pitch, size_t width, size_t height, unsigned elem) {
    if (width == 0 || height == 0 || width > ((size_t)1 << 30)) return 1;
    *pitch = (width + 511) / 512 * 512;
    if (height > (((size_t)1 << 30) / *pitch)) return 2;
    return mem_alloc(p, *pitch * height);
}
static int mem_free(dptr p) {
    for (size_t i = 0; i < span_count; ++i)
        if (spans[i].start == p) device_bytes -= spans[i].size;
    if (!untrack(p)) return 1;
    free((void*)p);
    return 0;
}
static int mem_info(size_t* f, size_t* t) { if (!depth) return 201; *f = (size_t)1 << 29; *t = (size_t)1 << 30; return 0; }
static int host_alloc(void** p, size_t n, unsigned f) {
    if (!depth) return 201;
    if (n > ((size_t)1 << 30)) return 2; /* page-locked memory is scarce too */
    *p = calloc(1, n ? n : 1);
    if (!*p) return 2;
    track((uintptr_t)*p, n ? n : 1);
    return 0;
}
static int host_free(void* p) { if (!untrack((uintptr_t)p)) return 1; free(p); return 0; }
static int htod(dptr d, const void* s, size_t n) { if (!inside(d, n)) return 1; memcpy((void*)d, s, n); return 0; }
static int dtoh(void* d, dptr s, size_t n) { if (!inside(s, n)) return 1; memcpy(d, (void*)s, n); return 0; }
static int dtod(dptr d, dptr s, size_t n) { if (!inside(d, n) || !inside(s, n)) return 1; memmove((void*)d, (void*)s, n); return 0; }
static int htod_a(dptr d, const void* s, size_t n, void* st) { return htod(d, s, n); }
static int dtoh_a(void* d, dptr s, size_t n, void* st) { return dtoh(d, s, n); }
static int dtod_a(dptr d, dptr s, size_t n, void* st) { return dtod(d, s, n); }
static int cpy(dptr d, dptr s, size_t n) { return dtod(d, s, n); }
static int cpy_a(dptr d, dptr s, size_t n, void* st) { return cpy(d, s, n); }
static int set8(dptr d, unsigned char v, size_t n) { if (!inside(d, n)) return 1; memset((void*)d, v, n); return 0; }
static int set16(dptr d, unsigned short v, size_t n) {
    if (n > SIZE_MAX / 2 || !inside(d, 2 * n)) return 1;
    unsigned short* p = (void*)d;
    for (size_t i = 0; i < n; ++i) p[i] = v;
    return 0;
}
static int set32(dptr d, unsigned v, size_t n) {
    if (n > SIZE_MAX / 4 || !inside(d, 4 * n)) return 1;
    unsigned* p = (void*)d;
    for (size_t i = 0; i < n; ++i) p[i] = v;
    return 0;
}
static int set8a(dptr d, unsigned char v, size_t n, void* s) { return set8(d, v, n); }
static int set16a(dptr d, unsigned short v, size_t n, void* s) { return set16(d, v, n); }
static int set32a(dptr d, unsigned v, size_t n, void* s) { return set32(d, v, n); }
static int handle_create(void** h, unsigned f) { if (!depth) return 201; *h = malloc(8); return 0; }
static int handle_create_prio(void** h, unsigned f, int p) { return handle_create(h, f); }
static int handle_destroy(void* h) { free(h); return 0; }
static int elapsed(float* ms, void* a, void* b) { *ms = 0.5f; return 0; }
static int ptr_attr(void* data, int attr, dptr p) {
    if (attr == 1) { *(void**)data = depth ? stack[depth - 1] : primary_ctx_storage; return 0; }
    if (attr == 2) { *(unsigned*)data = 2; return 0; }
    memset(data, 0, 8);
    return 0;
}

/* Modules keep a copy of their cubin, to find globals in it; globals get host memory once. */
struct global { char name[128]; dptr ptr; size_t size; struct global* next; };
struct module { unsigned char* image; size_t size; struct global* globals; };
static size_t elf_size(const unsigned char* img) {
    /* Byte by byte: an image that is not ELF may be a short NUL-terminated PTX text, and the
       comparison must stop at its first differing byte, before its end. */
    if (img[0] != ELFMAG0 || img[1] != ELFMAG1 || img[2] != ELFMAG2 || img[3] != ELFMAG3) return 0;
    const Elf64_Ehdr* eh = (const Elf64_Ehdr*)img;
    if (eh->e_ident[EI_CLASS] != ELFCLASS64) return 0;
    size_t end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    const Elf64_Shdr* sh = (const Elf64_Shdr*)(img + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i)
        if (sh[i].sh_type != SHT_NOBITS && sh[i].sh_offset + sh[i].sh_size > end) end = sh[i].sh_offset + sh[i].sh_size;
    return end;
}
static int mod_load(void** m, const void* img) {
    if (!depth) return 201;
    struct module* mod = calloc(1, sizeof *mod);
    mod->size = elf_size(img);
    if (mod->size) { mod->image = malloc(mod->size); memcpy(mod->image, img, mod->size); }
    *m = mod;
    return 0;
}
static int mod_load_ex(void** m, const void* img, unsigned n, void* o, void** v) { return mod_load(m, img); }
static int mod_unload(void* m) {
    struct module* mod = m;
    for (struct global* g = mod->globals; g;) {
        struct global* next = g->next;
        untrack(g->ptr);
        free((void*)g->ptr);
        free(g);
        g = next;
    }
    free(mod->image);
    free(mod);
    return 0;
}
static int mod_global(dptr* p, size_t* bytes, void* m, const char* name) {
    struct module* mod = m;
    for (struct global* g = mod->globals; g; g = g->next)
        if (!strcmp(g->name, name)) { if (p) *p = g->ptr; if (bytes) *bytes = g->size; return 0; }
    if (!mod->image || strlen(name) >= 128) return 500;
    const Elf64_Ehdr* eh = (const Elf64_Ehdr*)mod->image;
    const Elf64_Shdr* sh = (const Elf64_Shdr*)(mod->image + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; ++i) {
        if (sh[i].sh_type != SHT_SYMTAB) continue;
        const Elf64_Sym* syms = (const Elf64_Sym*)(mod->image + sh[i].sh_offset);
        const char* strs = (const char*)(mod->image + sh[sh[i].sh_link].sh_offset);
        for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); ++k) {
            if (ELF64_ST_TYPE(syms[k].st_info) != STT_OBJECT || strcmp(strs + syms[k].st_name, name)) continue;
            if (syms[k].st_shndx == SHN_UNDEF || syms[k].st_shndx >= eh->e_shnum) return 500;
            const Elf64_Shdr* sec = &sh[syms[k].st_shndx];
            struct global* g = calloc(1, sizeof *g);
            strcpy(g->name, name);
            g->size = syms[k].st_size;
            g->ptr = (dptr)calloc(1, g->size ? g->size : 1);
            track(g->ptr, g->size ? g->size : 1);
            if (sec->sh_type != SHT_NOBITS)
                memcpy((void*)g->ptr, mod->image + sec->sh_offset + syms[k].st_value, g->size);
            g->next = mod->globals;
            mod->globals = g;
            if (p) *p = g->ptr;
            if (bytes) *bytes = g->size;
            return 0;
        }
    }
    return 500; /* CUDA_ERROR_NOT_FOUND */
}
static int mod_fn(void** f, void* m, const char* name) { *f = malloc(8); return 0; }
static int fn_attr(int* v, int a, void* f) { *v = (a == 0) ? 1024 : 0; return 0; }
static int param_info(void* f, size_t i, size_t* off, size_t* sz) { return 801; }

/* CUDA arrays keep their descriptor (width, height, depth, format, channels, flags). */
struct array3d { size_t w, h, d; int format; unsigned channels, flags; };
static int array_create(void** a, const struct array3d* desc2d) {
    if (!depth) return 201;
    struct array3d* arr = calloc(1, sizeof *arr);
    arr->w = desc2d->w; arr->h = desc2d->h; /* CUDA_ARRAY_DESCRIPTOR: w, h, format, channels */
    memcpy(&arr->format, (const char*)desc2d + 2 * sizeof(size_t), 2 * sizeof(int));
    *a = arr;
    return 0;
}
static int array3d_create(void** a, const struct array3d* desc) {
    if (!depth) return 201;
    struct array3d* arr = malloc(sizeof *arr);
    *arr = *desc;
    *a = arr;
    return 0;
}
static int array_desc(void* out, void* a) {
    const struct array3d* arr = a;
    memcpy(out, arr, 2 * sizeof(size_t));
    memcpy((char*)out + 2 * sizeof(size_t), &arr->format, 2 * sizeof(int));
    return 0;
}
static int array3d_desc(struct array3d* out, void* a) { *out = *(const struct array3d*)a; return 0; }
static int array_destroy(void* a) { free(a); return 0; }
static unsigned long long next_object = 1;
static int object_create(unsigned long long* h, const void* res, const void* tex, const void* view) {
    if (!depth) return 201;
    *h = next_object++;
    return 0;
}
static int surf_create(unsigned long long* h, const void* res) { return object_create(h, res, 0, 0); }

/* Stream capture and graphs (for tests/test_graphs.py). A capture records the memsets and
 * copies queued on the capturing stream (kernels only count: they do nothing here); launching
 * an instantiated graph replays them in the order they were added. As on a real driver, work on
 * the legacy stream while a capture runs fails with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, and
 * cuMemAlloc in a global-mode capture with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; either
 * invalidates the capture. */
struct op { int set; dptr dst, src; size_t n; unsigned value, elem; };
struct graph { struct op* ops; size_t count, nodes; };
struct gnode { int type; };
struct capture { void* stream; int mode, invalid; struct graph* g; };
static struct capture captures[16];
static int ncaptures;
static struct capture* capture_of(void* st) {
    for (int i = 0; i < ncaptures; ++i) if (captures[i].stream == st) return &captures[i];
    return NULL;
}
static int graph_push(struct graph* g, struct op o) {
    struct op* grown = realloc(g->ops, (g->count + 1) * sizeof *grown);
    if (!grown) return 2;
    g->ops = grown;
    g->ops[g->count++] = o;
    ++g->nodes;
    return 0;
}
static int legacy_work(void) { /* 906, invalidating every capture, if one runs */
    if (!ncaptures) return 0;
    for (int i = 0; i < ncaptures; ++i) captures[i].invalid = 1;
    return 906;
}
static int cap_begin(void* st, int mode) {
    if (!st) return 900;
    if (capture_of(st) || ncaptures == 16) return 401;
    struct graph* g = calloc(1, sizeof *g);
    captures[ncaptures++] = (struct capture){st, mode, 0, g};
    return 0;
}
static int cap_status(void* st, int* status) {
    struct capture* c = capture_of(st);
    *status = !c ? 0 : c->invalid ? 2 : 1;
    return 0;
}
static int graph_destroy(struct graph* g) { if (g) { free(g->ops); free(g); } return 0; }
static int cap_end(void* st, struct graph** out) {
    struct capture* c = capture_of(st);
    if (!c) return 401;
    struct capture done = *c;
    *c = captures[--ncaptures];
    *out = NULL;
    if (done.invalid) { graph_destroy(done.g); return 901; }
    *out = done.g;
    return 0;
}
static int cap_alloc(dptr* p, size_t n) {
    for (int i = 0; i < ncaptures; ++i)
        if (captures[i].mode == 0) { captures[i].invalid = 1; return 900; }
    return mem_alloc(p, n);
}
static int op_run(const struct op* o) {
    if (!o->set) { memmove((void*)o->dst, (void*)o->src, o->n); return 0; } /* either side may be host memory */
    if (o->elem == 1) return set8(o->dst, (unsigned char)o->value, o->n);
    if (o->elem == 2) return set16(o->dst, (unsigned short)o->value, o->n);
    return set32(o->dst, o->value, o->n);
}
static int stream_op(void* st, struct op o) {
    if (!st) { int rc = legacy_work(); if (rc) return rc; }
    struct capture* c = capture_of(st);
    if (c) return graph_push(c->g, o);
    return op_run(&o);
}
static int ihtod(dptr d, const void* s, size_t n) { return legacy_work() ? 906 : htod(d, s, n); }
static int idtoh(void* d, dptr s, size_t n) { return legacy_work() ? 906 : dtoh(d, s, n); }
static int idtod(dptr d, dptr s, size_t n) { return legacy_work() ? 906 : dtod(d, s, n); }
static int iset8(dptr d, unsigned char v, size_t n) { return legacy_work() ? 906 : set8(d, v, n); }
static int iset16(dptr d, unsigned short v, size_t n) { return legacy_work() ? 906 : set16(d, v, n); }
static int iset32(dptr d, unsigned v, size_t n) { return legacy_work() ? 906 : set32(d, v, n); }
static int isync(void) { return legacy_work() ? 906 : need_ctx(); }
static int chtod(dptr d, const void* s, size_t n, void* st) { return stream_op(st, (struct op){0, d, (dptr)s, n, 0, 0}); }
static int cdtoh(void* d, dptr s, size_t n, void* st) { return stream_op(st, (struct op){0, (dptr)d, s, n, 0, 0}); }
static int cdtod(dptr d, dptr s, size_t n, void* st) { return stream_op(st, (struct op){0, d, s, n, 0, 0}); }
static int cset8(dptr d, unsigned char v, size_t n, void* st) { return stream_op(st, (struct op){1, d, 0, n, v, 1}); }
static int cset16(dptr d, unsigned short v, size_t n, void* st) { return stream_op(st, (struct op){1, d, 0, n, v, 2}); }
static int cset32(dptr d, unsigned v, size_t n, void* st) { return stream_op(st, (struct op){1, d, 0, n, v, 4}); }
static int claunch(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned sh, void* st, void** params, void** extra) {
    if (!st && legacy_work()) return 906;
    struct capture* c = capture_of(st);
    if (c) ++c->g->nodes;
    return 0;
}
static int graph_create(struct graph** g, unsigned flags) { *g = calloc(1, sizeof **g); return *g ? 0 : 2; }
static int graph_nodes(struct graph* g, void** nodes, size_t* count) { *count = g->nodes; return 0; }
static int graph_clone(struct graph** out, struct graph* g) {
    if (graph_create(out, 0)) return 2;
    for (size_t i = 0; i < g->count; ++i) graph_push(*out, g->ops[i]);
    (*out)->nodes = g->nodes;
    return 0;
}
static int new_node(struct gnode** node, struct graph* g, void* const* deps, size_t ndeps, int type) {
    if (ndeps && !deps) return 1;
    *node = malloc(sizeof **node); /* (never freed: nodes live as long as the process here) */
    (*node)->type = type;
    ++g->nodes;
    return 0;
}
struct memcpy3d { /* CUDA_MEMCPY3D */
    size_t sx, sy, sz, slod; int stype; const void* shost; dptr sdev; void* sarr; void* r0; size_t spitch, sheight;
    size_t dx, dy, dz, dlod; int dtype; void* dhost; dptr ddev; void* darr; void* r1; size_t dpitch, dheight;
    size_t width, height, depth;
};
struct memset_params { dptr dst; size_t pitch; unsigned value, elem; size_t width, height; };
static int add_kernel(struct gnode** n, struct graph* g, void* const* d, size_t nd, const void* p) { return new_node(n, g, d, nd, 0); }
static int add_copy(struct gnode** n, struct graph* g, void* const* d, size_t nd, const struct memcpy3d* p, void* ctx) {
    dptr dst = p->dtype == 1 ? (dptr)p->dhost : p->ddev, src = p->stype == 1 ? (dptr)p->shost : p->sdev;
    int rc = new_node(n, g, d, nd, 1);
    if (rc) return rc;
    --g->nodes;
    (*n)->type = 1;
    return graph_push(g, (struct op){0, dst, src, p->width, 0, 0});
}
static int add_set(struct gnode** n, struct graph* g, void* const* d, size_t nd, const struct memset_params* p, void* ctx) {
    int rc = new_node(n, g, d, nd, 2);
    if (rc) return rc;
    --g->nodes;
    return graph_push(g, (struct op){1, p->dst, 0, p->width, p->value, p->elem});
}
static int add_empty(struct gnode** n, struct graph* g, void* const* d, size_t nd) { return new_node(n, g, d, nd, 5); }
static int add_wait(struct gnode** n, struct graph* g, void* const* d, size_t nd, void* e) { return new_node(n, g, d, nd, 6); }
static int add_record(struct gnode** n, struct graph* g, void* const* d, size_t nd, void* e) { return new_node(n, g, d, nd, 7); }
static int node_type(struct gnode* n, int* type) { *type = n->type; return 0; }
static int instantiate(struct graph** exec, struct graph* g, unsigned long long flags) { return graph_clone(exec, g); }
static int graph_launch(struct graph* exec, void* st) {
    if (!st && legacy_work()) return 906;
    for (size_t i = 0; i < exec->count; ++i) { int rc = op_run(&exec->ops[i]); if (rc) return rc; }
    return 0;
}
struct update_info { int result; void* node; void* from; };
static int exec_update(struct graph* exec, struct graph* g, struct update_info* info) {
    if (g->count != exec->count || g->nodes != exec->nodes) { info->result = 2; return 910; }
    memcpy(exec->ops, g->ops, g->count * sizeof *g->ops);
    info->result = 0;
    return 0;
}
struct { const char* name; void* fn; } capture_table[] = {
    {"cuStreamBeginCapture", cap_begin}, {"cuStreamIsCapturing", cap_status}, {"cuStreamEndCapture", cap_end},
    {"cuMemAlloc", cap_alloc}, {"cuLaunchKernel", claunch}, {"cuCtxSynchronize", isync},
    {"cuMemcpyHtoD", ihtod}, {"cuMemcpyDtoH", idtoh}, {"cuMemcpyDtoD", idtod},
    {"cuMemsetD8", iset8}, {"cuMemsetD16", iset16}, {"cuMemsetD32", iset32},
    {"cuMemcpyHtoDAsync", chtod}, {"cuMemcpyDtoHAsync", cdtoh}, {"cuMemcpyDtoDAsync", cdtod},
    {"cuMemsetD8Async", cset8}, {"cuMemsetD16Async", cset16}, {"cuMemsetD32Async", cset32},
    {"cuGraphCreate", graph_create}, {"cuGraphDestroy", graph_destroy}, {"cuGraphClone", graph_clone},
    {"cuGraphGetNodes", graph_nodes}, {"cuGraphNodeGetType", node_type},
    {"cuGraphAddKernelNode", add_kernel}, {"cuGraphAddMemcpyNode", add_copy}, {"cuGraphAddMemsetNode", add_set},
    {"cuGraphAddEmptyNode", add_empty}, {"cuGraphAddEventRecordNode", add_record},
    {"cuGraphAddEventWaitNode", add_wait}, {"cuGraphInstantiateWithFlags", instantiate},
    {"cuGraphExecDestroy", graph_destroy}, {"cuGraphLaunch", graph_launch}, {"cuGraphExecUpdate", exec_update},
};

struct { const char* name; void* fn; } table[] = {
    {"cuFuncGetParamInfo", param_info},
    {"cuDeviceGetCount", get_count}, {"cuDriverGetVersion", drv_ver}, {"cuDeviceGet", dev_get},
    {"cuDeviceGetName", dev_name}, {"cuDeviceGetAttribute", dev_attr}, {"cuDeviceTotalMem", dev_mem},
    {"cuCtxCreate", ctx_create}, {"cuCtxDestroy", ctx_destroy}, {"cuCtxPushCurrent", ctx_push},
    {"cuCtxPopCurrent", ctx_pop}, {"cuCtxGetCurrent", ctx_get}, {"cuCtxSetCurrent", ctx_set},
    {"cuCtxGetDevice", ctx_dev}, {"cuCtxGetApiVersion", ctx_api}, {"cuDevicePrimaryCtxRetain", prim_retain},
    {"cuDevicePrimaryCtxGetState", prim_state}, {"cuCtxSynchronize", need_ctx},
    {"cuMemAlloc", mem_alloc}, {"cuMemFree", mem_free}, {"cuMemGetInfo", mem_info},
    {"cuMemAllocManaged", mem_alloc_managed}, {"cuMemAllocPitch", mem_alloc_pitch},
    {"cuMemHostAlloc", host_alloc}, {"cuMemFreeHost", host_free},
    {"cuMemcpyHtoD", htod}, {"cuMemcpyDtoH", dtoh}, {"cuMemcpyDtoD", dtod},
    {"cuMemcpyHtoDAsync", htod_a}, {"cuMemcpyDtoHAsync", dtoh_a}, {"cuMemcpyDtoDAsync", dtod_a},
    {"cuMemcpy", cpy}, {"cuMemcpyAsync", cpy_a},
    {"cuMemsetD8", set8}, {"cuMemsetD16", set16}, {"cuMemsetD32", set32},
    {"cuMemsetD8Async", set8a}, {"cuMemsetD16Async", set16a}, {"cuMemsetD32Async", set32a},
    {"cuStreamCreate", handle_create}, {"cuStreamCreateWithPriority", handle_create_prio},
    {"cuStreamDestroy", handle_destroy},
    {"cuEventCreate", handle_create}, {"cuEventDestroy", handle_destroy}, {"cuEventElapsedTime", elapsed},
    {"cuPointerGetAttribute", ptr_attr},
    {"cuModuleLoadData", mod_load}, {"cuModuleLoadDataEx", mod_load_ex}, {"cuModuleUnload", mod_unload},
    {"cuModuleGetFunction", mod_fn}, {"cuFuncGetAttribute", fn_attr}, {"cuModuleGetGlobal", mod_global},
    {"cuArrayCreate", array_create}, {"cuArray3DCreate", array3d_create}, {"cuArrayDestroy", array_destroy},
    {"cuArrayGetDescriptor", array_desc}, {"cuArray3DGetDescriptor", array3d_desc},
    {"cuTexObjectCreate", object_create}, {"cuTexObjectDestroy", ok},
    {"cuSurfObjectCreate", surf_create}, {"cuSurfObjectDestroy", ok},
};
int cuGetProcAddress_v2(const char* sym, void** pfn, int ver, unsigned long long flags, int* status) {
    if (status) *status = 0;
    *pfn = (void*)ok;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
        if (!strcmp(sym, table[i].name)) { *pfn = table[i].fn; break; }
    for (size_t i = 0; i < sizeof capture_table / sizeof capture_table[0]; ++i)
        if (!strcmp(sym, capture_table[i].name)) { *pfn = capture_table[i].fn; break; }
    return 0;
}
