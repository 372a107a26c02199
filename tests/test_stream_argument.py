"""What a ``stream`` argument accepts: a Stream, None, or a foreign object that names a
CUstream (``__cuda_stream__``, an integer ``.ptr``/``.cuda_stream``/``.handle``); another of
pycuda's objects is a TypeError, since its handle is no stream (a GPUArray's ``.ptr`` given to
cuEventRecord crashed the driver)."""

import fake_libcuda


def test_pycuda_objects_are_not_streams(fake_libcuda_so):
    out = fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import gpuarray
        a = gpuarray.to_gpu(np.arange(4, dtype=np.float32))
        event = drv.Event()
        host = drv.pagelocked_empty(4, np.float32)

        def copy(stream):
            drv.memcpy_htod_async(a.gpudata, host, stream)

        for wrong in (a, a[:0], drv.Event(), ctx, drv.mem_alloc(8)):
            for call in (event.record, copy):
                try:
                    call(wrong)
                except TypeError as e:
                    assert "stream must be None" in str(e), e
                else:
                    raise AssertionError(f"{type(wrong).__name__} taken for a stream")

        class Foreign:  # another library's stream: its handle is read
            def __init__(self, handle):
                self.ptr = handle

        stream = drv.Stream()
        event.record(Foreign(stream.handle))
        event.record(None)
        event.record(stream)
        print("checked")
        """,
    )
    assert "checked" in out
