// core/texture_reference.cpp: settings, object (re)creation and publishing of emulated
// texture and surface references.
#include "core/texture_reference.hpp"

#include "core/error.hpp"
#include "core/memcpy.hpp"

#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace pycuda {

Declaration parse_declaration(const void* bytes, std::size_t size, bool surface,
                              const std::string& name) {
    const char* kind = surface ? "surface" : "texture";
    std::string declare = surface ? "surface<void, 2> " : "texture<float, 2> ";
    ReferenceLayout layout{};
    if (size == sizeof layout)
        std::memcpy(&layout, bytes, sizeof layout);
    if (size != sizeof layout || layout.magic != (surface ? surfref_magic : texref_magic)) {
        bool other =
            size == sizeof layout && layout.magic == (surface ? texref_magic : surfref_magic);
        throw std::invalid_argument(
            "'" + name + "' is " + (other ? (surface ? "a texture" : "a surface") : "a variable") +
            ", not a " + kind + " reference: declare it at file scope as `" + declare + name +
            ";` (and use get_" + (other ? (surface ? "texref" : "surfref") : kind) + ")");
    }
    return Declaration{layout.dim, layout.read_mode, layout.format, layout.channels};
}

unsigned effective_flags(unsigned user_flags, const Declaration* declaration,
                         CUarray_format format) {
    if (declaration == nullptr || !is_integer_format(format))
        return user_flags;
    if (declaration->read_mode == 0) // cudaReadModeElementType
        return user_flags | CU_TRSF_READ_AS_INTEGER;
    return user_flags & ~unsigned(CU_TRSF_READ_AS_INTEGER);
}

std::pair<CUdeviceptr, std::size_t> align_down(CUdeviceptr ptr, std::size_t alignment) {
    CUdeviceptr aligned = alignment > 1 ? ptr & ~CUdeviceptr(alignment - 1) : ptr;
    return {aligned, static_cast<std::size_t>(ptr - aligned)};
}

ReferenceVariable::ReferenceVariable(const ModulePtr& module, const std::string& name, bool surface)
    : module_(module), context_(module->context()), name_(name) {
    std::size_t size = 0;
    CUresult rc = driver().cuModuleGetGlobal(&variable_, &size, module->handle(), name.c_str());
    if (rc == CUDA_ERROR_NOT_FOUND)
        throw CudaError(rc, surface ? "get_surfref" : "get_texref",
                        "no " + std::string(surface ? "surface" : "texture") +
                            " reference named '" + name +
                            "' in this module (declare it at file scope)");
    check(rc, "cuModuleGetGlobal");
    ReferenceLayout layout{};
    if (size == sizeof layout) {
        ScopedActivation active(*context_);
        memcpy_dtoh(&layout, variable_, sizeof layout);
    }
    declaration_ = parse_declaration(&layout, size, surface, name);
}

namespace {

// The references of live modules, by module and name (see the header on lifetime).
template <typename Ref>
struct Registry {
    struct Entry {
        std::weak_ptr<Module> module;
        std::shared_ptr<Ref> reference;
    };
    std::mutex mutex;
    std::map<std::pair<const Module*, std::string>, Entry> entries;

    static Registry& get() {
        static Registry registry; // emptied at Python's exit first: see forget_all_references
        return registry;
    }

    /// Takes out the entries of unloaded modules (all of them when `all`), to be destroyed by
    /// the caller once the lock is released.
    std::vector<std::shared_ptr<Ref>> take_expired(bool all) {
        std::vector<std::shared_ptr<Ref>> out;
        for (auto it = entries.begin(); it != entries.end();) {
            if (all || it->second.module.expired()) {
                out.push_back(std::move(it->second.reference));
                it = entries.erase(it);
            } else {
                ++it;
            }
        }
        return out;
    }
};

template <typename Ref>
std::shared_ptr<Ref> registered(const ModulePtr& module, const std::string& name) {
    Registry<Ref>& r = Registry<Ref>::get();
    std::vector<std::shared_ptr<Ref>> expired; // destroyed after the lock is released
    std::lock_guard<std::mutex> lock(r.mutex);
    expired = r.take_expired(false);
    auto key = std::make_pair(module.get(), name);
    auto found = r.entries.find(key);
    if (found != r.entries.end())
        return found->second.reference;
    auto reference = std::make_shared<Ref>(module, name);
    r.entries.emplace(key, typename Registry<Ref>::Entry{module, reference});
    return reference;
}

template <typename Ref>
void forget_all() {
    Registry<Ref>& r = Registry<Ref>::get();
    std::vector<std::shared_ptr<Ref>> all;
    std::lock_guard<std::mutex> lock(r.mutex);
    all = r.take_expired(true);
}

} // namespace

