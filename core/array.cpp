// core/array.cpp: creation, description and destruction of CUDA arrays, and their 1D copies.
#include "core/array.hpp"

#include "core/error.hpp"

#include <stdexcept>
#include <string>

namespace pycuda {

unsigned format_channel_bytes(CUarray_format format) noexcept {
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

namespace {

// The driver answers a bad format or channel count with a bare CUDA_ERROR_INVALID_VALUE; say
// what is allowed instead.
void check_texel(CUarray_format format, unsigned channels) {
    if (format_channel_bytes(format) == 0)
        throw std::invalid_argument("Array: format " + std::to_string(static_cast<int>(format)) +
                                    " is not an array_format (UNSIGNED_INT8/16/32, "
                                    "SIGNED_INT8/16/32, HALF, FLOAT)");
    if (channels != 1 && channels != 2 && channels != 4)
        throw std::invalid_argument("Array: num_channels must be 1, 2 or 4, got " +
                                    std::to_string(channels));
}

} // namespace

Array::Array(const CUDA_ARRAY_DESCRIPTOR& d) : context_(Context::require_current("Array")) {
    check_texel(d.Format, d.NumChannels);
    if (d.Width == 0)
        throw std::invalid_argument("Array: width must be at least 1");
    PYCUDA_CALL(cuArrayCreate, &handle_, &d);
}

Array::Array(const CUDA_ARRAY3D_DESCRIPTOR& d) : context_(Context::require_current("Array")) {
    check_texel(d.Format, d.NumChannels);
    if (d.Width == 0)
        throw std::invalid_argument("Array: width must be at least 1");
    if ((d.Flags & CUDA_ARRAY3D_CUBEMAP) && (d.Width != d.Height))
        throw std::invalid_argument("Array: a cubemap array needs width == height");
    PYCUDA_CALL(cuArray3DCreate, &handle_, &d);
}

Array::~Array() {
    if (handle_ != nullptr)
        release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuArrayDestroy, handle_); });
}

CUarray Array::handle(const char* what) const {
    if (handle_ == nullptr)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, what, "the array was freed");
    return handle_;
}

void Array::free() {
    CUarray h = handle("Array.free");
    ScopedActivation active(*context_);
    PYCUDA_CALL(cuArrayDestroy, h);
    handle_ = nullptr;
}

CUDA_ARRAY_DESCRIPTOR Array::descriptor() const {
    CUDA_ARRAY_DESCRIPTOR d{};
    PYCUDA_CALL(cuArrayGetDescriptor, &d, handle("Array.get_descriptor"));
    return d;
}

CUDA_ARRAY3D_DESCRIPTOR Array::descriptor_3d() const {
    CUDA_ARRAY3D_DESCRIPTOR d{};
    PYCUDA_CALL(cuArray3DGetDescriptor, &d, handle("Array.get_descriptor_3d"));
    return d;
}

void memcpy_htoa(const Array& dest, std::size_t index, const void* src, std::size_t bytes) {
    PYCUDA_CALL(cuMemcpyHtoA, dest.handle("memcpy_htoa"), index, src, bytes);
}

void memcpy_atoh(void* dest, const Array& src, std::size_t index, std::size_t bytes) {
    PYCUDA_CALL(cuMemcpyAtoH, dest, src.handle("memcpy_atoh"), index, bytes);
}

void memcpy_dtoa(const Array& dest, std::size_t index, CUdeviceptr src, std::size_t bytes) {
    PYCUDA_CALL(cuMemcpyDtoA, dest.handle("memcpy_dtoa"), index, src, bytes);
}

void memcpy_atod(CUdeviceptr dest, const Array& src, std::size_t index, std::size_t bytes) {
    PYCUDA_CALL(cuMemcpyAtoD, dest, src.handle("memcpy_atod"), index, bytes);
}

void memcpy_atoa(const Array& dest, std::size_t dest_index, const Array& src, std::size_t src_index,
                 std::size_t bytes) {
    PYCUDA_CALL(cuMemcpyAtoA, dest.handle("memcpy_atoa"), dest_index, src.handle("memcpy_atoa"),
                src_index, bytes);
}

} // namespace pycuda
