// tests/cpp/test_driver_api.cpp: loading libcuda and NVRTC at run time, and where the toolkit's
// libraries are looked for.
#include "core/driver_api.hpp"
#include "core/error.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

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

namespace {

/// Sets (or, with nullptr, unsets) an environment variable for one scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name))
            old_ = old, had_ = true;
        value ? setenv(name, value, 1) : unsetenv(name);
    }
    ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

} // namespace

/// lib64/, lib/ and targets/<platform>/lib/ of /usr/local/cuda, each with cuRAND's sonames.
std::vector<std::string> curand_files_under_usr_local_cuda() {
#if defined(__aarch64__)
    const std::vector<std::string> subdirs = {"/lib64/", "/lib/", "/targets/sbsa-linux/lib/",
                                              "/targets/aarch64-linux/lib/"};
#else
    const std::vector<std::string> subdirs = {"/lib64/", "/lib/", "/targets/x86_64-linux/lib/"};
#endif
    std::vector<std::string> files;
    for (const auto& sub : subdirs)
        for (const char* name : {"libcurand.so.10", "libcurand.so"})
            files.push_back("/usr/local/cuda" + sub + name);
    return files;
}

TEST(DriverApi, ToolkitLibraryCandidatesInTheirOrder) {
    ScopedEnv explicit_file("PYCUDA_LIBCURAND", "/x/libcurand.so.10");
    pycuda::set_toolkit_library_dirs({"/opt/cuda/lib64", "/site/nvidia/cu13/lib"});
    // The file, then the folders Python gave (toolkit variables', then packages'), then the
    // loader's search, then /usr/local/cuda.
    std::vector<std::string> expected = {"/x/libcurand.so.10",
                                         "/opt/cuda/lib64/libcurand.so.10",
                                         "/opt/cuda/lib64/libcurand.so",
                                         "/site/nvidia/cu13/lib/libcurand.so.10",
                                         "/site/nvidia/cu13/lib/libcurand.so",
                                         "libcurand.so.10",
                                         "libcurand.so"};
    for (const auto& file : curand_files_under_usr_local_cuda())
        expected.push_back(file);
    EXPECT_EQ(pycuda::toolkit_library_candidates(pycuda::k_curand_library), expected);
    pycuda::set_toolkit_library_dirs({});
    ScopedEnv no_file("PYCUDA_LIBCURAND", nullptr);
    EXPECT_EQ(pycuda::toolkit_library_candidates(pycuda::k_curand_library).front(),
              "libcurand.so.10");
}

TEST(DriverApi, ABadLibraryFileSettingIsAnErrorNotSkipped) {
    const pycuda::ToolkitLibrary absent{
        "Absent", "PYCUDA_TEST_ABSENT_LIBRARY", {"libpycuda-test-absent.so.1"}};
    {
        ScopedEnv given("PYCUDA_TEST_ABSENT_LIBRARY", "/nonexistent/libx.so");
        EXPECT_NE(pycuda::explicit_setting_problem(absent).find("PYCUDA_TEST_ABSENT_LIBRARY="),
                  std::string::npos);
        EXPECT_EQ(pycuda::find_toolkit_library(absent), "");
    }
    ScopedEnv unset("PYCUDA_TEST_ABSENT_LIBRARY", nullptr);
    EXPECT_EQ(pycuda::explicit_setting_problem(absent), "");
}

TEST(DriverApi, ToolkitRootVariablesAreLeftToPython) {
    // pycuda._cuda_paths reads $CUDA_HOME, $CUDA_PATH and $CUDA_ROOT, ignores (with a warning)
    // one that names no usable toolkit, and gives core the folders of the others. Core reads
    // none of them: a bad one is no problem here, and no candidate comes from one.
    const pycuda::ToolkitLibrary absent{
        "Absent", "PYCUDA_TEST_ABSENT_LIBRARY", {"libpycuda-test-absent.so.1"}};
    ScopedEnv unset("PYCUDA_TEST_ABSENT_LIBRARY", nullptr);
    std::vector<std::string> without;
    {
        ScopedEnv home("CUDA_HOME", nullptr);
        ScopedEnv path("CUDA_PATH", nullptr);
        ScopedEnv root("CUDA_ROOT", nullptr);
        without = pycuda::toolkit_library_candidates(absent);
    }
    ScopedEnv missing_dir("CUDA_HOME", "/nonexistent/cuda");
    ScopedEnv empty_dir("CUDA_PATH", "/");
    ScopedEnv root("CUDA_ROOT", "/nonexistent/root");
    EXPECT_EQ(pycuda::explicit_setting_problem(absent), "");
    EXPECT_EQ(pycuda::toolkit_library_candidates(absent), without);
}

TEST(DriverApi, FindToolkitLibraryInNamesTheFirstLoadableFile) {
    const pycuda::ToolkitLibrary absent{
        "Absent", "PYCUDA_TEST_ABSENT_LIBRARY", {"libpycuda-test-absent.so.1"}};
    char self[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
    char pattern[] = "/tmp/pycuda-test-libdir-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string dir = pattern;
    const std::string file = dir + "/libpycuda-test-absent.so.1";
    EXPECT_EQ(pycuda::find_toolkit_library_in(absent, {"/nonexistent", dir}), "");
    // Any ELF object of this process's kind will do as "the library": this program itself.
    ASSERT_EQ(symlink(self, file.c_str()), 0);
    EXPECT_EQ(pycuda::find_toolkit_library_in(absent, {"/nonexistent", dir}), file);
    EXPECT_EQ(pycuda::find_toolkit_library_in(absent, {}), "");
    unlink(file.c_str());
    rmdir(dir.c_str());
}

TEST(DriverApi, LoaderPathEndsWithTheSystemDirectories) {
    const pycuda::LoaderPath path = pycuda::loader_path();
    EXPECT_EQ(path.cache_file, "/etc/ld.so.cache");
    ASSERT_FALSE(path.after_cache.empty());
    for (const auto& dir : path.after_cache)
        EXPECT_TRUE(dir.rfind("/lib", 0) == 0 || dir.rfind("/usr/lib", 0) == 0) << dir;
}

TEST(DriverApi, ExplicitFileIsFoundFirstAndAbsentLibrariesAreNot) {
    const pycuda::ToolkitLibrary absent{
        "Absent", "PYCUDA_TEST_ABSENT_LIBRARY", {"libpycuda-test-absent.so.1"}};
    ScopedEnv unset("PYCUDA_TEST_ABSENT_LIBRARY", nullptr);
    EXPECT_EQ(pycuda::find_toolkit_library(absent), "");
    // Any ELF object of this process's kind will do as "the library": this program itself.
    char self[4096] = {};
    ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
    ScopedEnv given("PYCUDA_TEST_ABSENT_LIBRARY", self);
    EXPECT_EQ(pycuda::find_toolkit_library(absent), self);
}

TEST(DriverApi, FindNvrtcNamesTheFileNvrtcOpens) {
    const std::string found = pycuda::find_nvrtc(); // before anything opens NVRTC
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "NVRTC not installed; looked in " << pycuda::nvrtc_search_description();
    const std::string opened = pycuda::nvrtc().library_path;
    EXPECT_EQ(pycuda::find_nvrtc(), opened);
    // The loader's search and ours agree wherever ours finds a file (they can differ only
    // where only the loader knows the place, and then find_nvrtc() was empty).
    if (!found.empty())
        EXPECT_EQ(found, opened);
}
