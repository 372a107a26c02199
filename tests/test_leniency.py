"""The original's leniency (issue 21, item 1; issue 22, item 5; docs/migrating.md, "Arguments
the original reinterprets"): a check of ours that the original PyCUDA does not make accepts what
the original runs, and refuses only what would touch memory outside a buffer.

CASES is the table: each pattern, what the original does with it, and what ours does now. CPU:
every case runs in one child interpreter against the fake driver of tests/fake_libcuda.py (its
kernels compiled with NVRTC for sm_90, launched without running), which reports the kernel's
parameter sizes named by $HOSTEMU_PARAM_SIZES and keeps the last launch's parameter buffer, so
the conversions of scalars are checked byte for byte. GPU: the patterns the issue collected
from real programs, checking that the kernels read the numbers the user meant.
"""

from __future__ import annotations

import json
import struct
import textwrap
from typing import NamedTuple

import fake_libcuda
import numpy as np
import pytest

from pycuda import _driver
from pycuda._arg_checks import check_array_dtype, indexed_at_i
from pycuda._user_warnings import ArgumentConversionWarning

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")


class Case(NamedTuple):
    name: str
    original: str  # what the original PyCUDA does with it
    ours: str  # "runs", "warns", or the exception raised, then ": " and a regex of the message
    code: str  # run in the child (SETUP's names), after SETUP


# {{{ the table

