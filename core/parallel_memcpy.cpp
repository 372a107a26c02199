// core/parallel_memcpy.cpp: the worker pool behind parallel_memcpy, and the split of a copy.
#include "core/parallel_memcpy.hpp"

#include "core/fork_guard.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#define PYCUDA_HAVE_STREAMING_STORES 1
#endif

namespace pycuda {

namespace {

/// memcpy whose destination is written with non-temporal (streaming) stores, 64 bytes at a time
/// from the first 16-byte aligned address; the unaligned ends go through memcpy. The stores are
/// fenced before returning, so that the thread that waits for this part sees every byte.
void streaming_memcpy(char* dest, const char* src, size_t bytes) noexcept {
    // memcpy's pointers must be valid even for 0 bytes, and an empty buffer's may be null.
    if (bytes == 0)
        return;
#ifdef PYCUDA_HAVE_STREAMING_STORES
    size_t head = (16 - (reinterpret_cast<uintptr_t>(dest) & 15)) & 15;
    if (bytes < head + 64) {
        std::memcpy(dest, src, bytes);
        return;
    }
    std::memcpy(dest, src, head);
    size_t i = head;
    for (; i + 64 <= bytes; i += 64) {
        const auto* s = reinterpret_cast<const __m128i*>(src + i);
        auto* d = reinterpret_cast<__m128i*>(dest + i);
        __m128i a = _mm_loadu_si128(s), b = _mm_loadu_si128(s + 1);
        __m128i c = _mm_loadu_si128(s + 2), e = _mm_loadu_si128(s + 3);
        _mm_stream_si128(d, a);
        _mm_stream_si128(d + 1, b);
        _mm_stream_si128(d + 2, c);
        _mm_stream_si128(d + 3, e);
    }
    std::memcpy(dest + i, src + i, bytes - i);
    _mm_sfence();
#else
    std::memcpy(dest, src, bytes);
#endif
}

/// k_memcpy_threads, or $PYCUDA_MEMCPY_THREADS where that is a positive number.
unsigned initial_threads() noexcept {
    const char* text = std::getenv("PYCUDA_MEMCPY_THREADS");
    if (!text || !*text)
        return k_memcpy_threads;
    char* end = nullptr;
    unsigned long value = std::strtoul(text, &end, 10);
    return (*end == '\0' && value >= 1)
               ? static_cast<unsigned>(std::min<unsigned long>(value, k_memcpy_max_threads))
               : k_memcpy_threads;
}

std::atomic<unsigned> chosen_threads{initial_threads()};

unsigned hardware_threads() noexcept {
    unsigned hardware = std::thread::hardware_concurrency();
    return hardware == 0 ? 1u : hardware;
}

/// One copy split into `parts` parts; whoever takes part i copies it. Held by shared_ptr, so a
/// worker that takes the job after the caller returned finds it still there (and nothing left).
struct Job {
    char* dest;
    const char* src;
    size_t bytes;
    size_t part_bytes;
    unsigned parts;
    bool streaming;
    std::atomic<unsigned> next{0};
    std::atomic<unsigned> done{0};

