// bindings/toolkit_search.cpp: where core looks for NVRTC and cuRAND (core/driver_api.hpp), for
// pycuda._cuda_paths, which knows where Python packages live and tells core.
#include "core/driver_api.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nb = nanobind;

namespace pycuda::bindings {

namespace {

const ToolkitLibrary& toolkit_library(std::string_view title) {
    if (title == "NVRTC")
        return k_nvrtc_library;
    if (title == "cuRAND")
        return k_curand_library;
    throw std::invalid_argument("unknown toolkit library '" + std::string(title) +
                                "': expected 'NVRTC' or 'cuRAND'");
}

} // namespace

void bind_toolkit_search(nb::module_& m) {
    m.def("set_toolkit_library_dirs", &set_toolkit_library_dirs, nb::arg("dirs"),
          "Folders searched for NVRTC and cuRAND after $PYCUDA_LIBNVRTC / $PYCUDA_LIBCURAND and\n"
          "before the loader's: the toolkit variables' (those pycuda uses), then the pip\n"
          "packages' and conda's. Core reads none of $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT.");
    m.def(
        "toolkit_library_candidates",
        [](std::string_view title) { return toolkit_library_candidates(toolkit_library(title)); },
        nb::arg("title"),
        "Where 'NVRTC' or 'cuRAND' is looked for, in order (files, or names for the loader).");
    m.def(
        "toolkit_library_in",
        [](std::string_view title, const std::vector<std::string>& dirs) {
            return find_toolkit_library_in(toolkit_library(title), dirs);
        },
        nb::arg("title"), nb::arg("dirs"),
        "The first file of 'NVRTC' or 'cuRAND' in the folders dirs that this process could\n"
        "load, or '' when they hold none.");
    m.def(
        "toolkit_setting_problem",
        [](std::string_view title) { return explicit_setting_problem(toolkit_library(title)); },
        nb::arg("title"),
        "What is wrong with the library file named for 'NVRTC' or 'cuRAND' ($PYCUDA_LIBNVRTC,\n"
        "$PYCUDA_LIBCURAND); empty when nothing is.");
}

} // namespace pycuda::bindings
