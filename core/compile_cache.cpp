// core/compile_cache.cpp: the compile cache; disk writes are temp file + rename (POSIX atomic),
// disk reads open regular files only, without following links or blocking.
#include "core/compile_cache.hpp"

#include "core/sha256.hpp"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace pycuda {
namespace {

// CC2 added the key's hash to the header: a CC1 entry is a miss.
constexpr std::string_view k_magic = "PYCUDA-CC2\n";
constexpr std::size_t k_digest_size = 32;
constexpr std::size_t k_header_size = k_magic.size() + k_digest_size + 8 + k_digest_size;

bool valid_key(const std::string& key) {
    if (key.empty() || key.size() > 200)
        return false;
    for (char c : key)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            return false;
    return key.front() != '.';
}

void check_key(const std::string& key) {
    if (!valid_key(key))
        throw std::invalid_argument("compile cache key must be 1-200 characters of [A-Za-z0-9._-]"
                                    " not starting with '.', got '" +
                                    key + "'");
}

void check_suffix(std::string_view suffix) {
    if (suffix != k_binary_suffix && suffix != k_headers_suffix)
        throw std::invalid_argument("compile cache entry suffix must be '.bin' or '.deps', got '" +
                                    std::string(suffix) + "'");
}

/// What an entry's header binds it to: the key for a binary (as entries have always been
/// written), the key and its suffix for any other kind, so that a binary renamed into a
/// record's place (or back) is a miss.
std::string bound_name(const std::string& key, std::string_view suffix) {
    return suffix == k_binary_suffix ? key : key + std::string(suffix);
}

std::string digest_of(std::string_view data) {
    Sha256 h;
    h.update(data);
    auto digest = h.digest();
    return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

bool write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        data.remove_prefix(std::size_t(n));
    }
    return true;
}

/// The contents of a regular file of at most k_max_cache_entry bytes; nullopt for anything
/// else. O_NOFOLLOW: a symlink planted as an entry is not followed (to /dev/zero, say).
/// O_NONBLOCK: opening a FIFO does not wait for a writer; fstat then rejects it.
std::optional<std::string> read_entry_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return std::nullopt;
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        std::uint64_t(st.st_size) > k_max_cache_entry) {
        ::close(fd);
        return std::nullopt;
    }
    std::string contents;
    contents.reserve(std::size_t(st.st_size));
    char buffer[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        // A file that grows past the cap while we read is cut off here; its checksum fails.
        if (n < 0 || contents.size() + std::size_t(n) > k_max_cache_entry) {
            ::close(fd);
            return std::nullopt;
        }
        if (n == 0)
            break;
        contents.append(buffer, std::size_t(n));
    }
    ::close(fd);
    return contents;
}

std::string octal_mode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
    return text;
}

/// Creates `directory` and its missing parents with mode 0700 (a cache holds code that we run,
/// so others need not even read it). Returns errno of the first failure, 0 on success.
int make_private_directories(const std::filesystem::path& directory) {
    std::filesystem::path partial;
    for (const auto& part : directory) {
        partial /= part;
        if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST)
            return errno;
    }
    return 0;
}

} // namespace

std::string encode_cache_entry(std::string_view key, std::string_view payload) {
    std::string out(k_magic);
    out += digest_of(key);
    std::uint64_t size = payload.size();
    for (int i = 0; i < 8; ++i)
        out.push_back(char((size >> (8 * i)) & 0xff));
    out += digest_of(payload);
    out.append(payload);
    return out;
}

std::optional<std::string> decode_cache_entry(std::string_view key, std::string_view file) {
    if (file.size() < k_header_size || file.substr(0, k_magic.size()) != k_magic)
        return std::nullopt;
    std::string_view header = file.substr(k_magic.size(), k_header_size - k_magic.size());
    // An intact entry stored under another key's name is not this key's binary.
    if (header.substr(0, k_digest_size) != digest_of(key))
        return std::nullopt;
    std::uint64_t size = 0;
    for (int i = 0; i < 8; ++i)
        size |= std::uint64_t(static_cast<unsigned char>(header[k_digest_size + i])) << (8 * i);
    std::string_view payload = file.substr(k_header_size);
    if (payload.size() != size || header.substr(k_digest_size + 8) != digest_of(payload))
        return std::nullopt;
    return std::string(payload);
}

