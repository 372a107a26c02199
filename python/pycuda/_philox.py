"""pycuda._philox: ``curandom.rand`` and ``curandom.randn``, fills from a counter-based
Philox4x32-10 generator (Salmon et al., SC'11), and the generator on the host.

Word ``i`` of the stream a key ``(k0, k1)`` gives is word ``i % 4`` of block ``i // 4``, and block
``g`` is Philox4x32-10 of the counter ``(g mod 2**32, g >> 32, 0, 0)``. The device side is
``pycuda/cuda/pycuda-philox.hpp``; ``philox4x32_10`` and ``philox_stream`` compute the same words
in NumPy, the reference the kernels are tested against.

    import pycuda.autoinit
    from pycuda import curandom
    a = curandom.rand((1000, 1000))            # float32, uniform in [0, 1)
    words = philox_stream((1234, 0), 8)        # the first 8 words rand draws with seed=1234
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import compiler
from pycuda._dtypes import includes, info
from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda.tools import context_dependent_memoize

# ---------------------------------------------------------------------------------------------
# Philox4x32-10 on the host: the reference the device kernels are tested against

_PHILOX_M = (0xD2511F53, 0xCD9E8D57)
_PHILOX_W = (0x9E3779B9, 0xBB67AE85)
_MASK32 = np.uint64(0xFFFFFFFF)


def philox4x32_10(counters: Any, key: tuple[int, int]) -> np.ndarray:
    """Philox4x32-10 of each row of ``counters`` (shape ``(n, 4)``, uint32) under ``key``.

    Returns the ``(n, 4)`` uint32 output words; computed in uint64 NumPy arithmetic.

        philox4x32_10(np.zeros((1, 4), np.uint32), (0, 0))  # [[0x6627e8d5, ...]]
    """
    c = np.asarray(counters, dtype=np.uint32).reshape(-1, 4).astype(np.uint64)
    if not isinstance(key, (tuple, list, np.ndarray)) or len(key) != 2:
        raise TypeError(f"key must be a pair of ints (key0, key1), got {key!r}")
    c0, c1, c2, c3 = (c[:, i].copy() for i in range(4))
    k0, k1 = np.uint64(int(key[0]) & 0xFFFFFFFF), np.uint64(int(key[1]) & 0xFFFFFFFF)
    m0, m1 = np.uint64(_PHILOX_M[0]), np.uint64(_PHILOX_M[1])
    for r in range(10):
        if r:
            k0 = (k0 + np.uint64(_PHILOX_W[0])) & _MASK32
            k1 = (k1 + np.uint64(_PHILOX_W[1])) & _MASK32
        p0, p1 = m0 * c0, m1 * c2  # exact: both factors are below 2**32
        hi0, lo0 = p0 >> np.uint64(32), p0 & _MASK32
        hi1, lo1 = p1 >> np.uint64(32), p1 & _MASK32
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def philox_stream(key: tuple[int, int], count: int, first_block: int = 0) -> np.ndarray:
    """The first ``count`` 32-bit words of the stream ``rand`` draws from with ``key``.

    Block ``g`` is ``philox4x32_10((g mod 2**32, g >> 32, 0, 0), key)``.
    """
    blocks = np.arange(first_block, first_block + (count + 3) // 4, dtype=np.uint64)
    counters = np.zeros((blocks.size, 4), dtype=np.uint32)
    counters[:, 0] = (blocks & _MASK32).astype(np.uint32)
    counters[:, 1] = (blocks >> np.uint64(32)).astype(np.uint32)
    return philox4x32_10(counters, key).reshape(-1)[:count]


# ---------------------------------------------------------------------------------------------
# rand / randn: Philox fills

# (distribution, dtype name) -> (per-dtype op in pycuda-philox.hpp, the dtype it writes: the
# raw 32-bit words of int32 arrays are written as unsigned)
_PHILOX_OPS = {
    ("uniform", "float16"): ("UniformHalf", np.dtype(np.float16)),
    ("uniform", "float32"): ("UniformFloat", np.dtype(np.float32)),
    ("uniform", "float64"): ("UniformDouble", np.dtype(np.float64)),
    ("uniform", "int32"): ("RawBits", np.dtype(np.uint32)),
    ("uniform", "uint32"): ("RawBits", np.dtype(np.uint32)),
    ("normal", "float16"): ("NormalHalf", np.dtype(np.float16)),
    ("normal", "float32"): ("NormalFloat", np.dtype(np.float32)),
    ("normal", "float64"): ("NormalDouble", np.dtype(np.float64)),
}
# Philox blocks each thread makes per trip. Several spread a thread's fixed cost (its index,
# the round keys) and give each thread independent rounds to interleave; the uniform fills are
# light enough to take four, the Box-Muller ones (logs, roots, sines) two.
BLOCKS_PER_THREAD = {"uniform": 4, "normal": 2}
MAX_GRID = 2**31 - 1


def philox_kernel_source(
    distribution: str, dtype: Any, blocks_per_thread: int | None = None
) -> tuple[str, str]:
    """(kernel name, CUDA source) of the fill behind ``rand``/``randn`` for ``dtype``.

    ``blocks_per_thread``: Philox blocks per thread and trip (default
    ``BLOCKS_PER_THREAD[distribution]``); the values written do not depend on it.
    """
    dtype = np.dtype(dtype)
    try:
        op, written = _PHILOX_OPS[distribution, dtype.name]
    except KeyError:
        allowed = sorted(d for dist, d in _PHILOX_OPS if dist == distribution)
        raise ValueError(
            f"{'rand' if distribution == 'uniform' else 'randn'} does not generate "
            f"{dtype.name}; expected one of {', '.join(allowed)}"
        ) from None
    k = BLOCKS_PER_THREAD[distribution] if blocks_per_thread is None else int(blocks_per_thread)
    if k < 1:
        raise ValueError(f"blocks_per_thread must be positive, got {blocks_per_thread}")
    name = f"pycuda_philox_{distribution}_{dtype.name}"
    ctype = info(written).c_name
    source = f"""{includes([written])}#include <pycuda-philox.hpp>
