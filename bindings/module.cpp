// bindings/module.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_module(nb::module_&) {}
} // namespace pycuda::bindings
