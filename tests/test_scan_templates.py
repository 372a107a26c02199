"""Tests of pycuda._scan_templates (pycuda.scan's SCAN_INTERVALS_SOURCE, INCLUSIVE/EXCLUSIVE_
UPDATE_SOURCE, SHARED_PREAMBLE), pycuda._cluda and pycuda._mymako: rendering (ours and Mako's),
NVRTC compiles, a host build that runs the three phases with one std::thread per CUDA thread,
and on a GPU the original's launch sequence against NumPy."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from pycuda import scan
from pycuda._cluda import CLUDA_PREAMBLE
from pycuda._scan_templates import SourceTemplate
from pycuda.compiler import compile as cuda_compile

WG_SIZE, SEQ = 128, 6  # the original's scan block and elements per thread and unit
UPDATE_WG_SIZE = 256


def values(scan_type="int", scan_expr="a+b", neutral="0", name_prefix="scan", **extra):
    return dict(wg_size=WG_SIZE, wg_seq_batches=SEQ, preamble="", name_prefix=name_prefix,
                scan_type=scan_type, scan_expr=scan_expr, neutral=neutral, **extra)  # fmt: skip


def test_names_and_kinds():
    for name in ("SCAN_INTERVALS_SOURCE", "INCLUSIVE_UPDATE_SOURCE", "EXCLUSIVE_UPDATE_SOURCE"):
        tp = getattr(scan, name)
        assert isinstance(tp, str) and callable(tp.render), name
        assert tp.startswith(scan.SHARED_PREAMBLE)
    assert scan.SHARED_PREAMBLE.startswith(CLUDA_PREAMBLE)
    assert scan.CLUDA_PREAMBLE is CLUDA_PREAMBLE
    assert scan.InclusiveScanKernel.final_update_tp is scan.INCLUSIVE_UPDATE_SOURCE
    assert scan.ExclusiveScanKernel.final_update_tp is scan.EXCLUSIVE_UPDATE_SOURCE
    assert scan._ScanKernelBase is scan._ScanKernel


def test_render_fills_placeholders_and_names_missing_ones():
    src = scan.SCAN_INTERVALS_SOURCE.render(**values(name_prefix="pfx", unused=1))
    assert "void pfx_scan_intervals(" in src and "${" not in src
    assert "#define SCAN_EXPR(a, b) a+b" in src and "typedef int scan_type;" in src
    assert scan.EXCLUSIVE_UPDATE_SOURCE.placeholders() >= {"neutral", "scan_expr"}
    assert "neutral" not in scan.INCLUSIVE_UPDATE_SOURCE.placeholders()
    with pytest.raises(TypeError, match="scan_expr"):
        scan.INCLUSIVE_UPDATE_SOURCE.render(wg_size=1, name_prefix="p", scan_type="int",
                                            preamble="")  # fmt: skip
    # Values are not templates themselves.
    assert "${x}" in SourceTemplate("${p}").render(p="${x}")


def test_mako_renders_the_same_text():
    mako_template = pytest.importorskip("mako.template")
    for tp in (scan.SCAN_INTERVALS_SOURCE, scan.INCLUSIVE_UPDATE_SOURCE,
               scan.EXCLUSIVE_UPDATE_SOURCE):  # fmt: skip
        v = values(scan_type="double", scan_expr="fmax(a, b)", neutral="-1.0/0")
        assert mako_template.Template(str(tp)).render(**v) == tp.render(**v)


def test_mymako_explains_a_missing_mako(monkeypatch):
    monkeypatch.setitem(sys.modules, "mako", None)
    monkeypatch.setitem(sys.modules, "mako.template", None)
    monkeypatch.delitem(sys.modules, "pycuda._mymako", raising=False)
    with pytest.raises(ImportError, match="pip install Mako"):
        import pycuda._mymako  # noqa: F401


def test_mymako_stands_for_mako(monkeypatch):
    import types

    fake = types.ModuleType("mako")
    fake.__path__ = []  # a package
    fake_template = types.ModuleType("mako.template")
    fake_template.Template = object
    fake.template = fake_template
    monkeypatch.setitem(sys.modules, "mako", fake)
    monkeypatch.setitem(sys.modules, "mako.template", fake_template)
    monkeypatch.delitem(sys.modules, "pycuda._mymako", raising=False)
    import pycuda._mymako as mymako

    assert mymako.template.Template is object
    monkeypatch.delitem(sys.modules, "pycuda._mymako")


@pytest.mark.parametrize(
    "scan_type,scan_expr,neutral",
    [("int", "a+b", "0"), ("float", "fmaxf(a, b)", "-1.0f/0"), ("double", "a+b", "0"),
     ("pycuda::complex<float>", "a*b", "1"), ("long long", "b ? b : a", "0")],
)  # fmt: skip
def test_templates_compile(scan_type, scan_expr, neutral):
    v = values(scan_type, scan_expr, neutral)
    for tp, kernel in ((scan.SCAN_INTERVALS_SOURCE, "scan_scan_intervals"),
                       (scan.INCLUSIVE_UPDATE_SOURCE, "scan_final_update"),
                       (scan.EXCLUSIVE_UPDATE_SOURCE, "scan_final_update")):  # fmt: skip
        cubin = cuda_compile(tp.render(**v), arch="sm_90", no_extern_c=True, cache_dir=False)
        assert kernel.encode() in cubin


def splitting(n: int, granularity: int, max_intervals: int) -> tuple[int, int]:
    """(interval size, number of intervals): whole units, at most ``max_intervals`` of them."""
    units = -(-n // granularity)
    per_interval = -(-units // max_intervals)
    size = per_interval * granularity
    return size, -(-n // size)


def reference(x: np.ndarray, op, exclusive: bool, neutral) -> np.ndarray:
    out, acc = [], neutral
    for k, v in enumerate(x.tolist()):
        if exclusive:
            out.append(acc)
            acc = op(acc, v)
        else:
            acc = v if k == 0 else op(acc, v)
            out.append(acc)
    return np.array(out, dtype=x.dtype)


# {{{ host build: the rendered kernels with CLUDA's macros on std::thread and std::barrier

HOST_CLUDA = r"""
#include <algorithm>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>
using std::min;
static thread_local unsigned pr_lid;
static unsigned pr_gid;
static std::barrier<> *pr_barrier;
#define local_barrier() pr_barrier->arrive_and_wait();
#define KERNEL
#define GLOBAL_MEM
#define LOCAL_MEM static
#define REQD_WG_SIZE(X, Y, Z)
#define LID_0 pr_lid
#define GID_0 pr_gid
"""

HOST_MAIN = r"""
// Blocks one after another (their LOCAL_MEM is static), each block's threads at once.
static void launch(unsigned grid, unsigned block, const std::function<void()> &body) {
    for (unsigned g = 0; g < grid; ++g) {
        std::barrier<> barrier(block);
        pr_barrier = &barrier, pr_gid = g;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; ++t)
            threads.emplace_back([&, t] { pr_lid = t; body(); });
        for (auto &thread : threads) thread.join();
    }
}

