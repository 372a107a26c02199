// core/parallel_memcpy.cpp: the worker pool behind parallel_memcpy, and the split of a copy.
#include "core/parallel_memcpy.hpp"

#include "core/fork_guard.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace pycuda {

namespace {

/// One copy split into `parts` parts; whoever takes part i copies it. Held by shared_ptr, so a
/// worker that takes the job after the caller returned finds it still there (and nothing left).
struct Job {
    char* dest;
    const char* src;
    size_t bytes;
    size_t part_bytes;
    unsigned parts;
    std::atomic<unsigned> next{0};
    std::atomic<unsigned> done{0};

    /// Copies parts until none is left.
    void run() noexcept {
        for (unsigned i = next.fetch_add(1); i < parts; i = next.fetch_add(1)) {
            size_t offset = i * part_bytes;
            if (offset < bytes)
                std::memcpy(dest + offset, src + offset, std::min(part_bytes, bytes - offset));
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

class Workers {
public:
    /// The pool, started on first use. Leaked on purpose: its threads wait on it until the
    /// process ends, and no destructor must join them at exit.
    static Workers& get() {
        static Workers* pool = new Workers(parallel_memcpy_threads() - 1);
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
        wake_.notify_all();
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
    unsigned hardware = std::thread::hardware_concurrency();
    return std::max(1u, hardware == 0 ? 1u : std::min(k_memcpy_threads, hardware));
}

void parallel_memcpy(void* dest, const void* src, size_t bytes) {
    unsigned threads = parallel_memcpy_threads();
    size_t parts = std::min<size_t>(threads, bytes / k_memcpy_min_part);
    // A forked child has none of the parent's threads (and maybe a pool locked mid-fork).
    if (parts <= 1 || in_forked_child()) {
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
    Workers::get().offer(job, job->parts - 1);
    job->run();
    // The parts the workers took: wait for them to finish (atomic wait: a futex, after a spin).
    for (unsigned done = job->done.load(std::memory_order_acquire); done != job->parts;
         done = job->done.load(std::memory_order_acquire))
        job->done.wait(done, std::memory_order_acquire);
}

} // namespace pycuda
