"""The documentation covers the code, checked from the sources (no Sphinx, no GPU): every public
module has a reference page, the environment page names every PYCUDA_* variable the package reads,
and every example is shown. scripts/build_docs.sh builds the pages themselves."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PACKAGE = ROOT / "python" / "pycuda"
REFERENCE = DOCS / "reference"

# How a page documents a module: the project's directive (docs/_ext/module_pages.py) or, for
# modules that cannot be imported without a GPU, Sphinx's own.
_MODULE_DIRECTIVE = re.compile(r"^\.\. (?:pycuda-module|py:module):: (\S+)\s*$", re.M)
# An environment variable the code reads is named by a string literal of exactly its name
# (os.environ.get("PYCUDA_X"), getenv("PYCUDA_X"), a library's ToolkitLibrary entry); macros
# and #defines named PYCUDA_... are never quoted.
_ENV_LITERAL = re.compile(r"""["'](PYCUDA_[A-Z0-9_]+)["']""")
_ENV_NAME = re.compile(r"PYCUDA_[A-Z0-9_]+")


def public_modules() -> set[str]:
    """Dotted names of the package's modules that no path component marks private."""
    found = set()
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if any(p.startswith("_") for p in parts):
            continue
        found.add(".".join(parts))
    return found


def documented_modules() -> dict[str, str]:
    """Module -> the reference page (file name) that documents it."""
    found: dict[str, str] = {}
    for page in sorted(REFERENCE.glob("*.rst")):
        for name in _MODULE_DIRECTIVE.findall(page.read_text()):
            assert name not in found, f"{name} is documented on {found[name]} and {page.name}"
            found[name] = page.name
    return found


def code_env_variables() -> set[str]:
    """The PYCUDA_* variables the package's Python and C++ code read."""
    names = set()
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "core").rglob("*.[ch]pp")]
    sources += (ROOT / "bindings").rglob("*.[ch]pp")
    for path in sources:
        names.update(_ENV_LITERAL.findall(path.read_text()))
    return names


def test_public_modules_are_found():
    # The scan itself: it must see the modules every PyCUDA program uses, and no private one.
    modules = public_modules()
    assert {"pycuda", "pycuda.driver", "pycuda.gpuarray", "pycuda.sparse.cg"} <= modules
    assert not any("._" in m for m in modules)


def test_every_public_module_has_a_reference_page():
    documented = documented_modules()
    missing = public_modules() - set(documented)
    assert not missing, f"public modules without a page in docs/reference: {sorted(missing)}"
    stale = set(documented) - public_modules()
    assert not stale, f"docs/reference documents modules that do not exist: {sorted(stale)}"


def test_every_reference_page_is_in_the_reference_toctree():
    index = (REFERENCE / "index.rst").read_text()
    listed = set(re.findall(r"^   (\w+)\s*$", index, re.M))
    pages = {p.stem for p in REFERENCE.glob("*.rst")} - {"index"}
    assert pages <= listed, f"pages missing from reference/index.rst: {sorted(pages - listed)}"


def test_module_pages_extension_lists_the_documented_modules():
    # PUBLIC_MODULES decides where a re-exported name is documented; it is read from the
    # extension's source because importing it needs Sphinx.
    tree = ast.parse((DOCS / "_ext" / "module_pages.py").read_text())
    listed = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PUBLIC_MODULES"
    )
    directive = re.compile(r"^\.\. pycuda-module:: (\S+)\s*$", re.M)
    used = {n for p in REFERENCE.glob("*.rst") for n in directive.findall(p.read_text())}
    assert set(listed) == used


def test_autoinit_page_names_what_the_modules_define():
    # autoinit and autoprimaryctx make a context when imported, so their page is written by hand.
    page = (REFERENCE / "autoinit.rst").read_text()
    for module in ("autoinit", "autoprimaryctx"):
        tree = ast.parse((PACKAGE / f"{module}.py").read_text())
        names = {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        }
        assert names, module
        section = page.split(f".. py:module:: pycuda.{module}", 1)[1]
        for name in names:
            assert f".. py:data:: {name}" in section, f"pycuda.{module}.{name}"


