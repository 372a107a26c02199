"""pycuda.driver: devices, contexts, memory, streams, events, modules and kernel launches.

import pycuda.driver as drv
drv.init()
ctx = drv.Device(0).make_context()
buf = drv.mem_alloc(1024)
ctx.pop()
"""

from __future__ import annotations

import atexit
import os

from pycuda import _cuda_paths, _driver
from pycuda._arg_handlers import ArgumentHandler, In, InOut, Out  # noqa: F401

# The original bound the cuRAND host calls into its extension, so they are driver names too.
from pycuda._curand_host import (  # noqa: F401
    _get_direction_vectors,
    _get_scramble_constants32,
    _get_scramble_constants64,
    direction_vector_set,
    get_curand_version,
)
from pycuda._device_memory import *  # noqa: F401
from pycuda._driver import *  # noqa: F401 - the extension's names are this module's API
from pycuda._driver import Error, ManagedAllocation
from pycuda._enums import *  # noqa: F401
from pycuda._host_memory import *  # noqa: F401
from pycuda._textures import *  # noqa: F401

# NVIDIA's pip packages and conda are searched for NVRTC and cuRAND before the system's toolkit;
# only Python knows where packages live (a few stat calls).
_cuda_paths.tell_core()


class CompileError(Error):
    """A kernel failed to compile; ``str()`` shows the compiler's log.

    Attributes: ``msg``, ``command_line``, ``stdout``, ``stderr``.
    """

    def __init__(
        self,
        msg: str,
        command_line: str | list[str] | None = None,
        stdout: str | None = None,
        stderr: str | None = None,
    ) -> None:
        super().__init__(msg)
        self.msg = msg
        self.command_line = command_line
        self.stdout = stdout
        self.stderr = stderr

    def __str__(self) -> str:
        text = self.msg
        if self.command_line:
            cmd = self.command_line
            text += f"\n[command: {cmd if isinstance(cmd, str) else ' '.join(cmd)}]"
        if self.stdout:
            text += f"\n[stdout:\n{self.stdout}]"
        if self.stderr:
            text += f"\n[stderr:\n{self.stderr}]"
        return text


# The original's name for ManagedAllocation, which it fell back from on builds without managed
# memory; clients test `isinstance(ary.base, ManagedAllocationOrStub)`.
ManagedAllocationOrStub = ManagedAllocation

CUDA_DEBUGGING = False


def have_gl_ext() -> bool:
    """Whether OpenGL interoperability (pycuda.gl) was built in: it is not, in this build."""
    return False


def set_debugging(flag: bool = True) -> None:
    """Make SourceModule compile with ``-g -G``, keep its files and skip the cache."""
    global CUDA_DEBUGGING
    CUDA_DEBUGGING = flag


if os.environ.get("CUDA_DEBUGGING"):
    set_debugging()

# Kernel calls cache the classes of their arguments (GPUArray among them); released while the
# interpreter still runs, those classes and what they hold are freed in order at exit.
atexit.register(_driver._forget_argument_types)
