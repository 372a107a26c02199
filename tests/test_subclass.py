"""GPUArray's object model as the original's: assignable attributes and subclasses (the idioms
of reikna's ``Array`` and scikit-cuda's ``set_realloc``) keep working through every operation."""

from __future__ import annotations

import pickle

import host_device
import numpy as np
import pytest

from pycuda import _array_core, cumath, gpuarray
from pycuda.gpuarray import GPUArray

BASE = 1 << 20  # a made-up device address: layout logic only, no memory is touched


def fake_allocate(nbytes):
    return BASE  # "new memory" at the made-up address: nothing is read or written


class Tagged(GPUArray):
    """A subclass that takes GPUArray's constructor as it is."""


class ThreadArray(GPUArray):
    """reikna's pattern: its own constructor (a thread first), its own nbytes, results made by
    its own _new_like_me (which takes no ``order``)."""

    def __init__(self, thread, shape, dtype, nbytes=None, gpudata=None, allocator=None):
        GPUArray.__init__(self, shape, dtype, allocator=allocator, gpudata=gpudata)
        self.nbytes = nbytes
        self.thread = thread

    def _new_like_me(self, dtype=None):
        dtype = self.dtype if dtype is None else dtype
        return ThreadArray(self.thread, self.shape, dtype, nbytes=-1, allocator=self.allocator)


# {{{ without a device


def test_every_attribute_of_the_original_is_assignable_and_read_back():
    a = GPUArray((3, 4), np.float32, gpudata=BASE)
    values = {
        "shape": (4, 3), "dtype": np.dtype(np.float32), "strides": (12, 4), "size": 12,
        "mem_size": 99, "nbytes": 1000, "itemsize": 4, "allocator": print, "gpudata": BASE + 16,
        "base": "base", "_grid": (7, 1), "_block": (64, 1, 1),
    }  # fmt: skip
    for name, value in values.items():
        setattr(a, name, value)
    for name, value in values.items():
        assert getattr(a, name) is value, name
    assert a.ptr == BASE + 16
    del a.nbytes, a.mem_size, a.itemsize  # back to the original's formulas
    assert (a.nbytes, a.mem_size, a.itemsize) == (48, 12, 4)


def test_assigning_gpudata_moves_the_array():
    a = GPUArray((8,), np.float32, gpudata=BASE)
    a.gpudata = BASE + 256  # an int, as reikna's temporary arrays do
    assert a.ptr == BASE + 256 and a.__cuda_array_interface__["data"] == (BASE + 256, False)
    assert a[2:].ptr == BASE + 256 + 8  # views are taken from the new address

    class Holder:  # any object with an int(), as a DeviceAllocation
        def __int__(self):
            return BASE + 512

    a.gpudata = Holder()
    assert a.ptr == BASE + 512 and a[1:].ptr == BASE + 516
    a.gpudata = None
    assert a.ptr == 0


def test_assigning_shape_strides_or_dtype_changes_the_layout():
    a = GPUArray((4, 6), np.float32, gpudata=BASE)
    assert a._c and a.flags.c_contiguous
    a.strides = (4, 16)  # scikit-cuda's set_realloc assigns shape and strides
    assert not a._c and a.flags.f_contiguous
    a.shape, a.strides = (6, 4), (16, 4)
    assert a._c and a.flags.c_contiguous
    a.dtype = np.dtype(np.float64)  # 8-byte items: the strides no longer fit
    assert not a._c


def test_an_array_made_without_init_has_no_attributes_until_assigned():
    a = object.__new__(Tagged)  # as pickle protocols and some subclasses make them
    with pytest.raises(AttributeError, match="shape"):
        _ = a.shape
    a.shape, a.strides, a.dtype, a.size, a.gpudata = (2,), (4,), np.dtype(np.float32), 2, BASE
    assert a._c and a.ptr == BASE and a.nbytes == 8
    a.extra = "subclass data"  # a subclass's own attributes go in its __dict__
    assert vars(a) == {"extra": "subclass data"}


