"""pycuda.elementwise: element-wise kernels written as one C statement over index ``i``.

    import numpy
    import pycuda.autoinit
    from pycuda import gpuarray
    from pycuda.elementwise import ElementwiseKernel

    lin_comb = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z",
        "z[i] = a*x[i] + b*y[i]",
        "linear_combination")
    x = gpuarray.to_gpu(numpy.random.rand(50).astype(numpy.float32))
    y = gpuarray.to_gpu(numpy.random.rand(50).astype(numpy.float32))
    z = gpuarray.empty_like(x)
    lin_comb(5, x, 6, y, z)

The generated kernel is a grid-stride loop with a 64-bit index ``i`` over ``n`` elements (the
size of the first array argument, or ``range=``/``slice=``). When the operation touches each
array only at ``[i]`` (the usual case), each thread takes trips of several elements (``i``,
``i + blockDim.x``, ...) with ``__restrict__`` pointers, so their loads are in flight together;
any other operation runs one element per trip. The same array may be passed for several
arguments (``z`` and ``x`` for ``x = 2*x``), but an element should then be written through one
of them only: the order of two stores to one element through different arguments is not kept.
Array arguments are indexed as flat memory, so every one must be contiguous, and all in the same
order (C or Fortran); others are refused with :exc:`ValueError` rather than computed wrongly.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pycuda import _driver, _dtypes, _elementwise_factories
from pycuda import driver as drv
from pycuda._elementwise_factories import *  # noqa: F403 - the original's get_*_kernel
from pycuda._elementwise_plans import _get_real_dtype  # noqa: F401 - the original's helper
from pycuda._launch_config import LaunchConfig, grid_stride_config, just_enough_config
from pycuda.tools import (
    Argument,
    ScalarArg,
    VectorArg,
    context_dependent_memoize,
    context_dependent_memoized_functions,
    dtype_to_ctype,
    memoize_method,  # noqa: F401 - the original's module offers it (from pytools)
    parse_c_arg,
)

__all__ = [
    "ElementwiseKernel",
    "ScalarArg",
    "VectorArg",
    "get_elwise_kernel",
    "get_elwise_kernel_and_types",
    "get_elwise_module",
    "get_elwise_range_module",
    "launch_config",
]
__all__ += _elementwise_factories.__all__

_THREADS_PER_BLOCK = 256
_MAX_LAUNCHES = 4096  # launch configurations remembered (then forgotten, and made again)
# The current context as a cache key: its handle (one cuCtxGetCurrent, no Context object).
_context_key = _driver._current_context_handle


# {{{ launch configuration


@context_dependent_memoize
def _device_counts() -> tuple[int, int]:
    dev = drv.Context.get_device()
    attr = drv.device_attribute
    return (
        dev.get_attribute(attr.MULTIPROCESSOR_COUNT),
        dev.get_attribute(attr.MAX_THREADS_PER_MULTIPROCESSOR),
    )


def launch_config(n: int, items_per_thread: int = 1, one_wave: bool | None = None) -> LaunchConfig:
    """The launch of a grid-stride kernel over ``n`` items on the current context's device.

    ``one_wave``: a grid of the blocks that fit on the device at once, each thread striding
    (the default for one item per trip); otherwise just enough blocks for one trip of
    ``items_per_thread`` items per thread (the default for several items per trip, which keep
    several loads in flight and stream fastest that way).
    """
    mps, threads_per_mp = _device_counts()
    threads = min(_THREADS_PER_BLOCK, threads_per_mp)
    if one_wave is None:
        one_wave = items_per_thread == 1
    if one_wave:
        return grid_stride_config(n, mps, threads_per_mp, threads, items_per_thread)
    return just_enough_config(n, threads, items_per_thread)


# (context handle, n, items) -> launch_config's (grid, block). Every flat launch (gpuarray's
# operators and ElementwiseKernel calls) asks, and a program repeats a few sizes. A handle that a
# later context reuses finds grids made for the earlier one's device: still correct (grid-stride
# loops, or just enough blocks), only sized for that device until clear_context_caches().
_GRID_BLOCKS: dict[tuple[Any, int, int], tuple[Any, Any]] = {}


def grid_block(n: int, items: int = 1) -> tuple[Any, Any]:
    """``launch_config(n, items)``'s grid and block, remembered per context."""
    key = (_context_key(), n, items)
    launch = _GRID_BLOCKS.get(key)
    if launch is None:
        if len(_GRID_BLOCKS) >= _MAX_LAUNCHES:
            _GRID_BLOCKS.clear()
        config = launch_config(n, items)
        launch = _GRID_BLOCKS[key] = (config.grid, config.block)
    return launch


