"""pycuda._fusion: ``fuse``, a function of GPUArrays run as one element-wise kernel.

    import numpy
    import pycuda.autoinit
    from pycuda import cumath, gpuarray
    from pycuda.elementwise import fuse

    @fuse
    def f(x, y, z):
        return cumath.sqrt(x * x + y * y) * z + 1

    @fuse(reduce="sum")
    def energy(x, y):
        return x * x + y * y

    x, y, z = (gpuarray.to_gpu(numpy.random.rand(1000).astype(numpy.float32)) for _ in "xyz")
    r = f(x, y, z)        # one kernel, the values of the unfused f(x, y, z)
    e = energy(x, y)      # one reduction kernel, gpuarray.sum(x*x + y*y)

How it runs: on the first call with a kind of arguments (each GPUArray's dtype, each number's
type), the function is traced (pycuda._fusion_trace) into one C expression whose every
operation has the dtype, the rounding and the casts of the unfused call (pycuda._fusion_ops).
That expression is the body of GPUArray's own element-wise kernels (pycuda._array_kernels):
where the arrays are C-contiguous of one shape, the flat kernel with 16-byte accesses, launched
from the context's plan cache, so a later call costs a dictionary look-up and a launch;
otherwise, with broadcasting or other strides, the same strided or rows kernels as ``a + b``.
With ``reduce=``, the expression is the map of a ReductionKernel (one pass over the arrays,
which must then be C-contiguous of one shape; otherwise the element-wise result is made first
and reduced by gpuarray.sum/max/min).

Numbers (arguments and constants) reach the kernel as arguments converted as the unfused call
converts them, so a new value costs no compile. Sums, differences and products of floats are
written with their rounding explicit (``__fadd_rn``...), so the compiler cannot contract two
operations into a multiply-add the unfused chain cannot form: results are bit for bit the
unfused ones. ``fma=True`` lets it (faster where arithmetic bounds, within a rounding of each
contracted product: about 1e-7 relative in float32, 1e-16 in float64, per operation). Compiling
with ``--fmad=false`` instead would not do: the unfused kernels are compiled with contraction on,
and their complex products and quotients contract inside the one operation (on an H200, half
the words of a complex64 product differ between the two settings).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _dtypes
from pycuda import _reduce_ops as reduce_ops
from pycuda._array_kernels import HELPERS, Operand, compute_ctype
from pycuda._broadcast import broadcast_shapes
from pycuda._c_types import dtype_to_ctype
from pycuda._fusion_trace import (
    Graph,
    HostNode,
    Leaf,
    OpNode,
    ScalarOperand,
    TracedArray,
    TracedScalar,
    is_number,
    scalar_key,
)
from pycuda._kernel_layout import vector_width
from pycuda._reduction_kernel import ReductionKernel
from pycuda._reduction_parts import minmax_neutral
from pycuda._shape import new_array_strides
from pycuda.tools import ScalarArg, VectorArg, context_dependent_memoize

REDUCTIONS = ("sum", "max", "min")
_MAX_VARIANTS = 32  # traces kept per kind of arguments (each for other values of guards)


def fuse(
    func: Callable[..., Any] | None = None, *, reduce: str | None = None, fma: bool = False
) -> Any:
    """``func`` (a function of GPUArrays and numbers, written with operators, pycuda.cumath's
    functions and gpuarray.where/maximum/minimum) as one kernel per call, with the unfused
    calls' results; ``@fuse`` and ``@fuse(reduce="sum", fma=False)`` decorate.

    ``reduce``: ``"sum"``, ``"max"`` or ``"min"`` of the function's result, in the same
    kernel, returned as gpuarray.sum/max/min return it (a 0-d GPUArray of their dtype; a sum
    equal to theirs up to the order of additions: exactly for integers). ``fma``: let the
    compiler contract a product and a sum into one multiply-add (results then differ from the
    unfused ones within that rounding).

        @fuse
        def f(x, y, alpha):
            return cumath.sqrt(x * x + y * y) * alpha + 1

    Arguments are passed by position: GPUArrays (broadcast together as NumPy's), numbers, and
    other hashable values (passed to the function as they are). The function is traced once
    per kind of arguments (dtypes and number types); what it reads besides its arguments is
    fixed at that trace. A GPUArray it reads must be an argument. What one element-wise kernel
    cannot compute raises TypeError saying what: a Python ``if`` on an array value (use
    gpuarray.where), indexing, ``len``, NumPy's functions, in-place operators, ``.shape``.
    """
    if reduce is not None and reduce not in REDUCTIONS:
        raise ValueError(f"reduce must be one of {REDUCTIONS} or None, got {reduce!r}")
    if func is None:
        return lambda f: FusedFunction(f, reduce, fma)
    if not callable(func):
        raise TypeError(f"fuse takes a function, got {type(func).__name__}")
    return FusedFunction(func, reduce, fma)


def _arg_key(a: Any) -> Any:
    """What a trace depends on of an argument: a GPUArray's dtype, a number's kind, another
    value itself."""
    if isinstance(a, core.ArrayBase):
        return a.dtype
    if isinstance(a, np.ndarray):
        raise TypeError(
            "a fused function takes GPUArrays, not NumPy arrays: pass gpuarray.to_gpu(a)"
        )
    key = scalar_key(a)
    return ("value", a) if key is None else key


class FusedFunction:
    """A function run by fuse(): call it as the function (its arguments by position)."""

    def __init__(self, func: Callable[..., Any], reduce: str | None, fma: bool) -> None:
        functools.update_wrapper(self, func)
        self.func, self.reduce, self.fma = func, reduce, fma
        self._plans: dict[Any, Any] = {}  # argument kinds -> the plan of the latest trace
        self._variants: dict[Any, list[Any]] = {}  # argument kinds -> every trace kept

    def __repr__(self) -> str:
        return f"<fused function {self.__qualname__}>"

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else functools.partial(self, obj)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise TypeError(
                f"fused function {self.__qualname__} takes its arguments by position, got "
                f"keywords {sorted(kwargs)}"
            )
        key = tuple([a.dtype if isinstance(a, core.ArrayBase) else _arg_key(a) for a in args])
        try:
            plan = self._plans.get(key)
        except TypeError:
            raise TypeError(
                f"fused function {self.__qualname__}: arguments that are neither GPUArrays nor "
                "numbers must be hashable (they are part of the trace's key)"
            ) from None
        if plan is None or (plan.guards and not plan.holds(args)):
            plan = self._plan_for(key, args)
        return plan.run(args)

    def _plan_for(self, key: Any, args: Sequence[Any]) -> Any:
        variants = self._variants.setdefault(key, [])
        for plan in variants:
            if plan.holds(args):
                break
        else:
            plan = self.trace(args)
            if len(variants) >= _MAX_VARIANTS:
                variants.pop(0)
            variants.append(plan)
        self._plans[key] = plan
        return plan

    def trace(self, args: Sequence[Any]) -> Any:
        """The plan of a call with ``args``: the function traced with stand-ins for them."""
        code = getattr(self.func, "__code__", None)
        names = code.co_varnames[: code.co_argcount] if code is not None else ()
        graph = Graph(getattr(self.func, "__qualname__", repr(self.func)), names, not self.fma)
        stand_ins = []
        for k, a in enumerate(args):
            if isinstance(a, core.ArrayBase):
                stand_ins.append(TracedArray(Leaf(k, a.dtype), graph))
            elif is_number(a):
                stand_ins.append(TracedScalar(HostNode(a, arg=k), graph))
            else:
                stand_ins.append(a)
        result = self.func(*stand_ins)
        return _plan(graph, result, self.reduce, self.__qualname__)


def _plan(graph: Graph, result: Any, reduce: str | None, name: str) -> Any:
    if isinstance(result, TracedArray):
        graph.own(result)
        if isinstance(result._node, OpNode) or reduce:
            return KernelPlan(graph, result._node, reduce)
        return HostPlan(graph, None, result._node.arg)  # an argument, returned as it is
    if reduce:
        raise TypeError(
            f"fused function {name} with reduce={reduce!r} must return an array value, got "
            f"{type(result).__name__}"
        )
    if isinstance(result, TracedScalar):
        graph.own(result)
        return HostPlan(graph, result._host, None)
    if isinstance(result, (tuple, list)) and any(
        isinstance(r, (TracedArray, TracedScalar)) for r in result
    ):
        raise TypeError(
            f"fused function {name} returns several values; a fused function computes one "
            "(fuse one function per result)"
        )
    if isinstance(result, core.ArrayBase):
        raise graph.not_an_argument("a GPUArray (its result)")
    return HostPlan(graph, HostNode(result), None)


class HostPlan:
    """A traced function whose result needs no kernel: an argument, or a host value."""

    def __init__(self, graph: Graph, host: HostNode | None, arg: int | None) -> None:
        self.guards, self.holds = graph.guards, graph.holds
        self.host, self.arg = host, arg

    def run(self, args: Sequence[Any]) -> Any:
        return args[self.arg] if self.host is None else self.host.evaluate(args)


def _walk(root: Any) -> tuple[list[Leaf], list[ScalarOperand], list[OpNode]]:
    """The leaves (by argument), scalar operands and operation nodes ``root`` depends on, the
    nodes in an order that computes each after its inputs."""
    leaves: dict[int, Leaf] = {}
    scalars: dict[int, ScalarOperand] = {}
    order: list[OpNode] = []
    done: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done:
            continue
        if isinstance(node, Leaf):
            leaves.setdefault(node.arg, node)
        elif isinstance(node, ScalarOperand):
            scalars.setdefault(id(node), node)
        elif expanded:
            done.add(id(node))
            order.append(node)
            continue
        else:
            stack.append((node, True))
            stack.extend((x, False) for x in reversed(node.inputs))
            continue
        done.add(id(node))
    return [leaves[k] for k in sorted(leaves)], list(scalars.values()), order


def _expression(root: Any, leaves: list[Leaf], scalars: list[ScalarOperand],
                order: list[OpNode]) -> str:  # fmt: skip
    """The C expression (one lambda) of ``root`` over operands ``x0, x1, ...``: the leaves,
    then the scalars."""
    lines = [f"const {dtype_to_ctype(leaf.dtype)} {leaf.name} = x{j};" for j, leaf in
             enumerate(leaves)]  # fmt: skip
    lines += [
        f"const {compute_ctype(s.dtype)} {s.name} = x{len(leaves) + j};"
        for j, s in enumerate(scalars)
    ]
    lines += [f"const {dtype_to_ctype(n.dtype)} {n.name} = {n.expr};" for n in order]
    body = "\n            ".join(lines)
    return f"[&] {{\n            {body}\n            return {root.name}; }}()"


class KernelPlan:
    """One trace as a kernel: its expression, operands, and the launches it has made."""

    def __init__(self, graph: Graph, root: Any, reduce: str | None) -> None:
        self.guards, self.holds = graph.guards, graph.holds
        self.reduce = reduce
        leaves, self.scalars, order = _walk(root)
        self.arrays = tuple(leaf.arg for leaf in leaves)
        # result/operands/expr: what ContextState.flat_launch reads of an operator's Plan.
        self.dtype = self.result = root.dtype
        self.expr = _expression(root, leaves, self.scalars, order)
        self.operands = tuple(Operand(leaf.dtype) for leaf in leaves) + tuple(
            Operand(s.dtype, True) for s in self.scalars
        )
        self.itemsize = self.dtype.itemsize
        sizes = [self.itemsize] + [leaf.dtype.itemsize for leaf in leaves]
        pow2 = all(s & (s - 1) == 0 and s <= 16 for s in sizes)
        self.wide = 16 // max(sizes) if pow2 else 1  # the flat kernel's width where aligned
        self.sizes = sizes
        # Each scalar's conversion (the operators' own: the dtype table's); constants are
        # converted once, here.
        self.converts: list[tuple[Any, HostNode | None]] = []
        self.constants: list[Any] = []
        for s in self.scalars:
            convert, constant = _dtypes.info(s.dtype).convert, s.host.constant
            self.converts.append((convert, None if constant else s.host))
            self.constants.append(convert(s.host.value) if constant else None)
        self.static = all(host is None for _, host in self.converts)

    def values(self, args: Sequence[Any]) -> list[Any]:
        """The scalar operands' kernel arguments for ``args``."""
        if self.static:
            return self.constants
        return [
            k if host is None else convert(host.evaluate(args))
            for (convert, host), k in zip(self.converts, self.constants, strict=True)
        ]

    def run(self, args: Sequence[Any]) -> Any:
        arrays = [args[k] for k in self.arrays]
        if self.reduce:
            return self._reduce(arrays, args)
        result = self._flat(arrays, args)
        return self.general(arrays, args) if result is None else result

    def _flat(self, arrays: list[Any], args: Sequence[Any]) -> Any:
        """The flat kernel, from the context's cache, where every array is a plain
        C-contiguous GPUArray of one shape; None elsewhere."""
        first = arrays[0]
        cls = core.array_class()
        shape, n = first.shape, first.size
        if not n:
            return None
        aligned = 0
        for a in arrays:
            if type(a) is not cls or not a._c or a.shape != shape:
                return None
            aligned |= a.ptr
        state = core.STATES.get(core.seams.context_handle()) or core.state()
        allocator = first.allocator
        gpudata = allocator(n * self.itemsize)
        ptr = int(gpudata)
        width = self.wide
        if (aligned | ptr) & 15:
            ptrs = [ptr] + [a.ptr for a in arrays]
            width = min(vector_width(s, [p]) for s, p in zip(self.sizes, ptrs, strict=True))
        launch = state.plans.get((self, n, width)) or state.flat_launch(self, n, width)
        values = self.values(args) if self.scalars else ()
        launch[0](launch[1], launch[2], ptr, *[a.ptr for a in arrays], *values, n)
        strides = new_array_strides(shape, self.itemsize) if len(shape) != 1 else (self.itemsize,)
        return cls._fresh(shape, self.dtype, strides, n, allocator, gpudata, ptr)

    def general(self, arrays: list[Any], args: Sequence[Any]) -> Any:
        """Any shapes (broadcast) and strides: a new C-ordered result, by
        _array_core.elementwise (strided or rows kernels, as GPUArray's operators)."""
        shape = broadcast_shapes(*[a.shape for a in arrays])
        owner = next((a for a in arrays if a.shape == shape), arrays[0])
        out = core.new_result(owner, shape, self.dtype)
        inputs = arrays + [(s.host.evaluate(args), s.dtype) for s in self.scalars]
        core.elementwise(out, inputs, self.expr)
        return out

    def _reduce(self, arrays: list[Any], args: Sequence[Any]) -> Any:
        """The reduction of the result: one ReductionKernel where the arrays are C-contiguous
        of one shape; else the element-wise result, then gpuarray's reduction of it."""
        first = arrays[0]
        if first.size and all(a._c and a.shape == first.shape for a in arrays):
            kernel = _reduction_kernel(self.reduce, self.dtype, self.expr, self.operands)
            return kernel(*arrays, *self.values(args))
        result = self.general(arrays, args)
        return getattr(reduce_ops, self.reduce)(result)


@context_dependent_memoize
def _reduction_kernel(
    what: str, dtype: np.dtype, expr: str, operands: tuple[Operand, ...]
) -> ReductionKernel:
    """The ReductionKernel of ``what`` of ``expr`` (a fused expression over ``operands``), as
    gpuarray.sum/max/min reduces an array of ``dtype``: the same accumulator and result."""
    arguments = [
        ScalarArg(_dtypes.info(op.dtype).compute, f"s{j}")
        if op.scalar
        else VectorArg(op.dtype, f"p{j}")
        for j, op in enumerate(operands)
    ]
    reads = " ".join(
        f"const {compute_ctype(op.dtype)} x{j} = s{j};"
        if op.scalar
        else f"const {dtype_to_ctype(op.dtype)} x{j} = p{j}[i];"
        for j, op in enumerate(operands)
    )
    value = f"[&] {{ {reads} return {expr}; }}()"
    if what != "sum":
        return ReductionKernel(
            dtype, minmax_neutral(what, dtype), f"pycuda_nan_{what}(a, b)", map_expr=value,
            arguments=arguments, name=f"fused_{what}", preamble=HELPERS,
        )  # fmt: skip
    sum_dtype = _dtypes.info(dtype).sum_dtype
    acc = _dtypes.info(sum_dtype).accumulator
    final = None if acc == sum_dtype else (sum_dtype, dtype_to_ctype(sum_dtype), "a")
    return ReductionKernel(
        acc, "0", "a+b", map_expr=f"({dtype_to_ctype(acc)})({value})", arguments=arguments,
        name="fused_sum", preamble=HELPERS, _out_ctype=dtype_to_ctype(acc), _final=final,
    )  # fmt: skip
