/* tests/fake_driver/graphs.c: the fake libcuda's stream captures and graphs, and the entry
 * points a capture records (async copies and memsets) or refuses (those of the legacy stream).
 *
 * A capture records the memsets and copies queued on the capturing stream as steps (kernels only
 * count as nodes: they do nothing here); launching an instantiated graph (a copy of the graph)
 * replays its steps in the order they were added. As on a real driver, work on the legacy stream
 * while a capture runs fails with CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, and cuMemAlloc in a
 * global-mode capture with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; either invalidates the
 * capture. */
#include <stdlib.h>
#include <string.h>

#include "hostemu.h"

struct step { /* a copy, or a memset of `n` elements of `elem` bytes */
    int set;
    dptr dst, src;
    size_t n;
    unsigned value, elem;
};
struct graph {
    struct step* steps;
    size_t count, cap;
    size_t nodes; /* the steps and the other nodes (kernels, events, empty ones) */
};
struct gnode {
    int type; /* CUgraphNodeType */
};
struct capture {
    void* stream;
    int mode, invalid;
    struct graph* g;
};
enum { MAX_CAPTURES = 16 };
static struct capture captures[MAX_CAPTURES];
static int n_captures;

/* The capture of stream `st` (NULL when none); the caller holds the lock. */
static struct capture* capture_of_locked(void* st) {
    for (int i = 0; i < n_captures; ++i)
        if (captures[i].stream == st)
            return &captures[i];
    return NULL;
}
static int graph_push(struct graph* g, struct step x) {
    struct step* s = with_room(g->steps, g->count, &g->cap, sizeof *s);
    if (!s)
        return OUT_OF_MEMORY;
    g->steps = s;
    g->steps[g->count++] = x;
    ++g->nodes;
    return OK;
}
/* Work on the legacy stream: refused, invalidating every capture, while one runs. */
static int legacy_work(void) {
    pthread_mutex_lock(&lock);
    int running = n_captures;
    for (int i = 0; i < n_captures; ++i)
        captures[i].invalid = 1;
    pthread_mutex_unlock(&lock);
    return running ? STREAM_CAPTURE_IMPLICIT : OK;
}
int captured(void* st, const struct step* x) {
    if (!st)
        return legacy_work();
    pthread_mutex_lock(&lock);
    struct capture* c = capture_of_locked(st);
    int rc = OK;
    if (c && x)
        rc = graph_push(c->g, *x);
    else if (c)
        ++c->g->nodes;
    pthread_mutex_unlock(&lock);
    return c && rc == OK ? CAPTURED : rc;
}

static int cap_begin(void* st, int mode) {
    if (!st)
        return STREAM_CAPTURE_UNSUPPORTED;
    struct graph* g = calloc(1, sizeof *g);
    if (!g)
        return OUT_OF_MEMORY;
    pthread_mutex_lock(&lock);
    int rc = capture_of_locked(st) || n_captures == MAX_CAPTURES ? ILLEGAL_STATE : OK;
    if (rc == OK)
        captures[n_captures++] = (struct capture){st, mode, 0, g};
    pthread_mutex_unlock(&lock);
    if (rc != OK)
        free(g);
    return rc;
}
static int cap_status(void* st, int* status) { /* CUstreamCaptureStatus */
    pthread_mutex_lock(&lock);
    struct capture* c = capture_of_locked(st);
    *status = !c ? 0 : c->invalid ? 2 : 1;
    pthread_mutex_unlock(&lock);
    return OK;
}
static int graph_destroy(struct graph* g) {
    if (g) {
        free(g->steps);
        free(g);
    }
    return OK;
}
static int cap_end(void* st, struct graph** out) {
    *out = NULL;
    pthread_mutex_lock(&lock);
    struct capture* c = capture_of_locked(st);
    struct capture ended = c ? *c : (struct capture){0};
    if (c)
        *c = captures[--n_captures];
    pthread_mutex_unlock(&lock);
    if (!c)
        return ILLEGAL_STATE;
    if (ended.invalid) {
        graph_destroy(ended.g);
        return STREAM_CAPTURE_INVALIDATED;
    }
    *out = ended.g;
    return OK;
}

