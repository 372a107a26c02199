// bindings/profiler.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_profiler(nb::module_&) {}
} // namespace pycuda::bindings
