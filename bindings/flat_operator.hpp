// bindings/flat_operator.hpp: the method descriptors of GPUArray's binary operators (see
// flat_operator.cpp).
#pragma once

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// A new operator descriptor `name` (e.g. "__radd__") for ufunc `op` ("add"), served by the
/// FlatLaunches `table`.
nb::object make_flat_operator(nb::handle table, nb::handle name, nb::handle op, bool reflected);

/// Makes the descriptors' type (once) and adds it to the module as FlatOperator.
void bind_flat_operator(nb::module_& m);

} // namespace pycuda::bindings
