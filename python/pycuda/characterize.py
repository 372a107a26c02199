"""pycuda.characterize: facts about the platform and the current device, found by asking it.

import pycuda.autoinit
from pycuda.characterize import sizeof, has_double_support
sizeof("float2")          # 8
"""

from __future__ import annotations

import struct

import numpy as np

import pycuda.driver as cuda
from pycuda.compiler import SourceModule
from pycuda.tools import context_dependent_memoize


def platform_bits() -> int:
    """The host's pointer width in bits (64 or 32)."""
    return struct.calcsize("P") * 8


def has_stack() -> bool:
    """Whether the current device has a call stack (compute capability 2.0 and later)."""
    return cuda.Context.get_device().compute_capability() >= (2, 0)


def has_double_support() -> bool:
    """Whether the current device computes in double precision (compute capability >= 1.3)."""
    return cuda.Context.get_device().compute_capability() >= (1, 3)


@context_dependent_memoize
def sizeof(type_name: str, preamble: str = "") -> int:
    """``sizeof(type_name)`` on the current device, found by compiling and running a kernel.

    ``preamble`` is source placed before it (includes, typedefs) that defines the type.
    """
    mod = SourceModule(
        f"""
        {preamble}
        extern "C" __global__ void write_size(unsigned long long *output)
        {{
            *output = sizeof({type_name});
        }}
        """,
        no_extern_c=True,
    )
    result = np.zeros(1, dtype=np.uint64)
    mod.get_function("write_size")(cuda.Out(result), block=(1, 1, 1), grid=(1, 1))
    return int(result[0])
