"""bindings/arg_packer.cpp: a NumPy scalar given for a kernel parameter of another size (the
driver tells the size, through cuFuncGetParamInfo) is converted as C converts it, byte for
byte, and an ArgumentConversionWarning says so where the kernel then reads another number than
the one given (docs/migrating.md, "Arguments the original reinterprets").

CPU: every case runs in one child interpreter against the fake driver of tests/fake_libcuda.py,
whose kernels report the parameter sizes named by $HOSTEMU_PARAM_SIZES and which keeps the last
launch's parameter buffer. No compiler is needed: the fake loads any image. The bytes expected
are NumPy's ``astype`` where NumPy converts as C does.
"""

from __future__ import annotations

import json
import math
import struct
import warnings
from typing import NamedTuple

import fake_libcuda
import numpy as np
import pytest


class Case(NamedTuple):
    name: str
    size: int  # the parameter's size, as the driver reports it
    arg: str  # the argument, evaluated in the child
    want: bytes | None  # the parameter's bytes; None where the call is refused
    outcome: str  # "exact", "warns: <regex>" or "TypeError: <regex>"


def astype(value, dtype) -> bytes:
    with warnings.catch_warnings(), np.errstate(over="ignore", invalid="ignore"):
        warnings.simplefilter("ignore")
        return np.array(value).astype(dtype).tobytes()


def low_bytes(value: int, size: int) -> bytes:
    return (value % 2 ** (8 * size)).to_bytes(size, "little")


TIE = 1 + 2**-11 + 2**-40  # rounded to float first, then to half, it would give 1.0

