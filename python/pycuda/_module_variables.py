"""pycuda._module_variables: whether a compiled binary defines variables, read from its ELF.

    defines_variables(cubin)   # False: kernels only, so two loads of it behave alike

A module's variables (``__device__``, ``__constant__``, ``__managed__``, ``static`` ones inside
device functions, and the texture and surface references that pycuda rewrites into
``__device__`` texture objects) are state of that loaded module: two modules of one source
each have their own. A cubin (an ELF file) lists every one of them as a defined data symbol
(``STT_OBJECT``, or NVIDIA's own texture, surface and sampler types), in sections named
``.nv.global*`` (device memory) or ``.nv.constant3`` (``__constant__``). Anything that is not an
ELF64 cubin this reader understands (PTX, a fatbin, a damaged file) counts as defining variables.

Constant tables that the compiler itself adds (``__cudart_i2opi_f`` for ``sinf``, the static
members of pycuda-complex.hpp's traits) are symbols of the same kind and count too: the answer
errs towards "defines variables".
"""

from __future__ import annotations

import struct

_ELF64_LE = b"\x7fELF\x02\x01"
_SHT_SYMTAB = 2
# Defined symbols of these types are code or bookkeeping, never state.
_STT_NOTYPE, _STT_FUNC, _STT_SECTION, _STT_FILE = 0, 2, 3, 4
_NOT_STATE = frozenset((_STT_NOTYPE, _STT_FUNC, _STT_SECTION, _STT_FILE))
_SHN_UNDEF = 0
_STATE_SECTIONS = (b".nv.global", b".nv.constant3")

_HEADER = struct.Struct("<40xQ10xHHH")  # e_shoff, e_shentsize, e_shnum, e_shstrndx
_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym


def defines_variables(binary: bytes) -> bool:
    """True unless ``binary`` is an ELF64 cubin whose symbol table defines no variable and
    which has no variable section (see the module's docstring)."""
    if not binary.startswith(_ELF64_LE):
        return True
    try:
        return _elf_defines_variables(memoryview(binary))
    except (struct.error, IndexError, ValueError):
        return True


def _elf_defines_variables(elf: memoryview) -> bool:
    shoff, shentsize, shnum, shstrndx = _HEADER.unpack_from(elf)
    if shentsize != _SECTION.size or shnum == 0 or shstrndx >= shnum:
        return True
    sections = [_SECTION.unpack_from(elf, shoff + i * shentsize) for i in range(shnum)]
    names_offset = sections[shstrndx][4]
    saw_symbols = False
    for name, kind, _flags, _addr, offset, size, _link, _info, _align, entsize in sections:
        section_name = _c_string(elf, names_offset + name)
        if section_name.startswith(_STATE_SECTIONS):
            return True
        if kind != _SHT_SYMTAB:
            continue
        if entsize != _SYMBOL.size or offset + size > len(elf):
            return True
        saw_symbols = True
        for _name, info, _other, shndx, _value, _size in _SYMBOL.iter_unpack(
            elf[offset : offset + size - size % entsize]
        ):
            if shndx != _SHN_UNDEF and info & 0xF not in _NOT_STATE:
                return True
    # A cubin without a symbol table is not one this reader knows.
    return not saw_symbols


def _c_string(elf: memoryview, start: int) -> bytes:
    end = bytes(elf[start : start + 256]).find(b"\0")
    if end < 0:
        raise ValueError("unterminated section name")
    return bytes(elf[start : start + end])
