"""Calls every public function and method of pycuda with wrong, odd and hostile arguments.

The public API is enumerated here (each module's ``__all__``, else its public names defined in
pycuda; the public methods of its classes), so new names are fuzzed without a change to this
file; EXCLUDED lists what is left out, each with its reason. Arguments are drawn by hypothesis
from a pool of wrong types, sizes and values: None, negative and huge numbers, NaN, strings with
NUL bytes, empty and non-contiguous arrays, object and string dtypes, freed allocations,
objects of another (detached) context, and real objects of every kind (so that calls also get
past their first check); each hypothesis example is followed by a burst of calls with values
from a generator it seeds (drawing each value through hypothesis costs ten times a call). Each
call must return or raise an exception of ALLOWED_NAMES with a message; anything else is a
failure, unless KNOWN_FAILURES/KNOWN_SITES list it (found, and reported to whoever owns that
code). Messages that read as Python's internals (``'NoneType' object is not iterable``) are
listed as unclear.

Run as a script in a subprocess (tests/test_fuzz.py), so that a crash or a hang is a failed
test with its reproducer, not a dead test session:

    export PYCUDA_LIBCUDA=$(python tests/fake_libcuda.py /tmp/fake)
    python tests/fuzz_calls.py --state fake --examples 5 --out report.json --log calls.log

States: ``nodriver`` (no libcuda: PYCUDA_LIBCUDA points nowhere), ``fake`` and ``fake-nocontext``
(PYCUDA_LIBCUDA is the fake of tests/fake_libcuda.py: kernels do nothing; with the primary
context current, or none), ``gpu`` (the real driver, the primary context current). Before each call,
the call is written to the log file (unbuffered), so that a crash leaves its reproducer there;
a call running longer than --timeout seconds ends the process with every thread's traceback.
"""

from __future__ import annotations

import argparse
import enum
import faulthandler
import importlib
import inspect
import json
import os
import random
import re
import resource
import sys
import tempfile
import time
import types
import warnings
from collections import Counter
from typing import Any

import numpy as np
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

MODULES = (
    "pycuda.driver",
    "pycuda.compiler",
    "pycuda.gpuarray",
    "pycuda.cumath",
    "pycuda.elementwise",
    "pycuda.reduction",
    "pycuda.scan",
    "pycuda.curandom",
    "pycuda.tools",
)

