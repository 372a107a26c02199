"""Shared pytest set-up: the `gpu` marker skips with its reason where no GPU can be used."""

from __future__ import annotations

import functools

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
        return "no usable CUDA GPU: " + str(exc).splitlines()[0]
    return None


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


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The number of fuzzed calls made (tests/test_fuzz.py), for the record."""
    import sys

    counts = getattr(sys.modules.get("test_fuzz"), "COUNTS", None)
    if counts:
        detail = ", ".join(f"{name}: {n}" for name, n in counts.items())
        terminalreporter.write_line(f"fuzz: {sum(counts.values())} calls ({detail})")