def _forget_grid_blocks() -> None:
    _GRID_BLOCKS.clear()


_forget_grid_blocks.clear_cache = _forget_grid_blocks  # type: ignore[attr-defined]
context_dependent_memoized_functions.append(_forget_grid_blocks)


# }}}


# {{{ sources


def _split_arguments(arguments: str) -> list[str]:
    """Split a C parameter list on the commas outside template brackets."""
    parts, depth, current = [], 0, []
    for ch in arguments:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _parse_arguments(arguments: str | Sequence[Argument]) -> list[Argument]:
    if isinstance(arguments, str):
        return [parse_c_arg(arg) for arg in _split_arguments(arguments)]
    result = list(arguments)
    for arg in result:
        if not isinstance(arg, Argument):
            raise TypeError(
                f"arguments must be a C declaration string or a list of VectorArg/ScalarArg, "
                f"got an item {arg!r}"
            )
    return result


def _header(arguments: Sequence[Argument], preamble: str) -> str:
    """The includes of a kernel: the dtype table's headers of the arguments' dtypes and of the
    types the preamble names."""
    dtypes = (a.dtype for a in arguments)
    return _dtypes.includes(dtypes, preamble, first=("pycuda-complex.hpp",))


# Trips of this many elements per thread (element i, i + blockDim, ...) in the plain kernel,
# so each thread has that many loads in flight; 1 is the one-element grid-stride loop. Measured
# on an H200 for z = a*x + b*y: 102% of the copy bandwidth with 4 (99% with 2 or 8), 85% with 1.
_UNROLL = 4
# An operation that could leave the trip early or that changes i keeps the one-element loop.
_CONTROL = re.compile(r"\b(break|return|goto|__syncthreads|__syncwarp)\b")
_WRITES_I = re.compile(r"(?<![\w.])i\s*(\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=)|(\+\+|--)\s*i\b")
# Code that reads the original loop's names may rely on its order (thread tid of a block takes
# cta_start + tid, then every total_threads-th element): it keeps that loop.
_LOOP_NAMES = re.compile(r"(?<![\w.])(tid|cta_start|total_threads)\b")


def _unrollable(arguments: Sequence[Argument], operation: str, loop_prep: str,
                after_loop: str) -> bool:  # fmt: skip
    """Whether the trips of :data:`_UNROLL` elements may be used for ``operation``: it touches
    each array only at index ``i`` (so elements of different ``i`` never overlap, and the
    pointers may be ``__restrict__``, which lets a trip's loads go before its stores), does not
    change ``i`` and cannot leave the trip; ``loop_prep`` and ``after_loop`` use no array."""
    if _CONTROL.search(operation) or _WRITES_I.search(operation):
        return False
    if any(_LOOP_NAMES.search(code) for code in (operation, loop_prep, after_loop)):
        return False
    for arg in arguments:
        if not isinstance(arg, VectorArg):
            continue
        name = re.compile(r"(?<![\w.])" + re.escape(arg.name) + r"\b(\s*\[\s*i\s*\])?")
        if any(not m.group(1) for m in name.finditer(operation)):
            return False
        if name.search(loop_prep) or name.search(after_loop):
            return False
    return True


def _unroll_for(arguments: Sequence[Argument], operation: str, loop_prep: str,
                after_loop: str, use_range: bool) -> int:  # fmt: skip
    """Elements per thread and trip of the kernel :func:`_elwise_source` writes."""
    if use_range or _UNROLL <= 1:
        return 1
    return _UNROLL if _unrollable(arguments, operation, loop_prep, after_loop) else 1


