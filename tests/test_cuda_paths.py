"""Where NVRTC, CUDA's headers and cuRAND's headers are found (pycuda._cuda_paths and core's
library search): explicit settings first, then NVIDIA's pip packages in both layouts, conda, and
the system; a bad explicit setting is an error that names it. No GPU needed: every check runs in
a child interpreter over fake package folders whose libnvrtc is a link to the real one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

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


def test_arm_server_toolkits_use_targets_sbsa_linux(tmp_path, monkeypatch):
    home = tmp_path / "toolkit"
    inc = touch(home / "targets" / "sbsa-linux" / "include" / "cuda_fp16.h").parent
    monkeypatch.setattr(_cuda_paths.platform, "machine", lambda: "aarch64")
    for var in ("CUDA_PATH", "CUDA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CUDA_HOME", str(home))
    assert [f.path for f in _cuda_paths.include_dirs(None)] == [str(inc)]


def test_a_toolkit_setting_without_headers_is_an_error(tmp_path, monkeypatch):
    for var in ("CUDA_PATH", "CUDA_ROOT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    with pytest.raises(OSError, match="CUDA_HOME=.* has no CUDA headers"):
        _cuda_paths.include_dirs(None)


COMPILE = (
    "from pycuda import compiler\n"
    "try:\n"
    "    compiler.compile('__global__ void f() {}', arch='sm_90')\n"
    "except Exception as exc:\n"
    "    print(type(exc).__name__, exc)\n"
    "else:\n"
    "    print('compiled')\n"
)


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ({"PYCUDA_LIBNVRTC": "/nonexistent/libnvrtc.so.13"}, "PYCUDA_LIBNVRTC=/nonexistent"),
        ({"CUDA_HOME": "/nonexistent/cuda"}, "CUDA_HOME=/nonexistent/cuda is not a directory"),
        ({"CUDA_PATH": "/"}, "CUDA_PATH=/ holds no libnvrtc.so.13"),
    ],
)
def test_a_bad_explicit_setting_is_an_error_never_skipped(setting, named):
    out = subprocess.run(
        [sys.executable, "-c", COMPILE],
        env=clean_env(**setting),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("LogicError"), out.stdout
    assert named in out.stdout


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
