#!/usr/bin/env bash
# scripts/demo.sh: set up .venv with pycuda, print the device report, run examples/hello_gpu.py.
# Without a usable GPU the report says what is missing and this script exits non-zero.
set -euo pipefail
# shellcheck source=scripts/setup_env.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup_env.sh"
setup_env
cd "$PYCUDA_ROOT"
PY="$VENV/bin/python"

echo
if ! "$PY" -m pycuda; then
    echo
    echo "demo: no usable GPU here (see the report above); examples/hello_gpu.py was not run." >&2
    exit 1
fi
echo
echo "== examples/hello_gpu.py"
"$PY" examples/hello_gpu.py
