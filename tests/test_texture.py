"""Textures and surfaces: references (texture<...> declarations, get_texref/get_surfref, the
setters and getters, texrefs=), texture and surface objects, the fp_tex double/complex hacks,
and seed 000's texture section. GPU tests run on the lead's H100/H200."""

from __future__ import annotations

import numpy as np
import pytest

import pycuda.driver as drv
from pycuda._texref import bind_gpuarray_to_texref, bind_gpuarray_to_texref_plain

gpu = pytest.mark.gpu


def _source_module(src: str):
    from pycuda.compiler import SourceModule

    return SourceModule(src)


class _DeviceArray:
    """The part of GPUArray's API the texref delegates use (gpuarray.py may be absent here)."""

    def __init__(self, host: np.ndarray) -> None:
        host = np.ascontiguousarray(host)
        self.shape, self.dtype, self.strides = host.shape, host.dtype, host.strides
        self.size, self.nbytes = host.size, host.nbytes
        self.gpudata = drv.mem_alloc(max(host.nbytes, 1))
        drv.memcpy_htod(self.gpudata, host)


def to_gpu(host: np.ndarray):
    try:
        from pycuda import gpuarray

        return gpuarray.to_gpu(host)
    except ImportError:
        return _DeviceArray(host)


def bind_ext(ary, texref, **kwargs) -> int:
    if hasattr(ary, "bind_to_texref_ext"):
        return ary.bind_to_texref_ext(texref, **kwargs)
    return bind_gpuarray_to_texref(ary, texref, **kwargs)


# --- without a GPU ----------------------------------------------------------------------------


def test_standalone_reference_holds_settings():
    tex = drv.TextureReference()
    assert tex.get_format() == (drv.array_format.FLOAT, 1)
    tex.set_format(drv.array_format.UNSIGNED_INT8, 4)
    tex.set_address_mode(0, drv.address_mode.WRAP)
    tex.set_address_mode(2, drv.address_mode.BORDER)
    tex.set_filter_mode(drv.filter_mode.LINEAR)
    tex.set_flags(drv.TRSF_NORMALIZED_COORDINATES)
    assert tex.get_format() == (drv.array_format.UNSIGNED_INT8, 4)
    assert tex.get_address_mode(0) == drv.address_mode.WRAP
    assert tex.get_address_mode(1) == drv.address_mode.CLAMP
    assert tex.get_address_mode(2) == drv.address_mode.BORDER
    assert tex.get_filter_mode() == drv.filter_mode.LINEAR
    assert tex.get_flags() == drv.TRSF_NORMALIZED_COORDINATES
    assert tex.get_array() is None
    assert tex.get_address() == 0


def test_standalone_reference_rejects_bad_settings():
    tex = drv.TextureReference()
    with pytest.raises(ValueError, match="1, 2 or 4"):
        tex.set_format(drv.array_format.FLOAT, 3)
    with pytest.raises(ValueError, match="dim"):
        tex.set_address_mode(3, drv.address_mode.CLAMP)
    with pytest.raises(ValueError, match="filter_mode"):
        tex.set_filter_mode(7)


# --- references on the GPU --------------------------------------------------------------------

SEED_SRC = """
texture<float, 2> MyTexture;
// Rest of Code
__global__ void copy_texture(float *dest, int n)
{
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n)
        dest[i] = tex1Dfetch(MyTexture, i);
}
"""


@gpu
def test_seed_000_texture_section(ctx):
    from numpy.random import randn

    texture_mode = _source_module(SEED_SRC)
    MyTexture = texture_mode.get_texref("MyTexture")  # noqa: N806 - the seed's name
    x = randn(5).astype(np.float32)
    x_gpu = to_gpu(x)
    bind_ext(x_gpu, MyTexture)
    dest = np.zeros_like(x)
    texture_mode.get_function("copy_texture")(
        drv.Out(dest), np.int32(5), block=(32, 1, 1), texrefs=[MyTexture]
    )
    np.testing.assert_array_equal(dest, x)


@gpu
def test_plain_bind_to_texref_uses_declared_format(ctx):
    mod = _source_module(SEED_SRC)
    tex = mod.get_texref("MyTexture")
    x = np.arange(100, dtype=np.float32)
    x_gpu = to_gpu(x)
    assert bind_gpuarray_to_texref_plain(x_gpu, tex) == 0
    assert tex.get_format() == (drv.array_format.FLOAT, 1)
    dest = np.zeros_like(x)
    mod.get_function("copy_texture")(drv.Out(dest), np.int32(100), block=(128, 1, 1))
    np.testing.assert_array_equal(dest, x)


