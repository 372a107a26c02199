"""examples/vec_elm_mul.py: element-wise product with compiler options (--ptxas-options=-v).

From the seed "Recitation 5: PyCUDA first look" (pycuda_demo.py), ported to Python 3. The
compiler's register report arrives as a warning, as with the original.
"""

import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule(
    """
__global__ void vec_elm_mul(float *dest, float *a, float *b)
{
    const int i = threadIdx.x;
    dest[i] = a[i] * b[i];
}
""",
    options=["--ptxas-options=-v"],
)
vec_elm_mul = mod.get_function("vec_elm_mul")

a = numpy.random.randn(400).astype(numpy.float32)
b = numpy.random.randn(400).astype(numpy.float32)

dest = numpy.zeros_like(a)

vec_elm_mul(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))

# The check this example adds.
assert numpy.array_equal(dest, a * b), "vec_elm_mul computed wrong products"
print("vec_elm_mul: 400 products match NumPy")
