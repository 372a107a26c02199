// core/sha256.hpp: SHA-256 (FIPS 180-4), the content hash of the compile cache.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace pycuda {

/// Incremental SHA-256: update() any number of times, then digest() once.
class Sha256 {
public:
    Sha256() noexcept;
    /// Feeds bytes into the hash.
    void update(std::string_view data) noexcept;
    /// Finishes the hash and returns the 32-byte digest; the object must not be updated after.
    std::array<std::uint8_t, 32> digest() noexcept;

private:
    void compress(const std::uint8_t* block) noexcept;

    std::array<std::uint32_t, 8> state_;
    std::array<std::uint8_t, 64> buffer_{};
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

/// The SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

/// Lowercase hex of a digest.
std::string to_hex(const std::array<std::uint8_t, 32>& digest);

} // namespace pycuda
