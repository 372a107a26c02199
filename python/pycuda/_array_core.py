"""pycuda._array_core: the ground floor of the array layer, which every array module builds on.

It owns what the operations share and nothing above it may hold a second copy of:
- the array class (GPUArray registers itself here) and how results are made (``new_result``,
  through a subclass's ``_new_like_me``/``_new_with_changes``);
- each context's state: the one allocator arrays hold (``_default_allocator``'s for the
  context: its caching pool's unless another was chosen) and its tables of launch decisions
  (``state()``: flat launches, grids, reduction plans), with their C++ half ``FLAT``, all
  forgotten by ``tools.clear_context_caches()``;
- the one question launch sizing asks the device (``device_counts()``);
- one ``launch()`` of a prepared function, and the element-wise machinery every module launches
  through (``kernel``, ``elementwise``, ``scalar_value``);
- ``seams``: the few things tests replace (the kernel compiler, the default allocator, the
  copy functions, the launch configuration, the context handle).

Operation modules (reductions, scans, gather, cumath, the module functions, the plans of the
operators) import this module and never ``pycuda.gpuarray``.
"""

from __future__ import annotations

import builtins
import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycuda import _default_allocator, _driver, compiler
from pycuda import driver as drv
from pycuda._array_kernels import HELPERS, Operand, kernel_source
from pycuda._broadcast import broadcast_strides
from pycuda._dtypes import scalar_value  # noqa: F401 - the modules' scalar operands
from pycuda._kernel_layout import STRIDED, kernel_layout, rows_launch, rows_layout, vector_width
from pycuda._launch_config import (
    THREADS_PER_BLOCK,
    LaunchConfig,
    grid_stride_config,
    just_enough_config,
)
from pycuda._nvtx import AUTO, AutoRange
from pycuda._shape import compact_strides, like_strides, size_of, span_bytes
from pycuda.tools import context_dependent_memoize, context_dependent_memoized_functions

ArrayBase = _driver.ArrayBase
KERNEL_NAME = "pycuda_elwise"
MAX_ENTRIES = 4096  # entries of each cache of a context's state (then forgotten, remade)
# Below this many elements the strided kernels split indices in 32 bits.
_INDEX32_LIMIT = 2**31


# {{{ the array class


class _Registry:
    array_class: Any = None
    listeners: list[Callable[[type], None]] = []


def register_array_class(cls: type) -> None:
    """Called once by pycuda.gpuarray with GPUArray, the class new arrays are made of."""
    _Registry.array_class = cls
    for listener in _Registry.listeners:
        listener(cls)


def on_register(listener: Callable[[type], None]) -> None:
    """Call ``listener(cls)`` when the array class registers (the C++ flat launches serve its
    exact instances)."""
    _Registry.listeners.append(listener)
    if _Registry.array_class is not None:
        listener(_Registry.array_class)


def array_class() -> Any:
    """GPUArray (the registered array class)."""
    cls = _Registry.array_class
    if cls is None:
        raise RuntimeError(
            "no array class is registered: import pycuda.gpuarray before making arrays "
            "(the modules that return new arrays import it themselves)"
        )
    return cls


def is_array(x: Any) -> bool:
    """Whether ``x`` is a GPUArray (of any subclass)."""
    return isinstance(x, ArrayBase)


# }}}

# {{{ the device, and seams: what tests replace


@context_dependent_memoize
def device_counts() -> tuple[int, int]:
    """The current context's device: (multiprocessors, most resident threads per
    multiprocessor), read once per context. The one question the package's launch sizing asks
    the device (pycuda._launch_config turns the answer into waves and grids)."""
    dev = drv.Context.get_device()
    attr = drv.device_attribute
    return (
        dev.get_attribute(attr.MULTIPROCESSOR_COUNT),
        dev.get_attribute(attr.MAX_THREADS_PER_MULTIPROCESSOR),
    )


