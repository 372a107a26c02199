// bindings/flat_launches.cpp: pycuda._driver.FlatLaunches, the hot path of gpuarray's binary
// operators on C-contiguous operands of one shape (a + b, a * 2.0, 1 - a, ...).
//
// gpuarray's Python fast path (pycuda._fast_ops) resolves an operator once per combination of
// operand types, compiles its flat kernel and launches it; then it remembers here what that
// launch took, keyed by (operator, operand types, reflected, context, element count). A later
// call with that key is served here without running Python: the operands' attributes read, a
// block from the context's pool, one launch, the result made as GPUArray._fresh makes it. The
// Python fast path cost ~1 µs more per call than this (a fifth of a small `a + b` on an H100's
// host). Anything not remembered or not plain (a subclass, strides, a custom allocator, an
// address not 16-byte aligned, an int outside the range its rules were resolved for) goes to
// the Python path, which decides as it always did. The GIL guards the table.
#include "bindings/flat_launches.hpp"

#include "bindings/arg_packer.hpp"
#include "bindings/flat_operator.hpp"
#include "bindings/memory.hpp"
#include "bindings/memory_pool.hpp"
#include "bindings/raw_call.hpp"

#include "core/context.hpp"
#include "core/function.hpp"

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <unordered_map>
#include <utility>

namespace pycuda::bindings {

namespace {

/// GPUArray's attribute names, interned once (never freed: they live as long as the process).
struct Names {
    PyObject *c_contiguous, *size, *shape, *dtype, *ptr, *allocator, *strides, *gpudata, *base;
};

const Names& names() {
    static const Names n = [] {
        auto s = [](const char* text) { return PyUnicode_InternFromString(text); };
        return Names{s("_c_contiguous"), s("size"),    s("shape"),   s("dtype"), s("ptr"),
                     s("allocator"),     s("strides"), s("gpudata"), s("base")};
    }();
    return n;
}

/// A new reference to `obj.name`, or a null object with the error cleared (a miss, not an
/// error: the Python path reads the attribute again and reports what is wrong).
nb::object attr(PyObject* obj, PyObject* name) {
    PyObject* value = PyObject_GetAttr(obj, name);
    if (!value)
        PyErr_Clear();
    return nb::steal(value);
}

/// An int as a long long, saturated (ints beyond it then miss, and the Python path decides).
long long clamped(nb::handle value) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (v == -1 && PyErr_Occurred())
        throw nb::python_error();
    return overflow > 0 ? LLONG_MAX : overflow < 0 ? LLONG_MIN : v;
}

/// The C strides of a C-contiguous array of `shape` (no zero-length axis: the path needs
/// n > 0), as new_array_strides gives them.
nb::object c_strides(PyObject* shape, Py_ssize_t itemsize) {
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    nb::object strides = nb::steal(PyTuple_New(ndim));
    long long stride = itemsize;
    for (Py_ssize_t i = ndim - 1; i >= 0; --i) {
        PyObject* value = PyLong_FromLongLong(stride);
        if (!value)
            throw nb::python_error();
        PyTuple_SET_ITEM(strides.ptr(), i, value);
        stride *= PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    }
    return strides;
}

/// A C-contiguous GPUArray's address as an int object, and its parts the key needs.
struct Operand {
    nb::object ptr, shape, dtype;
};

/// `obj`'s ptr, shape and dtype when it is C-contiguous with the pool's allocator (None) and
/// its address 16-byte aligned; false otherwise.
bool read_operand(PyObject* obj, Operand& out, unsigned long long& address) {
    const Names& n = names();
    nb::object contiguous = attr(obj, n.c_contiguous);
    if (contiguous.ptr() != Py_True)
        return false;
    out.ptr = attr(obj, n.ptr);
    if (!out.ptr.is_valid() || !PyLong_CheckExact(out.ptr.ptr()))
        return false;
    address = PyLong_AsUnsignedLongLong(out.ptr.ptr());
    if (address == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        return false;
    }
    if (address & 15)
        return false; // the Python path picks a narrower kernel
    out.shape = attr(obj, n.shape);
    out.dtype = attr(obj, n.dtype);
    return out.shape.is_valid() && PyTuple_CheckExact(out.shape.ptr()) && out.dtype.is_valid();
}

} // namespace

