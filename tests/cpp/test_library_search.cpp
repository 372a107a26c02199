// tests/cpp/test_library_search.cpp: finding a library's file as the loader would, by reading
// files only (ELF headers, ld.so.cache in both of glibc's layouts, the directory order).
#include "core/library_search.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// A fresh directory under the system's temporary directory, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        std::string pattern = (fs::temp_directory_path() / "pycuda-libsearch-XXXXXX").string();
        path_ = mkdtemp(pattern.data());
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    std::string file(const std::string& name) const { return (fs::path(path_) / name).string(); }
    std::string dir(const std::string& name) const {
        fs::create_directories(fs::path(path_) / name);
        return file(name);
    }

private:
    std::string path_;
};

/// A copy of this test program: an ELF object of this process's class and machine.
std::string copy_of_self(const std::string& to) {
    fs::create_directories(fs::path(to).parent_path());
    fs::copy_file("/proc/self/exe", to, fs::copy_options::overwrite_existing);
    return to;
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t value) {
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

/// An ld.so.cache in glibc 2.2+'s layout listing `entries` (soname, path) in order, after
/// `old_entries` entries of the libc5 table when that is non-zero (the "compat" layout).
std::string make_cache(const std::vector<std::pair<std::string, std::string>>& entries,
                       std::uint32_t old_entries = 0) {
    std::string prefix;
    if (old_entries) {
        prefix =
            std::string("ld.so-1.7.0") + std::string(5, '\0') + std::string(12 * old_entries, '\0');
        put_u32(prefix, 12, old_entries);
        prefix.resize((prefix.size() + 7) & ~std::size_t(7), '\0');
    }
    std::string table(48 + 24 * entries.size(), '\0');
    std::memcpy(table.data(), "glibc-ld.so.cache1.1", 20);
    put_u32(table, 20, std::uint32_t(entries.size()));
    std::string strings;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::size_t entry = 48 + 24 * i;
        put_u32(table, entry, 0x0303); // an x86-64 ELF library; the reader goes by the file
        put_u32(table, entry + 4, std::uint32_t(table.size() + strings.size()));
        strings += entries[i].first + '\0';
        put_u32(table, entry + 8, std::uint32_t(table.size() + strings.size()));
        strings += entries[i].second + '\0';
    }
    put_u32(table, 24, std::uint32_t(strings.size()));
    return prefix + table + strings;
}

TEST(LibrarySearch, OnlyElfObjectsOfThisProcessCount) {
    TempDir tmp;
    EXPECT_TRUE(pycuda::is_loadable_elf("/proc/self/exe"));
    const std::string self = copy_of_self(tmp.file("libself.so"));
    EXPECT_TRUE(pycuda::is_loadable_elf(self));

    write_bytes(tmp.file("text.so"), "INPUT(-lfoo)\n"); // a linker script, as libc.so is
    EXPECT_FALSE(pycuda::is_loadable_elf(tmp.file("text.so")));
    EXPECT_FALSE(pycuda::is_loadable_elf(tmp.dir("dir.so")));
    EXPECT_FALSE(pycuda::is_loadable_elf(tmp.file("absent.so")));

    // The same header with the other ELF class: a 32-bit library on a 64-bit system.
    std::string header(64, '\0');
    std::ifstream(self, std::ios::binary).read(header.data(), 64);
    header[4] = header[4] == 2 ? 1 : 2;
    write_bytes(tmp.file("other_class.so"), header);
    EXPECT_FALSE(pycuda::is_loadable_elf(tmp.file("other_class.so")));
}

