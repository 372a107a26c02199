// core/texture_reference.hpp: the texture- and surface-reference API, emulated with objects.
//
// CUDA 12 removed references. pycuda.compiler rewrites `texture<T, dim, mode> name;` into a
// __device__ variable (pycuda-texref.hpp) that holds a texture object handle plus a few constant
// words describing the declaration. A TextureReference remembers its settings (memory or array,
// format, address and filter modes, flags); whenever a setter changes them it makes a new
// texture object and writes its handle into the variable at once ("eager"), so any later launch
// of any kernel of the module sees it, with no work on the launch path.
//
// Lifetime: as CUDA 11 references belonged to their module, the state of `name` in a module is
// one object shared by every get_texref(name) (TextureReference::of), kept in a registry while
// the module lives, so a temporary reference's binding holds. The registry holds modules weakly;
// entries of unloaded modules (their objects and arrays) go at the next look-up of any module.
//
// Ordering: the handle is written with a synchronous cuMemcpyHtoD from pageable memory, which
// synchronizes the legacy default stream first, so kernels launched earlier on blocking streams
// have finished with the old object when it is destroyed right after. Rebinding while a kernel
// of a non-blocking stream still reads the texture is a race, as it was with CUDA 11 references.
#pragma once

#include "core/module.hpp"
#include "core/texture_object.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace pycuda {

/// The __device__ variable a declaration becomes (pycuda::texref / pycuda::surfref).
struct ReferenceLayout {
    std::uint64_t object;
    std::uint32_t magic, dim, read_mode, format, channels, reserved;
};
static_assert(sizeof(ReferenceLayout) == 32, "must match pycuda-texref.hpp");
inline constexpr std::uint32_t texref_magic = 0x58544350u;  // "PCTX"
inline constexpr std::uint32_t surfref_magic = 0x46534350u; // "PCSF"

/// What a declaration says: dimensionality (cudaTextureType*), read mode (0 element type,
/// 1 normalized float), and the CUarray_format/channels of its texel type (0 when none fits).
struct Declaration {
    unsigned dim = 1;
    unsigned read_mode = 0;
    unsigned format = 0;
    unsigned channels = 0;
};

/// The declaration in a variable's bytes; std::invalid_argument naming `name` when they are
/// not a texture (surface, when `surface`) reference.
Declaration parse_declaration(const void* bytes, std::size_t size, bool surface,
                              const std::string& name);

/// The flags the object gets: the user's, with CU_TRSF_READ_AS_INTEGER set or cleared as the
/// declaration's read mode needs for `format` (element-type reads of integer texels must
/// return integers, normalized reads must not). Without a declaration, the user's flags.
unsigned effective_flags(unsigned user_flags, const Declaration* declaration,
                         CUarray_format format);

/// `ptr` rounded down to `alignment` (a power of two), and the byte offset that was cut off.
std::pair<CUdeviceptr, std::size_t> align_down(CUdeviceptr ptr, std::size_t alignment);

/// Whether a reference's variable holds a usable object.
enum class BindState { Unbound, Ready, Failed };

/// The variable of one declaration in a module, and the publishing of handles into it.
class ReferenceVariable {
public:
    /// Standalone (no module): settings only.
    ReferenceVariable() = default;
    /// Looks `name` up in `module` and reads its declaration.
    ReferenceVariable(const ModulePtr& module, const std::string& name, bool surface);

    const std::string& name() const noexcept { return name_; }
    const Declaration* declaration() const noexcept { return context_ ? &declaration_ : nullptr; }
    BindState state() const noexcept { return state_; }
    const std::string& failure() const noexcept { return failure_; }
    /// CudaError(INVALID_HANDLE) saying the reference was never bound (or why binding failed),
    /// unless it is ready; `what` names the caller.
    void require_bound(const char* what) const;

protected:
    /// Makes a new object with `make` in the module's context and publishes it. A failure is
    /// kept (state Failed, handle 0 published) for the launch check, and raised at once when
    /// `strict` (the setters that bind memory or an array: the driver's verdict on the
    /// resource). The other setters defer it, as their settings may be mid-way to a valid set.
    template <typename Object, typename Make>
    void republish(std::unique_ptr<Object>& current, Make&& make, bool strict);
    void publish(std::uint64_t handle);
    bool has_module() const noexcept { return static_cast<bool>(context_); }
    std::weak_ptr<Module> module_;
    ContextPtr context_; // of the module; null when standalone
    CUdeviceptr variable_ = 0;
    std::string name_;
    Declaration declaration_;
    BindState state_ = BindState::Unbound;
    std::string failure_;
};

