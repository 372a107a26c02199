"""pycuda._texref_rewrite: CUDA 11 texture and surface references, made to compile on CUDA 12+.

CUDA 12 removed texture and surface references from the language; ``pycuda.compiler`` passes
every source through ``rewrite_texture_includes`` so the original's kernels keep compiling.
The declarations become ``__device__`` variables of the templates in
``pycuda/cuda/pycuda-texref.hpp``, which hold a texture (surface) object that
``Module.get_texref``/``get_surfref`` bind.

    rewrite_texture_references("texture<float, 2> tex;")
    # '#include <pycuda-texref.hpp>\n__device__ texture<float, 2> tex;'

Declarations in files the source includes with ``#include "name"`` are rewritten too: those
files (and the files on the way to them) are inlined into the source, rewritten, between
``#line`` directives that keep the compiler's messages pointing at the files themselves.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_HEADER = "#include <pycuda-texref.hpp>\n"
# The name compiler.py gives the main source, for both NVRTC and nvcc.
MAIN_NAME = "kernel.cu"
# As the C preprocessor's own limit (GCC's is 200): deeper nesting is a runaway inclusion.
_MAX_DEPTH = 200
_QUOTED_INCLUDE = re.compile(r'#[ \t]*include[ \t]*"([^"\n]+)"')
_PRAGMA_ONCE = re.compile(r"#[ \t]*pragma[ \t]+once\b")
# A cheap over-approximation of a file's quoted includes (commented ones too), to decide which
# files need inlining without scanning every header character by character.
_RAW_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_RAW_PRAGMA_ONCE = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+once\b", re.MULTILINE)


def _skip_literal(source: str, i: int) -> int:
    """The index after the string or character literal that starts at ``source[i]``."""
    quote, n = source[i], len(source)
    i += 1
    while i < n and source[i] != quote and source[i] != "\n":
        i += 2 if source[i] == "\\" else 1
    return i + 1


def _directive_end(source: str, i: int) -> int:
    """The index of the newline that ends the directive starting at ``source[i]``: after its
    continuation lines, and after a block comment that starts in it (the preprocessor removes
    comments before it reads directives)."""
    n = len(source)
    while i < n and source[i] != "\n":
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 2 if source[i] == "\\" else 1
        elif source[i] == '"':
            i = _skip_literal(source, i)
        else:
            i += 2 if source[i] == "\\" else 1
    return min(i, n)


@dataclass
class _Scan:
    """Where a text needs changing: offsets where ``__device__ `` goes, and its directives that
    matter here as (start, end, quoted include name or None for ``#pragma once``)."""

    device_at: list[int] = field(default_factory=list)
    directives: list[tuple[int, int, str | None]] = field(default_factory=list)


def _scan(source: str) -> _Scan:
    """Find the texture and surface reference declarations and the quoted includes.

    A declaration is ``texture<`` or ``surface<`` that starts a statement (also after
    ``static``); comments, strings, preprocessor lines and other uses (typedefs, function
    parameters) do not count.
    """
    found = _Scan()
    i, n = 0, len(source)
    previous = ";"  # the last significant token; the start of the file begins a statement
    line_start = True  # only whitespace since the last newline: a '#' begins a directive
    while i < n:
        c = source[i]
        if c == "#" and line_start:
            end = _directive_end(source, i)
            text = source[i:end]
            include = _QUOTED_INCLUDE.match(text)
            if include:
                found.directives.append((i, end, include.group(1).strip()))
            elif _PRAGMA_ONCE.match(text):
                found.directives.append((i, end, None))
            previous, i = "#", end  # a directive ends what came before
            continue
        if source.startswith("//", i):
            while i < n and source[i] != "\n":
                i += 2 if source[i] == "\\" else 1
            continue
        line_start = c == "\n" or (line_start and c.isspace())
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            i = n if end < 0 else end + 2
        elif c in "\"'":
            i, previous = _skip_literal(source, i), '"'
        elif c.isalpha() or c == "_":
            start = i
            while i < n and (source[i].isalnum() or source[i] == "_"):
                i += 1
            word = source[start:i]
            if word in ("texture", "surface") and previous in (";", "{", "}", "#", "static"):
                after = i
                while after < n and source[after].isspace():
                    after += 1
                if source.startswith("<", after):
                    found.device_at.append(start)
            previous = word
        else:
            if not c.isspace():
                previous = c
            i += 1
    return found


def _declares_references(source: str) -> bool:
    return ("texture" in source or "surface" in source) and bool(_scan(source).device_at)


def rewrite_texture_references(source: str) -> str:
    """Make CUDA 11 texture and surface references compile on CUDA 12 and 13.

    Each declaration that starts a statement, ``texture<float, 2> tex;`` or
    ``surface<void, 2> surf;`` (also after ``static``), gets ``__device__`` in front, and
    ``#include <pycuda-texref.hpp>`` is put first: there ``texture``/``surface`` name
    templates holding a texture (surface) object, which ``Module.get_texref``/``get_surfref``
    bind. Comments, strings, preprocessor lines and other uses (typedefs, function parameters)
    are left as they are. A source without such declarations is returned unchanged. Included
    files are not read: ``rewrite_texture_includes`` does that.
    """
    if "texture" not in source and "surface" not in source:
        return source
    at = _scan(source).device_at
    if not at:
        return source
    pieces = [source[a:b] for a, b in zip([0, *at], [*at, len(source)], strict=True)]
    return _HEADER + "__device__ ".join(pieces)


@dataclass
class Rewritten:
    """A source with its texture references, and those of the files it includes, rewritten."""

    source: str
    """The source to compile: ``source`` itself when nothing needed rewriting."""
    stamps: list[tuple[str, int, int]]
    """(path, mtime_ns, size) of each file inlined, and of each directory where an include
    was looked for in vain: the source no longer names them, so the compile cache checks them
    through these."""


@dataclass
class _File:
    text: str
    stamp: tuple[str, int, int]


class _Includes:
    """The files a source reaches through quoted includes, found as the preprocessor finds them:
    next to the including file first, then in the search directories."""

    def __init__(self, search_dirs: Sequence[str]) -> None:
        self.search_dirs = [os.path.abspath(d) for d in search_dirs]
        self.files: dict[str, _File | None] = {}
        self.needs: dict[str, bool] = {}
        # Directories where an include was looked for in vain: a file added there later
        # would be found instead.
        self.misses: set[str] = set()

    def resolve(self, name: str, here: str) -> str | None:
        """The absolute path ``#include "name"`` in a file of directory ``here`` opens."""
        for d in [here, *self.search_dirs]:
            path = os.path.join(d, name)
            if os.path.isfile(path):
                return os.path.normpath(os.path.abspath(path))
            parent = os.path.dirname(os.path.abspath(path))
            while not os.path.isdir(parent) and os.path.dirname(parent) != parent:
                parent = os.path.dirname(parent)
            self.misses.add(parent)
        return None

    def miss_stamps(self) -> list[tuple[str, int, int]]:
        stamps = []
        for d in sorted(self.misses):
            try:
                st = os.stat(d)
            except OSError:
                continue
            stamps.append((d, st.st_mtime_ns, st.st_size))
        return stamps

    def read(self, path: str) -> _File | None:
        if path not in self.files:
            try:
                # Stat first: a change after the read then shows in the stamp as well.
                st = os.stat(path)
                with open(path, "rb") as f:
                    # Bytes that are not UTF-8 sit in comments in practice.
                    text = f.read().decode("utf-8", "replace")
                self.files[path] = _File(text, (path, st.st_mtime_ns, st.st_size))
            except OSError:
                self.files[path] = None
        return self.files[path]

    def once(self, path: str) -> bool:
        """Whether the file says ``#pragma once``."""
        file = self.read(path)
        return file is not None and _RAW_PRAGMA_ONCE.search(file.text) is not None

    def needs_inlining(self, path: str, on_stack: frozenset[str] = frozenset()) -> bool:
        """Whether ``path`` declares references or includes, at any depth, a file that does."""
        if path in self.needs:
            return self.needs[path]
        file = self.read(path)
        if file is None or path in on_stack or len(on_stack) > _MAX_DEPTH:
            return False
        here, inner = os.path.dirname(path), on_stack | {path}
        result = _declares_references(file.text) or any(
            (found := self.resolve(name.strip(), here)) is not None
            and self.needs_inlining(found, inner)
            for name in _RAW_INCLUDE.findall(file.text)
        )
        if not on_stack or result:
            # A False found inside a cycle may be a cut-short answer: do not keep it.
            self.needs[path] = result
        return result


def _line_directive(line: int, name: str) -> str:
    # The file name of #line is a string literal: backslashes and quotes are escaped.
    quoted = name.replace("\\", "\\\\").replace('"', '\\"')
    return f'#line {line} "{quoted}"'


class _Inliner:
    def __init__(self, includes: _Includes) -> None:
        self.includes = includes
        self.inlined: dict[str, tuple[str, int, int]] = {}

    def emit(
        self, text: str, name: str, here: str, first_line: int, stack: tuple[str, ...]
    ) -> tuple[str, bool]:
        """``text`` (the file ``name`` in directory ``here``, whose first line the compiler
        numbers ``first_line``) with its references rewritten and the quoted includes that need
        it inlined, and whether it said ``#pragma once``. In an inlined file the other quoted
        includes that resolve name their file by its absolute path, since the text no longer
        sits next to them."""
        scan = _scan(text)
        once = False
        edits: list[tuple[int, int, str]] = [(at, at, "__device__ ") for at in scan.device_at]
        for start, end, include in scan.directives:
            if include is None:
                once = True
                if stack:  # `#pragma once` of an inlined file: its guard does that job
                    edits.append((start, end, ""))
                continue
            path = self.includes.resolve(include, here)
            if path is None:
                continue
            if path not in stack and len(stack) < _MAX_DEPTH and self.includes.needs_inlining(path):
                next_line = first_line + text.count("\n", 0, end) + 1
                edits.append((start, end, self._inline(path, stack, next_line, name)))
            elif path in stack and self.includes.once(path):
                # Inside its own guard: a `#pragma once` file included again is nothing.
                edits.append((start, end, ""))
            elif stack and '"' not in path and "\n" not in path:
                # Also a file already being inlined: its include guard, defined by now, makes
                # the file itself read as nothing here, as it would have.
                edits.append((start, end, f'#include "{path}"'))
        edits.sort(key=lambda e: e[0])
        out, done = [], 0
        for start, end, replacement in edits:
            out += [text[done:start], replacement]
            done = end
        out.append(text[done:])
        return "".join(out), once

    def _inline(self, path: str, stack: tuple[str, ...], next_line: int, into: str) -> str:
        file = self.includes.read(path)
        assert file is not None  # needs_inlining read it
        self.inlined[path] = file.stamp
        body, once = self.emit(file.text, path, os.path.dirname(path), 1, (*stack, path))
        if not body.endswith("\n"):
            body += "\n"
        block = f"{_line_directive(1, path)}\n{body}"
        if once:
            guard = f"PYCUDA_INLINED_{hashlib.sha256(path.encode()).hexdigest()[:24]}"
            block = f"#ifndef {guard}\n#define {guard}\n{block}#endif\n"
        return block + _line_directive(next_line, into)


def rewrite_texture_includes(
    source: str, search_dirs: Sequence[str], here: str | None = None
) -> Rewritten:
    """``rewrite_texture_references`` over ``source`` and every file it includes.

    A file reached by ``#include "name"`` (next to the including file, the main source's being
    ``here``, default the working directory, then in ``search_dirs``, as the compiler searches)
    that declares a texture or surface reference is inlined, rewritten, in place of its
    ``#include``, and so is each file on the way to it; ``#line`` directives keep line numbers
    and file names in the compiler's messages, and a ``#pragma once`` becomes a guard. Files
    that declare no reference stay ``#include``\\ d, and ``#include <...>`` is left alone.
    """
    includes = _Includes(search_dirs)
    here = os.getcwd() if here is None else here
    names = _RAW_INCLUDE.findall(source) if '"' in source else []
    if not any(
        (path := includes.resolve(name.strip(), here)) is not None and includes.needs_inlining(path)
        for name in names
    ):
        return Rewritten(rewrite_texture_references(source), [])
    inliner = _Inliner(includes)
    # The header takes line 1, so the main source's first line is the compiler's line 2.
    body, _ = inliner.emit(source, MAIN_NAME, here, 2, ())
    return Rewritten(_HEADER + body, [*inliner.inlined.values(), *includes.miss_stamps()])
