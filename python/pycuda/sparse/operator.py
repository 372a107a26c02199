"""pycuda.sparse.operator: linear operators on GPU vectors, as the CG solver takes them.

A Jacobi preconditioner, for instance, multiplies by the inverse of the matrix's diagonal:

    import numpy as np
    import pycuda.autoinit
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.operator import DiagonalPreconditioner

    inverse_diagonal = gpuarray.to_gpu(np.array([0.5, 0.25], np.float32))
    precon = DiagonalPreconditioner(inverse_diagonal)
    precon(gpuarray.to_gpu(np.array([2, 4], np.float32)))   # [1, 1]
"""

from __future__ import annotations

from typing import Any


class OperatorBase:
    """A linear operator: ``dtype``, ``shape`` (rows, columns), and calling it on a vector
    gives the product. Subclasses define all three."""

    @property
    def dtype(self) -> Any:
        """The dtype of the vectors it takes and gives."""
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the matrix it stands for."""
        raise NotImplementedError

    def __call__(self, operand: Any) -> Any:
        raise NotImplementedError


class IdentityOperator(OperatorBase):
    """The ``n`` by ``n`` identity: returns its operand itself (no copy)."""

    def __init__(self, dtype: Any, n: int) -> None:
        self.my_dtype = dtype
        self.n = n

    @property
    def dtype(self) -> Any:
        """The dtype of the vectors it takes and gives."""
        return self.my_dtype

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the matrix it stands for."""
        return self.n, self.n

    def __call__(self, operand: Any) -> Any:
        return operand


class DiagonalPreconditioner(OperatorBase):
    """Multiplication by a diagonal matrix, given as the vector ``diagonal`` of its entries
    (for Jacobi preconditioning, the inverse of the matrix's diagonal, in the numbering of
    the vectors it will be applied to)."""

    def __init__(self, diagonal: Any) -> None:
        self.diagonal = diagonal

    @property
    def dtype(self) -> Any:
        """The dtype of the vectors it takes and gives."""
        return self.diagonal.dtype

    @property
    def shape(self) -> tuple[int, int]:
        """(rows, columns) of the matrix it stands for."""
        n = self.diagonal.shape[0]
        return n, n

    def __call__(self, operand: Any) -> Any:
        return self.diagonal * operand
