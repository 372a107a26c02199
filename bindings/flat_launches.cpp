// bindings/flat_launches.cpp: pycuda._driver.FlatLaunches, the hot path of gpuarray's binary
// operators on C-contiguous operands of one shape (a + b, a * 2.0, 1 - a, ...) and of the
// one-block whole-array reductions (gpuarray.sum(a), max, min on small arrays).
//
// pycuda._operators decides an operator once per combination of operand types (a Plan),
// compiles its flat kernel and launches it; then it remembers here what that launch took,
// keyed by (operator, operand types, reflected, context, element count). A later call with
// that key is served here without running Python: the operands' fields read, a
// block from the context's default allocator (its DeviceMemoryPool or StreamOrderedAllocator),
// one launch, the result made as GPUArray._fresh makes it
// (array_base.hpp's make_array; the operands' fields read from ArrayBase's layout). The
// Python fast path cost ~1 µs more per call than this (a fifth of a small `a + b` on an H100's
// host). Anything not remembered or not plain (a subclass, strides, another allocator, an
// address not 16-byte aligned, an int outside the range its rules were resolved for) goes to
// the Python path, which decides as it always did. The GIL guards the table.
//
// pycuda._reduction_kernel remembers the reductions the same way, in a table of their own keyed
// by (kernel factory, dtype, context, element count), where one block reduces the whole array:
// what a small `sum(a).get()` pays on top of its launch and copy back (docs/benchmarks.md).
#include "bindings/flat_launches.hpp"

#include "bindings/arg_packer.hpp"
#include "bindings/array_base.hpp"
#include "bindings/async_memory.hpp"
#include "bindings/flat_operator.hpp"
#include "bindings/memory.hpp"
#include "bindings/memory_pool.hpp"
#include "bindings/python_api.hpp"
#include "bindings/raw_call.hpp"

#include "core/context.hpp"
#include "core/function.hpp"
#include "core/nvtx.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <unordered_map>
#include <utility>

