"""pycuda.compiler: CUDA C source to modules, compiled in process by NVRTC and cached.

    import pycuda.autoinit
    from pycuda.compiler import SourceModule

    mod = SourceModule('''
    __global__ void twice(float *a) { a[threadIdx.x] *= 2; }
    ''')
    twice = mod.get_function("twice")

Which compiler runs: NVRTC (in this process, a few tens of milliseconds), with nvcc options
translated to NVRTC's. nvcc is used instead when

* ``nvcc=`` names anything other than the default ``"nvcc"`` (you asked for that compiler), or
  ``$PYCUDA_COMPILER=nvcc``;
* an option has no NVRTC equivalent (``nvcc_only_reason`` says which), or the target is
  ``"fatbin"``;
* NVRTC is not installed, or fails on the source (an ``#include`` of a host header it has no
  shim for, an option an older NVRTC rejects, host code only nvcc accepts): what compiles with
  nvcc compiles here. The nvcc result is cached under the NVRTC key too, so later hits run
  neither compiler. When nvcc fails as well, the ``CompileError`` shows both logs.

Under NVRTC each source sees the old C type names that nvcc's host headers declare (``uint``,
``ushort``, ``ulong``, ``u_char``, ``u_int32_t``, ... exactly as glibc's ``<sys/types.h>``; see
``pycuda/cuda/nvrtc/pycuda-host-types.h``); a source that declares them itself still compiles.

``source`` may be any object whose ``str()`` is CUDA C (cgen's modules, as in the original) or
UTF-8 bytes. ``options`` and ``include_dirs`` are lists of strings (a bare string is a
``TypeError``); a NUL byte anywhere is a ``ValueError``, and so are nvcc options that would
choose where nvcc writes or make it run a program (``-o``, ``-odir``, ``--run``, ...: pycuda
compiles in a directory of its own and returns the bytes).

``arch`` defaults to the current context's device; with no context and no ``arch`` a
``pycuda.driver.LogicError`` says so. For a device newer than this NVRTC, PTX for NVRTC's
newest architecture is produced and the driver JIT-compiles it. ``set_debugging()`` adds
``-g -G`` (``-G`` carries line info; NVRTC's ptxas warns when ``-lineinfo`` is added as well),
keeps the files and skips the cache.

A repeated call in one process is a dictionary look-up (see ``compile`` for what it does not
check again, and ``clear_cache``). Results are cached by content (see ``cache_key``) on disk under
``$PYCUDA_CACHE_DIR`` or ``$XDG_CACHE_HOME/pycuda/compiler-cache-v3`` (``~/.cache/...``);
``$PYCUDA_DISABLE_CACHE`` turns the disk cache off. A cache directory is used only when it is
yours and not writable by group or others (anyone who can write it could plant code that runs on
your GPU); otherwise a warning says why and compiles go on, cached in memory only. It is created
with mode 0700.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from typing import Any

from pycuda import _cuda_paths, _driver, _shared_modules, driver
from pycuda._compile_args import no_nul, optional_text, source_text, string_list
from pycuda._compile_cache import (
    cache_key,
    disk_cache,
    forget_scans,
    resolve_cache_dir,
    stamps_current,
    store,
)
from pycuda._nvcc import NVCC_PLACES as _NVCC_PLACES
from pycuda._nvcc import TARGETS as _TARGETS
from pycuda._nvcc import (  # noqa: F401 - part of this module's API
    compile_plain,
    get_nvcc_version,
    preprocess_source,
)
from pycuda._nvcc import find_nvcc as _find_nvcc
from pycuda._nvcc_options import (  # noqa: F401 - part of this module's API
    NvccOnly,
    NvrtcPlan,
    include_dirs_in,
    nvcc_only_reason,
    refuse_output_options,
    translate_options,
)
from pycuda._nvtx import AUTO, in_range
from pycuda._struct_attributes import hoist_struct_attributes
from pycuda._texref_rewrite import (  # noqa: F401 - part of this module's API
    rewrite_texture_includes,
    rewrite_texture_references,
)
from pycuda._user_warnings import ToolkitSettingWarning, warn_compiler_output, warn_user  # noqa: F401 - ToolkitSettingWarning: API
from pycuda.driver import CompileError

_PACKAGE_HEADER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cuda")
_NVRTC_SHIM_DIR = os.path.join(_PACKAGE_HEADER_DIR, "nvrtc")
# What nvcc's host headers declare for every kernel and NVRTC does not (uint, ushort, ...),
# included ahead of each NVRTC source; see the header.
_NVRTC_PRELUDE = os.path.join(_NVRTC_SHIM_DIR, "pycuda-host-types.h")


def _default_nvcc_flags() -> list[str]:
    return os.environ.get("PYCUDA_DEFAULT_NVCC_FLAGS", "").split()


DEFAULT_NVCC_FLAGS: list[str] = _default_nvcc_flags()


# ---------------------------------------------------------------------------------------------
# Where headers live


@functools.cache
def _nvrtc_file() -> str | None:
    """The libnvrtc file core opens (``_driver.find_nvrtc``), found without opening it: opening
    costs milliseconds, too much for a cache hit. None when core's search finds no file."""
    return _driver.find_nvrtc()


