"""Bad arguments get a ValueError, OverflowError or TypeError that says what was wrong and what is
expected (issue 22), not nanobind's "incompatible function arguments", a "std::bad_cast", a
KeyError or an AttributeError from deep inside. Every case runs against the fake driver
(tests/fake_libcuda.py) in one child interpreter; each is checked as its own test.

Also here: what the original accepts stays accepted (block=(True, 1, 1), GPUArray((True,))).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from fake_libcuda import run_on_fake

# name: (statement, exception type, a regular expression its message matches)
CASES: dict[str, tuple[str, str, str]] = {
    "GPUArray too big (2-d)": (
        "ga.GPUArray((2**62, 2**62), np.float32)",
        "ValueError",
        r"array is too big: .* exceed the largest possible size",
    ),
    "GPUArray too big (1-d)": ("ga.GPUArray(2**61, np.float64)", "ValueError", "too big"),
    "mem_alloc negative": ("drv.mem_alloc(-1)", "ValueError", "size in bytes must not be neg"),
    "mem_alloc too big": (
        "drv.mem_alloc(2**70)",
        "OverflowError",
        r"size in bytes must be from 0 to 18446744073709551615, got 1180591620717411303424",
    ),
    "pool.allocate negative": (
        "DeviceMemoryPool().allocate(-1)",
        "ValueError",
        "must not be negative, got -1",
    ),
    "memcpy_dtod negative": (
        "drv.memcpy_dtod(m, m, -1)",
        "ValueError",
        r"memcpy_dtod\(\) size must not be negative",
    ),
    "Device ordinal too big": (
        "drv.Device(2**70)",
        "OverflowError",
        "device ordinal .* must be from -2147483648 to 2147483647",
    ),
    "pagelocked_empty too big": (
        "drv.pagelocked_empty((2**40,) * 2, np.float32)",
        "OverflowError",
        "size in bytes must be from 0",
    ),
    "make_context negative flags": (
        "drv.Device(0).make_context(flags=-1)",
        "ValueError",
        r"make_context\(\) flags must not be negative",
    ),
    "init negative flags": ("drv.init(-1)", "ValueError", r"init\(\) flags must not be neg"),
    "Function.set_cache_config str": (
        "f.set_cache_config('x')",
        "TypeError",
        "func_cache value must be an integer, got str",
    ),
    "Context.set_cache_config str": (
        "drv.Context.set_cache_config('x')",
        "TypeError",
        "func_cache value must be an integer, got str",
    ),
    "array interface data None": (
        "f(Cai({'data': (None, False), 'shape': (4,), 'typestr': '<f4', 'version': 3}), "
        "block=(1, 1, 1))",
        "TypeError",
        r"__cuda_array_interface__\['data'\]\[0\] \(a device pointer\) must be an integer",
    ),
    "array interface data str": (
        "f(Cai({'data': ('x', False), 'version': 3}), block=(1, 1, 1))",
        "TypeError",
        "device pointer.* must be an integer, got str",
    ),
    "array interface data negative": (
        "f(Cai({'data': (-1, False), 'version': 3}), block=(1, 1, 1))",
        "ValueError",
        "device pointer.* must not be negative",
    ),
    "array interface data too big": (
        "f(Cai({'data': (2**70, False), 'version': 3}), block=(1, 1, 1))",
        "OverflowError",
        "device pointer.* must be from 0 to",
    ),
    "array interface empty": (
        "f(Cai({}), block=(1, 1, 1))",
        "TypeError",
        r"__cuda_array_interface__ of Cai must be a dict whose 'data' is a \(pointer, read_only\)",
    ),
    "__cuda_stream__ negative handle": (
        "f(m, block=(1, 1, 1), stream=Cs((0, -1)))",
        "ValueError",
        r"__cuda_stream__\(\)\[1\] \(a stream handle\) must not be negative",
    ),
    "__cuda_stream__ not a method": (
        "f(m, block=(1, 1, 1), stream=type('S', (), {'__cuda_stream__': 'junk'})())",
        "TypeError",
        r"__cuda_stream__ must be a method returning a \(version, stream handle\) tuple",
    ),
    "get into a list": (
        "ga.zeros(6, np.float32).get(ary=[0] * 6)",
        "TypeError",
        r"get\(ary\): ary must be a numpy.ndarray to copy into, got list",
    ),
    "SourceModule of None": (
        "SourceModule(None)",
        "TypeError",
        r"the source must be CUDA C text \(a str\), got None",
    ),
    "prepare of an int": (
        "f.prepare(5)",
        "TypeError",
        r"prepare\(\): arg_types must be a struct format string .* got int",
    ),
    "misaligned strides": (
        "ga.GPUArray(3, np.float32, strides=(2,))",
        "ValueError",
        r"strides \(2,\) must be multiples of float32's alignment \(4 bytes\)",
    ),
    # Accepted, as in the original (which multiplies the dimensions and takes True as 1).
    "bool in block": ("f(m, block=(True, 1, 1))", "", ""),
    "bool in shape": ("assert ga.GPUArray((True,), np.float32).shape == (1,)", "", ""),
}

PROGRAM = """
import json
import re
import pycuda.gpuarray as ga
from pycuda.compiler import SourceModule
from pycuda.tools import DeviceMemoryPool

cubin = _driver.nvrtc_compile('extern "C" __global__ void k(float *a) {}', "k.cu",
                              ["-arch=sm_90"])[3]
f = drv.module_from_buffer(cubin).get_function("k")
m = drv.mem_alloc(64)


class Cai:
    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


class Cs:
    def __init__(self, value):
        self.value = value

    def __cuda_stream__(self):
        return self.value


results = {}
for name, (statement, _, _) in json.loads(CASES).items():
    try:
        exec(statement)
        results[name] = ["", ""]
    except Exception as exc:
        results[name] = [type(exc).__name__, str(exc)]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def outcomes(fake_libcuda_so: Path) -> dict[str, list[str]]:
    from pycuda import _driver

    if not _driver.nvrtc_available():
        pytest.skip("NVRTC is not installed: the cases call a compiled kernel")
    code = f"CASES = {json.dumps(CASES)!r}\n" + PROGRAM
    return json.loads(run_on_fake(fake_libcuda_so, code).splitlines()[-1])


@pytest.mark.parametrize("name", sorted(CASES))
def test_message(name: str, outcomes: dict[str, list[str]]):
    _, expected_type, pattern = CASES[name]
    got_type, message = outcomes[name]
    assert got_type == expected_type, f"{name}: {got_type}: {message}"
    if pattern:
        assert re.search(pattern, message), message
