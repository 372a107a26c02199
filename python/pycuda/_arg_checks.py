"""pycuda._arg_checks: a wrong argument becomes a TypeError that names the call, the argument
and what it must be, instead of an AttributeError from inside (``'int' object has no attribute
'dtype'``; found by tests/test_fuzz.py); and the one rule for arrays whose dtype differs from
what a kernel declares (check_array_dtype), where the original reinterpreted the bytes."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from pycuda._lazy_import import lazy_module
from pycuda._user_warnings import warn_user

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)


def require(obj: Any, attributes: str, what: str, expected: str) -> None:
    """TypeError unless ``obj`` has each of ``attributes`` (space-separated names) and is not
    a class (whose descriptors would pass for them)."""
    if not isinstance(attributes, str):
        raise TypeError(f"attributes must be a str of names, got {type(attributes).__name__}")
    if isinstance(obj, type):
        raise TypeError(f"{what} takes {expected}, got the class {obj.__name__}")
    for name in attributes.split():
        if not hasattr(obj, name):
            raise TypeError(
                f"{what} takes {expected}, got {type(obj).__name__} (it has no .{name})"
            )


def require_array(obj: Any, what: str) -> None:
    """TypeError unless ``obj`` is array-like: has shape and dtype (NumPy array, GPUArray)."""
    require(obj, "shape dtype", what, "an array (with .shape and .dtype)")


def require_str(obj: Any, what: str) -> str:
    """``obj`` if it is a str, else TypeError."""
    if not isinstance(obj, str):
        raise TypeError(f"{what} must be a str, got {type(obj).__name__}")
    return obj


# {{{ arrays whose dtype is not the one a kernel declares

# NumPy kinds whose values of one size differ only in how the bits are read as a number's sign:
# the original passed such arrays on, and a kernel reads the numbers the user meant (for values
# in the common range), so no warning.
_INTEGER_KINDS = frozenset("biu")
_AT_I = "(?<![\\w.])({name})\\b(\\s*\\[\\s*i\\s*\\])?"
_WRITES_I = re.compile(r"(?<![\w.])i\s*(\+\+|--|[-+*/%&|^]?=(?!=)|<<=|>>=)|(\+\+|--)\s*i\b")


def indexed_at_i(names: Iterable[str], *code: str) -> frozenset[str]:
    """The names among ``names`` that ``code`` (C statements over index ``i``) uses, and only as
    ``name[i]``, with ``i`` never assigned: a kernel running them for the indices in a range
    touches exactly those elements of each such array. Others may be touched anywhere."""
    text = "\n".join(code)
    if _WRITES_I.search(text):
        return frozenset()
    found = set()
    for name in names:
        matches = list(re.finditer(_AT_I.format(name=re.escape(name)), text))
        if matches and all(m.group(2) for m in matches):
            found.add(name)
    return frozenset(found)


def check_array_dtype(
    what: str,
    dtype: Any,
    declared: Any,
    nbytes: int | None = None,
    elements: int | None = None,
) -> None:
    """The original's leniency for an array given where a kernel declares elements of
    ``declared`` (docs/migrating.md, "Arguments the original reinterprets"): the original passed
    the array's address on, and the kernel read its bytes as ``declared``.

    Same size, integers of another signedness: accepted silently. Same size, another kind
    (float for int): accepted with a warning naming ``what`` and both dtypes. Another size: a
    TypeError where the kernel would touch ``elements`` elements of ``declared`` past the
    array's ``nbytes`` (outside its buffer), else a warning (it reads the wrong numbers, inside
    the buffer). ``elements`` None: how many are touched is not known, so only a warning.
    """
    dtype, declared = np.dtype(dtype), np.dtype(declared)
    if dtype == declared:
        return
    same_size = dtype.itemsize == declared.itemsize
    if same_size and dtype.kind in _INTEGER_KINDS and declared.kind in _INTEGER_KINDS:
        return
    if not same_size and elements is not None and nbytes is not None:
        needed = elements * declared.itemsize
        if needed > nbytes:
            raise TypeError(
                f"{what} has dtype {dtype} ({dtype.itemsize} bytes an element), but the kernel "
                f"was declared with {declared} ({declared.itemsize} bytes): it would read "
                f"{needed} bytes from an array of {nbytes}, past its end. Pass an array of "
                f"{declared} (ary.astype(numpy.{declared.name}))"
            )
    warn_user(
        f"{what} has dtype {dtype}, but the kernel was declared with {declared}: it reads the "
        f"array's bytes as {declared} (as the original PyCUDA did), so it computes with other "
        f"numbers than the array holds. Pass ary.astype(numpy.{declared.name}) to convert "
        f"the values, or ary.view(numpy.{declared.name}) to say the reinterpretation is meant"
    )


# }}}