    /// Copies parts until none is left.
    void run() noexcept {
        for (unsigned i = next.fetch_add(1); i < parts; i = next.fetch_add(1)) {
            size_t offset = i * part_bytes;
            if (offset < bytes) {
                size_t n = std::min(part_bytes, bytes - offset);
                if (streaming)
                    streaming_memcpy(dest + offset, src + offset, n);
                else
                    std::memcpy(dest + offset, src + offset, n);
            }
            if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == parts)
                done.notify_all();
        }
    }
};

// How long an idle worker polls for the next job before sleeping on the condition variable.
// A staged copy hands out one job per chunk, one chunk's DMA time apart (~100-300 us); polling
// over that gap saves a futex wake-up (tens of microseconds) per chunk and costs CPU only in
// the moments after a copy.
constexpr auto k_idle_poll = std::chrono::microseconds(300);

// How long a caller spins for the workers' parts of its copy before sleeping until they end.
constexpr auto k_finish_spin = std::chrono::microseconds(200);

/// A pause in a spin loop (the x86 PAUSE instruction: less power, no memory-order stalls).
inline void cpu_relax() noexcept {
#ifdef PYCUDA_HAVE_STREAMING_STORES
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

class Workers {
public:
    /// The pool, started on first use. Leaked on purpose: its threads wait on it until the
    /// process ends, and no destructor must join them at exit.
    static Workers& get() {
        static Workers* pool = new Workers(std::min(k_memcpy_max_threads, hardware_threads()) - 1);
        return *pool;
    }

    /// Offers `job` to up to `helpers` workers.
    void offer(const std::shared_ptr<Job>& job, unsigned helpers) {
        helpers = std::min<unsigned>(helpers, started_);
        if (helpers == 0)
            return;
        {
            std::lock_guard lock(mutex_);
            for (unsigned i = 0; i < helpers; ++i)
                queue_.push_back(job);
            queued_.fetch_add(helpers, std::memory_order_release);
        }
        // One wake-up per queued part: waking every worker of the pool for each chunk cost a
        // staged 1 MiB copy a third of its speed once the pool grew past four threads.
        for (unsigned i = 0; i < helpers; ++i)
            wake_.notify_one();
    }

private:
    explicit Workers(unsigned count) {
        for (unsigned i = 0; i < count; ++i) {
            try {
                std::thread(&Workers::serve, this).detach();
                ++started_;
            } catch (const std::system_error&) {
                break; // no more threads to be had: the callers copy more themselves
            }
        }
    }

    void serve() noexcept {
        for (;;) {
            std::shared_ptr<Job> job = take();
            job->run();
        }
    }

    std::shared_ptr<Job> take() {
        auto until = std::chrono::steady_clock::now() + k_idle_poll;
        while (queued_.load(std::memory_order_acquire) == 0 &&
               std::chrono::steady_clock::now() < until)
            std::this_thread::yield();
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return !queue_.empty(); });
        std::shared_ptr<Job> job = std::move(queue_.front());
        queue_.pop_front();
        queued_.fetch_sub(1, std::memory_order_relaxed);
        return job;
    }

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::shared_ptr<Job>> queue_;
    std::atomic<unsigned> queued_{0};
    unsigned started_ = 0;
};

} // namespace

unsigned parallel_memcpy_threads() noexcept {
    unsigned limit = std::min(k_memcpy_max_threads, hardware_threads());
    return std::clamp(chosen_threads.load(std::memory_order_relaxed), 1u, limit);
}

void set_parallel_memcpy_threads(unsigned threads) noexcept {
    chosen_threads.store(std::clamp(threads, 1u, k_memcpy_max_threads), std::memory_order_relaxed);
}

void parallel_memcpy(void* dest, const void* src, size_t bytes, bool streaming) {
    if (bytes == 0) // memcpy(dest, nullptr, 0) is undefined, and an empty buffer may be null
        return;
    unsigned threads = parallel_memcpy_threads();
    size_t parts = std::min<size_t>(threads, bytes / k_memcpy_min_part);
    // A forked child has none of the parent's threads (and maybe a pool locked mid-fork).
    if (parts <= 1 || in_forked_child()) {
        if (streaming)
            streaming_memcpy(static_cast<char*>(dest), static_cast<const char*>(src), bytes);
        else
            std::memcpy(dest, src, bytes);
        return;
    }
    auto job = std::make_shared<Job>();
    job->dest = static_cast<char*>(dest);
    job->src = static_cast<const char*>(src);
    job->bytes = bytes;
    // Parts of whole pages, so that no two threads write to the same cache line.
    constexpr size_t page = 4096;
    job->part_bytes = ((bytes + parts - 1) / parts + page - 1) / page * page;
    job->parts = static_cast<unsigned>(parts);
    job->streaming = streaming;
    Workers::get().offer(job, job->parts - 1);
    job->run();
    // The parts the workers took end about when the caller's own does (equal parts): spin for
    // them a little, since a thread put to sleep on the futex took tens of microseconds to run
    // again, a staged 4 MiB copy's chunks each paying it (13 GB/s where pinned memory gives 50).
    auto until = std::chrono::steady_clock::now() + k_finish_spin;
    while (job->done.load(std::memory_order_acquire) != job->parts &&
           std::chrono::steady_clock::now() < until)
        cpu_relax();
    for (unsigned done = job->done.load(std::memory_order_acquire); done != job->parts;
         done = job->done.load(std::memory_order_acquire))
        job->done.wait(done, std::memory_order_acquire);
}

} // namespace pycuda
