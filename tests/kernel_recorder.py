"""Records the element-wise kernels gpuarray generates, so CPU tests can compile them with NVRTC.

``install(monkeypatch)`` routes memory and copies to the host stand-in (``host_device``) and
replaces the element-wise kernel factory (``_array_core.seams.kernel``) by a recorder whose
kernels do nothing: calling GPUArray operations then collects every kernel they would launch,
without running any. ``compile_all`` compiles
them all, renamed, as one NVRTC module per call.
"""

from __future__ import annotations

from typing import Any

import host_device

from pycuda import _array_kernels as ak
from pycuda.compiler import compile as cuda_compile


class _Idle:
    """A kernel that is never run (the recorded source is what the test needs)."""

    def prepared_call(self, *args: Any) -> None:
        pass

    def prepared_async_call(self, *args: Any) -> None:
        pass


class KernelRecorder:
    def __init__(self) -> None:
        self.sources: dict[str, None] = {}  # an ordered set

    def kernel(self, kind: str, out_dtype: Any, operands: Any, expr: str, p: Any) -> _Idle:
        """Stands in for the kernel factory: writes the kernel's source as it would."""
        name = "pc_recorded_kernel"
        source, _ = ak.kernel_source(kind, name, out_dtype, operands, expr, p)
        self.sources.setdefault(source, None)
        return _Idle()

    def compile_all(self, arch: str = "sm_90") -> bytes:
        """One cubin of every recorded kernel (distinct names); CompileError names the failure."""
        assert self.sources, "no kernel was recorded"
        kernels = [s.replace("pc_recorded_kernel", f"k{i}") for i, s in enumerate(self.sources)]
        return cuda_compile(
            ak.HELPERS + "".join(kernels), arch=arch, no_extern_c=True, cache_dir=False
        )


def install(monkeypatch: Any) -> KernelRecorder:
    from pycuda import _array_core

    host_device.install(monkeypatch)
    recorder = KernelRecorder()
    monkeypatch.setattr(_array_core.seams, "kernel", recorder.kernel)
    return recorder