def device_launch_config(
    n: int, items_per_thread: int = 1, one_wave: bool | None = None
) -> LaunchConfig:
    """The launch of a grid-stride kernel over ``n`` items on the current context's device.

    ``one_wave``: a grid of the blocks that fit on the device at once, each thread striding
    (the default for one item per trip); otherwise just enough blocks for one trip of
    ``items_per_thread`` items per thread (the default for several items per trip, which keep
    several loads in flight and stream fastest that way).
    """
    mps, threads_per_mp = device_counts()
    threads = min(THREADS_PER_BLOCK, threads_per_mp)
    if one_wave is None:
        one_wave = items_per_thread == 1
    if one_wave:
        return grid_stride_config(n, mps, threads_per_mp, threads, items_per_thread)
    return just_enough_config(n, threads, items_per_thread)


@context_dependent_memoize
def _compiled_kernel(
    kind: str, out_dtype: np.dtype, operands: tuple[Operand, ...], expr: str, p: Any
) -> Any:
    source, fmt = kernel_source(kind, KERNEL_NAME, out_dtype, operands, expr, p)
    func = compiler.SourceModule(HELPERS + source, no_extern_c=True).get_function(KERNEL_NAME)
    func.prepare(fmt)
    return func


class Seams:
    """The replaceable parts (tests/host_device.py runs the kernels on the CPU through them).

    A test that replaces one also starts with an empty ``STATES`` (they are kept there)."""

    kernel: Callable[..., Any] = staticmethod(_compiled_kernel)
    """``kernel(kind, out_dtype, operands, expr, p)``: the prepared element-wise kernel
    (``_array_kernels.kernel_source`` names the kinds)."""
    default_allocator: Callable[[], Callable[[int], Any]] = staticmethod(
        _default_allocator.context_allocator
    )
    """The allocator of a new context's arrays: the context's own (pycuda._default_allocator:
    the allocate of its DeviceMemoryPool, unless ``pycuda.tools.set_default_allocator`` or
    ``$PYCUDA_DEFAULT_ALLOCATOR`` chose another), which In/Out/InOut take their copies from."""
    driver: Any = _driver
    """The copy and set functions arrays use (memcpy_htod/dtoh/dtod[_async], memset_d8...)."""
    launch_config: Callable[..., Any] = staticmethod(device_launch_config)
    """``launch_config(n, items)``: the grid and block of a flat launch."""
    context_handle: Callable[[], int] = staticmethod(_driver._current_context_handle)
    """The current context's handle (0 without one): the key of its state."""


seams = Seams()


# }}}

# {{{ per-context state


def _kept(table: dict[Any, Any], key: Any, value: Any) -> Any:
    """``table[key] = value`` (forgetting the table once it holds MAX_ENTRIES); returns value."""
    if len(table) >= MAX_ENTRIES:
        table.clear()
    table[key] = value
    return value


