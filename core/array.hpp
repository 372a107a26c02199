// core/array.hpp: CUDA arrays (1D, 2D, 3D, layered, surface-load/store, cubemap), RAII owner of
// CUarray, and the linear copies between arrays, host and device memory.
#pragma once

#include "core/context.hpp"

#include <cstddef>
#include <memory>

namespace pycuda {

/// Bytes of one channel of `format`; 0 for a value that is no CUarray_format.
unsigned format_channel_bytes(CUarray_format format) noexcept;

/// A CUDA array in the context current at construction; destroyed in that context by free()
/// or the destructor, from any thread.
class Array {
public:
    /// cuArrayCreate (1D when height is 0, else 2D). Bad formats or channel counts are
    /// std::invalid_argument saying what is allowed.
    explicit Array(const CUDA_ARRAY_DESCRIPTOR& descriptor);
    /// cuArray3DCreate (flags: LAYERED, SURFACE_LDST, CUBEMAP, TEXTURE_GATHER).
    explicit Array(const CUDA_ARRAY3D_DESCRIPTOR& descriptor);
    ~Array();
    Array(const Array&) = delete;
    Array& operator=(const Array&) = delete;

    /// The handle; after free() it is CudaError(INVALID_HANDLE) naming `what`.
    CUarray handle(const char* what = "Array") const;
    bool freed() const noexcept { return handle_ == nullptr; }
    const ContextPtr& context() const noexcept { return context_; }
    /// Frees now, in the owning context; a second free() is CudaError(INVALID_HANDLE).
    void free();
    /// cuArrayGetDescriptor / cuArray3DGetDescriptor.
    CUDA_ARRAY_DESCRIPTOR descriptor() const;
    CUDA_ARRAY3D_DESCRIPTOR descriptor_3d() const;

private:
    ContextPtr context_;
    CUarray handle_ = nullptr;
};

using ArrayPtr = std::shared_ptr<Array>;

/// Linear copies to, from and between arrays; `index` is the byte offset in the array.
/// Synchronous: callers release the GIL around them.
void memcpy_htoa(const Array& dest, std::size_t index, const void* src, std::size_t bytes);
void memcpy_atoh(void* dest, const Array& src, std::size_t index, std::size_t bytes);
void memcpy_dtoa(const Array& dest, std::size_t index, CUdeviceptr src, std::size_t bytes);
void memcpy_atod(CUdeviceptr dest, const Array& src, std::size_t index, std::size_t bytes);
void memcpy_atoa(const Array& dest, std::size_t dest_index, const Array& src, std::size_t src_index,
                 std::size_t bytes);

} // namespace pycuda
