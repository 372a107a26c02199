// core/driver_api.hpp: the one door to the CUDA driver, NVRTC and cuRAND, all opened at run time.
//
// Every entry point the project uses is listed once below with the CUDA version whose ABI our
// call sites expect; it is resolved through cuGetProcAddress (driver) or dlsym (NVRTC, cuRAND).
// Nothing else in the project may call dlopen, dlsym or cuGetProcAddress.
#pragma once

#include "core/library_search.hpp"

#include <cuda.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>
#include <nvrtc.h>

#include <string>
#include <string_view>
#include <vector>

namespace pycuda {

// Note: cuda.h #defines most names to their newest ABI (cuMemAlloc -> cuMemAlloc_v2), so a
// member declared as `cuMemAlloc` is really named cuMemAlloc_v2; call sites spell it the same
// way and get the same expansion, while the PFN typedef and the symbol string use the plain name.
//
// X(name, version, required): `version` picks the PFN_<name>_v<version> typedef and the ABI
// cuGetProcAddress returns. Optional entries (required = false) stay null on older drivers.
#define PYCUDA_DRIVER_ENTRIES(X)                                                                   \
    X(cuInit, 2000, true)                                                                          \
    X(cuDriverGetVersion, 2020, true)                                                              \
    X(cuGetErrorName, 6000, true)                                                                  \
    X(cuGetErrorString, 6000, true)                                                                \
    X(cuDeviceGet, 2000, true)                                                                     \
    X(cuDeviceGetCount, 2000, true)                                                                \
    X(cuDeviceGetName, 2000, true)                                                                 \
    X(cuDeviceTotalMem, 3020, true)                                                                \
    X(cuDeviceGetAttribute, 2000, true)                                                            \
    X(cuDeviceGetByPCIBusId, 4010, true)                                                           \
    X(cuDeviceGetPCIBusId, 4010, true)                                                             \
    X(cuDeviceCanAccessPeer, 4000, true)                                                           \
    X(cuDeviceGetUuid, 11040, false)                                                               \
    X(cuDevicePrimaryCtxRetain, 7000, true)                                                        \
    X(cuDevicePrimaryCtxRelease, 11000, true)                                                      \
    X(cuDevicePrimaryCtxGetState, 7000, true)                                                      \
    X(cuCtxCreate, 3020, false)                                                                    \
    X(cuCtxDestroy, 4000, true)                                                                    \
    X(cuCtxPushCurrent, 4000, true)                                                                \
    X(cuCtxPopCurrent, 4000, true)                                                                 \
    X(cuCtxGetCurrent, 4000, true)                                                                 \
    X(cuCtxSetCurrent, 4000, true)                                                                 \
    X(cuCtxGetDevice, 2000, true)                                                                  \
    X(cuCtxSynchronize, 2000, true)                                                                \
    X(cuCtxGetApiVersion, 3020, true)                                                              \
    X(cuCtxSetLimit, 3010, true)                                                                   \
    X(cuCtxGetLimit, 3010, true)                                                                   \
    X(cuCtxGetCacheConfig, 3020, true)                                                             \
    X(cuCtxSetCacheConfig, 3020, true)                                                             \
    X(cuCtxGetSharedMemConfig, 4020, false)                                                        \
    X(cuCtxSetSharedMemConfig, 4020, false)                                                        \
    X(cuCtxEnablePeerAccess, 4000, true)                                                           \
    X(cuCtxDisablePeerAccess, 4000, true)                                                          \
    X(cuCtxGetFlags, 7000, true)                                                                   \
    X(cuMemAlloc, 3020, true)                                                                      \
    X(cuMemFree, 3020, true)                                                                       \
    X(cuMemAllocPitch, 3020, true)                                                                 \
    X(cuMemGetInfo, 3020, true)                                                                    \
    X(cuMemGetAddressRange, 3020, true)                                                            \
    X(cuMemAllocManaged, 6000, true)                                                               \
    X(cuMemHostAlloc, 2020, true)                                                                  \
    X(cuMemFreeHost, 2000, true)                                                                   \
    X(cuMemHostGetDevicePointer, 3020, true)                                                       \
    X(cuMemHostGetFlags, 2030, true)                                                               \
    X(cuMemHostRegister, 6050, true)                                                               \
    X(cuMemHostUnregister, 4000, true)                                                             \
    X(cuStreamAttachMemAsync, 6000, true)                                                          \
    X(cuMemAllocAsync, 11020, false)                                                               \
    X(cuMemFreeAsync, 11020, false)                                                                \
    X(cuMemAllocFromPoolAsync, 11020, false)                                                       \
    X(cuMemPoolCreate, 11020, false)                                                               \
    X(cuMemPoolDestroy, 11020, false)                                                              \
    X(cuMemPoolSetAttribute, 11020, false)                                                         \
    X(cuMemPoolGetAttribute, 11020, false)                                                         \
    X(cuMemPoolTrimTo, 11020, false)                                                               \
    X(cuDeviceGetDefaultMemPool, 11020, false)                                                     \
    X(cuDeviceGetMemPool, 11020, false)                                                            \
    X(cuMemsetD8, 3020, true)                                                                      \
    X(cuMemsetD16, 3020, true)                                                                     \
    X(cuMemsetD32, 3020, true)                                                                     \
    X(cuMemsetD2D8, 3020, true)                                                                    \
    X(cuMemsetD2D16, 3020, true)                                                                   \
    X(cuMemsetD2D32, 3020, true)                                                                   \
    X(cuMemsetD8Async, 3020, true)                                                                 \
    X(cuMemsetD16Async, 3020, true)                                                                \
    X(cuMemsetD32Async, 3020, true)                                                                \
    X(cuMemsetD2D8Async, 3020, true)                                                               \
    X(cuMemsetD2D16Async, 3020, true)                                                              \
    X(cuMemsetD2D32Async, 3020, true)                                                              \
    X(cuMemcpy, 4000, true)                                                                        \
    X(cuMemcpyAsync, 4000, true)                                                                   \
    X(cuMemcpyHtoD, 3020, true)                                                                    \
    X(cuMemcpyDtoH, 3020, true)                                                                    \
    X(cuMemcpyDtoD, 3020, true)                                                                    \
    X(cuMemcpyHtoDAsync, 3020, true)                                                               \
    X(cuMemcpyDtoHAsync, 3020, true)                                                               \
    X(cuMemcpyDtoDAsync, 3020, true)                                                               \
    X(cuMemcpyPeer, 4000, true)                                                                    \
    X(cuMemcpyPeerAsync, 4000, true)                                                               \
    X(cuMemcpy2D, 3020, true)                                                                      \
    X(cuMemcpy2DUnaligned, 3020, true)                                                             \
    X(cuMemcpy2DAsync, 3020, true)                                                                 \
    X(cuMemcpy3D, 3020, true)                                                                      \
    X(cuMemcpy3DAsync, 3020, true)                                                                 \
    X(cuMemcpy3DPeer, 4000, true)                                                                  \
    X(cuMemcpy3DPeerAsync, 4000, true)                                                             \
    X(cuMemcpyHtoA, 3020, true)                                                                    \
    X(cuMemcpyAtoH, 3020, true)                                                                    \
    X(cuMemcpyDtoA, 3020, true)                                                                    \
    X(cuMemcpyAtoD, 3020, true)                                                                    \
    X(cuMemcpyAtoA, 3020, true)                                                                    \
    X(cuIpcGetMemHandle, 4010, true)                                                               \
    X(cuIpcOpenMemHandle, 11000, true)                                                             \
    X(cuIpcCloseMemHandle, 4010, true)                                                             \
    X(cuIpcGetEventHandle, 4010, true)                                                             \
    X(cuIpcOpenEventHandle, 4010, true)                                                            \
    X(cuPointerGetAttribute, 4000, true)                                                           \
    X(cuArrayCreate, 3020, true)                                                                   \
    X(cuArray3DCreate, 3020, true)                                                                 \
    X(cuArrayDestroy, 2000, true)                                                                  \
    X(cuArrayGetDescriptor, 3020, true)                                                            \
    X(cuArray3DGetDescriptor, 3020, true)                                                          \
    X(cuTexObjectCreate, 5000, true)                                                               \
    X(cuTexObjectDestroy, 5000, true)                                                              \
    X(cuSurfObjectCreate, 5000, true)                                                              \
    X(cuSurfObjectDestroy, 5000, true)                                                             \
    X(cuStreamCreate, 2000, true)                                                                  \
    X(cuStreamCreateWithPriority, 5050, true)                                                      \
    X(cuStreamDestroy, 4000, true)                                                                 \
    X(cuStreamSynchronize, 2000, true)                                                             \
    X(cuStreamQuery, 2000, true)                                                                   \
    X(cuStreamWaitEvent, 3020, true)                                                               \
    X(cuStreamGetFlags, 5050, true)                                                                \
    X(cuStreamGetPriority, 5050, true)                                                             \
    X(cuStreamBeginCapture, 10010, false)                                                          \
    X(cuStreamEndCapture, 10000, false)                                                            \
    X(cuStreamIsCapturing, 10000, false)                                                           \
    X(cuGraphCreate, 10000, false)                                                                 \
    X(cuGraphDestroy, 10000, false)                                                                \
    X(cuGraphClone, 10000, false)                                                                  \
    X(cuGraphGetNodes, 10000, false)                                                               \
    X(cuGraphNodeGetType, 10000, false)                                                            \
    X(cuGraphAddKernelNode, 12000, false)                                                          \
    X(cuGraphAddMemcpyNode, 10000, false)                                                          \
    X(cuGraphAddMemsetNode, 10000, false)                                                          \
    X(cuGraphAddEventRecordNode, 11010, false)                                                     \
    X(cuGraphAddEventWaitNode, 11010, false)                                                       \
    X(cuGraphAddEmptyNode, 10000, false)                                                           \
    X(cuGraphDebugDotPrint, 11030, false)                                                          \
    X(cuGraphInstantiateWithFlags, 11040, false)                                                   \
    X(cuGraphExecDestroy, 10000, false)                                                            \
    X(cuGraphLaunch, 10000, false)                                                                 \
    X(cuGraphUpload, 11010, false)                                                                 \
    X(cuGraphExecUpdate, 12000, false)                                                             \
    X(cuGraphExecKernelNodeSetParams, 12000, false)                                                \
    X(cuEventCreate, 2000, true)                                                                   \
    X(cuEventDestroy, 4000, true)                                                                  \
    X(cuEventRecord, 2000, true)                                                                   \
    X(cuEventSynchronize, 2000, true)                                                              \
    X(cuEventQuery, 2000, true)                                                                    \
    X(cuEventElapsedTime, 2000, true)                                                              \
    X(cuModuleLoad, 2000, true)                                                                    \
    X(cuModuleLoadData, 2000, true)                                                                \
    X(cuModuleLoadDataEx, 2010, true)                                                              \
    X(cuModuleUnload, 2000, true)                                                                  \
    X(cuModuleGetFunction, 2000, true)                                                             \
    X(cuModuleGetGlobal, 3020, true)                                                               \
    X(cuFuncGetAttribute, 2020, true)                                                              \
    X(cuFuncSetAttribute, 9000, true)                                                              \
    X(cuFuncSetCacheConfig, 3000, true)                                                            \
    X(cuFuncSetSharedMemConfig, 4020, false)                                                       \
    X(cuFuncGetParamInfo, 12040, false)                                                            \
    X(cuFuncGetName, 12030, false)                                                                 \
    X(cuLaunchKernel, 4000, true)                                                                  \
    X(cuLaunchKernelEx, 11060, false)                                                              \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 6050, true)                                     \
    X(cuOccupancyMaxPotentialBlockSize, 6050, true)                                                \
    X(cuOccupancyMaxPotentialClusterSize, 11070, false)                                            \
    X(cuOccupancyMaxActiveClusters, 11070, false)                                                  \
    X(cuLinkCreate, 6050, true)                                                                    \
    X(cuLinkAddData, 6050, true)                                                                   \
    X(cuLinkAddFile, 6050, true)                                                                   \
    X(cuLinkComplete, 5050, true)                                                                  \
    X(cuLinkDestroy, 5050, true)                                                                   \
    X(cuProfilerStart, 4000, true)                                                                 \
    X(cuProfilerStop, 4000, true)

