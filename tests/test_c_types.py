"""Tests for pycuda._c_types: dtype <-> CUDA C names, and that NVRTC agrees on their sizes."""

import ctypes
import ctypes.util
import os

import numpy as np
import pytest

from pycuda._c_types import ctype_to_dtype, dtype_to_ctype, register_dtype
from pycuda._dtype_rules import BFLOAT16, SUPPORTED_DTYPES


def test_every_supported_dtype_has_a_name_that_reads_back():
    for dtype in SUPPORTED_DTYPES:
        name = dtype_to_ctype(dtype)
        assert ctype_to_dtype(name) == dtype
    assert dtype_to_ctype(np.float32) == "float"
    assert dtype_to_ctype("float64") == "double"
    assert dtype_to_ctype(np.uint64) == "unsigned long long"
    assert dtype_to_ctype(np.float16) == "__half"
    assert dtype_to_ctype(np.complex64) == "pycuda::complex<float>"


def test_bfloat16_where_ml_dtypes_is_installed():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert dtype_to_ctype(ml_dtypes.bfloat16) == "__nv_bfloat16"
    assert BFLOAT16 in SUPPORTED_DTYPES


@pytest.mark.parametrize(
    "name, dtype",
    [
        ("unsigned", np.uint32),
        ("long", np.int64),
        ("unsigned  long", np.uint64),
        ("const float", np.float32),
        ("pycuda::complex< double >", np.complex128),
        ("half", np.float16),
        ("char", np.int8),
        ("int64_t", np.int64),
    ],
)
def test_aliases(name, dtype):
    assert ctype_to_dtype(name) == np.dtype(dtype)


def test_errors():
    with pytest.raises(ValueError, match="unable to map dtype"):
        dtype_to_ctype(np.dtype("U3"))
    with pytest.raises(ValueError, match="unknown CUDA C type 'quaternion'"):
        ctype_to_dtype("quaternion")
    with pytest.raises(TypeError, match="is not a dtype"):
        dtype_to_ctype("no such dtype")


def test_register_vector_dtype():
    float3 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)], align=True)
    register_dtype(float3, "float3")
    assert dtype_to_ctype(float3) == "float3"
    assert ctype_to_dtype("float3") == float3
    with pytest.raises(RuntimeError, match="already has the C name"):
        register_dtype(float3, "my_float3")
    register_dtype(float3, "my_float3", alias_ok=True)
    assert ctype_to_dtype("my_float3") == float3 and dtype_to_ctype(float3) == "float3"


def _nvrtc():
    for name in ("libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"):
        for folder in ("", "/usr/local/cuda/lib64/"):
            try:
                return ctypes.CDLL(folder + name)
            except OSError:
                continue
    return None


def test_nvrtc_agrees_on_names_and_sizes():
    """Every name but pycuda::complex (its header is the kernels' own) compiles with its size."""
    nvrtc = _nvrtc()
    if nvrtc is None or not os.path.isdir("/usr/local/cuda/include"):
        pytest.skip("NVRTC is not installed")
    lines = ["#include <cuda_fp16.h>", "#include <cuda_bf16.h>"]
    for dtype in SUPPORTED_DTYPES:
        name = dtype_to_ctype(dtype)
        if not name.startswith("pycuda::"):
            lines.append(f'static_assert(sizeof({name}) == {dtype.itemsize}, "{name}");')
    source = "\n".join(lines).encode()
    program = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(program), source, b"t.cu", 0, None, None) == 0
    options = (ctypes.c_char_p * 2)(b"-I/usr/local/cuda/include", b"-std=c++17")
    result = nvrtc.nvrtcCompileProgram(program, 2, options)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    assert result == 0, log.value.decode()
