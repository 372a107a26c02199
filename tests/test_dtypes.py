"""Tests of pycuda._dtypes, the dtype table: its rows against NumPy, the promotion rules, the
argument packer and the DLPack bindings, and every kernel generator compiled with NVRTC for every
row (CPU only: no GPU is needed). A new row must pass all of them."""

from __future__ import annotations

import ctypes
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from launch_log import FakeDevice
from test_interop import FAKE_PTR, DLManagedTensor, HandMade, Owner

from pycuda import _driver, _dtypes
from pycuda._dtype_rules import SUPPORTED_DTYPES, float_result_dtype, kind_of, promote
from pycuda._dtypes import info
from pycuda._ufuncs import BINARY_OPS, binary_op_dtypes

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

ROWS = _dtypes.rows()
NUMPY_14 = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
            np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]  # fmt: skip


def _id(row):
    return row.dtype.name


def _sample(row):
    """A value of the row's kind that its dtype holds (a third for floats: it rounds)."""
    return {"b": True, "i": -7, "u": 7, "f": 1 / 3, "c": 1.5 - 2.25j}[row.kind]


# {{{ the rows against NumPy


def test_the_table_holds_numpys_14_and_bfloat16_with_ml_dtypes():
    assert SUPPORTED_DTYPES[: len(NUMPY_14)] == tuple(np.dtype(t) for t in NUMPY_14)
    extra = SUPPORTED_DTYPES[len(NUMPY_14) :]
    assert extra == (() if _dtypes.BFLOAT16 is None else (_dtypes.BFLOAT16,))
    assert tuple(r.dtype for r in ROWS) == SUPPORTED_DTYPES
    assert all(r.arithmetic for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_row_agrees_with_numpy(row):
    d = row.dtype
    assert row.kind == (d.kind if d.name != "bfloat16" else "f")
    assert row.kind == kind_of(d)
    # The compute and accumulator dtypes hold every value exactly, and are of the same kind.
    for wide in (row.compute, row.accumulator):
        assert np.can_cast(d, wide, "safe")
        assert kind_of(wide) == row.kind
        assert wide.itemsize >= d.itemsize
    if d.itemsize < 4 and row.kind == "f":  # the 16-bit floats: float's arithmetic
        assert row.compute == row.accumulator == np.float32
        assert row.via_float is not None
    else:
        assert row.compute == row.accumulator == d and row.via_float is None
    assert row.sum_dtype == np.sum(np.zeros(3, d)).dtype
    assert row.dlpack is not None and row.dlpack[1] == 8 * d.itemsize
    codes = {"b": 6, "i": 0, "u": 1, "c": 5, "f": 4 if d.kind == "V" else 2}  # bfloat16: 4
    assert row.dlpack[0] == codes[row.kind]
    assert _dtypes.from_dlpack(*row.dlpack) == d
    assert _dtypes.dlpack_type(d) == row.dlpack
    assert _dtypes.from_name(d.name) == d
    assert info(d.name) is row and info(d.type) is row


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_c_names_read_back(row):
    assert _dtypes.from_c_name(row.c_name) == row.dtype
    for alias in row.aliases:
        assert _dtypes.from_c_name(alias) == row.dtype
    assert row.compute_c_name == info(row.compute).c_name
    assert row.accumulator_c_name == info(row.accumulator).c_name


def test_platform_spellings_of_the_same_dtype_find_the_row():
    assert info(np.longlong) is info(np.int64) and info(np.intc) is info(np.int32)
    assert info(np.dtype("l")) is info(np.int64)
    assert _dtypes.find(np.dtype(">f4")) is None and _dtypes.find("not a dtype") is None
    with pytest.raises(ValueError, match="unable to map dtype"):
        info(np.dtype("U3"))
    with pytest.raises(TypeError, match="is not a dtype"):
        info("not a dtype")
    with pytest.raises(TypeError, match="DLPack cannot describe"):
        _dtypes.dlpack_type(np.longdouble)
    with pytest.raises(TypeError, match="has no dtype"):
        _dtypes.from_dlpack(2, 8)


def test_vector_types_are_struct_rows():
    from pycuda.gpuarray import vec

    for name in ("float3", "int4", "double2", "uchar1", "long4"):
        row = info(getattr(vec, name))
        assert row.c_name == name and not row.arithmetic and row.dlpack is None
        assert row.struct_char == f"{row.dtype.itemsize}s"
        assert row.dtype not in SUPPORTED_DTYPES
        assert _dtypes.from_c_name(name) == row.dtype
    # Two names of one layout (long2 and longlong2 on 64-bit Linux): the first is the name.
    if vec.long2 == vec.longlong2:
        assert info(vec.longlong2).c_name == "long2"
        assert _dtypes.from_c_name("longlong2") == vec.long2
    value = vec.make_float3(1, 2, 3)
    assert _dtypes.argument_value(value, vec.float3) == value.tobytes()


# }}}

# {{{ the promotion rules


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_rows_agree_with_the_promotion_rules(row):
    d = row.dtype
    assert promote(d, d) == d
    # Computing in the compute dtype, adding up in the accumulator and summing into numpy.sum's
    # dtype lose nothing by the same rules that give the operations' result dtypes.
    assert promote(d, row.compute) == row.compute
    assert promote(d, row.accumulator) == row.accumulator
    assert promote(d, row.sum_dtype) == row.sum_dtype
    assert kind_of(float_result_dtype(d)) in "fc"
    for op in BINARY_OPS:
        try:
            operand, _ = binary_op_dtypes(op, d, d)
        except (TypeError, ValueError):
            continue
        assert operand in SUPPORTED_DTYPES, (op, operand)


# }}}

# {{{ scalars, the argument packer and the format codes


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_scalars_travel_as_the_packer_packs_them(row):
    d, value = row.dtype, _sample(row)
    kernel_value = _dtypes.scalar_value(value, d)
    expected = np.asarray(d.type(value)).astype(row.compute)  # rounded to d first, as NumPy
    assert _driver._pack_args(row.scalar_format, (kernel_value,)) == expected.tobytes()
    assert _driver._param_layout(row.scalar_format) == [(0, row.compute.itemsize)]
    # A by-value argument of the dtype itself, for its struct_char.
    packed = _driver._pack_args(row.struct_char, (_dtypes.argument_value(value, d),))
    assert packed == np.asarray(value, d).tobytes()
    assert _driver._param_layout(row.struct_char) == [(0, d.itemsize)]


def test_16_bit_floats_round_to_16_bits_then_travel_as_float():
    converted = _dtypes.scalar_value(1 / 3, np.float16)
    assert type(converted) is np.float32 and converted == np.float32(np.float16(1 / 3))
    assert info(np.float16).convert(2**-30) == np.float32(np.float16(2**-30))
    if _dtypes.BFLOAT16 is not None:
        value = _dtypes.scalar_value(1.0 + 2**-9, _dtypes.BFLOAT16)
        assert type(value) is np.float32 and value == 1.0  # 8 significant bits


def test_scalar_value_refuses_python_complex_for_real_arrays_as_numpy():
    with pytest.raises(TypeError, match="Python complex"):
        _dtypes.scalar_value(1j, np.float32)
    assert _dtypes.scalar_value(1 + 2j, np.complex64) == np.complex64(1 + 2j)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _dtypes.scalar_value(np.complex64(3 + 1j), np.float32) == 3


def test_native_rows_convert_with_their_scalar_type():
    # The fast paths tell a native conversion by identity with the dtype's scalar type.
    for row in ROWS:
        if row.compute == row.dtype:
            assert row.convert is row.dtype.type


def test_scalar_arg_struct_char_is_the_tables_where_the_packer_lacks_a_code():
    from pycuda.tools import ScalarArg

    for row in ROWS:
        char = ScalarArg(row.dtype, "x").struct_char
        assert _driver._param_layout(char) == _driver._param_layout(row.struct_char)


# }}}

# {{{ DLPack: bindings/dlpack.cpp's two tables checked against the rows


def _exported_type(dtype):
    capsule = _driver._dlpack_export(FAKE_PTR, (2,), None, dtype, 0, Owner(), False)
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    tensor = DLManagedTensor.from_address(get(capsule, b"dltensor")).dl_tensor
    return tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes


@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_dlpack_bindings_agree_with_the_table(row):
    assert _exported_type(row.dtype) == (*row.dlpack, 1)
    made = HandMade(dtype=(*row.dlpack, 1))
    name = _driver._dlpack_import(made.capsule)[3]
    assert _dtypes.from_name(name) == row.dtype


def test_dlpack_bindings_know_no_dtype_the_table_lacks():
    for dtype in (np.longdouble, np.dtype("M8[s]"), np.dtype([("a", "f4")])):
        assert _dtypes.find(dtype) is None or info(dtype).dlpack is None
        with pytest.raises(TypeError, match="DLPack cannot describe"):
            _exported_type(dtype)
    known = {row.dlpack for row in ROWS} | {(4, 16)}  # bfloat16, known without ml_dtypes too
    for code in range(7):
        for bits in (8, 16, 32, 64, 128):
            made = HandMade(dtype=(code, bits, 1))
            if (code, bits) in known:
                _driver._dlpack_import(made.capsule)
            else:
                with pytest.raises(TypeError, match="unsupported data type"):
                    _driver._dlpack_import(made.capsule)


# }}}

# {{{ includes


def test_includes_follow_the_rows():
    assert _dtypes.includes([np.float32]) == ""
    assert _dtypes.includes([np.float16, np.float16]) == "#include <cuda_fp16.h>\n"
    first = ("pycuda-complex.hpp",)
    assert _dtypes.includes([np.complex64], first=first) == "#include <pycuda-complex.hpp>\n"
    # A preamble naming a row's C type (or one starting with it) includes its header; the alias
    # "half", a common word a user may define, does not.
    assert "cuda_fp16.h" in _dtypes.includes([], "__device__ __half2 f();")
    assert _dtypes.includes([], "float half(float x);") == ""
    if _dtypes.BFLOAT16 is not None:
        assert _dtypes.includes([_dtypes.BFLOAT16]) == "#include <cuda_bf16.h>\n"


def test_element_wise_helpers_include_every_rows_header():
    from pycuda._array_kernels import HELPERS

    for row in ROWS:
        for header in row.headers:
            assert f"#include <{header}>" in HELPERS
        if row.via_float:
            assert f"pc_cast_t<{row.c_name}, double>" in HELPERS


# }}}

# {{{ every generator, every row, compiled by NVRTC for sm_90


class _Function:
    def __init__(self, name):
        self.name, self.format = name, None

    def prepare(self, fmt):
        self.format = fmt
        return self


class _Recorder:
    """Stands in for SourceModule: keeps each distinct source and the functions asked of it."""

    def __init__(self):
        self.functions: dict[str, set[str]] = {}

    def module(self, source, options=None, keep=False, no_extern_c=False, **kw):
        assert no_extern_c, 'the generators write extern "C" themselves'
        names = self.functions.setdefault(source, set())

        class Module:
            def get_function(self, name):
                names.add(name)
                return _Function(name)

        return Module()


def _elementwise_source(d):
    """The sizes of the row's C types, as kernels see them. (Every element-wise operation's
    kernels for every row are compiled by tests/test_ufuncs.py, over the table of
    operations.)"""
    from pycuda import _array_kernels as ak

    return ak.HELPERS + "\n".join([
        f'static_assert(sizeof({info(d).c_name}) == {d.itemsize}, "size");',
        f'static_assert(sizeof({info(d).compute_c_name}) == {info(d).compute.itemsize}, "s");',
    ])  # fmt: skip


def _whole_array_reductions(d):
    from pycuda import reduction as R

    row = info(d)
    R.get_sum_kernel.__wrapped__(row.sum_dtype, d)
    R.get_dot_kernel.__wrapped__(d, d, d)
    R.get_subset_sum_kernel.__wrapped__(row.sum_dtype, np.int64, d)
    R.get_any_kernel.__wrapped__(np.bool_, d)
    R.get_all_kernel.__wrapped__(np.bool_, d)
    if row.kind != "c":
        for what in ("max", "min"):
            R.get_minmax_kernel.__wrapped__(what, d)
            R.get_argminmax_kernel.__wrapped__(what, d)


def _axis_reductions(d):
    from pycuda import _axis_kernels as K
    from pycuda import _axis_reduction as A

    # One of each kind of operation (prod, min, std, argmin and all differ from these only in
    # the operator).
    vec = K.vector_width(d.itemsize, 1)
    for name in ("sum", "max", "mean", "var", "argmax", "any"):
        if info(d).kind == "c" and name in ("max", "argmax"):
            continue
        op, _ = A.reduce_op(name, d, A.result_dtype(name, d))
        A._module.__wrapped__(op, 2, 1, vec)
        if name == "var":
            mean = A._mean_acc(d, None)
            A._module.__wrapped__(A.reduce_op("mean", d, mean, mean)[0], 2, 1, vec)


def _scans(d):
    from pycuda import _axis_scan as S
    from pycuda import scan

    scan.InclusiveScanKernel(d, "a+b")
    scan.ExclusiveScanKernel(d, "a+b", "0")
    res, acc = S.scan_dtypes(d, None)
    S._axis_module.__wrapped__(d, res, acc, "cumsum", 1)
    S._flat_kernel.__wrapped__(res, "cumprod")


def _gathers(d):
    from pycuda import _gather, elementwise

    for arguments, operation, name in _gather.kernel_specs(d, np.int64):
        elementwise.get_elwise_kernel_and_types(arguments, operation, name)


def _compile(source):
    from pycuda import compiler

    return compiler.compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)


