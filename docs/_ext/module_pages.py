"""docs/_ext/module_pages.py: one reference page per public module, each name documented once.

pycuda's public modules re-export one another's names, as the original's did (``tools`` and
``driver`` both have ``DeviceMemoryPool``; ``elementwise`` has ``tools.ScalarArg``). Each class
or function is documented in full on the page of the first public module in PUBLIC_MODULES that
has it (its home); the pages of the others list it with a link. ``.. pycuda-module:: NAME``
writes the ``automodule`` directive with those exclusions, then that list. Names that other
packages define (``typing.Any``, NumPy's functions) are left out of every page.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

# Page order decides homes: the lower-level module first.
PUBLIC_MODULES = [
    "pycuda",
    "pycuda.driver",
    "pycuda.tools",
    "pycuda.compiler",
    "pycuda.gpuarray",
    "pycuda.elementwise",
    "pycuda.reduction",
    "pycuda.scan",
    "pycuda.cumath",
    "pycuda.curandom",
    "pycuda.characterize",
    "pycuda.debug",
    "pycuda.sparse",
    "pycuda.sparse.packeted",
    "pycuda.sparse.coordinate",
    "pycuda.sparse.cg",
    "pycuda.sparse.operator",
    "pycuda.sparse.inner",
    "pycuda.sparse.pkt_build",
    "pycuda.compyte",
    "pycuda.compyte.dtypes",
    "pycuda.compyte.array",
]


def is_ours(obj: Any) -> bool:
    """Defined in pycuda (its classes, functions and the extension's), not imported from
    another package."""
    module = getattr(obj, "__module__", None)
    return not isinstance(module, str) or module.startswith("pycuda")


def public_names(module: Any) -> list[str]:
    """The names autodoc lists for `module`: its ``__all__``, else every name without a
    leading underscore."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    return list(names)


def documented_objects(module: Any) -> dict[str, Any]:
    """The classes and functions of `module`'s public names that pycuda defines."""
    found = {}
    for name in public_names(module):
        obj = getattr(module, name, None)
        if (inspect.isclass(obj) or callable(obj)) and not inspect.ismodule(obj):
            if is_ours(obj):
                found[name] = obj
    return found


def homes() -> dict[int, str]:
    """id(object) -> the public module whose page documents it in full."""
    home: dict[int, str] = {}
    for modname in PUBLIC_MODULES:
        for obj in documented_objects(importlib.import_module(modname)).values():
            home.setdefault(id(obj), modname)
    return home


class ModulePage(SphinxDirective):
    """``.. pycuda-module:: pycuda.tools``: the module's docstring and members, less the
    names documented on another page, which are listed with links."""

    required_arguments = 1

    def run(self) -> list[Any]:
        modname = self.arguments[0]
        if modname not in PUBLIC_MODULES:
            raise self.error(f"{modname} is not in module_pages.PUBLIC_MODULES")
        home = homes()
        elsewhere = []
        for name, obj in documented_objects(importlib.import_module(modname)).items():
            if home[id(obj)] != modname:
                role = "class" if inspect.isclass(obj) else "func"
                elsewhere.append((name, f":{role}:`{home[id(obj)]}.{name}`"))
        text = [f".. automodule:: {modname}", "   :imported-members:"]
        if elsewhere:
            text.append("   :exclude-members: " + ", ".join(name for name, _ in elsewhere))
        if elsewhere:
            links = ", ".join(link for _, link in sorted(elsewhere))
            text += ["", f"Also in ``{modname}``, documented with the module that has them "
                     f"first: {links}."]  # fmt: skip
        return self.parse_text_to_nodes("\n".join(text))

    def parse_text_to_nodes(self, text: str) -> list[Any]:
        """Parse generated reST as if it were written in the page."""
        container = nodes.container()
        self.state.nested_parse(StringList(text.splitlines(), source=""), 0, container)
        return container.children


def skip_foreign(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> Any:
    """autodoc-skip-member: a module's members that another package defines are skipped."""
    if what == "module" and not is_ours(obj):
        return True
    return None


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("pycuda-module", ModulePage)
    app.connect("autodoc-skip-member", skip_foreign)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
