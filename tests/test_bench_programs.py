"""benchmarks/programs.py on the CPU: its program list, its arguments, its dry run, its table,
the stamps of its breakdown and its C floor program (the timings themselves need a GPU)."""

from __future__ import annotations

import ast
import os
import shutil
import stat
import subprocess
import sys

import pytest
from bench_modules import BENCHMARKS, NO_DRIVER, ROOT, load, run

programs = load("programs")

OWN = {"device_query", "first_kernel", "gpuarray_script", "reduction", "random_numbers",
       "thrust_kernel"}  # fmt: skip


def test_the_list_holds_our_programs_and_the_single_process_examples():
    found = programs.programs()
    names = [p.name for p in found]
    assert len(names) == len(set(names))
    assert {p.name for p in found if p.group == "own"} == OWN
    examples = {p.name for p in found if p.group == "examples"}
    expected = {
        p.stem
        for p in (ROOT / "examples").glob("*.py")
        if not p.name.startswith(("mpi_", "interop_"))
    }
    assert examples == expected and "hello_gpu" in examples
    assert [p.name for p in programs.programs(only="_kernel")] == [
        "first_kernel",
        "thrust_kernel",
        "reduction_kernel",
    ]


def test_extra_directories_add_their_programs(tmp_path):
    (tmp_path / "a.py").write_text("print('a')\n")
    (tmp_path / "notes.txt").write_text("not a program\n")
    extra = [p for p in programs.programs([str(tmp_path)]) if p.group == "extra"]
    assert [(p.name, p.path) for p in extra] == [(f"{tmp_path.name}/a", tmp_path / "a.py")]


@pytest.mark.parametrize("name", sorted(OWN))
def test_each_own_program_says_what_it_is_and_checks_its_result(name):
    path = BENCHMARKS / "programs" / f"{name}.py"
    tree = ast.parse(path.read_text())
    assert ast.get_docstring(tree)
    assert any(isinstance(node, ast.Assert) for node in ast.walk(tree))
    assert f'print("{name}: ok")' in path.read_text()


def test_the_thrust_program_includes_thrust_and_cub():
    text = (BENCHMARKS / "programs" / "thrust_kernel.py").read_text()
    assert "#include <thrust/" in text and "#include <cub/" in text


def test_arguments():
    args = programs.parse_args([])
    assert args.repeat == 3 and not args.dry_run and args.baseline_pythonpath is None
    args = programs.parse_args(
        ["--python", "/x/python", "--pythonpath", "/ours", "--baseline-pythonpath", "/orig",
         "--repeat", "5", "--json", "out.json", "--dry-run"]
    )  # fmt: skip
    assert (args.python, args.pythonpath, args.baseline_pythonpath) == (
        "/x/python",
        "/ours",
        "/orig",
    )
    assert (args.repeat, args.json, args.dry_run) == (5, "out.json", True)
    labels = [(b.label, b.python, b.pythonpath) for b in programs.builds(args)]
    assert labels == [("ours", "/x/python", "/ours"), ("baseline", "/x/python", "/orig")]
    with pytest.raises(SystemExit):
        programs.parse_args(["--repeat", "0"])


def test_each_run_has_its_own_private_cache(tmp_path):
    build = programs.Build("ours", sys.executable, "/ours")
    cache = programs.fresh_cache(tmp_path / "c")
    (cache / "stale").write_text("x")
    cache = programs.fresh_cache(tmp_path / "c")
    # Empty but for the folder $PYCUDA_CACHE_DIR names, which the original does not make.
    assert os.listdir(cache) == ["pycuda"] and not os.listdir(cache / "pycuda")
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(cache / "pycuda").st_mode) == 0o700
    env = programs.environment(build, cache)
    assert env["PYTHONPATH"] == "/ours"
    assert env["PYCUDA_CACHE_DIR"] == str(cache / "pycuda") and env["XDG_CACHE_HOME"] == str(cache)


