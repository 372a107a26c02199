// tests/complex_header/host_check.cpp: pycuda-complex.hpp on the host against std::complex.
//
// Built by tests/test_complex_header.py with nvcc (the header's __host__ __device__ path) and with
// a plain C++ compiler. Each function of pycuda::complex<T> is compared with std::complex in
// higher precision (double for float, long double for double) over a grid of finite values that
// crosses every branch cut with both signs of zero, then on infinities and NaNs by class only.
// Prints each failure and a summary; exits non-zero on any failure.
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <type_traits>
#include <vector>

#include <pycuda-complex.hpp>

namespace {

template <class T>
using PC = pycuda::complex<T>;

template <class T>
struct Ref;
template <>
struct Ref<float> {
    typedef double type;
    static constexpr double tol = 4e-6; // ~30 ulp
};
template <>
struct Ref<double> {
    typedef long double type;
    static constexpr double tol = 8e-15; // ~36 ulp
};

int failures = 0;

const char* type_name(float) {
    return "float";
}
const char* type_name(double) {
    return "double";
}

template <class T>
void report(const char* what, const char* fn, T zr, T zi, PC<T> got, double wr, double wi,
            double err) {
    if (++failures <= 400)
        std::printf("FAIL %s %s %s(%.9g%+.9gi) = %.17g%+.17gi, want %.17g%+.17gi (err %.3g)\n",
                    type_name(T()), what, fn, double(zr), double(zi), double(got.real()),
                    double(got.imag()), wr, wi, err);
}

/// Same class as the rounded reference: NaN, the same infinity (either sign where the other part
/// is NaN: C99 leaves that sign unspecified), or a finite number near it.
template <class T, class R>
bool part_matches(T got, R want, R other, double tol) {
    T w = static_cast<T>(want);
    if (std::isnan(w))
        return std::isnan(got);
    if (std::isinf(w))
        return std::isnan(other) ? std::isinf(got) : got == w;
    if (!std::isfinite(got))
        return false;
    R diff = std::fabs(R(got) - want);
    return diff <= R(tol) * std::fabs(want) + R(std::numeric_limits<T>::min());
}

/// Norm-wise relative error of got against want, with T's smallest normal as absolute floor.
template <class T, class R>
double rel_error(PC<T> got, std::complex<R> want) {
    R dr = R(got.real()) - want.real(), di = R(got.imag()) - want.imag();
    R m = std::abs(want);
    R floor = R(std::numeric_limits<T>::min());
    return double(std::sqrt(dr * dr + di * di) / (m > floor ? m : floor));
}

template <class T>
std::vector<T> grid_parts();
template <>
std::vector<float> grid_parts<float>() {
    return {0.0f, 1e-40f, 1e-30f, 1e-8f, 1e-3f, 0.1f,  0.5f, 0.9f,  0.99999f, 1.0f, 1.00001f,
            1.5f, 2.0f,   3.7f,   10.0f, 30.0f, 90.0f, 1e5f, 1e15f, 1e30f,    3e38f};
}
template <>
std::vector<double> grid_parts<double>() {
    return {0.0,  1e-310,     1e-300, 1e-20,      1e-8,  1e-3,  0.1,    0.5,
            0.9,  0.99999999, 1.0,    1.00000001, 1.5,   2.0,   3.7,    10.0,
            30.0, 700.0,      1e5,    1e20,       1e150, 1e300, 1.7e308};
}
/// Every grid part with both signs (so both signs of zero).
template <class T>
std::vector<T> signed_grid() {
    std::vector<T> out;
    for (T v : grid_parts<T>()) {
        out.push_back(v);
        out.push_back(-v);
    }
    return out;
}

template <class T>
struct Unary {
    typedef typename Ref<T>::type R;
    const char* name;
    PC<T> (*ours)(PC<T>);
    std::complex<R> (*ref)(std::complex<R>);
};

#define PYCUDA_UNARY(f)                                                                            \
    Unary<T> {                                                                                     \
#f, [](PC <T> z) { return pycuda::f(z); }, [](std::complex <typename Ref <T>::type>        \
                                                          z) { return std::f(z); }                 \
    }

