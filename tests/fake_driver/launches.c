/* tests/fake_driver/launches.c: the fake libcuda's kernel launches (counted, and
 * cuLaunchKernelEx's configuration kept, for hostemu_launches()) and occupancy queries, which
 * answer fixed figures: 16 blocks per multiprocessor, 4 multiprocessors, clusters of up to 8
 * blocks. Captured launches are nodes of the capture's graph instead. */
#include <string.h>

#include "hostemu.h"

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

enum { BLOCKS_PER_SM = 16, SMS = 4 }; /* SMS: as CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT says */
/* plain launches, Ex launches, then the last Ex launch's grid[3], block[3], cluster[3],
 * cooperative, attribute count */
static long long launches[13];
/* The parameter buffer of the last launch (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE of `extra`). */
static unsigned char last_params[4096];
static size_t last_params_size;

static void record_params(void** extra) {
    const void* buffer = NULL;
    size_t size = 0;
    for (size_t k = 0; extra && extra[k] != NULL; k += 2) {
        if (extra[k] == (void*)1)
            buffer = extra[k + 1];
        else if (extra[k] == (void*)2)
            size = *(const size_t*)extra[k + 1];
    }
    pthread_mutex_lock(&lock);
    last_params_size = buffer && size <= sizeof last_params ? size : 0;
    if (last_params_size)
        memcpy(last_params, buffer, size);
    pthread_mutex_unlock(&lock);
}

static int launch(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                  unsigned bz, unsigned shared, void* st, void** params, void** extra) {
    int rc = captured(st, NULL);
    if (rc != OK)
        return done(rc);
    record_params(extra);
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
    int rc = captured(c->stream, NULL);
    if (rc != OK)
        return done(rc);
    record_params(extra);
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

/* Copies the last launch's parameter buffer into `out` (room for `cap` bytes); returns its size. */
EXPORTED size_t hostemu_last_params(unsigned char* out, size_t cap) {
    pthread_mutex_lock(&lock);
    size_t n = last_params_size < cap ? last_params_size : cap;
    memcpy(out, last_params, n);
    pthread_mutex_unlock(&lock);
    return last_params_size;
}

EXPORTED void hostemu_launches(long long* out) {
    pthread_mutex_lock(&lock);
    memcpy(out, launches, sizeof launches);
    pthread_mutex_unlock(&lock);
}

/* clang-format off */
const struct entry launch_entries[] = {
    {"cuGetErrorName", error_name}, {"cuLaunchKernel", launch}, {"cuLaunchKernelEx", launch_ex},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", occupancy_blocks},
    {"cuOccupancyMaxPotentialBlockSize", occupancy_block_size},
    {"cuOccupancyMaxPotentialClusterSize", cluster_size},
    {"cuOccupancyMaxActiveClusters", active_clusters}, {NULL, NULL}};
/* clang-format on */
