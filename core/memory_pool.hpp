// core/memory_pool.hpp: a caching memory pool over any block allocator, and its allocations.
//
// Sizes are rounded up to bins with 4 mantissa bits per power of two (at most 1/16 waste), and
// freed blocks are held per bin for reuse, so a hit costs a lock and a vector pop: no driver
// call. The allocator is a type with `using pointer = ...;`, `pointer allocate(size_t)` (throws
// CudaError, CUDA_ERROR_OUT_OF_MEMORY when out of memory) and `void free(pointer) noexcept`;
// tests use one that needs no GPU.
#pragma once

#include "core/context.hpp"
#include "core/error.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
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
    ~MemoryPool() { free_held(); }
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
                ++active_blocks_;
                active_bytes_ += bytes;
                return p;
            }
        }
        pointer p = allocate_fresh(bytes);
        std::lock_guard lock(mutex_);
        ++active_blocks_;
        active_bytes_ += bytes;
        managed_bytes_ += bytes;
        return p;
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
            if (holding_) {
                try {
                    if (bins_.size() <= bin)
                        bins_.resize(bin + 1);
                    bins_[bin].push_back(p);
                    ++held_blocks_;
                    return;
                } catch (...) {
                    // No memory to remember the block: give it back instead.
                }
            }
            managed_bytes_ -= bytes;
        }
        allocator_.free(p);
    }

    /// Frees every held block; returns the bytes given back.
    size_t free_held() noexcept {
        std::vector<std::vector<pointer>> held;
        size_t bytes = 0;
        {
            std::lock_guard lock(mutex_);
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

    size_t held_blocks() const { return locked(held_blocks_); }
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

    Allocator allocator_;
    mutable std::mutex mutex_;
    std::vector<std::vector<pointer>> bins_;
    size_t held_blocks_ = 0, active_blocks_ = 0, managed_bytes_ = 0, active_bytes_ = 0;
    bool holding_ = true;
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

} // namespace pycuda
