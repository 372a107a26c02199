// bindings/compile_cache.cpp: pycuda._driver.CompileCache and sha256_hex for pycuda.compiler.
#include "core/compile_cache.hpp"
#include "core/sha256.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/string.h>

namespace nb = nanobind;

namespace pycuda::bindings {

void bind_compile_cache(nb::module_& m) {
    nb::class_<CompileCache>(m, "CompileCache",
                             "Content-addressed store of compiled kernels: memory, then disk.\n\n"
                             "    c = CompileCache('/tmp/cache')   # or CompileCache() for memory\n"
                             "    c.put(key, cubin); c.get(key) -> bytes | None")
        // The default is a str, not a path: converting a path to Python would import pathlib
        // (tens of milliseconds) when the module loads.
        .def(nb::init<std::filesystem::path>(), nb::arg("directory") = std::string())
        .def(
            "get",
            [](CompileCache& c, const std::string& key, const std::string& suffix) -> nb::object {
                auto entry = c.get(key, suffix);
                if (!entry)
                    return nb::none();
                return nb::bytes(entry->data(), entry->size());
            },
            nb::arg("key"), nb::arg("suffix") = std::string(k_binary_suffix),
            "The entry for key ('.bin': a binary, '.deps': a dependency record), or None on a\n"
            "miss (a corrupt file is a miss).")
        .def(
            "put",
            [](CompileCache& c, const std::string& key, nb::bytes data, const std::string& suffix) {
                return c.put(key, std::string_view(data.c_str(), data.size()), suffix);
            },
            nb::arg("key"), nb::arg("data"), nb::arg("suffix") = std::string(k_binary_suffix),
            "Store an entry; returns '' or why the disk copy could not be written.")
        .def("clear_memory", &CompileCache::clear_memory,
             "Forget the entries kept in memory; those on disk stay.")
        .def(
            "entry_path",
            [](const CompileCache& c, const std::string& key, const std::string& suffix) {
                return c.entry_path(key, suffix);
            },
            nb::arg("key"), nb::arg("suffix") = std::string(k_binary_suffix),
            "The file that holds (or would hold) the entry for `key`.")
        .def_prop_ro("directory", &CompileCache::directory,
                     "The cache's directory ('' for a cache kept in memory only).");
    m.def(
        "sha256_hex", [](nb::bytes data) { return sha256_hex({data.c_str(), data.size()}); },
        nb::arg("data"), "SHA-256 of bytes as 64 hex digits.");
}

} // namespace pycuda::bindings
