"""examples/graphs.py: record GPUArray arithmetic once as a CUDA graph, then replay it.

Capturing a stream records the work queued on it instead of running it; the graph it gives is
instantiated once and launched with one call each time, whatever the number of kernels in it.
The arrays the capture used stay where they are, so new inputs are copied into them and the
same graph computes with them. A second graph is built node by node: a memset, a kernel that
depends on it and a copy back to the host.
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule

if __name__ == "__main__":
    n = 1 << 16
    rng = numpy.random.default_rng(7)
    a = gpuarray.to_gpu(rng.random(n, dtype=numpy.float32))
    b = gpuarray.to_gpu(rng.random(n, dtype=numpy.float32))

    # Record (a + b) * 2 - a: three kernels and a temporary, nothing runs yet. (Running it once
    # before compiles and loads its kernels, so that the capture records queued work only.)
    expected = ((a + b) * 2 - a).get()
    stream = drv.Stream()
    with stream.capture() as cap:
        result = (a + b) * 2 - a
    step = cap.graph.instantiate()
    step.launch(stream)
    stream.synchronize()
    assert numpy.array_equal(result.get(), expected), "captured graph, first launch"

    for _ in range(3):
        host_a = rng.random(n, dtype=numpy.float32)
        host_b = rng.random(n, dtype=numpy.float32)
        a.set(host_a)
        b.set(host_b)
        step.launch(stream)
        stream.synchronize()
        assert numpy.allclose(result.get(), (host_a + host_b) * 2 - host_a), "captured graph"

    # A graph built by hand: zero the array, add 1.5 to every element, copy it back.
    add = SourceModule("""
    __global__ void add(float *x, float v, int n)
    {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] += v;
    }
    """).get_function("add")
    x = gpuarray.empty(n, numpy.float32)
    out = drv.pagelocked_empty(n, numpy.float32)
    graph = drv.Graph()
    zero = graph.add_memset_node(x, 0, n, element_size=4)
    bump = graph.add_kernel_node(
        add, ((n + 255) // 256, 1), (256, 1, 1), (x, numpy.float32(1.5), numpy.int32(n)),
        dependencies=[zero],
    )  # fmt: skip
    graph.add_memcpy_node(out, x, dependencies=[bump])
    graph.instantiate().launch(stream)
    stream.synchronize()
    assert (out == 1.5).all(), "built graph"

    print("Success")
