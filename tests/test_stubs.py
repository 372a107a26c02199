"""The committed stubs of pycuda._driver are what nanobind's stubgen makes of the built module."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

import pycuda

# The stubgen and the Python that wrote python/pycuda/_driver.pyi: Python 3.12 adds __buffer__
# methods (PEP 688) to buffer-exporting classes, so the text depends on both.
STUB_NANOBIND = "3.1.0"
STUB_PYTHON = (3, 11)


def test_stubs_match_the_extension(tmp_path: pathlib.Path):
    nanobind = pytest.importorskip("nanobind")
    if nanobind.__version__ != STUB_NANOBIND:
        pytest.skip(f"stubs were made by nanobind {STUB_NANOBIND}, this is {nanobind.__version__}")
    if sys.version_info[:2] != STUB_PYTHON:
        pytest.skip(f"stubs were made with Python {STUB_PYTHON}, this is {sys.version_info[:2]}")
    committed = pathlib.Path(pycuda.__file__).with_name("_driver.pyi")
    out = tmp_path / "_driver.pyi"
    subprocess.run(
        [sys.executable, "-m", "nanobind.stubgen", "-q", "-m", "pycuda._driver", "-o", str(out)],
        check=True,
    )
    assert out.read_text() == committed.read_text(), (
        "python/pycuda/_driver.pyi is stale: regenerate it with "
        "`python -m nanobind.stubgen -m pycuda._driver -o python/pycuda/_driver.pyi`"
    )
