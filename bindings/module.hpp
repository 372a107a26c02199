// bindings/module.hpp: conversions shared by the module and linker bindings.
#pragma once

#include "core/module.hpp"

#include <nanobind/nanobind.h>

#include <vector>

namespace nb = nanobind;

namespace pycuda::bindings {

/// JIT options from an iterable of (jit_option, value) pairs; integer values (bools, enums)
/// go in the pointer-sized slot as the driver expects, floats as their bit pattern.
std::vector<JitOption> jit_options(nb::handle options);

/// Calls message_handler(success, info, error) unless it is None.
void report_jit_log(nb::handle handler, bool success, const JitLog& log);

} // namespace pycuda::bindings