COPY_2D_SRC = """
texture<float, 2> mtx;
__global__ void copy2d(float *dest, int w)
{
    int x = threadIdx.x, y = threadIdx.y;
    dest[y * w + x] = tex2D(mtx, x + 0.5f, y + 0.5f);
}
"""


@gpu
@pytest.mark.parametrize("order", ["C", "F"])
def test_2d_array_texture(ctx, order):
    mod = _source_module(COPY_2D_SRC)
    tex = mod.get_texref("mtx")
    a = np.random.rand(8, 16).astype(np.float32)  # (h, w)
    drv.matrix_to_texref(a if order == "C" else a.T, tex, order=order)
    assert tex.get_format() == (drv.array_format.FLOAT, 1)
    assert tex.get_address_mode(0) == drv.address_mode.CLAMP
    assert tex.get_filter_mode() == drv.filter_mode.POINT
    dest = np.zeros_like(a)
    mod.get_function("copy2d")(drv.Out(dest), np.int32(16), block=(16, 8, 1))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_3d_array_texture(ctx):
    mod = _source_module("""
    texture<float, 3> t3;
    __global__ void copy3d(float *dest, int w, int h)
    {
        int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
        dest[(z * h + y) * w + x] = tex3D(t3, x + 0.5f, y + 0.5f, z + 0.5f);
    }
    """)
    a = np.random.rand(4, 5, 6).astype(np.float32)  # (d, h, w)
    ary = drv.np_to_array(a, "C")
    tex = mod.get_texref("t3")
    drv.bind_array_to_texref(ary, tex)
    assert tex.get_array() is not None
    dest = np.zeros_like(a)
    mod.get_function("copy3d")(drv.Out(dest), np.int32(6), np.int32(5), block=(6, 5, 4))
    np.testing.assert_array_equal(dest, a)


LAYERED_SRC = """
texture<float, cudaTextureType2DLayered> tl;
__global__ void copy_layers(float *dest, int w, int h)
{
    int x = threadIdx.x, y = threadIdx.y, layer = threadIdx.z;
    dest[(layer * h + y) * w + x] = tex2DLayered(tl, x + 0.5f, y + 0.5f, layer);
}
"""


def _layered_array(a: np.ndarray):
    layers, h, w = a.shape
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, layers
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    descr.flags = drv.array3d_flags.LAYERED
    ary = drv.Array(descr)
    copy = drv.Memcpy3D()
    copy.set_src_host(a)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = w * 4
    copy.src_height = copy.height = h
    copy.depth = layers
    copy()
    return ary


@gpu
def test_layered_texture(ctx):
    mod = _source_module(LAYERED_SRC)
    a = np.random.rand(3, 4, 8).astype(np.float32)
    ary = _layered_array(a)
    desc = ary.get_descriptor_3d()
    assert (desc.width, desc.height, desc.depth) == (8, 4, 3)
    assert desc.flags & drv.array3d_flags.LAYERED
    mod.get_texref("tl").set_array(ary)
    dest = np.zeros_like(a)
    mod.get_function("copy_layers")(drv.Out(dest), np.int32(8), np.int32(4), block=(8, 4, 3))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_np_to_array_surface_bindable_2d_is_one_layer(ctx):
    mod = _source_module(LAYERED_SRC)
    a = np.random.rand(4, 8).astype(np.float32)
    ary = drv.np_to_array(a, "C", allowSurfaceBind=True)
    assert ary.get_descriptor_3d().flags & drv.array3d_flags.SURFACE_LDST
    mod.get_texref("tl").set_array(ary)
    dest = np.zeros_like(a)
    mod.get_function("copy_layers")(drv.Out(dest), np.int32(8), np.int32(4), block=(8, 4, 1))
    np.testing.assert_array_equal(dest, a)


SAMPLE_1D_SRC = """
texture<float, 1> t;
__global__ void sample(float *dest, const float *xs)
{
    int i = threadIdx.x;
    dest[i] = tex1D(t, xs[i]);
}
"""