// CUDA 13 drivers still serve the v2 cuCtxCreate ABI, but 12.5+ drivers also have the v4 one
// with creation parameters; we prefer v4 where it exists (the CUDA 13 header only declares v4).
#define PYCUDA_DRIVER_ALIASED_ENTRIES(X) X(cuCtxCreateWithParams, cuCtxCreate, 12050, false)

// X(name, required): NVRTC symbols have no versioned variants.
#define PYCUDA_NVRTC_ENTRIES(X)                                                                    \
    X(nvrtcVersion, true)                                                                          \
    X(nvrtcGetErrorString, true)                                                                   \
    X(nvrtcCreateProgram, true)                                                                    \
    X(nvrtcDestroyProgram, true)                                                                   \
    X(nvrtcCompileProgram, true)                                                                   \
    X(nvrtcGetProgramLogSize, true)                                                                \
    X(nvrtcGetProgramLog, true)                                                                    \
    X(nvrtcGetPTXSize, true)                                                                       \
    X(nvrtcGetPTX, true)                                                                           \
    X(nvrtcGetCUBINSize, true)                                                                     \
    X(nvrtcGetCUBIN, true)                                                                         \
    X(nvrtcGetNumSupportedArchs, false)                                                            \
    X(nvrtcGetSupportedArchs, false)                                                               \
    X(nvrtcAddNameExpression, true)                                                                \
    X(nvrtcGetLoweredName, true)

