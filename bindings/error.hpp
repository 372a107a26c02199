// bindings/error.hpp: how C++ exceptions become pycuda.driver exceptions.
#pragma once

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// Creates Error, LogicError, LaunchError, MemoryError and RuntimeError in the module and
/// registers the translator for CudaError; routes clean-up failures to Python warnings.
void bind_error(nb::module_& m);

} // namespace pycuda::bindings
