// core/compile_cache.hpp: content-addressed store of compiled kernels, in memory and on disk.
//
// Keys are hex digests (the caller hashes what determines the output). A disk entry is
// <dir>/<key>.bin (a binary) or <dir>/<key>.deps (a dependency record) holding a header (magic,
// SHA-256 of the key, payload length, SHA-256 of the payload) and the payload; it is written to a
// temporary file in the same directory and renamed into place, so readers in any process see either
// no entry or a whole one. An entry that is unreadable, truncated, fails its checksum, belongs to
// another key, is not a regular file (a symlink, a FIFO, a device) or is larger than
// k_max_cache_entry is a miss, never an error.
//
// The directory is trusted only when it is ours: owned by the effective user and writable by
// nobody else, since anyone who can write it can plant a binary that we would load and run on
// the GPU. A missing directory is created with mode 0700. An untrusted directory is not used
// (the cache then lives in memory only) and put() says why.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pycuda {

/// The largest disk entry read (1 GiB): a larger file is a miss, not an allocation.
inline constexpr std::uint64_t k_max_cache_entry = std::uint64_t(1) << 30;

/// The file suffix of a compiled binary's entry.
inline constexpr std::string_view k_binary_suffix = ".bin";
/// The file suffix of a dependency record: which headers a source included, with their stamps
/// (kept beside the binaries so that a hit in a new process need not scan the headers again).
inline constexpr std::string_view k_headers_suffix = ".deps";

/// A compile cache over one directory (or memory only when the directory is empty).
/// Thread-safe.
class CompileCache {
public:
    explicit CompileCache(std::filesystem::path directory = {});

    /// The entry for `key` of the kind `suffix` names (k_binary_suffix or k_headers_suffix):
    /// from memory, else from disk (then kept in memory); nullopt on a miss.
    std::optional<std::string> get(const std::string& key,
                                   std::string_view suffix = k_binary_suffix);
    /// Stores an entry in memory and, when a directory is set and trusted, on disk (atomically).
    /// A failure to write the disk entry, or the reason the directory is not used, is returned
    /// as a message (empty on success), never thrown: the cache is an optimisation.
    std::string put(const std::string& key, std::string_view data,
                    std::string_view suffix = k_binary_suffix);
    /// Forgets the in-memory entries (disk entries stay).
    void clear_memory();

    const std::filesystem::path& directory() const noexcept { return directory_; }
    /// The file that holds (or would hold) `key`'s disk entry of the kind `suffix` names.
    std::filesystem::path entry_path(const std::string& key,
                                     std::string_view suffix = k_binary_suffix) const;

private:
    /// Empty when the directory may be used, else why not. `create` makes a missing directory.
    std::string directory_problem(bool create);
    std::optional<std::string> read_disk(const std::string& key, std::string_view suffix) const;

    std::filesystem::path directory_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::string> memory_;
    // The verdict on directory_, once it exists: a directory's owner cannot change under us
    // and only its owner (we) can change its mode, so it is decided once.
    std::optional<std::string> directory_verdict_;
};

/// Encodes a payload as `key`'s disk entry (header + payload).
std::string encode_cache_entry(std::string_view key, std::string_view payload);
/// Decodes `key`'s disk entry; nullopt when it is not a whole, intact entry made for that key.
std::optional<std::string> decode_cache_entry(std::string_view key, std::string_view file_contents);

/// Empty when `directory` may hold a cache (a directory owned by the effective user and not
/// writable by group or others), else the reason and how to fix it. Does not create it.
std::string untrusted_cache_directory(const std::filesystem::path& directory);

} // namespace pycuda
