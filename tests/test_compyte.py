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
