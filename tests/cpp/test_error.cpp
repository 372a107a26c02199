// tests/cpp/test_error.cpp: CudaError messages and the checked call.
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <string>

using pycuda::CudaError;

TEST(CudaError, MessageNamesRoutineCodeAndDetail) {
    CudaError e(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc", "size was 0");
    std::string what = e.what();
    EXPECT_EQ(e.code(), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(e.routine(), "cuMemAlloc");
    EXPECT_EQ(e.name(), "CUDA_ERROR_INVALID_VALUE");
    EXPECT_EQ(what.rfind("cuMemAlloc failed: CUDA_ERROR_INVALID_VALUE: ", 0), 0u) << what;
    EXPECT_NE(what.find(" - size was 0"), std::string::npos) << what;
}

TEST(CudaError, CheckThrowsOnlyOnFailure) {
    EXPECT_NO_THROW(pycuda::check(CUDA_SUCCESS, "cuInit"));
    EXPECT_THROW(pycuda::check(CUDA_ERROR_NOT_INITIALIZED, "cuInit"), CudaError);
}

TEST(CudaError, MissingOptionalEntryIsNotSupported) {
    CUresult (*missing)(int) = nullptr;
    try {
        pycuda::checked_call(missing, "cuFuncGetParamInfo", 0);
        FAIL() << "no exception";
    } catch (const CudaError& e) {
        EXPECT_EQ(e.code(), CUDA_ERROR_NOT_SUPPORTED);
        EXPECT_EQ(e.routine(), "cuFuncGetParamInfo");
    }
}

TEST(CleanupWarning, HandlerReceivesFailuresButNotShutdownCodes) {
    std::string seen;
    pycuda::set_cleanup_warning_handler([&](std::string_view m) { seen = m; });
    pycuda::report_cleanup_failure(CUDA_ERROR_DEINITIALIZED, "cuMemFree");
    EXPECT_TRUE(seen.empty());
    pycuda::report_cleanup_failure(CUDA_ERROR_INVALID_VALUE, "cuMemFree");
    EXPECT_NE(seen.find("cuMemFree failed"), std::string::npos) << seen;
    pycuda::set_cleanup_warning_handler(nullptr);
}

TEST(CudaError, KernelFaultsSayTheContextIsLost) {
    for (CUresult code : {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_ASSERT,
                          CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_LAUNCH_FAILED}) {
        EXPECT_TRUE(pycuda::is_sticky_fault(code)) << code;
        std::string what = CudaError(code, "cuCtxSynchronize").what();
        EXPECT_NE(what.find("start a new process"), std::string::npos) << what;
    }
    EXPECT_FALSE(pycuda::is_sticky_fault(CUDA_ERROR_OUT_OF_MEMORY));
    EXPECT_FALSE(pycuda::is_sticky_fault(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES));
    std::string what = CudaError(CUDA_ERROR_INVALID_VALUE, "cuMemAlloc").what();
    EXPECT_EQ(what.find("new process"), std::string::npos) << what;
}

TEST(CleanupWarning, FaultsOfAPoisonedContextAreNotRepeated) {
    std::string seen;
    pycuda::set_cleanup_warning_handler([&](std::string_view m) { seen = m; });
    pycuda::report_cleanup_failure(CUDA_ERROR_ILLEGAL_ADDRESS, "cuMemFree");
    pycuda::report_cleanup_failure(CUDA_ERROR_ASSERT, "cuModuleUnload");
    EXPECT_TRUE(seen.empty()) << seen;
    pycuda::set_cleanup_warning_handler(nullptr);
}
