// bindings/memory_pool.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_memory_pool(nb::module_&) {}
} // namespace pycuda::bindings
