// bindings/staged_copy.cpp: the staging of pageable copies seen from Python (its sizes, the
// page-locked memory it holds), for tests, benchmarks and programs that want the memory back.
// memcpy_htod/memcpy_dtoh themselves stage through it (bindings/memcpy.cpp).
#include "core/staged_copy.hpp"
#include "core/parallel_memcpy.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>

#include <optional>
#include <string>

namespace nb = nanobind;

namespace pycuda::bindings {

void bind_staged_copy(nb::module_& m) {
    m.def(
        "_staged_copy_config",
        []() {
            nb::dict config;
            config["threshold"] = k_staging_threshold;
            config["buffer_bytes"] = k_staging_buffer_bytes;
            config["buffers"] = k_staging_buffers;
            auto [chunks, smallest] = staging_chunking();
            config["min_chunks"] = chunks;
            config["min_chunk"] = smallest;
            config["memcpy_threads"] = parallel_memcpy_threads();
            config["streaming_min"] = staging_streaming_min();
            return config;
        },
        "The constants of the staged pageable copies: copies of at least `threshold` bytes go "
        "through up to `buffers` page-locked buffers of `buffer_bytes` per context, in chunks "
        "of _staging_chunk_bytes(n), each filled or drained by up to `memcpy_threads` threads; "
        "dtoh copies of at least "
        "`streaming_min` bytes write the destination with non-temporal stores.");
    m.def(
        "_staged_copy_tune",
        [](std::optional<unsigned> memcpy_threads, std::optional<size_t> streaming_min,
           std::optional<unsigned> min_chunks, std::optional<size_t> min_chunk) {
            if (min_chunks || min_chunk) {
                // (std::invalid_argument reaches Python as ValueError.)
                auto [chunks, smallest] = staging_chunking();
                set_staging_chunking(min_chunks.value_or(chunks), min_chunk.value_or(smallest));
            }
            if (memcpy_threads) {
                if (*memcpy_threads < 1 || *memcpy_threads > k_memcpy_max_threads)
                    throw nb::value_error(("memcpy_threads must be between 1 and " +
                                           std::to_string(k_memcpy_max_threads))
                                              .c_str());
                set_parallel_memcpy_threads(*memcpy_threads);
            }
            if (streaming_min)
                set_staging_streaming_min(*streaming_min);
        },
        nb::arg("memcpy_threads").none() = nb::none(), nb::arg("streaming_min").none() = nb::none(),
        nb::arg("min_chunks").none() = nb::none(), nb::arg("min_chunk").none() = nb::none(),
        "Change the host side of staged copies: the threads that copy each chunk (1-16, as "
        "$PYCUDA_MEMCPY_THREADS sets at start) and the size from which dtoh copies use "
        "non-temporal stores, and the chunking (at least `min_chunks` chunks of at least "
        "`min_chunk` bytes). For benchmarks (benchmarks/transfers.py --sweep).");
    m.def("_staging_chunk_bytes", &staging_chunk_bytes, nb::arg("nbytes"),
          "The chunk size of a staged copy of `nbytes` bytes.");
    m.def("_staging_bytes_held", &staging_bytes_held,
          "Bytes of page-locked staging memory held now, over all contexts.");
    m.def(
        "_free_staging_buffers",
        []() {
            nb::gil_scoped_release release; // may wait for another thread's copy
            free_staging_buffers();
        },
        "Free the current context's staging buffers now (made again by the next staged copy).");
}

} // namespace pycuda::bindings
