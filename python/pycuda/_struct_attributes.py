"""pycuda._struct_attributes: attributes written after a typedef'd struct's closing brace,
moved to where NVRTC applies them to the struct, as nvcc does.

    typedef struct s_ { int a; short b; } __align__(32) s;     # as written (reikna does this)
    typedef struct __align__(32) s_ { int a; short b; } s;     # what NVRTC is given

nvcc (whose front end follows GCC) applies an attribute that directly follows a struct's closing
brace to the struct itself, so ``s`` is 32 bytes and ``s *p; p[i]`` steps 32 bytes. NVRTC
applies it to the typedef's name only: ``sizeof(s)`` is 32, but indexing a ``s *`` steps by the
struct's own 16 bytes, so a kernel writing ``p[i]`` fills half of each 32-byte element's worth
of memory and leaves the rest (found with reikna's test_struct on an H200, CUDA 13.0). Written
after the ``struct`` keyword, the attribute belongs to the struct for every compiler.
"""

from __future__ import annotations

import re

# A typedef's struct or union keyword and optional tag, at the end of the text before its '{'.
_HEAD = re.compile(r"\btypedef\s+(struct|union)\b(?:\s+[A-Za-z_]\w*)?\s*$")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# A quick test: a closing brace followed by something called, as an attribute macro is.
_CANDIDATE = re.compile(r"\}\s*[A-Za-z_]\w*\s*\(")


def _balanced(text: str, i: int, open_: str, close: str, step: int) -> int:
    """The index of the bracket matching the one at ``i`` (scanning by ``step``), or -1."""
    depth = 0
    while 0 <= i < len(text):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
        i += step
    return -1


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _attributes_after(text: str, brace: int) -> tuple[str, int] | None:
    """``(attributes, end)`` where ``text[brace]`` is a '}' followed by attribute calls
    (``__align__(32)``, ``__attribute__((aligned(8)))``, a macro such as ``ALIGN(4)``), then a
    name and ';' (a typedef's declarator); ``end`` is where the name starts. None otherwise."""
    i = _skip_space(text, brace + 1)
    calls = []
    while True:
        name = _IDENTIFIER.match(text, i)
        if not name:
            break
        after = _skip_space(text, name.end())
        if after >= len(text) or text[after] != "(":
            break
        close = _balanced(text, after, "(", ")", 1)
        if close < 0:
            return None
        calls.append(text[i : close + 1])
        i = _skip_space(text, close + 1)
    declarator = _IDENTIFIER.match(text, i)
    if not calls or not declarator:
        return None
    if text[_skip_space(text, declarator.end()) : _skip_space(text, declarator.end()) + 1] != ";":
        return None
    return " ".join(calls), i


def hoist_struct_attributes(source: str) -> str:
    """``source`` with each ``typedef struct [tag] { ... } ATTRS name;`` written as
    ``typedef struct ATTRS [tag] { ... } name;`` (see the module's docstring)."""
    if not _CANDIDATE.search(source):
        return source
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), in source order
    for match in _CANDIDATE.finditer(source):
        brace = match.start()
        found = _attributes_after(source, brace)
        if found is None:
            continue
        attributes, name_start = found
        open_brace = _balanced(source, brace, "}", "{", -1)
        if open_brace < 0:
            continue
        head = _HEAD.search(source, 0, open_brace)
        if head is None:
            continue
        keyword_end = head.end(1)
        edits.append((keyword_end, keyword_end, " " + attributes))
        edits.append((brace + 1, name_start, " "))
    if not edits:
        return source
    pieces, last = [], 0
    for start, end, text in sorted(edits):
        pieces += [source[last:start], text]
        last = end
    pieces.append(source[last:])
    return "".join(pieces)
