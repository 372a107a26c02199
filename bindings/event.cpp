// bindings/event.cpp: (being written)
#include <nanobind/nanobind.h>
namespace nb = nanobind;
namespace pycuda::bindings {
void bind_event(nb::module_&) {}
} // namespace pycuda::bindings
