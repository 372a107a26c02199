"""The driver layer's leniency that PyCUDA clients rely on: enum names/values dicts and alias
members, ManagedAllocationOrStub, attributes set on driver objects, Function.prepare recording
texrefs and taking 'V' formats, assignable arg_format/texrefs, Memcpy*.src_device/dst_device,
AlignedHostAllocation.get_device_pointer, the pool's bin 0, and pycuda-helpers.hpp's fp_tex*/
fp_surf* for every texel type of the original. GPU tests run on the lead's H100/H200."""

from __future__ import annotations

import enum
import gc
import importlib.util
import pathlib
import random
import weakref

import numpy as np
import pytest

import pycuda.driver as drv
from pycuda import _driver, _enums
from pycuda import compiler as C

gpu = pytest.mark.gpu
needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

DRIVER_ENUMS = [
    cls
    for cls in vars(_enums).values()
    if isinstance(cls, type)
    and issubclass(cls, enum.IntEnum)
    and cls.__module__ == _enums.__name__
    and cls is not _enums._DriverEnum
]

# The original's second names for a value, and the member each equals.
ALIASES = [
    (drv.ctx_flags, "BLOCKING_SYNC", "SCHED_BLOCKING_SYNC"),
    (drv.device_attribute, "SHARED_MEMORY_PER_BLOCK", "MAX_SHARED_MEMORY_PER_BLOCK"),
    (drv.device_attribute, "REGISTERS_PER_BLOCK", "MAX_REGISTERS_PER_BLOCK"),
    (drv.device_attribute, "MAXIMUM_TEXTURE2D_ARRAY_WIDTH", "MAXIMUM_TEXTURE2D_LAYERED_WIDTH"),
    (drv.device_attribute, "MAXIMUM_TEXTURE2D_ARRAY_HEIGHT", "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT"),
    (drv.device_attribute, "MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES", "MAXIMUM_TEXTURE2D_LAYERED_LAYERS"),
]

# Driver objects that hold attributes set on them, as every Boost.Python instance did.
DYNAMIC_ATTR_CLASSES = [
    "Device", "Context", "Stream", "Event", "Module", "Function", "Linker", "DeviceAllocation",
    "ManagedAllocation", "PooledDeviceAllocation", "PointerHolderBase", "IPCMemoryHandle",
    "HostPointer", "PagelockedHostAllocation", "HostAllocation", "AlignedHostAllocation",
    "RegisteredHostMemory", "PooledHostAllocation", "TextureReference", "SurfaceReference",
    "Array", "DeviceMemoryPool", "PageLockedMemoryPool",
]  # fmt: skip


# --- without a GPU ----------------------------------------------------------------------------


def test_every_enum_has_the_originals_names_and_values_dicts():
    assert len(DRIVER_ENUMS) >= 20
    for cls in DRIVER_ENUMS:
        assert cls.names == dict(cls.__members__), cls
        for name, member in cls.names.items():
            assert getattr(cls, name) is member and cls.values[int(member)] is member
            assert cls.names[member.name] is member
        assert set(cls.values) == {int(m) for m in cls}
    assert drv.device_attribute.names["WARP_SIZE"] is drv.device_attribute.WARP_SIZE
    assert drv.device_attribute.values[10].name == "WARP_SIZE"
    assert drv.ctx_flags.MAP_HOST.name == "MAP_HOST"


@pytest.mark.parametrize("cls,alias,target", ALIASES)
def test_alias_members_of_the_original(cls, alias, target):
    assert getattr(cls, alias) is getattr(cls, target)
    assert cls.names[alias] is cls.names[target]
    assert cls.values[int(getattr(cls, target))] is getattr(cls, target)


