// bindings/array.cpp: ArrayDescriptor, ArrayDescriptor3D, Array and the linear array copies
// (memcpy_htoa/atoh, their py_ names, memcpy_dtoa/atod/atoa) of pycuda._driver.
#include "bindings/memory.hpp"

#include "core/array.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <string>

namespace pycuda::bindings {

namespace {

template <typename Desc>
void def_texel_fields(nb::class_<Desc>& cls) {
    cls.def_prop_rw(
           "format", [](const Desc& d) { return static_cast<int>(d.Format); },
           [](Desc& d, int f) { d.Format = static_cast<CUarray_format>(f); },
           "The type of each channel of a texel (an array_format value).")
        .def_rw("num_channels", &Desc::NumChannels, "Channels per texel: 1, 2 or 4.")
        .def_rw("width", &Desc::Width, "Texels per row.")
        .def_rw("height", &Desc::Height, "Rows (0 for a 1D array).");
}

void bind_descriptors(nb::module_& m) {
    nb::class_<CUDA_ARRAY_DESCRIPTOR> d2(
        m, "ArrayDescriptor",
        "Shape and texel type of a 1D or 2D Array (height 0 means 1D).\n\n"
        "    d = pycuda.driver.ArrayDescriptor()\n"
        "    d.width, d.height = 64, 32\n"
        "    d.format = pycuda.driver.array_format.FLOAT\n"
        "    d.num_channels = 1\n"
        "    ary = pycuda.driver.Array(d)");
    d2.def("__init__", [](CUDA_ARRAY_DESCRIPTOR* d) {
        new (d) CUDA_ARRAY_DESCRIPTOR{0, 0, CU_AD_FORMAT_FLOAT, 1};
    });
    def_texel_fields(d2);
    nb::class_<CUDA_ARRAY3D_DESCRIPTOR> d3(
        m, "ArrayDescriptor3D",
        "Shape, texel type and flags (array3d_flags: LAYERED, SURFACE_LDST, CUBEMAP) of an "
        "Array of up to three dimensions (height/depth 0 for fewer).");
    d3.def("__init__", [](CUDA_ARRAY3D_DESCRIPTOR* d) {
        new (d) CUDA_ARRAY3D_DESCRIPTOR{0, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    });
    def_texel_fields(d3);
    d3.def_rw("depth", &CUDA_ARRAY3D_DESCRIPTOR::Depth, "Slices (0 for a 1D or 2D array).")
        .def_rw("flags", &CUDA_ARRAY3D_DESCRIPTOR::Flags, "array3d_flags, or'ed together.");
}

void bind_array_class(nb::module_& m) {
    nb::class_<Array>(m, "Array", nb::dynamic_attr(),
                      "A CUDA array, for textures and surfaces.\n\n"
                      "    ary = pycuda.driver.Array(descriptor)  # ArrayDescriptor[3D]\n"
                      "    pycuda.driver.memcpy_htoa(ary, 0, host_data)  # 1D arrays")
        .def(nb::init<const CUDA_ARRAY_DESCRIPTOR&>(), nb::arg("descriptor"))
        .def(nb::init<const CUDA_ARRAY3D_DESCRIPTOR&>(), nb::arg("descriptor"))
        .def("free", &Array::free, "Free the array now (else it goes with its last user).")
        .def("get_descriptor", &Array::descriptor, "The array's ArrayDescriptor.")
        .def("get_descriptor_3d", &Array::descriptor_3d, "The array's ArrayDescriptor3D.")
        .def_prop_ro(
            "handle",
            [](const Array& a) {
                return reinterpret_cast<std::uintptr_t>(a.handle("Array.handle"));
            },
            "The CUarray, as an int.");
}

void bind_array_copies(nb::module_& m) {
    auto htoa = [](const Array& ary, std::size_t index, nb::handle src) {
        HostBuffer s(src, false, "memcpy_htoa");
        nb::gil_scoped_release release;
        memcpy_htoa(ary, index, s.data(), s.size());
    };
    auto atoh = [](nb::handle dest, const Array& ary, std::size_t index) {
        HostBuffer d(dest, true, "memcpy_atoh");
        nb::gil_scoped_release release;
        memcpy_atoh(d.data(), ary, index, d.size());
    };
    for (const char* name : {"memcpy_htoa", "py_memcpy_htoa"})
        m.def(name, htoa, nb::arg("ary"), nb::arg("index"), nb::arg("src"),
              "Copy the host buffer `src` into `ary` from byte `index` on.");
    for (const char* name : {"memcpy_atoh", "py_memcpy_atoh"})
        m.def(name, atoh, nb::arg("dest"), nb::arg("ary"), nb::arg("index"),
              "Fill the host buffer `dest` from `ary`, from byte `index` on.");
    m.def(
        "memcpy_dtoa",
        [](const Array& ary, std::size_t index, nb::handle src, std::size_t size) {
            DeviceSpan s = device_span(src, "memcpy_dtoa");
            check_fits(s, size, "memcpy_dtoa");
            nb::gil_scoped_release release;
            memcpy_dtoa(ary, index, s.ptr, size);
        },
        nb::arg("ary"), nb::arg("index"), nb::arg("src"), nb::arg("len"),
        "Copy `len` bytes of device memory `src` into `ary` from byte `index` on.");
    m.def(
        "memcpy_atod",
        [](nb::handle dest, const Array& ary, std::size_t index, std::size_t size) {
            DeviceSpan d = device_span(dest, "memcpy_atod");
            check_fits(d, size, "memcpy_atod");
            nb::gil_scoped_release release;
            memcpy_atod(d.ptr, ary, index, size);
        },
        nb::arg("dest"), nb::arg("ary"), nb::arg("index"), nb::arg("len"),
        "Copy `len` bytes of `ary`, from byte `index` on, to device memory `dest`.");
    m.def(
        "memcpy_atoa",
        [](const Array& dest, std::size_t dest_index, const Array& src, std::size_t src_index,
           std::size_t size) {
            nb::gil_scoped_release release;
            memcpy_atoa(dest, dest_index, src, src_index, size);
        },
        nb::arg("dest"), nb::arg("dest_index"), nb::arg("src"), nb::arg("src_index"),
        nb::arg("len"), "Copy `len` bytes from array `src` to array `dest`, at byte offsets.");
}

} // namespace

void bind_array(nb::module_& m) {
    bind_descriptors(m);
    bind_array_class(m);
    bind_array_copies(m);
}

} // namespace pycuda::bindings
