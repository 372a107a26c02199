// bindings/arg_packer.cpp: classifying and packing kernel arguments.
#include "bindings/arg_packer.hpp"
#include "bindings/checked_int.hpp"

#include "bindings/array_base.hpp"

#include "bindings/pointer.hpp"
#include "bindings/python_api.hpp"
#include "core/scalar_conversion.hpp"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace pycuda::bindings {

namespace {

[[noreturn]] void raise_type_error(const std::string& message) {
    throw nb::type_error(message.c_str());
}

std::string type_name(PyObject* obj) {
    return pyapi::type_name(Py_TYPE(obj));
}

std::string param_label(const ArgBuffer& buf, std::size_t index) {
    return "parameter " + std::to_string(index) + " (0-based) of kernel '" + buf.kernel() + "'";
}

/// NumPy's types, looked up once (numpy is a hard dependency of pycuda).
struct NumpyTypes {
    PyTypeObject* generic;
    PyTypeObject* void_;
    PyTypeObject* ndarray;
    PyObject* memoryview_type;
    nb::handle dtype_cls; // leaked on purpose: statics outlive the interpreter
};

const NumpyTypes& numpy_types() {
    static const NumpyTypes types = [] {
        nb::module_ np = nb::module_::import_("numpy");
        auto type_of = [](nb::handle h) {
            return reinterpret_cast<PyTypeObject*>(h.inc_ref().ptr());
        };
        return NumpyTypes{type_of(np.attr("generic")), type_of(np.attr("void")),
                          type_of(np.attr("ndarray")),
                          reinterpret_cast<PyObject*>(&PyMemoryView_Type),
                          nb::object(np.attr("dtype")).release()};
    }();
    return types;
}

/// Whether `t` is an In/Out/InOut handler class. ArgumentHandler is looked up each time (a type
/// is classified once): held in a static, the class would keep pycuda._arg_handlers' globals,
/// with the pools and Contexts they hold, alive past the interpreter's teardown (issue 22).
bool is_argument_handler(PyTypeObject* t) {
    // NULL without an error when it is not imported (or sys.modules is gone, at teardown).
    nb::object module = nb::steal(PyImport_GetModule(nb::str("pycuda._arg_handlers").ptr()));
    if (!module.is_valid()) {
        PyErr_Clear();
        return false;
    }
    nb::object base = nb::getattr(module, "ArgumentHandler", nb::none());
    return PyType_Check(base.ptr()) &&
           PyType_IsSubtype(t, reinterpret_cast<PyTypeObject*>(base.ptr())) != 0;
}

enum class ArgKind : unsigned char {
    Scalar,         // fixed-size NumPy scalar (number, bool, datetime): by value
    VoidScalar,     // np.void structured scalar: its bytes by value
    DeviceObject,   // DeviceAllocation and friends: their pointer
    Handler,        // In/Out/InOut: a device copy's pointer
    NdArray,        // by value, unless it is a view of managed memory
    Array,          // an ArrayBase (GPUArray): its address field
    GpuData,        // has .gpudata (GPUArray-like)
    ArrayInterface, // has __cuda_array_interface__ (CuPy, torch, Numba)
    PyNumber,       // Python int/float: rejected (no C size)
    Unsupported,
};

/// What we learnt about one Python type. Entries hold a reference to their type, so a type's
/// address is never reused while cached.
struct TypeEntry {
    PyTypeObject* type;
    ArgKind kind;
    char code;            // dtype.char for scalars
    char numeric;         // dtype.kind for scalars ('b', 'i', 'u', 'f', 'c', 'm', 'M')
    unsigned short size;  // scalar size
    unsigned short align; // scalar alignment
    int data_offset;      // where a scalar's value sits inside the object, or -1
};

// Shared by all Functions (a type's classification does not depend on the kernel); only
// touched with the GIL held. Emptied, and closed to new entries, at exit
// (forget_argument_types): a class held past the interpreter's teardown keeps what it refers
// to (GPUArray: its operators and their launch table) and nanobind reports those as leaked.
std::vector<TypeEntry> type_cache;
constexpr std::size_t type_cache_limit = 64;
bool type_cache_closed = false;

bool is_subtype(PyTypeObject* t, PyTypeObject* base) {
    return PyType_IsSubtype(t, base) != 0;
}

TypeEntry classify_numpy_scalar(PyObject* obj, TypeEntry entry) {
    const NumpyTypes& np = numpy_types();
    if (is_subtype(entry.type, np.void_)) {
        entry.kind = ArgKind::VoidScalar;
        return entry;
    }
    nb::object dtype = nb::borrow(obj).attr("dtype");
    std::string kind = nb::cast<std::string>(dtype.attr("kind"));
    if (kind.size() != 1 || std::string("biufcmM").find(kind[0]) == std::string::npos)
        return entry; // str_, bytes_, object_: Unsupported
    entry.kind = ArgKind::Scalar;
    entry.code = nb::cast<std::string>(dtype.attr("char"))[0];
    entry.numeric = kind[0];
    entry.size = nb::cast<unsigned short>(dtype.attr("itemsize"));
    entry.align = nb::cast<unsigned short>(dtype.attr("alignment"));
    if (kind[0] == 'c') // CUDA's complex types align like float2/double2, NumPy's like C
        entry.align = static_cast<unsigned short>(std::min<unsigned>(entry.size, 16));
    // NumPy scalars keep their value inline right after the object header; find where through
    // the buffer protocol once, then read it directly on every call.
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_SIMPLE) == 0) {
        auto offset = static_cast<const char*>(view.buf) - reinterpret_cast<const char*>(obj);
        if (view.len == entry.size && offset > 0 && offset < 64)
            entry.data_offset = static_cast<int>(offset);
        PyBuffer_Release(&view);
    } else {
        PyErr_Clear();
    }
    return entry;
}

