"""pycuda.tools: default contexts, device data, the C-type registry and memoization per context.

    import pycuda.driver as cuda
    from pycuda.tools import make_default_context, dtype_to_ctype
    cuda.init()
    ctx = make_default_context()      # $CUDA_DEVICE or ~/.cuda_device, else the first that works
    dtype_to_ctype(numpy.float32)     # 'float'
    ctx.pop()

The memory pools (DeviceMemoryPool, PageLockedMemoryPool, ...) and the stream-ordered allocator
(StreamOrderedAllocator) are the ones of pycuda._driver; set_default_allocator() chooses what
arrays given no allocator use.
"""

from __future__ import annotations

import atexit
import functools
import importlib
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pycuda.driver as cuda
from pycuda import _default_allocator, _shared_modules
from pycuda._arg_checks import require
from pycuda._default_allocator import get_default_allocator, set_default_allocator  # noqa: F401

# The pools live in the extension; the original documents them here.
from pycuda._driver import (  # noqa: E402, F401
    DeviceMemoryPool,
    PageLockedAllocator,
    PageLockedMemoryPool,
    PooledDeviceAllocation,
    PooledHostAllocation,
    StreamOrderedAllocation,
    StreamOrderedAllocator,
    _current_context_handle,
    bitlog2,
)
from pycuda._lazy_import import lazy_attributes, lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)

# Names of this module loaded on first use (module __getattr__): the C-type registry and the
# debugging pool import modules (dataclasses, json, ...) that a program which only makes a
# context (pycuda.autoinit imports this module) never needs.
_LAZY = {
    "DebugMemoryPool": ("pycuda._debug_memory_pool", "DebugMemoryPool"),
    "TypeNameNotKnown": ("pycuda.compyte.dtypes", "TypeNameNotKnown"),
    "get_or_register_dtype": ("pycuda.compyte.dtypes", "get_or_register_dtype"),
    "parse_c_arg_backend": ("pycuda.compyte.dtypes", "parse_c_arg_backend"),
    "register_dtype": ("pycuda.compyte.dtypes", "register_dtype"),
    # The original's name for the registry's own mapping (no fp_tex hack): C names of NumPy
    # types, registered structs and vector types.
    "base_dtype_to_ctype": ("pycuda.compyte.dtypes", "dtype_to_ctype"),
}


__getattr__, __dir__ = lazy_attributes("pycuda.tools", globals(), _LAZY)


def _registry() -> Any:
    """pycuda.compyte.dtypes, the C-type registry, imported on first use as the names above."""
    return importlib.import_module("pycuda.compyte.dtypes")


# {{{ default device and context


def _pinned_device_number() -> int | None:
    """The device that $CUDA_DEVICE or ~/.cuda_device names, or None."""
    text = os.environ.get("CUDA_DEVICE")
    source = "$CUDA_DEVICE"
    if text is None:
        path = os.path.join(os.path.expanduser("~"), ".cuda_device")
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            return None
        source = path
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{source} must be a device number, got {text!r}") from None


def get_default_device(default: int = 0) -> cuda.Device:
    """The device named by $CUDA_DEVICE or ~/.cuda_device, else device ``default``.

    Deprecated, as in the original: use make_default_context().
    """
    warnings.warn(
        "get_default_device() is deprecated; use make_default_context() instead",
        DeprecationWarning,
        stacklevel=2,
    )
    number = _pinned_device_number()
    return cuda.Device(default if number is None else number)


def make_default_context(ctx_maker: Callable[[cuda.Device], Any] | None = None) -> Any:
    """Make a context on the device pinned by $CUDA_DEVICE or ~/.cuda_device, else on the first
    device where ``ctx_maker(dev)`` succeeds. ``ctx_maker`` defaults to ``dev.make_context()``.

    Raises RuntimeError when there is no device or no device accepts a context.
    """
    if ctx_maker is None:

        def ctx_maker(dev: cuda.Device) -> Any:
            return dev.make_context()

    ndevices = cuda.Device.count()
    if ndevices == 0:
        raise RuntimeError("No CUDA enabled device found. Please check your installation.")

    number = _pinned_device_number()
    if number is not None:
        if not 0 <= number < ndevices:
            raise RuntimeError(
                f"the pinned CUDA device {number} does not exist ({ndevices} device(s) found); "
                "check $CUDA_DEVICE or ~/.cuda_device"
            )
        return ctx_maker(cuda.Device(number))

    failures = []
    for i in range(ndevices):
        try:
            return ctx_maker(cuda.Device(i))
        except cuda.Error as exc:
            failures.append(f"device {i}: {exc}")
    raise RuntimeError(
        f"make_default_context() wasn't able to create a context on any of the {ndevices} "
        "detected devices:\n  " + "\n  ".join(failures)
    )


