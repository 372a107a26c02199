// bindings/dlpack.cpp: DLPack capsules for pycuda._driver (_dlpack_export, _dlpack_import).
//
// The Python side of the protocol (streams, max_version, dl_device, copy) is in
// python/pycuda/_interop.py; this file only turns (pointer, shape, strides, dtype, owner) into a
// capsule and back, following https://dmlc.github.io/dlpack/latest/python_spec.html.
#include "bindings/python_api.hpp"
#include "core/dlpack.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/unique_ptr.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace nb = nanobind;

namespace pycuda::bindings {

namespace {

using namespace pycuda::dlpack;

[[noreturn]] void throw_buffer_error(const std::string& message) {
    PyErr_SetString(PyExc_BufferError, message.c_str());
    throw nb::python_error();
}

/// What the exporter's manager_ctx points at: the managed tensor, the shape and strides it points
/// into, and a strong reference to the object that keeps the memory alive.
template <typename Managed>
struct Export {
    Managed managed{};
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> strides;
    PyObject* owner = nullptr;
};

/// True while Python objects may still be released (not during or after finalization).
bool python_alive() { return Py_IsInitialized() && !pyapi::is_finalizing(); }

/// The deleter we hand consumers. It may run on any thread, with or without the GIL (PyTorch and
/// CuPy call it from their own destructors), so it takes the GIL itself. After the interpreter
/// has begun to finalize, touching the owner is unsafe: its reference is leaked on purpose.
template <typename Managed>
void export_deleter(Managed* self) noexcept {
    std::unique_ptr<Export<Managed>> ctx(static_cast<Export<Managed>*>(self->manager_ctx));
    if (!python_alive())
        return;
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_XDECREF(ctx->owner);
    PyGILState_Release(gil);
}

/// Capsule destructor: a capsule nobody consumed (name unchanged) still owns its tensor.
template <typename Managed>
void capsule_destructor(PyObject* capsule) noexcept {
    const char* name =
        std::is_same_v<Managed, DLManagedTensor> ? kCapsuleName : kVersionedCapsuleName;
    if (!PyCapsule_IsValid(capsule, name))
        return; // consumed: the consumer calls the deleter
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback); // GetPointer must not see a pending error
    auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule, name));
    if (managed && managed->deleter)
        managed->deleter(managed);
    PyErr_Restore(type, value, traceback);
}

// This and dtype_name below mirror the DLPack codes of python/pycuda/_dtypes.py's rows;
// tests/test_dtypes.py checks both against every row (a new dtype with a DLPack code needs a
// line in each).
/// The DLDataType of a numpy dtype; TypeError for anything DLPack cannot describe.
DLDataType data_type_of(nb::handle dtype) {
    std::string kind = nb::cast<std::string>(dtype.attr("kind"));
    std::string name = nb::cast<std::string>(dtype.attr("name"));
    auto itemsize = nb::cast<std::size_t>(dtype.attr("itemsize"));
    auto bits = static_cast<std::uint8_t>(itemsize * 8);
    bool native = nb::cast<std::string>(dtype.attr("byteorder")) != ">";
    if (name == "bfloat16" && itemsize == 2)
        return {kDLBfloat, 16, 1};
    if (native && kind == "b" && itemsize == 1)
        return {kDLBool, 8, 1};
    if (native && (kind == "i" || kind == "u") &&
        (itemsize == 1 || itemsize == 2 || itemsize == 4 || itemsize == 8))
        return {kind == "i" ? kDLInt : kDLUInt, bits, 1};
    if (native && kind == "f" && (itemsize == 2 || itemsize == 4 || itemsize == 8))
        return {kDLFloat, bits, 1};
    if (native && kind == "c" && (itemsize == 8 || itemsize == 16))
        return {kDLComplex, bits, 1};
    throw nb::type_error(("DLPack cannot describe dtype " + nb::cast<std::string>(nb::str(dtype)) +
                          ": bool, (u)int8-64, float16/32/64, bfloat16 and complex64/128 in "
                          "native byte order are supported")
                             .c_str());
}

