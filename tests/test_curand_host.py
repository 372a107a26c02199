"""Tests of pycuda._curand_host: the original's driver-level cuRAND calls (_get_direction_vectors,
_get_scramble_constants32/64 into host buffers) and their names in pycuda.driver."""

from __future__ import annotations

import os

import numpy as np
import pytest
from child_process import run_python

from pycuda import _curand_host as H

needs_curand = pytest.mark.skipif(
    not H.curand_available(), reason="libcurand is not installed here"
)


def test_driver_and_curandom_offer_the_same_objects():
    import pycuda.driver as drv
    from pycuda import curandom

    for name in ("direction_vector_set", "get_curand_version", "_get_direction_vectors",
                 "_get_scramble_constants32", "_get_scramble_constants64"):  # fmt: skip
        assert getattr(drv, name) is getattr(H, name) is getattr(curandom, name), name


@needs_curand
@pytest.mark.parametrize("direction,bits", [(101, 32), (102, 32), (103, 64), (104, 64)])
def test_direction_vectors_fill_a_host_array(direction, bits):
    count = 20003  # past the table's 20000 dimensions: it starts again
    dst = np.zeros((count, bits), np.uint32 if bits == 32 else np.uint64)
    assert H._get_direction_vectors(H.direction_vector_set(direction), dst, count) is None
    table = H.direction_table(H.direction_vector_set(direction))
    assert np.array_equal(dst[:20000], table)
    assert np.array_equal(dst[20000:], table[:3])


@needs_curand
def test_direction_vectors_take_any_writable_buffer_and_plain_ints():
    dst = bytearray(4 * 32 * 2)
    H._get_direction_vectors(101, dst, 2)
    words = np.frombuffer(dst, np.uint32).reshape(2, 32)
    assert words[0, 0] == 1 << 31


@needs_curand
def test_scramble_constants_fill_a_host_array():
    for bits, fill in ((32, H._get_scramble_constants32), (64, H._get_scramble_constants64)):
        dst = np.zeros(10, np.uint32 if bits == 32 else np.uint64)
        fill(dst, 10)
        assert np.array_equal(dst, H.scramble_table(bits)[:10])


@needs_curand
def test_bad_buffers_are_refused():
    with pytest.raises(ValueError, match="bytes"):
        H._get_direction_vectors(101, np.zeros(31, np.uint32), 1)
    with pytest.raises(TypeError, match="read-only"):
        H._get_scramble_constants32(bytes(40), 10)
    with pytest.raises(TypeError, match="host buffer"):
        H._get_scramble_constants32([0] * 10, 10)
    with pytest.raises(ValueError):
        H._get_direction_vectors(7, np.zeros(32, np.uint32), 1)  # not a direction set


def test_core_reports_the_libcurand_it_then_opens(tmp_path):
    # A fresh process, so that nothing has opened libcurand before find_curand() answers.
    code = """
        from pycuda import _driver
        print(_driver.find_curand())
        print(_driver.curand_available() and _driver.curand_library_path())
    """
    found, opened = run_python(code).stdout.split()
    if opened == "False":
        assert found == "None"
        pytest.skip("libcurand is not installed here")
    assert found in (opened, "None")
    # $PYCUDA_LIBCURAND comes first, also as a link of another name.
    link = tmp_path / "libcurand-link.so"
    link.symlink_to(os.path.realpath(opened))
    found, opened = run_python(code, PYCUDA_LIBCURAND=str(link)).stdout.split()
    assert found == opened == str(link)


@needs_curand
def test_tables_are_copies_of_cores_read_only_views():
    view = H._driver.curand_direction_vectors32(101)
    assert view.shape == (20000, 32) and view.dtype == np.uint32 and not view.flags.writeable
    table = H.direction_table(H.direction_vector_set.VECTOR_32)
    assert table.flags.writeable and np.array_equal(table, view)
    assert not np.shares_memory(table, view)
    with pytest.raises(ValueError, match="not one of 101, 102"):
        H._driver.curand_direction_vectors32(103)
