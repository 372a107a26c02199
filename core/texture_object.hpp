// core/texture_object.hpp: texture and surface objects (CUtexObject, CUsurfObject) over an
// array, linear memory or pitched 2D memory; RAII, destroyed in their context.
#pragma once

#include "core/array.hpp"

#include <array>
#include <cstddef>
#include <memory>

namespace pycuda {

/// What a texture reads: an array, linear memory, or pitched 2D memory. Device memory is not
/// owned by pycuda's core: `owner` (an opaque token from the caller) keeps it alive as long
/// as the resource is in use.
struct TextureResource {
    enum class Kind { None, Array, Linear, Pitch2D };
    Kind kind = Kind::None;
    ArrayPtr array;
    CUdeviceptr ptr = 0;
    CUarray_format format = CU_AD_FORMAT_FLOAT;
    unsigned channels = 1;
    std::size_t bytes = 0;                        // Linear
    std::size_t width = 0, height = 0, pitch = 0; // Pitch2D (width and height in texels)
    std::shared_ptr<const void> owner;
};

/// How a texture is sampled (CUDA_TEXTURE_DESC). Defaults as CUDA 11's texture<>: clamp,
/// point filtering, unnormalized coordinates, element-type reads.
struct TextureSampling {
    std::array<CUaddress_mode, 3> address_mode{CU_TR_ADDRESS_MODE_CLAMP, CU_TR_ADDRESS_MODE_CLAMP,
                                               CU_TR_ADDRESS_MODE_CLAMP};
    CUfilter_mode filter_mode = CU_TR_FILTER_MODE_POINT;
    /// CU_TRSF_READ_AS_INTEGER, CU_TRSF_NORMALIZED_COORDINATES, CU_TRSF_SRGB, ...
    unsigned flags = 0;
    std::array<float, 4> border_color{0, 0, 0, 0};
    unsigned max_anisotropy = 0;
};

/// The driver's descriptors for a resource and a sampling (pure; unit-tested without a GPU).
CUDA_RESOURCE_DESC resource_desc(const TextureResource& resource);
CUDA_TEXTURE_DESC texture_desc(const TextureSampling& sampling);

/// True for the formats whose texels are integers (read as integers or normalized floats).
bool is_integer_format(CUarray_format format) noexcept;

/// A texture object in the context current at construction; holds its resource (array or
/// memory owner) alive and is destroyed before it lets go of it.
class TextureObject {
public:
    TextureObject(TextureResource resource, const TextureSampling& sampling);
    ~TextureObject();
    TextureObject(const TextureObject&) = delete;
    TextureObject& operator=(const TextureObject&) = delete;

    CUtexObject handle() const noexcept { return handle_; }
    const TextureResource& resource() const noexcept { return resource_; }
    const TextureSampling& sampling() const noexcept { return sampling_; }
    const ContextPtr& context() const noexcept { return context_; }

private:
    ContextPtr context_;
    TextureResource resource_;
    TextureSampling sampling_;
    CUtexObject handle_ = 0;
};

/// A surface object over an array made with CUDA_ARRAY3D_SURFACE_LDST.
class SurfaceObject {
public:
    explicit SurfaceObject(ArrayPtr array);
    ~SurfaceObject();
    SurfaceObject(const SurfaceObject&) = delete;
    SurfaceObject& operator=(const SurfaceObject&) = delete;

    CUsurfObject handle() const noexcept { return handle_; }
    const ArrayPtr& array() const noexcept { return array_; }

private:
    ContextPtr context_;
    ArrayPtr array_;
    CUsurfObject handle_ = 0;
};

} // namespace pycuda