void forget_all_references() {
    forget_all<TextureReference>();
    forget_all<SurfaceReference>();
}

std::shared_ptr<TextureReference> TextureReference::of(const ModulePtr& module,
                                                       const std::string& name) {
    return registered<TextureReference>(module, name);
}

std::shared_ptr<SurfaceReference> SurfaceReference::of(const ModulePtr& module,
                                                       const std::string& name) {
    return registered<SurfaceReference>(module, name);
}

void ReferenceVariable::require_bound(const char* what) const {
    if (state_ == BindState::Ready || !context_)
        return;
    std::string who = "reference '" + name_ + "'";
    if (state_ == BindState::Failed)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, what,
                        who + " could not be bound with its settings: " + failure_);
    throw CudaError(CUDA_ERROR_INVALID_HANDLE, what,
                    who + " was never bound: bind memory or an array to it (set_array, "
                          "set_address, GPUArray.bind_to_texref_ext) before the launch");
}

void ReferenceVariable::publish(std::uint64_t handle) {
    memcpy_htod(variable_, &handle, sizeof handle);
}

template <typename Object, typename Make>
void ReferenceVariable::republish(std::unique_ptr<Object>& current, Make&& make, bool strict) {
    if (!context_)
        return;
    ModulePtr module = module_.lock(); // the variable lives as long as its module
    if (!module)
        throw CudaError(CUDA_ERROR_INVALID_HANDLE, name_.c_str(), "its module was unloaded");
    ScopedActivation active(*context_);
    try {
        std::unique_ptr<Object> next = make();
        publish(next->handle());
        current = std::move(next); // the old object goes only now: see the header on ordering
        state_ = BindState::Ready;
        failure_.clear();
    } catch (const std::exception& e) {
        std::exception_ptr failure = std::current_exception();
        failure_ = e.what();
        state_ = BindState::Failed;
        try {
            publish(0); // reads give zeros rather than an object about to be destroyed
            current.reset();
        } catch (const std::exception&) {
            // the variable still names the old object, which then stays alive
        }
        if (strict)
            std::rethrow_exception(failure);
    }
}

void TextureReference::format_from_declaration() {
    if (declaration_.format != 0 && declaration_.channels != 0) {
        format_ = static_cast<CUarray_format>(declaration_.format);
        channels_ = declaration_.channels;
    }
}

std::size_t TextureReference::texture_alignment() const {
    ContextPtr ctx = context_ ? context_ : Context::require_current("set_address");
    return static_cast<std::size_t>(ctx->device().attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT));
}

void TextureReference::update(bool strict) {
    if (resource_.kind == TextureResource::Kind::None)
        return;
    if (!has_module()) {
        state_ = BindState::Ready;
        return;
    }
    TextureResource resource = resource_;
    if (resource.kind != TextureResource::Kind::Array) {
        resource.format = format_;
        resource.channels = channels_;
    }
    TextureSampling sampling = sampling_;
    sampling.flags = effective_flags(sampling_.flags, declaration(), format_);
    republish(
        object_, [&] { return std::make_unique<TextureObject>(resource, sampling); }, strict);
}

void TextureReference::set_array(ArrayPtr array) {
    if (!array)
        throw std::invalid_argument("set_array: the array is None");
    CUDA_ARRAY3D_DESCRIPTOR d = array->descriptor_3d();
    resource_ = TextureResource{};
    resource_.kind = TextureResource::Kind::Array;
    resource_.array = std::move(array);
    format_ = d.Format;
    channels_ = d.NumChannels;
    update(true);
}

std::size_t TextureReference::set_address(CUdeviceptr ptr, std::size_t bytes, bool allow_offset,
                                          std::shared_ptr<const void> owner) {
    return bind_linear(ptr, bytes, allow_offset, format_, channels_, sampling_.flags,
                       std::move(owner));
}

