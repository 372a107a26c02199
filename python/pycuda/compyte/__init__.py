"""pycuda.compyte: helpers shared with other GPU array packages (the C-type registry in dtypes).

from pycuda.compyte.dtypes import dtype_to_ctype
dtype_to_ctype(numpy.float32)  # 'float'
"""