namespace pycuda::bindings {

namespace {

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
    Py_ssize_t ndim = pyapi::tuple_size(shape);
    nb::object strides = nb::steal(PyTuple_New(ndim));
    if (!strides.is_valid())
        throw nb::python_error();
    long long stride = itemsize;
    for (Py_ssize_t i = ndim - 1; i >= 0; --i) {
        PyObject* value = PyLong_FromLongLong(stride);
        if (!value || pyapi::tuple_fill(strides.ptr(), i, value) < 0)
            throw nb::python_error();
        stride *= PyLong_AsLongLong(pyapi::tuple_item(shape, i));
    }
    return strides;
}

/// A C-contiguous array's address and the parts the key needs (borrowed from its fields).
struct Operand {
    std::uintptr_t address = 0;
    PyObject* shape = nullptr;
    PyObject* dtype = nullptr;
};

/// `obj`'s fields when it is C-contiguous with a known address that is 16-byte aligned and a
/// tuple shape; false otherwise (the Python path decides).
bool read_operand(PyObject* obj, Operand& out) {
    auto* a = reinterpret_cast<ArrayObject*>(obj);
    int contiguous = array_c_contiguous(a);
    if (contiguous != 1) {
        if (contiguous < 0)
            PyErr_Clear(); // the Python path reads the attributes again and says what is wrong
        return false;
    }
    if (!a->ptr_known || (a->ptr & 15) || !a->dtype || !a->shape || !PyTuple_CheckExact(a->shape))
        return false; // (an unaligned address: the Python path picks a narrower kernel)
    out.address = a->ptr;
    out.shape = a->shape;
    out.dtype = a->dtype;
    return true;
}

/// Where the blocks of `allocate` come from, into `e`: a DeviceMemoryPool (its bound allocate)
/// or a StreamOrderedAllocator (the allocator itself); false for any other allocator.
bool read_block_source(nb::handle allocate, FlatLaunch& e) {
    StreamOrderedAllocatorRef* ordered = nullptr;
    if (nb::try_cast<StreamOrderedAllocatorRef*>(allocate, ordered) && ordered) {
        e.ordered = ordered->allocator;
        return true;
    }
    nb::object pool_obj = nb::steal(PyObject_GetAttrString(allocate.ptr(), "__self__"));
    if (!pool_obj.is_valid()) {
        PyErr_Clear();
        return false;
    }
    DevicePoolRef* pool = nullptr;
    if (!nb::try_cast<DevicePoolRef*>(pool_obj, pool) || pool == nullptr)
        return false;
    e.pool = pool->pool;
    return true;
}

/// A new Python `Block` (PooledDeviceAllocation or StreamOrderedAllocation) of `bytes` from
/// `source`, made in place; its address in `address`.
template <typename Block, typename Source>
nb::object new_block(const std::shared_ptr<Source>& source, size_t bytes, CUdeviceptr& address) {
    nb::object block = nb::inst_alloc(nb::type<Block>());
    retry_after_gc([&] {
        new (nb::inst_ptr<Block>(block)) Block(source, bytes);
        return 0;
    });
    nb::inst_mark_ready(block);
    address = nb::inst_ptr<Block>(block)->ptr("flat launch result");
    return block;
}

/// The element count of `self` where it is an exact instance of `type` with a positive int
/// size; 0 where the Python path must decide.
long long served_count(PyObject* self, PyTypeObject* type) {
    if (Py_TYPE(self) != type)
        return 0;
    PyObject* size = reinterpret_cast<ArrayObject*>(self)->size;
    if (!size || !PyLong_CheckExact(size))
        return 0;
    long long n = PyLong_AsLongLong(size);
    if (n <= 0) {
        PyErr_Clear();
        return 0;
    }
    return n;
}

/// A new block of `bytes` from `e`'s source (its address in `out`), and `e.function` launched
/// on it: the block's address, then `args`; within an NVTX range named `range` where auto
/// ranges are on and `range` is given (the Python path's own).
nb::object launch_into_new_block(const FlatLaunch& e, size_t bytes, std::span<PyObject* const> args,
                                 PyObject* range, CUdeviceptr& out) {
    nb::object gpudata = e.ordered ? new_block<StreamOrderedAllocation>(e.ordered, bytes, out)
                                   : new_block<PooledDeviceAllocation>(e.pool, bytes, out);
    nb::object out_ptr = nb::steal(PyLong_FromUnsignedLongLong(out));
    if (!out_ptr.is_valid())
        throw nb::python_error();
    PyObject* packed[4] = {out_ptr.ptr()};
    std::copy(args.begin(), args.end(), packed + 1);
    Function& f = *nb::inst_ptr<Function>(e.function);
    ArgBuffer buf(&*f.prepared_layout, &f.name());
    pack_by_layout(buf, *f.prepared_layout, packed, 1 + args.size());
    if (range && nvtx_auto_ranges()) [[unlikely]] {
        const char* name = PyUnicode_AsUTF8AndSize(range, nullptr);
        if (name == nullptr)
            throw nb::python_error();
        NvtxAutoRange scope(name);
        f.launch(e.grid, e.block, 0, nullptr, buf.data(), buf.size());
    } else {
        f.launch(e.grid, e.block, 0, nullptr, buf.data(), buf.size());
    }
    return gpudata;
}

} // namespace

std::size_t BinaryKeyHash::operator()(const BinaryKey& k) const noexcept {
    std::size_t h = std::hash<const void*>{}(k.op);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    mix(std::hash<const void*>{}(k.lhs));
    mix(std::hash<const void*>{}(k.rhs));
    mix(std::hash<const void*>{}(k.context));
    mix(std::hash<long long>{}(k.n));
    mix(k.reflected);
    return h;
}

std::size_t ReductionKeyHash::operator()(const ReductionKey& k) const noexcept {
    std::size_t h = std::hash<const void*>{}(k.kernel_of);
    auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
    mix(std::hash<const void*>{}(k.dtype));
    mix(std::hash<const void*>{}(k.context));
    mix(std::hash<long long>{}(k.n));
    return h;
}

FlatLaunches::FlatLaunches(std::size_t capacity) : capacity_(capacity) {}

void FlatLaunches::bind(nb::handle array_type, nb::handle fallback) {
    if (!PyCallable_Check(fallback.ptr()))
        throw nb::type_error("FlatLaunches.bind: fallback must be callable");
    if (!PyType_Check(array_type.ptr()) ||
        !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(array_type.ptr()), array_base_type()))
        throw nb::type_error("FlatLaunches.bind: array_type must be a subclass of ArrayBase");
    clear();
    array_type_ = nb::borrow(array_type);
    fallback_ = nb::borrow(fallback);
}