CASES = [
    # Function.__call__: the driver tells the parameters' sizes (cuFuncGetParamInfo).
    Case("call: np.uint32 for a size_t", "runs (4 bytes given, the kernel reads 8)", "runs",
         "size_t_k(d, np.uint32(7), block=(1, 1, 1)); "
         "assert last_params()[8:16] == struct.pack('<Q', 7)"),
    Case("call: np.int32(-1) for a long long", "runs (the high bytes are what follows)", "runs",
         "size_t_k(d, np.int32(-1), block=(1, 1, 1)); "
         "assert last_params()[8:16] == struct.pack('<q', -1)"),
    Case("call: np.int64 that fits an int", "runs (packs 8 bytes, shifts what follows)",
         "runs",
         "int_k(d, np.int64(-5), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<i', -5)"),
    Case("call: np.int64 too big for an int", "runs (the kernel reads its low 4 bytes)",
         r"warns: parameter 1 \(0-based\) of kernel 'int_k' is 4 bytes; the int64 value "
         r"1099511627783 given was converted to its low 4 bytes \(7 as int32 or uint32\)",
         "int_k(d, np.int64(2**40 + 7), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<i', 7)"),
    Case("call: np.int64(-1) for an unsigned int", "runs (the kernel reads 4294967295)", "runs",
         "uint_k(d, np.int64(-1), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<I', 2**32 - 1)"),
    Case("call: np.uint32 too big for a short", "runs (the kernel reads its low 2 bytes)",
         r"warns: parameter 1 \(0-based\).* 2 bytes; the uint32 value 70000 .*\(4464 as int16",
         "short_k(d, np.uint32(70000), block=(1, 1, 1)); "
         "assert last_params()[8:10] == struct.pack('<H', 70000 % 2**16)"),
    Case("call: np.float64 exact in a float", "runs (the kernel reads a double's low bytes)",
         "runs",
         "float_k(d, np.float64(0.5), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<f', 0.5)"),
    Case("call: np.float64 inexact in a float", "runs (the kernel reads a double's low bytes)",
         r"warns: parameter 1 \(0-based\) of kernel 'float_k' is 4 bytes; the float64 value 0.1 "
         r"given was converted to float32 \(0.100000001\)",
         "float_k(d, np.float64(0.1), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<f', 0.1)"),
    Case("call: np.float64 beyond a float's range", "runs (the kernel reads a double's low "
         "bytes)", r"warns: .*the float64 value 1e\+300 given was converted to float32 \(inf\)",
         "float_k(d, np.float64(1e300), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<f', float('inf'))"),
    Case("call: np.float32 for an int (the same size)", "runs (the kernel reads a float's bits)",
         "runs",  # the driver tells sizes, not types: a scalar of the right size is passed as is
         "int_k(d, np.float32(2.5), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<f', 2.5)"),
    Case("call: np.float64 for a char", "runs (the kernel reads a double's low byte)",
         r"warns: .*is 1 byte; the float64 value 2.5 given was converted to an integer, "
         r"truncated toward zero \(2 as int8",
         "char_k(d, np.float64(2.5), block=(1, 1, 1)); assert last_params()[8:9] == b'\\x02'"),
    Case("call: np.complex64 for a float", "runs (the kernel reads the real part; what "
         "follows shifts)",
         r"warns: .*the complex64 value \(1\+2j\) given was converted to its real part",
         "float_k(d, np.complex64(1 + 2j), block=(1, 1, 1)); "
         "assert last_params()[8:12] == struct.pack('<f', 1.0)"),
    Case("call: np.float32 for a double", "runs (4 bytes given, the kernel reads 8)", "runs",
         "double_k(d, np.float32(0.1), block=(1, 1, 1)); "
         "assert last_params()[8:16] == struct.pack('<d', float(np.float32(0.1)))"),
    Case("call: np.complex64 for a double2", "runs (8 bytes given, the kernel reads 16)", "runs",
         "cd_k(d, np.complex64(1 + 2j), block=(1, 1, 1)); "
         "assert last_params()[16:32] == struct.pack('<dd', 1.0, 2.0)"),
    Case("call: a 12-byte struct for a 16-byte one", "runs (the kernel reads past the bytes "
         "given)", r"TypeError: parameter 1 \(0-based\).* 16 bytes.* 12 bytes",
         "v4_k(d, np.zeros((), float3), block=(1, 1, 1))"),
    Case("call: np.float32 for a float3", "runs (the kernel reads 8 bytes past the 4 given)",
         r"TypeError: parameter 1 \(0-based\).* 12 bytes.* has no conversion to 12 bytes",
         "v3_k(d, np.float32(1), block=(1, 1, 1))"),
    Case("call: an array for an int", "runs (8 bytes: every later argument shifts)",
         r"TypeError: parameter 1 \(0-based\).* 4 bytes.* 8 bytes",
         "int_k(d, d, block=(1, 1, 1))"),
    # prepare() and prepared calls: the format's sizes against the kernel's.
    Case("prepared: 'i' for a size_t", "runs (4 bytes given, the kernel reads 8)", "runs",
         "f = prep_k('Pi', 8, 8); f.prepared_call((1,), (1, 1, 1), d, 7); "
         "assert f.arg_format == 'Pi' and last_params()[8:16] == struct.pack('<Q', 7)"),
    Case("prepared: 'd' for a float", "runs (the kernel reads a double's low bytes)", "runs",
         "f = prep_k('Pd', 8, 4); f.prepared_call((1,), (1, 1, 1), d, 0.5); "
         "assert last_params()[8:12] == struct.pack('<f', 0.5)"),
    # Not yet as __call__ does: the matched slot ('i') no longer knows that the format said 'q'.
    Case("prepared: 'q' value too big for an int", "runs (the kernel reads the low bytes)",
         r"warns: parameter 1 \(0-based\).* is 4 bytes but prepare\(\) was given 'q': the "
         r"integer 1099511627783 does not fit; the kernel reads its low 4 bytes",
         "prep_k('Pq', 8, 4).prepared_call((1,), (1, 1, 1), d, 2**40 + 7); "
         "assert last_params()[8:12] == struct.pack('<i', 7)"),
    Case("prepared: 'P' for an int", "runs (8 bytes: every later argument shifts)",
         r"TypeError: prepare: parameter 1 \(0-based\).* 4 bytes",
         "prep_k('PP', 8, 4)"),
    # ElementwiseKernel: the original made no check of arrays at all.
    Case("elementwise: uint32 arrays for int *", "runs", "runs",
         "ew_int(a_u32, b_u32)"),
    Case("elementwise: float32 arrays for int *", "runs (reads floats' bytes as ints)",
         "warns: argument 'x' has dtype float32, but the kernel was declared with int32",
         "ew_int(a_f32, b_u32)"),
    Case("elementwise: float64 array for float *", "runs (garbage: reads half of each double)",
         "warns: argument 'x' has dtype float64, but the kernel was declared with float32",
         "ew_float(a_f64, b_f32)"),
    Case("elementwise: float32 array for double *", "runs (reads and writes past the end)",
         "TypeError: argument 'y' has dtype float32.*past its end",
         "ew_double(a_f64, b_f32)"),
    Case("elementwise: range= past the end", "runs (writes past the end)",
         "ValueError: argument 'x' has 100 elements.* 0 to 149",
         "ew_float(a_f32, b_f32, range=slice(0, 150))"),
    Case("elementwise: range= below 0", "runs (writes before the start)",
         "ValueError: argument 'x' has 100 elements.* -5 to",
         "ew_float(a_f32, b_f32, range=slice(-5, 10))"),
    Case("elementwise: slice= past a shorter array's end", "runs (writes past its end)",
         "ValueError: argument 'y' has 50 elements",
         "ew_float(a_f32, short_f32, slice=slice(0, 100))"),
    Case("elementwise: a second array shorter than the first", "runs (past its end)",
         "ValueError: argument 'y' has 50 elements.* 0 to 99",
         "ew_float(a_f32, short_f32)"),
    Case("elementwise: range= inside the arrays", "runs", "runs",
         "ew_float(a_f32, b_f32, range=slice(10, 100, 3))"),
    Case("elementwise: an array read elsewhere than [i] is not checked", "runs", "runs",
         "ew_first(a_f32, one_f32)"),
    # ReductionKernel
    Case("reduction: uint32 arrays for int *", "runs", "runs",
         "red_int(a_u32, b_u32)"),
    Case("reduction: float32 arrays for int *", "runs (reads floats' bytes as ints)",
         "warns: ReductionKernel argument 'a' has dtype float32",
         "red_int(a_f32, b_u32)"),
    Case("reduction: int16 arrays for int *", "runs (reads past the end)",
         "TypeError: ReductionKernel argument 'a' has dtype int16.*past its end",
         "red_int(a_i16, b_u32)"),
    Case("reduction: a Fortran-ordered array", "runs", "runs",
         "red_int(f_order_i32, f_order_i32)"),
    # scan kernels
    Case("scan: InclusiveScanKernel(uint32) on int32", "runs", "runs", "scan_u32(a_i32)"),
    Case("scan: ExclusiveScanKernel(int32) on uint32", "runs", "runs", "xscan_i32(a_u32)"),
    Case("scan: InclusiveScanKernel(uint32) on float32", "runs (scans floats' bytes as ints)",
         "warns: InclusiveScanKernel input_ary has dtype float32", "scan_u32(a_f32)"),
    Case("scan: InclusiveScanKernel(uint32) on int64", "runs (scans the first half's bytes)",
         "warns: InclusiveScanKernel input_ary has dtype int64", "scan_u32(a_i64)"),
    Case("scan: InclusiveScanKernel(uint32) on int16", "runs (reads and writes past the end)",
         "TypeError: InclusiveScanKernel input_ary has dtype int16.*past its end",
         "scan_u32(a_i16)"),
    Case("scan: output_ary of int32 for uint32", "runs", "runs", "scan_u32(a_u32, b_i32)"),
    # GPUArray operations: where the original made no check of out's dtype, ours computes
    # into it; the copies' checks are the original's own.
    Case("mul_add: out of another dtype", "runs (computes into out's dtype)", "runs",
         "a_f32.mul_add(2, b_f32, 3, out=out_f64)"),
    Case("where: out of another dtype", "runs (writes then_'s dtype into out)", "runs",
         "gpuarray.where(a_f32, a_f32, b_f32, out=out_f64)"),
    Case("set(): another dtype", "ValueError (its own check)", "ValueError: dtype",
         "a_i32.set(np.zeros(100, np.uint32))"),
]  # fmt: skip

