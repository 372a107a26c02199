"""Tests of pycuda._curand_split without a GPU: which classes and fills have fast kernels,
their text and formats, and the part sizes. The GPU test that they write the original
kernels' numbers bit for bit is test_fast_fills_write_what_one_thread_a_state_writes in
tests/test_curandom.py."""

from __future__ import annotations

import pytest

from pycuda import _curand_sources as S
from pycuda import _curand_split as split
from pycuda import curandom
from pycuda._launch_config import THREADS_PER_BLOCK

CLASSES = curandom.GENERATOR_CLASSES
ids = [c.__name__ for c in CLASSES]
PHILOX = curandom.PhiloxRandomNumberGenerator._spec
SOBOL64 = curandom.Sobol64RandomNumberGenerator._spec


def kernel(source: str, name: str) -> str:
    """The text of kernel ``name`` in ``source``."""
    body = source[source.index(f"\n{name}(") :]
    return body[: body.index("\n}\n")]


@pytest.mark.parametrize("cls", CLASSES, ids=ids)
def test_fast_kernels_of_each_class(cls):
    spec = cls._spec
    kind = split.fast_fills(spec)
    formats = split.fast_kernel_formats(spec)
    source = split.split_source(spec)
    fills = S.fill_kernel_formats(spec)
    if not kind:  # XORWOW and MRG32k3a keep the original's kernels
        assert not spec.quasi and spec.state != "curandStatePhilox4_32_10_t"
        assert formats == {} and source == ""
        return
    assert source.startswith('extern "C" {') and source.endswith("}\n")
    assert source.count(f"__launch_bounds__({THREADS_PER_BLOCK})") == len(formats)
    for name, fmt in formats.items():
        assert f"\n{name}(" in source
        if name == "starts":
            assert fmt == "PPQIQ"
            continue
        fill, suffix = name.rsplit("_", 1)
        assert suffix == kind or (kind, suffix) == ("split", "packed")
        # split: starts, states, output, n, state count, part size; wide: no starts, no parts
        head = "PPPQIQ" if kind == "split" else "PPQI"
        assert fmt == head + fills[fill][3:]
    if kind == "split":  # every Sobol fill, the Poisson ones included; packed: 4-byte numbers
        four = {n for n in fills if n.endswith(("float32", "int32")) and "poisson" not in n}
        assert set(formats) == {"starts"} | {f"{n}_split" for n in fills} | {
            f"{n}_packed" for n in four
        }
    else:
        assert set(formats) == {"uniform_float32_wide", "uniform_uint32_wide",
                                "normal2_float32_wide", "log_normal2_float32_wide"}  # fmt: skip


def test_philox_draws_four_numbers_a_call():
    source = split.split_source(PHILOX)
    body = kernel(source, "uniform_float32_wide")
    assert "curand_uniform4(&st)" in body and "d[i + 3 * g] = r.w;" in body
    assert "i + 3 * g < n" in body and "d[i] = curand_uniform(&st);" in body
    assert "curand4(&st)" in kernel(source, "uniform_uint32_wide")
    pairs = kernel(source, "normal2_float32_wide")
    assert "make_float2(r.z, r.w)" in pairs and "i + 1 * g < n" in pairs
    assert "d[i] = curand_normal2(&st);" in pairs
    logs = kernel(source, "log_normal2_float32_wide")
    assert "curand_log_normal4(&st, mean, stddev)" in logs and "float mean, float stddev" in logs


def test_sobol_kernels_walk_the_points():
    source = split.split_source(SOBOL64)
    starts = kernel(source, "starts")
    assert "x ^= v[__ffsll(diff) - 1];" in starts and "b < 8; ++b" in starts
    body = kernel(source, "poisson_inplace_float32_split")
    assert "_curand_poisson(x, (double)d[i])" in body and "x[j] ^= v[j][1];" in body
    assert "return s[id + j].direction_vectors[b];" in body and "constexpr int L = 1;" in body
    assert "struct __align__(4) Row" in body  # one number a store
    assert "(unsigned int)(x >> 32)" in kernel(source, "uniform_uint32_split")
    assert "_curand_normal_icdf_double(x)" in kernel(source, "normal_float64_split")
    assert "__ffs(diff)" in split.split_source(curandom.Sobol32RandomNumberGenerator._spec)
    # Two adjacent states a thread for 4-byte numbers, their row stored in one 8-byte store;
    # states at different indices step each, the others together.
    packed = kernel(source, "uniform_float32_packed")
    assert "constexpr int L = 2;" in packed and "struct __align__(8) Row" in packed
    assert "*reinterpret_cast<Row *>(d + i + 3 * g) = r3;" in packed
    assert "x[j] ^= step(j, pos[j]++);" in packed and "together = together &&" in packed
    assert "poisson_uint32_packed" not in source and "poisson_inplace_int32_packed" not in source
    assert "uniform_float64_packed" not in source and "uniform_uint64_packed" not in source
    assert [split.lanes(size) for size in (4, 8)] == [2, 1]


def test_sobol_parts_and_part_sizes():
    resident = 2048 * 132
    assert split.sobol_parts(132 * 896, resident) == 37
    assert split.sobol_parts(132 * 384, resident) == 64  # at most 64
    assert split.sobol_parts(10**7, resident) == 2  # at least 2
    assert split.sobol_parts(132 * 1024, resident, 8) == 16  # the packed kernels' 8 waves
    # A multiple of a power of two near an eighth of the share: few Gray-code bits differ.
    assert split.part_size(10, 8) == 2
    assert split.part_size(101, 8) == 14
    assert split.part_size(18157, 37) == 512  # 2**31 numbers over 118272 Sobol32 states
    assert split.part_size(2**20, 4) == 2**18
    for items, parts in [(64, 37), (1000, 3), (12345, 64), (2**31, 40)]:
        size = split.part_size(items, parts)
        assert size % 2 == 0 and size >= -(-items // parts)
        assert -(-items // size) <= parts
    assert split.starts_words(37) == 82
    with pytest.raises(TypeError, match="GeneratorSpec"):
        split.split_source("curandStateSobol32_t")
