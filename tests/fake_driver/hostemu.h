/* tests/fake_driver/hostemu.h: what the parts of the fake libcuda.so.1 share (hostemu.c holds
 * memory, copies, contexts, streams and events and answers cuGetProcAddress; modules.c,
 * pools.c, graphs.c and launches.c hold the rest). Built with -fvisibility=hidden: only the
 * names marked EXPORTED are seen from outside. */
#ifndef HOSTEMU_H
#define HOSTEMU_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define EXPORTED __attribute__((visibility("default")))
#define GiB ((size_t)1 << 30)

typedef uintptr_t dptr;

/* The CUresult values used here. */
enum {
    OK = 0,
    INVALID_VALUE = 1,
    OUT_OF_MEMORY = 2,
    INVALID_DEVICE = 101,
    INVALID_CONTEXT = 201,
    ILLEGAL_STATE = 401,
    NOT_FOUND = 500,
    HOST_MEMORY_NOT_REGISTERED = 713,
    COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    NOT_SUPPORTED = 801,
    STREAM_CAPTURE_UNSUPPORTED = 900,
    STREAM_CAPTURE_INVALIDATED = 901,
    STREAM_CAPTURE_IMPLICIT = 906,
    GRAPH_EXEC_UPDATE_FAILURE = 910
};

/* An entry point by name; each part's table ends with {NULL, NULL}. */
struct entry {
    const char* name;
    void* fn;
};
extern const struct entry module_entries[], pool_entries[], graph_entries[], launch_entries[];

/* Guards the memory ranges, the deferred queue, the statistics, the pools, the captures and the
 * launch records: the staged-copy tests copy from several threads at once. */
extern pthread_mutex_t lock;

/* The array `items` of `n` elements of `size` bytes (room for *cap) with room for one more:
 * maybe moved, or NULL when out of memory (the old one then stays as it was). */
void* with_room(void* items, size_t n, size_t* cap, size_t size);

/* Known memory ranges, by what they are: CU_MEMORYTYPE_HOST (1) for the host kinds,
 * CU_MEMORYTYPE_DEVICE (2) else. */
enum { DEVICE_ALLOC = 1, MODULE_GLOBAL, POOL_ALLOC, HOST_ALLOC, HOST_REGISTERED };
struct range {
    uintptr_t start;
    size_t size;  /* at least 1, so that the range holds its start */
    size_t bytes; /* as asked for: what the statistics count */
    int kind;
};
int add_range(uintptr_t start, size_t bytes, int kind);
/* Removes the range of this kind that starts at `start` into *out; 0 when there is none. The
 * caller holds the lock. */
int take_range_locked(uintptr_t start, int kind, struct range* out);

/* Runs the deferred async copies: before memory is freed or touched synchronously, what was
 * queued for it must have run. */
void flush(void);

/* How many contexts this thread has pushed (none: no current context). */
extern __thread int depth;

/* Compute capability 9.0, or $HOSTEMU_CC (e.g. "80"); below 9.0 there are no clusters. */
int compute_capability(void);

/* Of hostemu.c, which graphs.c records during captures. */
int mem_alloc(dptr* p, size_t n);
int ctx_sync(void);
int htod(dptr d, const void* s, size_t n);
int dtoh(void* d, dptr s, size_t n);
int dtod(dptr d, dptr s, size_t n);
int set8(dptr d, unsigned char v, size_t n);
int set16(dptr d, unsigned short v, size_t n);
int set32(dptr d, unsigned v, size_t n);
int htod_a(dptr d, const void* s, size_t n, void* st);
int dtoh_a(void* d, dptr s, size_t n, void* st);
int dtod_a(dptr d, dptr s, size_t n, void* st);
int set8a(dptr d, unsigned char v, size_t n, void* st);
int set16a(dptr d, unsigned short v, size_t n, void* st);
int set32a(dptr d, unsigned v, size_t n, void* st);

/* Of pools.c: a synchronization gives back what pools reserve beyond their release threshold;
 * cuMemFree frees a pool's block too (INVALID_VALUE when `p` is none). */
void release_pools(void);
int free_pool_block(dptr p);

/* Of graphs.c, for work queued on stream `st` (`x` a copy or memset, or NULL for a node that
 * does nothing here, as a kernel): CAPTURED when a capture of `st` took it, an error (work on
 * the legacy stream during a capture), or OK when it is to run now. */
enum { CAPTURED = -1 };
struct step;
int captured(void* st, const struct step* x);
/* An entry point's answer for captured()'s: CAPTURED is a success. */
static inline int done(int rc) {
    return rc == CAPTURED ? OK : rc;
}

#endif
