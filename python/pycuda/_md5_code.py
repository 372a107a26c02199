"""``md5_code``: the original's CUDA fragment behind its MD5-based ``curandom.rand``.

Pasted at the start of an element-wise operation, the fragment declares ``unsigned int a, b, c,
d``: the MD5 digest words (RFC 1321) of one 512-bit block made of the launch coordinates and the
kernel's ``seed``, ``i`` and ``n``, in the original's order: ``threadIdx.x, .y, .z, blockIdx.x,
.y, .z, seed, i, n, blockDim.x, .y, .z, gridDim.x, .y, .z, 0``. Four independent 32-bit random
words per element, as the original's ``rand`` used them::

    from pycuda.elementwise import ElementwiseKernel
    fill = ElementwiseKernel("unsigned int *dest, unsigned int seed",
                             md5_code + "dest[i] = a ^ b ^ c ^ d;", "md5_bits")

(Our ``curandom.rand`` draws from Philox instead.) The 64 steps are written out here from the
RFC's definition; only the names ``a``, ``b``, ``c``, ``d`` and ``pr_md5_*`` are declared.
"""

from __future__ import annotations

import math

# The 16 message words, in the original's order.
_WORDS = (
    "threadIdx.x", "threadIdx.y", "threadIdx.z", "blockIdx.x", "blockIdx.y", "blockIdx.z",
    "seed", "i", "n", "blockDim.x", "blockDim.y", "blockDim.z", "gridDim.x", "gridDim.y",
    "gridDim.z", "0",
)  # fmt: skip

_INITIAL = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)

# RFC 1321: the per-round shifts, the mixing functions, and the message word of each step.
_SHIFTS = ((7, 12, 17, 22), (5, 9, 14, 20), (4, 11, 16, 23), (6, 10, 15, 21))
_FUNCTIONS = (
    "(({x} & {y}) | (~{x} & {z}))",
    "(({x} & {z}) | ({y} & ~{z}))",
    "({x} ^ {y} ^ {z})",
    "({y} ^ ({x} | ~{z}))",
)


def _word_index(step: int) -> int:
    r, j = divmod(step, 16)
    return (j, 5 * j + 1, 3 * j + 5, 7 * j)[r] % 16


def _step(step: int) -> str:
    """One MD5 step: the register whose turn it is absorbs the mixing function of the others."""
    regs = "abcd"
    target, x, y, z = (regs[(k - step) % 4] for k in range(4))
    r = step // 16
    shift = _SHIFTS[r][step % 4]
    constant = int(abs(math.sin(step + 1)) * 2**32) & 0xFFFFFFFF
    mix = _FUNCTIONS[r].format(x=x, y=y, z=z)
    return (
        f"  pr_md5_t = {target} + {mix} + pr_md5_w{_word_index(step)} + 0x{constant:08x}u;\n"
        f"  {target} = {x} + ((pr_md5_t << {shift}) | (pr_md5_t >> {32 - shift}));\n"
    )


def _fragment() -> str:
    words = "".join(
        f"  const unsigned int pr_md5_w{k} = (unsigned int)({w});\n" for k, w in enumerate(_WORDS)
    )
    start = ", ".join(f"{r} = 0x{v:08x}u" for r, v in zip("abcd", _INITIAL, strict=True))
    finish = "".join(f"  {r} += 0x{v:08x}u;\n" for r, v in zip("abcd", _INITIAL, strict=True))
    return (
        "\n  /* MD5 (RFC 1321) of the launch coordinates, seed, i and n: digest in a, b, c, d */\n"
        + words
        + f"  unsigned int {start};\n"
        + "  unsigned int pr_md5_t;\n"
        + "".join(_step(s) for s in range(64))
        + finish
    )


md5_code = _fragment()
