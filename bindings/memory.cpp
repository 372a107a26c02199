// bindings/memory.cpp: DeviceAllocation, ManagedAllocation, PointerHolderBase, IPCMemoryHandle
// and the mem_* functions of pycuda._driver.
#include "bindings/memory.hpp"
#include "bindings/checked_int.hpp"

#include "bindings/stream.hpp"
#include "core/device_memory.hpp"
#include "core/ipc_memory.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/trampoline.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <nanobind/stl/string.h>
#include <string>
#include <tuple>

namespace pycuda::bindings {

CUdeviceptr PointerHolderBase::get_pointer() const {
    PyErr_SetString(PyExc_NotImplementedError,
                    "PointerHolderBase.get_pointer(): a subclass must override it to return "
                    "the device address");
    throw nb::python_error();
}

namespace {

class PyPointerHolderBase : public PointerHolderBase {
public:
    NB_TRAMPOLINE(PointerHolderBase, 1);
    CUdeviceptr get_pointer() const override { NB_OVERRIDE(get_pointer); }
};

std::string what_of(const char* call, const char* problem) {
    return std::string(call) + ": " + problem;
}

} // namespace

HostBuffer::HostBuffer(nb::handle obj, bool writable, const char* what) {
    int flags = PyBUF_STRIDES | (writable ? PyBUF_WRITABLE : 0);
    // The format shows an object array's 'O'; NumPy cannot spell dtypes of other packages
    // (ml_dtypes' bfloat16) in one and refuses, so those are taken as bytes.
    int failed = PyObject_GetBuffer(obj.ptr(), &view_, flags | PyBUF_FORMAT);
    if (failed != 0) {
        PyErr_Clear();
        failed = PyObject_GetBuffer(obj.ptr(), &view_, flags);
    }
    if (failed != 0) {
        PyErr_Clear();
        view_ = Py_buffer{};
        if (!PyObject_CheckBuffer(obj.ptr()))
            throw nb::type_error((std::string(what) +
                                  ": the host side must support the buffer protocol (a numpy "
                                  "array, bytes, bytearray, memoryview), got " +
                                  nb::type_name(obj.type()).c_str())
                                     .c_str());
        throw nb::value_error(
            what_of(what, writable ? "the host buffer is read-only; a writable one is needed"
                                   : "the host buffer cannot be exported")
                .c_str());
    }
    if (!PyBuffer_IsContiguous(&view_, 'A')) {
        PyBuffer_Release(&view_);
        throw nb::value_error(what_of(what, "the host buffer is not contiguous; pass a C- or "
                                            "F-contiguous one (numpy.ascontiguousarray)")
                                  .c_str());
    }
    // An object array's bytes are PyObject pointers: copied to the device they mean nothing,
    // and bytes copied into one are taken for pointers (a crash when it is freed).
    bool objects = view_.format != nullptr && std::strcmp(view_.format, "O") == 0;
    if (!objects && PyObject_HasAttrString(obj.ptr(), "dtype")) {
        nb::object has = nb::steal(PyObject_GetAttrString(obj.ptr(), "dtype"));
        PyObject* flag = has.is_valid() ? PyObject_GetAttrString(has.ptr(), "hasobject") : nullptr;
        objects = flag == Py_True;
        Py_XDECREF(flag);
        PyErr_Clear();
    }
    if (objects) {
        PyBuffer_Release(&view_);
        throw nb::type_error(
            what_of(what, "the host buffer holds Python objects (an object dtype), whose bytes "
                          "are pointers; use a numeric dtype")
                .c_str());
    }
}

nb::object device_memoryview(CUdeviceptr ptr, size_t known_size, size_t size, size_t offset) {
    if (offset > known_size || size > known_size - offset)
        throw nb::value_error("as_buffer: offset + size exceed the allocation");
    char* start = reinterpret_cast<char*>(static_cast<std::uintptr_t>(ptr + offset));
    return nb::steal(PyMemoryView_FromMemory(start, static_cast<Py_ssize_t>(size), PyBUF_WRITE));
}

} // namespace pycuda::bindings

namespace pycuda {
// Found by argument-dependent lookup from get_host_buffer<ManagedAllocation>.
std::tuple<void*, size_t, bool> host_span(const ManagedAllocation& a) {
    return {reinterpret_cast<void*>(static_cast<std::uintptr_t>(a.ptr("ManagedAllocation"))),
            a.size(), false};
}
} // namespace pycuda