def _count_arguments(use_range: bool) -> list[Argument]:
    """The arguments ``get_elwise_kernel_and_types`` appends, as the original's: the element
    count ``n`` (``uintp``), or ``start, stop, step`` (``intp``) for ``range=`` kernels."""
    if use_range:
        return [ScalarArg(np.intp, "start"), ScalarArg(np.intp, "stop"), ScalarArg(np.intp, "step")]
    return [ScalarArg(np.uintp, "n")]


def _elwise_source(
    arguments: Sequence[Argument],
    operation: str,
    name: str,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> str:
    """The source of ``get_elwise_kernel_and_types``' kernel: ``arguments`` and then the
    count arguments it appends."""
    full = list(arguments) + _count_arguments(use_range)
    return _kernel_source(full, operation, name, preamble, loop_prep, after_loop, use_range)


def _kernel_source(
    arguments: Sequence[Argument],
    operation: str,
    name: str,
    preamble: str,
    loop_prep: str,
    after_loop: str,
    use_range: bool,
) -> str:
    """A grid-stride kernel over ``operation`` with exactly ``arguments``: among them ``n``
    (or ``start, stop, step`` with ``use_range``), which its loop reads."""
    unroll = _unroll_for(arguments, operation, loop_prep, after_loop, use_range)
    if unroll > 1:
        params = ", ".join(
            f"{dtype_to_ctype(a.dtype)} *__restrict__ {a.name}"
            if isinstance(a, VectorArg)
            else a.declarator()
            for a in arguments
        )
    else:
        params = ", ".join(a.declarator() for a in arguments)
    if use_range:
        loop = f"""
    if (step < 0) {{
        for (i = start + pr_gid * step; i > stop; i += total_threads * step) {{
            {operation};
        }}
    }} else {{
        for (i = start + pr_gid * step; i < stop; i += total_threads * step) {{
            {operation};
        }}
    }}"""
    elif unroll > 1:
        # Each block takes tiles of unroll * blockDim elements, thread t elements t, t +
        # blockDim, ...: every access of a trip is coalesced, and whole trips need no test.
        loop = f"""
    const long long pr_tile = (long long)blockDim.x * {unroll};
    const long long pr_stride = (long long)gridDim.x * pr_tile;
    long long pr_base = (long long)blockIdx.x * pr_tile + threadIdx.x;
    for (; pr_base + {unroll - 1} * (long long)blockDim.x < n; pr_base += pr_stride) {{
        #pragma unroll
        for (int pr_k = 0; pr_k < {unroll}; ++pr_k) {{
            i = pr_base + pr_k * (long long)blockDim.x;
            {operation};
        }}
    }}
    #pragma unroll
    for (int pr_k = 0; pr_k < {unroll}; ++pr_k) {{
        i = pr_base + pr_k * (long long)blockDim.x;
        if (i < n) {{
            {operation};
        }}
    }}"""
    else:
        loop = f"""
    for (i = pr_gid; i < n; i += total_threads) {{
        {operation};
    }}"""
    return f"""{_header(arguments, preamble)}
{preamble}

extern "C" __global__ void {name}({params})
{{
    // tid, cta_start, total_threads and i: the names the original's kernels offered.
    const long long tid = threadIdx.x;
    const long long cta_start = (long long)blockDim.x * blockIdx.x;
    const long long pr_gid = cta_start + tid;
    const long long total_threads = (long long)gridDim.x * blockDim.x;
    (void)pr_gid;
    (void)total_threads;
    long long i;
    (void)i;
    {loop_prep};
{loop}
    {after_loop};
}}
"""


def _module(source: str, keep: bool, options: Sequence[str] | None) -> Any:
    from pycuda.compiler import SourceModule

    return SourceModule(source, options=options, keep=keep, no_extern_c=True)


def get_elwise_module(
    arguments: str | Sequence[Argument],
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """A SourceModule with the kernel ``name(arguments)``: ``operation`` for each ``i`` in
    ``[0, n)``. As in the original, ``arguments`` must include ``n`` (the element count, e.g.
    ``ScalarArg(numpy.uintp, "n")``); :func:`get_elwise_kernel_and_types` appends it."""
    args = _parse_arguments(arguments)
    source = _kernel_source(args, operation, name, preamble, loop_prep, after_loop, False)
    return _module(source, keep, options)


def get_elwise_range_module(
    arguments: str | Sequence[Argument],
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
    loop_prep: str = "",
    after_loop: str = "",
) -> Any:
    """As :func:`get_elwise_module`, for ``i`` in ``range(start, stop, step)``: ``arguments``
    must include ``start``, ``stop`` and ``step``."""
    args = _parse_arguments(arguments)
    source = _kernel_source(args, operation, name, preamble, loop_prep, after_loop, True)
    return _module(source, keep, options)


def get_elwise_kernel_and_types(
    arguments: str | Sequence[Argument],
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    use_range: bool = False,
    **kwargs: Any,
) -> tuple[Any, Any, list[Argument]]:
    """``(module, prepared function, arguments)``: the arguments end with the ones appended
    here, ``n`` (``uintp``), or ``start, stop, step`` (``intp``) with ``use_range``, and the
    function is prepared for all of them."""
    unknown = set(kwargs) - {"preamble", "loop_prep", "after_loop"}
    if unknown:
        raise TypeError(f"unexpected keyword arguments: {sorted(unknown)}")
    args = _parse_arguments(arguments) + _count_arguments(use_range)
    getter = get_elwise_range_module if use_range else get_elwise_module
    mod = getter(args, operation, name, keep, options, **kwargs)
    func = mod.get_function(name)
    func.prepare("".join(a.struct_char for a in args))
    return mod, func, args


def get_elwise_kernel(
    arguments: str | Sequence[Argument],
    operation: str,
    name: str = "kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    **kwargs: Any,
) -> Any:
    """The prepared function of :func:`get_elwise_kernel_and_types`."""
    return get_elwise_kernel_and_types(arguments, operation, name, keep, options, **kwargs)[1]


# }}}


# {{{ ElementwiseKernel


def _array_layout(arg: Any, name: str) -> tuple[int, str]:
    """``(size, order)`` of an array argument, order 'C', 'F' or '' (both: 1-D or trivial)."""
    flags = arg.flags
    c, f = flags.c_contiguous, flags.f_contiguous
    if not (c or f):
        raise ValueError(
            f"ElementwiseKernel argument '{name}' is not contiguous (shape {arg.shape}, strides "
            f"{arg.strides}); its elements are indexed as flat memory. Pass a contiguous copy "
            f"(arr.copy()) instead"
        )
    return arg.size, ("" if c and f else ("C" if c else "F"))


class ElementwiseKernel:
    """A kernel that runs ``operation`` (C, using index ``i``) for every element.

    ``arguments`` is a C parameter list (``"float a, float *x"``) or a list of
    :class:`VectorArg`/:class:`ScalarArg`. Call it with one value per argument: a GPUArray for
    each pointer, a number for each scalar. ``preamble`` goes before the kernel; ``loop_prep``
    and ``after_loop`` run in each thread before and after its loop.
    """

    def __init__(
        self,
        arguments: str | Sequence[Argument],
        operation: str,
        name: str = "kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        **kwargs: Any,
    ) -> None:
        unknown = set(kwargs) - {"preamble", "loop_prep", "after_loop"}
        if unknown:
            raise TypeError(f"ElementwiseKernel got unexpected keyword arguments {sorted(unknown)}")
        self.arguments = _parse_arguments(arguments)
        if not any(isinstance(a, VectorArg) for a in self.arguments):
            raise ValueError(
                "ElementwiseKernel can only be used with functions that have at "
                "least one vector argument"
            )
        self.operation = operation
        self.name = name
        self.keep = keep
        self.options = options
        self.gen_kwargs = kwargs
        self._kernels: dict[Any, Any] = {}
        self._items: int | None = None  # elements per thread and trip of the plain kernel

    def _compiled(self, use_range: bool) -> tuple[Any, ...]:
        """(module, prepared function, its arguments, context) for this context: compiled on
        first use, then cached."""
        if not use_range and self._items is None:
            self._items = _unroll_for(
                self.arguments, self.operation, self.gen_kwargs.get("loop_prep", ""),
                self.gen_kwargs.get("after_loop", ""), False,
            )  # fmt: skip
        key = (_context_key(), use_range)
        compiled = self._kernels.get(key)
        if compiled is None:
            mod, func, args = get_elwise_kernel_and_types(
                self.arguments,
                self.operation,
                self.name,
                self.keep,
                self.options,
                use_range=use_range,
                **self.gen_kwargs,
            )
            # The Context is kept with them: its handle (the key) is not reused meanwhile.
            compiled = self._kernels[key] = (mod, func, args, drv.Context.get_current())
        return compiled

    def get_kernel(self, use_range: bool) -> Any:
        """The prepared function for this context (compiled on first use, then cached)."""
        return self._compiled(use_range)[1]

    def generate_stride_kernel_and_types(self, use_range: bool) -> tuple[Any, Any, list[Argument]]:
        """``(module, prepared function, arguments)`` for this context, the arguments ending
        with the ones the kernel appends (``n``, or ``start, stop, step`` with ``use_range``)."""
        mod, func, args, _ = self._compiled(use_range)
        return mod, func, list(args)

    def get_texref(self, name: str, use_range: bool = False) -> Any:
        """The texture reference `name` declared in this kernel's ``preamble``
        (``texture<float, 1> t;``); bind it (``GPUArray.bind_to_texref_ext``) before calling."""
        return self._compiled(use_range)[0].get_texref(name)

    def _invocation_args(self, args: tuple[Any, ...]) -> tuple[list[Any], int | None]:
        if len(args) != len(self.arguments):
            raise TypeError(
                f"ElementwiseKernel '{self.name}' takes {len(self.arguments)} arguments "
                f"({', '.join(a.name for a in self.arguments)}), got {len(args)}"
            )
        values: list[Any] = []
        size: int | None = None
        orders: set[str] = set()
        for arg, decl in zip(args, self.arguments, strict=True):
            if isinstance(decl, VectorArg):
                if len(arg.shape) <= 1 and getattr(arg, "_c", None) is True:
                    # A GPUArray known to be contiguous, 0-d or 1-d: C and F order at once.
                    if size is None:
                        size = arg.size
                    values.append(arg.ptr)
                elif hasattr(arg, "gpudata") and hasattr(arg, "flags"):
                    n, order = _array_layout(arg, decl.name)
                    if order:
                        orders.add(order)
                    if size is None:
                        size = n
                    values.append(arg.ptr if hasattr(arg, "ptr") else arg.gpudata)
                else:
                    values.append(arg)  # a DeviceAllocation or a raw pointer
            else:
                values.append(arg)
        if len(orders) > 1:
            raise ValueError(
                f"ElementwiseKernel '{self.name}': C-contiguous and Fortran-contiguous array "
                f"arguments cannot be mixed (index i would mean different elements)"
            )
        return values, size

    def __call__(
        self,
        *args: Any,
        range: slice | None = None,  # noqa: A002 - the original's keyword
        slice: slice | None = None,  # noqa: A002
        stream: Any = None,
    ) -> None:
        """Run the kernel. ``range=slice(start, stop, step)`` or ``slice=`` (relative to the
        first array's size, as ``slice.indices``) select the indices; ``stream`` queues it."""
        values, size = self._invocation_args(args)
        if range is not None and slice is not None:
            raise TypeError("may not specify both range and slice keyword arguments")
        if slice is not None:
            if size is None:
                raise ValueError("slice= needs an array argument to take its size from")
            range = builtins.slice(*slice.indices(size))
        if range is not None:
            start = 0 if range.start is None else int(range.start)
            step = 1 if range.step is None else int(range.step)
            if step == 0:
                raise ValueError("range step must not be zero")
            stop = int(range.stop)
            count = max(0, -(-(stop - start) // step))
            values += [start, stop, step]
            func = self.get_kernel(True)
        else:
            if size is None:
                raise ValueError(
                    "ElementwiseKernel needs a GPUArray argument (or range=) to know how many "
                    "elements to process"
                )
            count = size
            values.append(size)
            func = self.get_kernel(False)
        if count == 0:
            return
        # Trips of several elements stream fastest with a grid of one trip per thread; the
        # one-element loop with one resident wave (measured on an H200: 86% of the copy
        # bandwidth against 81% for one element per thread).
        grid, block = grid_block(count, 1 if range is not None else (self._items or 1))
        if stream is None:
            func.prepared_call(grid, block, *values)
        else:
            func.prepared_async_call(grid, block, stream, *values)


# }}}
