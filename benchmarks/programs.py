"""benchmarks/programs.py: whole programs, each run as its own process and timed from start to
exit, with an empty compile cache (cold) and a filled one (warm), beside another build (the
original PyCUDA) in the same run; and a breakdown of one program's time.

    python benchmarks/programs.py --baseline-pythonpath /opt/pycuda-orig/lib --json out.json
    python benchmarks/programs.py --dry-run          # what it would run (no GPU needed)

The programs: benchmarks/programs/*.py (tutorial style: a device query, a first kernel, a
GPUArray script, a reduction, random numbers, a kernel including Thrust and CUB), examples/*.py
(but those that need MPI or another library) and every *.py of each ``--extra DIR`` (another set
of programs written for the original, say). Each program runs as a user runs it: ``python
prog.py`` in its own directory, with PYTHONPATH set to the build under test. The compile cache
is a directory of the run's own (``$PYCUDA_CACHE_DIR`` and ``$XDG_CACHE_HOME``, which ours and
the original both read): emptied before each cold run, filled by an untimed run before the warm
ones. Times are medians of ``--repeat`` runs; builds alternate run by run, so drift in the
machine falls on both.

The breakdown (benchmarks/programs/_stages.py, first_kernel's work with a stamp after each
stage): interpreter start (``python -c pass``), NumPy's import, pycuda.driver's import, cuInit and
the primary context, NVRTC's load (cold, ours), the compile or the cache hit, the module load,
the work, and the exit (from the last stamp to the process's end); beside the floor of a CUDA
program (benchmarks/programs/floor.c, built here with cc: dlopen libcuda, cuInit, retain the
primary context, exit).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
OWN = HERE / "programs"
# Examples that need what one process on one GPU does not give: mpirun, or another library.
SKIP_EXAMPLES = ("mpi_", "interop_")
BREAKDOWN_STAGES = (
    "import numpy",
    "import pycuda.driver",
    "cuInit + context",
    "import pycuda.compiler",
    "NVRTC load",
    "compile or cache hit",
    "module load",
    "the work",
)


@dataclass
class Program:
    """One program to time: its name in the table, its file, and where it comes from."""

    name: str
    path: Path
    group: str


@dataclass
class Build:
    """A build under test: the interpreter and the PYTHONPATH that finds its pycuda."""

    label: str
    python: str
    pythonpath: str | None
    times: dict[str, dict[str, list[float]]] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--python", default=sys.executable, help="the interpreter to run programs")
    p.add_argument("--pythonpath", help="PYTHONPATH for the build under test (default: inherited)")
    p.add_argument("--baseline-pythonpath", help="PYTHONPATH of a second build (the original)")
    p.add_argument("--baseline-python", help="its interpreter (default: --python)")
    p.add_argument("--repeat", type=int, default=3, help="timed runs per program and state")
    p.add_argument("--json", help="write every time measured to this file")
    p.add_argument("--extra", action="append", default=[], help="a directory of more programs")
    p.add_argument("--only", help="run only programs whose name contains this")
    p.add_argument("--breakdown-repeat", type=int, default=5, help="runs of the breakdown")
    p.add_argument("--timeout", type=float, default=600, help="seconds a program may take")
    p.add_argument(
        "--warm-only", action="store_true",
        help="time only warm runs (the cache filled by one untimed run): more repeats in a budget",
    )  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="list what would run, run nothing")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.breakdown_repeat < 1:
        p.error("--repeat and --breakdown-repeat must be at least 1")
    return args


def programs(extra: list[str] = (), only: str | None = None) -> list[Program]:
    """Every program to time, in table order."""
    found = [Program(p.stem, p, "own") for p in sorted(OWN.glob("[!_]*.py"))]
    found += [
        Program(p.stem, p, "examples")
        for p in sorted((REPO / "examples").glob("*.py"))
        if not p.name.startswith(SKIP_EXAMPLES)
    ]
    for d in extra:
        directory = Path(d).resolve()
        found += [
            Program(f"{directory.name}/{p.stem}", p, "extra")
            for p in sorted(directory.glob("*.py"))
        ]
    if only:
        found = [p for p in found if only in p.name]
    return found


def builds(args: argparse.Namespace) -> list[Build]:
    out = [Build("ours", args.python, args.pythonpath)]
    if args.baseline_pythonpath:
        out.append(Build("baseline", args.baseline_python or args.python, args.baseline_pythonpath))
    return out


def environment(build: Build, cache: Path, **extra: str) -> dict[str, str]:
    """The environment of one run: the build's PYTHONPATH and the run's own compile cache."""
    env = dict(os.environ, **extra)
    if build.pythonpath is not None:
        env["PYTHONPATH"] = build.pythonpath
    env["PYCUDA_CACHE_DIR"] = str(cache / "pycuda")
    env["XDG_CACHE_HOME"] = str(cache)
    env.pop("PYCUDA_DISABLE_CACHE", None)
    return env


def fresh_cache(path: Path) -> Path:
    """An empty cache directory, private (ours refuses to use one that others can write), with
    the ``pycuda`` folder $PYCUDA_CACHE_DIR names made: the original writes into that folder but
    does not make it."""
    shutil.rmtree(path, ignore_errors=True)
    (path / "pycuda").mkdir(mode=0o700, parents=True)
    path.chmod(0o700)
    return path


def run_once(build: Build, program: Program, cache: Path, timeout: float) -> tuple[float, str]:
    """(seconds from start to exit, "" or why it failed)."""
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [build.python, str(program.path)], cwd=program.path.parent,
            env=environment(build, cache), capture_output=True, text=True, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return time.perf_counter() - start, f"ran past {timeout:.0f} s"
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        lines = (proc.stderr.strip() or proc.stdout.strip() or "(no output)").splitlines()
        return elapsed, f"exit {proc.returncode}: {lines[-1]}"
    return elapsed, ""


def time_program(program: Program, all_builds: list[Build], args, work: Path) -> None:
    """Cold runs (an empty cache each), one untimed run to fill the cache, warm runs; builds
    alternating run by run."""
    for build in all_builds:
        build.times[program.name] = {"cold": [], "warm": []}
    for _ in range(0 if args.warm_only else args.repeat):
        for build in all_builds:
            if program.name in build.failures:
                continue
            cache = fresh_cache(work / build.label / "cold")
            elapsed, failure = run_once(build, program, cache, args.timeout)
            if failure:
                build.failures[program.name] = failure
            else:
                build.times[program.name]["cold"].append(elapsed)
    for build in all_builds:
        if program.name not in build.failures:
            run_once(build, program, fresh_cache(work / build.label / "warm"), args.timeout)
    for _ in range(args.repeat):
        for build in all_builds:
            if program.name in build.failures:
                continue
            elapsed, failure = run_once(build, program, work / build.label / "warm", args.timeout)
            if failure:
                build.failures[program.name] = failure
            else:
                build.times[program.name]["warm"].append(elapsed)


def progress_line(prog: Program, all_builds: list[Build]) -> str:
    """One program's medians per build, as it is timed (a run cut short keeps these)."""
    parts = []
    for b in all_builds:
        if prog.name in b.failures:
            parts.append(f"{b.label} failed")
            continue
        cold, warm = (median(b.times[prog.name][s]) for s in ("cold", "warm"))
        parts.append(f"{b.label} cold {cold or 0:.3f} warm {warm or 0:.3f}")
    return "; ".join(parts)


