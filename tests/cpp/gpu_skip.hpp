// tests/cpp/gpu_skip.hpp: skip a C++ test, with the reason, where no GPU can be used.
#pragma once

#include "core/device.hpp"
#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

/// Empty when a CUDA device is usable, else why not.
inline std::string gpu_unavailable_reason() {
    if (!pycuda::driver_loadable())
        return "no CUDA driver (libcuda.so.1) on this machine";
    try {
        pycuda::init();
        if (pycuda::Device::count() == 0)
            return "the driver reports no devices";
    } catch (const pycuda::CudaError& e) {
        return e.what();
    }
    return {};
}

#define PYCUDA_REQUIRE_GPU()                                                                       \
    do {                                                                                           \
        std::string why = gpu_unavailable_reason();                                                \
        if (!why.empty())                                                                          \
            GTEST_SKIP() << why;                                                                   \
    } while (0)
