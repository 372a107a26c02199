"""docs/conf.py: the Sphinx configuration of pycuda's documentation (scripts/build_docs.sh).

The package is imported from python/ (not installed). Its extension, pycuda._driver, is the
built one where python/pycuda holds a ``_driver*.so`` for this interpreter (a developer's copy);
elsewhere it is made from the committed stub python/pycuda/_driver.pyi (docs/_ext/
driver_stand_in.py says how and why), so the docs build needs no C++ build and no GPU.
"""

from __future__ import annotations

import os
import pathlib
import sys
import warnings

DOCS = pathlib.Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(DOCS / "_ext"))

import driver_stand_in  # noqa: E402

import pycuda  # noqa: E402

if os.environ.get("PYCUDA_DOCS_EXTENSION") == "stub":
    EXTENSION = "stub"
else:
    try:
        import pycuda._driver  # noqa: F401
    except ImportError:
        EXTENSION = "stub"
    else:
        EXTENSION = "built"
if EXTENSION == "stub":
    driver_stand_in.install(ROOT / "python" / "pycuda" / "_driver.pyi")
print(f"pycuda docs: pycuda._driver from the {EXTENSION} extension")
# pycuda.sparse warns on import, as the original did; the reference page says so itself.
warnings.filterwarnings("ignore", category=DeprecationWarning, module="pycuda.sparse")

project = "pycuda"
author = "the pycuda rebuild authors"
copyright = "2026, the pycuda rebuild authors"  # noqa: A001 - Sphinx's name
release = pycuda.VERSION_TEXT
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc", "module_pages", "docstring_blocks"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "_ext", "Thumbs.db", ".DS_Store"]
root_doc = "index"

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_inherit_docstrings = True

html_theme = "alabaster"
html_title = f"pycuda {release}"
html_static_path: list[str] = []
