/* tests/fake_driver/hostemu.c: a fake libcuda.so.1 that keeps "device memory" in host memory.
 *
 * From the project's newcomer reliability probe (shared/reviews/probes/hostemu.c), extended
 * for the exit tests: CUDA arrays, texture and surface objects, and module globals read from a
 * cubin's ELF symbols (so that texture references, which live in a module global, work).
 * Contexts, memory, copies, streams, events and modules behave; kernel launches do nothing.
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
    return 0;
}
