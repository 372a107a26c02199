// core/kernel_params.hpp: kernel-argument layout: sizes, alignments and offsets of parameters.
//
// prepare() formats are struct-module strings ("PiiP", "16s", "3f"); each code is one kernel
// parameter (a count before "s" is a byte length, before any other code a repeat). Offsets follow
// the C ABI of the kernel's parameter list: each parameter at the next multiple of its alignment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pycuda {

/// One kernel parameter: its struct code, byte size, alignment and offset in the buffer.
struct ParamSlot {
    char code = 'P';
    std::size_t size = 0;
    std::size_t align = 1;
    std::size_t offset = 0;
    /// The code prepare()'s format gave, where the kernel's parameter has another size and the
    /// slot was resized to it (0 otherwise): a value that fits this code but not the parameter
    /// is converted as C converts it, with a warning, as the original packed it without error.
    char given = 0;
};

/// The parameters of a kernel in order, and the size of the packed buffer.
struct ParamLayout {
    std::vector<ParamSlot> slots;
    std::size_t total_size = 0;
};

/// Size and alignment of a struct code on this platform (LP64): 'e' float16, 'F'/'D' complex64
/// and complex128 (aligned as CUDA's float2/double2), 'P' a device pointer, '?' bool. Returns
/// false for an unknown code.
bool code_size_align(char code, std::size_t& size, std::size_t& align) noexcept;

/// The alignment we give an n-byte by-value blob whose C type we cannot see ("12s", a struct
/// passed as bytes): the largest power of two dividing n, at most 16. This matches CUDA's
/// vector types (float3: 4, float4: 16, double2: 16) and structs of same-sized members.
std::size_t blob_alignment(std::size_t size) noexcept;

/// `offset` rounded up to a multiple of `align` (a power of two).
constexpr std::size_t align_up(std::size_t offset, std::size_t align) noexcept {
    return (offset + align - 1) & ~(align - 1);
}

/// Appends a parameter of the given size and alignment after the last one.
void append_slot(ParamLayout& layout, char code, std::size_t size, std::size_t align);

/// Parses a prepare() format. Byte-order prefixes '@' and '=' are accepted (native layout),
/// whitespace is ignored; anything else unknown is std::invalid_argument naming the position.
/// 'V' (NumPy's dtype.char of structs) is a struct passed by value: "16V" is 16 bytes, as "16s";
/// a bare 'V' gives a slot of code 'V' and size 0, whose size only the kernel can tell (see
/// require_sized).
ParamLayout parse_param_format(std::string_view format);

/// std::invalid_argument naming `format` if a bare 'V' slot is still unsized (its size was not
/// taken from the driver's parameter information).
void require_sized(const ParamLayout& layout, std::string_view format);

/// Converts a float to IEEE half precision bits, rounding to nearest even (for 'e').
std::uint16_t float_to_half(float value) noexcept;

} // namespace pycuda