std::string untrusted_cache_directory(const std::filesystem::path& directory) {
    struct stat st{};
    // stat, not lstat: a link to a directory of ours (~/.cache on another disk) is fine; what
    // matters is who can write the directory the entries are in.
    if (::stat(directory.c_str(), &st) != 0)
        return "cannot use " + directory.string() + ": " + std::strerror(errno);
    if (!S_ISDIR(st.st_mode))
        return "cannot use " + directory.string() + ": it is not a directory";
    const std::string risk = ", so another user could put compiled code there that this "
                             "process would load and run; compiling without it (memory only). ";
    if (st.st_uid != ::geteuid())
        return "not using " + directory.string() + ": it is owned by uid " +
               std::to_string(st.st_uid) + ", not by this user (uid " +
               std::to_string(::geteuid()) + ")" + risk +
               "Set PYCUDA_CACHE_DIR (or cache_dir=) to a directory of your own.";
    if (st.st_mode & (S_IWGRP | S_IWOTH))
        return "not using " + directory.string() + ": it is writable by " +
               ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " +
               octal_mode(st.st_mode) + ")" + risk + "Fix: chmod go-w " + directory.string() +
               ", or set PYCUDA_CACHE_DIR to a directory of your own.";
    return {};
}

CompileCache::CompileCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path CompileCache::entry_path(const std::string& key,
                                               std::string_view suffix) const {
    return directory_ / (key + std::string(suffix));
}

std::string CompileCache::directory_problem(bool create) {
    {
        std::lock_guard lock(mutex_);
        if (directory_verdict_)
            return *directory_verdict_;
    }
    struct stat st{};
    if (::stat(directory_.c_str(), &st) != 0) {
        if (errno != ENOENT || !create)
            return "cannot use " + directory_.string() + ": " + std::strerror(errno);
        if (int err = make_private_directories(directory_))
            return "cannot create " + directory_.string() + ": " + std::strerror(err);
    }
    std::string verdict = untrusted_cache_directory(directory_);
    std::lock_guard lock(mutex_);
    directory_verdict_ = verdict;
    return verdict;
}

std::optional<std::string> CompileCache::read_disk(const std::string& key,
                                                   std::string_view suffix) const {
    auto contents = read_entry_file(entry_path(key, suffix));
    if (!contents)
        return std::nullopt;
    return decode_cache_entry(bound_name(key, suffix), *contents);
}

std::optional<std::string> CompileCache::get(const std::string& key, std::string_view suffix) {
    check_key(key);
    check_suffix(suffix);
    const std::string name = key + std::string(suffix);
    {
        std::lock_guard lock(mutex_);
        if (auto it = memory_.find(name); it != memory_.end())
            return it->second;
    }
    if (directory_.empty() || !directory_problem(false).empty())
        return std::nullopt;
    auto entry = read_disk(key, suffix); // outside the lock: disk reads may be slow
    if (entry) {
        std::lock_guard lock(mutex_);
        memory_.emplace(name, *entry);
    }
    return entry;
}

std::string CompileCache::put(const std::string& key, std::string_view data,
                              std::string_view suffix) {
    check_key(key);
    check_suffix(suffix);
    const std::filesystem::path path = entry_path(key, suffix);
    {
        std::lock_guard lock(mutex_);
        memory_.insert_or_assign(key + std::string(suffix), std::string(data));
    }
    if (directory_.empty())
        return {};
    if (std::string problem = directory_problem(true); !problem.empty())
        return problem;
    // A unique temporary name in the same directory (rename is atomic only within one file
    // system); several processes writing the same key each rename a whole file over the other.
    const std::string temp_pattern = (directory_ / ("." + key + ".tmp.XXXXXX")).string();
    std::string temp = temp_pattern;
    int fd = ::mkstemp(temp.data());
    if (fd < 0 && errno == ENOENT) {
        // The directory was removed since it was checked: make it (and judge it) again.
        {
            std::lock_guard lock(mutex_);
            directory_verdict_.reset();
        }
        if (std::string problem = directory_problem(true); !problem.empty())
            return problem;
        temp = temp_pattern;
        fd = ::mkstemp(temp.data());
    }
    if (fd < 0)
        return "cannot create a file in " + directory_.string() + ": " + std::strerror(errno);
    bool ok = write_all(fd, encode_cache_entry(bound_name(key, suffix), data));
    ok = (::close(fd) == 0) && ok;
    if (ok)
        ::chmod(temp.c_str(), 0644); // mkstemp makes 0600; match ordinary files (umask aside)
    if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
        std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot write " + path.string() + ": " + why;
    }
    return {};
}

void CompileCache::clear_memory() {
    std::lock_guard lock(mutex_);
    memory_.clear();
}

} // namespace pycuda
