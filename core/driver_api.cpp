// core/driver_api.cpp: opens libcuda.so.1, libnvrtc and libcurand at run time and resolves the
// entry tables.
#include "core/driver_api.hpp"

#include "core/error.hpp"
#include "core/fork_guard.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#if __has_include(<curand.h>)
#include <curand.h>
#include <type_traits>
// The cuRAND types core/driver_api.hpp declares itself, checked where the header exists.
static_assert(sizeof(curandStatus_t) == sizeof(int) && CURAND_STATUS_SUCCESS == 0);
static_assert(sizeof(curandDirectionVectorSet_t) == sizeof(int));
static_assert(CURAND_DIRECTION_VECTORS_32_JOEKUO6 == 101 &&
              CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 == 104);
static_assert(std::is_same_v<curandDirectionVectors32_t, unsigned int[32]>);
static_assert(std::is_same_v<curandDirectionVectors64_t, unsigned long long[64]>);
#endif

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

std::string link_map_file(void* handle) {
    struct link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
        return map->l_name;
    return {};
}

/// The file a handle came from (the loader's search may have picked it), else the name opened.
std::string loaded_file(const LoadedLibrary& lib) {
    std::string file = link_map_file(lib.handle);
    return file.empty() ? lib.path : file;
}

/// Up to ten names, then how many more: a driver missing everything is one line, not a page.
std::string name_list(const std::vector<const char*>& names) {
    constexpr std::size_t k_shown = 10;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < k_shown; ++i) {
        if (i)
            text += ' ';
        text += names[i];
    }
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

/// The system's default library directories, as the loader lists them last (ld.so(8)).
std::vector<std::string> default_library_dirs() {
#if defined(__x86_64__)
    const std::string triplet = "x86_64-linux-gnu";
#elif defined(__aarch64__)
    const std::string triplet = "aarch64-linux-gnu";
#elif defined(__powerpc64__)
    const std::string triplet = "powerpc64le-linux-gnu";
#else
    const std::string triplet;
#endif
    std::vector<std::string> dirs;
    if (!triplet.empty())
        dirs = {"/lib/" + triplet, "/usr/lib/" + triplet};
    for (const char* dir : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
        dirs.push_back(dir);
    return dirs;
}

std::string without_trailing_slash(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/')
        dir.pop_back();
    return dir;
}

/// The directories the loader searches for a dlopen from the object this code is linked into:
/// its RPATH (or its loaders'), $LD_LIBRARY_PATH as the loader read it at start, its RUNPATH,
/// then the system directories. Empty where the C library cannot say (not glibc).
std::vector<std::string> loader_search_dirs() {
    std::vector<std::string> dirs;
#ifdef __GLIBC__ // RTLD_DI_SERINFO: glibc's report of the loader's directories
    Dl_info self{};
    void* handle = nullptr;
    if (dladdr(reinterpret_cast<void*>(&loader_search_dirs), &self) && self.dli_fname)
        handle = dlopen(self.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!handle)
        handle = dlopen(nullptr, RTLD_LAZY); // linked into the program itself
    if (!handle)
        return dirs;
    Dl_serinfo size{};
    if (dlinfo(handle, RTLD_DI_SERINFOSIZE, &size) == 0 && size.dls_size >= sizeof(Dl_serinfo)) {
        // Dl_serinfo ends in an array whose strings follow it: one buffer of dls_size bytes.
        std::vector<std::max_align_t> buffer(size.dls_size / sizeof(std::max_align_t) + 1);
        auto* info = reinterpret_cast<Dl_serinfo*>(buffer.data());
        if (dlinfo(handle, RTLD_DI_SERINFOSIZE, info) == 0 &&
            dlinfo(handle, RTLD_DI_SERINFO, info) == 0)
            for (unsigned i = 0; i < info->dls_cnt; ++i)
                dirs.push_back(without_trailing_slash(info->dls_serpath[i].dls_name));
    }
    dlclose(handle);
#endif
    return dirs;
}

/// Opens `lib`: the file find_toolkit_library names, so that the file reported is the file in
/// use; when it names none (or that file does not open), each candidate through the loader's own
/// search, which may know places find_toolkit_library does not (glibc-hwcaps directories).
LoadedLibrary open_toolkit_library(const ToolkitLibrary& lib) {
    LoadedLibrary found;
    if (std::string file = find_toolkit_library(lib); !file.empty()) {
        found = open_first({file});
        if (found.handle)
            return found;
    }
    LoadedLibrary any = open_first(toolkit_library_candidates(lib));
    any.failures = found.failures + any.failures;
    return any;
}

/// "NVRTC not found: could not open libnvrtc (set PYCUDA_LIBNVRTC or CUDA_HOME). Looked in: ..."
std::string not_found_message(const ToolkitLibrary& lib, const std::string& failures) {
    std::string base = lib.sonames.back();
    base = base.substr(0, base.find(".so"));
    return std::string(lib.title) + " not found: could not open " + base + " (set " + lib.env_var +
           " or CUDA_HOME). Looked in:" + failures;
}

template <typename Api>
struct LibraryLoad {
    std::unique_ptr<Api> api;
    std::string error; // empty on success
};

// Published once a load succeeds, so find_nvrtc()/find_curand() can answer with the file in use
// without starting a load themselves.
std::atomic<const NvrtcApi*> g_nvrtc_in_use{nullptr};
std::atomic<const CurandApi*> g_curand_in_use{nullptr};

/// NVRTC opens its builtins library (libnvrtc-builtins.so.<major>.<minor>) by name on its first
/// compile. Toolkits put it where the loader looks; NVIDIA's pip packages of some releases
/// (nvidia-cuda-nvrtc 13.0) put it beside libnvrtc with no RPATH that would find it there. A
/// library already loaded answers a later dlopen of its name, so the one beside the file opened
/// is opened first, and stays open with NVRTC.
void open_nvrtc_builtins_beside(const std::string& nvrtc_file) {
    const std::filesystem::path dir = std::filesystem::path(nvrtc_file).parent_path();
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("libnvrtc-builtins.so.", 0) == 0 && name.find(".alt.") == std::string::npos)
            dlopen(entry.path().c_str(), RTLD_NOW | RTLD_LOCAL);
    }
}

