// core/memcpy_2d3d.hpp: Memcpy2D, Memcpy3D and Memcpy3DPeer, 2D and 3D copies between host
// memory, device memory and arrays, with offsets and pitches.
//
// Each wraps the driver's descriptor. Arrays set as a side are held until replaced or until the
// copier dies; host memory is a raw pointer here, and the binding holds the buffer that owns it.
#pragma once

#include "core/array.hpp"

#include <type_traits>
#include <utility>

namespace pycuda {

/// One side of a copy, as the setters fill it in (shared by the three copiers).
struct CopySide {
    CUmemorytype type = CUmemorytype(0);
    const void* host = nullptr;
    CUdeviceptr device = 0;
    ArrayPtr array;
};

/// The setters of a side: host memory, device memory, unified (managed) memory, an array.
void set_side_host(CopySide& side, const void* ptr);
void set_side_device(CopySide& side, CUdeviceptr ptr);
void set_side_unified(CopySide& side, CUdeviceptr ptr);
void set_side_array(CopySide& side, ArrayPtr array);

/// A 2D copy (CUDA_MEMCPY2D).
class Memcpy2D {
public:
    CUDA_MEMCPY2D desc{};

    void set_src_host(const void* ptr) { set_side_host(src_, ptr); }
    void set_src_device(CUdeviceptr ptr) { set_side_device(src_, ptr); }
    void set_src_unified(CUdeviceptr ptr) { set_side_unified(src_, ptr); }
    void set_src_array(ArrayPtr array) { set_side_array(src_, std::move(array)); }
    void set_dst_host(void* ptr) { set_side_host(dst_, ptr); }
    void set_dst_device(CUdeviceptr ptr) { set_side_device(dst_, ptr); }
    void set_dst_unified(CUdeviceptr ptr) { set_side_unified(dst_, ptr); }
    void set_dst_array(ArrayPtr array) { set_side_array(dst_, std::move(array)); }

    /// The memory types set so far (0 for a side not set yet).
    CUmemorytype src_memory_type() const noexcept { return src_.type; }
    CUmemorytype dst_memory_type() const noexcept { return dst_.type; }
    /// The device (or unified) address of each side; 0 for host memory, arrays and unset sides.
    CUdeviceptr src_device() const noexcept { return src_.device; }
    CUdeviceptr dst_device() const noexcept { return dst_.device; }

    /// cuMemcpy2D (aligned) or cuMemcpy2DUnaligned. Both sides must be set (else
    /// std::logic_error naming the missing one).
    void copy(bool aligned) const;
    /// cuMemcpy2DAsync on `stream`.
    void copy_async(CUstream stream) const;

private:
    CUDA_MEMCPY2D resolved(const char* what) const;
    CopySide src_, dst_;
};

/// A 3D copy (CUDA_MEMCPY3D); `Peer` = true copies between contexts (CUDA_MEMCPY3D_PEER).
template <bool Peer>
class Memcpy3DBase {
public:
    using Desc = std::conditional_t<Peer, CUDA_MEMCPY3D_PEER, CUDA_MEMCPY3D>;
    Desc desc{};

    void set_src_host(const void* ptr) { set_side_host(src_, ptr); }
    void set_src_device(CUdeviceptr ptr) { set_side_device(src_, ptr); }
    void set_src_unified(CUdeviceptr ptr) { set_side_unified(src_, ptr); }
    void set_src_array(ArrayPtr array) { set_side_array(src_, std::move(array)); }
    void set_dst_host(void* ptr) { set_side_host(dst_, ptr); }
    void set_dst_device(CUdeviceptr ptr) { set_side_device(dst_, ptr); }
    void set_dst_unified(CUdeviceptr ptr) { set_side_unified(dst_, ptr); }
    void set_dst_array(ArrayPtr array) { set_side_array(dst_, std::move(array)); }
    /// The contexts of a peer copy (null: the current one at copy time).
    void set_src_context(ContextPtr ctx) { src_context_ = std::move(ctx); }
    void set_dst_context(ContextPtr ctx) { dst_context_ = std::move(ctx); }

    /// The memory types set so far (0 for a side not set yet).
    CUmemorytype src_memory_type() const noexcept { return src_.type; }
    CUmemorytype dst_memory_type() const noexcept { return dst_.type; }
    /// The device (or unified) address of each side; 0 for host memory, arrays and unset sides.
    CUdeviceptr src_device() const noexcept { return src_.device; }
    CUdeviceptr dst_device() const noexcept { return dst_.device; }

    /// cuMemcpy3D (cuMemcpy3DPeer).
    void copy() const;
    /// cuMemcpy3DAsync (cuMemcpy3DPeerAsync) on `stream`.
    void copy_async(CUstream stream) const;

private:
    Desc resolved(const char* what) const;
    CopySide src_, dst_;
    ContextPtr src_context_, dst_context_;
};

using Memcpy3D = Memcpy3DBase<false>;
using Memcpy3DPeer = Memcpy3DBase<true>;

} // namespace pycuda
