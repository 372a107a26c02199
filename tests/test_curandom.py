"""Tests of pycuda.curandom: Philox reference, kernel sources, cuRAND host calls; on a GPU,
the generators' bits, distributions, seeds and skip-ahead."""

from __future__ import annotations

import math
from typing import Any

import array_seams
import numpy as np
import pytest

from pycuda import _curand_host, _curand_split, _philox, curandom
from pycuda.compiler import compile as nvrtc_compile

ARCHS = ("sm_80", "sm_90")
needs_curand = pytest.mark.skipif(
    not _curand_host.curand_available(), reason="libcurand is not installed here"
)

# Random123's kat_vectors, the "philox4x32 10" lines: counter (4 words), key (2), output (4).
PHILOX_KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]


# ---------------------------------------------------------------------------------------------
# Host references for what rand/randn make of the Philox words


def ref_uniform(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """rand's values from its stream's words (the documented top-bit mappings)."""
    w = words.astype(np.uint64)
    if dtype == np.float32:
        return ((w >> np.uint64(8)).astype(np.float64) * 2.0**-24).astype(np.float32)
    if dtype == np.float16:
        return ((w >> np.uint64(21)).astype(np.float64) * 2.0**-11).astype(np.float16)
    if dtype == np.float64:
        hi, lo = w[0::2] >> np.uint64(5), w[1::2] >> np.uint64(6)
        return ((hi << np.uint64(26)) | lo).astype(np.float64) * 2.0**-53
    return words.view(dtype)


def ref_normal(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """randn's values: Box-Muller on pairs of uniforms, in float64."""
    w = words.astype(np.uint64)
    if dtype == np.float64:
        top = ((w[0::2] >> np.uint64(5)) << np.uint64(26)) | (w[1::2] >> np.uint64(6))
        u, v = (top[0::2] + 1) * 2.0**-53, top[1::2] * 2.0**-53
    else:
        u, v = ((w[0::2] >> np.uint64(8)) + 1) * 2.0**-24, (w[1::2] >> np.uint64(8)) * 2.0**-24
    r = np.sqrt(-2.0 * np.log(u))
    return np.stack([r * np.cos(2 * np.pi * v), r * np.sin(2 * np.pi * v)], axis=1).reshape(-1)


def words_for(count: int, dtype: np.dtype, key: tuple[int, int]) -> np.ndarray:
    """The stream's words behind ``count`` values of ``dtype`` (whole blocks of four)."""
    per_block = 2 if dtype == np.float64 else 4
    return curandom.philox_stream(key, 4 * (-(-count // per_block)))


# ---------------------------------------------------------------------------------------------
# Statistics without SciPy


def erf(x: np.ndarray) -> np.ndarray:
    """Vectorized erf, Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7)."""
    x = np.asarray(x, dtype=np.float64)
    t = 1.0 / (1.0 + 0.3275911 * np.abs(x))
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.sign(x) * (1.0 - poly * np.exp(-x * x))


def normal_cdf(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + erf(np.asarray(x, dtype=np.float64) / math.sqrt(2.0)))


def ks_statistic(sample: np.ndarray, cdf) -> float:
    """Kolmogorov-Smirnov distance between ``sample``'s empirical CDF and ``cdf``."""
    x = np.sort(np.asarray(sample, dtype=np.float64))
    n = x.size
    f = cdf(x)
    return float(max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n)))


def ks_pvalue(d: float, n: int) -> float:
    """Asymptotic Kolmogorov p-value (Stephens' small-n correction)."""
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    if lam < 0.2:
        return 1.0
    total = sum((-1) ** (j - 1) * math.exp(-2.0 * j * j * lam * lam) for j in range(1, 101))
    return float(min(1.0, max(0.0, 2.0 * total)))


def chi_square_pvalue(stat: float, df: int) -> float:
    """Upper tail of chi-square by the Wilson-Hilferty cube-root normal approximation."""
    z = ((stat / df) ** (1.0 / 3.0) - (1.0 - 2.0 / (9.0 * df))) / math.sqrt(2.0 / (9.0 * df))
    return float(0.5 * math.erfc(z / math.sqrt(2.0)))


def uniform_cdf(x: np.ndarray) -> np.ndarray:
    return np.clip(x, 0.0, 1.0)


def test_erf_approximation():
    x = np.linspace(-6, 6, 2001)
    assert np.max(np.abs(erf(x) - np.array([math.erf(v) for v in x]))) < 2e-7


def test_ks_helpers_detect_a_wrong_distribution():
    rng = np.random.default_rng(3)
    good = rng.random(20000)
    assert ks_pvalue(ks_statistic(good, uniform_cdf), good.size) > 1e-3
    bad = good**1.1
    assert ks_pvalue(ks_statistic(bad, uniform_cdf), bad.size) < 1e-6
    assert chi_square_pvalue(10.0, 10) > 0.3
    assert chi_square_pvalue(60.0, 10) < 1e-6
    z = rng.standard_normal(20000)
    assert ks_pvalue(ks_statistic(z, normal_cdf), z.size) > 1e-3


# ---------------------------------------------------------------------------------------------
# CPU: the Philox reference


@pytest.mark.parametrize("counter,key,expected", PHILOX_KAT)
def test_philox_known_answers(counter, key, expected):
    out = curandom.philox4x32_10(np.array([counter], dtype=np.uint32), key)
    assert out.dtype == np.uint32
    assert out[0].tolist() == list(expected)


def test_philox_rows_are_independent_and_vectorized():
    ctrs = np.array([k[0] for k in PHILOX_KAT], dtype=np.uint32)
    # One call per key: every row under the first row's key differs from the KAT's own key.
    together = curandom.philox4x32_10(ctrs, PHILOX_KAT[2][1])
    assert together[2].tolist() == list(PHILOX_KAT[2][2])
    assert together[0].tolist() != list(PHILOX_KAT[0][2])


def test_philox_stream_layout():
    key = (0x12345678, 0x9ABCDEF0)
    words = curandom.philox_stream(key, 10)
    assert words.shape == (10,) and words.dtype == np.uint32
    block1 = curandom.philox4x32_10(np.array([[1, 0, 0, 0]], np.uint32), key)[0]
    assert words[4:8].tolist() == block1.tolist()
    high = curandom.philox_stream(key, 4, first_block=2**32 + 5)
    ref = curandom.philox4x32_10(np.array([[5, 1, 0, 0]], np.uint32), key)[0]
    assert high.tolist() == ref.tolist()


def test_uniform_mappings_stay_below_one():
    ones = np.full(4, 0xFFFFFFFF, dtype=np.uint32)
    for dtype in (np.float16, np.float32, np.float64):
        values = ref_uniform(ones, np.dtype(dtype))
        assert np.all(values < 1) and np.all(values > 0.99)
    assert np.all(ref_uniform(np.zeros(4, np.uint32), np.dtype(np.float32)) == 0)


def test_seed_to_key():
    assert _philox._philox_key(5) == (5, 0)
    assert _philox._philox_key(2**32 + 7) == (7, 1)
    assert _philox._philox_key(-1) == (0xFFFFFFFF, 0xFFFFFFFF)
    np.random.seed(11)
    first = _philox._philox_key(None)
    np.random.seed(11)
    assert _philox._philox_key(None) == first
    assert _philox._philox_key(None) != first


@pytest.mark.parametrize("bad", ["7", 1.5, True])
def test_rand_rejects_a_seed_that_is_not_an_integer(bad):
    with pytest.raises(TypeError, match="seed"):
        curandom.rand(4, seed=bad)


@pytest.mark.parametrize("dtype", [np.int8, np.complex64, np.int64])
def test_rand_rejects_dtypes(dtype):
    with pytest.raises(ValueError, match="rand does not generate"):
        curandom.rand(4, dtype=dtype)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64])
def test_randn_rejects_integer_dtypes(dtype):
    with pytest.raises(ValueError, match="randn does not generate"):
        curandom.randn(4, dtype=dtype)


# ---------------------------------------------------------------------------------------------
# CPU: every kernel source compiles


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("distribution,dtype", sorted(_philox._PHILOX_OPS))
def test_philox_kernels_compile(arch, distribution, dtype):
    name, source = curandom.philox_kernel_source(distribution, dtype)
    cubin = nvrtc_compile(source, arch=arch, no_extern_c=True)
    assert name.encode() in cubin


@pytest.mark.parametrize("k", [1, 2, 3, 8])
@pytest.mark.parametrize("distribution,dtype", [("uniform", "float32"), ("normal", "float64")])
def test_philox_kernels_compile_for_any_trip(distribution, dtype, k):
    name, source = curandom.philox_kernel_source(distribution, dtype, blocks_per_thread=k)
    assert "fill<pycuda_philox::" in source and f", {k}>(" in source
    assert name.encode() in nvrtc_compile(source, arch="sm_90", no_extern_c=True)


def test_philox_default_trips_and_bad_ones():
    for distribution, k in _philox.BLOCKS_PER_THREAD.items():
        assert f", {k}>(" in curandom.philox_kernel_source(distribution, "float32")[1]
    with pytest.raises(ValueError, match="blocks_per_thread"):
        curandom.philox_kernel_source("uniform", "float32", blocks_per_thread=0)


@pytest.mark.parametrize(
    "n,per_block,k,blocks",
    [(1, 4, 4, 1), (4096, 4, 4, 1), (4097, 4, 4, 2), (2**26, 4, 4, 2**14), (2**26, 2, 2, 2**16),
     (3, 2, 1, 1), (2**50, 4, 1, 2**31 - 1)],
)  # fmt: skip
def test_philox_grid_covers_the_values_in_one_trip(n, per_block, k, blocks):
    assert _philox.philox_grid(n, per_block, k) == (blocks, 1)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("cls", curandom.GENERATOR_CLASSES, ids=lambda c: c.__name__)
def test_generator_kernels_compile(arch, cls):
    source = curandom.generator_source(cls._spec) + _curand_split.split_source(cls._spec)
    cubin = nvrtc_compile(source, arch=arch, no_extern_c=True)
    for name in curandom.kernel_formats(cls._spec):
        assert name.encode() in cubin, name
    for name in _curand_split.fast_kernel_formats(cls._spec):
        assert name.encode() in cubin, name


@pytest.mark.parametrize("cls", curandom.GENERATOR_CLASSES, ids=lambda c: c.__name__)
def test_generator_kernel_set(cls):
    spec = cls._spec
    formats = curandom.kernel_formats(spec)
    source = curandom.generator_source(spec)
    for name in formats:
        assert f"void {name}(" in source
    for dist in ("uniform", "normal", "log_normal"):
        for dtype in ("float32", "float64"):
            assert f"{dist}_{dtype}" in formats
            if dist != "uniform":
                assert (f"{dist}2_{dtype}" in formats) == spec.box_muller
    for dtype in ("uint32", "int32", "float32", "float64"):
        assert formats[f"poisson_{dtype}"] == "PPQd"
        assert formats[f"poisson_inplace_{dtype}"] == "PPQ"
    assert ("uniform_uint64" in formats) == (spec.bits == 64)
    assert formats["log_normal_float32"] == "PPQff"
    assert formats["skip_ahead"] == ("PiI" if spec.skip_type == "unsigned int" else "PiQ")
    assert formats["prepare"] == ("PiPPQ" if spec.scrambled else "PiPQ")
    for kind in spec.sequence_skips:
        assert formats[f"skip_ahead_{kind}"] == "PiQ"
        assert formats[f"skip_ahead_{kind}_array"] == "PiP"
        assert hasattr(cls, f"call_skip_ahead_{kind}")
        assert hasattr(cls, f"call_skip_ahead_{kind}_array")


def test_generator_classes_have_the_original_methods():
    common = [
        "fill_uniform",
        "gen_uniform",
        "fill_normal",
        "gen_normal",
        "fill_log_normal",
        "gen_log_normal",
        "fill_poisson",
        "gen_poisson",
        "call_skip_ahead",
        "call_skip_ahead_array",
    ]
    for cls in curandom.GENERATOR_CLASSES:
        for name in common:
            assert callable(getattr(cls, name)), (cls, name)
    pseudo = ["call_skip_ahead_sequence", "call_skip_ahead_sequence_array"]
    for cls in (
        curandom.XORWOWRandomNumberGenerator,
        curandom.MRG32k3aRandomNumberGenerator,
        curandom.PhiloxRandomNumberGenerator,
    ):
        for name in pseudo:
            assert callable(getattr(cls, name))
    assert [c.has_box_muller for c in curandom.GENERATOR_CLASSES] == [True] * 3 + [False] * 4
    assert callable(curandom.MRG32k3aRandomNumberGenerator.call_skip_ahead_subsequence)
    assert callable(curandom.MRG32k3aRandomNumberGenerator.call_skip_ahead_subsequence_array)


# ---------------------------------------------------------------------------------------------
# CPU: pycuda-philox.hpp's fills, compiled for the host with a small CUDA stand-in and run
# block by block, thread by thread, against the NumPy reference

HOST_CUDA_SHIM = r"""
#pragma once
#include <cmath>
#include <cstring>
#define __device__
#define __forceinline__ inline
struct uint2 { unsigned int x, y; };
struct uint4 { unsigned int x, y, z, w; };
struct float2 { float x, y; };
struct float4 { float x, y, z, w; };
struct double2 { double x, y; };
struct dim3 { unsigned int x, y, z; };
inline dim3 blockIdx, threadIdx, blockDim, gridDim;
inline uint2 make_uint2(unsigned int x, unsigned int y) { return {x, y}; }
inline uint4 make_uint4(unsigned int x, unsigned int y, unsigned int z, unsigned int w) {
    return {x, y, z, w};
}
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }
inline void sincospif(float x, float *s, float *c) {
    *s = (float)std::sin(M_PI * x), *c = (float)std::cos(M_PI * x);
}
inline void sincospi(double x, double *s, double *c) {
    *s = std::sin(M_PI * x), *c = std::cos(M_PI * x);
}
struct __half { _Float16 v; };
inline __half __float2half_rn(float f) { return {(_Float16)f}; }
inline unsigned short __half_as_ushort(__half h) {
    unsigned short u;
    std::memcpy(&u, &h, 2);
    return u;
}
"""

HOST_DRIVER = r"""
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <pycuda-philox.hpp>
using namespace pycuda_philox;

template <class Op, int K>
void run_k(typename Op::T *out, unsigned long long n, uint2 key, unsigned grid, unsigned block) {
    gridDim = {grid, 1, 1}, blockDim = {block, 1, 1};
    for (unsigned b = 0; b < grid; ++b)
        for (unsigned t = 0; t < block; ++t) {
            blockIdx = {b, 0, 0}, threadIdx = {t, 0, 0};
            fill<Op, K>(out, n, key);
        }
}

int blocks_per_thread = 1;

template <class Op> void run(unsigned long long n, uint2 key, unsigned grid, unsigned block) {
    std::vector<typename Op::T> out(n + 8);
    switch (blocks_per_thread) {
    case 1: run_k<Op, 1>(out.data(), n, key, grid, block); break;
    case 2: run_k<Op, 2>(out.data(), n, key, grid, block); break;
    case 4: run_k<Op, 4>(out.data(), n, key, grid, block); break;
    default: abort();
    }
    fwrite(out.data(), sizeof(typename Op::T), n, stdout);
}

int main(int argc, char **argv) {
    const int op = atoi(argv[1]);
    const unsigned long long n = strtoull(argv[2], 0, 10);
    const uint2 key = {(unsigned)strtoul(argv[3], 0, 10), (unsigned)strtoul(argv[4], 0, 10)};
    const unsigned grid = atoi(argv[5]), block = atoi(argv[6]);
    if (argc > 7)
        blocks_per_thread = atoi(argv[7]);
    switch (op) {
    case 0: run<RawBits>(n, key, grid, block); break;
    case 1: run<UniformHalf>(n, key, grid, block); break;
    case 2: run<UniformFloat>(n, key, grid, block); break;
    case 3: run<UniformDouble>(n, key, grid, block); break;
    case 4: run<NormalHalf>(n, key, grid, block); break;
    case 5: run<NormalFloat>(n, key, grid, block); break;
    case 6: run<NormalDouble>(n, key, grid, block); break;
    }
    return 0;
}
"""

HOST_OPS = {
    ("uniform", "uint32"): 0,
    ("uniform", "float16"): 1,
    ("uniform", "float32"): 2,
    ("uniform", "float64"): 3,
    ("normal", "float16"): 4,
    ("normal", "float32"): 5,
    ("normal", "float64"): 6,
}


@pytest.fixture(scope="module")
def host_fill(tmp_path_factory):
    """A host build of the fills: host_fill(distribution, dtype, n, key, grid, block)."""
    import os
    import shutil
    import subprocess

    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    work = tmp_path_factory.mktemp("philox_host")
    (work / "cuda_fp16.h").write_text(HOST_CUDA_SHIM)
    (work / "main.cpp").write_text(HOST_DRIVER)
    headers = os.path.join(os.path.dirname(curandom.__file__), "cuda")
    exe = work / "fill"
    cmd = [cxx, "-std=c++17", "-O1", f"-I{work}", f"-I{headers}", str(work / "main.cpp")]
    subprocess.run([*cmd, "-o", str(exe)], check=True, capture_output=True)

    def run(distribution, dtype, n, key, grid, block, blocks_per_thread=1):
        dtype = np.dtype(dtype)
        args = [str(HOST_OPS[distribution, dtype.name]), str(n), *map(str, key)]
        args += [str(grid), str(block), str(blocks_per_thread)]
        raw = subprocess.run([str(exe), *args], check=True, capture_output=True).stdout
        return np.frombuffer(raw, dtype=dtype)

    return run


@pytest.mark.parametrize("dtype", ["uint32", "float16", "float32", "float64"])
@pytest.mark.parametrize("n,grid,block", [(1, 1, 32), (7, 2, 32), (1000, 1, 64), (4099, 3, 32)])
@pytest.mark.parametrize("k", [1, 2, 4])
def test_host_build_of_uniform_fill_matches_reference(host_fill, dtype, n, grid, block, k):
    """Any grid and any number of Philox blocks per thread write the same values."""
    key = (0xDEADBEEF, 0x01234567)
    got = host_fill("uniform", dtype, n, key, grid, block, k)
    expected = ref_uniform(words_for(n, np.dtype(dtype), key), np.dtype(dtype))[:n]
    assert got.shape == (n,)
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("dtype,tol", [("float16", 2e-3), ("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("n,grid,block", [(3, 1, 32), (1001, 2, 64)])
@pytest.mark.parametrize("k", [1, 2])
def test_host_build_of_normal_fill_matches_reference(host_fill, dtype, tol, n, grid, block, k):
    key = (77, 0)
    got = host_fill("normal", dtype, n, key, grid, block, k).astype(np.float64)
    expected = ref_normal(words_for(n, np.dtype(dtype), key), np.dtype(dtype))[:n]
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_host_build_of_philox_known_answers(host_fill):
    # Block 0 under each KAT key whose counter is (0, 0, 0, 0): the first KAT line.
    got = host_fill("uniform", "uint32", 4, (0, 0), 1, 1)
    assert got.tolist() == list(PHILOX_KAT[0][2])


# ---------------------------------------------------------------------------------------------
# CPU: the Python side of every launch, against a recording stand-in for the driver


class FakeFunction:
    """Records launches and checks their arguments against the prepared format."""

    def __init__(self, name, log):
        self.name, self.log, self.fmt = name, log, None

    def prepare(self, fmt):
        self.fmt = fmt
        return self

    def get_attribute(self, attr):
        return 256

    def max_active_blocks_per_multiprocessor(self, block_size, dynamic_smem=0):
        return 8

    def __call__(self, *args, block, grid):
        self.log.append((self.name, None, None, args))

    def prepared_call(self, grid, block, *args):
        self._check(args)
        self.log.append((self.name, grid, block, args))

    def prepared_async_call(self, grid, block, stream, *args):
        assert stream == "stream"
        self.prepared_call(grid, block, *args)

    def _check(self, args):
        assert self.fmt is not None, f"{self.name} launched unprepared"
        assert len(args) == len(self.fmt), (self.name, self.fmt, args)
        for code, arg in zip(self.fmt, args, strict=True):
            if code == "P":
                assert isinstance(arg, int) and arg % 256 == 0, (self.name, arg)
            elif code in "iIQ":
                assert isinstance(arg, (int, np.integer)), (self.name, code, arg)
                info = np.iinfo({"i": np.int32, "I": np.uint32, "Q": np.uint64}[code])
                assert info.min <= int(arg) <= info.max
            else:
                assert isinstance(arg, (float, np.floating)), (self.name, code, arg)


class FakeArray:
    _next = [1 << 20]

    def __init__(self, shape, dtype):
        self.shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.dtype = np.dtype(dtype)
        self.size = int(np.prod(self.shape))
        self.gpudata = FakeArray._next[0]
        FakeArray._next[0] += 256 * (1 + self.size * self.dtype.itemsize // 256)
        self.flags = type("Flags", (), {"c_contiguous": True, "f_contiguous": True})()


@pytest.fixture
def fake_driver(monkeypatch):

    import pycuda
    import pycuda.compiler

    log = []

    class FakeModule:
        def __init__(self, source, no_extern_c=False, **kw):
            assert no_extern_c
            self.source = source

        def get_function(self, name):
            assert f"void {name}(" in self.source or f"\n{name}(" in self.source, name
            return FakeFunction(name, log)

    # New arrays are GPUArrays over fake addresses (256-byte aligned, as the pool's).
    array_seams.replace(monkeypatch, allocate=lambda n: FakeArray(n, np.uint8).gpudata)
    monkeypatch.setattr(pycuda.compiler, "SourceModule", FakeModule)
    monkeypatch.setattr(curandom, "_multiprocessor_count", lambda: 3)
    monkeypatch.setattr(curandom, "_resident_threads", lambda: 384)
    monkeypatch.setattr(
        _philox,
        "_philox_function",
        lambda d, t: (
            FakeModule(curandom.philox_kernel_source(d, t)[1], True)
            .get_function(curandom.philox_kernel_source(d, t)[0])
            .prepare("PQII")
        ),
    )
    monkeypatch.setattr(curandom.drv, "mem_alloc", lambda n: FakeArray(n, np.uint8).gpudata)
    monkeypatch.setattr(curandom.drv, "memcpy_htod", lambda dst, src: None)

    def dtoh(dst, src):
        dst[...] = 48

    monkeypatch.setattr(curandom.drv, "memcpy_dtoh", dtoh)
    return log


def test_rand_launches(fake_driver):
    a = curandom.rand((1000, 3), np.float64, seed=2**40 + 9)
    assert a.shape == (1000, 3) and a.dtype == np.float64
    name, grid, block, args = fake_driver[-1]
    assert name == "pycuda_philox_uniform_float64" and block == (256, 1, 1)
    assert grid == (2, 1)  # 1500 pairs of doubles, 4 per thread, in 256-thread blocks
    assert args[1:] == (3000, 9, 2**8)
    curandom.randn(2**30, stream="stream")
    name, grid, block, args = fake_driver[-1]
    # One trip per thread: 2**28 Philox blocks, 2 per thread, 256 threads per block.
    assert name == "pycuda_philox_normal_float32" and grid == (2**19, 1)
    n_launches = len(fake_driver)
    assert curandom.rand((0, 5)).size == 0
    assert len(fake_driver) == n_launches


@pytest.mark.parametrize("cls", curandom.GENERATOR_CLASSES, ids=lambda c: c.__name__)
def test_generator_launches(fake_driver, cls):
    if cls._spec.quasi and not _curand_host.curand_available():
        pytest.skip("the Sobol defaults need libcurand")
    gen = cls()
    assert gen.block_count == 3 and gen.generators_per_block == 256
    assert gen.generator_count == 768
    assert fake_driver[-1][0] == "prepare" and fake_driver[-1][3][1] == 768
    launched = lambda: fake_driver[-1][0]  # noqa: E731

    for dtype in ("float32", "float64", "uint32", "int32"):
        gen.gen_uniform((10,), dtype, stream="stream")
        assert launched() == f"uniform_{dtype.replace('int32', 'uint32').replace('uu', 'u')}"
    if cls._spec.bits == 64:
        gen.gen_uniform((10,), np.int64)
        assert launched() == "uniform_uint64"
    for dtype in ("float32", "float64"):
        pair = "2" if cls._spec.box_muller else ""
        gen.gen_normal((10,), dtype)
        assert launched() == f"normal{pair}_{dtype}" and fake_driver[-1][3][2] == (
            5 if pair else 10
        )
        gen.gen_normal((11,), dtype)
        assert launched() == f"normal_{dtype}"
        gen.gen_log_normal((10,), dtype, 1.0, 0.5)
        assert launched() == f"log_normal{pair}_{dtype}"
        gen.gen_log_normal((9,), dtype, 1.0, 0.5, stream="stream")
        assert launched() == f"log_normal_{dtype}"
    for dtype in ("uint32", "int32", "float32", "float64"):
        data = gen.gen_poisson((10,), dtype, 3.5)
        assert launched() == f"poisson_{dtype}" and fake_driver[-1][3][3] == 3.5
        gen.fill_poisson(data)
        assert launched() == f"poisson_inplace_{dtype}"
    count = len(fake_driver)
    gen.gen_normal((0,), np.float32)
    assert len(fake_driver) == count  # nothing to fill, nothing launched

    gen.call_skip_ahead(7)
    # The original's defect: it advanced generators_per_block states, block 0's only.
    assert launched() == "skip_ahead" and fake_driver[-1][3][1:] == (768, 7)
    gen.call_skip_ahead_array(FakeArray(768, cls._spec.skip_dtype))
    assert launched() == "skip_ahead_array" and fake_driver[-1][3][1] == 768
    for kind in cls._spec.sequence_skips:
        getattr(gen, f"call_skip_ahead_{kind}")(2**40, stream="stream")
        assert launched() == f"skip_ahead_{kind}" and fake_driver[-1][3][1:] == (768, 2**40)
        getattr(gen, f"call_skip_ahead_{kind}_array")(FakeArray(800, np.uint64))
        assert launched() == f"skip_ahead_{kind}_array"


@pytest.mark.parametrize("cls", curandom.GENERATOR_CLASSES, ids=lambda c: c.__name__)
def test_large_fills_take_the_fast_kernels(fake_driver, monkeypatch, cls):
    if cls._spec.quasi and not _curand_host.curand_available():
        pytest.skip("the Sobol defaults need libcurand")
    monkeypatch.setattr(curandom, "_SPLIT_MIN_ITEMS", 4)
    gen = cls()
    state = gen.state
    gen.gen_uniform((3,), np.float32)  # under 4 a state: the original's kernel
    assert fake_driver[-1][0] == "uniform_float32" and fake_driver[-1][1] == (3, 1)
    count = len(fake_driver)
    data = gen.gen_uniform((768 * 10,), np.float32, stream="stream")
    name, grid, block, args = fake_driver[-1]
    kind = _curand_split.fast_fills(cls._spec)
    if not kind:  # XORWOW and MRG32k3a keep the original's kernels
        assert len(fake_driver) == count + 1 and name == "uniform_float32"
        gen.gen_normal((768 * 10,), np.float32)
        assert fake_driver[-1][0] == "normal2_float32"
        return
    assert block == (256, 1, 1)
    if kind == "wide":  # Philox: a thread a state, four numbers a call
        assert len(fake_driver) == count + 1 and name == "uniform_float32_wide"
        assert grid == (3, 1) and args == (state, data.gpudata, 7680, 768)
        gen.gen_log_normal((768 * 8,), np.float32, 1.0, 0.5)
        assert fake_driver[-1][0] == "log_normal2_float32_wide"
        assert fake_driver[-1][3][-2:] == (1.0, 0.5)
        gen.gen_normal((768 * 8 + 1,), np.float32)  # one number a call: the original's
        assert fake_driver[-1][0] == "normal_float32"
        return
    # Sobol: 768 states on a device of 384 resident threads. 4-byte numbers at an 8-byte
    # aligned address: two adjacent states a thread (the packed kernels); 8 waves ask 4 parts:
    # parts of 4 numbers (10 / 4, up to a multiple of 2), 3 of them, 384 * 3 threads. The
    # starts come first, on the same stream, in the buffer that the kernel reads.
    assert len(fake_driver) == count + 2 and name == "uniform_float32_packed"
    starts, starts_grid, _, starts_args = fake_driver[-2]
    assert starts == "starts" and starts_grid == (9, 1) and grid == (5, 1)
    assert starts_args[0] == state and starts_args[2:] == (7680, 768, 4)
    assert args == (starts_args[1], state, data.gpudata, 7680, 768, 4)
    # 8-byte numbers: one state a thread (the split kernels); 16 waves ask 8 parts of 2
    # numbers, 5 of them. (The packed kernels' other condition, an address 8-byte aligned, is
    # met by every block of this fake; the GPU test covers one that is not.)
    data = gen.gen_uniform((768 * 10,), np.float64)
    assert fake_driver[-1][0] == "uniform_float64_split" and fake_driver[-1][1] == (15, 1)
    assert fake_driver[-1][3] == (fake_driver[-2][3][1], state, data.gpudata, 7680, 768, 2)
    gen.gen_uniform((768 * 100 + 1,), np.float64)  # 101 a state: parts of 14 (12.6 up), 8
    assert fake_driver[-1][1] == (24, 1) and fake_driver[-1][3][-1] == 14
    gen.gen_log_normal((768 * 8,), np.float64, 1.0, 0.5)
    assert fake_driver[-1][0] == "log_normal_float64_split"
    assert fake_driver[-1][3][-2:] == (1.0, 0.5)
    gen.gen_poisson((768 * 8,), np.uint32, 2.0)
    assert fake_driver[-1][0] == "poisson_uint32_split" and fake_driver[-1][3][-1] == 2.0


def test_generator_argument_errors(fake_driver):
    gen = curandom.PhiloxRandomNumberGenerator(offset=5)
    assert fake_driver[-1][3][3] == 5
    with pytest.raises(TypeError, match="fill_uniform does not fill int8"):
        gen.gen_uniform((4,), np.int8)
    with pytest.raises(TypeError, match="fill_uniform does not fill uint64"):
        gen.gen_uniform((4,), np.uint64)
    with pytest.raises(TypeError, match="float32 or float64"):
        gen.gen_log_normal((4,), np.int32, 0.0, 1.0)
    with pytest.raises(TypeError, match="fill_poisson does not fill"):
        gen.gen_poisson((4,), np.int16, 1.0)
    with pytest.raises(ValueError, match="positive"):
        gen.gen_poisson((4,), np.uint32, -1.0)
    with pytest.raises(ValueError, match="0 <= i"):
        gen.call_skip_ahead(2**64)
    with pytest.raises(TypeError, match="integer"):
        gen.call_skip_ahead_sequence("3")
    with pytest.raises(TypeError, match="dtype uint64 or int64"):
        gen.call_skip_ahead_array(FakeArray(768, np.uint32))
    with pytest.raises(ValueError, match="at least 768"):
        gen.call_skip_ahead_sequence_array(FakeArray(767, np.uint64))
    with pytest.raises(TypeError, match="GPUArray"):
        gen.call_skip_ahead_array(np.zeros(768, np.uint64))
    with pytest.raises(TypeError, match="seed_getter"):
        curandom.XORWOWRandomNumberGenerator(seed_getter=lambda n: FakeArray(n, np.float32))
    with pytest.raises(ValueError, match="at least 768"):
        curandom.MRG32k3aRandomNumberGenerator(seed_getter=lambda n: FakeArray(3, np.int32))
    with pytest.raises(ValueError, match="offset"):
        curandom.XORWOWRandomNumberGenerator(offset=-1)


@needs_curand
def test_sobol_argument_errors(fake_driver):
    gen = curandom.Sobol32RandomNumberGenerator(offset=2**32 - 1)
    with pytest.raises(ValueError, match="0 <= i <= 4294967295"):
        gen.call_skip_ahead(2**32)
    with pytest.raises(TypeError, match="dtype uint32 or int32"):
        gen.call_skip_ahead_array(FakeArray(768, np.uint64))
    with pytest.raises(ValueError, match="offset"):
        curandom.Sobol32RandomNumberGenerator(offset=2**32)
    with pytest.raises(ValueError, match="dir_vector needs at least"):
        curandom.Sobol64RandomNumberGenerator(dir_vector=FakeArray((768, 32), np.int64))
    with pytest.raises(TypeError, match="scramble_vector"):
        curandom.ScrambledSobol32RandomNumberGenerator(scramble_vector=FakeArray(768, np.float32))
    scrambled = curandom.ScrambledSobol64RandomNumberGenerator(
        FakeArray((768, 64), np.uint64), FakeArray(768, np.uint64), offset=2**63
    )
    assert fake_driver[-1][0] == "prepare" and len(fake_driver[-1][3]) == 5
    assert scrambled.generator_count == 768


# ---------------------------------------------------------------------------------------------
# CPU: the cuRAND host library


@needs_curand
def test_curand_version():
    version = curandom.get_curand_version()
    assert isinstance(version, tuple) and len(version) == 3
    assert version[0] >= 10


@needs_curand
@pytest.mark.parametrize("bits,direction", [(32, 101), (32, 102), (64, 103), (64, 104)])
def test_direction_tables(bits, direction):
    table = curandom.direction_table(curandom.direction_vector_set(direction))
    assert table.shape == (20000, bits)
    assert table.dtype == (np.uint32 if bits == 32 else np.uint64)
    if direction in (101, 103):
        # Dimension 0 is van der Corput's: direction number j is 2**(bits - 1 - j).
        expected = [1 << (bits - 1 - j) for j in range(bits)]
        assert [int(v) for v in table[0]] == expected
    assert len({tuple(row) for row in table[:100]}) == 100


@needs_curand
@pytest.mark.parametrize("bits", [32, 64])
def test_scramble_tables(bits):
    table = curandom.scramble_table(bits)
    assert table.shape == (20000,)
    assert table.dtype == (np.uint32 if bits == 32 else np.uint64)
    assert np.unique(table).size > 19000


def test_cycled_repeats_past_the_table():
    table = np.arange(6).reshape(3, 2)
    assert curandom.cycled(table, 7)[:, 0].tolist() == [0, 2, 4, 0, 2, 4, 0]
    assert curandom.cycled(table, 0).shape == (0, 2)


def test_missing_libcurand_is_explained(monkeypatch):
    # As core answers where its search finds no libcurand.
    monkeypatch.setattr(_curand_host._driver, "curand_available", lambda: False)
    assert curandom.get_curand_version() is None
    with pytest.raises(curandom.CurandLibraryError, match="libcurand was not found"):
        curandom.generate_scramble_constants32(4)
    with pytest.raises(curandom.CurandLibraryError, match="CUDA_HOME"):
        curandom.generate_direction_vectors(4)


def test_direction_vector_set_values():
    dvs = curandom.direction_vector_set
    assert [dvs.VECTOR_32, dvs.SCRAMBLED_VECTOR_32, dvs.VECTOR_64, dvs.SCRAMBLED_VECTOR_64] == [
        101,
        102,
        103,
        104,
    ]


def test_unique_seeds_are_distinct_and_repeatable():
    np.random.seed(4)
    a = curandom._unique_seeds(50000)
    assert np.unique(a).size == 50000 and a.dtype == np.int32 and a.min() >= 0
    np.random.seed(4)
    assert np.array_equal(curandom._unique_seeds(50000), a)


# ---------------------------------------------------------------------------------------------
# GPU: rand and randn against the host reference

gpu = pytest.mark.gpu
SIZES = [1, 3, 4, 1001, 2**20 + 3]


@gpu
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float16, np.float32, np.float64])
@pytest.mark.parametrize("n", SIZES)
def test_rand_bits_match_the_reference(ctx, dtype, n):
    dtype = np.dtype(dtype)
    seed = 0x0123456789ABCDEF
    got = curandom.rand((n,), dtype, seed=seed).get()
    key = _philox._philox_key(seed)
    expected = ref_uniform(words_for(n, dtype, key), dtype)[:n]
    assert got.dtype == dtype
    assert np.array_equal(got.view(f"u{dtype.itemsize}"), expected.view(f"u{dtype.itemsize}"))


@gpu
@pytest.mark.parametrize(
    "dtype,rtol,atol",
    [(np.float32, 2e-5, 2e-5), (np.float64, 1e-12, 1e-12), (np.float16, 2e-3, 2e-3)],
)
@pytest.mark.parametrize("n", SIZES)
def test_randn_matches_box_muller_reference(ctx, dtype, rtol, atol, n):
    dtype = np.dtype(dtype)
    got = curandom.randn(n, dtype, seed=77).get()
    expected = ref_normal(words_for(n, dtype, _philox._philox_key(77)), dtype)[:n]
    assert got.dtype == dtype
    np.testing.assert_allclose(got.astype(np.float64), expected, rtol=rtol, atol=atol)


@gpu
@pytest.mark.parametrize("k", [1, 2, 4, 8])
@pytest.mark.parametrize("dtype", [np.uint32, np.float64])
def test_fill_trips_and_grids_write_the_same_values(ctx, k, dtype):
    """Each number of blocks per thread, on its own grid and on grids that must stride."""
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule

    dtype = np.dtype(dtype)
    n, key = 3 * 2**16 + 5, (12345, 678)
    name, source = _philox.philox_kernel_source("uniform", dtype, blocks_per_thread=k)
    func = SourceModule(source, no_extern_c=True).get_function(name).prepare("PQII")
    expected = ref_uniform(words_for(n, dtype, key), dtype)[:n].view(f"u{dtype.itemsize}")
    per_block = 2 if dtype == np.float64 else 4
    for grid in (_philox.philox_grid(n, per_block, k), (1, 1), (7, 1)):
        out = gpuarray.empty(n, dtype)
        func.prepared_call(grid, (256, 1, 1), out.gpudata, np.uint64(n), *map(np.uint32, key))
        assert np.array_equal(out.get().view(f"u{dtype.itemsize}"), expected), grid


@gpu
def test_rand_shapes_streams_and_empty(ctx):
    import pycuda.driver as drv

    a = curandom.rand((3, 5, 7))
    assert a.shape == (3, 5, 7) and a.dtype == np.float32
    stream = drv.Stream()
    b = curandom.rand((3, 5, 7), stream=stream, seed=9)
    stream.synchronize()
    assert np.array_equal(b.get(), curandom.rand((3, 5, 7), seed=9).get())
    assert curandom.rand((0,)).size == 0
    assert curandom.randn((2, 0)).shape == (2, 0)


@gpu
def test_rand_seeds(ctx):
    a = curandom.rand(10000, seed=5).get()
    assert np.array_equal(a, curandom.rand(10000, seed=5).get())
    assert not np.array_equal(a, curandom.rand(10000, seed=6).get())
    np.random.seed(123)
    b = curandom.randn(10000).get()
    np.random.seed(123)
    assert np.array_equal(b, curandom.randn(10000).get())
    assert not np.array_equal(b, curandom.randn(10000).get())


@gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_rand_distribution(ctx, dtype):
    x = curandom.rand(2**20, dtype, seed=2024).get().astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    assert abs(x.mean() - 0.5) < 5 * math.sqrt(1 / 12 / x.size)
    assert abs(x.var() - 1 / 12) < 2e-3
    if dtype != np.float16:  # halfs are a grid of 2**-11: KS sees the steps
        assert ks_pvalue(ks_statistic(x, uniform_cdf), x.size) > 1e-4


@gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_randn_distribution(ctx, dtype):
    z = curandom.randn(2**20, dtype, seed=99).get().astype(np.float64)
    assert abs(z.mean()) < 5 / math.sqrt(z.size)
    assert abs(z.var() - 1) < 1e-2
    if dtype != np.float16:
        assert ks_pvalue(ks_statistic(z, normal_cdf), z.size) > 1e-4


# ---------------------------------------------------------------------------------------------
# GPU: the generator classes

PSEUDO = (
    curandom.XORWOWRandomNumberGenerator,
    curandom.MRG32k3aRandomNumberGenerator,
    curandom.PhiloxRandomNumberGenerator,
)
QUASI = tuple(c for c in curandom.GENERATOR_CLASSES if c not in PSEUDO)
ALL = curandom.GENERATOR_CLASSES
ids = [c.__name__ for c in ALL]


def fixed_seeds(value: int | None = None):
    """A seed_getter: the same seeds every time (all ``value``, or 0, 1, 2, ...)."""

    def getter(n):
        host = np.full(n, value, np.int32) if value is not None else np.arange(n, dtype=np.int32)
        return curandom._to_gpu(host)

    return getter


def make(cls, **kw):
    if cls in PSEUDO:
        kw.setdefault("seed_getter", fixed_seeds())
    return cls(**kw)


DRAWS = 32  # per generator in the distribution tests


def check_sample(cls, sample: np.ndarray, cdf, moments: tuple[float, float] | None) -> None:
    """Pseudo generators: KS p-value and moments. Sobol: the first 2**m points of each
    dimension form a net (one point in each interval of 1/2**m), so the KS distance is at
    most 1/DRAWS; moments are not checked (the point 0 of each dimension weighs 1/DRAWS)."""
    d = ks_statistic(sample, cdf)
    if cls in QUASI:
        assert d <= 1.0 / DRAWS + 2e-3, d
        return
    assert ks_pvalue(d, sample.size) > 1e-4, d
    if moments is not None:
        mean, var = moments
        assert abs(sample.mean() - mean) < 5 * math.sqrt(var / sample.size) + 1e-6
        assert abs(sample.var() / var - 1) < 1e-2


@gpu
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_attributes(ctx, cls):
    import pycuda.driver as drv

    gen = make(cls)
    sms = drv.Context.get_device().get_attribute(int(drv.device_attribute.MULTIPROCESSOR_COUNT))
    assert gen.block_count == sms
    assert 32 <= gen.generators_per_block <= 1024
    assert gen.generator_count == gen.block_count * gen.generators_per_block
    assert gen.has_box_muller == (cls in PSEUDO)
    assert "uniform_float32" in gen.generators and gen.module is not None
    assert int(gen.state) != 0
    # The original's other attributes: the fill kernels by name (those of the class's tables),
    # the prepared skip-ahead kernels, the state type and the generator's word width.
    tables = cls.gen_info + cls.gen_log_info + cls.gen_poisson_info + cls.gen_poisson_inplace_info
    assert {name for name, *_ in tables} <= set(gen.generators)
    assert gen.skip_ahead.arg_format in ("PiI", "PiQ") and gen.skip_ahead_array.arg_format == "PiP"
    for kind in cls._spec.sequence_skips:
        assert getattr(gen, f"skip_ahead_{kind}").arg_format == "PiQ"
    assert gen.state_type == cls._spec.state and gen.generator_bits == cls._spec.bits
    assert all(f.max_threads_per_block >= gen.generators_per_block for f in gen.generators.values())


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_uniform(ctx, cls, dtype):
    gen = make(cls)
    x = gen.gen_uniform((gen.generator_count * DRAWS,), dtype).get()
    assert x.dtype == dtype
    x = x.astype(np.float64)
    assert x.min() > 0 and x.max() <= 1  # curand_uniform: (0, 1]
    check_sample(cls, x, uniform_cdf, (0.5, 1 / 12))


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("odd", [False, True])
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_normal(ctx, cls, dtype, odd):
    gen = make(cls)
    n = gen.generator_count * DRAWS + (1 if odd else 0)  # odd: the one-at-a-time kernels
    z = gen.gen_normal((n,), dtype).get()
    assert z.dtype == dtype and np.all(np.isfinite(z))
    check_sample(cls, z[: n - odd].astype(np.float64), normal_cdf, (0.0, 1.0))


@gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_log_normal(ctx, cls, dtype):
    gen = make(cls)
    mu, sigma = 0.5, 0.25
    x = gen.gen_log_normal((gen.generator_count * DRAWS,), dtype, mu, sigma).get()
    assert x.dtype == dtype
    x = x.astype(np.float64)
    assert x.min() > 0
    mean = math.exp(mu + sigma**2 / 2)
    var = (math.exp(sigma**2) - 1) * math.exp(2 * mu + sigma**2)
    check_sample(cls, x, lambda v: normal_cdf((np.log(v) - mu) / sigma), (mean, var))


def poisson_pmf(lam: float, kmax: int) -> np.ndarray:
    k = np.arange(kmax + 1)
    logs = k * math.log(lam) - lam - np.array([math.lgamma(i + 1) for i in k])
    return np.exp(logs)


@gpu
@pytest.mark.parametrize("lam", [0.7, 4.0, 30.0, 1000.0])
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_poisson(ctx, cls, lam):
    gen = make(cls)
    k = gen.gen_poisson((gen.generator_count * DRAWS,), np.uint32, lam).get()
    assert k.dtype == np.uint32
    k = k.astype(np.float64)
    if cls in QUASI:
        # Each generator's DRAWS points are stratified in [0, 1), so the draws' distribution
        # function is Poisson's to within 1/DRAWS at every k; moments are not (the first Sobol
        # point, near 0, maps to a far tail). Past lambda 64 cuRAND rounds a normal draw.
        kmax = int(k.max())
        cdf = np.cumsum(poisson_pmf(lam, kmax))
        ecdf = np.searchsorted(np.sort(k), np.arange(kmax + 1), side="right") / k.size
        assert np.abs(ecdf - cdf).max() < 1.0 / DRAWS + (0.02 if lam >= 64 else 0.005)
        return
    if lam >= 64:  # cuRAND approximates here (gamma-based, or normal past 4000)
        assert abs(k.mean() / lam - 1) < 2e-3 and abs(k.var() / lam - 1) < 3e-2
        return
    assert abs(k.mean() - lam) < 5 * math.sqrt(lam / k.size)
    assert abs(k.var() / lam - 1) < 2e-2
    if lam <= 30:  # chi-square over the bins that expect at least 20 counts
        kmax = int(lam + 10 * math.sqrt(lam) + 10)
        expected = poisson_pmf(lam, kmax) * k.size
        observed = np.bincount(k.astype(np.int64), minlength=kmax + 1)[: kmax + 1]
        keep = expected >= 20
        stat = float(np.sum((observed[keep] - expected[keep]) ** 2 / expected[keep]))
        assert chi_square_pvalue(stat, int(keep.sum()) - 1) > 1e-4


@gpu
@pytest.mark.parametrize("dtype", [np.uint32, np.int32, np.float32, np.float64])
def test_poisson_dtypes_and_in_place(ctx, dtype):
    gen = make(curandom.XORWOWRandomNumberGenerator)
    n = gen.generator_count * 4
    k = gen.gen_poisson((n,), dtype, 6.0).get().astype(np.float64)
    assert abs(k.mean() / 6 - 1) < 2e-2 and np.all(k == np.round(k))
    lam = np.where(np.arange(n) % 2 == 0, 2.0, 50.0).astype(dtype)
    data = curandom._to_gpu(lam)
    gen.fill_poisson(data)  # in place: each element its own mean
    out = data.get().astype(np.float64)
    assert abs(out[0::2].mean() / 2 - 1) < 3e-2 and abs(out[1::2].mean() / 50 - 1) < 1e-2


@gpu
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_generator_integers(ctx, cls):
    gen = make(cls)
    n = gen.generator_count * DRAWS
    dtypes = [np.uint32, np.int32] + ([np.uint64, np.int64] if cls._spec.bits == 64 else [])
    for dtype in dtypes:
        x = gen.gen_uniform((n,), dtype).get()
        assert x.dtype == dtype
        u = x.view(np.dtype(dtype).str.replace("i", "u")).astype(np.float64)
        u /= 2.0 ** (8 * np.dtype(dtype).itemsize)
        # Sobol dimensions repeat every 20000 generators, and start at 0.
        tol = 1e-2 if cls in PSEUDO else 1.0 / DRAWS + 1e-3
        assert abs(u.mean() - 0.5) < tol
        # A quasi-random dimension's first DRAWS points are the multiples of 1/DRAWS (seen on
        # an H200): all dimensions share those values. Pseudo-random draws are nearly all distinct.
        assert np.unique(x).size >= (n // 10 if cls in PSEUDO else DRAWS)
    with pytest.raises(TypeError, match="fill_uniform does not fill"):
        gen.gen_uniform((4,), np.int8)
    if cls._spec.bits == 32:
        with pytest.raises(TypeError):
            gen.gen_uniform((4,), np.uint64)


@gpu
@pytest.mark.parametrize("cls", PSEUDO, ids=[c.__name__ for c in PSEUDO])
def test_generator_seeds(ctx, cls):
    def first(gen):
        return gen.gen_uniform((gen.generator_count * 2,), np.uint32).get()

    np.random.seed(31)
    a = first(cls())
    np.random.seed(31)
    assert np.array_equal(a, first(cls()))
    assert not np.array_equal(a, first(cls()))
    np.random.seed(8)
    b = first(cls(seed_getter=curandom.seed_getter_uniform))
    np.random.seed(8)
    assert np.array_equal(b, first(cls(seed_getter=curandom.seed_getter_uniform)))
    assert not np.array_equal(first(cls(fixed_seeds(1))), first(cls(fixed_seeds(2))))


@gpu
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_skip_ahead_equals_generating_and_discarding(ctx, cls):
    gen = make(cls)
    g, k = gen.generator_count, 5
    stream = gen.gen_uniform((g * (k + 2),), np.uint32).get()
    skipped = make(cls)
    skipped.call_skip_ahead(k)
    # Every generator advanced (the original advanced block 0's only).
    assert np.array_equal(skipped.gen_uniform((g * 2,), np.uint32).get(), stream[g * k :])
    with_offset = make(cls, offset=k)
    assert np.array_equal(
        with_offset.gen_uniform((g,), np.uint32).get(), stream[g * k : g * (k + 1)]
    )


@gpu
@pytest.mark.parametrize("cls", ALL, ids=ids)
def test_skip_ahead_array(ctx, cls):
    gen = make(cls)
    g = gen.generator_count
    stream = gen.gen_uniform((g * 6,), np.uint32).get().reshape(6, g)
    skips = (np.arange(g) % 5).astype(cls._spec.skip_dtype)
    skipped = make(cls)
    skipped.call_skip_ahead_array(curandom._to_gpu(skips))
    got = skipped.gen_uniform((g,), np.uint32).get()
    assert np.array_equal(got, stream[skips.astype(np.int64), np.arange(g)])


@gpu
@pytest.mark.parametrize("cls", PSEUDO, ids=[c.__name__ for c in PSEUDO])
def test_skip_ahead_subsequences(ctx, cls):
    # With one seed for all, generator k starts at subsequence k: skipping one subsequence
    # makes generator k draw what generator k + 1 draws.
    kind = "subsequence" if cls is curandom.MRG32k3aRandomNumberGenerator else "sequence"
    base = cls(seed_getter=fixed_seeds(42))
    g = base.generator_count
    reference = base.gen_uniform((g,), np.uint32).get()
    gen = cls(seed_getter=fixed_seeds(42))
    getattr(gen, f"call_skip_ahead_{kind}")(1)
    assert np.array_equal(gen.gen_uniform((g,), np.uint32).get()[:-1], reference[1:])
    every_other = (np.arange(g) % 2).astype(np.uint64)
    gen = cls(seed_getter=fixed_seeds(42))
    getattr(gen, f"call_skip_ahead_{kind}_array")(curandom._to_gpu(every_other))
    got = gen.gen_uniform((g,), np.uint32).get()
    assert np.array_equal(got[0:-1:2], reference[0:-1:2])
    assert np.array_equal(got[1:-1:2], reference[2::2])


def _split_cases(cls, g: int) -> list[tuple[str, Any, int, tuple]]:
    """(fill, dtype, count, parameters) for ``g`` states, about 37 numbers a state, in an order
    that leaves a cached Box-Muller number (odd counts) in some states before the next fill."""
    odd = 37 * g + 11 + (37 * g + 11 + 1) % 2
    cases: list[tuple[str, Any, int, tuple]] = []
    for dtype in (np.float32, np.float64):
        cases += [("normal", dtype, odd, ()), ("normal", dtype, odd + 2, ()),
                  ("log_normal", dtype, odd, (0.5, 0.25)), ("log_normal", dtype, odd, (0.5, 0.25)),
                  ("normal", dtype, odd + 1, ()), ("log_normal", dtype, odd + 3, (-1.0, 2.0)),
                  ("uniform", dtype, odd, ())]  # fmt: skip
    ints = [np.uint32, np.int32] + ([np.uint64] if cls._spec.bits == 64 else [])
    cases += [("uniform", dtype, odd, ()) for dtype in ints]
    cases += [("poisson", np.uint32, odd, (4.0,)), ("poisson", np.float64, odd, (2000.0,)),
              ("poisson", np.float32, odd, (None,))]  # fmt: skip
    return cases


FAST = [c for c in ALL if _curand_split.fast_fills(c._spec)]


@gpu
@pytest.mark.parametrize("parts", [None, 3])
@pytest.mark.parametrize("cls", FAST, ids=[c.__name__ for c in FAST])
def test_fast_fills_write_what_one_thread_a_state_writes(ctx, cls, parts, monkeypatch):
    import pycuda.driver as drv

    gen = make(cls)
    if parts is not None:  # the class's own split, and a split of three parts
        gen._parts = parts
    g = gen.generator_count
    state = np.empty(g * gen._state_size(), np.uint8)

    def run(fill, dtype, count, params, split, offset):
        monkeypatch.setattr(curandom, "_SPLIT_MIN_ITEMS", 2 if split else 2**62)
        # 3: the in-place Poisson's mean. An offset of one element: 4-byte numbers not 8-byte
        # aligned, which the Sobol classes draw a state a thread (not two).
        data = curandom._to_gpu(np.full(count + offset, 3, dtype))[offset:]
        getattr(gen, f"fill_{fill}")(data, *params)
        # What the states draw next, one thread a state: equal states draw equal numbers.
        monkeypatch.setattr(curandom, "_SPLIT_MIN_ITEMS", 2**62)
        probe = [gen.gen_normal((g * 3 + 1,), np.float32).get(),
                 gen.gen_log_normal((g + 1,), np.float64, 0.0, 1.0).get(),
                 gen.gen_uniform((2 * g + 5,), np.uint32).get()]  # fmt: skip
        return data.get(), probe

    unaligned = [("uniform", np.float32, 5 * g + 3, (), 1), ("poisson", np.int32, 5 * g, (3.0,), 1)]
    for fill, dtype, count, params, offset in [(*c, 0) for c in _split_cases(cls, g)] + unaligned:
        drv.memcpy_dtoh(state, gen.state)
        split = run(fill, dtype, count, params, True, offset)
        drv.memcpy_htod(gen.state, state)
        one = run(fill, dtype, count, params, False, offset)
        what = (fill, np.dtype(dtype).name, count, params, offset)
        assert split[0].tobytes() == one[0].tobytes(), what
        for a, b in zip(split[1], one[1], strict=True):
            assert a.tobytes() == b.tobytes(), what


@gpu
def test_generator_errors(ctx):
    gen = make(curandom.PhiloxRandomNumberGenerator)
    with pytest.raises(ValueError, match="0 <= i"):
        gen.call_skip_ahead(-1)
    with pytest.raises(TypeError, match="integer"):
        gen.call_skip_ahead(1.5)
    with pytest.raises(TypeError, match="dtype"):
        gen.call_skip_ahead_array(curandom._to_gpu(np.zeros(gen.generator_count, np.float32)))
    with pytest.raises(ValueError, match="at least"):
        gen.call_skip_ahead_array(curandom._to_gpu(np.zeros(3, np.uint64)))
    with pytest.raises(TypeError, match="float32 or float64"):
        gen.gen_normal((4,), np.int32)
    with pytest.raises(ValueError, match="positive"):
        gen.gen_poisson((4,), np.uint32, 0.0)
    with pytest.raises(TypeError, match="seed_getter"):
        curandom.XORWOWRandomNumberGenerator(seed_getter=fixed_float_seeds)
    sobol = curandom.Sobol32RandomNumberGenerator()
    with pytest.raises(ValueError, match="0 <= i"):
        sobol.call_skip_ahead(2**32)


def fixed_float_seeds(n):
    return curandom._to_gpu(np.zeros(n, np.float32))


@gpu
def test_direction_vectors_and_scramble_constants_on_the_gpu(ctx):
    v = curandom.generate_direction_vectors(20003)
    assert v.shape == (20003, 32) and v.dtype == np.int32
    host = v.get()
    assert np.array_equal(host[20000:], host[:3])
    assert np.array_equal(
        host[:5].view(np.uint32), curandom.direction_table(curandom.direction_vector_set(101))[:5]
    )
    v64 = curandom.generate_direction_vectors(7, curandom.direction_vector_set.VECTOR_64)
    assert v64.shape == (7, 64) and v64.dtype == np.int64
    c32 = curandom.generate_scramble_constants32(20001)
    assert c32.dtype == np.int32 and c32.shape == (20001,)
    assert np.array_equal(c32.get().view(np.uint32)[:20000], curandom.scramble_table(32))
    assert c32.get()[20000] == c32.get()[0]
    assert curandom.generate_scramble_constants64(10).dtype == np.int64
    n = curandom.ScrambledSobol32RandomNumberGenerator().generator_count
    vectors = curandom.generate_direction_vectors(
        n, curandom.direction_vector_set.SCRAMBLED_VECTOR_32
    )
    scramble = curandom.generate_scramble_constants32(n)
    a = curandom.ScrambledSobol32RandomNumberGenerator(vectors, scramble)
    b = curandom.ScrambledSobol32RandomNumberGenerator()  # the same defaults
    assert np.array_equal(
        a.gen_uniform((n,), np.uint32).get(), b.gen_uniform((n,), np.uint32).get()
    )
    with pytest.raises(ValueError, match="at least"):
        curandom.Sobol32RandomNumberGenerator(dir_vector=curandom.generate_direction_vectors(3))
