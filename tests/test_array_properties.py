"""Randomized property tests of GPUArray against NumPy: every element-wise operator and cumath
function, on random shapes (0-d and empty among them), dtype pairs, layouts (steps, negative
steps, transposes) and broadcasts; where NumPy raises, GPUArray raises the same exception type.

Each test case is drawn from its own fixed seed (NumPy's RNG; the ids name it), so a failure
reproduces alone: ``pytest tests/test_array_properties.py -k "add-3"``. Runs on the host
stand-in (tests/host_device.py) and on the GPU.
"""

from __future__ import annotations

import operator
import warnings
import zlib

import host_device
import numpy as np
import pytest

from pycuda import cumath

DTYPES = [np.dtype(t) for t in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32,
                                np.int64, np.float16, np.float32, np.float64, np.complex64,
                                np.complex128)]  # fmt: skip
# Scalars of every kind, weak (Python) and strong (NumPy), some out of small types' ranges.
SCALARS = [0, 2, -3, 300, True, 1.5, -0.25, 0.5 + 1j, np.float32(2.5), np.int16(3),
           np.uint8(7), np.float64(-1.5), np.complex64(1 - 2j)]  # fmt: skip
BINARY = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "truediv": operator.truediv,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "pow": operator.pow,
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
    "and": operator.and_,
    "or": operator.or_,
    "xor": operator.xor,
    "lshift": operator.lshift,
    "rshift": operator.rshift,
}
UNARY = {"neg": operator.neg, "pos": operator.pos, "abs": operator.abs, "invert": operator.invert}
INPLACE = {"iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul,
           "itruediv": operator.itruediv, "ifloordiv": operator.ifloordiv,
           "ipow": operator.ipow, "iand": operator.iand, "ilshift": operator.ilshift}  # fmt: skip
CUMATH_UNARY = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan",
                "asin", "acos", "atan", "sinh", "cosh", "tanh", "exp2", "log2", "log1p",
                "expm1", "sign", "trunc", "round", "isnan", "isinf", "isfinite", "arcsinh",
                "arccosh", "arctanh"]  # fmt: skip
CUMATH_BINARY = ["arctan2", "hypot", "power", "fmod", "maximum", "minimum", "logical_and",
                 "logical_or"]  # fmt: skip
NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan"}
# Results that are exact in both NumPy and CUDA (IEEE operations, comparisons, integers).
EXACT_OPS = {"add", "sub", "mul", "truediv", "floordiv", "mod", "eq", "ne", "lt", "le", "gt",
             "ge", "and", "or", "xor", "lshift", "rshift", "neg", "pos", "abs", "invert",
             "fabs", "ceil", "floor", "sqrt", "sign", "trunc", "round", "isnan", "isinf",
             "isfinite", "fmod", "maximum", "minimum", "clip", "iadd", "isub", "imul",
             "itruediv", "ifloordiv", "iand", "ilshift"}  # fmt: skip
# Where NaN, infinities and signed zeros behave the same in CUDA and NumPy (IEEE, or NumPy's
# own rules that the kernels copy); elsewhere the C libraries' special cases may differ.
SPECIALS_OK = {"add", "sub", "mul", "truediv", "eq", "ne", "lt", "le", "gt", "ge", "neg",
               "abs", "fabs", "ceil", "floor", "sqrt", "sign", "trunc", "round", "isnan",
               "isinf", "isfinite", "maximum", "minimum", "clip", "exp", "iadd"}  # fmt: skip
# Exact for complex operands too (no complex rounding inside: selections, sums, rint).
COMPLEX_EXACT = {"add", "sub", "neg", "pos", "eq", "ne", "lt", "le", "gt", "ge", "iadd", "isub",
                 "round", "maximum", "minimum", "clip", "isnan", "isinf", "isfinite",
                 "index"}  # fmt: skip
EXCEPTIONS = (TypeError, ValueError, IndexError, OverflowError)


def _ids(names, cases):
    return [(name, k) for name in names for k in range(cases)]


def _rng(name, k):
    return np.random.default_rng(zlib.crc32(f"{name}-{k}".encode()))


