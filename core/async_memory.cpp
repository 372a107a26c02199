// core/async_memory.cpp: driver memory pools and stream-ordered allocations.
#include "core/async_memory.hpp"

#include "core/error.hpp"

#include <string>
#include <vector>

namespace pycuda {

void require_stream_ordered_allocation() {
    const DriverApi& api = driver();
    std::vector<const char*> missing;
    auto need = [&](const void* fn, const char* name) {
        if (!fn)
            missing.push_back(name);
    };
    need(reinterpret_cast<const void*>(api.cuMemAllocAsync), "cuMemAllocAsync");
    need(reinterpret_cast<const void*>(api.cuMemFreeAsync), "cuMemFreeAsync");
    need(reinterpret_cast<const void*>(api.cuMemAllocFromPoolAsync), "cuMemAllocFromPoolAsync");
    need(reinterpret_cast<const void*>(api.cuMemPoolCreate), "cuMemPoolCreate");
    need(reinterpret_cast<const void*>(api.cuMemPoolDestroy), "cuMemPoolDestroy");
    need(reinterpret_cast<const void*>(api.cuMemPoolSetAttribute), "cuMemPoolSetAttribute");
    need(reinterpret_cast<const void*>(api.cuMemPoolGetAttribute), "cuMemPoolGetAttribute");
    need(reinterpret_cast<const void*>(api.cuMemPoolTrimTo), "cuMemPoolTrimTo");
    need(reinterpret_cast<const void*>(api.cuDeviceGetDefaultMemPool), "cuDeviceGetDefaultMemPool");
    need(reinterpret_cast<const void*>(api.cuDeviceGetMemPool), "cuDeviceGetMemPool");
    if (missing.empty())
        return;
    std::string names;
    for (const char* name : missing)
        names += names.empty() ? name : std::string(", ") + name;
    throw CudaError::with_message(
        CUDA_ERROR_NOT_SUPPORTED, missing.front(),
        "stream-ordered allocation (mem_alloc_async, MemPool, StreamOrderedAllocator) needs "
        "CUDA 11.2+: the driver at " +
            api.library_path + " lacks " + names +
            "; update the NVIDIA driver, or allocate with mem_alloc or DeviceMemoryPool");
}

void require_memory_pools(const Device& device) {
    require_stream_ordered_allocation();
    int supported = 0;
    PYCUDA_CALL(cuDeviceGetAttribute, &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                device.handle());
    if (!supported)
        throw CudaError::with_message(
            CUDA_ERROR_NOT_SUPPORTED, "cuDeviceGetAttribute",
            "stream-ordered allocation (mem_alloc_async, MemPool, StreamOrderedAllocator): "
            "device " +
                std::to_string(static_cast<int>(device.handle())) +
                " does not support memory pools (CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is "
                "0); allocate with mem_alloc or DeviceMemoryPool");
}

// {{{ MemPool

std::shared_ptr<MemPool> MemPool::create(const Device& device) {
    require_memory_pools(device);
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = static_cast<int>(device.handle());
    CUmemoryPool handle = nullptr;
    PYCUDA_CALL(cuMemPoolCreate, &handle, &props);
    return std::shared_ptr<MemPool>(new MemPool(handle, device, true));
}

std::shared_ptr<MemPool> MemPool::device_default(const Device& device) {
    require_memory_pools(device);
    CUmemoryPool handle = nullptr;
    PYCUDA_CALL(cuDeviceGetDefaultMemPool, &handle, device.handle());
    return std::shared_ptr<MemPool>(new MemPool(handle, device, false));
}

std::shared_ptr<MemPool> MemPool::device_current(const Device& device) {
    require_memory_pools(device);
    CUmemoryPool handle = nullptr;
    PYCUDA_CALL(cuDeviceGetMemPool, &handle, device.handle());
    return std::shared_ptr<MemPool>(new MemPool(handle, device, false));
}

MemPool::~MemPool() {
    // No context is needed: a pool belongs to its device. Frees still queued on streams are
    // no obstacle, the driver releases the pool once they are done (cuMemPoolDestroy).
    if (owned_)
        PYCUDA_CALL_CLEANUP(cuMemPoolDestroy, handle_);
}

uint64_t MemPool::attribute(CUmemPool_attribute attr, const char* what) const {
    cuuint64_t value = 0;
    checked_call(driver().cuMemPoolGetAttribute, what, handle_, attr, static_cast<void*>(&value));
    return value;
}

uint64_t MemPool::release_threshold() const {
    return attribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, "cuMemPoolGetAttribute(RELEASE_THRESHOLD)");
}

void MemPool::set_release_threshold(uint64_t bytes) {
    cuuint64_t value = bytes;
    PYCUDA_CALL(cuMemPoolSetAttribute, handle_, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                static_cast<void*>(&value));
}

void MemPool::trim(size_t min_bytes_to_keep) {
    PYCUDA_CALL(cuMemPoolTrimTo, handle_, min_bytes_to_keep);
}

