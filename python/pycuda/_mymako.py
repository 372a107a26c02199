"""``pycuda._mymako``: the Mako templating engine, or an ImportError that says how to get it.

As the original's module: ``import pycuda._mymako as mako`` gives the ``mako`` package's names
with ``mako.template`` loaded, so ``mako.template.Template(text).render(**values)`` works. Mako
is optional here: nothing in PyCUDA needs it (the scan templates of :mod:`pycuda.scan` render
themselves), only client code written against this module does.
"""

from __future__ import annotations

try:
    import mako.template  # noqa: F401 - loads the submodule that mako.* names below
except ImportError as exc:
    raise ImportError(
        "This part of PyCUDA needs the Mako templating engine, which could not be imported "
        f"({exc}). Install it with 'pip install Mako' (or your system's package, e.g. "
        "python3-mako)."
    ) from exc

from mako import *  # noqa: E402, F403 - this module stands for the mako package
from mako import template  # noqa: E402, F401 - the submodule, as mako.template