def test_default_allocator_is_a_callable():
    a = GPUArray((4,), np.float32, gpudata=BASE)
    assert callable(a.allocator) and a.allocator is _array_core.context_allocator()


def test_subclass_with_its_own_constructor_keeps_what_it_assigns():
    a = ThreadArray("thread", (4,), np.float32, nbytes=64, gpudata=BASE)
    assert a.nbytes == 64 and a.thread == "thread" and a.size == 4


def test_views_of_a_subclass_keep_its_class_where_its_constructor_allows():
    t = Tagged((4, 6), np.float32, gpudata=BASE)
    for view in (t[1:], t.T, t.reshape(24), t.view(np.int32), t[None], t.squeeze(), t.ravel()):
        assert type(view) is Tagged and view.base is t
    assert t[1:].ptr == BASE + 24
    r = ThreadArray("thread", (4, 6), np.float32, gpudata=BASE)
    view = r[1:]  # a constructor of its own: a plain GPUArray view, as the original's
    assert type(view) is GPUArray and view.ptr == BASE + 24 and view.base is r


def test_new_like_me_and_new_with_changes():
    a = Tagged((3, 4), np.float32, allocator=fake_allocate)
    like = a._new_like_me()
    assert type(like) is Tagged and like.shape == (3, 4) and like.strides == a.strides
    other = a._new_like_me(np.float64)
    assert other.dtype == np.float64 and other.strides == (32, 8)
    fortran = a._new_like_me(np.float64, order="F")
    assert fortran.strides == (8, 24)
    view = a._new_with_changes(a.gpudata, 16, shape=(2,), strides=(4,))
    assert type(view) is Tagged and view.ptr == BASE + 16 and view.base is a
    fresh = a._new_with_changes(None, 0, shape=(5,), dtype=np.int8)
    assert fresh.shape == (5,) and fresh.dtype == np.int8 and fresh.base is None


def test_a_new_like_me_that_makes_the_wrong_array_is_refused():
    class Wrong(GPUArray):
        def _new_like_me(self, dtype=None, order="C"):
            return GPUArray((1,), np.float32, gpudata=BASE)

    w = Wrong((4,), np.float32, allocator=fake_allocate)
    with pytest.raises(TypeError, match="_new_like_me"):
        w._like()


def test_original_helpers_of_gpuarray(monkeypatch):
    from pycuda import _gpuarray_helpers

    monkeypatch.setattr(_gpuarray_helpers, "has_double_support", lambda: True)
    a = GPUArray((3, 4), np.float32, gpudata=BASE, strides=(4, 12))
    assert gpuarray._compact_strides(a) == [4, 12]
    assert gpuarray._c_contiguous_strides(4, (3, 4)) == (16, 4)
    assert gpuarray._f_contiguous_strides(4, (3, 4)) == (4, 12)
    assert gpuarray._c_contiguous_strides(4, ()) == ()
    assert gpuarray._array_like_helper(a, None, "K") == (np.float32, "F", None)
    assert gpuarray._array_like_helper(a, np.float64, "A")[1] == "F"
    odd = GPUArray((3, 4), np.float32, gpudata=BASE, strides=(-16, 8))
    assert gpuarray._array_like_helper(odd, np.float64, "K") == (np.float64, "K", [32, 16])
    with pytest.raises(ValueError, match="order"):
        gpuarray._array_like_helper(a, None, "X")
    host = np.arange(12.0)
    assert gpuarray._as_strided(host, (3, 2), (32, 8)).tolist() == [[0, 1], [4, 5], [8, 9]]
    assert callable(gpuarray.has_double_support)
    b = GPUArray((4,), np.int16, gpudata=BASE)
    assert gpuarray._get_common_dtype(b, 2.5) == np.float64
    assert gpuarray._get_common_dtype(b, GPUArray((4,), np.float32, gpudata=BASE)) == np.float32
    monkeypatch.setattr(_gpuarray_helpers, "has_double_support", lambda: False)
    assert gpuarray._get_common_dtype(b, 2.5) == np.float32  # demoted without doubles
    with pytest.raises(ValueError, match="same shape"):
        gpuarray._memcpy_discontig(a, np.zeros((4, 3), np.float32))
    with pytest.raises(TypeError, match="same dtype"):
        gpuarray._memcpy_discontig(a, np.zeros((3, 4), np.float64))
    with pytest.raises(TypeError, match="GPUArray or ndarray"):
        gpuarray._memcpy_discontig(a, [1, 2])
    dst = np.zeros(3)
    gpuarray._memcpy_discontig(dst, np.arange(3.0))  # host to host
    assert dst.tolist() == [0, 1, 2]