def _array_1d(values: np.ndarray):
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = values.size, 0
    descr.format, descr.num_channels = drv.dtype_to_array_format(values.dtype), 1
    ary = drv.Array(descr)
    drv.memcpy_htoa(ary, 0, values)
    return ary


def _sample(mod, xs) -> np.ndarray:
    xs = np.asarray(xs, dtype=np.float32)
    dest = np.zeros_like(xs)
    mod.get_function("sample")(drv.Out(dest), drv.In(xs), block=(xs.size, 1, 1))
    return dest


@gpu
def test_linear_and_point_filtering(ctx):
    mod = _source_module(SAMPLE_1D_SRC)
    tex = mod.get_texref("t")
    tex.set_array(_array_1d(np.arange(8, dtype=np.float32) * 10))
    xs = [0.5, 1.0, 1.5, 2.25, 3.5]
    np.testing.assert_array_equal(_sample(mod, xs), [0, 10, 10, 20, 30])  # POINT is the default
    tex.set_filter_mode(drv.filter_mode.LINEAR)
    # Texel i sits at x = i + 0.5; weights carry 8 fraction bits.
    np.testing.assert_allclose(_sample(mod, xs), [0, 5, 10, 17.5, 30], atol=0.05)
    tex.set_filter_mode(drv.filter_mode.POINT)
    np.testing.assert_array_equal(_sample(mod, xs), [0, 10, 10, 20, 30])


@gpu
@pytest.mark.parametrize(
    ("mode", "outside"),
    [
        # x = 1.3125 (texel 10.5 of 8) and x = -0.0625 (texel -0.5), normalized
        ("WRAP", [3, 8]),  # 10.5 wraps to 2.5 -> v[2]; -0.5 wraps to 7.5 -> v[7]
        ("CLAMP", [8, 1]),
        ("MIRROR", [6, 1]),  # 10.5 mirrors to 5.5 -> v[5]; -0.5 mirrors to 0.5 -> v[0]
        ("BORDER", [0, 0]),
    ],
)
def test_normalized_coordinates_and_address_modes(ctx, mode, outside):
    mod = _source_module(SAMPLE_1D_SRC)
    tex = mod.get_texref("t")
    tex.set_array(_array_1d(np.arange(1, 9, dtype=np.float32)))  # v[i] = i + 1
    tex.set_flags(drv.TRSF_NORMALIZED_COORDINATES)
    tex.set_address_mode(0, getattr(drv.address_mode, mode))
    assert tex.get_address_mode(0) == getattr(drv.address_mode, mode)
    inside = (np.arange(8) + 0.5) / 8
    np.testing.assert_array_equal(_sample(mod, inside), np.arange(1, 9))
    np.testing.assert_array_equal(_sample(mod, [1.3125, -0.0625]), outside)


@gpu
def test_unnormalized_clamp_and_border_color(ctx):
    mod = _source_module(SAMPLE_1D_SRC)
    tex = mod.get_texref("t")
    tex.set_array(_array_1d(np.arange(1, 9, dtype=np.float32)))
    np.testing.assert_array_equal(_sample(mod, [10.0, -3.0]), [8, 1])
    tex.set_address_mode(0, drv.address_mode.BORDER)
    np.testing.assert_array_equal(_sample(mod, [10.0, -3.0, 2.5]), [0, 0, 3])
    tex.set_border_color((7.0, 0.0, 0.0, 0.0))
    np.testing.assert_array_equal(_sample(mod, [10.0]), [7])


