// bindings/pointer.cpp: recognizing Python objects that stand for device memory (a hot path:
// every kernel launch and memcpy goes through here).
#include "bindings/pointer.hpp"

#include "bindings/memory.hpp"
#include "core/async_memory.hpp"
#include "core/device_memory.hpp"
#include "core/ipc_memory.hpp"
#include "core/memory_pool.hpp"

#include <nanobind/stl/string.h>
#include <string>

namespace pycuda::bindings {

namespace {

// Our types, looked up once (after the module is initialized: nothing calls in here earlier).
struct PointerTypes {
    PyTypeObject* metatype; // nanobind's metaclass: anything else is not ours, fast reject
    PyTypeObject* allocation;
    PyTypeObject* pooled;
    PyTypeObject* holder;
    PyTypeObject* ipc;
    PyTypeObject* ordered;
};

PyTypeObject* type_of(nb::handle h) {
    return reinterpret_cast<PyTypeObject*>(h.ptr());
}

const PointerTypes& pointer_types() {
    static const PointerTypes types{
        Py_TYPE(nb::type<DeviceAllocation>().ptr()), type_of(nb::type<DeviceAllocation>()),
        type_of(nb::type<PooledDeviceAllocation>()), type_of(nb::type<PointerHolderBase>()),
        type_of(nb::type<IpcMemoryHandle>()),        type_of(nb::type<StreamOrderedAllocation>())};
    return types;
}

bool is_a(PyTypeObject* tp, PyTypeObject* type) {
    return tp == type || PyType_IsSubtype(tp, type);
}

template <typename T>
T& instance(nb::handle obj) {
    if (!nb::inst_ready(obj)) [[unlikely]]
        throw nb::type_error("a device-memory object was used before its __init__ ran (does a "
                             "PointerHolderBase subclass call super().__init__()?)");
    return *nb::inst_ptr<T>(obj);
}

bool try_device_span(nb::handle obj, DeviceSpan& out) {
    const PointerTypes& t = pointer_types();
    PyTypeObject* tp = Py_TYPE(obj.ptr());
    if (Py_TYPE(reinterpret_cast<PyObject*>(tp)) != t.metatype)
        return false;
    if (is_a(tp, t.allocation)) {
        const DeviceAllocation& a = instance<DeviceAllocation>(obj);
        out = {a.ptr(), a.size()};
    } else if (is_a(tp, t.pooled)) {
        const PooledDeviceAllocation& a = instance<PooledDeviceAllocation>(obj);
        out = {a.ptr("PooledDeviceAllocation"), a.size()};
    } else if (is_a(tp, t.ordered)) {
        const StreamOrderedAllocation& a = instance<StreamOrderedAllocation>(obj);
        out = {a.ptr(), a.size()};
    } else if (is_a(tp, t.holder)) {
        out = {instance<PointerHolderBase>(obj).get_pointer(), SIZE_MAX};
    } else if (is_a(tp, t.ipc)) {
        out = {instance<IpcMemoryHandle>(obj).ptr(), SIZE_MAX};
    } else {
        return false;
    }
    return true;
}

CUdeviceptr int_pointer(nb::handle obj, const char* what) {
    unsigned long long value = PyLong_AsUnsignedLongLong(obj.ptr());
    if (value == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
        PyErr_Clear();
        throw nb::value_error(
            (std::string(what) + ": a device pointer must be an integer in [0, 2**64)").c_str());
    }
    return static_cast<CUdeviceptr>(value);
}

DeviceSpan span_of(nb::handle obj, const char* what, int depth) {
    DeviceSpan span;
    if (try_device_span(obj, span))
        return span;
    if (PyLong_Check(obj.ptr()))
        return {int_pointer(obj, what), SIZE_MAX};
    if (nb::hasattr(obj, "__cuda_array_interface__")) {
        nb::object data = obj.attr("__cuda_array_interface__")["data"];
        return {int_pointer(nb::object(data[0]), what), SIZE_MAX};
    }
    if (depth == 0 && nb::hasattr(obj, "gpudata"))
        return span_of(obj.attr("gpudata"), what, 1);
    if (PyIndex_Check(obj.ptr())) { // numpy integers
        nb::object index = nb::steal(PyNumber_Index(obj.ptr()));
        if (!index.is_valid())
            throw nb::python_error();
        return {int_pointer(index, what), SIZE_MAX};
    }
    throw nb::type_error((std::string(what) +
                          ": expected a device pointer (DeviceAllocation, PooledDeviceAllocation, "
                          "PointerHolderBase, an int, or an object with __cuda_array_interface__ "
                          "or .gpudata), got " +
                          nb::type_name(obj.type()).c_str())
                             .c_str());
}

} // namespace

bool try_device_pointer(nb::handle obj, CUdeviceptr& out) {
    DeviceSpan span;
    if (!try_device_span(obj, span))
        return false;
    out = span.ptr;
    return true;
}

CUdeviceptr device_pointer(nb::handle obj, const char* what) {
    return span_of(obj, what, 0).ptr;
}

DeviceSpan device_span(nb::handle obj, const char* what) {
    return span_of(obj, what, 0);
}

void check_fits(const DeviceSpan& span, size_t bytes, const char* what) {
    if (bytes > span.size)
        throw nb::value_error((std::string(what) + ": the copy needs " + std::to_string(bytes) +
                               " bytes but the device allocation has only " +
                               std::to_string(span.size))
                                  .c_str());
}

} // namespace pycuda::bindings
