"""CUDA sources of the ``pycuda.curandom`` generator classes, built as the original built them.

The original's module-level templates keep their names and keys (``%``-formatting with
``name``, ``state_type``, ``out_type``, ``in_type``, ``suffix``; ``generators``, ``vector_type``,
``scramble_type``) and are the ones these kernels are made from. The tables of fill kernels
(``gen_info``: name, output C type, ``curand`` suffix; ``gen_log_info`` with the parameter type
first; ``gen_poisson_info``; ``gen_poisson_inplace_info``) are computed per generator class, so
they list exactly the kernels that class compiles:

    spec = GeneratorSpec("curandStateXORWOW_t", quasi=False, box_muller=True)
    gen_info(spec)[0]          # ('uniform_float32', 'float', '_uniform')
    generator_source(spec)     # random_source % {...} + the prepare and skip-ahead sources

Where the original's kernels took an ``int n`` after the parameters, ours take ``unsigned long
long n`` right after the output pointer (arrays of more than 2**31 elements), and the
pseudo-random ``prepare`` takes a 64-bit offset.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GeneratorSpec:
    """What a generator class compiles: its cuRAND state and which device calls it has."""

    state: str  # the curandState type
    quasi: bool  # Sobol: direction vectors instead of seeds
    bits: int = 32  # width of curand(&state) and of the direction vectors
    scrambled: bool = False
    box_muller: bool = False  # curand_normal2 and curand_log_normal2 exist
    sequence_skips: tuple[str, ...] = ()  # "sequence", "subsequence"

    @property
    def skip_type(self) -> str:
        """C type of the distance that ``skipahead()`` takes for this state."""
        # skipahead() on 32-bit Sobol states takes an unsigned int.
        return "unsigned int" if self.quasi and self.bits == 32 else "unsigned long long"

    @property
    def skip_dtype(self) -> np.dtype:
        """The NumPy dtype of ``skip_type``."""
        return np.dtype(np.uint32 if self.skip_type == "unsigned int" else np.uint64)

    @property
    def word_type(self) -> str:
        """C type of one draw of ``curand()`` and of a direction vector's words."""
        return "unsigned int" if self.bits == 32 else "unsigned long long"

    @property
    def vector_type(self) -> str:
        """What ``prepare`` initializes each state from: a seed, or direction vectors."""
        if not self.quasi:
            return "int"
        return "curandDirectionVectors32_t" if self.bits == 32 else "curandDirectionVectors64_t"


# {{{ the fill kernels: each thread keeps its state in registers over a grid-stride loop

_FILL_LOOP = """
{
    const unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    %(state_type)s st = s[id];
    for (unsigned long long i = id; i < n; i += stride)
        d[i] = """

gen_template = (
    "\n__global__ void %(name)s(%(state_type)s *s, %(out_type)s *d, unsigned long long n)"
    + _FILL_LOOP
    + "curand%(suffix)s(&st);\n    s[id] = st;\n}\n"
)

gen_log_template = (
    "\n__global__ void %(name)s(%(state_type)s *s, %(out_type)s *d, unsigned long long n,"
    " %(in_type)s mean, %(in_type)s stddev)"
    + _FILL_LOOP
    + "curand_log%(suffix)s(&st, mean, stddev);\n    s[id] = st;\n}\n"
)

gen_poisson_template = (
    "\n__global__ void %(name)s(%(state_type)s *s, %(out_type)s *d, unsigned long long n,"
    " double lambda)"
    + _FILL_LOOP
    + "(%(out_type)s)curand_poisson%(suffix)s(&st, lambda);\n    s[id] = st;\n}\n"
)

# Each element is replaced by a draw with its own value as the mean.
gen_poisson_inplace_template = (
    "\n__global__ void %(name)s(%(state_type)s *s, %(out_type)s *d, unsigned long long n)"
    + _FILL_LOOP
    + "(%(out_type)s)curand_poisson%(suffix)s(&st, (double)d[i]);\n    s[id] = st;\n}\n"
)

# 32-bit integers from a 64-bit generator: the top half of each draw.
_gen_high_word_template = (
    "\n__global__ void %(name)s(%(state_type)s *s, %(out_type)s *d, unsigned long long n)"
    + _FILL_LOOP
    + "(%(out_type)s)(curand%(suffix)s(&st) >> 32);\n    s[id] = st;\n}\n"
)

# }}}

