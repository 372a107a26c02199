"""GPUArray's NumPy-style reduction and scan methods (``a.sum(axis=0)``, ``a.argmax()``,
``a.cumsum()``, ...), mixed into GPUArray; each forwards to the module function of
``pycuda.gpuarray`` (``pycuda._reduce_ops``, ``pycuda._axis_scan``).

Every method takes NumPy's arguments plus keyword-only ``stream=`` and ``allocator=``, and
returns a GPUArray (0-d when every axis is reduced). ``any`` and ``all`` also accept the
original's positional ``a.any(stream)``.

    col_max = a_gpu.max(axis=0)
    z = (a_gpu - a_gpu.mean(axis=1, keepdims=True)) / a_gpu.std(axis=1, keepdims=True)

Each method is made from one row of :data:`METHODS`: its NumPy positional parameters (the
module function takes all of them by keyword, under the same names), so a method's signature is
written once, and the module function keeps the original's own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

from pycuda import _driver, _reduce_ops, driver
from pycuda._lazy_import import lazy_module

# The scans load at the first cumsum/cumprod (their methods call through this name).
_axis_scan = lazy_module("pycuda._axis_scan", globals(), "_axis_scan")


class MethodSpec(NamedTuple):
    """One method: the module function it calls, NumPy's positional parameters, the keyword-only
    ones besides stream and allocator, and its docstring."""

    function: Callable[..., Any]
    positional: tuple[str, ...]
    keyword_only: tuple[str, ...]
    doc: str


_AXIS_DTYPE = ("axis", "dtype", "out", "keepdims")
_AXIS = ("axis", "out", "keepdims")

METHODS: dict[str, MethodSpec] = {
    "sum": MethodSpec(_reduce_ops.sum, _AXIS_DTYPE, (),
                      "The sum over ``axis`` (numpy.sum's dtype: int64 for narrow signed "
                      "integers)."),
    "prod": MethodSpec(_reduce_ops.prod, _AXIS_DTYPE, (),
                       "The product over ``axis`` (numpy.prod's dtype)."),
    "max": MethodSpec(_reduce_ops.max, _AXIS, (),
                      "The maximum over ``axis`` (NaN if any element is NaN)."),
    "min": MethodSpec(_reduce_ops.min, _AXIS, (),
                      "The minimum over ``axis`` (NaN if any element is NaN)."),
    "mean": MethodSpec(_reduce_ops.mean, _AXIS_DTYPE, (),
                       "The mean over ``axis`` (float64 for integer arrays)."),
    "var": MethodSpec(_reduce_ops.var, ("axis", "dtype", "out", "ddof", "keepdims"), (),
                      "The variance over ``axis``, divided by ``N - ddof`` (real for complex "
                      "arrays)."),
    "std": MethodSpec(_reduce_ops.std, ("axis", "dtype", "out", "ddof", "keepdims"), (),
                      "The standard deviation over ``axis`` (the square root of var)."),
    "argmax": MethodSpec(_reduce_ops.argmax, ("axis", "out"), ("keepdims",),
                         "The int64 index of the first maximum along ``axis`` (None: in the "
                         "flattened array)."),
    "argmin": MethodSpec(_reduce_ops.argmin, ("axis", "out"), ("keepdims",),
                         "The int64 index of the first minimum along ``axis`` (None: in the "
                         "flattened array)."),
    "any": MethodSpec(_reduce_ops.any, _AXIS, (),
                      "Whether any element along ``axis`` is nonzero (bool); also the "
                      "original's ``any(stream, allocator)``."),
    "all": MethodSpec(_reduce_ops.all, _AXIS, (),
                      "Whether every element along ``axis`` is nonzero (bool); also the "
                      "original's ``all(stream, allocator)``."),
    "cumsum": MethodSpec(lambda a, **kw: _axis_scan.cumsum(a, **kw), ("axis", "dtype", "out"), (),
                         "The cumulative sum along ``axis`` (None: of the flattened array)."),
    "cumprod": MethodSpec(lambda a, **kw: _axis_scan.cumprod(a, **kw), ("axis", "dtype", "out"), (),
                          "The cumulative product along ``axis`` (None: of the flattened "
                          "array)."),
}  # fmt: skip

_DEFAULTS = {"keepdims": False, "ddof": 0}


def _originals_arguments(axis: Any, out: Any) -> bool:
    """Whether ``any``/``all`` were called as the original's ``(stream, allocator)``: a Stream
    first, or an allocator (a callable that is no array) second."""
    return isinstance(axis, driver.Stream) or (
        out is not None and callable(out) and not isinstance(out, _driver.ArrayBase)
    )


def _signature(spec: MethodSpec) -> inspect.Signature:
    kinds = [(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in spec.positional]
    kinds += [(name, inspect.Parameter.KEYWORD_ONLY)
              for name in (*spec.keyword_only, "stream", "allocator")]  # fmt: skip
    return inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [inspect.Parameter(n, k, default=_DEFAULTS.get(n)) for n, k in kinds]
    )


def _method(name: str, spec: MethodSpec) -> Callable[..., Any]:
    function, positional = spec.function, spec.positional
    allowed = frozenset((*positional, *spec.keyword_only, "stream", "allocator"))
    originals = name in ("any", "all")

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        if len(args) > len(positional):
            raise TypeError(
                f"{name}() takes at most {len(positional)} positional arguments ({len(args)} given)"
            )
        for key, value in zip(positional, args, strict=False):
            if key in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{key}'")
            kwargs[key] = value
        unknown = kwargs.keys() - allowed
        if unknown:
            raise TypeError(f"{name}() got an unexpected keyword argument '{min(unknown)}'")
        if originals and _originals_arguments(kwargs.get("axis"), kwargs.get("out")):
            kwargs["stream"], kwargs["allocator"] = kwargs.pop("axis"), kwargs.pop("out", None)
        return function(self, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = spec.doc
    method.__signature__ = _signature(spec)  # type: ignore[attr-defined]
    return method


class ReductionMethods:
    """sum, prod, max, min, mean, var, std, argmax, argmin, any, all, cumsum, cumprod."""


for _name, _spec in METHODS.items():
    setattr(ReductionMethods, _name, _method(_name, _spec))
del _name, _spec
