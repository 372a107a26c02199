"""A host stand-in for the device, so GPUArray's kernels and plumbing run in CPU-only tests.

The generated CUDA C kernels are compiled by the host C++ compiler (``__device__`` and
``__global__`` defined away, ``blockIdx``/``threadIdx`` as globals) and "launched" by calling
them once per (block, thread) of a deliberately tiny grid, so the grid-stride loops, the wide
accesses and the strided index arithmetic all run as on the GPU. Device memory is host memory
(addresses of NumPy buffers), and the memcpy/memset functions are host copies.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import itertools
import os
import shutil
import subprocess
import tempfile
from types import SimpleNamespace
from typing import Any

import array_seams
import numpy as np

from pycuda import _array_kernels as ak

CUDA_INCLUDE = "/usr/local/cuda/include"
HEADER_DIR = os.path.join(os.path.dirname(ak.__file__), "cuda")

HEADER = """
#define __device__
#define __global__
#define __forceinline__ inline
struct pc_dim3 { unsigned x, y, z; };
static pc_dim3 blockIdx, blockDim, threadIdx, gridDim;
"""

# Each kernel library also exports the setter of its own index globals.
SETTER = """
extern "C" void pc_set_index(unsigned b, unsigned t, unsigned nb, unsigned nt) {
    blockIdx.x = b; threadIdx.x = t; gridDim.x = nb; blockDim.x = nt;
    blockIdx.y = blockIdx.z = threadIdx.y = threadIdx.z = 0;
    gridDim.y = gridDim.z = blockDim.y = blockDim.z = 1;
}
extern "C" void pc_set_index_y(unsigned b, unsigned t, unsigned nb, unsigned nt) {
    blockIdx.y = b; threadIdx.y = t; gridDim.y = nb; blockDim.y = nt;
}
"""

FLAGS = ["-O1", "-std=c++17", "-w", "-fPIC", f"-I{HEADER_DIR}", f"-I{CUDA_INCLUDE}"]

# Compiled libraries by source, shared by every HostDevice of the session.
_LIBS: dict[str, ctypes.CDLL] = {}
_WORKDIR: list[str] = []


def host_compiler() -> str | None:
    """The host C++ compiler, or None (the tests using it then skip)."""
    if not os.path.isdir(CUDA_INCLUDE):
        return None
    return shutil.which("g++") or shutil.which("clang++")


class _Complex64(ctypes.Structure):
    _fields_ = [("re", ctypes.c_float), ("im", ctypes.c_float)]


class _Complex128(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


_CTYPES = {
    "P": ctypes.c_void_p,
    "q": ctypes.c_longlong,
    "Q": ctypes.c_ulonglong,
    "i": ctypes.c_int,
    "I": ctypes.c_uint,
    "h": ctypes.c_short,
    "H": ctypes.c_ushort,
    "b": ctypes.c_byte,
    "B": ctypes.c_ubyte,
    "?": ctypes.c_bool,
    "f": ctypes.c_float,
    "d": ctypes.c_double,
    "l": ctypes.c_long,
    "L": ctypes.c_ulong,
    "e": ctypes.c_uint16,  # a __half by value travels like its 16 bits
    "F": _Complex64,
    "D": _Complex128,
}


def _convert(code: str, value: Any) -> Any:
    if code == "F":
        return _Complex64(complex(value).real, complex(value).imag)
    if code == "D":
        return _Complex128(complex(value).real, complex(value).imag)
    if code == "e":
        return int(np.float16(value).view(np.uint16))
    if code in "fd":
        return float(value)
    if code == "?":
        return bool(value)
    return int(value)


class HostFunction:
    """A compiled kernel with the prepared_call interface, run on the host."""

    def __init__(self, lib: ctypes.CDLL, name: str, fmt: str, grid: int, block: int) -> None:
        self.lib, self.fmt = lib, fmt
        self.kernel = getattr(lib, name)
        self.kernel.argtypes = [_CTYPES[c] for c in fmt]
        self.kernel.restype = None
        self.grid, self.block = grid, block
        # (gridDim.y, blockDim.y): kernels whose threads of different y do different work
        # (the rows kernels) run a 2-D grid, the others a 1-D one.
        self.y = (1, 1)
        self.launches = 0

    def prepared_call(self, grid: Any, block: Any, *args: Any) -> None:
        assert len(args) == len(self.fmt), (self.fmt, args)
        values = [_convert(c, a) for c, a in zip(self.fmt, args, strict=True)]
        self.launches += 1
        for b, t, by, ty in itertools.product(
            range(self.grid), range(self.block), range(self.y[0]), range(self.y[1])
        ):
            self.lib.pc_set_index(b, t, self.grid, self.block)
            if self.y != (1, 1):
                self.lib.pc_set_index_y(by, ty, *self.y)
            self.kernel(*values)

    def prepared_async_call(self, grid: Any, block: Any, stream: Any, *args: Any) -> None:
        self.prepared_call(grid, block, *args)


class HostDevice:
    """Compiles kernels for the host (cached by source) and owns the 'device' buffers."""

    def __init__(self, grid: int = 3, block: int = 4) -> None:
        self.grid, self.block = grid, block
        self.buffers: list[np.ndarray] = []

    @staticmethod
    def _workdir() -> str:
        """A directory with the helpers as a precompiled header (made once per session)."""
        if not _WORKDIR:
            workdir = tempfile.mkdtemp(prefix="pycuda-host-device-")
            atexit.register(shutil.rmtree, workdir, True)
            header = os.path.join(workdir, "pc_helpers.hpp")
            with open(header, "w") as f:
                f.write(HEADER + ak.HELPERS.replace("#pragma nv_diag_suppress 186", ""))
            cmd = [host_compiler(), *FLAGS, "-x", "c++-header", header, "-o", header + ".gch"]
            subprocess.run(cmd, check=True, capture_output=True)
            _WORKDIR.append(workdir)
        return _WORKDIR[0]

    def compile(self, kernel: str, name: str, fmt: str) -> HostFunction:
        """Build a library of the helpers and ``kernel`` (a kernel without the helpers)."""
        source = '#include "pc_helpers.hpp"\n' + SETTER + kernel.replace("#pragma unroll", "")
        key = hashlib.sha256(source.encode()).hexdigest()[:24]
        lib = _LIBS.get(key)
        if lib is None:
            workdir = self._workdir()
            cpp = os.path.join(workdir, key + ".cpp")
            so = os.path.join(workdir, key + ".so")
            with open(cpp, "w") as f:
                f.write(source)
            cmd = [host_compiler(), *FLAGS, f"-I{workdir}", "-shared", cpp, "-o", so]
            result = subprocess.run(cmd, capture_output=True, text=True)
            if result.returncode:
                raise RuntimeError(f"host compile failed:\n{result.stderr[:4000]}")
            lib = _LIBS[key] = ctypes.CDLL(so)
        return HostFunction(lib, name, fmt, self.grid, self.block)

    def kernel(self, kind: str, out_dtype: Any, operands: Any, expr: str, p: Any) -> HostFunction:
        """Stands in for the element-wise kernel factory (_array_core.seams.kernel)."""
        source, fmt = ak.kernel_source(kind, "pycuda_elwise", out_dtype, operands, expr, p)
        func = self.compile(source, "pycuda_elwise", fmt)
        if kind.startswith("rows"):
            func.y = (2, 3)
        return func

    def allocate(self, size: int) -> int:
        # 256-byte aligned, as cuMemAlloc's blocks are; filled with a pattern to catch reads
        # of unwritten memory.
        buf = np.full(size + 512, 0xA5, np.uint8)
        self.buffers.append(buf)
        address = buf.ctypes.data
        return address + (-address) % 256

    # memcpy/memset with the driver's signatures, on host memory

    @staticmethod
    def _address(obj: Any) -> int:
        if isinstance(obj, np.ndarray):
            return obj.ctypes.data
        return int(obj)

    def memcpy_htod(self, dest: Any, src: Any, stream: Any = None) -> None:
        src = np.ascontiguousarray(src)
        ctypes.memmove(self._address(dest), src.ctypes.data, src.nbytes)

    def memcpy_dtoh(self, dest: np.ndarray, src: Any, stream: Any = None) -> None:
        ctypes.memmove(dest.ctypes.data, self._address(src), dest.nbytes)

    def memcpy_dtod(self, dest: Any, src: Any, size: int, stream: Any = None) -> None:
        ctypes.memmove(self._address(dest), self._address(src), size)

    def memset_d8(self, dest: Any, value: int, size: int, stream: Any = None) -> None:
        ctypes.memset(self._address(dest), value, size)

    def driver_namespace(self) -> SimpleNamespace:
        return SimpleNamespace(
            memcpy_htod=self.memcpy_htod,
            memcpy_htod_async=self.memcpy_htod,
            memcpy_dtoh=self.memcpy_dtoh,
            memcpy_dtoh_async=self.memcpy_dtoh,
            memcpy_dtod=self.memcpy_dtod,
            memcpy_dtod_async=self.memcpy_dtod,
            memset_d8=self.memset_d8,
            memset_d8_async=self.memset_d8,
        )


class _Config:
    def __init__(self, device: HostDevice) -> None:
        self.grid = (device.grid, 1, 1)
        self.block = (device.block, 1, 1)


def install(monkeypatch: Any) -> HostDevice:
    """Route gpuarray's kernels, memory and copies to a HostDevice (undone by monkeypatch)."""
    device = HostDevice()
    array_seams.replace(
        monkeypatch,
        kernel=device.kernel,
        allocate=device.allocate,
        driver=device.driver_namespace(),
        launch_config=lambda n, items=1: _Config(device),
    )
    return device


