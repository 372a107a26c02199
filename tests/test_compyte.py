"""Tests of pycuda.compyte.dtypes on registries of their own (CPU)."""

from __future__ import annotations

import numpy as np
import pytest

from pycuda.compyte.dtypes import (
    DTypeRegistry,
    TypeNameNotKnown,
    fill_registry_with_c_types,
    parse_c_arg_backend,
)


def test_fresh_registry_is_empty_until_filled():
    reg = DTypeRegistry()
    with pytest.raises(ValueError):
        reg.dtype_to_ctype(np.float32)
    fill_registry_with_c_types(reg, include_bool=False)
    assert reg.dtype_to_ctype(np.float32) == "float"
    assert reg.dtype_to_ctype(np.int64) == "long"
    assert reg.dtype_to_ctype(np.float16) == "__half"
    with pytest.raises(ValueError):
        reg.dtype_to_ctype(np.bool_)


def test_names_are_normalized():
    reg = DTypeRegistry()
    reg.register_dtype(np.complex64, ["my::complex< float >"])
    assert reg.dtype_to_ctype(np.complex64) == "my::complex<float>"
    assert reg.get_or_register_dtype("my::complex<float>") == np.complex64
    assert reg.get_or_register_dtype("  my::complex <float > ") == np.complex64


def test_register_needs_a_name():
    with pytest.raises(ValueError, match="at least one"):
        DTypeRegistry().register_dtype(np.int32, [])


def test_parse_with_own_lookup():
    reg = DTypeRegistry()
    reg.register_dtype(np.int32, ["myint"])
    made = parse_c_arg_backend(
        "const myint *values",
        lambda dtype, name: ("scalar", dtype, name),
        lambda dtype, name: ("vector", dtype, name),
        name_to_dtype=reg.get_or_register_dtype,
    )
    assert made == ("vector", np.dtype(np.int32), "values")
    with pytest.raises(TypeNameNotKnown, match="float"):
        parse_c_arg_backend("float x", tuple, tuple, name_to_dtype=reg.get_or_register_dtype)


def test_registering_again_under_a_known_alias_is_no_conflict():
    reg = DTypeRegistry()
    fill_registry_with_c_types(reg)
    reg.register_dtype(np.float16, ["half"])
    reg.register_dtype(np.uint32, "unsigned")
    assert reg.dtype_to_ctype(np.float16) == "__half"
    with pytest.raises(RuntimeError, match="alias_ok"):
        reg.register_dtype(np.float16, ["float16_t"])


def test_other_fill_functions_register_their_names():
    from pycuda.compyte import dtypes

    reg = DTypeRegistry()
    dtypes.fill_registry_with_opencl_c_types(reg)
    assert reg.dtype_to_ctype(np.uint8) == "uchar" and reg.dtype_to_ctype(np.uint64) == "ulong"
    assert reg.get_or_register_dtype("uintptr_t") == np.dtype(np.uintp)
    stdint = DTypeRegistry()
    dtypes.fill_registry_with_c99_stdint_types(stdint)
    dtypes.fill_registry_with_c99_complex_types(stdint)
    assert stdint.dtype_to_ctype(np.int16) == "int16_t"
    assert stdint.get_or_register_dtype("double complex") == np.dtype(np.complex128)
    # The original's module-level registry: the default one, filling it again is harmless.
    assert dtypes.DTYPE_TO_NAME is dtypes.TYPE_REGISTRY.dtype_to_name
    assert dtypes.NAME_TO_DTYPE["float"] == np.dtype(np.float32)
    dtypes._fill_dtype_registry(respect_windows=True)
    assert dtypes.dtype_to_ctype(np.complex64) == "pycuda::complex<float>"


def test_array_flags_follow_numpy():
    from pycuda.compyte import array as ca

    rng = np.random.default_rng(3)
    base = np.empty((6, 1, 5, 4), np.float32)
    for _ in range(300):
        index = tuple(slice(None, None, int(rng.choice([1, 2, -1]))) for _ in range(4))
        view = base[index].transpose(rng.permutation(4))
        flags = ca.ArrayFlags(view)
        assert (flags.c_contiguous, flags.f_contiguous) == (
            view.flags.c_contiguous,
            view.flags.f_contiguous,
        ), (view.shape, view.strides)
        assert flags.forc == (view.flags.c_contiguous or view.flags.f_contiguous)
    assert ca.c_contiguous_strides(8, (3, 0, 2)) == (16, 16, 8)  # a length 0 counts as 1
    assert ca.is_f_contiguous_strides((1, 2, 3), 8, (3, 0, 2))  # nothing to lay out
    assert ca.equal_strides((4, 99), (4, 4), (5, 1)) and not ca.equal_strides((4,), (8,), (5,))
