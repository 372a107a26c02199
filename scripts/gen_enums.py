"""scripts/gen_enums.py: writes python/pycuda/_enums.py from the toolkit's cuda.h.

The driver's enums reach Python as IntEnums named as in the original PyCUDA
(device_attribute.MAX_THREADS_PER_BLOCK, ctx_flags.SCHED_AUTO, ...). Run it again after a new
toolkit adds members: python3 scripts/gen_enums.py [/path/to/cuda.h], then
`ruff format python/pycuda/_enums.py`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

# (Python name, C enum type, prefix stripped from member names, doc)
ENUMS = [
    ("ctx_flags", "CUctx_flags", "CU_CTX_", "Flags for Device.make_context."),
    ("event_flags", "CUevent_flags", "CU_EVENT_", "Flags for Event."),
    ("stream_flags", "CUstream_flags", "CU_STREAM_", "Flags for Stream."),
    ("array_format", "CUarray_format", "CU_AD_FORMAT_", "Element formats of CUDA arrays."),
    ("address_mode", "CUaddress_mode", "CU_TR_ADDRESS_MODE_", "Texture address modes."),
    ("filter_mode", "CUfilter_mode", "CU_TR_FILTER_MODE_", "Texture filter modes."),
    ("device_attribute", "CUdevice_attribute", "CU_DEVICE_ATTRIBUTE_", "Device attributes."),
    ("pointer_attribute", "CUpointer_attribute", "CU_POINTER_ATTRIBUTE_", "Pointer attributes."),
    ("profiler_output_mode", "CUoutput_mode", "CU_OUT_", "Profiler output modes."),
    ("func_cache", "CUfunc_cache", "CU_FUNC_CACHE_", "Cache preference."),
    ("shared_config", "CUsharedconfig", "CU_SHARED_MEM_CONFIG_", "Shared memory bank size."),
    ("function_attribute", "CUfunction_attribute", "CU_FUNC_ATTRIBUTE_", "Function attributes."),
    ("memory_type", "CUmemorytype", "CU_MEMORYTYPE_", "Memory types."),
    ("compute_mode", "CUcomputemode", "CU_COMPUTEMODE_", "Compute modes."),
    ("jit_option", "CUjit_option", "CU_JIT_", "Options of module_from_buffer and Linker."),
    ("jit_target", "CUjit_target", "CU_TARGET_", "JIT targets."),
    ("jit_fallback", "CUjit_fallback", "CU_", "JIT fallback strategies."),
    ("jit_input_type", "CUjitInputType", "CU_JIT_INPUT_", "Linker input types."),
    ("limit", "CUlimit", "CU_LIMIT_", "Context limits."),
    ("mem_attach_flags", "CUmemAttach_flags", "CU_MEM_ATTACH_", "Managed memory attachment."),
    (
        "graphics_register_flags",
        "CUgraphicsRegisterFlags",
        "CU_GRAPHICS_REGISTER_FLAGS_",
        "Graphics interop registration flags.",
    ),
    ("array_cubemap_face", "CUarray_cubemap_face", "CU_CUBEMAP_FACE_", "Cubemap faces."),
    ("ipc_mem_flags", "CUipcMem_flags", "CU_IPC_MEM_", "IPC memory flags."),
    ("capture_mode", "CUstreamCaptureMode", "CU_STREAM_CAPTURE_MODE_", "Stream capture modes."),
    (
        "capture_status",
        "CUstreamCaptureStatus",
        "CU_STREAM_CAPTURE_STATUS_",
        "Stream capture states.",
    ),
    ("graph_node_type", "CUgraphNodeType", "CU_GRAPH_NODE_TYPE_", "Kinds of graph nodes."),
]

# Members that newer headers dropped but PyCUDA programs still name (value from CUDA 12).
COMPAT = {"ctx_flags": [("LMEM_RESIZE_TO_MAX", 0x10)]}

# The original's second names for one value (its Boost.Python enums registered both): alias ->
# the member it equals. Today's cuda.h still spells them as deprecated members; should a header
# drop one, it is added here, so programs naming it keep working.
ALIASES = {
    "ctx_flags": {"BLOCKING_SYNC": "SCHED_BLOCKING_SYNC"},
    "device_attribute": {
        "SHARED_MEMORY_PER_BLOCK": "MAX_SHARED_MEMORY_PER_BLOCK",
        "REGISTERS_PER_BLOCK": "MAX_REGISTERS_PER_BLOCK",
        "MAXIMUM_TEXTURE2D_ARRAY_WIDTH": "MAXIMUM_TEXTURE2D_LAYERED_WIDTH",
        "MAXIMUM_TEXTURE2D_ARRAY_HEIGHT": "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT",
        "MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES": "MAXIMUM_TEXTURE2D_LAYERED_LAYERS",
    },
}

# Plain classes of #define'd flags, as the original has them.
DEFINES = [
    (
        "host_alloc_flags",
        "CU_MEMHOSTALLOC_",
        "Flags of pagelocked_empty and the other page-locked allocations (mem_flags=).",
    ),
    ("mem_host_register_flags", "CU_MEMHOSTREGISTER_", "Flags of register_host_memory."),
]


def parse_enums(text: str) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    # Integer #defines that enum values are built from (CU_COMPUTE_ACCELERATED_TARGET_BASE).
    known: dict[str, int] = {
        k: int(v, 0) for k, v in re.findall(r"#define (\w+)\s+(0x[0-9a-fA-F]+|\d+)\s*$", text, re.M)
    }
    for body, name in re.findall(r"typedef enum \w*\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        body = re.sub(r"//[^\n]*", "", body)
        members = []
        value = -1
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            key, _, expr = item.partition("=")
            key = key.strip()
            if key.startswith("__") or not re.fullmatch(r"\w+", key):
                continue
            if expr.strip():
                expr = " ".join(re.sub(r"(0x[0-9a-fA-F]+|\d+)[uUlL]+", r"\1", expr).split())
                value = eval(expr, {}, dict(known))  # noqa: S307 - our own toolkit header
            else:
                value += 1
            known[key] = value
            members.append((key, value))
        out[name] = members
    return out


def enum_members(py_name: str, prefix: str, c_members: list[tuple[str, int]]) -> dict[str, int]:
    """The Python members of enum `py_name` from its C members: the prefix stripped, counts
    dropped, then COMPAT and ALIASES added where the header lacks them."""
    values: dict[str, int] = {}
    for key, value in c_members:
        is_count = key == prefix + "MAX" and py_name != "function_attribute"
        if not key.startswith(prefix) or is_count:
            continue
        member = key[len(prefix) :]
        if member[0].isdigit():
            member = "_" + member
        values[member] = value
    for member, value in COMPAT.get(py_name, []):
        values.setdefault(member, value)
    for alias, target in ALIASES.get(py_name, {}).items():
        if values.setdefault(alias, values[target]) != values[target]:
            raise ValueError(f"{py_name}.{alias} is no longer {py_name}.{target} in this header")
    return values


def main() -> None:
    header = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/local/cuda/include/cuda.h")
    text = header.read_text()
    profiler = header.parent / "cudaProfiler.h"  # holds CUoutput_mode
    if profiler.exists():
        text += profiler.read_text()
    enums = parse_enums(text)
    version = re.search(r"#define CUDA_VERSION (\d+)", text).group(1)
    lines = [
        f'"""The CUDA driver\'s enums, named as in PyCUDA (generated from CUDA {version} cuda.h',
        'by scripts/gen_enums.py; do not edit)."""',
        "",
        "from enum import IntEnum",
        "",
        "",
        "class _DriverEnum(IntEnum):",
        '    """An int-valued driver constant whose str() names it, as in the original."""',
        "",
        "    def __str__(self) -> str:",
        '        return f"pycuda._driver.{type(self).__name__}.{self.name}"',
        "",
        "",
        "def _boost_python_protocol(enum: type[IntEnum]) -> type[IntEnum]:",
        '    """Give ``enum`` the class attributes of the original\'s Boost.Python enums:',
        "    ``names`` maps each name (aliases too) to its member, ``values`` each int to its",
        '    member (members have ``.name`` already). Returns ``enum``."""',
        "    enum.names = dict(enum.__members__)",
        "    enum.values = {member.value: member for member in enum}",
        "    return enum",
        "",
    ]
    for py_name, c_name, prefix, doc in ENUMS:
        lines += ["", f"class {py_name}(_DriverEnum):", f'    """{doc}"""', ""]
        values = enum_members(py_name, prefix, enums[c_name])
        lines += [f"    {member} = {value}" for member, value in values.items()]
    for py_name, prefix, doc in DEFINES:
        lines += ["", f"class {py_name}:", f'    """{doc}"""', ""]
        for key, value in re.findall(rf"#define ({prefix}\w+)\s+(0x[0-9a-fA-F]+|\d+)", text):
            lines.append(f"{py_name}.{key[len(prefix) :]} = {int(value, 0)}")
    lines += [
        "",
        "",
        "class array3d_flags:",
        '    """Flags of ArrayDescriptor3D."""',
        "",
    ]
    for key, value in re.findall(r"#define CUDA_ARRAY3D_(\w+)\s+(0x[0-9a-fA-F]+)", text):
        if key[0].isdigit():
            lines.append(f"    ARRAY3D_{key} = {int(value, 16)}")
        else:
            lines.append(f"    {key} = {int(value, 16)}")
    lines.append('    ARRAY3D_LAYERED = 0x01\n\n\nsetattr(array3d_flags, "2DARRAY", 0x01)')
    # cuRAND's, not the driver's (curand.h), but an enum of the same kind: the original's
    # pycuda._driver had it, with the same names, values and str().
    lines += [
        "",
        "",
        "class direction_vector_set(_DriverEnum):  # noqa: N801 - the original's name",
        '    """The direction-vector sets of curandGetDirectionVectors32/64."""',
        "",
        "    VECTOR_32 = 101",
        "    SCRAMBLED_VECTOR_32 = 102",
        "    VECTOR_64 = 103",
        "    SCRAMBLED_VECTOR_64 = 104",
        "",
    ]
    lines += [
        "",
        "for _enum in (" + ", ".join(e[0] for e in ENUMS) + ", direction_vector_set):",
        "    _boost_python_protocol(_enum)",
        "",
        "TRSA_OVERRIDE_FORMAT = 1",
        "TRSF_READ_AS_INTEGER = 1",
        "TRSF_NORMALIZED_COORDINATES = 2",
        "TRSF_SRGB = 0x10",
        "TR_DEFAULT = -1",
        "",
    ]
    target = Path(__file__).resolve().parent.parent / "python" / "pycuda" / "_enums.py"
    target.write_text("\n".join(lines) + "\n")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
