"""benchmarks/_scaling_plot.py: the figure of benchmarks/scaling.py, drawn from its JSON.

Two log-log panels sharing the x axis (elements): time per call, and effective bandwidth (the
bytes the operation must move, divided by that time). One line per operation and library: the
colour is the operation, pycuda solid with dots, CuPy dashed with crosses, so each pair of
lines that should be compared has one colour.
"""

from __future__ import annotations

from typing import Any

STYLE = {"pycuda": ("-", "o"), "cupy": ("--", "x")}


def plot(result: dict[str, Any], path: str) -> None:
    """Writes the PNG of ``result`` (scaling.py's JSON: ``series``, ``device``, ``date``) to
    ``path``. Needs matplotlib (imported here: it is optional for the measurement)."""
    import matplotlib

    matplotlib.use("Agg")  # files only: the GPU machine has no display
    import matplotlib.pyplot as plt

    fig, (t_ax, bw_ax) = plt.subplots(1, 2, figsize=(13, 6.5), sharex=True)
    colours: dict[str, Any] = {}
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for s in result["series"]:
        columns = zip(s["elements"], s["ms"], s["gbs"], strict=True)
        points = [(n, ms, gbs) for n, ms, gbs in columns if ms]
        if not points:
            continue
        colour = colours.setdefault(s["operation"], cycle[len(colours) % len(cycle)])
        line, marker = STYLE.get(s["library"], (":", "s"))
        label = f"{s['library']}: {s['call']}"
        n, ms, gbs = zip(*points, strict=True)
        t_ax.plot(n, ms, line, marker=marker, color=colour, label=label, ms=4)
        bw_ax.plot(n, gbs, line, marker=marker, color=colour, label=label, ms=4)
    for ax, ylabel in ((t_ax, "time per call (ms)"), (bw_ax, "effective bandwidth (GB/s)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("elements (float32)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    # Below both panels: inside either it would hide the lines it names.
    handles, labels = bw_ax.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, fontsize=8, frameon=False)
    quick = " (--quick)" if result.get("quick") else ""
    fig.suptitle(f"pycuda scaling{quick}: {result.get('device', '?')}, {result.get('date', '')}")
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
