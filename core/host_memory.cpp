// core/host_memory.cpp: page-locked, registered and aligned host memory.
#include "core/host_memory.hpp"

#include "core/error.hpp"

#include <cstdlib>
#include <new>
#include <stdexcept>

namespace pycuda {

void HostPointer::throw_released(const char* what) {
    throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the host memory was already released");
}

CUdeviceptr HostPointer::device_pointer() const {
    CUdeviceptr ptr = 0;
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuMemHostGetDevicePointer, &ptr, data("HostPointer.get_device_pointer"), 0u);
    return ptr;
}

namespace {
void* host_alloc(size_t size, unsigned flags) {
    void* p = nullptr;
    // cuMemHostAlloc rejects 0 bytes; an empty array still gets a valid (1-byte) block.
    PYCUDA_CALL(cuMemHostAlloc, &p, size == 0 ? 1 : size, flags);
    return p;
}
} // namespace

PagelockedHostAllocation::PagelockedHostAllocation(size_t size, unsigned flags)
    : HostPointer(Context::require_current("pagelocked_empty"), host_alloc(size, flags), size) {}

PagelockedHostAllocation::~PagelockedHostAllocation() {
    if (data_)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuMemFreeHost, data_); });
}

void PagelockedHostAllocation::free() {
    void* p = data("PagelockedHostAllocation.free");
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuMemFreeHost, p);
    data_ = nullptr;
}

unsigned PagelockedHostAllocation::flags() const {
    unsigned flags = 0;
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuMemHostGetFlags, &flags, data("PagelockedHostAllocation.get_flags"));
    return flags;
}

RegisteredHostMemory::RegisteredHostMemory(void* data, size_t size, unsigned flags,
                                           std::shared_ptr<void> owner)
    : HostPointer(Context::require_current("register_host_memory"), data, size),
      owner_(std::move(owner)) {
    PYCUDA_CALL(cuMemHostRegister, data, size, flags);
}

RegisteredHostMemory::~RegisteredHostMemory() {
    if (data_)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuMemHostUnregister, data_); });
}

void RegisteredHostMemory::unregister() {
    void* p = data("RegisteredHostMemory.unregister");
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuMemHostUnregister, p);
    data_ = nullptr;
}

void AlignedHostAllocation::FreeDeleter::operator()(void* p) const noexcept {
    std::free(p);
}

AlignedHostAllocation::AlignedHostAllocation(size_t size, size_t alignment) : size_(size) {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
        throw std::invalid_argument("alignment must be a power of two");
    if (alignment < sizeof(void*))
        alignment = sizeof(void*);
    // aligned_alloc wants a multiple of the alignment, and at least one byte.
    size_t rounded = (size / alignment + 1) * alignment;
    memory_.reset(std::aligned_alloc(alignment, rounded));
    if (!memory_)
        throw std::bad_alloc();
}

void* AlignedHostAllocation::data(const char* what) const {
    if (!memory_) [[unlikely]]
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the host memory was already freed");
    return memory_.get();
}

CUdeviceptr AlignedHostAllocation::device_pointer() const {
    void* p = data("AlignedHostAllocation.get_device_pointer");
    Context::require_current("AlignedHostAllocation.get_device_pointer");
    CUdeviceptr ptr = 0;
    PYCUDA_CALL(cuMemHostGetDevicePointer, &ptr, p, 0u);
    return ptr;
}

void AlignedHostAllocation::free() {
    data("AlignedHostAllocation.free");
    memory_.reset();
}

} // namespace pycuda