template <class T>
std::vector<Unary<T>> unary_functions() {
    return {PYCUDA_UNARY(exp),  PYCUDA_UNARY(log),   PYCUDA_UNARY(log10), PYCUDA_UNARY(sqrt),
            PYCUDA_UNARY(sin),  PYCUDA_UNARY(cos),   PYCUDA_UNARY(tan),   PYCUDA_UNARY(sinh),
            PYCUDA_UNARY(cosh), PYCUDA_UNARY(tanh),  PYCUDA_UNARY(asin),  PYCUDA_UNARY(acos),
            PYCUDA_UNARY(atan), PYCUDA_UNARY(asinh), PYCUDA_UNARY(acosh), PYCUDA_UNARY(atanh),
            PYCUDA_UNARY(conj), PYCUDA_UNARY(proj)};
}

/// Compares one result; on the finite grid the error is norm-wise, elsewhere by class per part.
template <class T>
void compare(const char* what, const char* fn, T zr, T zi, PC<T> got,
             std::complex<typename Ref<T>::type> want, double tol, double& max_err) {
    T wr = static_cast<T>(want.real()), wi = static_cast<T>(want.imag());
    bool ok;
    double err = 0;
    if (std::isfinite(wr) && std::isfinite(wi)) {
        err = rel_error(got, want);
        ok = err <= tol;
        if (ok && err > max_err)
            max_err = err;
    } else {
        ok = part_matches(got.real(), want.real(), want.imag(), tol) &&
             part_matches(got.imag(), want.imag(), want.real(), tol);
    }
    if (!ok)
        report(what, fn, zr, zi, got, double(want.real()), double(want.imag()), err);
}

template <class T>
void check_unary_grid() {
    typedef typename Ref<T>::type R;
    for (const Unary<T>& f : unary_functions<T>()) {
        double max_err = 0;
        for (T x : signed_grid<T>())
            for (T y : signed_grid<T>())
                compare("grid", f.name, x, y, f.ours(PC<T>(x, y)), f.ref(std::complex<R>(x, y)),
                        Ref<T>::tol, max_err);
        std::printf("%-6s %-6s max rel error %.3g\n", type_name(T()), f.name, max_err);
    }
}

/// Infinities and NaNs: the class of each part as C99 Annex G (glibc) gives it.
template <class T>
void check_unary_special() {
    typedef typename Ref<T>::type R;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    const T parts[] = {T(0), -T(0), T(1), -T(1), T(2.5), -T(2.5), inf, -inf, nan};
    for (const Unary<T>& f : unary_functions<T>()) {
        double unused = 0;
        for (T x : parts)
            for (T y : parts) {
                if (std::isfinite(x) && std::isfinite(y))
                    continue;
                compare("special", f.name, x, y, f.ours(PC<T>(x, y)), f.ref(std::complex<R>(x, y)),
                        Ref<T>::tol, unused);
            }
    }
}

/// On the real line, on the cuts and on the axes the signs of zero parts must match C99.
template <class T>
void check_signed_zeros() {
    typedef typename Ref<T>::type R;
    for (const Unary<T>& f : unary_functions<T>())
        for (T x : signed_grid<T>())
            for (T y : signed_grid<T>()) {
                if (x != T(0) && y != T(0))
                    continue;
                PC<T> got = f.ours(PC<T>(x, y));
                std::complex<R> want = f.ref(std::complex<R>(x, y));
                bool bad = (want.real() == 0 && got.real() == 0 &&
                            std::signbit(got.real()) != std::signbit(want.real())) ||
                           (want.imag() == 0 && got.imag() == 0 &&
                            std::signbit(got.imag()) != std::signbit(want.imag()));
                if (bad)
                    report("zero-sign", f.name, x, y, got, double(want.real()), double(want.imag()),
                           0.0);
            }
}