CASES = [
    # Integers: the value where it lies in the signed or the unsigned range of the size.
    Case("uint32 for 8 bytes", 8, "np.uint32(7)", struct.pack("<Q", 7), "exact"),
    Case("int32 -1 for 8 bytes", 8, "np.int32(-1)", struct.pack("<q", -1), "exact"),
    Case("int64 that fits 4 bytes", 4, "np.int64(-5)", struct.pack("<i", -5), "exact"),
    Case("int64 -1 for an unsigned int", 4, "np.int64(-1)", b"\xff" * 4, "exact"),
    Case("uint64 2**32-1 for 4 bytes", 4, "np.uint64(2**32 - 1)", b"\xff" * 4, "exact"),
    Case("bool for 4 bytes", 4, "np.bool_(True)", struct.pack("<I", 1), "exact"),
    # ... else its low bytes (two's complement), as C and astype convert to unsigned types.
    Case("int64 2**40+7 for 4 bytes", 4, "np.int64(2**40 + 7)", astype(2**40 + 7, np.int32),
         r"warns: is 4 bytes; the int64 value 1099511627783 given was converted to its low 4 "
         r"bytes \(7 as int32 or uint32\), as C converts it"),
    Case("int64 -2**40-5 for 4 bytes", 4, "np.int64(-2**40 - 5)", low_bytes(-(2**40) - 5, 4),
         r"warns: \(-5 as int32, 4294967291 as uint32\)"),
    Case("uint32 70000 for 2 bytes", 2, "np.uint32(70000)", astype(70000, np.uint16),
         r"warns: is 2 bytes; the uint32 value 70000 .*\(4464 as int16 or uint16\)"),
    Case("uint64 max for 4 bytes", 4, "np.uint64(2**64 - 1)", b"\xff" * 4,
         r"warns: \(-1 as int32, 4294967295 as uint32\)"),
    Case("int16 300 for 1 byte", 1, "np.int16(300)", low_bytes(300, 1),
         r"warns: is 1 byte; the int16 value 300 given was converted to its low byte \(44 as "
         r"int8 or uint8\)"),
    Case("timedelta64 for 4 bytes", 4, "np.timedelta64(2**40 + 1, 's')", low_bytes(2**40 + 1, 4),
         r"warns: the timedelta64\[s\] value"),
    Case("int32 -3 for 16 bytes", 16, "np.int32(-3)", low_bytes(-3, 16),
         r"warns: a 128-bit integer of the same value, as C converts it \(a kernel reading a "
         r"vector or struct"),
    # Floats: rounded to nearest, ties to even; beyond the range, infinity.
    Case("float32 for 8 bytes", 8, "np.float32(0.1)", astype(np.float32(0.1), np.float64),
         "exact"),
    Case("float16 for 4 bytes", 4, "np.float16(1.5)", struct.pack("<f", 1.5), "exact"),
    Case("float64 0.5 for 4 bytes", 4, "np.float64(0.5)", struct.pack("<f", 0.5), "exact"),
    Case("float64 nan for 4 bytes", 4, "np.float64('nan')", astype(math.nan, np.float32),
         "exact"),
    Case("float64 -inf for 4 bytes", 4, "np.float64('-inf')", astype(-math.inf, np.float32),
         "exact"),
    Case("float64 0.1 for 4 bytes", 4, "np.float64(0.1)", astype(0.1, np.float32),
         r"warns: is 4 bytes; the float64 value 0.1 given was converted to float32 "
         r"\(0.100000001\), as C converts it"),
    Case("float64 1e300 for 4 bytes", 4, "np.float64(1e300)", struct.pack("<f", math.inf),
         r"warns: the float64 value 1e\+300 given was converted to float32 \(inf\)"),
    Case("float64 -1e300 for 4 bytes", 4, "np.float64(-1e300)", struct.pack("<f", -math.inf),
         r"warns: float32 \(-inf\)"),
    Case("float64 just past float max", 4, "np.float64(3.4028235e38 * (1 + 2**-26))",
         astype(3.4028235e38 * (1 + 2**-26), np.float32), r"warns: float32 \(3.40282347e\+38\)"),
    Case("float64 0.1 for 2 bytes", 2, "np.float64(0.1)", astype(0.1, np.float16),
         r"warns: float16 \(0.099976\)"),
    Case("float64 half tie for 2 bytes", 2, f"np.float64({TIE!r})", astype(TIE, np.float16),
         r"warns: float16 \(1.001\)"),
    Case("float64 1e6 for 2 bytes", 2, "np.float64(1e6)", struct.pack("<e", math.inf),
         r"warns: float16 \(inf\)"),
    Case("longdouble 1e300*10 for 4 bytes", 4, "np.longdouble(1e300) * 10",
         struct.pack("<f", math.inf), r"warns: float32 \(inf\)"),
    Case("longdouble 0.1 for 8 bytes", 8, "np.longdouble(1) / 10",
         astype(np.longdouble(1) / 10, np.float64), r"warns: float64 \(0.10000000000000001\)"),
    Case("float64 for 16 bytes", 16, "np.float64(2.5)", struct.pack("<dd", 2.5, 0),
         r"warns: complex128 \(2.5\+0j\), as C converts it \(a kernel reading a vector"),
    # ... and to 1 byte, an integer: truncated toward zero.
    Case("float64 2.5 for 1 byte", 1, "np.float64(2.5)", b"\x02",
         r"warns: is 1 byte; the float64 value 2.5 given was converted to an integer, "
         r"truncated toward zero \(2 as int8 or uint8\)"),
    Case("float32 -1.5 for 1 byte", 1, "np.float32(-1.5)", b"\xff",
         r"warns: \(-1 as int8, 255 as uint8\)"),
    # Complex numbers: both parts (8 or 16 bytes), or the real part, as C converts them.
    Case("complex64 for 16 bytes", 16, "np.complex64(1 + 2j)", struct.pack("<dd", 1, 2),
         "exact"),
    Case("complex128 exact in 8 bytes", 8, "np.complex128(0.5 - 2j)",
         struct.pack("<ff", 0.5, -2), "exact"),
    Case("complex128 for 8 bytes", 8, "np.complex128(0.1 + 0.2j)",
         astype(0.1 + 0.2j, np.complex64),
         r"warns: complex64 \(0.100000001\+0.200000003j\)"),
    Case("complex64 real for 4 bytes", 4, "np.complex64(3)", struct.pack("<f", 3), "exact"),
    Case("complex64 for 4 bytes", 4, "np.complex64(1 + 2j)", struct.pack("<f", 1),
         r"warns: the complex64 value \(1\+2j\) given was converted to its real part as "
         r"float32 \(1\)"),
    # No number has these sizes.
    Case("float32 for 12 bytes", 12, "np.float32(1)", None,
         r"TypeError: parameter 0 \(0-based\) of kernel 'k' is 12 bytes, and the argument "
         r"given, .* \(4 bytes\), has no conversion to 12 bytes"),
    Case("int32 for 3 bytes", 3, "np.int32(1)", None, "TypeError: has no conversion to 3 bytes"),
]  # fmt: skip