# }}}

# {{{ device data and occupancy


def _ceil_to(value: float, multiple: int = 1) -> int:
    return int(-(-value // multiple) * multiple)


class DeviceData:
    """Limits of a device that kernel generators size their launches by.

    Read from the driver: ``max_threads`` (per block), ``warp_size``, ``warps_per_mp``,
    ``thread_blocks_per_mp``, ``registers`` and ``shared_memory`` (per multiprocessor).

        devdata = DeviceData()           # the current context's device
        devdata.align_words(4)           # 16
    """

    def __init__(self, dev: cuda.Device | None = None) -> None:
        if dev is None:
            dev = cuda.Context.get_device()
        # (Duck-typed, as the original: anything with get_attribute, e.g. a test's stand-in.)
        require(dev, "get_attribute", "DeviceData", "a pycuda.driver.Device")
        attr = cuda.device_attribute
        self.max_threads = dev.get_attribute(attr.MAX_THREADS_PER_BLOCK)
        self.warp_size = dev.get_attribute(attr.WARP_SIZE)
        if not self.warp_size:
            raise ValueError(f"DeviceData: {dev!r} reports a warp size of {self.warp_size!r}")
        self.warps_per_mp = dev.get_attribute(attr.MAX_THREADS_PER_MULTIPROCESSOR) // self.warp_size
        self.thread_blocks_per_mp = dev.get_attribute(attr.MAX_BLOCKS_PER_MULTIPROCESSOR)
        self.registers = dev.get_attribute(attr.MAX_REGISTERS_PER_MULTIPROCESSOR)
        self.shared_memory = dev.get_attribute(attr.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
        # The driver keeps this much shared memory per block for itself (1 KiB since sm_80).
        self.reserved_shared_memory_per_block = dev.get_attribute(
            attr.RESERVED_SHARED_MEMORY_PER_BLOCK
        )
        # Fixed by the architecture since sm_20 and not reported by the driver (occupancy
        # calculator, CUDA C Programming Guide "Compute capabilities" tables).
        self.smem_alloc_granularity = 128
        self.smem_granularity = 32
        self.register_allocation_unit = "warp"
        self.register_allocation_granularity = 256

    def align(self, bytes: int, word_size: int = 4) -> int:
        """``bytes`` rounded up to a coalescing boundary for accesses of ``word_size``."""
        return _ceil_to(bytes, self.align_bytes(word_size))

    def align_dtype(self, elements: int, dtype_size: int) -> int:
        """``elements`` rounded up so that a row of them stays aligned."""
        return _ceil_to(elements, self.align_words(dtype_size))

    def align_words(self, word_size: int) -> int:
        """The alignment boundary in words of ``word_size`` bytes."""
        return self.align_bytes(word_size) // word_size

    def align_bytes(self, word_size: int = 4) -> int:
        """The alignment boundary in bytes for accesses of ``word_size`` (4, 8 or 16)."""
        if word_size == 4:
            return 64
        if word_size in (8, 16):
            return 128
        raise ValueError(f"no alignment possible for fetches of size {word_size}")

    def coalesce(self, thread_count: int) -> int:
        """``thread_count`` rounded up to a half-warp multiple."""
        return _ceil_to(thread_count, 16)

    @staticmethod
    def make_valid_tex_channel_count(size: int) -> int:
        """The smallest valid texture channel count (1, 2 or 4) holding ``size``."""
        for valid in (1, 2, 4):
            if size <= valid:
                return valid
        raise ValueError("could not enlarge argument to valid channel count")


class OccupancyRecord:
    """How many blocks of ``threads`` threads fit on one multiprocessor, and what limits them.

    Attributes: ``tb_per_mp``, ``limited_by`` ("device", "warps", "regs" or "smem"),
    ``warps_per_mp``, ``occupancy`` (active warps / maximum warps).

        OccupancyRecord(DeviceData(), threads=256, shared_mem=4096, registers=32).occupancy
    """

    def __init__(
        self, devdata: DeviceData, threads: int, shared_mem: int = 0, registers: int = 0
    ) -> None:
        require(devdata, "max_threads warp_size", "OccupancyRecord", "a DeviceData")
        if threads > devdata.max_threads:
            raise ValueError(f"too many threads: {threads} > {devdata.max_threads} per block")
        warps = _ceil_to(threads / devdata.warp_size)
        granularity = getattr(devdata, "register_allocation_granularity", 256)
        regs_per_block = warps * _ceil_to(registers * devdata.warp_size, granularity)
        reserved = getattr(devdata, "reserved_shared_memory_per_block", 0)
        smem_per_block = _ceil_to(shared_mem + reserved, devdata.smem_alloc_granularity)
        if regs_per_block > devdata.registers:
            raise ValueError(f"too many registers: {registers} per thread for {threads} threads")
        if shared_mem and smem_per_block > devdata.shared_memory:
            raise ValueError(f"too much shared memory: {shared_mem} bytes per block")

        self.tb_per_mp_limits = [
            (devdata.thread_blocks_per_mp, "device"),
            (devdata.warps_per_mp // warps, "warps"),
        ]
        if registers > 0:
            self.tb_per_mp_limits.append((devdata.registers // regs_per_block, "regs"))
        if shared_mem > 0:
            self.tb_per_mp_limits.append((devdata.shared_memory // smem_per_block, "smem"))
        self.tb_per_mp, self.limited_by = min(self.tb_per_mp_limits)
        self.warps_per_mp = self.tb_per_mp * warps
        self.occupancy = self.warps_per_mp / devdata.warps_per_mp


# }}}

# {{{ C types and kernel arguments


def dtype_to_ctype(dtype: Any, with_fp_tex_hack: bool = False) -> str:
    """The C type name of ``dtype`` (e.g. float32 -> 'float').

    With ``with_fp_tex_hack``, floating types map to the fp_tex_* types of pycuda-helpers.hpp
    that textures of double and complex values are declared with.
    """
    if with_fp_tex_hack:
        hack = {
            np.float32: "fp_tex_float",
            np.float64: "fp_tex_double",
            np.complex64: "fp_tex_cfloat",
            np.complex128: "fp_tex_cdouble",
        }.get(np.dtype(dtype).type)
        if hack is not None:
            return hack
    return _registry().dtype_to_ctype(dtype)


class Argument:
    """A kernel argument: a dtype and a name."""

    def __init__(self, dtype: Any, name: str) -> None:
        self.dtype = np.dtype(dtype)
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {self.dtype})"


class VectorArg(Argument):
    """A pointer argument: ``VectorArg(numpy.float32, "x").declarator()`` is
    ``"float *x"``."""

    struct_char = "P"

    def declarator(self) -> str:
        """The C declaration of this parameter, ``"float *x"``."""
        return f"{dtype_to_ctype(self.dtype)} *{self.name}"


class ScalarArg(Argument):
    """A by-value argument: ``ScalarArg(numpy.int32, "n").declarator()`` is 'int n'."""

    def declarator(self) -> str:
        """The C declaration of this parameter, ``"int n"``."""
        return f"{dtype_to_ctype(self.dtype)} {self.name}"

    @property
    def struct_char(self) -> str:
        """Its code in a ``Function.prepare`` format: the dtype's character, or ``"<n>s"``
        for a struct (or bfloat16) of ``n`` bytes."""
        # Structs, and bfloat16 (an ml_dtypes 'V' type the packer has no code for), travel as
        # their bytes: the dtype table's struct_char for them.
        return f"{self.dtype.itemsize}s" if self.dtype.kind == "V" else self.dtype.char


def parse_c_arg(c_arg: str) -> Argument:
    """A VectorArg or ScalarArg from a C declaration such as ``"const float *x"``."""
    return _registry().parse_c_arg_backend(c_arg, ScalarArg, VectorArg)


def get_arg_type(c_arg: str) -> str:
    """The struct character of a C argument declaration ('P' for pointers)."""
    return parse_c_arg(c_arg).struct_char


# }}}

# {{{ memoization per context

context_dependent_memoized_functions: list[Callable[..., Any]] = []


def context_dependent_memoize(func: Callable[..., Any]) -> Callable[..., Any]:
    """Cache ``func``'s results per (current context, arguments); clear_context_caches() drops
    them. Kernel generators use it so each context compiles a kernel once.
    """
    # Keyed by the context's handle (one cuCtxGetCurrent, no Context object per call); each
    # value holds the Context too, so that the handle cannot be reused while it is cached.
    cache: dict[Any, tuple[Any, Any]] = {}
    current_handle = _current_context_handle

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            key = (current_handle(), args, frozenset(kwargs.items()) if kwargs else None)
            return cache[key][0]
        except KeyError:
            pass
        except TypeError:  # (only hashing raises it here)
            given = ", ".join(type(a).__name__ for a in (*args, *kwargs.values()))
            raise TypeError(
                f"{func.__name__}() takes hashable arguments (dtypes, numbers, strings, "
                f"tuples), got ({given})"
            ) from None
        context = cuda.Context.get_current() if key[0] else None
        result = func(*args, **kwargs)
        cache[key] = (result, context)
        return result

    wrapper.clear_cache = cache.clear  # type: ignore[attr-defined]
    context_dependent_memoized_functions.append(wrapper)
    return wrapper


def memoize_method(method: Callable[..., Any]) -> Callable[..., Any]:
    """Cache ``method``'s result per instance and arguments: ``pytools.memoize_method``, which
    the original's ``pycuda.elementwise`` imports (and so offers). ``method.clear_cache(obj)``
    forgets ``obj``'s results."""
    if not callable(method):
        raise TypeError(f"memoize_method decorates a method, got {type(method).__name__}")
    attr = f"_memoize_dic_{getattr(method, '__name__', type(method).__name__)}"

    @functools.wraps(method)
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        key = (args, frozenset(kwargs.items())) if kwargs else args
        cache = getattr(self, attr, None)
        if cache is None:
            cache = {}
            # object's own __setattr__: works for classes that guard theirs (frozen ones).
            object.__setattr__(self, attr, cache)
        try:
            return cache[key]
        except KeyError:
            result = cache[key] = method(self, *args, **kwargs)
            return result

    def clear_cache(obj: Any) -> None:
        obj.__dict__.pop(attr, None)

    wrapper.clear_cache = clear_cache  # type: ignore[attr-defined]
    return wrapper


def clear_context_caches() -> None:
    """Forget every result of every context_dependent_memoize function, and each context's
    default allocator and memory pool (pycuda._default_allocator)."""
    for func in context_dependent_memoized_functions:
        func.clear_cache()  # type: ignore[attr-defined]
    _shared_modules.clear_recent()
    _default_allocator.forget()


# The caches hold kernels and Context objects; dropped before the interpreter tears down the
# extension, they are freed in order instead of being reported by nanobind as leaked at exit.
atexit.register(clear_context_caches)

# }}}

# {{{ test helpers


def mark_cuda_test(inner_f: Callable[..., Any]) -> Callable[..., Any]:
    """Run a test function inside a fresh default context, popped and cache-cleared after."""

    @functools.wraps(inner_f)
    def f(*args: Any, **kwargs: Any) -> Any:
        cuda.init()
        ctx = make_default_context()
        try:
            return inner_f(*args, **kwargs)
        finally:
            cuda.Context.pop()
            clear_context_caches()
            ctx.detach()

    try:
        import pytest
    except ImportError:
        return f
    return pytest.mark.cuda(f)


def init_cuda_context_fixture() -> Iterator[Any]:
    """A generator for a pytest fixture: yields a fresh default context, pops it after.

    context = pytest.fixture(init_cuda_context_fixture)
    """
    cuda.init()
    ctx = make_default_context()
    try:
        yield ctx
    finally:
        cuda.Context.pop()
        clear_context_caches()
        ctx.detach()


# }}}
