"""pycuda._interop and the _dlpack_* bindings: CUDA Array Interface v3 and DLPack, both ways.

CPU tests exchange capsules for made-up device addresses (a capsule is metadata; nothing reads
the memory); GPU tests round-trip real allocations through CuPy and PyTorch.
"""

from __future__ import annotations

import ctypes
import gc
import sys
import weakref

import numpy as np
import pytest

from pycuda import _driver, _interop

FAKE_PTR = 0x7F00_0000_1000

DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


class Owner:
    """Stands for the GPUArray a capsule keeps alive."""


def capsule_name(capsule) -> str:
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


# ---------------------------------------------------------------------------------------------
# A hand-made producer, with the DLPack structs declared from the specification in ctypes: it
# makes the tensors our exporter never makes (byte_offset, no strides, other devices, version 2).


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
    ]


def test_ctypes_mirror_has_the_specified_sizes():
    # The same numbers core/dlpack.hpp asserts: the two declarations agree with the spec.
    assert ctypes.sizeof(DLTensor) == 48
    assert ctypes.sizeof(DLManagedTensor) == 64
    assert ctypes.sizeof(DLManagedTensorVersioned) == 80
    assert DLManagedTensorVersioned.dl_tensor.offset == 32


class HandMade:
    """One tensor made in ctypes; counts the calls of its deleter."""

    def __init__(self, *, versioned=True, major=1, device=(2, 0), dtype=(2, 32, 1),
                 shape=(2, 3), strides=None, byte_offset=0, ptr=FAKE_PTR):  # fmt: skip
        self.deleted = 0
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = None if strides is None else (ctypes.c_int64 * len(strides))(*strides)
        self.deleter = DELETER(self._delete)
        tensor = DLTensor(
            ptr,
            DLDevice(*device),
            len(shape),
            DLDataType(*dtype),
            self.shape,
            self.strides,
            byte_offset,
        )
        if versioned:
            self.managed = DLManagedTensorVersioned(major, 0, None, self.deleter, 0, tensor)
        else:
            self.managed = DLManagedTensor(tensor, None, self.deleter)
        new = ctypes.pythonapi.PyCapsule_New
        new.restype = ctypes.py_object
        new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        name = b"dltensor_versioned" if versioned else b"dltensor"
        # No capsule destructor: the tests check that the consumer calls the deleter.
        self.capsule = new(ctypes.addressof(self.managed), name, None)

    def _delete(self, address):
        assert address == ctypes.addressof(self.managed)
        self.deleted += 1


# ---------------------------------------------------------------------------------------------
# _dlpack_export / _dlpack_import


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize("dtype", DTYPES)
def test_export_import_round_trip(dtype, versioned):
    dt = np.dtype(dtype)
    shape = (4, 5, 6)
    strides = (dt.itemsize, 4 * dt.itemsize, 20 * dt.itemsize)  # Fortran order
    capsule = _driver._dlpack_export(FAKE_PTR, shape, strides, dt, 3, Owner(), versioned)
    assert capsule_name(capsule) == ("dltensor_versioned" if versioned else "dltensor")
    ptr, got_shape, got_strides, name, device_type, device_id, holder = _driver._dlpack_import(
        capsule
    )
    assert (ptr, got_shape, got_strides) == (FAKE_PTR, shape, strides)
    assert np.dtype(name) == dt
    assert (device_type, device_id) == (2, 3)
    assert holder.versioned is versioned
    assert capsule_name(capsule) == ("used_dltensor_versioned" if versioned else "used_dltensor")


def test_bfloat16_round_trip():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dt = np.dtype(ml_dtypes.bfloat16)
    capsule = _driver._dlpack_export(FAKE_PTR, (8,), None, dt, 0, Owner(), True)
    assert _driver._dlpack_import(capsule)[3] == "bfloat16"
    capsule = _driver._dlpack_export(FAKE_PTR, (8,), None, dt, 0, Owner(), True)
    assert _interop.import_dlpack(capsule)[2] == dt


def test_export_defaults_to_c_strides_and_negative_strides_pass():
    capsule = _driver._dlpack_export(FAKE_PTR, (2, 3, 4), None, np.float32, 0, Owner(), True)
    assert _driver._dlpack_import(capsule)[2] == (48, 16, 4)
    capsule = _driver._dlpack_export(FAKE_PTR, (5,), (-8,), np.int64, 0, Owner(), True)
    assert _driver._dlpack_import(capsule)[2] == (-8,)


