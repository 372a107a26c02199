"""Large fills of the ``pycuda.curandom`` generator classes: the original's numbers, sooner.

The original's fill kernels give each generator state one thread, which draws every
``generator_count``-th element of the array, one number after another. On large arrays two
classes launch the kernels made here instead. They write the same numbers to the same places
and leave the states as the original's would (``tests/test_curandom.py`` compares them bit
for bit on the GPU); how much sooner, and why the others keep the original's kernels, is in
``docs/benchmarks.md``.

* **Sobol** (all four classes, every fill): each state's numbers are split into parts drawn
  by threads of their own. ``starts`` first writes, for each part, its index and point (the
  state's point XOR the direction vectors of the bits in which the Gray codes of the two
  indices differ: a few, as parts are a multiple of a large power of two), and each state's
  first eight direction vectors in rows, so that a warp reads them in one piece. A part then
  walks four points a step, three of which XOR in the first two vectors. The thread that
  draws a state's last number writes back its index and point. Fills of 4-byte numbers (but
  Poisson's) into 8-byte aligned arrays take the ``<fill>_packed`` kernels: a thread draws a
  part of two adjacent states and stores their numbers of an index together.
* **Philox** (uniform float32 and 32-bit integers, the Box-Muller pairs and log-normal pairs
  of float32): one thread a state, as the original's, drawing four numbers a call
  (``curand_uniform4``, ``curand4``, ``curand_normal4``, ``curand_log_normal4``: four
  ``curand()`` calls' numbers in one).

    spec = curandom.Sobol32RandomNumberGenerator._spec
    split_source(spec)          # 'extern "C" {...}': starts and the <fill>_split kernels
    fast_kernel_formats(spec)   # {'starts': 'PPQIQ', 'uniform_float32_split': 'PPPQIQ', ...}
"""

from __future__ import annotations

from typing import Any

from pycuda._curand_sources import (
    GeneratorSpec,
    check_spec,
    fill_kernel_formats,
    gen_info,
    gen_log_info,
    gen_poisson_info,
    gen_poisson_inplace_info,
    high_word_info,
)
from pycuda._launch_config import THREADS_PER_BLOCK

SOBOL_WAVES = 16  # a Sobol fill's parts: about this many waves of resident threads
SOBOL_ROWS = 8  # direction vectors that `starts` lays out in rows (b < 8: 255 steps of 256)
_PHILOX = "curandStatePhilox4_32_10_t"
_C_SIZES = {"float": 4, "double": 8, "int": 4, "unsigned int": 4, "unsigned long long": 8}

# {{{ kernel text

# `from` holds, for part p of state id (flat = p * generators + id, of tp = parts * generators),
# the part's first index at [flat] and point at [tp + flat]; then direction vector b of state
# id at [2 * tp + b * generators + id].
_STARTS = """
__global__ void __launch_bounds__(%(block)d)
starts(const %(state_type)s *s, %(word)s *out, unsigned long long n, unsigned int generators,
    unsigned long long per_part)
{
    const unsigned long long flat = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long items = (n + generators - 1) / generators;
    const unsigned long long tp = (items + per_part - 1) / per_part * generators;
    if (flat >= tp)
        return;
    const unsigned int id = (unsigned int)(flat %% generators);
    const %(word)s *v = s[id].direction_vectors;
    const %(word)s first = s[id].i;
    const %(word)s pos = first + (%(word)s)(flat / generators * per_part);
    %(word)s x = s[id].x;
    // The walk from `first` to `pos` XORs in the vectors of the bits where their Gray codes
    // differ.
    for (%(word)s diff = (first ^ (first >> 1)) ^ (pos ^ (pos >> 1)); diff; diff &= diff - 1)
        x ^= v[%(ffs)s(diff) - 1];
    out[flat] = pos;
    out[tp + flat] = x;
    if (flat < generators)
        for (int b = 0; b < %(rows)d; ++b)
            out[2 * tp + b * generators + id] = v[b];
}
"""

