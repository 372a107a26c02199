"""Where NVRTC, CUDA's headers and cuRAND's headers are found (pycuda._cuda_paths and core's
library search): explicit settings first, then NVIDIA's pip packages in both layouts, conda, and
the system; a bad library file setting is an error that names it, a bad toolkit folder is
ignored with one warning. No GPU needed: most checks run in a child interpreter over fake package
folders whose libnvrtc is a link to the real one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import pycuda.driver  # noqa: F401 - it tells core the toolkit folders, as in any program
from pycuda import _cuda_paths, _driver

REAL_NVRTC = _driver.find_nvrtc()
needs_nvrtc = pytest.mark.skipif(REAL_NVRTC is None, reason="no NVRTC installed here to link to")

# What the child prints: the NVRTC file core finds, its origin, and the header folders.
PROBE = textwrap.dedent(
    """
    import json
    import pycuda.driver
    from pycuda import _cuda_paths, _driver
    nvrtc = _driver.find_nvrtc()
    dirs = _cuda_paths.include_dirs(nvrtc)
    curand = _cuda_paths.curand_include(dirs)
    print(json.dumps({
        "nvrtc": nvrtc,
        "origin": _cuda_paths.library_origin(nvrtc) if nvrtc else None,
        "includes": [f.path for f in dirs],
        "include_origin": dirs[0].origin if dirs else None,
        "curand": curand.path if curand else None,
    }))
    """
)


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without any explicit toolkit setting, plus ``extra``."""
    env = {k: v for k, v in os.environ.items()}
    for var in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT", "PYCUDA_LIBNVRTC", "CONDA_PREFIX"):
        env.pop(var, None)
    env.update(extra)
    return env