TypeEntry classify(PyObject* obj) {
    PyTypeObject* t = Py_TYPE(obj);
    const NumpyTypes& np = numpy_types();
    TypeEntry entry{t, ArgKind::Unsupported, 0, 0, 0, 0, -1};
    CUdeviceptr ignored = 0;
    if (is_subtype(t, np.generic))
        return classify_numpy_scalar(obj, entry);
    if (PyLong_Check(obj) || PyFloat_Check(obj) || PyComplex_Check(obj))
        entry.kind = ArgKind::PyNumber;
    else if (try_device_pointer(obj, ignored))
        entry.kind = ArgKind::DeviceObject;
    else if (is_argument_handler(t))
        entry.kind = ArgKind::Handler;
    else if (is_subtype(t, np.ndarray))
        entry.kind = ArgKind::NdArray;
    else if (std::uintptr_t address = 0; array_address(obj, address))
        entry.kind = ArgKind::Array;
    else if (PyObject_HasAttrString(obj, "gpudata"))
        entry.kind = ArgKind::GpuData;
    else if (PyObject_HasAttrString(obj, "__cuda_array_interface__"))
        entry.kind = ArgKind::ArrayInterface;
    return entry;
}

const TypeEntry& lookup(PyObject* obj) {
    PyTypeObject* t = Py_TYPE(obj);
    if (type_cache.capacity() == 0)
        type_cache.reserve(type_cache_limit); // references into it stay valid
    for (const TypeEntry& e : type_cache)
        if (e.type == t)
            return e;
    TypeEntry entry = classify(obj);
    thread_local TypeEntry uncached;
    if (type_cache_closed || type_cache.size() >= type_cache_limit) {
        uncached = entry;
        return uncached;
    }
    Py_INCREF(reinterpret_cast<PyObject*>(t));
    type_cache.push_back(entry);
    return type_cache.back();
}

} // namespace

void forget_argument_types() {
    type_cache_closed = true;
    std::vector<PyTypeObject*> types;
    for (const TypeEntry& e : type_cache)
        types.push_back(e.type);
    type_cache.clear();           // (keeps its capacity: references handed out stay valid)
    for (PyTypeObject* t : types) // last: releasing a class may run Python code
        Py_DECREF(reinterpret_cast<PyObject*>(t));
}

