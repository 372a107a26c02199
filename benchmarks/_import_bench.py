"""benchmarks/_import_bench.py: the cost of `import pycuda.autoinit` in a fresh process.

Target (issue 2): at most the time of `import numpy`, plus context creation, plus 50 ms. Each
figure is the median over fresh interpreters, timed inside them (interpreter start-up excluded).
"""

from __future__ import annotations

import statistics
import subprocess
import sys

Row = tuple[str, float, str]

_NUMPY = "import time; t=time.perf_counter(); import numpy; print(time.perf_counter()-t)"
_CONTEXT = (
    "import pycuda.driver as d, time; d.init(); dev=d.Device(0); t=time.perf_counter(); "
    "c=dev.retain_primary_context(); c.push(); d.Context.synchronize(); "
    "print(time.perf_counter()-t); d.Context.pop()"
)
_AUTOINIT = (
    "import time; t=time.perf_counter(); import pycuda.autoinit; print(time.perf_counter()-t)"
)


def _median_ms(code: str, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        times.append(float(out.strip().splitlines()[-1]) * 1e3)
    return statistics.median(times)


def run(repeats: int = 7) -> list[Row]:
    numpy_ms = _median_ms(_NUMPY, repeats)
    context_ms = _median_ms(_CONTEXT, repeats)
    autoinit_ms = _median_ms(_AUTOINIT, repeats)
    return [
        ("import numpy (fresh process)", numpy_ms, "ms"),
        ("primary context retain+push (fresh process)", context_ms, "ms"),
        ("import pycuda.autoinit (fresh process)", autoinit_ms, "ms"),
        ("autoinit - (numpy + context): target <= 50", autoinit_ms - numpy_ms - context_ms, "ms"),
    ]


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"{name:<48} {value:9.2f} {unit}")
