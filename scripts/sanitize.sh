#!/usr/bin/env bash
# scripts/sanitize.sh: compute-sanitizer (memcheck, racecheck, initcheck, synccheck) over the
# kernels the package generates (scripts/_sanitize_workload.py), one summary line per tool.
#
# A plain run first compiles every kernel into a fresh compile cache, so that the sanitized runs
# only load them (and fails the script if a result is wrong); the four tools then run at once,
# each over the whole workload, each in its own process.
# Usage: scripts/sanitize.sh [tool ...]        (default: all four)
# Environment: OUT (logs go to $OUT/sanitize, else ./gpu-logs/sanitize), PY (the python with
# pycuda; default: .venv, made by scripts/setup_env.sh), SANITIZE_TIMEOUT (seconds per tool,
# default 150), SANITIZE_SEQUENTIAL=1 (one tool after the other), SANITIZE_HEAVY=1 (also the
# XORWOW and MRG32k3a generators: minutes under memcheck).
# Exit status: 0 when every tool ran to the end and found nothing, 1 otherwise.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-$root/gpu-logs}/sanitize"
mkdir -p "$out"
if [ -z "${PY:-}" ]; then
    # shellcheck source=scripts/setup_env.sh
    source "$root/scripts/setup_env.sh"
    setup_env >"$out/setup.log" 2>&1 || { cat "$out/setup.log"; exit 1; }
    PY="$VENV/bin/python"
fi
sanitizer="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || true)}"
for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    [ -n "$sanitizer" ] || { [ -x "$candidate" ] && sanitizer="$candidate"; }
done
if [ -z "$sanitizer" ]; then
    echo "sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER)"
    exit 1
fi
tools=("$@")
[ ${#tools[@]} -gt 0 ] || tools=(memcheck racecheck initcheck synccheck)
limit="${SANITIZE_TIMEOUT:-150}"
workload="$root/scripts/_sanitize_workload.py"
export PYTHONUNBUFFERED=1
export PYCUDA_CACHE_DIR="$out/cache"
rm -rf "$PYCUDA_CACHE_DIR"

t0=$SECONDS
timeout -k 10 300 "$PY" "$workload" >"$out/plain.log" 2>&1
plain_rc=$?
echo "plain run (compiles into the cache): exit $plain_rc, $((SECONDS - t0)) s: $(tail -n 1 "$out/plain.log")"

# The package calls some driver entry points expecting them to fail (cuFuncGetParamInfo past
# the last parameter ends its enumeration, cuPointerGetAttribute tells host from device
# pointers): those are API errors to compute-sanitizer, not faults of a kernel, so they are not
# reported. (Where this sanitizer lacks the option, they are counted; its log names each.)
api_errors=()
if "$sanitizer" --help 2>/dev/null | grep -q -- "--report-api-errors"; then
    api_errors=(--report-api-errors no)
fi

run_tool() {
    local tool=$1 start=$SECONDS
    timeout -k 10 "$limit" "$sanitizer" --tool "$tool" --error-exitcode 1 --print-limit 20 \
        "${api_errors[@]}" "$PY" "$workload" >"$out/$tool.log" 2>&1
    echo "$? $((SECONDS - start))" >"$out/$tool.status"
}

for tool in "${tools[@]}"; do
    if [ -n "${SANITIZE_SEQUENTIAL:-}" ]; then
        run_tool "$tool"
    else
        run_tool "$tool" &
    fi
done
wait

status=$([ "$plain_rc" -eq 0 ] && echo 0 || echo 1)
for tool in "${tools[@]}"; do
    read -r rc secs <"$out/$tool.status"
    # memcheck, initcheck and synccheck end with "ERROR SUMMARY: N errors"; racecheck with
    # "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    summary=$(grep -E "(ERROR|RACECHECK) SUMMARY" "$out/$tool.log" | tail -n 1 | sed 's/^=* *//')
    workload_line=$(grep -E "^workload:" "$out/$tool.log" | tail -n 1)
    case $rc in
    0) verdict="clean" ;;
    1) verdict="FOUND ERRORS" ;;
    2) verdict="a workload check failed (see its section lines)" ;;
    124 | 137) verdict="TIMED OUT after ${limit} s (last: $(grep -E '^section' "$out/$tool.log" | tail -n 1))" ;;
    *) verdict="exit $rc" ;;
    esac
    [ "$rc" -eq 0 ] || status=1
    # A tool that stops without its summary line has not shown that it found nothing.
    [ -n "$summary" ] || { status=1; summary="no summary line"; }
    echo "$tool: $verdict, ${secs} s | ${summary} | ${workload_line:-no workload summary}"
done
echo "sanitize: $([ "$status" -eq 0 ] && echo "all clean" || echo "PROBLEMS (logs in $out)")"
exit "$status"
