// bindings/flat_launches.hpp: FlatLaunches, the launches of gpuarray's binary operators and
// whole-array reductions that are served in C++ (see flat_launches.cpp), for its binder and the
// operators' (flat_operator).
#pragma once

#include "core/async_memory.hpp"
#include "core/function.hpp"
#include "core/memory_pool.hpp"

#include <nanobind/nanobind.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace nb = nanobind;

namespace pycuda::bindings {

/// What a remembered launch is found by.
struct FlatKey {
    PyObject* op;  // the operator's name ("add"): interned, so compared by address; or the
                   // kernel factory of a whole-array reduction
    PyObject* lhs; // the array's dtype
    PyObject* rhs; // the other array's dtype, or the scalar's type; null for a reduction
    CUcontext context;
    long long n;
    bool reflected;
    bool operator==(const FlatKey&) const = default;
};

struct FlatKeyHash {
    std::size_t operator()(const FlatKey& k) const noexcept;
};

/// What one remembered launch needs. Holds the key's objects (so that their addresses are not
/// reused while cached), the Function (its module and context) and where results' blocks come
/// from: the pool, or the stream-ordered allocator.
struct FlatEntry {
    nb::object keep;
    nb::object function;
    Dim3 grid, block;
    nb::object result;                               // the result's dtype
    Py_ssize_t itemsize;                             // of the result
    nb::object strides1;                             // (itemsize,); a reduction's: ()
    std::shared_ptr<DeviceMemoryPool> pool;          // null where `ordered` serves
    std::shared_ptr<StreamOrderedAllocator> ordered; // null where `pool` serves
    nb::object allocate; // the context's default allocator: served arrays have it, results get it
    nb::object convert;  // a scalar operand's conversion; None: packed as it is
    long long lo = LLONG_MIN, hi = LLONG_MAX; // the Python ints the rules were resolved for
};

/// The table of remembered launches (one per process, made by pycuda._operators). The GIL
/// guards it.
class FlatLaunches {
public:
    /// Launches are forgotten after `capacity` of them.
    explicit FlatLaunches(std::size_t capacity);

    /// Serve the exact instances of `array_type` (GPUArray, a subclass of ArrayBase) from now
    /// on; a call not served here is `fallback(array, op, other, reflected)` (the operators'
    /// Python implementation, pycuda._operators.binary).
    void bind(nb::handle array_type, nb::handle fallback);

    /// `array op other` (`other op array` when reflected): launched here where remembered,
    /// else what `fallback` gives.
    nb::object binary(PyObject* array, PyObject* op, PyObject* other, bool reflected);

    /// Remembers a launch the Python path just made for `plan` (a pycuda._operators.Plan,
    /// read through its declared fields: result, itemsize, flat_convert, lo, hi); false where
    /// it cannot be served here.
    bool remember(nb::handle op, nb::handle lhs, nb::handle rhs, bool reflected,
                  std::uintptr_t context, long long n, nb::handle function, unsigned grid,
                  unsigned block, nb::handle allocate, nb::handle plan);

    /// Remembers the one-block launch of a whole-array reduction the Python path just made
    /// (pycuda._reduction_kernel.reduce_whole: `function(out, array, n)`, a 0-d result of
    /// dtype `result`), keyed by the kernel factory `kernel_of`, the array's dtype, the context
    /// and n, for arrays at 16-byte aligned addresses; false where it cannot be served here.
    bool remember_reduction(nb::handle kernel_of, nb::handle dtype, std::uintptr_t context,
                            long long n, nb::handle function, unsigned block, nb::handle allocate,
                            nb::handle result, Py_ssize_t itemsize);

    /// The whole-array reduction of `array` by `kernel_of`'s kernel, as a new 0-d GPUArray,
    /// where remembered (and `allocator` is None); else `fallback(kernel_of, array,
    /// allocator)`.
    nb::object reduce(PyObject* kernel_of, PyObject* array, PyObject* allocator,
                      PyObject* fallback);

    void clear() { entries_.clear(); }
    std::size_t size() const { return entries_.size(); }
    PyTypeObject* array_type() const { return reinterpret_cast<PyTypeObject*>(array_type_.ptr()); }

    /// The Python objects held, for the cycle collector.
    int traverse(visitproc visit, void* arg) const;

private:
    /// The result, or a null object where the Python path must decide.
    nb::object try_binary(PyObject* array, PyObject* op, PyObject* other, bool reflected);
    nb::object try_reduce(PyObject* kernel_of, PyObject* array);

    nb::object fallback_, array_type_;
    std::size_t capacity_;
    std::unordered_map<FlatKey, FlatEntry, FlatKeyHash> entries_;
};

} // namespace pycuda::bindings
