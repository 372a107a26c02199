"""Tests of pycuda._md5_code (curandom.md5_code): MD5 of the launch coordinates, checked against
a Python MD5 (itself checked against hashlib) in a host build and, on a GPU, in a kernel."""

from __future__ import annotations

import hashlib
import math
import struct

import numpy as np
import pytest

from pycuda import curandom
from pycuda._md5_code import md5_code

MASK = 0xFFFFFFFF


def md5_block(words: list[int]) -> tuple[int, int, int, int]:
    """MD5's compression of one block of 16 little-endian words from the initial state
    (RFC 1321, section 3.4), plus the initial state: the digest words of that block."""
    shifts = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
    a0, b0, c0, d0 = 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476
    a, b, c, d = a0, b0, c0, d0
    for k in range(64):
        if k < 16:
            f, g = (b & c) | (~b & d), k
        elif k < 32:
            f, g = (d & b) | (~d & c), (5 * k + 1) % 16
        elif k < 48:
            f, g = b ^ c ^ d, (3 * k + 5) % 16
        else:
            f, g = c ^ (b | ~d), (7 * k) % 16
        t = (a + (f & MASK) + int(abs(math.sin(k + 1)) * 2**32) + words[g]) & MASK
        a, d, c = d, c, b
        b = (b + ((t << shifts[k]) | (t >> (32 - shifts[k])))) & MASK
    return (a + a0) & MASK, (b + b0) & MASK, (c + c0) & MASK, (d + d0) & MASK


def test_reference_md5_matches_hashlib():
    # A 55-byte message pads to exactly one block: the bytes, 0x80, then the bit length.
    message = bytes(range(7, 62))
    block = message + b"\x80" + struct.pack("<Q", 8 * len(message))
    words = list(struct.unpack("<16I", block))
    digest = struct.pack("<4I", *md5_block(words))
    assert digest == hashlib.md5(message).digest()


def coordinate_words(thread, block, seed, i, n, block_dim, grid_dim):
    """The fragment's message: the original's order of coordinates, seed, i and n."""
    return [*thread, *block, seed & MASK, i & MASK, n & MASK, *block_dim, *grid_dim, 0]


HOST_MAIN = r"""
#include <cstdio>
#include <cstdlib>
#include <cstddef>
struct dim { unsigned int x, y, z; };
int main(int argc, char **argv) {
    unsigned long v[15];
    for (int k = 0; k < 15; ++k) v[k] = strtoul(argv[k + 1], 0, 10);
    const dim threadIdx = {(unsigned)v[0], (unsigned)v[1], (unsigned)v[2]};
    const dim blockIdx = {(unsigned)v[3], (unsigned)v[4], (unsigned)v[5]};
    const unsigned int seed = (unsigned)v[6];
    const size_t i = v[7], n = v[8];
    const dim blockDim = {(unsigned)v[9], (unsigned)v[10], (unsigned)v[11]};
    const dim gridDim = {(unsigned)v[12], (unsigned)v[13], (unsigned)v[14]};
    FRAGMENT
    printf("%u %u %u %u\n", a, b, c, d);
    return 0;
}
"""

CASES = [
    ((0, 0, 0), (0, 0, 0), 0, 0, 1, (1, 1, 1), (1, 1, 1)),
    ((5, 1, 0), (17, 0, 0), 123456789, 2**33 + 77, 2**34, (256, 2, 1), (1024, 1, 1)),
    ((31, 0, 0), (3, 2, 1), 2**31 - 1, 4099, 5000, (32, 1, 1), (160, 3, 2)),
]


def test_fragment_computes_md5_of_the_coordinates(tmp_path):
    import shutil
    import subprocess

    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    source = tmp_path / "md5.cpp"
    source.write_text(HOST_MAIN.replace("FRAGMENT", md5_code))
    exe = tmp_path / "md5"
    subprocess.run([cxx, "-O1", str(source), "-o", str(exe)], check=True, capture_output=True)
    for thread, block, seed, i, n, block_dim, grid_dim in CASES:
        args = [*thread, *block, seed, i, n, *block_dim, *grid_dim]
        out = subprocess.run([str(exe), *map(str, args)], check=True, capture_output=True)
        got = tuple(int(w) for w in out.stdout.split())
        expected = md5_block(coordinate_words(thread, block, seed, i, n, block_dim, grid_dim))
        assert got == expected


def test_fragment_declares_only_its_names():
    assert "#define" not in md5_code  # nothing leaks into the code that follows
    assert md5_code.count("unsigned int a = ") == 1
    assert curandom.md5_code is md5_code


def test_fragment_compiles_in_an_elementwise_kernel():
    from pycuda import _grid_stride
    from pycuda.compiler import compile as cuda_compile

    args = _grid_stride.parse_arguments("unsigned int *dest, unsigned int seed")
    source = _grid_stride.elwise_source(
        args, md5_code + "dest[i] = a ^ b ^ c ^ d", "md5_bits", "", "", "", False
    )
    assert cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)


@pytest.mark.gpu
def test_fragment_on_the_gpu_matches_the_reference(ctx):
    from pycuda import gpuarray
    from pycuda.elementwise import ElementwiseKernel

    n, seed = 3001, 987654321
    kernel = ElementwiseKernel(
        "unsigned int *first, unsigned int *digest, unsigned int *coords, unsigned int seed",
        md5_code
        + """
        first[i] = a;
        digest[4*i] = a; digest[4*i+1] = b; digest[4*i+2] = c; digest[4*i+3] = d;
        coords[4*i] = threadIdx.x; coords[4*i+1] = blockIdx.x;
        coords[4*i+2] = blockDim.x; coords[4*i+3] = gridDim.x""",
        "md5_check",
    )
    first = gpuarray.empty(n, np.uint32)  # the first array sets n
    digest = gpuarray.empty(4 * n, np.uint32)
    coords = gpuarray.empty(4 * n, np.uint32)
    kernel(first, digest, coords, np.uint32(seed))
    got, where = digest.get().reshape(n, 4), coords.get().reshape(n, 4)
    assert np.array_equal(first.get(), got[:, 0])
    for i in (0, 1, 77, 1500, n - 1):
        t, b, bd, gd = (int(v) for v in where[i])
        words = coordinate_words((t, 0, 0), (b, 0, 0), seed, i, n, (bd, 1, 1), (gd, 1, 1))
        assert tuple(int(w) for w in got[i]) == md5_block(words), i
