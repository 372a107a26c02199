// core/dlpack.hpp: the DLPack ABI (legacy 0.8 DLManagedTensor, 1.x DLManagedTensorVersioned).
//
// Our own declarations, written from the DLPack specification (dmlc/dlpack, include/dlpack/dlpack.h
// and https://dmlc.github.io/dlpack/latest/): the layout is a C ABI shared with every other
// producer and consumer in the process (CuPy, PyTorch, NumPy, JAX), so it is pinned below by
// static_asserts and must never change. No Python here: the capsule protocol lives in
// bindings/dlpack.cpp.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pycuda::dlpack {

/// The DLPack version we produce in versioned capsules; consumers accept any minor of major 1.
inline constexpr std::uint32_t kMajorVersion = 1;
inline constexpr std::uint32_t kMinorVersion = 0;

/// DLPackVersion: major changes break the ABI, minor ones only add.
struct DLPackVersion {
    std::uint32_t major;
    std::uint32_t minor;
};

/// DLDeviceType (a C enum: int-sized). Only the values we produce or name in errors.
enum DLDeviceType : std::int32_t {
    kDLCPU = 1,
    kDLCUDA = 2,
    kDLCUDAHost = 3,
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,
    kDLOneAPI = 14,
    kDLWebGPU = 15,
    kDLHexagon = 16,
    kDLMAIA = 17,
};

/// DLDevice: where the memory is; device_id is the CUDA device ordinal for kDLCUDA.
struct DLDevice {
    DLDeviceType device_type;
    std::int32_t device_id;
};

/// DLDataTypeCode (stored in DLDataType::code as a uint8_t).
enum DLDataTypeCode : std::uint8_t {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
};

/// DLDataType: code, bits per lane (complex64 is 64), lanes (1 for scalars; we need 1).
struct DLDataType {
    std::uint8_t code;
    std::uint8_t bits;
    std::uint16_t lanes;
};

/// DLTensor: the array itself. shape and strides have ndim entries; strides count ELEMENTS, not
/// bytes, and may be null in legacy capsules (meaning C-contiguous). The first element is at
/// (char*)data + byte_offset.
struct DLTensor {
    void* data;
    DLDevice device;
    std::int32_t ndim;
    DLDataType dtype;
    std::int64_t* shape;
    std::int64_t* strides;
    std::uint64_t byte_offset;
};

/// The legacy (DLPack < 1.0) managed tensor, in a capsule named "dltensor". The consumer calls
/// deleter(self) exactly once when done; deleter may be null.
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor* self);
};

/// flags bit: the consumer must not write through this tensor.
inline constexpr std::uint64_t kFlagReadOnly = 1ull << 0;
/// flags bit: the producer copied the data for this export (the consumer owns a fresh copy).
inline constexpr std::uint64_t kFlagIsCopied = 1ull << 1;

/// The DLPack 1.x managed tensor, in a capsule named "dltensor_versioned". `version` comes first
/// so that a consumer can refuse an unknown major version before reading anything else.
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned* self);
    std::uint64_t flags;
    DLTensor dl_tensor;
};

/// Capsule names of the Python protocol: fresh and consumed, legacy and versioned.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
inline constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

// The ABI, as a C compiler lays these out on the 64-bit platforms CUDA supports.
static_assert(sizeof(void*) == 8, "DLPack interop assumes a 64-bit platform");
static_assert(sizeof(DLPackVersion) == 8);
static_assert(sizeof(DLDeviceType) == 4);
static_assert(sizeof(DLDevice) == 8);
static_assert(sizeof(DLDataType) == 4);
static_assert(offsetof(DLDataType, bits) == 1 && offsetof(DLDataType, lanes) == 2);
static_assert(offsetof(DLTensor, data) == 0);
static_assert(offsetof(DLTensor, device) == 8);
static_assert(offsetof(DLTensor, ndim) == 16);
static_assert(offsetof(DLTensor, dtype) == 20);
static_assert(offsetof(DLTensor, shape) == 24);
static_assert(offsetof(DLTensor, strides) == 32);
static_assert(offsetof(DLTensor, byte_offset) == 40);
static_assert(sizeof(DLTensor) == 48);
static_assert(offsetof(DLManagedTensor, manager_ctx) == 48);
static_assert(offsetof(DLManagedTensor, deleter) == 56);
static_assert(sizeof(DLManagedTensor) == 64);
static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8);
static_assert(offsetof(DLManagedTensorVersioned, deleter) == 16);
static_assert(offsetof(DLManagedTensorVersioned, flags) == 24);
static_assert(offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
static_assert(sizeof(DLManagedTensorVersioned) == 80);

} // namespace pycuda::dlpack