class ContextState:
    """What the array layer keeps per context: the context (so that its handle, the key, is not
    reused while kept), the allocator its arrays share, and its launch decisions, one table per
    kind (each bounded by MAX_ENTRIES), which the hot paths read directly and these accessors
    fill on a miss:

    - ``plans``: the operators' flat launches, ``(Plan, n, width)`` -> ``(prepared_call, grid,
      block, Function)`` (:meth:`flat_launch`; pycuda._operators);
    - ``grids``: ``(n, items)`` -> ``(grid, block)`` of a flat launch (:meth:`grid`);
    - ``reductions``: ``(ReductionKernel, n, aligned)`` -> its ReductionPlan (:meth:`reduction`;
      whole-array reductions by their kernel, however they are called);
    - ``reduction_kernels``: ``(kernel factory, dtype)`` -> the factory's ReductionKernel, or
      None where plain calls of it have no plan (pycuda._reduction_kernel.reduce_whole).

    The C++ half of the same decisions is ``FLAT`` (forgotten with the states)."""

    __slots__ = ("allocate", "context", "flat", "grids", "plans", "reduction_kernels", "reductions")

    def __init__(self, context: Any, allocate: Callable[[int], Any]) -> None:
        self.context = context
        self.allocate = allocate
        # Whether the C++ flat launches can serve this context: they allocate from a
        # DeviceMemoryPool or a StreamOrderedAllocator only (not from a test's stand-in).
        self.flat = isinstance(allocate, _driver.StreamOrderedAllocator) or isinstance(
            getattr(allocate, "__self__", None), _driver.DeviceMemoryPool
        )
        self.plans: dict[tuple[Any, int, int], tuple[Any, ...]] = {}
        self.grids: dict[tuple[int, int], tuple[Any, Any]] = {}
        self.reductions: dict[tuple[Any, int, bool], Any] = {}
        self.reduction_kernels: dict[tuple[Any, np.dtype], Any] = {}

    def remember(self, key: tuple[Any, int, int], launch: tuple[Any, ...]) -> tuple[Any, ...]:
        """``plans[key] = launch``: a flat launch ``(prepared_call, grid, block, Function)``
        the operators made for ``key`` = ``(plan, n, width)``; returns ``launch``."""
        return _kept(self.plans, key, launch)

    def flat_launch(self, plan: Any, n: int, width: int) -> tuple[Any, ...]:
        """``(prepared_call, grid, block, Function)`` of the flat kernel of ``plan`` (an
        operator's Plan: ``result``, ``operands``, ``expr``) over ``n`` elements at vector
        width ``width``, made on first use and kept in ``plans``."""
        launch = self.plans.get((plan, n, width))
        if launch is None:
            func = seams.kernel("flat", plan.result, plan.operands, plan.expr, width)
            grid, block = self.grid(n, width)
            launch = self.remember((plan, n, width), (func.prepared_call, grid, block, func))
        return launch

    def grid(self, n: int, items: int) -> tuple[Any, Any]:
        """``(grid, block)`` of a flat launch over ``n`` elements, ``items`` per thread and
        trip (``seams.launch_config``'s), kept in ``grids``."""
        launch = self.grids.get((n, items))
        if launch is None:
            config = seams.launch_config(n, items)
            launch = _kept(self.grids, (n, items), (config.grid, config.block))
        return launch

    def reduction(self, kernel: Any, n: int, aligned: bool) -> Any:
        """The ReductionPlan of ``kernel`` (a one-array ReductionKernel) over ``n`` elements,
        with 16-byte loads where ``aligned``: the kernel's own decision (its
        ``_launch_plan``), kept in ``reductions``."""
        plan = self.reductions.get((kernel, n, aligned))
        if plan is None:
            plan = _kept(self.reductions, (kernel, n, aligned), kernel._launch_plan(n, aligned))
        return plan

    def reduction_kernel(self, kernel_of: Callable[[np.dtype], Any], dtype: np.dtype) -> Any:
        """``kernel_of(dtype)`` (a memoized factory of ReductionKernels, whose call costs more
        than this look-up) where it reduces plain arrays of ``dtype`` by a plan (its
        ``_single`` says so), else None; kept in ``reduction_kernels``. Raises what
        ``kernel_of`` raises."""
        key = (kernel_of, dtype)
        if key in self.reduction_kernels:
            return self.reduction_kernels[key]
        kernel = kernel_of(dtype)
        single = kernel._single
        return _kept(self.reduction_kernels, key, kernel if single and single[0] == dtype else None)


# The current context's handle (0 without one) -> its state.
STATES: dict[int, ContextState] = {}


def _new_state() -> ContextState:
    handle = seams.context_handle()
    context = drv.Context.get_current() if handle else None
    state_ = STATES[handle] = ContextState(context, seams.default_allocator())
    return state_


def state() -> ContextState:
    """The current context's state (made on first use)."""
    return STATES.get(seams.context_handle()) or _new_state()


def context_allocator() -> Callable[[int], Any]:
    """The allocator of arrays that are given none: the current context's state's
    ``allocate`` (by default pycuda._default_allocator.context_allocator(), the allocate of its
    pool), the same object for every such array (the flat launches know them by it)."""
    return (STATES.get(seams.context_handle()) or _new_state()).allocate


