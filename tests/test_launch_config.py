"""Tests for pycuda._launch_config: PyCUDA's splay, the grid-stride launch configuration, the
one block size and resident wave, and the one device query they are fed from."""

import numpy as np
import pytest

from pycuda._launch_config import (
    THREADS_PER_BLOCK,
    LaunchConfig,
    grid_stride_config,
    just_enough_config,
    one_wave,
    resident_blocks,
    splay,
)


@pytest.mark.parametrize(
    "n, expected",
    [
        (0, ((1, 1), (32, 1, 1))),
        (1, ((1, 1), (32, 1, 1))),
        (31, ((1, 1), (32, 1, 1))),
        (32, ((1, 1), (32, 1, 1))),
        (33, ((2, 1), (32, 1, 1))),
        (1000, ((32, 1), (32, 1, 1))),
        # 132 SMs: 4224 blocks at most; beyond 4224 warps the blocks widen.
        (4224 * 32, ((4224, 1), (32, 1, 1))),
        (4224 * 32 + 1, ((4224, 1), (64, 1, 1))),
        (4224 * 96 + 1, ((4224, 1), (128, 1, 1))),
        (2**26, ((4224, 1), (128, 1, 1))),
    ],
)
def test_splay_values(n, expected):
    assert splay(n, multiprocessor_count=132) == expected


def test_splay_covers_small_arrays_and_stays_in_bounds():
    rng = np.random.default_rng(50)
    for n in rng.integers(0, 2**22, 2000):
        mp = int(rng.integers(1, 200))
        (blocks, one), (threads, one_a, one_b) = splay(int(n), mp)
        assert one == one_a == one_b == 1
        assert 1 <= blocks <= 32 * mp and threads % 32 == 0 and 32 <= threads <= 128
        # Every element gets its own thread until the grid is full; then threads loop.
        assert blocks * threads >= min(n, 32 * mp * 128)


def test_grid_stride_config():
    config = grid_stride_config(2**26, 132, 2048)
    assert config == LaunchConfig(132 * 8, 256)
    assert config.grid == (1056, 1, 1) and config.block == (256, 1, 1)
    assert grid_stride_config(1000, 132, 2048).blocks == 4
    assert grid_stride_config(0, 132, 2048).blocks == 1
    assert grid_stride_config(4096, 132, 2048, items_per_thread=4).blocks == 4
    assert grid_stride_config(2**40, 132, 2048, max_grid_x=500).blocks == 500


def test_just_enough_config():
    assert just_enough_config(2**26, 256, 4) == LaunchConfig(2**26 // 1024, 256)
    assert just_enough_config(1000).blocks == 4
    assert just_enough_config(0).blocks == 1
    assert just_enough_config(1025, 256, 4).blocks == 2
    assert just_enough_config(2**40, max_grid_x=500).blocks == 500
    with pytest.raises(ValueError, match="negative"):
        just_enough_config(-1)
    with pytest.raises(ValueError, match="positive"):
        just_enough_config(10, items_per_thread=0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(n=-1, multiprocessor_count=1, max_threads_per_multiprocessor=2048), "negative"),
        (dict(n=1, multiprocessor_count=0, max_threads_per_multiprocessor=2048), "positive"),
        (dict(n=1, multiprocessor_count=1, max_threads_per_multiprocessor=1024,
              threads_per_block=2048), "exceeds"),
    ],
)  # fmt: skip
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        grid_stride_config(**kwargs)
    with pytest.raises(ValueError):
        splay(-1, 10)


def test_one_wave_and_resident_blocks():
    from pycuda import driver

    assert THREADS_PER_BLOCK == 256
    assert one_wave(2048 // THREADS_PER_BLOCK, 132) == 1056
    assert one_wave(0, 132) == 132  # a block too large for the thread count: one each

    class Occupancy:
        def __init__(self, answer):
            self.answer = answer

        def max_active_blocks_per_multiprocessor(self, block):
            assert block == THREADS_PER_BLOCK
            if isinstance(self.answer, Exception):
                raise self.answer
            return self.answer

    assert resident_blocks(Occupancy(3), THREADS_PER_BLOCK, 132, 999) == 396
    assert resident_blocks(Occupancy(0), THREADS_PER_BLOCK, 132, 999) == 999
    assert resident_blocks(Occupancy(driver.LogicError("no")), THREADS_PER_BLOCK, 132, 999) == 999
    assert resident_blocks(object(), THREADS_PER_BLOCK, 132, 999) == 999  # no occupancy query


def test_launch_sizing_asks_the_device_once_per_context(monkeypatch):
    """Reductions, argmax/argmin, axis reductions, the element-wise grids and curandom all size
    their launches from _array_core.device_counts(), which reads the device once."""
    import array_seams
    from launch_log import FakeDevice, LaunchLog

    from pycuda import _arg_extremum, _array_core, _axis_reduction, compiler, curandom, driver
    from pycuda.reduction import ReductionKernel

    asked = []

    class CountingDevice(FakeDevice):
        def get_attribute(self, attr):
            asked.append(attr)
            return super().get_attribute(attr)

    monkeypatch.setattr(compiler, "SourceModule", LaunchLog().module)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(CountingDevice))
    array_seams.replace(monkeypatch)
    forget = (_array_core.device_counts, _axis_reduction._wave)
    for f in forget:
        f.clear_cache()
    try:
        k = ReductionKernel(np.float32, "0", "a+b", arguments="const float *in")
        assert set(k._max_blocks.values()) == {132 * 8}  # one wave of 256-thread blocks
        arg = _arg_extremum.ArgExtremumKernel("max", np.float32)
        assert set(arg._resident.values()) == {132 * 8}
        assert _axis_reduction._wave() == 132 * 8
        assert curandom._multiprocessor_count() == 132
        assert curandom._resident_threads() == 132 * 2048
        assert _array_core.device_launch_config(10**8).blocks == 132 * 8
        assert len(asked) == 2  # the multiprocessors and their threads, once
    finally:
        for f in forget:  # not this stand-in's answer for later tests' contexts
            f.clear_cache()
