// bindings/texture.cpp: TextureReference, SurfaceReference, TextureObject, SurfaceObject,
// Module.get_texref/get_surfref and Function.param_set_texref of pycuda._driver.
#include "bindings/texture.hpp"

#include "bindings/memory.hpp"

#include "core/function.hpp"
#include "core/texture_reference.hpp"

#include <nanobind/stl/array.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <string>

namespace pycuda::bindings {

namespace {

/// An opaque token that keeps a Python object (the owner of device memory) alive for the core;
/// it may be dropped without the GIL (a setter releases it around its synchronous copy).
std::shared_ptr<const void> py_owner(nb::handle obj) {
    if (!obj.is_valid() || obj.is_none() || PyLong_Check(obj.ptr()))
        return nullptr;
    PyObject* p = obj.inc_ref().ptr();
    return std::shared_ptr<const void>(p, [](const void* q) {
        // As nanobind's own shared_ptr deleter: any thread, and nothing once Python is gone.
        if (nb::detail::cleanup_guard guard{})
            Py_DECREF(static_cast<PyObject*>(const_cast<void*>(q)));
    });
}

void bind_texture_reference(nb::module_& m) {
    nb::class_<TextureReference>(
        m, "TextureReference", nb::dynamic_attr(),
        "A texture reference: `texture<float, 2> tex;` in a SourceModule source, from\n"
        "Module.get_texref('tex'); or TextureReference() as a holder of settings. Setters take\n"
        "effect at once (a texture object is made and its handle written to the module).\n\n"
        "    tex = mod.get_texref('tex')\n"
        "    pycuda.driver.matrix_to_texref(a, tex, order='C')\n"
        "    tex.set_filter_mode(pycuda.driver.filter_mode.LINEAR)\n"
        "    kernel(dest, block=(16, 16, 1), texrefs=[tex])")
        .def(nb::init<>())
        .def(
            "set_array",
            [](TextureReference& t, ArrayPtr ary) {
                nb::gil_scoped_release release;
                t.set_array(std::move(ary));
            },
            nb::arg("array"), "Bind an Array (its format replaces the reference's).")
        .def(
            "set_address",
            [](TextureReference& t, nb::handle devptr, size_t bytes, bool allow_offset) {
                DeviceSpan s = device_span(devptr, "set_address");
                check_fits(s, bytes, "set_address");
                auto owner = py_owner(devptr);
                nb::gil_scoped_release release;
                return t.set_address(s.ptr, bytes, allow_offset, std::move(owner));
            },
            nb::arg("devptr"), nb::arg("bytes"), nb::arg("allow_offset") = false,
            "Bind linear memory; returns the byte offset from the texture alignment (an "
            "error unless allow_offset).")
        .def(
            "_bind_linear",
            [](TextureReference& t, nb::handle devptr, size_t bytes, bool allow_offset, int fmt,
               unsigned channels, unsigned flags) {
                DeviceSpan s = device_span(devptr, "bind_to_texref");
                check_fits(s, bytes, "bind_to_texref");
                auto owner = py_owner(devptr);
                nb::gil_scoped_release release;
                return t.bind_linear(s.ptr, bytes, allow_offset, static_cast<CUarray_format>(fmt),
                                     channels, flags, std::move(owner));
            },
            nb::arg("devptr"), nb::arg("bytes"), nb::arg("allow_offset"), nb::arg("format"),
            nb::arg("num_channels"), nb::arg("flags"),
            "set_address + set_format + set_flags as one update (GPUArray.bind_to_texref_ext).")
        .def(
            "set_address_2d",
            [](TextureReference& t, nb::handle devptr, const CUDA_ARRAY_DESCRIPTOR& descr,
               size_t pitch) {
                DeviceSpan s = device_span(devptr, "set_address_2d");
                size_t row = descr.Width * descr.NumChannels * format_channel_bytes(descr.Format);
                if (descr.Height > 0)
                    check_fits(s, pitch * (descr.Height - 1) + row, "set_address_2d");
                auto owner = py_owner(devptr);
                nb::gil_scoped_release release;
                t.set_address_2d(s.ptr, descr, pitch, std::move(owner));
            },
            nb::arg("devptr"), nb::arg("descr"), nb::arg("pitch"),
            "Bind pitched 2D memory described by an ArrayDescriptor.")
        .def(
            "set_format",
            [](TextureReference& t, int fmt, unsigned n) {
                nb::gil_scoped_release release;
                t.set_format(static_cast<CUarray_format>(fmt), n);
            },
            nb::arg("format"), nb::arg("num_components"),
            "The texel type: an array_format and 1, 2 or 4 components.")
        .def(
            "set_address_mode",
            [](TextureReference& t, int dim, int mode) {
                nb::gil_scoped_release release;
                t.set_address_mode(dim, static_cast<CUaddress_mode>(mode));
            },
            nb::arg("dim"), nb::arg("mode"),
            "How coordinates outside the texture are read in dimension `dim` (an address_mode).")
        .def(
            "set_filter_mode",
            [](TextureReference& t, int mode) {
                nb::gil_scoped_release release;
                t.set_filter_mode(static_cast<CUfilter_mode>(mode));
            },
            nb::arg("mode"), "POINT (nearest texel) or LINEAR interpolation (a filter_mode).")
        .def(
            "set_flags",
            [](TextureReference& t, unsigned flags) {
                nb::gil_scoped_release release;
                t.set_flags(flags);
            },
            nb::arg("flags"), "TRSF_READ_AS_INTEGER, TRSF_NORMALIZED_COORDINATES, TRSF_SRGB, ...")
        .def(
            "set_border_color",
            [](TextureReference& t, std::array<float, 4> color) {
                nb::gil_scoped_release release;
                t.set_border_color(color);
            },
            nb::arg("color"), "RGBA read outside the texture in address_mode.BORDER.")
        .def("get_address", &TextureReference::address,
             "The device address bound to the texture (0 when an Array is bound).")
        .def(
            "get_array", [](const TextureReference& t) { return t.array(); },
            "The Array bound to the texture, or None.")
        .def(
            "get_address_mode",
            [](const TextureReference& t, int dim) {
                return static_cast<int>(t.address_mode(dim));
            },
            nb::arg("dim"), "The address_mode of dimension `dim`.")
        .def(
            "get_filter_mode",
            [](const TextureReference& t) { return static_cast<int>(t.filter_mode()); },
            "The filter_mode.")
        .def(
            "get_format",
            [](const TextureReference& t) {
                auto [f, n] = t.format();
                return std::make_pair(static_cast<int>(f), n);
            },
            "(array_format, number of components).")
        .def("get_flags", &TextureReference::flags, "The TRSF_* flags set.")
        .def("get_border_color", &TextureReference::border_color,
             "The RGBA color read outside the texture in address_mode.BORDER.")
        .def_prop_ro("name", &TextureReference::name, "The texture's name in the source.")
        .def_prop_ro(
            "is_bound", [](const TextureReference& t) { return t.state() == BindState::Ready; },
            "Whether memory or an Array is bound and a texture object made for it.")
        .def_prop_ro("object_handle", &TextureReference::object_handle,
                     "The current texture object's handle (0 when none).");
}

void bind_surface_reference(nb::module_& m) {
    nb::class_<SurfaceReference>(m, "SurfaceReference", nb::dynamic_attr(),
                                 "A surface reference: `surface<void, 2> surf;` in a source, "
                                 "from Module.get_surfref('surf').")
        .def(
            "set_array",
            [](SurfaceReference& s, ArrayPtr ary, unsigned flags) {
                nb::gil_scoped_release release;
                s.set_array(std::move(ary), flags);
            },
            nb::arg("array"), nb::arg("flags") = 0,
            "Bind an Array made with array3d_flags.SURFACE_LDST.")
        .def(
            "get_array", [](const SurfaceReference& s) { return s.array(); },
            "The Array bound to the surface, or None.")
        .def_prop_ro("name", &SurfaceReference::name, "The surface's name in the source.")
        .def_prop_ro(
            "is_bound", [](const SurfaceReference& s) { return s.state() == BindState::Ready; },
            "Whether an Array is bound and a surface object made for it.")
        .def_prop_ro("object_handle", &SurfaceReference::object_handle,
                     "The current surface object's handle (0 when none).");
}

TextureSampling sampling_from(nb::handle address_mode, int filter_mode, unsigned flags,
                              nb::handle border_color) {
    TextureSampling s;
    if (!address_mode.is_none()) {
        if (PyLong_Check(address_mode.ptr())) {
            s.address_mode.fill(static_cast<CUaddress_mode>(nb::cast<int>(address_mode)));
        } else {
            size_t i = 0;
            for (nb::handle mode : address_mode) {
                if (i == 3)
                    throw nb::value_error("address_mode: at most 3 entries (x, y, z)");
                s.address_mode[i++] = static_cast<CUaddress_mode>(nb::cast<int>(mode));
            }
        }
    }
    s.filter_mode = static_cast<CUfilter_mode>(filter_mode);
    s.flags = flags;
    if (!border_color.is_none())
        s.border_color = nb::cast<std::array<float, 4>>(border_color);
    return s;
}

void bind_texture_object(nb::module_& m) {
    nb::class_<TextureObject>(
        m, "TextureObject",
        "A texture object (cudaTextureObject_t), passed to kernels as a 64-bit integer:\n\n"
        "    tex = pycuda.driver.TextureObject.from_array(ary, filter_mode=filter_mode.LINEAR)\n"
        "    kernel(numpy.uint64(tex.handle), dest, block=(16, 16, 1))\n\n"
        "address_mode is one address_mode for all dimensions or up to three; flags are "
        "TRSF_*; it keeps its array or memory alive.")
        .def_static(
            "from_array",
            [](ArrayPtr ary, nb::handle address_mode, int filter_mode, unsigned flags,
               nb::handle border_color) {
                TextureResource r;
                r.kind = TextureResource::Kind::Array;
                r.array = std::move(ary);
                return std::make_shared<TextureObject>(
                    std::move(r), sampling_from(address_mode, filter_mode, flags, border_color));
            },
            nb::arg("array"), nb::arg("address_mode").none() = nb::none(),
            nb::arg("filter_mode") = 0, nb::arg("flags") = 0,
            nb::arg("border_color").none() = nb::none(),
            "A texture over an Array (read with tex1D/tex2D/tex3D).")
        .def_static(
            "from_linear",
            [](nb::handle devptr, size_t bytes, int format, unsigned channels, unsigned flags) {
                DeviceSpan s = device_span(devptr, "TextureObject.from_linear");
                check_fits(s, bytes, "TextureObject.from_linear");
                TextureResource r;
                r.kind = TextureResource::Kind::Linear;
                r.ptr = s.ptr;
                r.bytes = bytes;
                r.format = static_cast<CUarray_format>(format);
                r.channels = channels;
                r.owner = py_owner(devptr);
                return std::make_shared<TextureObject>(
                    std::move(r), sampling_from(nb::none(), 0, flags, nb::none()));
            },
            nb::arg("devptr"), nb::arg("bytes"), nb::arg("format"), nb::arg("num_channels") = 1,
            nb::arg("flags") = 0, "A texture over linear memory (read with tex1Dfetch).")
        .def_static(
            "from_pitch2d",
            [](nb::handle devptr, size_t width, size_t height, size_t pitch, int format,
               unsigned channels, nb::handle address_mode, int filter_mode, unsigned flags,
               nb::handle border_color) {
                DeviceSpan s = device_span(devptr, "TextureObject.from_pitch2d");
                if (height > 0)
                    check_fits(s, pitch * height, "TextureObject.from_pitch2d");
                TextureResource r;
                r.kind = TextureResource::Kind::Pitch2D;
                r.ptr = s.ptr;
                r.width = width;
                r.height = height;
                r.pitch = pitch;
                r.format = static_cast<CUarray_format>(format);
                r.channels = channels;
                r.owner = py_owner(devptr);
                return std::make_shared<TextureObject>(
                    std::move(r), sampling_from(address_mode, filter_mode, flags, border_color));
            },
            nb::arg("devptr"), nb::arg("width"), nb::arg("height"), nb::arg("pitch"),
            nb::arg("format"), nb::arg("num_channels") = 1,
            nb::arg("address_mode").none() = nb::none(), nb::arg("filter_mode") = 0,
            nb::arg("flags") = 0, nb::arg("border_color").none() = nb::none(),
            "A texture over pitched 2D memory (width, height in texels; pitch in bytes).")
        .def_prop_ro("handle", &TextureObject::handle,
                     "The CUtexObject, passed to kernels as numpy.uint64(tex.handle).")
        .def("__int__", &TextureObject::handle)
        .def("__index__", &TextureObject::handle);

    nb::class_<SurfaceObject>(m, "SurfaceObject",
                              "A surface object over an Array made with SURFACE_LDST, passed "
                              "to kernels as numpy.uint64(surf.handle).")
        .def(nb::init<ArrayPtr>(), nb::arg("array"))
        .def_prop_ro("handle", &SurfaceObject::handle,
                     "The CUsurfObject, passed to kernels as numpy.uint64(surf.handle).")
        .def("__int__", &SurfaceObject::handle)
        .def("__index__", &SurfaceObject::handle);
}

// Module and Function are bound in their own files; the texture-reference methods are added
// to them here, where the texture concept lives.
void add_module_methods() {
    nb::handle module_cls = nb::type<Module>();
    module_cls.attr("get_texref") = nb::cpp_function(
        [](const ModulePtr& mod, const std::string& name) {
            return TextureReference::of(mod, name);
        },
        nb::is_method(), nb::name("get_texref"), nb::arg("name"), nb::keep_alive<0, 1>(),
        "The TextureReference of the file-scope declaration `texture<...> name;`.");
    module_cls.attr("get_surfref") = nb::cpp_function(
        [](const ModulePtr& mod, const std::string& name) {
            return SurfaceReference::of(mod, name);
        },
        nb::is_method(), nb::name("get_surfref"), nb::arg("name"), nb::keep_alive<0, 1>(),
        "The SurfaceReference of the file-scope declaration `surface<void, dim> name;`.");
    nb::handle function_cls = nb::type<Function>();
    function_cls.attr("param_set_texref") = nb::cpp_function(
        [](nb::handle, nb::handle texref) {
            nb::list one;
            one.append(texref);
            check_texrefs(one.ptr());
        },
        nb::is_method(), nb::name("param_set_texref"), nb::arg("texref"),
        "Check that `texref` is bound (its object is already in its module).");
}

} // namespace

void check_texrefs(PyObject* texrefs) {
    if (texrefs == nullptr || texrefs == Py_None)
        return;
    for (nb::handle item : nb::handle(texrefs)) {
        if (nb::isinstance<TextureReference>(item))
            nb::cast<const TextureReference&>(item).require_bound("texrefs");
        else if (nb::isinstance<SurfaceReference>(item))
            nb::cast<const SurfaceReference&>(item).require_bound("texrefs");
        else
            throw nb::type_error(("texrefs= takes texture and surface references "
                                  "(TextureReference, SurfaceReference), got " +
                                  std::string(nb::type_name(item.type()).c_str()))
                                     .c_str());
    }
}

void bind_texture(nb::module_& m) {
    m.def("_forget_texture_references", &forget_all_references,
          "Drop the texture/surface references kept for live modules (at exit).");
    bind_texture_reference(m);
    bind_surface_reference(m);
    bind_texture_object(m);
    add_module_methods();
}

} // namespace pycuda::bindings
