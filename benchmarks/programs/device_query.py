"""A device query, as the tutorials open: the device's name, capability, memory and limits."""

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv

dev = pycuda.autoinit.device
print(f"{dev.name()}: compute capability {dev.compute_capability()}")
print(f"  total memory: {dev.total_memory() // (1024 * 1024)} MiB")
for name in ("MULTIPROCESSOR_COUNT", "MAX_THREADS_PER_BLOCK", "WARP_SIZE", "CLOCK_RATE"):
    print(f"  {name}: {dev.get_attribute(getattr(drv.device_attribute, name))}")
assert drv.Device.count() >= 1
print("device_query: ok")
