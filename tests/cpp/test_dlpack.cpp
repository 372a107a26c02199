// tests/cpp/test_dlpack.cpp: the DLPack ABI layout (core/dlpack.hpp) against the specification.
#include "core/dlpack.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

using namespace pycuda::dlpack;

namespace {

// The header's static_asserts already pin the layout at compile time; these tests restate the
// numbers from the specification at run time so that a failure names the field.

TEST(DLPackLayout, TensorFieldOffsets) {
    EXPECT_EQ(offsetof(DLTensor, data), 0u);
    EXPECT_EQ(offsetof(DLTensor, device), 8u);
    EXPECT_EQ(offsetof(DLTensor, ndim), 16u);
    EXPECT_EQ(offsetof(DLTensor, dtype), 20u);
    EXPECT_EQ(offsetof(DLTensor, shape), 24u);
    EXPECT_EQ(offsetof(DLTensor, strides), 32u);
    EXPECT_EQ(offsetof(DLTensor, byte_offset), 40u);
    EXPECT_EQ(sizeof(DLTensor), 48u);
}

TEST(DLPackLayout, ManagedTensors) {
    EXPECT_EQ(sizeof(DLManagedTensor), 64u);
    EXPECT_EQ(offsetof(DLManagedTensor, manager_ctx), 48u);
    EXPECT_EQ(offsetof(DLManagedTensor, deleter), 56u);
    EXPECT_EQ(sizeof(DLManagedTensorVersioned), 80u);
    EXPECT_EQ(offsetof(DLManagedTensorVersioned, version), 0u);
    EXPECT_EQ(offsetof(DLManagedTensorVersioned, manager_ctx), 8u);
    EXPECT_EQ(offsetof(DLManagedTensorVersioned, deleter), 16u);
    EXPECT_EQ(offsetof(DLManagedTensorVersioned, flags), 24u);
    EXPECT_EQ(offsetof(DLManagedTensorVersioned, dl_tensor), 32u);
}

TEST(DLPackLayout, SmallStructs) {
    EXPECT_EQ(sizeof(DLDevice), 8u);
    EXPECT_EQ(offsetof(DLDevice, device_id), 4u);
    EXPECT_EQ(sizeof(DLDataType), 4u);
    EXPECT_EQ(sizeof(DLPackVersion), 8u);
    // A DLDataType for float32 reads, byte by byte, code 2, bits 32, lanes 1 (little endian).
    DLDataType f32{kDLFloat, 32, 1};
    unsigned char bytes[4];
    std::memcpy(bytes, &f32, 4);
    EXPECT_EQ(bytes[0], 2);
    EXPECT_EQ(bytes[1], 32);
    EXPECT_EQ(bytes[2] | (bytes[3] << 8), 1);
}

TEST(DLPackLayout, EnumValuesFromTheSpecification) {
    EXPECT_EQ(kDLCPU, 1);
    EXPECT_EQ(kDLCUDA, 2);
    EXPECT_EQ(kDLCUDAHost, 3);
    EXPECT_EQ(kDLROCM, 10);
    EXPECT_EQ(kDLCUDAManaged, 13);
    EXPECT_EQ(kDLInt, 0);
    EXPECT_EQ(kDLUInt, 1);
    EXPECT_EQ(kDLFloat, 2);
    EXPECT_EQ(kDLBfloat, 4);
    EXPECT_EQ(kDLComplex, 5);
    EXPECT_EQ(kDLBool, 6);
    EXPECT_EQ(kFlagReadOnly, 1u);
    EXPECT_EQ(kFlagIsCopied, 2u);
    EXPECT_STREQ(kCapsuleName, "dltensor");
    EXPECT_STREQ(kVersionedCapsuleName, "dltensor_versioned");
    EXPECT_STREQ(kUsedCapsuleName, "used_dltensor");
    EXPECT_STREQ(kUsedVersionedCapsuleName, "used_dltensor_versioned");
}

} // namespace