def median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def table(progs: list[Program], all_builds: list[Build]) -> str:
    """The per-program table and the totals over the programs every build ran."""
    ours, base = all_builds[0], all_builds[1] if len(all_builds) > 1 else None
    head = f"{'program':32s} {'cold s':>8s} {'warm s':>8s}"
    if base:
        head += f" {'base cold':>10s} {'base warm':>10s} {'cold x':>7s} {'warm x':>7s}"
    lines = [head, "-" * len(head)]
    totals = {"cold": [0.0, 0.0], "warm": [0.0, 0.0]}

    def fmt(v: float | None, width: int, digits: int = 3) -> str:
        return f"{v:{width}.{digits}f}" if v is not None else f"{'-':>{width}s}"

    for prog in progs:
        failed = [
            f"{b.label}: {b.failures[prog.name]}" for b in all_builds if prog.name in b.failures
        ]
        cold, warm = (median(ours.times[prog.name][s]) for s in ("cold", "warm"))
        row = f"{prog.name:32s} {fmt(cold, 8)} {fmt(warm, 8)}"
        if base:
            bcold, bwarm = (median(base.times[prog.name][s]) for s in ("cold", "warm"))
            rc = cold / bcold if cold and bcold else None
            rw = warm / bwarm if warm and bwarm else None
            row += f" {fmt(bcold, 10)} {fmt(bwarm, 10)} {fmt(rc, 7, 2)} {fmt(rw, 7, 2)}"
            if not failed:
                for state, mine, theirs in (("cold", cold, bcold), ("warm", warm, bwarm)):
                    totals[state][0] += mine or 0.0  # None: not timed (--warm-only)
                    totals[state][1] += theirs or 0.0
        elif not failed:
            totals["cold"][0] += cold or 0.0
            totals["warm"][0] += warm or 0.0
        lines.append(row + (f"   FAILED ({'; '.join(failed)})" if failed else ""))
    lines.append("-" * len(head))
    row = (
        f"{'total (programs all builds ran)':32s} {totals['cold'][0]:8.3f} {totals['warm'][0]:8.3f}"
    )
    if base:
        (c, bc), (w, bw) = totals["cold"], totals["warm"]
        ratios = (c / bc if bc else None, w / bw if bw else None)
        row += f" {bc:10.3f} {bw:10.3f} {fmt(ratios[0], 7, 2)} {fmt(ratios[1], 7, 2)}"
    lines.append(row)
    return "\n".join(lines)


