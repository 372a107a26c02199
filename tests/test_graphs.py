"""CUDA graphs: stream capture, graphs built node by node, GraphExec launch and update.

CPU: argument checks, and programs on the fake driver (tests/fake_driver/hostemu.c, which
records the memsets and copies of a capture or of graph nodes and replays them at launch;
kernels do nothing there). GPU: captured GPUArray work and kernels against eager results and
NumPy, graphs built by hand, updates.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import fake_libcuda
import numpy as np
import pytest
from conftest import gpu_unavailable_reason

import pycuda
import pycuda.driver as drv

ROOT = Path(__file__).resolve().parent.parent

# {{{ CPU: arguments, checked before any driver call


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("global", 0), ("thread_local", 1), ("relaxed", 2), (drv.capture_mode.GLOBAL, 0), (1, 1)],
)
def test_capture_modes_by_name_enum_or_int(mode, expected):
    assert drv.StreamCapture(None, mode).mode == expected


@pytest.mark.parametrize(
    ("mode", "error", "words"),
    [
        ("Relaxed", ValueError, "'global', 'thread_local' or 'relaxed'"),
        (3, ValueError, "0 (global), 1 (thread_local) or 2 (relaxed), got 3"),
        (-1, ValueError, "got -1"),
        (1.0, TypeError, "capture_mode, an int or a str"),
        (True, TypeError, "capture_mode, an int or a str"),
        (None, TypeError, "capture_mode, an int or a str"),
    ],
)
def test_bad_capture_modes_are_refused(mode, error, words):
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        drv.StreamCapture(None, mode)


def test_the_legacy_default_stream_cannot_be_captured():
    capture = drv.StreamCapture(None)
    with pytest.raises(ValueError, match="legacy default stream cannot be captured"):
        with capture:
            pass
    assert capture.graph is None


def test_graph_enums_are_driver_enums():
    assert drv.capture_status.INVALIDATED == 2
    assert drv.graph_node_type.MEMSET == 2
    assert str(drv.capture_mode.RELAXED) == "pycuda._driver.capture_mode.RELAXED"


# }}}

# {{{ CPU: the fake driver


@pytest.fixture(scope="module")
def fake_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    try:
        import pycuda.compiler

        pycuda.compiler.compile("__global__ void k() {}", arch="sm_90")
    except Exception as exc:
        pytest.skip(f"the fake driver's programs compile kernels, which fails here: {exc}")
    libcuda = fake_libcuda.build(tmp_path_factory.mktemp("fake-driver"))
    package_root = str(Path(pycuda.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    cache = tmp_path_factory.mktemp("cache")
    return dict(os.environ, PYCUDA_LIBCUDA=libcuda, PYTHONPATH=path, PYCUDA_CACHE_DIR=str(cache))


PRELUDE = """
import numpy as np
import pycuda.autoinit
import pycuda.driver as drv
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

