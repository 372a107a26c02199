"""scripts/_sanitize_workload.py: runs the kernels the package generates, at small sizes, for
compute-sanitizer (scripts/sanitize.sh runs it under memcheck, racecheck, initcheck and synccheck).

Sections: element-wise for every dtype (contiguous, strided and broadcast), cumath, custom
ElementwiseKernel, reductions (whole-array, subset, axis, custom), scans, random generators,
gather/take/put and fancy indexing, texture reads (references and objects) and surface writes.
Every result is compared with NumPy; inputs are always initialised first (initcheck reports any
read of memory nothing wrote). Sizes include 1, a few hundred, and one past a multiple of the
block size, so tails and multi-block paths run.

    python scripts/_sanitize_workload.py            # every section
    python scripts/_sanitize_workload.py --only reductions,scans

Each section prints one line ("section NAME: N checks, M mismatches, T s"). A section that
raises is reported and the others still run. Exit status: 0 when every check matched, 2 when a
check failed or a section raised. compute-sanitizer's own findings are its exit status 1.
SANITIZE_HEAVY=1 adds the XORWOW and MRG32k3a generators, whose state set-up (cuRAND's
skip-ahead over every generator of the device) runs for minutes under memcheck.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import numpy as np

SIZES = (1, 300, 10_241)


class Checker:
    """Counts comparisons with NumPy and reports mismatches (a few lines each, not raising)."""

    def __init__(self) -> None:
        self.checks = 0
        self.mismatches = 0

    def same(self, what: str, got: Any, want: Any, rtol: float = 1e-5, atol: float = 0) -> None:
        self.checks += 1
        got_h = np.asarray(got.get() if hasattr(got, "get") else got)
        want = np.asarray(want)
        if "V" in (want.dtype.kind, got_h.dtype.kind):  # bfloat16 (ml_dtypes): compare as float
            got_h, want = got_h.astype(np.float64), want.astype(np.float64)
        try:
            if want.dtype.kind in "fc" or got_h.dtype.kind in "fc":
                np.testing.assert_allclose(
                    np.asarray(got_h, dtype=np.complex128 if want.dtype.kind == "c" else float),
                    want.astype(np.complex128 if want.dtype.kind == "c" else float),
                    rtol=rtol,
                    atol=atol,
                )
            else:
                np.testing.assert_array_equal(got_h, want)
        except AssertionError as exc:
            self.mismatches += 1
            print(f"  MISMATCH {what}: {str(exc).strip().splitlines()[0:4]}", flush=True)


def _host(n: int, dtype: np.dtype, rng: np.random.Generator, low: int = 0) -> np.ndarray:
    """Small values that every dtype holds and no operation below overflows."""
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind == "c":
        return (rng.integers(low, 9, n) + 1j * rng.integers(0, 9, n)).astype(dtype)
    return rng.integers(low, 9, n).astype(dtype)


def _tol(dtype: np.dtype) -> float:
    return {2: 1e-2, 4: 1e-5}.get(dtype.itemsize, 1e-12) if dtype.kind in "fcV" else 0


def _dtypes() -> list[np.dtype]:
    names = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
    names += ["float16", "float32", "float64", "complex64", "complex128"]
    out = [np.dtype(n) for n in names]
    try:
        import ml_dtypes

        out.append(np.dtype(ml_dtypes.bfloat16))
    except ImportError:
        pass
    return out


# --- sections ---------------------------------------------------------------------------------


def elementwise(c: Checker) -> None:
    from pycuda import gpuarray

    rng = np.random.default_rng(0)
    for dt in _dtypes():
        tol = _tol(dt)
        for n in SIZES:
            a_h, b_h = _host(n, dt, rng, low=1), _host(n, dt, rng, low=1)
            a, b = gpuarray.to_gpu(a_h), gpuarray.to_gpu(b_h)
            if dt.kind == "b":
                c.same(f"{dt} a==b n={n}", a == b, a_h == b_h)
                c.same(f"{dt} copy n={n}", a.copy(), a_h)
                continue
            c.same(f"{dt} a+b n={n}", a + b, a_h + b_h, rtol=tol)
            c.same(f"{dt} a*3 n={n}", a * 3, a_h * dt.type(3), rtol=tol)
            if dt.kind != "c":
                c.same(f"{dt} a<b n={n}", a < b, a_h < b_h)
            c.same(f"{dt} a[::3]+b[::3] n={n}", a[::3] + b[::3], a_h[::3] + b_h[::3], rtol=tol)
            c.same(
                f"{dt} astype n={n}",
                a.astype(np.float64 if dt.kind != "c" else np.complex128),
                a_h.astype(np.float64 if dt.kind != "c" else np.complex128),
                rtol=tol,
            )
            f = gpuarray.empty(n, dt)
            f.fill(dt.type(2))
            c.same(f"{dt} fill n={n}", f, np.full(n, 2, dt))
        m_h, row_h = _host(12 * 7, dt, rng, low=1).reshape(12, 7), _host(7, dt, rng, low=1)
        if dt.kind != "b":
            m, row = gpuarray.to_gpu(m_h), gpuarray.to_gpu(row_h)
            c.same(f"{dt} broadcast", m + row, m_h + row_h, rtol=tol)
            c.same(f"{dt} transpose copy", m.T.copy(), m_h.T)


def cumath_section(c: Checker) -> None:
    from pycuda import cumath, gpuarray

    rng = np.random.default_rng(1)
    for dt in (np.float32, np.float64, np.complex64):
        tol = 1e-4 if dt != np.float64 else 1e-10
        for n in SIZES:
            x_h = (rng.random(n) + 0.5).astype(dt)
            x = gpuarray.to_gpu(x_h)
            c.same(f"sin {dt.__name__} n={n}", cumath.sin(x), np.sin(x_h), rtol=tol)
            c.same(f"exp {dt.__name__} n={n}", cumath.exp(x), np.exp(x_h), rtol=tol)
            c.same(f"sqrt {dt.__name__} n={n}", cumath.sqrt(x), np.sqrt(x_h), rtol=tol)
            if dt != np.complex64:
                c.same(f"log {dt.__name__} n={n}", cumath.log(x), np.log(x_h), rtol=tol)


def custom_elementwise(c: Checker) -> None:
    from pycuda import gpuarray
    from pycuda.elementwise import ElementwiseKernel

    lin = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb"
    )
    rng = np.random.default_rng(2)
    for n in SIZES:
        x_h, y_h = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        x, y = gpuarray.to_gpu(x_h), gpuarray.to_gpu(y_h)
        z = gpuarray.empty_like(x)
        lin(np.float32(2), x, np.float32(3), y, z)
        c.same(f"ElementwiseKernel n={n}", z, 2 * x_h + 3 * y_h)
        w = gpuarray.zeros_like(x)  # the odd elements stay 0 (and initialised, for initcheck)
        lin(np.float32(1), x, np.float32(-1), y, w, range=slice(0, n, 2))
        want = np.zeros(n, np.float32)
        want[::2] = (x_h - y_h)[::2]
        c.same(f"ElementwiseKernel range n={n}", w, want, atol=1e-6)


def reductions(c: Checker) -> None:
    from pycuda import gpuarray
    from pycuda.reduction import ReductionKernel

    rng = np.random.default_rng(3)
    sizes = (*SIZES, 300_007)
    for dt in (np.int32, np.int64, np.uint32, np.float16, np.float32, np.float64, np.complex64):
        dt = np.dtype(dt)
        tol = {2: 2e-2, 4: 1e-4}.get(dt.itemsize, 1e-10) if dt.kind in "fc" else 0
        # float16 sums are float16 (as NumPy's): kept small enough not to overflow
        for n in sizes if dt.itemsize > 2 else SIZES[:2]:
            x_h = _host(n, dt, rng)
            x = gpuarray.to_gpu(x_h)
            c.same(
                f"sum {dt} n={n}",
                gpuarray.sum(x),
                x_h.sum(dtype=np.float64 if dt.kind == "f" else None),
                rtol=tol,
            )
            if dt.kind != "c":
                c.same(f"max {dt} n={n}", gpuarray.max(x), x_h.max())
                c.same(f"min {dt} n={n}", gpuarray.min(x), x_h.min())
    for n in sizes:
        a_h, b_h = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        a, b = gpuarray.to_gpu(a_h), gpuarray.to_gpu(b_h)
        c.same(f"dot n={n}", gpuarray.dot(a, b), np.dot(a_h.astype(float), b_h), rtol=1e-4)
        sub_h = np.arange(0, n, 3, dtype=np.int32)
        sub = gpuarray.to_gpu(sub_h)
        c.same(
            f"subset_dot n={n}",
            gpuarray.subset_dot(sub, a, b),
            np.dot(a_h[sub_h].astype(float), b_h[sub_h]),
            rtol=1e-4,
        )
        c.same(f"subset_max n={n}", gpuarray.subset_max(sub, a), a_h[sub_h].max())
        c.same(f"argmax n={n}", gpuarray.argmax(a), np.argmax(a_h))
        c.same(f"mean n={n}", gpuarray.sum(a) / n, a_h.mean(), rtol=1e-4)
    m_h = rng.random((37, 129)).astype(np.float32)
    m = gpuarray.to_gpu(m_h)
    for axis in (0, 1):
        c.same(f"sum axis={axis}", m.sum(axis=axis), m_h.sum(axis=axis), rtol=1e-4)
        c.same(f"max axis={axis}", m.max(axis=axis), m_h.max(axis=axis))
    sumsq = ReductionKernel(
        np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*x[i]", arguments="const float *x"
    )
    for n in sizes:
        x_h = rng.random(n, dtype=np.float32)
        c.same(
            f"ReductionKernel n={n}",
            sumsq(gpuarray.to_gpu(x_h)),
            (x_h.astype(np.float64) ** 2).sum(),
            rtol=1e-6,
        )


def scans(c: Checker) -> None:
    from pycuda import gpuarray
    from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel

    rng = np.random.default_rng(4)
    inc_i = InclusiveScanKernel(np.int32, "a+b")
    exc_f = ExclusiveScanKernel(np.float64, "a+b", "0")
    inc_max = InclusiveScanKernel(np.int64, "a > b ? a : b")
    for n in (*SIZES, 300_007):
        x_h = rng.integers(0, 9, n).astype(np.int32)
        c.same(
            f"inclusive int32 n={n}", inc_i(gpuarray.to_gpu(x_h)), np.cumsum(x_h, dtype=np.int32)
        )
        y_h = rng.random(n)
        want = np.concatenate([[0.0], np.cumsum(y_h)[:-1]])
        c.same(f"exclusive float64 n={n}", exc_f(gpuarray.to_gpu(y_h)), want, rtol=1e-9)
        z_h = rng.integers(-1000, 1000, n).astype(np.int64)
        c.same(f"inclusive max n={n}", inc_max(gpuarray.to_gpu(z_h)), np.maximum.accumulate(z_h))
    m_h = rng.random((33, 65)).astype(np.float32)
    m = gpuarray.to_gpu(m_h)
    for axis in (None, 0, 1):
        want = np.cumsum(m_h if axis is not None else m_h.ravel(), axis=axis)
        c.same(f"cumsum axis={axis}", gpuarray.cumsum(m, axis=axis), want, rtol=1e-4)


def random(c: Checker) -> None:
    from pycuda import curandom, gpuarray

    def in_unit(what: str, a: Any) -> None:
        h = a.get()
        c.checks += 1
        if not (np.all(h > 0) and np.all(h <= 1)) or h.size == 0:
            c.mismatches += 1
            print(f"  MISMATCH {what}: values outside (0, 1]", flush=True)

    def finite(what: str, a: Any) -> None:
        h = a.get()
        c.checks += 1
        if not np.all(np.isfinite(h)):
            c.mismatches += 1
            print(f"  MISMATCH {what}: non-finite values", flush=True)

    for dt in (np.float32, np.float64):
        for n in (1, 1001, 70_001):
            in_unit(f"rand {dt.__name__} n={n}", curandom.rand((n,), dtype=dt))
            finite(f"randn {dt.__name__} n={n}", curandom.randn((n,), dtype=dt))
    classes = [curandom.PhiloxRandomNumberGenerator]
    if os.environ.get("SANITIZE_HEAVY"):
        classes += [curandom.XORWOWRandomNumberGenerator, curandom.MRG32k3aRandomNumberGenerator]
    for cls in classes:
        gen = cls()
        for dt in (np.float32, np.float64):
            in_unit(f"{cls.__name__} uniform {dt.__name__}", gen.gen_uniform((5001,), dt))
            finite(f"{cls.__name__} normal {dt.__name__}", gen.gen_normal((5001,), dt))
        ints = gpuarray.empty(4097, np.uint32)
        gen.fill_uniform(ints)
        c.checks += 1
        if len(np.unique(ints.get())) < 4000:
            c.mismatches += 1
            print(f"  MISMATCH {cls.__name__} uint32: too many repeats", flush=True)
    try:
        sobol = curandom.Sobol32RandomNumberGenerator()
    except Exception as exc:  # no cuRAND library for the direction vectors: say so, go on
        print(f"  (Sobol32 skipped: {type(exc).__name__}: {exc})", flush=True)
    else:
        in_unit("Sobol32 uniform", sobol.gen_uniform((4097,), np.float32))


def gather(c: Checker) -> None:
    from pycuda import gpuarray

    rng = np.random.default_rng(5)
    for dt in (np.int8, np.float32, np.float64, np.complex64, np.int64):
        dt = np.dtype(dt)
        a_h = _host(10_007, dt, rng)
        a = gpuarray.to_gpu(a_h)
        for idt in (np.int32, np.uint32, np.int64):
            idx_h = rng.integers(0, a_h.size, 3001).astype(idt)
            idx = gpuarray.to_gpu(idx_h)
            c.same(f"take {dt}[{np.dtype(idt)}]", gpuarray.take(a, idx), a_h[idx_h])
        idx_h = rng.integers(0, a_h.size, 999).astype(np.int32)
        idx = gpuarray.to_gpu(idx_h)
        c.same(f"fancy get {dt}", a[idx], a_h[idx_h])
        b_h = a_h.copy()
        b = gpuarray.to_gpu(b_h)
        vals_h = _host(999, dt, rng)
        uniq = np.unique(idx_h)
        b[gpuarray.to_gpu(uniq)] = gpuarray.to_gpu(vals_h[: uniq.size])
        b_h[uniq] = vals_h[: uniq.size]
        c.same(f"fancy set {dt}", b, b_h)
    x_h = [rng.random(5000, dtype=np.float32) for _ in range(3)]
    xs = [gpuarray.to_gpu(x) for x in x_h]
    idx_h = rng.integers(0, 5000, 777).astype(np.int32)
    outs = gpuarray.multi_take(xs, gpuarray.to_gpu(idx_h))
    for k in range(3):
        c.same(f"multi_take {k}", outs[k], x_h[k][idx_h])
    dest = [gpuarray.zeros(5000, np.float32) for _ in range(3)]
    uniq = np.unique(idx_h).astype(np.int32)
    # one source element per destination index
    gpuarray.multi_put([x[: uniq.size] for x in xs], gpuarray.to_gpu(uniq), out=dest)
    for k in range(3):
        want = np.zeros(5000, np.float32)
        want[uniq] = x_h[k][: uniq.size]
        c.same(f"multi_put {k}", dest[k], want)
    c.same("concatenate", gpuarray.concatenate(xs), np.concatenate(x_h))
    c.same("stack", gpuarray.stack(xs), np.stack(x_h))


TEX1D = """
texture<float, 1, cudaReadModeElementType> t1;
texture<float, 2> t2;
__global__ void read1(float *dest, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        dest[i] = tex1Dfetch(t1, i);
}
__global__ void read2(float *dest, int w, int h)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x, y = blockIdx.y;
    if (x < w && y < h)
        dest[y * w + x] = tex2D(t2, x + 0.5f, y + 0.5f);
}
"""

OBJECTS = """
__global__ void via_objects(float *dest, cudaTextureObject_t tex, cudaSurfaceObject_t surf,
                            int w, int h)
{
    int x = threadIdx.x + blockIdx.x * blockDim.x, y = blockIdx.y;
    if (x < w && y < h) {
        float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
        surf2Dwrite(2.0f * v, surf, x * 4, y);
        dest[y * w + x] = v;
    }
}
"""


def textures(c: Checker) -> None:
    import pycuda.driver as drv
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule

    rng = np.random.default_rng(6)
    mod = SourceModule(TEX1D)
    n = 3001
    x_h = rng.random(n, dtype=np.float32)
    x = gpuarray.to_gpu(x_h)
    t1 = mod.get_texref("t1")
    x.bind_to_texref_ext(t1)
    dest = gpuarray.empty(n, np.float32)
    mod.get_function("read1")(
        dest, np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1), texrefs=[t1]
    )
    c.same("tex1Dfetch (reference)", dest, x_h)
    w, h = 70, 9
    m_h = rng.random((h, w), dtype=np.float32)
    t2 = mod.get_texref("t2")
    drv.matrix_to_texref(m_h, t2, order="C")
    dest2 = gpuarray.empty((h, w), np.float32)
    mod.get_function("read2")(
        dest2, np.int32(w), np.int32(h), block=(32, 1, 1), grid=((w + 31) // 32, h), texrefs=[t2]
    )
    c.same("tex2D (reference)", dest2, m_h)

    objs = SourceModule(OBJECTS)
    tex = drv.TextureObject.from_array(drv.matrix_to_array(m_h, "C"))
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, 0
    descr.format = drv.array_format.FLOAT
    descr.num_channels = 1
    descr.flags = drv.array3d_flags.SURFACE_LDST
    out_ary = drv.Array(descr)
    surf = drv.SurfaceObject(out_ary)
    dest3 = gpuarray.empty((h, w), np.float32)
    objs.get_function("via_objects")(
        dest3, np.uint64(tex.handle), np.uint64(surf.handle), np.int32(w), np.int32(h),
        block=(32, 1, 1), grid=((w + 31) // 32, h),
    )  # fmt: skip
    c.same("tex2D (object)", dest3, m_h)
    back = np.zeros_like(m_h)
    copy = drv.Memcpy2D()
    copy.set_src_array(out_ary)
    copy.set_dst_host(back)
    copy.width_in_bytes = copy.dst_pitch = w * 4
    copy.height = h
    copy()
    c.same("surf2Dwrite (object)", back, 2 * m_h)


def misc(c: Checker) -> None:
    from pycuda import gpuarray

    rng = np.random.default_rng(7)
    for n in SIZES:
        c.same(
            f"arange n={n}", gpuarray.arange(n, dtype=np.float32), np.arange(n, dtype=np.float32)
        )
        crit_h = rng.integers(-3, 3, n).astype(np.int32)
        a_h, b_h = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        crit, a, b = gpuarray.to_gpu(crit_h), gpuarray.to_gpu(a_h), gpuarray.to_gpu(b_h)
        c.same(
            f"if_positive n={n}", gpuarray.if_positive(crit, a, b), np.where(crit_h > 0, a_h, b_h)
        )
        c.same(f"maximum n={n}", gpuarray.maximum(a, b), np.maximum(a_h, b_h))
        c.same(f"reverse copy n={n}", a[::-1].copy(), a_h[::-1])
    t_h = rng.random((5, 6, 7)).astype(np.float32)
    t = gpuarray.to_gpu(t_h)
    c.same("3-D transpose", t.transpose((2, 0, 1)).copy(), t_h.transpose((2, 0, 1)))
    c.same("3-D strided set", t[1:4, ::2, ::3] * 2, t_h[1:4, ::2, ::3] * 2, rtol=1e-6)


SECTIONS: dict[str, Callable[[Checker], None]] = {
    "elementwise": elementwise,
    "cumath": cumath_section,
    "custom_elementwise": custom_elementwise,
    "reductions": reductions,
    "scans": scans,
    "random": random,
    "gather": gather,
    "textures": textures,
    "misc": misc,
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="the package's kernels, for compute-sanitizer")
    p.add_argument("--only", default="", help="comma-separated sections: " + ",".join(SECTIONS))
    args = p.parse_args(argv)
    chosen = [s for s in SECTIONS if not args.only or s in args.only.split(",")]

    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv

    failed = []
    total_checks = total_bad = 0
    start = time.perf_counter()
    for name in chosen:
        c = Checker()
        t0 = time.perf_counter()
        try:
            SECTIONS[name](c)
            drv.Context.synchronize()
            status = ""
        except Exception as exc:
            failed.append(name)
            status = (
                f", RAISED {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
            )
            traceback.print_exc(limit=4)
        total_checks += c.checks
        total_bad += c.mismatches
        print(
            f"section {name}: {c.checks} checks, {c.mismatches} mismatches, "
            f"{time.perf_counter() - t0:.1f} s{status}",
            flush=True,
        )
    ok = not failed and total_bad == 0
    print(
        f"workload: {len(chosen)} sections, {total_checks} checks, {total_bad} mismatches, "
        f"{len(failed)} raised, {time.perf_counter() - start:.1f} s: {'OK' if ok else 'FAILED'}",
        flush=True,
    )
    return 0 if ok else 2


if __name__ == "__main__":
    sys.exit(main())