// cuRAND's host functions that pycuda uses: the Sobol generators' tables and the version. Their
// types are declared here rather than taken from <curand.h>, which a build may lack; where the
// header is present, core/driver_api.cpp checks that they agree. curandStatus_t is an int-sized
// enum (0 is CURAND_STATUS_SUCCESS) and the direction-vector sets are 101 to 104.
using PFN_curandGetVersion = int (*)(int* version);
using PFN_curandGetDirectionVectors32 = int (*)(unsigned int (**vectors)[32], int set);
using PFN_curandGetDirectionVectors64 = int (*)(unsigned long long (**vectors)[64], int set);
using PFN_curandGetScrambleConstants32 = int (*)(unsigned int** constants);
using PFN_curandGetScrambleConstants64 = int (*)(unsigned long long** constants);

// X(name, required): cuRAND symbols have no versioned variants. Only the version is required of
// a libcurand; a missing table getter is reported when it is called (core/curand_host.hpp).
#define PYCUDA_CURAND_ENTRIES(X)                                                                   \
    X(curandGetVersion, true)                                                                      \
    X(curandGetDirectionVectors32, false)                                                          \
    X(curandGetDirectionVectors64, false)                                                          \
    X(curandGetScrambleConstants32, false)                                                         \
    X(curandGetScrambleConstants64, false)

