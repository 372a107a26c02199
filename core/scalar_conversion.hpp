// core/scalar_conversion.hpp: a number's bytes converted to another size, as C converts it.
//
// A NumPy scalar given for a kernel parameter of another size (the driver tells a parameter's
// size, not its type: cuFuncGetParamInfo) is converted to a number of that size and of the
// scalar's kind, as a C assignment converts it (docs/migrating.md, "Arguments the original
// reinterprets"). bindings/arg_packer.cpp packs the result, and warns where the value changed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pycuda {

/// How a scalar's value came through its conversion to a parameter's size.
enum class Conversion : unsigned char {
    Exact,      // the same number (NaN stays NaN)
    Inexact,    // converted as C converts it, to another number: rounded, wrapped, truncated
    Impossible, // no conversion to that size: refused
};

/// `n` bytes at `src`, a number of NumPy kind `kind` ('b', 'i', 'u', 'f', 'c', 'm', 'M'), as
/// `size` bytes in `out` (16 at most are written): converted as C converts it to the number of
/// that size and of the same kind. Integers keep their value where it lies in the signed or the
/// unsigned range of the size (sign-extended when signed), else their low bytes; floats round
/// to nearest, ties to even (infinity beyond the range); complex numbers convert both parts
/// (8 or 16 bytes) or keep their real part; a float for 1 byte is truncated to an integer; an
/// integer or a float for 16 bytes becomes a 128-bit integer or a complex128 (Inexact: most
/// likely a vector or struct is there). Impossible for sizes no number has (a struct's).
Conversion convert_scalar(const unsigned char* src, std::size_t n, char kind, std::size_t size,
                          unsigned char* out) noexcept;

/// What convert_scalar made of a number of kind `kind` as the `size` bytes `out`, in words:
/// "float32 (0.100000001)", "its low 4 bytes (-5 as int32, 4294967291 as uint32)".
std::string describe_conversion(char kind, std::size_t size, const unsigned char* out);

/// IEEE half precision bits as a float.
float half_to_float(std::uint16_t h) noexcept;

} // namespace pycuda
