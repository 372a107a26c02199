// benchmarks/launch_floor.cpp: the floor for launch cost: a C++ loop of cuLaunchKernel.
//
// Usage: launch_floor <cubin> <kernel> <launches> <sync_every> <repeats>
// Loads the cubin in device 0's primary context and launches the kernel (float*, int, float)
// with a packed parameter buffer, exactly as pycuda does, synchronizing every <sync_every>
// launches. Prints one line per repeat: microseconds per launch.
#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using pycuda::driver;

int main(int argc, char** argv) {
    if (argc != 6) {
        std::fprintf(stderr, "usage: %s cubin kernel launches sync_every repeats\n", argv[0]);
        return 2;
    }
    int launches = std::atoi(argv[3]), sync_every = std::atoi(argv[4]);
    int repeats = std::atoi(argv[5]);
    try {
        PYCUDA_CALL(cuInit, 0);
        CUdevice dev;
        PYCUDA_CALL(cuDeviceGet, &dev, 0);
        CUcontext ctx;
        PYCUDA_CALL(cuDevicePrimaryCtxRetain, &ctx, dev);
        PYCUDA_CALL(cuCtxSetCurrent, ctx);
        CUmodule mod;
        PYCUDA_CALL(cuModuleLoad, &mod, argv[1]);
        CUfunction fn;
        PYCUDA_CALL(cuModuleGetFunction, &fn, mod, argv[2]);
        CUdeviceptr buf;
        PYCUDA_CALL(cuMemAlloc, &buf, 1024);
        struct {
            CUdeviceptr a;
            int n;
            float x;
        } params{buf, 3, 2.0f};
        std::size_t size = sizeof(params);
        void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &params, CU_LAUNCH_PARAM_BUFFER_SIZE,
                         &size, CU_LAUNCH_PARAM_END};
        for (int r = 0; r < repeats; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < launches; ++i) {
                PYCUDA_CALL(cuLaunchKernel, fn, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra);
                if ((i + 1) % sync_every == 0)
                    PYCUDA_CALL(cuCtxSynchronize);
            }
            PYCUDA_CALL(cuCtxSynchronize);
            auto t1 = std::chrono::steady_clock::now();
            std::printf("%.4f\n",
                        std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
        }
        PYCUDA_CALL(cuMemFree, buf);
        PYCUDA_CALL(cuModuleUnload, mod);
        PYCUDA_CALL(cuDevicePrimaryCtxRelease, dev);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "launch_floor: %s\n", e.what());
        return 1;
    }
    return 0;
}
