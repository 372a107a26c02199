// benchmarks/launch_modes.cpp: what a cuLaunchKernel costs the host, by the way it is called.
//
// A flat kernel's launch (out, a, b, n) timed with its parameters passed as one buffer (`extra`,
// as pycuda's launches do) or as an array of pointers (`kernelParams`), on the legacy default
// stream, the per-thread default stream, and a created stream (blocking or not); also
// cuLaunchKernelEx. Batches of 256 launches with an untimed synchronization between them; the
// median over rounds, in microseconds per launch. Run on the GPU machine:
//
//   echo 'extern "C" __global__ void add(float* o, const float* a, const float* b, long long n)
//         { long long i = blockIdx.x * 256ll + threadIdx.x; if (i < n) o[i] = a[i] + b[i]; }' |
//       nvcc -cubin -arch=sm_90 -o /tmp/k.cubin -x cu -
//   g++ -O2 -std=c++20 -I/usr/local/cuda/include benchmarks/launch_modes.cpp \
//       -L/usr/local/cuda/lib64/stubs -lcuda -o /tmp/launch_modes && /tmp/launch_modes /tmp/k.cubin
//
// Finding (H100, driver 580.159.04, 2026-11-22): all modes cost the same within 0.2 us
// (3.8-4.3 us), so pycuda keeps the parameter buffer and the legacy stream.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

namespace {

#define CHECK(call, ...)                                                                           \
    do {                                                                                           \
        CUresult rc_ = call(__VA_ARGS__);                                                          \
        if (rc_ != CUDA_SUCCESS) {                                                                 \
            std::fprintf(stderr, "%s failed: %d\n", #call, static_cast<int>(rc_));                 \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

double median_us(const std::function<void()>& launch) {
    constexpr int kBatch = 256;
    constexpr int kRounds = 41;
    std::vector<double> rounds;
    for (int r = 0; r < kRounds + 2; ++r) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < kBatch; ++i)
            launch();
        auto t1 = std::chrono::steady_clock::now();
        CHECK(cuCtxSynchronize, );
        if (r >= 2)
            rounds.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kBatch);
    }
    std::nth_element(rounds.begin(), rounds.begin() + kRounds / 2, rounds.end());
    return rounds[kRounds / 2];
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: launch_modes KERNEL.cubin\n");
        return 2;
    }
    CHECK(cuInit, 0);
    CUdevice dev;
    CHECK(cuDeviceGet, &dev, 0);
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain, &ctx, dev);
    CHECK(cuCtxPushCurrent, ctx);
    CUmodule module;
    CHECK(cuModuleLoad, &module, argv[1]);
    CUfunction func;
    CHECK(cuModuleGetFunction, &func, module, "add");
    CUdeviceptr buf;
    CHECK(cuMemAlloc, &buf, 3 * 4096);
    CUstream blocking, nonblocking;
    CHECK(cuStreamCreate, &blocking, CU_STREAM_DEFAULT);
    CHECK(cuStreamCreate, &nonblocking, CU_STREAM_NON_BLOCKING);

    struct {
        CUdeviceptr out, a, b;
        long long n;
    } params{buf, buf + 4096, buf + 8192, 1000};
    std::size_t size = sizeof(params);
    void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &params, CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
                     CU_LAUNCH_PARAM_END};
    void* pointers[] = {&params.out, &params.a, &params.b, &params.n};

    struct Mode {
        const char* name;
        CUstream stream;
        bool buffer;
        unsigned grid, block;
    };
    const Mode modes[] = {
        {"extra buffer, legacy stream, 1x32", nullptr, true, 1, 32},
        {"extra buffer, legacy stream, 1x256", nullptr, true, 1, 256},
        {"extra buffer, legacy stream, 8x128", nullptr, true, 8, 128},
        {"kernelParams, legacy stream, 1x256", nullptr, false, 1, 256},
        {"extra buffer, per-thread stream, 1x256", CU_STREAM_PER_THREAD, true, 1, 256},
        {"kernelParams, per-thread stream, 1x256", CU_STREAM_PER_THREAD, false, 1, 256},
        {"extra buffer, blocking stream, 1x256", blocking, true, 1, 256},
        {"extra buffer, non-blocking stream, 1x256", nonblocking, true, 1, 256},
        {"kernelParams, non-blocking stream, 1x256", nonblocking, false, 1, 256},
    };
    for (int pass = 0; pass < 2; ++pass) {
        for (const Mode& m : modes) {
            double us = median_us([&] {
                CHECK(cuLaunchKernel, func, m.grid, 1, 1, m.block, 1, 1, 0, m.stream,
                      m.buffer ? nullptr : pointers, m.buffer ? extra : nullptr);
            });
            std::printf("%-46s %6.3f us\n", m.name, us);
        }
        CUlaunchConfig config{};
        config.gridDimX = config.gridDimY = config.gridDimZ = 1;
        config.blockDimX = 256;
        config.blockDimY = config.blockDimZ = 1;
        double us = median_us([&] { CHECK(cuLaunchKernelEx, &config, func, pointers, nullptr); });
        std::printf("%-46s %6.3f us\n", "cuLaunchKernelEx kernelParams, legacy, 1x256", us);
        double alloc = median_us([&] {
            CUdeviceptr p;
            CHECK(cuMemAllocAsync, &p, 4096, nullptr);
            CHECK(cuMemFreeAsync, p, nullptr);
        });
        std::printf("%-46s %6.3f us\n", "cuMemAllocAsync+cuMemFreeAsync 4 KiB, legacy", alloc);
        std::printf("--\n");
    }
    return 0;
}
