// core/driver_api.cpp: opens libcuda.so.1 and libnvrtc at run time and resolves the entry table.
#include "core/driver_api.hpp"

#include "core/error.hpp"
#include "core/fork_guard.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace pycuda {

namespace {

struct LoadedLibrary {
    void* handle = nullptr;
    std::string path;
    std::string failures; // what each attempt said, for the error message
};

LoadedLibrary open_first(const std::vector<std::string>& candidates) {
    LoadedLibrary lib;
    for (const auto& candidate : candidates) {
        if (candidate.empty())
            continue;
        // RTLD_LOCAL keeps the driver's symbols out of the global namespace, so another copy of
        // CUDA loaded by CuPy or PyTorch is not disturbed.
        lib.handle = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (lib.handle) {
            lib.path = candidate;
            return lib;
        }
        const char* why = dlerror();
        // dlerror() already names the file it tried.
        lib.failures += "\n  " + (why ? std::string(why) : candidate + ": not found");
    }
    return lib;
}

/// The file a handle came from (the loader's search may have picked it), else the name opened.
std::string loaded_file(const LoadedLibrary& lib) {
    struct link_map* map = nullptr;
    if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        return map->l_name;
    return lib.path;
}

/// Up to ten names, then how many more: a driver missing everything is one line, not a page.
std::string name_list(const std::vector<const char*>& names) {
    constexpr std::size_t k_shown = 10;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < k_shown; ++i)
        text += (i ? " " : "") + std::string(names[i]);
    if (names.size() > k_shown)
        text += " (and " + std::to_string(names.size() - k_shown) + " more)";
    return text;
}

