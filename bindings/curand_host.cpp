// bindings/curand_host.cpp: cuRAND's host library for pycuda._curand_host (version, Sobol tables).
#include "core/curand_host.hpp"
#include "core/driver_api.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <optional>
#include <string>

namespace nb = nanobind;

namespace pycuda::bindings {

namespace {

template <typename T, std::size_t Columns>
using Table =
    nb::ndarray<nb::numpy, const T, nb::shape<k_curand_dimensions, Columns>, nb::c_contig>;

template <typename T>
using Constants = nb::ndarray<nb::numpy, const T, nb::shape<k_curand_dimensions>, nb::c_contig>;

std::optional<std::string> none_if_empty(std::string path) {
    if (path.empty())
        return std::nullopt;
    return path;
}

} // namespace

void bind_curand_host(nb::module_& m) {
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const CurandError& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    m.def("curand_available", &curand_loadable, "Whether a libcurand could be opened.");
    m.def(
        "curand_library_path", []() { return curand().library_path; },
        "The path of the libcurand in use (opens it).");
    m.def(
        "find_curand", []() { return none_if_empty(find_curand()); },
        "The libcurand file core opens (or opened), found without opening it; None when the\n"
        "search finds none.");
    m.def("curand_search_description", &curand_search_description,
          "The places searched for libcurand, in order.");
    m.def("curand_version", &curand_version, "cuRAND's version number, e.g. 10400 for 10.4.0.");
    // The tables are libcurand's static arrays, which stay loaded: read-only views, no copy.
    m.def(
        "curand_direction_vectors32",
        [](int set) {
            auto t = curand_direction_vectors32(set);
            return Table<std::uint32_t, 32>(t.data(), {k_curand_dimensions, 32});
        },
        nb::arg("set"), nb::rv_policy::reference,
        "A 32-bit direction-vector set (101, 102) as a read-only (20000, 32) uint32 array.");
    m.def(
        "curand_direction_vectors64",
        [](int set) {
            auto t = curand_direction_vectors64(set);
            return Table<std::uint64_t, 64>(t.data(), {k_curand_dimensions, 64});
        },
        nb::arg("set"), nb::rv_policy::reference,
        "A 64-bit direction-vector set (103, 104) as a read-only (20000, 64) uint64 array.");
    m.def(
        "curand_scramble_constants32",
        []() {
            auto t = curand_scramble_constants32();
            return Constants<std::uint32_t>(t.data(), {k_curand_dimensions});
        },
        nb::rv_policy::reference, "The 20000 32-bit scramble constants, read-only uint32.");
    m.def(
        "curand_scramble_constants64",
        []() {
            auto t = curand_scramble_constants64();
            return Constants<std::uint64_t>(t.data(), {k_curand_dimensions});
        },
        nb::rv_policy::reference, "The 20000 64-bit scramble constants, read-only uint64.");
}

} // namespace pycuda::bindings
