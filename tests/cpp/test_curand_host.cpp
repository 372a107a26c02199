// tests/cpp/test_curand_host.cpp: cuRAND's host calls through core's door (needs libcurand, not a
// GPU): the version, the Sobol tables and the errors.
#include "core/curand_host.hpp"
#include "core/driver_api.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

namespace {

TEST(CurandHost, ErrorsNameTheStatus) {
    pycuda::CurandError e(104, "curandGetDirectionVectors32");
    EXPECT_EQ(e.status(), 104);
    EXPECT_STREQ(e.what(), "curandGetDirectionVectors32 failed: CURAND_STATUS_OUT_OF_RANGE (104)");
}

TEST(CurandHost, FoundFileIsTheOpenedFile) {
    const std::string found = pycuda::find_curand(); // before anything opens libcurand
    if (!pycuda::curand_loadable())
        GTEST_SKIP() << "no libcurand; looked in " << pycuda::curand_search_description();
    const pycuda::CurandApi& api = pycuda::curand();
    EXPECT_FALSE(api.library_path.empty());
    EXPECT_EQ(pycuda::find_curand(), api.library_path);
    if (!found.empty())
        EXPECT_EQ(found, api.library_path);
    EXPECT_NE(api.curandGetDirectionVectors32, nullptr);
    EXPECT_NE(api.curandGetScrambleConstants64, nullptr);
}

TEST(CurandHost, VersionAndTables) {
    if (!pycuda::curand_loadable())
        GTEST_SKIP() << "no libcurand; looked in " << pycuda::curand_search_description();
    EXPECT_GE(pycuda::curand_version(), 10000);

    // Dimension 0 of the unscrambled sets is van der Corput's: direction j is 2^(bits - 1 - j).
    auto v32 = pycuda::curand_direction_vectors32(101);
    ASSERT_EQ(v32.size(), pycuda::k_curand_dimensions * 32);
    for (unsigned j = 0; j < 32; ++j)
        EXPECT_EQ(v32[j], 1u << (31 - j)) << j;
    auto v64 = pycuda::curand_direction_vectors64(103);
    ASSERT_EQ(v64.size(), pycuda::k_curand_dimensions * 64);
    for (unsigned j = 0; j < 64; ++j)
        EXPECT_EQ(v64[j], 1ull << (63 - j)) << j;
    EXPECT_NE(pycuda::curand_direction_vectors32(102).data(), v32.data());

    auto s32 = pycuda::curand_scramble_constants32();
    auto s64 = pycuda::curand_scramble_constants64();
    ASSERT_EQ(s32.size(), pycuda::k_curand_dimensions);
    ASSERT_EQ(s64.size(), pycuda::k_curand_dimensions);
    EXPECT_GT(std::set<std::uint32_t>(s32.begin(), s32.end()).size(), 19000u);
    EXPECT_GT(std::set<std::uint64_t>(s64.begin(), s64.end()).size(), 19000u);
}

TEST(CurandHost, OtherSetsAreRefused) {
    // Refused before libcurand is asked, so this holds with or without it.
    EXPECT_THROW(pycuda::curand_direction_vectors32(103), std::invalid_argument);
    EXPECT_THROW(pycuda::curand_direction_vectors64(102), std::invalid_argument);
    EXPECT_THROW(pycuda::curand_direction_vectors32(7), std::invalid_argument);
}

} // namespace