def test_object_and_string_dtypes_are_refused():
    for dtype in (object, "U3", "S2", [("a", object)]):
        with pytest.raises(TypeError, match="cannot hold"):
            GPUArray((3,), dtype, gpudata=BASE)


def test_pickled_subclass_comes_back_as_its_host_copy_on_the_device():
    # __reduce__ is the original's: to_gpu of the host copy (the class is not kept)
    assert GPUArray.__reduce__ is Tagged.__reduce__
    assert pickle.dumps is not None


# }}}

# {{{ results through every operation, on the GPU and the host stand-in


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _tagged(host):
    a = Tagged(host.shape, host.dtype)
    a.set(host)
    return a


def _check(result, want, cls=Tagged):
    assert type(result) is cls, (type(result), cls)
    np.testing.assert_allclose(result.get(), want, rtol=1e-6)


def test_operators_keep_the_subclass(device):
    rng = np.random.default_rng(1)
    x = (rng.random(37) + 1).astype(np.float32)
    y = (rng.random(37) + 1).astype(np.float32)
    a, b = _tagged(x), _tagged(y)
    plain = gpuarray.to_gpu(y)
    _check(a + b, x + y)
    _check(a + plain, x + y)
    _check(plain + a, y + x, GPUArray)  # the left operand's class, as the original
    _check(a - 1, x - 1)
    _check(2 * a, 2 * x)
    _check(a / b, x / y)
    _check(1 / a, 1 / x)
    _check(a**2, x**2)
    _check(-a, -x)
    _check(abs(-a), x)
    _check(a < b, x < y)
    _check(a.mul_add(2, b, 3), 2 * x + 3 * y)
    _check(a.astype(np.float64), x.astype(np.float64))
    _check(a.copy(), x)
    _check(a[::2].copy(), x[::2])
    _check(a.reverse(), x[::-1])
    _check(cumath.exp(a), np.exp(x))
    _check(cumath.sqrt(a), np.sqrt(x))
    before = a.ptr
    a += b
    assert type(a) is Tagged and a.ptr == before
    np.testing.assert_allclose(a.get(), x + y, rtol=1e-6)


def test_complex_parts_keep_the_subclass(device):
    z = (np.arange(6) + 1j * np.arange(6, 12)).astype(np.complex128)
    a = _tagged(z)
    _check(a.conj(), z.conj())
    assert type(a.real) is Tagged and type(a.imag) is Tagged  # new arrays, made like `a`
    _check(a.real, z.real)
    _check(a.imag, z.imag)


def test_results_of_a_subclass_with_its_own_constructor(device):
    x = np.arange(10, dtype=np.float32)
    a = ThreadArray("thread", (10,), np.float32, nbytes=123)
    a.set(x)
    assert a.nbytes == 123  # what reikna assigns is read back
    for result, want in ((a + 1, x + 1), (a * a, x * x), (a.astype(np.float64), x), (-a, -x)):
        assert type(result) is ThreadArray and result.thread == "thread" and result.nbytes == -1
        np.testing.assert_allclose(result.get(), want)