template <class T>
void check_real_valued() {
    typedef typename Ref<T>::type R;
    double e_abs = 0, e_arg = 0, e_norm = 0;
    for (T x : signed_grid<T>())
        for (T y : signed_grid<T>()) {
            PC<T> z(x, y);
            std::complex<R> w(x, y);
            compare("grid", "abs", x, y, PC<T>(pycuda::abs(z)), std::complex<R>(std::abs(w)),
                    Ref<T>::tol, e_abs);
            compare("grid", "arg", x, y, PC<T>(pycuda::arg(z)), std::complex<R>(std::arg(w)),
                    Ref<T>::tol, e_arg);
            compare("grid", "norm", x, y, PC<T>(pycuda::norm(z)), std::complex<R>(std::norm(w)),
                    Ref<T>::tol, e_norm);
            // polar(abs z, arg z) gives z back
            if (std::abs(w) < R(std::numeric_limits<T>::max()) &&
                std::abs(w) > R(std::numeric_limits<T>::min())) {
                double e = 0;
                compare("grid", "polar", x, y, pycuda::polar(T(std::abs(w)), T(std::arg(w))),
                        std::polar(R(T(std::abs(w))), R(T(std::arg(w)))), Ref<T>::tol, e);
            }
        }
    std::printf("%-6s abs/arg/norm max rel error %.3g %.3g %.3g\n", type_name(T()), e_abs, e_arg,
                e_norm);
}

template <class T>
void check_exact(const char* what, PC<T> got, PC<T> want) {
    if (!(got.real() == want.real() && got.imag() == want.imag()))
        report(what, "exact", T(0), T(0), got, double(want.real()), double(want.imag()), 0.0);
}
template <class T>
void check_close(const char* what, PC<T> got, std::complex<double> want) {
    double unused = 0;
    compare<T>(what, "close", T(0), T(0), got, want, Ref<T>::tol, unused);
}
template <class T>
void check_true(const char* what, bool ok) {
    if (!ok)
        report(what, "true", T(0), T(0), PC<T>(), 0.0, 0.0, 0.0);
}

/// Moderate parts for powers, so that the results stay finite.
template <class T>
std::vector<T> pow_parts() {
    return {T(0), -T(0), T(0.3), -T(0.3), T(1), -T(1), T(1.7), -T(1.7), T(3.5), -T(3.5)};
}

template <class T>
void check_pow() {
    typedef typename Ref<T>::type R;
    const T ints[] = {T(0), T(1), T(2), T(3), T(5), T(-1), T(-2), T(-3), T(-7), T(13), T(-17)};
    const T reals[] = {T(-2.5), T(-1), T(-0.5), T(0.5), T(1), T(2), T(3.3)};
    double e_cc = 0, e_cr = 0, e_rc = 0, e_ci = 0;
    for (T x : pow_parts<T>())
        for (T y : pow_parts<T>()) {
            PC<T> z(x, y);
            std::complex<R> zr(x, y);
            bool zero = x == T(0) && y == T(0); // std's 0^w is always 0; ours is numpy's rule
            for (T u : pow_parts<T>())
                for (T v : pow_parts<T>())
                    if (!zero)
                        compare("pow", "pow(z,w)", x, y, pycuda::pow(z, PC<T>(u, v)),
                                std::pow(zr, std::complex<R>(u, v)), Ref<T>::tol, e_cc);
            for (T r : reals) {
                if (!zero)
                    compare("pow", "pow(z,x)", x, y, pycuda::pow(z, r), std::pow(zr, R(r)),
                            Ref<T>::tol, e_cr);
                compare("pow", "pow(x,w)", r, T(0), pycuda::pow(r, z), std::pow(R(r), zr),
                        Ref<T>::tol, e_rc);
            }
            for (T n : ints)
                if (!zero)
                    compare("pow", "pow(z,n)", x, y, pycuda::pow(z, int(n)), std::pow(zr, R(n)),
                            4 * Ref<T>::tol, e_ci);
        }
    std::printf("%-6s pow cc/cr/rc/ci max rel error %.3g %.3g %.3g %.3g\n", type_name(T()), e_cc,
                e_cr, e_rc, e_ci);

    typedef PC<T> C;
    // integer powers multiply exactly; z^0 = 1; 0^w as numpy: 1, 0 or NaN
    check_exact("(1+i)^2", pycuda::pow(C(1, 1), 2), C(0, 2));
    check_exact("(1+2i)^3u", pycuda::pow(C(1, 2), 3u), C(-11, -2));
    check_exact("(1+i)^-2L", pycuda::pow(C(1, 1), -2L), C(0, -0.5));
    check_exact("(2+3i)^0", pycuda::pow(C(2, 3), 0), C(1, 0));
    check_exact("0^0", pycuda::pow(C(0, 0), C(0, 0)), C(1, 0));
    check_exact("0^(2+i)", pycuda::pow(C(0, 0), C(2, 1)), C(0, 0));
    check_exact("0^2.5", pycuda::pow(C(0, 0), T(2.5)), C(0, 0));
    check_exact("0^3", pycuda::pow(C(0, 0), 3), C(0, 0));
    check_true<T>("0^-1 is NaN", pycuda::isnan(pycuda::pow(C(0, 0), -1)));
    check_true<T>("0^(-1+i) is NaN", pycuda::isnan(pycuda::pow(C(0, 0), C(-1, 1))));
    check_true<T>("0^-0.5 is NaN", pycuda::isnan(pycuda::pow(C(0, 0), T(-0.5))));
    check_exact("4^0.5 real", pycuda::pow(C(4, 0), T(0.5)), C(2, 0));
    check_close<T>("(-8)^(1/3)", pycuda::pow(C(-8, 0), T(1) / T(3)),
                   std::pow(std::complex<double>(-8, 0), 1.0 / 3.0));
    check_close<T>("2^(i)", pycuda::pow(T(2), C(0, 1)), std::pow(2.0, std::complex<double>(0, 1)));
}