std::string env_or_empty(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

std::vector<std::string> driver_candidates() {
    std::vector<std::string> c;
    c.push_back(env_or_empty("PYCUDA_LIBCUDA"));
    c.push_back("libcuda.so.1"); // the dynamic linker's path: LD_LIBRARY_PATH, ld.so.cache
    for (const char* dir : {"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu",
                            "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib"})
        c.push_back(std::string(dir) + "/libcuda.so.1");
    return c;
}

std::vector<std::string> nvrtc_candidates() {
    std::vector<std::string> c;
    c.push_back(env_or_empty("PYCUDA_LIBNVRTC"));
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
        c.push_back(name);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"}) {
        std::string root = env_or_empty(var);
        if (!root.empty())
            for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
                c.push_back(root + "/lib64/" + name);
    }
    for (const char* name : {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"})
        c.push_back(std::string("/usr/local/cuda/lib64/") + name);
    return c;
}

using GetProcAddressV2 = PFN_cuGetProcAddress_v12000;
using GetProcAddressV1 = PFN_cuGetProcAddress_v11030;

struct DriverLoad {
    std::unique_ptr<DriverApi> api;
    std::string error; // empty on success
};

DriverLoad load_driver() {
    DriverLoad result;
    LoadedLibrary lib = open_first(driver_candidates());
    if (!lib.handle) {
        result.error = "no CUDA driver found: could not open libcuda.so.1 (set PYCUDA_LIBCUDA to "
                       "its path if it is installed elsewhere). Looked in:" +
                       lib.failures;
        return result;
    }
    auto v2 = reinterpret_cast<GetProcAddressV2>(dlsym(lib.handle, "cuGetProcAddress_v2"));
    auto v1 = reinterpret_cast<GetProcAddressV1>(dlsym(lib.handle, "cuGetProcAddress"));
    if (!v2 && !v1) {
        result.error = "the CUDA driver at " + loaded_file(lib) +
                       " is too old: it lacks cuGetProcAddress (CUDA 11.3 or newer is needed)";
        return result;
    }
    // The legacy default stream, named rather than left to the lookup's default: as in the
    // original (linked against libcuda without per-thread streams), a synchronous copy or a
    // launch without a stream orders itself after work queued on the program's streams.
    // The toolkit's stub libcuda (lib64/stubs, for linking only) exports every symbol, but
    // cuGetProcAddress answers CUDA_ERROR_STUB_LIBRARY for all of them.
    bool stub = false;
    auto resolve = [&](const char* symbol, int version, void** out) {
        *out = nullptr;
        CUresult status;
        if (v2) {
            CUdriverProcAddressQueryResult found{};
            status = v2(symbol, out, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
        } else {
            status = v1(symbol, out, version, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
        }
        stub = stub || status == CUDA_ERROR_STUB_LIBRARY;
        if (status != CUDA_SUCCESS)
            *out = nullptr;
    };
    auto api = std::make_unique<DriverApi>();
    std::vector<const char*> missing;
#define PYCUDA_RESOLVE_ENTRY(name, version, required)                                              \
    resolve(#name, version, reinterpret_cast<void**>(&api->name));                                 \
    if (required && !api->name)                                                                    \
        missing.push_back(#name);
    PYCUDA_DRIVER_ENTRIES(PYCUDA_RESOLVE_ENTRY)
#undef PYCUDA_RESOLVE_ENTRY
#define PYCUDA_RESOLVE_ALIASED(member, symbol, version, required)                                  \
    resolve(#symbol, version, reinterpret_cast<void**>(&api->member));
    PYCUDA_DRIVER_ALIASED_ENTRIES(PYCUDA_RESOLVE_ALIASED)
#undef PYCUDA_RESOLVE_ALIASED
    if (!api->cuCtxCreate && !api->cuCtxCreateWithParams)
        missing.push_back("cuCtxCreate");
    if (stub) {
        result.error = "the library loaded as libcuda, " + loaded_file(lib) +
                       ", is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), not a "
                       "driver; install the NVIDIA driver (it provides libcuda.so.1), and keep "
                       "the toolkit's lib64/stubs directory out of LD_LIBRARY_PATH and "
                       "PYCUDA_LIBCUDA";
        return result;
    }
    if (!missing.empty()) {
        result.error =
            "the CUDA driver at " + loaded_file(lib) + " lacks entry points: " + name_list(missing);
        return result;
    }
    api->library_path = loaded_file(lib);
    // The library stays open for the life of the process: its functions may be called from
    // destructors that run at exit.
    result.api = std::move(api);
    return result;
}

const DriverLoad& driver_load() {
    static const DriverLoad loaded = load_driver();
    return loaded;
}

struct NvrtcLoad {
    std::unique_ptr<NvrtcApi> api;
    std::string error;
};

NvrtcLoad load_nvrtc() {
    NvrtcLoad result;
    LoadedLibrary lib = open_first(nvrtc_candidates());
    if (!lib.handle) {
        result.error = "NVRTC not found: could not open libnvrtc (set PYCUDA_LIBNVRTC or "
                       "CUDA_HOME). Looked in:" +
                       lib.failures;
        return result;
    }
    auto api = std::make_unique<NvrtcApi>();
    std::vector<const char*> missing;
#define PYCUDA_RESOLVE_NVRTC(name, required)                                                       \
    api->name = reinterpret_cast<decltype(api->name)>(dlsym(lib.handle, #name));                   \
    if (required && !api->name)                                                                    \
        missing.push_back(#name);
    PYCUDA_NVRTC_ENTRIES(PYCUDA_RESOLVE_NVRTC)
#undef PYCUDA_RESOLVE_NVRTC
    if (!missing.empty()) {
        result.error =
            "NVRTC at " + loaded_file(lib) + " lacks entry points: " + name_list(missing);
        return result;
    }
    api->library_path = loaded_file(lib);
    result.api = std::move(api);
    return result;
}

const NvrtcLoad& nvrtc_load() {
    static const NvrtcLoad loaded = load_nvrtc();
    return loaded;
}

} // namespace

const DriverApi& driver() {
    if (in_forked_child()) [[unlikely]]
        throw_forked_child();
    const DriverLoad& loaded = driver_load();
    if (!loaded.api)
        throw CudaError::with_message(CUDA_ERROR_NO_DEVICE, "dlopen", loaded.error);
    return *loaded.api;
}

bool driver_loadable() noexcept {
    try {
        return driver_load().api != nullptr;
    } catch (...) {
        return false;
    }
}

const NvrtcApi& nvrtc() {
    const NvrtcLoad& loaded = nvrtc_load();
    if (!loaded.api)
        throw CudaError::with_message(CUDA_ERROR_NOT_FOUND, "dlopen", loaded.error);
    return *loaded.api;
}

bool nvrtc_loadable() noexcept {
    try {
        return nvrtc_load().api != nullptr;
    } catch (...) {
        return false;
    }
}

std::string nvrtc_search_description() {
    std::string text;
    for (const auto& c : nvrtc_candidates())
        if (!c.empty())
            text += (text.empty() ? "" : ", ") + c;
    return text;
}

} // namespace pycuda