def default_pool() -> Any:
    """The current context's DeviceMemoryPool (whose allocate arrays hold by default)."""
    return _default_allocator.context_pool()


# The C++ half of the launch cache (bindings/flat_launches.cpp): the flat launches of the
# binary operators and the one-block whole-array reductions, served without running Python.
# pycuda._operators binds it to GPUArray and its Python fallback; forgotten with the states.
FLAT = _driver.FlatLaunches(MAX_ENTRIES)


def _forget_states() -> None:
    STATES.clear()
    FLAT.clear()


# tools.clear_context_caches() forgets the states with the memoized kernels.
_forget_states.clear_cache = _forget_states  # type: ignore[attr-defined]
context_dependent_memoized_functions.append(_forget_states)
# A new default-allocator choice reaches each context through a new state.
_default_allocator.on_change(_forget_states)


def grid_block(n: int, items: int = 1) -> tuple[Any, Any]:
    """``seams.launch_config(n, items)``'s grid and block, kept in the context's state."""
    st = STATES.get(seams.context_handle()) or _new_state()
    return st.grids.get((n, items)) or st.grid(n, items)


# }}}

# {{{ launching


def launch(
    func: Any, grid: Any, block: Any, stream: Any, args: Sequence[Any], *, ranged: bool = False
) -> None:
    """``func.prepared_call`` on the legacy stream, or ``prepared_async_call`` on ``stream``;
    inside an NVTX range named by the kernel where pycuda's automatic ranges are on."""
    if AUTO.on and not ranged:
        with AutoRange(getattr(func, "function_name", "kernel")):
            return launch(func, grid, block, stream, args, ranged=True)
    if stream is None:
        func.prepared_call(grid, block, *args)
    else:
        func.prepared_async_call(grid, block, stream, *args)


@functools.lru_cache(maxsize=1024)
def _layout(shape: tuple[int, ...], strides: tuple[Any, ...], itemsizes: tuple[int, ...]) -> Any:
    """kernel_layout, remembered: a program's strided operations repeat a few layouts."""
    return kernel_layout(shape, strides, itemsizes)


# Blocks of a rows kernel at most: rows past them are taken by the kernel's loop
# (_kernel_layout.rows_launch). About 48 a multiprocessor of an H100/H200, where 32-64 a
# multiprocessor measured best; a smaller GPU just runs more waves of them.
_ROWS_MAX_BLOCKS = 6144


@functools.lru_cache(maxsize=1024)
def _rows_plan(layout: Any, itemsizes: tuple[int, ...], alignments: tuple[int, ...]) -> Any:
    """``(RowsLayout, (grid, block))`` of a strided ``layout`` whose operands start at
    addresses of these residues mod 16 (all the widths depend on), or None where its rows
    are too short for a rows kernel or an operand is strided along them."""
    rl = rows_layout(layout, itemsizes, alignments)
    if STRIDED in rl.inner:
        # An operand strided along the rows (x[::2]) reads at width 1 here, at 32% of the
        # copy on an H200 against the element-wise strided kernel's 60%: that one serves it.
        return None
    rows = size_of(layout.shape[:-1])
    geometry = rows_launch(rows, layout.shape[-1], rl.width, _ROWS_MAX_BLOCKS)
    return None if geometry is None else (rl, geometry)


def _rows_launch(
    out: Any,
    layout: Any,
    itemsizes: list[int],
    addresses: list[int],
    args: list[Any],
    ops: tuple[Operand, ...],
    expr: str,
    stream: Any,
) -> bool:
    """Launch the rows kernel of a strided ``layout`` (``args``: the pointers and scalars,
    then ``n``); False, launching nothing, where its rows are too short for it."""
    plan = _rows_plan(layout, tuple(itemsizes), tuple(a & 15 for a in addresses))
    if plan is None:
        return False
    rl, (grid, block) = plan
    rows = out.size // layout.shape[-1]
    row_args = args[:-1] + [rows, layout.shape[-1], *layout.shape[:-1]]
    for s in layout.strides:
        row_args += s[:-1]
    row_args += [s[-1] for s in layout.strides]
    kind = "rows32" if rows < _INDEX32_LIMIT else "rows"
    launch(seams.kernel(kind, out.dtype, ops, expr, rl), grid, block, stream, row_args)
    return True