def test_zero_dim_and_managed():
    capsule = _driver._dlpack_export(FAKE_PTR, (), (), np.float64, 1, Owner(), True, managed=True)
    ptr, shape, strides, name, device_type, device_id, _ = _driver._dlpack_import(capsule)
    assert (ptr, shape, strides, name, device_type, device_id) == (
        FAKE_PTR,
        (),
        (),
        "float64",
        13,
        1,
    )


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize("consume", [True, False])
def test_owner_is_kept_alive_and_released_once(versioned, consume):
    owner = Owner()
    alive = weakref.ref(owner)
    before = sys.getrefcount(owner)
    capsule = _driver._dlpack_export(FAKE_PTR, (3,), None, np.float32, 0, owner, versioned)
    assert sys.getrefcount(owner) == before + 1
    holder = _driver._dlpack_import(capsule)[-1] if consume else None
    del capsule
    gc.collect()
    if consume:  # the holder keeps the owner until it goes
        assert sys.getrefcount(owner) == before + 1
        del holder
        gc.collect()
    assert sys.getrefcount(owner) == before  # released exactly once, never twice
    del owner
    assert alive() is None


@pytest.mark.parametrize("versioned", [True, False])
def test_deleter_runs_without_the_gil_on_another_thread(versioned):
    # A consumer (PyTorch, CuPy) may call our deleter from its own thread without the GIL; ctypes
    # releases the GIL around foreign calls, so this is exactly that situation.
    import threading

    owner = Owner()
    before = sys.getrefcount(owner)
    capsule = _driver._dlpack_export(FAKE_PTR, (3,), None, np.float32, 0, owner, versioned)
    name = b"dltensor_versioned" if versioned else b"dltensor"
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    set_name = ctypes.pythonapi.PyCapsule_SetName
    set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, name)
    assert set_name(capsule, b"used_" + name) == 0  # consumed by our "consumer"
    managed_type = DLManagedTensorVersioned if versioned else DLManagedTensor
    deleter_address = ctypes.cast(
        address + managed_type.deleter.offset, ctypes.POINTER(ctypes.c_void_p)
    )[0]
    deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(deleter_address)
    thread = threading.Thread(target=deleter, args=(address,))
    thread.start()
    thread.join()
    del capsule  # consumed: its destructor must not call the deleter again
    gc.collect()
    assert sys.getrefcount(owner) == before


