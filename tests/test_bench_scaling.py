"""benchmarks/scaling.py on the CPU: its arguments, its bookkeeping around the timers, its rows,
the figure drawn from synthetic timings, and its one-line exit where there is no GPU."""

from __future__ import annotations

import json

import pytest
from bench_modules import NO_DRIVER, load, run
from conftest import gpu_unavailable_reason

scaling = load("scaling")


def test_arguments_default_to_every_second_power_from_2_10_to_2_30_into_docs():
    args = scaling.parse_args([])
    assert args.out == "docs" and args.json is None and not args.quick and not args.no_cupy
    assert scaling.exponents(args) == list(range(10, 31, 2))
    args = scaling.parse_args(["--quick", "--out", "x", "--min-exp", "12", "--max-exp", "20",
                               "--step", "4", "--json", "y.json", "--no-cupy"])  # fmt: skip
    assert (args.out, args.json, args.quick, args.no_cupy) == ("x", "y.json", True, True)
    assert scaling.exponents(args) == [12, 16, 20]


@pytest.mark.parametrize("bad", [["--min-exp", "20", "--max-exp", "10"], ["--step", "0"]])
def test_arguments_that_give_no_size_are_refused(bad, capsys):
    with pytest.raises(SystemExit) as exc:
        scaling.parse_args(bad)
    assert exc.value.code == 2
    assert "--min-exp" in capsys.readouterr().err


def test_quick_repeats_less():
    quick, full = scaling.repeats(True), scaling.repeats(False)
    assert set(quick) == set(full)
    assert all(quick[k] < full[k] for k in quick)


def test_every_operation_of_each_library_is_named_and_sized():
    assert set(scaling.CALLS["pycuda"]) == set(scaling.OPERATIONS)
    assert set(scaling.CALLS["cupy"]) <= set(scaling.OPERATIONS)
    for per_element, timing in scaling.OPERATIONS.values():
        assert per_element in (4, 8, 12) and timing in ("events", "wall")


def fake_timer(ms_per_burst: float):
    def record():
        return None, lambda: ms_per_burst

    return (lambda: None), record


def test_measure_times_each_operation_and_records_the_one_that_fails(monkeypatch):
    import numpy as np

    monkeypatch.setattr(scaling.drv, "mem_get_info", lambda: (1 << 30, 1 << 31))
    released = []

    def make(host):
        calls = {op: (lambda: None) for op in scaling.OPERATIONS}
        calls["sum"] = lambda: 1 / 0
        return calls

    skipped: list = []
    host = np.ones(1 << 10, np.float32)
    times = scaling.measure("pycuda", make, lambda: released.append(1), fake_timer(2.0), host,
                            scaling.repeats(True), skipped)  # fmt: skip
    assert set(times) == set(scaling.OPERATIONS) - {"sum"}
    # Events: 2 ms a burst; 12 KiB is far below the ~2 ms a burst aims at, so 50 calls a burst.
    assert times["a+b"] == pytest.approx(2.0 / 50)
    assert times["device->device"] == pytest.approx(2.0 / 50)
    assert 0 < times["host->device"] < 1  # wall time of a call that does nothing, in ms
    assert released == [1]
    assert skipped == [{"library": "pycuda", "elements": 1024, "operation": "sum",
                        "reason": "ZeroDivisionError: division by zero"}]  # fmt: skip


def test_a_size_that_does_not_fit_is_skipped_before_anything_is_allocated(monkeypatch):
    import numpy as np

    monkeypatch.setattr(scaling.drv, "mem_get_info", lambda: (1 << 20, 1 << 31))
    skipped: list = []

    def make(host):
        raise AssertionError("nothing may be allocated")

    host = np.ones(1 << 16, np.float32)  # 5 arrays of 256 KiB + headroom > 1 MiB free
    times = scaling.measure("cupy", make, lambda: None, fake_timer(1.0), host,
                            scaling.repeats(True), skipped)  # fmt: skip
    assert times == {}
    assert skipped[0]["library"] == "cupy" and skipped[0]["elements"] == 1 << 16
    assert "GiB free" in skipped[0]["reason"]