/// Fills `ex` with shape and element strides from Python tuples (strides in bytes or None).
template <typename Managed>
void fill_layout(Export<Managed>& ex, nb::handle shape, nb::handle strides_bytes,
                 std::size_t itemsize) {
    for (nb::handle n : shape) {
        auto extent = nb::cast<std::int64_t>(n);
        if (extent < 0)
            throw nb::value_error("DLPack export: shape entries must not be negative");
        ex.shape.push_back(extent);
    }
    if (strides_bytes.is_none()) { // C-contiguous
        ex.strides.assign(ex.shape.size(), 1);
        for (std::size_t i = ex.shape.size(); i-- > 1;)
            ex.strides[i - 1] = ex.strides[i] * std::max<std::int64_t>(ex.shape[i], 1);
        return;
    }
    for (nb::handle s : strides_bytes) {
        auto stride = nb::cast<std::int64_t>(s);
        if (stride % static_cast<std::int64_t>(itemsize) != 0)
            throw nb::value_error(("DLPack export: stride of " + std::to_string(stride) +
                                   " bytes is not a multiple of the item size (" +
                                   std::to_string(itemsize) +
                                   "); DLPack counts strides in elements. Copy the array first.")
                                      .c_str());
        ex.strides.push_back(stride / static_cast<std::int64_t>(itemsize));
    }
    if (ex.strides.size() != ex.shape.size())
        throw nb::value_error("DLPack export: shape and strides differ in length");
}

/// Builds the capsule; ownership of `owner` (a new reference) passes to the managed tensor.
template <typename Managed>
nb::object make_capsule(std::uintptr_t ptr, nb::handle shape, nb::handle strides_bytes,
                        nb::handle dtype, DLDevice device, nb::handle owner, std::uint64_t flags) {
    auto ex = std::make_unique<Export<Managed>>();
    // Non-null shape and strides also for 0-d tensors: some consumers read them unconditionally,
    // and DLPack 1.x producers should not rely on null strides meaning C-contiguous.
    ex->shape.reserve(8);
    ex->strides.reserve(8);
    DLDataType type = data_type_of(dtype);
    fill_layout(*ex, shape, strides_bytes, nb::cast<std::size_t>(dtype.attr("itemsize")));
    DLTensor& t = ex->managed.dl_tensor;
    t = DLTensor{reinterpret_cast<void*>(ptr),
                 device,
                 static_cast<std::int32_t>(ex->shape.size()),
                 type,
                 ex->shape.data(),
                 ex->strides.data(),
                 0};
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
        ex->managed.version = {kMajorVersion, kMinorVersion};
        ex->managed.flags = flags;
    }
    ex->managed.manager_ctx = ex.get();
    ex->managed.deleter = &export_deleter<Managed>;
    const char* name =
        std::is_same_v<Managed, DLManagedTensor> ? kCapsuleName : kVersionedCapsuleName;
    PyObject* capsule = PyCapsule_New(&ex->managed, name, &capsule_destructor<Managed>);
    if (!capsule)
        throw nb::python_error();
    ex->owner = nb::borrow(owner).release().ptr();
    ex.release(); // now owned by the capsule (or by whoever consumes it)
    return nb::steal(capsule);
}

nb::object dlpack_export(std::uintptr_t ptr, nb::handle shape, nb::handle strides_bytes,
                         nb::handle dtype, int device_id, nb::handle owner, bool versioned,
                         bool read_only, bool copied, bool managed) {
    nb::object np_dtype = nb::module_::import_("numpy").attr("dtype")(dtype);
    DLDevice device{managed ? kDLCUDAManaged : kDLCUDA, device_id};
    if (!versioned) {
        if (read_only)
            throw_buffer_error("a read-only array cannot be exported as a legacy DLPack capsule "
                               "(it cannot say read-only); ask for max_version=(1, 0)");
        return make_capsule<DLManagedTensor>(ptr, shape, strides_bytes, np_dtype, device, owner, 0);
    }
    std::uint64_t flags = (read_only ? kFlagReadOnly : 0) | (copied ? kFlagIsCopied : 0);
    return make_capsule<DLManagedTensorVersioned>(ptr, shape, strides_bytes, np_dtype, device,
                                                  owner, flags);
}

