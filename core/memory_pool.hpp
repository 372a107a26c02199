// core/memory_pool.hpp: a caching memory pool over any block allocator, and its allocations.
//
// Sizes are rounded up to bins with 4 mantissa bits per power of two (at most 1/16 waste), and
// freed blocks are held per bin for reuse, so a hit costs a lock and a vector pop: no driver
// call. The allocator is a type with `using pointer = ...;`, `pointer allocate(size_t)` (throws
// CudaError, CUDA_ERROR_OUT_OF_MEMORY when out of memory) and `void free(pointer) noexcept`;
// tests use one that needs no GPU.
//
// Batches (for CUDA graphs): while a batch is open, every block the pool lends or takes back is
// marked as used by it, and a marked block that is freed is parked, not reused, until every
// batch that marked it is released. A graph captured from work that used pool temporaries
// writes to those blocks at each launch, so they must not be lent again while it lives.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pycuda {

/// floor(log2(n)); 0 for n == 0.
unsigned bitlog2(uint64_t n) noexcept;

/// The bin arithmetic, independent of the allocator.
struct PoolBins {
    static constexpr unsigned mantissa_bits = 4;
    /// The bin for `size` bytes: sizes 2 to 31 are exact, 0 and 1 are bin 0 (one byte, as in the
    /// original, where alloc_size(bin_number(0)) is 1); above, (16 + m) << k bytes are bin
    /// 16 (k + 1) + m, m < 16.
    static unsigned bin_number(size_t size) noexcept;
    /// The bytes a block of `bin` holds (the inverse of bin_number on bin sizes); never 0. Bin 1,
    /// which bin_number never gives, holds one byte like bin 0.
    static size_t alloc_size(unsigned bin) noexcept;
};

template <typename Allocator>
class MemoryPool {
public:
    using pointer = typename Allocator::pointer;

    explicit MemoryPool(Allocator allocator = Allocator()) : allocator_(std::move(allocator)) {}
    ~MemoryPool() {
        open_batch_ = 0; // (free_held() frees nothing while a batch is open)
        free_held();
        for (auto& [p, claim] : claims_)
            if (claim.freed)
                allocator_.free(p);
    }
    MemoryPool(const MemoryPool&) = delete;
    MemoryPool& operator=(const MemoryPool&) = delete;

    /// A block of at least `size` bytes: a held one of the same bin, else a fresh one. When the
    /// allocator runs out of memory, all held blocks are freed and it is tried once more.
    /// Size 0 gives a null pointer and touches nothing.
    pointer allocate(size_t size) {
        if (size == 0)
            return pointer{};
        unsigned bin = PoolBins::bin_number(size);
        size_t bytes = PoolBins::alloc_size(bin);
        {
            std::lock_guard lock(mutex_);
            if (bin < bins_.size() && !bins_[bin].empty()) {
                pointer p = bins_[bin].back();
                bins_[bin].pop_back();
                --held_blocks_;
                if (open_batch_ && !mark_locked(p)) {
                    bins_[bin].push_back(p); // cannot throw: the slot was just vacated
                    ++held_blocks_;
                    throw std::bad_alloc();
                }
                ++active_blocks_;
                active_bytes_ += bytes;
                return p;
            }
        }
        pointer p = allocate_fresh(bytes);
        {
            std::lock_guard lock(mutex_);
            if (!open_batch_ || mark_locked(p)) {
                ++active_blocks_;
                active_bytes_ += bytes;
                managed_bytes_ += bytes;
                return p;
            }
        }
        allocator_.free(p);
        throw std::bad_alloc();
    }

    /// Returns a block obtained by allocate(size) (same size). Never throws.
    void free(pointer p, size_t size) noexcept {
        if (size == 0)
            return;
        unsigned bin = PoolBins::bin_number(size);
        size_t bytes = PoolBins::alloc_size(bin);
        {
            std::lock_guard lock(mutex_);
            --active_blocks_;
            active_bytes_ -= bytes;
            if (open_batch_)
                mark_locked(p); // best effort: unmarked, it is held as usual
            if (!claims_.empty()) {
                auto claim = claims_.find(p);
                if (claim != claims_.end()) {
                    claim->second.freed = true;
                    claim->second.bin = bin;
                    ++parked_blocks_;
                    return;
                }
            }
            if (hold_locked(p, bin))
                return;
        }
        allocator_.free(p);
    }

