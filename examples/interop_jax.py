"""examples/interop_jax.py: JAX arrays from GPUArrays and GPUArrays from JAX arrays, by DLPack.

Needs JAX with CUDA (jax[cuda12] or jax[cuda13]). JAX reserves most of the GPU's memory when it
starts unless told not to, which would leave pycuda none: this example turns that off before
importing JAX. JAX arrays are immutable, so JAX may copy memory it imports; pycuda's view of a
JAX array shares its memory and should only be read.
"""

import os

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import jax.numpy as jnp  # noqa: E402
import numpy  # noqa: E402

import pycuda.autoinit  # noqa: E402, F401 - the primary context, which JAX also uses
from pycuda import gpuarray  # noqa: E402

# pycuda -> JAX
host = numpy.arange(16, dtype=numpy.float32)
a = gpuarray.to_gpu(host)
j = jnp.from_dlpack(a)
assert numpy.array_equal(numpy.asarray(j * 2), 2 * host)

# JAX -> pycuda: no copy; the GPUArray keeps the JAX buffer alive.
x = jnp.linspace(0, 1, 1000, dtype=jnp.float32).block_until_ready()
x_gpu = gpuarray.from_dlpack(x)
assert x_gpu.shape == (1000,)
assert numpy.allclose((x_gpu + 1).get(), numpy.asarray(x) + 1)
print("interop_jax: arrays passed both ways through DLPack")
