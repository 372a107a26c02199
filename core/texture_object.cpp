// core/texture_object.cpp: descriptors, creation and destruction of texture and surface objects.
#include "core/texture_object.hpp"

#include "core/error.hpp"

#include <stdexcept>

namespace pycuda {

bool is_integer_format(CUarray_format format) noexcept {
    return format != CU_AD_FORMAT_FLOAT && format != CU_AD_FORMAT_HALF &&
           format_channel_bytes(format) != 0;
}

CUDA_RESOURCE_DESC resource_desc(const TextureResource& r) {
    CUDA_RESOURCE_DESC d{};
    switch (r.kind) {
    case TextureResource::Kind::Array:
        d.resType = CU_RESOURCE_TYPE_ARRAY;
        d.res.array.hArray = r.array->handle("texture");
        break;
    case TextureResource::Kind::Linear:
        d.resType = CU_RESOURCE_TYPE_LINEAR;
        d.res.linear.devPtr = r.ptr;
        d.res.linear.format = r.format;
        d.res.linear.numChannels = r.channels;
        d.res.linear.sizeInBytes = r.bytes;
        break;
    case TextureResource::Kind::Pitch2D:
        d.resType = CU_RESOURCE_TYPE_PITCH2D;
        d.res.pitch2D.devPtr = r.ptr;
        d.res.pitch2D.format = r.format;
        d.res.pitch2D.numChannels = r.channels;
        d.res.pitch2D.width = r.width;
        d.res.pitch2D.height = r.height;
        d.res.pitch2D.pitchInBytes = r.pitch;
        break;
    case TextureResource::Kind::None:
        throw std::logic_error("texture: no memory or array bound");
    }
    return d;
}

CUDA_TEXTURE_DESC texture_desc(const TextureSampling& s) {
    CUDA_TEXTURE_DESC d{};
    for (int i = 0; i < 3; ++i)
        d.addressMode[i] = s.address_mode[static_cast<std::size_t>(i)];
    d.filterMode = s.filter_mode;
    d.flags = s.flags;
    d.maxAnisotropy = s.max_anisotropy;
    d.mipmapFilterMode = s.filter_mode;
    for (int i = 0; i < 4; ++i)
        d.borderColor[i] = s.border_color[static_cast<std::size_t>(i)];
    return d;
}

TextureObject::TextureObject(TextureResource resource, const TextureSampling& sampling)
    : context_(Context::require_current("texture object")), resource_(std::move(resource)),
      sampling_(sampling) {
    CUDA_RESOURCE_DESC res = resource_desc(resource_);
    CUDA_TEXTURE_DESC tex = texture_desc(sampling_);
    PYCUDA_CALL(cuTexObjectCreate, &handle_, &res, &tex, nullptr);
}

TextureObject::~TextureObject() {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuTexObjectDestroy, handle_); });
}

SurfaceObject::SurfaceObject(ArrayPtr array)
    : context_(Context::require_current("surface object")), array_(std::move(array)) {
    if (!array_)
        throw std::invalid_argument("surface: no array given");
    if ((array_->descriptor_3d().Flags & CUDA_ARRAY3D_SURFACE_LDST) == 0)
        throw std::invalid_argument("surface: the array was not made for surfaces; create it "
                                    "with array3d_flags.SURFACE_LDST (np_to_array(..., "
                                    "allowSurfaceBind=True))");
    CUDA_RESOURCE_DESC res{};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = array_->handle("surface");
    PYCUDA_CALL(cuSurfObjectCreate, &handle_, &res);
}

SurfaceObject::~SurfaceObject() {
    release_in(*context_, [&] { PYCUDA_CALL_CLEANUP(cuSurfObjectDestroy, handle_); });
}

} // namespace pycuda
