// bindings/stream.hpp: turning Python stream arguments into CUstream.
#pragma once

#include "core/driver_api.hpp"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// The CUstream for a `stream=` argument: None (the default stream), a pycuda Stream, or any
/// object with `__cuda_stream__` (the CUDA stream protocol) or an integer `.ptr`/`.handle`
/// (CuPy and PyTorch streams). Anything else is TypeError.
CUstream stream_handle(nb::handle obj);

} // namespace pycuda::bindings
