// core/compile_cache.cpp: the compile cache; disk writes are temp file + rename (POSIX atomic).
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

constexpr std::string_view k_magic = "PYCUDA-CC1\n";
constexpr std::size_t k_header_size = k_magic.size() + 8 + 32;

bool valid_key(const std::string& key) {
    if (key.empty() || key.size() > 200)
        return false;
    for (char c : key)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.'))
            return false;
    return key.front() != '.';
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

std::optional<std::string> read_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return std::nullopt;
    std::string contents;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0)
        contents.reserve(std::size_t(st.st_size));
    char buffer[1 << 16];
    for (;;) {
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
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

} // namespace

std::string encode_cache_entry(std::string_view payload) {
    std::string out(k_magic);
    std::uint64_t size = payload.size();
    for (int i = 0; i < 8; ++i)
        out.push_back(char((size >> (8 * i)) & 0xff));
    Sha256 h;
    h.update(payload);
    auto digest = h.digest();
    out.append(reinterpret_cast<const char*>(digest.data()), digest.size());
    out.append(payload);
    return out;
}

std::optional<std::string> decode_cache_entry(std::string_view file) {
    if (file.size() < k_header_size || file.substr(0, k_magic.size()) != k_magic)
        return std::nullopt;
    std::uint64_t size = 0;
    for (int i = 0; i < 8; ++i)
        size |= std::uint64_t(static_cast<unsigned char>(file[k_magic.size() + i])) << (8 * i);
    std::string_view payload = file.substr(k_header_size);
    if (payload.size() != size)
        return std::nullopt;
    Sha256 h;
    h.update(payload);
    auto digest = h.digest();
    if (std::memcmp(digest.data(), file.data() + k_magic.size() + 8, digest.size()) != 0)
        return std::nullopt;
    return std::string(payload);
}

CompileCache::CompileCache(std::filesystem::path directory) : directory_(std::move(directory)) {}

std::filesystem::path CompileCache::entry_path(const std::string& key) const {
    return directory_ / (key + ".bin");
}

std::optional<std::string> CompileCache::read_disk(const std::string& key) const {
    if (directory_.empty())
        return std::nullopt;
    auto contents = read_file(entry_path(key));
    if (!contents)
        return std::nullopt;
    return decode_cache_entry(*contents);
}

std::optional<std::string> CompileCache::get(const std::string& key) {
    if (!valid_key(key))
        throw std::invalid_argument("compile cache key must be 1-200 characters of [A-Za-z0-9._-]"
                                    " not starting with '.', got '" +
                                    key + "'");
    {
        std::lock_guard lock(mutex_);
        if (auto it = memory_.find(key); it != memory_.end())
            return it->second;
    }
    auto entry = read_disk(key); // outside the lock: disk reads may be slow
    if (entry) {
        std::lock_guard lock(mutex_);
        memory_.emplace(key, *entry);
    }
    return entry;
}

std::string CompileCache::put(const std::string& key, std::string_view data) {
    if (!valid_key(key))
        throw std::invalid_argument("compile cache key must be 1-200 characters of [A-Za-z0-9._-]"
                                    " not starting with '.', got '" +
                                    key + "'");
    {
        std::lock_guard lock(mutex_);
        memory_.insert_or_assign(key, std::string(data));
    }
    if (directory_.empty())
        return {};
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    // A unique temporary name in the same directory (rename is atomic only within one file
    // system); several processes writing the same key each rename a whole file over the other.
    std::string temp = (directory_ / ("." + key + ".tmp.XXXXXX")).string();
    int fd = ::mkstemp(temp.data());
    if (fd < 0)
        return "cannot create a file in " + directory_.string() + ": " + std::strerror(errno);
    bool ok = write_all(fd, encode_cache_entry(data));
    ok = (::close(fd) == 0) && ok;
    if (ok)
        ::chmod(temp.c_str(), 0644); // mkstemp makes 0600; match ordinary files (umask aside)
    if (!ok || ::rename(temp.c_str(), entry_path(key).c_str()) != 0) {
        std::string why = std::strerror(errno);
        ::unlink(temp.c_str());
        return "cannot write " + entry_path(key).string() + ": " + why;
    }
    return {};
}

void CompileCache::clear_memory() {
    std::lock_guard lock(mutex_);
    memory_.clear();
}

} // namespace pycuda