namespace {

/// Alignment of a by-value blob described by a NumPy dtype: CUDA vector types (2 or 4 equal
/// members, up to 16 bytes) align to their size; other structs to their widest member.
std::size_t dtype_alignment(nb::handle dtype, std::size_t nbytes) {
    nb::object fields = nb::borrow(dtype).attr("fields");
    std::size_t itemsize = nb::cast<std::size_t>(dtype.attr("itemsize"));
    if (fields.is_none()) {
        std::size_t align = nb::cast<std::size_t>(dtype.attr("alignment"));
        std::size_t count = itemsize ? nbytes / itemsize : 0;
        return ((count == 2 || count == 4) && nbytes <= 16) ? nbytes : align;
    }
    std::size_t widest = 1, count = 0;
    bool uniform = true;
    nb::object first;
    for (nb::handle value : fields.attr("values")()) {
        nb::handle field_dtype = nb::borrow<nb::tuple>(value)[0];
        widest = std::max(widest, nb::cast<std::size_t>(field_dtype.attr("alignment")));
        if (!first.is_valid())
            first = nb::borrow(field_dtype);
        else if (!first.equal(field_dtype))
            uniform = false;
        ++count;
    }
    if (uniform && (count == 2 || count == 4) && itemsize <= 16 && itemsize == nbytes)
        return itemsize;
    return widest;
}

/// Copies the bytes of a contiguous buffer-protocol object into parameter `index`.
void put_buffer(ArgBuffer& buf, std::size_t index, PyObject* obj, std::size_t align) {
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        raise_type_error(param_label(buf, index) + ": " + type_name(obj) +
                         " passed by value must be a C-contiguous buffer");
    }
    std::size_t n = static_cast<std::size_t>(view.len);
    try {
        buf.put(index, view.buf, n, align);
    } catch (...) {
        PyBuffer_Release(&view);
        throw;
    }
    PyBuffer_Release(&view);
}

/// The device address of an object exposing __cuda_array_interface__.
CUdeviceptr array_interface_pointer(PyObject* obj) {
    nb::object cai = nb::borrow(obj).attr("__cuda_array_interface__");
    PyObject* data = PyDict_Check(cai.ptr()) ? PyDict_GetItemString(cai.ptr(), "data") : nullptr;
    if (!data || !PyTuple_Check(data) || pyapi::tuple_size(data) != 2)
        throw nb::type_error(("__cuda_array_interface__ of " + std::string(type_name(obj)) +
                              " must be a dict whose 'data' is a (pointer, read_only) tuple")
                                 .c_str());
    return checked_int<CUdeviceptr>(pyapi::tuple_item(data, 0),
                                    "__cuda_array_interface__['data'][0] (a device pointer)");
}

/// True when the ndarray views managed memory (its base, or the base's exporter, is one of
/// our device allocations); `ptr` is then the array's own address, valid on the device too
/// (unified addressing), which also covers views starting inside the allocation.
bool managed_array_pointer(PyObject* obj, CUdeviceptr& ptr) {
    nb::object base = nb::borrow(obj).attr("base");
    if (!base.is_none() && PyMemoryView_Check(base.ptr()))
        base = pyapi::memoryview_exporter(base.ptr());
    CUdeviceptr ignored = 0;
    if (!base.is_valid() || base.is_none() || !try_device_pointer(base, ignored))
        return false;
    nb::object data = nb::borrow(obj).attr("__array_interface__")["data"][0];
    ptr = nb::cast<CUdeviceptr>(data);
    return true;
}

void put_pointer(ArgBuffer& buf, std::size_t index, CUdeviceptr ptr) {
    buf.put(index, &ptr, sizeof(ptr), alignof(CUdeviceptr));
}

} // namespace

void ArgBuffer::grow(std::size_t needed) {
    std::size_t capacity = std::max(needed, 2 * capacity_);
    std::vector<unsigned char> bigger(capacity, 0);
    std::memcpy(bigger.data(), buf_, size_);
    heap_ = std::move(bigger);
    buf_ = heap_.data();
    capacity_ = capacity;
}