# {{{ the breakdown


def build_floor(work: Path) -> Path | None:
    """benchmarks/programs/floor.c built with cc into `work`; None (and why, on stderr) when
    there is no C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("breakdown: no C compiler for the floor program", file=sys.stderr)
        return None
    exe = work / "floor"
    subprocess.run([cc, "-O2", "-o", str(exe), str(OWN / "floor.c"), "-ldl"], check=True)
    return exe


def time_command(command: list[str], env: dict[str, str] | None = None) -> float | None:
    start = time.perf_counter()
    proc = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    return elapsed if proc.returncode == 0 else None


def stages_once(build: Build, cache: Path, cold: bool) -> dict[str, float] | str:
    """One run of _stages.py: {stage: seconds}, with "interpreter start" (process start to the
    first stamp) and "exit" (last stamp to the process's end); or why it failed."""
    env = environment(build, cache, **({"PYCUDA_BENCH_COLD": "1"} if cold else {}))
    start = time.monotonic()
    proc = subprocess.run(
        [build.python, str(OWN / "_stages.py")], env=env, capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    end = time.monotonic()
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("STAMPS ")), None)
    if proc.returncode != 0 or line is None:
        lines = (proc.stderr.strip() or "(no output)").splitlines()
        return f"exit {proc.returncode}: {lines[-1]}"
    stamps = [(k.replace("_", " "), float(v)) for k, v in (f.split("=") for f in line.split()[1:])]
    out = {"interpreter start": stamps[0][1] - start}
    for (_, before), (name, after) in zip(stamps, stamps[1:], strict=False):
        out[name] = after - before
    out["exit"] = end - stamps[-1][1]
    out["total"] = end - start
    out["nvrtc loaded"] = float("NVRTC loaded" in proc.stdout)
    return out


