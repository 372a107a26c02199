// core/device_memory.cpp: device allocations, freed in their own context.
#include "core/device_memory.hpp"

#include "core/error.hpp"

#include <memory>
#include <string>

namespace pycuda {

DeviceAllocation::DeviceAllocation(size_t size)
    : context_(Context::require_current("mem_alloc")), size_(size) {
    PYCUDA_CALL(cuMemAlloc, &ptr_, size);
}

DeviceAllocation::~DeviceAllocation() {
    if (!freed_)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuMemFree, ptr_); });
}

void DeviceAllocation::throw_freed(const char* what) {
    throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the device memory was already freed");
}

void DeviceAllocation::free() {
    if (freed_)
        throw_freed("DeviceAllocation.free");
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuMemFree, ptr_);
    freed_ = true;
}

namespace {
CUdeviceptr alloc_managed(size_t size, unsigned flags) {
    CUdeviceptr ptr = 0;
    PYCUDA_CALL(cuMemAllocManaged, &ptr, size, flags == 0 ? unsigned{CU_MEM_ATTACH_GLOBAL} : flags);
    return ptr;
}
} // namespace

ManagedAllocation::ManagedAllocation(size_t size, unsigned flags)
    : DeviceAllocation(Adopt{}, Context::require_current("managed_empty"),
                       alloc_managed(size, flags), size) {}

void ManagedAllocation::attach(unsigned flags, CUstream stream) const {
    // Length 0 means the whole allocation, the only length managed memory accepts.
    PYCUDA_CALL(cuStreamAttachMemAsync, stream, ptr("ManagedAllocation.attach"), size_t{0}, flags);
}

std::pair<size_t, size_t> mem_get_info() {
    size_t free = 0, total = 0;
    PYCUDA_CALL(cuMemGetInfo, &free, &total);
    return {free, total};
}

std::pair<std::unique_ptr<DeviceAllocation>, size_t> mem_alloc_pitch(size_t width, size_t height,
                                                                     unsigned access_size) {
    ContextPtr ctx = Context::require_current("mem_alloc_pitch");
    CUdeviceptr ptr = 0;
    size_t pitch = 0;
    PYCUDA_CALL(cuMemAllocPitch, &ptr, &pitch, width, height, access_size);
    return {std::make_unique<DeviceAllocation>(DeviceAllocation::Adopt{}, std::move(ctx), ptr,
                                               pitch * height),
            pitch};
}

std::pair<CUdeviceptr, size_t> mem_get_address_range(CUdeviceptr ptr) {
    CUdeviceptr base = 0;
    size_t size = 0;
    PYCUDA_CALL(cuMemGetAddressRange, &base, &size, ptr);
    return {base, size};
}

CUcontext pointer_context(CUdeviceptr ptr) noexcept {
    CUcontext ctx = nullptr;
    if (driver().cuPointerGetAttribute(&ctx, CU_POINTER_ATTRIBUTE_CONTEXT, ptr) != CUDA_SUCCESS)
        return nullptr;
    return ctx;
}

} // namespace pycuda