nb::object FlatLaunches::binary(PyObject* array, PyObject* op, PyObject* other, bool reflected) {
    if (nb::object result = try_binary(array, op, other, reflected))
        return result;
    if (!fallback_.is_valid())
        throw nb::type_error("FlatLaunches: no array type bound yet");
    PyObject* args[] = {array, op, other, reflected ? Py_True : Py_False};
    nb::object keep = fallback_; // the call may rebind the table
    PyObject* out = PyObject_Vectorcall(keep.ptr(), args, 4, nullptr);
    if (!out)
        throw nb::python_error();
    return nb::steal(out);
}

bool FlatLaunches::remember(nb::handle op, nb::handle lhs, nb::handle rhs, bool reflected,
                            std::uintptr_t context, long long n, nb::handle function, unsigned grid,
                            unsigned block, nb::handle allocate, nb::handle plan) {
    // The plan's declared fields (pycuda._operators.Plan; tests/test_layout.py pins them).
    nb::object result = plan.attr("result");
    Py_ssize_t itemsize = nb::cast<Py_ssize_t>(plan.attr("itemsize"));
    nb::object convert = plan.attr("flat_convert");
    nb::object lo = plan.attr("lo"), hi = plan.attr("hi");
    BinaryEntry e;
    if (!read_block_source(allocate, e))
        return false;
    Function* f = nullptr;
    if (!nb::try_cast<Function*>(function, f) || f == nullptr || !f->prepared_layout)
        return false; // a stand-in (tests): launched by the Python path only
    if (!array_type_.is_valid())
        return false;
    if (!PyUnicode_CheckExact(op.ptr()) || !pyapi::is_interned(op.ptr()))
        return false; // compared by address: only an interned name finds its entry again
    if (binaries_.size() >= capacity_)
        binaries_.clear();
    e.keep = nb::make_tuple(op, lhs, rhs);
    e.function = nb::borrow(function);
    e.grid = {grid, 1, 1};
    e.block = {block, 1, 1};
    e.result = nb::borrow(result);
    e.itemsize = itemsize;
    e.strides1 = nb::make_tuple(itemsize);
    e.allocate = nb::borrow(allocate);
    e.convert = nb::borrow(convert);
    // Unbounded (a float infinity) where the rules do not depend on an int's value.
    e.lo = PyLong_Check(lo.ptr()) ? clamped(lo) : LLONG_MIN;
    e.hi = PyLong_Check(hi.ptr()) ? clamped(hi) : LLONG_MAX;
    BinaryKey key{op.ptr(), lhs.ptr(), rhs.ptr(), reinterpret_cast<CUcontext>(context),
                  n,        reflected};
    binaries_.insert_or_assign(key, std::move(e));
    return true;
}

bool FlatLaunches::remember_reduction(nb::handle kernel_of, nb::handle dtype,
                                      std::uintptr_t context, long long n, nb::handle function,
                                      unsigned block, nb::handle allocate, nb::handle result,
                                      Py_ssize_t itemsize) {
    ReductionEntry e;
    if (!read_block_source(allocate, e))
        return false;
    Function* f = nullptr;
    if (!nb::try_cast<Function*>(function, f) || f == nullptr || !f->prepared_layout)
        return false;
    if (!array_type_.is_valid())
        return false;
    if (reductions_.size() >= capacity_)
        reductions_.clear();
    e.keep = nb::make_tuple(kernel_of, dtype);
    e.function = nb::borrow(function);
    e.grid = {1, 1, 1};
    e.block = {block, 1, 1};
    e.result = nb::borrow(result);
    e.itemsize = itemsize;
    e.allocate = nb::borrow(allocate);
    ReductionKey key{kernel_of.ptr(), dtype.ptr(), reinterpret_cast<CUcontext>(context), n};
    reductions_.insert_or_assign(key, std::move(e));
    return true;
}

nb::object FlatLaunches::reduce(PyObject* kernel_of, PyObject* array, PyObject* allocator,
                                PyObject* fallback) {
    if (allocator == Py_None)
        if (nb::object result = try_reduce(kernel_of, array))
            return result;
    PyObject* args[] = {kernel_of, array, allocator};
    PyObject* out = PyObject_Vectorcall(fallback, args, 3, nullptr);
    if (!out)
        throw nb::python_error();
    return nb::steal(out);
}

