"""The CUDA driver's enums, named as in PyCUDA (generated from CUDA 13000 cuda.h
by scripts/gen_enums.py; do not edit)."""

from enum import IntEnum


class _DriverEnum(IntEnum):
    """An int-valued driver constant whose str() names it, as in the original."""

    def __str__(self) -> str:
        return f"pycuda._driver.{type(self).__name__}.{self.name}"


def _boost_python_protocol(enum: type[IntEnum]) -> type[IntEnum]:
    """Give ``enum`` the class attributes of the original's Boost.Python enums:
    ``names`` maps each name (aliases too) to its member, ``values`` each int to its
    member (members have ``.name`` already). Returns ``enum``."""
    enum.names = dict(enum.__members__)
    enum.values = {member.value: member for member in enum}
    return enum


class ctx_flags(_DriverEnum):
    """Flags for Device.make_context."""

    SCHED_AUTO = 0
    SCHED_SPIN = 1
    SCHED_YIELD = 2
    SCHED_BLOCKING_SYNC = 4
    BLOCKING_SYNC = 4
    SCHED_MASK = 7
    MAP_HOST = 8
    LMEM_RESIZE_TO_MAX = 16
    COREDUMP_ENABLE = 32
    USER_COREDUMP_ENABLE = 64
    SYNC_MEMOPS = 128
    FLAGS_MASK = 255


class event_flags(_DriverEnum):
    """Flags for Event."""

    DEFAULT = 0
    BLOCKING_SYNC = 1
    DISABLE_TIMING = 2
    INTERPROCESS = 4


class stream_flags(_DriverEnum):
    """Flags for Stream."""

    DEFAULT = 0
    NON_BLOCKING = 1


class array_format(_DriverEnum):
    """Element formats of CUDA arrays."""

    UNSIGNED_INT8 = 1
    UNSIGNED_INT16 = 2
    UNSIGNED_INT32 = 3
    SIGNED_INT8 = 8
    SIGNED_INT16 = 9
    SIGNED_INT32 = 10
    HALF = 16
    FLOAT = 32
    NV12 = 176
    UNORM_INT8X1 = 192
    UNORM_INT8X2 = 193
    UNORM_INT8X4 = 194
    UNORM_INT16X1 = 195
    UNORM_INT16X2 = 196
    UNORM_INT16X4 = 197
    SNORM_INT8X1 = 198
    SNORM_INT8X2 = 199
    SNORM_INT8X4 = 200
    SNORM_INT16X1 = 201
    SNORM_INT16X2 = 202
    SNORM_INT16X4 = 203
    BC1_UNORM = 145
    BC1_UNORM_SRGB = 146
    BC2_UNORM = 147
    BC2_UNORM_SRGB = 148
    BC3_UNORM = 149
    BC3_UNORM_SRGB = 150
    BC4_UNORM = 151
    BC4_SNORM = 152
    BC5_UNORM = 153
    BC5_SNORM = 154
    BC6H_UF16 = 155
    BC6H_SF16 = 156
    BC7_UNORM = 157
    BC7_UNORM_SRGB = 158
    P010 = 159
    P016 = 161
    NV16 = 162
    P210 = 163
    P216 = 164
    YUY2 = 165
    Y210 = 166
    Y216 = 167
    AYUV = 168
    Y410 = 169
    Y416 = 177
    Y444_PLANAR8 = 178
    Y444_PLANAR10 = 179
    YUV444_8bit_SemiPlanar = 180
    YUV444_16bit_SemiPlanar = 181
    UNORM_INT_101010_2 = 80


class address_mode(_DriverEnum):
    """Texture address modes."""

    WRAP = 0
    CLAMP = 1
    MIRROR = 2
    BORDER = 3


class filter_mode(_DriverEnum):
    """Texture filter modes."""

    POINT = 0
    LINEAR = 1