@gpu
@pytest.mark.parametrize("channels", [2, 4])
def test_multichannel_array_texture(ctx, channels):
    vec = f"float{channels}"
    fields = "xyzw"[:channels]
    stores = " ".join(
        f"dest[(y * w + x) * {channels} + {k}] = v.{c};" for k, c in enumerate(fields)
    )
    mod = _source_module(f"""
    texture<{vec}, 2> mc;
    __global__ void copy(float *dest, int w)
    {{
        int x = threadIdx.x, y = threadIdx.y;
        {vec} v = tex2D(mc, x + 0.5f, y + 0.5f);
        {stores}
    }}
    """)
    a = np.random.rand(4, 8, channels).astype(np.float32)  # (h, w, channels)
    drv.bind_array_to_texref(drv.make_multichannel_2d_array(a, "C"), mod.get_texref("mc"))
    assert mod.get_texref("mc").get_format() == (drv.array_format.FLOAT, channels)
    dest = np.zeros_like(a)
    mod.get_function("copy")(drv.Out(dest), np.int32(8), block=(8, 4, 1))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_multichannel_linear_texture(ctx):
    mod = _source_module("""
    texture<float2, 1> t2;
    __global__ void copy(float *dest)
    {
        int i = threadIdx.x;
        float2 v = tex1Dfetch(t2, i);
        dest[2 * i] = v.x; dest[2 * i + 1] = v.y;
    }
    """)
    a = np.random.rand(64).astype(np.float32)
    a_gpu = to_gpu(a)
    assert bind_ext(a_gpu, mod.get_texref("t2"), channels=2) == 0
    dest = np.zeros_like(a)
    mod.get_function("copy")(drv.Out(dest), block=(32, 1, 1))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_normalized_uchar4_texture(ctx):
    mod = _source_module("""
    texture<uchar4, 2, cudaReadModeNormalizedFloat> img;
    __global__ void copy(float4 *dest, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        dest[y * w + x] = tex2D(img, x + 0.5f, y + 0.5f);
    }
    """)
    a = np.random.randint(0, 256, size=(4, 8, 4)).astype(np.uint8)
    drv.bind_array_to_texref(drv.make_multichannel_2d_array(a, "C"), mod.get_texref("img"))
    dest = np.zeros(a.shape, np.float32)
    mod.get_function("copy")(drv.Out(dest), np.int32(8), block=(8, 4, 1))
    np.testing.assert_allclose(dest, a / 255.0, atol=1e-6)


@gpu
def test_integer_texture_reads_integers(ctx):
    mod = _source_module("""
    texture<int, 1> ti;
    __global__ void copy(int *dest) { dest[threadIdx.x] = tex1Dfetch(ti, threadIdx.x); }
    """)
    a = np.arange(-50, 50, dtype=np.int32) * 1000003
    bind_ext(to_gpu(a), mod.get_texref("ti"))
    assert mod.get_texref("ti").get_flags() & drv.TRSF_READ_AS_INTEGER
    dest = np.zeros_like(a)
    mod.get_function("copy")(drv.Out(dest), block=(100, 1, 1))
    np.testing.assert_array_equal(dest, a)


@gpu
def test_double_texture_via_int2(ctx):
    mod = _source_module("""
    #include <pycuda-helpers.hpp>
    texture<fp_tex_double, 1, cudaReadModeElementType> td;
    texture<fp_tex_double, 2, cudaReadModeElementType> td2;
    __global__ void copy(double *dest, double *dest2, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        if (y == 0) dest[x] = fp_tex1Dfetch(td, x);
        dest2[y * w + x] = fp_tex2D(td2, x + 0.5f, y + 0.5f);
    }
    """)
    a = np.random.randn(16)
    m = np.random.randn(4, 16)
    bind_ext(to_gpu(a), mod.get_texref("td"), allow_double_hack=True)
    tex2 = mod.get_texref("td2")
    drv.bind_array_to_texref(drv.matrix_to_array(m, "C", allow_double_hack=True), tex2)
    assert tex2.get_format() == (drv.array_format.SIGNED_INT32, 2)
    dest, dest2 = np.zeros_like(a), np.zeros_like(m)
    mod.get_function("copy")(drv.Out(dest), drv.Out(dest2), np.int32(16), block=(16, 4, 1))
    np.testing.assert_array_equal(dest, a)
    np.testing.assert_array_equal(dest2, m)


@gpu
def test_complex_textures(ctx):
    mod = _source_module("""
    #include <pycuda-helpers.hpp>
    texture<fp_tex_cfloat, 1, cudaReadModeElementType> tc;
    texture<fp_tex_cdouble, 1, cudaReadModeElementType> tz;
    texture<fp_tex_cdouble, 2, cudaReadModeElementType> tz2;
    __global__ void copy(pycuda::complex<float> *c, pycuda::complex<double> *z,
                         pycuda::complex<double> *z2, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        if (y == 0) { c[x] = fp_tex1Dfetch(tc, x); z[x] = fp_tex1Dfetch(tz, x); }
        z2[y * w + x] = fp_tex2D(tz2, x + 0.5f, y + 0.5f);
    }
    """)
    c = (np.random.randn(16) + 1j * np.random.randn(16)).astype(np.complex64)
    z = np.random.randn(16) + 1j * np.random.randn(16)
    z2 = np.random.randn(3, 16) + 1j * np.random.randn(3, 16)
    bind_ext(to_gpu(c), mod.get_texref("tc"), allow_complex_hack=True)
    bind_ext(to_gpu(z), mod.get_texref("tz"), allow_complex_hack=True)
    drv.bind_array_to_texref(drv.np_to_array(z2, "C"), mod.get_texref("tz2"))
    out_c, out_z, out_z2 = np.zeros_like(c), np.zeros_like(z), np.zeros_like(z2)
    mod.get_function("copy")(
        drv.Out(out_c), drv.Out(out_z), drv.Out(out_z2), np.int32(16), block=(16, 3, 1)
    )
    np.testing.assert_array_equal(out_c, c)
    np.testing.assert_array_equal(out_z, z)
    np.testing.assert_array_equal(out_z2, z2)


