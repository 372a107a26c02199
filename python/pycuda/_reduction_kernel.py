"""ReductionKernel: a reduction of whole arrays to one value (pycuda.reduction, which re-exports
it, says how it runs), and its launch plans: per context, what a call on one plain array
launches, so that gpuarray.sum/max/min look their launches up instead of deciding them again."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from pycuda import _array_core as core
from pycuda import _dtypes, compiler
from pycuda._arg_checks import check_array_dtype, indexed_at_i
from pycuda._launch_config import one_wave, resident_blocks
from pycuda._reduction_source import (  # noqa: F401 - the original's module functions
    BLOCK_SIZE,
    get_reduction_kernel_and_types,
    get_reduction_module,
    make_plan,
    reduction_arguments,
)
from pycuda.tools import (
    VectorArg,
)


class ReductionKernel:
    """A reduction of one or more arrays to one value of ``dtype_out``.

    ``map_expr`` (in terms of ``i`` and the ``arguments``; default ``in[i]``) gives each
    element's value, ``reduce_expr`` (in ``a`` and ``b``; associative and commutative) combines
    two, ``neutral`` is its identity. Calling it returns a 0-d GPUArray.

        krnl = ReductionKernel(numpy.float32, neutral="0", reduce_expr="a+b",
                               map_expr="x[i]*y[i]", arguments="float *x, float *y")
        dot = krnl(x_gpu, y_gpu).get()
    """

    def __init__(
        self,
        dtype_out: Any,
        neutral: Any,
        reduce_expr: str,
        map_expr: str | None = None,
        arguments: Any = None,
        name: str = "reduce_kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        preamble: str = "",
        *,
        _out_ctype: str | None = None,
        _final: tuple[Any, str, str] | None = None,
        _shuffle: bool | None = None,
    ) -> None:
        self.dtype_out = np.dtype(dtype_out)
        self.arguments = reduction_arguments(arguments)
        # _final: (result dtype, its C type, expression in `a`) when the result is not out_type.
        self.result_dtype = np.dtype(_final[0]) if _final else self.dtype_out
        plan = make_plan(
            self.dtype_out, neutral, reduce_expr, map_expr, self.arguments, name, preamble,
            _out_ctype, _final, _shuffle,
        )  # fmt: skip
        self._plan = plan
        self.source = plan.source
        self.module = compiler.SourceModule(
            plan.source, options=options, keep=keep, no_extern_c=True
        )
        fmt = "P" + "".join(a.struct_char for a in self.arguments) + "q"
        self.stage1_func = self.module.get_function(f"{name}_stage1")
        self.stage1_func.prepare(fmt)
        self.stage1_vec_func = None
        if plan.vector_args is not None:
            self.stage1_vec_func = self.module.get_function(f"{name}_stage1_vec")
            self.stage1_vec_func.prepare(fmt)
        self.stage2_func = self.module.get_function(f"{name}_stage2")
        self.stage2_func.prepare("PPq")
        sms, per_sm = core.device_counts()
        fallback = one_wave(per_sm // plan.block, sms)
        # One resident wave: more blocks than fit at once would only queue behind the first.
        self._max_blocks = {
            f: resident_blocks(f, plan.block, sms, fallback)
            for f in (self.stage1_func, self.stage1_vec_func)
            if f is not None
        }
        self._vector_names = [a.name for a in self.arguments if isinstance(a, VectorArg)]
        # The arrays the map reads at [i] only: n elements each, so an array of a smaller
        # dtype than declared would be read past its end (the others: where is not known).
        self._read_at_i = indexed_at_i(self._vector_names, map_expr or "in[i]")
        # Per stage-1 function: (elements per block, most blocks), and the block's shape.
        self._limits = {self.stage1_func: (plan.block * plan.scalar_unroll, 0)}
        if self.stage1_vec_func is not None:
            self._limits[self.stage1_vec_func] = (plan.block * plan.unroll * plan.vec, 0)
        for f, (per_block, _) in self._limits.items():
            self._limits[f] = (per_block, self._max_blocks[f])
        self._block = (plan.block, 1, 1)
        # The one-array kernels (sum, max, any, ...): its dtype and the alignment that 16-byte
        # loads need (None without them), for calls on one plain array (_launch_plan's).
        self._single = None
        if len(self.arguments) == 1 and isinstance(self.arguments[0], VectorArg):
            spec = self.arguments[0]
            vec_args = plan.vector_args or {}
            align = plan.vec * vec_args[spec.name] if spec.name in vec_args else 1
            self._single = (spec.dtype, align if self.stage1_vec_func is not None else None)

    def _aligned(self, ptr: int) -> bool:
        """Whether a one-array kernel's 16-byte loads may read from address ``ptr``."""
        align = self._single[1]  # type: ignore[index]
        return align is not None and not ptr % align

    def _launch_plan(self, n: int, aligned: bool) -> ReductionPlan:
        """What a call over ``n`` elements launches (16-byte loads where ``aligned``): the
        decision every call takes (the general path, and the plain path's cache)."""
        func, blocks, direct = self._stage1(n, aligned)
        stage2 = None if direct else self.stage2_func.prepared_call
        result = self.result_dtype
        return ReductionPlan(
            func.prepared_call, (blocks, 1), self._block, stage2, blocks,
            blocks * self.dtype_out.itemsize, result, result.itemsize, core.array_class()._fresh,
        )  # fmt: skip

    def _call_plain(self, a: Any, allocator: Any) -> Any:
        """``self(a)`` for a plain C-contiguous GPUArray of the declared dtype (object): the
        launches from the context's plan cache; None where the general path must run."""
        dtype = self._single[0]  # type: ignore[index]
        n = a.size
        if not n or a.dtype is not dtype or not a._c:
            return None
        ptr = a.ptr
        aligned = self._aligned(ptr)
        state = core.STATES.get(core.seams.context_handle()) or core.state()
        plan = state.reductions.get((self, n, aligned)) or state.reduction(self, n, aligned)
        return launch_plan(plan, ptr, n, allocator or a.allocator)

    def _stage1(self, n: int, aligned: bool) -> tuple[Any, int, bool]:
        """The stage-1 function over ``n`` elements (16-byte loads where ``aligned``), its
        number of blocks, and whether that one launch writes the result (one block and no final
        conversion) or stage 2 reduces its partials."""
        func = self.stage1_vec_func if aligned and n else self.stage1_func
        per_block, max_blocks = self._limits[func]
        blocks = max(1, min(-(-n // per_block), max_blocks))
        return func, blocks, blocks == 1 and self._plan.final is None

    def _launch_args(self, args: tuple[Any, ...]) -> tuple[list[Any], Any, int, bool]:
        """Kernel arguments, the first array (size and allocator), n, and whether 16-byte
        loads may be used."""
        if len(args) != len(self.arguments):
            raise TypeError(
                f"reduction takes {len(self.arguments)} arguments "
                f"({', '.join(a.name for a in self.arguments)}), got {len(args)}"
            )
        packed: list[Any] = []
        first = None
        aligned = self.stage1_vec_func is not None
        vec_args = self._plan.vector_args or {}
        for spec, value in zip(self.arguments, args, strict=True):
            if isinstance(spec, VectorArg):
                if not hasattr(value, "gpudata"):
                    raise TypeError(
                        f"argument '{spec.name}' must be a GPUArray, got {type(value).__name__}"
                    )
                # GPUArrays know whether they are (cached); other array types tell by .flags.
                # Fortran order is flat memory too (the original took either).
                contiguous = getattr(value, "_c", None) or value.flags.c_contiguous
                if value.size and not (contiguous or value.flags.f_contiguous):
                    raise ValueError(
                        f"argument '{spec.name}' is not contiguous: reductions read arrays as "
                        "flat memory; pass a contiguous copy (ary.copy())"
                    )
                first = value if first is None else first
                if value.dtype != spec.dtype:
                    at_i = spec.name in self._read_at_i
                    check_array_dtype(
                        f"ReductionKernel argument '{spec.name}'", value.dtype, spec.dtype,
                        getattr(value, "nbytes", None), int(first.size) if at_i else None,
                    )  # fmt: skip
                ptr = 0 if value.gpudata is None else int(value.gpudata)
                if spec.name in vec_args and ptr % (self._plan.vec * vec_args[spec.name]):
                    aligned = False
                packed.append(ptr)
            else:
                packed.append(_dtypes.argument_value(value, spec.dtype))
        if first is None:
            raise TypeError("a reduction needs at least one array argument")
        return packed, first, int(first.size), aligned

    def __call__(
        self,
        *args: Any,
        stream: Any = None,
        out: Any = None,
        allocator: Any = None,
        kernel_wrapper: Callable[[Any], Any] | None = None,
        **kw: Any,
    ) -> Any:
        """Reduce; returns ``out`` or a new 0-d GPUArray of ``dtype_out``.

        ``kernel_wrapper``, as in the original, is applied to each stage's launcher (a
        function's bound ``prepared_async_call``) before it is called, which it then is as
        ``launch(grid, block, stream, *args)``: for timing or logging the launches.
        """
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        plain = (
            self._single
            and len(args) == 1
            and type(args[0]) is core.array_class()
            and out is None
            and stream is None
            and kernel_wrapper is None
        )
        if plain:
            result = self._call_plain(args[0], allocator)
            if result is not None:
                return result
        packed, first, n, aligned = self._launch_args(args)
        if allocator is None:
            allocator = getattr(first, "allocator", None)
        if out is None:
            if type(first) is core.array_class() or not core.is_array(first):
                out = core.empty_0d(self.result_dtype, allocator)
            else:  # a subclass's result, made by its _new_like_me/_new_with_changes
                out = core.new_result(first, (), self.result_dtype, allocator=allocator)
        elif out.dtype != self.result_dtype or out.size != 1:
            raise TypeError(
                f"out must be a GPUArray of one {self.result_dtype} element, got "
                f"{out.size} of {out.dtype}"
            )
        func, blocks, direct = self._stage1(n, aligned)
        block = self._block
        if kernel_wrapper is not None:
            # Both stages wrapped before either runs, as the original did.
            stage1 = kernel_wrapper(func.prepared_async_call)
            stage2 = kernel_wrapper(self.stage2_func.prepared_async_call)
        else:
            stage1, stage2 = _launcher(func), _launcher(self.stage2_func)
        if direct:
            stage1((1, 1), block, stream, out.gpudata, *packed, n)
            return out
        # Raw memory, not a GPUArray: the partials may be of a struct type (argmax's pairs).
        # Without an allocator, from the context's pool as the result: a cuMemFree per call
        # would wait for the device.
        allocate = allocator or core.context_allocator()
        partials = allocate(blocks * self.dtype_out.itemsize)
        stage1((blocks, 1), block, stream, partials, *packed, n)
        stage2((1, 1), block, stream, out.gpudata, partials, blocks)
        return out


class ReductionPlan(NamedTuple):
    """What one reduction of n elements at one alignment launches, and its result."""

    stage1: Callable[..., None]  # stage 1's prepared_call
    grid: tuple[int, int]  # stage 1's grid
    block: tuple[int, int, int]
    stage2: Callable[..., None] | None  # None: stage 1 writes the result
    blocks: int  # stage 1's blocks: the partials stage 2 reduces
    partial_bytes: int
    result: np.dtype
    itemsize: int  # the result's
    fresh: Callable[..., Any]  # GPUArray._fresh, which makes the 0-d result


_ONE_BLOCK = (1, 1)


def launch_plan(plan: ReductionPlan, ptr: int, n: int, allocator: Any) -> Any:
    """Launches ``plan`` over the ``n`` elements at ``ptr``; a new 0-d GPUArray of its result
    (memory, and the partials', from ``allocator``)."""
    gpudata = allocator(plan.itemsize)
    out = int(gpudata)
    if plan.stage2 is None:
        plan.stage1(_ONE_BLOCK, plan.block, out, ptr, n)
    else:
        partials = allocator(plan.partial_bytes)
        plan.stage1(plan.grid, plan.block, partials, ptr, n)
        plan.stage2(_ONE_BLOCK, plan.block, out, partials, plan.blocks)
    return plan.fresh((), plan.result, (), 1, allocator, gpudata, out)


def reduce_whole(kernel_of: Callable[[np.dtype], Any], a: Any, allocator: Any) -> Any:
    """``kernel_of(a.dtype)(a, allocator=allocator)`` for a plain non-empty C-contiguous
    GPUArray (the module functions' sum, max and min): the kernel looked up in the context's
    state by (``kernel_of``, dtype) without asking the memoized factory, and its plan by the
    key every plain call of that kernel uses, (kernel, n, aligned); None where the general path
    must decide (the plan is still the kernel's own decision).
    A one-block launch is also remembered by FLAT, whose ``reduce`` then serves it in C++ (it
    calls this function for everything else)."""
    if type(a) is not core.array_class() or not a._c:
        return None
    n = a.size
    if not n:
        return None
    state = core.STATES.get(core.seams.context_handle()) or core.state()
    dtype = a.dtype
    krnl = state.reduction_kernels.get((kernel_of, dtype))
    if krnl is None:
        try:
            krnl = state.reduction_kernel(kernel_of, dtype)
        except (TypeError, ValueError, KeyError):
            return None  # the general path raises it, with its own message
        if krnl is None:
            return None
    ptr = a.ptr
    align = krnl._single[1]
    aligned = align is not None and not ptr % align
    plan = state.reductions.get((krnl, n, aligned)) or state.reduction(krnl, n, aligned)
    served = state.flat and allocator is None and a.allocator is state.allocate
    if served and plan.stage2 is None and not ptr & 15 and (align is None or not 16 % align):
        # One block: FLAT.reduce serves the next such call in C++ (the module functions'),
        # for any 16-byte aligned array of n elements (so only where that decides `aligned`).
        core.FLAT.remember_reduction(
            kernel_of, dtype, core.seams.context_handle(), n,
            getattr(plan.stage1, "__self__", None), plan.block[0], state.allocate, plan.result,
            plan.itemsize,
        )  # fmt: skip
    return launch_plan(plan, ptr, n, allocator or a.allocator)


def _launcher(func: Any) -> Callable[..., None]:
    """``launch(grid, block, stream, *args)`` of a prepared function (a kernel_wrapper's
    argument form), synchronous where ``stream`` is None."""
    return lambda grid, block, stream, *args: core.launch(func, grid, block, stream, args)