def test_capsules_and_holders_alive_at_interpreter_exit():
    # Module globals are torn down during finalization, when the deleter may no longer touch
    # Python objects: exit must stay clean.
    import subprocess

    script = (
        "import numpy as np\n"
        "from pycuda import _driver\n"
        "class Owner: pass\n"
        "kept = [_driver._dlpack_export(1 << 20, (3,), None, np.float32, 0, Owner(), v)"
        " for v in (True, False)]\n"
        "held = [_driver._dlpack_import(_driver._dlpack_export("
        "1 << 20, (3,), None, np.int8, 0, Owner(), v)) for v in (True, False)]\n"
        "kept.append(held)\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert "Fatal" not in done.stderr and "Traceback" not in done.stderr


def test_read_only_and_copied_flags():
    capsule = _driver._dlpack_export(
        FAKE_PTR, (3,), None, np.float32, 0, Owner(), True, read_only=True, copied=True
    )
    assert _driver._dlpack_import(capsule)[-1].read_only
    capsule = _driver._dlpack_export(FAKE_PTR, (3,), None, np.float32, 0, Owner(), True)
    assert not _driver._dlpack_import(capsule)[-1].read_only
    with pytest.raises(BufferError, match="read-only"):
        _driver._dlpack_export(FAKE_PTR, (3,), None, np.float32, 0, Owner(), False, read_only=True)


@pytest.mark.parametrize(
    "dtype", [object, np.longdouble, np.dtype(">f4"), np.dtype([("a", "f4")]), "U3", "M8[s]"]
)
def test_export_refuses_dtypes_dlpack_cannot_describe(dtype):
    owner = Owner()
    before = sys.getrefcount(owner)
    with pytest.raises(TypeError, match="DLPack cannot describe dtype"):
        _driver._dlpack_export(FAKE_PTR, (3,), None, dtype, 0, owner, True)
    assert sys.getrefcount(owner) == before  # nothing leaked on the error path


def test_export_refuses_bad_layouts():
    with pytest.raises(ValueError, match="not a multiple of the item size"):
        _driver._dlpack_export(FAKE_PTR, (3,), (6,), np.float32, 0, Owner(), True)
    with pytest.raises(ValueError, match="differ in length"):
        _driver._dlpack_export(FAKE_PTR, (3, 2), (4,), np.float32, 0, Owner(), True)
    with pytest.raises(ValueError, match="negative"):
        _driver._dlpack_export(FAKE_PTR, (-1,), None, np.float32, 0, Owner(), True)


def test_import_twice_is_an_error():
    capsule = _driver._dlpack_export(FAKE_PTR, (3,), None, np.float32, 0, Owner(), True)
    _driver._dlpack_import(capsule)
    with pytest.raises(ValueError, match="already consumed"):
        _driver._dlpack_import(capsule)


def test_import_refuses_non_capsules_and_foreign_capsules():
    with pytest.raises(TypeError, match="expected a DLPack capsule"):
        _driver._dlpack_import(np.zeros(3))
    foreign = ctypes.pythonapi.PyCapsule_New
    foreign.restype = ctypes.py_object
    foreign.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    with pytest.raises(TypeError, match="not a DLPack capsule"):
        _driver._dlpack_import(foreign(1, b"something_else", None))


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_import_of_a_numpy_capsule_says_it_lives_on_the_host(max_version):
    capsule = np.arange(4.0).__dlpack__(max_version=max_version)
    with pytest.raises(BufferError, match="lives on the host.*to_gpu"):
        _driver._dlpack_import(capsule)
    assert capsule_name(capsule).startswith("dltensor")  # not consumed: NumPy still frees it


def test_import_dlpack_of_a_numpy_array_says_it_lives_on_the_host():
    with pytest.raises(BufferError, match="host.*to_gpu"):
        _interop.import_dlpack(np.arange(4.0))


@pytest.mark.parametrize("versioned", [True, False])
def test_hand_made_tensor_with_byte_offset_and_no_strides(versioned):
    made = HandMade(versioned=versioned, byte_offset=64, strides=None, shape=(2, 3))
    ptr, shape, strides, name, device_type, _, holder = _driver._dlpack_import(made.capsule)
    assert (ptr, shape, strides, name, device_type) == (FAKE_PTR + 64, (2, 3), None, "float32", 2)
    assert made.deleted == 0
    del holder
    gc.collect()
    assert made.deleted == 1
    # import_dlpack fills in the C-contiguous byte strides
    made = HandMade(versioned=versioned, strides=None, shape=(2, 3))
    assert _interop.import_dlpack(made.capsule)[3] == (12, 4)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"major": 2}, BufferError, "major version is 2"),
        ({"device": (10, 0)}, BufferError, "device type 10"),
        ({"device": (3, 0)}, BufferError, "lives on the host"),
        ({"dtype": (2, 32, 4)}, TypeError, "unsupported data type"),
        ({"dtype": (2, 8, 1)}, TypeError, "unsupported data type"),
        ({"dtype": (3, 64, 1)}, TypeError, "unsupported data type"),
    ],
)
def test_hand_made_tensors_we_refuse(kwargs, error, match):
    made = HandMade(**kwargs)
    with pytest.raises(error, match=match):
        _driver._dlpack_import(made.capsule)
    assert capsule_name(made.capsule) == "dltensor_versioned"  # left for its owner to free
    assert made.deleted == 0


# ---------------------------------------------------------------------------------------------
# CUDA Array Interface


def test_cuda_array_interface_of_a_c_contiguous_array():
    cai = _interop.cuda_array_interface((2, 3), np.float32, (12, 4), FAKE_PTR)
    assert cai == {
        "shape": (2, 3),
        "typestr": "<f4",
        "descr": [("", "<f4")],
        "data": (FAKE_PTR, False),
        "strides": None,
        "version": 3,
        "stream": 1,
    }


