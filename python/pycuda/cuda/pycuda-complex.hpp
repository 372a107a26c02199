// pycuda-complex.hpp: pycuda::complex<T> (T = float, double) for kernels, after std::complex.
//
// Written from the C++ std::complex specification and C99 Annex G (branch cuts, signed zeros).
// Compiles with nvcc and with NVRTC, which has no host standard library: only the toolkit's
// built-in math functions are used. Everything is __host__ __device__, so host C++ can test it.
// Layout: exactly two T (real, imaginary), aligned like float2/double2, so numpy's complex64 and
// complex128 arrays map onto it and vectorized 8/16-byte loads work.
#ifndef PYCUDA_COMPLEX_HPP_SEEN
#define PYCUDA_COMPLEX_HPP_SEEN

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define PYCUDA_HD __host__ __device__
#else
// A plain host C++ compiler (used by tests): the C math library stands in for CUDA's.
#define PYCUDA_HD
#include <math.h>
#endif

// SourceModule wraps user sources in extern "C" { }, and templates need C++ linkage.
extern "C++" {
namespace pycuda {

template <class T>
struct complex;

namespace detail {

template <class T>
struct identity {
    typedef T type;
};
template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
    typedef T type;
};
template <class A, class B>
struct is_same {
    static const bool value = false;
};
template <class A>
struct is_same<A, A> {
    static const bool value = true;
};

/// Integer types: pow(complex, n) with one of these multiplies exactly instead of exp(n log z).
template <class T>
struct is_integer {
    static const bool value = false;
};
#define PYCUDA_COMPLEX_INTEGER(I)                                                                  \
    template <>                                                                                    \
    struct is_integer<I> {                                                                         \
        static const bool value = true;                                                            \
    };
PYCUDA_COMPLEX_INTEGER(char)
PYCUDA_COMPLEX_INTEGER(signed char)
PYCUDA_COMPLEX_INTEGER(unsigned char)
PYCUDA_COMPLEX_INTEGER(short)
PYCUDA_COMPLEX_INTEGER(unsigned short)
PYCUDA_COMPLEX_INTEGER(int)
PYCUDA_COMPLEX_INTEGER(unsigned int)
PYCUDA_COMPLEX_INTEGER(long)
PYCUDA_COMPLEX_INTEGER(unsigned long)
PYCUDA_COMPLEX_INTEGER(long long)
PYCUDA_COMPLEX_INTEGER(unsigned long long)
#undef PYCUDA_COMPLEX_INTEGER

/// Real math for T, by the C names that both CUDA (device, NVRTC) and libm (host) define.
template <class T>
struct rmath;

template <>
struct rmath<float> {
    PYCUDA_HD static float sqrt(float x) { return ::sqrtf(x); }
    PYCUDA_HD static float hypot(float x, float y) { return ::hypotf(x, y); }
    PYCUDA_HD static float exp(float x) { return ::expf(x); }
    PYCUDA_HD static float log(float x) { return ::logf(x); }
    PYCUDA_HD static float log1p(float x) { return ::log1pf(x); }
    PYCUDA_HD static float pow(float x, float y) { return ::powf(x, y); }
    PYCUDA_HD static float sin(float x) { return ::sinf(x); }
    PYCUDA_HD static float cos(float x) { return ::cosf(x); }
    PYCUDA_HD static float tan(float x) { return ::tanf(x); }
    PYCUDA_HD static float sinh(float x) { return ::sinhf(x); }
    PYCUDA_HD static float tanh(float x) { return ::tanhf(x); }
    PYCUDA_HD static float cosh(float x) { return ::coshf(x); }
    PYCUDA_HD static float atan2(float y, float x) { return ::atan2f(y, x); }
    PYCUDA_HD static float asinh(float x) { return ::asinhf(x); }
    PYCUDA_HD static float fabs(float x) { return ::fabsf(x); }
    PYCUDA_HD static float copysign(float x, float y) { return ::copysignf(x, y); }
    PYCUDA_HD static float ldexp(float x, int e) { return ::ldexpf(x, e); }
    PYCUDA_HD static float inf() {
#ifdef __CUDA_ARCH__
        return __int_as_float(0x7f800000);
#else
        return HUGE_VALF;
#endif
    }
    PYCUDA_HD static float nan() {
#ifdef __CUDA_ARCH__
        return __int_as_float(0x7fffffff);
#else
        return NAN;
#endif
    }
    PYCUDA_HD static constexpr float max() {
        return 3.40282347e+38f;
    }
    /// Below this, sqrt scales its argument up so that no bits are lost to subnormals.
    PYCUDA_HD static constexpr float small() {
        return 1e-18f;
    }
    static const int small_scale_exp = 64; // even: sqrt halves it exactly
    /// ln(max()): exp() overflows beyond it.
    PYCUDA_HD static constexpr float log_max() {
        return 88.7228394f;
    }
    /// tanh(x) rounds to +-1 beyond this.
    PYCUDA_HD static constexpr float tanh_one() {
        return 10.0f;
    }
    /// atanh treats |z| beyond sqrt(max())/4 as infinite, where (1 - x)^2 would overflow.
    PYCUDA_HD static constexpr float atanh_big() {
        return 4.6e18f;
    }
    /// atanh's (1 - x)^2 + y^2 below this uses logarithms, not log1p of a quotient.
    PYCUDA_HD static constexpr float atanh_tiny() {
        return 1e-20f;
    }
};

template <>
struct rmath<double> {
    PYCUDA_HD static double sqrt(double x) { return ::sqrt(x); }
    PYCUDA_HD static double hypot(double x, double y) { return ::hypot(x, y); }
    PYCUDA_HD static double exp(double x) { return ::exp(x); }
    PYCUDA_HD static double log(double x) { return ::log(x); }
    PYCUDA_HD static double log1p(double x) { return ::log1p(x); }
    PYCUDA_HD static double pow(double x, double y) { return ::pow(x, y); }
    PYCUDA_HD static double sin(double x) { return ::sin(x); }
    PYCUDA_HD static double cos(double x) { return ::cos(x); }
    PYCUDA_HD static double tan(double x) { return ::tan(x); }
    PYCUDA_HD static double sinh(double x) { return ::sinh(x); }
    PYCUDA_HD static double tanh(double x) { return ::tanh(x); }
    PYCUDA_HD static double cosh(double x) { return ::cosh(x); }
    PYCUDA_HD static double atan2(double y, double x) { return ::atan2(y, x); }
    PYCUDA_HD static double asinh(double x) { return ::asinh(x); }
    PYCUDA_HD static double fabs(double x) { return ::fabs(x); }
    PYCUDA_HD static double copysign(double x, double y) { return ::copysign(x, y); }
    PYCUDA_HD static double ldexp(double x, int e) { return ::ldexp(x, e); }
    PYCUDA_HD static double inf() {
#ifdef __CUDA_ARCH__
        return __longlong_as_double(0x7ff0000000000000LL);
#else
        return HUGE_VAL;
#endif
    }
    PYCUDA_HD static double nan() {
#ifdef __CUDA_ARCH__
        return __longlong_as_double(0x7ff8000000000000LL);
#else
        return NAN;
#endif
    }
    PYCUDA_HD static constexpr double max() {
        return 1.7976931348623157e+308;
    }
    PYCUDA_HD static constexpr double small() {
        return 1e-150;
    }
    static const int small_scale_exp = 600;
    PYCUDA_HD static constexpr double log_max() {
        return 709.78271289338397;
    }
    PYCUDA_HD static constexpr double tanh_one() {
        return 20.0;
    }
    PYCUDA_HD static constexpr double atanh_big() {
        return 3.3e153;
    }
    PYCUDA_HD static constexpr double atanh_tiny() {
        return 1e-200;
    }
};

// Classification by comparisons alone: no libm macros (absent in NVRTC) and no fast-math traps.
template <class T>
PYCUDA_HD inline bool is_nan(T x) {
    return x != x;
}
template <class T>
PYCUDA_HD inline bool is_inf(T x) {
    return rmath<T>::fabs(x) > rmath<T>::max();
}
template <class T>
PYCUDA_HD inline bool is_finite(T x) {
    return rmath<T>::fabs(x) <= rmath<T>::max();
}

} // namespace detail

/// A complex number with real and imaginary parts of type T (float or double), like std::complex.
/// The data members keep the original PyCUDA's names (_M_re, _M_im), which kernels use.
template <class T>
struct alignas(2 * sizeof(T)) complex {
    typedef T value_type;

    /// complex(re, im); complex() is zero and complex(x) is x + 0i, as in std::complex.
    PYCUDA_HD constexpr complex(const T& re = T(), const T& im = T()) : _M_re(re), _M_im(im) {}

    /// float -> double widens implicitly; double -> float narrows only explicitly (std rules).
    template <class U, typename detail::enable_if<(sizeof(U) < sizeof(T)), int>::type = 0>
    PYCUDA_HD constexpr complex(const complex<U>& z) : _M_re(z._M_re), _M_im(z._M_im) {}
    template <class U, typename detail::enable_if<(sizeof(U) > sizeof(T)), int>::type = 0>
    PYCUDA_HD explicit constexpr complex(const complex<U>& z)
        : _M_re(static_cast<T>(z._M_re)), _M_im(static_cast<T>(z._M_im)) {}

    /// Reads a volatile complex (warp-synchronous reductions keep shared memory volatile). A
    /// template, so the implicit copy constructor stays trivial and the type trivially copyable.
    template <class U, typename detail::enable_if<detail::is_same<U, T>::value, int>::type = 0>
    PYCUDA_HD complex(const volatile complex<U>& z) : _M_re(z._M_re), _M_im(z._M_im) {}

    PYCUDA_HD constexpr T real() const { return _M_re; }
    PYCUDA_HD constexpr T imag() const { return _M_im; }
    PYCUDA_HD T real() const volatile { return _M_re; }
    PYCUDA_HD T imag() const volatile { return _M_im; }
    PYCUDA_HD void real(T re) { _M_re = re; }
    PYCUDA_HD void imag(T im) { _M_im = im; }

    PYCUDA_HD complex& operator=(const T& x) {
        _M_re = x;
        _M_im = T();
        return *this;
    }
    template <class U>
    PYCUDA_HD complex& operator=(const complex<U>& z) {
        _M_re = static_cast<T>(z._M_re);
        _M_im = static_cast<T>(z._M_im);
        return *this;
    }
    // Assignments to volatile return nothing: a volatile reference result would only invite
    // compilers' "will not access object" warnings, and chaining them has no use.
    PYCUDA_HD void operator=(const T& x) volatile {
        _M_re = x;
        _M_im = T();
    }
    template <class U>
    PYCUDA_HD void operator=(const complex<U>& z) volatile {
        _M_re = static_cast<T>(z._M_re);
        _M_im = static_cast<T>(z._M_im);
    }
    template <class U>
    PYCUDA_HD void operator=(const volatile complex<U>& z) volatile {
        _M_re = static_cast<T>(z._M_re);
        _M_im = static_cast<T>(z._M_im);
    }

    PYCUDA_HD complex& operator+=(const T& x) {
        _M_re += x;
        return *this;
    }
    PYCUDA_HD complex& operator-=(const T& x) {
        _M_re -= x;
        return *this;
    }
    PYCUDA_HD complex& operator*=(const T& x) {
        _M_re *= x;
        _M_im *= x;
        return *this;
    }
    PYCUDA_HD complex& operator/=(const T& x) {
        _M_re /= x;
        _M_im /= x;
        return *this;
    }
    template <class U>
    PYCUDA_HD complex& operator+=(const complex<U>& z) {
        _M_re += static_cast<T>(z._M_re);
        _M_im += static_cast<T>(z._M_im);
        return *this;
    }
    template <class U>
    PYCUDA_HD complex& operator-=(const complex<U>& z) {
        _M_re -= static_cast<T>(z._M_re);
        _M_im -= static_cast<T>(z._M_im);
        return *this;
    }
    template <class U>
    PYCUDA_HD complex& operator*=(const complex<U>& z) {
        return *this = *this * complex(static_cast<T>(z._M_re), static_cast<T>(z._M_im));
    }
    template <class U>
    PYCUDA_HD complex& operator/=(const complex<U>& z) {
        return *this = *this / complex(static_cast<T>(z._M_re), static_cast<T>(z._M_im));
    }

    // Binary operators are hidden friends taking values: found by argument-dependent lookup,
    // they accept scalars of any arithmetic type (2 * z, z / 3u), volatile operands, and
    // complex<float> op complex<double> (widened), which templates on T could not deduce.
    PYCUDA_HD friend complex operator+(complex z) { return z; }
    PYCUDA_HD friend complex operator-(complex z) { return complex(-z._M_re, -z._M_im); }

    PYCUDA_HD friend complex operator+(complex a, complex b) {
        return complex(a._M_re + b._M_re, a._M_im + b._M_im);
    }
    PYCUDA_HD friend complex operator+(complex a, T x) { return complex(a._M_re + x, a._M_im); }
    PYCUDA_HD friend complex operator+(T x, complex a) { return complex(x + a._M_re, a._M_im); }

    PYCUDA_HD friend complex operator-(complex a, complex b) {
        return complex(a._M_re - b._M_re, a._M_im - b._M_im);
    }
    PYCUDA_HD friend complex operator-(complex a, T x) { return complex(a._M_re - x, a._M_im); }
    PYCUDA_HD friend complex operator-(T x, complex a) { return complex(x - a._M_re, -a._M_im); }

    PYCUDA_HD friend complex operator*(complex a, complex b) {
        return complex(a._M_re * b._M_re - a._M_im * b._M_im,
                       a._M_re * b._M_im + a._M_im * b._M_re);
    }
    PYCUDA_HD friend complex operator*(complex a, T x) { return complex(a._M_re * x, a._M_im * x); }
    PYCUDA_HD friend complex operator*(T x, complex a) { return complex(x * a._M_re, x * a._M_im); }

    PYCUDA_HD friend complex operator/(complex a, complex b) {
        return divide(a._M_re, a._M_im, b._M_re, b._M_im);
    }
    PYCUDA_HD friend complex operator/(complex a, T x) { return complex(a._M_re / x, a._M_im / x); }
    PYCUDA_HD friend complex operator/(T x, complex b) { return divide(x, T(), b._M_re, b._M_im); }

    PYCUDA_HD friend bool operator==(complex a, complex b) {
        return a._M_re == b._M_re && a._M_im == b._M_im;
    }
    PYCUDA_HD friend bool operator==(complex a, T x) { return a._M_re == x && a._M_im == T(); }
    PYCUDA_HD friend bool operator==(T x, complex a) { return a._M_re == x && a._M_im == T(); }
    PYCUDA_HD friend bool operator!=(complex a, complex b) { return !(a == b); }
    PYCUDA_HD friend bool operator!=(complex a, T x) { return !(a == x); }
    PYCUDA_HD friend bool operator!=(T x, complex a) { return !(a == x); }

    T _M_re;
    T _M_im;

private:
    /// (a + ib) / (c + id) by Smith's algorithm: divides by the larger of |c|, |d| first, so no
    /// intermediate overflows where the quotient is finite. x / 0 is infinite, as in C99.
    PYCUDA_HD static complex divide(T a, T b, T c, T d) {
        typedef detail::rmath<T> M;
        if (c == T() && d == T()) {
            T inf = M::copysign(M::inf(), c);
            return complex(a * inf, b * inf);
        }
        if (M::fabs(c) >= M::fabs(d)) {
            T r = d / c, den = c + d * r;
            return complex((a + b * r) / den, (b - a * r) / den);
        }
        T r = c / d, den = c * r + d;
        return complex((a * r + b) / den, (b * r - a) / den);
    }
};

/// complex64 and complex128 under numpy's names, for generated code.
typedef complex<float> complex64;
typedef complex<double> complex128;

/// is_complex<T>::value: true for pycuda::complex<float|double>.
template <class T>
struct is_complex {
    static const bool value = false;
};
template <class T>
struct is_complex<complex<T>> {
    static const bool value = true;
};
/// real_type<T>::type: T for real T, the component type for complex<T>.
template <class T>
struct real_type {
    typedef T type;
};
template <class T>
struct real_type<complex<T>> {
    typedef T type;
};

// ---- parts, magnitude, classification -------------------------------------------------------

template <class T>
PYCUDA_HD inline constexpr T real(const complex<T>& z) {
    return z._M_re;
}
template <class T>
PYCUDA_HD inline constexpr T imag(const complex<T>& z) {
    return z._M_im;
}
/// real()/imag() of a real number, so generated code can treat real and complex alike.
PYCUDA_HD inline constexpr float real(float x) {
    return x;
}
PYCUDA_HD inline constexpr double real(double x) {
    return x;
}
PYCUDA_HD inline constexpr float imag(float) {
    return 0.0f;
}
PYCUDA_HD inline constexpr double imag(double) {
    return 0.0;
}

template <class T>
PYCUDA_HD inline complex<T> conj(const complex<T>& z) {
    return complex<T>(z._M_re, -z._M_im);
}
/// |z| by hypot, which scales internally: no overflow or underflow for finite z.
template <class T>
PYCUDA_HD inline T abs(const complex<T>& z) {
    return detail::rmath<T>::hypot(z._M_re, z._M_im);
}
template <class T>
PYCUDA_HD inline T arg(const complex<T>& z) {
    return detail::rmath<T>::atan2(z._M_im, z._M_re);
}
/// |z|^2 (the "field norm" of std::complex).
template <class T>
PYCUDA_HD inline T norm(const complex<T>& z) {
    return z._M_re * z._M_re + z._M_im * z._M_im;
}
/// The projection onto the Riemann sphere: every infinity becomes +inf +-0i.
template <class T>
PYCUDA_HD inline complex<T> proj(const complex<T>& z) {
    if (detail::is_inf(z._M_re) || detail::is_inf(z._M_im))
        return complex<T>(detail::rmath<T>::inf(), detail::rmath<T>::copysign(T(), z._M_im));
    return z;
}
/// rho * (cos theta + i sin theta).
template <class T>
PYCUDA_HD inline complex<T> polar(const T& rho,
                                  const typename detail::identity<T>::type& theta = 0) {
    if (theta == T()) // exact, and polar(inf, 0) is inf + 0i rather than inf + NaN i
        return complex<T>(rho, theta);
    typedef detail::rmath<T> M;
    return complex<T>(rho * M::cos(theta), rho * M::sin(theta));
}

template <class T>
PYCUDA_HD inline bool isnan(const complex<T>& z) {
    return detail::is_nan(z._M_re) || detail::is_nan(z._M_im);
}
/// True when either part is infinite, even if the other is NaN (C99 G.3).
template <class T>
PYCUDA_HD inline bool isinf(const complex<T>& z) {
    return detail::is_inf(z._M_re) || detail::is_inf(z._M_im);
}
template <class T>
PYCUDA_HD inline bool isfinite(const complex<T>& z) {
    return !isnan(z) && !isinf(z);
}

// ---- exponential, logarithms, powers --------------------------------------------------------

namespace detail {
/// ln 2, log10(e), pi/2 as T.
template <class T>
PYCUDA_HD inline constexpr T ln2() {
    return T(0.69314718055994530942);
}
template <class T>
PYCUDA_HD inline constexpr T log10_e() {
    return T(0.43429448190325182765);
}
template <class T>
PYCUDA_HD inline constexpr T half_pi() {
    return T(1.57079632679489661923);
}

/// 0^w (w != 0): 0 where Re w > 0, otherwise undefined (NaN), as numpy has it.
template <class T>
PYCUDA_HD inline complex<T> power_of_zero(bool positive_exponent) {
    return positive_exponent ? complex<T>() : complex<T>(rmath<T>::nan(), rmath<T>::nan());
}
} // namespace detail

/// e^z. Real z gives an exactly real result; e^x overflowing does not spoil e^x cos y.
template <class T>
PYCUDA_HD inline complex<T> exp(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (y == T())
        return complex<T>(M::exp(x), y);
    if (detail::is_inf(x) && !detail::is_finite(y)) // C99 G.6.3.1: 0 for -inf, inf + NaN i for inf
        return x < T() ? complex<T>() : complex<T>(x, y - y);
    T c = M::cos(y), s = M::sin(y);
    if (x > M::log_max()) {
        T h = M::exp(T(0.5) * x);
        return complex<T>(c * h * h, s * h * h);
    }
    T e = M::exp(x);
    return complex<T>(e * c, e * s);
}

/// Principal logarithm: cut along the negative real axis, Im in [-pi, pi] by the sign of Im z.
template <class T>
PYCUDA_HD inline complex<T> log(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T ax = M::fabs(z._M_re), ay = M::fabs(z._M_im);
    T a = ax > ay ? ax : ay, b = ax > ay ? ay : ax;
    T re;
    if (a > T(0.5) && a < T(2)) // |z| near 1: log1p keeps digits that log(hypot) cancels
        re = T(0.5) * M::log1p((a - T(1)) * (a + T(1)) + b * b);
    else if (a > M::max() / 4) // hypot itself could overflow
        re = M::log(M::hypot(T(0.25) * ax, T(0.25) * ay)) + T(2) * detail::ln2<T>();
    else
        re = M::log(M::hypot(ax, ay));
    return complex<T>(re, M::atan2(z._M_im, z._M_re));
}

template <class T>
PYCUDA_HD inline complex<T> log10(const complex<T>& z) {
    complex<T> l = log(z);
    return complex<T>(l._M_re * detail::log10_e<T>(), l._M_im * detail::log10_e<T>());
}

/// Principal square root: Re >= 0, cut along the negative real axis, Im with the sign of Im z.
template <class T>
PYCUDA_HD inline complex<T> sqrt(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (x == T() && y == T())
        return complex<T>(T(), y);
    if (detail::is_inf(y))
        return complex<T>(M::inf(), y);
    T ax = M::fabs(x), ay = M::fabs(y);
    T m = ax > ay ? ax : ay;
    // Scale by an even power of two (the root unscales exactly) so that |x| + |z| cannot
    // overflow and subnormal parts keep their digits.
    int e = 0;
    if (m > M::max() / 4)
        e = 2;
    else if (m < M::small())
        e = -M::small_scale_exp;
    if (e != 0) {
        ax = M::ldexp(ax, -e);
        ay = M::ldexp(ay, -e);
    }
    T t = M::sqrt(T(0.5) * (ax + M::hypot(ax, ay))); // the larger part of the root, > 0
    T u = ay / (T(2) * t);
    if (e != 0) {
        t = M::ldexp(t, e / 2);
        u = M::ldexp(u, e / 2);
    }
    if (x >= T())
        return complex<T>(t, M::copysign(u, y));
    return complex<T>(u, M::copysign(t, y));
}

/// z^w = e^(w log z). z^0 is 1 for every z; 0^w is 0 for Re w > 0, otherwise NaN (numpy's rule).
template <class T>
PYCUDA_HD inline complex<T> pow(const complex<T>& z, const complex<T>& w) {
    if (w._M_re == T() && w._M_im == T())
        return complex<T>(T(1));
    if (z._M_re == T() && z._M_im == T())
        return detail::power_of_zero<T>(w._M_re > T());
    return exp(w * log(z));
}

/// z^x for real x (any arithmetic type converts to T). A positive real z gives a real result.
template <class T>
PYCUDA_HD inline complex<T> pow(const complex<T>& z, const typename detail::identity<T>::type& x) {
    typedef detail::rmath<T> M;
    if (x == T())
        return complex<T>(T(1));
    if (z._M_im == T() && z._M_re > T())
        return complex<T>(M::pow(z._M_re, x), T());
    if (z._M_re == T() && z._M_im == T())
        return detail::power_of_zero<T>(x > T());
    complex<T> l = log(z);
    return polar(M::exp(x * l._M_re), x * l._M_im);
}

/// x^w for real x: |x|^w computed in real arithmetic where x > 0.
template <class T>
PYCUDA_HD inline complex<T> pow(const typename detail::identity<T>::type& x, const complex<T>& w) {
    typedef detail::rmath<T> M;
    if (w._M_re == T() && w._M_im == T())
        return complex<T>(T(1));
    if (x > T())
        return polar(M::pow(x, w._M_re), w._M_im * M::log(x));
    return pow(complex<T>(x), w);
}

/// z^n for an integer n, by repeated squaring: exact for small n, as numpy does for integers.
template <class T, class I>
PYCUDA_HD inline typename detail::enable_if<detail::is_integer<I>::value, complex<T>>::type
pow(const complex<T>& z, I n) {
    bool negative = n < I(1) && n != I(0); // not "n < 0": that warns for unsigned I
    if (z._M_re == T() && z._M_im == T() && n != I(0))
        return detail::power_of_zero<T>(!negative);
    unsigned long long k = static_cast<unsigned long long>(n);
    if (negative)
        k = 0ULL - k; // |n|, also for the most negative n
    complex<T> result(T(1)), base = z;
    while (k != 0) {
        if (k & 1ULL)
            result = result * base;
        k >>= 1;
        if (k != 0)
            base = base * base;
    }
    return negative ? T(1) / result : result;
}

// ---- hyperbolic and trigonometric functions -------------------------------------------------
// Where e^|x| overflows but the result need not (|x| > ln max), cosh x = |sinh x| = e^|x| / 2
// is applied as two factors e^(|x|/2). On the real axis the results are exactly real.

template <class T>
PYCUDA_HD inline complex<T> sinh(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (y == T())
        return complex<T>(M::sinh(x), y);
    if (!detail::is_finite(y) && (x == T() || detail::is_inf(x))) // C99 G.6.2.5
        return complex<T>(x, y - y);
    T c = M::cos(y), s = M::sin(y);
    if (M::fabs(x) > M::log_max()) {
        T h = M::exp(T(0.5) * M::fabs(x)), hh = T(0.5) * h;
        return complex<T>(M::copysign(T(1), x) * (hh * c) * h, (hh * s) * h);
    }
    return complex<T>(M::sinh(x) * c, M::cosh(x) * s);
}

template <class T>
PYCUDA_HD inline complex<T> cosh(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (y == T())
        return complex<T>(M::cosh(x), M::copysign(T(1), x) * y);
    if (!detail::is_finite(y) && x == T()) // C99 G.6.2.4
        return complex<T>(y - y, T());
    if (!detail::is_finite(y) && detail::is_inf(x))
        return complex<T>(M::inf(), y - y);
    T c = M::cos(y), s = M::sin(y);
    if (M::fabs(x) > M::log_max()) {
        T h = M::exp(T(0.5) * M::fabs(x)), hh = T(0.5) * h;
        return complex<T>((hh * c) * h, M::copysign(T(1), x) * (hh * s) * h);
    }
    return complex<T>(M::cosh(x) * c, M::sinh(x) * s);
}

/// tanh by Kahan's formula, which has no cancellation near the poles at i(pi/2 + k pi).
template <class T>
PYCUDA_HD inline complex<T> tanh(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (y == T())
        return complex<T>(M::tanh(x), y);
    if (x == T() && !detail::is_finite(y)) // C99 G.6.2.6: tanh(0 + i inf) = 0 + NaN i
        return complex<T>(x, y - y);
    if (M::fabs(x) > M::tanh_one()) { // Re is +-1 to working precision
        T e = M::exp(T(-2) * M::fabs(x));
        T im = T(4) * M::sin(y) * M::cos(y) * e;
        if (e ==
            T()) // |x| infinite or huge: only the sign of sin 2y is left, +0 if y is not finite
            im = M::copysign(T(), detail::is_nan(im) ? T() : M::sin(y) * M::cos(y));
        return complex<T>(M::copysign(T(1), x), im);
    }
    T t = M::tan(y), b = T(1) + t * t, s = M::sinh(x), r = M::sqrt(T(1) + s * s);
    T d = T(1) + b * s * s;
    return complex<T>(b * r * s / d, t / d);
}

// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz): the identities of C99 G.6, which
// carry the signed zeros and infinities over.
template <class T>
PYCUDA_HD inline complex<T> sin(const complex<T>& z) {
    complex<T> w = sinh(complex<T>(-z._M_im, z._M_re));
    return complex<T>(w._M_im, -w._M_re);
}
template <class T>
PYCUDA_HD inline complex<T> cos(const complex<T>& z) {
    return cosh(complex<T>(-z._M_im, z._M_re));
}
template <class T>
PYCUDA_HD inline complex<T> tan(const complex<T>& z) {
    complex<T> w = tanh(complex<T>(-z._M_im, z._M_re));
    return complex<T>(w._M_im, -w._M_re);
}

// ---- inverse functions ----------------------------------------------------------------------

namespace detail {
/// Beyond this |x| or |y|, asin z = -i log(2iz) up to O(1/z^2), below rounding; Kahan's products
/// would overflow near the largest numbers.
template <class T>
PYCUDA_HD inline bool is_large_for_inverse(T x, T y) {
    const T limit = sizeof(T) == 4 ? T(1e6) : T(1e12);
    return rmath<T>::fabs(x) > limit || rmath<T>::fabs(y) > limit;
}
/// log(2|x + iy|), without overflow.
template <class T>
PYCUDA_HD inline T log_2abs(T x, T y) {
    return ln2<T>() + log(complex<T>(x, y))._M_re;
}
} // namespace detail
// asin, acos and acosh follow Kahan ("Branch cuts for complex elementary functions", 1987): the
// products of two square roots give both parts without cancellation or overflow, and the signs
// of zero parts choose the side of each cut as C99 specifies.

template <class T>
PYCUDA_HD inline complex<T> asin(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (x == T() && detail::is_nan(y)) // C99 G.6.2.2 (through casinh(NaN + 0i))
        return z;
    if (detail::is_large_for_inverse(x, y))
        return complex<T>(M::atan2(x, M::fabs(y)), M::copysign(detail::log_2abs(x, y), y));
    complex<T> s1 = sqrt(complex<T>(T(1) - x, -y)), s2 = sqrt(complex<T>(T(1) + x, y));
    return complex<T>(M::atan2(x, s1._M_re * s2._M_re - s1._M_im * s2._M_im),
                      M::asinh(s1._M_re * s2._M_im - s1._M_im * s2._M_re));
}

template <class T>
PYCUDA_HD inline complex<T> acos(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (x == T() && detail::is_nan(y)) // C99 G.6.1.1
        return complex<T>(detail::half_pi<T>(), y);
    if (detail::is_large_for_inverse(x, y))
        return complex<T>(M::atan2(M::fabs(y), x), -M::copysign(detail::log_2abs(x, y), y));
    complex<T> s1 = sqrt(complex<T>(T(1) - x, -y)), s2 = sqrt(complex<T>(T(1) + x, y));
    return complex<T>(T(2) * M::atan2(s1._M_re, s2._M_re),
                      M::asinh(s2._M_re * s1._M_im - s2._M_im * s1._M_re));
}

template <class T>
PYCUDA_HD inline complex<T> acosh(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T x = z._M_re, y = z._M_im;
    if (x == T() && detail::is_nan(y)) // C99 G.6.2.1
        return complex<T>(y, detail::half_pi<T>());
    if (detail::is_large_for_inverse(x, y))
        return complex<T>(detail::log_2abs(x, y), M::copysign(M::atan2(M::fabs(y), x), y));
    complex<T> s1 = sqrt(complex<T>(x - T(1), y)), s2 = sqrt(complex<T>(x + T(1), y));
    return complex<T>(M::asinh(s1._M_re * s2._M_re + s1._M_im * s2._M_im),
                      T(2) * M::atan2(s1._M_im, s2._M_re));
}

/// asinh z = i asin(-iz).
template <class T>
PYCUDA_HD inline complex<T> asinh(const complex<T>& z) {
    complex<T> w = asin(complex<T>(z._M_im, -z._M_re));
    return complex<T>(-w._M_im, w._M_re);
}

/// atanh, computed on Re z >= 0 (it is odd) where log1p's argument is not negative.
template <class T>
PYCUDA_HD inline complex<T> atanh(const complex<T>& z) {
    typedef detail::rmath<T> M;
    T sign = M::copysign(T(1), z._M_re);
    T x = sign * z._M_re, y = sign * z._M_im;
    T re, im;
    if (x > M::atanh_big() || M::fabs(y) > M::atanh_big()) { // atanh z = 1/z +- i pi/2 here
        T h = M::hypot(x, y);
        re = (detail::is_inf(x) || detail::is_inf(y)) ? T() : (x / h) / h;
        im = detail::is_nan(y) ? y : M::copysign(detail::half_pi<T>(), y);
    } else {
        T d = (T(1) - x) * (T(1) - x) + y * y; // |1 - z|^2
        if (x == T()) // the imaginary axis maps onto itself, also for y = NaN
            re = x;
        else if (d > M::atanh_tiny())
            re = T(0.25) * M::log1p(T(4) * x / d);
        else // z within ~sqrt(d) of 1: 4x/d would overflow
            re = T(0.25) * M::log(T(4) * x) - T(0.5) * M::log(M::hypot(T(1) - x, y));
        im = T(0.5) * M::atan2(T(2) * y, (T(1) - x) * (T(1) + x) - y * y);
    }
    return complex<T>(sign * re, sign * im);
}

/// atan z = -i atanh(iz).
template <class T>
PYCUDA_HD inline complex<T> atan(const complex<T>& z) {
    complex<T> w = atanh(complex<T>(-z._M_im, z._M_re));
    return complex<T>(w._M_im, -w._M_re);
}
} // namespace pycuda
} // extern "C++"

#endif // PYCUDA_COMPLEX_HPP_SEEN
