"""pycuda.debug: run a script with kernels built for cuda-gdb (-g -G, kept, not cached).

python -m pycuda.debug script.py args...
"""

from __future__ import annotations

import os
import runpy
import sys

import pycuda.driver


def main(argv: list[str]) -> int:
    """Turn on debugging, then run ``argv[0]`` as __main__ with ``argv`` as its sys.argv."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m pycuda.debug script.py [args...]", file=sys.stderr)
        return 2
    pycuda.driver.set_debugging()
    sys.argv = list(argv)
    # As `python script.py` would: the script's directory first on sys.path, for its imports.
    sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