/* The entry points of the legacy stream, refused during a capture. */
static int alloc_outside_capture(dptr* p, size_t n) {
    int refused = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_captures; ++i)
        if (captures[i].mode == 0) { /* CU_STREAM_CAPTURE_MODE_GLOBAL */
            captures[i].invalid = 1;
            refused = 1;
        }
    pthread_mutex_unlock(&lock);
    return refused ? STREAM_CAPTURE_UNSUPPORTED : mem_alloc(p, n);
}
static int legacy_htod(dptr d, const void* s, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : htod(d, s, n);
}
static int legacy_dtoh(void* d, dptr s, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : dtoh(d, s, n);
}
static int legacy_dtod(dptr d, dptr s, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : dtod(d, s, n);
}
static int legacy_set8(dptr d, unsigned char v, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : set8(d, v, n);
}
static int legacy_set16(dptr d, unsigned short v, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : set16(d, v, n);
}
static int legacy_set32(dptr d, unsigned v, size_t n) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : set32(d, v, n);
}
static int legacy_ctx_sync(void) {
    return legacy_work() ? STREAM_CAPTURE_IMPLICIT : ctx_sync();
}

/* The async copies and memsets, recorded while their stream is captured. */
static int cap_htod_a(dptr d, const void* s, size_t n, void* st) {
    int rc = captured(st, &(struct step){0, d, (dptr)s, n, 0, 0});
    return rc != OK ? done(rc) : htod_a(d, s, n, st);
}
static int cap_dtoh_a(void* d, dptr s, size_t n, void* st) {
    int rc = captured(st, &(struct step){0, (dptr)d, s, n, 0, 0});
    return rc != OK ? done(rc) : dtoh_a(d, s, n, st);
}
static int cap_dtod_a(dptr d, dptr s, size_t n, void* st) {
    int rc = captured(st, &(struct step){0, d, s, n, 0, 0});
    return rc != OK ? done(rc) : dtod_a(d, s, n, st);
}
static int cap_set8a(dptr d, unsigned char v, size_t n, void* st) {
    int rc = captured(st, &(struct step){1, d, 0, n, v, 1});
    return rc != OK ? done(rc) : set8a(d, v, n, st);
}
static int cap_set16a(dptr d, unsigned short v, size_t n, void* st) {
    int rc = captured(st, &(struct step){1, d, 0, n, v, 2});
    return rc != OK ? done(rc) : set16a(d, v, n, st);
}
static int cap_set32a(dptr d, unsigned v, size_t n, void* st) {
    int rc = captured(st, &(struct step){1, d, 0, n, v, 4});
    return rc != OK ? done(rc) : set32a(d, v, n, st);
}