class device_attribute(_DriverEnum):
    """Device attributes."""

    MAX_THREADS_PER_BLOCK = 1
    MAX_BLOCK_DIM_X = 2
    MAX_BLOCK_DIM_Y = 3
    MAX_BLOCK_DIM_Z = 4
    MAX_GRID_DIM_X = 5
    MAX_GRID_DIM_Y = 6
    MAX_GRID_DIM_Z = 7
    MAX_SHARED_MEMORY_PER_BLOCK = 8
    SHARED_MEMORY_PER_BLOCK = 8
    TOTAL_CONSTANT_MEMORY = 9
    WARP_SIZE = 10
    MAX_PITCH = 11
    MAX_REGISTERS_PER_BLOCK = 12
    REGISTERS_PER_BLOCK = 12
    CLOCK_RATE = 13
    TEXTURE_ALIGNMENT = 14
    GPU_OVERLAP = 15
    MULTIPROCESSOR_COUNT = 16
    KERNEL_EXEC_TIMEOUT = 17
    INTEGRATED = 18
    CAN_MAP_HOST_MEMORY = 19
    COMPUTE_MODE = 20
    MAXIMUM_TEXTURE1D_WIDTH = 21
    MAXIMUM_TEXTURE2D_WIDTH = 22
    MAXIMUM_TEXTURE2D_HEIGHT = 23
    MAXIMUM_TEXTURE3D_WIDTH = 24
    MAXIMUM_TEXTURE3D_HEIGHT = 25
    MAXIMUM_TEXTURE3D_DEPTH = 26
    MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27
    MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28
    MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29
    MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27
    MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28
    MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29
    SURFACE_ALIGNMENT = 30
    CONCURRENT_KERNELS = 31
    ECC_ENABLED = 32
    PCI_BUS_ID = 33
    PCI_DEVICE_ID = 34
    TCC_DRIVER = 35
    MEMORY_CLOCK_RATE = 36
    GLOBAL_MEMORY_BUS_WIDTH = 37
    L2_CACHE_SIZE = 38
    MAX_THREADS_PER_MULTIPROCESSOR = 39
    ASYNC_ENGINE_COUNT = 40
    UNIFIED_ADDRESSING = 41
    MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42
    MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43
    CAN_TEX2D_GATHER = 44
    MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45
    MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46
    MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47
    MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48
    MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49
    PCI_DOMAIN_ID = 50
    TEXTURE_PITCH_ALIGNMENT = 51
    MAXIMUM_TEXTURECUBEMAP_WIDTH = 52
    MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53
    MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54
    MAXIMUM_SURFACE1D_WIDTH = 55
    MAXIMUM_SURFACE2D_WIDTH = 56
    MAXIMUM_SURFACE2D_HEIGHT = 57
    MAXIMUM_SURFACE3D_WIDTH = 58
    MAXIMUM_SURFACE3D_HEIGHT = 59
    MAXIMUM_SURFACE3D_DEPTH = 60
    MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61
    MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62
    MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63
    MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64
    MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65
    MAXIMUM_SURFACECUBEMAP_WIDTH = 66
    MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67
    MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68
    MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69
    MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70
    MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71
    MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72
    MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73
    MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74
    COMPUTE_CAPABILITY_MAJOR = 75
    COMPUTE_CAPABILITY_MINOR = 76
    MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77
    STREAM_PRIORITIES_SUPPORTED = 78
    GLOBAL_L1_CACHE_SUPPORTED = 79
    LOCAL_L1_CACHE_SUPPORTED = 80
    MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81
    MAX_REGISTERS_PER_MULTIPROCESSOR = 82
    MANAGED_MEMORY = 83
    MULTI_GPU_BOARD = 84
    MULTI_GPU_BOARD_GROUP_ID = 85
    HOST_NATIVE_ATOMIC_SUPPORTED = 86
    SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87
    PAGEABLE_MEMORY_ACCESS = 88
    CONCURRENT_MANAGED_ACCESS = 89
    COMPUTE_PREEMPTION_SUPPORTED = 90
    CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91
    CAN_USE_STREAM_MEM_OPS_V1 = 92
    CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93
    CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94
    COOPERATIVE_LAUNCH = 95
    COOPERATIVE_MULTI_DEVICE_LAUNCH = 96
    MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
    CAN_FLUSH_REMOTE_WRITES = 98
    HOST_REGISTER_SUPPORTED = 99
    PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100
    DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101
    VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102
    VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102
    HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103
    HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104
    HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105
    MAX_BLOCKS_PER_MULTIPROCESSOR = 106
    GENERIC_COMPRESSION_SUPPORTED = 107
    MAX_PERSISTING_L2_CACHE_SIZE = 108
    MAX_ACCESS_POLICY_WINDOW_SIZE = 109
    GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110
    RESERVED_SHARED_MEMORY_PER_BLOCK = 111
    SPARSE_CUDA_ARRAY_SUPPORTED = 112
    READ_ONLY_HOST_REGISTER_SUPPORTED = 113
    TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114
    MEMORY_POOLS_SUPPORTED = 115
    GPU_DIRECT_RDMA_SUPPORTED = 116
    GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117
    GPU_DIRECT_RDMA_WRITES_ORDERING = 118
    MEMPOOL_SUPPORTED_HANDLE_TYPES = 119
    CLUSTER_LAUNCH = 120
    DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121
    CAN_USE_64_BIT_STREAM_MEM_OPS = 122
    CAN_USE_STREAM_WAIT_VALUE_NOR = 123
    DMA_BUF_SUPPORTED = 124
    IPC_EVENT_SUPPORTED = 125
    MEM_SYNC_DOMAIN_COUNT = 126
    TENSOR_MAP_ACCESS_SUPPORTED = 127
    HANDLE_TYPE_FABRIC_SUPPORTED = 128
    UNIFIED_FUNCTION_POINTERS = 129
    NUMA_CONFIG = 130
    NUMA_ID = 131
    MULTICAST_SUPPORTED = 132
    MPS_ENABLED = 133
    HOST_NUMA_ID = 134
    D3D12_CIG_SUPPORTED = 135
    MEM_DECOMPRESS_ALGORITHM_MASK = 136
    MEM_DECOMPRESS_MAXIMUM_LENGTH = 137
    VULKAN_CIG_SUPPORTED = 138
    GPU_PCI_DEVICE_ID = 139
    GPU_PCI_SUBSYSTEM_ID = 140
    HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141
    HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142
    HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143
    HOST_MEMORY_POOLS_SUPPORTED = 144
    HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145
    HOST_ALLOC_DMA_BUF_SUPPORTED = 146
    ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147


