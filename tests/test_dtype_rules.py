"""Tests for pycuda._dtype_rules: NEP 50 promotion and the rule classes against NumPy's ufuncs.

Every row of the table of operations against NumPy, for every dtype pair and weak scalar, is in
tests/test_ufuncs.py, which reuses this file's oracle (``numpy_outcome``, ``same``, ``SCALARS``).
"""

import itertools
import warnings

import numpy as np
import pytest

from pycuda._dtype_rules import ROUNDING_KEEPS_INTEGERS, SUPPORTED_DTYPES, promote
from pycuda._ufuncs import binary_op_dtypes, result_dtype

NEP50 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"
needs_nep50 = pytest.mark.skipif(not NEP50, reason="the oracle is NumPy 2's NEP 50 promotion")

SCALARS = [True, 3, -2, 2.5, 1.5j, 300, -1, 2**40, 2**64, -(2**63) - 1]


def numpy_outcome(op, *args):
    """What NumPy does: the result dtype, or the exception type it raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(getattr(np, op)(*args)).dtype
        except Exception as exc:  # noqa: BLE001 - the oracle's exception type is the result
            return type(exc)


def our_outcome(op, *operands):
    """What the table of operations says: the result dtype, or the exception type it raises."""
    try:
        return result_dtype(op, *operands)
    except Exception as exc:  # noqa: BLE001
        return type(exc)


def same(expected, got):
    if isinstance(expected, type):
        return isinstance(got, type) and issubclass(expected, got)
    return expected == got


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
        result_dtype("subtract", np.dtype(bool), np.dtype(bool))
    with pytest.raises(TypeError, match="ufunc 'bitwise_and' not supported"):
        result_dtype("bitwise_and", np.dtype("float32"), 1)
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        result_dtype("add", np.dtype("int8"), 300)
    with pytest.raises(ValueError, match="negative integer powers"):
        result_dtype("power", np.dtype("int32"), -2)
    with pytest.raises(ValueError, match="unknown element-wise operation"):
        result_dtype("frobnicate", np.dtype("int32"), 1)
    with pytest.raises(TypeError, match="negative, the `-` operator"):
        result_dtype("negative", np.dtype(bool))
    with pytest.raises(TypeError, match="ldexp: the exponent must be integers or floats"):
        result_dtype("ldexp", np.dtype("float32"), np.dtype("complex64"))


def test_promote_two_python_scalars():
    assert promote(1, 2.0) == np.dtype("float64")
    assert promote(True, 2) == np.dtype("int64")


def test_rounding_follows_the_installed_numpy():
    kept = np.ceil(np.zeros(1, np.int32)).dtype == np.int32
    assert ROUNDING_KEEPS_INTEGERS == kept
    assert result_dtype("trunc", np.dtype(np.int16)) == (np.int16 if kept else np.float32)