KERNELS = """
import json, struct, warnings
from pycuda._user_warnings import ArgumentConversionWarning

_FAKE.hostemu_last_params.restype = ctypes.c_size_t
# A module per kernel asked for: a module queries its kernels once (the fake tells sizes as
# $HOSTEMU_PARAM_SIZES says at that query).
IMAGE = b"// any image: the fake loads it\\0"

def last_params():
    buf = (ctypes.c_ubyte * 4096)()
    n = _FAKE.hostemu_last_params(buf, len(buf))
    return bytes(buf[:n])

def kernel(*sizes):
    # The fake tells a function's parameter sizes as $HOSTEMU_PARAM_SIZES says when it is made.
    os.environ["HOSTEMU_PARAM_SIZES"] = ",".join(map(str, sizes))
    try:
        return drv.module_from_buffer(IMAGE).get_function("k")
    finally:
        del os.environ["HOSTEMU_PARAM_SIZES"]
"""

CHILD = """
def outcome(size, arg):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kernel(size)(eval(arg), block=(1, 1, 1))
            error = None
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    ours = [w for w in caught if w.category is ArgumentConversionWarning]
    return {
        "bytes": None if error else last_params().hex(),
        "error": error,
        "warnings": [str(w.message) for w in ours],
        "files": [w.filename for w in ours],
        "others": [str(w.message) for w in caught if w.category is not ArgumentConversionWarning],
    }

results = {name: outcome(size, arg) for name, size, arg in CASES}

# As an error, the warning refuses the call before the launch.
warnings.simplefilter("error", ArgumentConversionWarning)
kernel(4)(np.int32(11), block=(1, 1, 1))
try:
    kernel(4)(np.float64(0.1), block=(1, 1, 1))
    refused = "launched"
except ArgumentConversionWarning as exc:
    refused = str(exc)
results["<error filter>"] = {"refused": refused, "bytes": last_params().hex()}

# Later parameters go at the driver's offsets, after a converted one.
warnings.simplefilter("ignore")
kernel(4, 8, 2)(np.float64(0.25), np.int16(-2), np.float64(3.0), block=(1, 1, 1))
results["<offsets>"] = {"bytes": last_params().hex()}
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def outcomes(fake_libcuda_so) -> dict[str, dict]:
    """What each case of CASES does here: one child interpreter over the fake driver."""
    table = [(c.name, c.size, c.arg) for c in CASES]
    out = fake_libcuda.run_on_fake(fake_libcuda_so, f"CASES = {table!r}\n" + KERNELS + CHILD)
    return json.loads(out.strip().splitlines()[-1])


def test_case_names_are_distinct() -> None:
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_scalar_conversion(outcomes: dict[str, dict], case: Case) -> None:
    got = outcomes[case.name]
    kind, _, pattern = case.outcome.partition(": ")
    assert got["others"] == []
    if kind == "TypeError":
        assert got["error"] is not None and got["error"].startswith("TypeError: "), got
        assert __import__("re").search(pattern, got["error"]), got["error"]
        return
    assert got["error"] is None, got["error"]
    assert bytes.fromhex(got["bytes"]) == case.want, (got["bytes"], case.want.hex())
    if kind == "exact":
        assert got["warnings"] == []
        return
    assert len(got["warnings"]) == 1, got["warnings"]
    message = got["warnings"][0]
    assert message.startswith(f"parameter 0 (0-based) of kernel 'k' is {case.size} byte")
    assert __import__("re").search(pattern.removeprefix("warns: "), message), message
    assert message.endswith(
        "Pass a NumPy scalar of the parameter's own type to make that explicit (the original "
        f"PyCUDA passed the {eval(case.arg, {'np': np}).nbytes} bytes given as they were)"
    )
    # At the caller's line (the child's program), not inside pycuda.
    assert got["files"] == ["<string>"]


def test_warning_as_error_refuses_before_launch(outcomes: dict[str, dict]) -> None:
    got = outcomes["<error filter>"]
    assert got["refused"].startswith(
        "parameter 0 (0-based) of kernel 'k' is 4 bytes; the float64 value 0.1 given was "
        "converted to float32 (0.100000001), as C converts it."
    )
    assert bytes.fromhex(got["bytes"]) == struct.pack("<i", 11)  # the call before it


def test_later_parameters_at_driver_offsets(outcomes: dict[str, dict]) -> None:
    got = bytes.fromhex(outcomes["<offsets>"]["bytes"])
    assert got == struct.pack("<f4xqe", 0.25, -2, 3.0)


def test_warning_class() -> None:
    from pycuda._user_warnings import ArgumentConversionWarning

    assert issubclass(ArgumentConversionWarning, UserWarning)


PREPARED_CHILD = """
def outcome(fmt, size, value):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kernel(size).prepare(fmt).prepared_call((1, 1), (1, 1, 1), value)
            error = None
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"
    return {
        "bytes": None if error else last_params().hex(),
        "error": error,
        "warnings": [str(w.message) for w in caught if w.category is ArgumentConversionWarning],
    }