def _case_id(case):
    return f"{case[0]}-{case[1]}"


# {{{ random operands


def _shape(rng, ndim=None):
    ndim = int(rng.integers(0, 4)) if ndim is None else ndim
    return tuple(int(rng.choice([0, 1, 2, 3, 5, 7], p=[0.05, 0.2, 0.2, 0.25, 0.15, 0.15]))
                 for _ in range(ndim))  # fmt: skip


def _broadcast_partner(rng, shape):
    """A shape that broadcasts with ``shape``: leading axes dropped, some lengths made 1; or,
    now and then, one that does not broadcast (NumPy's ValueError is then the expected
    outcome)."""
    cut = int(rng.integers(0, len(shape) + 1))
    partner = [1 if rng.random() < 0.3 else n for n in shape[cut:]]
    if rng.random() < 0.2:
        partner = [int(rng.choice([1, 2, 3]))] + partner  # more axes than shape
    if rng.random() < 0.08 and partner:
        axis = int(rng.integers(0, len(partner)))
        partner[axis] = partner[axis] + 4  # cannot broadcast
    return tuple(partner)


def _values(rng, shape, dtype, specials=False):
    return np.array(_random_values(rng, shape, dtype, specials))  # 0-d: an array, not a scalar


def _random_values(rng, shape, dtype, specials):
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -20
        return rng.integers(low, 21, shape).astype(dtype)
    x = rng.uniform(-5, 5, shape)
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(-5, 5, shape)
    x = np.asarray(x).astype(dtype)
    if rng.random() < 0.3:
        x = np.asarray(np.round(x * 2) / 2).astype(dtype)  # halves: rounding ties, zeros
    if specials and dtype.kind == "f" and x.size:
        flat = x.reshape(-1)
        picks = rng.integers(0, flat.size, min(flat.size, 3))
        flat[picks] = rng.choice([np.nan, np.inf, -np.inf, -0.0], len(picks))
    return x


def _operand(device, rng, shape, dtype, specials=False, positive=False, nonzero=False):
    """``(GPUArray, ndarray)`` of ``shape`` holding the same values, in a random layout: dense,
    a view with steps (negative too) into a larger array, a transposed view, or both."""
    from pycuda import gpuarray

    ndim = len(shape)
    steps = [1] * ndim
    if ndim and rng.random() < 0.5:
        steps = [int(rng.choice([1, 2, 3, -1, -2])) for _ in range(ndim)]
    perm = list(range(ndim))
    if ndim > 1 and rng.random() < 0.4:
        perm = [int(p) for p in rng.permutation(ndim)]
    # the base's shape, before the transpose and the steps
    stepped = [n * abs(s) + int(rng.integers(0, 2)) for n, s in zip(shape, steps, strict=True)]
    base_shape = [0] * ndim
    for axis, p in enumerate(perm):
        base_shape[p] = stepped[axis]
    host_base = _values(rng, tuple(base_shape), dtype, specials)
    if positive and dtype.kind in "iuf":
        host_base = np.array(np.abs(host_base))
    if nonzero:
        host_base[host_base == 0] = 1
    device_base = gpuarray.to_gpu(host_base)
    views = []
    for base in (host_base, device_base):
        view = base.transpose(perm) if ndim > 1 else base
        starts = tuple(
            slice(0 if s > 0 else n - 1, None, s) for n, s in zip(stepped, steps, strict=True)
        )
        view = view[starts][tuple(slice(0, n) for n in shape)] if ndim else view
        views.append(view)
    assert views[0].shape == views[1].shape == shape
    return views[1], views[0]


def _other(device, rng, shape, dtype_pool, **kwargs):
    """The second operand: a broadcasting array (mostly), or a scalar; and its host twin."""
    if rng.random() < 0.25:
        scalar = SCALARS[int(rng.integers(0, len(SCALARS)))]
        return scalar, scalar
    dtype = dtype_pool[int(rng.integers(0, len(dtype_pool)))]
    return _operand(device, rng, _broadcast_partner(rng, shape), dtype, **kwargs)


# }}}


# {{{ comparing outcomes


