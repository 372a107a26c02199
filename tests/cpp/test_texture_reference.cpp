// tests/cpp/test_texture_reference.cpp: texture-reference state logic without a GPU: the
// declaration layout, read-mode flags, alignment, descriptors and a standalone reference.
#include "core/texture_reference.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

using namespace pycuda;

namespace {

ReferenceLayout layout(std::uint32_t magic, unsigned dim, unsigned mode, unsigned format,
                       unsigned channels) {
    return ReferenceLayout{0, magic, dim, mode, format, channels, 0};
}

} // namespace

TEST(TextureReference, ParsesATextureDeclaration) {
    auto l = layout(texref_magic, 2, 1, CU_AD_FORMAT_UNSIGNED_INT8, 4);
    Declaration d = parse_declaration(&l, sizeof l, false, "tex");
    EXPECT_EQ(d.dim, 2u);
    EXPECT_EQ(d.read_mode, 1u);
    EXPECT_EQ(d.format, unsigned(CU_AD_FORMAT_UNSIGNED_INT8));
    EXPECT_EQ(d.channels, 4u);
}

TEST(TextureReference, RejectsOtherVariablesWithTheirName) {
    auto surf = layout(surfref_magic, 2, 0, 0, 0);
    try {
        parse_declaration(&surf, sizeof surf, false, "s");
        FAIL() << "a surface taken as a texture";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("'s' is a surface"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("get_surfref"), std::string::npos);
    }
    int plain[8] = {};
    EXPECT_THROW(parse_declaration(plain, sizeof plain, true, "x"), std::invalid_argument);
    EXPECT_THROW(parse_declaration(plain, 4, false, "x"), std::invalid_argument);
    EXPECT_NO_THROW(parse_declaration(&surf, sizeof surf, true, "s"));
}

TEST(TextureReference, ReadModeDecidesReadAsInteger) {
    Declaration element{1, 0, CU_AD_FORMAT_SIGNED_INT32, 2};
    Declaration normalized{2, 1, CU_AD_FORMAT_UNSIGNED_INT8, 4};
    // Element-type reads of integer texels return integers, whatever the user's flags.
    EXPECT_EQ(effective_flags(0, &element, CU_AD_FORMAT_SIGNED_INT32),
              unsigned(CU_TRSF_READ_AS_INTEGER));
    EXPECT_EQ(effective_flags(CU_TRSF_NORMALIZED_COORDINATES, &element, CU_AD_FORMAT_UNSIGNED_INT8),
              unsigned(CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_READ_AS_INTEGER));
    // Normalized reads must not have it.
    EXPECT_EQ(effective_flags(CU_TRSF_READ_AS_INTEGER, &normalized, CU_AD_FORMAT_UNSIGNED_INT8),
              0u);
    // Float texels and references without a declaration keep the user's flags.
    EXPECT_EQ(effective_flags(CU_TRSF_SRGB, &element, CU_AD_FORMAT_FLOAT), unsigned(CU_TRSF_SRGB));
    EXPECT_EQ(effective_flags(0, nullptr, CU_AD_FORMAT_SIGNED_INT32), 0u);
}

TEST(TextureReference, AlignDown) {
    EXPECT_EQ(align_down(0x1000, 512), std::make_pair(CUdeviceptr(0x1000), std::size_t(0)));
    EXPECT_EQ(align_down(0x1004, 512), std::make_pair(CUdeviceptr(0x1000), std::size_t(4)));
    EXPECT_EQ(align_down(0x11ff, 512), std::make_pair(CUdeviceptr(0x1000), std::size_t(0x1ff)));
}

TEST(TextureReference, StandaloneHoldsSettings) {
    TextureReference t;
    EXPECT_EQ(t.state(), BindState::Unbound);
    EXPECT_NO_THROW(t.require_bound("test")); // a holder has nothing to check at launch
    EXPECT_EQ(t.format(), std::make_pair(CU_AD_FORMAT_FLOAT, 1u));
    EXPECT_EQ(t.address_mode(0), CU_TR_ADDRESS_MODE_CLAMP);
    t.set_format(CU_AD_FORMAT_UNSIGNED_INT16, 2);
    t.set_address_mode(1, CU_TR_ADDRESS_MODE_MIRROR);
    t.set_filter_mode(CU_TR_FILTER_MODE_LINEAR);
    t.set_flags(CU_TRSF_NORMALIZED_COORDINATES);
    t.set_border_color({1, 2, 3, 4});
    EXPECT_EQ(t.format(), std::make_pair(CU_AD_FORMAT_UNSIGNED_INT16, 2u));
    EXPECT_EQ(t.address_mode(1), CU_TR_ADDRESS_MODE_MIRROR);
    EXPECT_EQ(t.address_mode(0), CU_TR_ADDRESS_MODE_CLAMP);
    EXPECT_EQ(t.filter_mode(), CU_TR_FILTER_MODE_LINEAR);
    EXPECT_EQ(t.flags(), unsigned(CU_TRSF_NORMALIZED_COORDINATES));
    EXPECT_EQ(t.border_color()[3], 4.0f);
    EXPECT_EQ(t.address(), CUdeviceptr(0));
    EXPECT_EQ(t.object_handle(), CUtexObject(0));
}

