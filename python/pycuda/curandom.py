"""pycuda.curandom: random numbers on the GPU.

Two families, as in the original:

* ``rand(shape, dtype)`` and ``randn(shape, dtype)``: one call fills a new ``GPUArray`` from a
  counter-based Philox4x32-10 generator (Salmon et al., SC'11) at the memory's write rate
  (see ``pycuda._philox``).
  The seed comes from NumPy's global generator unless ``seed=`` is given; the same seed gives
  the same numbers.

      import pycuda.autoinit
      from pycuda import curandom
      a = curandom.rand((1000, 1000))            # float32, uniform in [0, 1)
      z = curandom.randn(10**6, seed=1234)       # float32, standard normal

* Generator classes over cuRAND's device API (``<curand_kernel.h>``): one state per GPU
  thread, ``block_count x generators_per_block`` of them, each filling every
  ``generator_count``-th element of an array. Large fills of the Sobol and Philox classes
  run faster kernels that write the same numbers (``pycuda._curand_split``).

      gen = curandom.XORWOWRandomNumberGenerator()
      u = gen.gen_uniform((1000,), np.float32)
      gen.call_skip_ahead(10)                    # every generator skips 10 draws

The host functions of the cuRAND library (``get_curand_version``, ``generate_direction_vectors``,
``generate_scramble_constants32/64``) call libcurand, which pycuda's core opens at run time
(see ``pycuda._curand_host``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import _array_core as core
from pycuda import _curand_sources, _curand_split, compiler
from pycuda import gpuarray as _gpuarray  # noqa: F401 - registers GPUArray, the class of its results
from pycuda._arg_checks import require
from pycuda._curand_host import (  # noqa: F401 - the original's curandom offers these
    CurandLibraryError,
    _get_direction_vectors,
    _get_scramble_constants32,
    _get_scramble_constants64,
    cycled,
    direction_table,
    direction_vector_set,
    get_curand_version,
    scramble_table,
)
from pycuda._curand_sources import (  # noqa: F401 - the original's kernel templates
    GeneratorSpec,
    gen_log_template,
    gen_poisson_inplace_template,
    gen_poisson_template,
    gen_template,
    generator_source,
    kernel_formats,
    mrg32k3a_random_source,
    mrg32k3a_skip_ahead_sequence_source,
    random_skip_ahead32_source,
    random_skip_ahead64_source,
    random_source,
    scrambledsobol_random_source,
    sobol_random_source,
    xorwow_random_source,
    xorwow_skip_ahead_sequence_source,
)
from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda._md5_code import md5_code  # noqa: F401 - the original's MD5 fragment
from pycuda._philox import (  # noqa: F401 - curandom's rand/randn and their Philox reference
    philox4x32_10,
    philox_kernel_source,
    philox_stream,
    rand,
    randn,
)

# ---------------------------------------------------------------------------------------------
# The cuRAND library on the host (pycuda._curand_host), and its tables as GPUArrays


def _to_gpu(host: np.ndarray) -> Any:
    result = core.new_array(host.shape, host.dtype)
    if host.size:
        drv.memcpy_htod(result.gpudata, np.ascontiguousarray(host))
    return result


def generate_direction_vectors(count: int, direction: Any = None) -> Any:
    """``count`` Sobol direction vectors from cuRAND, as a GPUArray.

    ``direction`` is a ``direction_vector_set`` (default ``VECTOR_32``). 32-bit sets give
    shape ``(count, 32)`` int32, 64-bit sets ``(count, 64)`` int64; past cuRAND's 20000
    dimensions the table repeats.
    """
    direction = direction_vector_set(
        direction_vector_set.VECTOR_32 if direction is None else direction
    )
    table = direction_table(direction)
    signed = np.int32 if table.dtype == np.uint32 else np.int64
    return _to_gpu(cycled(table, int(count)).view(signed))


def generate_scramble_constants32(count: int) -> Any:
    """``count`` 32-bit scramble constants from cuRAND, as an int32 GPUArray (the bits of
    cuRAND's unsigned constants, like the direction vectors)."""
    return _to_gpu(cycled(scramble_table(32), int(count)).view(np.int32))


def generate_scramble_constants64(count: int) -> Any:
    """``count`` 64-bit scramble constants from cuRAND, as an int64 GPUArray."""
    return _to_gpu(cycled(scramble_table(64), int(count)).view(np.int64))


# ---------------------------------------------------------------------------------------------
# Seeds for the pseudo-random generator classes


def _unique_seeds(n: int) -> np.ndarray:
    seeds = np.random.randint(0, 2**31 - 1, size=n).astype(np.int32)
    while True:  # redraw collisions until all n differ
        _, first = np.unique(seeds, return_index=True)
        if first.size == n:
            return seeds
        repeat = np.setdiff1d(np.arange(n), first)
        seeds[repeat] = np.random.randint(0, 2**31 - 1, size=repeat.size)


def seed_getter_uniform(N: int) -> Any:  # noqa: N803 - the original's parameter name
    """An int32 GPUArray of ``N`` copies of one seed drawn from NumPy's global generator."""
    value = np.random.randint(0, 2**31 - 1)
    return _to_gpu(np.full(int(N), value, dtype=np.int32))


def seed_getter_unique(N: int) -> Any:  # noqa: N803 - the original's parameter name
    """An int32 GPUArray of ``N`` distinct seeds drawn from NumPy's global generator."""
    return _to_gpu(_unique_seeds(int(N)))


# ---------------------------------------------------------------------------------------------
# Generator classes


def _multiprocessor_count() -> int:
    """The current device's multiprocessors (pycuda._array_core.device_counts)."""
    return int(core.device_counts()[0])


# A fill takes the kernels of pycuda._curand_split from this many numbers a state on (below
# it, a Sobol fill's launch of `starts` costs more than its parts save).
_SPLIT_MIN_ITEMS = 64


def _resident_threads() -> int:
    """Threads the device holds at full occupancy (pycuda._array_core.device_counts)."""
    sms, per_sm = core.device_counts()
    return int(sms * per_sm)


def _element_count(data: Any, what: str) -> int:
    require(data, "flags size dtype gpudata", what, "a GPUArray")
    flags = data.flags
    if not (flags.c_contiguous or getattr(flags, "f_contiguous", False)):
        raise ValueError(f"{what} needs a contiguous GPUArray")
    return int(data.size)


def _check_gpu_vector(ary: Any, what: str, dtypes: tuple[Any, ...], min_size: int) -> None:
    if not hasattr(ary, "gpudata"):
        raise TypeError(f"{what} must be a GPUArray, got {type(ary).__name__}")
    if np.dtype(ary.dtype) not in [np.dtype(d) for d in dtypes]:
        names = " or ".join(np.dtype(d).name for d in dtypes)
        raise TypeError(f"{what} must have dtype {names}, got {np.dtype(ary.dtype).name}")
    if int(ary.size) < min_size:
        raise ValueError(f"{what} needs at least {min_size} elements, got {int(ary.size)}")


class _RandomNumberGeneratorBase:
    """Shared machinery: kernels, states, launches and the fill/gen methods.

    Class attributes, as the original's: ``has_box_muller``; ``gen_info``, ``gen_log_info``,
    ``gen_poisson_info``, ``gen_poisson_inplace_info``, the tables the fill kernels are made
    from (see :mod:`pycuda._curand_sources`). Instance attributes: ``module``, ``generators``
    (the prepared fill kernels by name), ``skip_ahead``, ``skip_ahead_array`` (and the
    sequence kinds'), ``block_count``, ``generators_per_block``, ``state``, ``state_type``,
    ``generator_bits``.
    """

    _spec: GeneratorSpec
    has_box_muller: bool = False
    gen_info: list[tuple[str, str, str]] = []
    gen_log_info: list[tuple[str, str, str, str]] = []
    gen_poisson_info: list[tuple[str, str, str]] = []
    gen_poisson_inplace_info: list[tuple[str, str, str]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_spec" in cls.__dict__:
            spec = cls._spec
            cls.has_box_muller = spec.box_muller
            cls.gen_info = _curand_sources.gen_info(spec)
            cls.gen_log_info = _curand_sources.gen_log_info(spec)
            cls.gen_poisson_info = _curand_sources.gen_poisson_info(spec)
            cls.gen_poisson_inplace_info = _curand_sources.gen_poisson_inplace_info(spec)

    def __init__(self) -> None:
        spec = self._spec
        self.state_type = spec.state
        self.generator_bits = spec.bits
        source = generator_source(spec) + _curand_split.split_source(spec)
        self.module = compiler.SourceModule(source, no_extern_c=True)
        self._kernels = self._load_kernels()
        fills = _curand_sources.fill_kernel_formats(spec)
        self.generators = {name: self._kernels[name] for name in fills}
        for kind in ("", *spec.sequence_skips):
            name = "skip_ahead" + (f"_{kind}" if kind else "")
            setattr(self, name, self._kernels[name])
            setattr(self, name + "_array", self._kernels[name + "_array"])
        # The original's kernels only: the split kernels take any block size.
        self.generators_per_block = min(
            f.get_attribute(int(drv.function_attribute.MAX_THREADS_PER_BLOCK))
            for f in self._kernels.values()
        )
        self.block_count = _multiprocessor_count()
        state_size = self._state_size()
        self.state = drv.mem_alloc(self.generator_count * state_size)
        # Large fills: the kernels of pycuda._curand_split, where the class has them.
        self._fast = {
            name: self.module.get_function(name).prepare(fmt)
            for name, fmt in _curand_split.fast_kernel_formats(spec).items()
        }
        self._fast_kind = _curand_split.fast_fills(spec)
        resident = _resident_threads()
        self._parts = _curand_split.sobol_parts(self.generator_count, resident)
        self._packed_parts = _curand_split.sobol_parts(
            self.generator_count, resident, _curand_split.SOBOL_WAVES // 2
        )
        self._starts: Any = None  # the buffer of starts, made by the first split fill
        self._starts_bytes = 0

    @property
    def generator_count(self) -> int:
        """How many generator states there are (``block_count * generators_per_block``)."""
        return self.block_count * self.generators_per_block

    def _state_size(self) -> int:
        f = self.module.get_function("state_size")
        out = drv.mem_alloc(8)
        f(out, block=(1, 1, 1), grid=(1, 1))
        size = np.zeros(1, np.uint64)
        drv.memcpy_dtoh(size, out)
        return int(size[0])

    def _load_kernels(self) -> dict[str, Any]:
        return {
            name: self.module.get_function(name).prepare(fmt)
            for name, fmt in kernel_formats(self._spec).items()
        }

    def _launch(self, name: str, stream: Any, *args: Any) -> None:
        grid, block = (self.block_count, 1), (self.generators_per_block, 1, 1)
        core.launch(self._kernels[name], grid, block, stream, (self.state, *args))

    # -- uniform ------------------------------------------------------------------------------

    def fill_uniform(self, data: Any, stream: Any = None) -> None:
        """Fill ``data`` with uniform numbers: (0, 1] for floats, raw bits for integers."""
        n = _element_count(data, "fill_uniform")
        kind = np.dtype(data.dtype).name
        names = {"float32": "uniform_float32", "float64": "uniform_float64"}
        names.update(int32="uniform_uint32", uint32="uniform_uint32")
        if self._spec.bits == 64:
            names.update(int64="uniform_uint64", uint64="uniform_uint64")
        if kind not in names:
            raise TypeError(
                f"fill_uniform does not fill {kind}; expected one of {', '.join(sorted(names))}"
            )
        self._fill(names[kind], stream, data, n)

    def gen_uniform(self, shape: Any, dtype: Any, stream: Any = None) -> Any:
        """A new GPUArray of ``shape`` and ``dtype`` filled by ``fill_uniform``."""
        result = core.new_array(shape, dtype)
        self.fill_uniform(result, stream)
        return result

    # -- normal and log-normal ----------------------------------------------------------------

    def _float_kind(self, data: Any, what: str) -> str:
        kind = np.dtype(data.dtype).name
        if kind not in ("float32", "float64"):
            raise TypeError(f"{what} fills float32 or float64 arrays, got {kind}")
        return kind

    def _pairs_ok(self, data: Any, n: int) -> bool:
        # The Box-Muller kernels store pairs, so they need an even size and an aligned pair.
        pair_bytes = 2 * np.dtype(data.dtype).itemsize
        return self.has_box_muller and n % 2 == 0 and int(data.gpudata) % pair_bytes == 0

    def _fill(self, name: str, stream: Any, data: Any, count: int, *params: Any) -> None:
        """Launch fill kernel ``name`` over ``count`` items of ``data`` (none: no launch)."""
        if not count:
            return
        generators = self.generator_count
        items = -(-count // generators)  # per state
        if items < _SPLIT_MIN_ITEMS or f"{name}_{self._fast_kind}" not in self._fast:
            self._launch(name, stream, data.gpudata, np.uint64(count), *params)
            return
        args = (np.uint64(count), np.uint32(generators))
        if self._fast_kind == "wide":
            self._launch_flat(f"{name}_wide", stream, generators, self.state, data.gpudata,
                              *args, *params)  # fmt: skip
            return
        # Adjacent states a thread where the class has the kernel and the rows allow it: whole
        # rows of states, each stored in one piece at its own aligned address.
        lanes = _curand_split.lanes(data.dtype.itemsize)
        row_bytes = lanes * data.dtype.itemsize
        packed = f"{name}_packed" in self._fast and not (
            generators % lanes or int(data.gpudata) % row_bytes
        )
        per_part = _curand_split.part_size(items, self._packed_parts if packed else self._parts)
        parts = -(-items // per_part)
        starts = self._starts_buffer(parts)
        self._launch_flat("starts", stream, generators * parts, self.state, starts, *args,
                          np.uint64(per_part))  # fmt: skip
        kernel, threads = (
            (f"{name}_packed", generators // lanes) if packed else (f"{name}_split", generators)
        )
        self._launch_flat(kernel, stream, threads * parts, starts, self.state, data.gpudata,
                          *args, np.uint64(per_part), *params)  # fmt: skip

    def _starts_buffer(self, parts: int) -> Any:
        word = self._spec.bits // 8
        size = self.generator_count * _curand_split.starts_words(parts) * word
        if size > self._starts_bytes:
            self._starts = drv.mem_alloc(size)
            self._starts_bytes = size
        return self._starts

    def _launch_flat(self, name: str, stream: Any, threads: int, *args: Any) -> None:
        block = THREADS_PER_BLOCK
        core.launch(self._fast[name], (-(-threads // block), 1), (block, 1, 1), stream, args)

    def fill_normal(self, data: Any, stream: Any = None) -> None:
        """Fill ``data`` (float32/float64) with standard normal numbers."""
        n = _element_count(data, "fill_normal")
        kind = self._float_kind(data, "fill_normal")
        if n and self._pairs_ok(data, n):
            self._fill(f"normal2_{kind}", stream, data, n // 2)
        else:
            self._fill(f"normal_{kind}", stream, data, n)

    def gen_normal(self, shape: Any, dtype: Any, stream: Any = None) -> Any:
        """A new GPUArray of ``shape`` and ``dtype`` filled by ``fill_normal``."""
        result = core.new_array(shape, dtype)
        self.fill_normal(result, stream)
        return result

    def fill_log_normal(self, data: Any, mean: float, stddev: float, stream: Any = None) -> None:
        """Fill ``data`` with ``exp(N(mean, stddev**2))`` numbers."""
        n = _element_count(data, "fill_log_normal")
        kind = self._float_kind(data, "fill_log_normal")
        scalar = np.float32 if kind == "float32" else np.float64
        params = (scalar(mean), scalar(stddev))
        if n and self._pairs_ok(data, n):
            self._fill(f"log_normal2_{kind}", stream, data, n // 2, *params)
        else:
            self._fill(f"log_normal_{kind}", stream, data, n, *params)

    def gen_log_normal(
        self, shape: Any, dtype: Any, mean: float, stddev: float, stream: Any = None
    ) -> Any:
        """A new GPUArray of ``shape`` and ``dtype`` filled by ``fill_log_normal``."""
        result = core.new_array(shape, dtype)
        self.fill_log_normal(result, mean, stddev, stream)
        return result

    # -- Poisson ------------------------------------------------------------------------------

    def fill_poisson(
        self, data: Any, lambda_value: float | None = None, stream: Any = None
    ) -> None:
        """Fill ``data`` with Poisson numbers of mean ``lambda_value``.

        With ``lambda_value=None`` each element is replaced by a draw with its own value as
        the mean. ``data``: uint32, int32, float32 or float64.
        """
        n = _element_count(data, "fill_poisson")
        kind = np.dtype(data.dtype).name
        if f"poisson_{kind}" not in self.generators:
            raise TypeError(
                f"fill_poisson does not fill {kind}; expected uint32, int32, float32 or float64"
            )
        if lambda_value is None:
            self._fill(f"poisson_inplace_{kind}", stream, data, n)
            return
        if not lambda_value > 0:
            raise ValueError(f"lambda_value must be positive, got {lambda_value}")
        self._fill(f"poisson_{kind}", stream, data, n, float(lambda_value))

    def gen_poisson(self, shape: Any, dtype: Any, lambda_value: float, stream: Any = None) -> Any:
        """A new GPUArray of ``shape`` and ``dtype`` (uint32 as the original, or int32/float)
        of Poisson numbers of mean ``lambda_value``."""
        result = core.new_array(shape, dtype)
        self.fill_poisson(result, lambda_value, stream)
        return result

    # -- skip-ahead ---------------------------------------------------------------------------

    def _skip(self, kind: str, i: Any, stream: Any) -> None:
        name = "skip_ahead" + (f"_{kind}" if kind else "")
        skip_dtype = self._spec.skip_dtype if not kind else np.dtype(np.uint64)
        limit = np.iinfo(skip_dtype).max
        if not isinstance(i, (int, np.integer)) or isinstance(i, (bool, np.bool_)):
            raise TypeError(f"call_{name} takes an integer, got {type(i).__name__}")
        if not 0 <= int(i) <= limit:
            raise ValueError(f"call_{name} takes 0 <= i <= {limit}, got {i}")
        # All generators advance (the original passed only one block's count).
        self._launch(name, stream, np.int32(self.generator_count), skip_dtype.type(int(i)))

    def _skip_array(self, kind: str, i: Any, stream: Any) -> None:
        name = "skip_ahead" + (f"_{kind}" if kind else "") + "_array"
        skip_dtype = self._spec.skip_dtype if not kind else np.dtype(np.uint64)
        signed = np.int32 if skip_dtype == np.uint32 else np.int64
        _check_gpu_vector(i, f"call_{name}'s array", (skip_dtype, signed), self.generator_count)
        self._launch(name, stream, np.int32(self.generator_count), i.gpudata)

    def call_skip_ahead(self, i: int, stream: Any = None) -> None:
        """Advance every generator by ``i`` draws."""
        self._skip("", i, stream)

    def call_skip_ahead_array(self, i: Any, stream: Any = None) -> None:
        """Advance generator ``k`` by ``i[k]`` draws (``i``: a GPUArray, one per generator)."""
        self._skip_array("", i, stream)


class _PseudoRandomNumberGeneratorBase(_RandomNumberGeneratorBase):
    """Seeded generators: generator ``k`` starts subsequence ``k`` of its seed's stream."""

    def __init__(self, seed_getter: Callable[[int], Any] | None = None, offset: int = 0) -> None:
        super().__init__()
        n = self.generator_count
        seed = seed_getter_unique(n) if seed_getter is None else seed_getter(n)
        _check_gpu_vector(seed, "the seed_getter's result", (np.int32, np.uint32), n)
        if not 0 <= int(offset) < 2**64:
            raise ValueError(f"offset must be in [0, 2**64), got {offset}")
        # cuRAND's skip-ahead code needs a deep stack; unlike the original we leave
        # limit.STACK_SIZE alone: the driver grows the per-thread stack for each launch as
        # needed (cuCtxSetLimit's documentation), and setting it would synchronize.
        self._launch("prepare", None, np.int32(n), seed.gpudata, np.uint64(offset))

    def call_skip_ahead_sequence(self, i: int, stream: Any = None) -> None:
        """Advance every generator by ``i`` subsequences (``skipahead_sequence``)."""
        self._skip("sequence", i, stream)

    def call_skip_ahead_sequence_array(self, i: Any, stream: Any = None) -> None:
        """Advance generator ``k`` by ``i[k]`` subsequences (``i``: a uint64 GPUArray)."""
        self._skip_array("sequence", i, stream)


class XORWOWRandomNumberGenerator(_PseudoRandomNumberGeneratorBase):
    """cuRAND's XORWOW generator (``curandStateXORWOW_t``), one state per GPU thread.

    gen = XORWOWRandomNumberGenerator(seed_getter=seed_getter_uniform)
    a = gen.gen_normal((1024,), np.float32)
    """

    _spec = GeneratorSpec(
        "curandStateXORWOW_t", quasi=False, box_muller=True, sequence_skips=("sequence",)
    )


class MRG32k3aRandomNumberGenerator(_PseudoRandomNumberGeneratorBase):
    """cuRAND's MRG32k3a generator (``curandStateMRG32k3a_t``).

    gen = MRG32k3aRandomNumberGenerator()
    gen.call_skip_ahead_subsequence(1)
    """

    _spec = GeneratorSpec(
        "curandStateMRG32k3a_t",
        quasi=False,
        box_muller=True,
        sequence_skips=("sequence", "subsequence"),
    )

    def call_skip_ahead_subsequence(self, i: int, stream: Any = None) -> None:
        """Advance every generator by ``i`` subsequences of 2**76 draws."""
        self._skip("subsequence", i, stream)

    def call_skip_ahead_subsequence_array(self, i: Any, stream: Any = None) -> None:
        """Advance generator ``k`` by ``i[k]`` subsequences of 2**76 draws."""
        self._skip_array("subsequence", i, stream)


class PhiloxRandomNumberGenerator(_PseudoRandomNumberGeneratorBase):
    """cuRAND's Philox4x32-10 (``curandStatePhilox4_32_10_t``), with the classes' methods.

    gen = PhiloxRandomNumberGenerator(offset=100)
    u = gen.gen_uniform((1000,), np.float64)
    """

    _spec = GeneratorSpec(
        "curandStatePhilox4_32_10_t", quasi=False, box_muller=True, sequence_skips=("sequence",)
    )


class _SobolRandomNumberGeneratorBase(_RandomNumberGeneratorBase):
    """Quasi-random generators: generator ``k`` draws dimension ``k``'s Sobol sequence."""

    _direction: direction_vector_set

    def __init__(
        self, dir_vector: Any = None, scramble_vector: Any = None, offset: int = 0
    ) -> None:
        super().__init__()
        n, bits = self.generator_count, self._spec.bits
        if dir_vector is None:
            dir_vector = generate_direction_vectors(n, self._direction)
        words = (np.int32, np.uint32) if bits == 32 else (np.int64, np.uint64)
        _check_gpu_vector(dir_vector, "dir_vector", words, n * bits)
        limit = 2**bits
        if not 0 <= int(offset) < limit:
            raise ValueError(f"offset must be in [0, 2**{bits}), got {offset}")
        args: tuple[Any, ...] = (np.int32(n), dir_vector.gpudata)
        if self._spec.scrambled:
            if scramble_vector is None:
                make = (
                    generate_scramble_constants32 if bits == 32 else generate_scramble_constants64
                )
                scramble_vector = make(n)
            _check_gpu_vector(scramble_vector, "scramble_vector", words, n)
            args += (scramble_vector.gpudata,)
        self._launch("prepare", None, *args, np.uint64(offset))


class Sobol32RandomNumberGenerator(_SobolRandomNumberGeneratorBase):
    """cuRAND's 32-bit Sobol quasi-random generator.

    gen = Sobol32RandomNumberGenerator()
    u = gen.gen_uniform((1 << 20,), np.float32)
    """

    _spec = GeneratorSpec("curandStateSobol32_t", quasi=True, bits=32)
    _direction = direction_vector_set.VECTOR_32

    def __init__(self, dir_vector: Any = None, offset: int = 0) -> None:
        super().__init__(dir_vector, None, offset)


class ScrambledSobol32RandomNumberGenerator(_SobolRandomNumberGeneratorBase):
    """cuRAND's scrambled 32-bit Sobol quasi-random generator.

    gen = ScrambledSobol32RandomNumberGenerator()
    """

    _spec = GeneratorSpec("curandStateScrambledSobol32_t", quasi=True, bits=32, scrambled=True)
    _direction = direction_vector_set.SCRAMBLED_VECTOR_32


class Sobol64RandomNumberGenerator(_SobolRandomNumberGeneratorBase):
    """cuRAND's 64-bit Sobol quasi-random generator (also fills int64/uint64).

    gen = Sobol64RandomNumberGenerator()
    """

    _spec = GeneratorSpec("curandStateSobol64_t", quasi=True, bits=64)
    _direction = direction_vector_set.VECTOR_64

    def __init__(self, dir_vector: Any = None, offset: int = 0) -> None:
        super().__init__(dir_vector, None, offset)


class ScrambledSobol64RandomNumberGenerator(_SobolRandomNumberGeneratorBase):
    """cuRAND's scrambled 64-bit Sobol quasi-random generator.

    gen = ScrambledSobol64RandomNumberGenerator()
    """

    _spec = GeneratorSpec("curandStateScrambledSobol64_t", quasi=True, bits=64, scrambled=True)
    _direction = direction_vector_set.SCRAMBLED_VECTOR_64


GENERATOR_CLASSES = (
    XORWOWRandomNumberGenerator,
    MRG32k3aRandomNumberGenerator,
    PhiloxRandomNumberGenerator,
    Sobol32RandomNumberGenerator,
    ScrambledSobol32RandomNumberGenerator,
    Sobol64RandomNumberGenerator,
    ScrambledSobol64RandomNumberGenerator,
)
