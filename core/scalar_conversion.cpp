// core/scalar_conversion.cpp: a number's bytes converted to another size, as C converts it.
#include "core/scalar_conversion.hpp"

#include "core/kernel_params.hpp" // float_to_half

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace pycuda {

float half_to_float(std::uint16_t h) noexcept {
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float magnitude;
    if (exponent == 0)
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    else if (exponent == 31)
        magnitude = mantissa ? std::numeric_limits<float>::quiet_NaN()
                             : std::numeric_limits<float>::infinity();
    else
        magnitude = std::ldexp(static_cast<float>(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

namespace {

Conversion exactness(bool exact) noexcept {
    return exact ? Conversion::Exact : Conversion::Inexact;
}

/// `v` rounded to the nearest `To`, ties to even, as C (IEEE 754) and NumPy's astype convert.
/// A C++ cast leaves a finite value beyond To's range undefined: it becomes To's largest value,
/// or infinity from half a unit in the last place above it.
template <class To, class From>
To round_to(From v) noexcept {
    using Limits = std::numeric_limits<To>;
    if constexpr (std::numeric_limits<From>::max_exponent > Limits::max_exponent) {
        static const From overflow = static_cast<From>(Limits::max()) +
                                     std::ldexp(From(1), Limits::max_exponent - Limits::digits - 1);
        if (std::isfinite(v) && std::fabs(v) > static_cast<From>(Limits::max())) {
            To magnitude = std::fabs(v) >= overflow ? Limits::infinity() : Limits::max();
            return std::signbit(v) ? -magnitude : magnitude;
        }
    }
    return static_cast<To>(v);
}

/// `v` rounded to the nearest half in one step, ties to even (rounding to float first could
/// round twice): its bits.
template <class From>
std::uint16_t round_to_half(From v) noexcept {
    if (!std::isfinite(v))
        return float_to_half(static_cast<float>(v));
    if (std::fabs(v) >= From(65520)) // half-way from the largest half (65504) to 65536
        return std::signbit(v) ? 0xfc00 : 0x7c00;
    int exponent = 0;
    std::frexp(v, &exponent); // |v| < 2^exponent: a half keeps 11 bits, down to 2^-24
    int step = std::max(exponent - 11, -24);
    From rounded = std::ldexp(std::nearbyint(std::ldexp(v, -step)), step);
    return float_to_half(static_cast<float>(rounded)); // exact: 11 significant bits at most
}

/// C's conversion of a float to a `size`-byte integer: truncated toward zero, then its low
/// bytes; NaN and values beyond 64 bits give 0x8000000000000000's, as x86 (and NumPy there) does.
template <class Real>
Conversion real_to_integer(Real v, std::size_t size, unsigned char* out) noexcept {
    Real whole = std::trunc(v);
    std::uint64_t bits = 1ull << 63;
    if (whole >= -Real(9223372036854775808.0) && whole < Real(9223372036854775808.0))
        bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(whole));
    std::memcpy(out, &bits, size);
    return Conversion::Inexact; // even 3.0 -> 3: the kernel reads an integer where a float was
}

/// A real `v` as a parameter of `size` bytes: a float of that size (2, 4, 8), an integer
/// (1: no float has that size), or a complex128 (16: C's real-to-complex, imaginary part 0).
template <class Real>
Conversion convert_real(Real v, std::size_t size, unsigned char* out) noexcept {
    bool exact = v != v; // NaN stays NaN
    if (size == 1) {
        return real_to_integer(v, size, out);
    } else if (size == 2) {
        std::uint16_t h = round_to_half(v);
        std::memcpy(out, &h, 2);
        exact = exact || static_cast<Real>(half_to_float(h)) == v;
    } else if (size == 4) {
        float f = round_to<float>(v);
        std::memcpy(out, &f, 4);
        exact = exact || static_cast<Real>(f) == v;
    } else if (size == 8 || size == 16) {
        double parts[2] = {round_to<double>(v), 0.0};
        std::memcpy(out, parts, size);
        if (size == 16)
            return Conversion::Inexact; // most likely a double2, float4 or struct: say so
        exact = exact || static_cast<Real>(parts[0]) == v;
    } else {
        return Conversion::Impossible;
    }
    return exactness(exact);
}

/// The float of `n` bytes at `src` (half, float, double or long double) as `size` bytes.
Conversion convert_float(const unsigned char* src, std::size_t n, std::size_t size,
                         unsigned char* out) noexcept {
    if (n == 2) {
        std::uint16_t h;
        std::memcpy(&h, src, 2);
        return convert_real(static_cast<double>(half_to_float(h)), size, out);
    }
    if (n == 4) {
        float f;
        std::memcpy(&f, src, 4);
        return convert_real(static_cast<double>(f), size, out);
    }
    if (n == 8) {
        double d;
        std::memcpy(&d, src, 8);
        return convert_real(d, size, out);
    }
    if (n == sizeof(long double)) { // NumPy's longdouble is C's
        long double ld;
        std::memcpy(&ld, src, n);
        return convert_real(ld, size, out);
    }
    return Conversion::Impossible;
}

/// An integer of `n` bytes at `src` as `size` bytes, as C converts it: sign-extended (signed
/// kinds) or zero-extended, or its low bytes. The driver tells a parameter's size but not its
/// signedness, so the value is kept exactly when it lies in the signed or the unsigned range of
/// that size. 16 bytes: a 128-bit integer.
Conversion convert_integer(const unsigned char* src, std::size_t n, bool is_signed,
                           std::size_t size, unsigned char* out) noexcept {
    if (n > 8 || (size != 1 && size != 2 && size != 4 && size != 8 && size != 16))
        return Conversion::Impossible;
    unsigned long long bits = 0;
    std::memcpy(&bits, src, n); // little-endian: the low bytes
    unsigned shift = static_cast<unsigned>(64 - 8 * n);
    long long value = 0;
    if (is_signed && shift != 0)
        value = static_cast<long long>(bits << shift) >> shift;
    else
        value = static_cast<long long>(bits);
    bits = static_cast<unsigned long long>(value);
    bool negative = is_signed && value < 0;
    if (size == 16) {
        unsigned long long high = negative ? ~0ull : 0;
        std::memcpy(out, &bits, 8);
        std::memcpy(out + 8, &high, 8);
        return Conversion::Inexact; // most likely a double2, float4 or struct: say so
    }
    unsigned width = static_cast<unsigned>(8 * size);
    bool fits = width == 64 || (negative ? value >= -(1ll << (width - 1)) : bits < (1ull << width));
    std::memcpy(out, &bits, size);
    return exactness(fits);
}

/// `size` bytes of an integer read both ways: "-1 as int32, 4294967295 as uint32".
std::string integer_text(const unsigned char* bytes, std::size_t size) {
    unsigned long long u = 0;
    std::memcpy(&u, bytes, std::min<std::size_t>(size, 8));
    unsigned shift = static_cast<unsigned>(64 - 8 * size);
    long long s = shift ? static_cast<long long>(u << shift) >> shift : static_cast<long long>(u);
    std::string bits = std::to_string(8 * size);
    if (s >= 0)
        return std::to_string(s) + " as int" + bits + " or uint" + bits;
    return std::to_string(s) + " as int" + bits + ", " + std::to_string(u) + " as uint" + bits;
}

/// A float of `size` bytes (2, 4 or 8) with as many digits as tell it apart: "0.100000001".
std::string float_text(const unsigned char* bytes, std::size_t size) {
    double v = 0;
    int digits = 17;
    if (size == 2) {
        std::uint16_t h;
        std::memcpy(&h, bytes, 2);
        v = half_to_float(h);
        digits = 5;
    } else if (size == 4) {
        float f;
        std::memcpy(&f, bytes, 4);
        v = f;
        digits = 9;
    } else {
        std::memcpy(&v, bytes, 8);
    }
    char text[32];
    std::snprintf(text, sizeof(text), "%.*g", digits, v);
    return text;
}

} // namespace

Conversion convert_scalar(const unsigned char* src, std::size_t n, char kind, std::size_t size,
                          unsigned char* out) noexcept {
    switch (kind) {
    case 'b':
    case 'u':
        return convert_integer(src, n, false, size, out);
    case 'i':
    case 'm': // datetimes and timedeltas: their signed 64-bit count
    case 'M':
        return convert_integer(src, n, true, size, out);
    case 'f':
        return convert_float(src, n, size, out);
    case 'c': {
        std::size_t half = n / 2;
        if (size == 8 || size == 16) { // complex64 or complex128 (float2, double2)
            Conversion real = convert_float(src, half, size / 2, out);
            Conversion imag = convert_float(src + half, half, size / 2, out + size / 2);
            return std::max(real, imag);
        }
        unsigned char imag[8] = {};
        convert_float(src + half, half, 8, imag); // (any float converts to a double)
        double imaginary;
        std::memcpy(&imaginary, imag, 8);
        Conversion real = convert_float(src, half, size, out); // C keeps the real part
        return imaginary != 0 && real != Conversion::Impossible ? Conversion::Inexact : real;
    }
    default:
        return Conversion::Impossible;
    }
}

std::string describe_conversion(char kind, std::size_t size, const unsigned char* out) {
    if (kind != 'f' && kind != 'c') {
        if (size == 16)
            return "a 128-bit integer of the same value";
        return (size == 1 ? "its low byte (" : "its low " + std::to_string(size) + " bytes (") +
               integer_text(out, size) + ")";
    }
    if (size == 1)
        return "an integer, truncated toward zero (" + integer_text(out, 1) + ")";
    if (kind == 'c' && (size == 8 || size == 16)) {
        std::string imag = float_text(out + size / 2, size / 2);
        return std::string(size == 8 ? "complex64 (" : "complex128 (") + float_text(out, size / 2) +
               (imag[0] == '-' ? "" : "+") + imag + "j)";
    }
    if (size == 16)
        return "complex128 (" + float_text(out, 8) + "+0j)";
    std::string text = std::string(size == 2   ? "float16"
                                   : size == 4 ? "float32"
                                               : "float64") +
                       " (" + float_text(out, size) + ")";
    return kind == 'c' ? "its real part as " + text : text;
}

} // namespace pycuda
