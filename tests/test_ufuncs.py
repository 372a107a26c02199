"""Tests for pycuda._ufuncs, the table of element-wise operations: every row's dtypes against
NumPy's for every supported dtype pair and weak scalar (the oracle of test_dtype_rules), every
row's C compiled with NVRTC for every dtype (CPU), every row reachable by its names, and the
``expression`` door for kernel generators of their own."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from test_dtype_rules import SCALARS, needs_nep50, numpy_outcome, our_outcome, same

from pycuda import _array_kernels as ak
from pycuda import _driver, _ufuncs, cumath, gpuarray
from pycuda._dtype_rules import BFLOAT16, SUPPORTED_DTYPES, kind_of
from pycuda._kernel_layout import vector_width
from pycuda.compiler import compile as cuda_compile
from pycuda.gpuarray import GPUArray

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

ROWS = _ufuncs.rows()
BINARY = [r for r in ROWS if r.arity == 2]
UNARY = [r for r in ROWS if r.arity == 1]


def _id(row):
    return row.name


def _lenient(row, operands, got):
    """Where we compute what NumPy refuses, as the original did: cumath.fabs of complex is its
    absolute value; cumath.ldexp casts a float (or uint64) exponent to int, as C does."""
    dtypes = [np.dtype(x) if isinstance(x, np.dtype) else np.asarray(x).dtype for x in operands]
    if row.name == "fabs":
        return kind_of(dtypes[0]) == "c" and got == np.dtype(dtypes[0].char.lower())
    if row.name == "ldexp":
        return kind_of(dtypes[0]) in "biuf" and kind_of(dtypes[1]) in "biuf"
    return False


def _check(row, numpy_args, operands):
    expected, got = numpy_outcome(row.name, *numpy_args), our_outcome(row.name, *operands)
    if isinstance(expected, type) and not isinstance(got, type) and _lenient(row, operands, got):
        return
    assert same(expected, got), (row.name, operands, expected, got)


@needs_nep50
@pytest.mark.parametrize("row", [r for r in BINARY if r.numpy], ids=_id)
def test_binary_rows_match_numpy_for_every_dtype_pair(row):
    for d1, d2 in itertools.product(SUPPORTED_DTYPES, repeat=2):
        _check(row, (np.ones(2, d1), np.ones(2, d2)), (d1, d2))


@needs_nep50
@pytest.mark.parametrize("row", [r for r in BINARY if r.numpy], ids=_id)
def test_binary_rows_match_numpy_with_weak_scalars(row):
    for dtype, value in itertools.product(SUPPORTED_DTYPES, SCALARS):
        for left in (True, False) if row.name != "ldexp" else (True,):
            # (cumath.ldexp's significand is an array: NumPy's loops for a Python scalar
            # significand are not ours to follow)
            args = (np.ones(2, dtype), value) if left else (value, np.ones(2, dtype))
            operands = (dtype, value) if left else (value, dtype)
            expected = numpy_outcome(row.name, *args)
            if isinstance(expected, type) and value == 2**64 and row.name in ("power", "ldexp"):
                continue  # NumPy fails converting the exponent; we report an overflow or lenience
            if dtype == BFLOAT16 and isinstance(value, int) and abs(value) >= 2**63:
                continue  # ml_dtypes cannot convert such ints (TypeError); we give bfloat16
            _check(row, args, operands)


@pytest.mark.parametrize("row", [r for r in UNARY if r.numpy], ids=_id)
def test_unary_rows_match_numpy_for_every_dtype(row):
    for dtype in SUPPORTED_DTYPES:
        _check(row, (np.ones(2, dtype),), (dtype,))


def test_operand_dtypes_are_numpys_loops():
    f64, f16, i8 = np.dtype(np.float64), np.dtype(np.float16), np.dtype(np.int8)
    assert _ufuncs.op_dtypes("sqrt", np.dtype(np.int32)) == (f64, f64)  # computed in double
    assert _ufuncs.op_dtypes("absolute", np.dtype(np.complex64)) == (
        np.dtype(np.complex64),
        np.dtype(np.float32),
    )
    assert _ufuncs.op_dtypes("arctan2", i8, np.dtype(np.uint8)) == (f16, f16)
    assert _ufuncs.op_dtypes("arctan2", i8, 1000) == (f16, f16)  # a weak int takes the loop
    assert _ufuncs.op_dtypes("floor_divide", np.dtype(bool), np.dtype(bool)) == (i8, i8)
    assert _ufuncs.op_dtypes("logical_and", i8, 2.5) == (f64, np.dtype(bool))


# {{{ every row's C compiles, for every dtype


def _row_kernels(dtype: np.dtype) -> str:
    """A module of the kernels of every row on operands of ``dtype``: flat (at the widest
    access) and strided, array and weak-scalar operands for the binary rows, casts to every
    dtype and fill."""
    Operand = ak.Operand
    kernels: list[str] = []

    def add(out, operands, expr, strided=False):
        sizes = [out.itemsize] + [op.dtype.itemsize for op in operands if not op.scalar]
        width = min(vector_width(s, [0]) for s in sizes)
        kernels.append(ak.flat_kernel(f"k{len(kernels)}", out, operands, expr, width))
        if strided:
            kernels.append(ak.strided_kernel(f"k{len(kernels)}", out, operands, expr, 2))

    for row in BINARY:
        for other in (dtype, 2):
            try:
                operand, result = _ufuncs.op_dtypes(row, dtype, other)
            except (TypeError, ValueError, OverflowError):
                continue
            b = Operand(dtype) if other is dtype else Operand(operand, True)
            expr = ak.binary_expression(row.name, dtype, b.dtype, operand, result)
            add(result, (Operand(dtype), b), expr, strided=other is dtype)
    for row in UNARY:
        outs = SUPPORTED_DTYPES if row.rule == "cast" else [None]
        for out in outs:
            try:
                out = out or _ufuncs.result_dtype(row, dtype)
            except TypeError:
                continue
            out = np.dtype(out)
            expr = ak.unary_expression(row.name, dtype, out)
            add(out, (Operand(dtype),), expr, strided=row.rule == "cast" and out == dtype)
    add(dtype, (Operand(dtype, True),), ak.unary_expression("cast", dtype, dtype))  # fill
    return ak.HELPERS + "\n".join(kernels)


@needs_nvrtc
@pytest.mark.parametrize("dtype", SUPPORTED_DTYPES, ids=str)
def test_every_row_compiles(dtype):
    """Every row's C, for every dtype, in the flat and strided kernels, compiles with NVRTC
    (the element-wise part of test_dtypes' promise that every generator compiles for a new
    dtype row)."""
    cubin = cuda_compile(_row_kernels(dtype), arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_row_has_c_for_each_kind_its_rule_gives(row):
    """Where the dtype rule accepts a dtype, the row has C for the operand dtype's kind (and
    what it needs is in the helpers every kernel includes)."""
    for dtype in SUPPORTED_DTYPES:
        try:
            operand, _ = _ufuncs.op_dtypes(row, *[dtype] * row.arity)
        except TypeError:
            continue
        assert row.c_of(kind_of(operand)) is not None, (row.name, dtype, operand)
    for need in row.needs:
        assert need in ak.HELPERS, (row.name, need)


# }}}

# {{{ every row is reachable by its names: adding an operation is adding a row


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_every_row_is_reachable_by_its_names(row):
    for name in row.names:
        assert _ufuncs.get(name) is row
    for name in row.dunders + row.rdunders + row.idunders:
        assert name in vars(GPUArray) or any(name in vars(c) for c in GPUArray.__mro__), name
    if row.cumath:
        assert row.cumath in cumath.__all__ and callable(getattr(cumath, row.cumath))
    if row.gpuarray:
        assert callable(getattr(gpuarray, row.gpuarray))
    if row.method:
        assert hasattr(GPUArray, row.method)


def test_binary_operators_are_the_cpp_descriptors():
    add = GPUArray.__add__
    assert type(add).__name__ == "FlatOperator"
    assert GPUArray.__div__ is GPUArray.__truediv__  # a row's later names are aliases
    assert GPUArray.__hash__ is not None  # GPUArray's own, though __eq__ is element-wise


def test_names_are_unique_and_rules_known():
    names = [n for r in ROWS for n in r.names]
    assert len(names) == len(set(names))
    with pytest.raises(ValueError, match="unknown element-wise operation"):
        _ufuncs.get("frobnicate")
    with pytest.raises(ValueError, match="dtype rule"):
        _ufuncs.Ufunc("x", 2, "float_function", _ufuncs.by_kind("A"))


# }}}

# {{{ the door for kernel generators of their own (fusion)


def test_expression_substitutes_the_arguments():
    c, dtype = _ufuncs.expression("multiply", ["a", "s"], [np.dtype("int8"), 2.5])
    assert dtype == np.float64
    assert c == "pc_cast<double>((pc_cast<double>(a) * pc_cast<double>(s)))"
    c, dtype = _ufuncs.expression("sqrt", ["v"], [np.dtype(np.float16)])
    assert (c, dtype) == ("pc_cast<__half>(sqrt(pc_cast<float>(v)))", np.float16)
    # An argument that spells a placeholder is not substituted again.
    c, _ = _ufuncs.expression("less", ["B", "A"], [np.dtype(np.complex64)] * 2)
    assert c == "pc_cast<bool>(pc_clt(pc_cast<pycuda::complex<float>>(B), " + (
        "pc_cast<pycuda::complex<float>>(A)))"
    )


def test_expression_is_what_the_kernels_use():
    for row in BINARY:
        try:
            operand, result = _ufuncs.op_dtypes(row, np.dtype(np.int16), np.dtype(np.float32))
        except TypeError:
            continue
        c, dtype = _ufuncs.expression(row.name, ["x0", "x1"], [np.int16, np.float32])
        assert dtype == result
        assert c == ak.binary_expression(row.name, np.int16, np.float32, operand, result)


def test_expression_raises_numpys_errors():
    with pytest.raises(TypeError):
        _ufuncs.expression("bitwise_and", ["a", "b"], [np.dtype(np.float32)] * 2)
    with pytest.raises(OverflowError):
        _ufuncs.expression("add", ["a", "b"], [np.dtype(np.int8), 300])
    with pytest.raises(TypeError, match="takes 2 operands"):
        _ufuncs.expression("add", ["a"], [np.dtype(np.int8)])


# }}}
