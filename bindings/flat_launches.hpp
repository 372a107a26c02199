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

/// What a remembered binary-operator launch is found by.
struct BinaryKey {
    PyObject* op;  // the operator's name ("add"): interned, so compared by address
    PyObject* lhs; // the array's dtype
    PyObject* rhs; // the other array's dtype, or the scalar's type
    CUcontext context;
    long long n;
    bool reflected;
    bool operator==(const BinaryKey&) const = default;
};

struct BinaryKeyHash {
    std::size_t operator()(const BinaryKey& k) const noexcept;
};

/// What a remembered whole-array reduction is found by.
struct ReductionKey {
    PyObject* kernel_of; // the kernel factory (pycuda._reduce_ops._sum_kernel, ...)
    PyObject* dtype;     // the array's dtype
    CUcontext context;
    long long n;
    bool operator==(const ReductionKey&) const = default;
};

struct ReductionKeyHash {
    std::size_t operator()(const ReductionKey& k) const noexcept;
};

/// What every remembered launch needs: the Function (its module and context), its shape,
/// where results' blocks come from (the pool, or the stream-ordered allocator) and the
/// result's dtype. Holds the key's objects (so that their addresses are not reused while
/// cached).
struct FlatLaunch {
    nb::object keep;
    nb::object function;
    Dim3 grid, block;
    nb::object result;                               // the result's dtype
    Py_ssize_t itemsize;                             // of the result
    std::shared_ptr<DeviceMemoryPool> pool;          // null where `ordered` serves
    std::shared_ptr<StreamOrderedAllocator> ordered; // null where `pool` serves
    nb::object allocate; // the context's default allocator: served arrays have it, results get it
};

/// A binary operator's launch: its 1-D result's strides and how a scalar operand is packed.
struct BinaryEntry : FlatLaunch {
    nb::object strides1; // (itemsize,)
    nb::object convert;  // a scalar operand's conversion; None: packed as it is
    long long lo = LLONG_MIN, hi = LLONG_MAX; // the Python ints the rules were resolved for
};

/// A whole-array reduction's one-block launch, `function(out, array, n)`: a 0-d result.
struct ReductionEntry : FlatLaunch {};

/// The tables of remembered launches, one for the binary operators and one for the
/// reductions (one FlatLaunches per process, made by pycuda._array_core). The GIL guards them.
class FlatLaunches {
public:
    /// Each table's launches are forgotten after `capacity` of them.
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

    void clear() {
        binaries_.clear();
        reductions_.clear();
    }
    std::size_t size() const { return binaries_.size() + reductions_.size(); }
    PyTypeObject* array_type() const { return reinterpret_cast<PyTypeObject*>(array_type_.ptr()); }

    /// The Python objects held, for the cycle collector.
    int traverse(visitproc visit, void* arg) const;

private:
    /// The result, or a null object where the Python path must decide.
    nb::object try_binary(PyObject* array, PyObject* op, PyObject* other, bool reflected);
    nb::object try_reduce(PyObject* kernel_of, PyObject* array);

    nb::object fallback_, array_type_;
    std::size_t capacity_;
    std::unordered_map<BinaryKey, BinaryEntry, BinaryKeyHash> binaries_;
    std::unordered_map<ReductionKey, ReductionEntry, ReductionKeyHash> reductions_;
};

} // namespace pycuda::bindings