# Left out of the fuzzing, by qualified name (a class's name leaves out its constructor and
# methods), each with its reason.
EXCLUDED = {
    "pycuda.driver.aligned_zeros": "aligned_empty (fuzzed) and a fill: a drawn size that the "
    "host overcommits (tens of GiB on a GPU machine) is filled page by page for minutes",
    "pycuda.driver.managed_zeros": "managed_empty (fuzzed) and a fill: a drawn size that "
    "cuMemAllocManaged grants (virtual memory) gets the process killed for memory by the fill",
    "pycuda.curandom.generate_direction_vectors": "a drawn count of rows (10^12) is a host "
    "table NumPy builds for minutes on a host that overcommits; cycled() is fuzzed",
    "pycuda.curandom.generate_scramble_constants32": "as generate_direction_vectors",
    "pycuda.curandom.generate_scramble_constants64": "as generate_direction_vectors",
    "pycuda.driver.set_debugging": "a process-wide switch (every later compile gets -G and "
    "skips the cache); tests/test_debug.py covers it",
    "pycuda.driver.FlatLaunches": "internal hot-path table of gpuarray (pycuda._operators), "
    "exported by `from _driver import *`; its entry points are covered through GPUArray's "
    "operators",
    "pycuda.driver.FlatOperator": "internal method descriptor of GPUArray's operators, "
    "covered through them",
    "pycuda.driver.ArrayBase": "GPUArray's C base class, covered through GPUArray",
    "pycuda.tools.mark_cuda_test": "a test decorator: makes and detaches contexts around a test",
    "pycuda.tools.init_cuda_context_fixture": "a pytest fixture generator (contexts around a test)",
    "pycuda.driver.Context.detach": "called on the session's context it would end the run; "
    "detached contexts are among the arguments instead",
    "pycuda.driver.Context.pop": "pops the session's context (restored after each call anyway, "
    "but then every call in between runs without one, which fake-nocontext covers)",
    "pycuda.driver.start_profiler": "starts the CUDA profiler for the process",
    "pycuda.driver.Device.make_context": "each call makes a context (hundreds of MB of device "
    "memory until it is detached); the samples make and detach contexts",
    "pycuda.tools.make_default_context": "makes a context per call, as Device.make_context",
    "pycuda.driver.initialize_profiler": "writes a profiler output file named by its argument",
    "pycuda.driver.Graph.debug_dot_print": "writes a file named by its argument",
    "pycuda.driver.Stream.begin_capture": "leaves the stream capturing, and a capture makes "
    "later synchronous copies (and, in global mode, every allocation) in the process fail; "
    "tests/test_graphs.py covers it",
    "pycuda.compiler.DynamicModule": "links with libcudadevrt through nvcc; see nvcc below",
    "pycuda.compiler.DynamicSourceModule": "links with libcudadevrt through nvcc; see nvcc below",
    "pycuda.compiler.get_nvcc_version": "runs the program it is given as nvcc",
    "pycuda.compiler.compile_plain": "runs the program it is given as nvcc (a fuzzed name "
    "could be any program on the PATH)",
    "pycuda.compiler.preprocess_source": "runs the program it is given as nvcc, as compile_plain",
    "pycuda.compiler.CudaModule": "the abstract base of the module classes (it has no module "
    "of its own); its methods are fuzzed on SourceModule instances",
    "pycuda.driver.module_from_file": "opens whatever path it is given (a FIFO would block: "
    "the caller's own file)",
    "pycuda.driver.Stream.synchronize": "waits on the stream: fine alone, but fuzzed event "
    "waits could make it wait forever on the fake driver",
    "pycuda.tools.set_default_allocator": "a process-wide switch of every later array's "
    "allocator; tests/test_async_memory.py covers it",
}

# Failures found and reported, not fixed here (their code belongs to other work): by
# qualified name and exception type, with the reason. Anything else that fails is new.
KNOWN_FAILURES = {
    ("pycuda.compiler.cache_key", "AttributeError"): "compiler argument checks are reworked "
    "in the compiler branch (issue 11 item 9): non-str options/sources reach .encode()",
    ("pycuda.compiler.nvcc_only_reason", "AttributeError"): "as cache_key: a non-str option "
    "reaches .startswith()",
    ("pycuda.compiler.include_dirs_in", "AttributeError"): "as cache_key: a non-str option "
    "reaches .startswith()",
    ("pycuda.compiler.translate_options", "AttributeError"): "as cache_key: a non-str option "
    "reaches .startswith()",
    ("pycuda.compiler.SourceModule", "AttributeError"): "as cache_key: a non-str option "
    "reaches .partition()",
    ("pycuda.tools.register_dtype", "RuntimeError"): "documented, as the original's: "
    "RuntimeError for a name or dtype registered already",
    ("pycuda.tools.get_or_register_dtype", "RuntimeError"): "as register_dtype",
    ("pycuda.compiler.translate_options", "NvccOnly"): "as cache_key: NvccOnly('') for an "
    "option made of spaces and punctuation",
    ("pycuda.gpuarray.from_dlpack", "BufferError"): "documented: the DLPack protocol's error "
    "for data on another device (a NumPy array is on the host)",
}

# The same, by where the error comes from (any entry point that gets there).
KNOWN_SITES = {
    ("compiler.py", "AttributeError"): "compiler argument checks are reworked in the compiler "
    "branch (issue 11 item 9): non-str options reach str methods",
    ("_nvcc_options.py", "AttributeError"): "as compiler.py",
    ("_compile_cache.py", "AttributeError"): "as compiler.py",
    ("_nvcc_options.py", "KeyError"): "as compiler.py: options given as a dict",
    ("gpuarray.py", "AttributeError"): "gpuarray.py (the lead's): non-array operands of the "
    "array functions (maximum, logical_and, arctan2 ...) and get(ary=) read .dtype/.shape",
    ("gpuarray.py", "ZeroDivisionError"): "gpuarray.py (the lead's): a GPUArray of a zero-size "
    "dtype (np.dtype([])) is accepted, and divides by its itemsize later",
    ("_array_functions.py", "ZeroDivisionError"): "as gpuarray.py: empty_like of such an array",
    ("ast.py", "SyntaxError"): "NumPy's: np.dtype('(),,=') raises SyntaxError from its "
    "parser, and every entry point that takes a dtype passes it to np.dtype",
}

