"""examples/double_array_in_out.py: scale an array into another one with drv.In and drv.Out.

The third program of the seed notebook "PyCUDA: getting started" (its kernel with separate input
and output, and its In/Out call), completed from the first program.
"""

# Import PyCUDA
# Common for many PyCUDA programms
import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
import pycuda.compiler
import pycuda.driver

mod = pycuda.compiler.SourceModule("""
__global__  void  double_array (float* input, float *output,
                               unsigned int n_elements, float factor) {
    unsigned int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < n_elements)
        output[idx] = input[idx] * factor;
}""")

if __name__ == "__main__":
    # Input parameters. Feel free to change them
    data_size = 1 << 20  # 1048576
    factor = 10 * numpy.random.random()

    # Initialize array on host
    h_array = numpy.random.uniform(0, 50, size=data_size)

    # Convert to 32-bit floating-point
    h_array = h_array.astype(numpy.float32)

    # Find reference to the function
    multiplication_kernel = mod.get_function("double_array")

    # Set block and grid dimensions
    blockDim = (128, 1, 1)
    grid_size_x = (data_size + blockDim[0] - 1) // blockDim[0]
    gridDim = (grid_size_x, 1, 1)

    # Placeholder for the final result
    results = numpy.empty_like(h_array)

    # Launch the kernel
    multiplication_kernel(
        pycuda.driver.In(h_array),
        pycuda.driver.Out(results),
        numpy.uint32(data_size),
        numpy.float32(factor),
        grid=gridDim,
        block=blockDim,
    )

    # Make sure the results are correct
    assert numpy.allclose(results, h_array * factor), "Failed"

    # Report success
    print("Success")
