"""One registry of C type names (issue 21, item 5): ``pycuda.tools``' registry (compyte's
default ``DTypeRegistry``) and the array layer's dtype table (``pycuda._dtypes``) are one
table, so a struct registered through either is known to both, and the kernels GPUArray
generates (``take``, ``fill``, copies) and ``ElementwiseKernel`` work over it. Without a GPU:
the table, and the kernels compiled, loaded and launched on the fake driver (whose copies are
real); with one: the results."""

from __future__ import annotations

import numpy as np
import pytest

from pycuda import _c_types, _dtypes, tools
from pycuda.compyte import dtypes as compyte_dtypes

gpu = pytest.mark.gpu

# CUDA's double3, which gpuarray.vec does not register (it has double1 and double2): a struct
# whose C name every kernel knows without a definition.
DOUBLE3 = np.dtype([("x", "<f8"), ("y", "<f8"), ("z", "<f8")])
# A struct of the user's own, defined in an ElementwiseKernel's preamble.
PAIR = np.dtype([("k", "<i4"), ("v", "<f4")])
PAIR_DEFINITION = "struct kv_pair { int k; float v; };"


def test_the_two_entry_points_share_one_table():
    registry = compyte_dtypes.TYPE_REGISTRY
    assert registry.name_to_dtype is _dtypes.BY_C_NAME
    assert registry.dtype_to_name is _dtypes.REGISTRY_NAMES
    assert tools.get_or_register_dtype is compyte_dtypes.get_or_register_dtype


def test_a_struct_registered_with_tools_is_known_to_the_array_layer():
    dtype = np.dtype([("a", "<i4"), ("b", "<f4"), ("tools_only", "<i4")])
    with pytest.raises(ValueError, match="unable to map dtype"):
        _dtypes.info(dtype)
    assert tools.get_or_register_dtype("tools_struct", dtype) == dtype
    row = _dtypes.info(dtype)
    assert (row.c_name, row.arithmetic, row.struct_char) == ("tools_struct", False, "12s")
    assert _c_types.dtype_to_ctype(dtype) == "tools_struct"
    assert _c_types.ctype_to_dtype("tools_struct") == dtype
    assert tools.dtype_to_ctype(dtype) == "tools_struct"
    # Its name in a kernel's argument list, as ElementwiseKernel reads it.
    arg = tools.parse_c_arg("const tools_struct *p")
    assert (type(arg).__name__, arg.dtype, arg.name) == ("VectorArg", dtype, "p")


def test_a_struct_registered_with_the_array_layer_is_known_to_tools():
    dtype = np.dtype([("a", "<f8"), ("array_only", "u1")])
    _c_types.register_dtype(dtype, "array_struct")
    assert tools.dtype_to_ctype(dtype) == "array_struct"
    assert tools.get_or_register_dtype("array_struct") == dtype
    assert compyte_dtypes.DTYPE_TO_NAME[dtype] == "array_struct"
    assert tools.parse_c_arg("array_struct s").dtype == dtype


def test_aliases_and_conflicts_read_the_same_through_both():
    dtype = np.dtype([("p", "<i8"), ("conflicts", "<i8")])
    tools.get_or_register_dtype(["first_name", "second_name"], dtype)
    assert _dtypes.info(dtype).c_name == "first_name"
    assert _c_types.ctype_to_dtype("second_name") == dtype
    # A name already bound to this dtype is no conflict; another name needs alias_ok.
    _c_types.register_dtype(dtype, "second_name")
    with pytest.raises(RuntimeError, match="alias_ok"):
        _c_types.register_dtype(dtype, "third_name")
    _c_types.register_dtype(dtype, "third_name", alias_ok=True)
    assert tools.get_or_register_dtype("third_name") == dtype
    assert tools.dtype_to_ctype(dtype) == "first_name"
    # A name bound to another dtype is refused by both entry points.
    with pytest.raises(RuntimeError, match="already registered"):
        _c_types.register_dtype(np.dtype([("other", "<f4")]), "first_name", alias_ok=True)
    with pytest.raises(RuntimeError, match="already registered"):
        tools.register_dtype(np.dtype([("other", "<f4")]), "first_name", alias_ok=True)
    with pytest.raises(RuntimeError, match="already registered"):
        tools.get_or_register_dtype("float", np.dtype([("other", "<f4")]))
    assert _c_types.ctype_to_dtype("float") == np.float32