def _numpy_outcome(func, *args):
    """NumPy's result as an array, or the exception it raised."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(func(*args))
        except EXCEPTIONS as exc:
            return exc


def _tolerance(dtype):
    real = np.finfo(dtype).dtype.itemsize
    return {2: 4e-3, 4: 2e-5, 8: 1e-12}[real]


def _agree(name, expected, run, complex_inputs=False):
    """Run ``run()`` (the GPUArray side) and check it against NumPy's ``expected`` outcome:
    the same exception type, or the same shape, dtype and values (to rounding where the two
    sides' formulas may round differently)."""
    if isinstance(expected, Exception):
        kind = next(e for e in EXCEPTIONS if isinstance(expected, e))
        with pytest.raises(kind):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        result = run()
    assert result.shape == expected.shape, (result.shape, expected.shape)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    got = result.get()
    complex_involved = complex_inputs or expected.dtype.kind == "c"
    exact = name in EXACT_OPS and (not complex_involved or name in COMPLEX_EXACT)
    if exact or expected.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected)
        return
    tol = _tolerance(expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True)


# }}}


# {{{ the device: the GPU, or the host stand-in where no GPU is


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


# }}}


# {{{ the properties


def _binary_operands(device, rng, name):
    """``(a, b, host a, host b, reflected)`` for the binary operation ``name``."""
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    divides = name in ("truediv", "floordiv", "mod", "fmod", "itruediv", "ifloordiv")
    power = name in ("pow", "power", "ipow")
    specials = name in SPECIALS_OK
    a, ha = _operand(device, rng, _shape(rng), dtype, specials=specials, nonzero=power,
                     positive=power)  # fmt: skip
    kwargs = {"specials": specials}
    if power or name in ("lshift", "rshift", "ilshift"):
        # NumPy refuses negative integer powers of integer arrays, checking each element
        kwargs["positive"] = True
    if divides:
        # complex division by zero differs between the formulas; real division by zero is
        # IEEE (or NumPy's integer rule) and stays in
        kwargs["nonzero"] = dtype.kind == "c"
    b, hb = _other(device, rng, ha.shape, DTYPES, **kwargs)
    if divides and not isinstance(hb, np.ndarray) and np.result_type(ha, hb).kind == "c":
        b = hb = 2.5  # a complex quotient by a scalar zero: see above
    reflected = not isinstance(hb, np.ndarray) and rng.random() < 0.5
    return a, b, ha, hb, reflected


@pytest.mark.parametrize("case", _ids(BINARY, 6), ids=_case_id)
def test_binary_operator(device, case):
    name, k = case
    func = BINARY[name]
    a, b, ha, hb, reflected = _binary_operands(device, _rng(name, k), name)
    if reflected:
        _agree(name, _numpy_outcome(func, hb, ha), lambda: func(b, a))
    else:
        _agree(name, _numpy_outcome(func, ha, hb), lambda: func(a, b))


@pytest.mark.parametrize("case", _ids(UNARY, 6), ids=_case_id)
def test_unary_operator(device, case):
    name, k = case
    rng = _rng(name, k)
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    a, ha = _operand(device, rng, _shape(rng), dtype, specials=name in SPECIALS_OK)
    _agree(name, _numpy_outcome(UNARY[name], ha), lambda: UNARY[name](a), dtype.kind == "c")


@pytest.mark.parametrize("case", _ids(INPLACE, 4), ids=_case_id)
def test_inplace_operator(device, case):
    """``a op= b``: b broadcasts into a (or NumPy's ValueError), the result casts to a's dtype
    by 'same_kind' (or NumPy's TypeError); b may overlap a."""
    name, k = case
    rng = _rng(name, k)
    func = INPLACE[name]
    a, b, ha, hb, _ = _binary_operands(device, rng, name)
    if rng.random() < 0.25 and a.ndim and a.shape[0] > 1:
        b, hb = a[:-1], ha[:-1]  # overlapping: NumPy reads b before writing a
        a, ha = a[1:], ha[1:]
    expected = _numpy_outcome(lambda x, y: func(x.copy(), y), ha, hb)

    def run():
        result = func(a, b)
        assert result is a
        return result

    _agree(name, expected, run)


