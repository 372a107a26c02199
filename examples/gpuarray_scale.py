"""examples/gpuarray_scale.py: scale an array with GPUArray arithmetic (seed 001, fourth program).

The seed's program, ported to Python 3.
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.driver
import pycuda.gpuarray

if __name__ == "__main__":
    # Input parameters. Feel free to change them
    data_size = 1 << 20  # 1048576
    factor = 10 * numpy.random.random()

    # Initialize array on host
    h_array = numpy.random.uniform(0, 50, size=data_size)

    # Convert to 32-bit floating-point
    h_array = h_array.astype(numpy.float32)

    # Associate h_array with an array on a GPU and do the calculations
    d_gpuarray = pycuda.gpuarray.to_gpu(h_array)
    d_results = factor * d_gpuarray

    # Copy the result to CPU using .get() method
    results = d_results.get()

    # Make sure the results are correct
    assert numpy.allclose(results, h_array * factor), "Failed"

    # Report success
    print("Success")