void ArgBuffer::check_count(std::size_t nargs) const {
    if (info_ != nullptr && nargs != info_->size())
        raise_type_error("kernel '" + *kernel_ + "' takes " + std::to_string(info_->size()) +
                         " arguments, got " + std::to_string(nargs));
}

void ArgBuffer::put(std::size_t index, const void* src, std::size_t n, std::size_t align) {
    std::size_t offset;
    if (layout_ != nullptr) {
        const ParamSlot& slot = layout_->slots[index];
        if (n != slot.size)
            raise_type_error(param_label(*this, index) + ": the format gives it " +
                             std::to_string(slot.size) + " bytes, got " + std::to_string(n));
        offset = slot.offset;
    } else if (info_ != nullptr) {
        if (index >= info_->size())
            check_count(index + 1);
        const ParamInfo& p = (*info_)[index];
        if (n != p.size)
            raise_type_error(param_label(*this, index) + " is " + std::to_string(p.size) +
                             " bytes, but the argument given is " + std::to_string(n) + " bytes");
        offset = p.offset;
    } else {
        offset = align_up(size_, align == 0 ? 1 : align);
    }
    if (offset + n > capacity_)
        grow(offset + n);
    if (offset > size_)
        std::memset(buf_ + size_, 0, offset - size_); // padding: deterministic bytes
    std::memcpy(buf_ + offset, src, n);
    size_ = std::max(size_, offset + n);
}

namespace {

/// "1 byte", "4 bytes".
std::string byte_count(std::size_t n) {
    return std::to_string(n) + (n == 1 ? " byte" : " bytes");
}

/// The warning for a scalar converted to another number (Conversion::Inexact): an
/// ArgumentConversionWarning (pycuda._user_warnings) at the user's line, naming the kernel, the
/// parameter and its size, the value given and what the kernel reads.
void warn_converted(const ArgBuffer& buf, std::size_t i, PyObject* arg, const TypeEntry& e,
                    std::size_t want, const unsigned char* converted) {
    nb::handle scalar(arg);
    std::string dtype = nb::cast<std::string>(scalar.attr("dtype").attr("name"));
    // 16 bytes hold a number only as a complex128 or a 128-bit integer: say what else it may be.
    std::string guess = want == 16 && e.numeric != 'c'
                            ? " (a kernel reading a vector or struct there reads other numbers)"
                            : "";
    std::string message = param_label(buf, i) + " is " + byte_count(want) + "; the " + dtype +
                          " value " + nb::str(scalar).c_str() + " given was converted to " +
                          describe_conversion(e.numeric, want, converted) + ", as C converts it" +
                          guess +
                          ". Pass a NumPy scalar of the parameter's own type to make that "
                          "explicit (the original PyCUDA passed the " +
                          byte_count(e.size) + " given as they were)";
    nb::module_ warnings = nb::module_::import_("pycuda._user_warnings");
    warnings.attr("warn_user")(message, warnings.attr("ArgumentConversionWarning"));
}

/// A NumPy scalar argument: its bytes as they are, or converted to the size the driver gives
/// its parameter, as C converts it (the original packed the scalar's own bytes, and a kernel
/// reading a wider parameter than given read what followed in the buffer); with a warning where
/// the kernel then reads another number than the one given.
void put_scalar(ArgBuffer& buf, std::size_t i, PyObject* arg, const TypeEntry& e) {
    unsigned char bytes[16];
    const unsigned char* src = nullptr;
    if (e.data_offset >= 0) {
        src = reinterpret_cast<const unsigned char*>(arg) + e.data_offset;
    } else {
        Py_buffer view;
        if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) != 0)
            throw nb::python_error();
        bool copied = static_cast<std::size_t>(view.len) == e.size && e.size <= sizeof(bytes);
        if (copied)
            std::memcpy(bytes, view.buf, e.size);
        PyBuffer_Release(&view);
        if (!copied)
            return put_buffer(buf, i, arg, e.align);
        src = bytes;
    }
    std::size_t want = buf.declared_size(i);
    if (want == 0 || want == e.size)
        return buf.put(i, src, e.size, e.align);
    unsigned char converted[16];
    Conversion conversion = convert_scalar(src, e.size, e.numeric, want, converted);
    if (conversion == Conversion::Impossible) {
        nb::str repr = nb::repr(nb::handle(arg));
        raise_type_error(param_label(buf, i) + " is " + byte_count(want) +
                         ", and the argument given, " + repr.c_str() + " (" + byte_count(e.size) +
                         "), has no conversion to " + byte_count(want) +
                         " (no number has that size): pass a NumPy scalar, array or struct of "
                         "the kernel's parameter type");
    }
    if (conversion == Conversion::Inexact)
        warn_converted(buf, i, arg, e, want, converted);
    buf.put(i, converted, want, want);
}

