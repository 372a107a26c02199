"""examples/double_array_memcpy.py: scale an array by a factor with mem_alloc and memcpy.

The first program of the seed notebook "PyCUDA: getting started".
"""

# Import PyCUDA
# Common for many PyCUDA programms
import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
import pycuda.compiler
import pycuda.driver

mod = pycuda.compiler.SourceModule("""
__global__  void  double_array (float* d_a, unsigned int n_elements, float factor) {
    unsigned int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < n_elements)
        d_a[idx] *= factor;
}""")

if __name__ == "__main__":
    # Input parameters. Feel free to change them
    data_size = 1 << 20  # 1048576
    factor = 10 * numpy.random.random()

    # Initialize array on host
    h_array = numpy.random.uniform(0, 50, size=data_size)

    # Convert to 32-bit floating-point
    h_array = h_array.astype(numpy.float32)

    # Allocate device memory
    d_array = pycuda.driver.mem_alloc(h_array.nbytes)

    # Copy host array to device memory
    pycuda.driver.memcpy_htod(d_array, h_array)

    # Find reference to the function
    multiplication_kernel = mod.get_function("double_array")

    # Set block and grid dimensions
    blockDim = (128, 1, 1)
    grid_size_x = (data_size + blockDim[0] - 1) // blockDim[0]
    gridDim = (grid_size_x, 1, 1)

    # Launch the kernel
    multiplication_kernel(
        d_array, numpy.uint32(data_size), numpy.float32(factor), grid=gridDim, block=blockDim
    )

    # Transfer the results back to host
    results = numpy.empty_like(h_array)
    pycuda.driver.memcpy_dtoh(results, d_array)

    # Release GPU memory
    d_array.free()

    # Make sure the results are correct
    assert numpy.allclose(results, h_array * factor), "Failed"

    # Report success
    print("Success")
