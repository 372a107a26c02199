// tests/cpp/test_memory_pool.cpp: pool binning, reuse, statistics and OOM recovery, no GPU.
#include "core/memory_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>

namespace pycuda {
namespace {

/// A fake allocator with a byte budget: hands out increasing fake addresses and counts calls.
struct FakeAllocator {
    using pointer = std::uintptr_t;
    struct State {
        size_t budget = SIZE_MAX, in_use = 0, allocations = 0, frees = 0;
        std::set<pointer> live;
        std::map<pointer, size_t> sizes;
        pointer next = 0x1000;
    };
    std::shared_ptr<State> state = std::make_shared<State>();

    pointer allocate(size_t bytes) {
        if (state->in_use + bytes > state->budget)
            throw CudaError(CUDA_ERROR_OUT_OF_MEMORY, "fake allocate");
        ++state->allocations;
        state->in_use += bytes;
        pointer p = state->next;
        state->next += bytes + 256;
        state->live.insert(p);
        state->sizes[p] = bytes;
        return p;
    }
    void free(pointer p) noexcept {
        ++state->frees;
        state->live.erase(p);
        state->in_use -= state->sizes[p];
    }
};

TEST(Bitlog2, FloorOfLog2) {
    EXPECT_EQ(bitlog2(0), 0u);
    EXPECT_EQ(bitlog2(1), 0u);
    EXPECT_EQ(bitlog2(2), 1u);
    EXPECT_EQ(bitlog2(3), 1u);
    EXPECT_EQ(bitlog2(1024), 10u);
    EXPECT_EQ(bitlog2(1025), 10u);
    EXPECT_EQ(bitlog2(UINT64_MAX), 63u);
}

TEST(PoolBins, BlocksHoldTheRequestWithBoundedWaste) {
    for (size_t size = 1; size < 100000; size += (size < 4096 ? 1 : 97)) {
        unsigned bin = PoolBins::bin_number(size);
        size_t bytes = PoolBins::alloc_size(bin);
        ASSERT_GE(bytes, size) << size;
        ASSERT_LE(bytes - size, size / 16) << size;          // 4 mantissa bits: <= 1/16 waste
        ASSERT_EQ(PoolBins::bin_number(bytes), bin) << size; // bin sizes map to themselves
    }
}

TEST(PoolBins, NoBinIsEmpty) {
    // The original's invariants for any size s, 0 included: the block holds s, and its size
    // maps back to the same bin.
    for (size_t size : {size_t{0}, size_t{1}}) {
        EXPECT_EQ(PoolBins::bin_number(size), 0u) << size;
        EXPECT_EQ(PoolBins::alloc_size(PoolBins::bin_number(size)), 1u) << size;
    }
    EXPECT_EQ(PoolBins::bin_number(PoolBins::alloc_size(0)), 0u);
    EXPECT_EQ(PoolBins::alloc_size(1), 1u); // a bin no size maps to
    EXPECT_EQ(PoolBins::bin_number(2), 2u);
}

TEST(PoolBins, MonotonicAndDistinct) {
    for (unsigned bin = 2; bin < 900; ++bin)
        ASSERT_LT(PoolBins::alloc_size(bin - 1), PoolBins::alloc_size(bin)) << bin;
    EXPECT_EQ(PoolBins::alloc_size(PoolBins::bin_number(1000)), 1024u);
    EXPECT_EQ(PoolBins::alloc_size(PoolBins::bin_number(1025)), 1088u);
    EXPECT_EQ(PoolBins::bin_number(size_t{1} << 40), PoolBins::bin_number((size_t{1} << 40) - 1));
}

TEST(MemoryPool, ReusesFreedBlocksOfTheSameBin) {
    auto pool = std::make_shared<MemoryPool<FakeAllocator>>();
    auto state = pool->allocator().state;
    auto a = pool->allocate(1000);
    pool->free(a, 1000);
    EXPECT_EQ(pool->held_blocks(), 1u);
    auto b = pool->allocate(1020); // same bin (1024)
    EXPECT_EQ(a, b);
    EXPECT_EQ(state->allocations, 1u);
    EXPECT_EQ(pool->held_blocks(), 0u);
    auto c = pool->allocate(5000); // different bin: fresh
    EXPECT_NE(c, b);
    EXPECT_EQ(state->allocations, 2u);
    pool->free(b, 1020);
    pool->free(c, 5000);
}

TEST(MemoryPool, Statistics) {
    auto pool = std::make_shared<MemoryPool<FakeAllocator>>();
    auto a = pool->allocate(100);
    auto b = pool->allocate(3000);
    size_t both = PoolBins::alloc_size(PoolBins::bin_number(100)) +
                  PoolBins::alloc_size(PoolBins::bin_number(3000));
    EXPECT_EQ(pool->active_blocks(), 2u);
    EXPECT_EQ(pool->active_bytes(), both);
    EXPECT_EQ(pool->managed_bytes(), both);
    pool->free(a, 100);
    EXPECT_EQ(pool->active_blocks(), 1u);
    EXPECT_EQ(pool->held_blocks(), 1u);
    EXPECT_EQ(pool->managed_bytes(), both);
    pool->free_held();
    EXPECT_EQ(pool->held_blocks(), 0u);
    EXPECT_EQ(pool->managed_bytes(), PoolBins::alloc_size(PoolBins::bin_number(3000)));
    pool->stop_holding();
    pool->free(b, 3000);
    EXPECT_EQ(pool->held_blocks(), 0u);
    EXPECT_EQ(pool->managed_bytes(), 0u);
    EXPECT_EQ(pool->active_bytes(), 0u);
    EXPECT_TRUE(pool->allocator().state->live.empty());
}

TEST(MemoryPool, ZeroBytesIsNullAndCostsNothing) {
    MemoryPool<FakeAllocator> pool;
    EXPECT_EQ(pool.allocate(0), 0u);
    EXPECT_EQ(pool.active_blocks(), 0u);
    pool.free(0, 0);
    EXPECT_EQ(pool.allocator().state->allocations, 0u);
}

TEST(MemoryPool, OutOfMemoryFreesHeldBlocksAndRetries) {
    MemoryPool<FakeAllocator> pool;
    auto state = pool.allocator().state;
    state->budget = 4096;
    auto a = pool.allocate(2048);
    pool.free(a, 2048);                  // held: 2048 of 4096 in use
    auto b = pool.allocate(4096 - 1024); // needs the held block freed first
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(state->frees, 1u);
    EXPECT_THROW(pool.allocate(4096), CudaError); // nothing held left: the error surfaces
    EXPECT_EQ(pool.active_blocks(), 1u);
    pool.free(b, 4096 - 1024);
}

TEST(MemoryPool, OtherErrorsAreNotRetried) {
    struct Failing : FakeAllocator {
        pointer allocate(size_t) { throw CudaError(CUDA_ERROR_INVALID_CONTEXT, "fake"); }
    };
    MemoryPool<Failing> pool;
    EXPECT_THROW(pool.allocate(10), CudaError);
    EXPECT_EQ(pool.active_blocks(), 0u);
}

TEST(MemoryPool, DestructionFreesHeldBlocks) {
    std::shared_ptr<FakeAllocator::State> state;
    {
        MemoryPool<FakeAllocator> pool;
        state = pool.allocator().state;
        pool.free(pool.allocate(64), 64);
        pool.free(pool.allocate(6400), 6400);
    }
    EXPECT_TRUE(state->live.empty());
    EXPECT_EQ(state->frees, 2u);
}

TEST(PooledAllocation, ReturnsItselfAndRejectsDoubleFree) {
    auto pool = std::make_shared<MemoryPool<FakeAllocator>>();
    {
        PooledAllocation<FakeAllocator> a(pool, 500);
        EXPECT_EQ(a.size(), 500u);
        EXPECT_NE(a.ptr(), 0u);
        EXPECT_EQ(pool->active_blocks(), 1u);
    }
    EXPECT_EQ(pool->held_blocks(), 1u);
    PooledAllocation<FakeAllocator> b(pool, 500);
    b.free();
    EXPECT_THROW(b.free(), CudaError);
    EXPECT_THROW(b.ptr(), CudaError);
    EXPECT_EQ(pool->held_blocks(), 1u);
    EXPECT_EQ(pool->active_blocks(), 0u);
}

TEST(PooledAllocation, KeepsThePoolAlive) {
    auto pool = std::make_shared<MemoryPool<FakeAllocator>>();
    auto state = pool->allocator().state;
    auto a = std::make_unique<PooledAllocation<FakeAllocator>>(pool, 100);
    pool.reset();
    EXPECT_EQ(state->frees, 0u);
    a.reset(); // block goes back to the (still alive) pool, which then dies and frees it
    EXPECT_EQ(state->frees, 1u);
    EXPECT_TRUE(state->live.empty());
}

TEST(MemoryPool, FreeHeldReturnsTheBytesGivenBack) {
    MemoryPool<FakeAllocator> pool;
    pool.free(pool.allocate(100), 100);
    pool.free(pool.allocate(1000), 1000);
    EXPECT_EQ(pool.free_held(), PoolBins::alloc_size(PoolBins::bin_number(100)) +
                                    PoolBins::alloc_size(PoolBins::bin_number(1000)));
    EXPECT_EQ(pool.free_held(), 0u);
}

TEST(DevicePoolRegistry, ReachesLivePoolsAndForgetsDeadOnes) {
    // Empty pools: nothing to free, so no driver call is made (no GPU needed).
    auto a = make_device_pool();
    auto b = make_device_pool();
    EXPECT_EQ(free_held_device_pools(), 0u);
    a.reset();
    EXPECT_EQ(free_held_device_pools(), 0u);
    auto c = make_device_pool(); // prunes the dead entry
    EXPECT_EQ(free_held_device_pools(), 0u);
}

// Batches: what a CUDA graph captured from pool work writes to is not lent again while it lives.

TEST(MemoryPoolBatch, BlocksFreedInABatchAreParkedUntilItIsReleased) {
    MemoryPool<FakeAllocator> pool;
    auto id = pool.open_batch();
    auto p = pool.allocate(100);
    pool.free(p, 100);
    EXPECT_EQ(pool.held_blocks(), 0u);
    EXPECT_EQ(pool.parked_blocks(), 1u);
    auto q = pool.allocate(100);
    EXPECT_NE(q, p); // the parked block is not lent, even within the batch
    pool.close_batch();
    pool.free(q, 100); // lent during the batch: parked too, though freed after it closed
    EXPECT_EQ(pool.parked_blocks(), 2u);
    EXPECT_EQ(pool.active_blocks(), 0u);
    pool.release_batch(id);
    EXPECT_EQ(pool.parked_blocks(), 0u);
    EXPECT_EQ(pool.held_blocks(), 2u);
    auto again = pool.allocate(100);
    EXPECT_TRUE(again == p || again == q);
}

TEST(MemoryPoolBatch, MarksBlocksLentBeforeAndTakenFromTheHeldOnes) {
    MemoryPool<FakeAllocator> pool;
    auto before = pool.allocate(64);
    auto held = pool.allocate(64);
    pool.free(held, 64);
    auto id = pool.open_batch();
    EXPECT_EQ(pool.allocate(64), held); // reused, and marked
    pool.free(held, 64);
    pool.free(before, 64); // lent before the batch, freed during it: the graph may use it
    EXPECT_EQ(pool.parked_blocks(), 2u);
    EXPECT_EQ(pool.held_blocks(), 0u);
    pool.release_batch(id); // also closes it
    EXPECT_EQ(pool.held_blocks(), 2u);
    auto after = pool.allocate(64); // not marked: the batch is closed
    pool.free(after, 64);
    EXPECT_EQ(pool.parked_blocks(), 0u);
}

TEST(MemoryPoolBatch, ABlockOfTwoBatchesWaitsForBoth) {
    MemoryPool<FakeAllocator> pool;
    auto first = pool.open_batch();
    auto p = pool.allocate(10);
    pool.free(p, 10);
    pool.close_batch();
    auto second = pool.open_batch();
    EXPECT_THROW(pool.open_batch(), std::logic_error);
    pool.close_batch();
    pool.release_batch(first);
    EXPECT_EQ(pool.parked_blocks(), 0u); // the second batch never marked it
    EXPECT_EQ(pool.held_blocks(), 1u);
    auto third = pool.open_batch();
    EXPECT_EQ(pool.allocate(10), p);
    pool.free(p, 10);
    pool.close_batch();
    auto fourth = pool.open_batch();
    pool.free(pool.allocate(10), 10); // p again? no: parked. A fresh block, marked by fourth
    pool.close_batch();
    EXPECT_EQ(pool.parked_blocks(), 2u);
    pool.release_batch(third);
    EXPECT_EQ(pool.parked_blocks(), 1u);
    pool.release_batch(fourth);
    pool.release_batch(second);
    EXPECT_EQ(pool.parked_blocks(), 0u);
    EXPECT_EQ(pool.held_blocks(), 2u);
}

TEST(MemoryPoolBatch, NothingIsFreedWhileOpenAndParkedBlocksAreFreedWithThePool) {
    auto state = std::make_shared<FakeAllocator::State>();
    {
        MemoryPool<FakeAllocator> pool(FakeAllocator{state});
        pool.free(pool.allocate(100), 100);
        pool.open_batch();
        EXPECT_EQ(pool.free_held(), 0u); // a capture forbids cuMemFree
        EXPECT_EQ(state->frees, 0u);
        pool.free(pool.allocate(100), 100); // the held block, marked
        pool.free(pool.allocate(100), 100); // a fresh one, marked
        EXPECT_EQ(pool.parked_blocks(), 2u);
        pool.free(pool.allocate(1000), 1000);
        pool.close_batch();
        pool.free(pool.allocate(10), 10); // held, not parked
        EXPECT_EQ(pool.held_blocks(), 1u);
    } // destroyed with a batch live: parked and held blocks are freed alike
    EXPECT_EQ(state->allocations, 4u);
    EXPECT_EQ(state->frees, state->allocations);
    EXPECT_TRUE(state->live.empty());
}

TEST(DevicePoolBatch, CapturesShareOneBatchInEveryPoolAndTheLastToLeaveClosesIt) {
    auto before = make_device_pool();
    auto first = join_device_pool_batch();
    auto during = make_device_pool(); // made while captures run: it joins the batch
    auto second = join_device_pool_batch();
    EXPECT_EQ(first, second);
    EXPECT_EQ(first->members.size(), 2u);
    EXPECT_THROW(before->open_batch(), std::logic_error); // open in each pool
    EXPECT_THROW(during->open_batch(), std::logic_error);
    leave_device_pool_batch();
    EXPECT_THROW(before->open_batch(), std::logic_error); // one capture still runs
    leave_device_pool_batch();
    auto id = before->open_batch(); // closed by the last to leave
    before->release_batch(id);
    auto third = join_device_pool_batch();
    EXPECT_NE(third, first); // a new batch for the next captures
    leave_device_pool_batch();
}

} // namespace
} // namespace pycuda
