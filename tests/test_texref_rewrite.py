"""The texture-reference rewrite (pycuda._texref_rewrite, applied by pycuda.compiler) and the
headers behind it: every CUDA 11 texture and surface declaration form compiles to a cubin with
NVRTC on CUDA 12/13, and the variables carry the layout the host reads
(core/texture_reference.hpp)."""

from __future__ import annotations

import struct

import pytest

from pycuda import _driver, _texref_rewrite
from pycuda import compiler as C

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

TEXREF_MAGIC, SURFREF_MAGIC = 0x58544350, 0x46534350


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_memo", {})
    return str(tmp_path / "cache")


# --- the rewrite, as text ---------------------------------------------------------------------


def test_source_without_references_is_unchanged():
    src = "__global__ void f(float *a) { a[0] = 1; } // no textures here\n"
    assert _texref_rewrite.rewrite_texture_references(src) is src
    src2 = "int texture_count; float surface_area(float x) { return x < 2 ? x : 2; }"
    assert _texref_rewrite.rewrite_texture_references(src2) == src2


def test_declarations_get_device_and_the_header():
    src = "texture<float, 2> MyTexture;\nsurface<void, 3> s;\n"
    out = _texref_rewrite.rewrite_texture_references(src)
    assert out == (
        "#include <pycuda-texref.hpp>\n"
        "__device__ texture<float, 2> MyTexture;\n__device__ surface<void, 3> s;\n"
    )


def test_comments_strings_directives_and_other_uses_are_left_alone():
    src = (
        "// texture<float> in_line_comment;\n"
        "/* texture<float> in_block;\n   surface<void, 2> s; */\n"
        'const char *msg = "texture<float> in_string;";\n'
        "const char c = '<';\n"
        "#define TEX(name) texture<float, 1> name\n"
        "typedef texture<float, 2> Tex2;\n"
        "__device__ float f(texture<float, 1> t, int i) { return tex1Dfetch(t, i); }\n"
        "static texture<int, 1> st;\n"
        "texture <float4, 3> spaced;\n"
        "int texture_like; bool b = texture_like < 3;\n"
    )
    out = _texref_rewrite.rewrite_texture_references(src)
    expected = src.replace("static texture<int", "static __device__ texture<int").replace(
        "texture <float4", "__device__ texture <float4"
    )
    assert out == "#include <pycuda-texref.hpp>\n" + expected


def test_inside_extern_c_block():
    src = 'extern "C" {\ntexture<float, 2> t;\n}\n'
    out = _texref_rewrite.rewrite_texture_references(src)
    assert "{\n__device__ texture<float, 2> t;" in out
    assert out.startswith("#include <pycuda-texref.hpp>\n")


# --- compiled with NVRTC ----------------------------------------------------------------------

DECLARATIONS = [
    ("texture<float, 2> MyTexture;", "tex1Dfetch(MyTexture, i) + tex2D(MyTexture, 1.f, 2.f)"),
    ("texture<float> t;", "tex1Dfetch(t, i) + tex1D(t, 0.5f)"),
    ("texture<float, 1, cudaReadModeElementType> t;", "tex1Dfetch(t, i)"),
    ("texture<float, cudaTextureType3D> t;", "tex3D(t, 1.f, 2.f, 3.f)"),
    ("texture<float, 3, cudaReadModeElementType> t;", "tex3D(t, 1.f, 2.f, 3.f)"),
    ("texture<float2, 2> t;", "tex2D(t, 1.f, 1.f).y"),
    ("texture<float4, 2> t;", "tex2D(t, 1.f, 1.f).w"),
    ("texture<int2, 1, cudaReadModeElementType> t;", "(float)tex1Dfetch(t, i).y"),
    ("texture<int, 1> t;", "(float)tex1Dfetch(t, i)"),
    ("texture<unsigned int, 2> t;", "(float)tex2D(t, 0.f, 0.f)"),
    ("texture<uchar4, 2, cudaReadModeNormalizedFloat> t;", "tex2D(t, 0.f, 0.f).z"),
    ("texture<uchar4, 2, cudaReadModeElementType> t;", "(float)tex2D(t, 0.f, 0.f).z"),
    ("texture<unsigned char, 2, cudaReadModeNormalizedFloat> t;", "tex2D(t, 0.f, 0.f)"),
    ("texture<short2, 1, cudaReadModeNormalizedFloat> t;", "tex1Dfetch(t, i).x"),
    ("texture<float, cudaTextureType2DLayered> t;", "tex2DLayered(t, 0.f, 0.f, 2)"),
    ("texture<float, cudaTextureType1DLayered> t;", "tex1DLayered(t, 0.f, 1)"),
    ("texture<float4, cudaTextureTypeCubemap> t;", "texCubemap(t, 1.f, 0.f, 0.f).x"),
    ("static texture<float, 2> t;", "tex2D(t, 0.f, 0.f)"),
    ("texture<float, 2> a, b;", "tex2D(a, 0.f, 0.f) + tex2D(b, 1.f, 1.f)"),
    (
        "surface<void, 2> s;",
        "surf2Dread<float>(s, 4 * i, 0) + (surf2Dwrite(1.f, s, 4 * i, 1), 0.f)",
    ),
    (
        "surface<void, cudaSurfaceType3D> s;",
        "(surf3Dwrite(make_float4(1, 2, 3, 4), s, 16 * i, 0, 0), surf3Dread<float4>(s, 0, 0, 0).w)",
    ),
    (
        "surface<void, cudaSurfaceType2DLayered> s;",
        "(surf2DLayeredwrite(2.f, s, 4 * i, 0, 1), surf2DLayeredread<float>(s, 0, 0, 1))",
    ),
    ("surface<void, 1> s;", "(surf1Dwrite(i, s, 4 * i), (float)surf1Dread<int>(s, 0))"),
]


