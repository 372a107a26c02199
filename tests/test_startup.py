"""What starting a program loads: ``import pycuda.driver``, ``pycuda.compiler`` and
``pycuda.autoinit`` leave the array layer, NVRTC and the modules only nvcc or debugging needs
unloaded, and a compile that hits the cache never opens NVRTC (CPU: fresh interpreters, the fake
driver of tests/fake_libcuda.py for autoinit). How long start-up takes is measured by
benchmarks/programs.py, not here."""

from __future__ import annotations

import json

import pytest
from child_process import noise_in, run_python

from pycuda import _driver

# The array layer: loaded when a program uses arrays, not when it makes a context or compiles.
ARRAY_LAYER = {
    "pycuda.gpuarray",
    "pycuda._array_core",
    "pycuda.elementwise",
    "pycuda.reduction",
    "pycuda.scan",
    "pycuda.cumath",
    "pycuda.curandom",
    "pycuda.compyte.dtypes",
    "pycuda._dtypes",
}
# Standard modules that only nvcc, kept files or debugging pools need (pathlib: nanobind
# imports it when a path is converted to Python, which nothing at start-up does).
NOT_AT_START = {"subprocess", "tempfile", "shutil", "pathlib", "json", "threading", "platform"}

# Prints, as JSON, the modules that `statement` loaded beyond NumPy's own, and whether a
# libnvrtc is mapped into the process.
PROBE = """
import json, sys
import numpy
before = set(sys.modules)
exec(sys.argv[1])
with open("/proc/self/maps") as f:
    nvrtc = "libnvrtc" in f.read()
print(json.dumps({"new": sorted(set(sys.modules) - before), "nvrtc": nvrtc}))
"""


def _probe(statement: str, **env: str) -> dict:
    proc = run_python(PROBE, args=(statement,), **env)
    assert proc.returncode == 0 and not noise_in(proc.stderr), proc.stdout + proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "statement", ["import pycuda.driver", "import pycuda.compiler", "import pycuda.tools"]
)
def test_importing_loads_no_array_layer_and_no_compiler(statement):
    found = _probe(statement)
    new = set(found["new"])
    assert not new & ARRAY_LAYER, sorted(new & ARRAY_LAYER)
    assert not new & NOT_AT_START, sorted(new & NOT_AT_START)
    assert not found["nvrtc"], "importing opened NVRTC"


def test_autoinit_makes_a_context_and_loads_no_more(fake_libcuda_so):
    found = _probe(
        "import pycuda.autoinit, pycuda.driver, pycuda.compiler\n"
        "assert pycuda.autoinit.device.compute_capability()",
        PYCUDA_LIBCUDA=str(fake_libcuda_so),
    )
    new = set(found["new"])
    assert not new & ARRAY_LAYER, sorted(new & ARRAY_LAYER)
    assert not new & NOT_AT_START, sorted(new & NOT_AT_START)
    assert not found["nvrtc"]


def test_the_tools_names_loaded_on_first_use_are_there():
    found = _probe(
        "from pycuda.tools import DebugMemoryPool, register_dtype, base_dtype_to_ctype\n"
        "import pycuda.tools as t, numpy\n"
        "assert t.dtype_to_ctype(numpy.float32) == base_dtype_to_ctype(numpy.float32) == 'float'\n"
        "assert t.parse_c_arg('const int *x').declarator() == 'int *x'\n"
        "assert 'TypeNameNotKnown' in dir(t)\n"
        "try:\n"
        "    t.no_such_name\n"
        "except AttributeError as e:\n"
        "    assert 'no_such_name' in str(e)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')"
    )
    assert "pycuda.compyte.dtypes" in found["new"]


@pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
def test_a_cache_hit_in_a_new_process_opens_no_nvrtc(tmp_path):
    compile_it = (
        "import pycuda.compiler as c\n"
        "c.compile('__global__ void f(float *a) { a[0] = 1; }', arch='sm_80', target='ptx')"
    )
    cache = str(tmp_path / "cache")
    assert _probe(compile_it, PYCUDA_CACHE_DIR=cache)["nvrtc"]  # the miss compiles
    hit = _probe(compile_it, PYCUDA_CACHE_DIR=cache)
    assert not hit["nvrtc"]
    assert not set(hit["new"]) & (ARRAY_LAYER | NOT_AT_START)


# A device query, run as its own program: no NumPy imported unless the program uses arrays.
NO_NUMPY_PROBE = """
import sys
import pycuda.autoinit, pycuda.driver as drv
dev = pycuda.autoinit.device
assert dev.compute_capability() and dev.get_attribute(drv.device_attribute.WARP_SIZE)
assert drv.Device.count() >= 1 and drv.mem_get_info()
print("numpy loaded:", "numpy" in sys.modules)
import numpy as np
a = np.arange(4, dtype=np.float32)
buf = drv.to_device(a)
assert (drv.from_device(buf, (4,), np.float32) == a).all()
print(type(drv.In(a)).__name__, drv.dtype_to_array_format(np.float32).name)
"""


def test_a_device_query_imports_no_numpy(fake_libcuda_so):
    # NumPy's import is about a third of a short program's life (benchmarks/programs.py); the
    # driver layer loads it at its first use (pycuda._lazy_import), and then works as before.
    proc = run_python(NO_NUMPY_PROBE, PYCUDA_LIBCUDA=str(fake_libcuda_so))
    assert proc.returncode == 0 and not noise_in(proc.stderr), proc.stdout + proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "numpy loaded: False"
    assert lines[1] == "In FLOAT"


# Loaded at their first use, not with pycuda.gpuarray: a program that scales an array never
# reduces, scans, gathers or exchanges DLPack capsules.
AT_FIRST_USE = {
    "pycuda.reduction",
    "pycuda._axis_reduction",
    "pycuda.elementwise",
    "pycuda._fusion",
    "pycuda.scan",
    "pycuda._axis_scan",
    "pycuda._gather",
    "pycuda._interop",
}


def test_arithmetic_loads_no_reduction_scan_or_gather(fake_libcuda_so):
    found = _probe(
        "import numpy as np, pycuda.autoinit, pycuda.gpuarray as g\n"
        "a = g.to_gpu(np.ones(8, np.float32))\n"
        "b = (2 * a + a).get()\n"
        "c = a[2:5]",
        PYCUDA_LIBCUDA=str(fake_libcuda_so),
    )
    assert not set(found["new"]) & AT_FIRST_USE, sorted(set(found["new"]) & AT_FIRST_USE)


def test_the_names_loaded_at_first_use_are_there(fake_libcuda_so):
    found = _probe(
        "import pycuda.gpuarray as g\n"
        "from pycuda.gpuarray import cumsum, take\n"
        "assert g.cumsum is cumsum and g.concatenate.__module__ == 'pycuda._gather'\n"
        "assert {'cumsum', 'stack', 'take'} <= set(dir(g)) and 'take' in g.__all__\n"
        "assert g.GPUArray.cumsum.__name__ == 'cumsum'\n"
        "try:\n"
        "    g.no_such_name\n"
        "except AttributeError as e:\n"
        "    assert 'no_such_name' in str(e)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')",
        PYCUDA_LIBCUDA=str(fake_libcuda_so),
    )
    assert {"pycuda._gather", "pycuda._axis_scan"} <= set(found["new"])
