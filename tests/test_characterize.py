"""Tests of pycuda.characterize (platform on CPU; device facts on a GPU)."""

from __future__ import annotations

import struct

import pytest

from pycuda import characterize


def test_platform_bits():
    assert characterize.platform_bits() == 8 * struct.calcsize("P")


@pytest.mark.gpu
def test_device_facts(ctx):
    assert characterize.has_stack()
    assert characterize.has_double_support()


@pytest.mark.gpu
def test_sizeof_compiles_and_runs_a_kernel(ctx):
    assert characterize.sizeof("int") == 4
    assert characterize.sizeof("double2") == 16
    assert characterize.sizeof("void *") == 8
    assert characterize.sizeof("pair_t", "struct pair_t { char c; double d; };") == 16
    # Memoized per context: the second call compiles nothing.
    assert characterize.sizeof("int") == 4