def elementwise(out: Any, inputs: Sequence[Any], expr: str, stream: Any = None) -> None:
    """``out[...] = expr(inputs)`` element by element; inputs are arrays (broadcast to
    ``out.shape``) or ``(value, dtype)`` scalars."""
    n = out.size
    if n == 0:
        return
    operands: list[Operand] = []
    strides = [out.strides]
    itemsizes = [out.dtype.itemsize]
    ptrs = [out.ptr]
    for item in inputs:
        if isinstance(item, ArrayBase):
            operands.append(Operand(item.dtype))
            strides.append(broadcast_strides(item.shape, item.strides, out.shape))
            itemsizes.append(item.dtype.itemsize)
            ptrs.append(item.ptr)
        else:
            operands.append(Operand(np.dtype(item[1]), True))
    layout = _layout(out.shape, tuple(strides), tuple(itemsizes))
    addresses = [p + o for p, o in zip(ptrs, layout.offsets, strict=True)]
    args: list[Any] = [addresses[0]]
    k = 1
    for item, op in zip(inputs, operands, strict=True):
        if op.scalar:
            args.append(scalar_value(item[0], op.dtype))
        else:
            args.append(addresses[k])
            k += 1
    args.append(n)
    ops = tuple(operands)
    if layout.contiguous:
        width = builtins.min(
            vector_width(s, [a]) for s, a in zip(itemsizes, addresses, strict=True)
        )
        func = seams.kernel("flat", out.dtype, ops, expr, width)
        grid, block = grid_block(n, width)
        launch(func, grid, block, stream, args)
        return
    if _rows_launch(out, layout, itemsizes, addresses, args, ops, expr, stream):
        return
    args += list(layout.shape)
    for s in layout.strides:
        args += list(s)
    kind = "strided32" if n < _INDEX32_LIMIT else "strided"
    func = seams.kernel(kind, out.dtype, ops, expr, layout.ndim)
    grid, block = grid_block(n, 1)
    launch(func, grid, block, stream, args)


# }}}

# {{{ results and views


class ViewPointer(_driver.PointerHolderBase):
    """A view's ``gpudata``: its first element's address, which every kernel call and memcpy
    takes as a device pointer (a plain int would be packed as an integer by ``Function()``).
    It keeps the viewed allocation alive."""

    def __init__(self, ptr: int, owner: Any) -> None:
        super().__init__()
        self.ptr = ptr
        self.owner = owner

    def get_pointer(self) -> int:
        return self.ptr

    def __repr__(self) -> str:
        return f"<view pointer 0x{self.ptr:x}>"


# Subclasses of GPUArray whose constructor does not take GPUArray's arguments (reikna's Array
# takes a thread first): _new_with_changes makes plain GPUArrays for them, as the original's
# views are.
FOREIGN_CONSTRUCTORS: weakref.WeakSet[type] = weakref.WeakSet()


def takes_array_arguments(cls: type) -> bool:
    """Whether ``cls(shape, dtype, allocator, base=, gpudata=, strides=)`` may be called."""
    return cls.__init__ is _Registry.array_class.__init__ or cls not in FOREIGN_CONSTRUCTORS


def checked_result(result: Any, shape: tuple[int, ...], dtype: np.dtype, owner: Any) -> Any:
    """``result`` of a subclass's _new_like_me, checked to be what the operation writes."""
    if not isinstance(result, ArrayBase) or result.shape != shape or result.dtype != dtype:
        got = (
            f"shape {result.shape} and dtype {result.dtype}"
            if isinstance(result, ArrayBase)
            else type(result).__name__
        )
        raise TypeError(
            f"{type(owner).__name__}._new_like_me({dtype}) must give a GPUArray of shape "
            f"{shape} and dtype {dtype}, got {got}"
        )
    return result


