// core/host_memory.hpp: host memory the GPU can reach: page-locked, registered, and aligned.
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <memory>

namespace pycuda {

/// Host memory known to CUDA (page-locked or registered), in the context current at
/// construction. data() after release is CudaError(INVALID_HANDLE) naming `what`.
class HostPointer {
public:
    void* data(const char* what = "HostPointer") const {
        if (data_ == nullptr) [[unlikely]]
            throw_released(what);
        return data_;
    }
    size_t size() const noexcept { return size_; }
    bool released() const noexcept { return data_ == nullptr; }
    const ContextPtr& context() const noexcept { return context_; }
    /// The device address of this memory (cuMemHostGetDevicePointer); needs DEVICEMAP/mapping.
    CUdeviceptr device_pointer() const;

protected:
    HostPointer(ContextPtr context, void* data, size_t size)
        : context_(std::move(context)), data_(data), size_(size) {}
    [[noreturn]] static void throw_released(const char* what);

    ContextPtr context_;
    void* data_;
    size_t size_;
};

/// cuMemHostAlloc'd memory; `flags` from host_alloc_flags. Freed in its context.
class PagelockedHostAllocation : public HostPointer {
public:
    PagelockedHostAllocation(size_t size, unsigned flags);
    ~PagelockedHostAllocation();
    PagelockedHostAllocation(const PagelockedHostAllocation&) = delete;
    PagelockedHostAllocation& operator=(const PagelockedHostAllocation&) = delete;
    /// cuMemFreeHost now; a second free() is CudaError(INVALID_HANDLE).
    void free();
    /// cuMemHostGetFlags.
    unsigned flags() const;
};

/// Existing host memory page-locked with cuMemHostRegister until unregister() or destruction.
/// `owner` (type-erased: the bindings pass the exported Python buffer) keeps the memory alive
/// until after it is unregistered.
class RegisteredHostMemory : public HostPointer {
public:
    RegisteredHostMemory(void* data, size_t size, unsigned flags, std::shared_ptr<void> owner);
    ~RegisteredHostMemory();
    RegisteredHostMemory(const RegisteredHostMemory&) = delete;
    RegisteredHostMemory& operator=(const RegisteredHostMemory&) = delete;
    /// cuMemHostUnregister now; a second call is CudaError(INVALID_HANDLE).
    void unregister();
    const std::shared_ptr<void>& owner() const noexcept { return owner_; }

private:
    std::shared_ptr<void> owner_; // a member: destroyed after the destructor unregisters
};

/// Plain (pageable) host memory aligned to `alignment` (a power of two); no CUDA involved.
class AlignedHostAllocation {
public:
    AlignedHostAllocation(size_t size, size_t alignment);
    void* data(const char* what = "AlignedHostAllocation") const;
    size_t size() const noexcept { return size_; }
    bool released() const noexcept { return !memory_; }
    /// Frees now; a second free() is CudaError(INVALID_HANDLE).
    void free();
    /// The device address of this memory in the current context (cuMemHostGetDevicePointer), as
    /// the original's HostPointer base gave it: valid once the memory is page-locked with
    /// cuMemHostRegister (register_host_memory, DEVICEMAP where mapping is not implied), else
    /// the driver's CudaError.
    CUdeviceptr device_pointer() const;

private:
    struct FreeDeleter {
        void operator()(void* p) const noexcept;
    };
    std::unique_ptr<void, FreeDeleter> memory_;
    size_t size_;
};

} // namespace pycuda
