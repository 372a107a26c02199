"""Random numbers on the GPU: pycuda.curandom's uniform and normal generators."""

import numpy as np

import pycuda.autoinit  # noqa: F401
from pycuda import curandom

uniform = curandom.rand((100_000,), dtype=np.float32).get()
assert 0.0 <= uniform.min() and uniform.max() <= 1.0 and abs(uniform.mean() - 0.5) < 0.01
gen = curandom.XORWOWRandomNumberGenerator()
normal = gen.gen_normal((100_000,), np.float32).get()
assert abs(normal.mean()) < 0.02 and abs(normal.std() - 1.0) < 0.02
print("random_numbers: ok")