void pack_slow(ArgBuffer& buf, std::size_t i, PyObject* arg, const TypeEntry& e) {
    CUdeviceptr ptr = 0;
    switch (e.kind) {
    case ArgKind::VoidScalar:
        put_buffer(buf, i, arg, dtype_alignment(nb::borrow(arg).attr("dtype"), 0));
        return;
    case ArgKind::Handler: {
        nb::object alloc = nb::borrow(arg).attr("get_device_alloc")();
        put_pointer(buf, i, device_pointer(alloc, "ArgumentHandler.get_device_alloc()"));
        buf.handlers.push_back(arg);
        return;
    }
    case ArgKind::NdArray: {
        if (managed_array_pointer(arg, ptr))
            return put_pointer(buf, i, ptr);
        nb::object dtype = nb::borrow(arg).attr("dtype");
        std::size_t nbytes = nb::cast<std::size_t>(nb::borrow(arg).attr("nbytes"));
        put_buffer(buf, i, arg, dtype_alignment(dtype, nbytes));
        return;
    }
    case ArgKind::Array: {
        std::uintptr_t address = 0;
        array_address(arg, address);
        return put_pointer(buf, i, address);
    }
    case ArgKind::GpuData:
        return put_pointer(buf, i, device_pointer(nb::borrow(arg).attr("gpudata"), "gpudata"));
    case ArgKind::ArrayInterface:
        return put_pointer(buf, i, array_interface_pointer(arg));
    case ArgKind::PyNumber:
        raise_type_error(param_label(buf, i) + " is a Python " + type_name(arg) +
                         ", whose C type is unknown: pass a NumPy scalar such as numpy.int32(" +
                         "...) or numpy.float32(...), or use prepare() and prepared_call()");
    default:
        raise_type_error("invalid type on " + param_label(buf, i) + ": " + type_name(arg) +
                         "; expected a NumPy scalar, device memory (DeviceAllocation, GPUArray, "
                         "__cuda_array_interface__), In/Out/InOut, or a NumPy array/struct "
                         "passed by value");
    }
}

} // namespace

void pack_by_type(ArgBuffer& buf, PyObject* const* args, std::size_t nargs) {
    buf.check_count(nargs);
    for (std::size_t i = 0; i < nargs; ++i) {
        PyObject* arg = args[i];
        const TypeEntry& e = lookup(arg);
        if (e.kind == ArgKind::Scalar) {
            std::size_t want = buf.declared_size(i);
            if (e.data_offset >= 0 && (want == 0 || want == e.size)) {
                buf.put(i, reinterpret_cast<const char*>(arg) + e.data_offset, e.size, e.align);
                continue;
            }
            put_scalar(buf, i, arg, e);
            continue;
        }
        CUdeviceptr ptr = 0;
        if (e.kind == ArgKind::DeviceObject && try_device_pointer(arg, ptr)) {
            put_pointer(buf, i, ptr);
            continue;
        }
        pack_slow(buf, i, arg, e);
    }
}

