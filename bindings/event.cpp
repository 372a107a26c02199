// bindings/event.cpp: pycuda._driver.Event.
#include "bindings/self_check.hpp"
#include "bindings/stream.hpp"

#include "core/event.hpp"

#include <nanobind/stl/unique_ptr.h>

#include <cstdint>
#include <cstring>

namespace pycuda::bindings {

void bind_event(nb::module_& m) {
    nb::class_<Event>(m, "Event", nb::dynamic_attr(),
                      "A marker in a stream, for synchronization and timing.\n\n"
                      "    start, end = drv.Event(), drv.Event()\n"
                      "    start.record(); ...; end.record(); end.synchronize()\n"
                      "    ms = end.time_since(start)")
        .def(nb::init<unsigned>(), nb::arg("flags") = 0)
        .def(
            "record",
            [](nb::handle self, nb::handle stream) {
                check_self<Event>(self, "Event.record");
                nb::cast<Event&>(self).record(stream_handle(stream));
                return self;
            },
            nb::arg("stream").none() = nb::none(), "Record on `stream`; returns self.")
        .def(
            "synchronize",
            [](nb::handle self) {
                check_self<Event>(self, "Event.synchronize");
                Event& e = nb::cast<Event&>(self);
                {
                    nb::gil_scoped_release release;
                    e.synchronize();
                }
                return self;
            },
            "Wait for the event; returns self.")
        .def("query", &Event::query, "True once the recorded work has completed.")
        .def("time_since", &Event::time_since, nb::arg("start"),
             "Milliseconds from `start` to this event.")
        .def(
            "time_till", [](const Event& self, const Event& end) { return end.time_since(self); },
            nb::arg("end"), "Milliseconds from this event to `end`.")
        .def(
            "ipc_handle",
            [](const Event& e) {
                CUipcEventHandle h = e.ipc_handle();
                nb::object ba = nb::steal(PyByteArray_FromStringAndSize(h.reserved, sizeof(h)));
                return ba;
            },
            "A 64-byte bytearray that another process opens with Event.from_ipc_handle() "
            "(the event needs event_flags.INTERPROCESS | DISABLE_TIMING).")
        .def_static(
            "from_ipc_handle",
            [](nb::handle raw) {
                // Accepts the bytearray ipc_handle() returns, or bytes.
                nb::bytes handle = nb::steal<nb::bytes>(PyBytes_FromObject(raw.ptr()));
                if (!handle.is_valid())
                    throw nb::python_error();
                CUipcEventHandle h{};
                if (handle.size() != sizeof(h))
                    throw nb::value_error("an IPC event handle is 64 bytes");
                std::memcpy(h.reserved, handle.c_str(), sizeof(h));
                return Event::from_ipc_handle(h);
            },
            nb::arg("handle"), "The event of another process, from its ipc_handle().")
        .def_prop_ro(
            "handle", [](const Event& e) { return reinterpret_cast<std::uintptr_t>(e.handle()); },
            "The CUevent, as an int.");
}

} // namespace pycuda::bindings
