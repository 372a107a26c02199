// bindings/module.cpp: pycuda._driver.Module, module_from_file and module_from_buffer.
#include "bindings/module.hpp"

#include "core/error.hpp"
#include "core/function.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>

namespace pycuda::bindings {

std::vector<JitOption> jit_options(nb::handle options) {
    std::vector<JitOption> out;
    if (options.is_none())
        return out;
    for (nb::handle item : options) {
        nb::tuple pair = nb::borrow<nb::tuple>(nb::tuple(nb::borrow(item)));
        if (pair.size() != 2)
            throw nb::type_error("JIT options are (jit_option, value) pairs");
        auto key = static_cast<CUjit_option>(nb::cast<int>(pair[0]));
        nb::handle value = pair[1];
        void* slot = nullptr;
        if (PyFloat_Check(value.ptr())) {
            auto bits = std::bit_cast<std::uint32_t>(static_cast<float>(nb::cast<double>(value)));
            slot = reinterpret_cast<void*>(static_cast<std::uintptr_t>(bits));
        } else {
            slot = reinterpret_cast<void*>(static_cast<std::uintptr_t>(nb::cast<long long>(value)));
        }
        out.emplace_back(key, slot);
    }
    return out;
}

void report_jit_log(nb::handle handler, bool success, const JitLog& log) {
    if (!handler.is_none())
        handler(success, log.info, log.error);
}

namespace {

// Bytes of a buffer-protocol object (bytes, bytearray, numpy) or a str (PTX source).
std::string image_bytes(nb::handle buffer) {
    if (PyUnicode_Check(buffer.ptr()))
        return nb::cast<std::string>(buffer);
    Py_buffer view;
    if (PyObject_GetBuffer(buffer.ptr(), &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        throw nb::type_error("module_from_buffer: expected bytes, a buffer or a str of PTX");
    }
    std::string data(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
    PyBuffer_Release(&view);
    return data;
}

ModulePtr from_buffer(nb::handle buffer, nb::handle options, nb::handle message_handler) {
    std::string data = image_bytes(buffer);
    std::vector<JitOption> opts = jit_options(options);
    JitLog log;
    ModulePtr module;
    try {
        nb::gil_scoped_release release;
        module = Module::from_image(std::as_bytes(std::span(data.data(), data.size())), opts, log);
    } catch (const CudaError&) {
        report_jit_log(message_handler, false, log);
        throw;
    }
    report_jit_log(message_handler, true, log);
    return module;
}

} // namespace

void bind_module(nb::module_& m) {
    nb::class_<Module>(m, "Module", nb::dynamic_attr(),
                       "A loaded CUDA module (cubin, PTX or fatbin).\n\n"
                       "    mod = pycuda.driver.module_from_file('kernels.cubin')\n"
                       "    f = mod.get_function('scale')\n"
                       "    ptr, size = mod.get_global('table')")
        .def(
            "get_function",
            [](ModulePtr self, const std::string& name) { return Function(self, name); },
            nb::arg("name"), "The kernel named `name` (a Function).")
        .def("get_global", &Module::global, nb::arg("name"),
             "(device address, size in bytes) of a __device__ or __constant__ variable.")
        .def_prop_ro(
            "handle",
            [](const Module& mod) { return reinterpret_cast<std::uintptr_t>(mod.handle()); },
            "The CUmodule, as an int.");

    m.def(
        "module_from_file",
        [](const std::string& filename) {
            nb::gil_scoped_release release;
            return Module::from_file(filename);
        },
        nb::arg("filename"), "Load a cubin, PTX or fatbin file as a Module.");
    m.def("module_from_buffer", &from_buffer, nb::arg("buffer"), nb::arg("options") = nb::list(),
          nb::arg("message_handler").none() = nb::none(),
          "Load a cubin, PTX or fatbin image from memory. `options` is a list of\n"
          "(jit_option, value); message_handler(success, info_log, error_log) receives the\n"
          "JIT compiler's messages. A failure raises with the error log in the message.");
}

} // namespace pycuda::bindings
