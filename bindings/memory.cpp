// bindings/memory.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_memory(nb::module_&) {}
} // namespace pycuda::bindings
