"""pycuda._shared_modules: one loaded module per (context, binary) for SourceModules that
cannot tell it from a module of their own.

    loaded = load_module(cubin)     # a LoadedModule; loaded.module is a pycuda.driver.Module
    # keep `loaded` for as long as loaded.module is used through it

Loading a binary (cuModuleLoadData) costs more than the rest of a warm SourceModule together.
The original gives every SourceModule its own module, so two of one source have separate
``__device__``/``__constant__`` variables and texture references; a binary that defines no
variable at all (``_module_variables.defines_variables``) has no such state, and its module is
shared by the SourceModules of the current context that load it while one of them still holds
it.

The table holds its entries weakly: it keeps no module, and so no context, alive (a context
made by ``make_context`` is destroyed when the last object allocated in it goes). While a
LoadedModule lives, its Module, and with it its context, live, so the context's handle in the
key cannot be reused by another context. What the sharers do see in common: attributes set on
a Function (``set_attribute``, ``set_cache_config``) belong to the driver's function, which is
one per loaded module.

Compiling in a loop (``SourceModule(src)`` again after the last one was dropped, as tutorials
do) would load the binary every time. So the current context also keeps its ``RECENT_KEPT``
most recently loaded variable-free modules alive (least recently used first out), and a warm
``SourceModule`` of one of them loads nothing. These held modules keep their context alive,
so they are let go: all of them by ``tools.clear_context_caches()`` and
``compiler.clear_cache()``, and a context's as soon as a module is loaded in another context
(a context that was popped and detached is then destroyed as before; one that stays in use
reloads its modules after such a switch, once each). Binaries with variables are never kept:
a new SourceModule of one gets fresh variables, as in the original.
"""

from __future__ import annotations

import atexit
import weakref
from collections import OrderedDict
from typing import Any

from pycuda import _driver, driver
from pycuda._module_variables import defines_variables

# Verdicts of defines_variables, by binary (bytes keep their hash, and a warm compile returns
# the same bytes object, so a look-up is cheap). Bounded, since it holds the binaries (the memo
# holds the same objects; those of keep=True compiles only this): forgotten whole when full.
_VERDICTS_KEPT = 256
_defines_variables: dict[bytes, bool] = {}


# The Module's look-up methods that a SourceModule offers as its own attributes.
LOOKUPS = ("get_global", "get_texref", "get_surfref")


class LoadedModule:
    """A loaded Module, as the table's weakly held value (a Module itself cannot be weakly
    referenced); whoever shares the module holds this. ``methods``: its LOOKUPS, bound once."""

    __slots__ = ("module", "methods", "__weakref__")

    def __init__(self, module: Any) -> None:
        self.module = module
        self.methods = {name: getattr(module, name) for name in LOOKUPS if hasattr(module, name)}


# (context handle, binary) -> a weak reference to its LoadedModule, dropped by the reference's
# callback when that dies. A plain dict of weakrefs rather than a WeakValueDictionary, whose
# get() is Python code: on a warm SourceModule it was a tenth of the whole call.
_shared: dict[tuple[int, bytes], weakref.ref[LoadedModule]] = {}


def _forget_dead(key: tuple[int, bytes]) -> Any:
    def forget(ref: weakref.ref[LoadedModule]) -> None:
        # Only this entry's own reference: a newer LoadedModule may hold the key by now.
        if _shared.get(key) is ref:
            del _shared[key]

    return forget


def _has_variables(binary: bytes) -> bool:
    verdict = _defines_variables.get(binary)
    if verdict is None:
        if len(_defines_variables) >= _VERDICTS_KEPT:
            _defines_variables.clear()
        verdict = _defines_variables[binary] = defines_variables(binary)
    return verdict


# How many variable-free modules the current context keeps loaded with no other holder.
RECENT_KEPT = 32

# The context whose recent modules are kept (its handle; 0: none), and those modules by binary,
# least recently used first. One context at a time: the modules hold their context alive, and a
# context the program has let go must not stay alive for long.
_recent_context = 0
_recent: OrderedDict[bytes, LoadedModule] = OrderedDict()


def _keep(handle: int, binary: bytes, loaded: LoadedModule) -> None:
    global _recent_context
    if handle != _recent_context:
        _recent.clear()
        _recent_calls.clear()
        _recent_context = handle
    _recent[binary] = loaded
    if len(_recent) > RECENT_KEPT:
        dropped = _recent.popitem(last=False)[1]
        for call in [c for c, (_, m) in _recent_calls.items() if m is dropped]:
            del _recent_calls[call]


# SourceModule calls of the current context whose module is kept (their arguments as the call
# gave them -> the module): the tutorials' compile-in-a-loop costs one look-up (see
# compiler.SourceModule). Only calls whose source includes no user header go here, since a hit
# checks nothing; it goes with the kept modules.
_recent_calls: dict[tuple, tuple[bytes, LoadedModule]] = {}


def recent_call(call: tuple) -> LoadedModule | None:
    """The module an earlier SourceModule ``call`` loaded in the current context and that this
    context still keeps (now its most recently used); None if none."""
    try:
        entry = _recent_calls.get(call)
    except TypeError:  # an unhashable argument: such a call is never remembered
        return None
    if entry is None or _driver._current_context_handle() != _recent_context:
        return None
    try:
        _recent.move_to_end(entry[0])
    except KeyError:  # let go by a path that forgot its calls: load as usual
        return None
    return entry[1]


def remember_call(call: tuple, binary: bytes, loaded: LoadedModule) -> None:
    """Note that SourceModule ``call`` loaded ``binary`` as ``loaded``, if the current context
    keeps it."""
    if _recent.get(binary) is loaded:
        if len(_recent_calls) >= 4 * RECENT_KEPT:
            _recent_calls.clear()
        try:
            _recent_calls[call] = (binary, loaded)
        except TypeError:  # an unhashable argument (no_extern_c=[1]): not remembered
            pass


def clear_recent() -> None:
    """Let every kept module go (the module stays loaded while a holder has it):
    tools.clear_context_caches() calls it with the memoized kernels."""
    global _recent_context
    _recent.clear()
    _recent_calls.clear()
    _recent_context = 0


# Kept modules hold their context: let them go before the interpreter tears the extension down
# (freed in order, not reported by nanobind as leaked), also in a program that never imports
# pycuda.tools, whose own exit handler calls this too.
atexit.register(clear_recent)


def load_module(binary: bytes) -> LoadedModule:
    """``binary`` loaded in the current context: when the binary defines no variables, the
    module this context keeps or another holder of the same binary in this context already
    loaded, else a new one."""
    if _has_variables(binary):
        return LoadedModule(driver.module_from_buffer(binary))
    handle = _driver._current_context_handle()
    if handle and handle == _recent_context:
        loaded = _recent.get(binary)
        if loaded is not None:
            _recent.move_to_end(binary)
            return loaded
    key = (handle, binary)
    ref = _shared.get(key)
    loaded = ref() if ref is not None else None
    if loaded is None:
        loaded = LoadedModule(driver.module_from_buffer(binary))
        if not handle:  # no context, where loading raises (unless a test stands in for it)
            return loaded
        _shared[key] = weakref.ref(loaded, _forget_dead(key))
    _keep(handle, binary, loaded)
    return loaded


def forget() -> None:
    """Share nothing loaded before now (holders keep their modules)."""
    _shared.clear()
    _defines_variables.clear()
    clear_recent()