def test_cuda_array_interface_strides_read_only_and_streams():
    class ForeignStream:
        def __cuda_stream__(self):
            return (0, 0xABC0)

    cai = _interop.cuda_array_interface((2, 3), np.int16, (2, 4), FAKE_PTR, True, 0xDEF0)
    assert cai["strides"] == (2, 4)
    assert cai["data"] == (FAKE_PTR, True)
    assert cai["stream"] == 0xDEF0
    assert cai["typestr"] == "<i2"
    assert _interop.cuda_array_interface((3,), "bool", None, FAKE_PTR)["typestr"] == "|b1"
    assert _interop.cuda_array_interface((3,), "f8", None, 1, stream_ptr=0)["stream"] == 1
    stream = _interop.cuda_array_interface((3,), "f8", None, 1, stream_ptr=ForeignStream())
    assert stream["stream"] == 0xABC0
    # extents of 1 do not spoil contiguity; an empty array reports a null pointer
    assert _interop.cuda_array_interface((1, 3), "f4", (999, 4), FAKE_PTR)["strides"] is None
    assert _interop.cuda_array_interface((0, 3), "f4", (12, 4), FAKE_PTR)["data"] == (0, False)


@pytest.mark.parametrize("strides", [None, (4, 8)])
def test_parse_cuda_array_interface_round_trip(strides):
    class Exporter:
        __cuda_array_interface__ = _interop.cuda_array_interface(
            (2, 3), np.float32, strides, FAKE_PTR, stream_ptr=0x1234
        )

    ptr, shape, dtype, got_strides, stream = _interop.parse_cuda_array_interface(Exporter())
    assert (ptr, shape, dtype, stream) == (FAKE_PTR, (2, 3), np.float32, 0x1234)
    assert got_strides == (strides or (12, 4))


def test_parse_cuda_array_interface_versions_and_errors():
    v2 = {"shape": (4,), "typestr": "<u2", "data": (FAKE_PTR, False), "version": 2}
    assert _interop.parse_cuda_array_interface(v2) == (FAKE_PTR, (4,), np.uint16, (2,), None)
    v2_with_stream = dict(v2, stream=5)  # before v3 a stream key means nothing
    assert _interop.parse_cuda_array_interface(v2_with_stream)[4] is None
    v3 = dict(v2, version=3, stream=None)
    assert _interop.parse_cuda_array_interface(v3)[4] is None
    with pytest.raises(ValueError, match="mask"):
        _interop.parse_cuda_array_interface(dict(v3, mask=object()))
    with pytest.raises(ValueError, match="stream"):
        _interop.parse_cuda_array_interface(dict(v3, stream=0))
    with pytest.raises(ValueError, match="version"):
        _interop.parse_cuda_array_interface(dict(v3, version=4))
    with pytest.raises(ValueError, match="typestr"):
        _interop.parse_cuda_array_interface({"shape": (4,), "data": (1, False), "version": 3})
    with pytest.raises(TypeError, match="__cuda_array_interface__"):
        _interop.parse_cuda_array_interface(np.zeros(3))


def test_synchronize_with_needs_no_work_for_the_same_stream():
    # No GPU here: these return before touching the driver.
    _interop.synchronize_with(None)
    _interop.synchronize_with(1)
    _interop.synchronize_with(1, 1)
    _interop.synchronize_with(0x1234, 0x1234)
    with pytest.raises(ValueError, match="ambiguous"):
        _interop.synchronize_with(0)


# ---------------------------------------------------------------------------------------------
# export_dlpack / import_dlpack (the Array API protocol)


class FakeArray:
    """The attributes export_dlpack reads from a GPUArray, over a made-up address."""

    def __init__(self, shape=(2, 3), dtype=np.float32, strides=None, ptr=FAKE_PTR):
        self.shape, self.dtype, self.ptr = shape, np.dtype(dtype), ptr
        self.strides = strides or _interop.c_contiguous_strides(shape, self.dtype.itemsize)
        self.copies = 0

    def copy(self):
        self.copies += 1
        return FakeArray(self.shape, self.dtype, None, self.ptr + 0x10000)