class pointer_attribute(_DriverEnum):
    """Pointer attributes."""

    CONTEXT = 1
    MEMORY_TYPE = 2
    DEVICE_POINTER = 3
    HOST_POINTER = 4
    P2P_TOKENS = 5
    SYNC_MEMOPS = 6
    BUFFER_ID = 7
    IS_MANAGED = 8
    DEVICE_ORDINAL = 9
    IS_LEGACY_CUDA_IPC_CAPABLE = 10
    RANGE_START_ADDR = 11
    RANGE_SIZE = 12
    MAPPED = 13
    ALLOWED_HANDLE_TYPES = 14
    IS_GPU_DIRECT_RDMA_CAPABLE = 15
    ACCESS_FLAGS = 16
    MEMPOOL_HANDLE = 17
    MAPPING_SIZE = 18
    MAPPING_BASE_ADDR = 19
    MEMORY_BLOCK_ID = 20
    IS_HW_DECOMPRESS_CAPABLE = 21


class profiler_output_mode(_DriverEnum):
    """Profiler output modes."""

    KEY_VALUE_PAIR = 0
    CSV = 1


class func_cache(_DriverEnum):
    """Cache preference."""

    PREFER_NONE = 0
    PREFER_SHARED = 1
    PREFER_L1 = 2
    PREFER_EQUAL = 3


class shared_config(_DriverEnum):
    """Shared memory bank size."""

    DEFAULT_BANK_SIZE = 0
    FOUR_BYTE_BANK_SIZE = 1
    EIGHT_BYTE_BANK_SIZE = 2


class function_attribute(_DriverEnum):
    """Function attributes."""

    MAX_THREADS_PER_BLOCK = 0
    SHARED_SIZE_BYTES = 1
    CONST_SIZE_BYTES = 2
    LOCAL_SIZE_BYTES = 3
    NUM_REGS = 4
    PTX_VERSION = 5
    BINARY_VERSION = 6
    CACHE_MODE_CA = 7
    MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
    PREFERRED_SHARED_MEMORY_CARVEOUT = 9
    CLUSTER_SIZE_MUST_BE_SET = 10
    REQUIRED_CLUSTER_WIDTH = 11
    REQUIRED_CLUSTER_HEIGHT = 12
    REQUIRED_CLUSTER_DEPTH = 13
    NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14
    CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15
    MAX = 16


