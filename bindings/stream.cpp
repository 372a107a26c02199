// bindings/stream.cpp: pycuda._driver.Stream.
#include "bindings/stream.hpp"
#include "bindings/checked_int.hpp"

#include "bindings/graph.hpp"
#include "bindings/python_api.hpp"

#include "core/event.hpp"
#include "core/stream.hpp"

#include <cstdint>
#include <string_view>

namespace pycuda::bindings {

namespace {

/// Whether `cls` was defined by pycuda (the extension's classes, GPUArray and the others).
bool is_pycuda_class(nb::handle cls) {
    nb::object module = nb::getattr(cls, "__module__", nb::none());
    if (!PyUnicode_Check(module.ptr()))
        return false;
    const char* text = PyUnicode_AsUTF8AndSize(module.ptr(), nullptr);
    if (text == nullptr) {
        PyErr_Clear();
        return false;
    }
    std::string_view name = text;
    return name == "pycuda" || name.starts_with("pycuda.");
}

} // namespace

CUstream stream_handle(nb::handle obj) {
    if (obj.is_none())
        return nullptr;
    if (Stream* s = nullptr; nb::try_cast<Stream*>(obj, s) && s)
        return s->handle();
    if (nb::hasattr(obj, "__cuda_stream__")) {
        nb::object method = obj.attr("__cuda_stream__");
        nb::object proto = PyCallable_Check(method.ptr()) ? method() : nb::object();
        if (!proto.is_valid() || !PyTuple_Check(proto.ptr()) ||
            pyapi::tuple_size(proto.ptr()) != 2)
            throw nb::type_error("__cuda_stream__ must be a method returning a (version, "
                                 "stream handle) tuple");
        return reinterpret_cast<CUstream>(checked_int<std::uintptr_t>(
            pyapi::tuple_item(proto.ptr(), 1), "__cuda_stream__()[1] (a stream handle)"));
    }
    // Another of our objects (an Event, a Context) has an integer .handle too, and a driver
    // given an event as a stream corrupts memory: only foreign objects are read by attribute.
    // (Python subclasses count too: a GPUArray's .ptr is a device address, not a stream.)
    for (nb::handle base : obj.type().attr("__mro__"))
        if (is_pycuda_class(base))
            throw nb::type_error(("stream must be None or a pycuda.driver.Stream, got " +
                                  nb::cast<std::string>(nb::type_name(obj.type())))
                                     .c_str());
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
        .def("__cuda_stream__",
             [](const Stream& s) {
                 return nb::make_tuple(0, reinterpret_cast<std::uintptr_t>(s.handle()));
             })
        .def(
            "begin_capture",
            [](const Stream& s, nb::handle mode) {
                begin_capture(s.handle(), capture_mode_arg(mode));
            },
            nb::arg("mode").none() = "relaxed",
            "Start recording the work queued on this stream into a graph instead of running it "
            "(cuStreamBeginCapture); `mode` is a capture_mode or 'global', 'thread_local', "
            "'relaxed'. Work queued with no stream still goes to the default stream: use "
            "capture() to capture GPUArray operators.")
        .def(
            "end_capture",
            [](const Stream& s) { return PyGraph{end_capture(s.handle()), nb::list()}; },
            "Stop recording; returns the Graph of what was queued since begin_capture().")
        .def(
            "is_capturing",
            [](const Stream& s) {
                return capture_status(s.handle()) == CU_STREAM_CAPTURE_STATUS_ACTIVE;
            },
            "True while the stream is capturing (and the capture is still valid).")
        .def(
            "capture_status", [](const Stream& s) { return int(capture_status(s.handle())); },
            "The stream's capture_status: NONE, ACTIVE, or INVALIDATED (a forbidden call "
            "spoiled the capture; end_capture() will raise).")
        .def("capture", &make_stream_capture, nb::arg("mode").none() = "relaxed",
             nb::sig("def capture(self, mode: int | str = 'relaxed') -> StreamCapture"),
             "A StreamCapture: `with stream.capture() as cap:` records the block's work on "
             "this stream, including work queued with no stream (GPUArray operators), into "
             "cap.graph.");
}

} // namespace pycuda::bindings