def new_array(
    shape: Any, dtype: Any, allocator: Any = None, strides: Any = None, order: str = "C"
) -> Any:
    """A new GPUArray (of the registered class)."""
    return array_class()(shape, dtype, allocator, strides=strides, order=order)


def to_device(ary: np.ndarray, allocator: Any = None) -> Any:
    """A new GPUArray holding a copy of the host array ``ary`` (its axis order kept)."""
    ary = np.asarray(ary)
    strides = compact_strides(ary.shape, ary.strides, ary.dtype.itemsize)
    result = _Registry.array_class(ary.shape, ary.dtype, allocator, strides=strides)
    result.set(ary)
    return result


def new_result(
    a: Any, shape: tuple[int, ...], dtype: np.dtype, b: Any = None, allocator: Any = None
) -> Any:
    """The C-ordered result of shape ``shape`` of an operation on ``a`` (and ``b``): made by
    the operand whose shape it has, as the original's _get_broadcasted_binary_op_result (by
    its _new_like_me; by _new_with_changes where neither operand has that shape or another
    ``allocator`` is asked for)."""
    owner = a
    if a.shape != shape and isinstance(b, ArrayBase) and b.shape == shape:
        owner = b
    cls = _Registry.array_class
    if type(owner) is cls:
        return cls(shape, dtype, allocator or owner.allocator)
    if owner.shape == shape and (allocator is None or allocator is owner.allocator):
        return checked_result(owner._new_like_me(dtype), shape, dtype, owner)
    return owner._new_with_changes(None, 0, shape=shape, dtype=dtype, allocator=allocator)


def like(a: Any, dtype: Any = None) -> Any:
    """A result of ``a``'s shape and ``dtype``: made by ``_new_like_me`` for a subclass, else
    in ``a``'s axis order (NumPy's ``order="K"``)."""
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    cls = _Registry.array_class
    if type(a) is not cls:
        return checked_result(a._new_like_me(dtype), a.shape, dtype, a)
    itemsize = a.dtype.itemsize
    strides = like_strides(a.shape, a.strides, itemsize, "K")
    strides = tuple(s // itemsize * dtype.itemsize for s in strides)
    return cls(a.shape, dtype, a.allocator, strides=strides)


def empty_0d(dtype: np.dtype, allocator: Callable[[int], Any] | None) -> Any:
    """``GPUArray((), dtype, allocator)`` for a reduction's result, without the general checks."""
    if not allocator:
        allocator = context_allocator()
    gpudata = allocator(dtype.itemsize)
    return _Registry.array_class._fresh((), dtype, (), 1, allocator, gpudata, int(gpudata))


def overlaps(a: Any, b: Any) -> bool:
    """True when ``b``'s bytes may overlap ``a``'s in a different layout (read before write
    is then not guaranteed per element, so ``b`` must be copied first)."""
    if a.size == 0 or b.size == 0 or a is b:
        return False
    if a.ptr == b.ptr and a.strides == b.strides and a.shape == b.shape:
        return False
    alo, ahi = span_bytes(a.shape, a.strides, a.dtype.itemsize)
    blo, bhi = span_bytes(b.shape, b.strides, b.dtype.itemsize)
    return a.ptr + alo < b.ptr + bhi and b.ptr + blo < a.ptr + ahi


def require_array_out(out: Any) -> None:
    """TypeError unless ``out`` (an ``out=`` argument) is a GPUArray."""
    if not isinstance(out, ArrayBase):
        raise TypeError(f"out must be a GPUArray, got {type(out).__name__}")


def check_out(out: Any, shape: tuple[int, ...], dtype: np.dtype, op: str) -> None:
    """NumPy's checks of an ``out=`` array for ``op``: a GPUArray of this shape and dtype."""
    require_array_out(out)
    if out.shape != shape:
        raise ValueError(f"{op}: out has shape {out.shape}, expected {shape}")
    if out.dtype != dtype:
        raise TypeError(f"{op}: out has dtype {out.dtype}, expected {dtype}")


# }}}