class memory_type(_DriverEnum):
    """Memory types."""

    HOST = 1
    DEVICE = 2
    ARRAY = 3
    UNIFIED = 4


class compute_mode(_DriverEnum):
    """Compute modes."""

    DEFAULT = 0
    PROHIBITED = 2
    EXCLUSIVE_PROCESS = 3


class jit_option(_DriverEnum):
    """Options of module_from_buffer and Linker."""

    MAX_REGISTERS = 0
    THREADS_PER_BLOCK = 1
    WALL_TIME = 2
    INFO_LOG_BUFFER = 3
    INFO_LOG_BUFFER_SIZE_BYTES = 4
    ERROR_LOG_BUFFER = 5
    ERROR_LOG_BUFFER_SIZE_BYTES = 6
    OPTIMIZATION_LEVEL = 7
    TARGET_FROM_CUCONTEXT = 8
    TARGET = 9
    FALLBACK_STRATEGY = 10
    GENERATE_DEBUG_INFO = 11
    LOG_VERBOSE = 12
    GENERATE_LINE_INFO = 13
    CACHE_MODE = 14
    NEW_SM3X_OPT = 15
    FAST_COMPILE = 16
    GLOBAL_SYMBOL_NAMES = 17
    GLOBAL_SYMBOL_ADDRESSES = 18
    GLOBAL_SYMBOL_COUNT = 19
    LTO = 20
    FTZ = 21
    PREC_DIV = 22
    PREC_SQRT = 23
    FMA = 24
    REFERENCED_KERNEL_NAMES = 25
    REFERENCED_KERNEL_COUNT = 26
    REFERENCED_VARIABLE_NAMES = 27
    REFERENCED_VARIABLE_COUNT = 28
    OPTIMIZE_UNUSED_DEVICE_VARIABLES = 29
    POSITION_INDEPENDENT_CODE = 30
    MIN_CTA_PER_SM = 31
    MAX_THREADS_PER_BLOCK = 32
    OVERRIDE_DIRECTIVE_VALUES = 33
    SPLIT_COMPILE = 34
    NUM_OPTIONS = 35


class jit_target(_DriverEnum):
    """JIT targets."""

    COMPUTE_30 = 30
    COMPUTE_32 = 32
    COMPUTE_35 = 35
    COMPUTE_37 = 37
    COMPUTE_50 = 50
    COMPUTE_52 = 52
    COMPUTE_53 = 53
    COMPUTE_60 = 60
    COMPUTE_61 = 61
    COMPUTE_62 = 62
    COMPUTE_70 = 70
    COMPUTE_72 = 72
    COMPUTE_75 = 75
    COMPUTE_80 = 80
    COMPUTE_86 = 86
    COMPUTE_87 = 87
    COMPUTE_89 = 89
    COMPUTE_90 = 90
    COMPUTE_100 = 100
    COMPUTE_110 = 110
    COMPUTE_103 = 103
    COMPUTE_120 = 120
    COMPUTE_121 = 121
    COMPUTE_90A = 65626
    COMPUTE_100A = 65636
    COMPUTE_110A = 65646
    COMPUTE_103A = 65639
    COMPUTE_120A = 65656
    COMPUTE_121A = 65657
    COMPUTE_100F = 131172
    COMPUTE_110F = 131182
    COMPUTE_103F = 131175
    COMPUTE_120F = 131192
    COMPUTE_121F = 131193


class jit_fallback(_DriverEnum):
    """JIT fallback strategies."""

    PREFER_PTX = 0
    PREFER_BINARY = 1


class jit_input_type(_DriverEnum):
    """Linker input types."""

    CUBIN = 0
    PTX = 1
    FATBINARY = 2
    OBJECT = 3
    LIBRARY = 4
    NVVM = 5


