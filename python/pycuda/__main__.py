"""python -m pycuda: the device report (driver, toolkit, each GPU, and a test kernel on each).

Exits 0 when every device ran the test kernel correctly, 1 when something is missing or broken;
the report says what, without a traceback.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import pycuda

try:
    from pycuda import _cuda_paths, _driver, compiler
    from pycuda import driver as cuda
except ImportError as exc:  # the report says what is broken instead of a traceback
    _cuda_paths = _driver = compiler = cuda = None  # type: ignore[assignment]
    _IMPORT_ERROR: ImportError | None = exc
else:
    _IMPORT_ERROR = None

_TEST_KERNEL = """
__global__ void axpb(float *out, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a * x[i] + i;
}
"""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}"


def _driver_section(cuda: Any) -> str | None:
    """Print the driver found; return what is missing, or None."""
    try:
        cuda.init()
    except cuda.Error as exc:
        try:
            path = cuda.driver_library_path()
        except cuda.Error:
            path = None
        print(f"driver:    {path}, but cuInit failed:" if path else "driver:    NOT FOUND")
        for line in str(exc).strip().splitlines():
            print(f"           {line}")
        if path:
            return f"the CUDA driver at {path} could not be initialized ({_first_line(exc)})"
        return "no CUDA driver (libcuda.so.1) could be loaded"
    version = cuda.get_driver_version()
    print(
        f"driver:    {cuda.driver_library_path()} "
        f"(CUDA {version // 1000}.{version % 1000 // 10}, {version})"
    )
    return None


def _nvrtc_version() -> str:
    """NVRTC's version as pycuda.compiler (or the extension) reports it."""
    for owner, name in (
        (compiler, "nvrtc_version"),
        (compiler, "get_nvrtc_version"),
        (_driver, "nvrtc_version"),
        (_driver, "get_nvrtc_version"),
    ):
        func = getattr(owner, name, None)
        if callable(func):
            try:
                version = func()
            except Exception as exc:
                return f"not found ({_first_line(exc)})"
            if isinstance(version, tuple):
                version = ".".join(str(v) for v in version)
            return str(version)
    return "version not reported by pycuda.compiler"


def _toolkit_section() -> list[str]:
    """Print where NVRTC, CUDA's headers and cuRAND's come from; return what is missing, each
    with what to install."""
    missing = []
    for ignored in _cuda_paths.ignored_settings():  # warned at a compile; shown here instead
        print(f"IGNORED:   {ignored}; the search went on as if it were unset")
    problem = _driver.toolkit_setting_problem("NVRTC")
    nvrtc_file = _driver.find_nvrtc()
    if problem:
        print(f"NVRTC:     BAD SETTING: {problem}")
        missing.append(problem)
    elif nvrtc_file:
        print(f"NVRTC:     {_nvrtc_version()}, {nvrtc_file}")
        print(f"           from {_cuda_paths.library_origin(nvrtc_file)}")
    elif _driver.nvrtc_available():  # found by the loader alone (e.g. a glibc-hwcaps folder)
        print(f"NVRTC:     {_nvrtc_version()}, {_driver.nvrtc_library_path()}")
    else:
        print("NVRTC:     NOT FOUND (SourceModule then needs nvcc)")
        missing.append(f"NVRTC: {_cuda_paths.PIP_HINT}")
    dirs = _cuda_paths.include_dirs(nvrtc_file)
    if dirs:
        print(f"headers:   {', '.join(f.path for f in dirs)}")
        print(f"           from {dirs[0].origin}")
    else:
        print("headers:   NOT FOUND (cuda_fp16.h and the vector types)")
        missing.append(
            "CUDA headers: pip install nvidia-cuda-runtime (CUDA 13) or "
            "nvidia-cuda-runtime-cu12, or install a CUDA toolkit"
        )
    curand = _cuda_paths.curand_include(dirs)
    if curand:
        print(f"cuRAND:    device headers in {curand.path}")
        print(f"           from {curand.origin}")
    else:
        print("cuRAND:    device headers NOT FOUND (curand_kernel.h; pycuda.curandom needs them)")
        missing.append(
            "cuRAND headers (pycuda.curandom): pip install nvidia-curand (CUDA 13) or "
            "nvidia-curand-cu12"
        )
    return missing


def _nvcc_version() -> str:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return "not on PATH"
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{nvcc} failed to run ({exc})"
    lines = [line for line in out.stdout.splitlines() if "release" in line]
    return f"{nvcc}: {lines[-1].strip() if lines else out.stdout.strip()}"


def _attr(dev: Any, name: str) -> int | None:
    try:
        return dev.get_attribute(getattr(cuda.device_attribute, name))
    except Exception:  # an attribute this driver does not know
        return None


