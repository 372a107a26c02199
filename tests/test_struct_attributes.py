"""Attributes after a typedef'd struct's closing brace are applied to the struct under NVRTC,
as nvcc applies them (reikna's structs: `typedef struct s_ {...} ALIGN(32) s;`)."""

from __future__ import annotations

import re
import shutil

import pytest

from pycuda import _driver
from pycuda import compiler as C
from pycuda._struct_attributes import hoist_struct_attributes

REIKNA_LIKE = """
#define ALIGN(bytes) __align__(bytes)
typedef struct _module1__ {
    int  val1;
    char  pad;
} ALIGN(4) _module1_;

typedef struct _module0__ {
    int  val1;
    short  val2;
    _module1_  nested;
} ALIGN(32) _module0_;

extern "C" __global__ void fill(_module0_ *dest)
{
    _module0_ res;
    res.val1 = 0; res.val2 = 1; res.nested.val1 = 2; res.nested.pad = 3;
    dest[blockIdx.x * blockDim.x + threadIdx.x] = res;
}
"""


def test_attributes_move_to_the_struct_keyword():
    out = hoist_struct_attributes(REIKNA_LIKE)
    assert "typedef struct ALIGN(4) _module1__ {" in out
    assert "typedef struct ALIGN(32) _module0__ {" in out
    assert "} _module0_;" in out and "} _module1_;" in out
    assert "#define ALIGN(bytes) __align__(bytes)" in out
    gnu = "typedef struct { int a; } __attribute__((aligned(16))) t;"
    assert hoist_struct_attributes(gnu) == (
        "typedef struct __attribute__((aligned(16))) { int a; } t;"
    )
    two = "typedef union u { int a; } __align__(8) A(1) t;"
    assert hoist_struct_attributes(two) == "typedef union __align__(8) A(1) u { int a; } t;"


def test_what_is_not_a_typedef_declarator_is_left_alone():
    for text in (
        "struct s { int a; } __align__(8) x;",  # a variable, not a typedef
        "typedef struct s { int a; } t;",  # nothing to move
        "void f() { if (g()) { h(); } }",
        "typedef struct s { int a; } F(1) (t);",  # not a plain name after the calls
        "x = { 1 } y(2);",
    ):
        assert hoist_struct_attributes(text) == text, text


@pytest.mark.skipif(not _driver.nvrtc_available(), reason="needs NVRTC")
def test_nvrtc_steps_arrays_of_the_typedef_by_its_aligned_size():
    ptx = C.compile(REIKNA_LIKE, arch="sm_90", no_extern_c=True, target="ptx", cache_dir=False)
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    # the element address: index * 32 (NVRTC without the move: * 16, half of each element)
    assert re.search(r"mul\.wide\.[su]32\s+%rd\d+, %r\d+, 32;", text), text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc, to compare with")
def test_nvcc_agrees(tmp_path):
    import subprocess

    cu = tmp_path / "k.cu"
    cu.write_text(REIKNA_LIKE)
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-o", str(tmp_path / "k.ptx"), str(cu)],
                   check=True, capture_output=True)  # fmt: skip
    assert re.search(r"mul\.wide\.[su]32\s+%rd\d+, %r\d+, 32;", (tmp_path / "k.ptx").read_text())
