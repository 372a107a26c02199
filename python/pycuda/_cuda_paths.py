"""Where the parts of CUDA that pycuda opens at run time come from: NVRTC, the CUDA headers its
kernels include, and cuRAND (its host library and its device headers).

One search, in one order, for every part:

1. explicit settings: ``$PYCUDA_LIBNVRTC`` / ``$PYCUDA_LIBCURAND`` (a file), then the toolkit
   folders ``$CUDA_HOME``, ``$CUDA_PATH`` and ``$CUDA_ROOT``. A setting that names nothing usable
   is an error that names it, never passed over;
2. NVIDIA's pip packages in the running environment: CUDA 13's layout (every component under
   ``nvidia/cu13/``) and CUDA 12's per-component folders (``nvidia/cuda_nvrtc/``,
   ``nvidia/cuda_runtime/``, ``nvidia/curand/``, ``nvidia/cuda_cccl/``);
3. conda: ``$CONDA_PREFIX``;
4. the system: the dynamic loader's search for the library (``$LD_LIBRARY_PATH``,
   ``ld.so.cache``), the toolkit that holds the NVRTC found and ``nvcc``'s, and
   ``/usr/local/cuda`` (with ``targets/x86_64-linux`` or ``targets/sbsa-linux``).

Core opens the libraries (``core/driver_api.cpp`` holds the order of files); this module tells
it the package folders, which only Python knows, and finds the headers that go with the NVRTC
in use, so that a pip-installed NVRTC compiles against the same release's headers.
"""

from __future__ import annotations

import functools
import os
import platform
import sys
from typing import NamedTuple

from pycuda import _driver

# The explicit settings, in the order core tries them.
TOOLKIT_ROOT_VARS = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")

# NVIDIA's pip layouts, relative to a site-packages folder. CUDA 13 puts every component under
# one prefix; CUDA 12 gives each component its own.
_PIP_CU13 = os.path.join("nvidia", "cu13")
_PIP_CU12 = {
    "nvrtc": os.path.join("nvidia", "cuda_nvrtc"),
    "runtime": os.path.join("nvidia", "cuda_runtime"),
    "curand": os.path.join("nvidia", "curand"),
    "cccl": os.path.join("nvidia", "cuda_cccl"),
}

# What to install when a part is missing, by the CUDA major version of the driver.
PIP_HINT = "pip install 'pycuda[cu13]' (or 'pycuda[cu12]' for a CUDA 12 driver)"


class Found(NamedTuple):
    """A folder or file and where it came from (a setting, a package, the system)."""

    path: str
    origin: str


def _target_platforms() -> tuple[str, ...]:
    """The ``targets/<platform>`` folder names a toolkit uses on this processor."""
    if platform.machine() in ("aarch64", "arm64"):
        return ("sbsa-linux", "aarch64-linux")
    return ("x86_64-linux",)


@functools.cache
def site_dirs() -> tuple[str, ...]:
    """The folders Python imports packages from that hold NVIDIA's ``nvidia`` namespace."""
    seen: list[str] = []
    for entry in sys.path:
        folder = os.path.abspath(entry or os.curdir)
        if folder not in seen and os.path.isdir(os.path.join(folder, "nvidia")):
            seen.append(folder)
    return tuple(seen)


def _conda_prefix() -> str | None:
    prefix = os.environ.get("CONDA_PREFIX")
    return prefix if prefix and os.path.isdir(prefix) else None


def packaged_library_dirs() -> list[Found]:
    """The library folders of pip packages, then conda's, that exist here."""
    found: list[Found] = []
    for site in site_dirs():
        for sub, origin in (
            (_PIP_CU13, "pip: CUDA 13 packages"),
            (_PIP_CU12["nvrtc"], "pip: nvidia-cuda-nvrtc-cu12"),
            (_PIP_CU12["curand"], "pip: nvidia-curand-cu12"),
        ):
            lib = os.path.join(site, sub, "lib")
            if os.path.isdir(lib):
                found.append(Found(lib, f"{origin} in {site}"))
    prefix = _conda_prefix()
    if prefix:
        for lib in [os.path.join(prefix, "lib")] + [
            os.path.join(prefix, "targets", t, "lib") for t in _target_platforms()
        ]:
            if os.path.isdir(lib):
                found.append(Found(lib, f"conda: $CONDA_PREFIX={prefix}"))
    return found


def tell_core() -> None:
    """Give core the package folders before anything opens NVRTC or cuRAND."""
    _driver.set_packaged_library_dirs([f.path for f in packaged_library_dirs()])


def library_origin(path: str) -> str:
    """Where a library file core found came from, in the terms of this module's order."""
    path = os.path.abspath(path)
    for var in ("PYCUDA_LIBNVRTC", "PYCUDA_LIBCURAND"):
        value = os.environ.get(var)
        if value and os.path.abspath(value) == path:
            return f"${var}"
    for var in TOOLKIT_ROOT_VARS:
        root = os.environ.get(var)
        if root and path.startswith(os.path.abspath(root) + os.sep):
            return f"${var}={root}"
    for f in packaged_library_dirs():
        if os.path.dirname(path) == f.path:
            return f.origin
    return "system (the loader's search or a toolkit folder)"