# A part of `lanes` adjacent states a thread (`<fill>_split`: one; `<fill>_packed`: two), whose
# numbers of one row (one index of each state, adjacent in `d`) it stores in one piece: one
# number a store throttled the stores (a pattern of 4-byte stores alone reached ~82% of the
# copy, of 16-byte ones ~99%, docs/benchmarks.md). States drawn to the same index step
# together; a thread over states at different indices (after a fill that was not a multiple of
# `generators`) steps each. `draw(x, i)` is the number of point x for element i (the in-place
# Poisson reads d[i]).
_PARTS = """
__global__ void __launch_bounds__(%(block)d)
%(kernel)s(const %(word)s *from, %(state_type)s *s, %(out_type)s *d, unsigned long long n,
    unsigned int generators, unsigned long long per_part%(params)s)
{
    constexpr int L = %(lanes)d;
    struct __align__(%(row_bytes)d) Row { %(out_type)s v[L]; }; // one store
    const unsigned long long flat = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned int columns = generators / L;
    const unsigned int id = (unsigned int)(flat %% columns) * L;
    const unsigned long long part = flat / columns;
    const unsigned long long g = generators;
    const unsigned long long begin = part * per_part;
    unsigned long long items[L], end[L];
#pragma unroll
    for (int j = 0; j < L; ++j) {
        items[j] = id + j < n ? (n - 1 - id - j) / g + 1 : 0;
        end[j] = min(items[j], begin + per_part);
    }
    if (begin >= end[0])
        return;
    const unsigned long long tp = ((n + g - 1) / g + per_part - 1) / per_part * g;
    %(word)s pos[L], x[L], v[L][%(rows)d];
#pragma unroll
    for (int j = 0; j < L; ++j) {
        pos[j] = from[part * g + id + j];
        x[j] = from[tp + part * g + id + j];
#pragma unroll
        for (int b = 0; b < %(rows)d; ++b)
            v[j][b] = from[2 * tp + b * g + id + j];
    }
    auto step = [&](int j, %(word)s at) {
        const int b = __curand_find_trailing_zero(at);
        if (b < 4)
            return b == 0 ? v[j][0] : b == 1 ? v[j][1] : b == 2 ? v[j][2] : v[j][3];
        if (b < 8)
            return b == 4 ? v[j][4] : b == 5 ? v[j][5] : b == 6 ? v[j][6] : v[j][7];
        return s[id + j].direction_vectors[b];
    };
    auto draw = [&](%(word)s x, unsigned long long i) { return %(draw)s; };
    // Rows every state of the thread draws here (counts fall by at most one along the states).
    const unsigned long long last = end[L - 1];
    unsigned long long k = begin, i = id + begin * g;
    bool together = true;
#pragma unroll
    for (int j = 1; j < L; ++j)
        together = together && pos[j] == pos[0];
    if (together) {
        %(word)s p = pos[0];
        for (; k < last && (p & 3); ++k, i += g, ++p) {
            Row r;
#pragma unroll
            for (int j = 0; j < L; ++j) {
                r.v[j] = draw(x[j], i + j);
                x[j] ^= step(j, p);
            }
            *reinterpret_cast<Row *>(d + i) = r;
        }
        for (; k + 4 <= last; k += 4, i += 4 * g, p += 4) {
            Row r0, r1, r2, r3;
#pragma unroll
            for (int j = 0; j < L; ++j) {
                r0.v[j] = draw(x[j], i + j);
                x[j] ^= v[j][0];
                r1.v[j] = draw(x[j], i + g + j);
                x[j] ^= v[j][1];
                r2.v[j] = draw(x[j], i + 2 * g + j);
                x[j] ^= v[j][0];
                r3.v[j] = draw(x[j], i + 3 * g + j);
                x[j] ^= step(j, p + 3);
            }
            *reinterpret_cast<Row *>(d + i) = r0;
            *reinterpret_cast<Row *>(d + i + g) = r1;
            *reinterpret_cast<Row *>(d + i + 2 * g) = r2;
            *reinterpret_cast<Row *>(d + i + 3 * g) = r3;
        }
        for (; k < last; ++k, i += g, ++p) {
            Row r;
#pragma unroll
            for (int j = 0; j < L; ++j) {
                r.v[j] = draw(x[j], i + j);
                x[j] ^= step(j, p);
            }
            *reinterpret_cast<Row *>(d + i) = r;
        }
#pragma unroll
        for (int j = 0; j < L; ++j)
            pos[j] = p;
    } else {
        for (; k < last; ++k, i += g) {
            Row r;
#pragma unroll
            for (int j = 0; j < L; ++j) {
                r.v[j] = draw(x[j], i + j);
                x[j] ^= step(j, pos[j]++);
            }
            *reinterpret_cast<Row *>(d + i) = r;
        }
    }
#pragma unroll
    for (int j = 0; j < L; ++j) {
        if (end[j] > last) { // the row only the states before n %% generators draw
            d[i + j] = draw(x[j], i + j);
            x[j] ^= step(j, pos[j]++);
        }
        if (end[j] == items[j]) {
            s[id + j].i = pos[j];
            s[id + j].x = x[j];
        }
    }
}
"""