/// What a consumer holds for an imported tensor: calls the producer's deleter when collected.
class DLPackHolder {
public:
    DLPackHolder(bool versioned, bool read_only) : versioned_(versioned), read_only_(read_only) {}
    ~DLPackHolder() {
        if (release_)
            release_();
    }
    DLPackHolder(const DLPackHolder&) = delete;
    DLPackHolder& operator=(const DLPackHolder&) = delete;
    /// Takes ownership of the tensor: `release` runs once, when the holder goes.
    void own(std::function<void()> release) { release_ = std::move(release); }
    bool versioned() const noexcept { return versioned_; }
    bool read_only() const noexcept { return read_only_; }

private:
    std::function<void()> release_;
    bool versioned_;
    bool read_only_;
};

/// The numpy name of a DLDataType; TypeError for what we have no dtype for.
std::string dtype_name(DLDataType t) {
    std::string bits = std::to_string(t.bits);
    bool int_bits = t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    if (t.lanes == 1) {
        if (t.code == kDLBool && t.bits == 8)
            return "bool";
        if ((t.code == kDLInt || t.code == kDLUInt) && int_bits)
            return (t.code == kDLInt ? "int" : "uint") + bits;
        if (t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64))
            return "float" + bits;
        if (t.code == kDLBfloat && t.bits == 16)
            return "bfloat16";
        if (t.code == kDLComplex && (t.bits == 64 || t.bits == 128))
            return "complex" + bits;
    }
    throw nb::type_error(("DLPack import: unsupported data type (code " + std::to_string(t.code) +
                          ", " + bits + " bits, " + std::to_string(t.lanes) +
                          " lanes); bool, (u)int8-64, float16/32/64, bfloat16 and complex64/128 "
                          "with one lane are supported")
                             .c_str());
}

/// BufferError unless the tensor is in CUDA device (or managed) memory.
void require_cuda_device(const DLDevice& device) {
    if (device.device_type == kDLCUDA || device.device_type == kDLCUDAManaged)
        return;
    std::string type = std::to_string(device.device_type);
    if (device.device_type == kDLCPU || device.device_type == kDLCUDAHost)
        throw_buffer_error("DLPack import: the array lives on the host (device type " + type +
                           "), not on a CUDA device; copy it to the GPU with "
                           "pycuda.gpuarray.to_gpu(numpy.asarray(x)) instead");
    throw_buffer_error("DLPack import: the array is on device type " + type +
                       ", not CUDA (2) or CUDA managed (13)");
}

/// Reads and validates a tensor; everything that can fail happens before the capsule is consumed.
nb::list describe(const DLTensor& t) {
    require_cuda_device(t.device);
    std::string name = dtype_name(t.dtype);
    if (t.ndim < 0 || (t.ndim > 0 && t.shape == nullptr))
        throw nb::value_error("DLPack import: the tensor has a negative ndim or no shape");
    auto itemsize = static_cast<std::int64_t>(t.dtype.bits / 8);
    nb::list shape, strides;
    for (std::int32_t i = 0; i < t.ndim; ++i) {
        shape.append(t.shape[i]);
        if (t.strides)
            strides.append(t.strides[i] * itemsize);
    }
    std::uintptr_t ptr = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
    nb::object strides_out = t.strides ? nb::object(nb::tuple(strides)) : nb::none();
    nb::list out;
    for (nb::object item : {nb::cast(ptr), nb::object(nb::tuple(shape)), strides_out,
                            nb::object(nb::str(name.c_str())), nb::cast(int(t.device.device_type)),
                            nb::cast(t.device.device_id)})
        out.append(item);
    return out;
}

