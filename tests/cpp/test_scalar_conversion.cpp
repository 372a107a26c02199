// tests/cpp/test_scalar_conversion.cpp: numbers converted to a parameter's size as C does (no GPU).
#include "core/scalar_conversion.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

using namespace pycuda;

namespace {

/// The bytes of `value` converted to `size` bytes, and how.
template <class T>
std::pair<Conversion, std::vector<unsigned char>> convert(T value, char kind, std::size_t size) {
    unsigned char src[sizeof(T)];
    std::memcpy(src, &value, sizeof(T));
    unsigned char out[16] = {};
    Conversion c = convert_scalar(src, sizeof(T), kind, size, out);
    return {c, std::vector<unsigned char>(out, out + size)};
}

template <class T>
std::vector<unsigned char> bytes_of(T value) {
    std::vector<unsigned char> out(sizeof(T));
    std::memcpy(out.data(), &value, sizeof(T));
    return out;
}

template <class T>
T as(const std::vector<unsigned char>& bytes) {
    T value;
    std::memcpy(&value, bytes.data(), sizeof(T));
    return value;
}

} // namespace

TEST(ScalarConversion, IntegersKeepTheirValueWhereTheSizeHoldsIt) {
    EXPECT_EQ(convert<std::uint32_t>(7, 'u', 8),
              std::pair(Conversion::Exact, bytes_of<std::uint64_t>(7)));
    EXPECT_EQ(convert<std::int32_t>(-1, 'i', 8),
              std::pair(Conversion::Exact, bytes_of<std::int64_t>(-1)));
    EXPECT_EQ(convert<std::int64_t>(-5, 'i', 4),
              std::pair(Conversion::Exact, bytes_of<std::int32_t>(-5)));
    // The signed or the unsigned range: the driver does not tell which the parameter is.
    EXPECT_EQ(convert<std::int64_t>(-1, 'i', 4).first, Conversion::Exact);
    EXPECT_EQ(convert<std::uint64_t>(0xffffffffu, 'u', 4).first, Conversion::Exact);
    EXPECT_EQ(convert<bool>(true, 'b', 4), std::pair(Conversion::Exact, bytes_of<std::int32_t>(1)));
}

TEST(ScalarConversion, IntegersOutsideBothRangesKeepTheirLowBytes) {
    auto [c, out] = convert<std::int64_t>((1ll << 40) + 7, 'i', 4);
    EXPECT_EQ(c, Conversion::Inexact);
    EXPECT_EQ(as<std::int32_t>(out), 7);
    EXPECT_EQ(as<std::int32_t>(convert<std::int64_t>(-(1ll << 40) - 5, 'i', 4).second), -5);
    EXPECT_EQ(as<std::uint16_t>(convert<std::uint32_t>(70000, 'u', 2).second), 70000 % 65536);
    EXPECT_EQ(convert<std::uint64_t>(~0ull, 'u', 4).first, Conversion::Inexact);
    EXPECT_EQ(convert<std::int64_t>(1ll << 40, 'm', 4).first, Conversion::Inexact); // timedelta
}

TEST(ScalarConversion, IntegersForSixteenBytesAre128BitIntegers) {
    auto [c, out] = convert<std::int32_t>(-3, 'i', 16);
    EXPECT_EQ(c, Conversion::Inexact); // most likely a vector or struct: warned about
    EXPECT_EQ(as<std::int64_t>(out), -3);
    EXPECT_EQ(as<std::int64_t>(std::vector(out.begin() + 8, out.end())), -1);
}

TEST(ScalarConversion, FloatsRoundToNearest) {
    EXPECT_EQ(convert(0.5, 'f', 4), std::pair(Conversion::Exact, bytes_of(0.5f)));
    EXPECT_EQ(convert(0.1f, 'f', 8), std::pair(Conversion::Exact, bytes_of(double(0.1f))));
    EXPECT_EQ(convert(0.1, 'f', 4), std::pair(Conversion::Inexact, bytes_of(0.1f)));
    double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_EQ(convert(nan, 'f', 4).first, Conversion::Exact);
    EXPECT_TRUE(std::isnan(as<float>(convert(nan, 'f', 4).second)));
    double inf = std::numeric_limits<double>::infinity();
    EXPECT_EQ(convert(-inf, 'f', 4), std::pair(Conversion::Exact, bytes_of(-float(inf))));
}