# One thread a state, as the original's kernels, with a call that draws four numbers: the
# calls' remainder one number a call.
_WIDE = """
__global__ void __launch_bounds__(%(block)d)
%(name)s_wide(%(state_type)s *s, %(out_type)s *d, unsigned long long n,
    unsigned int generators%(params)s)
{
    const unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= generators)
        return;
    const unsigned long long g = generators;
    %(state_type)s st = s[id];
    unsigned long long i = id;
    for (; i + %(last)d * g < n; i += %(count)d * g) {
        const %(vector)s r = %(call)s;
%(stores)s
    }
    for (; i < n; i += g)
        d[i] = %(draw)s;
    s[id] = st;
}
"""

# }}}

# {{{ what each fill draws

# What cuRAND's Sobol calls make of one point x (each takes exactly one curand() draw); the
# Sobol loop applies them itself, as a state struct would keep its direction vectors in local
# memory.
_SOBOL_TRANSFORMS = {
    "uniform_float32": "_curand_uniform(x)",
    "uniform_float64": "_curand_uniform_double(x)",
    "normal_float32": "_curand_normal_icdf(x)",
    "normal_float64": "_curand_normal_icdf_double(x)",
    "log_normal_float32": "expf(mean + (stddev * _curand_normal_icdf(x)))",
    "log_normal_float64": "exp(mean + (stddev * _curand_normal_icdf_double(x)))",
}

# Philox's four-number calls: (vector type, call, elements a call, the stores of one call).
_G = ["d[i]", "d[i + g]", "d[i + 2 * g]", "d[i + 3 * g]"]
_FOUR = "\n".join(f"        {e} = r.{c};" for e, c in zip(_G, "xyzw", strict=True))
_TWO_PAIRS = f"        {_G[0]} = make_float2(r.x, r.y);\n        {_G[1]} = make_float2(r.z, r.w);"
_PHILOX_WIDE = {
    "uniform_float32": ("float4", "curand_uniform4(&st)", 4, _FOUR),
    "uniform_uint32": ("uint4", "curand4(&st)", 4, _FOUR),
    "normal2_float32": ("float4", "curand_normal4(&st)", 2, _TWO_PAIRS),
    "log_normal2_float32": ("float4", "curand_log_normal4(&st, mean, stddev)", 2, _TWO_PAIRS),
}


def _sobol_draws(spec: GeneratorSpec) -> dict[str, tuple[str, str, str]]:
    """``{fill name: (output C type, draw expression, parameters)}`` of the Sobol kernels."""
    draws = {n: (t, _SOBOL_TRANSFORMS.get(n, f"({t})x"), "") for n, t, _ in gen_info(spec)}
    draws.update({n: (t, "(unsigned int)(x >> 32)", "") for n, t, _ in high_word_info(spec)})
    draws.update(
        {
            n: (t, _SOBOL_TRANSFORMS[n], f", {i} mean, {i} stddev")
            for n, i, t, _ in gen_log_info(spec)
        }  # fmt: skip
    )
    draws.update({n: (t, f"({t})_curand_poisson(x, lambda)", ", double lambda")
                  for n, t, _ in gen_poisson_info(spec)})  # fmt: skip
    draws.update({n: (t, f"({t})_curand_poisson(x, (double)d[i])", "")
                  for n, t, _ in gen_poisson_inplace_info(spec)})  # fmt: skip
    return draws


def _wide_kernels(spec: GeneratorSpec) -> str:
    params = {n: f", {i} mean, {i} stddev" for n, i, _, _ in gen_log_info(spec)}
    single = {n: (t, f"curand{s}(&st)") for n, t, s in gen_info(spec)}
    single.update({n: (t, f"curand_log{s}(&st, mean, stddev)")
                   for n, _, t, s in gen_log_info(spec)})  # fmt: skip
    text = []
    for name, (vector, call, count, stores) in _PHILOX_WIDE.items():
        out, draw = single[name]
        keys = {"block": THREADS_PER_BLOCK, "state_type": spec.state, "name": name, "out_type": out,
                "params": params.get(name, ""), "vector": vector, "call": call,
                "count": count, "last": count - 1, "stores": stores, "draw": draw}  # fmt: skip
        text.append(_WIDE % keys)
    return "".join(text)


