// tests/cpp/test_compile_cache.cpp: the compile cache's memory and disk layers, and corruption.
#include "core/compile_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path fresh_dir(const char* name) {
    fs::path dir = fs::temp_directory_path() /
                   (std::string("pycuda_cc_test_") + name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    return dir;
}

TEST(CompileCache, MemoryOnly) {
    pycuda::CompileCache cache;
    EXPECT_FALSE(cache.get("abc").has_value());
    EXPECT_EQ(cache.put("abc", std::string("\0\1binary", 8)), "");
    ASSERT_TRUE(cache.get("abc").has_value());
    EXPECT_EQ(*cache.get("abc"), std::string("\0\1binary", 8));
}

TEST(CompileCache, DiskEntrySurvivesANewCache) {
    fs::path dir = fresh_dir("disk");
    {
        pycuda::CompileCache cache(dir);
        EXPECT_EQ(cache.put("k1", "cubin bytes"), "");
    }
    pycuda::CompileCache again(dir);
    ASSERT_TRUE(again.get("k1").has_value());
    EXPECT_EQ(*again.get("k1"), "cubin bytes");
    EXPECT_FALSE(again.get("k2").has_value());
    // No temporary files are left behind.
    for (const auto& entry : fs::directory_iterator(dir))
        EXPECT_EQ(entry.path().extension(), ".bin") << entry.path();
    fs::remove_all(dir);
}

TEST(CompileCache, CorruptOrTruncatedEntriesAreMisses) {
    fs::path dir = fresh_dir("corrupt");
    pycuda::CompileCache writer(dir);
    writer.put("k", std::string(1000, 'x'));
    fs::path path = writer.entry_path("k");
    std::string whole;
    {
        std::ifstream in(path, std::ios::binary);
        whole.assign(std::istreambuf_iterator<char>(in), {});
    }
    auto rewrite = [&](const std::string& contents) {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << contents;
    };
    std::string flipped = whole;
    flipped[flipped.size() - 10] ^= 1;
    for (const std::string& bad :
         {whole.substr(0, whole.size() - 1), flipped, std::string(), std::string("garbage")}) {
        rewrite(bad);
        pycuda::CompileCache reader(dir);
        EXPECT_FALSE(reader.get("k").has_value());
    }
    fs::remove_all(dir);
}

TEST(CompileCache, ConcurrentWritersLeaveAWholeEntry) {
    fs::path dir = fresh_dir("race");
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&dir, t] {
            pycuda::CompileCache cache(dir);
            for (int i = 0; i < 50; ++i)
                cache.put("same", std::string(4096 + t, char('a' + t)));
        });
    for (auto& t : threads)
        t.join();
    pycuda::CompileCache reader(dir);
    auto entry = reader.get("same");
    ASSERT_TRUE(entry.has_value());
    char c = (*entry)[0];
    EXPECT_EQ(entry->size(), std::size_t(4096 + (c - 'a')));
    EXPECT_EQ(*entry, std::string(entry->size(), c));
    fs::remove_all(dir);
}

TEST(CompileCache, RejectsKeysThatAreNotNames) {
    pycuda::CompileCache cache;
    EXPECT_THROW(cache.get("../etc/passwd"), std::invalid_argument);
    EXPECT_THROW(cache.put("", "x"), std::invalid_argument);
}

TEST(CompileCache, EntryCodecRoundTrip) {
    auto encoded = pycuda::encode_cache_entry("payload");
    ASSERT_TRUE(pycuda::decode_cache_entry(encoded).has_value());
    EXPECT_EQ(*pycuda::decode_cache_entry(encoded), "payload");
}

} // namespace