    /// Frees every held block; returns the bytes given back. While a batch is open nothing is
    /// freed (a stream capture forbids cuMemFree) and 0 is returned.
    size_t free_held() noexcept {
        std::vector<std::vector<pointer>> held;
        size_t bytes = 0;
        {
            std::lock_guard lock(mutex_);
            if (open_batch_)
                return 0;
            held.swap(bins_);
            for (unsigned bin = 0; bin < held.size(); ++bin)
                bytes += held[bin].size() * PoolBins::alloc_size(bin);
            managed_bytes_ -= bytes;
            held_blocks_ = 0;
        }
        for (auto& blocks : held)
            for (pointer p : blocks)
                allocator_.free(p);
        return bytes;
    }

    /// Frees the held blocks and from now on frees returned blocks at once.
    void stop_holding() noexcept {
        {
            std::lock_guard lock(mutex_);
            holding_ = false;
        }
        free_held();
    }

    /// Opens a batch (see the file comment) and returns its id; at most one is open at a time.
    std::uint64_t open_batch() {
        std::lock_guard lock(mutex_);
        if (open_batch_)
            throw std::logic_error("MemoryPool::open_batch: a batch is already open");
        batches_.emplace_back(++last_batch_, std::vector<pointer>{});
        open_batch_ = last_batch_;
        return open_batch_;
    }

    /// Closes the open batch: blocks lent or taken back from now on are not marked by it.
    void close_batch() noexcept {
        std::lock_guard lock(mutex_);
        open_batch_ = 0;
    }

    /// Releases batch `id` (closing it if open): its parked blocks that no other live batch
    /// marked are held for reuse again.
    void release_batch(std::uint64_t id) noexcept {
        std::vector<pointer> to_free;
        {
            std::lock_guard lock(mutex_);
            if (open_batch_ == id)
                open_batch_ = 0;
            auto batch = std::find_if(batches_.begin(), batches_.end(),
                                      [&](const auto& b) { return b.first == id; });
            if (batch == batches_.end())
                return;
            for (pointer p : batch->second) {
                auto claim = claims_.find(p);
                if (claim == claims_.end() || --claim->second.batches != 0)
                    continue;
                if (claim->second.freed) {
                    --parked_blocks_;
                    if (!hold_locked(p, claim->second.bin))
                        to_free.push_back(p);
                }
                claims_.erase(claim);
            }
            batches_.erase(batch);
        }
        for (pointer p : to_free)
            allocator_.free(p);
    }

    size_t held_blocks() const { return locked(held_blocks_); }
    /// Blocks freed while a live batch marks them: neither held nor lent.
    size_t parked_blocks() const { return locked(parked_blocks_); }
    size_t active_blocks() const { return locked(active_blocks_); }
    size_t managed_bytes() const { return locked(managed_bytes_); }
    size_t active_bytes() const { return locked(active_bytes_); }
    Allocator& allocator() noexcept { return allocator_; }

private:
    pointer allocate_fresh(size_t bytes) {
        try {
            return allocator_.allocate(bytes);
        } catch (const CudaError& e) {
            if (e.code() != CUDA_ERROR_OUT_OF_MEMORY || held_blocks() == 0)
                throw;
        }
        free_held();
        return allocator_.allocate(bytes);
    }
    size_t locked(const size_t& value) const {
        std::lock_guard lock(mutex_);
        return value;
    }

    /// Marks `p` as used by the open batch (once per batch); false when out of memory.
    bool mark_locked(pointer p) noexcept {
        try {
            auto [claim, fresh] = claims_.try_emplace(p);
            if (claim->second.last_batch == open_batch_)
                return true;
            batches_.back().second.push_back(p); // the open batch is the newest
            claim->second.last_batch = open_batch_;
            ++claim->second.batches;
            return true;
        } catch (...) {
            return false;
        }
    }

    /// Puts a freed block of `bin` among the held ones; false where it must be freed instead
    /// (not holding, or no memory to remember it), its bytes then taken off managed_bytes_.
    bool hold_locked(pointer p, unsigned bin) noexcept {
        if (holding_) {
            try {
                if (bins_.size() <= bin)
                    bins_.resize(bin + 1);
                bins_[bin].push_back(p);
                ++held_blocks_;
                return true;
            } catch (...) {
                // No memory to remember the block: give it back instead.
            }
        }
        managed_bytes_ -= PoolBins::alloc_size(bin);
        return false;
    }

    /// How many live batches marked a block, and whether it was freed (parked) meanwhile.
    struct Claim {
        unsigned batches = 0;
        std::uint64_t last_batch = 0;
        bool freed = false;
        unsigned bin = 0;
    };

