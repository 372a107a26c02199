// bindings/linker.cpp: pycuda._driver.Linker (JIT linking, e.g. with libcudadevrt.a).
#include "bindings/module.hpp"

#include "core/error.hpp"
#include "core/linker.hpp"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <span>
#include <string>

namespace pycuda::bindings {

namespace {

/// A Linker and the Python message handler that receives its logs.
struct PyLinker {
    PyLinker(nb::object handler, nb::handle options, bool log_verbose)
        : linker(jit_options(options), log_verbose), message_handler(std::move(handler)) {}

    // Runs one linker step; on failure the handler sees the logs before the error propagates.
    template <typename Step>
    auto step(Step&& run) {
        try {
            return run();
        } catch (const CudaError&) {
            report_jit_log(message_handler, false, linker.log());
            throw;
        }
    }

    Linker linker;
    nb::object message_handler;
};

std::string data_bytes(nb::handle data) {
    if (PyUnicode_Check(data.ptr()))
        return nb::cast<std::string>(data);
    Py_buffer view;
    if (PyObject_GetBuffer(data.ptr(), &view, PyBUF_SIMPLE) != 0) {
        PyErr_Clear();
        throw nb::type_error("Linker.add_data: expected bytes, a buffer or a str of PTX");
    }
    std::string out(static_cast<const char*>(view.buf), static_cast<std::size_t>(view.len));
    PyBuffer_Release(&view);
    return out;
}

} // namespace

void bind_linker(nb::module_& m) {
    nb::class_<PyLinker>(m, "Linker", nb::dynamic_attr(),
                         "Links cubins, PTX and libraries into one Module.\n\n"
                         "    ln = pycuda.driver.Linker()\n"
                         "    ln.add_data(cubin, pycuda.driver.jit_input_type.CUBIN, 'k')\n"
                         "    ln.add_file('/usr/local/cuda/lib64/libcudadevrt.a',\n"
                         "                pycuda.driver.jit_input_type.LIBRARY)\n"
                         "    mod = ln.link_module()")
        .def(nb::init<nb::object, nb::handle, bool>(),
             nb::arg("message_handler").none() = nb::none(), nb::arg("options").none() = nb::none(),
             nb::arg("log_verbose") = false)
        .def(
            "add_data",
            [](PyLinker& self, nb::handle data, int input_type, const std::string& name) {
                std::string bytes = data_bytes(data);
                self.step([&] {
                    self.linker.add_data(std::as_bytes(std::span(bytes.data(), bytes.size())),
                                         static_cast<CUjitInputType>(input_type), name);
                });
            },
            nb::arg("data"), nb::arg("input_type"), nb::arg("name") = "unknown",
            "Add an in-memory image of jit_input_type `input_type`.")
        .def(
            "add_file",
            [](PyLinker& self, const std::string& filename, int input_type) {
                self.step([&] {
                    self.linker.add_file(filename, static_cast<CUjitInputType>(input_type));
                });
            },
            nb::arg("filename"), nb::arg("input_type"), "Add a file of jit_input_type.")
        .def(
            "link_module",
            [](PyLinker& self) {
                ModulePtr module = self.step([&] { return self.linker.link_module(); });
                report_jit_log(self.message_handler, true, self.linker.log());
                return module;
            },
            "Complete the link and load the result as a Module.");
}

} // namespace pycuda::bindings