/// Function pointers of the driver, resolved once by driver().
struct DriverApi {
#define PYCUDA_DECLARE_DRIVER_ENTRY(name, version, required) PFN_##name##_v##version name = nullptr;
    PYCUDA_DRIVER_ENTRIES(PYCUDA_DECLARE_DRIVER_ENTRY)
#undef PYCUDA_DECLARE_DRIVER_ENTRY
#define PYCUDA_DECLARE_ALIASED_ENTRY(member, symbol, version, required)                            \
    PFN_##symbol##_v##version member = nullptr;
    PYCUDA_DRIVER_ALIASED_ENTRIES(PYCUDA_DECLARE_ALIASED_ENTRY)
#undef PYCUDA_DECLARE_ALIASED_ENTRY
    /// The library file that was opened, for reports.
    std::string library_path;
};

/// Function pointers of NVRTC, resolved once by nvrtc().
struct NvrtcApi {
#define PYCUDA_DECLARE_NVRTC_ENTRY(name, required) decltype(&::name) name = nullptr;
    PYCUDA_NVRTC_ENTRIES(PYCUDA_DECLARE_NVRTC_ENTRY)
#undef PYCUDA_DECLARE_NVRTC_ENTRY
    std::string library_path;
};

/// Function pointers of cuRAND's host library, resolved once by curand().
struct CurandApi {
#define PYCUDA_DECLARE_CURAND_ENTRY(name, required) PFN_##name name = nullptr;
    PYCUDA_CURAND_ENTRIES(PYCUDA_DECLARE_CURAND_ENTRY)
#undef PYCUDA_DECLARE_CURAND_ENTRY
    std::string library_path;
};