def breakdown(all_builds: list[Build], args, work: Path) -> dict:
    """Medians of each stage, cold and warm, per build; and the floors."""
    result: dict = {"floor": {}, "builds": {}}
    floor = build_floor(work)
    libcuda = os.environ.get("PYCUDA_LIBCUDA", "libcuda.so.1")
    floors = {
        "python -c pass": [all_builds[0].python, "-c", "pass"],
        "python -c 'import numpy'": [all_builds[0].python, "-c", "import numpy"],
    }
    if floor is not None:
        floors["C: cuInit + primary context + exit"] = [str(floor), libcuda]
    for name, command in floors.items():
        runs = [time_command(command) for _ in range(args.breakdown_repeat)]
        result["floor"][name] = median([r for r in runs if r is not None])
    for build in all_builds:
        per_state: dict = {}
        for state in ("cold", "warm"):
            runs = []
            for _ in range(args.breakdown_repeat):
                cache = work / build.label / "stages"
                if state == "cold":
                    fresh_cache(cache)
                elif not cache.exists():
                    stages_once(build, fresh_cache(cache), cold=True)
                got = stages_once(build, cache, cold=state == "cold")
                if isinstance(got, str):
                    per_state[state] = {"failed": got}
                    break
                runs.append(got)
            else:
                keys = runs[0].keys()
                per_state[state] = {k: median([r.get(k, 0.0) for r in runs]) for k in keys}
        result["builds"][build.label] = per_state
    return result


def breakdown_text(result: dict) -> str:
    lines = ["floors (median s):"]
    for name, value in result["floor"].items():
        lines.append(f"  {name:40s} {value:8.3f}" if value is not None else f"  {name:40s} failed")
    for label, per_state in result["builds"].items():
        for state, stages in per_state.items():
            lines.append(f"{label}, {state} cache (first_kernel's work, median s):")
            if "failed" in stages:
                lines.append(f"  FAILED: {stages['failed']}")
                continue
            order = ["interpreter start", *BREAKDOWN_STAGES, "exit", "total"]
            for name in order:
                if name in stages:
                    lines.append(f"  {name:40s} {stages[name]:8.3f}")
            lines.append(f"  {'NVRTC loaded':40s} {'yes' if stages.get('nvrtc loaded') else 'no'}")
    return "\n".join(lines)


# }}}


def dry_run(progs: list[Program], all_builds: list[Build], args) -> None:
    print(f"would time {len(progs)} programs, {args.repeat} cold and {args.repeat} warm runs each:")
    for build in all_builds:
        print(
            f"  {build.label}: {build.python} with PYTHONPATH={build.pythonpath or '(inherited)'}"
        )
    for prog in progs:
        print(f"  [{prog.group}] {prog.name}: python {prog.path}")
    print("breakdown: cc benchmarks/programs/floor.c; python -c pass; python -c 'import numpy'; "
          f"python {OWN / '_stages.py'} (cold and warm, {args.breakdown_repeat} runs)")  # fmt: skip
    if args.json:
        print(f"results to {args.json}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    progs = programs(args.extra, args.only)
    all_builds = builds(args)
    if args.dry_run:
        dry_run(progs, all_builds, args)
        return 0
    with tempfile.TemporaryDirectory(prefix="pycuda-programs-") as tmp:
        work = Path(tmp)
        for prog in progs:
            time_program(prog, all_builds, args, work)
            line = progress_line(prog, all_builds)
            print(f"timed {prog.name}: {line}", file=sys.stderr, flush=True)
        print(table(progs, all_builds))
        stages = breakdown(all_builds, args, work)
        print()
        print(breakdown_text(stages))
    if args.json:
        record = {
            "date": time.strftime("%Y-%m-%d %H:%M:%S"),
            "repeat": args.repeat,
            "builds": {
                b.label: {
                    "python": b.python,
                    "pythonpath": b.pythonpath,
                    "times": b.times,
                    "failures": b.failures,
                }  # fmt: skip
                for b in all_builds
            },
            "programs": [{"name": p.name, "path": str(p.path), "group": p.group} for p in progs],
            "breakdown": stages,
        }
        Path(args.json).write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