print(json.dumps({name: outcome(*case) for name, case in CASES.items()}))
"""

# A prepare() format code of another size than the kernel's parameter: the value converted to
# the parameter as C converts it, silently where it is the same number; a value that fits the
# format's own code but not the parameter (which the original packed without error) with a
# warning; one that fits neither stays an OverflowError, as struct.pack refused it.
PREPARED_CASES = {
    "i for 8 bytes": ("i", 8, -7, struct.pack("<q", -7), None),
    "q 5 for 4 bytes": ("q", 4, 5, struct.pack("<i", 5), None),
    "q 2**40+7 for 4 bytes": ("q", 4, 2**40 + 7, struct.pack("<i", 7),
                              r"is 4 bytes but prepare\(\) was given 'q': the integer "
                              r"1099511627783 does not fit; the kernel reads its low 4 bytes"),
    "Q 2**63 for 4 bytes": ("Q", 4, 2**63, struct.pack("<I", 0), "its low 4 bytes"),
    "d 0.5 for 4 bytes": ("d", 4, 0.5, struct.pack("<f", 0.5), None),
    "d 0.1 for 4 bytes": ("d", 4, 0.1, struct.pack("<f", 0.1),
                          r"given 'd': the value 0.1 was rounded to the float 0.10000000149"),
    "i 2**40 for 2 bytes": ("i", 2, 2**40, "OverflowError", None),
}  # fmt: skip


def test_prepared_calls_convert_like_c(fake_libcuda_so) -> None:
    cases = {name: case[:3] for name, case in PREPARED_CASES.items()}
    out = fake_libcuda.run_on_fake(
        fake_libcuda_so, f"CASES = {cases!r}\n" + KERNELS + PREPARED_CHILD
    )
    got = json.loads(out.strip().splitlines()[-1])
    for name, (_, _, _, want, warning) in PREPARED_CASES.items():
        result = got[name]
        if want == "OverflowError":
            assert result["error"] and result["error"].startswith("OverflowError"), (name, result)
            continue
        assert result["error"] is None, (name, result["error"])
        assert bytes.fromhex(result["bytes"]) == want, (name, result["bytes"])
        if warning is None:
            assert result["warnings"] == [], (name, result["warnings"])
        else:
            assert len(result["warnings"]) == 1, (name, result["warnings"])
            assert __import__("re").search(warning, result["warnings"][0]), result["warnings"]