@functools.cache
def _toolkit_include_dirs() -> tuple[str, ...]:
    """CUDA's own header folders for the NVRTC in use (pycuda._cuda_paths has the order)."""
    return tuple(f.path for f in _cuda_paths.include_dirs(_nvrtc_file()))


# ---------------------------------------------------------------------------------------------
# Compiling


_arch_by_device: dict[Any, str] = {}


def _context_arch() -> str:
    """ "sm_XY" of the current context's device (memoized per device: a device's architecture
    never changes, and this runs on every compile without arch=)."""
    try:
        device = driver.Context.get_device()
    except driver.Error:
        device = None
    if device is None:
        raise driver.LogicError(
            "pycuda.compiler: no arch= given and no current CUDA context to take the "
            "architecture from; import pycuda.autoinit, make a context, or pass arch='sm_XY'"
        )
    arch = _arch_by_device.get(device)
    if arch is None:
        major, minor = device.compute_capability()
        arch = _arch_by_device[device] = f"sm_{major}{minor}"
    return arch


def _context_arch_or_none() -> str | None:
    try:
        return _context_arch()
    except driver.Error:
        return None


def _why_nvcc(nvcc: str, target: str, options: Sequence[str]) -> str | None:
    """None when NVRTC should compile, else why nvcc is used."""
    if nvcc != "nvcc":
        return f"nvcc={nvcc!r} was asked for"
    if os.environ.get("PYCUDA_COMPILER", "").lower() == "nvcc":
        return "$PYCUDA_COMPILER=nvcc"
    if target == "fatbin":
        return "NVRTC does not make fatbins"
    reason = nvcc_only_reason(options)
    if reason is not None:
        return f"the option {reason} has no NVRTC equivalent"
    # Finding the file is cheap; opening NVRTC (milliseconds) waits for a real compile.
    if _nvrtc_file() is None:
        problem = _driver.toolkit_setting_problem("NVRTC")
        if problem:
            # A file the user named is never passed over (a bad $CUDA_HOME is: _cuda_paths).
            raise driver.LogicError(f"pycuda.compiler: {problem}")
        if not _driver.nvrtc_available():
            return "NVRTC is not installed"
    return None


@functools.cache
def _nvrtc_identity() -> str:
    """NVRTC's identity for cache keys: its file (the real name carries the full version, e.g.
    libnvrtc.so.13.0.88), size and modification time, or NVRTC's own version when the file
    cannot be found without loading it; and the contents of the headers pycuda gives NVRTC in
    place of the host's (the prelude among them), which a source does not name."""
    lib = _nvrtc_file()
    if lib:
        real = os.path.realpath(lib)
        st = os.stat(real)
        compiler = f"nvrtc-file:{real}:{st.st_size}:{st.st_mtime_ns}"
    else:
        major, minor = _driver.nvrtc_version()
        compiler = f"nvrtc:{major}.{minor}:{_driver.nvrtc_library_path()}"
    shims = b""
    for name in sorted(os.listdir(_NVRTC_SHIM_DIR)):
        with open(os.path.join(_NVRTC_SHIM_DIR, name), "rb") as f:
            shims += name.encode() + b"\0" + f.read() + b"\0"
    return f"{compiler}:shims:{_driver.sha256_hex(shims)}"