/// Consumes a capsule holding `Managed`: validates, renames it to `used_name`, and returns the
/// import tuple whose holder now calls the producer's deleter.
template <typename Managed>
nb::tuple consume(nb::handle capsule, const char* name, const char* used_name) {
    auto* managed = static_cast<Managed*>(PyCapsule_GetPointer(capsule.ptr(), name));
    if (!managed)
        throw nb::python_error();
    bool versioned = std::is_same_v<Managed, DLManagedTensorVersioned>;
    bool read_only = false;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
        // The spec: nothing past `version` may be read when the major version is unknown.
        if (managed->version.major != kMajorVersion)
            throw_buffer_error("DLPack import: the producer's DLPack major version is " +
                               std::to_string(managed->version.major) + "; we support " +
                               std::to_string(kMajorVersion) + ".x");
        read_only = (managed->flags & kFlagReadOnly) != 0;
    }
    nb::list out = describe(managed->dl_tensor);
    nb::object holder = nb::cast(std::make_unique<DLPackHolder>(versioned, read_only));
    if (PyCapsule_SetName(capsule.ptr(), used_name) != 0)
        throw nb::python_error();
    nb::cast<DLPackHolder&>(holder).own([managed] {
        if (managed->deleter)
            managed->deleter(managed);
    });
    out.append(holder);
    return nb::tuple(out);
}

nb::tuple dlpack_import(nb::handle capsule) {
    if (!PyCapsule_CheckExact(capsule.ptr()))
        throw nb::type_error(("DLPack import: expected a DLPack capsule (from x.__dlpack__()), "
                              "got " +
                              std::string(nb::type_name(capsule.type()).c_str()))
                                 .c_str());
    const char* raw = PyCapsule_GetName(capsule.ptr());
    std::string name = raw ? raw : "";
    if (name == kCapsuleName)
        return consume<DLManagedTensor>(capsule, kCapsuleName, kUsedCapsuleName);
    if (name == kVersionedCapsuleName)
        return consume<DLManagedTensorVersioned>(capsule, kVersionedCapsuleName,
                                                 kUsedVersionedCapsuleName);
    if (name == kUsedCapsuleName || name == kUsedVersionedCapsuleName)
        throw nb::value_error("DLPack import: this capsule was already consumed (a capsule can be "
                              "imported once); call __dlpack__() again for a new one");
    throw nb::type_error(("DLPack import: a capsule named '" + name +
                          "' is not a DLPack capsule ('dltensor' or 'dltensor_versioned')")
                             .c_str());
}

} // namespace

void bind_dlpack(nb::module_& m) {
    nb::class_<DLPackHolder>(m, "_DLPackHolder",
                             "Keeps memory imported through DLPack alive: the producer's deleter "
                             "runs when this object is collected.")
        .def_prop_ro("versioned", &DLPackHolder::versioned,
                     "True for a DLPack 1.x (dltensor_versioned) capsule.")
        .def_prop_ro("read_only", &DLPackHolder::read_only,
                     "True when the producer flagged the tensor read-only.");
    m.def("_dlpack_export", &dlpack_export, nb::arg("ptr"), nb::arg("shape"),
          nb::arg("strides_bytes").none(), nb::arg("dtype"), nb::arg("device_id"),
          nb::arg("owner").none(), nb::arg("versioned"), nb::arg("read_only") = false,
          nb::arg("copied") = false, nb::arg("managed") = false,
          "A DLPack capsule ('dltensor_versioned' or legacy 'dltensor') describing device memory "
          "at `ptr`; it keeps `owner` alive until the consumer is done. Strides are in bytes "
          "(None: C-contiguous). `managed` marks CUDA managed memory (kDLCUDAManaged).");
    m.def("_dlpack_import", &dlpack_import, nb::arg("capsule"),
          "Consumes a DLPack capsule: (ptr, shape, strides_bytes or None, dtype name, "
          "device_type, device_id, holder). Keep `holder` alive as long as the memory is used.");
}

} // namespace pycuda::bindings
