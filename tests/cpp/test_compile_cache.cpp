// tests/cpp/test_compile_cache.cpp: the compile cache's memory and disk layers, corruption, and
// entries or directories that someone else could have planted.
#include "core/compile_cache.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

TEST(CompileCache, ARecordBesideABinaryIsAnEntryOfItsOwn) {
    fs::path dir = fresh_dir("deps");
    {
        pycuda::CompileCache cache(dir);
        EXPECT_EQ(cache.put("k1", "cubin"), "");
        EXPECT_EQ(cache.put("k1", "record", pycuda::k_headers_suffix), "");
        EXPECT_EQ(*cache.get("k1"), "cubin");
        EXPECT_EQ(*cache.get("k1", pycuda::k_headers_suffix), "record");
    }
    EXPECT_TRUE(fs::is_regular_file(dir / "k1.bin"));
    EXPECT_TRUE(fs::is_regular_file(dir / "k1.deps"));
    pycuda::CompileCache again(dir);
    EXPECT_EQ(*again.get("k1", pycuda::k_headers_suffix), "record");
    // Each entry is bound to its kind: a binary copied into a record's place is a miss.
    EXPECT_EQ(again.put("k2", "cubin"), "");
    fs::copy_file(dir / "k2.bin", dir / "k2.deps");
    pycuda::CompileCache third(dir);
    EXPECT_EQ(*third.get("k2"), "cubin");
    EXPECT_FALSE(third.get("k2", pycuda::k_headers_suffix).has_value());
    EXPECT_THROW(third.get("k1", ".exe"), std::invalid_argument);
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
    auto encoded = pycuda::encode_cache_entry("k1", "payload");
    ASSERT_TRUE(pycuda::decode_cache_entry("k1", encoded).has_value());
    EXPECT_EQ(*pycuda::decode_cache_entry("k1", encoded), "payload");
    EXPECT_FALSE(pycuda::decode_cache_entry("k2", encoded).has_value());
}

TEST(CompileCache, AnEntryPlantedUnderAnotherKeyIsAMiss) {
    fs::path dir = fresh_dir("planted");
    pycuda::CompileCache writer(dir);
    writer.put("other", "someone else's binary");
    fs::copy_file(writer.entry_path("other"), writer.entry_path("mine"));
    pycuda::CompileCache reader(dir);
    EXPECT_FALSE(reader.get("mine").has_value());
    EXPECT_TRUE(reader.get("other").has_value());
    fs::remove_all(dir);
}

TEST(CompileCache, ALinkAsAnEntryIsNotFollowed) {
    fs::path dir = fresh_dir("link");
    pycuda::CompileCache writer(dir);
    writer.put("real", "binary");
    fs::path elsewhere = dir.string() + "_elsewhere";
    fs::copy_file(writer.entry_path("real"), elsewhere, fs::copy_options::overwrite_existing);
    fs::remove(writer.entry_path("real"));
    fs::create_symlink(elsewhere, writer.entry_path("real")); // a whole, valid entry behind it
    pycuda::CompileCache reader(dir);
    EXPECT_FALSE(reader.get("real").has_value());
    fs::remove_all(dir);
    fs::remove(elsewhere);
}

TEST(CompileCache, AFifoAsAnEntryIsAMissWithoutWaiting) {
    fs::path dir = fresh_dir("fifo");
    pycuda::CompileCache cache(dir);
    cache.put("x", "binary");
    fs::remove(cache.entry_path("x"));
    ASSERT_EQ(::mkfifo(cache.entry_path("x").c_str(), 0600), 0);
    pycuda::CompileCache reader(dir);
    EXPECT_FALSE(reader.get("x").has_value()); // (a blocking open would hang here)
    fs::remove_all(dir);
}

TEST(CompileCache, AnEntryOverTheSizeCapIsNotRead) {
    fs::path dir = fresh_dir("huge");
    pycuda::CompileCache writer(dir);
    writer.put("big", "binary");
    // Sparse: no disk is used. Reading it would take more memory than the child below may have.
    fs::resize_file(writer.entry_path("big"), pycuda::k_max_cache_entry + 1);
    pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        long pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        rlim_t limit = rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE)) + (rlim_t(256) << 20);
        struct rlimit rl{limit, limit};
        ::setrlimit(RLIMIT_AS, &rl);
        try {
            pycuda::CompileCache reader(dir);
            ::_exit(reader.get("big").has_value() ? 1 : 0);
        } catch (...) {
            ::_exit(2); // std::bad_alloc: it tried to read the file
        }
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    fs::remove_all(dir);
}

TEST(CompileCache, CreatesItsDirectoryPrivate) {
    fs::path dir = fresh_dir("mode") / "nested" / "cache";
    mode_t old = ::umask(0); // so a mode of 0777 & ~umask would show
    pycuda::CompileCache cache(dir);
    std::string problem = cache.put("k", "binary");
    ::umask(old);
    EXPECT_EQ(problem, "");
    struct stat st{};
    ASSERT_EQ(::stat(dir.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    ASSERT_EQ(::stat(dir.parent_path().c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0700u);
    fs::remove_all(dir.parent_path().parent_path());
}

TEST(CompileCache, ADirectoryRemovedMeanwhileIsMadeAgain) {
    fs::path dir = fresh_dir("removed");
    pycuda::CompileCache cache(dir);
    ASSERT_EQ(cache.put("k1", "binary"), "");
    fs::remove_all(dir);
    EXPECT_EQ(cache.put("k2", "binary"), "");
    EXPECT_TRUE(fs::exists(cache.entry_path("k2")));
    fs::remove_all(dir);
}

TEST(CompileCache, ADirectoryOthersCanWriteIsNotUsed) {
    fs::path dir = fresh_dir("shared");
    pycuda::CompileCache writer(dir);
    ASSERT_EQ(writer.put("k", "binary"), "");
    for (mode_t mode : {0770, 0777, 01777}) {
        ASSERT_EQ(::chmod(dir.c_str(), mode), 0);
        EXPECT_NE(pycuda::untrusted_cache_directory(dir).find("writable by"), std::string::npos);
        pycuda::CompileCache reader(dir);
        EXPECT_FALSE(reader.get("k").has_value()); // the entry there is not read
        std::string problem = reader.put("k2", "binary");
        EXPECT_NE(problem.find("chmod go-w"), std::string::npos) << problem;
        EXPECT_FALSE(fs::exists(reader.entry_path("k2")));
        EXPECT_TRUE(reader.get("k2").has_value()); // still cached in memory
    }
    ASSERT_EQ(::chmod(dir.c_str(), 0755), 0);
    EXPECT_EQ(pycuda::untrusted_cache_directory(dir), "");
    fs::remove_all(dir);
}

TEST(CompileCache, ADirectoryOfAnotherUserIsNotUsed) {
    if (::geteuid() != 0)
        GTEST_SKIP() << "needs root, to give the directory to another user";
    fs::path dir = fresh_dir("theirs");
    pycuda::CompileCache writer(dir);
    ASSERT_EQ(writer.put("k", "binary"), "");
    ASSERT_EQ(::chown(dir.c_str(), 65534, 65534), 0);
    EXPECT_NE(pycuda::untrusted_cache_directory(dir).find("owned by uid 65534"), std::string::npos);
    pycuda::CompileCache reader(dir);
    EXPECT_FALSE(reader.get("k").has_value());
    EXPECT_NE(reader.put("k2", "x").find("PYCUDA_CACHE_DIR"), std::string::npos);
    fs::remove_all(dir);
}

} // namespace