def run_probe(site: Path | None, **env: str) -> dict:
    paths = [str(site)] if site else []
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=clean_env(PYTHONPATH=os.pathsep.join(paths), **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("/* a header of a fake package */\n")
    return path


def fake_library(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(os.path.realpath(REAL_NVRTC))
    return path


@needs_nvrtc
def test_cuda13_pip_packages_come_before_the_system(tmp_path):
    site = tmp_path / "site"
    cu13 = site / "nvidia" / "cu13"
    lib = fake_library(cu13 / "lib" / "libnvrtc.so.13")
    touch(cu13 / "include" / "cuda_fp16.h")
    touch(cu13 / "include" / "curand_kernel.h")
    (cu13 / "include" / "cccl").mkdir()
    found = run_probe(site)
    assert found["nvrtc"] == str(lib)
    assert found["origin"].startswith("pip: CUDA 13 packages")
    assert found["includes"] == [str(cu13 / "include"), str(cu13 / "include" / "cccl")]
    assert found["include_origin"].startswith("pip: CUDA 13 packages")
    assert found["curand"] == str(cu13 / "include")


@needs_nvrtc
def test_cuda12_per_component_pip_folders(tmp_path):
    site = tmp_path / "site"
    nvidia = site / "nvidia"
    lib = fake_library(nvidia / "cuda_nvrtc" / "lib" / "libnvrtc.so.12")
    touch(nvidia / "cuda_runtime" / "include" / "cuda_fp16.h")
    touch(nvidia / "curand" / "include" / "curand_kernel.h")
    found = run_probe(site)
    assert found["nvrtc"] == str(lib)
    assert found["origin"].startswith("pip: nvidia-cuda-nvrtc-cu12")
    assert found["includes"] == [
        str(nvidia / "cuda_runtime" / "include"),
        str(nvidia / "curand" / "include"),
    ]
    assert found["curand"] == str(nvidia / "curand" / "include")


@needs_nvrtc
def test_an_explicit_toolkit_comes_before_the_packages(tmp_path):
    site = tmp_path / "site"
    fake_library(site / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    touch(site / "nvidia" / "cu13" / "include" / "cuda_fp16.h")
    home = tmp_path / "toolkit"
    lib = fake_library(home / "lib64" / "libnvrtc.so.13")
    touch(home / "include" / "cuda_fp16.h")
    found = run_probe(site, CUDA_HOME=str(home))
    assert found["nvrtc"] == str(lib)
    assert found["origin"] == f"$CUDA_HOME={home}"
    assert found["includes"] == [str(home / "include")]


@needs_nvrtc
def test_conda_comes_after_pip_and_before_the_system(tmp_path):
    prefix = tmp_path / "conda"
    lib = fake_library(prefix / "lib" / "libnvrtc.so.12")
    touch(prefix / "include" / "cuda_fp16.h")
    found = run_probe(None, CONDA_PREFIX=str(prefix))
    assert found["nvrtc"] == str(lib)
    assert found["origin"] == f"conda: $CONDA_PREFIX={prefix}"
    assert found["includes"][0] == str(prefix / "include")


@needs_nvrtc
def test_packages_without_curand_headers_borrow_only_that_folder(tmp_path):
    site = tmp_path / "site"
    cu13 = site / "nvidia" / "cu13"
    fake_library(cu13 / "lib" / "libnvrtc.so.13")
    touch(cu13 / "include" / "cuda_fp16.h")
    found = run_probe(site)
    assert found["includes"][0] == str(cu13 / "include")
    system = [d for d in found["includes"][1:]]
    if found["curand"] is not None:  # a system toolkit with cuRAND is installed here
        assert found["curand"] in system
        assert len(system) == 1


@pytest.fixture
def toolkit_env(monkeypatch):
    """Set toolkit variables in this process: _cuda_paths reads them once, so its answer is
    forgotten before the test and after it."""
    for var in _cuda_paths.TOOLKIT_ROOT_VARS:
        monkeypatch.delenv(var, raising=False)
    _cuda_paths._toolkit_settings.cache_clear()
    yield monkeypatch
    _cuda_paths._toolkit_settings.cache_clear()


@needs_nvrtc
def test_arm_server_toolkits_use_targets_sbsa_linux(tmp_path, toolkit_env):
    home = tmp_path / "toolkit"
    inc = touch(home / "targets" / "sbsa-linux" / "include" / "cuda_fp16.h").parent
    fake_library(home / "targets" / "sbsa-linux" / "lib" / "libnvrtc.so.13")
    toolkit_env.setattr(_cuda_paths, "_machine", lambda: "aarch64")
    toolkit_env.setenv("CUDA_HOME", str(home))
    assert [f.path for f in _cuda_paths.include_dirs(None)] == [str(inc)]
    assert str(home / "targets" / "sbsa-linux" / "lib") in _cuda_paths.toolkit_library_dirs()


@needs_nvrtc
def test_a_toolkit_setting_without_headers_is_ignored(tmp_path, toolkit_env):
    fake_library(tmp_path / "lib64" / "libnvrtc.so.13")
    toolkit_env.setenv("CUDA_HOME", str(tmp_path))
    assert _cuda_paths.toolkit_roots() == ()
    (ignored,) = _cuda_paths.ignored_settings()
    assert ignored.startswith(f"CUDA_HOME={tmp_path} (no CUDA headers")
    assert all(str(tmp_path) not in f.path for f in _cuda_paths.include_dirs(None))


@needs_nvrtc
def test_library_dirs_are_the_search_order(tmp_path, toolkit_env):
    home = tmp_path / "toolkit"
    fake_library(home / "lib64" / "libnvrtc.so.13")
    touch(home / "include" / "cuda_fp16.h")
    toolkit_env.setenv("CUDA_HOME", str(home))
    toolkit_env.setenv("CUDA_PATH", str(home))  # the same toolkit twice is searched once
    toolkit_env.setenv("LD_LIBRARY_PATH", str(tmp_path / "loader"))
    found = _cuda_paths.library_dirs(None)
    assert found[0] == _cuda_paths.Found(str(home / "lib64"), f"$CUDA_HOME={home}")
    paths = [f.path for f in found]
    assert paths.index(str(home / "lib")) < paths.index(str(tmp_path / "loader"))
    assert paths.index(str(tmp_path / "loader")) < paths.index("/usr/local/cuda/lib64")
    assert len(paths) == len(set(paths))
    assert _cuda_paths.toolkit_library_dirs()[:2] == [str(home / "lib64"), str(home / "lib")]


def _program(path, executable=True):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755 if executable else 0o644)
    return path


@pytest.fixture
def fresh_find_nvcc():
    _cuda_paths.find_nvcc.cache_clear()
    yield _cuda_paths.find_nvcc
    _cuda_paths.find_nvcc.cache_clear()


def test_find_nvcc_takes_the_first_program_on_path(tmp_path, monkeypatch, fresh_find_nvcc):
    first = _program(tmp_path / "a" / "nvcc")
    _program(tmp_path / "b" / "nvcc")
    _program(tmp_path / "plain" / "nvcc", executable=False)
    monkeypatch.chdir(tmp_path / "b")  # where an empty PATH entry would point: skipped
    folders = ["", str(tmp_path / "plain"), str(tmp_path / "a"), str(tmp_path / "b")]
    monkeypatch.setenv("PATH", os.pathsep.join(folders))
    assert fresh_find_nvcc("nvcc") == str(first)
    assert fresh_find_nvcc(str(first)) == str(first)
    assert fresh_find_nvcc(str(tmp_path / "plain" / "nvcc")) is None


def test_find_nvcc_then_looks_in_the_toolkits_pycuda_uses(tmp_path, monkeypatch, fresh_find_nvcc):
    used, ignored = (str(tmp_path / n) for n in ("used", "ignored"))
    _program(tmp_path / "used" / "bin" / "nvcc")
    _program(tmp_path / "ignored" / "bin" / "nvcc")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(
        _cuda_paths, "toolkit_roots", lambda: (_cuda_paths.Found(used, "$CUDA_HOME"),)
    )
    monkeypatch.setenv("CUDA_PATH", ignored)  # only the roots _cuda_paths uses count
    assert fresh_find_nvcc("nvcc") == os.path.join(used, "bin", "nvcc")


COMPILE = textwrap.dedent(
    """
    import json, warnings
    from pycuda import compiler
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compiler.compile("__global__ void f() {}", arch="sm_90")
            compiler.compile("__global__ void g() {}", arch="sm_90")
        except Exception as exc:
            result = f"{type(exc).__name__} {exc}"
        else:
            result = "compiled"
    print(json.dumps({
        "result": result,
        "warnings": [[w.category.__name__, str(w.message)] for w in caught],
    }))
    """
)


def compile_in_child(**setting: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", COMPILE],
        env=clean_env(**setting),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_bad_library_file_setting_is_an_error_never_skipped():
    found = compile_in_child(PYCUDA_LIBNVRTC="/nonexistent/libnvrtc.so.13")
    assert found["result"].startswith("LogicError"), found
    assert "PYCUDA_LIBNVRTC=/nonexistent" in found["result"]


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"CUDA_HOME": "/nonexistent/cuda"}, "CUDA_HOME=/nonexistent/cuda (no such folder)"),
        ({"CUDA_PATH": "/"}, "CUDA_PATH=/ (no NVRTC library in lib64/"),
        ({"CUDA_ROOT": "/nonexistent/root"}, "CUDA_ROOT=/nonexistent/root (no such folder)"),
    ],
)
def test_a_bad_toolkit_setting_warns_once_and_the_search_goes_on(setting, named):
    found = compile_in_child(**setting)
    if REAL_NVRTC is None and found["result"].startswith("CompileError"):
        pytest.skip("neither NVRTC nor nvcc is installed here")
    assert found["result"] == "compiled", found
    assert len(found["warnings"]) == 1, found["warnings"]
    category, message = found["warnings"][0]
    assert category == "ToolkitSettingWarning"
    assert named in message
    assert "as if it were unset" in message


