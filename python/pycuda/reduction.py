"""Reductions of whole arrays to one value: ``ReductionKernel`` and the kernel factories behind
``gpuarray.sum``, ``dot``, ``max``, ``min``, ``any``, ``all`` and their subset forms.

How a reduction runs (two launches, no atomics, no counters to reset):

1. Stage 1: a grid of at most one resident wave of 256-thread blocks. Blocks walk the input in
   tiles with a grid-stride loop. Within a tile each thread reduces ``UNROLL`` loads in a tree,
   so the values of one tile never form a serial chain; per-tile results fold into a running
   accumulator that is itself folded into an outer one every 64 tiles (a two-level cascade, so
   a float32 sum of 2^33 elements stays within a few ulps). When the map is a plain load
   (``x[i]``, ``a[i]*b[i]``, ...) and the arrays are aligned, each load is 16 bytes wide.
   Threads then reduce across the warp with ``__shfl_down_sync`` (struct types a shuffle
   cannot be trusted with go through shared memory, with ``__syncwarp`` between steps), and
   each block writes its partial.
2. Stage 2: one block reduces the partials the same way and writes the result.

A single block's worth of input (small arrays) takes one launch that writes the result directly.
The reduction operator must be associative and commutative, as in the original.

    from pycuda.reduction import ReductionKernel
    dot = ReductionKernel(numpy.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="float *x, float *y")
    result = dot(x_gpu, y_gpu).get()
"""

from __future__ import annotations

from pycuda._reduction_factories import (
    get_all_kernel,
    get_any_kernel,
    get_argminmax_kernel,
    get_dot_kernel,
    get_minmax_kernel,
    get_minmax_neutral,
    get_subset_dot_kernel,
    get_subset_minmax_kernel,
    get_subset_sum_kernel,
    get_sum_kernel,
)
from pycuda._reduction_kernel import (  # noqa: F401 - used by the module reductions
    ReductionKernel,
    ReductionPlan,
    launch_plan,
    reduce_whole,
)
from pycuda._reduction_source import (
    BLOCK_SIZE,
    get_reduction_kernel_and_types,
    get_reduction_module,
)
from pycuda.tools import (  # noqa: F401 - the original's module offers these; clients import them
    ScalarArg,
    VectorArg,
    context_dependent_memoize,
    dtype_to_ctype,
)

__all__ = [
    "BLOCK_SIZE",
    "ReductionKernel",
    "ScalarArg",
    "VectorArg",
    "get_all_kernel",
    "get_any_kernel",
    "get_argminmax_kernel",
    "get_dot_kernel",
    "get_minmax_kernel",
    "get_minmax_neutral",
    "get_reduction_kernel_and_types",
    "get_reduction_module",
    "get_subset_dot_kernel",
    "get_subset_minmax_kernel",
    "get_subset_sum_kernel",
    "get_sum_kernel",
]
