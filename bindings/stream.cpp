// bindings/stream.cpp: pycuda._driver.Stream.
#include "bindings/stream.hpp"

#include "core/event.hpp"
#include "core/stream.hpp"

#include <cstdint>

namespace pycuda::bindings {

CUstream stream_handle(nb::handle obj) {
    if (obj.is_none())
        return nullptr;
    if (Stream* s = nullptr; nb::try_cast<Stream*>(obj, s) && s)
        return s->handle();
    if (nb::hasattr(obj, "__cuda_stream__")) {
        nb::tuple proto = nb::cast<nb::tuple>(obj.attr("__cuda_stream__")());
        return reinterpret_cast<CUstream>(nb::cast<std::uintptr_t>(proto[1]));
    }
    for (const char* name : {"ptr", "cuda_stream", "handle"})
        if (nb::hasattr(obj, name))
            return reinterpret_cast<CUstream>(nb::cast<std::uintptr_t>(obj.attr(name)));
    throw nb::type_error("stream must be None, a pycuda.driver.Stream, or an object with "
                         "__cuda_stream__ or an integer .ptr/.handle");
}

void bind_stream(nb::module_& m) {
    nb::class_<Stream>(m, "Stream", nb::dynamic_attr(),
                       "A CUDA stream: work queued on it runs in order.\n\n"
                       "    s = pycuda.driver.Stream()\n"
                       "    pycuda.driver.memcpy_htod_async(dev, host, s)\n"
                       "    s.synchronize()")
        .def(nb::init<unsigned, int>(), nb::arg("flags") = 0, nb::arg("priority") = 0)
        .def(
            "synchronize",
            [](const Stream& s) {
                nb::gil_scoped_release release;
                s.synchronize();
            },
            "Wait until all work queued on the stream is done.")
        .def("is_done", &Stream::is_done, "Whether all work queued on the stream is done.")
        .def("wait_for_event", &Stream::wait_for_event, nb::arg("event"),
             "Make later work on this stream wait for `event`.")
        .def_prop_ro("flags", &Stream::flags, "The stream_flags it was created with.")
        .def_prop_ro("priority", &Stream::priority,
                     "Its priority (lower numbers run first; 0 is the default).")
        .def_prop_ro(
            "handle", [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); },
            "The CUstream, as an int.")
        .def("__cuda_stream__", [](const Stream& s) {
            return nb::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.handle()));
        });
}

} // namespace pycuda::bindings