def test_the_dry_run_lists_every_program_and_runs_none(tmp_path):
    marker = tmp_path / "ran"
    (tmp_path / "p.py").write_text(f"open({str(marker)!r}, 'w')\n")
    proc = run(
        "programs", "--dry-run", "--baseline-pythonpath", "/orig", "--extra", str(tmp_path),
        PYCUDA_LIBCUDA=NO_DRIVER,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    for prog in programs.programs([str(tmp_path)]):
        assert str(prog.path) in proc.stdout
    assert "baseline" in proc.stdout and "floor.c" in proc.stdout
    assert not marker.exists()


def test_a_program_that_fails_is_reported_and_left_out_of_the_totals(tmp_path):
    good, bad = tmp_path / "good.py", tmp_path / "bad.py"
    good.write_text("print('good: ok')\n")
    bad.write_text("raise SystemExit('no GPU here')\n")
    progs = [programs.Program("good", good, "extra"), programs.Program("bad", bad, "extra")]
    ours = programs.Build("ours", sys.executable, None)
    base = programs.Build("baseline", sys.executable, None)
    args = programs.parse_args(["--repeat", "2"])
    for prog in progs:
        programs.time_program(prog, [ours, base], args, tmp_path / "work")
    assert len(ours.times["good"]["cold"]) == 2 and len(ours.times["good"]["warm"]) == 2
    assert "no GPU here" in ours.failures["bad"] and "good" not in ours.failures
    text = programs.table(progs, [ours, base])
    [bad_row] = [line for line in text.splitlines() if line.startswith("bad ")]
    assert "FAILED" in bad_row
    total = text.splitlines()[-1].split()
    good_cold = programs.median(ours.times["good"]["cold"])
    assert float(total[-6]) == pytest.approx(good_cold, abs=1e-3)


def test_warm_only_times_no_cold_run_and_totals_the_warm_ones(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("print('good: ok')\n")
    prog = programs.Program("good", good, "extra")
    ours = programs.Build("ours", sys.executable, None)
    base = programs.Build("baseline", sys.executable, None)
    args = programs.parse_args(["--repeat", "3", "--warm-only"])
    programs.time_program(prog, [ours, base], args, tmp_path / "work")
    assert ours.times["good"] == {"cold": [], "warm": ours.times["good"]["warm"]}
    assert len(ours.times["good"]["warm"]) == 3 == len(base.times["good"]["warm"])
    total = programs.table([prog], [ours, base]).splitlines()[-1].split()
    assert float(total[-5]) == pytest.approx(programs.median(ours.times["good"]["warm"]), abs=1e-3)
    assert total[-2] == "-"  # no cold ratio


def test_the_breakdown_reads_the_stamps_of_each_stage(tmp_path):
    """A stand-in interpreter prints the stamps _stages.py prints: each stage's time is the
    gap between its stamp and the one before."""
    fake = tmp_path / "python"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import time\n"
        "t = time.monotonic()\n"
        "print('STAMPS start=%r import_numpy=%r the_work=%r' % (t - 0.5, t - 0.25, t))\n"
        "print('NVRTC not-loaded')\n"
    )
    fake.chmod(0o755)
    got = programs.stages_once(programs.Build("ours", str(fake), None), tmp_path, cold=False)
    assert got["import numpy"] == pytest.approx(0.25) and got["the work"] == pytest.approx(0.25)
    assert got["exit"] > 0 and got["nvrtc loaded"] == 0.0
    parts = ("interpreter start", "import numpy", "the work", "exit")
    assert sum(got[k] for k in parts) == pytest.approx(got["total"])
    text = programs.breakdown_text({"floor": {"python -c pass": 0.02},
                                    "builds": {"ours": {"warm": got}}})  # fmt: skip
    assert "import numpy" in text and "NVRTC loaded" in text


@pytest.mark.skipif(not (shutil.which("cc") or shutil.which("gcc")), reason="no C compiler")
def test_the_floor_program_builds_and_says_what_is_missing(tmp_path):
    exe = programs.build_floor(tmp_path)
    proc = subprocess.run([str(exe), NO_DRIVER], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "cannot open" in proc.stderr
