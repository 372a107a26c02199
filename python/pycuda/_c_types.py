"""CUDA C type names of dtypes, both ways: what generated kernels declare for each array dtype.

``dtype_to_ctype`` names the C type a kernel uses for elements of a dtype; ``ctype_to_dtype``
reads the C types users write in ``ElementwiseKernel`` argument lists. Both read the dtype table
(``pycuda._dtypes``); struct types are added with :func:`register_dtype` or with
``pycuda.tools.get_or_register_dtype``/``register_dtype``, which write to the same table.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _dtypes


def register_dtype(dtype: Any, c_name: str, alias_ok: bool = False) -> None:
    """Make ``c_name`` the C type of ``dtype`` (e.g. a struct dtype).

    Registering a second name for a dtype that already has one is an error unless ``alias_ok``:
    the new name is then only read back, and the dtype keeps its first name.
    """
    _dtypes.register(dtype, c_name, alias_ok)


def dtype_to_ctype(dtype: Any) -> str:
    """The CUDA C type name of elements of ``dtype``, e.g. ``float`` for ``numpy.float32``."""
    return _dtypes.info(dtype).c_name


def ctype_to_dtype(name: str) -> np.dtype:
    """The dtype of the CUDA C type ``name``: ``float``, ``unsigned int``, ``complex<float>``..."""
    return _dtypes.from_c_name(name)