@functools.cache
def _nvrtc_max_arch() -> int | None:
    archs = _driver.nvrtc_supported_archs()
    return max(archs) if archs else None


def _nvrtc_arch(plan: NvrtcPlan, target: str) -> str:
    """The single -arch NVRTC compiles for: sm_XY (cubin) or compute_XY (PTX)."""
    arch, code = plan.arch, plan.code
    if code is not None:
        if "," in code:
            raise NvccOnly(f"-code={code} (several codes make a fatbin)")
        arch = code
    if arch is None:
        arch = _context_arch()
    if target == "ptx" and arch.startswith("sm_"):
        arch = "compute_" + arch[3:]
    elif target == "cubin" and not arch.startswith("sm_"):
        raise NvccOnly(f"-arch={arch} with target cubin")
    return arch


def _newest_nvrtc_arch_instead(arch: str) -> str | None:
    """For a device newer than this NVRTC: PTX for NVRTC's newest architecture (the driver
    JIT-compiles it at load). None when `arch` is not beyond NVRTC."""
    digits = "".join(ch for ch in arch.partition("_")[2] if ch.isdigit())
    newest = _nvrtc_max_arch()
    if newest is None or not digits or int(digits) <= newest:
        return None
    return f"compute_{newest}"


def _nvrtc_options(plan: NvrtcPlan, arch: str) -> list[str]:
    dirs = [*plan.include_dirs, _PACKAGE_HEADER_DIR, *_toolkit_include_dirs(), _NVRTC_SHIM_DIR]
    # The prelude goes first, so a user's own --pre-include may use its names too; as a
    # separate file it leaves the source's line numbers in NVRTC's messages as they are.
    prelude = f"--pre-include={_NVRTC_PRELUDE}"
    return [f"-arch={arch}", prelude, *plan.options, *(f"-I{d}" for d in dirs)]


def _compile_nvrtc(
    source: str, nvrtc_options: list[str], target: str, keep: bool
) -> tuple[bool, str, bytes]:
    ok, log, ptx, cubin = _driver.nvrtc_compile(source, "kernel.cu", nvrtc_options)
    binary = ptx if target == "ptx" or not cubin else cubin
    if keep:
        import tempfile  # only here: most programs never keep files

        tmp = tempfile.mkdtemp(prefix="pycuda-compiler-")
        print(f"*** compiler output in {tmp}")
        files = {"kernel.cu": source.encode(), "kernel.log": log.encode()}
        files["nvrtc-options.txt"] = ("\n".join(nvrtc_options) + "\n").encode()
        if ok:
            files["kernel.ptx"] = ptx
            if cubin:
                files["kernel.cubin"] = cubin
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
    return ok, log, binary


def _debugging() -> bool:
    """pycuda.driver.set_debugging() or $CUDA_DEBUGGING, which pycuda.driver reads at import."""
    return bool(driver.CUDA_DEBUGGING)


_ARCH_OPTIONS = ("-arch", "--gpu-architecture", "-code", "--gpu-code")


def _names_arch(options: Sequence[str]) -> bool:
    return any(o.partition("=")[0] in _ARCH_OPTIONS for o in options)


# ---------------------------------------------------------------------------------------------
# The in-process memo

# What a call passed (see _memo_key) -> (binary, stamps of the user headers it includes).
_memo: dict[tuple, tuple[bytes, tuple[tuple[str, int, int], ...]]] = {}


def _memo_key(
    source: Any,
    nvcc: Any,
    options: Any,
    no_extern_c: Any,
    arch: Any,
    code: Any,
    cache_dir: Any,
    include_dirs: Any,
    target: Any,
) -> tuple | None:
    """The memo's key for a call: the arguments as given, the default options when none are,
    and the current device's architecture when neither arch nor code is; None when the call is
    not memoized: in debugging mode, or for a source or list that could change or be used up
    between calls (only str and bytes sources, lists and tuples of options and dirs are)."""
    if driver.CUDA_DEBUGGING:
        return None
    if options is None:
        options = DEFAULT_NVCC_FLAGS
    if include_dirs is None:  # the original's default
        include_dirs = ()
    if (
        type(source) not in _IMMUTABLE_SOURCES
        or type(options) not in _SEQUENCES
        or type(include_dirs) not in _SEQUENCES
    ):
        return None
    device_arch = _context_arch_or_none() if arch is None and code is None else None
    return (
        source, tuple(options), nvcc, not no_extern_c, arch, code, cache_dir,
        tuple(include_dirs), target, device_arch,
    )  # fmt: skip