@pytest.mark.parametrize(
    ("max_version", "name"),
    [(None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"),
     ((1, 3), "dltensor_versioned"), ((2, 0), "dltensor_versioned")],
)  # fmt: skip
def test_export_dlpack_max_version_picks_the_capsule(max_version, name):
    array = FakeArray()
    capsule = _interop.export_dlpack(array, stream=1, max_version=max_version, device_id=0)
    assert capsule_name(capsule) == name
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(capsule)
    assert (ptr, shape, dtype, strides) == (FAKE_PTR, (2, 3), np.float32, (12, 4))


def test_export_dlpack_keeps_the_array_alive():
    array = FakeArray()
    alive = weakref.ref(array)
    capsule = _interop.export_dlpack(array, stream=-1, max_version=(1, 0), device_id=0)
    holder = _interop.import_dlpack(capsule)[-1]
    del array, capsule
    gc.collect()
    assert alive() is not None
    del holder
    gc.collect()
    assert alive() is None


def test_export_dlpack_device_stream_and_copy_rules():
    array = FakeArray()
    ok = _interop.export_dlpack(array, stream=None, dl_device=(2, 0), device_id=0)
    assert capsule_name(ok) == "dltensor"
    with pytest.raises(BufferError, match="cannot export to DLPack device"):
        _interop.export_dlpack(array, stream=-1, dl_device=(1, 0), device_id=0)
    with pytest.raises(BufferError, match="cannot export to DLPack device"):
        _interop.export_dlpack(array, stream=-1, dl_device=(2, 1), device_id=0)
    with pytest.raises(ValueError, match="stream=0"):
        _interop.export_dlpack(array, stream=0, device_id=0)
    with pytest.raises(TypeError, match="stream"):
        _interop.export_dlpack(array, stream=1.5, device_id=0)
    with pytest.raises(TypeError, match="max_version"):
        _interop.export_dlpack(array, stream=-1, max_version=1, device_id=0)
    assert _interop.dlpack_device(3) == (2, 3)
    assert _interop.dlpack_device(3, managed=True) == (13, 3)
    # copy=False and None export in place; copy=True exports array.copy()
    for copy in (None, False):
        capsule = _interop.export_dlpack(array, stream=-1, copy=copy, device_id=0)
        assert _interop.import_dlpack(capsule)[0] == FAKE_PTR
    capsule = _interop.export_dlpack(array, stream=-1, copy=True, max_version=(1, 0), device_id=0)
    assert _interop.import_dlpack(capsule)[0] == FAKE_PTR + 0x10000
    assert array.copies == 1


def test_export_dlpack_copy_true_without_copy_method():
    class NoCopy(FakeArray):
        copy = None

    with pytest.raises(BufferError, match="copy"):
        _interop.export_dlpack(NoCopy(), stream=-1, copy=True, device_id=0)


def test_import_dlpack_calls_the_protocol_with_stream_and_max_version():
    calls = []

    class Modern:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, *, stream=None, max_version=None):
            calls.append(("modern", stream, max_version))
            return _interop.export_dlpack(
                FakeArray(), stream=-1, max_version=max_version, device_id=0
            )

    class Legacy:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            calls.append(("legacy", stream))
            return _interop.export_dlpack(FakeArray(), stream=-1, device_id=0)

    ptr, shape, dtype, strides, holder = _interop.import_dlpack(Modern())
    assert holder.versioned and ptr == FAKE_PTR
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(Legacy())
    assert not holder.versioned and shape == (2, 3)
    # the legacy producer refused max_version (TypeError) and was asked again without it
    assert calls == [("modern", 1, (1, 0)), ("legacy", 1)]
    _interop.import_dlpack(Modern(), stream=0x5678)
    assert calls[-1] == ("modern", 0x5678, (1, 0))


# ---------------------------------------------------------------------------------------------
# GPU: CuPy and PyTorch, both directions, zero copy


class DeviceBuffer:
    """A test-only device array over mem_alloc, speaking both protocols through _interop."""

    def __init__(self, host: np.ndarray):
        import pycuda.driver as drv

        self.host = np.ascontiguousarray(host)
        self.shape, self.dtype, self.strides = self.host.shape, self.host.dtype, self.host.strides
        self.gpudata = drv.mem_alloc(max(self.host.nbytes, 1))
        self.ptr = int(self.gpudata)
        drv.memcpy_htod(self.gpudata, self.host)

    @property
    def __cuda_array_interface__(self):
        return _interop.cuda_array_interface(self.shape, self.dtype, self.strides, self.ptr)

    def __dlpack_device__(self):
        return _interop.dlpack_device(_interop.current_device_id())

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        return _interop.export_dlpack(self, stream, max_version, dl_device, copy)

    def get(self) -> np.ndarray:
        import pycuda.driver as drv

        out = np.empty_like(self.host)
        drv.memcpy_dtoh(out, self.gpudata)
        return out


def read_back(ptr: int, like: np.ndarray) -> np.ndarray:
    import pycuda.driver as drv

    out = np.empty_like(like)
    drv.memcpy_dtoh(out, ptr)
    return out


SAMPLE = np.arange(24, dtype=np.float32).reshape(4, 6)