static int step_run(const struct step* x) {
    if (!x->set) { /* either side may be host memory */
        memmove((void*)x->dst, (const void*)x->src, x->n);
        return OK;
    }
    if (x->elem == 1)
        return set8(x->dst, (unsigned char)x->value, x->n);
    if (x->elem == 2)
        return set16(x->dst, (unsigned short)x->value, x->n);
    return set32(x->dst, x->value, x->n);
}
static int graph_create(struct graph** g, unsigned flags) {
    *g = calloc(1, sizeof **g);
    return *g ? OK : OUT_OF_MEMORY;
}
static int graph_nodes(struct graph* g, void** nodes, size_t* count) {
    *count = g->nodes;
    return OK;
}
static int graph_clone(struct graph** out, struct graph* g) {
    if (graph_create(out, 0) != OK)
        return OUT_OF_MEMORY;
    for (size_t i = 0; i < g->count; ++i)
        if (graph_push(*out, g->steps[i]) != OK) {
            graph_destroy(*out);
            return OUT_OF_MEMORY;
        }
    (*out)->nodes = g->nodes;
    return OK;
}
/* A node of `type`, not yet counted in `g` (nodes live as long as the process here). */
static int new_node(struct gnode** node, void* const* deps, size_t n_deps, int type) {
    if (n_deps && !deps)
        return INVALID_VALUE;
    *node = malloc(sizeof **node);
    if (!*node)
        return OUT_OF_MEMORY;
    (*node)->type = type;
    return OK;
}
static int add_node(struct gnode** node, struct graph* g, void* const* deps, size_t n_deps,
                    int type) {
    int rc = new_node(node, deps, n_deps, type);
    if (rc == OK)
        ++g->nodes;
    return rc;
}
static int add_step(struct gnode** node, struct graph* g, void* const* deps, size_t n_deps,
                    int type, struct step x) {
    int rc = new_node(node, deps, n_deps, type);
    return rc == OK ? graph_push(g, x) : rc;
}
struct memcpy3d { /* CUDA_MEMCPY3D */
    size_t src_x, src_y, src_z, src_lod;
    int src_type;
    const void* src_host;
    dptr src_device;
    void *src_array, *reserved0;
    size_t src_pitch, src_height;
    size_t dst_x, dst_y, dst_z, dst_lod;
    int dst_type;
    void* dst_host;
    dptr dst_device;
    void *dst_array, *reserved1;
    size_t dst_pitch, dst_height;
    size_t width, height, depth;
};
struct memset_params { /* CUDA_MEMSET_NODE_PARAMS */
    dptr dst;
    size_t pitch;
    unsigned value, elem;
    size_t width, height;
};
static int add_kernel(struct gnode** n, struct graph* g, void* const* d, size_t nd, const void* p) {
    return add_node(n, g, d, nd, 0);
}
static int add_copy(struct gnode** n, struct graph* g, void* const* d, size_t nd,
                    const struct memcpy3d* p, void* ctx) {
    /* CU_MEMORYTYPE_HOST (1) names host memory; the rest is device memory here */
    dptr dst = p->dst_type == 1 ? (dptr)p->dst_host : p->dst_device;
    dptr src = p->src_type == 1 ? (dptr)p->src_host : p->src_device;
    return add_step(n, g, d, nd, 1, (struct step){0, dst, src, p->width, 0, 0});
}
static int add_set(struct gnode** n, struct graph* g, void* const* d, size_t nd,
                   const struct memset_params* p, void* ctx) {
    return add_step(n, g, d, nd, 2, (struct step){1, p->dst, 0, p->width, p->value, p->elem});
}
static int add_empty(struct gnode** n, struct graph* g, void* const* d, size_t nd) {
    return add_node(n, g, d, nd, 5);
}
static int add_wait(struct gnode** n, struct graph* g, void* const* d, size_t nd, void* e) {
    return add_node(n, g, d, nd, 6);
}
static int add_record(struct gnode** n, struct graph* g, void* const* d, size_t nd, void* e) {
    return add_node(n, g, d, nd, 7);
}
static int node_type(struct gnode* n, int* type) {
    *type = n->type;
    return OK;
}
static int instantiate(struct graph** exec, struct graph* g, unsigned long long flags) {
    return graph_clone(exec, g);
}
static int graph_launch(struct graph* exec, void* st) {
    if (!st && legacy_work())
        return STREAM_CAPTURE_IMPLICIT;
    flush(); /* the copies queued before the launch come first */
    for (size_t i = 0; i < exec->count; ++i) {
        int rc = step_run(&exec->steps[i]);
        if (rc != OK)
            return rc;
    }
    return OK;
}
struct update_info { /* CUgraphExecUpdateResultInfo */
    int result;
    void *node, *from;
};
/* A graph of the same shape updates the steps' parameters; any other is refused. */
static int exec_update(struct graph* exec, struct graph* g, struct update_info* info) {
    if (g->count != exec->count || g->nodes != exec->nodes) {
        info->result = 2; /* CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED */
        return GRAPH_EXEC_UPDATE_FAILURE;
    }
    memcpy(exec->steps, g->steps, g->count * sizeof *g->steps);
    info->result = 0;
    return OK;
}

/* clang-format off */
const struct entry graph_entries[] = {
    {"cuMemAlloc", alloc_outside_capture}, {"cuCtxSynchronize", legacy_ctx_sync},
    {"cuMemcpyHtoD", legacy_htod}, {"cuMemcpyDtoH", legacy_dtoh}, {"cuMemcpyDtoD", legacy_dtod},
    {"cuMemcpy", legacy_dtod}, {"cuMemsetD8", legacy_set8}, {"cuMemsetD16", legacy_set16},
    {"cuMemsetD32", legacy_set32}, {"cuMemcpyHtoDAsync", cap_htod_a},
    {"cuMemcpyDtoHAsync", cap_dtoh_a}, {"cuMemcpyDtoDAsync", cap_dtod_a},
    {"cuMemcpyAsync", cap_dtod_a}, {"cuMemsetD8Async", cap_set8a},
    {"cuMemsetD16Async", cap_set16a}, {"cuMemsetD32Async", cap_set32a},
    {"cuStreamBeginCapture", cap_begin}, {"cuStreamIsCapturing", cap_status},
    {"cuStreamEndCapture", cap_end}, {"cuGraphCreate", graph_create},
    {"cuGraphDestroy", graph_destroy}, {"cuGraphClone", graph_clone},
    {"cuGraphGetNodes", graph_nodes}, {"cuGraphNodeGetType", node_type},
    {"cuGraphAddKernelNode", add_kernel}, {"cuGraphAddMemcpyNode", add_copy},
    {"cuGraphAddMemsetNode", add_set}, {"cuGraphAddEmptyNode", add_empty},
    {"cuGraphAddEventRecordNode", add_record}, {"cuGraphAddEventWaitNode", add_wait},
    {"cuGraphInstantiateWithFlags", instantiate}, {"cuGraphExecDestroy", graph_destroy},
    {"cuGraphLaunch", graph_launch}, {"cuGraphExecUpdate", exec_update}, {NULL, NULL}};
/* clang-format on */