def _plain_memo_hit(compile_args: tuple[Any, ...], binary: bytes) -> bool:
    """True when the memo holds ``binary`` for a SourceModule's ``compile_args`` with no user
    header to check: a later identical call may then skip the memo (SourceModule)."""
    source, nvcc, options, _keep, no_extern_c, arch, code, cache_dir, include_dirs = compile_args
    key = _memo_key(
        source, nvcc, options, no_extern_c, arch, code, cache_dir, include_dirs, "cubin"
    )
    entry = _memo.get(key) if key is not None else None
    return entry is not None and entry[0] is binary and not entry[1]


_IMMUTABLE_SOURCES = (str, bytes)
_SEQUENCES = (list, tuple)
_PACKAGE_HEADER_PREFIX = _PACKAGE_HEADER_DIR + os.sep


def clear_cache() -> None:
    """Forget what this process remembers of compiles; the disk cache stays. The next
    ``compile`` of each source scans its headers and looks on disk again (or compiles), finds
    nvcc and asks its version again, and the next ``SourceModule`` loads a module of its own.
    Call it after changing ``$PYCUDA_CACHE_DIR``, ``$PYCUDA_DISABLE_CACHE``, ``$XDG_CACHE_HOME``
    or ``$PYCUDA_COMPILER`` in a running process, or after editing pycuda's headers or
    installing another nvcc (see ``compile``).

        pycuda.compiler.clear_cache()
    """
    _memo.clear()
    disk_cache.cache_clear()
    forget_scans()
    get_nvcc_version.cache_clear()
    _find_nvcc.cache_clear()
    _arch_by_device.clear()
    _shared_modules.forget()


# ---------------------------------------------------------------------------------------------
# Compiling, through the memo


def compile(
    source: str,
    nvcc: str = "nvcc",
    options: Sequence[str] | None = None,
    keep: bool = False,
    no_extern_c: bool = False,
    arch: str | None = None,
    code: str | None = None,
    cache_dir: str | bool | None = None,
    include_dirs: Iterable[str] = (),
    target: str = "cubin",
) -> bytes:
    """Compile CUDA C ``source`` and return the ``target`` ("cubin", "ptx" or "fatbin") bytes.

    ``options`` are nvcc options (default ``DEFAULT_NVCC_FLAGS``); ``arch`` defaults to the
    current context's device (``sm_XY``). The source is wrapped in ``extern "C" { }`` unless
    ``no_extern_c``. ``cache_dir=False`` bypasses the disk cache.

        cubin = compile("__global__ void f(float *a) { a[0] = 1; }", arch="sm_90")

    A second call with the same arguments in the same process (and, when neither ``arch`` nor
    ``code`` is given, a current device of the same architecture) is a look-up: a hash of the
    arguments and a dict hit, with no compiler run, no header scanned and no file read. Such a
    hit does not check again

    * ``$PYCUDA_CACHE_DIR``, ``$PYCUDA_DISABLE_CACHE``, ``$XDG_CACHE_HOME`` (where the disk
      copy goes) and ``$PYCUDA_COMPILER``, which the first call read;
    * pycuda's own headers (``pycuda-complex.hpp``, ...), the toolkit's headers and the
      compilers (NVRTC's file, ``nvcc --version``), taken as fixed for the life of the process.

    Headers that the source ``#include``s from ``include_dirs`` or the working directory are
    checked: such a hit also makes one ``os.stat`` per header, and a header edited since (a new
    size or modification time) makes it a miss. ``clear_cache()`` forgets every result kept in
    memory; ``keep=True`` and debugging mode (``set_debugging()``) never use them. A ``source``
    other than a str or bytes (cgen's Module), and ``options`` or ``include_dirs`` other than a
    list or tuple, are not looked up this way, since they could change between calls; they go
    through the disk cache each time.
    """
    key = None if keep else _memo_key(
        source, nvcc, options, no_extern_c, arch, code, cache_dir, include_dirs, target
    )  # fmt: skip
    if key is not None:
        try:
            hit = _memo.get(key)
        except TypeError:  # an unhashable argument: the checks below say what is wrong
            hit = key = None
        if hit is not None and (not hit[1] or stamps_current(hit[1])):
            return hit[0]
    args = (source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs, target)
    # A look-up above is no compile: only real work is an NVTX range.
    binary, stamps = (
        in_range("compile", _compile_checked, *args) if AUTO.on else _compile_checked(*args)
    )
    if key is not None:
        # pycuda's own headers do not change under a running process (see the docstring).
        user = tuple(s for s in stamps if not s[0].startswith(_PACKAGE_HEADER_PREFIX))
        _memo[key] = (binary, user)
    return binary


