// tests/cpp/test_driver_api.cpp: loading libcuda and NVRTC at run time.
#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

TEST(DriverApi, MissingDriverIsOneClearError) {
    if (pycuda::driver_loadable()) {
        const pycuda::DriverApi& api = pycuda::driver();
        EXPECT_NE(api.cuInit, nullptr);
        EXPECT_NE(api.cuLaunchKernel, nullptr);
        EXPECT_FALSE(api.library_path.empty());
        return;
    }
    try {
        pycuda::driver();
        FAIL() << "driver() returned without a driver";
    } catch (const pycuda::CudaError& e) {
        std::string what = e.what();
        EXPECT_EQ(e.code(), CUDA_ERROR_NO_DEVICE);
        EXPECT_NE(what.find("no CUDA driver found"), std::string::npos) << what;
        EXPECT_NE(what.find("libcuda.so.1"), std::string::npos) << what;
    }
}

TEST(DriverApi, NvrtcLoadsWhereTheToolkitIs) {
    if (!pycuda::nvrtc_loadable()) {
        GTEST_SKIP() << "NVRTC not installed; looked in " << pycuda::nvrtc_search_description();
    }
    const pycuda::NvrtcApi& api = pycuda::nvrtc();
    int major = 0, minor = 0;
    ASSERT_EQ(api.nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
    EXPECT_GE(major, 12);
}
