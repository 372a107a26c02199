// bindings/nvrtc.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_nvrtc(nb::module_&) {}
} // namespace pycuda::bindings