/// How core finds a CUDA toolkit library it opens at run time (NVRTC, cuRAND).
struct ToolkitLibrary {
    /// Its name in messages ("NVRTC").
    const char* title;
    /// The environment variable naming its file, tried first ("PYCUDA_LIBNVRTC").
    const char* env_var;
    /// Its file names, most preferred first ("libnvrtc.so.13", ...).
    std::vector<std::string> sonames;
};

/// NVRTC: $PYCUDA_LIBNVRTC, libnvrtc.so.13, libnvrtc.so.12, libnvrtc.so.
extern const ToolkitLibrary k_nvrtc_library;
/// cuRAND's host library: $PYCUDA_LIBCURAND, libcurand.so.10, libcurand.so.
extern const ToolkitLibrary k_curand_library;

/// Folders searched for NVRTC and cuRAND after $env_var and before the loader's search: the
/// library folders of the toolkits that $CUDA_HOME, $CUDA_PATH and $CUDA_ROOT name, then those of
/// NVIDIA's pip packages and conda. The Python layer (pycuda._cuda_paths) owns those variables
/// and knows where packages live: it checks each toolkit folder (a bad one is ignored with a
/// warning), and sets these before anything opens NVRTC or cuRAND. Core reads none of them.
void set_toolkit_library_dirs(std::vector<std::string> dirs);

/// Where `lib` is looked for, in order: $env_var; each soname in the folders
/// set_toolkit_library_dirs gave; each soname through the loader's search ($LD_LIBRARY_PATH,
/// RPATH/RUNPATH, /etc/ld.so.cache, the system directories); then the folders of
/// /usr/local/cuda. An unset $env_var adds nothing.
std::vector<std::string> toolkit_library_candidates(const ToolkitLibrary& lib);

/// The first of `lib`'s sonames in `dirs` (each folder in turn, most preferred soname first)
/// that is a library this process could load, or empty: whether a toolkit folder holds `lib`.
std::string find_toolkit_library_in(const ToolkitLibrary& lib,
                                    const std::vector<std::string>& dirs);

/// What is wrong with the explicit setting for `lib`, or empty when nothing is: $env_var naming
/// no loadable library. A file the user named is never passed over in silence: loading fails
/// with this message instead of finding some other library.
std::string explicit_setting_problem(const ToolkitLibrary& lib);

/// The loader's search path for a dlopen from core: the directories before and after
/// /etc/ld.so.cache, as the loader reports them for the object core is linked into.
LoaderPath loader_path();

/// The file core opens for `lib`, found without opening it: the first candidate that resolves
/// to a loadable file (a library already loaded under a soname resolves to that library's file).
/// Empty when none resolves; the library may still be found by the loader's own search then.
std::string find_toolkit_library(const ToolkitLibrary& lib);

/// The driver's entry points, loaded on first use and then cached for the process. cuInit is
/// not called here. Throws CudaError(CUDA_ERROR_NO_DEVICE) naming every place it looked when no
/// usable libcuda.so.1 exists, and CudaError(CUDA_ERROR_NOT_INITIALIZED) in a child forked after
/// cuInit (core/fork_guard.hpp).
const DriverApi& driver();

/// True when libcuda.so.1 could be opened (never throws).
bool driver_loadable() noexcept;

/// NVRTC's entry points, loaded on first use. Throws CudaError(CUDA_ERROR_NOT_FOUND) naming
/// every place it looked when no libnvrtc is found.
const NvrtcApi& nvrtc();

/// True when a libnvrtc could be opened (never throws).
bool nvrtc_loadable() noexcept;

/// The directories (or library names) searched for libnvrtc, in order, for reports.
std::string nvrtc_search_description();

/// The file nvrtc() opens (or opened), without opening it: the library in use once it is open,
/// else find_toolkit_library(k_nvrtc_library). Empty when the search finds none. pycuda.compiler
/// names this file in its cache keys, so a compile-cache hit never loads NVRTC.
std::string find_nvrtc();

/// cuRAND's host entry points, loaded on first use. Throws CudaError(CUDA_ERROR_NOT_FOUND)
/// naming every place it looked when no libcurand is found.
const CurandApi& curand();

/// True when a libcurand could be opened (never throws).
bool curand_loadable() noexcept;

/// The places searched for libcurand, in order, for reports.
std::string curand_search_description();

/// The file curand() opens (or opened), without opening it; as find_nvrtc().
std::string find_curand();

} // namespace pycuda