namespace {

/// A device address from anything that stands for one: an int, our memory objects, arrays
/// exporting __cuda_array_interface__ or .gpudata, a managed-memory ndarray, None (null).
CUdeviceptr pointer_value(ArgBuffer& buf, std::size_t i, PyObject* arg) {
    if (PyLong_CheckExact(arg)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(arg);
        if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred())
            throw nb::python_error();
        return v;
    }
    CUdeviceptr ptr = 0;
    if (arg == Py_None)
        return 0;
    if (try_device_pointer(arg, ptr))
        return ptr;
    const TypeEntry& e = lookup(arg);
    if (e.kind == ArgKind::Handler) {
        nb::object alloc = nb::borrow(arg).attr("get_device_alloc")();
        buf.handlers.push_back(arg);
        return device_pointer(alloc, "ArgumentHandler.get_device_alloc()");
    }
    if (e.kind == ArgKind::NdArray && managed_array_pointer(arg, ptr))
        return ptr;
    if (e.kind == ArgKind::Array) {
        std::uintptr_t address = 0;
        array_address(arg, address);
        return address;
    }
    if (e.kind == ArgKind::GpuData)
        return device_pointer(nb::borrow(arg).attr("gpudata"), "gpudata");
    if (e.kind == ArgKind::ArrayInterface)
        return array_interface_pointer(arg);
    if (PyIndex_Check(arg)) {
        nb::object index = nb::steal(PyNumber_Index(arg));
        if (!index.is_valid())
            throw nb::python_error();
        return pointer_value(buf, i, index.ptr());
    }
    raise_type_error(param_label(buf, i) + " is a pointer ('P'), got " + type_name(arg));
}

/// The warning for a prepared call's value converted to its parameter's size (a format code of
/// another size than the kernel's parameter) where the kernel reads another number.
void warn_prepared(const ArgBuffer& buf, std::size_t i, const ParamSlot& slot,
                   const std::string& what) {
    std::string message = param_label(buf, i) + " is " + byte_count(slot.size) +
                          " but prepare() was given '" + std::string(1, slot.given) + "': " + what +
                          ", as C converts it (the original PyCUDA packed the format's " +
                          "bytes as they were)";
    nb::module_ warnings = nb::module_::import_("pycuda._user_warnings");
    warnings.attr("warn_user")(message, warnings.attr("ArgumentConversionWarning"));
}

/// True when the slot was resized from a wider integer code of prepare()'s format and `arg`
/// (a Python int) fits that code's own range, which is what the original checked.
bool fits_given_code(const ParamSlot& slot, PyObject* arg) {
    std::size_t size = 0, align = 0;
    if (slot.given == 0 || !code_size_align(slot.given, size, align) || size <= slot.size)
        return false;
    bool is_unsigned = std::strchr("BHILQN", slot.given) != nullptr;
    int overflow = 0;
    if (is_unsigned) {
        unsigned long long v = PyLong_AsUnsignedLongLong(arg);
        if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
            PyErr_Clear();
            return false;
        }
        return size == 8 || v < (1ull << (size * 8));
    }
    long long v = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return false;
    }
    return size == 8 || (v >= -(1ll << (size * 8 - 1)) && v < (1ll << (size * 8 - 1)));
}

