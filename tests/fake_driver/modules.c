/* tests/fake_driver/modules.c: the fake libcuda's modules (a copy of the cubin, to find globals
 * in it; globals get host memory once), CUDA arrays, and texture and surface objects. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "hostemu.h"

/* {{{ modules */

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
/* Without $HOSTEMU_PARAM_SIZES the fake cannot tell a kernel's parameters (as a driver that
 * answers NOT_SUPPORTED); with it ("8,4,8"), every kernel has parameters of those sizes, each at
 * the next multiple of its size (at most 16), as a C compiler lays them out. */
static int param_info(void* f, size_t i, size_t* off, size_t* sz) {
    const char* sizes = getenv("HOSTEMU_PARAM_SIZES");
    if (!sizes)
        return NOT_SUPPORTED;
    size_t offset = 0;
    for (size_t k = 0;; ++k) {
        char* end;
        size_t size = strtoul(sizes, &end, 10);
        if (end == sizes)
            return INVALID_VALUE; /* one past the last parameter */
        size_t align = size >= 16 ? 16 : (size >= 8 ? 8 : (size >= 4 ? 4 : (size >= 2 ? 2 : 1)));
        offset = (offset + align - 1) / align * align;
        if (k == i) {
            *off = offset;
            *sz = size;
            return OK;
        }
        offset += size;
        sizes = *end == ',' ? end + 1 : end;
    }
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

static int destroyed(unsigned long long h) {
    return OK;
}

/* clang-format off */
const struct entry module_entries[] = {
    {"cuModuleLoadData", mod_load}, {"cuModuleLoadDataEx", mod_load_ex},
    {"cuModuleUnload", mod_unload}, {"cuModuleGetFunction", mod_fn},
    {"cuModuleGetGlobal", mod_global}, {"cuFuncGetAttribute", fn_attr},
    {"cuFuncGetParamInfo", param_info}, {"cuArrayCreate", array_create},
    {"cuArray3DCreate", array3d_create}, {"cuArrayDestroy", array_destroy},
    {"cuArrayGetDescriptor", array_desc}, {"cuArray3DGetDescriptor", array3d_desc},
    {"cuTexObjectCreate", object_create}, {"cuTexObjectDestroy", destroyed},
    {"cuSurfObjectCreate", surf_create}, {"cuSurfObjectDestroy", destroyed}, {NULL, NULL}};
/* clang-format on */