# }}}


SETUP = """
import json, os, struct, warnings
from pycuda import gpuarray
from pycuda.compiler import SourceModule
from pycuda.elementwise import ElementwiseKernel
from pycuda.reduction import ReductionKernel
from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel
from pycuda._user_warnings import ArgumentConversionWarning

_FAKE.hostemu_last_params.restype = ctypes.c_size_t
float3 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)])

def last_params():
    buf = (ctypes.c_ubyte * 4096)()
    n = _FAKE.hostemu_last_params(buf, len(buf))
    return bytes(buf[:n])

SRC = r'''
struct V4 { float x, y, z, w; };
extern "C" {
__global__ void size_t_k(int *d, size_t n) {}
__global__ void int_k(int *d, int n) {}
__global__ void uint_k(int *d, unsigned int n) {}
__global__ void char_k(int *d, char c) {}
__global__ void short_k(int *d, unsigned short n) {}
__global__ void float_k(int *d, float x) {}
__global__ void double_k(int *d, double x) {}
__global__ void cd_k(int *d, double2 x) {}
__global__ void v3_k(int *d, float3 v) {}
__global__ void v4_k(int *d, V4 v) {}
}
'''
from pycuda.compiler import compile as compile_source
# A module per kernel asked for: a module queries its kernels once, and the fake tells sizes
# as $HOSTEMU_PARAM_SIZES says at that query.
CUBIN = compile_source(SRC, no_extern_c=True)

def kernel(name, *sizes):
    # The fake tells a function's parameter sizes as $HOSTEMU_PARAM_SIZES says when it is made.
    os.environ["HOSTEMU_PARAM_SIZES"] = ",".join(map(str, sizes))
    try:
        return drv.module_from_buffer(CUBIN).get_function(name)
    finally:
        del os.environ["HOSTEMU_PARAM_SIZES"]

def prep_k(fmt, *sizes):
    return kernel("int_k", *sizes).prepare(fmt)

size_t_k, int_k, short_k = kernel("size_t_k", 8, 8), kernel("int_k", 8, 4), kernel("short_k", 8, 2)
float_k, double_k = kernel("float_k", 8, 4), kernel("double_k", 8, 8)
cd_k, v3_k, v4_k = kernel("cd_k", 8, 16), kernel("v3_k", 8, 12), kernel("v4_k", 8, 16)
uint_k, char_k = kernel("uint_k", 8, 4), kernel("char_k", 8, 1)
d = drv.mem_alloc(64)

ew_int = ElementwiseKernel("int *x, int *y", "y[i] = 2 * x[i]", "ew_int")
ew_float = ElementwiseKernel("float *x, float *y", "y[i] = 2 * x[i]", "ew_float")
ew_double = ElementwiseKernel("double *x, double *y", "y[i] = 2 * x[i]", "ew_double")
ew_first = ElementwiseKernel("float *x, float *y", "x[i] = y[0]", "ew_first")
red_int = ReductionKernel(np.int32, "0", "a+b", "a[i]*b[i]", "int *a, int *b")
scan_u32 = InclusiveScanKernel(np.uint32, "a+b")
xscan_i32 = ExclusiveScanKernel(np.int32, "a+b", neutral="0")

def arr(dtype, n=100):
    return gpuarray.to_gpu(np.arange(n).astype(dtype))

a_u32, b_u32, a_i32, b_i32 = arr(np.uint32), arr(np.uint32), arr(np.int32), arr(np.int32)
a_f32, b_f32, a_f64, a_i16, a_i64 = (arr(t) for t in (np.float32, np.float32, np.float64,
                                                     np.int16, np.int64))
short_f32, one_f32, out_f64 = arr(np.float32, 50), arr(np.float32, 1), arr(np.float64)
f_order_i32 = gpuarray.to_gpu(np.asfortranarray(np.arange(100, dtype=np.int32).reshape(10, 10)))

def outcome(code):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, globals())
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"
    ours = [str(w.message) for w in caught if "the kernel was declared" in str(w.message)
            or w.category is ArgumentConversionWarning]
    return "warns: " + ours[0] if ours else "runs"

print(json.dumps({name: outcome(code) for name, code in CASES}))
"""


