// tests/cpp/test_kernel_params.cpp: prepare() format parsing and parameter offsets (no GPU).
#include "core/kernel_params.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

using namespace pycuda;

namespace {

std::vector<std::size_t> offsets(const ParamLayout& layout) {
    std::vector<std::size_t> out;
    for (const auto& s : layout.slots)
        out.push_back(s.offset);
    return out;
}

// The offsets a C compiler gives the members of this struct are the offsets of the
// corresponding kernel parameters (the CUDA ABI lays parameters out like a struct).
struct CharDoubleInt {
    char c;
    double d;
    int i;
};

struct alignas(16) Float4 {
    float x, y, z, w;
};

} // namespace

TEST(KernelParams, PointersAndScalars) {
    ParamLayout l = parse_param_format("PiiP");
    EXPECT_EQ(offsets(l), (std::vector<std::size_t>{0, 8, 12, 16}));
    EXPECT_EQ(l.total_size, 24u);
    EXPECT_EQ(l.slots[1].code, 'i');
}

TEST(KernelParams, MixedScalarAlignmentMatchesTheCompiler) {
    ParamLayout l = parse_param_format("cdi");
    ASSERT_EQ(l.slots.size(), 3u);
    EXPECT_EQ(l.slots[0].offset, offsetof(CharDoubleInt, c));
    EXPECT_EQ(l.slots[1].offset, offsetof(CharDoubleInt, d));
    EXPECT_EQ(l.slots[2].offset, offsetof(CharDoubleInt, i));
    EXPECT_EQ(l.total_size, offsetof(CharDoubleInt, i) + sizeof(int));
}

TEST(KernelParams, HalfAndComplex) {
    // complex64/128 align as float2/double2 (8 and 16), as CUDA's complex types do.
    ParamLayout l = parse_param_format("eFbD");
    EXPECT_EQ(offsets(l), (std::vector<std::size_t>{0, 8, 16, 32}));
    EXPECT_EQ(l.slots[1].size, 8u);
    EXPECT_EQ(l.slots[3].size, 16u);
    EXPECT_EQ(l.slots[3].align, 16u);
    EXPECT_EQ(l.total_size, 48u);
}

TEST(KernelParams, RepeatCountsExpandIntoParameters) {
    ParamLayout l = parse_param_format("3f P");
    EXPECT_EQ(offsets(l), (std::vector<std::size_t>{0, 4, 8, 16}));
}

TEST(KernelParams, BlobsAreOneParameterWithVectorAlignment) {
    // float3 by value: 12 bytes, aligned as a float; float4: 16 bytes, aligned to 16.
    ParamLayout l = parse_param_format("c12si16s");
    ASSERT_EQ(l.slots.size(), 4u);
    EXPECT_EQ(l.slots[1].offset, 4u);
    EXPECT_EQ(l.slots[1].size, 12u);
    EXPECT_EQ(l.slots[2].offset, 16u);
    EXPECT_EQ(l.slots[3].offset, 32u);
    EXPECT_EQ(l.slots[3].align, alignof(Float4));
    EXPECT_EQ(l.total_size, 48u);
}

TEST(KernelParams, VIsAStructByValue) {
    // NumPy's dtype.char of structs: "12V" is "12s"; a bare 'V' waits for the kernel's size.
    ParamLayout sized = parse_param_format("c12Vi16V");
    ParamLayout blobs = parse_param_format("c12si16s");
    EXPECT_EQ(offsets(sized), offsets(blobs));
    EXPECT_EQ(sized.slots[1].code, 's');
    EXPECT_EQ(sized.total_size, blobs.total_size);
    EXPECT_NO_THROW(require_sized(sized, "c12Vi16V"));
    ParamLayout bare = parse_param_format("PVi");
    ASSERT_EQ(bare.slots.size(), 3u);
    EXPECT_EQ(bare.slots[1].code, 'V');
    EXPECT_EQ(bare.slots[1].size, 0u);
    EXPECT_THROW(require_sized(bare, "PVi"), std::invalid_argument);
}

TEST(KernelParams, BlobAlignment) {
    EXPECT_EQ(blob_alignment(1), 1u);
    EXPECT_EQ(blob_alignment(3), 1u);
    EXPECT_EQ(blob_alignment(6), 2u);
    EXPECT_EQ(blob_alignment(12), 4u);
    EXPECT_EQ(blob_alignment(8), 8u);
    EXPECT_EQ(blob_alignment(32), 16u);
}

TEST(KernelParams, PadBytesAndPrefixes) {
    ParamLayout l = parse_param_format("=c3xi");
    EXPECT_EQ(offsets(l), (std::vector<std::size_t>{0, 4}));
    EXPECT_EQ(parse_param_format("").slots.size(), 0u);
}

TEST(KernelParams, BadFormatsAreRejected) {
    EXPECT_THROW(parse_param_format("iZ"), std::invalid_argument);
    EXPECT_THROW(parse_param_format("i3"), std::invalid_argument);
    try {
        parse_param_format("PiQk");
        FAIL();
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'k' at position 3"), std::string::npos);
    }
}

TEST(KernelParams, FloatToHalf) {
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(0.0f), 0x0000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);
    EXPECT_EQ(float_to_half(1e6f), 0x7c00);
    EXPECT_EQ(float_to_half(5.9604645e-8f), 0x0001); // smallest subnormal
    EXPECT_EQ(float_to_half(0.333333f), 0x3555);
    EXPECT_EQ(float_to_half(1.0f + 1.0f / 2048), 0x3c00); // halfway rounds to even
}