TEST(TextureReference, SettersRejectBadValues) {
    TextureReference t;
    EXPECT_THROW(t.set_format(CUarray_format(0x77), 1), std::invalid_argument);
    EXPECT_THROW(t.set_format(CU_AD_FORMAT_FLOAT, 3), std::invalid_argument);
    EXPECT_THROW(t.set_address_mode(3, CU_TR_ADDRESS_MODE_WRAP), std::invalid_argument);
    EXPECT_THROW(t.set_address_mode(0, CUaddress_mode(9)), std::invalid_argument);
    EXPECT_THROW(t.set_filter_mode(CUfilter_mode(5)), std::invalid_argument);
    EXPECT_THROW(t.address_mode(-1), std::invalid_argument);
    EXPECT_THROW(t.set_array(nullptr), std::invalid_argument);
    EXPECT_EQ(t.format(), std::make_pair(CU_AD_FORMAT_FLOAT, 1u)); // unchanged by the failures
}

TEST(TextureObject, Descriptors) {
    TextureResource linear;
    linear.kind = TextureResource::Kind::Linear;
    linear.ptr = 0x2000;
    linear.bytes = 400;
    linear.format = CU_AD_FORMAT_SIGNED_INT32;
    linear.channels = 2;
    CUDA_RESOURCE_DESC r = resource_desc(linear);
    EXPECT_EQ(r.resType, CU_RESOURCE_TYPE_LINEAR);
    EXPECT_EQ(r.res.linear.devPtr, CUdeviceptr(0x2000));
    EXPECT_EQ(r.res.linear.sizeInBytes, 400u);
    EXPECT_EQ(r.res.linear.numChannels, 2u);

    TextureResource pitched;
    pitched.kind = TextureResource::Kind::Pitch2D;
    pitched.width = 10;
    pitched.height = 5;
    pitched.pitch = 64;
    r = resource_desc(pitched);
    EXPECT_EQ(r.resType, CU_RESOURCE_TYPE_PITCH2D);
    EXPECT_EQ(r.res.pitch2D.pitchInBytes, 64u);
    EXPECT_EQ(r.res.pitch2D.height, 5u);

    EXPECT_THROW(resource_desc(TextureResource{}), std::logic_error);

    TextureSampling s;
    s.address_mode = {CU_TR_ADDRESS_MODE_WRAP, CU_TR_ADDRESS_MODE_BORDER,
                      CU_TR_ADDRESS_MODE_MIRROR};
    s.filter_mode = CU_TR_FILTER_MODE_LINEAR;
    s.flags = CU_TRSF_NORMALIZED_COORDINATES;
    s.border_color = {0.5f, 0, 0, 1};
    CUDA_TEXTURE_DESC t = texture_desc(s);
    EXPECT_EQ(t.addressMode[1], CU_TR_ADDRESS_MODE_BORDER);
    EXPECT_EQ(t.addressMode[2], CU_TR_ADDRESS_MODE_MIRROR);
    EXPECT_EQ(t.filterMode, CU_TR_FILTER_MODE_LINEAR);
    EXPECT_EQ(t.flags, unsigned(CU_TRSF_NORMALIZED_COORDINATES));
    EXPECT_EQ(t.borderColor[0], 0.5f);
}

TEST(TextureObject, IntegerFormats) {
    EXPECT_TRUE(is_integer_format(CU_AD_FORMAT_UNSIGNED_INT8));
    EXPECT_TRUE(is_integer_format(CU_AD_FORMAT_SIGNED_INT32));
    EXPECT_FALSE(is_integer_format(CU_AD_FORMAT_FLOAT));
    EXPECT_FALSE(is_integer_format(CU_AD_FORMAT_HALF));
    EXPECT_EQ(format_channel_bytes(CU_AD_FORMAT_UNSIGNED_INT16), 2u);
    EXPECT_EQ(format_channel_bytes(CUarray_format(0x77)), 0u);
}