def test_environment_page_names_every_variable_the_code_reads():
    read = code_env_variables()
    # The scan must see the variables known to be read, in Python and in C++.
    assert {"PYCUDA_CACHE_DIR", "PYCUDA_COMPILER", "PYCUDA_LIBCUDA", "PYCUDA_LIBNVRTC"} <= read
    page = (DOCS / "environment.md").read_text()
    missing = {name for name in read if f"`{name}`" not in page}
    assert not missing, f"docs/environment.md does not name {sorted(missing)}"


def test_environment_page_names_only_variables_that_are_read():
    page = (DOCS / "environment.md").read_text()
    readers = [*PACKAGE.rglob("*.py"), *(ROOT / "core").rglob("*.[ch]pp")]
    readers += [*(ROOT / "scripts").iterdir(), DOCS / "conf.py"]
    text = "\n".join(p.read_text() for p in readers if p.is_file())
    stale = {name for name in _ENV_NAME.findall(page) if name not in text}
    assert not stale, f"docs/environment.md names variables nothing reads: {sorted(stale)}"


def test_every_example_is_shown_and_every_included_file_exists():
    included = set()
    for page in DOCS.glob("*.md"):
        for target in re.findall(r"^```\{literalinclude\} (\S+)", page.read_text(), re.M):
            path = (DOCS / target).resolve()
            assert path.is_file(), f"{page.name} includes {target}, which does not exist"
            included.add(path)
    examples = set((ROOT / "examples").glob("*.py"))
    assert examples, "no examples found"
    missing = sorted(p.name for p in examples - included)
    assert not missing, f"examples no page shows: {missing}"


def _undocumented(body: list[ast.stmt], prefix: str = "") -> list[str]:
    """Public functions, classes, methods and properties in `body` without a docstring; of an
    overloaded name, one documented variant is enough, and property setters share the getter's."""
    missing = []
    documented_overloads = {
        node.name for node in body if isinstance(node, ast.FunctionDef) and ast.get_docstring(node)
    }
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
            continue
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
        if any(d.endswith(".setter") for d in decorators):
            continue
        if not ast.get_docstring(node) and node.name not in documented_overloads:
            missing.append(prefix + node.name)
        if isinstance(node, ast.ClassDef):
            missing += _undocumented(node.body, f"{prefix}{node.name}.")
    return missing


def test_every_public_name_of_the_extension_has_a_docstring():
    # The committed stub carries the compiled extension's docstrings (tests/test_stubs.py keeps
    # it equal to the built module), so the reference pages of pycuda.driver have text for all.
    tree = ast.parse((PACKAGE / "_driver.pyi").read_text())
    missing = sorted(set(_undocumented(tree.body)))
    assert not missing, f"pycuda._driver names without a docstring: {missing}"


def test_every_public_python_name_has_a_docstring():
    # What the reference pages show for the Python modules: each module, and each class,
    # function and method of pycuda's Python code that a public module offers (those defined
    # in private modules included; NumPy's and the standard library's left out).
    missing = []
    checked = 0
    seen: set[int] = set()
    for name in sorted(public_modules() - {"pycuda.autoinit", "pycuda.autoprimaryctx"}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # pycuda.sparse, as the original
            module = importlib.import_module(name)
        if not (module.__doc__ or "").strip():
            missing.append(name)
        for attr, obj in vars(module).items():
            home = getattr(obj, "__module__", None)
            if attr.startswith("_") or not isinstance(home, str) or id(obj) in seen:
                continue
            # The extension's names are checked in its stub (the test above).
            if not home.startswith("pycuda") or home == "pycuda._driver":
                continue
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            seen.add(id(obj))
            checked += 1
            if not (obj.__doc__ or "").strip():
                missing.append(f"{name}.{attr}")
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    func = value.fget if isinstance(value, property) else value
                    if member.startswith("_") or not inspect.isfunction(func):
                        continue
                    if not (func.__doc__ or "").strip():
                        missing.append(f"{name}.{attr}.{member}")
    assert checked > 100, "the scan found too few classes and functions"
    assert not missing, f"public names without a docstring: {missing}"
