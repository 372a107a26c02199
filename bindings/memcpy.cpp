// bindings/memcpy.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_memcpy(nb::module_&) {}
} // namespace pycuda::bindings
