// core/kernel_params.cpp: parsing prepare() formats into parameter layouts.
#include "core/kernel_params.hpp"

#include <bit>
#include <cctype>
#include <cstring>
#include <stdexcept>

namespace pycuda {

bool code_size_align(char code, std::size_t& size, std::size_t& align) noexcept {
    switch (code) {
    case 'x':
    case 'c':
    case 'b':
    case 'B':
    case '?':
    case 's':
        size = 1;
        align = 1;
        return true;
    case 'h':
    case 'H':
    case 'e':
        size = 2;
        align = 2;
        return true;
    case 'i':
    case 'I':
    case 'f':
        size = 4;
        align = 4;
        return true;
    case 'l':
    case 'L':
    case 'q':
    case 'Q':
    case 'n':
    case 'N':
    case 'd':
    case 'P':
        size = 8;
        align = 8;
        return true;
    // Complex numbers align like CUDA's float2/double2 (cuComplex, thrust::complex,
    // cuda::std::complex, pycuda::complex), not like C's _Complex.
    case 'F':
        size = 8;
        align = 8;
        return true;
    case 'D':
        size = 16;
        align = 16;
        return true;
    default:
        return false;
    }
}

std::size_t blob_alignment(std::size_t size) noexcept {
    if (size == 0)
        return 1;
    std::size_t lowest_bit = size & (~size + 1);
    return lowest_bit > 16 ? 16 : lowest_bit;
}

void append_slot(ParamLayout& layout, char code, std::size_t size, std::size_t align) {
    std::size_t offset = align_up(layout.total_size, align);
    layout.slots.push_back(ParamSlot{code, size, align, offset});
    layout.total_size = offset + size;
}

ParamLayout parse_param_format(std::string_view format) {
    ParamLayout layout;
    std::size_t i = 0;
    if (i < format.size() && (format[i] == '@' || format[i] == '='))
        ++i;
    while (i < format.size()) {
        char c = format[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        std::size_t start = i;
        std::size_t count = 1;
        bool has_count = false;
        if (std::isdigit(static_cast<unsigned char>(c))) {
            count = 0;
            while (i < format.size() && std::isdigit(static_cast<unsigned char>(format[i])))
                count = count * 10 + static_cast<std::size_t>(format[i++] - '0');
            has_count = true;
            if (i == format.size())
                throw std::invalid_argument("kernel argument format '" + std::string(format) +
                                            "' ends in a count without a type code");
        }
        char code = format[i++];
        if (code == 'V') {
            if (has_count)
                append_slot(layout, 's', count, blob_alignment(count));
            else
                append_slot(layout, 'V', 0, 1);
            continue;
        }
        std::size_t size = 0, align = 1;
        if (!code_size_align(code, size, align))
            throw std::invalid_argument("kernel argument format '" + std::string(format) +
                                        "': unknown type code '" + std::string(1, code) +
                                        "' at position " + std::to_string(start));
        if (code == 's') {
            // "12s" is one by-value parameter of 12 bytes (a struct or vector type).
            std::size_t n = has_count ? count : 1;
            append_slot(layout, 's', n, blob_alignment(n));
        } else if (code == 'x') {
            layout.total_size += count; // pad bytes belong to no parameter
        } else {
            for (std::size_t k = 0; k < count; ++k)
                append_slot(layout, code, size, align);
        }
    }
    return layout;
}

void require_sized(const ParamLayout& layout, std::string_view format) {
    for (const ParamSlot& slot : layout.slots)
        if (slot.code == 'V')
            throw std::invalid_argument(
                "kernel argument format '" + std::string(format) +
                "' has a 'V' (a struct passed by value) without a byte count, and the driver "
                "cannot tell the kernel's parameter sizes: write its size, e.g. '16V'");
}

std::uint16_t float_to_half(float value) noexcept {
    std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
    std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    std::uint32_t exponent = (bits >> 23) & 0xffu;
    std::uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xff) // inf or nan (keep nan quiet)
        return sign | 0x7c00u | (mantissa ? 0x200u : 0u);
    int e = static_cast<int>(exponent) - 127 + 15;
    if (e >= 0x1f)
        return sign | 0x7c00u; // overflow to infinity
    if (e <= 0) {
        if (e < -10)
            return sign; // underflows to zero
        // Subnormal half: shift the full mantissa (with its implicit 1) into place.
        std::uint32_t m = mantissa | 0x800000u;
        unsigned shift = static_cast<unsigned>(14 - e);
        std::uint32_t half_m = m >> shift;
        std::uint32_t rest = m & ((1u << shift) - 1u);
        std::uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half_m & 1u)))
            ++half_m;
        return sign | static_cast<std::uint16_t>(half_m);
    }
    std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
    std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u)))
        ++half; // a carry into the exponent is the correct rounding (up to infinity)
    return static_cast<std::uint16_t>(sign | half);
}

} // namespace pycuda