def _kernel(declaration: str, expression: str) -> str:
    return (
        f"{declaration}\n"
        "__global__ void k(float *out) {\n"
        "    int i = threadIdx.x;\n"
        f"    out[i] = {expression};\n"
        "}\n"
    )


@needs_nvrtc
@pytest.mark.parametrize(("declaration", "expression"), DECLARATIONS)
def test_declaration_forms_compile(declaration, expression, cache_dir):
    cubin = C.compile(_kernel(declaration, expression), arch="sm_90", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"


@needs_nvrtc
def test_surface_read_by_pointer_and_function_parameters(cache_dir):
    src = """
    texture<float, 2> tex;
    surface<void, 2> surf;
    __device__ float sample(texture<float, 2> t, float x) { return tex2D(t, x, x); }
    __global__ void k(float *out) {
        float v;
        surf2Dread(&v, surf, 0, 0, cudaBoundaryModeZero);
        out[0] = v + sample(tex, 0.5f);
    }
    """
    assert C.compile(src, arch="sm_90", cache_dir=cache_dir)[:4] == b"\x7fELF"


@needs_nvrtc
def test_seed_000_declaration_compiles(cache_dir):
    src = "texture<float, 2> MyTexture;\n// Rest of Code\n"
    cubin = C.compile(src, arch="sm_90", cache_dir=cache_dir)
    # No kernel uses it, yet the variable is there for get_texref, with its declaration.
    assert _elf_symbols(cubin)["MyTexture"][2] == 32
    assert _initial_words(cubin, "MyTexture")[1:6] == (TEXREF_MAGIC, 2, 0, 0x20, 1)


@needs_nvrtc
def test_no_extern_c_and_ptx(cache_dir):
    src = _kernel("texture<float, 2> t;", "tex2D(t, 0.f, 0.f)")
    src = 'extern "C" {\n' + src + "}\n"
    ptx = C.compile(src, arch="sm_90", no_extern_c=True, target="ptx", cache_dir=cache_dir)
    assert b".global .align 8 .b8 t[32]" in ptx


@needs_nvrtc
def test_fp_helpers_compile(cache_dir):
    src = """
    #include <pycuda-helpers.hpp>
    texture<fp_tex_double, 1, cudaReadModeElementType> td;
    texture<fp_tex_cfloat, 2, cudaReadModeElementType> tc;
    texture<fp_tex_cdouble, 3, cudaReadModeElementType> tz;
    texture<fp_tex_float, cudaTextureType2DLayered> tl;
    texture<fp_tex_double, cudaTextureType2DLayered> tdl;
    surface<void, 2> s2;
    surface<void, 3> s3;
    surface<void, cudaSurfaceType2DLayered> sl;
    __global__ void k(double *d, pycuda::complex<float> *c, pycuda::complex<double> *z) {
        int i = threadIdx.x;
        d[i] = fp_tex1Dfetch(td, i) + fp_tex2DLayered(tl, 0, 0, 1) + fp_tex2DLayered(tdl, 0, 0, 0);
        c[i] = fp_tex2D(tc, i, 0);
        z[i] = fp_tex3D(tz, i, 0, 0);
        fp_surf2Dwrite(d[i], s2, i, 0);
        fp_surf3Dwrite(z[i], s3, i, 0, 0);
        fp_surf2DLayeredwrite(c[i], sl, i, 0, 1, cudaBoundaryModeZero);
        double x; fp_surf2Dread(&x, s2, i, 1);
        pycuda::complex<double> y; fp_surf3Dread(&y, s3, i, 1, 0);
        pycuda::complex<float> w; fp_surf2DLayeredread(&w, sl, i, 0, 0);
        d[i] += x + y.real() + w.imag();
    }
    """
    assert C.compile(src, arch="sm_90", cache_dir=cache_dir)[:4] == b"\x7fELF"


# --- the variables' layout in the cubin -------------------------------------------------------


def _elf_symbols(elf: bytes) -> dict[str, tuple[int, int, int]]:
    """{name: (section index, value, size)} of an ELF64 little-endian image's symbols."""
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    out = {}
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name, _info, _other, shndx, value, size = struct.unpack_from("<IBBHQQ", elf, off)
            end = elf.index(b"\0", strtab[4] + name)
            out[elf[strtab[4] + name : end].decode()] = (shndx, value, size)
    return out


def _initial_words(elf: bytes, name: str) -> tuple[int, ...]:
    (shoff,) = struct.unpack_from("<Q", elf, 0x28)
    (shentsize,) = struct.unpack_from("<H", elf, 0x3A)
    shndx, value, size = _elf_symbols(elf)[name]
    section = struct.unpack_from("<IIQQQQIIQQ", elf, shoff + shndx * shentsize)
    return struct.unpack_from("<QIIIIII", elf, section[4] + value)


@needs_nvrtc
@pytest.mark.parametrize(
    ("declaration", "words"),
    [
        ("texture<float, 2> v;", (TEXREF_MAGIC, 2, 0, 0x20, 1)),
        ("texture<uchar4, 2, cudaReadModeNormalizedFloat> v;", (TEXREF_MAGIC, 2, 1, 0x01, 4)),
        ("texture<fp_tex_double, 1, cudaReadModeElementType> v;", (TEXREF_MAGIC, 1, 0, 0x0A, 2)),
        ("texture<short, cudaTextureType2DLayered> v;", (TEXREF_MAGIC, 0xF2, 0, 0x09, 1)),
        ("texture<uint2, 3> v;", (TEXREF_MAGIC, 3, 0, 0x03, 2)),
        ("surface<void, cudaSurfaceType3D> v;", (SURFREF_MAGIC, 3, 0, 0, 0)),
    ],
)
def test_variable_layout(declaration, words, cache_dir):
    src = "#include <pycuda-helpers.hpp>\n" + declaration + "\n"
    src += "__global__ void k(unsigned long long *o) { o[0] = v.object; }\n"
    cubin = C.compile(src, arch="sm_90", cache_dir=cache_dir)
    assert _elf_symbols(cubin)["v"][2] == 32
    initial = _initial_words(cubin, "v")
    assert initial[0] == 0  # no object until the host binds one
    assert initial[1:6] == words


def test_elementwise_preamble_texture_compiles(monkeypatch):
    """ElementwiseKernel.get_texref's kernels: a texture declared in the preamble compiles."""
    import pycuda.compiler as compiler
    from pycuda.elementwise import get_elwise_module

    binaries = []

    def compile_only(source, options=None, keep=False, no_extern_c=False):
        binaries.append(
            compiler.compile(source, options=options, no_extern_c=no_extern_c, arch="sm_90")
        )

    monkeypatch.setattr(compiler, "SourceModule", compile_only)
    get_elwise_module(
        "float *out, unsigned long n",
        "out[i] = tex1Dfetch(src_tex, i)",
        "from_tex",
        preamble="texture<float, 1, cudaReadModeElementType> src_tex;",
    )
    assert binaries and binaries[0][:4] == b"\x7fELF"