def _compile_checked(
    source: Any,
    nvcc: Any,
    options: Any,
    keep: bool,
    no_extern_c: bool,
    arch: Any,
    code: Any,
    cache_dir: Any,
    include_dirs: Any,
    target: Any,
) -> tuple[bytes, list[tuple[str, int, int]]]:
    """compile() without the memo: the arguments checked, the source prepared, then the disk
    cache or a compiler. Returns (binary, stamps of the headers the source includes)."""
    if target not in _TARGETS:
        raise ValueError(f"target must be one of {_TARGETS}, got {target!r}")
    source = source_text(source)
    options = string_list(DEFAULT_NVCC_FLAGS if options is None else options, "options")
    refuse_output_options(options)
    include_dirs = string_list(include_dirs or (), "include_dirs", paths=True)
    nvcc = optional_text(nvcc, "nvcc") or "nvcc"
    arch, code = optional_text(arch, "arch"), optional_text(code, "code")
    if _debugging():
        options += ["-g", "-G"]  # -G implies line info (ptxas warns if both)
        keep, cache_dir = True, False
    if not no_extern_c:
        source = 'extern "C" {\n' + source + "\n}\n"
    # Texture references declared in included files too: those files are inlined, rewritten,
    # found as NVRTC finds them (include_dirs, then -I options, then pycuda's headers).
    search = [*include_dirs, *include_dirs_in(options), _PACKAGE_HEADER_DIR]
    texrefs = rewrite_texture_includes(source, search)
    source = hoist_struct_attributes(texrefs.source)
    arch_defaulted = arch is None and code is None and not _names_arch(options)
    if arch_defaulted:
        # The device's architecture is part of what is compiled, so part of every key.
        arch = _context_arch()
    cache_dir = resolve_cache_dir(cache_dir)
    binary, stamps = _compile_or_load(
        source, nvcc, options, keep, arch, code, cache_dir, include_dirs, target, arch_defaulted
    )
    # The inlined files are in the source, so in its key; the memo checks them by stamp.
    return binary, [*stamps, *texrefs.stamps]


def _compile_or_load(
    source: str,
    nvcc: str,
    options: list[str],
    keep: bool,
    arch: str | None,
    code: str | None,
    cache_dir: str | None,
    include_dirs: list[str],
    target: str,
    arch_defaulted: bool,
) -> tuple[bytes, list[tuple[str, int, int]]]:
    """(binary, stamps of included user headers): from the disk cache, NVRTC or nvcc."""
    _cuda_paths.warn_ignored_settings()  # once per process, where the search first matters
    why_nvcc = _why_nvcc(nvcc, target, options)
    if why_nvcc is None:
        plan = translate_options(options, arch, code)
        plan.include_dirs = include_dirs + plan.include_dirs
        try:
            nvrtc_arch = _nvrtc_arch(plan, target)
        except NvccOnly as exc:
            why_nvcc = f"{exc} needs nvcc"
    if why_nvcc is None:
        result = _nvrtc_cached(source, plan, nvrtc_arch, target, keep, cache_dir, arch_defaulted)
        if isinstance(result, tuple):
            return result
        # NVRTC failed and nvcc is here: what compiles with nvcc compiles. Its binary is also
        # stored under the NVRTC key, so a later hit neither retries NVRTC nor runs
        # `nvcc --version`.
        try:
            binary, stamps = _nvcc_cached(
                source, nvcc, options, keep, arch, code, cache_dir, include_dirs, target
            )
        except CompileError as nvcc_error:
            raise result.with_nvcc(nvcc_error) from None
        if not keep:
            store(cache_dir or "", result.key, binary)
        return binary, stamps
    return _nvcc_cached(source, nvcc, options, keep, arch, code, cache_dir, include_dirs, target)


