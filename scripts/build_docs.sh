#!/usr/bin/env bash
# scripts/build_docs.sh: build the HTML documentation into docs/_build/html; warnings are errors.
#
# The docs are made in their own venv, .venv-docs, holding NumPy and the 'docs' extra of
# pyproject.toml (Sphinx, myst-parser) and nothing else: the package is imported from python/,
# so no C++ build and no GPU are needed. pycuda._driver is the built extension where python/pycuda
# holds one for this Python, else it is made from the committed stub python/pycuda/_driver.pyi
# (docs/conf.py; tests/test_stubs.py keeps the stub equal to the built extension).
# .venv-docs is reused on later runs; PYCUDA_FRESH_ENV=1 (set by CI) makes a new one.
# Extra arguments go to sphinx-build (e.g. -E to reread every page).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv-docs"
BASE_PYTHON="${PYTHON:-python3}"

if [ -n "${PYCUDA_FRESH_ENV:-}" ] || ! "$VENV/bin/python" -c "import sphinx, myst_parser, numpy" \
    2>/dev/null; then
    echo "[pycuda docs] creating $VENV with numpy and the 'docs' extra (from PyPI)"
    rm -rf "$VENV"
    "$BASE_PYTHON" -m venv "$VENV"
    mapfile -t deps < <("$VENV/bin/python" scripts/declared_deps.py --no-build docs)
    "$VENV/bin/python" -m pip install -q "${deps[@]}"
fi

"$VENV/bin/python" -m sphinx -W --keep-going -b html "$@" docs docs/_build/html
echo "[pycuda docs] HTML in docs/_build/html/index.html"
