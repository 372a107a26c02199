// bindings/function.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_function(nb::module_&) {}
} // namespace pycuda::bindings