# {{{ the module: the fill kernels, then each class's prepare and skip-ahead kernels

random_source = """// C++ (curand_kernel.h): compiled with no_extern_c; the kernels are extern "C".
#include <curand_kernel.h>

extern "C" {
__global__ void state_size(unsigned long long *out) { *out = sizeof(%(state_type)s); }

%(generators)s
}
"""

_SKIP = """
__global__ void %(name)s(%%(state_type)s *s, int n, %(skip_type)s skip)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n)
        %(call)s(skip, &s[id]);
}

__global__ void %(name)s_array(%%(state_type)s *s, int n, const %(skip_type)s *skip)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n)
        %(call)s(skip[id], &s[id]);
}
"""


def _skip_source(kind: str, skip_type: str) -> str:
    """``skip_ahead[_kind]`` and its ``_array`` form, as a template in ``state_type``."""
    suffix = f"_{kind}" if kind else ""
    body = _SKIP % {"name": "skip_ahead" + suffix, "skip_type": skip_type,
                    "call": "skipahead" + suffix}  # fmt: skip
    return 'extern "C" {' + body + "}\n"


random_skip_ahead32_source = _skip_source("", "unsigned int")
random_skip_ahead64_source = _skip_source("", "unsigned long long")
xorwow_skip_ahead_sequence_source = _skip_source("sequence", "unsigned long long")
mrg32k3a_skip_ahead_sequence_source = xorwow_skip_ahead_sequence_source + _skip_source(
    "subsequence", "unsigned long long"
)

# Seeded generators: generator k starts subsequence k of its seed's stream, `offset` draws in.
xorwow_random_source = """extern "C" {
__global__ void prepare(%(state_type)s *s, int n, const %(vector_type)s *v,
                        unsigned long long offset)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        %(state_type)s st;
        curand_init((unsigned long long)(unsigned int)v[id], id, offset, &st);
        s[id] = st;
    }
}
}
"""
mrg32k3a_random_source = xorwow_random_source

# Quasi-random generators: generator k draws dimension k, `offset` points in.
sobol_random_source = """extern "C" {
__global__ void prepare(%(state_type)s *s, int n, %(vector_type)s *v,
                        unsigned long long offset)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        %(state_type)s st;
        curand_init(v[id], (%(scramble_type)s)offset, &st);
        s[id] = st;
    }
}
}
"""

scrambledsobol_random_source = """extern "C" {
__global__ void prepare(%(state_type)s *s, int n, %(vector_type)s *v,
                        const %(scramble_type)s *scramble, unsigned long long offset)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        %(state_type)s st;
        curand_init(v[id], scramble[id], (%(scramble_type)s)offset, &st);
        s[id] = st;
    }
}
}
"""

# }}}

# {{{ which kernels a class has


def gen_info(spec: GeneratorSpec) -> list[tuple[str, str, str]]:
    """``(name, output C type, curand suffix)`` of the kernels made from ``gen_template``."""
    info = [
        ("uniform_float32", "float", "_uniform"),
        ("uniform_float64", "double", "_uniform_double"),
        ("normal_float32", "float", "_normal"),
        ("normal_float64", "double", "_normal_double"),
    ]
    if spec.box_muller:
        info += [("normal2_float32", "float2", "_normal2"),
                 ("normal2_float64", "double2", "_normal2_double")]  # fmt: skip
    if spec.bits == 64:
        info.append(("uniform_uint64", "unsigned long long", ""))
    else:
        info.append(("uniform_uint32", "unsigned int", ""))
    return info


def gen_log_info(spec: GeneratorSpec) -> list[tuple[str, str, str, str]]:
    """``(name, parameter C type, output C type, suffix)`` of the log-normal kernels."""
    info = [
        ("log_normal_float32", "float", "float", "_normal"),
        ("log_normal_float64", "double", "double", "_normal_double"),
    ]
    if spec.box_muller:
        info += [("log_normal2_float32", "float", "float2", "_normal2"),
                 ("log_normal2_float64", "double", "double2", "_normal2_double")]  # fmt: skip
    return info


_POISSON_TYPES = (
    ("uint32", "unsigned int"),
    ("int32", "int"),
    ("float32", "float"),
    ("float64", "double"),
)


def gen_poisson_info(spec: GeneratorSpec) -> list[tuple[str, str, str]]:
    """``(name, output C type, suffix)`` of the Poisson kernels (mean a parameter)."""
    return [(f"poisson_{name}", ctype, "") for name, ctype in _POISSON_TYPES]


