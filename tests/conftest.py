"""Shared pytest set-up: the `gpu` marker skips with its reason where no GPU can be used; the
fixtures of several test files (contexts, the fake driver); skips summed up once per reason."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest


@functools.cache
def gpu_unavailable_reason() -> str | None:
    """None when a CUDA device is usable here, else why not (one line)."""
    try:
        import pycuda.driver as drv

        drv.init()
        if drv.Device.count() == 0:
            return "the CUDA driver reports no devices"
    except Exception as exc:  # the reason is what we report
        # The driver search's error spans lines (where it looked) and adds a remedy in brackets:
        # `python -m pycuda` prints all of it, the reason repeated for every skip stays short.
        what = re.sub(r"\s*\([^()]*\)", "", one_line(str(exc))).rstrip(".")
        return f"no usable CUDA GPU: {what} (python -m pycuda says more)"
    return None


def one_line(message: str) -> str:
    """The first line of an error message, without the sentence at its end that introduces the
    lines after it (the driver search's "Looked in:" list): a skip reason is one line, and a
    reason that ends in "Looked in:" reads as cut off."""
    first = message.strip().split("\n", 1)[0].rstrip()
    if first.endswith(":") and "\n" in message.strip():
        head, dot, _ = first.rpartition(". ")
        first = head + "." if dot else first.rstrip(":")
    return first


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = gpu_unavailable_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def primary_context():
    """The primary context of device 0, pushed for the whole session (as pycuda.autoinit)."""
    import pycuda.driver as drv

    drv.init()
    ctx = drv.Device(0).retain_primary_context()
    ctx.push()
    yield ctx
    drv.Context.pop()


@pytest.fixture
def ctx(primary_context):
    """A GPU test's context: the session's primary context, checked to be current."""
    import pycuda.driver as drv

    current = drv.Context.get_current()
    if current != primary_context:
        primary_context.push()
    yield primary_context
    # A test that left its own contexts pushed must not leak them into the next test.
    while drv.Context.get_current() not in (None, primary_context):
        drv.Context.pop()


@pytest.fixture(scope="session")
def fake_libcuda_so(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The path of the fake libcuda.so.1 of tests/fake_libcuda.py, built once a session; skips
    without a C compiler."""
    import fake_libcuda  # it imports pycuda, which this file imports only when asked

    return fake_libcuda.build(tmp_path_factory.mktemp("fake-libcuda"))


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """Skips once per reason (before pytest's short summary), then the number of fuzzed calls
    made (tests/test_fuzz.py), for the record."""
    import sys

    write_skips_by_reason(terminalreporter)
    counts = getattr(sys.modules.get("test_fuzz"), "COUNTS", None)
    if counts:
        detail = ", ".join(f"{name}: {n}" for name, n in counts.items())
        terminalreporter.write_line(f"fuzz: {sum(counts.values())} calls ({detail})")


def write_skips_by_reason(terminalreporter) -> None:
    """Where -rs (or -ra) asks for skips, one line per distinct reason with its count, in place
    of pytest's lines per test file and line: without a GPU those repeat one reason hundreds of
    times. Failures, errors and xfails stay in pytest's short summary, which runs after this hook
    (terminal.py's hook wrapper) and reads `reportchars` then."""
    if "s" not in terminalreporter.reportchars:
        return
    terminalreporter.reportchars = terminalreporter.reportchars.replace("s", "")
    skipped = terminalreporter.stats.get("skipped", [])
    if not skipped or getattr(terminalreporter, "no_summary", False):
        return
    groups: dict[str, tuple[int, set[str]]] = {}
    for report in skipped:
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reason = one_line(str(reason).removeprefix("Skipped: "))
        count, files = groups.get(reason, (0, set()))
        files.add(report.nodeid.split("::", 1)[0])
        groups[reason] = (count + 1, files)
    terminalreporter.write_sep("=", "skips by reason", yellow=True)
    for reason, (count, files) in sorted(groups.items(), key=lambda g: (-g[1][0], g[0])):
        where = next(iter(files)) if len(files) == 1 else f"{len(files)} files"
        terminalreporter.write_line(f"SKIPPED [{count}] ({where}) {reason}")
