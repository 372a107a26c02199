// tests/cpp/test_fork_guard.cpp: a child forked after cuInit is refused CUDA, with advice; no GPU.
#include "core/fork_guard.hpp"

#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

/// Runs `child` in a forked process; its result is the child's exit status (99 if it threw).
template <typename Fn>
int in_child(Fn&& child) {
    pid_t pid = fork();
    if (pid == 0) {
        int code = 99;
        try {
            code = child();
        } catch (...) {
        }
        _exit(code);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 101;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/// 0 when the driver door refuses with advice and clean-up calls do nothing; else which check
/// failed.
int refused_with_advice() {
    if (!pycuda::in_forked_child())
        return 1;
    try {
        pycuda::driver();
        return 2;
    } catch (const pycuda::CudaError& e) {
        std::string what = e.what();
        if (e.code() != CUDA_ERROR_NOT_INITIALIZED || e.name() != "CUDA_ERROR_NOT_INITIALIZED")
            return 3;
        if (what.find("forked") == std::string::npos || what.find("spawn") == std::string::npos)
            return 4;
    }
    bool reported = false;
    pycuda::set_cleanup_warning_handler([&](std::string_view) { reported = true; });
    PYCUDA_CALL_CLEANUP(cuMemFree, CUdeviceptr{0}); // must neither call, throw nor report
    pycuda::set_cleanup_warning_handler(nullptr);
    return reported ? 5 : 0;
}

} // namespace

TEST(ForkGuard, ChildForkedAfterInitIsRefusedWithAdvice) {
    pycuda::note_cuda_initialized();
    EXPECT_FALSE(pycuda::in_forked_child());
    EXPECT_EQ(in_child(refused_with_advice), 0);
    // The grandchild inherits the mark through its parent's memory.
    EXPECT_EQ(in_child([] { return in_child(refused_with_advice); }), 0);
    EXPECT_FALSE(pycuda::in_forked_child());
}

TEST(ForkGuard, ChildOfAProcessThatNeverInitialisedIsFree) {
    // "threadsafe" death tests run in a fresh copy of this program, where nothing called
    // note_cuda_initialized() (the test above may have, in this process).
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(std::exit(in_child([] { return pycuda::in_forked_child() ? 1 : 0; })),
                ::testing::ExitedWithCode(0), "");
}
