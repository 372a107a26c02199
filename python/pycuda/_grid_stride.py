"""The grid-stride kernel of element-wise code: its CUDA C source for an operation over index
``i``, and its module (the original's ``get_elwise_*`` functions, which pycuda.elementwise
re-exports). The layer under ElementwiseKernel and the original's ``get_*_kernel`` factories."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pycuda import _dtypes, compiler
from pycuda.tools import Argument, ScalarArg, VectorArg, dtype_to_ctype, parse_c_arg


def split_arguments(arguments: str) -> list[str]:
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


def parse_arguments(arguments: str | Sequence[Argument]) -> list[Argument]:
    """A kernel's arguments as VectorArg/ScalarArg objects, from a C declaration string
    (``"float *x, int n"``) or a list of them; TypeError for anything else."""
    if isinstance(arguments, str):
        return [parse_c_arg(arg) for arg in split_arguments(arguments)]
    if not isinstance(arguments, (list, tuple)):
        raise TypeError(
            "arguments must be a C declaration string or a list of VectorArg/ScalarArg, got "
            f"{type(arguments).__name__}"
        )
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


def unroll_for(arguments: Sequence[Argument], operation: str, loop_prep: str,
                after_loop: str, use_range: bool) -> int:  # fmt: skip
    """Elements per thread and trip of the kernel :func:`elwise_source` writes."""
    if use_range or _UNROLL <= 1:
        return 1
    return _UNROLL if _unrollable(arguments, operation, loop_prep, after_loop) else 1


def count_arguments(use_range: bool) -> list[Argument]:
    """The arguments ``get_elwise_kernel_and_types`` appends, as the original's: the element
    count ``n`` (``uintp``), or ``start, stop, step`` (``intp``) for ``range=`` kernels."""
    if use_range:
        return [ScalarArg(np.intp, "start"), ScalarArg(np.intp, "stop"), ScalarArg(np.intp, "step")]
    return [ScalarArg(np.uintp, "n")]


def elwise_source(
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
    full = list(arguments) + count_arguments(use_range)
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
    unroll = unroll_for(arguments, operation, loop_prep, after_loop, use_range)
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

    return compiler.SourceModule(source, options=options, keep=keep, no_extern_c=True)


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
    args = parse_arguments(arguments)
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
    args = parse_arguments(arguments)
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
    args = parse_arguments(arguments) + count_arguments(use_range)
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