class _NvrtcFailed:
    """NVRTC's failure on a source that nvcc will try next: the key the result goes under, and
    what to report if nvcc fails too."""

    def __init__(self, key: str, command: list[str], log: str) -> None:
        self.key, self.command, self.log = key, command, log

    def with_nvcc(self, nvcc_error: Any) -> Exception:
        """One CompileError holding both compilers' logs."""
        nvcc_log = "\n".join(t for t in (nvcc_error.stdout, nvcc_error.stderr) if t)
        nvcc_cmd = nvcc_error.command_line or []
        nvcc_cmd = nvcc_cmd if isinstance(nvcc_cmd, str) else " ".join(nvcc_cmd)
        return CompileError(
            "kernel.cu failed to compile with NVRTC, and with nvcc (tried because NVRTC "
            "failed); both logs follow",
            command_line=nvcc_error.command_line,
            stderr=(
                f"--- NVRTC ({' '.join(self.command)}):\n{self.log.strip()}\n"
                f"--- nvcc ({nvcc_cmd}): {nvcc_error.msg}\n{nvcc_log.strip()}"
            ),
        )


def _nvrtc_cached(
    source: str,
    plan: NvrtcPlan,
    arch: str,
    target: str,
    keep: bool,
    cache_dir: str | None,
    arch_defaulted: bool,
) -> tuple[bytes, list[tuple[str, int, int]]] | _NvrtcFailed:
    """Compile with NVRTC through the cache: (binary, stamps), or, when NVRTC fails and nvcc
    is installed, what nvcc needs to try instead."""
    keep = keep or plan.keep
    nv_opts = _nvrtc_options(plan, arch)
    search = [*plan.include_dirs, _PACKAGE_HEADER_DIR]
    key, stamps = cache_key(source, nv_opts, target, _nvrtc_identity(), search, cache_dir)
    # With no cache directory the cache still lives in memory: a memo entry whose headers
    # cannot be trusted by their stamps finds its binary here by content.
    cache = None if keep else disk_cache(cache_dir or "")
    if cache is not None:
        hit = cache.get(key)
        if hit is not None:
            return hit, stamps
    ok, log, binary = _compile_nvrtc(source, nv_opts, target, keep)
    if not ok and arch_defaulted and "gpu-architecture" in log:
        newer = _newest_nvrtc_arch_instead(arch)
        if newer is not None:
            ok, log, binary = _compile_nvrtc(source, _nvrtc_options(plan, newer), "ptx", keep)
    if not ok:
        command = ["nvrtc", *nv_opts]
        if _find_nvcc("nvcc") is not None:
            return _NvrtcFailed(key, command, log)
        raise CompileError(
            "NVRTC compilation of kernel.cu failed", command_line=command, stderr=log
        )
    warn_compiler_output(log)
    if cache is not None:
        store(cache_dir or "", key, binary)
    return binary, stamps


def _nvcc_cached(
    source: str,
    nvcc: str,
    options: list[str],
    keep: bool,
    arch: str | None,
    code: str | None,
    cache_dir: str | None,
    include_dirs: list[str],
    target: str,
) -> tuple[bytes, list[tuple[str, int, int]]]:
    """Compile with the nvcc process through the cache (options as the original passed them)."""
    if _find_nvcc(nvcc) is None:
        raise CompileError(
            f"cannot compile with NVRTC ({_why_nvcc(nvcc, target, options) or 'an #include'}"
            f" needs nvcc), and {nvcc} was not found ({_NVCC_PLACES})"
        )
    nvcc_options = list(options)
    if arch is not None:
        nvcc_options += ["-arch", arch]
    if code is not None:
        nvcc_options += ["-code", code]
    # nvcc runs in a temporary directory: relative include dirs are the caller's.
    nvcc_options += [f"-I{os.path.abspath(d)}" for d in [*include_dirs, _PACKAGE_HEADER_DIR]]
    dirs = include_dirs_in(nvcc_options)
    stamps = [] if keep else cache_key(source, [], target, "", dirs, cache_dir)[1]
    binary = compile_plain(source, nvcc_options, keep, nvcc, None if keep else cache_dir, target)
    return binary, stamps