@pytest.mark.gpu
def test_gpu_current_device_id(ctx):
    assert _interop.current_device_id() == 0


@pytest.mark.gpu
def test_gpu_synchronize_with_streams(ctx):
    import pycuda.driver as drv

    producer, consumer = drv.Stream(), drv.Stream()
    _interop.synchronize_with(producer, consumer)  # device-side wait
    _interop.synchronize_with(producer.handle, None)  # host waits
    _interop.synchronize_with(2, None)  # per-thread default stream
    _interop.synchronize_with(1, consumer)
    consumer.synchronize()


@pytest.mark.gpu
def test_gpu_export_dlpack_to_a_foreign_stream_waits(ctx):
    import pycuda.driver as drv

    buf = DeviceBuffer(SAMPLE)
    other = drv.Stream()
    capsule = buf.__dlpack__(stream=other.handle, max_version=(1, 0))
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(capsule)
    assert ptr == buf.ptr
    np.testing.assert_array_equal(read_back(ptr, SAMPLE), SAMPLE)


@pytest.mark.gpu
def test_gpu_cupy_takes_our_memory(ctx):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    buf = DeviceBuffer(SAMPLE)
    via_cai = cupy.asarray(buf)
    assert via_cai.data.ptr == buf.ptr
    np.testing.assert_array_equal(cupy.asnumpy(via_cai), SAMPLE)
    via_dlpack = cupy.from_dlpack(buf)
    assert via_dlpack.data.ptr == buf.ptr
    np.testing.assert_array_equal(cupy.asnumpy(via_dlpack), SAMPLE)
    via_dlpack *= 2  # writes land in our memory
    cupy.cuda.get_current_stream().synchronize()
    np.testing.assert_array_equal(buf.get(), 2 * SAMPLE)


@pytest.mark.gpu
def test_gpu_we_take_cupy_memory(ctx):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cupy.arange(24, dtype=cupy.float32).reshape(4, 6)[:, ::2]  # strided
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(x)
    assert (ptr, shape, dtype, strides) == (x.data.ptr, x.shape, np.float32, x.strides)
    ptr2, shape2, dtype2, strides2, stream = _interop.parse_cuda_array_interface(x)
    assert (ptr2, shape2, strides2) == (x.data.ptr, x.shape, x.strides)
    _interop.synchronize_with(stream)
    dense = cupy.ascontiguousarray(x)
    ptr, _, _, _, _holder = _interop.import_dlpack(dense)
    np.testing.assert_array_equal(read_back(ptr, cupy.asnumpy(dense)), cupy.asnumpy(dense))


@pytest.mark.gpu
def test_gpu_torch_takes_our_memory(ctx):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    buf = DeviceBuffer(SAMPLE)
    alive = weakref.ref(buf)
    t = torch.from_dlpack(buf)
    assert t.data_ptr() == buf.ptr and t.is_cuda
    np.testing.assert_array_equal(t.cpu().numpy(), SAMPLE)
    legacy = torch.utils.dlpack.from_dlpack(buf.__dlpack__(stream=1))
    assert legacy.data_ptr() == buf.ptr
    via_cai = torch.as_tensor(buf, device="cuda")
    assert via_cai.data_ptr() == buf.ptr
    del buf, legacy, via_cai
    gc.collect()
    assert alive() is not None  # the tensor keeps our buffer alive
    t.add_(1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(t.cpu().numpy(), SAMPLE + 1)
    del t
    gc.collect()
    assert alive() is None


@pytest.mark.gpu
def test_gpu_we_take_torch_memory(ctx):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x = torch.arange(24, dtype=torch.float64, device="cuda").reshape(4, 6).t()
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(x)
    assert (ptr, shape, dtype) == (x.data_ptr(), (6, 4), np.float64)
    assert strides == tuple(s * 8 for s in x.stride())
    capsule = torch.utils.dlpack.to_dlpack(x.contiguous())
    ptr, shape, dtype, strides, holder = _interop.import_dlpack(capsule)
    np.testing.assert_array_equal(
        read_back(ptr, np.empty(shape, dtype)), x.contiguous().cpu().numpy()
    )
    ptr2, shape2, _, _, stream = _interop.parse_cuda_array_interface(x)
    assert ptr2 == x.data_ptr() and shape2 == (6, 4)
    _interop.synchronize_with(stream)
    with pytest.raises(BufferError, match="host"):
        _interop.import_dlpack(torch.zeros(3))
