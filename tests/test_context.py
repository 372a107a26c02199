"""Contexts on CUDA's own stack: make, push, pop, detach, primary contexts, threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

import pycuda.driver as drv

pytestmark = pytest.mark.gpu


def test_make_context_pushes_and_pop_restores(ctx):
    dev = drv.Device(0)
    new = dev.make_context()
    try:
        assert drv.Context.get_current() == new
        assert new != ctx
        assert drv.Context.get_device() == dev
        assert new.get_api_version() >= 3020
    finally:
        drv.Context.pop()
    assert drv.Context.get_current() == ctx
    new.detach()
    with pytest.raises(drv.LogicError, match="detached"):
        new.push()


def test_retain_primary_is_not_pushed_and_is_the_primary(ctx):
    primary = drv.Device(0).retain_primary_context()
    assert primary == ctx  # the session fixture uses the primary context too
    primary.detach()
    assert drv.Context.get_current() == ctx


def test_limits_and_configs(ctx):
    old = drv.Context.get_limit(drv.limit.STACK_SIZE)
    drv.Context.set_limit(drv.limit.STACK_SIZE, 4096)
    assert drv.Context.get_limit(drv.limit.STACK_SIZE) >= 4096
    drv.Context.set_limit(drv.limit.STACK_SIZE, old)
    drv.Context.set_cache_config(drv.func_cache.PREFER_L1)
    assert drv.Context.get_cache_config() in tuple(drv.func_cache)
    drv.Context.synchronize()


def test_no_current_context_is_a_clear_error(ctx):
    drv.Context.pop()
    try:
        assert drv.Context.get_current() is None
        with pytest.raises(drv.LogicError, match="no CUDA context is current"):
            drv.Context.synchronize()
        with pytest.raises(drv.LogicError):
            drv.Context.pop()
    finally:
        ctx.push()


def test_context_used_from_another_thread_after_push(ctx):
    results = []

    def work():
        try:
            assert drv.Context.get_current() is None
            ctx.push()
            try:
                assert drv.Context.get_current() == ctx
                drv.Context.synchronize()
                results.append("ok")
            finally:
                drv.Context.pop()
        except Exception as exc:  # reported below
            results.append(repr(exc))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert results == ["ok"]


def test_exit_never_aborts_with_contexts_left_pushed():
    code = textwrap.dedent(
        """
        import pycuda.driver as drv
        drv.init()
        a = drv.Device(0).make_context()
        b = drv.Device(0).make_context()
        p = drv.Device(0).retain_primary_context(); p.push()
        print("left pushed")
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "left pushed" in proc.stdout
    assert "abort" not in proc.stderr.lower()
