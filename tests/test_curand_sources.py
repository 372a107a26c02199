"""Tests of pycuda._curand_sources: the original's template names and keys, the per-class
kernel tables, and that each generator's source is made of exactly those kernels."""

from __future__ import annotations

import pytest

from pycuda import _curand_sources as S
from pycuda import curandom
from pycuda.compiler import compile as cuda_compile

CLASSES = curandom.GENERATOR_CLASSES
ids = [c.__name__ for c in CLASSES]

TEMPLATE_NAMES = [
    "gen_template",
    "gen_log_template",
    "gen_poisson_template",
    "gen_poisson_inplace_template",
    "random_source",
    "random_skip_ahead32_source",
    "random_skip_ahead64_source",
    "xorwow_random_source",
    "xorwow_skip_ahead_sequence_source",
    "mrg32k3a_random_source",
    "mrg32k3a_skip_ahead_sequence_source",
    "sobol_random_source",
    "scrambledsobol_random_source",
]


def test_curandom_offers_the_original_templates():
    for name in TEMPLATE_NAMES:
        assert isinstance(getattr(curandom, name), str), name
        assert getattr(curandom, name) is getattr(S, name)


def test_templates_take_the_original_keys():
    keys = {"name": "k", "state_type": "curandStateXORWOW_t", "out_type": "float",
            "in_type": "float", "suffix": "_normal"}  # fmt: skip
    for name in ("gen_template", "gen_log_template", "gen_poisson_template",
                 "gen_poisson_inplace_template"):  # fmt: skip
        text = getattr(S, name) % keys
        assert "__global__ void k(curandStateXORWOW_t *s, float *d" in text, name
    module = S.random_source % {"state_type": "curandStateXORWOW_t", "generators": "int x;"}
    assert "#include <curand_kernel.h>" in module and "int x;" in module


@pytest.mark.parametrize("cls", CLASSES, ids=ids)
def test_class_tables_list_exactly_its_fill_kernels(cls):
    spec = cls._spec
    formats = curandom.kernel_formats(spec)
    fills = {n for n in formats if n != "prepare" and not n.startswith("skip_ahead")}
    tabled = [n for n, *_ in cls.gen_info + cls.gen_log_info + cls.gen_poisson_info
              + cls.gen_poisson_inplace_info]  # fmt: skip
    high_word = {"uniform_uint32"} if spec.bits == 64 else set()
    assert set(tabled) | high_word == fills
    assert len(tabled) == len(set(tabled))
    source = curandom.generator_source(spec)
    keys = {"state_type": spec.state}
    for n, t, s in cls.gen_info:
        assert S.gen_template % dict(keys, name=n, out_type=t, suffix=s) in source
    for n, i, t, s in cls.gen_log_info:
        assert S.gen_log_template % dict(keys, name=n, in_type=i, out_type=t, suffix=s) in source
        assert formats[n] == "PPQ" + ("ff" if i == "float" else "dd")
    for n, t, s in cls.gen_poisson_info:
        assert S.gen_poisson_template % dict(keys, name=n, out_type=t, suffix=s) in source
    for n, t, s in cls.gen_poisson_inplace_info:
        text = S.gen_poisson_inplace_template % dict(keys, name=n, out_type=t, suffix=s)
        assert text in source and "(double)d[i]" in text


def test_tables_follow_each_class():
    xorwow, sobol32 = curandom.XORWOWRandomNumberGenerator, curandom.Sobol32RandomNumberGenerator
    sobol64 = curandom.Sobol64RandomNumberGenerator
    assert ("normal2_float32", "float2", "_normal2") in xorwow.gen_info
    assert ("log_normal2_float64", "double", "double2", "_normal2_double") in xorwow.gen_log_info
    assert all("2" not in t for _, t, _ in sobol32.gen_info)
    assert ("uniform_uint32", "unsigned int", "") in sobol32.gen_info
    assert ("uniform_uint64", "unsigned long long", "") in sobol64.gen_info
    assert [n for n, *_ in xorwow.gen_poisson_inplace_info] == [
        "poisson_inplace_uint32", "poisson_inplace_int32", "poisson_inplace_float32",
        "poisson_inplace_float64",
    ]  # fmt: skip
    assert curandom._RandomNumberGeneratorBase.gen_info == []


@pytest.mark.parametrize("cls", CLASSES, ids=ids)
def test_additional_sources_are_the_original_kinds(cls):
    spec = cls._spec
    extra = S.additional_source(spec)
    if not spec.quasi:
        assert extra.startswith(S.xorwow_random_source)
    elif spec.scrambled:
        assert extra.startswith(S.scrambledsobol_random_source)
    else:
        assert extra.startswith(S.sobol_random_source)
    skip = S.random_skip_ahead32_source if spec.skip_type == "unsigned int" else (
        S.random_skip_ahead64_source
    )  # fmt: skip
    assert skip in extra
    assert ("skip_ahead_subsequence" in extra) == ("subsequence" in spec.sequence_skips)


def test_a_kernel_from_the_original_template_compiles():
    # As the original used them: its templates formatted with its keys, in random_source.
    kernel = S.gen_template % {"name": "mine", "state_type": "curandStatePhilox4_32_10_t",
                               "out_type": "float", "suffix": "_uniform"}  # fmt: skip
    source = S.random_source % {"state_type": "curandStatePhilox4_32_10_t", "generators": kernel}
    assert b"mine" in cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
