// core/async_memory.hpp: stream-ordered device memory (CUDA 11.2+): driver memory pools
// (CUmemoryPool), the allocator that takes blocks from one on a stream, and its allocations.
//
// cuMemAllocAsync/cuMemFreeAsync queue an allocation and a free on a stream, like a kernel: the
// memory may be used by work queued after the allocation on that stream (or on work ordered
// after it, such as the legacy default stream's and that of blocking streams), and is given back
// to its pool when the stream reaches the free. The pool keeps freed memory for reuse; at each
// synchronization it returns what exceeds its release threshold to the device.
#pragma once

#include "core/context.hpp"
#include "core/device.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace pycuda {

/// Throws CudaError(CUDA_ERROR_NOT_SUPPORTED) saying that stream-ordered allocation needs CUDA
/// 11.2+ and which entry points the loaded driver lacks, unless it has all of them.
void require_stream_ordered_allocation();

/// As require_stream_ordered_allocation(), then throws CudaError(CUDA_ERROR_NOT_SUPPORTED) where
/// `device` has no memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0: some older or
/// virtualized GPUs, and Windows in WDDM mode before CUDA 11.5's driver).
void require_memory_pools(const Device& device);

/// A memory pool of the driver on one device: one created here (destroyed with its last owner,
/// which includes every allocation taken from it) or the device's default or current pool
/// (borrowed: the driver owns it). The pool belongs to the device, not to a context.
class MemPool {
public:
    /// cuMemPoolCreate: a new pool of pinned memory on `device`.
    static std::shared_ptr<MemPool> create(const Device& device);
    /// cuDeviceGetDefaultMemPool: the pool cuMemAllocAsync uses unless another is set.
    static std::shared_ptr<MemPool> device_default(const Device& device);
    /// cuDeviceGetMemPool: the pool cuMemAllocAsync takes from on `device` now.
    static std::shared_ptr<MemPool> device_current(const Device& device);
    ~MemPool();
    MemPool(const MemPool&) = delete;
    MemPool& operator=(const MemPool&) = delete;

    CUmemoryPool handle() const noexcept { return handle_; }
    Device device() const noexcept { return device_; }
    /// True for a pool created here (and destroyed here), false for a device's own.
    bool owned() const noexcept { return owned_; }

    /// Bytes the pool keeps reserved at a synchronization instead of returning them to the
    /// device (CU_MEMPOOL_ATTR_RELEASE_THRESHOLD; 0 by default: all unused memory goes back).
    uint64_t release_threshold() const;
    void set_release_threshold(uint64_t bytes);
    /// cuMemPoolTrimTo: returns unused memory to the device until at most `min_bytes_to_keep`
    /// stay reserved (memory whose free has not been reached by its stream is still in use).
    void trim(size_t min_bytes_to_keep);
    /// Device memory the pool holds now / at most since the last reset.
    uint64_t reserved_current() const;
    uint64_t reserved_high() const;
    /// Of that, the bytes lent out now / at most since the last reset.
    uint64_t used_current() const;
    uint64_t used_high() const;
    /// Resets both high-water marks to the current values.
    void reset_high_water_marks();

private:
    MemPool(CUmemoryPool handle, Device device, bool owned)
        : handle_(handle), device_(device), owned_(owned) {}
    uint64_t attribute(CUmemPool_attribute attr, const char* what) const;

    CUmemoryPool handle_;
    Device device_;
    bool owned_;
};

/// Takes blocks on one stream, from one pool (or from the device's current pool, as
/// cuMemAllocAsync does), in the context current at its construction; counts what it lent.
/// Allocations hold it (and so its context, stream and pool) alive.
class StreamOrderedAllocator {
public:
    /// `stream` (null: the legacy default stream) must stay valid while the allocator lives:
    /// `stream_owner` is held for that (it may be null). `pool` may be null.
    static std::shared_ptr<StreamOrderedAllocator> create(CUstream stream,
                                                          std::shared_ptr<const void> stream_owner,
                                                          std::shared_ptr<MemPool> pool);
    StreamOrderedAllocator(const StreamOrderedAllocator&) = delete;
    StreamOrderedAllocator& operator=(const StreamOrderedAllocator&) = delete;

    CUstream stream() const noexcept { return stream_; }
    const std::shared_ptr<const void>& stream_owner() const noexcept { return stream_owner_; }
    /// The pool given at construction, or null (the device's current pool at each allocation).
    const std::shared_ptr<MemPool>& pool() const noexcept { return pool_; }
    const ContextPtr& context() const noexcept { return context_; }

    /// The given pool, else the device's current one (cuDeviceGetMemPool), which blocks come
    /// from.
    std::shared_ptr<MemPool> source_pool() const;
    /// Waits for the stream (so that the frees queued on it are done), then gives the pool's
    /// unused memory back to the device (cuMemPoolTrimTo 0).
    void free_held();

    /// The blocks lent and not yet freed, and their bytes (as requested).
    size_t active_blocks() const noexcept { return active_blocks_.load(); }
    size_t active_bytes() const noexcept { return active_bytes_.load(); }

private:
    friend class StreamOrderedAllocation;
    StreamOrderedAllocator(ContextPtr context, CUstream stream,
                           std::shared_ptr<const void> stream_owner, std::shared_ptr<MemPool> pool)
        : context_(std::move(context)), stream_(stream), stream_owner_(std::move(stream_owner)),
          pool_(std::move(pool)) {}
    /// cuMemAllocAsync or cuMemAllocFromPoolAsync of `bytes` (> 0) on the stream.
    CUdeviceptr allocate_block(size_t bytes);
    void note_freed(size_t bytes) noexcept;

    ContextPtr context_;
    CUstream stream_;
    std::shared_ptr<const void> stream_owner_;
    std::shared_ptr<MemPool> pool_;
    std::atomic<size_t> active_blocks_{0}, active_bytes_{0};
};

/// One block of an allocator: freed with cuMemFreeAsync on the allocator's stream (or the one
/// given to free()), in the allocator's context, when freed or destroyed. Size 0 is a null
/// pointer that touches no driver.
class StreamOrderedAllocation {
public:
    StreamOrderedAllocation(std::shared_ptr<StreamOrderedAllocator> allocator, size_t size);
    ~StreamOrderedAllocation();
    StreamOrderedAllocation(const StreamOrderedAllocation&) = delete;
    StreamOrderedAllocation& operator=(const StreamOrderedAllocation&) = delete;

    /// The device address; after free() CudaError(INVALID_HANDLE) naming `what`.
    CUdeviceptr ptr(const char* what = "StreamOrderedAllocation") const {
        if (freed_) [[unlikely]]
            throw_freed(what);
        return ptr_;
    }
    size_t size() const noexcept { return size_; }
    bool freed() const noexcept { return freed_; }
    const std::shared_ptr<StreamOrderedAllocator>& allocator() const noexcept { return allocator_; }
    /// Queues the free on the allocator's stream now; a second free() is CudaError(INVALID_HANDLE).
    void free() { free_on(allocator_->stream()); }
    /// Queues the free on `stream` (which must be ordered after every use of the block).
    void free_on(CUstream stream);

private:
    [[noreturn]] static void throw_freed(const char* what);

    std::shared_ptr<StreamOrderedAllocator> allocator_;
    CUdeviceptr ptr_ = 0;
    size_t size_;
    bool freed_ = false;
};

} // namespace pycuda