def _load_generator():
    path = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "gen_enums.py"
    if not path.exists():
        pytest.skip("scripts/ is not beside the tests here")
    spec = importlib.util.spec_from_file_location("gen_enums", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generator_keeps_aliases_a_header_drops():
    gen = _load_generator()
    header = [("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK", 8),
              ("CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK", 12),
              ("CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH", 27),
              ("CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT", 28),
              ("CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS", 29),
              ("CU_DEVICE_ATTRIBUTE_MAX", 30)]  # fmt: skip
    members = gen.enum_members("device_attribute", "CU_DEVICE_ATTRIBUTE_", header)
    assert members["SHARED_MEMORY_PER_BLOCK"] == 8 and members["REGISTERS_PER_BLOCK"] == 12
    assert members["MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES"] == 29 and "MAX" not in members
    ctx = gen.enum_members("ctx_flags", "CU_CTX_", [("CU_CTX_SCHED_BLOCKING_SYNC", 4)])
    assert ctx["BLOCKING_SYNC"] == 4 and ctx["LMEM_RESIZE_TO_MAX"] == 0x10
    with pytest.raises(ValueError, match="BLOCKING_SYNC"):
        gen.enum_members("ctx_flags", "CU_CTX_", [("CU_CTX_SCHED_BLOCKING_SYNC", 4),
                                                   ("CU_CTX_BLOCKING_SYNC", 5)])  # fmt: skip


def test_managed_allocation_or_stub():
    assert drv.ManagedAllocationOrStub is drv.ManagedAllocation


def test_aligned_host_allocation_has_get_device_pointer():
    a = drv.aligned_empty((1024,), np.float32)
    assert callable(a.base.get_device_pointer)
    # Pageable memory has no device address until registered: a driver error (or, here, no
    # driver or no context at all), never a crash.
    with pytest.raises(drv.Error):
        a.base.get_device_pointer()
    a.base.free()
    with pytest.raises(drv.LogicError, match="freed"):
        a.base.get_device_pointer()


@pytest.mark.parametrize("name", DYNAMIC_ATTR_CLASSES)
def test_driver_classes_have_an_instance_dict(name):
    assert getattr(drv, name).__dictoffset__ > 0, name


class _Holder(drv.PointerHolderBase):
    def get_pointer(self):
        return 0x1000


@pytest.mark.parametrize(
    "make",
    [
        drv.TextureReference,
        drv.DeviceMemoryPool,
        drv.PageLockedMemoryPool,
        drv.PointerHolderBase,
        _Holder,
        lambda: drv.aligned_empty(16, np.uint8).base,
    ],
)
def test_attributes_set_on_driver_objects_read_back(make):
    obj = make()
    obj.owner = "client data"
    obj.count = 3
    assert (obj.owner, obj.count) == ("client data", 3)
    assert vars(obj)["owner"] == "client data"
    del obj.count
    assert not hasattr(obj, "count")


def test_attribute_cycles_through_driver_objects_are_collected():
    class Marker:
        pass

    for make in (drv.TextureReference, drv.DeviceMemoryPool, drv.PointerHolderBase):
        obj, marker = make(), Marker()
        obj.marker, obj.me, marker.obj = marker, obj, obj
        gone = weakref.ref(marker)
        del obj, marker
        gc.collect()
        assert gone() is None, make


def test_function_arg_format_and_texrefs_are_assignable():
    assert drv.Function.arg_format.fset is not None
    # texrefs is a plain instance attribute, as in the original (no read-only descriptor).
    assert not hasattr(drv.Function, "texrefs")


def test_v_format_is_a_struct_by_value():
    assert _driver._param_layout("P16Vi") == _driver._param_layout("P16si")
    assert _driver._param_layout("P16Vi") == [(0, 8), (16, 16), (32, 4)]
    assert _driver._param_layout("2Vd") == [(0, 2), (8, 8)]
    dt = np.dtype([("a", np.int32), ("b", np.float32)])
    value = np.zeros(1, dt)[0]
    value["a"], value["b"] = 7, 1.5
    packed = _driver._pack_args("P8V", (5, value))
    assert packed == np.uint64(5).tobytes() + value.tobytes()
    assert packed == _driver._pack_args(f"P{dt.itemsize}s", (5, value))
    # A 'V' without a count takes its size from the kernel, where the driver tells it.
    for fmt in ("PV", "VV"):
        with pytest.raises(ValueError, match="'16V'"):
            _driver._param_layout(fmt)
        with pytest.raises(ValueError, match="without a byte count"):
            _driver._pack_args(fmt, (0, value)[: len(fmt)])


@pytest.mark.parametrize("cls", [drv.Memcpy2D, drv.Memcpy3D, drv.Memcpy3DPeer])
def test_memcpy_src_device_and_dst_device(cls):
    copy = cls()
    assert copy.src_device == 0 and copy.dst_device == 0
    copy.src_device = 0x10000
    copy.dst_device = np.uintp(0x20000)
    assert (copy.src_device, copy.dst_device) == (0x10000, 0x20000)
    assert copy.src_memory_type == copy.dst_memory_type == drv.memory_type.DEVICE
    copy.set_src_unified(0x30000)
    copy.src_device = 0x40000  # re-pointing unified memory keeps it unified
    assert copy.src_memory_type == drv.memory_type.UNIFIED and copy.src_device == 0x40000
    copy.set_dst_host(np.zeros(4))
    assert copy.dst_device == 0 and copy.dst_memory_type == drv.memory_type.HOST
    copy.dst_device = 0x50000  # assigning an address makes the side device memory
    assert copy.dst_memory_type == drv.memory_type.DEVICE and copy.dst_device == 0x50000
    with pytest.raises(TypeError):
        copy.src_device = "not a pointer"


def test_pool_bin_zero_holds_something():
    for pool in (drv.DeviceMemoryPool, drv.PageLockedMemoryPool):
        assert pool.alloc_size(pool.bin_number(0)) > 0
        assert pool.bin_number(pool.alloc_size(pool.bin_number(0))) == pool.bin_number(0)


def test_pool_bins_keep_the_originals_invariants():
    # The original's test_mempool_2, sizes 0 included.
    rng = random.Random(4)
    for _ in range(2000):
        s = rng.randrange(1 << 31) >> rng.randrange(32)
        bin_nr = drv.DeviceMemoryPool.bin_number(s)
        asize = drv.DeviceMemoryPool.alloc_size(bin_nr)
        assert asize >= s and asize > 0, s
        assert drv.DeviceMemoryPool.bin_number(asize) == bin_nr, s


# Every texel type of the original's fp_tex*/fp_surf* (passed through as they are), and the
# three values carried in words; (value type, texture declaration type).
FP_TYPES = [(t, t) for t in ("float", "int", "unsigned int", "short", "unsigned short", "char",
                             "signed char", "unsigned char")] + [
    ("double", "fp_tex_double"),
    ("pycuda::complex<float>", "fp_tex_cfloat"),
    ("pycuda::complex<double>", "fp_tex_cdouble"),
]  # fmt: skip


def _fp_kernel(k: int, value: str, texel: str) -> str:
    return f"""
    texture<{texel}, 1, cudaReadModeElementType> t1_{k};
    texture<{texel}, 2, cudaReadModeElementType> t2_{k};
    texture<{texel}, 3, cudaReadModeElementType> t3_{k};
    texture<{texel}, cudaTextureType2DLayered, cudaReadModeElementType> tl_{k};
    surface<void, 1> s1_{k};
    surface<void, 2> s2_{k};
    surface<void, 3> s3_{k};
    surface<void, cudaSurfaceType2DLayered> sl_{k};
    __global__ void k{k}({value} *out) {{
        int i = threadIdx.x;
        {value} a = fp_tex1Dfetch(t1_{k}, i);
        {value} b = fp_tex2D(t2_{k}, i, 0);
        {value} c = fp_tex3D(t3_{k}, i, 0, 0);
        {value} d = fp_tex2DLayered(tl_{k}, i, 0, 1);
        static_assert(same<decltype(fp_tex1Dfetch(t1_{k}, i)), {value}>::value, "1Dfetch");
        static_assert(same<decltype(fp_tex2D(t2_{k}, i, 0)), {value}>::value, "2D");
        static_assert(same<decltype(fp_tex3D(t3_{k}, i, 0, 0)), {value}>::value, "3D");
        static_assert(same<decltype(fp_tex2DLayered(tl_{k}, i, 0, 1)), {value}>::value, "2DL");
        fp_surf1Dwrite(a, s1_{k}, i);
        fp_surf2Dwrite(b, s2_{k}, i, 0);
        fp_surf3Dwrite(c, s3_{k}, i, 0, 0, cudaBoundaryModeClamp);
        fp_surf2DLayeredwrite(d, sl_{k}, i, 0, 1, cudaBoundaryModeZero);
        {value} e, f, g, h;
        fp_surf1Dread(&e, s1_{k}, i);
        fp_surf2Dread(&f, s2_{k}, i, 0);
        fp_surf3Dread(&g, s3_{k}, i, 0, 0);
        fp_surf2DLayeredread(&h, sl_{k}, i, 0, 1, cudaBoundaryModeClamp);
        out[i] = a + b + c + d + e + f + g + h;
    }}
    """


@needs_nvrtc
def test_fp_helpers_compile_for_every_type_of_the_original(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_memo", {})
    src = """
    #include <pycuda-helpers.hpp>
    extern "C++" {
    template <class A, class B> struct same { static const bool value = false; };
    template <class A> struct same<A, A> { static const bool value = true; };
    }
    texture<unsigned char, 2, cudaReadModeNormalizedFloat> tn;
    texture<short, 1, cudaReadModeNormalizedFloat> tsn;
    __global__ void normalized(float *out) {
        static_assert(same<decltype(fp_tex2D(tn, 0, 0)), float>::value, "normalized uchar");
        static_assert(same<decltype(fp_tex1Dfetch(tsn, 0)), float>::value, "normalized short");
        out[0] = fp_tex2D(tn, 0, 0) + fp_tex1Dfetch(tsn, 0);
    }
    """ + "".join(_fp_kernel(k, value, texel) for k, (value, texel) in enumerate(FP_TYPES))
    cubin = C.compile(src, arch="sm_90", cache_dir=str(tmp_path / "cache"))
    assert cubin[:4] == b"\x7fELF"
    for k in range(len(FP_TYPES)):
        assert b"k%d\x00" % k in cubin


# --- on a GPU ---------------------------------------------------------------------------------

TEX_SRC = """
texture<float, 1, cudaReadModeElementType> tex;
texture<float, 1, cudaReadModeElementType> other;
__global__ void copy_texture(float *dest, int n) {
    int i = threadIdx.x;
    if (i < n)
        dest[i] = tex1Dfetch(tex, i);
}
"""


@gpu
def test_prepare_records_texrefs_that_are_bound_later(ctx):
    from pycuda.compiler import SourceModule

    mod = SourceModule(TEX_SRC)
    tex, other = mod.get_texref("tex"), mod.get_texref("other")
    f = mod.get_function("copy_texture")
    refs = [tex]
    assert f.prepare("Pi", texrefs=refs) is f  # tex is not bound yet: fine, as in the original
    assert f.texrefs is refs and f.arg_format == "Pi"
    dest = drv.mem_alloc(32 * 4)
    with pytest.raises(drv.LogicError, match="never bound"):
        f.prepared_call((1, 1), (32, 1, 1), dest, 32)  # checked at launch
    a = np.random.rand(32).astype(np.float32)
    a_dev = drv.to_device(a)
    tex.set_address(a_dev, a.nbytes)
    tex.set_format(drv.array_format.FLOAT, 1)
    f.prepared_call((1, 1), (32, 1, 1), dest, 32)
    np.testing.assert_array_equal(drv.from_device(dest, (32,), np.float32), a)
    # The assigned attribute is the one each launch checks.
    f.texrefs = [tex, other]
    with pytest.raises(drv.LogicError, match="never bound"):
        f.prepared_async_call((1, 1), (32, 1, 1), None, dest, 32)
    f.texrefs = []
    f.prepared_timed_call((1, 1), (32, 1, 1), dest, 32)()
    f.prepare("Pi")
    assert f.texrefs == []
    # arg_format: assigning prepares with it.
    g = mod.get_function("copy_texture")
    assert g.arg_format is None
    g.arg_format = "Pi"
    assert g.arg_format == "Pi"
    drv.memset_d32(dest, 0, 32)
    g.prepared_call((1, 1), (32, 1, 1), dest, 32)
    np.testing.assert_array_equal(drv.from_device(dest, (32,), np.float32), a)
    with pytest.raises(TypeError, match="format string"):
        g.arg_format = 3
    assert g.arg_format == "Pi"
    g.arg_format = None
    with pytest.raises(TypeError, match="not prepared"):
        g.prepared_call((1, 1), (32, 1, 1), dest, 32)


STRUCT_SRC = """
struct Params { int a; float b; double c; short d[3]; };
__global__ void unpack(double *out, Params p, float3 v) {
    out[0] = p.a; out[1] = p.b; out[2] = p.c;
    out[3] = p.d[0]; out[4] = p.d[1]; out[5] = p.d[2];
    out[6] = v.x; out[7] = v.y; out[8] = v.z;
}
"""


@gpu
def test_struct_arguments_through_v_formats(ctx):
    from pycuda.compiler import SourceModule

    mod = SourceModule(STRUCT_SRC)
    dt = np.dtype(
        [("a", np.int32), ("b", np.float32), ("c", np.float64), ("d", np.int16, 3)], align=True
    )
    assert dt.itemsize == 24
    p = np.zeros(1, dt)[0]
    p["a"], p["b"], p["c"], p["d"] = -7, 2.5, 1e100, (1, -2, 3)
    v = np.array([0.5, 1.5, -2.5], np.float32)
    expected = np.array([-7, 2.5, 1e100, 1, -2, 3, 0.5, 1.5, -2.5])
    out = drv.mem_alloc(9 * 8)
    for fmt in ("P24V12V", "PVV", ["P", "24V", "V"], [np.intp, dt, "12V"]):
        f = mod.get_function("unpack")
        f.prepare(fmt)
        drv.memset_d8(out, 0, 9 * 8)
        f.prepared_call((1, 1), (1, 1, 1), out, p, v)
        np.testing.assert_array_equal(drv.from_device(out, (9,), np.float64), expected)


@gpu
def test_memcpy2d_through_src_device_and_dst_device(ctx):
    h, w = 5, 7
    a = np.arange(h * w, dtype=np.float32).reshape(h, w)
    dev, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    up = drv.Memcpy2D()
    up.set_src_host(a)
    up.dst_device = dev  # as the original's clients set it
    up.src_pitch, up.dst_pitch = w * 4, pitch
    up.width_in_bytes, up.height = w * 4, h
    up(aligned=True)
    dev2 = drv.mem_alloc(a.nbytes)
    across = drv.Memcpy2D()
    across.src_device, across.dst_device = int(dev) + pitch, dev2  # from row 1, device to device
    across.src_pitch, across.dst_pitch = pitch, w * 4
    across.width_in_bytes, across.height = w * 4, h - 1
    across()
    back = np.zeros((h - 1, w), np.float32)
    down = drv.Memcpy2D()
    down.src_device = dev2
    down.set_dst_host(back)
    down.src_pitch = down.dst_pitch = down.width_in_bytes = w * 4
    down.height = h - 1
    down()
    np.testing.assert_array_equal(back, a[1:])
    d3 = drv.Memcpy3D()
    d3.src_device, d3.dst_device = dev2, dev
    d3.src_pitch, d3.dst_pitch, d3.width_in_bytes = w * 4, pitch, w * 4
    d3.src_height, d3.dst_height, d3.height, d3.depth = h - 1, h, h - 1, 1
    d3()  # back into rows 0 .. h-2 of the pitched memory
    pitched = drv.from_device(dev, (h, pitch // 4), np.float32)
    np.testing.assert_array_equal(pitched[: h - 1, :w], a[1:])
    np.testing.assert_array_equal(pitched[h - 1, :w], a[h - 1])


@gpu
def test_aligned_host_allocation_device_pointer_once_registered(ctx):
    a = drv.aligned_zeros((4096,), np.float32, alignment=4096)
    a[:] = np.arange(a.size)
    registered = drv.register_host_memory(a, drv.mem_host_register_flags.DEVICEMAP)
    ptr = a.base.get_device_pointer()
    assert ptr == registered.base.get_device_pointer()
    out = np.zeros_like(a)
    drv.memcpy_dtoh(out, ptr)
    np.testing.assert_array_equal(out, a)
    registered.base.unregister()


def _driver_objects(ctx):
    from pycuda.compiler import SourceModule

    mod = SourceModule(TEX_SRC + "\nsurface<void, 2> surf;\n")
    descr = drv.ArrayDescriptor()
    descr.width, descr.height, descr.format, descr.num_channels = 4, 4, drv.array_format.FLOAT, 1
    pool = drv.DeviceMemoryPool()
    host_pool = drv.PageLockedMemoryPool()
    return [
        drv.Device(0),
        ctx,
        drv.Stream(),
        drv.Event(),
        mod.module,
        mod.get_function("copy_texture"),
        mod.get_texref("tex"),
        mod.get_surfref("surf"),
        drv.Linker(),
        drv.mem_alloc(16),
        pool,
        pool.allocate(16),
        host_pool,
        host_pool.allocate((4,), np.float32).base,
        drv.pagelocked_empty(4, np.float32).base,
        drv.managed_empty(4, np.float32).base,
        drv.register_host_memory(np.zeros(1024, np.float32)).base,
        drv.Array(descr),
        _Holder(),
    ]


@gpu
def test_attributes_on_every_driver_object(ctx):
    for obj in _driver_objects(ctx):
        obj.client_tag = ("tag", type(obj).__name__)
        assert obj.client_tag == ("tag", type(obj).__name__)
        assert "client_tag" in vars(obj)
