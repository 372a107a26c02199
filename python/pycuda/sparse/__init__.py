"""pycuda.sparse: sparse matrix-vector products and a conjugate gradient solver on the GPU.

Kept from the original PyCUDA so that its programs run: :mod:`~pycuda.sparse.packeted`
(``PacketedSpMV``), :mod:`~pycuda.sparse.coordinate` (``CoordinateSpMV``),
:mod:`~pycuda.sparse.cg` (``solve_pkt_with_cg``), :mod:`~pycuda.sparse.operator`,
:mod:`~pycuda.sparse.inner` and :mod:`~pycuda.sparse.pkt_build`. As in the original, importing
it warns that it is deprecated.
"""

from __future__ import annotations

from warnings import warn

# The original warns on import; programs and test suites written for it may filter or expect
# this warning, so it stays (its text starts as the original's does).
warn(
    "pycuda.sparse is deprecated: it is kept so that programs written for the original PyCUDA "
    "run, and gets no new features",
    DeprecationWarning,
    stacklevel=2,
)
