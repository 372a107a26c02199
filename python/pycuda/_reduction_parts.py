"""pycuda._reduction_parts: what the reduction kernels of pycuda.reduction and
pycuda._arg_extremum share (and the axis reductions): their device helpers and the identities
of max and min (how many blocks a device holds is pycuda._launch_config's)."""

from __future__ import annotations

from typing import Any

import numpy as np

# Device helpers shared by every reduction module (guarded: a user preamble may include them).
REDUCTION_HELPERS = r"""
#ifndef PYCUDA_REDUCTION_HELPERS
#define PYCUDA_REDUCTION_HELPERS
// Any trivially copyable value, moved through a warp shuffle in 32-bit words.
template <class T>
__device__ __forceinline__ T pycuda_shfl_down(const T &v, unsigned delta) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned w[W] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k)
        w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
// Maximum and minimum that propagate NaN, as numpy.max/min do (x != x only for NaN).
template <class T>
__device__ __forceinline__ T pycuda_nan_max(const T &a, const T &b) {
    return (a != a) ? a : ((b != b) ? b : (a < b ? b : a));
}
template <class T>
__device__ __forceinline__ T pycuda_nan_min(const T &a, const T &b) {
    return (a != a) ? a : ((b != b) ? b : (b < a ? b : a));
}
// Truth of a value, as numpy's any/all see it (NaN is true).
template <class T>
__device__ __forceinline__ bool pycuda_truth(const T &x) { return x != T(0); }
template <class T>
__device__ __forceinline__ bool pycuda_truth(const pycuda::complex<T> &x) {
    return x.real() != T(0) || x.imag() != T(0);
}
// Value and index, for argmax/argmin: the first extremum wins, a NaN beats every number.
template <class T>
struct pycuda_arg_pair {
    T v;
    long long i;
};
template <class T>
__device__ __forceinline__ pycuda_arg_pair<T> pycuda_make_arg(const T &v, long long i) {
    pycuda_arg_pair<T> p;
    p.v = v;
    p.i = i;
    return p;
}
template <bool Max, class T>
__device__ __forceinline__ pycuda_arg_pair<T> pycuda_arg_ext(const pycuda_arg_pair<T> &a,
                                                             const pycuda_arg_pair<T> &b) {
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn)
        return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    if (Max ? (b.v < a.v) : (a.v < b.v))
        return a;
    if (Max ? (a.v < b.v) : (b.v < a.v))
        return b;
    return a.i < b.i ? a : b;
}
#endif
"""


def minmax_neutral(what: str, dtype: Any) -> str:
    """The C expression of the identity of ``what`` ("max" or "min") for ``dtype``."""
    dtype = np.dtype(dtype)
    if what not in ("max", "min"):
        raise ValueError(f"what must be 'max' or 'min', got {what!r}")
    if dtype.kind == "c":
        raise TypeError(f"max/min of complex values ({dtype}) is not defined")
    if dtype.kind == "b":
        return "false" if what == "max" else "true"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        value = info.min if what == "max" else info.max
        if value == -(2**63):
            return "(-9223372036854775807LL - 1)"  # the literal 9223372036854775808 overflows
        return f"{value}{'ULL' if dtype.kind == 'u' else 'LL'}"
    sign = "-" if what == "max" else ""
    if dtype == np.dtype(np.float64):
        return f"{sign}__longlong_as_double(0x7ff0000000000000LL)"
    return f"{sign}__int_as_float(0x7f800000)"  # float32; float16 converts from it
