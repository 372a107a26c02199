// benchmarks/launch_floor.cpp: the floor for launch cost: a C++ loop of cuLaunchKernel.
//
// Built by benchmarks/launch.py as a shared library and called through ctypes, so the floor is
// measured in the same process and interleaved with the Python contenders (the launch cost of
// a driver drifts by a microsecond between runs; paired rounds cancel that drift).
// launch_floor_run() launches the kernel (float*, int, float) of a cubin in device 0's primary
// context with a packed parameter buffer, exactly as pycuda does, in batches of `sync_every`
// with an untimed synchronization between batches; it returns microseconds per launch.
#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <chrono>
#include <cstdio>

namespace {

struct Floor {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    CUdeviceptr buffer = 0;
};

Floor& state() {
    static Floor floor;
    return floor;
}

} // namespace

/// Loads `cubin` and finds `kernel` (once per process); returns 0 on success, else prints why.
extern "C" int launch_floor_init(const char* cubin, const char* kernel) {
    try {
        PYCUDA_CALL(cuInit, 0);
        CUdevice dev;
        PYCUDA_CALL(cuDeviceGet, &dev, 0);
        CUcontext ctx;
        PYCUDA_CALL(cuDevicePrimaryCtxRetain, &ctx, dev);
        PYCUDA_CALL(cuCtxPushCurrent, ctx);
        PYCUDA_CALL(cuModuleLoad, &state().module, cubin);
        PYCUDA_CALL(cuModuleGetFunction, &state().function, state().module, kernel);
        PYCUDA_CALL(cuMemAlloc, &state().buffer, 1024);
        CUcontext popped;
        PYCUDA_CALL(cuCtxPopCurrent, &popped);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "launch_floor: %s\n", e.what());
        return 1;
    }
}

/// Microseconds per launch over `launches` launches (the caller's context must be current).
extern "C" double launch_floor_run(int launches, int sync_every) {
    struct {
        CUdeviceptr a;
        int n;
        float x;
    } params{state().buffer, 3, 2.0f};
    std::size_t size = sizeof(params);
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    const pycuda::DriverApi& api = pycuda::driver();
    int batches = launches / sync_every > 0 ? launches / sync_every : 1;
    double total_us = 0;
    for (int b = 0; b < batches; ++b) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < sync_every; ++i)
            if (api.cuLaunchKernel(state().function, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr,
                                   extra) != CUDA_SUCCESS)
                return -1;
        auto t1 = std::chrono::steady_clock::now();
        total_us += std::chrono::duration<double, std::micro>(t1 - t0).count();
        if (api.cuCtxSynchronize() != CUDA_SUCCESS)
            return -1;
    }
    return total_us / (batches * sync_every);
}