int main(int argc, char **argv) {
    const unsigned n = atoi(argv[1]), interval = atoi(argv[2]), groups = atoi(argv[3]);
    std::vector<long long> data(n), out(n), totals(groups), dummy(1);
    for (auto &v : data) if (scanf("%lld", &v) != 1) return 1;
    launch(groups, WG, [&] { scan_scan_intervals(data.data(), n, interval, out.data(),
                                                 totals.data()); });
    launch(1, WG, [&] { scan_scan_intervals(totals.data(), groups, interval, totals.data(),
                                            dummy.data()); });
    launch(groups, UWG, [&] { scan_final_update(out.data(), n, interval, totals.data()); });
    for (auto v : out) printf("%lld\n", v);
    return 0;
}
"""


@pytest.fixture(scope="module")
def host_scan(tmp_path_factory):
    """host_scan(scan_expr, neutral, exclusive, data, max_groups) -> the three phases' output."""
    import shutil
    import subprocess

    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    work = tmp_path_factory.mktemp("scan_host")
    built = {}

    def build(scan_expr, neutral, exclusive):
        key = (scan_expr, neutral, exclusive)
        if key not in built:
            update = scan.EXCLUSIVE_UPDATE_SOURCE if exclusive else scan.INCLUSIVE_UPDATE_SOURCE
            v = values("long long", scan_expr, neutral)
            # Each rendered kernel behind the host macros: drop the device-only lines.
            parts = []
            for tp, wg in ((scan.SCAN_INTERVALS_SOURCE, WG_SIZE), (update, UPDATE_WG_SIZE)):
                src = tp.render(**dict(v, wg_size=wg)).replace(CLUDA_PREAMBLE, "")
                src = src.replace("#include <pycuda-complex.hpp>", "")
                parts.append(f"namespace {{\n{src}\n#undef WG_SIZE\n#undef SCAN_EXPR\n#undef K\n}}")
            main = HOST_MAIN.replace("UWG", str(UPDATE_WG_SIZE)).replace("WG", str(WG_SIZE))
            path = work / f"scan{len(built)}.cpp"
            path.write_text(HOST_CLUDA + "\n".join(parts) + main)
            exe = work / f"scan{len(built)}"
            cmd = [cxx, "-std=c++20", "-O1", "-pthread", str(path), "-o", str(exe)]
            subprocess.run(cmd, check=True, capture_output=True, text=True)
            built[key] = exe
        return built[key]

    def run(scan_expr, neutral, exclusive, data, max_groups):
        exe = build(scan_expr, neutral, exclusive)
        interval, groups = splitting(data.size, WG_SIZE * SEQ, max_groups)
        text = "\n".join(str(int(v)) for v in data)
        out = subprocess.run([str(exe), str(data.size), str(interval), str(groups)],
                             input=text, check=True, capture_output=True, text=True)  # fmt: skip
        return np.array([int(v) for v in out.stdout.split()], dtype=np.int64)

    return run