std::size_t TextureReference::bind_linear(CUdeviceptr ptr, std::size_t bytes, bool allow_offset,
                                          CUarray_format format, unsigned channels, unsigned flags,
                                          std::shared_ptr<const void> owner) {
    auto [aligned, offset] = align_down(ptr, texture_alignment());
    if (offset != 0 && !allow_offset)
        throw std::invalid_argument(
            "set_address: the address is " + std::to_string(offset) +
            " bytes past the texture alignment; pass allow_offset=True and add the returned "
            "offset (in bytes) to your texture indices");
    if (format_channel_bytes(format) == 0 || (channels != 1 && channels != 2 && channels != 4))
        throw std::invalid_argument("set_format: not an array_format with 1, 2 or 4 channels");
    TextureResource r;
    r.kind = TextureResource::Kind::Linear;
    r.ptr = aligned;
    r.bytes = bytes + offset;
    r.owner = std::move(owner);
    resource_ = std::move(r);
    format_ = format;
    channels_ = channels;
    sampling_.flags = flags;
    update(true);
    return offset;
}

void TextureReference::set_address_2d(CUdeviceptr ptr, const CUDA_ARRAY_DESCRIPTOR& descriptor,
                                      std::size_t pitch, std::shared_ptr<const void> owner) {
    if (format_channel_bytes(descriptor.Format) == 0)
        throw std::invalid_argument("set_address_2d: the descriptor's format is not set");
    TextureResource r;
    r.kind = TextureResource::Kind::Pitch2D;
    r.ptr = ptr;
    r.width = descriptor.Width;
    r.height = descriptor.Height;
    r.pitch = pitch;
    r.owner = std::move(owner);
    resource_ = std::move(r);
    format_ = descriptor.Format;
    channels_ = descriptor.NumChannels;
    update(true);
}

void TextureReference::set_format(CUarray_format format, unsigned channels) {
    if (format_channel_bytes(format) == 0)
        throw std::invalid_argument("set_format: " + std::to_string(static_cast<int>(format)) +
                                    " is not an array_format");
    if (channels != 1 && channels != 2 && channels != 4)
        throw std::invalid_argument("set_format: num_components must be 1, 2 or 4, got " +
                                    std::to_string(channels));
    format_ = format;
    channels_ = channels;
    if (resource_.kind != TextureResource::Kind::Array) // an array keeps its own format
        update();
}

void TextureReference::set_address_mode(int dim, CUaddress_mode mode) {
    if (dim < 0 || dim > 2)
        throw std::invalid_argument("set_address_mode: dim must be 0, 1 or 2, got " +
                                    std::to_string(dim));
    if (mode < CU_TR_ADDRESS_MODE_WRAP || mode > CU_TR_ADDRESS_MODE_BORDER)
        throw std::invalid_argument("set_address_mode: not an address_mode");
    sampling_.address_mode[static_cast<std::size_t>(dim)] = mode;
    update();
}

CUaddress_mode TextureReference::address_mode(int dim) const {
    if (dim < 0 || dim > 2)
        throw std::invalid_argument("get_address_mode: dim must be 0, 1 or 2");
    return sampling_.address_mode[static_cast<std::size_t>(dim)];
}

void TextureReference::set_filter_mode(CUfilter_mode mode) {
    if (mode != CU_TR_FILTER_MODE_POINT && mode != CU_TR_FILTER_MODE_LINEAR)
        throw std::invalid_argument("set_filter_mode: not a filter_mode (POINT or LINEAR)");
    sampling_.filter_mode = mode;
    update();
}

void TextureReference::set_flags(unsigned flags) {
    sampling_.flags = flags;
    update();
}

void TextureReference::set_border_color(const std::array<float, 4>& color) {
    sampling_.border_color = color;
    update();
}

void SurfaceReference::set_array(ArrayPtr array, unsigned flags) {
    if (!array)
        throw std::invalid_argument("SurfaceReference.set_array: the array is None");
    if (flags != 0)
        throw std::invalid_argument("SurfaceReference.set_array: flags must be 0");
    array_ = array;
    republish(
        object_, [&] { return std::make_unique<SurfaceObject>(array); }, true);
}

} // namespace pycuda
