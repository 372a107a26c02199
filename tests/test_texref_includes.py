"""Texture references declared in included files (issue 21, item 2): the rewrite inlines the
files that declare them (pycuda._texref_rewrite.rewrite_texture_includes, called by
pycuda.compiler), wherever they are found: include_dirs, next to the including file, nested,
the working directory. Without a GPU: what the compilers are given, that it compiles (NVRTC
and nvcc), messages that point at the files, and the cache seeing header changes. With one: the
1-D, 2-D and 3-D programs of the issue run and read their textures."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from test_texref_rewrite import TEXREF_MAGIC, _elf_symbols, _initial_words

import pycuda.driver as drv
from pycuda import _driver
from pycuda import compiler as C
from pycuda._texref_rewrite import rewrite_texture_includes, rewrite_texture_references

gpu = pytest.mark.gpu
needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")

# The three programs: {path under the test's directory: text}, and the main source.
# Each main source is compiled with include_dirs=[<dir>/inc].
PROGRAMS: dict[str, tuple[dict[str, str], str]] = {
    # A .cu file of kernels found through include_dirs, fetched with tex1Dfetch.
    "1d": (
        {
            "inc/kernels.cu": (
                "texture<int, 1, cudaReadModeElementType> tex;\n"
                "__global__ void copy1d(int *dest, int n)\n"
                "{\n"
                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "    if (i < n) dest[i] = 3 * tex1Dfetch(tex, i);\n"
                "}\n"
            )
        },
        '#include "kernels.cu"\n',
    ),
    # A 2-D texture (tex2D), in a header the kernel file includes from its own directory.
    "2d": (
        {
            "inc/kernels2d.cu": '#include "textures2d.h"\n' + "#include <pycuda-helpers.hpp>\n"
            "__global__ void copy2d(float *dest, int w)\n"
            "{\n"
            "    int x = threadIdx.x, y = threadIdx.y;\n"
            "    dest[y * w + x] = tex2D(mtx, x + 0.5f, y + 0.5f);\n"
            "}\n",
            "inc/textures2d.h": "#pragma once\ntexture<float, 2> mtx;\n",
        },
        '#include "kernels2d.cu"\n#include "textures2d.h"\n',
    ),
    # A 3-D texture (tex3D) two includes deep, in a subdirectory, behind an include guard.
    "3d": (
        {
            "inc/volume.cuh": (
                "#ifndef VOLUME_CUH\n#define VOLUME_CUH\n"
                '#include "detail/tex3d.cuh"\n'
                "__global__ void copy3d(float *dest, int w, int h)\n"
                "{\n"
                "    int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;\n"
                "    float v = tex3D(vol, x + 0.5f, y + 0.5f, z + 0.5f);\n"
                "    dest[(z * h + y) * w + x] = SCALE * v;\n"
                "}\n"
                "#endif\n"
            ),
            "inc/detail/tex3d.cuh": (
                '#include "scale.h"\ntexture<float, 3, cudaReadModeElementType> vol;\n'
            ),
            "inc/detail/scale.h": "#define SCALE 2.5f\n",
        },
        '#include "volume.cuh"\n',
    ),
}

# The texture each program declares: its name, and (dim, read mode, format, channels) as the
# variable records them (pycuda-texref.hpp).
DECLARED = {
    "1d": ("tex", (1, 0, 0x0A, 1)),
    "2d": ("mtx", (2, 0, 0x20, 1)),
    "3d": ("vol", (3, 0, 0x20, 1)),
}


OLD = 1_000_000_000  # seconds since 1970: a file time long past


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    # An old time on the files and the directories searched: the memo trusts stamps this old
    # (newer ones are checked again).
    for name in files:
        path = root / name
        while path != root:
            os.utime(path, (OLD, OLD))
            path = path.parent


def _program(root: Path, which: str) -> tuple[str, list[str]]:
    """Writes the files of PROGRAMS[which] under ``root``: (main source, include_dirs)."""
    files, main = PROGRAMS[which]
    _write(root, files)
    return main, [str(root / "inc")]


@pytest.fixture
def fresh(monkeypatch):
    """No compile remembered in this process, so each compile below is one."""
    monkeypatch.setattr(C, "_memo", {})


@pytest.fixture
def given(monkeypatch):
    """What NVRTC and nvcc are given: a list of (compiler, source, options)."""
    calls: list[tuple[str, str, list[str]]] = []
    nvrtc, nvcc = C._compile_nvrtc, C.compile_plain

    def record_nvrtc(source, options, *args, **kwargs):
        calls.append(("nvrtc", source, list(options)))
        return nvrtc(source, options, *args, **kwargs)

    def record_nvcc(source, options, *args, **kwargs):
        calls.append(("nvcc", source, list(options)))
        return nvcc(source, options, *args, **kwargs)

    monkeypatch.setattr(C, "_compile_nvrtc", record_nvrtc)
    monkeypatch.setattr(C, "compile_plain", record_nvcc)
    return calls


# --- the rewrite, as text ---------------------------------------------------------------------


def test_no_reference_in_any_included_file_leaves_the_source_as_it_is(tmp_path):
    _write(tmp_path, {"a.h": '#include "b.h"\nint texture_count;\n', "b.h": "#define N 4\n"})
    src = '#include "a.h"\n#include <missing.h>\n__global__ void f(int *a) { a[0] = N; }\n'
    out = rewrite_texture_includes(src, [], here=str(tmp_path))
    assert out.source is src and out.stamps == []
    # A reference in the main source alone: the same as rewrite_texture_references.
    src2 = src + "texture<float, 2> t;\n"
    out = rewrite_texture_includes(src2, [], here=str(tmp_path))
    assert out.source == rewrite_texture_references(src2) and out.stamps == []


def test_included_file_is_inlined_rewritten_between_line_directives(tmp_path):
    main, dirs = _program(tmp_path, "1d")
    kernels = str(tmp_path / "inc" / "kernels.cu")
    out = rewrite_texture_includes('extern "C" {\n' + main + "}\n", dirs, here="/")
    body = PROGRAMS["1d"][0]["inc/kernels.cu"].replace("texture<", "__device__ texture<")
    assert out.source == (
        "#include <pycuda-texref.hpp>\n"
        'extern "C" {\n'
        f'#line 1 "{kernels}"\n{body}'
        '#line 4 "kernel.cu"\n'  # the header is line 1, so the main source's line 3 is line 4
        "}\n"
    )
    st, root = os.stat(kernels), os.stat("/")
    # The file, and the directory where it was looked for first.
    assert out.stamps == [
        (kernels, st.st_mtime_ns, st.st_size),
        ("/", root.st_mtime_ns, root.st_size),
    ]


def test_nested_includes_next_to_the_including_file_and_through_include_dirs(tmp_path):
    main, dirs = _program(tmp_path, "3d")
    inc = tmp_path / "inc"
    out = rewrite_texture_includes(main, dirs, here=str(tmp_path))
    # Both files on the way to the declaration are inlined; the header that declares nothing
    # stays an #include, by its absolute path, since the text is no longer next to it.
    assert f'#line 1 "{inc / "volume.cuh"}"\n' in out.source
    assert f'#line 1 "{inc / "detail" / "tex3d.cuh"}"\n' in out.source
    assert f'#include "{inc / "detail" / "scale.h"}"\n' in out.source
    assert "__device__ texture<float, 3, cudaReadModeElementType> vol;" in out.source
    assert f'#line 4 "{inc / "volume.cuh"}"\n__global__' in out.source
    assert out.source.endswith('#line 3 "kernel.cu"\n')
    assert [s[0] for s in out.stamps] == [
        str(inc / "volume.cuh"),
        str(inc / "detail/tex3d.cuh"),
        str(tmp_path),  # where volume.cuh was looked for first
    ]


def test_the_including_files_directory_comes_before_include_dirs(tmp_path):
    _write(
        tmp_path,
        {
            "inc/k.cu": '#include "t.h"\n',
            "inc/t.h": "texture<float, 2> near;\n",
            "other/t.h": "texture<float, 2> far;\n",
        },
    )
    dirs = [str(tmp_path / "other"), str(tmp_path / "inc")]
    out = rewrite_texture_includes('#include "k.cu"\n', dirs, here=str(tmp_path))
    assert "__device__ texture<float, 2> near;" in out.source and "far" not in out.source
    # From the main source, the search directories' order decides.
    out = rewrite_texture_includes('#include "t.h"\n', dirs, here=str(tmp_path))
    assert "__device__ texture<float, 2> far;" in out.source and "near" not in out.source


def test_system_commented_and_unresolved_includes_are_left_alone(tmp_path):
    _write(tmp_path, {"inc/k.cu": "texture<float, 1> t;\n"})
    src = (
        "#include <k.cu>\n"
        '// #include "k.cu"\n'
        '/* #include "k.cu" */\n'
        '#include "not_there.h"\n'
        '#define NAME "k.cu"\n'
    )
    out = rewrite_texture_includes(src, [str(tmp_path / "inc")], here=str(tmp_path))
    assert out.source.removeprefix("#include <pycuda-texref.hpp>\n") == src
    assert out.stamps == []


def _cycle(root: Path) -> None:
    """a.h (#pragma once) and b.h (guarded) include each other; both declare a texture."""
    _write(
        root,
        {
            "a.h": '#pragma once\n#include "b.h"\ntexture<float, 2> ta;\n',
            "b.h": '#ifndef B_H\n#define B_H\n#include "a.h"\ntexture<int, 1> tb;\n#endif\n',
        },
    )


def test_pragma_once_becomes_a_guard_and_cycles_end(tmp_path):
    _cycle(tmp_path)
    out = rewrite_texture_includes('#include "a.h"\n#include "a.h"\n', [], here=str(tmp_path))
    a, b = str(tmp_path / "a.h"), str(tmp_path / "b.h")
    assert "#pragma once" not in out.source
    assert out.source.count("#ifndef PYCUDA_INLINED_") == 2  # a.h, inlined twice, guarded
    # b.h's include of a.h, already being inlined (#pragma once), is nothing.
    assert f'#include "{a}"' not in out.source and '#include "a.h"' not in out.source
    assert out.source.count(f'#line 1 "{b}"') == 2
    assert sorted(s[0] for s in out.stamps) == [a, b]  # each found where looked for first


@needs_nvrtc
def test_pragma_once_and_cycles_compile(tmp_path, fresh, monkeypatch):
    _cycle(tmp_path)
    monkeypatch.chdir(tmp_path)
    src = '#include "a.h"\n#include "a.h"\n__global__ void k(float *o) { o[0] = tex2D(ta, 0, 0); }'
    cubin = C.compile(src, arch="sm_90", cache_dir=False)
    assert {"ta", "tb"} <= set(_elf_symbols(cubin))


# --- compiled ---------------------------------------------------------------------------------


@needs_nvrtc
@pytest.mark.parametrize("which", sorted(PROGRAMS))
def test_programs_compile_with_nvrtc(which, tmp_path, fresh, given):
    main, dirs = _program(tmp_path, which)
    cubin = C.compile(main, arch="sm_90", include_dirs=dirs, cache_dir=False)
    name, words = DECLARED[which]
    assert _elf_symbols(cubin)[name][2] == 32
    assert _initial_words(cubin, name)[1:6] == (TEXREF_MAGIC, *words)
    # One source, with the declaration in it, went to NVRTC; nothing to nvcc.
    [(compiler, source, options)] = given
    assert compiler == "nvrtc"
    assert "__device__ texture<" in source and f"> {name};" in source
    assert f"-I{dirs[0]}" in options


@needs_nvcc
@pytest.mark.parametrize("which", sorted(PROGRAMS))
def test_programs_compile_with_nvcc(which, tmp_path, fresh, given, monkeypatch):
    monkeypatch.setenv("PYCUDA_COMPILER", "nvcc")
    main, dirs = _program(tmp_path, which)
    cubin = C.compile(main, arch="sm_90", include_dirs=dirs, cache_dir=False)
    name, words = DECLARED[which]
    assert _initial_words(cubin, name)[1:6] == (TEXREF_MAGIC, *words)
    [(compiler, source, _)] = given
    assert compiler == "nvcc" and "__device__ texture<" in source


@needs_nvrtc
def test_relative_to_the_working_directory_and_through_options(tmp_path, fresh, monkeypatch):
    main, _ = _program(tmp_path, "1d")
    monkeypatch.chdir(tmp_path)
    cubin = C.compile('#include "inc/kernels.cu"\n', arch="sm_90", cache_dir=False)
    assert "tex" in _elf_symbols(cubin)
    cubin = C.compile(main, options=["-I", "inc"], arch="sm_90", cache_dir=False)
    assert "tex" in _elf_symbols(cubin)


@needs_nvrtc
@pytest.mark.parametrize("compiler", ["nvrtc", "nvcc"])
def test_messages_point_at_the_included_file(compiler, tmp_path, fresh, monkeypatch):
    if compiler == "nvcc":
        if shutil.which("nvcc") is None:
            pytest.skip("nvcc is not on PATH")
        monkeypatch.setenv("PYCUDA_COMPILER", "nvcc")
    _write(
        tmp_path,
        {
            "inc/k.cu": '#include "t.h"\n\n__global__ void k(float *o) { o[0] = undefined_x; }\n',
            "inc/t.h": "texture<float, 2> t;\n",
        },
    )
    src = '#include "k.cu"\n\n__global__ void m(float *o) { o[0] = undefined_y; }\n'
    with pytest.raises(drv.CompileError) as info:
        C.compile(src, arch="sm_90", include_dirs=[str(tmp_path / "inc")], cache_dir=False)
    text = str(info.value)
    assert f"{tmp_path / 'inc' / 'k.cu'}(3)" in text and "undefined_x" in text
    # The main source's line 3 is the compiler's line 5: extern "C" and the header come first,
    # as without an inlined file.
    assert "kernel.cu(5)" in text and "undefined_y" in text


# --- the compile cache ------------------------------------------------------------------------


def _set_scale(root: Path, text: str, mtime_s: int) -> None:
    path = root / "inc" / "detail" / "tex3d.cuh"
    path.write_text(text)
    # Old, distinct times: stamps this old are trusted, so only the stamps tell the change.
    os.utime(path, (mtime_s, mtime_s))


@needs_nvrtc
def test_a_changed_included_file_recompiles(tmp_path, fresh, monkeypatch):
    main, dirs = _program(tmp_path / "src", "3d")
    original = PROGRAMS["3d"][0]["inc/detail/tex3d.cuh"]
    cache = str(tmp_path / "cache")
    # Where "volume.cuh" is looked for first: an old, empty directory.
    _write(tmp_path / "src", {"work/.keep": ""})
    monkeypatch.chdir(tmp_path / "src" / "work")

    def ptx() -> bytes:
        return C.compile(main, arch="sm_90", include_dirs=dirs, cache_dir=cache, target="ptx")

    _set_scale(tmp_path / "src", original, OLD)
    before = ptx()
    assert b"0f40200000" in before  # SCALE, 2.5f
    assert ptx() is before  # the memo: same arguments, files unchanged
    _set_scale(
        tmp_path / "src",
        original.replace('#include "scale.h"', "#define SCALE 5.0f"),
        1_000_000_100,
    )
    after = ptx()
    assert b"0f40A00000" in after and b"0f40200000" not in after
    # From the disk cache, with the process's memory cleared, each version finds its own.
    C._memo.clear()
    assert ptx() == after
    _set_scale(tmp_path / "src", original, 1_000_000_200)
    C._memo.clear()
    assert ptx() == before


@needs_nvrtc
def test_a_file_added_earlier_in_the_search_recompiles(tmp_path, fresh, monkeypatch):
    main, dirs = _program(tmp_path / "src", "1d")
    _write(tmp_path / "src", {"first/.keep": "", "work/.keep": ""})
    monkeypatch.chdir(tmp_path / "src" / "work")
    dirs = [str(tmp_path / "src" / "first"), *dirs]

    def symbols() -> set[str]:
        cubin = C.compile(main, arch="sm_90", include_dirs=dirs, cache_dir=str(tmp_path / "c"))
        return set(_elf_symbols(cubin))

    assert "tex" in symbols() and "tex" in symbols()
    _write(tmp_path / "src", {"first/kernels.cu": "texture<float, 2> other;\n"})
    os.utime(tmp_path / "src" / "first", (OLD + 100, OLD + 100))
    found = symbols()
    assert "other" in found and "tex" not in found


def test_a_changed_included_file_changes_the_cache_key(tmp_path):
    main, dirs = _program(tmp_path, "3d")
    original = PROGRAMS["3d"][0]["inc/detail/tex3d.cuh"]

    def key() -> str:
        source = rewrite_texture_includes(main, dirs, here=str(tmp_path)).source
        return C.cache_key(source, ["-arch=sm_90"], "cubin", "nvrtc", dirs)[0]

    first = key()
    assert key() == first
    _set_scale(tmp_path, original.replace("cudaReadModeElementType", "cudaReadModeElementType "), 2)
    assert key() != first
    # A file included, not inlined, by an inlined one (scale.h): its change changes it too.
    changed = key()
    (tmp_path / "inc" / "detail" / "scale.h").write_text("#define SCALE 3.0f\n")
    assert key() != changed


# --- on a GPU ---------------------------------------------------------------------------------


def _source_module(tmp_path: Path, which: str):
    from pycuda.compiler import SourceModule

    main, dirs = _program(tmp_path, which)
    return SourceModule(main, include_dirs=dirs)


@gpu
def test_1d_texture_from_an_included_file(ctx, tmp_path):
    from pycuda import gpuarray

    mod = _source_module(tmp_path, "1d")
    tex = mod.get_texref("tex")
    a = (np.arange(-500, 500, dtype=np.int32) * 1000003).astype(np.int32)
    a_gpu = gpuarray.to_gpu(a)
    assert a_gpu.bind_to_texref_ext(tex) == 0
    assert tex.get_flags() & drv.TRSF_READ_AS_INTEGER
    dest = np.zeros_like(a)
    mod.get_function("copy1d")(
        drv.Out(dest), np.int32(a.size), block=(256, 1, 1), grid=(4, 1), texrefs=[tex]
    )
    np.testing.assert_array_equal(dest, 3 * a)


@gpu
def test_2d_texture_from_an_included_file(ctx, tmp_path):
    mod = _source_module(tmp_path, "2d")
    tex = mod.get_texref("mtx")
    a = np.random.rand(8, 16).astype(np.float32)  # (h, w)
    drv.matrix_to_texref(a, tex, order="C")
    assert tex.get_format() == (drv.array_format.FLOAT, 1)
    dest = np.zeros_like(a)
    mod.get_function("copy2d")(drv.Out(dest), np.int32(16), block=(16, 8, 1), texrefs=[tex])
    np.testing.assert_array_equal(dest, a)


def _array_3d(a: np.ndarray):
    """A CUDA Array of ``a`` (depth, height, width; float32), filled by Memcpy3D."""
    d, h, w = a.shape
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, d
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    ary = drv.Array(descr)
    copy = drv.Memcpy3D()
    copy.set_src_host(a)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = a.strides[1]
    copy.src_height = copy.height = h
    copy.depth = d
    copy()
    return ary


@gpu
def test_3d_texture_from_a_nested_include(ctx, tmp_path):
    mod = _source_module(tmp_path, "3d")
    tex = mod.get_texref("vol")
    a = np.random.rand(4, 5, 6).astype(np.float32)  # (d, h, w)
    ary = _array_3d(a)
    tex.set_array(ary)
    dest = np.zeros_like(a)
    mod.get_function("copy3d")(
        drv.Out(dest), np.int32(6), np.int32(5), block=(6, 5, 4), texrefs=[tex]
    )
    np.testing.assert_array_equal(dest, np.float32(2.5) * a)


@gpu
def test_an_edited_included_file_is_recompiled_and_run(ctx, tmp_path):
    from pycuda.compiler import SourceModule

    main, dirs = _program(tmp_path, "3d")
    a = np.random.rand(2, 3, 4).astype(np.float32)
    ary = _array_3d(a)
    for scale, mtime in ((2, 1_000_000_000), (7, 1_000_000_050)):
        declaration = "texture<float, 3, cudaReadModeElementType> vol;\n"
        _set_scale(tmp_path, f"#define SCALE {scale}.0f\n{declaration}", mtime)
        mod = SourceModule(main, include_dirs=dirs)
        tex = mod.get_texref("vol")
        tex.set_array(ary)
        dest = np.zeros_like(a)
        mod.get_function("copy3d")(
            drv.Out(dest), np.int32(4), np.int32(3), block=(4, 3, 2), texrefs=[tex]
        )
        np.testing.assert_array_equal(dest, scale * a)
