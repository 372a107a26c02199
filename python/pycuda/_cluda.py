"""``CLUDA_PREAMBLE``: the macros that let one kernel text read as OpenCL or CUDA, as the
original's ``pycuda._cluda`` defines them for CUDA.

``KERNEL``, ``WITHIN_KERNEL``, ``GLOBAL_MEM``, ``LOCAL_MEM``, ``LOCAL_MEM_ARG``,
``REQD_WG_SIZE(X, Y, Z)``, ``local_barrier()``, and the work-item indices ``LID_n`` (thread in
block), ``GID_n`` (block), ``LDIM_n`` (block size), ``GDIM_n`` (grid size) for n = 0, 1, 2.
The scan templates of :mod:`pycuda.scan` are written in them::

    from pycuda._cluda import CLUDA_PREAMBLE
    src = CLUDA_PREAMBLE + "KERNEL void k(GLOBAL_MEM float *x) { x[GID_0 * LDIM_0 + LID_0] = 0; }"
"""

from __future__ import annotations

_AXES = ("x", "y", "z")
_INDICES = (("LID", "threadIdx"), ("GID", "blockIdx"), ("LDIM", "blockDim"), ("GDIM", "gridDim"))

CLUDA_PREAMBLE = (
    """
#define local_barrier() __syncthreads();

#define WITHIN_KERNEL __device__
#define KERNEL extern "C" __global__
#define GLOBAL_MEM /* device memory: no qualifier in CUDA */
#define LOCAL_MEM __shared__
#define LOCAL_MEM_ARG /* shared memory passed by pointer: no qualifier in CUDA */
#define REQD_WG_SIZE(X,Y,Z) __launch_bounds__(X*Y*Z, 1)
"""
    + "".join(
        f"\n#define {macro}_{n} {builtin}.{axis}"
        for macro, builtin in _INDICES
        for n, axis in enumerate(_AXES)
    )
    + "\n"
)