    Allocator allocator_;
    mutable std::mutex mutex_;
    std::vector<std::vector<pointer>> bins_;
    size_t held_blocks_ = 0, active_blocks_ = 0, managed_bytes_ = 0, active_bytes_ = 0;
    bool holding_ = true;
    std::unordered_map<pointer, Claim> claims_;
    std::vector<std::pair<std::uint64_t, std::vector<pointer>>> batches_; // live, oldest first
    std::uint64_t open_batch_ = 0, last_batch_ = 0;
    size_t parked_blocks_ = 0;
};

/// One block lent by a pool; returns itself to the pool on free() or destruction. Holds the
/// pool (and so its context) alive.
template <typename Allocator>
class PooledAllocation {
public:
    using Pool = MemoryPool<Allocator>;
    using pointer = typename Pool::pointer;

    PooledAllocation(std::shared_ptr<Pool> pool, size_t size)
        : pool_(std::move(pool)), ptr_(pool_->allocate(size)), size_(size) {}
    ~PooledAllocation() {
        if (!freed_)
            pool_->free(ptr_, size_);
    }
    PooledAllocation(const PooledAllocation&) = delete;
    PooledAllocation& operator=(const PooledAllocation&) = delete;

    /// The block; after free() CudaError(INVALID_HANDLE) naming `what`.
    pointer ptr(const char* what = "pooled allocation") const {
        if (freed_) [[unlikely]]
            throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the block was already freed");
        return ptr_;
    }
    /// The size requested (the block may be larger).
    size_t size() const noexcept { return size_; }
    bool freed() const noexcept { return freed_; }
    /// Gives the block back to the pool now; a second free() is CudaError(INVALID_HANDLE).
    void free() {
        ptr("pooled allocation free");
        pool_->free(ptr_, size_);
        freed_ = true;
    }

private:
    std::shared_ptr<Pool> pool_;
    pointer ptr_;
    size_t size_;
    bool freed_ = false;
};

/// cuMemAlloc blocks in the context current at the first allocation; every block is allocated
/// and freed in that context, whichever is current later.
class DeviceBlockAllocator {
public:
    using pointer = CUdeviceptr;
    pointer allocate(size_t bytes);
    void free(pointer p) noexcept;

private:
    ContextPtr context_;
};

/// cuMemHostAlloc blocks (flags from host_alloc_flags), context as DeviceBlockAllocator.
class HostBlockAllocator {
public:
    using pointer = void*;
    explicit HostBlockAllocator(unsigned flags = 0) : flags_(flags) {}
    pointer allocate(size_t bytes);
    void free(pointer p) noexcept;
    unsigned flags() const noexcept { return flags_; }

private:
    unsigned flags_;
    ContextPtr context_;
};

using DeviceMemoryPool = MemoryPool<DeviceBlockAllocator>;
using HostMemoryPool = MemoryPool<HostBlockAllocator>;
using PooledDeviceAllocation = PooledAllocation<DeviceBlockAllocator>;
using PooledHostAllocation = PooledAllocation<HostBlockAllocator>;

/// A new DeviceMemoryPool, remembered (weakly) so that free_held_device_pools() reaches it.
std::shared_ptr<DeviceMemoryPool> make_device_pool();

/// Frees the held blocks of every live pool made by make_device_pool(); returns the bytes given
/// back. For running out of device memory: a pool's cache must never be why an allocation
/// elsewhere (mem_alloc, another pool, another library) fails.
size_t free_held_device_pools() noexcept;

/// One batch (see MemoryPool) in every live pool made by make_device_pool(), shared by the
/// stream captures that run at the same time; pools made while it is open join it. Destroying
/// the last reference releases it in each pool (and lets go of the pools).
struct DevicePoolBatch {
    DevicePoolBatch() = default;
    ~DevicePoolBatch();
    DevicePoolBatch(const DevicePoolBatch&) = delete;
    DevicePoolBatch& operator=(const DevicePoolBatch&) = delete;
    std::vector<std::pair<std::shared_ptr<DeviceMemoryPool>, std::uint64_t>> members;
};

/// Joins the open DevicePoolBatch, opening one if none is: when a stream capture begins.
std::shared_ptr<DevicePoolBatch> join_device_pool_batch();

/// Leaves the open batch: the last capture to leave (when it ends) closes it in every pool.
void leave_device_pool_batch() noexcept;

} // namespace pycuda