# }}}


def fast_fills(spec: GeneratorSpec) -> str:
    """How the class's large fills run: ``"split"`` (Sobol), ``"wide"`` (Philox) or ``""``
    (the original's kernels: XORWOW and MRG32k3a)."""
    check_spec(spec, "fast_fills")
    return "split" if spec.quasi else "wide" if spec.state == _PHILOX else ""


def split_source(spec: GeneratorSpec) -> str:
    """The kernels of the class's large fills, as an ``extern "C"`` block to append to its
    ``generator_source`` (empty where the class keeps the original's kernels)."""
    kind = fast_fills(spec)
    if kind == "wide":
        return 'extern "C" {\n' + _wide_kernels(spec) + "}\n"
    if not kind:
        return ""
    keys: dict[str, Any] = {"state_type": spec.state, "block": THREADS_PER_BLOCK,
                            "word": spec.word_type,
                            "ffs": "__ffs" if spec.bits == 32 else "__ffsll",
                            "rows": SOBOL_ROWS}  # fmt: skip
    text = [_STARTS % keys]
    for name, (out, draw, params) in _sobol_draws(spec).items():
        fill = dict(keys, out_type=out, draw=draw, params=params)
        size = _C_SIZES[out]
        text.append(_PARTS % dict(fill, kernel=f"{name}_split", lanes=1, row_bytes=size))
        if _packs(name, out):
            row = dict(kernel=f"{name}_packed", lanes=lanes(size), row_bytes=lanes(size) * size)
            text.append(_PARTS % dict(fill, **row))
    return 'extern "C" {\n' + "".join(text) + "}\n"


def fast_kernel_formats(spec: GeneratorSpec) -> dict[str, str]:
    """The ``prepare`` format of each kernel in ``split_source(spec)``, by kernel name.

    ``starts``: the states, the buffer, n, the state count, the part size. ``<fill>_split``:
    the buffer, the states, the output, n, the state count, the part size, then the fill's
    own parameters; ``<fill>_wide``: the states, the output, n, the state count, the fill's.
    """
    kind = fast_fills(spec)
    fills = fill_kernel_formats(spec)
    if kind == "wide":
        return {f"{name}_wide": "PPQI" + fills[name][3:] for name in _PHILOX_WIDE}
    if not kind:
        return {}
    formats = {"starts": "PPQIQ"}
    for name, (out, _, _) in _sobol_draws(spec).items():
        formats[f"{name}_split"] = "PPPQIQ" + fills[name][3:]
        if _packs(name, out):
            formats[f"{name}_packed"] = formats[f"{name}_split"]
    return formats


def _packs(fill: str, out: str) -> bool:
    """Whether Sobol fill ``fill`` (of C type ``out``) has a packed kernel: 4-byte numbers,
    but not Poisson's, whose inverse-CDF search in doubles ran slower in the packed kernels'
    fewer threads (6% of the copy against 7%, Sobol64 4.5% against 6-7%)."""
    return lanes(_C_SIZES[out]) > 1 and not fill.startswith("poisson")


def lanes(itemsize: int) -> int:
    """States a ``<fill>_packed`` thread draws, for numbers of ``itemsize`` bytes: as many as
    one 8-byte store holds (two float32s; 16-byte stores kept more registers a thread, which
    slowed the normal fills). 1: the fill has no packed kernel."""
    return max(1, 8 // itemsize)


def sobol_parts(generators: int, resident: int, waves: int = SOBOL_WAVES) -> int:
    """How many parts a Sobol fill cuts each of ``generators`` states into, on a device of
    ``resident`` threads at full occupancy: about ``waves`` waves of a thread a state and part
    (the packed kernels' threads, two states each, ask half as many), at most 64."""
    return min(64, max(2, -(-waves * resident // generators)))


def part_size(items: int, parts: int) -> int:
    """Numbers a part draws, for ``items`` a state in about ``parts`` parts: a multiple of a
    power of two near an eighth of it, so that a part's start index differs from the state's
    in few bits of their Gray codes."""
    share = -(-items // parts)
    granule = 1 << max(1, share.bit_length() - 3)
    return -(-share // granule) * granule


def starts_words(parts: int) -> int:
    """Words a state takes in the buffer of ``starts``: an index and a point a part, and the
    direction vectors laid out in rows."""
    return 2 * parts + SOBOL_ROWS
