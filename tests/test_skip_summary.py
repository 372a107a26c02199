"""The skip summary of conftest.py: one line per distinct reason with its count, while failures,
errors and xfails are listed per test as pytest's -ra lists them; reasons are one line."""

from __future__ import annotations

import conftest
import pytest

pytest_plugins = ["pytester"]

NO_DRIVER = (
    "no CUDA driver found: could not open libcuda.so.1 (set PYCUDA_LIBCUDA to its path if it is "
    "installed elsewhere). Looked in:\n  libcuda.so.1: cannot open shared object file\n"
    "  /usr/lib64/libcuda.so.1: cannot open shared object file"
)


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """Two test files that skip for one reason at several lines, one more reason, a failure, an
    error and an xfail."""
    pytester.makepyfile(
        test_one=f"""
        import pytest

        REASON = {NO_DRIVER!r}

        @pytest.mark.parametrize("n", range(5))
        def test_many(n):
            pytest.skip(REASON)

        def test_other():
            pytest.skip("needs mpi4py")

        def test_fails():
            assert 1 == 2

        @pytest.fixture
        def broken():
            raise RuntimeError("set-up broke")

        def test_errors(broken):
            pass

        @pytest.mark.xfail(reason="known gap")
        def test_xfails():
            assert False
        """,
        test_two=f"""
        import pytest

        @pytest.mark.skip(reason={NO_DRIVER!r})
        def test_a():
            pass

        @pytest.mark.skip(reason={NO_DRIVER!r})
        def test_b():
            pass
        """,
    )
    return pytester


def run(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    """pytest in this process over `suite`, with tests/conftest.py's hooks as a plugin."""
    return suite.runpytest_inprocess(*args, plugins=[conftest])


def test_one_line_per_reason_with_its_count(suite: pytest.Pytester) -> None:
    result = run(suite, "-ra")
    result.assert_outcomes(passed=0, failed=1, errors=1, skipped=8, xfailed=1)
    text = result.stdout.str()
    skip_lines = [line for line in text.splitlines() if line.startswith("SKIPPED")]
    short = (
        "no CUDA driver found: could not open libcuda.so.1 (set PYCUDA_LIBCUDA to its path if it "
        "is installed elsewhere)."
    )
    assert skip_lines == [
        f"SKIPPED [7] (2 files) {short}",
        "SKIPPED [1] (test_one.py) needs mpi4py",
    ]
    assert "Looked in" not in text
    # pytest's own per-test lines for the rest (in its order), in its short summary after the skips
    result.stdout.fnmatch_lines(
        [
            "*= skips by reason =*",
            "*= short test summary info =*",
            "XFAIL test_one.py::test_xfails - known gap",
            "ERROR test_one.py::test_errors - RuntimeError: set-up broke",
            "FAILED test_one.py::test_fails - assert 1 == 2",
        ]
    )


def test_no_skip_lines_unless_asked(suite: pytest.Pytester) -> None:
    result = run(suite, "-rN", "-rf")
    text = result.stdout.str()
    assert "SKIPPED" not in text and "skips by reason" not in text
    result.stdout.fnmatch_lines(["FAILED test_one.py::test_fails - assert 1 == 2"])


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        (NO_DRIVER, NO_DRIVER.split(". Looked in:")[0] + "."),
        ("cuInit failed: CUDA_ERROR_NO_DEVICE: no CUDA-capable device", None),
        ("a list follows:\n  one\n  two", "a list follows"),
        ("ends in a colon:", None),
    ],
)
def test_reasons_are_one_line(message: str, expected: str | None) -> None:
    assert conftest.one_line(message) == (message if expected is None else expected)


def test_the_gpu_reason_is_one_line() -> None:
    reason = conftest.gpu_unavailable_reason()
    if reason is None:
        pytest.skip("a GPU is usable here: no reason to check")
    assert "\n" not in reason and "Looked in" not in reason and len(reason) <= 120, reason