template <class T>
void check_arithmetic() {
    typedef PC<T> C;
    const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
    C a(1, 2), b(3, 4);
    check_exact("a+b", a + b, C(4, 6));
    check_exact("a-b", a - b, C(-2, -2));
    check_exact("a*b", a * b, C(-5, 10));
    check_close<T>("a/b", a / b, std::complex<double>(11.0 / 25, 2.0 / 25));
    check_exact("a+1", a + 1, C(2, 2));
    check_exact("1+a", 1 + a, C(2, 2));
    check_exact("a-1u", a - 1u, C(0, 2));
    check_exact("1-a", 1 - a, C(0, -2));
    check_exact("a*2", a * 2, C(2, 4));
    check_exact("2L*a", 2L * a, C(2, 4));
    check_exact("a*2.5", a * 2.5, C(2.5, 5));
    check_exact("2.5f*a", 2.5f * a, C(2.5, 5));
    check_exact("a/2", a / 2, C(0.5, 1));
    check_close<T>("2/a", 2 / a, std::complex<double>(0.4, -0.8));
    check_exact("T/a", T(5) / C(3, 4), C(T(0.6), T(-0.8)) * T(1));
    check_exact("-a", -a, C(-1, -2));
    check_exact("+a", +a, a);
    C c = a;
    c += b;
    check_exact("+=", c, C(4, 6));
    c -= 1;
    check_exact("-= 1", c, C(3, 6));
    c *= 2;
    check_exact("*= 2", c, C(6, 12));
    c /= T(3);
    check_exact("/= 3", c, C(2, 4));
    c *= b;
    check_exact("*= b", c, C(-10, 20));
    c /= b;
    check_close<T>("/= b", c, std::complex<double>(2, 4));
    c -= C(2, 4);
    c += 1.5;
    check_true<T>("-= then += 1.5",
                  std::fabs(c.real() - T(1.5)) < T(1e-5) && std::fabs(c.imag()) < T(1e-5));
    c = 5;
    check_exact("= 5", c, C(5, 0));
    c = PC<float>(1.5f, -2.5f);
    check_exact("= complex<float>", c, C(1.5, -2.5));
    check_true<T>("==", C(3, 0) == 3 && 3 == C(3, 0) && a == C(1, 2) && C(3, 0) == C(3, 0));
    check_true<T>("!=", C(3, 1) != 3 && 3 != C(3, 1) && a != b && !(a != a));
    C from_int = 7;
    check_exact("from int", from_int, C(7, 0));
    check_exact("from ints", C(1, 2), C(T(1), T(2)));
    check_exact("default", C(), C(0, 0));
    C parts;
    parts.real(5);
    parts.imag(-1);
    check_exact("real()/imag() setters", parts, C(5, -1));
    check_true<T>("real/imag free", pycuda::real(a) == 1 && pycuda::imag(a) == 2 &&
                                        pycuda::real(T(2)) == 2 && pycuda::imag(T(2)) == 0);
    // float widens implicitly and narrows explicitly; mixed operands widen
    PC<double> wide = PC<float>(1.5f, 2.5f);
    check_true<T>("widen", wide.real() == 1.5 && wide.imag() == 2.5);
    PC<float> narrow(PC<double>(0.1, 0.2));
    check_true<T>("narrow", narrow.real() == 0.1f && narrow.imag() == 0.2f);
    static_assert(std::is_convertible<PC<float>, PC<double>>::value, "float widens implicitly");
    static_assert(!std::is_convertible<PC<double>, PC<float>>::value, "double narrows explicitly");
    static_assert(std::is_same<decltype(PC<float>() * PC<double>()), PC<double>>::value,
                  "mixed operands widen");
    static_assert(std::is_same<decltype(PC<float>() * 2.0), PC<float>>::value,
                  "a double scalar keeps complex<float>");
    // Smith's division: neither huge nor tiny operands overflow or underflow
    const T big = std::numeric_limits<T>::max() / 2, small = std::numeric_limits<T>::min() * 4;
    check_close<T>("big/big", C(big, big) / C(big, -big), std::complex<double>(0, 1));
    check_close<T>("small/small", C(small, small) / C(small, -small), std::complex<double>(0, 1));
    check_close<T>("1/big", T(1) / C(big, 0), std::complex<double>(1 / double(big), 0));
    C q = C(1, 1) / C(0, 0);
    check_true<T>("x/0 is infinite", std::isinf(q.real()) && std::isinf(q.imag()));
    // volatile operands (warp-synchronous reductions)
    volatile C v;
    v = a;
    v = v + b;
    C r = v;
    check_exact("volatile", r, C(4, 6));
    v = 3;
    check_true<T>("volatile = T", v.real() == 3 && v.imag() == 0);
    // classification
    check_true<T>("isnan",
                  pycuda::isnan(C(nan, 0)) && pycuda::isnan(C(0, nan)) && !pycuda::isnan(a));
    check_true<T>("isinf",
                  pycuda::isinf(C(inf, nan)) && pycuda::isinf(C(0, -inf)) && !pycuda::isinf(a));
    check_true<T>("isfinite", pycuda::isfinite(a) && !pycuda::isfinite(C(nan, 0)) &&
                                  !pycuda::isfinite(C(1, inf)));
    check_exact("proj", pycuda::proj(C(-inf, -2)), C(inf, -T(0)));
}

