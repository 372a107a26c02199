"""Devices, versions and driver initialization."""

from __future__ import annotations

import pytest

import pycuda.driver as drv


def test_enums_carry_the_original_names():
    assert drv.device_attribute.MAX_THREADS_PER_BLOCK == 1
    assert drv.ctx_flags.SCHED_AUTO == 0
    assert drv.ctx_flags.LMEM_RESIZE_TO_MAX == 0x10
    assert drv.jit_option.MAX_REGISTERS == 0
    assert drv.jit_input_type.LIBRARY == 4
    assert drv.compute_mode.EXCLUSIVE_PROCESS == 3
    assert drv.host_alloc_flags.DEVICEMAP == 2
    assert getattr(drv.array3d_flags, "2DARRAY") == 1
    assert str(drv.device_attribute.WARP_SIZE) == "pycuda._driver.device_attribute.WARP_SIZE"


def test_get_version_is_the_build_headers():
    major, minor, patch = drv.get_version()
    assert major >= 12 and minor >= 0 and patch >= 0


def test_exception_hierarchy():
    for name in ("LogicError", "LaunchError", "MemoryError", "RuntimeError"):
        cls = getattr(drv, name)
        assert issubclass(cls, drv.Error)
        assert cls.__module__ == "pycuda._driver"
    assert issubclass(drv.CompileError, drv.Error)
    # They are not the builtins of the same name (as in the original).
    assert not issubclass(drv.RuntimeError, RuntimeError)


@pytest.mark.gpu
def test_device_queries(ctx):
    assert drv.Device.count() >= 1
    dev = drv.Device(0)
    assert dev == drv.Device(0) and hash(dev) == hash(drv.Device(0))
    assert isinstance(dev.name(), str) and dev.name()
    major, minor = dev.compute_capability()
    assert major >= 3
    assert dev.total_memory() > 1 << 30
    assert dev.max_threads_per_block == dev.get_attribute(
        drv.device_attribute.MAX_THREADS_PER_BLOCK
    )
    assert dev.warp_size == 32
    assert isinstance(dev.get_attribute(drv.device_attribute.COMPUTE_MODE), drv.compute_mode)
    attrs = dev.get_attributes()
    assert len(attrs) >= 100
    assert attrs[drv.device_attribute.MULTIPROCESSOR_COUNT] > 0
    assert drv.Device(dev.pci_bus_id()) == dev
    assert len(dev.uuid()) == 16
    assert drv.get_driver_version() >= 12000
    assert dev.can_access_peer(dev) in (True, False)


@pytest.mark.gpu
def test_bad_device_input(ctx):
    with pytest.raises(drv.LogicError) as info:
        drv.Device(drv.Device.count() + 7)
    assert info.value.name == "CUDA_ERROR_INVALID_DEVICE"
    assert "cuDeviceGet" in str(info.value)
    with pytest.raises(AttributeError):
        _ = drv.Device(0).no_such_attribute_here
    with pytest.raises(TypeError):
        drv.Device(1.5)
    with pytest.raises(drv.Error):
        drv.Device("not-a-bus-id")