@pytest.fixture(scope="module")
def outcomes(fake_libcuda_so) -> dict[str, str]:
    """What each case of CASES does here: one child interpreter over the fake driver."""
    if not _driver.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    table = [(c.name, c.code) for c in CASES]
    code = f"CASES = {table!r}\n" + textwrap.dedent(SETUP)
    out = fake_libcuda.run_on_fake(fake_libcuda_so, code)
    return json.loads(out.strip().splitlines()[-1])


def test_case_names_are_distinct() -> None:
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_what_ours_does(outcomes: dict[str, str], case: Case) -> None:
    got = outcomes[case.name]
    kind, _, pattern = case.ours.partition(": ")
    assert got.split(":")[0] == kind, f"{case.name}: expected {case.ours!r}, got {got!r}"
    if pattern:
        assert __import__("re").search(pattern, got), f"{case.name}: {got!r} !~ {pattern!r}"


# {{{ the rule itself (no driver)

RULE = [
    # (array dtype, declared, nbytes, elements touched, outcome)
    (np.uint32, np.int32, 400, 100, "silent"),
    (np.int8, np.bool_, 100, 100, "silent"),
    (np.uint64, np.int64, 800, None, "silent"),
    (np.float32, np.int32, 400, 100, "warn"),
    (np.int32, np.float32, 400, 100, "warn"),
    (np.complex64, np.float64, 800, 100, "warn"),
    (np.float64, np.float32, 800, 100, "warn"),  # the first half of the buffer
    (np.int16, np.int32, 200, None, "warn"),  # touched elements unknown: cannot tell
    (np.int16, np.int32, 200, 50, "warn"),  # 50 ints are the 100 shorts' bytes
    (np.int16, np.int32, 200, 51, "refuse"),
    (np.float32, np.float64, 400, 100, "refuse"),
]


