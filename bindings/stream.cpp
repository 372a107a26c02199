// bindings/stream.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_stream(nb::module_&) {}
} // namespace pycuda::bindings
