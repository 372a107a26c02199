"""pycuda.sparse._csr: a matrix as host CSR or COO arrays, from scipy.sparse or dense input.

scipy is optional here. Besides any scipy.sparse matrix or array (through its ``tocsr()``),
these are read with NumPy alone: an object with ``indptr``, ``indices``, ``data`` and ``shape``
(CSR), one with ``row``, ``col``, ``data`` and ``shape`` (COO), and a dense 2-D array (its
nonzero entries).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class CsrArrays:
    """A matrix in compressed sparse row form: row ``i`` holds ``data[indptr[i]:indptr[i+1]]``
    in the columns ``indices[indptr[i]:indptr[i+1]]`` (int64 index arrays)."""

    shape: tuple[int, int]
    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray

    @property
    def nnz(self) -> int:
        """The number of stored entries."""
        return int(self.data.size)

    def row_numbers(self) -> np.ndarray:
        """The row of each stored entry (int64), in storage order."""
        return np.repeat(np.arange(self.shape[0], dtype=np.int64), np.diff(self.indptr))


@dataclass(frozen=True)
class CooArrays:
    """A matrix as coordinate triples: entry ``k`` is ``data[k]`` at ``(row[k], col[k])``;
    entries with equal coordinates add up. The attribute names are scipy's ``coo_matrix``'s."""

    shape: tuple[int, int]
    row: np.ndarray
    col: np.ndarray
    data: np.ndarray

    @property
    def nnz(self) -> int:
        """The number of stored entries."""
        return int(self.data.size)


def _shape(mat: Any) -> tuple[int, int]:
    shape = tuple(int(n) for n in mat.shape)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError(f"a sparse matrix must be 2-D, got shape {mat.shape}")
    return shape  # type: ignore[return-value]


def _check_indices(what: str, indices: np.ndarray, bound: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= bound):
        raise ValueError(f"{what} indices must lie in [0, {bound})")


def _from_coo(shape: tuple[int, int], row: Any, col: Any, data: Any, dtype: Any) -> CsrArrays:
    row = np.asarray(row, dtype=np.int64).ravel()
    col = np.asarray(col, dtype=np.int64).ravel()
    data = np.asarray(data, dtype=dtype).ravel()
    if not row.size == col.size == data.size:
        raise ValueError("COO input: row, col and data must have one entry each per nonzero")
    _check_indices("row", row, shape[0])
    _check_indices("column", col, shape[1])
    order = np.argsort(row, kind="stable")  # keeps each row's entries in their given order
    counts = np.bincount(row, minlength=shape[0])
    indptr = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return CsrArrays(shape, indptr, col[order], data[order])


def to_csr(mat: Any, dtype: Any) -> CsrArrays:
    """``mat`` (scipy.sparse, CSR-like, COO-like or dense, see the module) as CsrArrays with
    values of ``dtype``."""
    dtype = np.dtype(dtype)
    if hasattr(mat, "tocsr"):  # scipy.sparse, any format
        mat = mat.tocsr()
    if all(hasattr(mat, a) for a in ("indptr", "indices", "data", "shape")):
        shape = _shape(mat)
        indptr = np.asarray(mat.indptr, dtype=np.int64).ravel()
        indices = np.asarray(mat.indices, dtype=np.int64).ravel()
        data = np.asarray(mat.data, dtype=dtype).ravel()
        if indptr.size != shape[0] + 1 or indptr[0] != 0 or np.any(np.diff(indptr) < 0):
            raise ValueError("CSR input: indptr must rise from 0, with one entry per row plus one")
        nnz = int(indptr[-1])
        if indices.size < nnz or data.size < nnz:
            raise ValueError("CSR input: indices and data are shorter than indptr says")
        indices, data = indices[:nnz], data[:nnz]
        _check_indices("column", indices, shape[1])
        return CsrArrays(shape, indptr, indices, data)
    if all(hasattr(mat, a) for a in ("row", "col", "data", "shape")):
        return _from_coo(_shape(mat), mat.row, mat.col, mat.data, dtype)
    dense = np.asarray(mat)
    if dense.ndim != 2:
        raise ValueError(
            f"expected a scipy.sparse matrix or a 2-D array, got {type(mat).__name__} "
            f"with {dense.ndim} dimensions"
        )
    row, col = np.nonzero(dense)
    return _from_coo(_shape(dense), row, col, dense[row, col], dtype)


def to_coo(mat: Any, dtype: Any) -> CooArrays:
    """``mat`` as CooArrays with values of ``dtype``, its entries sorted by row."""
    csr = to_csr(mat, dtype)
    return CooArrays(csr.shape, csr.row_numbers(), csr.indices, csr.data)