# ---------------------------------------------------------------------------------------------
# Modules


class CudaModule:
    """Base of the module classes: a loaded module's functions, globals, texrefs, surfrefs."""

    module: Any

    def _bind_module(self) -> None:
        # Direct attributes for the common look-ups; __getattr__ covers the rest.
        for name in _shared_modules.LOOKUPS:
            if hasattr(self.module, name):
                setattr(self, name, getattr(self.module, name))

    def get_function(self, name: str) -> Any:
        """The kernel ``name`` (a ``pycuda.driver.Function``)."""
        return self.module.get_function(name)

    def __getattr__(self, name: str) -> Any:
        # Anything else the driver's Module offers (get_surfref, ...), without copying it.
        if name == "module":
            raise AttributeError(name)
        return getattr(self.module, name)

    def _check_arch(self, arch: str | None) -> None:
        if arch is None:
            return
        try:
            cap = driver.Context.get_device().compute_capability()
            digits = "".join(ch for ch in arch.split("_", 1)[-1] if ch.isdigit())
            higher = digits and tuple(map(int, (digits[:-1], digits[-1]))) > tuple(cap)
        except Exception:  # no context: nothing to compare with
            return
        if higher:
            warn_user(
                f"trying to compile for a compute capability higher than the device's "
                f"({arch} > sm_{cap[0]}{cap[1]})"
            )


class SourceModule(CudaModule):
    """CUDA C source compiled (NVRTC, cached) and loaded into the current context.

        mod = SourceModule("__global__ void f(float *a) { a[threadIdx.x] *= 2; }")
        f = mod.get_function("f")

    Each SourceModule has a module of its own, with its own ``__device__``/``__constant__``
    variables and texture references, as in the original; except that SourceModules of one
    binary that defines no variable at all, made in one context while an earlier one is still
    alive, share its loaded module (``.module``), which no kernel can tell from its own. The
    functions' attributes (``Function.set_attribute``, ``set_cache_config``) are then shared
    too. See ``pycuda._shared_modules``.
    """

    def __init__(
        self,
        source: str,
        nvcc: str = "nvcc",
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: str | bool | None = None,
        include_dirs: Iterable[str] = (),
    ) -> None:
        # The tutorials' compile-in-a-loop: the same plain call again in the same context is
        # one look-up of the module the context keeps (no compile memo, no load).
        call = None
        if options is None and not include_dirs and not keep and type(source) is str:
            call = (source, nvcc, no_extern_c, arch, code, cache_dir)
            loaded = _shared_modules.recent_call(call)
            if loaded is not None and not AUTO.on and not driver.CUDA_DEBUGGING:
                self._loaded = loaded
                self.module = loaded.module
                self.__dict__.update(loaded.methods)
                return
        args = (source, nvcc, options, keep, no_extern_c, arch, code, cache_dir, include_dirs)
        if AUTO.on:
            in_range("SourceModule", self._build, arch, args, call)
        else:
            self._build(arch, args, call)

    def _build(self, arch: str | None, compile_args: tuple[Any, ...], call: tuple | None) -> None:
        if arch is not None:
            self._check_arch(arch)
        cubin = compile(*compile_args)
        # Held for as long as this object lives: it keeps a shared module shareable.
        self._loaded = loaded = _shared_modules.load_module(cubin)
        self.module = loaded.module
        self.__dict__.update(loaded.methods)  # what _bind_module sets, bound once
        if call is not None and _plain_memo_hit(compile_args, cubin):
            _shared_modules.remember_call(call, cubin, loaded)


@functools.cache
def _find_library(libname: str, cuda_libdir: str | None) -> str:
    """``lib<libname>.a`` in ``cuda_libdir``, then in ``_cuda_paths.library_dirs``, in order."""
    _cuda_paths.warn_ignored_settings()
    dirs = [cuda_libdir] if cuda_libdir else []
    dirs += [f.path for f in _cuda_paths.library_dirs(_nvrtc_file())]
    for d in dirs:
        path = os.path.join(d, f"lib{libname}.a")
        if os.path.isfile(path):
            return path
    raise OSError(f"lib{libname}.a not found; looked in {', '.join(dirs)} (pass cuda_libdir=)")