extern "C" __global__ void __launch_bounds__({THREADS_PER_BLOCK})
{name}({ctype} *out, unsigned long long n, unsigned int k0, unsigned int k1)
{{
    pycuda_philox::fill<pycuda_philox::{op}, {k}>(out, n, make_uint2(k0, k1));
}}
"""
    return name, source


def philox_grid(n: int, per_block: int, blocks_per_thread: int) -> tuple[int, int]:
    """The grid of a fill of ``n`` values: one trip of every thread covers them all.

    ``per_block``: values per Philox block (4, or 2 for float64). Blocks of
    ``THREADS_PER_BLOCK`` threads each make ``blocks_per_thread`` Philox blocks; beyond
    ``MAX_GRID`` thread blocks the kernel strides.
    """
    philox_blocks = -(-n // per_block)
    return max(1, min(-(-philox_blocks // (THREADS_PER_BLOCK * blocks_per_thread)), MAX_GRID)), 1


@context_dependent_memoize
def _philox_function(distribution: str, dtype_name: str) -> Any:
    """The prepared fill kernel."""
    name, source = philox_kernel_source(distribution, dtype_name)
    return compiler.SourceModule(source, no_extern_c=True).get_function(name).prepare("PQII")


def _philox_key(seed: int | None) -> tuple[int, int]:
    if seed is None:
        lo, hi = np.random.randint(0, 2**32, size=2, dtype=np.uint64)
        return int(lo), int(hi)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer or None, got {type(seed).__name__}")
    seed = int(seed) % 2**64
    return seed & 0xFFFFFFFF, seed >> 32


def _philox_fill(distribution: str, shape: Any, dtype: Any, stream: Any, seed: Any) -> Any:
    dtype = np.dtype(dtype)
    philox_kernel_source(distribution, dtype)  # rejects a dtype before any allocation
    key = _philox_key(seed)
    result = core.new_array(shape, dtype)
    n = int(result.size)
    if n == 0:
        return result
    per_block = 2 if dtype == np.float64 else 4
    func = _philox_function(distribution, dtype.name)
    grid = philox_grid(n, per_block, BLOCKS_PER_THREAD[distribution])
    args = (result.gpudata, np.uint64(n), np.uint32(key[0]), np.uint32(key[1]))
    if stream is None:
        func.prepared_call(grid, (THREADS_PER_BLOCK, 1, 1), *args)
    else:
        func.prepared_async_call(grid, (THREADS_PER_BLOCK, 1, 1), stream, *args)
    return result


def rand(shape: Any, dtype: Any = np.float32, stream: Any = None, seed: int | None = None) -> Any:
    """A new ``GPUArray`` of ``shape`` filled with uniform random numbers.

    float16/float32/float64: uniform in [0, 1) (the top 11/24/53 bits of the generator's
    words, so 1.0 never occurs); int32/uint32: the generator's raw 32-bit words.
    ``seed`` (an addition to the original) fixes the stream; by default it is drawn from
    NumPy's global generator, so ``numpy.random.seed`` makes runs repeatable.
    """
    return _philox_fill("uniform", shape, dtype, stream, seed)


def randn(shape: Any, dtype: Any = np.float32, stream: Any = None, seed: int | None = None) -> Any:
    """A new ``GPUArray`` of ``shape`` of standard normal numbers (float16/32/64).

    Box-Muller on pairs of the same Philox stream ``rand`` uses; ``seed`` as for ``rand``.
    """
    return _philox_fill("normal", shape, dtype, stream, seed)