/// A texture reference: Module.get_texref(name), or standalone (TextureReference()).
class TextureReference : public ReferenceVariable {
public:
    /// Standalone: a holder of settings (TextureReference() in Python).
    TextureReference() = default;
    TextureReference(const ModulePtr& module, const std::string& name)
        : ReferenceVariable(module, name, false) {
        format_from_declaration();
    }
    /// The one reference of `name` in `module` (made on first use).
    static std::shared_ptr<TextureReference> of(const ModulePtr& module, const std::string& name);

    /// Binds an array; its format and channels replace the reference's.
    void set_array(ArrayPtr array);
    /// Binds `bytes` of linear memory at `ptr`. A `ptr` not aligned as textures need is rounded
    /// down; the offset in bytes is returned, and is std::invalid_argument unless `allow_offset`.
    std::size_t set_address(CUdeviceptr ptr, std::size_t bytes, bool allow_offset,
                            std::shared_ptr<const void> owner);
    /// Binds pitched 2D memory: `descriptor` gives width, height, format and channels.
    void set_address_2d(CUdeviceptr ptr, const CUDA_ARRAY_DESCRIPTOR& descriptor, std::size_t pitch,
                        std::shared_ptr<const void> owner);
    /// set_address, set_format and set_flags in one step (one object made, not three).
    std::size_t bind_linear(CUdeviceptr ptr, std::size_t bytes, bool allow_offset,
                            CUarray_format format, unsigned channels, unsigned flags,
                            std::shared_ptr<const void> owner);
    void set_format(CUarray_format format, unsigned channels);
    void set_address_mode(int dim, CUaddress_mode mode);
    void set_filter_mode(CUfilter_mode mode);
    void set_flags(unsigned flags);
    void set_border_color(const std::array<float, 4>& color);

    /// The bound device address (0 for an array or nothing).
    CUdeviceptr address() const noexcept { return resource_.ptr; }
    const ArrayPtr& array() const noexcept { return resource_.array; }
    CUaddress_mode address_mode(int dim) const;
    CUfilter_mode filter_mode() const noexcept { return sampling_.filter_mode; }
    std::pair<CUarray_format, unsigned> format() const noexcept { return {format_, channels_}; }
    unsigned flags() const noexcept { return sampling_.flags; }
    const std::array<float, 4>& border_color() const noexcept { return sampling_.border_color; }
    /// The current object's handle (0 when unbound or standalone).
    CUtexObject object_handle() const noexcept { return object_ ? object_->handle() : 0; }

private:
    void format_from_declaration();
    std::size_t texture_alignment() const;
    void update(bool strict = false);
    TextureResource resource_;
    TextureSampling sampling_;
    CUarray_format format_ = CU_AD_FORMAT_FLOAT;
    unsigned channels_ = 1;
    std::unique_ptr<TextureObject> object_;
};

/// A surface reference: Module.get_surfref(name).
class SurfaceReference : public ReferenceVariable {
public:
    SurfaceReference(const ModulePtr& module, const std::string& name)
        : ReferenceVariable(module, name, true) {}
    /// The one reference of `name` in `module` (made on first use).
    static std::shared_ptr<SurfaceReference> of(const ModulePtr& module, const std::string& name);
    /// Binds an array made with SURFACE_LDST; `flags` must be 0 (as in CUDA).
    void set_array(ArrayPtr array, unsigned flags);
    const ArrayPtr& array() const noexcept { return array_; }
    CUsurfObject object_handle() const noexcept { return object_ ? object_->handle() : 0; }

private:
    ArrayPtr array_;
    std::unique_ptr<SurfaceObject> object_;
};

/// Drops the registry's references (their objects, and the arrays and memory they hold) of
/// every module. Called at interpreter exit (pycuda._textures registers it with atexit), while
/// the driver and Python can still release them; references held elsewhere stay valid.
void forget_all_references();

} // namespace pycuda
