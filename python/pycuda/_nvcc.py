"""pycuda._nvcc: the nvcc compiler, run as a process in a temporary directory (for
pycuda.compiler, which re-exports ``compile_plain``, ``preprocess_source`` and
``get_nvcc_version``).

    cubin = compile_plain(source, ["-arch", "sm_90"], keep=False, nvcc="nvcc", cache_dir=None)

nvcc writes into a directory of ours and the result is read back from there; options that
would choose another place to write, or run a program, are refused (see
``refuse_output_options``).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence

from pycuda._compile_args import source_text, string_list
from pycuda._compile_cache import cache_key, disk_cache, store
from pycuda._cuda_paths import NVCC_PLACES, find_nvcc
from pycuda._nvcc_options import include_dirs_in, refuse_output_options
from pycuda._user_warnings import warn_compiler_output
from pycuda.driver import CompileError

TARGETS = ("cubin", "ptx", "fatbin")


@functools.cache
def get_nvcc_version(nvcc: str) -> str:
    """The text of ``nvcc --version`` (run once per process and compiler)."""
    import subprocess

    path = find_nvcc(nvcc)
    if path is None:
        raise OSError(f"{nvcc} not found ({NVCC_PLACES})")
    result = subprocess.run([path, "--version"], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise OSError(f"{path} --version failed: {result.stderr.strip()}")
    return result.stdout


def preprocess_source(source: str, options: Sequence[str], nvcc: str) -> str:
    """Run the source through nvcc's preprocessor and return the text (line markers removed)."""
    import subprocess
    import tempfile

    source = source_text(source)
    options = string_list(options, "options")
    refuse_output_options(options)
    path = find_nvcc(nvcc) or nvcc
    with tempfile.TemporaryDirectory(prefix="pycuda-pp-") as tmp:
        src = os.path.join(tmp, "kernel.cu")
        with open(src, "w") as f:
            f.write(source)
        cmd = [path, "--preprocess", *options, src, "--compiler-options", "-P"]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise CompileError(
            "nvcc preprocessing failed", command_line=cmd, stdout=result.stdout,
            stderr=result.stderr,
        )  # fmt: skip
    return result.stdout.replace(src, "kernel.cu")


def compile_plain(
    source: str,
    options: Sequence[str],
    keep: bool,
    nvcc: str,
    cache_dir: str | None,
    target: str = "cubin",
) -> bytes:
    """Compile with the nvcc process (as the original did): ``nvcc --<target> options``.

    Uses the compile cache when ``cache_dir`` is given (keyed by ``nvcc --version``).
    """
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    source = source_text(source)
    options = string_list(options, "options")
    refuse_output_options(options)
    key = None
    if cache_dir:
        identity = "nvcc:" + get_nvcc_version(nvcc)
        key = cache_key(source, options, target, identity, include_dirs_in(options), cache_dir)[0]
        hit = disk_cache(cache_dir).get(key)
        if hit is not None:
            return hit
    binary = run_nvcc(source, options, keep, nvcc, target)
    if key is not None:
        store(cache_dir, key, binary)
    return binary


def run_nvcc(source: str, options: Sequence[str], keep: bool, nvcc: str, target: str) -> bytes:
    """One nvcc run, no cache: the ``target`` file's bytes, or CompileError with nvcc's output."""
    import shutil
    import subprocess
    import tempfile

    path = find_nvcc(nvcc)
    if path is None:
        raise CompileError(f"{nvcc} not found ({NVCC_PLACES})")
    tmp = tempfile.mkdtemp(prefix="pycuda-compiler-")
    try:
        with open(os.path.join(tmp, "kernel.cu"), "w") as f:
            f.write(source)
        cmd = [path, f"--{target}", *options, "kernel.cu"]
        if keep:
            cmd.insert(2, "--keep")
            print(f"*** compiler output in {tmp}")
        result = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, check=False)
        out_file = os.path.join(tmp, "kernel." + target)
        if result.returncode != 0 or not os.path.exists(out_file):
            why = "" if result.returncode != 0 else f" (it made no kernel.{target})"
            raise CompileError(
                f"nvcc compilation of kernel.cu failed{why}",
                command_line=cmd,
                stdout=result.stdout,
                stderr=result.stderr,
            )
        warn_compiler_output(result.stdout + result.stderr)
        with open(out_file, "rb") as f:
            return f.read()
    finally:
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)
