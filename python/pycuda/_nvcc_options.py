"""pycuda._nvcc_options: nvcc command-line options translated to NVRTC's (for pycuda.compiler),
and those refused because they would decide where nvcc writes or what it runs.

plan = translate_options(["-Xptxas", "-v", "-I", "inc", "-DN=4"])
plan.options == ["--ptxas-options=-v", "-DN=4"]; plan.include_dirs == ["inc"]
refuse_output_options(["-o", "/etc/passwd"])  # ValueError
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class NvrtcPlan:
    """nvcc options translated for NVRTC."""

    options: list[str] = field(default_factory=list)  # NVRTC options, -arch excluded
    include_dirs: list[str] = field(default_factory=list)
    arch: str | None = None
    code: str | None = None
    keep: bool = False


class NvccOnly(Exception):
    """An option that NVRTC has no equivalent for (the message names it)."""


# Flags passed through unchanged, with their nvcc spellings.
_SAME_FLAGS = {
    "-lineinfo": "-lineinfo",
    "--generate-line-info": "-lineinfo",
    "-G": "-G",
    "--device-debug": "-G",
    "-use_fast_math": "--use_fast_math",
    "--use_fast_math": "--use_fast_math",
    "-dc": "-dc",
    "--device-c": "-dc",
    "-w": "-w",
    "--disable-warnings": "-w",
    "-restrict": "-restrict",
    "--restrict": "-restrict",
    "--extra-device-vectorization": "--extra-device-vectorization",
    "-extra-device-vectorization": "--extra-device-vectorization",
    "--resource-usage": "--ptxas-options=-v",
    "-res-usage": "--ptxas-options=-v",
}
# Flags with no meaning for device code under NVRTC.
_IGNORED_FLAGS = {"-g", "--debug", "-m64", "--machine=64", "-keep", "--keep", "-lcudadevrt"}
# Options taking a value, "=value" or as the next word: nvcc spellings -> handler name.
_VALUED = {
    "-arch": "arch",
    "--gpu-architecture": "arch",
    "-code": "code",
    "--gpu-code": "code",
    "-I": "include",
    "--include-path": "include",
    "-D": "define",
    "--define-macro": "define",
    "-U": "undefine",
    "--undefine-macro": "undefine",
    "-std": "std",
    "--std": "std",
    "-rdc": "rdc",
    "--relocatable-device-code": "rdc",
    "-maxrregcount": "maxrregcount",
    "--maxrregcount": "maxrregcount",
    "-Xptxas": "ptxas",
    "--ptxas-options": "ptxas",
    "-Xcompiler": "ignore",
    "--compiler-options": "ignore",
    "-ccbin": "ignore",
    "--compiler-bindir": "ignore",
    "-ftz": "bool:-ftz",
    "--ftz": "bool:-ftz",
    "-prec-div": "bool:-prec-div",
    "--prec-div": "bool:-prec-div",
    "-prec-sqrt": "bool:-prec-sqrt",
    "--prec-sqrt": "bool:-prec-sqrt",
    "-fmad": "bool:-fmad",
    "--fmad": "bool:-fmad",
    "-dopt": "dopt",
    "--dopt": "dopt",
    "-include": "preinclude",
    "--pre-include": "preinclude",
}
# Short options that may be glued to their value: -Idir, -DX=1, -UX.
_GLUED = {"-I": "include", "-D": "define", "-U": "undefine"}
_OPT_LEVEL = re.compile(r"^-O([0-3])$")


def translate_options(
    options: Sequence[str], arch: str | None = None, code: str | None = None
) -> NvrtcPlan:
    """Translate nvcc options for NVRTC.

    Raises ``NvccOnly`` (whose message names the option) when one has no NVRTC equivalent.
    ``arch``/``code`` given here win over ``-arch``/``-code`` found in ``options``.
    """
    plan = NvrtcPlan()
    i = 0
    while i < len(options):
        opt = options[i]
        i += 1
        if opt in _SAME_FLAGS:
            plan.options.append(_SAME_FLAGS[opt])
            continue
        if opt in _IGNORED_FLAGS or opt.startswith("-l") or opt.startswith("-L"):
            plan.keep = plan.keep or opt in ("-keep", "--keep")
            continue
        m = _OPT_LEVEL.match(opt)
        if m:
            plan.options.append(f"--ptxas-options=-O{m.group(1)}")
            continue
        name, eq, value = opt.partition("=")
        kind = _VALUED.get(name)
        if kind is None:
            for prefix, glued_kind in _GLUED.items():
                if opt.startswith(prefix) and len(opt) > len(prefix):
                    kind, value, eq = glued_kind, opt[len(prefix) :], "="
                    break
        if kind is None:
            raise NvccOnly(opt)
        if not eq:
            if i >= len(options):
                raise ValueError(f"nvcc option {opt} needs a value")
            value = options[i]
            i += 1
        _apply_valued(plan, kind, opt, value)
    if arch is not None:
        plan.arch = arch
    if code is not None:
        plan.code = code
    return plan


def _apply_valued(plan: NvrtcPlan, kind: str, opt: str, value: str) -> None:
    if kind == "arch":
        plan.arch = value
    elif kind == "code":
        plan.code = value
    elif kind == "include":
        plan.include_dirs.append(value)
    elif kind == "define":
        plan.options.append("-D" + value)
    elif kind == "undefine":
        plan.options.append("-U" + value)
    elif kind == "std":
        plan.options.append("-std=" + value)
    elif kind == "rdc":
        plan.options.append("-rdc=" + value)
    elif kind == "maxrregcount":
        plan.options.append("--maxrregcount=" + value)
    elif kind == "ptxas":
        # nvcc splits -Xptxas values at commas; NVRTC takes one ptxas option per flag.
        plan.options.extend("--ptxas-options=" + v for v in value.split(",") if v)
    elif kind == "dopt":
        plan.options.append("-dopt=" + value)
    elif kind == "preinclude":
        plan.options.append("--pre-include=" + value)
    elif kind.startswith("bool:"):
        plan.options.append(f"{kind[5:]}={value}")
    # "ignore": host compiler options do not reach device code.


def nvcc_only_reason(options: Sequence[str]) -> str | None:
    """None when NVRTC can take these nvcc options, else the option it cannot."""
    try:
        translate_options(options)
    except NvccOnly as exc:
        return str(exc)
    return None


def include_dirs_in(options: Sequence[str]) -> list[str]:
    """The directories named by -I/--include-path options."""
    dirs = []
    for i, opt in enumerate(options):
        if opt in ("-I", "--include-path") and i + 1 < len(options):
            dirs.append(options[i + 1])
        elif opt.startswith("--include-path="):
            dirs.append(opt.split("=", 1)[1])
        elif opt.startswith("-I") and len(opt) > 2:
            dirs.append(opt[2:])
    return dirs


# pycuda runs nvcc in a temporary directory and reads the result back from there, so options
# that send output elsewhere, run programs or hide options in a file are refused: spelling ->
# what it would do.
_REFUSED = {
    "-o": "choose the output file",
    "--output-file": "choose the output file",
    "-odir": "choose the output directory",
    "--output-directory": "choose the output directory",
    "-keep-dir": "choose where kept files go (pass keep=True to keep them)",
    "--keep-dir": "choose where kept files go (pass keep=True to keep them)",
    "-MF": "write a dependency file",
    "--dependency-output": "write a dependency file",
    "-time": "write a timing file",
    "--time": "write a timing file",
    "-fdevice-time-trace": "write a trace file",
    "--fdevice-time-trace": "write a trace file",
    "-run": "run the output as a program",
    "--run": "run the output as a program",
    "-run-args": "pass arguments to a program run with --run",
    "--run-args": "pass arguments to a program run with --run",
    "-optf": "read further options from a file, unchecked",
    "--options-file": "read further options from a file, unchecked",
    "-clean": "delete the output instead of making it",
    "--clean-targets": "delete the output instead of making it",
}


def refuse_output_options(options: Sequence[str]) -> None:
    """ValueError naming the first option that would choose where nvcc writes, run a program
    or read options from a file. (A value of an option, as in ``-D -o``, is not one.)"""
    i = 0
    while i < len(options):
        opt = options[i]
        name, eq, _ = opt.partition("=")
        why = _REFUSED.get(name)
        if why is not None:
            raise ValueError(
                f"nvcc option {opt!r} is not allowed: it would {why}. pycuda compiles in a "
                "directory of its own and returns the binary; write it where you want it from "
                "there"
            )
        # The next word is this option's value, not an option.
        i += 2 if name in _VALUED and not eq else 1