@pytest.mark.parametrize("case", _ids(CUMATH_UNARY, 4), ids=_case_id)
def test_cumath_unary(device, case):
    name, k = case
    rng = _rng(name, k)
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    a, ha = _operand(device, rng, _shape(rng), dtype, specials=name in SPECIALS_OK)
    reference = getattr(np, NUMPY_NAMES.get(name, name))
    if name == "fabs" and dtype.kind == "c":
        reference = np.abs  # cumath.fabs of complex is their absolute value, as the original's
    if name == "round" and rng.random() < 0.5:
        decimals = int(rng.choice([-1, 1, 2]))
        _agree(name, _numpy_outcome(np.round, ha, decimals), lambda: cumath.round(a, decimals))
        return
    outcome = _numpy_outcome(reference, ha)
    _agree(name, outcome, lambda: getattr(cumath, name)(a), dtype.kind == "c")


@pytest.mark.parametrize("case", _ids(CUMATH_BINARY, 5), ids=_case_id)
def test_cumath_binary(device, case):
    from pycuda import gpuarray

    name, k = case
    rng = _rng(name, k)
    a, b, ha, hb, reflected = _binary_operands(device, rng, name)
    module = cumath if hasattr(cumath, name) else gpuarray
    func, reference = getattr(module, name), getattr(np, name)
    if reflected and name != "fmod":  # fmod takes the array first, as the original's
        _agree(name, _numpy_outcome(reference, hb, ha), lambda: func(b, a))
    else:
        _agree(name, _numpy_outcome(reference, ha, hb), lambda: func(a, b))


@pytest.mark.parametrize("case", _ids(["clip"], 8), ids=_case_id)
def test_clip(device, case):
    name, k = case
    rng = _rng(name, k)
    dtype = DTYPES[int(rng.integers(1, len(DTYPES)))]
    a, ha = _operand(device, rng, _shape(rng), dtype, specials=True)
    bounds, host_bounds = [], []
    for _ in range(2):
        if rng.random() < 0.25:
            bound = host = None
        else:
            bound, host = _other(device, rng, ha.shape, [dtype])
        bounds.append(bound)
        host_bounds.append(host)
    _agree(name, _numpy_outcome(np.clip, ha, *host_bounds), lambda: cumath.clip(a, *bounds))


def _random_index(rng, shape):
    """An index of ints (some out of range), slices with steps, None and Ellipsis."""
    items = []
    for n in shape:
        pick = rng.random()
        if pick < 0.3:
            items.append(int(rng.integers(-n - 2, n + 2)) if n else int(rng.integers(-1, 2)))
        elif pick < 0.9:
            start = int(rng.integers(-n - 1, n + 2)) if rng.random() < 0.5 else None
            stop = int(rng.integers(-n - 1, n + 2)) if rng.random() < 0.5 else None
            items.append(slice(start, stop, int(rng.choice([1, 2, 3, -1, -2]))))
        else:
            items.append(None)
    if items and rng.random() < 0.2:
        items[int(rng.integers(0, len(items)))] = Ellipsis
    if rng.random() < 0.1:
        items.append(0)  # one index too many, or one more in range after a None
    return tuple(items)


@pytest.mark.parametrize("case", _ids(["index"], 12), ids=_case_id)
def test_index_and_assign(device, case):
    """``a[index]`` and ``a[index] = value`` (scalar, or an array that broadcasts or not)."""
    name, k = case
    rng = _rng(name, k)
    dtype = DTYPES[int(rng.integers(0, len(DTYPES)))]
    a, ha = _operand(device, rng, _shape(rng, int(rng.integers(1, 4))), dtype)
    index = _random_index(rng, ha.shape)
    expected = _numpy_outcome(lambda x: x[index].copy(), ha)
    _agree("index", expected, lambda: a[index])
    if isinstance(expected, Exception):
        return
    value, host_value = _other(device, rng, expected.shape, [dtype])
    host_after = _numpy_outcome(lambda x, v: (x.__setitem__(index, v), x)[1], ha.copy(), host_value)

    def assign():
        a[index] = value
        return a

    _agree("index", host_after, assign)


# }}}
