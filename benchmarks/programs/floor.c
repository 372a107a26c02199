/* benchmarks/programs/floor.c: the floor of a CUDA program's start and exit: load the driver,
 * cuInit, retain and make current device 0's primary context, exit. Built and run by
 * benchmarks/programs.py (cc, no CUDA headers: the driver is opened with dlopen and its entry
 * points found with cuGetProcAddress_v2, as pycuda finds them).
 * Usage: floor [path of libcuda.so.1] */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*set_current_fn)(void *);
typedef int (*get_proc_fn)(const char *, void **, int, unsigned long long, int *);

/* The entry point `name` of CUDA 12.0's ABI, or NULL. */
static void *entry(void *cuda, const char *name) {
    get_proc_fn get_proc = (get_proc_fn)dlsym(cuda, "cuGetProcAddress_v2");
    void *fn = NULL;
    int status = 0;
    if (get_proc && get_proc(name, &fn, 12000, 0, &status) == 0 && fn)
        return fn;
    return dlsym(cuda, name);
}

int main(int argc, char **argv) {
    const char *lib = argc > 1 ? argv[1] : "libcuda.so.1";
    void *cuda = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        fprintf(stderr, "floor: cannot open %s: %s\n", lib, dlerror());
        return 2;
    }
    init_fn init = (init_fn)entry(cuda, "cuInit");
    device_get_fn device_get = (device_get_fn)entry(cuda, "cuDeviceGet");
    retain_fn retain = (retain_fn)entry(cuda, "cuDevicePrimaryCtxRetain");
    set_current_fn set_current = (set_current_fn)entry(cuda, "cuCtxSetCurrent");
    if (!init || !device_get || !retain || !set_current) {
        fprintf(stderr, "floor: %s lacks an entry point\n", lib);
        return 2;
    }
    int device = 0;
    void *context = NULL;
    int rc = init(0);
    if (rc == 0)
        rc = device_get(&device, 0);
    if (rc == 0)
        rc = retain(&context, device);
    if (rc == 0)
        rc = set_current(context);
    if (rc != 0) {
        fprintf(stderr, "floor: CUDA error %d\n", rc);
        return 1;
    }
    return 0;
}
