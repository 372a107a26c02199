// tests/cpp/test_async_memory.cpp: driver pools and stream-ordered allocations (GPU).
#include "core/async_memory.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/stream.hpp"
#include "gpu_skip.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace pycuda {
namespace {

TEST(StreamOrdered, AllocationsCountAndReturnToThePool) {
    PYCUDA_REQUIRE_GPU();
    auto ctx = Context::retain_primary(Device::from_ordinal(0));
    ctx->push();
    {
        auto pool = MemPool::create(ctx->device());
        EXPECT_TRUE(pool->owned());
        pool->set_release_threshold(UINT64_MAX);
        auto stream = std::make_shared<Stream>();
        auto allocator = StreamOrderedAllocator::create(stream->handle(), stream, pool);
        std::vector<std::unique_ptr<StreamOrderedAllocation>> blocks;
        for (size_t size : {size_t{1}, size_t{4096}, size_t{1} << 20})
            blocks.push_back(std::make_unique<StreamOrderedAllocation>(allocator, size));
        EXPECT_EQ(allocator->active_blocks(), 3u);
        EXPECT_EQ(allocator->active_bytes(), 1u + 4096u + (1u << 20));
        EXPECT_GE(pool->used_current(), allocator->active_bytes());
        blocks[0]->free();
        EXPECT_THROW(blocks[0]->ptr(), CudaError);
        EXPECT_THROW(blocks[0]->free(), CudaError);
        blocks.clear(); // the rest freed by their destructors
        EXPECT_EQ(allocator->active_blocks(), 0u);
        stream->synchronize();
        EXPECT_EQ(pool->used_current(), 0u);
        EXPECT_GT(pool->reserved_current(), 0u); // kept: the threshold is above it
        pool->trim(0);
        EXPECT_EQ(pool->reserved_current(), 0u);
    }
    Context::pop();
}

TEST(StreamOrdered, TheDevicePoolsAreBorrowed) {
    PYCUDA_REQUIRE_GPU();
    Device device = Device::from_ordinal(0);
    auto pool = MemPool::device_default(device);
    EXPECT_FALSE(pool->owned());
    EXPECT_EQ(pool->handle(), MemPool::device_current(device)->handle());
}

} // namespace
} // namespace pycuda