# What a call may raise (with a message): the documented exceptions.
ALLOWED_NAMES = (
    "TypeError",
    "ValueError",
    "IndexError",
    "OverflowError",
    "NotImplementedError",
    "MemoryError",
    "pycuda.driver.Error",
    "pycuda.curandom.CurandLibraryError",
    "pycuda.compiler.NvccOnly",  # documented by translate_options
)

# Messages that are Python's own, from deep inside: the caller learns nothing from them. (Not
# "'x' object cannot be interpreted as an integer (expected integers for reshape dimensions)":
# NumPy's own words, with what was expected.)
UNCLEAR = re.compile(
    r"object is not (iterable|subscriptable|callable)|has no attribute|unsupported operand"
    r"|not supported between instances|can't multiply sequence"
    r"|argument after \*|got multiple values|unhashable type|object of type '.*' has no len"
    r"|incompatible function arguments|must be real number, not|takes \d+ positional"
    r"|missing \d+ required|unexpected keyword"
)
# (TypeErrors about the call's own arity and keywords name the function, which is clear
# enough; nanobind's "incompatible function arguments" lists the signatures.)
ARITY = re.compile(
    r"takes \d+ positional|missing \d+ required|unexpected keyword|got multiple values"
    r"|incompatible function arguments"
)


# {{{ the public API


def public_targets() -> list[tuple[str, Any, str | None]]:
    """(qualified name, callable or class, method name or None) of every entry point fuzzed."""
    targets: list[tuple[str, Any, str | None]] = []
    seen: set[int] = set()
    for modname in MODULES:
        module = importlib.import_module(modname)
        names = getattr(module, "__all__", None) or [n for n in dir(module) if n[0] != "_"]
        for name in sorted(names):
            obj = getattr(module, name)
            qual = f"{modname}.{name}"
            if qual in EXCLUDED or not _ours(obj) or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            if isinstance(obj, type) and issubclass(obj, (enum.Enum, BaseException)):
                continue  # enum values and exception classes: data, not entry points
            targets.append((qual, obj, None))
            if isinstance(obj, type):
                for method in sorted(vars_of(obj)):
                    mqual = f"{qual}.{method}"
                    if mqual not in EXCLUDED:
                        targets.append((mqual, obj, method))
    return targets