/// The value of an integer code, range-checked like the struct module does.
void put_integer(ArgBuffer& buf, std::size_t i, const ParamSlot& slot, PyObject* arg) {
    bool is_unsigned = std::strchr("BHILQN", slot.code) != nullptr;
    nb::object index;
    if (!PyLong_Check(arg)) {
        if (!PyIndex_Check(arg)) {
            // A pointer-sized slot ('l' from np.intp, 'L' from np.uintp: how the original's
            // prepare() spelled pointers) may receive device memory.
            if (slot.size == 8) {
                CUdeviceptr ptr = pointer_value(buf, i, arg);
                return buf.put(i, &ptr, 8, slot.align);
            }
            raise_type_error(param_label(buf, i) + " is an integer ('" + std::string(1, slot.code) +
                             "'), got " + type_name(arg));
        }
        index = nb::steal(PyNumber_Index(arg));
        if (!index.is_valid())
            throw nb::python_error();
        arg = index.ptr();
    }
    unsigned long long bits;
    bool in_range;
    unsigned width = static_cast<unsigned>(slot.size * 8);
    if (is_unsigned) {
        unsigned long long v = PyLong_AsUnsignedLongLong(arg);
        if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred())
            throw nb::python_error();
        in_range = width == 64 || v < (1ull << width);
        bits = v;
    } else {
        long long v = PyLong_AsLongLong(arg);
        if (v == -1 && PyErr_Occurred())
            throw nb::python_error();
        in_range = width == 64 || (v >= -(1ll << (width - 1)) && v < (1ll << (width - 1)));
        bits = static_cast<unsigned long long>(v);
    }
    if (!in_range && fits_given_code(slot, arg)) {
        // The original packed the format's wider code; the kernel reads the low bytes of it.
        warn_prepared(buf, i, slot,
                      "the integer " + std::string(nb::str(arg).c_str()) +
                          " does not fit; the kernel reads its low " + byte_count(slot.size));
        in_range = true;
    }
    if (!in_range) {
        PyErr_SetString(PyExc_OverflowError,
                        (param_label(buf, i) + ": value out of range for '" +
                         std::string(1, slot.code) + "' (" + std::to_string(slot.size) + " bytes)")
                            .c_str());
        throw nb::python_error();
    }
    // Little-endian: the low bytes of the 64-bit value are the narrow integer.
    buf.put(i, &bits, slot.size, slot.align);
}

double float_value(ArgBuffer& buf, std::size_t i, PyObject* arg) {
    double v = PyFloat_AsDouble(arg);
    if (v == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        raise_type_error(param_label(buf, i) + " is a float, got " + type_name(arg));
    }
    return v;
}

void put_prepared(ArgBuffer& buf, std::size_t i, const ParamSlot& slot, PyObject* arg) {
    switch (slot.code) {
    case 'P': {
        CUdeviceptr ptr = pointer_value(buf, i, arg);
        return buf.put(i, &ptr, sizeof(ptr), slot.align);
    }
    case 'f': {
        double given = float_value(buf, i, arg);
        float v = static_cast<float>(given);
        if (slot.given != 0 && static_cast<double>(v) != given && given == given)
            warn_prepared(buf, i, slot,
                          "the value " + std::string(nb::str(arg).c_str()) +
                              " was rounded to the float " +
                              std::string(nb::str(nb::float_(static_cast<double>(v))).c_str()));
        return buf.put(i, &v, 4, 4);
    }
    case 'd': {
        double v = float_value(buf, i, arg);
        return buf.put(i, &v, 8, 8);
    }
    case 'e': {
        std::uint16_t v = float_to_half(static_cast<float>(float_value(buf, i, arg)));
        return buf.put(i, &v, 2, 2);
    }
    case 'F':
    case 'D': {
        double c[2]; // real, imaginary: a C99 double complex
        if (!pyapi::complex_parts(arg, c[0], c[1])) {
            PyErr_Clear();
            raise_type_error(param_label(buf, i) + " is complex, got " + type_name(arg));
        }
        if (slot.code == 'D')
            return buf.put(i, c, 16, 16);
        float pair[2] = {static_cast<float>(c[0]), static_cast<float>(c[1])};
        return buf.put(i, pair, 8, 8);
    }
    case '?': {
        int truth = PyObject_IsTrue(arg);
        if (truth < 0)
            throw nb::python_error();
        unsigned char v = static_cast<unsigned char>(truth);
        return buf.put(i, &v, 1, 1);
    }
    case 's':
    case 'c':
        return put_buffer(buf, i, arg, slot.align);
    default:
        return put_integer(buf, i, slot, arg);
    }
}

} // namespace

void pack_by_layout(ArgBuffer& buf, const ParamLayout& layout, PyObject* const* args,
                    std::size_t nargs) {
    if (nargs != layout.slots.size())
        raise_type_error("kernel '" + buf.kernel() + "' was prepared for " +
                         std::to_string(layout.slots.size()) + " arguments, got " +
                         std::to_string(nargs));
    for (std::size_t i = 0; i < nargs; ++i) {
        const ParamSlot& slot = layout.slots[i];
        PyObject* arg = args[i];
        // Fast path: a NumPy scalar of exactly the slot's type is copied as it is.
        if (!PyLong_CheckExact(arg) && !PyFloat_CheckExact(arg)) {
            const TypeEntry& e = lookup(arg);
            if (e.kind == ArgKind::Scalar && e.code == slot.code && e.data_offset >= 0) {
                buf.put(i, reinterpret_cast<const char*>(arg) + e.data_offset, e.size, e.align);
                continue;
            }
        }
        put_prepared(buf, i, slot, arg);
    }
}

