"""pycuda._texref_rewrite: CUDA 11 texture and surface references, made to compile on CUDA 12+.

CUDA 12 removed texture and surface references from the language; ``pycuda.compiler`` passes
every source through ``rewrite_texture_references`` so the original's kernels keep compiling.
The declarations become ``__device__`` variables of the templates in
``pycuda/cuda/pycuda-texref.hpp``, which hold a texture (surface) object that
``Module.get_texref``/``get_surfref`` bind.

    rewrite_texture_references("texture<float, 2> tex;")
    # '#include <pycuda-texref.hpp>\n__device__ texture<float, 2> tex;'
"""

from __future__ import annotations


def _skip_literal(source: str, i: int) -> int:
    """The index after the string or character literal that starts at ``source[i]``."""
    quote, n = source[i], len(source)
    i += 1
    while i < n and source[i] != quote and source[i] != "\n":
        i += 2 if source[i] == "\\" else 1
    return i + 1


def rewrite_texture_references(source: str) -> str:
    """Make CUDA 11 texture and surface references compile on CUDA 12 and 13.

    Each declaration that starts a statement, ``texture<float, 2> tex;`` or
    ``surface<void, 2> surf;`` (also after ``static``), gets ``__device__`` in front, and
    ``#include <pycuda-texref.hpp>`` is put first: there ``texture``/``surface`` name
    templates holding a texture (surface) object, which ``Module.get_texref``/``get_surfref``
    bind. Comments, strings, preprocessor lines and other uses (typedefs, function parameters)
    are left as they are. A source without such declarations is returned unchanged.
    """
    if "texture" not in source and "surface" not in source:
        return source
    out: list[str] = []
    i, n, done = 0, len(source), 0
    previous = ";"  # the last significant token; the start of the file begins a statement
    line_start = True  # only whitespace since the last newline: a '#' begins a directive
    while i < n:
        c = source[i]
        if c == "#" and line_start or source.startswith("//", i):
            if c == "#":
                previous = "#"  # a directive, with its continuations, ends what came before
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
                    out.append(source[done:start] + "__device__ ")
                    done = start
            previous = word
        else:
            if not c.isspace():
                previous = c
            i += 1
    if not out:
        return source
    out.append(source[done:])
    return "#include <pycuda-texref.hpp>\n" + "".join(out)
