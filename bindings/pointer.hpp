// bindings/pointer.hpp: recognizing Python objects that stand for device memory.
#pragma once

#include "core/driver_api.hpp"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace pycuda::bindings {

/// If `obj` is one of our device-memory objects (DeviceAllocation, ManagedAllocation,
/// PooledDeviceAllocation, StreamOrderedAllocation, IPCMemoryHandle, a PointerHolderBase
/// subclass), stores its device address in `out` and returns true; returns false for anything
/// else without raising. Used by the kernel-argument packer and by every function that takes a
/// device pointer.
bool try_device_pointer(nb::handle obj, CUdeviceptr& out);

/// As try_device_pointer, but also accepts ints, objects with `__cuda_array_interface__` or
/// `gpudata`; anything else is TypeError naming `what`.
CUdeviceptr device_pointer(nb::handle obj, const char* what);

} // namespace pycuda::bindings
