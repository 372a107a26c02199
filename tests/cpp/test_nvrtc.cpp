// tests/cpp/test_nvrtc.cpp: NVRTC compiles (needs libnvrtc, not a GPU) and SHA-256 vectors.
#include "core/nvrtc.hpp"
#include "core/sha256.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace {

const char* k_kernel = R"(extern "C" __global__ void twice(float* a) { a[threadIdx.x] *= 2; })";

TEST(Sha256, FipsVectors) {
    EXPECT_EQ(pycuda::sha256_hex(""),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(pycuda::sha256_hex("abc"),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(pycuda::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    // Incremental updates that straddle block boundaries give the same digest.
    std::string million(1000000, 'a');
    pycuda::Sha256 h;
    for (std::size_t i = 0; i < million.size(); i += 997)
        h.update(std::string_view(million).substr(i, 997));
    EXPECT_EQ(pycuda::to_hex(h.digest()),
              "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Nvrtc, CompilesToCubinForRealArch) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    for (const char* arch : {"-arch=sm_80", "-arch=sm_90"}) {
        auto r = pycuda::nvrtc_compile(k_kernel, "twice.cu", {arch});
        ASSERT_TRUE(r.success) << r.log;
        EXPECT_NE(r.ptx.find(".entry twice"), std::string::npos);
        ASSERT_GE(r.cubin.size(), 4u);
        EXPECT_EQ(r.cubin.substr(0, 4), std::string("\x7f"
                                                    "ELF"));
    }
}

TEST(Nvrtc, VirtualArchGivesPtxOnly) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    auto r = pycuda::nvrtc_compile(k_kernel, "twice.cu", {"-arch=compute_80"});
    ASSERT_TRUE(r.success) << r.log;
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_NE(r.ptx.find(".target sm_80"), std::string::npos);
}

TEST(Nvrtc, ANulByteIsRefusedNotCutAt) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    using namespace std::string_literals;
    EXPECT_THROW(pycuda::nvrtc_compile(k_kernel + "\0junk"s, "t.cu", {"-arch=sm_80"}),
                 std::invalid_argument);
    EXPECT_THROW(pycuda::nvrtc_compile(k_kernel, "t.cu\0x"s, {"-arch=sm_80"}),
                 std::invalid_argument);
    EXPECT_THROW(pycuda::nvrtc_compile(k_kernel, "t.cu", {"-arch=sm_80\0garbage"s}),
                 std::invalid_argument);
    EXPECT_THROW(pycuda::nvrtc_compile(k_kernel, "t.cu", {"-arch=sm_80"}, {{"h.h\0"s, "int x;"}}),
                 std::invalid_argument);
}

TEST(Nvrtc, ErrorsAreInTheLog) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    auto r = pycuda::nvrtc_compile("__global__ void f() { undefined_thing(); }", "bad.cu",
                                   {"-arch=sm_80"});
    EXPECT_FALSE(r.success);
    EXPECT_NE(r.log.find("undefined_thing"), std::string::npos) << r.log;
    auto bad_option = pycuda::nvrtc_compile(k_kernel, "twice.cu", {"--no-such-option"});
    EXPECT_FALSE(bad_option.success);
    EXPECT_NE(bad_option.log.find("no-such-option"), std::string::npos) << bad_option.log;
}

TEST(Nvrtc, InMemoryHeadersAndPtxasLog) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    auto r = pycuda::nvrtc_compile(
        "#include \"factor.h\"\nextern \"C\" __global__ void f(float* a) { a[0] *= FACTOR; }",
        "f.cu", {"-arch=sm_90", "--ptxas-options=-v"}, {{"factor.h", "#define FACTOR 3.0f\n"}});
    ASSERT_TRUE(r.success) << r.log;
    EXPECT_NE(r.log.find("ptxas info"), std::string::npos) << r.log;
    // The same program again: NVRTC's own cache (12.9+) must not swallow the report.
    auto again = pycuda::nvrtc_compile(
        "#include \"factor.h\"\nextern \"C\" __global__ void f(float* a) { a[0] *= FACTOR; }",
        "f.cu", {"-arch=sm_90", "-Xptxas", "-v"}, {{"factor.h", "#define FACTOR 3.0f\n"}});
    ASSERT_TRUE(again.success) << again.log;
    EXPECT_NE(again.log.find("ptxas info"), std::string::npos) << again.log;
}

TEST(Nvrtc, VersionAndArchs) {
    if (!pycuda::nvrtc_loadable())
        GTEST_SKIP() << "no libnvrtc here";
    auto [major, minor] = pycuda::nvrtc_version();
    EXPECT_GE(major, 11);
    EXPECT_GE(minor, 0);
    auto archs = pycuda::nvrtc_supported_archs();
    ASSERT_FALSE(archs.empty());
    EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
}

} // namespace