TEST(LibrarySearch, CacheEntriesInTheirOrder) {
    TempDir tmp;
    const std::vector<std::pair<std::string, std::string>> entries = {
        {"libfoo.so.1", "/opt/a/libfoo.so.1"},
        {"libbar.so", "/opt/a/libbar.so"},
        {"libfoo.so.1", "/opt/b/libfoo.so.1"},
    };
    write_bytes(tmp.file("new.cache"), make_cache(entries));
    write_bytes(tmp.file("compat.cache"), make_cache(entries, 3));
    for (const char* name : {"new.cache", "compat.cache"}) {
        const std::string cache = tmp.file(name);
        EXPECT_EQ(pycuda::loader_cache_entries(cache, "libfoo.so.1"),
                  (std::vector<std::string>{"/opt/a/libfoo.so.1", "/opt/b/libfoo.so.1"}))
            << name;
        EXPECT_EQ(pycuda::loader_cache_entries(cache, "libbar.so"),
                  std::vector<std::string>{"/opt/a/libbar.so"});
        EXPECT_TRUE(pycuda::loader_cache_entries(cache, "libfoo.so").empty());
    }
}

TEST(LibrarySearch, DamagedOrMissingCacheIsEmpty) {
    TempDir tmp;
    std::string whole = make_cache({{"libfoo.so.1", "/opt/a/libfoo.so.1"}});
    write_bytes(tmp.file("truncated.cache"), whole.substr(0, 60));
    write_bytes(tmp.file("cut_string.cache"), whole.substr(0, whole.size() - 3));
    write_bytes(tmp.file("other.cache"), std::string(100, 'x'));
    for (const char* name : {"truncated.cache", "cut_string.cache", "other.cache", "absent"})
        EXPECT_TRUE(pycuda::loader_cache_entries(tmp.file(name), "libfoo.so.1").empty()) << name;
}

TEST(LibrarySearch, SystemCacheListsTheCLibrary) {
    if (!fs::exists("/etc/ld.so.cache"))
        GTEST_SKIP() << "no /etc/ld.so.cache on this system";
    auto found = pycuda::loader_cache_entries("/etc/ld.so.cache", "libc.so.6");
    ASSERT_FALSE(found.empty());
    bool any_loadable = false;
    for (const auto& file : found)
        any_loadable = any_loadable || pycuda::is_loadable_elf(file);
    EXPECT_TRUE(any_loadable);
}

TEST(LibrarySearch, DirectoriesThenCacheThenSystemDirectories) {
    TempDir tmp;
    const std::string first = tmp.dir("first"), cached = tmp.dir("cached"), last = tmp.dir("last");
    const std::string name = "libpycuda-probe.so.1";
    copy_of_self(cached + "/" + name);
    copy_of_self(last + "/" + name);
    write_bytes(tmp.file("ld.so.cache"), make_cache({{name, cached + "/" + name}}));

    pycuda::LoaderPath path{{first}, tmp.file("ld.so.cache"), {last}};
    EXPECT_EQ(pycuda::find_library_file(name, path), cached + "/" + name);

    copy_of_self(first + "/" + name); // the directories before the cache win
    EXPECT_EQ(pycuda::find_library_file(name, path), first + "/" + name);

    // A file of the wrong kind is passed over, as the loader does.
    write_bytes(first + "/" + name, "not a library");
    write_bytes(cached + "/" + name, "not a library");
    EXPECT_EQ(pycuda::find_library_file(name, path), last + "/" + name);

    path.after_cache.clear();
    EXPECT_EQ(pycuda::find_library_file(name, path), "");
    EXPECT_EQ(pycuda::find_library_file("", path), "");
}

TEST(LibrarySearch, PathsAreTakenAsTheyAre) {
    TempDir tmp;
    const std::string self = copy_of_self(tmp.file("sub/libx.so"));
    pycuda::LoaderPath nowhere;
    EXPECT_EQ(pycuda::find_library_file(self, nowhere), self);
    EXPECT_EQ(pycuda::find_library_file(tmp.file("sub/liby.so"), nowhere), "");
    // A name with a slash is never looked up in the directories.
    pycuda::LoaderPath path{{tmp.file("sub")}, "", {}};
    EXPECT_EQ(pycuda::find_library_file("sub2/libx.so", path), "");
}

} // namespace