def _surface_array(shape_whd, fmt=None, channels=1):
    w, h, d = shape_whd
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = w, h, d
    descr.format = fmt if fmt is not None else drv.array_format.FLOAT
    descr.num_channels = channels
    descr.flags = drv.array3d_flags.SURFACE_LDST
    return drv.Array(descr)


@gpu
def test_2d_surface_written_and_read_back(ctx):
    mod = _source_module("""
    surface<void, 2> s2;
    __global__ void fill(int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        surf2Dwrite(2.0f * (y * w + x), s2, x * 4, y);
    }
    __global__ void read(float *dest, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        dest[y * w + x] = surf2Dread<float>(s2, x * 4, y) + 1.0f;
    }
    """)
    w, h = 16, 8
    ary = _surface_array((w, h, 0))
    surf = mod.get_surfref("s2")
    surf.set_array(ary)
    assert surf.get_array() is not None
    mod.get_function("fill")(np.int32(w), block=(w, h, 1), texrefs=[surf])
    expected = 2.0 * np.arange(w * h, dtype=np.float32).reshape(h, w)
    back = np.zeros((h, w), np.float32)
    copy = drv.Memcpy2D()
    copy.set_src_array(ary)
    copy.set_dst_host(back)
    copy.width_in_bytes = copy.dst_pitch = w * 4
    copy.height = h
    copy(True)
    np.testing.assert_array_equal(back, expected)
    dest = np.zeros_like(back)
    mod.get_function("read")(drv.Out(dest), np.int32(w), block=(w, h, 1))
    np.testing.assert_array_equal(dest, expected + 1)


@gpu
def test_3d_surface_and_double_surface(ctx):
    mod = _source_module("""
    #include <pycuda-helpers.hpp>
    surface<void, 3> s3;
    surface<void, 2> sd;
    __global__ void fill(int w, int h)
    {
        int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
        surf3Dwrite(float((z * h + y) * w + x), s3, x * 4, y, z);
        if (z == 0) fp_surf2Dwrite(1.0 / (1 + y * w + x), sd, x, y);
    }
    """)
    w, h, d = 8, 4, 3
    a3 = _surface_array((w, h, d))
    ad = _surface_array((w, h, 0), drv.array_format.SIGNED_INT32, 2)
    mod.get_surfref("s3").set_array(a3)
    mod.get_surfref("sd").set_array(ad)
    mod.get_function("fill")(np.int32(w), np.int32(h), block=(w, h, d))
    back = np.zeros((d, h, w), np.float32)
    copy = drv.Memcpy3D()
    copy.set_src_array(a3)
    copy.set_dst_host(back)
    copy.width_in_bytes = copy.dst_pitch = w * 4
    copy.dst_height = copy.height = h
    copy.depth = d
    copy()
    np.testing.assert_array_equal(back, np.arange(w * h * d, dtype=np.float32).reshape(d, h, w))
    doubles = np.zeros((h, w), np.float64)
    copy2 = drv.Memcpy2D()
    copy2.set_src_array(ad)
    copy2.set_dst_host(doubles)
    copy2.width_in_bytes = copy2.dst_pitch = w * 8
    copy2.height = h
    copy2()
    np.testing.assert_array_equal(doubles, 1.0 / (1 + np.arange(w * h).reshape(h, w)))


TWO_TEX_SRC = """
texture<float, 1> a;
texture<float, 1> b;
__global__ void combine(float *dest) {
    int i = threadIdx.x;
    dest[i] = tex1Dfetch(a, i) + 10.0f * tex1Dfetch(b, i);
}
"""


