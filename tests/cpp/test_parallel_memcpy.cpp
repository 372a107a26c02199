// tests/cpp/test_parallel_memcpy.cpp: the split copy gives memcpy's result for every size and
// alignment, also from several threads at once (no GPU).
#include "core/parallel_memcpy.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

namespace pycuda {
namespace {

std::vector<unsigned char> random_bytes(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::vector<unsigned char> v(n);
    for (auto& b : v)
        b = static_cast<unsigned char>(gen());
    return v;
}

/// Copies `n` bytes from offset `from` to offset `to` and checks every byte, and that nothing
/// around the destination was touched.
void check_copy(size_t n, size_t from, size_t to, unsigned seed, bool streaming = false) {
    auto src = random_bytes(n + from, seed);
    std::vector<unsigned char> dest(n + to + 64, 0xAB);
    parallel_memcpy(dest.data() + to, src.data() + from, n, streaming);
    if (n) // an empty source may have no storage: memcmp must not see its null pointer
        ASSERT_EQ(0, std::memcmp(dest.data() + to, src.data() + from, n)) << n << " " << from;
    for (size_t i = 0; i < to; ++i)
        ASSERT_EQ(dest[i], 0xAB);
    for (size_t i = n + to; i < dest.size(); ++i)
        ASSERT_EQ(dest[i], 0xAB);
}

TEST(ParallelMemcpy, EverySizeAroundThePartBoundaries) {
    const size_t part = k_memcpy_min_part;
    for (size_t n : {size_t{0}, size_t{1}, part - 1, part, 2 * part - 1, 2 * part, 2 * part + 1,
                     3 * part + 4097, 4 * part, 7 * part + 13, size_t{9} << 20})
        check_copy(n, 0, 0, static_cast<unsigned>(n));
}

TEST(ParallelMemcpy, UnalignedEnds) {
    for (size_t from : {1, 3, 7})
        for (size_t to : {0, 5, 63})
            check_copy(5 * k_memcpy_min_part + 11, from, to, static_cast<unsigned>(from * to));
}

TEST(ParallelMemcpy, StreamingStoresGiveTheSameBytes) {
    // Sizes below, at and past one 64-byte store group, and every misalignment of either end.
    for (size_t n : {size_t{0}, size_t{15}, size_t{64}, size_t{79}, size_t{200}, size_t{4096},
                     3 * k_memcpy_min_part + 77})
        for (size_t from : {0, 1, 9})
            for (size_t to : {0, 3, 16, 17})
                check_copy(n, from, to, static_cast<unsigned>(n + from + to), true);
}

TEST(ParallelMemcpy, ThreadsAreBoundedAndCanBeChanged) {
    unsigned before = parallel_memcpy_threads();
    EXPECT_GE(before, 1u);
    EXPECT_LE(before, k_memcpy_max_threads);
    set_parallel_memcpy_threads(1);
    EXPECT_EQ(parallel_memcpy_threads(), 1u);
    check_copy(5 * k_memcpy_min_part, 0, 0, 1);
    set_parallel_memcpy_threads(1000);
    EXPECT_LE(parallel_memcpy_threads(), k_memcpy_max_threads);
    check_copy(17 * k_memcpy_min_part + 5, 1, 2, 2);
    set_parallel_memcpy_threads(before);
    EXPECT_EQ(parallel_memcpy_threads(), before);
}

TEST(ParallelMemcpy, ConcurrentCallersShareTheWorkers) {
    std::vector<std::thread> callers;
    std::vector<int> failures(6, 0);
    for (unsigned t = 0; t < failures.size(); ++t)
        callers.emplace_back([t, &failures] {
            for (unsigned round = 0; round < 20; ++round) {
                size_t n = (3 + (t + round) % 5) * k_memcpy_min_part + t * 97 + round;
                auto src = random_bytes(n, t * 1000 + round);
                std::vector<unsigned char> dest(n);
                parallel_memcpy(dest.data(), src.data(), n);
                failures[t] += dest != src;
            }
        });
    for (auto& c : callers)
        c.join();
    for (int f : failures)
        EXPECT_EQ(f, 0);
}

} // namespace
} // namespace pycuda