std::size_t FlatKeyHash::operator()(const FlatKey& k) const noexcept {
    std::size_t h = std::hash<const void*>{}(k.op);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    mix(std::hash<const void*>{}(k.lhs));
    mix(std::hash<const void*>{}(k.rhs));
    mix(std::hash<const void*>{}(k.context));
    mix(std::hash<long long>{}(k.n));
    mix(k.reflected);
    return h;
}

FlatLaunches::FlatLaunches(nb::handle namespace_, nb::handle fallback, std::size_t capacity)
    : namespace_(nb::borrow(namespace_)), fallback_(nb::borrow(fallback)), capacity_(capacity) {
    if (!PyDict_Check(namespace_.ptr()) || !PyUnicode_Check(fallback.ptr()))
        throw nb::type_error("FlatLaunches(namespace: dict, fallback: str, capacity: int)");
}

void FlatLaunches::bind(nb::handle array_type) {
    if (!PyType_Check(array_type.ptr()))
        throw nb::type_error("FlatLaunches.bind: array_type must be a class");
    entries_.clear();
    array_type_ = nb::borrow(array_type);
}

nb::object FlatLaunches::binary(PyObject* array, PyObject* op, PyObject* other, bool reflected) {
    if (nb::object result = try_binary(array, op, other, reflected))
        return result;
    PyObject* fallback = PyDict_GetItemWithError(namespace_.ptr(), fallback_.ptr()); // borrowed
    if (!fallback) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_RuntimeError, "pycuda._fast_ops.%U is gone", fallback_.ptr());
        throw nb::python_error();
    }
    PyObject* args[] = {array, op, other, reflected ? Py_True : Py_False};
    nb::object keep = nb::borrow(fallback); // the call may replace it in the namespace
    PyObject* out = PyObject_Vectorcall(fallback, args, 4, nullptr);
    if (!out)
        throw nb::python_error();
    return nb::steal(out);
}

bool FlatLaunches::remember(nb::handle op, nb::handle lhs, nb::handle rhs, bool reflected,
                            std::uintptr_t context, long long n, nb::handle function, unsigned grid,
                            unsigned block, nb::handle allocate, nb::handle result,
                            Py_ssize_t itemsize, nb::handle convert, nb::handle lo, nb::handle hi) {
    nb::object pool_obj = nb::steal(PyObject_GetAttrString(allocate.ptr(), "__self__"));
    if (!pool_obj.is_valid()) {
        PyErr_Clear();
        return false;
    }
    DevicePoolRef* pool = nullptr;
    if (!nb::try_cast<DevicePoolRef*>(pool_obj, pool) || pool == nullptr)
        return false;
    Function* f = nullptr;
    if (!nb::try_cast<Function*>(function, f) || f == nullptr || !f->prepared_layout)
        return false; // a stand-in (tests): launched by the Python path only
    if (!array_type_.is_valid())
        return false;
    if (!PyUnicode_CheckExact(op.ptr()) || !PyUnicode_CHECK_INTERNED(op.ptr()))
        return false; // compared by address: only an interned name finds its entry again
    if (entries_.size() >= capacity_)
        entries_.clear();
    FlatEntry e;
    e.keep = nb::make_tuple(op, lhs, rhs);
    e.function = nb::borrow(function);
    e.grid = {grid, 1, 1};
    e.block = {block, 1, 1};
    e.result = nb::borrow(result);
    e.itemsize = itemsize;
    e.strides1 = nb::make_tuple(itemsize);
    e.pool = pool->pool;
    e.convert = nb::borrow(convert);
    e.lo = lo.is_none() ? LLONG_MIN : clamped(lo);
    e.hi = hi.is_none() ? LLONG_MAX : clamped(hi);
    FlatKey key{op.ptr(), lhs.ptr(), rhs.ptr(), reinterpret_cast<CUcontext>(context), n, reflected};
    entries_.insert_or_assign(key, std::move(e));
    return true;
}

