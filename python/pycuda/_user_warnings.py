"""pycuda._user_warnings: warnings attributed to the user's line, not to pycuda's internals.

A fixed ``stacklevel`` is right for one call path only (SourceModule, compile,
ElementwiseKernel, a GPUArray method... each reaches the compiler through a different number of
pycuda frames), so the level is found by walking out of the package.

    warn_user("pycuda compile cache: ...")   # points at the caller's code
"""

from __future__ import annotations

import sys
import warnings


class ToolkitSettingWarning(UserWarning):
    """``$CUDA_HOME``, ``$CUDA_PATH`` or ``$CUDA_ROOT`` names no usable CUDA toolkit (no such
    folder, or no NVRTC or CUDA headers in it): pycuda ignored it and found CUDA elsewhere, as
    the original PyCUDA, which did not read these variables to compile, would have. Warned once
    per process, at the first compile.

        warnings.simplefilter("ignore", pycuda.compiler.ToolkitSettingWarning)
    """


class ArgumentConversionWarning(UserWarning):
    """A kernel argument was converted to its parameter's type with a loss: a NumPy scalar of
    another size than the parameter the driver reports, whose value the parameter cannot hold
    (``numpy.float64(0.1)`` for a ``float``, ``numpy.int64(2**40)`` for an ``int``), was
    converted as C converts it, so the kernel reads another number than the one given. The
    original PyCUDA passed the scalar's own bytes (docs/migrating.md, "Arguments the original
    reinterprets"). Raised from the launch path (bindings/arg_packer.cpp).

        warnings.simplefilter("error", ArgumentConversionWarning)  # refuse such calls
    """


def _in_pycuda(frame: object) -> bool:
    name = frame.f_globals.get("__name__", "")  # type: ignore[attr-defined]
    return name == "pycuda" or name.startswith("pycuda.")


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a ``warnings.warn`` called in this function's caller point
    at the first frame outside the pycuda package (the outermost frame when all are inside)."""
    frame = sys._getframe(1)  # the caller, which will call warnings.warn: level 1
    level = 1
    while frame.f_back is not None and _in_pycuda(frame):
        frame = frame.f_back
        level += 1
    return level


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the user's line."""
    # user_stacklevel() counts from this frame, where warnings.warn is called.
    warnings.warn(message, category, stacklevel=user_stacklevel())


def warn_compiler_output(text: str | None) -> None:
    """The compiler succeeded but printed something (ptxas -v, a warning): the user sees it.
    None (no output captured) is nothing to show."""
    if text is None:
        return
    if not isinstance(text, str):
        raise TypeError(f"compiler output must be a str or None, got {type(text).__name__}")
    text = text.strip()
    if not text:
        return
    warn_user("The CUDA compiler succeeded, but said the following:\n" + text)
    if "demoted" in text:
        warn_user(
            "This means that the kernel used more local memory than expected "
            "(e.g. a double demoted to float, or spilled registers)."
        )