class DynamicModule(CudaModule):
    """A module linked from several pieces (sources, PTX, cubins, libraries) by the driver.

    mod = DynamicModule().add_source(src, nvcc_options=["-rdc=true"]).add_stdlib("cudadevrt")
    mod.link()
    """

    def __init__(
        self,
        nvcc: str = "nvcc",
        link_options: Any = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: str | bool | None = None,
        include_dirs: Iterable[str] = (),
        message_handler: Any = None,
        log_verbose: bool = False,
        cuda_libdir: str | None = None,
    ) -> None:
        self.nvcc, self.keep, self.no_extern_c = nvcc, keep, no_extern_c
        self.arch, self.code, self.cache_dir = arch, code, cache_dir
        self.include_dirs = string_list(include_dirs or (), "include_dirs", paths=True)
        self.cuda_libdir = cuda_libdir
        self.libdir = None
        self._check_arch(arch)
        if driver.Context.get_current() is not None:
            major, minor = driver.Context.get_device().compute_capability()
            if (major, minor) < (3, 5):
                raise driver.LogicError("DynamicModule needs compute capability 3.5 or higher")
        self.linker = driver.Linker(message_handler, link_options, log_verbose)
        self.module = None

    def add_source(
        self, source: str, nvcc_options: Sequence[str] | None = None, name: str = "kernel.ptx"
    ) -> DynamicModule:
        """Compile ``source`` to PTX and add it to the link."""
        no_nul(name, "name")
        ptx = compile(
            source, nvcc=self.nvcc, options=nvcc_options, keep=self.keep,
            no_extern_c=self.no_extern_c, arch=self.arch, code=self.code,
            cache_dir=self.cache_dir, include_dirs=self.include_dirs, target="ptx",
        )  # fmt: skip
        # The linker reads PTX as a C string: hand it the terminator NVRTC counts in its size.
        self.linker.add_data(ptx + b"\0", driver.jit_input_type.PTX, name)
        return self

    def add_data(self, data: bytes, input_type: int, name: str = "unknown") -> DynamicModule:
        """Add ``data`` (PTX, a cubin, a fatbin, an object or a library, as ``input_type``, a
        ``jit_input_type``, says) to the link."""
        self.linker.add_data(data, input_type, name)
        return self

    def add_file(self, filename: str, input_type: int) -> DynamicModule:
        """Add the file ``filename`` of kind ``input_type`` (a ``jit_input_type``) to the
        link."""
        self.linker.add_file(filename, input_type)
        return self

    def add_stdlib(self, libname: str) -> DynamicModule:
        """Add the toolkit library ``lib<libname>.a`` (e.g. "cudadevrt") to the link."""
        path = _find_library(libname, self.cuda_libdir)
        self.libdir = os.path.dirname(path)
        self.linker.add_file(path, driver.jit_input_type.LIBRARY)
        return self

    def link(self) -> DynamicModule:
        """Link everything added into a loaded module."""
        self.module = self.linker.link_module()
        self.linker = None
        self._bind_module()
        return self


class DynamicSourceModule(DynamicModule):
    """A SourceModule with relocatable device code, linked with cudadevrt: kernels may launch
    kernels (dynamic parallelism)."""

    def __init__(
        self,
        source: str,
        nvcc: str = "nvcc",
        options: Sequence[str] | None = None,
        keep: bool = False,
        no_extern_c: bool = False,
        arch: str | None = None,
        code: str | None = None,
        cache_dir: str | bool | None = None,
        include_dirs: Iterable[str] = (),
        cuda_libdir: str | None = None,
    ) -> None:
        super().__init__(
            nvcc=nvcc, link_options=None, keep=keep, no_extern_c=no_extern_c, arch=arch,
            code=code, cache_dir=cache_dir, include_dirs=include_dirs, message_handler=None,
            log_verbose=False, cuda_libdir=cuda_libdir,
        )  # fmt: skip
        options = string_list(DEFAULT_NVCC_FLAGS if options is None else options, "options")
        options += ["-rdc=true", "-lcudadevrt"]
        self.add_source(source, nvcc_options=options)
        self.add_stdlib("cudadevrt")
        self.link()