@pytest.mark.parametrize("dtype, declared, nbytes, elements, want", RULE)
def test_check_array_dtype(dtype, declared, nbytes, elements, want, recwarn) -> None:
    if want == "refuse":
        with pytest.raises(TypeError, match=f"'x' has dtype {np.dtype(dtype)}.*past its end"):
            check_array_dtype("'x'", dtype, declared, nbytes, elements)
        return
    check_array_dtype("'x'", dtype, declared, nbytes, elements)
    messages = [str(w.message) for w in recwarn.list]
    if want == "silent":
        assert messages == []
    else:
        assert len(messages) == 1
        assert f"'x' has dtype {np.dtype(dtype)}" in messages[0]
        assert f"declared with {np.dtype(declared)}" in messages[0]


def test_warning_points_at_the_callers_line() -> None:
    with pytest.warns(UserWarning) as record:
        check_array_dtype("'x'", np.float64, np.float32, 800, 100)
    assert record[0].filename == __file__


def test_indexed_at_i() -> None:
    names = ["x", "y", "z", "w"]
    assert indexed_at_i(names, "z[i] = x[i] + y[ i ]") == {"x", "y", "z"}
    assert indexed_at_i(names, "z[i] = x[i] + y[0]") == {"x", "z"}
    assert indexed_at_i(names, "z[i] = f(x, i)") == {"z"}
    assert indexed_at_i(names, "z[i] = x[i]; i += 1") == set()  # i changes: nothing is known
    assert indexed_at_i(names, "z[i] = w.x[i]") == {"z"}  # a member named x is not array x
    assert indexed_at_i(names, "z[i] = 1", "x[0] = 2") == {"z"}  # loop_prep, after_loop


def test_arg_packer_conversions() -> None:
    """Scalars of the parameter's own size pass as they are, with no driver information."""
    assert _driver._pack_args(None, (np.uint32(7),)) == struct.pack("<I", 7)
    assert _driver._pack_args("q", (np.uint32(7),)) == struct.pack("<q", 7)
    assert _driver._pack_args("f", (np.float64(0.5),)) == struct.pack("<f", 0.5)


# }}}

# {{{ GPU: the kernels read the numbers the user meant