def _ours(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return isinstance(module, str) and module.split(".")[0] == "pycuda"


def vars_of(cls: type) -> list[str]:
    """The public methods of ``cls`` (its own and inherited from pycuda classes)."""
    names = []
    for name in dir(cls):
        if name[0] == "_" and name != "__call__":
            continue
        try:
            attr = inspect.getattr_static(cls, name)
        except AttributeError:
            continue
        if isinstance(attr, (property, types.GetSetDescriptorType, types.MemberDescriptorType)):
            continue
        if name == "__call__" and "__call__" not in {
            n for k in cls.__mro__ if _ours(k) for n in vars(k)
        }:
            continue
        value = getattr(cls, name, None)
        if callable(value) and not isinstance(value, type):
            names.append(name)
    return names


def arity(func: Any) -> tuple[int, int, list[str]]:
    """(required, total) positional parameters of ``func`` (self excluded) and its keyword
    names, from its signature or nanobind's; (0, 4, []) when neither tells."""
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        return _nb_arity(func)
    required = total = 0
    keywords = []
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            total += 1
            required += p.default is p.empty
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            keywords.append(p.name)
        if p.kind == p.VAR_POSITIONAL:
            total += 3
    return required, total, keywords


def _nb_arity(func: Any) -> tuple[int, int, list[str]]:
    signatures = getattr(func, "__nb_signature__", None)
    if not signatures:
        return 0, 4, []
    text = signatures[0][0]
    inside = text[text.find("(") + 1 : text.rfind(")")]
    params, depth, current = [], 0, ""
    for ch in inside:  # split at the commas outside brackets
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        params.append(current.strip())
    params = [p for p in params if p not in ("self", "/", "*") and not p.startswith("self:")]
    names = [p.split(":")[0].split("=")[0].strip().lstrip("*") for p in params]
    required = sum("=" not in p and not p.startswith("*") for p in params)
    total = len(params) + 3 * any(p.startswith("*") and not p.startswith("**") for p in params)
    return required, total, [n for n in names if n]


# }}}

# {{{ the argument pool


class Samples:
    """Real objects of every kind, made once for the state (None where it cannot make one)."""

    def __init__(self, state: str) -> None:
        self.state = state
        self.objects: dict[str, Any] = {}
        self.instances: dict[type, list[Any]] = {}
        import pycuda.driver as drv

        self.drv = drv
        self.baseline = None
        if state == "nodriver":
            return
        drv.init()
        dev = drv.Device(0)
        self.objects["device"] = dev
        if state in ("fake", "gpu"):
            self.baseline = dev.retain_primary_context()
            self.baseline.push()
            self._make_live()
        # Objects of a context that is detached by now ("foreign" and freed at once).
        other = dev.make_context()
        try:
            self._make_owned("other_")
        finally:
            drv.Context.pop()
        other.detach()
        self.objects["detached_context"] = other
        if state == "fake-nocontext":
            # Objects of a live context that is not current when the calls run.
            ctx = dev.make_context()
            try:
                self._make_owned("noncurrent_")
                self._make_live()
            finally:
                drv.Context.pop()
            self.objects["noncurrent_context"] = ctx

    def _make_owned(self, prefix: str) -> None:
        import pycuda.gpuarray as ga

        drv = self.drv
        self.objects[prefix + "alloc"] = drv.mem_alloc(64)
        self.objects[prefix + "array"] = ga.to_gpu(np.arange(8, dtype=np.float32))
        self.objects[prefix + "stream"] = drv.Stream()
        self.objects[prefix + "event"] = drv.Event()

    def _make_live(self) -> None:
        import pycuda.curandom as curandom
        import pycuda.gpuarray as ga
        import pycuda.tools as tools
        from pycuda.compiler import SourceModule
        from pycuda.elementwise import ElementwiseKernel
        from pycuda.reduction import ReductionKernel
        from pycuda.scan import InclusiveScanKernel

        drv = self.drv
        o = self.objects
        o["context"] = drv.Context.get_current()
        for dtype in (np.float32, np.int32, np.complex64, np.bool_, np.uint8, np.float64):
            o[f"array_{np.dtype(dtype).name}"] = ga.to_gpu(np.arange(6).astype(dtype))
        o["array_2d"] = ga.to_gpu(np.arange(12, dtype=np.float32).reshape(3, 4))
        o["array_view"] = o["array_2d"][:, ::2]  # not contiguous
        o["array_T"] = o["array_2d"].T
        o["array_empty"] = ga.empty((0,), np.float32)
        o["array_empty_2d"] = ga.empty((3, 0), np.float64)
        o["array_0d"] = ga.to_gpu(np.float32(3.0))
        freed = ga.to_gpu(np.ones(4, np.float32))
        freed.gpudata.free()
        o["array_freed"] = freed
        alloc = drv.mem_alloc(256)
        o["alloc"] = alloc
        dead = drv.mem_alloc(16)
        dead.free()
        o["alloc_freed"] = dead
        o["pool"] = tools.DeviceMemoryPool()
        o["pooled"] = o["pool"].allocate(64)
        o["host_pool"] = tools.PageLockedMemoryPool()
        o["pagelocked"] = drv.pagelocked_empty((8,), np.float32)
        o["stream"] = drv.Stream()
        o["event"] = drv.Event()
        o["module"] = mod = SourceModule(
            # (writes only for n == 12345: launched with fuzzed sizes, it stays in bounds)
            "__global__ void k(float *x, int n) { if (n == 12345 && !threadIdx.x) *x = n; }\n"
            "texture<float, 1> tex;\n"
            "__device__ float g[4];"
        )
        o["function"] = mod.get_function("k")
        o["texref"] = mod.get_texref("tex")
        o["elementwise"] = ElementwiseKernel("float *x, float a", "x[i] = a * x[i]", "scale")
        o["reduction"] = ReductionKernel(np.float32, "0", "a+b", "x[i]", "float *x")
        o["scan"] = InclusiveScanKernel(np.int32, "a+b")
        o["cuda_array"] = drv.np_to_array(np.ones((4, 4), np.float32), "C")
        o["texture_object"] = drv.TextureObject.from_array(o["cuda_array"])
        if self.state != "gpu" or _has_curand():
            o["rng"] = curandom.XORWOWRandomNumberGenerator()

    def values(self) -> list[Any]:
        """The real objects, and instances kept from calls that made them."""
        kept = [v for vs in self.instances.values() for v in vs]
        return list(self.objects.values()) + kept

    def keep(self, value: Any) -> None:
        """Keep (a few of) what a call returned, as arguments and as `self` of methods. Not on
        a GPU: an array made by a fuzzed call may claim more memory than it has (GPUArray(n,
        gpudata=small)), and kernels on it would write past the end."""
        if value is None or not _ours(type(value)) or isinstance(value, (enum.Enum, type)):
            return
        if self.state == "gpu":
            return
        kept = self.instances.setdefault(type(value), [])
        if len(kept) < 3:
            kept.append(value)

    def instances_of(self, cls: type) -> list[Any]:
        return [v for v in self.values() if isinstance(v, cls)]


def _has_curand() -> bool:
    try:
        import pycuda.curandom as curandom

        return curandom.get_curand_version() is not None
    except Exception:
        return False


class Opaque:
    """An object of no kind pycuda knows."""

    def __repr__(self) -> str:
        return "Opaque()"


class BadInterface:
    """Claims __cuda_array_interface__ and __dlpack__, with nonsense in them."""

    __cuda_array_interface__ = {"shape": (-1,), "typestr": "<f4", "data": (1, False), "version": 3}

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return object()

    def __dlpack_device__(self) -> Any:
        return (2, 0)

    def __repr__(self) -> str:
        return "BadInterface()"


class Raising:
    """Raises from __int__, __index__, __len__, __iter__ and __float__."""

    def _boom(self, *args: Any) -> Any:
        raise ValueError("Raising: deliberately")

    __int__ = __index__ = __len__ = __iter__ = __float__ = __getitem__ = _boom

    def __repr__(self) -> str:
        return "Raising()"


def _noncontiguous() -> np.ndarray:
    return np.arange(24, dtype=np.float32).reshape(4, 6)[:, ::2]


PLAIN_VALUES: list[Any] = [
    None, True, 0, 1, -1, 2, 3, 7, 64, 1024, 2**40, 2**48 + 1, 2**63 - 1, 2**63, -(2**63),
    -(2**31), 2**64, 10**30, -(10**30), 0.0, -0.0, 1.5, -2.5, 1e308, float("nan"), float("inf"),
    float("-inf"), 1j, "", "x", "float *x", "a+b", "0", "x[i] = 1", "\x00", "a\x00b",
    "float", "int *x, float a", "sm_90", "-O3", "C", "F", b"", b"\x00\x01", bytearray(4),
    (), (0,), (1,), (3, 4), (-1,), (2**40, 2**40), (2**63,), (1.5,), ("a",), [], [1, 2], [None],
    {}, {"a": 1}, set(), Opaque(), BadInterface(), Raising(), object, int, float, np.float32,
    np.dtype(np.float32), np.dtype(np.int8), np.dtype(np.complex128), np.dtype(object),
    np.dtype("U3"), np.dtype("S2"), np.dtype("V8"), np.dtype([("a", "f4"), ("b", "i8")]),
    np.dtype("M8[s]"), np.float32(2), np.int32(-5), np.uint8(200), np.float64(np.nan),
    np.complex64(1 + 2j), np.bool_(True), np.int64(2**62), np.float16(1),
    np.zeros(0, np.float32), np.zeros((3, 0)), np.arange(6, dtype=np.float32),
    np.arange(6).reshape(2, 3), np.array([object(), 1], dtype=object), np.array(["ab", "cd"]),
    np.array(3.0), np.ones((2, 2), np.complex64), np.ones(4, np.float16), _noncontiguous(),
    np.arange(8, dtype=np.int32)[::-1], range(3), slice(None, None, -1), Ellipsis,
    lambda *a, **k: None, print, ValueError("an exception object"), memoryview(b"abcd"),
]  # fmt: skip

# On a real GPU, entry points that launch kernels on addresses they are given: an int taken
# as an address there makes the kernel fault, which ends the context for the rest of the run
# (a fault from a bad address is the caller's, as in CUDA C). They get no ints (nor objects
# made by other calls, which may sit at such an address) on the GPU; the fake driver, whose
# kernels do nothing, fuzzes them with everything.
GPU_LAUNCHERS = re.compile(
    r"Function\.(__call__|prepared_\w*call)$|(ElementwiseKernel|ReductionKernel|ScanKernel)"
    r"\.__call__$|gpuarray\.GPUArray$"
)


FOREIGN = ("other_", "noncurrent_", "array_freed")


def _no_ints(value: Any) -> bool:
    return not isinstance(value, (int, np.integer)) or isinstance(value, bool)


def value_pools(samples: Samples, launch_safe: bool) -> tuple[list[Any], list[Any]]:
    """(plain values, real objects) that arguments are drawn from."""
    plain = [v for v in PLAIN_VALUES if not launch_safe or _no_ints(v)]
    # (Nor memory of another context: a kernel touching it faults as well.)
    pool = samples.values()
    if launch_safe:
        pool = [v for k, v in samples.objects.items() if not k.startswith(FOREIGN)]
    return plain, pool or [None]


def value_strategy(plain: list[Any], pool: list[Any], launch_safe: bool) -> st.SearchStrategy:
    # Counts from 10**6 to 2**40 are valid sizes that take seconds and gigabytes to fill on the
    # host (arange builds its values with NumPy): left out; larger ones fail at once.
    ints = st.integers(min_value=-(2**70), max_value=10**5) | st.integers(2**40, 2**70)
    return st.one_of(
        st.sampled_from(plain),
        st.sampled_from(pool),  # (a snapshot: see Runner.fuzz)
        st.nothing() if launch_safe else ints,
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=6),
        st.tuples(st.integers(-3, 70)).map(tuple) | st.lists(st.integers(-2, 9), max_size=4),
    )


