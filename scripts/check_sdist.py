"""scripts/check_sdist.py: build the source distribution and check that it holds every file a
build from it needs (CMake files, the C++ core and bindings, the Python package), as git tracks
them, so that `pip install pycuda-*.tar.gz` builds what `pip install .` does.

Usage: python scripts/check_sdist.py [--out DIR]   (needs scikit-build-core, a build requirement)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What a build reads: everything git tracks under these, and these files.
NEEDED_DIRS = ("cmake", "core", "bindings", "python/pycuda")
NEEDED_FILES = ("CMakeLists.txt", "pyproject.toml", "README.md", "LICENSE")


def tracked() -> set[str]:
    listing = subprocess.run(
        ["git", "ls-files", *NEEDED_DIRS, *NEEDED_FILES],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {line for line in listing.splitlines() if line}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "dist"))
    args = parser.parse_args()
    from scikit_build_core.build import build_sdist

    os.makedirs(args.out, exist_ok=True)
    os.chdir(ROOT)
    name = build_sdist(args.out)
    path = Path(args.out) / name
    with tarfile.open(path) as tar:
        top = tar.getnames()[0].split("/", 1)[0]
        inside = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    missing = sorted(tracked() - inside)
    size = path.stat().st_size // 1024
    if missing:
        print(f"{name} ({size} KiB) lacks {len(missing)} file(s) the build needs:")
        print("\n".join(f"  {m}" for m in missing))
        return 1
    print(f"{name} ({size} KiB, {top}/): every file the build needs is there")
    return 0


if __name__ == "__main__":
    sys.exit(main())
