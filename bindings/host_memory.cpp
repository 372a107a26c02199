// bindings/host_memory.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_host_memory(nb::module_&) {}
} // namespace pycuda::bindings
