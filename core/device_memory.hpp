// core/device_memory.hpp: device memory: RAII allocations (plain and managed) and queries.
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <memory>
#include <utility>

namespace pycuda {

/// cuMemAlloc'd (or cuMemAllocManaged'd) device memory in the context current at construction;
/// freed in that context by free() or the destructor, from any thread.
class DeviceAllocation {
public:
    /// cuMemAlloc of `size` bytes in the current context (CUDA_ERROR_INVALID_CONTEXT if none).
    explicit DeviceAllocation(size_t size);
    ~DeviceAllocation();
    DeviceAllocation(const DeviceAllocation&) = delete;
    DeviceAllocation& operator=(const DeviceAllocation&) = delete;

    /// The device address; after free() it is CudaError(INVALID_HANDLE) naming `what`.
    CUdeviceptr ptr(const char* what = "DeviceAllocation") const {
        if (freed_) [[unlikely]]
            throw_freed(what);
        return ptr_;
    }
    /// Bytes requested at allocation.
    size_t size() const noexcept { return size_; }
    bool freed() const noexcept { return freed_; }
    const ContextPtr& context() const noexcept { return context_; }
    /// Frees now, in the owning context; a second free() is CudaError(INVALID_HANDLE).
    void free();

    struct Adopt {};
    /// Takes ownership of memory already allocated in `context` (pitched and managed memory).
    DeviceAllocation(Adopt, ContextPtr context, CUdeviceptr ptr, size_t size)
        : context_(std::move(context)), ptr_(ptr), size_(size) {}

protected:
    [[noreturn]] static void throw_freed(const char* what);

private:
    ContextPtr context_;
    CUdeviceptr ptr_ = 0;
    size_t size_ = 0;
    bool freed_ = false;
};

/// Unified memory from cuMemAllocManaged: reachable from host and device at the same address.
class ManagedAllocation : public DeviceAllocation {
public:
    /// `flags` is mem_attach_flags (GLOBAL or HOST); 0 means GLOBAL, CUDA's documented default.
    ManagedAllocation(size_t size, unsigned flags);
    /// The same address as ptr(): managed memory has one address everywhere.
    CUdeviceptr device_pointer() const { return ptr("ManagedAllocation.get_device_pointer"); }
    /// cuStreamAttachMemAsync over the whole allocation.
    void attach(unsigned flags, CUstream stream) const;
};

/// (free, total) bytes of the current context's device (cuMemGetInfo).
std::pair<size_t, size_t> mem_get_info();

/// cuMemAllocPitch; returns the allocation and the pitch in bytes. `access_size` is 4, 8 or 16.
std::pair<std::unique_ptr<DeviceAllocation>, size_t> mem_alloc_pitch(size_t width, size_t height,
                                                                     unsigned access_size);

/// (base, size) of the allocation that contains `ptr` (cuMemGetAddressRange).
std::pair<CUdeviceptr, size_t> mem_get_address_range(CUdeviceptr ptr);

/// The context that `ptr` was allocated in, or null when the driver cannot tell
/// (cuPointerGetAttribute CU_POINTER_ATTRIBUTE_CONTEXT).
CUcontext pointer_context(CUdeviceptr ptr) noexcept;

} // namespace pycuda