@needs_nvrtc
def test_a_bad_toolkit_setting_finds_what_an_unset_one_would(tmp_path):
    site = tmp_path / "site"
    fake_library(site / "nvidia" / "cu13" / "lib" / "libnvrtc.so.13")
    touch(site / "nvidia" / "cu13" / "include" / "cuda_fp16.h")
    unset = run_probe(site)
    for bad in ("/nonexistent/cuda", str(tmp_path)):
        found = run_probe(site, CUDA_HOME=bad)
        assert found == unset, bad


def report(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pycuda", *args],
        env=clean_env(**env) if env else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_report_names_a_bad_setting():
    out = report(PYCUDA_LIBNVRTC="/nonexistent/libnvrtc.so.13")
    assert "NVRTC:     BAD SETTING: PYCUDA_LIBNVRTC=/nonexistent/libnvrtc.so.13" in out.stdout
    assert "MISSING: PYCUDA_LIBNVRTC=" in out.stdout


def test_the_report_shows_an_ignored_toolkit_setting_without_failing_for_it():
    out = report(CUDA_HOME="/nonexistent/cuda")
    assert "IGNORED:   CUDA_HOME=/nonexistent/cuda (no such folder)" in out.stdout
    assert "BAD SETTING" not in out.stdout
    assert "MISSING: CUDA_HOME" not in out.stdout
    assert "ToolkitSettingWarning" not in out.stderr
    if REAL_NVRTC:
        assert any(line.startswith("NVRTC:     ") for line in out.stdout.splitlines())


@needs_nvrtc
def test_the_report_names_each_part_and_its_origin():
    out = report()
    lines = out.stdout.splitlines()
    assert any(line.startswith("NVRTC:     ") and REAL_NVRTC in line for line in lines)
    for part in ("headers:   ", "cuRAND:    "):
        at = next(i for i, line in enumerate(lines) if line.startswith(part))
        assert lines[at + 1].strip().startswith("from "), out.stdout


def test_the_report_takes_help_and_refuses_other_arguments():
    helped = report("--help")
    assert helped.returncode == 0
    assert helped.stdout.startswith("usage: python -m pycuda")
    assert "pycuda[cu13]" in helped.stdout
    bogus = report("--bogus")
    assert bogus.returncode == 2
    assert "unknown argument '--bogus'" in bogus.stderr
    assert bogus.stdout == ""


def test_the_report_into_a_closed_pipe_ends_without_a_traceback():
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before the report writes, as with `| head -0`
    proc = subprocess.run(
        [sys.executable, "-m", "pycuda"], stdout=writer, stderr=subprocess.PIPE, timeout=120
    )
    os.close(writer)
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    assert b"BrokenPipeError" not in proc.stderr
