"""pycuda._vec (gpuarray.vec): the 42 CUDA vector dtypes, their layout and make_* constructors."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pycuda._vec import VECTOR_TYPES, cuda_alignment, register_vector_types, vec

CUDA_HOME = Path(os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda")


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    candidate = CUDA_HOME / "bin" / "nvcc"
    return str(candidate) if candidate.exists() else None


def test_the_original_42_names():
    expected = [
        f"{base}{n}"
        for base in ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
        for n in (1, 2, 3, 4)
    ]
    expected += [f"{base}{n}" for base in ("longlong", "ulonglong") for n in (1, 2)]
    expected += [f"float{n}" for n in (1, 2, 3, 4)] + ["double1", "double2"]
    assert sorted(VECTOR_TYPES) == sorted(expected)
    assert len(VECTOR_TYPES) == 42
    for name in expected:
        assert getattr(vec, name) is VECTOR_TYPES[name]
        assert callable(getattr(vec, f"make_{name}"))


def test_fields_sizes_and_alignments():
    assert vec.float3.names == ("x", "y", "z")
    assert vec.float4.names == ("x", "y", "z", "w")
    assert vec.char1.names == ("x",)
    assert (vec.float3.itemsize, cuda_alignment(vec.float3)) == (12, 4)
    assert (vec.float4.itemsize, cuda_alignment(vec.float4)) == (16, 16)
    assert (vec.double2.itemsize, cuda_alignment(vec.double2)) == (16, 16)
    assert (vec.char3.itemsize, cuda_alignment(vec.char3)) == (3, 1)
    assert (vec.short2.itemsize, cuda_alignment(vec.short2)) == (4, 4)
    assert (vec.int2.itemsize, cuda_alignment(vec.int2)) == (8, 8)
    assert (vec.long4.itemsize, cuda_alignment(vec.long4)) == (4 * np.dtype("l").itemsize, 16)
    assert vec.double2.metadata["cuda_alignment"] == 16
    assert vec.uchar4.fields["w"][0] == np.uint8
    assert vec.ulonglong2.fields["y"] == (np.dtype(np.uint64), 8)
    # arrays pack like CUDA arrays of the type: float3 strides by 12 bytes
    assert np.zeros(5, vec.float3).strides == (12,)


def test_cuda_alignment_of_other_dtypes_is_numpys():
    assert cuda_alignment(np.float64) == 8
    assert cuda_alignment(np.dtype(np.int16)) == 2
    # an equal dtype made elsewhere (no metadata) still gets CUDA's alignment
    assert cuda_alignment(np.dtype([("x", np.float32), ("y", np.float32)])) == 8


def test_make_constructors():
    v = vec.make_float3(1, 2.5, -3)
    assert isinstance(v, np.ndarray) and v.shape == () and v.dtype == vec.float3
    assert (float(v["x"]), float(v["y"]), float(v["z"])) == (1.0, 2.5, -3.0)
    assert v.tobytes() == np.array([1, 2.5, -3], np.float32).tobytes()
    w = vec.make_int4(x=1, y=-2, z=3, w=2**31 - 1)
    assert w.item() == (1, -2, 3, 2**31 - 1)
    assert vec.make_double2(0.1, 0.2).tobytes() == np.array([0.1, 0.2]).tobytes()
    assert vec.make_uchar1(255).item() == (255,)
    assert vec.make_ulonglong2(2**64 - 1, 0).item() == (2**64 - 1, 0)
    assert vec.make_char2.__name__ == "make_char2"
    with pytest.raises(TypeError):
        vec.make_float3(1, 2)
    with pytest.raises(TypeError):
        vec.make_float2(1, 2, 3)
    with pytest.raises(OverflowError):
        vec.make_char1(300)


def test_register_vector_types_names_each_type_once_and_aliases_equal_layouts():
    calls = []
    register_vector_types(lambda dtype, names, alias_ok=False: calls.append((names, alias_ok)))
    assert [names for names, _ in calls] == [[name] for name in VECTOR_TYPES]
    aliases = {names[0] for names, alias_ok in calls if alias_ok}
    if np.dtype("l").itemsize == 8:  # LP64: long2 is longlong2
        assert aliases == {"longlong1", "longlong2", "ulonglong1", "ulonglong2"}
    else:  # LLP64: long2 is int2
        assert {"long1", "long2", "ulong1", "ulong2"} <= aliases


def test_register_vector_types_with_the_c_type_registry():
    dtypes = pytest.importorskip("pycuda.compyte.dtypes")
    registry = dtypes.DTypeRegistry() if hasattr(dtypes, "DTypeRegistry") else None
    if registry is None:
        pytest.skip("pycuda.compyte.dtypes has no DTypeRegistry class to register into")
    register_vector_types(registry.register_dtype)
    assert registry.dtype_to_ctype(vec.float3) == "float3"
    assert registry.dtype_to_ctype(vec.double2) == "double2"
    assert registry.get_or_register_dtype("longlong2") == vec.longlong2


@pytest.mark.skipif(_nvcc() is None, reason="nvcc not found")
def test_layout_equals_cudas_vector_types(tmp_path):
    # a host program prints sizeof, alignof and every field's offset and size as CUDA has them
    lines = []
    for name, dtype in VECTOR_TYPES.items():
        fields = "".join(
            f' printf(" %zu %zu", offsetof({name}, {f}), sizeof((({name}*)0)->{f}));'
            for f in dtype.names
        )
        lines.append(
            f'  printf("{name} %zu %zu", sizeof({name}), alignof({name}));{fields} printf("\\n");'
        )
    source = "#include <cstddef>\n#include <cstdio>\nint main() {\n" + "\n".join(lines) + "\n}\n"
    (tmp_path / "layout.cu").write_text(source)
    exe = tmp_path / "layout"
    build = subprocess.run(
        [_nvcc(), "-std=c++17", "-Wno-deprecated-declarations", "-o", str(exe),
         str(tmp_path / "layout.cu")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    seen = set()
    for line in out.splitlines():
        name, size, align, *fields = line.split()
        dtype = VECTOR_TYPES[name]
        assert dtype.itemsize == int(size), name
        assert cuda_alignment(dtype) == int(align), name
        offsets = [(int(fields[i]), int(fields[i + 1])) for i in range(0, len(fields), 2)]
        assert offsets == [(dtype.fields[f][1], dtype.fields[f][0].itemsize) for f in dtype.names]
        seen.add(name)
    assert seen == set(VECTOR_TYPES)


@pytest.mark.gpu
def test_vectors_pass_by_value_and_in_arrays(ctx):
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    mod = SourceModule(
        """
        __global__ void combine(float3 a, double2 b, char3 c, int4 d, const float3* points,
                                float4* out, double* total)
        {
            out[0] = make_float4(a.x + b.x, a.y * c.z, a.z + d.w, (float)b.y);
            double s = 0;
            for (int i = 0; i < 5; ++i)
                s += points[i].x + 10 * points[i].y + 100 * points[i].z;
            *total = s;
        }
        """
    )
    combine = mod.get_function("combine")
    points = np.zeros(5, vec.float3)
    points["x"], points["y"], points["z"] = np.arange(5), 1, 2
    out = np.zeros(1, vec.float4)
    total = np.zeros(1, np.float64)
    combine(
        vec.make_float3(1, 2, 3), vec.make_double2(0.5, -4), vec.make_char3(1, 2, 3),
        vec.make_int4(0, 0, 0, 7), drv.In(points), drv.Out(out), drv.Out(total),
        block=(1, 1, 1), grid=(1, 1),
    )  # fmt: skip
    assert out[0].item() == (1.5, 6.0, 10.0, -4.0)
    assert total[0] == np.arange(5).sum() + 5 * (10 + 200)