uint64_t MemPool::reserved_current() const {
    return attribute(CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                     "cuMemPoolGetAttribute(RESERVED_MEM_CURRENT)");
}

uint64_t MemPool::reserved_high() const {
    return attribute(CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, "cuMemPoolGetAttribute(RESERVED_MEM_HIGH)");
}

uint64_t MemPool::used_current() const {
    return attribute(CU_MEMPOOL_ATTR_USED_MEM_CURRENT, "cuMemPoolGetAttribute(USED_MEM_CURRENT)");
}

uint64_t MemPool::used_high() const {
    return attribute(CU_MEMPOOL_ATTR_USED_MEM_HIGH, "cuMemPoolGetAttribute(USED_MEM_HIGH)");
}

void MemPool::reset_high_water_marks() {
    // The driver accepts only 0 for these two, meaning "the current value".
    for (CUmemPool_attribute attr :
         {CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, CU_MEMPOOL_ATTR_USED_MEM_HIGH}) {
        cuuint64_t zero = 0;
        PYCUDA_CALL(cuMemPoolSetAttribute, handle_, attr, static_cast<void*>(&zero));
    }
}

// }}}

// {{{ StreamOrderedAllocator

std::shared_ptr<StreamOrderedAllocator>
StreamOrderedAllocator::create(CUstream stream, std::shared_ptr<const void> stream_owner,
                               std::shared_ptr<MemPool> pool) {
    require_stream_ordered_allocation();
    ContextPtr context = Context::require_current("StreamOrderedAllocator");
    require_memory_pools(pool ? pool->device() : context->device());
    return std::shared_ptr<StreamOrderedAllocator>(new StreamOrderedAllocator(
        std::move(context), stream, std::move(stream_owner), std::move(pool)));
}

CUdeviceptr StreamOrderedAllocator::allocate_block(size_t bytes) {
    // The legacy default stream (null) is the current context's: allocate in ours.
    ScopedActivation active(*context_);
    CUdeviceptr ptr = 0;
    CUresult rc = pool_ ? driver().cuMemAllocFromPoolAsync(&ptr, bytes, pool_->handle(), stream_)
                        : driver().cuMemAllocAsync(&ptr, bytes, stream_);
    if (rc == CUDA_SUCCESS) [[likely]]
        return ptr;
    const char* routine = pool_ ? "cuMemAllocFromPoolAsync" : "cuMemAllocAsync";
    if (rc == CUDA_ERROR_NOT_SUPPORTED) {
        int supported = 1;
        Device device = pool_ ? pool_->device() : context_->device();
        if (driver().cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
                                          device.handle()) == CUDA_SUCCESS &&
            !supported)
            throw CudaError(rc, routine,
                            "this device does not support stream-ordered allocation "
                            "(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED is 0); use mem_alloc "
                            "or DeviceMemoryPool");
    }
    throw CudaError(rc, routine);
}

std::shared_ptr<MemPool> StreamOrderedAllocator::source_pool() const {
    return pool_ ? pool_ : MemPool::device_current(context_->device());
}

void StreamOrderedAllocator::free_held() {
    std::shared_ptr<MemPool> pool = source_pool();
    {
        ScopedActivation active(*context_);
        PYCUDA_CALL(cuStreamSynchronize, stream_);
    }
    pool->trim(0);
}

void StreamOrderedAllocator::note_freed(size_t bytes) noexcept {
    active_blocks_.fetch_sub(1);
    active_bytes_.fetch_sub(bytes);
}

// }}}

// {{{ StreamOrderedAllocation

StreamOrderedAllocation::StreamOrderedAllocation(std::shared_ptr<StreamOrderedAllocator> allocator,
                                                 size_t size)
    : allocator_(std::move(allocator)), size_(size) {
    if (size == 0)
        return; // as DeviceMemoryPool: a null block, counted nowhere
    ptr_ = allocator_->allocate_block(size);
    allocator_->active_blocks_.fetch_add(1);
    allocator_->active_bytes_.fetch_add(size);
}

StreamOrderedAllocation::~StreamOrderedAllocation() {
    if (freed_ || size_ == 0)
        return;
    StreamOrderedAllocator& a = *allocator_;
    release_in(*a.context_, [&] { PYCUDA_CALL_CLEANUP(cuMemFreeAsync, ptr_, a.stream_); });
    a.note_freed(size_);
}

void StreamOrderedAllocation::throw_freed(const char* what) {
    throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the device memory was already freed");
}

void StreamOrderedAllocation::free_on(CUstream stream) {
    if (freed_)
        throw_freed("StreamOrderedAllocation.free");
    if (size_ != 0) {
        ScopedActivation active(*allocator_->context_);
        PYCUDA_CALL(cuMemFreeAsync, ptr_, stream);
        allocator_->note_freed(size_);
    }
    freed_ = true;
}

// }}}

} // namespace pycuda
