// bindings/memory.hpp: helpers shared by the memory binders (device spans, host buffers,
// the buffer protocol for host-visible allocations, and the gc-and-retry on out-of-memory).
#pragma once

#include "bindings/pointer.hpp"
#include "core/error.hpp"
#include "core/memory_pool.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace pycuda::bindings {

/// The original's PointerHolderBase: subclassed in Python, overriding get_pointer(), to make
/// any object usable where a device pointer is expected.
class PointerHolderBase {
public:
    virtual ~PointerHolderBase() = default;
    /// The device address; NotImplementedError where a subclass did not override it.
    virtual CUdeviceptr get_pointer() const;
};

/// A device address and the bytes known to be behind it (SIZE_MAX when unknown: ints,
/// PointerHolderBase, interface objects).
struct DeviceSpan {
    CUdeviceptr ptr = 0;
    size_t size = SIZE_MAX;
};

/// As device_pointer(), plus the size where the object knows it.
DeviceSpan device_span(nb::handle obj, const char* what);

/// ValueError unless `bytes` fit in `span`; `what` names the call.
void check_fits(const DeviceSpan& span, size_t bytes, const char* what);

/// A contiguous host buffer exported by a Python object for the lifetime of this object
/// (the exporter cannot resize or free it meanwhile). Not contiguous, not a buffer, or
/// read-only where `writable` is asked: ValueError/TypeError naming `what`.
class HostBuffer {
public:
    HostBuffer(nb::handle obj, bool writable, const char* what);
    ~HostBuffer() { PyBuffer_Release(&view_); }
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    void* data() const noexcept { return view_.buf; }
    size_t size() const noexcept { return static_cast<size_t>(view_.len); }
    bool readonly() const noexcept { return view_.readonly != 0; }
    nb::handle owner() const noexcept { return view_.obj; }

private:
    Py_buffer view_{};
};

/// Runs `allocate`; on CUDA_ERROR_OUT_OF_MEMORY runs Python's gc.collect() (freeing
/// unreachable allocations), frees the blocks every DeviceMemoryPool holds (the collected ones
/// among them) and tries once more.
template <typename Allocate>
auto retry_after_gc(Allocate&& allocate) {
    try {
        return allocate();
    } catch (const CudaError& e) {
        if (e.code() != CUDA_ERROR_OUT_OF_MEMORY)
            throw;
    }
    nb::module_::import_("gc").attr("collect")();
    // Under the GIL: allocation paths (the flat launches among them) are not written to let
    // other threads run halfway through them.
    free_held_device_pools();
    return allocate();
}

/// The buffer protocol for a bound class T with a `host_span(const T&)` overload (in namespace
/// pycuda, found by argument-dependent lookup) giving
/// (address, bytes, readonly): numpy arrays built with np.ndarray(..., buffer=obj) then have
/// `obj` as their `.base`. A released object raises BufferError.
template <typename T>
int get_host_buffer(PyObject* self, Py_buffer* view, int flags) {
    if (!nb::inst_ready(self)) {
        PyErr_SetString(PyExc_BufferError, "the object is not initialized");
        return -1;
    }
    try {
        auto [data, size, readonly] = host_span(*nb::inst_ptr<T>(self));
        static char empty = 0; // a valid address for 0-byte exports
        return PyBuffer_FillInfo(view, self, data ? data : &empty, static_cast<Py_ssize_t>(size),
                                 readonly ? 1 : 0, flags);
    } catch (const std::exception& e) {
        PyErr_SetString(PyExc_BufferError, e.what());
        return -1;
    }
}

/// Type slots giving T the buffer protocol (static storage, as nanobind requires).
template <typename T>
const PyType_Slot* host_buffer_slots() {
    static const PyType_Slot slots[] = {
        {Py_bf_getbuffer, reinterpret_cast<void*>(&get_host_buffer<T>)}, {0, nullptr}};
    return slots;
}

/// A memoryview of `size` bytes at `ptr + offset` (device addresses that the host can read:
/// managed or host-mapped memory). It does not keep the memory alive.
nb::object device_memoryview(CUdeviceptr ptr, size_t known_size, size_t size, size_t offset);

} // namespace pycuda::bindings
