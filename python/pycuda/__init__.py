"""pycuda: the CUDA driver, run-time compiled kernels and GPU arrays from Python.

import pycuda.autoinit
import pycuda.driver as drv
from pycuda.compiler import SourceModule
"""

VERSION = (2026, 1)
VERSION_STATUS = ""
VERSION_TEXT = "2026.1"