LibraryLoad<NvrtcApi> load_nvrtc() {
    LibraryLoad<NvrtcApi> result;
    if (result.error = explicit_setting_problem(k_nvrtc_library); !result.error.empty())
        return result;
    LoadedLibrary lib = open_toolkit_library(k_nvrtc_library);
    if (!lib.handle) {
        result.error = not_found_message(k_nvrtc_library, lib.failures);
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
    open_nvrtc_builtins_beside(api->library_path);
    result.api = std::move(api);
    g_nvrtc_in_use.store(result.api.get());
    return result;
}

const LibraryLoad<NvrtcApi>& nvrtc_load() {
    static const LibraryLoad<NvrtcApi> loaded = load_nvrtc();
    return loaded;
}

LibraryLoad<CurandApi> load_curand() {
    LibraryLoad<CurandApi> result;
    if (result.error = explicit_setting_problem(k_curand_library); !result.error.empty())
        return result;
    LoadedLibrary lib = open_toolkit_library(k_curand_library);
    if (!lib.handle) {
        result.error = not_found_message(k_curand_library, lib.failures);
        return result;
    }
    auto api = std::make_unique<CurandApi>();
    std::vector<const char*> missing;
#define PYCUDA_RESOLVE_CURAND(name, required)                                                      \
    api->name = reinterpret_cast<PFN_##name>(dlsym(lib.handle, #name));                            \
    if (required && !api->name)                                                                    \
        missing.push_back(#name);
    PYCUDA_CURAND_ENTRIES(PYCUDA_RESOLVE_CURAND)
#undef PYCUDA_RESOLVE_CURAND
    if (!missing.empty()) {
        result.error =
            "cuRAND at " + loaded_file(lib) + " lacks entry points: " + name_list(missing);
        return result;
    }
    api->library_path = loaded_file(lib);
    result.api = std::move(api);
    g_curand_in_use.store(result.api.get());
    return result;
}

const LibraryLoad<CurandApi>& curand_load() {
    static const LibraryLoad<CurandApi> loaded = load_curand();
    return loaded;
}

std::string search_description(const ToolkitLibrary& lib) {
    std::string text;
    for (const auto& c : toolkit_library_candidates(lib))
        text += (text.empty() ? "" : ", ") + c;
    return text;
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

const ToolkitLibrary k_nvrtc_library{
    "NVRTC", "PYCUDA_LIBNVRTC", {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"}};
const ToolkitLibrary k_curand_library{
    "cuRAND", "PYCUDA_LIBCURAND", {"libcurand.so.10", "libcurand.so"}};

namespace {

std::mutex g_toolkit_dirs_mutex;
std::vector<std::string> g_toolkit_dirs;

std::vector<std::string> toolkit_dirs() {
    std::lock_guard lock(g_toolkit_dirs_mutex);
    return g_toolkit_dirs;
}

/// /usr/local/cuda's library folders: lib64/ and lib/, and the targets/<platform>/lib/ folder that
/// toolkits for ARM servers (sbsa) and Jetson use. (Other toolkits' folders come from Python.)
std::vector<std::string> system_toolkit_lib_dirs() {
    const std::string root = "/usr/local/cuda";
    std::vector<std::string> dirs = {root + "/lib64", root + "/lib"};
#if defined(__aarch64__)
    dirs.push_back(root + "/targets/sbsa-linux/lib");
    dirs.push_back(root + "/targets/aarch64-linux/lib");
#else
    dirs.push_back(root + "/targets/x86_64-linux/lib");
#endif
    return dirs;
}

} // namespace

void set_toolkit_library_dirs(std::vector<std::string> dirs) {
    std::lock_guard lock(g_toolkit_dirs_mutex);
    g_toolkit_dirs = std::move(dirs);
}

std::vector<std::string> toolkit_library_candidates(const ToolkitLibrary& lib) {
    std::vector<std::string> c;
    if (std::string file = env_or_empty(lib.env_var); !file.empty())
        c.push_back(file);
    for (const auto& dir : toolkit_dirs())
        for (const auto& name : lib.sonames)
            c.push_back(dir + "/" + name);
    for (const auto& name : lib.sonames)
        c.push_back(name);
    for (const auto& dir : system_toolkit_lib_dirs())
        for (const auto& name : lib.sonames)
            c.push_back(dir + "/" + name);
    return c;
}

std::string find_toolkit_library_in(const ToolkitLibrary& lib,
                                    const std::vector<std::string>& dirs) {
    for (const auto& dir : dirs)
        for (const auto& name : lib.sonames)
            if (std::string file = dir + "/" + name; is_loadable_elf(file))
                return file;
    return {};
}

std::string explicit_setting_problem(const ToolkitLibrary& lib) {
    std::string file = env_or_empty(lib.env_var);
    if (file.empty() || is_loadable_elf(file))
        return {};
    return std::string(lib.env_var) + "=" + file + " is not a loadable " + lib.title +
           " library here (missing, not a file, or built for another machine); point " +
           lib.env_var + " to " + lib.sonames.front() + " or unset it";
}

LoaderPath loader_path() {
    LoaderPath path;
    path.cache_file = "/etc/ld.so.cache";
    std::vector<std::string> dirs = loader_search_dirs();
    if (dirs.empty()) {
        // No report from the loader: $LD_LIBRARY_PATH, then the usual system directories.
        std::string list = env_or_empty("LD_LIBRARY_PATH");
        for (std::size_t start = 0; start <= list.size();) {
            std::size_t end = std::min(list.find(':', start), list.size());
            if (end > start)
                dirs.push_back(list.substr(start, end - start));
            start = end + 1;
        }
        path.before_cache = std::move(dirs);
        path.after_cache = default_library_dirs();
        return path;
    }
    // The loader reports the cache's place in its order by leaving it out: it comes before the
    // system directories, which end the list, each once.
    const std::vector<std::string> defaults = default_library_dirs();
    std::size_t tail = dirs.size();
    while (tail > 0) {
        const std::string& dir = dirs[tail - 1];
        bool is_default = std::find(defaults.begin(), defaults.end(), dir) != defaults.end();
        bool seen = std::find(dirs.begin() + std::ptrdiff_t(tail), dirs.end(), dir) != dirs.end();
        if (!is_default || seen)
            break;
        --tail;
    }
    path.before_cache.assign(dirs.begin(), dirs.begin() + std::ptrdiff_t(tail));
    path.after_cache.assign(dirs.begin() + std::ptrdiff_t(tail), dirs.end());
    return path;
}

std::string find_toolkit_library(const ToolkitLibrary& lib) {
    if (!explicit_setting_problem(lib).empty())
        return {};
    const LoaderPath path = loader_path();
    for (const auto& candidate : toolkit_library_candidates(lib)) {
        if (candidate.find('/') == std::string::npos) {
            // dlopen of a soname that is already loaded returns that library, wherever it is.
            if (void* handle = dlopen(candidate.c_str(), RTLD_LAZY | RTLD_NOLOAD)) {
                std::string file = link_map_file(handle);
                dlclose(handle);
                if (!file.empty())
                    return file;
            }
        }
        if (std::string file = find_library_file(candidate, path); !file.empty())
            return file;
    }
    return {};
}

const NvrtcApi& nvrtc() {
    const LibraryLoad<NvrtcApi>& loaded = nvrtc_load();
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
    return search_description(k_nvrtc_library);
}

std::string find_nvrtc() {
    if (const NvrtcApi* api = g_nvrtc_in_use.load())
        return api->library_path;
    return find_toolkit_library(k_nvrtc_library);
}

const CurandApi& curand() {
    const LibraryLoad<CurandApi>& loaded = curand_load();
    if (!loaded.api)
        throw CudaError::with_message(CUDA_ERROR_NOT_FOUND, "dlopen", loaded.error);
    return *loaded.api;
}

bool curand_loadable() noexcept {
    try {
        return curand_load().api != nullptr;
    } catch (...) {
        return false;
    }
}

std::string curand_search_description() {
    return search_description(k_curand_library);
}

std::string find_curand() {
    if (const CurandApi* api = g_curand_in_use.load())
        return api->library_path;
    return find_toolkit_library(k_curand_library);
}

} // namespace pycuda