def test_set_realloc_pattern(device):
    # scikit-cuda's misc.set_realloc: free the block, give the array a new one and a new
    # layout, then set(): the copy goes to the new block
    a = gpuarray.to_gpu(np.zeros(4, np.float32))
    new = np.arange(6, dtype=np.float64).reshape(2, 3)
    if hasattr(a.gpudata, "free"):  # (the host stand-in's memory is a plain address)
        a.gpudata.free()
    a.gpudata = a.allocator(new.nbytes)
    a.shape, a.strides, a.dtype, a.size = new.shape, new.strides, new.dtype, new.size
    del a.nbytes  # (set_realloc does not touch it: the formula follows the new size)
    a.set(new)
    np.testing.assert_array_equal(a.get(), new)
    np.testing.assert_array_equal((a + 1).get(), new + 1)


def test_set_from_a_device_array(device):
    src = gpuarray.to_gpu(np.arange(12, dtype=np.float32).reshape(3, 4))
    dst = gpuarray.GPUArray((3, 4), np.float32)
    dst.set(src)
    np.testing.assert_array_equal(dst.get(), src.get())
    strided = gpuarray.GPUArray((3, 4), np.float32)
    strided.set(src.T.copy().T)  # other strides: copied element by element
    np.testing.assert_array_equal(strided.get(), src.get())
    with pytest.raises(ValueError, match="dtype"):
        dst.set(src.astype(np.float64))
    host = np.zeros((3, 4), np.float32)
    gpuarray._memcpy_discontig(host, src)
    np.testing.assert_array_equal(host, src.get())
    again = gpuarray.GPUArray((3, 4), np.float32)
    gpuarray._memcpy_discontig(again, src)
    np.testing.assert_array_equal(again.get(), src.get())


def test_originals_kernel_helpers(device):
    x = np.arange(1, 9, dtype=np.float32)
    y = np.arange(10, 18, dtype=np.float32)
    a, b = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    out = gpuarray.GPUArray((8,), np.float32)
    np.testing.assert_allclose(a._axpbyz(2, b, 3, out).get(), 2 * x + 3 * y)
    np.testing.assert_allclose(a._axpbz(2, 5, out).get(), 2 * x + 5)
    np.testing.assert_allclose(a._elwise_multiply(b, out).get(), x * y)
    np.testing.assert_allclose(a._div(b, out).get(), x / y)
    np.testing.assert_allclose(a._rdiv_scalar(2, out).get(), 2 / x)
    ints = gpuarray.GPUArray((8,), np.int32)
    np.testing.assert_array_equal(a._axpbyz(1, b, 1, ints).get(), (x + y).astype(np.int32))
    np.testing.assert_allclose(a._pow(2, True).get(), x**2)
    assert a._pow(2, False) is a
    np.testing.assert_allclose(a.get(), x**2)
    scalar = gpuarray.to_gpu(np.float32(3))  # a 0-d operand on either side
    np.testing.assert_allclose(scalar._axpbyz(1, b, 1, out).get(), 3 + y)
    result = gpuarray._get_broadcasted_binary_op_result(a, b, lambda x, y: np.float64)
    assert result.shape == (8,) and result.dtype == np.float64
    assert gpuarray._get_broadcasted_binary_op_result(scalar, b, lambda x, y: x.dtype).shape == (8,)


# }}}


@pytest.mark.gpu
def test_any_all_take_the_originals_positional_arguments(ctx):
    import pycuda.driver as drv

    a = gpuarray.to_gpu(np.array([0, 0, 3], np.int32))
    taken = []

    def allocator(nbytes):
        taken.append(nbytes)
        return drv.mem_alloc(nbytes)

    stream = drv.Stream()
    assert bool(a.any(stream, allocator).get()) and not bool(a.all(None, allocator).get())
    assert taken and bool(a.any(None).get()) and bool(a.any(stream).get())
