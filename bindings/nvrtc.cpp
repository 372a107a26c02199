// bindings/nvrtc.cpp: NVRTC for pycuda.compiler (nvrtc_compile, nvrtc_version, ...).
#include "core/nvrtc.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;

namespace pycuda::bindings {

namespace {

nb::bytes to_bytes(const std::string& s) {
    return nb::bytes(s.data(), s.size());
}

nb::tuple compile(const std::string& source, const std::string& name,
                  const std::vector<std::string>& options,
                  const std::vector<std::pair<std::string, std::string>>& headers) {
    std::vector<NvrtcHeader> in_memory;
    for (const auto& [header_name, contents] : headers)
        in_memory.push_back({header_name, contents});
    NvrtcResult result;
    {
        // A compile takes tens of milliseconds: let other Python threads run.
        nb::gil_scoped_release release;
        result = nvrtc_compile(source, name, options, in_memory);
    }
    // The log quotes the source; undecodable bytes must not turn a compile error into a
    // UnicodeDecodeError.
    nb::str log = nb::steal<nb::str>(
        PyUnicode_DecodeUTF8(result.log.data(), Py_ssize_t(result.log.size()), "replace"));
    return nb::make_tuple(result.success, log, to_bytes(result.ptx), to_bytes(result.cubin));
}

} // namespace

void bind_nvrtc(nb::module_& m) {
    nb::register_exception_translator([](const std::exception_ptr& p, void*) {
        try {
            std::rethrow_exception(p);
        } catch (const NvrtcError& e) {
            PyErr_SetString(PyExc_RuntimeError, e.what());
        }
    });
    m.def("nvrtc_compile", &compile, nb::arg("source"), nb::arg("name"), nb::arg("options"),
          nb::arg("headers") = std::vector<std::pair<std::string, std::string>>{},
          "Compile CUDA C++ with NVRTC in this process.\n\n"
          "Returns (success, log, ptx: bytes, cubin: bytes); cubin is empty for a virtual\n"
          "architecture (compute_XY). headers: (name, contents) pairs found by #include.");
    m.def("nvrtc_version", &nvrtc_version, "NVRTC's (major, minor) version.");
    m.def("nvrtc_supported_archs", &nvrtc_supported_archs,
          "The SM numbers (e.g. [75, 80, 90]) NVRTC compiles for.");
    m.def("nvrtc_available", &nvrtc_loadable, "Whether a libnvrtc could be opened.");
    m.def(
        "nvrtc_library_path", []() { return nvrtc().library_path; },
        "The path of the libnvrtc in use (opens it).");
    m.def(
        "find_nvrtc",
        []() -> std::optional<std::string> {
            std::string path = find_nvrtc();
            if (path.empty())
                return std::nullopt;
            return path;
        },
        "The libnvrtc file core opens (or opened), found without opening it; None when the\n"
        "search finds none (nvrtc_available() may still find one through the loader).");
}

} // namespace pycuda::bindings