class limit(_DriverEnum):
    """Context limits."""

    STACK_SIZE = 0
    PRINTF_FIFO_SIZE = 1
    MALLOC_HEAP_SIZE = 2
    DEV_RUNTIME_SYNC_DEPTH = 3
    DEV_RUNTIME_PENDING_LAUNCH_COUNT = 4
    MAX_L2_FETCH_GRANULARITY = 5
    PERSISTING_L2_CACHE_SIZE = 6
    SHMEM_SIZE = 7
    CIG_ENABLED = 8
    CIG_SHMEM_FALLBACK_ENABLED = 9


class mem_attach_flags(_DriverEnum):
    """Managed memory attachment."""

    GLOBAL = 1
    HOST = 2
    SINGLE = 4


class graphics_register_flags(_DriverEnum):
    """Graphics interop registration flags."""

    NONE = 0
    READ_ONLY = 1
    WRITE_DISCARD = 2
    SURFACE_LDST = 4
    TEXTURE_GATHER = 8


class array_cubemap_face(_DriverEnum):
    """Cubemap faces."""

    POSITIVE_X = 0
    NEGATIVE_X = 1
    POSITIVE_Y = 2
    NEGATIVE_Y = 3
    POSITIVE_Z = 4
    NEGATIVE_Z = 5


class ipc_mem_flags(_DriverEnum):
    """IPC memory flags."""

    LAZY_ENABLE_PEER_ACCESS = 1


class capture_mode(_DriverEnum):
    """Stream capture modes."""

    GLOBAL = 0
    THREAD_LOCAL = 1
    RELAXED = 2


class capture_status(_DriverEnum):
    """Stream capture states."""

    NONE = 0
    ACTIVE = 1
    INVALIDATED = 2


class graph_node_type(_DriverEnum):
    """Kinds of graph nodes."""

    KERNEL = 0
    MEMCPY = 1
    MEMSET = 2
    HOST = 3
    GRAPH = 4
    EMPTY = 5
    WAIT_EVENT = 6
    EVENT_RECORD = 7
    EXT_SEMAS_SIGNAL = 8
    EXT_SEMAS_WAIT = 9
    MEM_ALLOC = 10
    MEM_FREE = 11
    BATCH_MEM_OP = 12
    CONDITIONAL = 13


class host_alloc_flags:
    """Flags of pagelocked_empty and the other page-locked allocations (mem_flags=)."""


host_alloc_flags.PORTABLE = 1
host_alloc_flags.DEVICEMAP = 2
host_alloc_flags.WRITECOMBINED = 4


class mem_host_register_flags:
    """Flags of register_host_memory."""


mem_host_register_flags.PORTABLE = 1
mem_host_register_flags.DEVICEMAP = 2
mem_host_register_flags.IOMEMORY = 4
mem_host_register_flags.READ_ONLY = 8


class array3d_flags:
    """Flags of ArrayDescriptor3D."""

    LAYERED = 1
    ARRAY3D_2DARRAY = 1
    SURFACE_LDST = 2
    CUBEMAP = 4
    TEXTURE_GATHER = 8
    DEPTH_TEXTURE = 16
    COLOR_ATTACHMENT = 32
    SPARSE = 64
    DEFERRED_MAPPING = 128
    VIDEO_ENCODE_DECODE = 256
    ARRAY3D_LAYERED = 0x01


setattr(array3d_flags, "2DARRAY", 0x01)


class direction_vector_set(_DriverEnum):  # noqa: N801 - the original's name
    """The direction-vector sets of curandGetDirectionVectors32/64."""

    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


for _enum in (
    ctx_flags,
    event_flags,
    stream_flags,
    array_format,
    address_mode,
    filter_mode,
    device_attribute,
    pointer_attribute,
    profiler_output_mode,
    func_cache,
    shared_config,
    function_attribute,
    memory_type,
    compute_mode,
    jit_option,
    jit_target,
    jit_fallback,
    jit_input_type,
    limit,
    mem_attach_flags,
    graphics_register_flags,
    array_cubemap_face,
    ipc_mem_flags,
    capture_mode,
    capture_status,
    graph_node_type,
    direction_vector_set,
):
    _boost_python_protocol(_enum)

TRSA_OVERRIDE_FORMAT = 1
TRSF_READ_AS_INTEGER = 1
TRSF_NORMALIZED_COORDINATES = 2
TRSF_SRGB = 0x10
TR_DEFAULT = -1