def _describe_device(cuda: Any, index: int) -> Any:
    dev = cuda.Device(index)
    major, minor = dev.compute_capability()
    print(
        f"device {index}:  {dev.name()}, compute capability {major}.{minor}, "
        f"{dev.total_memory() / 2**30:.1f} GiB, {_attr(dev, 'MULTIPROCESSOR_COUNT')} SMs, "
        f"PCI {dev.pci_bus_id()}"
    )
    clock = _attr(dev, "CLOCK_RATE")
    mem_clock = _attr(dev, "MEMORY_CLOCK_RATE")
    bus = _attr(dev, "GLOBAL_MEMORY_BUS_WIDTH")
    l2 = _attr(dev, "L2_CACHE_SIZE")
    parts = [f"SM clock {clock / 1000:.0f} MHz" if clock else "SM clock n/a"]
    if mem_clock and bus:
        # DDR: two transfers per memory clock, bus width in bits.
        peak = 2 * mem_clock * 1e3 * bus / 8 / 1e9
        parts.append(f"memory {mem_clock / 1000:.0f} MHz x {bus} bits (peak {peak:.0f} GB/s)")
    if l2:
        parts.append(f"L2 {l2 / 2**20:.0f} MiB")
    smem = _attr(dev, "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR")
    threads = _attr(dev, "MAX_THREADS_PER_MULTIPROCESSOR")
    if smem and threads:
        parts.append(f"{smem // 1024} KiB shared memory and {threads} threads per SM")
    print("           " + ", ".join(parts))
    return dev


def _run_test_kernel(cuda: Any, dev: Any) -> str | None:
    """Compile, launch and check a kernel in the device's primary context; None when fine."""
    try:
        ctx = dev.retain_primary_context()
        ctx.push()
    except Exception as exc:
        return f"its primary context could not be made current: {_first_line(exc)}"
    try:
        func = compiler.SourceModule(_TEST_KERNEL).get_function("axpb")
        n = 1000
        x = np.arange(n, dtype=np.float32)
        out = np.zeros_like(x)
        func(cuda.Out(out), cuda.In(x), np.float32(2), np.int32(n), block=(256, 1, 1), grid=(4, 1))
        expected = 2 * x + np.arange(n, dtype=np.float32)
        if not np.array_equal(out, expected):
            bad = int(np.flatnonzero(out != expected)[0])
            return f"wrong result: out[{bad}] = {out[bad]}, expected {expected[bad]}"
        return None
    except Exception as exc:
        return _first_line(exc)
    finally:
        try:
            cuda.Context.pop()
        except cuda.Error:
            pass  # after a failed launch the context may be unusable; the failure is reported


def _step(what: str, action: Callable[[], Any]) -> tuple[Any, str | None]:
    try:
        return action(), None
    except Exception as exc:
        return None, f"{what}: {_first_line(exc)}"


def main() -> int:
    """Print the report; return the exit status."""
    print(
        f"pycuda:    {pycuda.VERSION_TEXT} (Python {platform.python_version()}, "
        f"NumPy {np.__version__})"
    )
    if _IMPORT_ERROR is not None:
        print(f"pycuda._driver could not be imported: {_IMPORT_ERROR}")
        return 1
    problems = []
    count = 0
    # The report shows an ignored $CUDA_HOME (IGNORED:); the test kernel's compile need not
    # warn of it again.
    warnings.filterwarnings("ignore", category=compiler.ToolkitSettingWarning)
    missing = _driver_section(cuda)
    toolkit_missing = _toolkit_section()
    print(f"nvcc:      {_nvcc_version()}")
    if missing:
        problems.append(missing)
    else:
        count, error = _step("counting devices", cuda.Device.count)
        if error:
            problems.append(error)
        elif count == 0:
            problems.append("the CUDA driver reports no devices")
        for index in range(count or 0):
            dev, error = _step(f"device {index}", lambda i=index: _describe_device(cuda, i))
            if error:
                problems.append(error)
                continue
            failure = _run_test_kernel(cuda, dev)
            print(f"           test kernel: {'FAILED: ' + failure if failure else 'ok'}")
            if failure:
                problems.append(f"device {index}: test kernel failed: {failure}")
    print()
    for item in toolkit_missing:
        print(f"MISSING: {item}")
    if problems:
        label = "NO USABLE GPU" if missing or not count else "PROBLEMS"
        if len(problems) == 1:
            print(f"{label}: {problems[0]}")
        else:
            print(f"{label}:" + "".join(f"\n  {p}" for p in problems))
        return 1
    print(f"OK: {count} device(s) ran the test kernel correctly")
    return 0


_USAGE = """usage: python -m pycuda

Prints the device report: the driver, where NVRTC, CUDA's headers and cuRAND's come from,
each GPU, and whether a test kernel compiles and runs there. Exits 0 when every device ran the
test kernel correctly, 1 otherwise. It takes no arguments (-h/--help shows this).

Where each part is looked for, in order: explicit settings (PYCUDA_LIBNVRTC; CUDA_HOME,
CUDA_PATH, CUDA_ROOT, each ignored with a warning where it names no usable toolkit), NVIDIA's
pip packages ({hint}), conda, then the system's toolkit."""


def _command_line(argv: list[str]) -> int | None:
    """Handle the arguments: the exit status when they end the run, else None."""
    if not argv:
        return None
    if argv[0] in ("-h", "--help"):
        print(_USAGE.format(hint=_cuda_paths.PIP_HINT if _cuda_paths else "pycuda[cu13]"))
        return 0
    print(f"python -m pycuda: unknown argument {argv[0]!r} (try --help)", file=sys.stderr)
    return 2


def _run(argv: list[str]) -> int:
    try:
        status = _command_line(argv)
        if status is None:
            status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (`| head`) went away: the rest of the report has nowhere to go. Point
        # stdout at /dev/null so the interpreter's own flush at exit does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(_run(sys.argv[1:]))
