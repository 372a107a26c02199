"""Tests for pycuda._dtype_rules: every dtype pair and scalar kind against NumPy's own ufuncs."""

import itertools
import warnings

import numpy as np
import pytest

from pycuda._dtype_rules import (
    BFLOAT16,
    BINARY_OPS,
    SUPPORTED_DTYPES,
    binary_op_dtypes,
    binary_result_dtype,
    promote,
    unary_result_dtype,
)

NEP50 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
needs_nep50 = pytest.mark.skipif(not NEP50, reason="the oracle is NumPy 2's NEP 50 promotion")

SCALARS = [True, 3, -2, 2.5, 1.5j, 300, -1, 2**40, 2**64, -(2**63) - 1]


def numpy_outcome(op, a, b):
    """What NumPy does: the result dtype, or the exception type it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return getattr(np, op)(a, b).dtype
        except Exception as exc:  # noqa: BLE001 - the oracle's exception type is the result
            return type(exc)


def our_outcome(op, a, b):
    try:
        return binary_result_dtype(op, a, b)
    except Exception as exc:  # noqa: BLE001
        return type(exc)


def same(expected, got):
    if isinstance(expected, type):
        return isinstance(got, type) and issubclass(expected, got)
    return expected == got


@needs_nep50
@pytest.mark.parametrize("op", BINARY_OPS)
def test_array_array_pairs_match_numpy(op):
    for d1, d2 in itertools.product(SUPPORTED_DTYPES, repeat=2):
        a, b = np.ones(2, d1), np.ones(2, d2)
        expected, got = numpy_outcome(op, a, b), our_outcome(op, d1, d2)
        assert same(expected, got), (op, d1, d2, expected, got)


@needs_nep50
@pytest.mark.parametrize("op", BINARY_OPS)
def test_array_weak_scalar_matches_numpy(op):
    for dtype, value in itertools.product(SUPPORTED_DTYPES, SCALARS):
        a = np.ones(2, dtype)
        for left in (True, False):
            args = (a, value) if left else (value, a)
            ours = (dtype, value) if left else (value, dtype)
            expected, got = numpy_outcome(op, *args), our_outcome(op, *ours)
            if op == "power" and isinstance(expected, type) and value == 2**64:
                continue  # NumPy fails converting the exponent; we report an overflow too
            if dtype == BFLOAT16 and isinstance(value, int) and abs(value) >= 2**63:
                continue  # ml_dtypes cannot convert such ints (TypeError); we give bfloat16
            assert same(expected, got), (op, dtype, value, left, expected, got)


@needs_nep50
@pytest.mark.parametrize("op", ["add", "true_divide", "floor_divide", "bitwise_and", "less"])
def test_numpy_scalars_are_strong(op):
    for d1, d2 in itertools.product(SUPPORTED_DTYPES, repeat=2):
        scalar = np.ones(1, d2)[0]
        expected = numpy_outcome(op, np.ones(2, d1), scalar)
        assert same(expected, our_outcome(op, d1, scalar)), (op, d1, d2)


def test_operand_dtype_for_division_and_comparison():
    assert binary_op_dtypes("true_divide", np.dtype("int8"), np.dtype("int8")) == (
        np.dtype("float64"),
        np.dtype("float64"),
    )
    assert binary_op_dtypes("less", np.dtype("int32"), 2.5) == (
        np.dtype("float64"),
        np.dtype("bool"),
    )
    assert binary_op_dtypes("less", np.dtype("uint8"), 300)[0] == np.dtype("int64")
    assert binary_op_dtypes("equal", np.dtype("uint64"), -1)[0] == np.dtype("float64")


def test_error_messages():
    with pytest.raises(TypeError, match="boolean subtract"):
        binary_result_dtype("subtract", np.dtype(bool), np.dtype(bool))
    with pytest.raises(TypeError, match="ufunc 'bitwise_and' not supported"):
        binary_result_dtype("bitwise_and", np.dtype("float32"), 1)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        binary_result_dtype("add", np.dtype("int8"), 300)
    with pytest.raises(ValueError, match="negative integer powers"):
        binary_result_dtype("power", np.dtype("int32"), -2)
    with pytest.raises(ValueError, match="unknown binary operation"):
        binary_result_dtype("frobnicate", np.dtype("int32"), 1)
    with pytest.raises(ValueError, match="unknown unary operation"):
        unary_result_dtype("frobnicate", np.dtype("int32"))


def test_promote_two_python_scalars():
    assert promote(1, 2.0) == np.dtype("float64")
    assert promote(True, 2) == np.dtype("int64")


UNARY_UFUNCS = {
    "negative": np.negative,
    "positive": np.positive,
    "absolute": np.absolute,
    "invert": np.invert,
    "logical_not": np.logical_not,
    "float_function": np.sqrt,
}


@pytest.mark.parametrize("op", sorted(UNARY_UFUNCS))
def test_unary_matches_numpy(op):
    for dtype in SUPPORTED_DTYPES:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                expected = UNARY_UFUNCS[op](np.ones(2, dtype)).dtype
            except Exception as exc:  # noqa: BLE001
                expected = type(exc)
        try:
            got = unary_result_dtype(op, dtype)
        except Exception as exc:  # noqa: BLE001
            got = type(exc)
        assert same(expected, got), (op, dtype, expected, got)
