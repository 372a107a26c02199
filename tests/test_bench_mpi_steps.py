"""benchmarks/mpi_steps.py on the CPU: its arguments, the split of the problem between ranks,
the per-configuration figures and the markdown table from synthetic per-rank timings, and its
one-line exit where there is no GPU. (The measurement itself needs mpirun and GPUs:
scripts/gpu_mpi_bench.sh.)"""

from __future__ import annotations

import json

import pytest
from bench_modules import NO_DRIVER, load, run
from conftest import gpu_unavailable_reason

mpi_steps = load("mpi_steps")


def test_arguments():
    args = mpi_steps.parse_args([])
    assert (args.log2_elements, args.steps) == ([20, 24, 28], 200)
    assert args.json is None and args.table is None
    assert mpi_steps.parse_args(["--quick"]).steps == 50
    args = mpi_steps.parse_args(["--quick", "--steps", "7", "--log2-elements", "10", "12"])
    assert (args.steps, args.log2_elements) == (7, [10, 12])


@pytest.mark.parametrize("bad", [["--steps", "0"], ["--log2-elements", "41"]])
def test_bad_arguments_are_refused(bad):
    with pytest.raises(SystemExit) as exc:
        mpi_steps.parse_args(bad)
    assert exc.value.code == 2


@pytest.mark.parametrize("n_total", [0, 1, 7, 1 << 20, (1 << 20) + 3])
@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_the_parts_cover_the_problem_evenly(n_total, ranks):
    parts = [mpi_steps.part(n_total, ranks, r) for r in range(ranks)]
    assert sum(parts) == n_total
    assert max(parts) - min(parts) <= 1


def per_rank(step_s: list[float], local_s: list[float], devices: list[int], ok=True) -> list:
    return [{"step_s": s, "local_s": loc, "ok": ok, "device": d, "name": "Synthetic GPU"}
            for s, loc, d in zip(step_s, local_s, devices, strict=True)]  # fmt: skip


def test_a_configuration_is_its_slowest_rank():
    c = mpi_steps.configuration(per_rank([0.2, 0.3], [0.1, 0.15], [0, 1]), 1 << 28, 100)
    assert (c["ranks"], c["gpus"], c["elements"], c["steps"]) == (2, 2, 1 << 28, 100)
    assert c["step_ms"] == pytest.approx(3.0) and c["step_ms_fastest_rank"] == pytest.approx(2.0)
    assert c["local_ms"] == pytest.approx(1.5)
    assert c["gbs"] == pytest.approx(16 * (1 << 28) / 3e-3 / 1e9)
    assert c["devices"] == ["0: Synthetic GPU", "1: Synthetic GPU"] and c["checked"]
    # Two ranks on one device count one GPU; one wrong rank makes the configuration wrong.
    c = mpi_steps.configuration(per_rank([0.2, 0.3], [0.1, 0.1], [0, 0], ok=False), 1024, 10)
    assert c["gpus"] == 1 and not c["checked"]


def configs() -> list[dict]:
    return [
        mpi_steps.configuration(per_rank([0.4], [0.35], [0]), 1 << 28, 100),
        mpi_steps.configuration(per_rank([0.21, 0.2], [0.18, 0.17], [0, 1]), 1 << 28, 100),
        mpi_steps.configuration(per_rank([0.004, 0.005], [0.002, 0.002], [0, 1]), 1 << 20, 100),
    ]


def test_rows_name_the_configuration_and_flag_a_wrong_result():
    rows = mpi_steps.rows(configs()[:1])
    assert rows == [
        ("1 rank(s) on 1 GPU(s), 2^28: step (slowest rank)", pytest.approx(4.0), "ms"),
        ("1 rank(s) on 1 GPU(s), 2^28: local work alone", pytest.approx(3.5), "ms"),
    ]
    wrong = mpi_steps.configuration(per_rank([0.1], [0.1], [0], ok=False), 1024, 10)
    assert mpi_steps.rows([wrong])[0][2] == "ms  RESULT WRONG"


def test_table_gives_the_speedup_against_one_rank_of_the_same_size():
    lines = mpi_steps.table(configs()).splitlines()
    assert lines[:2] == mpi_steps.HEADER.splitlines()
    assert len(lines) == 5
    # Sorted by size, then ranks: the 2^20 run has no 1-rank run to compare with.
    assert lines[2].startswith("| 2 | 2 | 2^20 | 100 | 0.0500 | 0.0200 | 0.0300 |")
    assert "(no 1-rank run)" in lines[2]
    assert lines[3].startswith("| 1 | 1 | 2^28 | 100 | 4.0000 | 3.5000 | 0.5000 | 1.00x |")
    assert lines[4].startswith("| 2 | 2 | 2^28 | 100 | 2.1000 | 1.8000 | 0.3000 | 1.90x |")
    assert all(line.endswith("| ok |") for line in lines[2:])
    assert all(line.count("|") == lines[0].count("|") for line in lines)


def test_table_of_saved_results_needs_no_gpu_nor_mpi(tmp_path):
    one, two = configs()[:1], configs()[1:]
    paths = []
    for name, part in (("np1.json", one), ("np2.json", two)):
        path = tmp_path / name
        path.write_text(json.dumps({"device": "Synthetic GPU", "configurations": part}))
        paths.append(str(path))
    proc = run("mpi_steps", "--table", *paths)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip() == mpi_steps.table(one + two)


def test_without_a_gpu_it_says_so_in_one_line():
    if gpu_unavailable_reason() is None:
        pytest.skip("a GPU is usable here: the program would measure")
    proc = run("mpi_steps", "--quick", PYCUDA_LIBCUDA=NO_DRIVER)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("mpi_steps.py: no usable CUDA GPU (")
    assert proc.stdout == ""
