// core/library_search.hpp: which file the dynamic loader would open for a library name, found
// without opening it.
//
// driver_api asks this before it opens NVRTC or cuRAND, and opens the file found, so the file a
// caller is told about (pycuda.compiler keys its cache by NVRTC's file) is the file in use.
// Opening a library costs milliseconds and runs its constructors; a compile-cache hit must not.
// The search follows ld.so(8) for a name without a slash: the directories before the cache
// ($LD_LIBRARY_PATH and the caller's RPATH/RUNPATH), /etc/ld.so.cache, then the system's default
// directories. This file reads files only; driver_api supplies those directories (it asks the
// loader through dlinfo, which only it may call).
#pragma once

#include <string>
#include <vector>

namespace pycuda {

/// Where the loader looks for a bare library name, in its order.
struct LoaderPath {
    /// Searched before the cache: the caller's RPATH, $LD_LIBRARY_PATH, the caller's RUNPATH.
    std::vector<std::string> before_cache;
    /// The loader's cache file (normally /etc/ld.so.cache); empty for none.
    std::string cache_file;
    /// Searched after the cache: the system's default directories (/lib, /usr/lib, ...).
    std::vector<std::string> after_cache;
};

/// True when `path` is a regular file holding an ELF object of this process's class, byte order
/// and machine: one the loader could map here (it skips the others, e.g. 32-bit libraries).
bool is_loadable_elf(const std::string& path);

/// The paths an ld.so.cache file lists for the library `name`, in the cache's order (the
/// loader's preference). Empty when the file is missing or not a cache glibc 2.x writes.
std::vector<std::string> loader_cache_entries(const std::string& cache_file,
                                              const std::string& name);

/// The file the loader would open for `name`: a name with a '/' is that file; a bare name is
/// looked up along `path`. Only files is_loadable_elf accepts count. Empty when none does.
std::string find_library_file(const std::string& name, const LoaderPath& path);

} // namespace pycuda
