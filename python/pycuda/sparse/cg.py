"""pycuda.sparse.cg: the (preconditioned) conjugate gradient method on the GPU.

The iteration is the preconditioned CG of J. R. Shewchuk, "An Introduction to the Conjugate
Gradient Method Without the Agonizing Pain" (1994), appendix B3. Its scalars stay on the GPU
(0-d GPUArrays), so no iteration waits for the host; the residual is checked from values that
:class:`~pycuda.sparse.inner.AsyncInnerProduct` fetches in the background.

    import numpy as np
    import pycuda.autoinit
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.packeted import PacketedSpMV
    from pycuda.sparse.cg import solve_pkt_with_cg

    a = 4 * np.eye(3) + np.eye(3, k=1) + np.eye(3, k=-1)
    spmv = PacketedSpMV(a, True, np.float64)
    b = gpuarray.to_gpu(np.ones(3))
    x, iterations, residual_checks = solve_pkt_with_cg(spmv, b)   # a @ x.get() == 1
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.elementwise import ElementwiseKernel
from pycuda.sparse.inner import AsyncInnerProduct
from pycuda.sparse.operator import IdentityOperator
from pycuda.tools import dtype_to_ctype


class ConvergenceError(RuntimeError):
    """CG did not reach the tolerance within the allowed iterations."""


@functools.cache
def _lc2_kernel(dtype: np.dtype, a_is_gpu: bool, b_is_gpu: bool) -> ElementwiseKernel:
    t = dtype_to_ctype(dtype)
    a_decl, a_use = (f"{t} *a", "a[0]") if a_is_gpu else (f"{t} a", "a")
    b_decl, b_use = (f"{t} *b", "b[0]") if b_is_gpu else (f"{t} b", "b")
    return ElementwiseKernel(
        f"{t} *z, {t} *x, {t} *y, {a_decl}, {b_decl}",
        f"z[i] = {a_use} * x[i] + {b_use} * y[i]",
        "sparse_cg_lc2",
    )


@functools.cache
def _guarded_div_kernel(
    dtype_x: np.dtype, dtype_y: np.dtype, dtype_z: np.dtype
) -> ElementwiseKernel:
    tx, ty, tz = (dtype_to_ctype(d) for d in (dtype_x, dtype_y, dtype_z))
    return ElementwiseKernel(
        f"{tx} *x, {ty} *y, {tz} *z",
        f"z[i] = y[i] == ({ty}) 0 ? ({tz}) 0 : ({tz}) (x[i] / y[i])",
        "sparse_cg_guarded_div",
    )


def _scalar_operand(s: Any, name: str, dtype: np.dtype) -> Any:
    """A GPU scalar as it is, after checking it; a host number as ``dtype``."""
    if isinstance(s, gpuarray.GPUArray):
        if s.dtype != dtype or s.size != 1:
            raise ValueError(f"{name}: a GPU scalar must be one element of {dtype}")
        return s
    return dtype.type(s)


class CGStateContainer:
    """The state of one conjugate gradient solve of ``operator(x) = rhs``.

    ``operator`` and ``precon`` are callables on GPU vectors with ``dtype`` and ``shape``
    (see :mod:`pycuda.sparse.operator`; no ``precon`` is the identity);
    ``pagelocked_allocator(shape, dtype, stream)`` gives the host arrays for the residual
    checks. Call :meth:`reset`, then :meth:`run`. The state is in ``x``, ``residual``, ``d``
    (the search direction), ``delta`` (0-d GPUArray, residual . precon(residual)) and
    ``real_delta_queue`` (AsyncInnerProducts of recomputed residuals, not yet checked).
    """

    def __init__(self, operator: Any, precon: Any = None, pagelocked_allocator: Any = None):
        if precon is None:
            precon = IdentityOperator(operator.dtype, operator.shape[0])
        self.operator = operator
        self.precon = precon
        self.pagelocked_allocator = pagelocked_allocator

    def make_lc2_kernel(self, dtype: Any, a_is_gpu: bool, b_is_gpu: bool) -> ElementwiseKernel:
        """The kernel of :meth:`lc2` (arguments ``z, x, y, a, b``)."""
        return _lc2_kernel(np.dtype(dtype), bool(a_is_gpu), bool(b_is_gpu))

    def lc2(self, a: Any, x: Any, b: Any, y: Any, out: Any = None) -> Any:
        """``out = a*x + b*y`` (a new array if ``out`` is None); ``a`` and ``b`` are numbers or
        one-element GPUArrays of ``x``'s dtype. ``out`` may be ``x`` or ``y``."""
        if out is None:
            out = gpuarray.empty(x.shape, dtype=x.dtype, allocator=x.allocator)
        if not x.dtype == y.dtype == out.dtype:
            raise TypeError(f"lc2: x, y and out differ in dtype: {x.dtype}, {y.dtype}, {out.dtype}")
        if not x.shape == y.shape == out.shape:
            raise ValueError(
                f"lc2: x, y and out differ in shape: {x.shape}, {y.shape}, {out.shape}"
            )
        a = _scalar_operand(a, "a", x.dtype)
        b = _scalar_operand(b, "b", x.dtype)
        kernel = self.make_lc2_kernel(
            x.dtype, isinstance(a, gpuarray.GPUArray), isinstance(b, gpuarray.GPUArray)
        )
        kernel(out, x, y, a, b)
        return out

    def guarded_div_kernel(self, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> ElementwiseKernel:
        """The kernel of :meth:`guarded_div` (arguments ``x, y, z``)."""
        return _guarded_div_kernel(np.dtype(dtype_x), np.dtype(dtype_y), np.dtype(dtype_z))

    def guarded_div(self, a: Any, b: Any) -> Any:
        """``a / b`` elementwise, 0 where ``b`` is 0 (so a finished solve stays finite)."""
        if a.shape != b.shape:
            raise ValueError(f"guarded_div: shapes {a.shape} and {b.shape} differ")
        result = gpuarray.empty(a.shape, np.result_type(a.dtype, b.dtype), allocator=a.allocator)
        self.guarded_div_kernel(a.dtype, b.dtype, result.dtype)(a, b, result)
        return result

    def reset(self, rhs: Any, x: Any = None) -> None:
        """Start a solve for ``rhs`` from ``x`` (zero if None)."""
        self.rhs = rhs
        if x is None:
            x = gpuarray.zeros(self.operator.shape[0], dtype=rhs.dtype, allocator=rhs.allocator)
        self.x = x
        self.residual = rhs - self.operator(x)
        self.d = self.precon(self.residual)
        if self.d is self.residual:
            # The identity returns its operand: d and the residual are updated apart.
            self.d = self.residual.copy()
        delta = AsyncInnerProduct(self.residual, self.d, self.pagelocked_allocator)
        self.real_delta_queue = [delta]  # its first entry is the initial delta
        self.delta = delta.gpu_result

    def one_iteration(self, compute_real_residual: bool = False) -> None:
        """One CG step; with ``compute_real_residual``, the residual is recomputed as
        ``rhs - A x`` (not updated), and its delta queued for the convergence check."""
        q = self.operator(self.d)
        alpha = self.guarded_div(self.delta, gpuarray.dot(self.d, q))
        self.lc2(1, self.x, alpha, self.d, out=self.x)
        if compute_real_residual:
            self.residual = self.lc2(1, self.rhs, -1, self.operator(self.x))
        else:
            self.lc2(1, self.residual, -alpha, q, out=self.residual)

        s = self.precon(self.residual)
        delta_old = self.delta
        delta = AsyncInnerProduct(self.residual, s, self.pagelocked_allocator)
        self.delta = delta.gpu_result
        beta = self.guarded_div(self.delta, delta_old)
        self.lc2(1, s, beta, self.d, out=self.d)
        if compute_real_residual:
            self.real_delta_queue.append(delta)

    def _end(self, debug_callback: Callable[..., Any] | None, iteration: int) -> None:
        if debug_callback is not None:
            debug_callback("end", iteration, self.x, self.residual, self.d, self.delta)

    def run(
        self,
        max_iterations: int | None = None,
        tol: float = 1e-7,
        debug_callback: Callable[..., Any] | None = None,
    ) -> Any:
        """Iterate until ``|delta| < tol**2 * |delta_0|`` for a recomputed residual, and return
        ``x``; raise :class:`ConvergenceError` after ``max_iterations`` (default
        ``max(61, 10 n)``). ``debug_callback(what, iteration, x, residual, d, delta)`` is called
        after each iteration (``what`` is "it", or "it+residual" where the residual was
        recomputed) and with "end" on convergence."""
        check_interval = 20  # iterations between polls of the fetched deltas
        n = self.operator.shape[0]
        if max_iterations is None:
            max_iterations = max(3 * check_interval + 1, 10 * n)
        real_resid_interval = min(n, 50)

        delta_0 = None
        queue = self.real_delta_queue
        for iteration in range(max_iterations):
            recompute = iteration % real_resid_interval == 0
            self.one_iteration(compute_real_residual=recompute)
            if debug_callback is not None:
                what = "it+residual" if recompute else "it"
                debug_callback(what, iteration, self.x, self.residual, self.d, self.delta)
            if iteration % check_interval:
                continue
            if delta_0 is None and queue:
                delta_0 = queue[0].get_host_result()
                if delta_0 is not None:
                    queue.pop(0)
            if delta_0 is None:
                continue
            if delta_0 == 0:  # the start was exact: no relative decrease to wait for
                self._end(debug_callback, iteration)
                return self.x
            pending = []
            for entry in queue:
                value = entry.get_host_result()
                if value is None:
                    pending.append(entry)
                elif abs(value) < tol * tol * abs(delta_0):
                    self._end(debug_callback, iteration)
                    return self.x
            queue[:] = pending
        raise ConvergenceError("cg failed to converge")


def solve_pkt_with_cg(
    pkt_spmv: Any,
    b: Any,
    precon: Any = None,
    x: Any = None,
    tol: float = 1e-7,
    max_iterations: int | None = None,
    debug: bool = False,
    pagelocked_allocator: Any = None,
) -> tuple[Any, int, int]:
    """Solve ``A x = b`` for the symmetric positive definite matrix of the PacketedSpMV
    ``pkt_spmv`` by conjugate gradients; ``b`` and ``x`` (the start, zero if None) are in the
    matrix's numbering, ``precon`` acts in the permuted one. Returns ``(x, it_count,
    res_count)``: the solution (in the matrix's numbering), the iterations done, and how many
    of them recomputed the residual. ``pagelocked_allocator`` defaults to
    ``pycuda.driver.pagelocked_empty``; ``debug`` is accepted and has no effect, as in the
    original."""
    if x is None:
        x = gpuarray.zeros(pkt_spmv.shape[0], dtype=pkt_spmv.dtype, allocator=b.allocator)
    else:
        x = pkt_spmv.permute(x)
    if pagelocked_allocator is None:
        pagelocked_allocator = drv.pagelocked_empty

    cg = CGStateContainer(pkt_spmv, precon, pagelocked_allocator=pagelocked_allocator)
    cg.reset(pkt_spmv.permute(b), x)

    counts = {"it": 0, "it+residual": 0}

    def count(what: str, *_: Any) -> None:
        if what in counts:
            counts[what] += 1

    result = cg.run(max_iterations, tol, debug_callback=count)
    it_count = counts["it"] + counts["it+residual"]
    return pkt_spmv.unpermute(result), it_count, counts["it+residual"]