def test_series_and_rows_carry_time_and_bandwidth():
    s = scaling.as_series("pycuda", "a+b", [(1 << 10, 0.01), (1 << 20, 0.02)])
    assert s["call"] == "a + b" and s["timing"] == "events" and s["bytes_per_element"] == 12
    assert s["elements"] == [1024, 1 << 20] and s["ms"] == [0.01, 0.02]
    assert s["gbs"] == pytest.approx([12 * 1024 / 1e-5 / 1e9, 12 * (1 << 20) / 2e-5 / 1e9])
    rows = scaling.rows([s])
    assert rows[0] == ("pycuda a+b            2^10", pytest.approx(1.2288), "GB/s (10.00 us)")
    assert rows[1][0].endswith("2^20") and rows[1][2] == "GB/s (20.00 us)"


def synthetic_result() -> dict:
    """Timings of the shape a GPU gives (a floor of microseconds, then bytes over bandwidth),
    for both libraries, with the largest size of CuPy's sum missing (skipped)."""
    series = []
    for lib, ops in scaling.CALLS.items():
        for op in ops:
            per_element, _ = scaling.OPERATIONS[op]
            floor_ms = 0.005 if lib == "pycuda" else 0.01
            gbs = 25.0 if "host" in op else 3000.0
            sizes = [1 << e for e in range(10, 31, 2)]
            if (lib, op) == ("cupy", "sum"):
                sizes = sizes[:-1]
            points = [(n, floor_ms + per_element * n / gbs / 1e6) for n in sizes]
            series.append(scaling.as_series(lib, op, points))
    return {"device": "Synthetic GPU", "date": "2026-01-01T00:00:00+00:00", "quick": True,
            "series": series, "skipped": []}  # fmt: skip


def test_figure_is_drawn_from_a_saved_json_without_a_gpu(tmp_path):
    pytest.importorskip("matplotlib")
    saved = tmp_path / "scaling.json"
    saved.write_text(json.dumps(synthetic_result()))
    out = tmp_path / "figures"
    out.mkdir()
    proc = run("scaling", "--replot", str(saved), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    png = out / "scaling.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image

    height, width = matplotlib.image.imread(png).shape[:2]
    assert (width, height) == (1430, 715)  # 13 x 6.5 inches at 110 dpi: both panels
    assert f"wrote {png}" in proc.stderr


def test_figure_has_one_line_per_operation_and_library(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    saved = {}
    monkeypatch.setattr(plt, "close", lambda fig: saved.setdefault("fig", fig))
    result = synthetic_result()
    scaling.plot(result, str(tmp_path / "s.png"))
    time_ax, bandwidth_ax = saved["fig"].axes
    for ax in (time_ax, bandwidth_ax):
        assert len(ax.get_lines()) == len(result["series"]) == 11
        assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    labels = {line.get_label() for line in bandwidth_ax.get_lines()}
    assert "pycuda: memcpy_dtod (copy ceiling)" in labels and "cupy: a + b" in labels
    # The same operation has the same colour in both libraries.
    colour = {line.get_label(): line.get_color() for line in time_ax.get_lines()}
    assert colour["pycuda: a + b"] == colour["cupy: a + b"]
    assert colour["pycuda: a + b"] != colour["pycuda: gpuarray.sum(a).get()"]
    plt.close("all")


def test_without_matplotlib_the_json_is_kept_and_the_figure_reported_missing(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    scaling.draw(synthetic_result(), str(tmp_path / "scaling.png"))
    assert not (tmp_path / "scaling.png").exists()
    assert "no figure" in capsys.readouterr().err


def test_without_a_gpu_it_says_so_in_one_line():
    if gpu_unavailable_reason() is None:
        pytest.skip("a GPU is usable here: the program would measure")
    proc = run("scaling", "--quick", "--out", "unused", PYCUDA_LIBCUDA=NO_DRIVER)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("scaling.py: no usable CUDA GPU (")
    assert proc.stderr.rstrip().endswith("nothing was measured")
    assert proc.stdout == ""
