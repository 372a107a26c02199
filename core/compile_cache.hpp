// core/compile_cache.hpp: content-addressed store of compiled kernels, in memory and on disk.
//
// Keys are hex digests (the caller hashes what determines the output). A disk entry is
// <dir>/<key>.bin holding a header (magic, payload length, SHA-256 of the payload) and the
// payload; it is written to a temporary file in the same directory and renamed into place, so
// readers in any process see either no entry or a whole one. An entry that is unreadable,
// truncated or fails its checksum is a miss, never an error.
#pragma once

#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace pycuda {

/// A compile cache over one directory (or memory only when the directory is empty).
/// Thread-safe.
class CompileCache {
public:
    explicit CompileCache(std::filesystem::path directory = {});

    /// The entry for `key`: from memory, else from disk (then kept in memory); nullopt on a miss.
    std::optional<std::string> get(const std::string& key);
    /// Stores an entry in memory and, when a directory is set, on disk (atomically). A failure
    /// to write the disk entry is returned as a message (empty on success), never thrown: the
    /// cache is an optimisation.
    std::string put(const std::string& key, std::string_view data);
    /// Forgets the in-memory entries (disk entries stay).
    void clear_memory();

    const std::filesystem::path& directory() const noexcept { return directory_; }
    /// The file that holds (or would hold) `key`'s disk entry.
    std::filesystem::path entry_path(const std::string& key) const;

private:
    std::optional<std::string> read_disk(const std::string& key) const;

    std::filesystem::path directory_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::string> memory_;
};

/// Encodes a payload as a disk entry (header + payload).
std::string encode_cache_entry(std::string_view payload);
/// Decodes a disk entry; nullopt when it is not a whole, intact entry.
std::optional<std::string> decode_cache_entry(std::string_view file_contents);

} // namespace pycuda