TEST(ScalarConversion, FloatsBeyondTheRangeBecomeInfinity) {
    const double max = std::numeric_limits<float>::max();
    const double half_ulp = std::ldexp(1.0, 103);
    EXPECT_EQ(as<float>(convert(1e300, 'f', 4).second), std::numeric_limits<float>::infinity());
    EXPECT_EQ(as<float>(convert(-1e300, 'f', 4).second), -std::numeric_limits<float>::infinity());
    EXPECT_EQ(as<float>(convert(max + half_ulp, 'f', 4).second), // a tie: to even, infinity
              std::numeric_limits<float>::infinity());
    EXPECT_EQ(as<float>(convert(max + half_ulp / 2, 'f', 4).second), float(max));
    long double huge = 1e300L * 1e300L;
    EXPECT_EQ(as<double>(convert(huge, 'f', 8).second), std::numeric_limits<double>::infinity());
}

TEST(ScalarConversion, HalvesRoundOnce) {
    // Rounded to float first (1 + 2^-11, a tie for a half), then to half, this would give 1.
    double v = 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
    auto [c, out] = convert(v, 'f', 2);
    EXPECT_EQ(c, Conversion::Inexact);
    EXPECT_EQ(as<std::uint16_t>(out), 0x3c01);                             // 1 + 2^-10
    EXPECT_EQ(as<std::uint16_t>(convert(65519.0, 'f', 2).second), 0x7bff); // 65504
    EXPECT_EQ(as<std::uint16_t>(convert(65520.0, 'f', 2).second), 0x7c00); // infinity
    EXPECT_EQ(as<std::uint16_t>(convert(std::ldexp(1.0, -24), 'f', 2).second), 0x0001);
    EXPECT_EQ(convert(1.5, 'f', 2), std::pair(Conversion::Exact, bytes_of<std::uint16_t>(0x3e00)));
}

TEST(ScalarConversion, FloatsForOneByteAreTruncatedIntegers) {
    EXPECT_EQ(convert(2.5, 'f', 1), std::pair(Conversion::Inexact, std::vector<unsigned char>{2}));
    EXPECT_EQ(convert(-1.5f, 'f', 1).second, std::vector<unsigned char>{0xff});
    EXPECT_EQ(convert(std::nan(""), 'f', 1).second, std::vector<unsigned char>{0});
}

TEST(ScalarConversion, ComplexNumbers) {
    struct C64 {
        float re, im;
    };
    struct C128 {
        double re, im;
    };
    auto [c, out] = convert(C128{0.1, 0.2}, 'c', 8);
    EXPECT_EQ(c, Conversion::Inexact);
    EXPECT_EQ(as<float>(out), 0.1f);
    EXPECT_EQ(convert(C64{1, 2}, 'c', 16).first, Conversion::Exact);
    EXPECT_EQ(convert(C64{3, 0}, 'c', 4), std::pair(Conversion::Exact, bytes_of(3.0f)));
    EXPECT_EQ(convert(C64{1, 2}, 'c', 4), std::pair(Conversion::Inexact, bytes_of(1.0f)));
}

TEST(ScalarConversion, SizesNoNumberHasAreImpossible) {
    EXPECT_EQ(convert(1.0f, 'f', 12).first, Conversion::Impossible);
    EXPECT_EQ(convert<std::int32_t>(1, 'i', 3).first, Conversion::Impossible);
    EXPECT_EQ(convert(1.0, 'V', 8).first, Conversion::Impossible);
}

TEST(ScalarConversion, Descriptions) {
    auto text = [](auto value, char kind, std::size_t size) {
        return describe_conversion(kind, size, convert(value, kind, size).second.data());
    };
    EXPECT_EQ(text(0.1, 'f', 4), "float32 (0.100000001)");
    EXPECT_EQ(text(1e300, 'f', 4), "float32 (inf)");
    EXPECT_EQ(text(std::int64_t(-(1ll << 40) - 5), 'i', 4),
              "its low 4 bytes (-5 as int32, 4294967291 as uint32)");
    EXPECT_EQ(text(std::int16_t(300), 'i', 1), "its low byte (44 as int8 or uint8)");
    EXPECT_EQ(text(2.5, 'f', 1), "an integer, truncated toward zero (2 as int8 or uint8)");
    EXPECT_EQ(text(2.5, 'f', 16), "complex128 (2.5+0j)");
}
