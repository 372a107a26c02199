"""Where the parts of CUDA that pycuda opens at run time come from: NVRTC, the CUDA headers its
kernels include, and cuRAND (its host library and its device headers).

One search, in one order, for every part:

1. explicit settings: ``$PYCUDA_LIBNVRTC`` / ``$PYCUDA_LIBCURAND`` (a file; one that is not a
   loadable library is an error that names it), then the toolkit folders ``$CUDA_HOME``,
   ``$CUDA_PATH`` and ``$CUDA_ROOT``. A toolkit folder that does not exist, or holds no NVRTC or
   no CUDA headers, is ignored: one ``ToolkitSettingWarning`` per process says so, at the first
   compile, and the search goes on as if it were unset (the original PyCUDA did not read these
   variables to compile at all, so a stale one must not stop a program that runs there);
2. NVIDIA's pip packages in the running environment: CUDA 13's layout (every component under
   ``nvidia/cu13/``) and CUDA 12's per-component folders (``nvidia/cuda_nvrtc/``,
   ``nvidia/cuda_runtime/``, ``nvidia/curand/``, ``nvidia/cuda_cccl/``);
3. conda: ``$CONDA_PREFIX``;
4. the system: the dynamic loader's search for the library (``$LD_LIBRARY_PATH``,
   ``ld.so.cache``), the toolkit that holds the NVRTC found and ``nvcc``'s, and
   ``/usr/local/cuda`` (with ``targets/x86_64-linux`` or ``targets/sbsa-linux``).

Core opens the libraries (``core/driver_api.cpp`` holds the order of files); this module owns
the toolkit variables and tells core the folders of 1. and 2.-3. (``tell_core``, when
``pycuda.driver`` is imported: the variables are read once per process), finds the headers that
go with the NVRTC in use, so that a pip-installed NVRTC compiles against the same release's
headers, and lists every library folder for the static libraries ``DynamicModule`` links.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import NamedTuple

from pycuda import _driver
from pycuda._user_warnings import ToolkitSettingWarning, warn_user

# The toolkit variables, in the order they are tried: the one list of them (core reads none).
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


def _machine() -> str:
    """The processor's name (``x86_64``, ``aarch64``): os.uname's, as platform.machine gives it
    on Linux without the platform module's import in every process."""
    return os.uname().machine


def _target_platforms() -> tuple[str, ...]:
    """The ``targets/<platform>`` folder names a toolkit uses on this processor."""
    if _machine() in ("aarch64", "arm64"):
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
            (_PIP_CU12["runtime"], "pip: nvidia-cuda-runtime-cu12"),
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


def _root_lib_dirs(root: str) -> list[str]:
    """A toolkit's library folders: lib64/ and lib/, and the targets/<platform>/lib/ folder that
    toolkits for ARM servers (sbsa) and Jetson use."""
    return [os.path.join(root, "lib64"), os.path.join(root, "lib")] + [
        os.path.join(root, "targets", t, "lib") for t in _target_platforms()
    ]


def _root_includes(root: str) -> list[str]:
    return [os.path.join(root, "include")] + [
        os.path.join(root, "targets", t, "include") for t in _target_platforms()
    ]


def _has(folder: str, header: str) -> bool:
    return os.path.isfile(os.path.join(folder, header))


def _root_problem(root: str) -> str | None:
    """What a toolkit folder lacks that pycuda needs of it, or None when it is usable."""
    if not os.path.isdir(root):
        return "no such folder"
    if not _driver.toolkit_library_in("NVRTC", _root_lib_dirs(root)):
        return "no NVRTC library in lib64/, lib/ or targets/<platform>/lib/"
    if not any(_has(d, "cuda_fp16.h") for d in _root_includes(root)):
        return "no CUDA headers: cuda_fp16.h in include/ or targets/<platform>/include/"
    return None


@functools.cache
def _toolkit_settings() -> tuple[tuple[Found, ...], tuple[str, ...]]:
    """(the toolkit folders used, the settings ignored), from the environment once a process."""
    roots: list[Found] = []
    ignored: list[str] = []
    for var in TOOLKIT_ROOT_VARS:
        root = os.environ.get(var)
        if not root:
            continue
        problem = _root_problem(root)
        if problem:
            ignored.append(f"{var}={root} ({problem})")
        elif all(os.path.abspath(root) != os.path.abspath(r.path) for r in roots):
            roots.append(Found(root, f"${var}={root}"))
    return tuple(roots), tuple(ignored)


def toolkit_roots() -> tuple[Found, ...]:
    """The toolkit folders ``$CUDA_HOME``, ``$CUDA_PATH`` and ``$CUDA_ROOT`` name that pycuda
    uses, in that order (read once per process)."""
    return _toolkit_settings()[0]


def ignored_settings() -> tuple[str, ...]:
    """The toolkit variables pycuda ignores, each as ``"CUDA_HOME=/x (no such folder)"``."""
    return _toolkit_settings()[1]


@functools.cache
def warn_ignored_settings() -> None:
    """One ``ToolkitSettingWarning`` per process for the toolkit variables ignored, if any."""
    ignored = ignored_settings()
    if not ignored:
        return
    them, each = ("it were", "the variable") if len(ignored) == 1 else ("they were", "each")
    warn_user(
        f"pycuda ignored {' and '.join(ignored)}: NVRTC, CUDA's headers and cuRAND were looked "
        f"for as if {them} unset (NVIDIA's pip packages, conda, the system's toolkit, then nvcc "
        f"on PATH). Point {each} to a CUDA 12 or 13 toolkit, or unset it.",
        ToolkitSettingWarning,
    )