def raises(error, words, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except error as exc:
        assert words in str(exc), str(exc)
        return exc
    raise AssertionError(f"no {error.__name__} from {call}")

n = 64
"""


def run_fake(code: str, env: dict[str, str], tmp: Path) -> None:
    script = tmp / "program.py"
    script.write_text(PRELUDE + textwrap.dedent(code) + "\nprint('done')\n")
    proc = subprocess.run(
        [sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0 and proc.stdout.endswith("done\n"), proc.stdout + proc.stderr


def test_fake_explicit_graph_runs_its_memset_and_copy_at_each_launch(fake_env, tmp_path):
    run_fake(
        """
        x = drv.mem_alloc(4 * n)
        out = np.zeros(n, np.uint32)
        g = drv.Graph()
        fill = g.add_memset_node(x, 7, n, element_size=4)
        back = g.add_memcpy_node(out, x, dependencies=[fill])
        done = g.add_empty_node(dependencies=(fill, back))
        assert g.node_count == 3
        assert fill.type == drv.graph_node_type.MEMSET and back.type == drv.graph_node_type.MEMCPY
        assert done.type == drv.graph_node_type.EMPTY and done.graph is g
        ge = g.instantiate()
        assert (out == 0).all()  # nothing runs before the launch
        ge.launch()
        assert (out == 7).all()
        out[:] = 1
        ge.launch(drv.Stream())
        assert (out == 7).all()
        copy = g.clone()
        assert copy.node_count == 3
        del g, fill, back, done  # the GraphExec does not need its graph any more
        out[:] = 0
        ge.launch()
        assert (out == 7).all()
        ev = drv.Event()
        assert copy.add_event_record_node(ev).type == drv.graph_node_type.EVENT_RECORD
        assert copy.add_event_wait_node(ev).type == drv.graph_node_type.WAIT_EVENT
        """,
        fake_env,
        tmp_path,
    )


def test_fake_explicit_graph_checks_its_arguments(fake_env, tmp_path):
    run_fake(
        """
        x = drv.mem_alloc(4 * n)
        g, other = drv.Graph(), drv.Graph()
        node = other.add_empty_node()
        raises(ValueError, "node of another graph", g.add_empty_node, [node])
        raises(TypeError, "dependencies[0] must be a GraphNode, got int", g.add_empty_node, [1])
        raises(TypeError, "sequence of GraphNode", g.add_empty_node, 1.5)
        raises(ValueError, "element_size must be 1, 2 or 4", g.add_memset_node, x, 0, n, 3)
        raises(ValueError, "does not fit in 8 bits", g.add_memset_node, x, 256, n)
        raises(ValueError, "add_memset_node", g.add_memset_node, x, 0, n + 1, 4)
        raises(ValueError, "give nbytes", g.add_memcpy_node, x, x)
        raises(ValueError, "do not fit in src", g.add_memcpy_node, x, np.zeros(4, np.uint8), 8)
        raises(ValueError, "do not fit in src", g.add_memcpy_node, np.zeros(n + 1, np.float32), x)
        raises(ValueError, "do not fit in dest", g.add_memcpy_node, x, np.zeros(n + 1, np.float32))
        raises(Exception, "add_memcpy_node dest", g.add_memcpy_node, bytes(16), x)
        f = SourceModule("__global__ void k(float *a, int n) {}").get_function("k")
        one = ((1, 1), (32, 1, 1))
        raises(TypeError, "args must be a tuple or list", g.add_kernel_node, f, *one, x)
        with_in = (drv.In(np.zeros(4, np.float32)), np.int32(4))
        raises(TypeError, "cannot be part of a graph", g.add_kernel_node, f, *one, with_in)
        raises(ValueError, "block", g.add_kernel_node, f, (1, 1), (0, 1, 1), (x, np.int32(n)))
        assert g.node_count == 0  # no refused node was added
        k = g.add_kernel_node(f, (1, 1), (32, 1, 1), [x, np.int32(n)])
        assert k.type == drv.graph_node_type.KERNEL and g.node_count == 1
        fill = g.add_memset_node(x, 0, n, 4, dependencies=k)
        ge = g.instantiate()
        ge.set_kernel_node_params(k, (x, np.int32(1)))
        ge.set_kernel_node_params(k, block=(64, 1, 1))
        raises(TypeError, "not a kernel node", ge.set_kernel_node_params, fill, (x,))
        k2 = other.add_kernel_node(f, (1, 1), (32, 1, 1), (x, np.int32(n)))
        raises(ValueError, "not of the graph this GraphExec", ge.set_kernel_node_params, k2)
        """,
        fake_env,
        tmp_path,
    )


def test_fake_update_takes_new_parameters_or_refuses_a_new_topology(fake_env, tmp_path):
    run_fake(
        """
        x = drv.mem_alloc(4 * n)
        out = np.zeros(n, np.uint32)

        def build(value, extra=False):
            g = drv.Graph()
            fill = g.add_memset_node(x, value, n, element_size=4)
            g.add_memcpy_node(out, x, dependencies=[fill])
            if extra:
                g.add_memset_node(x, 0, 1, element_size=4)
            return g

        ge = build(3).instantiate()
        ge.update(build(9))
        ge.launch()
        assert (out == 9).all()
        exc = raises(drv.LogicError, "topology changed", ge.update, build(5, extra=True))
        assert exc.code == 910  # CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE
        ge.launch()  # unchanged by the refusal
        assert (out == 9).all()
        """,
        fake_env,
        tmp_path,
    )


def test_fake_capture_records_work_given_no_stream(fake_env, tmp_path):
    run_fake(
        """
        stream = drv.Stream()
        x = drv.mem_alloc(4 * n)
        a = gpuarray.to_gpu(np.arange(n, dtype=np.float32))
        with stream.capture() as cap:
            assert stream.is_capturing()
            assert stream.capture_status() == drv.capture_status.ACTIVE
            drv.memset_d32(x, 5, n)  # no stream: recorded on the capturing stream
            b = a.copy()  # a pool allocation and a device-to-device copy
        assert not stream.is_capturing() and cap.stream is stream
        assert cap.graph.node_count == 2
        host = np.empty(n, np.uint32)
        drv.memcpy_dtoh(host, x)
        assert (host == 0).all()  # recorded, not run
        ge = cap.graph.instantiate()
        ge.launch(stream)
        drv.memcpy_dtoh(host, x)
        assert (host == 5).all()
        assert (b.get() == np.arange(n)).all()

        # Begun and ended by hand, only work queued on the stream itself is recorded.
        stream.begin_capture(mode=drv.capture_mode.THREAD_LOCAL)
        drv.memset_d32_async(x, 6, n, stream)
        g = stream.end_capture()
        assert g.node_count == 1
        raises(drv.LogicError, "not capturing", stream.end_capture)
        """,
        fake_env,
        tmp_path,
    )


def test_fake_forbidden_calls_in_a_capture_say_so(fake_env, tmp_path):
    run_fake(
        """
        stream = drv.Stream()
        x = drv.mem_alloc(4 * n)
        host = np.zeros(n, np.float32)
        cap = stream.capture()
        # A synchronous copy from the host runs on the legacy stream, which would wait for the
        # capturing one: the driver refuses it, and the error says why.
        try:
            with cap:
                drv.memcpy_htod(x, host)
        except drv.Error as exc:
            assert "cuMemcpyHtoD" in str(exc) and "stream capture is running" in str(exc), exc
        else:
            raise AssertionError("no error")
        assert cap.graph is None and not stream.is_capturing()
        raises(drv.LogicError, "entered once", cap.__enter__)

        # A global-mode capture forbids allocating; the capture is then invalidated.
        stream.begin_capture("global")
        raises(drv.Error, "stream capture is running", drv.mem_alloc, 16)
        assert stream.capture_status() == drv.capture_status.INVALIDATED
        raises(drv.Error, "invalidated", stream.end_capture)
        assert not stream.is_capturing()
        drv.mem_alloc(16)  # allowed again
        """,
        fake_env,
        tmp_path,
    )


def test_fake_pool_blocks_a_graph_uses_are_not_lent_while_it_lives(fake_env, tmp_path):
    run_fake(
        """
        import gc
        from pycuda._array_core import default_pool

        pool = default_pool()
        stream = drv.Stream()
        a = gpuarray.to_gpu(np.ones(n, np.float32))
        with stream.capture() as cap:
            t = a.copy()
            address = int(t.gpudata)
            r = t.copy()
            del t  # freed inside the capture: the graph still writes to it at each launch
        lent = [gpuarray.empty(n, np.float32) for _ in range(4)]
        assert address not in [int(x.gpudata) for x in lent]
        assert int(r.gpudata) != address
        ge = cap.graph.instantiate()
        ge.launch(stream)
        assert (r.get() == 1).all()
        del lent
        held = pool.held_blocks
        del cap, ge
        gc.collect()
        assert pool.held_blocks == held + 1  # given back once no graph uses it
        again = [gpuarray.empty(n, np.float32) for _ in range(held + 1)]
        assert address in [int(x.gpudata) for x in again]
        """,
        fake_env,
        tmp_path,
    )


# }}}

# {{{ the benchmark and the example


def test_benchmark_without_a_gpu_says_so_in_one_line():
    if gpu_unavailable_reason() is None:
        pytest.skip("a GPU is usable here: the program would measure")
    env = dict(os.environ, PYCUDA_LIBCUDA=str(ROOT / "no-such-libcuda.so"))
    package_root = str(Path(pycuda.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "graphs.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.startswith("benchmarks/graphs.py: no usable CUDA GPU (")
    assert len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.gpu
def test_benchmark_runs(tmp_path):
    out = tmp_path / "graphs.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "graphs.py"), "--ops", "200", "--rounds", "3",
         "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert out.exists() and "graph" in proc.stdout


# }}}

# {{{ GPU

SOURCE = """
__global__ void add(float *x, float v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += v;
}
"""


@pytest.fixture
def add_kernel(ctx):
    from pycuda.compiler import SourceModule

    return SourceModule(SOURCE).get_function("add")


@pytest.mark.gpu
def test_captured_gpuarray_work_matches_eager_and_numpy(ctx):
    from pycuda import cumath, gpuarray

    rng = np.random.default_rng(1)
    host_a = rng.random(10_000, dtype=np.float32)
    host_b = rng.random(10_000, dtype=np.float32)
    a, b = gpuarray.to_gpu(host_a), gpuarray.to_gpu(host_b)

    def work():
        return cumath.sqrt((a + b) * 2 - a / 3) + 1

    eager = work().get()
    stream = drv.Stream()
    with stream.capture() as cap:
        captured = work()
    ge = cap.graph.instantiate()
    ge.launch(stream)
    stream.synchronize()
    np.testing.assert_allclose(captured.get(), eager, rtol=1e-6)
    for _ in range(3):  # new inputs in the same arrays, the same graph
        host_a = rng.random(10_000, dtype=np.float32)
        host_b = rng.random(10_000, dtype=np.float32)
        a.set(host_a)
        b.set(host_b)
        ge.launch(stream)
        stream.synchronize()
        expected = np.sqrt((host_a + host_b) * 2 - host_a / 3) + 1
        np.testing.assert_allclose(captured.get(), expected, rtol=1e-5)


@pytest.mark.gpu
def test_captured_reduction_matches_numpy(ctx):
    from pycuda import gpuarray

    host = np.random.default_rng(2).random(100_000).astype(np.float32)
    a = gpuarray.to_gpu(host)
    stream = drv.Stream()
    with stream.capture() as cap:
        total = gpuarray.sum(a * 2)
    cap.graph.instantiate().launch(stream)
    stream.synchronize()
    np.testing.assert_allclose(total.get(), (host * 2).sum(dtype=np.float64), rtol=1e-4)


@pytest.mark.gpu
def test_captured_kernel_launches_on_the_stream(ctx, add_kernel):
    n = 1000
    x = drv.mem_alloc(4 * n)
    drv.memset_d32(x, 0, n)
    stream = drv.Stream()
    add_kernel.prepare("Pfi")
    stream.begin_capture()
    for v in (1.0, 2.0, 3.5):
        add_kernel(x, np.float32(v), np.int32(n), grid=(4, 1), block=(256, 1, 1), stream=stream)
    add_kernel.prepared_async_call((4, 1), (256, 1, 1), stream, x, np.float32(0.5), np.int32(n))
    graph = stream.end_capture()
    assert graph.node_count == 4
    out = np.empty(n, np.float32)
    drv.memcpy_dtoh(out, x)
    assert (out == 0).all()  # captured, not run
    ge = graph.instantiate()
    for launches in (1, 2):
        ge.launch(stream)
        stream.synchronize()
        drv.memcpy_dtoh(out, x)
        assert (out == 7.0 * launches).all()


@pytest.mark.gpu
def test_pool_temporaries_of_a_graph_are_not_handed_out_while_it_lives(ctx):
    import gc

    from pycuda import gpuarray

    host = np.arange(4096, dtype=np.float32)
    a = gpuarray.to_gpu(host)
    stream = drv.Stream()
    with stream.capture() as cap:
        t1 = a + 1
        t2 = t1 * 3
        result = (t2 - 2) * a
        temporaries = {int(t1.gpudata), int(t2.gpudata)}
        del t1, t2  # back to the pool inside the capture; each launch still writes them
    ge = cap.graph.instantiate()
    del cap
    others = [gpuarray.empty_like(a) for _ in range(16)]
    assert temporaries.isdisjoint(int(o.gpudata) for o in others)
    ge.launch(stream)
    stream.synchronize()
    np.testing.assert_allclose(result.get(), ((host + 1) * 3 - 2) * host)
    del ge
    gc.collect()
    again = [gpuarray.empty_like(a) for _ in range(16)]
    assert temporaries & {int(x.gpudata) for x in again}  # lent again once no graph needs them


@pytest.mark.gpu
def test_kernels_first_used_inside_a_capture(ctx):
    from pycuda import gpuarray
    from pycuda.elementwise import ElementwiseKernel

    # A kernel no eager call has compiled: it is compiled and loaded while the capture runs.
    axpb = ElementwiseKernel("float *y, float *x, float a, float b", "y[i] = a * x[i] + b")
    host = np.linspace(-1, 1, 3000, dtype=np.float32)
    x = gpuarray.to_gpu(host)
    y = gpuarray.empty_like(x)
    stream = drv.Stream()
    with stream.capture() as cap:
        axpb(y, x, np.float32(2.5), np.float32(-1))
        z = abs(y) + 0.25
    cap.graph.instantiate().launch(stream)
    stream.synchronize()
    np.testing.assert_allclose(z.get(), np.abs(2.5 * host - 1) + 0.25, rtol=1e-6)


@pytest.mark.gpu
def test_explicit_graph_with_memset_kernel_and_memcpy_nodes(ctx, add_kernel):
    n = 5000
    x = drv.mem_alloc(4 * n)
    host_in = np.random.default_rng(3).random(n, dtype=np.float32)
    src = drv.pagelocked_empty(n, np.float32)
    src[:] = host_in
    out = drv.pagelocked_zeros(n, np.float32)
    y = drv.mem_alloc(4 * n)
    grid, block = ((n + 255) // 256, 1), (256, 1, 1)

    g = drv.Graph()
    clear = g.add_memset_node(y, 0, n, element_size=4)
    load = g.add_memcpy_node(x, src)
    bump = g.add_kernel_node(add_kernel, grid, block, (x, np.float32(2.0), np.int32(n)),
                             dependencies=[load])  # fmt: skip
    copy = g.add_memcpy_node(y, x, 4 * n, dependencies=[bump, clear])
    ev = drv.Event()
    rec = g.add_event_record_node(ev, dependencies=[copy])
    g.add_memcpy_node(out, y, dependencies=[rec])
    assert g.node_count == 6
    stream = drv.Stream()
    g.instantiate().launch(stream)
    ev.synchronize()
    stream.synchronize()
    np.testing.assert_allclose(out, host_in + 2)


@pytest.mark.gpu
def test_update_and_set_kernel_node_params_change_the_arguments(ctx, add_kernel):
    n = 1024
    x = drv.mem_alloc(4 * n)
    out = drv.pagelocked_zeros(n, np.float32)

    def build(v):
        g = drv.Graph()
        zero = g.add_memset_node(x, 0, n, element_size=4)
        k = g.add_kernel_node(add_kernel, (4, 1), (256, 1, 1), (x, np.float32(v), np.int32(n)),
                              dependencies=[zero])  # fmt: skip
        g.add_memcpy_node(out, x, dependencies=[k])
        return g, k

    g1, k1 = build(1.5)
    ge = g1.instantiate()
    stream = drv.Stream()
    ge.launch(stream)
    stream.synchronize()
    assert (out == 1.5).all()

    ge.update(build(2.5)[0])
    ge.launch(stream)
    stream.synchronize()
    assert (out == 2.5).all()

    ge.set_kernel_node_params(k1, (x, np.float32(4.0), np.int32(n)))
    ge.launch(stream)
    stream.synchronize()
    assert (out == 4.0).all()

    ge.set_kernel_node_params(k1, (x, np.float32(4.0), np.int32(n // 2)))
    ge.launch(stream)
    stream.synchronize()
    assert (out[: n // 2] == 4.0).all() and (out[n // 2 :] == 0).all()

    bigger, _ = build(1.0)
    bigger.add_empty_node()
    with pytest.raises(drv.LogicError, match="topology changed"):
        ge.update(bigger)


@pytest.mark.gpu
def test_global_capture_forbids_mem_alloc_with_a_clear_error(ctx):
    stream = drv.Stream()
    stream.begin_capture("global")
    with pytest.raises(drv.Error, match="stream capture is running") as info:
        drv.mem_alloc(1 << 20)
    assert "cuMemAlloc" in str(info.value)
    with pytest.raises(drv.Error, match="invalidated"):
        stream.end_capture()
    assert not stream.is_capturing()


# }}}