namespace {

/// The struct code of a number parameter of `size` bytes, of the same kind (signed or unsigned
/// integer, float, complex) as `code`; 0 where there is none (pointers, blobs, other sizes).
char code_resized(char code, std::size_t size) {
    auto pick = [size](const char* by_size) -> char {
        switch (size) {
        case 1:
            return by_size[0];
        case 2:
            return by_size[1];
        case 4:
            return by_size[2];
        case 8:
            return by_size[3];
        default:
            return 0;
        }
    };
    if (std::strchr("bhilqn", code) != nullptr)
        return pick("bhiq");
    if (std::strchr("BHILQN?", code) != nullptr)
        return pick("BHIQ");
    if (std::strchr("efd", code) != nullptr)
        return size == 1 ? 0 : pick("\0efd");
    if (code == 'F' || code == 'D')
        return size == 8 ? 'F' : (size == 16 ? 'D' : 0);
    return 0;
}

} // namespace

void match_kernel_params(ParamLayout& layout, const std::vector<ParamInfo>& info,
                         const std::string& kernel, const std::string& format) {
    if (info.size() != layout.slots.size())
        raise_type_error("prepare: kernel '" + kernel + "' takes " + std::to_string(info.size()) +
                         " arguments, but the format '" + format + "' describes " +
                         std::to_string(layout.slots.size()));
    for (std::size_t i = 0; i < info.size(); ++i) {
        ParamSlot& slot = layout.slots[i];
        if (slot.code == 'V') {
            slot = ParamSlot{'s', info[i].size, blob_alignment(info[i].size), 0};
        } else if (slot.size != info[i].size) {
            // The original packed the format's bytes and the kernel read its own parameter's:
            // a number slot converts its value to the kernel's size instead.
            char code = code_resized(slot.code, info[i].size);
            if (code == 0)
                raise_type_error("prepare: parameter " + std::to_string(i) +
                                 " (0-based) of kernel '" + kernel + "' is " +
                                 std::to_string(info[i].size) + " bytes, but format '" + format +
                                 "' gives '" + std::string(1, slot.code) + "' (" +
                                 std::to_string(slot.size) + " bytes)");
            slot.given = slot.code;
            slot.code = code;
            code_size_align(code, slot.size, slot.align);
        }
        slot.offset = info[i].offset;
    }
    if (!info.empty())
        layout.total_size = info.back().offset + info.back().size;
}

std::string format_from_arg_types(nb::handle arg_types) {
    const NumpyTypes& np = numpy_types();
    std::string format;
    for (nb::handle t : arg_types) {
        if (PyUnicode_Check(t.ptr())) {
            format += nb::cast<std::string>(t);
            continue;
        }
        nb::object dtype;
        if (PyObject_IsInstance(t.ptr(), np.dtype_cls.ptr()) == 1)
            dtype = nb::borrow(t);
        else if (PyType_Check(t.ptr()) &&
                 is_subtype(reinterpret_cast<PyTypeObject*>(t.ptr()), np.generic))
            dtype = nb::borrow(np.dtype_cls)(t);
        if (!dtype.is_valid()) {
            format += 'P'; // anything else stands for a pointer (DeviceAllocation, intp, ...)
            continue;
        }
        std::string kind = nb::cast<std::string>(dtype.attr("kind"));
        if (kind == "V")
            format += std::to_string(nb::cast<std::size_t>(dtype.attr("itemsize"))) + "s";
        else
            format += nb::cast<std::string>(dtype.attr("char"));
    }
    return format;
}

} // namespace pycuda::bindings