@pytest.mark.gpu
def test_size_t_parameter_reads_the_number_given(ctx) -> None:
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule

    mod = SourceModule(
        """
        __global__ void fill(int *d, const size_t n)
        {
            for (size_t i = threadIdx.x; i < n; i += blockDim.x)
                d[i] = (int)i + 1;
        }
        __global__ void store(unsigned long long *out, const size_t n, float x, double y)
        {
            out[0] = n;
            out[1] = (unsigned long long)(x * 4);
            out[2] = (unsigned long long)(y * 4);
        }
        """
    )
    n = 100
    d = gpuarray.zeros(n + 28, np.int32)
    mod.get_function("fill")(d, np.uint32(n), block=(32, 1, 1))
    want = np.zeros(n + 28, np.int32)
    want[:n] = np.arange(1, n + 1)
    np.testing.assert_array_equal(d.get(), want)
    out = gpuarray.zeros(3, np.uint64)
    store = mod.get_function("store")
    store(out, np.int32(2**31 - 1), np.float64(2.5), np.float32(1.25), block=(1, 1, 1))
    assert out.get().tolist() == [2**31 - 1, 10, 5]
    store.prepare("Pidf").prepared_call((1, 1), (1, 1, 1), out, 12345, 0.75, 0.5)
    assert out.get().tolist() == [12345, 3, 2]
    # Values the parameters cannot hold are converted as C converts them, with a warning.
    wrapped = r"parameter 2 \(0-based\).*4 bytes; the int64 value 1099511627776 given was"
    with pytest.warns(ArgumentConversionWarning, match=wrapped):
        store(out, np.uint64(1), np.int64(2**40), np.float64(1), block=(1, 1, 1))
    assert out.get().tolist() == [1, 0, 4]  # x: the float of bits 0
    rounded = r"float64 value 2.7 given was converted to float32 \(2.70000005\)"
    with pytest.warns(ArgumentConversionWarning, match=rounded):
        store(out, np.uint64(5), np.float64(2.7), np.float64(0.25), block=(1, 1, 1))
    assert out.get().tolist() == [5, 10, 1]  # (int)(2.7f * 4), not a double's low bytes


@pytest.mark.gpu
def test_reduction_declared_int_over_uint32(ctx) -> None:
    from pycuda import gpuarray
    from pycuda.reduction import ReductionKernel

    dot = ReductionKernel(np.int32, "0", "a+b", "a[i]*b[i]", "int *a, int *b")
    a = np.arange(1000, dtype=np.uint32) % 7
    b = np.arange(1000, dtype=np.uint32) % 5
    got = dot(gpuarray.to_gpu(a), gpuarray.to_gpu(b)).get()
    assert int(got) == int((a.astype(np.int64) * b).sum())


@pytest.mark.gpu
@pytest.mark.parametrize(
    "kind, built, given",
    [("inclusive", np.uint32, np.int32), ("exclusive", np.int32, np.uint32)],
)
def test_scan_of_the_other_signedness(ctx, kind, built, given) -> None:
    from pycuda import gpuarray
    from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel

    k = (
        InclusiveScanKernel(built, "a+b")
        if kind == "inclusive"
        else ExclusiveScanKernel(built, "a+b", neutral="0")
    )
    a = np.arange(5000).astype(given) % 11
    a_gpu = gpuarray.to_gpu(a)
    k(a_gpu)
    ref = np.cumsum(a, dtype=given)
    if kind == "exclusive":
        ref = np.concatenate([[0], ref[:-1]]).astype(given)
    np.testing.assert_array_equal(a_gpu.get(), ref)


@pytest.mark.gpu
def test_elementwise_float64_for_float_warns_and_range_past_end_refused(ctx) -> None:
    from pycuda import gpuarray
    from pycuda.elementwise import ElementwiseKernel

    k = ElementwiseKernel("float *x, float *y", "y[i] = 2 * x[i]", "twice")
    x = gpuarray.to_gpu(np.arange(100, dtype=np.float32))
    y = gpuarray.zeros(100, np.float32)
    with pytest.warns(UserWarning, match="'x' has dtype float64.*declared with float32"):
        k(gpuarray.to_gpu(np.arange(100, dtype=np.float64)), y)
    with pytest.raises(ValueError, match="'x' has 100 elements"):
        k(x, y, range=slice(0, 101))
    y.fill(0)  # the reinterpreting call above wrote every element
    k(x, y, range=slice(0, 100, 2))
    want = np.zeros(100, np.float32)
    want[::2] = 2 * np.arange(0, 100, 2)
    np.testing.assert_array_equal(y.get(), want)
    u = ElementwiseKernel("int *x, int *y", "y[i] = x[i] + 1", "plus_one")
    yi = gpuarray.zeros(100, np.uint32)
    u(gpuarray.to_gpu(np.arange(100, dtype=np.uint32)), yi)
    np.testing.assert_array_equal(yi.get(), np.arange(1, 101, dtype=np.uint32))


# }}}