def gen_poisson_inplace_info(spec: GeneratorSpec) -> list[tuple[str, str, str]]:
    """``(name, C type, suffix)`` of the in-place Poisson kernels (each element its mean)."""
    return [(f"poisson_inplace_{name}", ctype, "") for name, ctype in _POISSON_TYPES]


def high_word_info(spec: GeneratorSpec) -> list[tuple[str, str, str]]:
    """``(name, C type, suffix)`` of the 64-bit classes' 32-bit integer kernel (top halves)."""
    return [("uniform_uint32", "unsigned int", "")] if spec.bits == 64 else []


def additional_source(spec: GeneratorSpec) -> str:
    """The class's ``prepare`` and skip-ahead kernels, as the original appended them."""
    if not spec.quasi:
        prepare = xorwow_random_source
    else:
        prepare = scrambledsobol_random_source if spec.scrambled else sobol_random_source
    short = spec.skip_type == "unsigned int"
    skip = random_skip_ahead32_source if short else random_skip_ahead64_source
    sequences = {
        (): "",
        ("sequence",): xorwow_skip_ahead_sequence_source,
        ("sequence", "subsequence"): mrg32k3a_skip_ahead_sequence_source,
    }[spec.sequence_skips]
    return prepare + skip + sequences


def check_spec(spec: Any, what: str) -> None:
    """TypeError unless ``spec`` is a GeneratorSpec: ``what`` names the caller."""
    if not isinstance(spec, GeneratorSpec):
        raise TypeError(f"{what} takes a GeneratorSpec, got {type(spec).__name__}")


def generator_source(spec: GeneratorSpec) -> str:
    """The CUDA source of all the kernels of a generator class (compile with no_extern_c)."""
    check_spec(spec, "generator_source")
    keys = {"state_type": spec.state}
    kernels = [gen_template % dict(keys, name=n, out_type=t, suffix=s)
               for n, t, s in gen_info(spec)]  # fmt: skip
    kernels += [_gen_high_word_template % dict(keys, name=n, out_type=t, suffix=s)
                for n, t, s in high_word_info(spec)]  # fmt: skip
    kernels += [gen_log_template % dict(keys, name=n, in_type=i, out_type=t, suffix=s)
                for n, i, t, s in gen_log_info(spec)]  # fmt: skip
    kernels += [gen_poisson_template % dict(keys, name=n, out_type=t, suffix=s)
                for n, t, s in gen_poisson_info(spec)]  # fmt: skip
    kernels += [gen_poisson_inplace_template % dict(keys, name=n, out_type=t, suffix=s)
                for n, t, s in gen_poisson_inplace_info(spec)]  # fmt: skip
    return (random_source + additional_source(spec)) % {
        "state_type": spec.state,
        "vector_type": spec.vector_type,
        "scramble_type": spec.word_type,
        "generators": "".join(kernels),
    }


def fill_kernel_formats(spec: GeneratorSpec) -> dict[str, str]:
    """The ``prepare`` format of each fill kernel, by name: state, output, n, parameters."""
    formats = {n: "PPQ" for n, _, _ in gen_info(spec) + high_word_info(spec)}
    formats.update(
        {n: "PPQ" + ("ff" if i == "float" else "dd") for n, i, _, _ in gen_log_info(spec)}
    )
    formats.update({n: "PPQd" for n, _, _ in gen_poisson_info(spec)})
    formats.update({n: "PPQ" for n, _, _ in gen_poisson_inplace_info(spec)})
    return formats


def kernel_formats(spec: GeneratorSpec) -> dict[str, str]:
    """The ``prepare`` format of each kernel in ``generator_source(spec)``, by name."""
    check_spec(spec, "kernel_formats")
    formats = {"prepare": "PiPPQ" if spec.scrambled else "PiPQ"}
    skip_char = "I" if spec.skip_type == "unsigned int" else "Q"
    formats["skip_ahead"] = "Pi" + skip_char
    formats["skip_ahead_array"] = "PiP"
    for kind in spec.sequence_skips:
        formats[f"skip_ahead_{kind}"] = "PiQ"
        formats[f"skip_ahead_{kind}_array"] = "PiP"
    formats.update(fill_kernel_formats(spec))
    return formats


# }}}
