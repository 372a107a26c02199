"""docs/_ext/docstring_blocks.py: pycuda's docstrings as reStructuredText, for autodoc.

pycuda's docstrings are written to be read with help(): a paragraph, then an example indented
by four spaces after a blank line (Python code, whose continuation lines are indented further).
In reST such a block is a block quote, and a further-indented line inside it is an error. This
turns each such block into a literal block (shown as code), and, in the compiled extension's
docstrings, which are plain text, escapes the ``*`` of C pointers and ``*args`` that reST would
read as emphasis.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

# A paragraph that starts a construct whose indented continuation is not an example.
_CONSTRUCT = re.compile(r"^(\s*)([-*+]\s|\d+[.)]\s|#[.)]\s|:[\w ]+:(\s|$)|\.\.\s|>>>)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def literal_examples(lines: list[str]) -> list[str]:
    """`lines` with every indented block that follows a blank line and a plain top-level
    paragraph made a literal block (a "::" paragraph is put before it)."""
    out: list[str] = []
    paragraph_start: str | None = None  # first line of the last top-level paragraph
    in_literal = False
    previous = ""
    for line in lines:
        blank = not line.strip()
        if in_literal:
            if blank or _indent(line) > 0:
                out.append(line)
                previous = line
                continue
            in_literal = False
        if not blank and _indent(line) > 0 and not previous.strip() and paragraph_start:
            plain = not _CONSTRUCT.match(paragraph_start)
            text = [x for x in out if x.strip()]
            if plain and not text[-1].rstrip().endswith("::"):
                out += ["::", ""]
            in_literal = plain
        elif not blank and _indent(line) == 0:
            if not previous.strip():
                paragraph_start = line
        out.append(line)
        previous = line
    return out


_INLINE_LITERAL = re.compile(r"(``.+?``)")
# A name ending in "_" (TRSF_*) would be a reference in reST.
_TRAILING_UNDERSCORE = re.compile(r"(\w)_(?!\w)")
# nanobind's signature lines ahead of a docstring: "name(args) -> result".
_SIGNATURE = re.compile(r"^[\w.]*\(.*\)( -> .*)?$")


def extension_docstring(raw: str) -> list[str]:
    """The lines of a docstring of the compiled extension, without nanobind's signature lines.

    autodoc dedents every line after the first by their common indentation, which flattens an
    example when it is all that follows an unindented first line (C++ docstrings are written
    so); dedenting the whole text keeps its indentation as help() shows it.
    """
    lines = textwrap.dedent(raw).strip("\n").splitlines()
    if lines and _SIGNATURE.match(lines[0]):
        while lines and lines[0].strip():
            lines.pop(0)
    while lines and not lines[0].strip():
        lines.pop(0)
    return lines + [""] if lines else []


def _escape(text: str) -> str:
    return _TRAILING_UNDERSCORE.sub(r"\1\_", text).replace("*", r"\*")


def escape_plain_text(lines: list[str]) -> list[str]:
    """Escape ``*`` and a name's trailing ``_`` outside literal blocks and inline literals
    (plain-text docstrings)."""
    out = []
    literal = False
    for line in lines:
        if line.strip() == "::" or line.rstrip().endswith("::"):
            literal = True
            out.append(line)
            continue
        if literal and line.strip() and _indent(line) == 0:
            literal = False
        if literal:
            out.append(line)
            continue
        parts = _INLINE_LITERAL.split(line)
        out.append("".join(p if p.startswith("``") else _escape(p) for p in parts))
    return out


def process_docstring(
    app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    """autodoc-process-docstring: rewrite `lines` in place."""
    owner = obj.fget if isinstance(obj, property) else obj
    extension = getattr(owner, "__module__", None) == "pycuda._driver"
    raw = getattr(obj, "__doc__", None)
    if extension and isinstance(raw, str) and lines:
        lines[:] = extension_docstring(raw)
    fixed = literal_examples(lines)
    if extension:
        fixed = escape_plain_text(fixed)
    lines[:] = fixed


def setup(app: Any) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", process_docstring)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