int FlatLaunches::traverse(visitproc visit, void* arg) const {
    Py_VISIT(namespace_.ptr());
    Py_VISIT(fallback_.ptr());
    Py_VISIT(array_type_.ptr());
    for (const auto& [key, e] : entries_) {
        Py_VISIT(e.keep.ptr());
        Py_VISIT(e.function.ptr());
        Py_VISIT(e.result.ptr());
        Py_VISIT(e.strides1.ptr());
        Py_VISIT(e.convert.ptr());
    }
    return 0;
}

nb::object FlatLaunches::try_binary(PyObject* self, PyObject* op, PyObject* other, bool reflected) {
    const Names& names_ = names();
    PyTypeObject* type = array_type();
    if (entries_.empty() || Py_TYPE(self) != type)
        return {};
    nb::object allocator = attr(self, names_.allocator);
    if (allocator.ptr() != Py_None)
        return {};
    nb::object size = attr(self, names_.size);
    if (!size.is_valid() || !PyLong_CheckExact(size.ptr()))
        return {};
    long long n = PyLong_AsLongLong(size.ptr());
    if (n <= 0) {
        PyErr_Clear();
        return {};
    }
    Operand a;
    unsigned long long address = 0;
    if (!read_operand(self, a, address))
        return {};
    FlatKey key{op, a.dtype.ptr(), nullptr, Context::current_handle(), n, reflected};
    nb::object value; // the other operand as packed: its address, or the converted scalar
    bool scalar = Py_TYPE(other) != type;
    if (!scalar) {
        Operand b;
        unsigned long long other_address = 0;
        if (!read_operand(other, b, other_address))
            return {};
        if (b.shape.ptr() != a.shape.ptr()) {
            int same = PyObject_RichCompareBool(b.shape.ptr(), a.shape.ptr(), Py_EQ);
            if (same != 1) {
                PyErr_Clear();
                return {};
            }
        }
        key.rhs = b.dtype.ptr();
        value = std::move(b.ptr);
    } else {
        key.rhs = reinterpret_cast<PyObject*>(Py_TYPE(other));
    }
    auto it = entries_.find(key);
    if (it == entries_.end())
        return {};
    // A copy (references, not data): the scalar's conversion and gc.collect on running out of
    // memory run Python, which may remember or forget launches and so move the table's entries.
    const FlatEntry e = it->second;
    if (scalar) {
        if (PyLong_CheckExact(other)) {
            int overflow = 0;
            long long v = PyLong_AsLongLongAndOverflow(other, &overflow);
            if (overflow || v < e.lo || v > e.hi)
                return {};
        }
        if (e.convert.is_none()) {
            value = nb::borrow(other);
        } else {
            value = nb::steal(PyObject_CallOneArg(e.convert.ptr(), other));
            if (!value.is_valid())
                throw nb::python_error();
        }
    }

    const nb::handle block_type = nb::type<PooledDeviceAllocation>();
    nb::object gpudata = nb::inst_alloc(block_type);
    retry_after_gc([&] {
        new (nb::inst_ptr<PooledDeviceAllocation>(gpudata))
            PooledDeviceAllocation(e.pool, static_cast<size_t>(n) * e.itemsize);
        return 0;
    });
    nb::inst_mark_ready(gpudata);
    CUdeviceptr out = nb::inst_ptr<PooledDeviceAllocation>(gpudata)->ptr("PooledDeviceAllocation");
    nb::object out_ptr = nb::steal(PyLong_FromUnsignedLongLong(out));
    PyObject* args[4] = {out_ptr.ptr(), reflected ? value.ptr() : a.ptr.ptr(),
                         reflected ? a.ptr.ptr() : value.ptr(), size.ptr()};
    Function& f = *nb::inst_ptr<Function>(e.function);
    ArgBuffer buf(&*f.prepared_layout, &f.name());
    pack_by_layout(buf, *f.prepared_layout, args, 4);
    f.launch(e.grid, e.block, 0, nullptr, buf.data(), buf.size());

    // As GPUArray._fresh: the attributes in __init__'s order, so all share one key table.
    static PyObject* no_args = PyTuple_New(0);
    nb::object result = nb::steal(type->tp_new(type, no_args, nullptr));
    if (!result.is_valid())
        throw nb::python_error();
    nb::object strides =
        PyTuple_GET_SIZE(a.shape.ptr()) == 1 ? e.strides1 : c_strides(a.shape.ptr(), e.itemsize);
    std::pair<PyObject*, PyObject*> fields[] = {
        {names_.dtype, e.result.ptr()},  {names_.c_contiguous, Py_True},
        {names_.shape, a.shape.ptr()},   {names_.strides, strides.ptr()},
        {names_.size, size.ptr()},       {names_.allocator, Py_None},
        {names_.gpudata, gpudata.ptr()}, {names_.base, Py_None},
        {names_.ptr, out_ptr.ptr()},
    };
    for (auto [name, field] : fields)
        if (PyObject_SetAttr(result.ptr(), name, field) != 0)
            throw nb::python_error();
    return result;
}