nb::object FlatLaunches::try_reduce(PyObject* kernel_of, PyObject* self) {
    PyTypeObject* type = array_type();
    long long n = reductions_.empty() ? 0 : served_count(self, type);
    Operand a;
    if (!n || !read_operand(self, a))
        return {};
    auto it = reductions_.find(ReductionKey{kernel_of, a.dtype, Context::current_handle(), n});
    if (it == reductions_.end())
        return {};
    const ReductionEntry e = it->second; // (gc.collect on running out of memory may clear it)
    auto* array = reinterpret_cast<ArrayObject*>(self);
    if (array->allocator != e.allocate.ptr())
        return {};
    nb::object self_ptr = nb::steal(PyLong_FromUnsignedLongLong(a.address));
    if (!self_ptr.is_valid())
        throw nb::python_error();
    CUdeviceptr out = 0;
    PyObject* args[2] = {self_ptr.ptr(), array->size};
    // No NVTX range: the Python path launches through prepared_call, which opens none.
    nb::object gpudata = launch_into_new_block(e, e.itemsize, args, nullptr, out);
    nb::object one = nb::steal(PyLong_FromLong(1));
    nb::object empty = nb::steal(PyTuple_New(0)); // the 0-d result's shape and strides
    if (!one.is_valid() || !empty.is_valid())
        throw nb::python_error();
    return make_array(type, empty.ptr(), e.result.ptr(), empty.ptr(), one.ptr(), e.allocate.ptr(),
                      gpudata.ptr(), out);
}

namespace {

/// Visits the Python objects every remembered launch holds.
int traverse_launch(const FlatLaunch& e, visitproc visit, void* arg) {
    Py_VISIT(e.keep.ptr());
    Py_VISIT(e.function.ptr());
    Py_VISIT(e.result.ptr());
    Py_VISIT(e.allocate.ptr());
    return 0;
}

} // namespace

int FlatLaunches::traverse(visitproc visit, void* arg) const {
    Py_VISIT(fallback_.ptr());
    Py_VISIT(array_type_.ptr());
    for (const auto& [key, e] : binaries_) {
        if (int r = traverse_launch(e, visit, arg))
            return r;
        Py_VISIT(e.strides1.ptr());
        Py_VISIT(e.convert.ptr());
    }
    for (const auto& [key, e] : reductions_)
        if (int r = traverse_launch(e, visit, arg))
            return r;
    return 0;
}

nb::object FlatLaunches::try_binary(PyObject* self, PyObject* op, PyObject* other, bool reflected) {
    PyTypeObject* type = array_type();
    long long n = binaries_.empty() ? 0 : served_count(self, type);
    if (!n)
        return {};
    auto* array = reinterpret_cast<ArrayObject*>(self);
    PyObject* size = array->size;
    Operand a;
    if (!read_operand(self, a))
        return {};
    BinaryKey key{op, a.dtype, nullptr, Context::current_handle(), n, reflected};
    nb::object value; // the other operand as packed: its address, or the converted scalar
    bool scalar = Py_TYPE(other) != type;
    if (!scalar) {
        Operand b;
        if (!read_operand(other, b))
            return {};
        if (b.shape != a.shape) {
            int same = PyObject_RichCompareBool(b.shape, a.shape, Py_EQ);
            if (same != 1) {
                PyErr_Clear();
                return {};
            }
        }
        key.rhs = b.dtype;
        value = nb::steal(PyLong_FromUnsignedLongLong(b.address));
        if (!value.is_valid())
            throw nb::python_error();
    } else {
        key.rhs = reinterpret_cast<PyObject*>(Py_TYPE(other));
    }
    auto it = binaries_.find(key);
    if (it == binaries_.end())
        return {};
    // A copy (references, not data): the scalar's conversion and gc.collect on running out of
    // memory run Python, which may remember or forget launches and so move the table's entries.
    const BinaryEntry e = it->second;
    // Only arrays with the context's default allocator (and so their results) are served.
    if (array->allocator != e.allocate.ptr() ||
        (!scalar && reinterpret_cast<ArrayObject*>(other)->allocator != e.allocate.ptr()))
        return {};
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
            value = nb::steal(pyapi::call_one(e.convert.ptr(), other));
            if (!value.is_valid())
                throw nb::python_error();
        }
    }
    nb::object self_ptr = nb::steal(PyLong_FromUnsignedLongLong(a.address));
    if (!self_ptr.is_valid())
        throw nb::python_error();

    const size_t bytes = static_cast<size_t>(n) * e.itemsize;
    CUdeviceptr out = 0;
    PyObject* args[3] = {reflected ? value.ptr() : self_ptr.ptr(),
                         reflected ? self_ptr.ptr() : value.ptr(), size};
    nb::object gpudata = launch_into_new_block(e, bytes, args, op, out);

    nb::object strides =
        pyapi::tuple_size(a.shape) == 1 ? e.strides1 : c_strides(a.shape, e.itemsize);
    return make_array(type, a.shape, e.result.ptr(), strides.ptr(), size, e.allocate.ptr(),
                      gpudata.ptr(), out);
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