OPS = {
    "a+b": (lambda a, b: a + b, 0),
    "(a > b ? a : b)": (max, -(2**62)),
    "(b != 0 ? b : a)": (lambda a, b: b if b != 0 else a, 0),  # last non-zero: not commutative
}


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("scan_expr", list(OPS))
@pytest.mark.parametrize("n,max_groups", [(1, 3), (767, 3), (768, 3), (5000, 3), (9001, 2)])
def test_host_build_scans(host_scan, scan_expr, exclusive, n, max_groups):
    rng = np.random.default_rng(n)
    data = rng.integers(-50, 50, n, dtype=np.int64)
    data[rng.random(n) < 0.3] = 0
    op, neutral = OPS[scan_expr]
    got = host_scan(scan_expr, str(neutral), exclusive, data, max_groups)
    assert np.array_equal(got, reference(data, op, exclusive, neutral))


# }}}


@pytest.mark.gpu
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize(
    "dtype,scan_expr,neutral",
    [(np.int32, "a+b", "0"), (np.float64, "a+b", "0"), (np.int64, "(b != 0 ? b : a)", "0")],
)
@pytest.mark.parametrize("n", [1, 1000, 100_003, 3_000_001])
def test_templates_on_the_gpu_as_the_original_launched_them(ctx, dtype, scan_expr, neutral,
                                                            exclusive, n):  # fmt: skip
    import pycuda.driver as drv
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule
    from pycuda.tools import dtype_to_ctype

    v = values(dtype_to_ctype(dtype), scan_expr, neutral)
    intervals = SourceModule(scan.SCAN_INTERVALS_SOURCE.render(**v), no_extern_c=True)
    update_tp = scan.EXCLUSIVE_UPDATE_SOURCE if exclusive else scan.INCLUSIVE_UPDATE_SOURCE
    update = SourceModule(update_tp.render(**dict(v, wg_size=UPDATE_WG_SIZE)), no_extern_c=True)
    scan_knl = intervals.get_function("scan_scan_intervals").prepare("PIIPP")
    update_knl = update.get_function("scan_final_update").prepare("PIIP")

    rng = np.random.default_rng(n)
    x = rng.integers(-9, 10, n).astype(dtype)
    x_gpu, out = gpuarray.to_gpu(x), gpuarray.empty(n, dtype)
    sms = drv.Context.get_device().get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    interval, groups = splitting(n, WG_SIZE * SEQ, 3 * sms)
    totals, dummy = gpuarray.empty(groups, dtype), gpuarray.empty(1, dtype)
    scan_knl.prepared_call((groups, 1), (WG_SIZE, 1, 1), x_gpu.gpudata, n, interval,
                           out.gpudata, totals.gpudata)  # fmt: skip
    scan_knl.prepared_call((1, 1), (WG_SIZE, 1, 1), totals.gpudata, groups, interval,
                           totals.gpudata, dummy.gpudata)  # fmt: skip
    update_knl.prepared_call((groups, 1), (UPDATE_WG_SIZE, 1, 1), out.gpudata, n, interval,
                             totals.gpudata)  # fmt: skip
    if scan_expr == "a+b":
        expected = np.cumsum(x, dtype=dtype)
        if exclusive:
            expected = np.concatenate([[0], expected[:-1]]).astype(dtype)
    else:
        expected = reference(x, OPS[scan_expr][0], exclusive, 0)
    np.testing.assert_allclose(out.get(), expected, rtol=1e-12)
