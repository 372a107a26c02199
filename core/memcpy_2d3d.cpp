// core/memcpy_2d3d.cpp: filling in and running the 2D and 3D copy descriptors.
#include "core/memcpy_2d3d.hpp"

#include "core/error.hpp"

#include <stdexcept>
#include <string>

namespace pycuda {

void set_side_host(CopySide& side, const void* ptr) {
    side = CopySide{CU_MEMORYTYPE_HOST, ptr, 0, nullptr};
}
void set_side_device(CopySide& side, CUdeviceptr ptr) {
    side = CopySide{CU_MEMORYTYPE_DEVICE, nullptr, ptr, nullptr};
}
void set_side_unified(CopySide& side, CUdeviceptr ptr) {
    side = CopySide{CU_MEMORYTYPE_UNIFIED, nullptr, ptr, nullptr};
}
void set_side_array(CopySide& side, ArrayPtr array) {
    if (!array)
        throw std::invalid_argument("set_*_array: the array is None");
    side = CopySide{CU_MEMORYTYPE_ARRAY, nullptr, 0, std::move(array)};
}

namespace {

// Writes one side into a descriptor's fields; an unset side is std::logic_error.
template <typename Desc>
void apply_src(Desc& d, const CopySide& s, const char* what) {
    if (s.type == CUmemorytype(0))
        throw std::logic_error(std::string(what) +
                               ": no source set (set_src_host/device/array/unified)");
    d.srcMemoryType = s.type;
    d.srcHost = s.host;
    d.srcDevice = s.device;
    d.srcArray = s.array ? s.array->handle(what) : nullptr;
}
template <typename Desc>
void apply_dst(Desc& d, const CopySide& s, const char* what) {
    if (s.type == CUmemorytype(0))
        throw std::logic_error(std::string(what) +
                               ": no destination set (set_dst_host/device/array/unified)");
    d.dstMemoryType = s.type;
    d.dstHost = const_cast<void*>(s.host);
    d.dstDevice = s.device;
    d.dstArray = s.array ? s.array->handle(what) : nullptr;
}

} // namespace

CUDA_MEMCPY2D Memcpy2D::resolved(const char* what) const {
    CUDA_MEMCPY2D d = desc;
    apply_src(d, src_, what);
    apply_dst(d, dst_, what);
    return d;
}

void Memcpy2D::copy(bool aligned) const {
    CUDA_MEMCPY2D d = resolved("Memcpy2D");
    if (aligned)
        PYCUDA_CALL(cuMemcpy2D, &d);
    else
        PYCUDA_CALL(cuMemcpy2DUnaligned, &d);
}

void Memcpy2D::copy_async(CUstream stream) const {
    CUDA_MEMCPY2D d = resolved("Memcpy2D");
    PYCUDA_CALL(cuMemcpy2DAsync, &d, stream);
}

template <bool Peer>
typename Memcpy3DBase<Peer>::Desc Memcpy3DBase<Peer>::resolved(const char* what) const {
    Desc d = desc;
    apply_src(d, src_, what);
    apply_dst(d, dst_, what);
    if constexpr (Peer) {
        ContextPtr current = Context::current();
        const ContextPtr& src = src_context_ ? src_context_ : current;
        const ContextPtr& dst = dst_context_ ? dst_context_ : current;
        if (!src || !dst)
            throw CudaError(CUDA_ERROR_INVALID_CONTEXT, what, "no context given and none current");
        d.srcContext = src->handle();
        d.dstContext = dst->handle();
    }
    return d;
}

template <bool Peer>
void Memcpy3DBase<Peer>::copy() const {
    if constexpr (Peer) {
        Desc d = resolved("Memcpy3DPeer");
        PYCUDA_CALL(cuMemcpy3DPeer, &d);
    } else {
        Desc d = resolved("Memcpy3D");
        PYCUDA_CALL(cuMemcpy3D, &d);
    }
}

template <bool Peer>
void Memcpy3DBase<Peer>::copy_async(CUstream stream) const {
    if constexpr (Peer) {
        Desc d = resolved("Memcpy3DPeer");
        PYCUDA_CALL(cuMemcpy3DPeerAsync, &d, stream);
    } else {
        Desc d = resolved("Memcpy3D");
        PYCUDA_CALL(cuMemcpy3DAsync, &d, stream);
    }
}

template class Memcpy3DBase<false>;
template class Memcpy3DBase<true>;

} // namespace pycuda
