// core/memcpy.cpp: the memset and memcpy family on the driver's linear-memory entry points.
#include "core/memcpy.hpp"

#include "core/device_memory.hpp"
#include "core/error.hpp"
#include "core/stream.hpp"

#include <stdexcept>

namespace pycuda {

namespace {
[[noreturn]] void bad_element_size() {
    throw std::invalid_argument("memset element size must be 1, 2 or 4 bytes");
}
} // namespace

void memset_1d(CUdeviceptr dest, unsigned value, size_t count, unsigned element_size) {
    // Inside a capture scope the synchronous form would go to the legacy stream, which cannot
    // be captured: it is queued on the capturing stream instead (a device-side memset has no
    // result the host waits for).
    if (CUstream current = current_stream())
        return memset_1d_async(dest, value, count, element_size, current);
    switch (element_size) {
    case 1:
        return PYCUDA_CALL(cuMemsetD8, dest, static_cast<unsigned char>(value), count);
    case 2:
        return PYCUDA_CALL(cuMemsetD16, dest, static_cast<unsigned short>(value), count);
    case 4:
        return PYCUDA_CALL(cuMemsetD32, dest, value, count);
    default:
        bad_element_size();
    }
}

void memset_1d_async(CUdeviceptr dest, unsigned value, size_t count, unsigned element_size,
                     CUstream stream) {
    stream = stream_or_current(stream);
    switch (element_size) {
    case 1:
        return PYCUDA_CALL(cuMemsetD8Async, dest, static_cast<unsigned char>(value), count, stream);
    case 2:
        return PYCUDA_CALL(cuMemsetD16Async, dest, static_cast<unsigned short>(value), count,
                           stream);
    case 4:
        return PYCUDA_CALL(cuMemsetD32Async, dest, value, count, stream);
    default:
        bad_element_size();
    }
}

void memset_2d(CUdeviceptr dest, size_t pitch, unsigned value, size_t width, size_t height,
               unsigned element_size) {
    if (CUstream current = current_stream()) // as memset_1d
        return memset_2d_async(dest, pitch, value, width, height, element_size, current);
    switch (element_size) {
    case 1:
        return PYCUDA_CALL(cuMemsetD2D8, dest, pitch, static_cast<unsigned char>(value), width,
                           height);
    case 2:
        return PYCUDA_CALL(cuMemsetD2D16, dest, pitch, static_cast<unsigned short>(value), width,
                           height);
    case 4:
        return PYCUDA_CALL(cuMemsetD2D32, dest, pitch, value, width, height);
    default:
        bad_element_size();
    }
}

void memset_2d_async(CUdeviceptr dest, size_t pitch, unsigned value, size_t width, size_t height,
                     unsigned element_size, CUstream stream) {
    stream = stream_or_current(stream);
    switch (element_size) {
    case 1:
        return PYCUDA_CALL(cuMemsetD2D8Async, dest, pitch, static_cast<unsigned char>(value), width,
                           height, stream);
    case 2:
        return PYCUDA_CALL(cuMemsetD2D16Async, dest, pitch, static_cast<unsigned short>(value),
                           width, height, stream);
    case 4:
        return PYCUDA_CALL(cuMemsetD2D32Async, dest, pitch, value, width, height, stream);
    default:
        bad_element_size();
    }
}

void memcpy_htod(CUdeviceptr dest, const void* src, size_t bytes) {
    PYCUDA_CALL(cuMemcpyHtoD, dest, src, bytes);
}

void memcpy_htod_async(CUdeviceptr dest, const void* src, size_t bytes, CUstream stream) {
    PYCUDA_CALL(cuMemcpyHtoDAsync, dest, src, bytes, stream_or_current(stream));
}

void memcpy_dtoh(void* dest, CUdeviceptr src, size_t bytes) {
    PYCUDA_CALL(cuMemcpyDtoH, dest, src, bytes);
}

void memcpy_dtoh_async(void* dest, CUdeviceptr src, size_t bytes, CUstream stream) {
    PYCUDA_CALL(cuMemcpyDtoHAsync, dest, src, bytes, stream_or_current(stream));
}

void memcpy_dtod(CUdeviceptr dest, CUdeviceptr src, size_t bytes) {
    if (CUstream current = current_stream()) // as memset_1d
        return memcpy_dtod_async(dest, src, bytes, current);
    PYCUDA_CALL(cuMemcpyDtoD, dest, src, bytes);
}

void memcpy_dtod_async(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUstream stream) {
    PYCUDA_CALL(cuMemcpyDtoDAsync, dest, src, bytes, stream_or_current(stream));
}

namespace {
// The original PyCUDA inverted its None tests here (reference §1.2.12); ours resolves None to
// the pointer's own context, which is what a caller means by "the context it lives in".
CUcontext context_of(CUdeviceptr ptr, CUcontext given) {
    if (given)
        return given;
    if (CUcontext owner = pointer_context(ptr))
        return owner;
    CUcontext current = nullptr;
    PYCUDA_CALL(cuCtxGetCurrent, &current);
    if (!current)
        throw CudaError(CUDA_ERROR_INVALID_CONTEXT, "memcpy_peer",
                        "no context given, none found for the pointer, and none is current");
    return current;
}
} // namespace

void memcpy_peer(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUcontext dest_context,
                 CUcontext src_context) {
    PYCUDA_CALL(cuMemcpyPeer, dest, context_of(dest, dest_context), src,
                context_of(src, src_context), bytes);
}

void memcpy_peer_async(CUdeviceptr dest, CUdeviceptr src, size_t bytes, CUcontext dest_context,
                       CUcontext src_context, CUstream stream) {
    PYCUDA_CALL(cuMemcpyPeerAsync, dest, context_of(dest, dest_context), src,
                context_of(src, src_context), bytes, stream_or_current(stream));
}

} // namespace pycuda
