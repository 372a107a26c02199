// core/library_search.cpp: the loader's search for a library file, by reading files only.
#include "core/library_search.hpp"

#include <elf.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>

namespace pycuda {

namespace {

#if defined(__x86_64__)
constexpr int k_machine = EM_X86_64;
#elif defined(__aarch64__)
constexpr int k_machine = EM_AARCH64;
#elif defined(__powerpc64__)
constexpr int k_machine = EM_PPC64;
#else
constexpr int k_machine = -1; // unknown here: class and byte order still filter
#endif

constexpr unsigned char k_class = sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;

bool little_endian() {
    const std::uint16_t one = 1;
    unsigned char first = 0;
    std::memcpy(&first, &one, 1);
    return first == 1;
}

std::uint32_t read_u32(const std::string& bytes, std::size_t at) {
    std::uint32_t value = 0;
    std::memcpy(&value, bytes.data() + at, sizeof value);
    return value;
}

// ld.so.cache as glibc 2.2+ writes it (elf/dl-cache.h): "glibc-ld.so.cache1.1", then nlibs,
// len_strings and 28 bytes of flags and reserved words, then nlibs entries of 24 bytes (flags,
// key, value, osversion, hwcap) whose key (the soname) and value (the path) are offsets from the
// start of this header. glibc before 2.32 wrote it by default after a libc5-era table (the
// "compat" format): "ld.so-1.7.0", nlibs, 12-byte entries, then the header at the next multiple
// of 8.
constexpr char k_new_magic[] = "glibc-ld.so.cache1.1";
constexpr std::size_t k_new_magic_size = sizeof k_new_magic - 1;
constexpr char k_old_magic[] = "ld.so-1.7.0";
constexpr std::size_t k_new_header_size = 48;
constexpr std::size_t k_new_entry_size = 24;
constexpr std::size_t k_old_header_size = 16;
constexpr std::size_t k_old_entry_size = 12;

/// Where the glibc 2.2+ table starts in a cache file, or npos.
std::size_t new_table_offset(const std::string& bytes) {
    if (bytes.compare(0, k_new_magic_size, k_new_magic) == 0)
        return 0;
    if (bytes.size() < k_old_header_size || bytes.compare(0, 11, k_old_magic) != 0)
        return std::string::npos;
    std::size_t offset = k_old_header_size + std::size_t(read_u32(bytes, 12)) * k_old_entry_size;
    offset = (offset + 7) & ~std::size_t(7);
    if (offset + k_new_header_size > bytes.size() ||
        bytes.compare(offset, k_new_magic_size, k_new_magic) != 0)
        return std::string::npos;
    return offset;
}

/// The NUL-terminated string at `at`, or nullptr when it would run past the end.
const char* string_at(const std::string& bytes, std::size_t at) {
    if (at >= bytes.size() || std::memchr(bytes.data() + at, '\0', bytes.size() - at) == nullptr)
        return nullptr;
    return bytes.data() + at;
}

bool is_regular_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

} // namespace

bool is_loadable_elf(const std::string& path) {
    if (!is_regular_file(path))
        return false;
    unsigned char header[20] = {};
    std::ifstream in(path, std::ios::binary);
    if (!in.read(reinterpret_cast<char*>(header), sizeof header))
        return false;
    if (std::memcmp(header, ELFMAG, SELFMAG) != 0 || header[EI_CLASS] != k_class)
        return false;
    if (header[EI_DATA] != (little_endian() ? ELFDATA2LSB : ELFDATA2MSB))
        return false;
    std::uint16_t machine = 0; // e_machine, at the same offset in both ELF classes
    std::memcpy(&machine, header + 18, sizeof machine);
    return k_machine < 0 || machine == k_machine;
}

std::vector<std::string> loader_cache_entries(const std::string& cache_file,
                                              const std::string& name) {
    std::vector<std::string> found;
    std::ifstream in(cache_file, std::ios::binary);
    if (!in)
        return found;
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::size_t base = new_table_offset(bytes);
    if (base == std::string::npos || base + k_new_header_size > bytes.size())
        return found;
    const std::size_t count = read_u32(bytes, base + k_new_magic_size);
    if (count > (bytes.size() - base - k_new_header_size) / k_new_entry_size)
        return found; // truncated or not a cache
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t entry = base + k_new_header_size + i * k_new_entry_size;
        const char* key = string_at(bytes, base + read_u32(bytes, entry + 4));
        const char* value = string_at(bytes, base + read_u32(bytes, entry + 8));
        if (key && value && name == key)
            found.emplace_back(value);
    }
    return found;
}

std::string find_library_file(const std::string& name, const LoaderPath& path) {
    if (name.empty())
        return {};
    if (name.find('/') != std::string::npos)
        return is_loadable_elf(name) ? name : std::string();
    auto in_dirs = [&](const std::vector<std::string>& dirs) -> std::string {
        for (const auto& dir : dirs) {
            if (dir.empty())
                continue;
            std::string file = dir.back() == '/' ? dir + name : dir + "/" + name;
            if (is_loadable_elf(file))
                return file;
        }
        return {};
    };
    if (std::string file = in_dirs(path.before_cache); !file.empty())
        return file;
    if (!path.cache_file.empty())
        for (const auto& file : loader_cache_entries(path.cache_file, name))
            if (is_loadable_elf(file))
                return file;
    return in_dirs(path.after_cache);
}

} // namespace pycuda