@gpu
def test_several_textures_in_one_kernel_and_rebinding(ctx):
    mod = _source_module(TWO_TEX_SRC)
    x, y, z = (np.random.rand(32).astype(np.float32) for _ in range(3))
    xg, yg, zg = to_gpu(x), to_gpu(y), to_gpu(z)
    ta, tb = mod.get_texref("a"), mod.get_texref("b")
    bind_ext(xg, ta)
    bind_ext(yg, tb)
    f = mod.get_function("combine").prepare("P", texrefs=[ta, tb])
    dest = np.zeros_like(x)
    f(drv.Out(dest), block=(32, 1, 1), texrefs=[ta, tb])
    np.testing.assert_allclose(dest, x + 10 * y, rtol=1e-6)
    bind_ext(zg, tb)  # rebinding between launches
    out = drv.mem_alloc(dest.nbytes)
    f.prepared_call((1, 1), (32, 1, 1), out)
    drv.memcpy_dtoh(dest, out)
    np.testing.assert_allclose(dest, x + 10 * z, rtol=1e-6)
    bind_ext(zg, ta)
    f.prepared_call((1, 1), (32, 1, 1), out)
    drv.memcpy_dtoh(dest, out)
    np.testing.assert_allclose(dest, 11 * z, rtol=1e-6)


@gpu
def test_textures_from_two_modules_at_once(ctx):
    mod1 = _source_module(TWO_TEX_SRC)
    mod2 = _source_module(TWO_TEX_SRC + "\n// a second module\n")
    x, y = np.ones(32, np.float32), 2 * np.ones(32, np.float32)
    xg, yg = to_gpu(x), to_gpu(y)
    for mod, first, second in ((mod1, xg, yg), (mod2, yg, xg)):
        bind_ext(first, mod.get_texref("a"))
        bind_ext(second, mod.get_texref("b"))
    d1, d2 = np.zeros_like(x), np.zeros_like(x)
    mod1.get_function("combine")(drv.Out(d1), block=(32, 1, 1))
    mod2.get_function("combine")(drv.Out(d2), block=(32, 1, 1))
    np.testing.assert_array_equal(d1, 21 * np.ones(32))
    np.testing.assert_array_equal(d2, 12 * np.ones(32))


@gpu
def test_binding_through_a_temporary_reference_holds(ctx):
    mod = _source_module(SAMPLE_1D_SRC)
    mod.get_texref("t").set_array(_array_1d(np.arange(8, dtype=np.float32)))
    import gc

    gc.collect()
    np.testing.assert_array_equal(_sample(mod, [2.5, 5.5]), [2, 5])
    # Every get_texref of a name shares one state.
    mod.get_texref("t").set_filter_mode(drv.filter_mode.LINEAR)
    assert mod.get_texref("t").get_filter_mode() == drv.filter_mode.LINEAR