def _on_path(program: str) -> str | None:
    """The real path of ``program`` on $PATH (without importing shutil: start-up cost)."""
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(folder, program)
        if folder and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return None


def _has(folder: str, header: str) -> bool:
    return os.path.isfile(os.path.join(folder, header))


def _with_cccl(include: str) -> list[str]:
    """An include folder and, where the toolkit has one, its cccl/ folder (libcu++, Thrust and
    CUB live there since CUDA 13)."""
    cccl = os.path.join(include, "cccl")
    return [include, cccl] if os.path.isdir(cccl) else [include]


def _root_includes(root: str) -> list[str]:
    return [os.path.join(root, "include")] + [
        os.path.join(root, "targets", t, "include") for t in _target_platforms()
    ]


def _pip_includes_for(nvrtc_file: str | None) -> tuple[list[str], str] | None:
    """The pip packages' header folders that go with a pip-installed NVRTC: CUDA 13's one
    folder, or CUDA 12's per-component folders from every site folder that has them."""
    if not nvrtc_file:
        return None
    # The path as found, not its target: the package is where the file was found in it.
    lib_dir = os.path.dirname(os.path.abspath(nvrtc_file))
    package = os.path.dirname(lib_dir)
    site = os.path.dirname(os.path.dirname(package))
    if package.endswith(os.sep + _PIP_CU13):
        return _with_cccl(os.path.join(package, "include")), f"pip: CUDA 13 packages in {site}"
    if package.endswith(os.sep + _PIP_CU12["nvrtc"]):
        dirs: list[str] = []
        for component in ("runtime", "curand", "cccl"):
            for folder in (site, *site_dirs()):
                include = os.path.join(folder, _PIP_CU12[component], "include")
                if os.path.isdir(include):
                    dirs.append(include)
                    break
        return dirs, f"pip: CUDA 12 packages in {site}"
    return None


def include_dirs(nvrtc_file: str | None) -> list[Found]:
    """The folders of CUDA's own headers for kernels compiled by the NVRTC at ``nvrtc_file``, in
    the module's order: ``cuda_fp16.h``, ``cuda_bf16.h`` and the vector types must be in them;
    cuRAND's device headers and CCCL are added where found beside them.

    Raises OSError when an explicit setting names a folder without the headers."""
    found: list[Found] = []

    def take(dirs: list[str], origin: str) -> None:
        for d in dirs:
            if os.path.isdir(d) and all(d != f.path for f in found):
                found.append(Found(d, origin))

    for var in TOOLKIT_ROOT_VARS:
        root = os.environ.get(var)
        if not root:
            continue
        includes = [d for d in _root_includes(root) if _has(d, "cuda_fp16.h")]
        if not includes:
            raise OSError(
                f"${var}={root} has no CUDA headers (cuda_fp16.h in include/ or "
                f"targets/*/include/); point {var} to a CUDA 12 or 13 toolkit, or unset it"
            )
        take(_with_cccl(includes[0]), f"${var}={root}")
        return found
    pip = _pip_includes_for(nvrtc_file)
    if pip is not None and any(_has(d, "cuda_fp16.h") for d in pip[0]):
        take(*pip)
        if curand_include(found) is not None:
            return found
    candidates: list[tuple[str, str]] = []
    prefix = _conda_prefix()
    if prefix:
        candidates.append((prefix, f"conda: $CONDA_PREFIX={prefix}"))
    if nvrtc_file:
        root = os.path.dirname(os.path.dirname(os.path.realpath(nvrtc_file)))
        if os.path.basename(os.path.dirname(root)) == "targets":  # .../targets/<platform>/lib
            root = os.path.dirname(os.path.dirname(root))
        candidates.append((root, f"system: the toolkit of {nvrtc_file}"))
    nvcc = _on_path("nvcc")
    if nvcc:
        candidates.append(
            (os.path.dirname(os.path.dirname(nvcc)), f"system: the toolkit of {nvcc}")
        )
    candidates.append(("/usr/local/cuda", "system: /usr/local/cuda"))
    for root, origin in candidates:
        includes = [d for d in _root_includes(root) if _has(d, "cuda_fp16.h")]
        if not includes:
            continue
        if not found:
            take(_with_cccl(includes[0]), origin)
        elif _has(includes[0], "curand_kernel.h"):
            # The packages above lack cuRAND's headers: only that folder is added, after them,
            # so it serves the headers they lack and no others.
            take([includes[0]], origin)
        if curand_include(found) is not None:
            break
    return found


def curand_include(dirs: list[Found]) -> Found | None:
    """The folder among ``dirs`` that holds cuRAND's device headers (``curand_kernel.h``)."""
    for f in dirs:
        if _has(f.path, "curand_kernel.h"):
            return f
    return None
