// core/curand_host.hpp: cuRAND's host library: its version and the Sobol generators' tables.
//
// The tables are libcurand's own static arrays, read in place: core opens libcurand once (through
// driver_api's curand()) and never closes it, so the spans stay valid for the life of the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>

namespace pycuda {

/// A cuRAND host call that failed: its curandStatus_t, or a table getter this libcurand lacks.
/// what() reads "curandGetDirectionVectors32 failed: CURAND_STATUS_OUT_OF_RANGE (104)".
class CurandError : public std::runtime_error {
public:
    CurandError(int status, const char* routine);
    /// The curandStatus_t (0 when the entry point is missing).
    int status() const noexcept { return status_; }

private:
    int status_;
};

/// Dimensions in each of cuRAND's direction-vector and scramble-constant tables.
inline constexpr std::size_t k_curand_dimensions = 20000;

/// cuRAND's version number, e.g. 10400 for 10.4.0.
int curand_version();

/// A 32-bit direction-vector set (101: Joe-Kuo, 102: scrambled): k_curand_dimensions rows of 32
/// words, row-major. Other sets are std::invalid_argument.
std::span<const std::uint32_t> curand_direction_vectors32(int set);

/// A 64-bit direction-vector set (103, 104): k_curand_dimensions rows of 64 words.
std::span<const std::uint64_t> curand_direction_vectors64(int set);

/// The k_curand_dimensions 32-bit scramble constants.
std::span<const std::uint32_t> curand_scramble_constants32();

/// The k_curand_dimensions 64-bit scramble constants.
std::span<const std::uint64_t> curand_scramble_constants64();

} // namespace pycuda
