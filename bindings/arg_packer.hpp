// bindings/arg_packer.hpp: packing Python kernel arguments into a parameter buffer (in C++).
//
// The one place where bindings hold logic (style.md): the launch hot path. __call__ packs by
// the arguments' types (NumPy scalars, device memory, arrays, In/Out handlers); prepared calls
// pack by the prepare() format. Where the driver reports the kernel's parameters, each goes at
// the driver's offset; a NumPy scalar of another size is converted to the parameter's size as C
// converts it, with a warning where the value changes (docs/migrating.md, "Arguments the
// original reinterprets").
#pragma once

#include "core/function.hpp"
#include "core/kernel_params.hpp"

#include <nanobind/nanobind.h>

#include <string>
#include <vector>

namespace nb = nanobind;

namespace pycuda::bindings {

/// A parameter buffer: a stack array, growing to the heap only for large parameter lists.
class ArgBuffer {
public:
    /// `info` (may be null) is the kernel's parameter list from the driver; `kernel` names it
    /// in error messages.
    ArgBuffer(const std::vector<ParamInfo>* info, const std::string* kernel)
        : info_(info), kernel_(kernel) {}
    /// A buffer filled by a prepare() layout: each parameter at its slot's offset.
    ArgBuffer(const ParamLayout* layout, const std::string* kernel)
        : info_(nullptr), layout_(layout), kernel_(kernel) {}
    ArgBuffer(const ArgBuffer&) = delete;
    ArgBuffer& operator=(const ArgBuffer&) = delete;

    /// Places parameter `index` (n bytes, C alignment `align`): at the layout's or the driver's
    /// offset when known (TypeError if n is not the size expected), else at the next aligned
    /// spot after the previous parameter.
    void put(std::size_t index, const void* src, std::size_t n, std::size_t align);
    /// TypeError unless `nargs` is the kernel's parameter count (when the driver told it).
    void check_count(std::size_t nargs) const;
    /// The size the driver gives parameter `index`, or 0 where it is not known.
    std::size_t declared_size(std::size_t index) const noexcept {
        return info_ != nullptr && index < info_->size() ? (*info_)[index].size : 0;
    }

    void* data() noexcept { return buf_; }
    std::size_t size() const noexcept { return size_; }
    const std::string& kernel() const noexcept { return *kernel_; }

    /// In/Out/InOut handlers met while packing (borrowed from the argument tuple).
    std::vector<nb::handle> handlers;

private:
    void grow(std::size_t needed);

    const std::vector<ParamInfo>* info_;
    const ParamLayout* layout_ = nullptr;
    const std::string* kernel_;
    alignas(16) unsigned char stack_[512];
    std::vector<unsigned char> heap_;
    unsigned char* buf_ = stack_;
    std::size_t capacity_ = sizeof(stack_);
    std::size_t size_ = 0;
};

/// __call__ packing: each argument by its type. Python ints and floats are TypeError (their C
/// size is unknown); use NumPy scalars. Where the driver gives a parameter another size than a
/// scalar's, the scalar's value is converted to it as C converts it: silently where the value
/// is kept, with an ArgumentConversionWarning (pycuda._user_warnings) where it is rounded,
/// wrapped or truncated, and TypeError only for sizes no number has.
void pack_by_type(ArgBuffer& buf, PyObject* const* args, std::size_t nargs);

/// prepared_call packing: argument i converted to the type of format slot i.
void pack_by_layout(ArgBuffer& buf, const ParamLayout& layout, PyObject* const* args,
                    std::size_t nargs);

/// Grid or block from a tuple or list of 1 to 3 positive ints (NumPy ints too): TypeError or
/// ValueError naming `what` otherwise. (Defined with the launches, in bindings/function.cpp.)
Dim3 parse_dims(PyObject* obj, const char* what);

/// A dynamic shared-memory size in bytes (a non-negative int below 2**32).
unsigned shared_bytes(PyObject* obj);

/// prepare()'s layout matched to the kernel's parameters from the driver: their offsets win, a
/// bare 'V' takes its size, and a number slot of another size than the parameter's becomes the
/// code of that size and kind ('i' for a size_t becomes 'q'), so prepared calls convert the
/// value to it. A count mismatch, or a pointer or blob of the wrong size, is TypeError.
void match_kernel_params(ParamLayout& layout, const std::vector<ParamInfo>& info,
                         const std::string& kernel, const std::string& format);

/// The prepare() format for `arg_types`: NumPy scalar types and dtypes give their char (or
/// "%ds" for structured dtypes), strings are used verbatim, anything else is a pointer "P".
std::string format_from_arg_types(nb::handle arg_types);

/// Releases the argument types cached for __call__ and caches none from then on: called at
/// exit (pycuda/driver.py), so that the classes are freed before the interpreter is torn down.
void forget_argument_types();

} // namespace pycuda::bindings