class _HostModule:
    """What elementwise's SourceModule gives, for a source compiled on the host."""

    def __init__(self, device: HostDevice, source: str) -> None:
        self.device, self.source = device, source

    def get_function(self, name: str) -> Any:
        module = self

        class Function:
            def prepare(self, fmt: str) -> Function:
                self.host = module.device.compile(module.source, name, fmt)
                return self

            def prepared_call(self, *args: Any, **kwargs: Any) -> None:
                self.host.prepared_call(*args, **kwargs)

            def prepared_async_call(self, *args: Any, **kwargs: Any) -> None:
                self.host.prepared_async_call(*args, **kwargs)

        return Function()


def install_elementwise(monkeypatch: Any, device: HostDevice) -> None:
    """Route ElementwiseKernel's compiles and launches to ``device`` as well."""
    from pycuda import _grid_stride, elementwise

    def module(source: str, keep: bool, options: Any) -> _HostModule:
        return _HostModule(device, source)

    context = SimpleNamespace(get_current=lambda: "host")
    monkeypatch.setattr(_grid_stride, "_module", module)
    monkeypatch.setattr(elementwise, "drv", SimpleNamespace(Context=context))
    monkeypatch.setattr(elementwise, "_context_key", context.get_current)
    array_seams.replace(monkeypatch, launch_config=lambda n, items=1: _Config(device))
