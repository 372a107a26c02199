"""examples/prefix_sum.py: running totals on the GPU with InclusiveScanKernel and
ExclusiveScanKernel.

The exclusive scan of a list of counts gives each item's starting offset, the usual first step
of packing variable-sized pieces into one array.
"""

import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
from pycuda import gpuarray
from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel

counts = numpy.random.randint(0, 10, size=100_000).astype(numpy.int64)
counts_gpu = gpuarray.to_gpu(counts)

running_total = InclusiveScanKernel(numpy.int64, "a+b")
offsets = ExclusiveScanKernel(numpy.int64, "a+b", neutral="0")

starts = offsets(counts_gpu, output_ary="new")  # a new array; counts_gpu is unchanged
totals = running_total(counts_gpu)  # in place: counts_gpu now holds the running totals

assert numpy.array_equal(starts.get(), numpy.concatenate(([0], numpy.cumsum(counts)[:-1])))
assert numpy.array_equal(totals.get(), numpy.cumsum(counts))
print(f"prefix_sum: {counts.size} counts scanned, {int(totals.get()[-1])} items in all")