PyObject* reduce_raw(PyObject* self, PyObject* const* args, Py_ssize_t n) {
    return guarded([&] {
        if (n != 4)
            throw nb::type_error("FlatLaunches.reduce(kernel_of, array, allocator, fallback)");
        return launches_of(self).reduce(args[0], args[1], args[2], args[3]);
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
    "as a new GPUArray where remembered; else what the bound fallback gives."};

PyMethodDef reduce_def = {
    "reduce", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&reduce_raw)),
    METH_FASTCALL,
    "reduce(kernel_of, array, allocator, fallback)\n\nThe whole-array reduction of `array` by "
    "`kernel_of`'s kernel as a new 0-d GPUArray where remembered and `allocator` is None; else "
    "what fallback(kernel_of, array, allocator) gives."};

} // namespace

void bind_flat_launches(nb::module_& m) {
    nb::class_<FlatLaunches> cls(
        m, "FlatLaunches", nb::type_slots(flat_slots),
        "The remembered flat launches of gpuarray's binary operators (see pycuda._operators) "
        "and one-block whole-array reductions (pycuda._reduction_kernel).");
    cls.def(nb::init<std::size_t>(), nb::arg("capacity"))
        .def("bind", &FlatLaunches::bind, nb::arg("array_type"), nb::arg("fallback"),
             "Serve the exact instances of `array_type` (GPUArray) from now on; calls not "
             "served here go to fallback(array, op, other, reflected).")
        .def("operator", &make_flat_operator, nb::arg("name"), nb::arg("op"),
             nb::arg("reflected") = false,
             "A method descriptor for `array_type.<name>`: `op` (an interned ufunc name) served "
             "as binary() serves it.")
        .def("remember", &FlatLaunches::remember, nb::arg("op"), nb::arg("lhs"), nb::arg("rhs"),
             nb::arg("reflected"), nb::arg("context"), nb::arg("n"), nb::arg("function"),
             nb::arg("grid"), nb::arg("block"), nb::arg("allocate"), nb::arg("plan"),
             "Remember the launch the Python path made for this key and plan; False where it "
             "cannot be served here (`allocate` neither a DeviceMemoryPool's nor a "
             "StreamOrderedAllocator, a stand-in function).")
        .def("remember_reduction", &FlatLaunches::remember_reduction, nb::arg("kernel_of"),
             nb::arg("dtype"), nb::arg("context"), nb::arg("n"), nb::arg("function"),
             nb::arg("block"), nb::arg("allocate"), nb::arg("result"), nb::arg("itemsize"),
             "Remember the one-block launch `function(out, array, n)` of a whole-array "
             "reduction the Python path made, for arrays of `dtype` and `n` elements at 16-byte "
             "aligned addresses; False where it cannot be served here.")
        .def("clear", &FlatLaunches::clear, "Forget every remembered launch.")
        .def("__len__", &FlatLaunches::size);
    nb::object descr =
        nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &binary_def));
    if (!descr.is_valid())
        throw nb::python_error();
    cls.attr("binary") = descr;
    nb::object reduce =
        nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &reduce_def));
    if (!reduce.is_valid())
        throw nb::python_error();
    cls.attr("reduce") = reduce;
}

} // namespace pycuda::bindings
