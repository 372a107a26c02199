"""Every object's repr works without a GPU where it can be made without one."""

from __future__ import annotations

import pytest

import pycuda.driver as drv


@pytest.mark.gpu
def test_reprs_are_text(ctx):
    buf = drv.mem_alloc(16)
    for obj in (ctx, drv.Device(0), buf):
        assert isinstance(repr(obj), str)
    buf.free()
    assert "freed" in repr(buf)