namespace {

FlatLaunches& launches_of(PyObject* self) {
    if (!nb::inst_ready(self))
        throw nb::type_error("FlatLaunches used before initialization");
    return *nb::inst_ptr<FlatLaunches>(self);
}

PyObject* binary_raw(PyObject* self, PyObject* const* args, Py_ssize_t n) {
    return guarded([&] {
        if (n != 4)
            throw nb::type_error("FlatLaunches.binary(array, op, other, reflected)");
        return launches_of(self).binary(args[0], args[1], args[2], args[3] == Py_True);
    });
}

int flat_traverse(PyObject* self, visitproc visit, void* arg) {
    Py_VISIT(Py_TYPE(self));
    if (!nb::inst_ready(self))
        return 0;
    return nb::inst_ptr<FlatLaunches>(self)->traverse(visit, arg);
}

int flat_clear(PyObject* self) {
    if (nb::inst_ready(self))
        nb::inst_ptr<FlatLaunches>(self)->clear();
    return 0;
}

PyType_Slot flat_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(&flat_traverse)},
                            {Py_tp_clear, reinterpret_cast<void*>(&flat_clear)},
                            {0, nullptr}};

PyMethodDef binary_def = {
    "binary", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&binary_raw)),
    METH_FASTCALL,
    "binary(array, op, other, reflected)\n\n`array op other` (`other op array` when reflected) "
    "as a new GPUArray where remembered; else what pycuda._fast_ops._fast_binary gives."};

} // namespace

void bind_flat_launches(nb::module_& m) {
    nb::class_<FlatLaunches> cls(
        m, "FlatLaunches", nb::type_slots(flat_slots),
        "The remembered flat launches of gpuarray's binary operators (see pycuda._fast_ops).");
    cls.def(nb::init<nb::handle, nb::handle, std::size_t>(), nb::arg("namespace"),
            nb::arg("fallback"), nb::arg("capacity"))
        .def("bind", &FlatLaunches::bind, nb::arg("array_type"),
             "Serve the exact instances of `array_type` (GPUArray) from now on.")
        .def("operator", &make_flat_operator, nb::arg("name"), nb::arg("op"),
             nb::arg("reflected") = false,
             "A method descriptor for `array_type.<name>`: `op` (an interned ufunc name) served "
             "as binary() serves it, then by array._binary_general(op, other, reflected).")
        .def("remember", &FlatLaunches::remember, nb::arg("op"), nb::arg("lhs"), nb::arg("rhs"),
             nb::arg("reflected"), nb::arg("context"), nb::arg("n"), nb::arg("function"),
             nb::arg("grid"), nb::arg("block"), nb::arg("allocate"), nb::arg("result"),
             nb::arg("itemsize"), nb::arg("convert").none(), nb::arg("lo").none(),
             nb::arg("hi").none(),
             "Remember the launch the Python path made for this key; False where it cannot be "
             "served here (`allocate` not a DeviceMemoryPool's, a stand-in function).")
        .def("clear", &FlatLaunches::clear, "Forget every remembered launch.")
        .def("__len__", &FlatLaunches::size);
    nb::object descr =
        nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &binary_def));
    if (!descr.is_valid())
        throw nb::python_error();
    cls.attr("binary") = descr;
}

} // namespace pycuda::bindings