def toolkit_library_dirs() -> list[str]:
    """The folders core searches for NVRTC and cuRAND before the loader's search: the library
    folders of ``toolkit_roots()``, then those of ``packaged_library_dirs()``."""
    dirs = [d for root in toolkit_roots() for d in _root_lib_dirs(root.path)]
    return dirs + [f.path for f in packaged_library_dirs()]


def tell_core() -> None:
    """Give core the folders it cannot know, before anything opens NVRTC or cuRAND."""
    _driver.set_toolkit_library_dirs(toolkit_library_dirs())


def library_origin(path: str) -> str:
    """Where a library file core found came from, in the terms of this module's order."""
    path = os.path.abspath(path)
    for var in ("PYCUDA_LIBNVRTC", "PYCUDA_LIBCURAND"):
        value = os.environ.get(var)
        if value and os.path.abspath(value) == path:
            return f"${var}"
    for root in toolkit_roots():
        if path.startswith(os.path.abspath(root.path) + os.sep):
            return root.origin
    for f in packaged_library_dirs():
        if os.path.dirname(path) == f.path:
            return f.origin
    return "system (the loader's search or a toolkit folder)"


def _toolkit_of_file(lib_file: str) -> str:
    """The toolkit folder a library file (``<root>/lib64/x``, ``<root>/targets/<p>/lib/x``) or
    a program (``<root>/bin/nvcc``) is in, by its real path."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(lib_file)))
    if os.path.basename(os.path.dirname(root)) == "targets":  # .../targets/<platform>/lib
        root = os.path.dirname(os.path.dirname(root))
    return root


# Where find_nvcc looks, for messages.
NVCC_PLACES = "looked on PATH, in bin/ of $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT and /usr/local/cuda"


@functools.cache
def find_nvcc(nvcc: str) -> str | None:
    """The nvcc executable: ``nvcc`` itself when it is a path, else the first on PATH, then in
    ``bin/`` of the toolkit folders pycuda uses (``$CUDA_HOME``, ``$CUDA_PATH``, ``$CUDA_ROOT``
    where not ignored: ``toolkit_roots``) and of /usr/local/cuda; None when there is none.
    (pycuda._nvcc, which runs it, has it under the same name.)"""
    if os.path.sep in nvcc:
        return nvcc if os.access(nvcc, os.X_OK) else None
    # A loop of os.access calls, not shutil.which: include_dirs calls this while finding
    # headers, and shutil is not imported by programs that never run nvcc. Empty PATH entries
    # mean the current folder and are skipped: an nvcc someone left there must not run.
    folders = [d for d in os.environ.get("PATH", os.defpath).split(os.pathsep) if d]
    folders += [os.path.join(root.path, "bin") for root in toolkit_roots()]
    folders.append("/usr/local/cuda/bin")
    for folder in folders:
        candidate = os.path.join(folder, nvcc)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _system_roots(nvrtc_file: str | None) -> list[Found]:
    """The system's toolkits, in the module's order: the one of the NVRTC found, nvcc's
    (``find_nvcc``), and /usr/local/cuda."""
    roots: list[Found] = []
    if nvrtc_file:
        roots.append(Found(_toolkit_of_file(nvrtc_file), f"system: the toolkit of {nvrtc_file}"))
    nvcc = find_nvcc("nvcc")
    if nvcc:
        roots.append(Found(_toolkit_of_file(nvcc), f"system: the toolkit of {nvcc}"))
    roots.append(Found("/usr/local/cuda", "system: /usr/local/cuda"))
    return roots


def library_dirs(nvrtc_file: str | None) -> list[Found]:
    """Every library folder, in the module's order: ``toolkit_library_dirs()`` (the toolkit
    variables', the pip packages' and conda's), the loader's ($LD_LIBRARY_PATH, the system's
    multiarch folder, where Debian's toolkit package puts its static libraries), then those of
    the system's toolkits (``_system_roots``). For the static libraries that
    ``pycuda.compiler.DynamicModule`` links (cudadevrt), which no loader finds."""
    found = [Found(d, r.origin) for r in toolkit_roots() for d in _root_lib_dirs(r.path)]
    found += packaged_library_dirs()
    found += [
        Found(d, "$LD_LIBRARY_PATH")
        for d in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep)
        if d
    ]
    multiarch = f"/usr/lib/{_machine()}-linux-gnu"
    found.append(Found(multiarch, f"system: {multiarch}"))
    for root in _system_roots(nvrtc_file):
        found += [Found(d, root.origin) for d in _root_lib_dirs(root.path)]
    unique: list[Found] = []
    for f in found:
        if all(f.path != u.path for u in unique):
            unique.append(f)
    return unique


def _with_cccl(include: str) -> list[str]:
    """An include folder and, where the toolkit has one, its cccl/ folder (libcu++, Thrust and
    CUB live there since CUDA 13)."""
    cccl = os.path.join(include, "cccl")
    return [include, cccl] if os.path.isdir(cccl) else [include]


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
    cuRAND's device headers and CCCL are added where found beside them."""
    found: list[Found] = []

    def take(dirs: list[str], origin: str) -> None:
        for d in dirs:
            if os.path.isdir(d) and all(d != f.path for f in found):
                found.append(Found(d, origin))

    roots = toolkit_roots()
    if roots:  # a toolkit variable's folder is used only when it has the headers
        includes = [d for d in _root_includes(roots[0].path) if _has(d, "cuda_fp16.h")]
        take(_with_cccl(includes[0]), roots[0].origin)
        return found
    pip = _pip_includes_for(nvrtc_file)
    if pip is not None and any(_has(d, "cuda_fp16.h") for d in pip[0]):
        take(*pip)
        if curand_include(found) is not None:
            return found
    candidates = _system_roots(nvrtc_file)
    prefix = _conda_prefix()
    if prefix:
        candidates.insert(0, Found(prefix, f"conda: $CONDA_PREFIX={prefix}"))
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