@gpu
def test_set_address_offset_and_set_address_2d(ctx):
    mod = _source_module("""
    texture<float, 1> t;
    texture<float, 2> p;
    __global__ void fetch(float *dest, int offset)
    {
        dest[threadIdx.x] = tex1Dfetch(t, threadIdx.x + offset);
    }
    __global__ void copy2d(float *dest, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        dest[y * w + x] = tex2D(p, x + 0.5f, y + 0.5f);
    }
    """)
    data = np.arange(64, dtype=np.float32)
    buf = drv.mem_alloc(data.nbytes)
    drv.memcpy_htod(buf, data)
    tex = mod.get_texref("t")
    align = drv.Context.get_device().get_attribute(drv.device_attribute.TEXTURE_ALIGNMENT)
    with pytest.raises(ValueError, match="allow_offset"):
        tex.set_address(int(buf) + 4, 32 * 4)
    offset = tex.set_address(int(buf) + 4, 32 * 4, allow_offset=True)
    assert offset == (int(buf) + 4) % align
    assert tex.get_address() == int(buf) + 4 - offset
    dest = np.zeros(32, np.float32)
    mod.get_function("fetch")(drv.Out(dest), np.int32(offset // 4), block=(32, 1, 1))
    np.testing.assert_array_equal(dest, data[1:33])

    w, h = 10, 6
    a = np.random.rand(h, w).astype(np.float32)
    pitched, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    copy = drv.Memcpy2D()
    copy.set_src_host(a)
    copy.set_dst_device(pitched)
    copy.src_pitch = copy.width_in_bytes = w * 4
    copy.dst_pitch = pitch
    copy.height = h
    copy(True)
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = w, h
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    mod.get_texref("p").set_address_2d(pitched, descr, pitch)
    dest2 = np.zeros_like(a)
    mod.get_function("copy2d")(drv.Out(dest2), np.int32(w), block=(w, h, 1))
    np.testing.assert_array_equal(dest2, a)


@gpu
def test_bad_input_gives_clear_errors(ctx):
    mod = _source_module(SEED_SRC + "\n__device__ int plain;\nsurface<void, 2> s;\n")
    tex = mod.get_texref("MyTexture")
    f = mod.get_function("copy_texture")
    dest = drv.mem_alloc(64)
    with pytest.raises(drv.LogicError, match="never bound"):
        f(dest, np.int32(1), block=(1, 1, 1), texrefs=[tex])
    with pytest.raises(drv.LogicError, match="never bound"):
        f.param_set_texref(tex)
    prepared = mod.get_function("copy_texture").prepare("Pi", texrefs=[tex])  # only recorded
    with pytest.raises(drv.LogicError, match="never bound"):
        prepared.prepared_call((1, 1), (1, 1, 1), dest, np.int32(1))
    with pytest.raises(TypeError, match="texrefs"):
        f(dest, np.int32(1), block=(1, 1, 1), texrefs=["not a reference"])
    with pytest.raises(drv.LogicError, match="no texture reference named 'missing'"):
        mod.get_texref("missing")
    with pytest.raises(ValueError, match="not a texture reference"):
        mod.get_texref("plain")
    with pytest.raises(ValueError, match="is a surface"):
        mod.get_texref("s")
    with pytest.raises(ValueError, match="is a texture"):
        mod.get_surfref("MyTexture")
    with pytest.raises(TypeError, match="array format"):
        bind_ext(to_gpu(np.zeros(4, np.float64)), tex)
    with pytest.raises(ValueError, match="contiguous"):
        view = _DeviceArray(np.zeros(8, np.float32))
        view.strides = (8,)
        bind_ext(view, tex)
    with pytest.raises(ValueError, match="SURFACE_LDST"):
        mod.get_surfref("s").set_array(drv.matrix_to_array(np.zeros((4, 4), np.float32), "C"))
    # A binding the driver refuses (a pitch that is no multiple of the texture pitch
    # alignment) raises at once, and again at a launch that lists the reference.
    descr = drv.ArrayDescriptor()
    descr.width, descr.height = 2, 2
    descr.format, descr.num_channels = drv.array_format.FLOAT, 1
    with pytest.raises(drv.LogicError, match="cuTexObjectCreate"):
        tex.set_address_2d(dest, descr, 20)
    assert not tex.is_bound
    with pytest.raises(drv.LogicError, match="could not be bound"):
        f(dest, np.int32(1), block=(1, 1, 1), texrefs=[tex])


@gpu
def test_texture_and_surface_objects(ctx):
    mod = _source_module("""
    __global__ void via_objects(float *dest, cudaTextureObject_t tex, cudaSurfaceObject_t surf,
                                cudaTextureObject_t lin, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
        surf2Dwrite(v + tex1Dfetch<float>(lin, y * w + x), surf, x * 4, y);
        dest[y * w + x] = v;
    }
    """)
    w, h = 8, 4
    a = np.random.rand(h, w).astype(np.float32)
    b = np.random.rand(h * w).astype(np.float32)
    tex = drv.TextureObject.from_array(
        drv.matrix_to_array(a, "C"), address_mode=drv.address_mode.CLAMP
    )
    b_dev = drv.to_device(b)  # cuMemAlloc'd: aligned as textures need
    lin = drv.TextureObject.from_linear(b_dev, b.nbytes, drv.array_format.FLOAT)
    out_ary = _surface_array((w, h, 0))
    surf = drv.SurfaceObject(out_ary)
    assert tex.handle != 0 and surf.handle != 0 and lin.handle != 0
    dest = np.zeros_like(a)
    mod.get_function("via_objects")(
        drv.Out(dest), np.uint64(tex.handle), np.uint64(surf.handle), np.uint64(lin.handle),
        np.int32(w), block=(w, h, 1),
    )  # fmt: skip
    np.testing.assert_array_equal(dest, a)
    back = np.zeros_like(a)
    copy = drv.Memcpy2D()
    copy.set_src_array(out_ary)
    copy.set_dst_host(back)
    copy.width_in_bytes = copy.dst_pitch = w * 4
    copy.height = h
    copy()
    np.testing.assert_allclose(back, a + b.reshape(h, w), rtol=1e-6)


@gpu
def test_pitch2d_texture_object(ctx):
    mod = _source_module("""
    __global__ void sample(float *dest, cudaTextureObject_t tex, int w)
    {
        int x = threadIdx.x, y = threadIdx.y;
        dest[y * w + x] = tex2D<float>(tex, (x + 0.5f) / w, (y + 0.5f) / blockDim.y);
    }
    """)
    w, h = 16, 4
    a = np.random.rand(h, w).astype(np.float32)
    pitched, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    copy = drv.Memcpy2D()
    copy.set_src_host(a)
    copy.set_dst_device(pitched)
    copy.src_pitch = copy.width_in_bytes = w * 4
    copy.dst_pitch = pitch
    copy.height = h
    copy()
    tex = drv.TextureObject.from_pitch2d(
        pitched, w, h, pitch, drv.array_format.FLOAT, 1,
        address_mode=drv.address_mode.CLAMP, flags=drv.TRSF_NORMALIZED_COORDINATES,
    )  # fmt: skip
    dest = np.zeros_like(a)
    mod.get_function("sample")(drv.Out(dest), np.uint64(tex.handle), np.int32(w), block=(w, h, 1))
    np.testing.assert_array_equal(dest, a)


def test_forgetting_references_needs_no_driver():
    from pycuda import _driver

    _driver._forget_texture_references()  # nothing registered: a no-op


@gpu
def test_exit_with_bound_references_is_clean(ctx, tmp_path):
    import subprocess
    import sys

    script = tmp_path / "bound_at_exit.py"
    script.write_text(
        "import numpy as np\n"
        "import pycuda.autoinit\n"
        "import pycuda.driver as drv\n"
        "from pycuda.compiler import SourceModule\n"
        "mod = SourceModule('texture<float, 2> t;\\nsurface<void, 2> s;\\n')\n"
        "drv.matrix_to_texref(np.ones((4, 4), np.float32), mod.get_texref('t'), order='C')\n"
        "mod.get_surfref('s').set_array(drv.np_to_array(np.ones((4, 4), np.float32), 'C',\n"
        "                                               allowSurfaceBind=True))\n"
        "print('bound')\n"
    )
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "bound"
    assert "leak" not in result.stderr and "Error" not in result.stderr, result.stderr


class _Compiled(Exception):
    """Raised by the compile-only stand-in for SourceModule once a kernel has compiled."""


@pytest.mark.skipif(
    not __import__("pycuda._driver", fromlist=["x"]).nvrtc_available(),
    reason="NVRTC is not installed",
)
def test_every_gpu_test_kernel_compiles(monkeypatch, tmp_path):
    """Without a GPU: each GPU test above runs up to its SourceModule, whose source must
    compile to a cubin for sm_90 (the rewrite, pycuda-texref.hpp and pycuda-helpers.hpp)."""
    import inspect
    import sys

    from pycuda import compiler

    def compile_only(src: str):
        compiler.compile(src, arch="sm_90", cache_dir=str(tmp_path))
        raise _Compiled

    module = sys.modules[__name__]
    monkeypatch.setattr(module, "_source_module", compile_only)
    compiled = []
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        marks = [m.name for m in getattr(fn, "pytestmark", [])]
        if not name.startswith("test_") or "gpu" not in marks:
            continue
        if "_source_module(" not in inspect.getsource(fn):
            continue  # compiles nothing in this process
        kwargs = {}
        for mark in getattr(fn, "pytestmark", []):
            if mark.name == "parametrize":
                names, values = mark.args[0], mark.args[1][0]
                names = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
                values = values if len(names) > 1 else (values,)
                kwargs.update(zip(names, values, strict=True))
        for arg in inspect.signature(fn).parameters:
            kwargs.setdefault(arg, None)
        try:
            fn(**kwargs)
        except _Compiled:
            compiled.append(name)
    assert "test_seed_000_texture_section" in compiled
    assert "test_3d_surface_and_double_surface" in compiled
    assert len(compiled) >= 20
