// tests/cpp/test_staged_copy.cpp: the chunking of staged copies (no GPU; the copies themselves
// are tested against the fake driver in tests/test_staged_copy.py and on the GPU).
#include "core/staged_copy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pycuda {
namespace {

TEST(StagedCopy, ChunksFitTheBuffers) {
    for (size_t n = k_staging_threshold; n < (size_t{300} << 20); n = n * 5 / 4 + 4097) {
        size_t chunk = staging_chunk_bytes(n);
        EXPECT_LE(chunk, k_staging_buffer_bytes) << n;
        EXPECT_GE(chunk, k_staging_min_chunk) << n;
        EXPECT_EQ(chunk % (size_t{64} << 10), 0u) << n;
    }
}

TEST(StagedCopy, MidSizedCopiesAreCutIntoSeveralChunks) {
    for (size_t n : {size_t{4} << 20, (size_t{8} << 20) + 1, size_t{16} << 20}) {
        size_t chunks = (n + staging_chunk_bytes(n) - 1) / staging_chunk_bytes(n);
        EXPECT_GE(chunks, k_staging_min_chunks - 1) << n; // the last may round away
        EXPECT_LE(chunks, k_staging_min_chunks) << n;
    }
    // Large copies use whole buffers.
    EXPECT_EQ(staging_chunk_bytes(size_t{256} << 20), k_staging_buffer_bytes);
    // Near the threshold the chunk is the smallest allowed.
    EXPECT_EQ(staging_chunk_bytes(k_staging_threshold), k_staging_min_chunk);
}

TEST(StagedCopy, ChunkingCanBeChangedWithinLimits) {
    auto before = staging_chunking();
    EXPECT_EQ(before.first, k_staging_min_chunks);
    EXPECT_EQ(before.second, k_staging_min_chunk);
    set_staging_chunking(8, size_t{128} << 10);
    EXPECT_EQ(staging_chunk_bytes(size_t{4} << 20), size_t{512} << 10);
    EXPECT_EQ(staging_chunk_bytes(size_t{1} << 20), size_t{128} << 10);
    EXPECT_THROW(set_staging_chunking(0, k_staging_min_chunk), std::invalid_argument);
    EXPECT_THROW(set_staging_chunking(2, 1000), std::invalid_argument);
    EXPECT_THROW(set_staging_chunking(2, 2 * k_staging_buffer_bytes), std::invalid_argument);
    set_staging_chunking(before.first, before.second);
    EXPECT_EQ(staging_chunking(), before);
}

TEST(StagedCopy, ConstantsAgree) {
    static_assert(k_staging_buffers >= 2, "no overlap with one buffer");
    static_assert(k_staging_min_chunk <= k_staging_buffer_bytes);
    static_assert(k_staging_threshold >= k_staging_min_chunk);
    EXPECT_EQ(staging_bytes_held(), 0u); // nothing staged in this process
}

} // namespace
} // namespace pycuda