void check_layout() {
    static_assert(sizeof(PC<float>) == 8 && alignof(PC<float>) == 8, "complex<float> is a float2");
    static_assert(sizeof(PC<double>) == 16 && alignof(PC<double>) == 16,
                  "complex<double> is a double2");
    static_assert(std::is_trivially_copyable<PC<float>>::value &&
                      std::is_trivially_copyable<PC<double>>::value,
                  "trivially copyable");
    static_assert(std::is_standard_layout<PC<double>>::value, "standard layout");
    static_assert(offsetof(PC<double>, _M_im) == sizeof(double), "real part first");
    static_assert(pycuda::is_complex<pycuda::complex64>::value &&
                      pycuda::is_complex<pycuda::complex128>::value &&
                      !pycuda::is_complex<float>::value,
                  "is_complex");
    static_assert(std::is_same<pycuda::real_type<PC<float>>::type, float>::value &&
                      std::is_same<pycuda::real_type<double>::type, double>::value,
                  "real_type");
    std::complex<double> s[2] = {{1, 2}, {3, 4}};
    const PC<double>* p = reinterpret_cast<const PC<double>*>(s); // numpy's complex128 layout
    check_true<double>("layout", p[1].real() == 3 && p[1].imag() == 4);
}

} // namespace

int main() {
    check_layout();
    check_unary_grid<float>();
    check_unary_grid<double>();
    check_unary_special<float>();
    check_unary_special<double>();
    check_signed_zeros<float>();
    check_signed_zeros<double>();
    check_real_valued<float>();
    check_real_valued<double>();
    check_pow<float>();
    check_pow<double>();
    check_arithmetic<float>();
    check_arithmetic<double>();
    if (failures) {
        std::printf("%d FAILURES\n", failures);
        return 1;
    }
    std::printf("ALL OK\n");
    return 0;
}