namespace pycuda::bindings {
namespace {

void bind_allocations(nb::module_& m) {
    nb::class_<DeviceAllocation>(m, "DeviceAllocation", nb::dynamic_attr(),
                                 "Linear device memory from mem_alloc(); frees itself in its "
                                 "context when collected.\n\n"
                                 "    buf = drv.mem_alloc(a.nbytes)\n"
                                 "    drv.memcpy_htod(buf, a)\n"
                                 "    buf.free()")
        .def("__int__", [](const DeviceAllocation& a) { return a.ptr(); })
        .def("__index__", [](const DeviceAllocation& a) { return a.ptr(); })
        .def("free", &DeviceAllocation::free,
             "Free now (in the owning context). Using the allocation afterwards is LogicError.")
        .def(
            "as_buffer",
            [](const DeviceAllocation& a, size_t size, size_t offset) {
                return device_memoryview(a.ptr("as_buffer"), a.size(), size, offset);
            },
            nb::arg("size"), nb::arg("offset") = 0,
            "A memoryview of the device address (only readable by the host for managed or "
            "host-mapped memory). Keep the allocation alive while using it.")
        .def("__repr__", [](const DeviceAllocation& a) {
            if (a.freed())
                return std::string("<pycuda.driver.DeviceAllocation (freed)>");
            char buf[96];
            std::snprintf(buf, sizeof buf, "<pycuda.driver.DeviceAllocation %zu bytes at 0x%llx>",
                          a.size(), static_cast<unsigned long long>(a.ptr()));
            return std::string(buf);
        });

    nb::class_<ManagedAllocation, DeviceAllocation>(
        m, "ManagedAllocation", nb::type_slots(host_buffer_slots<ManagedAllocation>()),
        "Unified memory (cuMemAllocManaged) behind managed_empty(); one address for host and "
        "device.")
        .def("get_device_pointer", &ManagedAllocation::device_pointer,
             "The memory's address, which host and device share.")
        .def(
            "attach",
            [](const ManagedAllocation& a, unsigned flags, nb::handle stream) {
                a.attach(flags, stream_handle(stream));
            },
            nb::arg("mem_flags"), nb::arg("stream").none() = nb::none(),
            "cuStreamAttachMemAsync: flags from mem_attach_flags.");

    nb::class_<PointerHolderBase, PyPointerHolderBase>(
        m, "PointerHolderBase", nb::dynamic_attr(),
        "Subclass and override get_pointer() to pass any object as a device pointer.\n\n"
        "    class Holder(drv.PointerHolderBase):\n"
        "        def __init__(self, buf):\n"
        "            super().__init__(); self.buf = buf\n"
        "        def get_pointer(self):\n"
        "            return int(self.buf)")
        .def(nb::init<>())
        .def("get_pointer", &PointerHolderBase::get_pointer,
             "The device address this object stands for, as an int; a subclass overrides it.")
        .def("__int__", &PointerHolderBase::get_pointer)
        .def("__index__", &PointerHolderBase::get_pointer)
        .def(
            "as_buffer",
            [](const PointerHolderBase& h, size_t size, size_t offset) {
                return device_memoryview(h.get_pointer(), SIZE_MAX, size, offset);
            },
            nb::arg("size"), nb::arg("offset") = 0,
            "A memoryview of `size` bytes at get_pointer() + `offset` (host-readable only for "
            "managed or host-mapped memory).");
}

void bind_ipc(nb::module_& m) {
    m.def(
        "mem_get_ipc_handle",
        [](nb::handle devptr) {
            CUipcMemHandle h = ipc_mem_handle(device_pointer(devptr, "mem_get_ipc_handle"));
            return nb::steal(PyByteArray_FromStringAndSize(h.reserved, sizeof(h.reserved)));
        },
        nb::arg("devptr"), "A 64-byte bytearray another process opens with IPCMemoryHandle.");

    nb::class_<IpcMemoryHandle>(m, "IPCMemoryHandle", nb::dynamic_attr(),
                                "Device memory of another process, opened from the handle that "
                                "process got from mem_get_ipc_handle().")
        .def(
            "__init__",
            [](IpcMemoryHandle* self, nb::handle raw, unsigned flags) {
                HostBuffer handle(raw, false, "IPCMemoryHandle");
                CUipcMemHandle h{};
                if (handle.size() != sizeof(h.reserved))
                    throw nb::value_error("IPCMemoryHandle: an IPC memory handle is 64 bytes");
                std::memcpy(h.reserved, handle.data(), sizeof(h.reserved));
                new (self) IpcMemoryHandle(h, flags);
            },
            nb::arg("handle"), nb::arg("flags") = unsigned{CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS})
        .def("__int__", &IpcMemoryHandle::ptr)
        .def("__index__", &IpcMemoryHandle::ptr)
        .def("close", &IpcMemoryHandle::close,
             "Close the mapping now (cuIpcCloseMemHandle); the memory stays the other "
             "process's.");
}

void bind_mem_functions(nb::module_& m) {
    m.def(
        "mem_alloc",
        [](Int<size_t, "a size in bytes"> bytes) {
            return retry_after_gc([&] { return std::make_unique<DeviceAllocation>(bytes); });
        },
        nb::arg("bytes"),
        "Allocate `bytes` of device memory in the current context (DeviceAllocation). When "
        "the device is out of memory, garbage is collected and the allocation retried once.");
    m.def(
        "mem_alloc_pitch",
        [](size_t width, size_t height, unsigned access_size) {
            if (access_size != 4 && access_size != 8 && access_size != 16)
                throw nb::value_error("mem_alloc_pitch: access_size must be 4, 8 or 16");
            auto [alloc, pitch] =
                retry_after_gc([&] { return mem_alloc_pitch(width, height, access_size); });
            return nb::make_tuple(nb::cast(std::move(alloc)), pitch);
        },
        nb::arg("width"), nb::arg("height"), nb::arg("access_size"),
        "Pitched 2D allocation: returns (DeviceAllocation, pitch in bytes).");
    m.def("mem_get_info", &mem_get_info, "(free, total) bytes of the current device.");
    m.def(
        "mem_get_address_range",
        [](nb::handle ptr) {
            return mem_get_address_range(device_pointer(ptr, "mem_get_address_range"));
        },
        nb::arg("ptr"), "(base, size) of the allocation containing `ptr`.");
    m.def(
        "_managed_alloc",
        [](size_t bytes, unsigned flags) {
            return retry_after_gc(
                [&] { return std::make_unique<ManagedAllocation>(bytes, flags); });
        },
        nb::arg("bytes"), nb::arg("flags") = 0);
}

} // namespace

void bind_memory(nb::module_& m) {
    bind_allocations(m);
    bind_ipc(m);
    bind_mem_functions(m);
}

} // namespace pycuda::bindings
