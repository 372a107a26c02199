"""Replacing the array layer's seams (pycuda._array_core.seams) in a test, undone by monkeypatch.

Every replacement also starts the test with no per-context state and no current context (as on
a machine without a GPU: on one, other tests leave a context current), so the states made during
the test are made from the replacements.
"""

from __future__ import annotations

from typing import Any

from pycuda import _array_core as core


def replace(
    monkeypatch: Any,
    *,
    kernel: Any = None,
    allocate: Any = None,
    driver: Any = None,
    launch_config: Any = None,
) -> None:
    """Replace the element-wise kernel factory, the allocator of new contexts' arrays, the copy
    functions and the launch configuration (each where given)."""
    if kernel is not None:
        monkeypatch.setattr(core.seams, "kernel", kernel)
    if allocate is not None:
        monkeypatch.setattr(core.seams, "default_allocator", lambda: allocate)
    if driver is not None:
        monkeypatch.setattr(core.seams, "driver", driver)
    if launch_config is not None:
        monkeypatch.setattr(core.seams, "launch_config", launch_config)
    monkeypatch.setattr(core.seams, "context_handle", lambda: 0)
    monkeypatch.setattr(core, "STATES", {})
