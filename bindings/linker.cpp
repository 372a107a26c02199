// bindings/linker.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_linker(nb::module_&) {}
} // namespace pycuda::bindings