def random_value(rng: random.Random, plain: list[Any], pool: list[Any], launch_safe: bool) -> Any:
    """What value_strategy draws, made by ``rng`` (the burst calls: see Runner.fuzz)."""
    kind = rng.randrange(6)
    if kind == 0:
        return rng.choice(plain)
    if kind == 1:
        return rng.choice(pool)
    if kind == 2 and not launch_safe:
        return rng.choice([rng.randint(-(2**70), 10**5), rng.randint(2**40, 2**70)])
    if kind == 3:
        return rng.choice([rng.uniform(-1e300, 1e300), rng.uniform(-10, 10), float("nan")])
    if kind == 4:
        return "".join(rng.choice("ab\x00 *,;[]()+-=x0\u00e9") for _ in range(rng.randrange(7)))
    return tuple(rng.randint(-2, 70) for _ in range(rng.randrange(4)))


# }}}

# {{{ running the calls

# CUresults after which a context is unusable (a kernel faulted): 700 illegal address, 710
# assert, 714 misaligned address, 715 illegal instruction, 716 invalid pc, 719 launch failed.
STICKY = {700, 710, 714, 715, 716, 719}


class Faulted(Exception):
    """A fuzzed call made a kernel fault; the run stops there (reported as a failure)."""


class Runner:
    def __init__(self, state: str, log_path: str, timeout: float, burst: int) -> None:
        self.state = state
        self.burst = burst
        self.samples = Samples(state)
        import pycuda.driver as drv

        self.drv = drv
        self.allowed = tuple(_resolve(n) for n in ALLOWED_NAMES)
        self.log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        self.timeout = timeout
        self.calls = 0
        self.outcomes: Counter[str] = Counter()
        self.failures: dict[tuple[str, str], dict[str, str]] = {}
        self.unclear: dict[tuple[str, str], dict[str, str]] = {}

    def restore_contexts(self) -> None:
        """Put the context stack back as it was, [baseline] or empty: a fuzzed push or
        make_context must not change what the next call runs in (nor grow the stack)."""
        drv = self.drv
        if self.state == "nodriver":
            return
        for _ in range(100_000):
            if drv.Context.get_current() is None:
                break
            drv.Context.pop()
        if self.samples.baseline is not None:
            self.samples.baseline.push()

    def call(self, qual: str, func: Any, args: tuple, kwargs: dict) -> None:
        text = f"{qual}(*{_short(args)}, **{_short(kwargs)})"
        os.write(self.log, (text + "\n").encode("utf-8", "replace"))
        faulthandler.dump_traceback_later(self.timeout, exit=True)
        self.calls += 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = func(*args, **kwargs)
        except self.allowed as exc:
            self.outcomes[type(exc).__name__] += 1
            if getattr(exc, "code", None) in STICKY:
                # A kernel faulted on what a call was given: the context is gone for the rest.
                self.failures.setdefault(
                    (qual, "fault"), {"call": text, "error": "kernel fault: " + _describe(exc)}
                )
                raise Faulted from exc
            message = str(exc).strip()
            if not message:
                self.failures.setdefault(
                    (qual, type(exc).__name__),
                    {"call": text, "error": f"{type(exc).__name__} without a message"},
                )
            elif UNCLEAR.search(message) and not ARITY.search(message):
                self.unclear.setdefault(
                    (qual, message[:60]), {"call": text, "error": _describe(exc)}
                )
        except Exception as exc:  # not documented: a failure
            self.outcomes[type(exc).__name__] += 1
            self.failures.setdefault(
                (qual, type(exc).__name__), {"call": text, "error": _describe(exc)}
            )
        else:
            self.outcomes["returned"] += 1
            self.samples.keep(result)
        finally:
            faulthandler.cancel_dump_traceback_later()
            self.restore_contexts()

    def fuzz_for(
        self,
        qual: str,
        owner: Any,
        method: str | None,
        examples: int,
        seed_value: int,
        seconds: float,
    ) -> None:
        """``examples`` calls of the entry point, in rounds, until they are made or ``seconds``
        have passed (an entry point that compiles a kernel per call gets fewer)."""
        deadline = time.monotonic() + seconds
        done, round_ = 0, 0
        while done < examples and (round_ == 0 or time.monotonic() < deadline):
            chunk = min(examples - done, 50)
            self.fuzz(qual, owner, method, chunk, seed_value * 1000 + round_)
            done += chunk
            round_ += 1

    def fuzz(
        self, qual: str, owner: Any, method: str | None, examples: int, seed_value: int
    ) -> None:
        func = owner if method is None else getattr(owner, method)
        required, total, keywords = arity(func)
        # Taken now: what calls return joins the pool for later entry points only, so that
        # hypothesis sees the same choices on every example.
        launch_safe = self.state == "gpu" and GPU_LAUNCHERS.search(qual) is not None
        plain, pool = value_pools(self.samples, launch_safe)
        values = value_strategy(plain, pool, launch_safe)
        selves = [] if method is None else self.samples.instances_of(owner)
        if method is not None and not selves:
            return

        @seed(seed_value)
        @settings(
            max_examples=examples,
            deadline=None,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(st.data())
        def run(data: st.DataObject) -> None:
            if method is None:
                target = func
            else:
                target = getattr(data.draw(st.sampled_from(selves), label="self"), method)
            count = data.draw(
                st.one_of(st.just(required), st.integers(required, max(total, required)))
                | st.integers(0, total + 2),
                label="count",
            )
            args = tuple(data.draw(values, label=f"arg{i}") for i in range(count))
            kwargs = {}
            if keywords and data.draw(st.integers(0, 3), label="kw?") == 0:
                name = data.draw(st.sampled_from(keywords + ["bogus_keyword"]), label="kw")
                kwargs[name] = data.draw(values, label="kwvalue")
            self.call(qual, target, args, kwargs)
            # A burst of calls more from a generator hypothesis seeds: drawing every value
            # through hypothesis costs ~0.4 ms, ten times a typical call.
            rng = data.draw(st.randoms(use_true_random=False), label="burst")
            for _ in range(self.burst):
                n = rng.choice([count, required, rng.randint(0, total + 2)])
                more = tuple(random_value(rng, plain, pool, launch_safe) for _ in range(n))
                self.call(qual, target, more, {})

        run()

    def report(self, targets: int, seconds: float) -> dict[str, Any]:
        return {
            "state": self.state,
            "targets": targets,
            "calls": self.calls,
            "seconds": round(seconds, 1),
            "outcomes": dict(self.outcomes),
            "failures": [v for k, v in self.failures.items() if not _known(k, v)],
            "known": [v for k, v in self.failures.items() if _known(k, v)],
            "unclear": list(self.unclear.values()),
            "excluded": EXCLUDED,
        }


def _known(key: tuple[str, str], failure: dict[str, str]) -> bool:
    if key in KNOWN_FAILURES:
        return True
    site = re.search(r"\(at ([^:]+):\d+\)$", failure["error"])
    return site is not None and (site.group(1), key[1]) in KNOWN_SITES


def _resolve(name: str) -> type:
    if "." not in name:
        return getattr(__import__("builtins"), name)
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # a repr that fails is itself fuzzed input
        text = f"<repr failed: {type(exc).__name__}>"
    return text if len(text) < 300 else text[:300] + "..."


def _describe(exc: BaseException) -> str:
    tb = exc.__traceback__
    where = ""
    while tb is not None:
        where = f"{tb.tb_frame.f_code.co_filename.rsplit('/', 2)[-1]}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{type(exc).__module__}.{type(exc).__name__}: {str(exc)[:300]} (at {where})"


def never_start_nvcc() -> None:
    """Never start nvcc in this process: the options it would get are fuzzed, and nvcc options
    can write files (-o) or run programs (--run); each run also costs seconds. NVRTC still
    compiles; what needs nvcc fails as it does where nvcc is not installed. (pycuda._nvcc is
    where every nvcc run looks the compiler up.)"""
    from pycuda import _nvcc

    _nvcc.find_nvcc = lambda nvcc: None
    os.environ["PATH"] = tempfile.mkdtemp(prefix="fuzz-empty-path-")  # (nothing to run)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--state", choices=["nodriver", "fake", "fake-nocontext", "gpu"])
    parser.add_argument("--examples", type=int, default=5, help="examples per entry point")
    parser.add_argument("--burst", type=int, default=7, help="calls more per example")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", default="", help="fuzz only names containing this")
    parser.add_argument("--out", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds a call may take")
    parser.add_argument("--budget", type=float, default=0.0, help="seconds for the run (0: none)")
    opts = parser.parse_args()
    faulthandler.enable()
    never_start_nvcc()
    start = time.monotonic()
    runner = Runner(opts.state, opts.log, opts.timeout, opts.burst)
    # A host that overcommits memory (GPU machines often do) grants a drawn size of 10^13
    # bytes, and the fill that follows runs until the kernel kills the process. Bounded here
    # (once the driver has made its context), such a request fails at once with NumPy's or
    # pycuda's MemoryError, as on a host that refuses it.
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    limit = 32 << 30
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    targets = [t for t in public_targets() if opts.only in t[0]]
    try:
        for i, (qual, owner, method) in enumerate(targets):
            left = opts.budget - (time.monotonic() - start) if opts.budget else 1e9
            share = left / (len(targets) - i)
            runner.fuzz_for(qual, owner, method, opts.examples, opts.seed, share)
    except Faulted:
        pass  # reported among the failures
    report = runner.report(len(targets), time.monotonic() - start)
    with open(opts.out, "w") as f:
        json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
