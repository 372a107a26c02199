// bindings/memcpy.cpp: memset_* and linear memcpy_* of pycuda._driver (host side through the
// buffer protocol; device side anything device_pointer() accepts).
#include "bindings/checked_int.hpp"
#include "bindings/context.hpp"
#include "bindings/memory.hpp"
#include "bindings/stream.hpp"

#include "core/memcpy.hpp"
#include "core/staged_copy.hpp"

#include <cstdint>
#include <nanobind/stl/string.h>
#include <string>

namespace pycuda::bindings {

namespace {

constexpr auto none = [] { return nb::arg("stream").none() = nb::none(); };

unsigned checked_value(uint32_t value, unsigned element_size, const char* what) {
    if (element_size < 4 && value >= (1u << (8 * element_size)))
        throw nb::value_error((std::string(what) + ": data does not fit in " +
                               std::to_string(8 * element_size) + " bits")
                                  .c_str());
    return value;
}

template <unsigned ElementSize>
void bind_memset(nb::module_& m, const char* name, const char* name_async, const char* name_2d,
                 const char* name_2d_async) {
    m.def(
        name,
        [name](nb::handle dest, uint32_t data, size_t size) {
            DeviceSpan d = device_span(dest, name);
            check_fits(d, size * ElementSize, name);
            unsigned v = checked_value(data, ElementSize, name);
            nb::gil_scoped_release release;
            memset_1d(d.ptr, v, size, ElementSize);
        },
        nb::arg("dest"), nb::arg("data"), nb::arg("size"),
        "Set `size` elements at `dest` to `data`.");
    m.def(
        name_async,
        [name_async](nb::handle dest, uint32_t data, size_t size, nb::handle stream) {
            DeviceSpan d = device_span(dest, name_async);
            check_fits(d, size * ElementSize, name_async);
            memset_1d_async(d.ptr, checked_value(data, ElementSize, name_async), size, ElementSize,
                            stream_handle(stream));
        },
        nb::arg("dest"), nb::arg("data"), nb::arg("size"), none(),
        "As the synchronous form, queued on `stream`.");
    auto span_2d = [](const DeviceSpan& d, size_t pitch, size_t width, size_t height,
                      const char* what) {
        if (width * ElementSize > pitch)
            throw nb::value_error((std::string(what) + ": width exceeds the pitch").c_str());
        if (height > 0)
            check_fits(d, pitch * (height - 1) + width * ElementSize, what);
    };
    m.def(
        name_2d,
        [name_2d, span_2d](nb::handle dest, size_t pitch, uint32_t data, size_t width,
                           size_t height) {
            DeviceSpan d = device_span(dest, name_2d);
            span_2d(d, pitch, width, height, name_2d);
            unsigned v = checked_value(data, ElementSize, name_2d);
            nb::gil_scoped_release release;
            memset_2d(d.ptr, pitch, v, width, height, ElementSize);
        },
        nb::arg("dest"), nb::arg("pitch"), nb::arg("data"), nb::arg("width"), nb::arg("height"),
        "Set a `width` x `height` rectangle (rows `pitch` bytes apart) to `data`.");
    m.def(
        name_2d_async,
        [name_2d_async, span_2d](nb::handle dest, size_t pitch, uint32_t data, size_t width,
                                 size_t height, nb::handle stream) {
            DeviceSpan d = device_span(dest, name_2d_async);
            span_2d(d, pitch, width, height, name_2d_async);
            memset_2d_async(d.ptr, pitch, checked_value(data, ElementSize, name_2d_async), width,
                            height, ElementSize, stream_handle(stream));
        },
        nb::arg("dest"), nb::arg("pitch"), nb::arg("data"), nb::arg("width"), nb::arg("height"),
        none(), "As the synchronous form, queued on `stream`.");
}

void bind_host_copies(nb::module_& m) {
    m.def(
        "memcpy_htod",
        [](nb::handle dest, nb::handle src) {
            DeviceSpan d = device_span(dest, "memcpy_htod");
            HostBuffer s(src, false, "memcpy_htod");
            check_fits(d, s.size(), "memcpy_htod");
            nb::gil_scoped_release release;
            staged_memcpy_htod(d.ptr, s.data(), s.size());
        },
        nb::arg("dest"), nb::arg("src"), "Copy all of the host buffer `src` to `dest`.");
    // Async: the buffer is held until the call returns. For pageable memory CUDA has read it
    // by then; page-locked memory must be kept alive by the caller until the stream gets there.
    // Never staged (core/memcpy.hpp says why).
    m.def(
        "memcpy_htod_async",
        [](nb::handle dest, nb::handle src, nb::handle stream) {
            DeviceSpan d = device_span(dest, "memcpy_htod_async");
            HostBuffer s(src, false, "memcpy_htod_async");
            check_fits(d, s.size(), "memcpy_htod_async");
            CUstream h = stream_handle(stream);
            nb::gil_scoped_release release; // a pageable source makes this synchronous
            memcpy_htod_async(d.ptr, s.data(), s.size(), h);
        },
        nb::arg("dest"), nb::arg("src"), none(),
        "Copy the host buffer `src` to `dest` on `stream`. Only a page-locked `src` makes the "
        "copy asynchronous; keep it alive until the stream has reached the copy.");
    m.def(
        "memcpy_dtoh",
        [](nb::handle dest, nb::handle src) {
            HostBuffer d(dest, true, "memcpy_dtoh");
            DeviceSpan s = device_span(src, "memcpy_dtoh");
            check_fits(s, d.size(), "memcpy_dtoh");
            nb::gil_scoped_release release;
            staged_memcpy_dtoh(d.data(), s.ptr, d.size());
        },
        nb::arg("dest"), nb::arg("src"), "Fill all of the writable host buffer `dest` from `src`.");
    m.def(
        "memcpy_dtoh_async",
        [](nb::handle dest, nb::handle src, nb::handle stream) {
            HostBuffer d(dest, true, "memcpy_dtoh_async");
            DeviceSpan s = device_span(src, "memcpy_dtoh_async");
            check_fits(s, d.size(), "memcpy_dtoh_async");
            CUstream h = stream_handle(stream);
            nb::gil_scoped_release release;
            memcpy_dtoh_async(d.data(), s.ptr, d.size(), h);
        },
        nb::arg("dest"), nb::arg("src"), none(),
        "Fill the host buffer `dest` from `src` on `stream`. Only a page-locked `dest` makes "
        "the copy asynchronous; read it after the stream has finished the copy.");
}

void bind_device_copies(nb::module_& m) {
    m.def(
        "memcpy_dtod",
        [](nb::handle dest, nb::handle src, Int<size_t, "memcpy_dtod() size"> size) {
            DeviceSpan d = device_span(dest, "memcpy_dtod");
            DeviceSpan s = device_span(src, "memcpy_dtod");
            check_fits(d, size, "memcpy_dtod");
            check_fits(s, size, "memcpy_dtod");
            nb::gil_scoped_release release;
            memcpy_dtod(d.ptr, s.ptr, size);
        },
        nb::arg("dest"), nb::arg("src"), nb::arg("size"), "Copy `size` bytes on the device.");
    m.def(
        "memcpy_dtod_async",
        [](nb::handle dest, nb::handle src, size_t size, nb::handle stream) {
            DeviceSpan d = device_span(dest, "memcpy_dtod_async");
            DeviceSpan s = device_span(src, "memcpy_dtod_async");
            check_fits(d, size, "memcpy_dtod_async");
            check_fits(s, size, "memcpy_dtod_async");
            memcpy_dtod_async(d.ptr, s.ptr, size, stream_handle(stream));
        },
        nb::arg("dest"), nb::arg("src"), nb::arg("size"), none(),
        "Copy `size` bytes on the device, queued on `stream`.");
}

CUcontext context_arg(nb::handle ctx) {
    if (ctx.is_none())
        return nullptr; // resolved by the core to the pointer's own context
    if (!nb::isinstance<ContextRef>(ctx))
        throw nb::type_error("memcpy_peer: a context argument must be a Context or None");
    return nb::cast<const ContextRef&>(ctx).get()->handle();
}

void bind_peer_copies(nb::module_& m) {
    m.def(
        "memcpy_peer",
        [](nb::handle dest, nb::handle src, size_t size, nb::handle dest_context,
           nb::handle src_context) {
            DeviceSpan d = device_span(dest, "memcpy_peer");
            DeviceSpan s = device_span(src, "memcpy_peer");
            check_fits(d, size, "memcpy_peer");
            check_fits(s, size, "memcpy_peer");
            CUcontext dc = context_arg(dest_context), sc = context_arg(src_context);
            nb::gil_scoped_release release;
            memcpy_peer(d.ptr, s.ptr, size, dc, sc);
        },
        nb::arg("dest"), nb::arg("src"), nb::arg("size"),
        nb::arg("dest_context").none() = nb::none(), nb::arg("src_context").none() = nb::none(),
        "Copy between devices. A context left None is the one the pointer belongs to.");
    m.def(
        "memcpy_peer_async",
        [](nb::handle dest, nb::handle src, size_t size, nb::handle dest_context,
           nb::handle src_context, nb::handle stream) {
            DeviceSpan d = device_span(dest, "memcpy_peer_async");
            DeviceSpan s = device_span(src, "memcpy_peer_async");
            check_fits(d, size, "memcpy_peer_async");
            check_fits(s, size, "memcpy_peer_async");
            memcpy_peer_async(d.ptr, s.ptr, size, context_arg(dest_context),
                              context_arg(src_context), stream_handle(stream));
        },
        nb::arg("dest"), nb::arg("src"), nb::arg("size"),
        nb::arg("dest_context").none() = nb::none(), nb::arg("src_context").none() = nb::none(),
        none(), "As memcpy_peer, queued on `stream`.");
}

} // namespace

void bind_memcpy(nb::module_& m) {
    bind_memset<1>(m, "memset_d8", "memset_d8_async", "memset_d2d8", "memset_d2d8_async");
    bind_memset<2>(m, "memset_d16", "memset_d16_async", "memset_d2d16", "memset_d2d16_async");
    bind_memset<4>(m, "memset_d32", "memset_d32_async", "memset_d2d32", "memset_d2d32_async");
    bind_host_copies(m);
    bind_device_copies(m);
    bind_peer_copies(m);
}

} // namespace pycuda::bindings