@needs_nvrtc
def test_every_generator_compiles_for_every_row(monkeypatch):
    """The row's C types' sizes (element-wise operations: tests/test_ufuncs.py), whole-array
    reductions (sum, dot,
    max, min, argmax, any, all), axis reductions, scans (flat and along an axis) and gathers
    (take, put, fancy indexing), for every row of the table, each distinct source compiled
    once for sm_90, two at a time; and the Philox fills of curandom for their dtypes."""
    from pycuda import _philox, compiler, curandom, driver

    recorder = _Recorder()
    monkeypatch.setattr(compiler, "SourceModule", recorder.module)
    # No nvcc: a source NVRTC refuses fails with NVRTC's log, not through nvcc's fallback.
    monkeypatch.setattr(compiler, "_find_nvcc", lambda nvcc: None)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    sources = {}
    for row in ROWS:
        sources[_elementwise_source(row.dtype)] = set()
        _whole_array_reductions(row.dtype)
        _axis_reductions(row.dtype)
        _scans(row.dtype)
        _gathers(row.dtype)
    for distribution, dtype_name in _philox._PHILOX_OPS:
        name, source = curandom.philox_kernel_source(distribution, dtype_name)
        recorder.functions.setdefault(source, set()).add(name)
    sources.update(recorder.functions)
    with ThreadPoolExecutor(2) as pool:  # NVRTC compiles without the GIL
        cubins = dict(zip(sources, pool.map(_compile, sources), strict=True))
    for source, names in sources.items():
        for name in names:
            assert name.encode() in cubins[source], f"{name} missing from its cubin"
    assert len(sources) > 20 * len(ROWS)


# }}}
