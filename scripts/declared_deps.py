"""scripts/declared_deps.py: print the requirements pyproject.toml declares, one per line.

Usage: python scripts/declared_deps.py [--extras-only | --no-build] [EXTRA ...]
Prints the build-system requirements, the run-time dependencies and those of each named extra
(with --extras-only, the extras' alone; with --no-build, all but the build requirements), so
that a fresh environment holds exactly what the project declares and nothing installed by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10: pip carries a copy of the same parser
    from pip._vendor import tomli as tomllib


def declared(extras: list[str], extras_only: bool = False, build: bool = True) -> list[str]:
    """The requirement strings of the build (unless not `build`), the package and the named
    optional extras."""
    text = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text()
    project = tomllib.loads(text)
    reqs = []
    if not extras_only:
        if build:
            reqs += project["build-system"]["requires"]
        reqs += project["project"]["dependencies"]
    optional = project["project"].get("optional-dependencies", {})
    for extra in extras:
        if extra not in optional:
            raise SystemExit(f"declared_deps: pyproject.toml has no extra {extra!r}")
        reqs += optional[extra]
    return reqs


if __name__ == "__main__":
    args = sys.argv[1:]
    flags = {"--extras-only", "--no-build"}
    extras = [a for a in args if a not in flags]
    print("\n".join(declared(extras, "--extras-only" in args, "--no-build" not in args)))