def test_built_in_names_keep_their_two_spellings():
    # The original's name for tools, the portable one for generated kernels.
    assert tools.dtype_to_ctype(np.int64) == "long"
    assert _c_types.dtype_to_ctype(np.int64) == "long long"
    assert tools.get_or_register_dtype("long long") == np.int64
    assert tools.get_or_register_dtype("signed") == np.int32
    assert _c_types.ctype_to_dtype("signed") == np.int32
    float4 = tools.get_or_register_dtype("float4")
    assert tools.dtype_to_ctype(float4) == _c_types.dtype_to_ctype(float4) == "float4"
    # A numeric dtype the table cannot compute with gets a name, not a row.
    tools.get_or_register_dtype("long double complex", np.clongdouble)
    assert _dtypes.find(np.clongdouble) is None


# --- kernels over registered structs ----------------------------------------------------------

PROGRAM = f"""
from pycuda import gpuarray, tools
from pycuda.elementwise import ElementwiseKernel

DOUBLE3 = np.dtype({DOUBLE3.descr!r})
PAIR = np.dtype({PAIR.descr!r})
tools.get_or_register_dtype("double3", DOUBLE3)
tools.get_or_register_dtype("kv_pair", PAIR)

h = np.zeros(10, DOUBLE3)
h["x"], h["y"], h["z"] = np.arange(10), -np.arange(10), 0.5
a = gpuarray.to_gpu(h)
assert (a.get() == h).all()
assert (a.copy().get() == h).all()
strided = a[::2].copy()  # a kernel, where the two copies above are memcpys
idx = gpuarray.to_gpu(np.array([3, 1, 2], np.int32))
taken = gpuarray.take(a, idx)
value = np.array((1.0, 2.0, 3.0), DOUBLE3)[()]
a.fill(value)

p = np.zeros(5, PAIR)
p["k"], p["v"] = np.arange(5), np.arange(5) / 4
k = ElementwiseKernel(
    "kv_pair *out, const kv_pair *a, kv_pair w",
    "out[i].k = a[i].k + w.k; out[i].v = a[i].v * w.v",
    "kv_kernel",
    preamble={PAIR_DEFINITION!r},
)
p_gpu = gpuarray.to_gpu(p)
out = gpuarray.empty_like(p_gpu)
k(out, p_gpu, np.array((7, 2.0), PAIR)[()])
"""

CHECKS = """
assert (strided.get() == h[::2]).all()
assert taken.dtype == DOUBLE3 and taken.shape == (3,)
assert (taken.get() == h[[3, 1, 2]]).all()
assert (a.get() == value).all()
got = out.get()
assert (got["k"] == p["k"] + 7).all() and (got["v"] == p["v"] * 2).all()
"""


def test_take_fill_copies_and_elementwise_on_the_fake_driver(fake_libcuda_so):
    """Each kernel compiles (NVRTC, for the fake's sm_90), loads and launches; the fake runs
    no kernel, so only the copies' results are checked here."""
    import fake_libcuda

    if not __import__("pycuda._driver", fromlist=["x"]).nvrtc_available():
        pytest.skip("NVRTC is not installed")
    out = fake_libcuda.run_on_fake(fake_libcuda_so, PROGRAM + "\nprint('done')\n")
    assert out.strip().endswith("done")


@gpu
def test_take_fill_copies_and_elementwise_on_a_gpu(ctx):
    namespace: dict = {"np": np}
    exec(PROGRAM + CHECKS, namespace)  # noqa: S102 - the same program as on the fake driver
