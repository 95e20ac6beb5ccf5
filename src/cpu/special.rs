//! Special functions of one real argument: `digamma`, `trigamma` and `polygamma` (through the
//! Hurwitz zeta function) and `lgamma`. Each follows the algorithm of PyTorch's CPU kernels
//! (Cephes' recurrences and asymptotic series), in the element's own precision where PyTorch
//! computes in it, so values near the poles round as PyTorch's do: `trigamma(-1.0f32)` is
//! `π² / sin²(π·x)` with `sin` of a float32 argument, about `1.3e15`, not `inf`.

// Series coefficients are kept as published.
#![allow(clippy::excessive_precision)]

use crate::core::dtype::{DType, Element};

/// `ln |Γ(x)|`; `+inf` at the poles (0 and the negative integers), as PyTorch gives.
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// Runs `single` for a float32 element and `double` otherwise (PyTorch computes these
/// functions in the element's precision).
fn in_own_precision<T: Element>(v: T, single: fn(f32) -> f32, double: fn(f64) -> f64) -> T {
    if T::DTYPE == DType::Float32 {
        T::from_f64(f64::from(single(v.to_f64() as f32)))
    } else {
        T::from_f64(double(v.to_f64()))
    }
}

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)`: `∓inf` at `±0`, NaN at the negative integers and
/// at `-inf`, as PyTorch.
pub fn digamma<T: Element>(v: T) -> T {
    in_own_precision(v, digamma_f32, digamma_f64)
}

/// The trigamma function `ψ'(x)`, PyTorch's `polygamma(1, x)`.
pub fn trigamma<T: Element>(v: T) -> T {
    in_own_precision(v, trigamma_f32, trigamma_f64)
}

/// Defines `digamma_$t` and `trigamma_$t` for one float type.
macro_rules! gamma_derivatives {
    ($t:ident, $digamma:ident, $trigamma:ident) => {
        fn $digamma(x: $t) -> $t {
            const PSI_10: $t = 2.25175258906672110764;
            // ψ(x) ~ ln x - 1/(2x) - z·P(z), z = 1/x², P's coefficients highest degree first
            const A: [$t; 7] = [
                8.33333333333333333333E-2,
                -2.10927960927960927961E-2,
                7.57575757575757575758E-3,
                -4.16666666666666666667E-3,
                3.96825396825396825397E-3,
                -8.33333333333333333333E-3,
                8.33333333333333333333E-2,
            ];
            if x == 0.0 {
                return (-x).signum() * <$t>::INFINITY;
            }
            if x < 0.0 {
                if x == x.trunc() {
                    return <$t>::NAN;
                }
                // reflection ψ(x) = ψ(1 - x) - π / tan(πr), r the (signed) fractional part,
                // evaluated in float64 as PyTorch does
                let r = f64::from(x.fract());
                let pi_over_tan = (std::f64::consts::PI / (std::f64::consts::PI * r).tan()) as $t;
                return $digamma(1.0 - x) - pi_over_tan;
            }
            let mut x = x;
            let mut result: $t = 0.0;
            while x < 10.0 {
                result -= 1.0 / x;
                x += 1.0;
            }
            if x == 10.0 {
                return result + PSI_10;
            }
            let mut y: $t = 0.0;
            if x < 1.0e17 {
                let z = 1.0 / (x * x);
                y = z * A.iter().fold(0.0, |acc, &c| acc * z + c);
            }
            result + x.ln() - 0.5 / x - y
        }

        fn $trigamma(x: $t) -> $t {
            use std::$t::consts::PI;
            let mut x = x;
            let mut sign: $t = 1.0;
            let mut result: $t = 0.0;
            if x < 0.5 {
                // reflection ψ'(x) = π² / sin²(πx) - ψ'(1 - x)
                sign = -1.0;
                let sin_pi_x = (PI * x).sin();
                result -= (PI * PI) / (sin_pi_x * sin_pi_x);
                x = 1.0 - x;
            }
            for _ in 0..6 {
                result += 1.0 / (x * x);
                x += 1.0;
            }
            let ixx = 1.0 / (x * x);
            result += (1.0
                + 1.0 / (2.0 * x)
                + ixx * (1.0 / 6.0 - ixx * (1.0 / 30.0 - ixx * (1.0 / 42.0))))
                / x;
            sign * result
        }
    };
}

gamma_derivatives!(f32, digamma_f32, trigamma_f32);
gamma_derivatives!(f64, digamma_f64, trigamma_f64);

/// The Hurwitz zeta function `ζ(s, q) = Σ_{k≥0} (q + k)^-s` in float64 (Cephes' `zeta`, as
/// PyTorch): `+inf` at `s = 1` and when `q` is a pole (0, a negative integer, `-inf`), NaN
/// for `s < 1`. Arguments below `-2^20` give NaN (the direct sum would take that many terms).
pub fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    const MACHEP: f64 = 1.11022302462515654042E-16;
    // (2k)! / B_2k
    const A: [f64; 12] = [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ];
    if s == 1.0 {
        return f64::INFINITY;
    }
    if s < 1.0 {
        return f64::NAN;
    }
    if q <= 0.0 {
        if q == q.floor() {
            return f64::INFINITY;
        }
        if s != s.floor() || q < -1_048_576.0 {
            return f64::NAN;
        }
    }
    // direct terms until q + k > 9 and at least 9 of them, unless the sum has converged
    let mut sum = q.powf(-s);
    let mut a = q;
    let mut b = 0.0;
    let mut i = 0;
    while i < 9 || a <= 9.0 {
        i += 1;
        a += 1.0;
        b = a.powf(-s);
        sum += b;
        if -MACHEP * sum < b && b < MACHEP * sum {
            return sum;
        }
    }
    // Euler-Maclaurin tail
    let w = a;
    sum += b * w / (s - 1.0);
    sum -= 0.5 * b;
    let mut rising = 1.0;
    let mut k = 0.0;
    for coefficient in A {
        rising *= s + k;
        b /= w;
        let term = rising * b / coefficient;
        sum += term;
        if (term / sum).abs() < MACHEP {
            return sum;
        }
        k += 1.0;
        rising *= s + k;
        b /= w;
        k += 1.0;
    }
    sum
}

/// The polygamma function `ψ⁽ⁿ⁾(x)`, the n-th derivative of digamma: digamma and trigamma for
/// `n` 0 and 1, `(-1)^(n+1) n! ζ(n+1, x)` above.
pub fn polygamma<T: Element>(n: u32, x: T) -> T {
    match n {
        0 => digamma(x),
        1 => trigamma(x),
        _ => {
            let factorial = lgamma(f64::from(n) + 1.0).exp();
            let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
            T::from_f64(sign * factorial * hurwitz_zeta(f64::from(n) + 1.0, x.to_f64()))
        }
    }
}

/// The inverse error function: `erf(erfinv(x)) = x` on `(-1, 1)`, `±inf` at `±1`, NaN beyond.
/// Giles' approximation ("Approximating the erfinv function", 2010) as a first guess, then two
/// Newton steps on `erf`, which leave it within an ulp or two in float64.
pub fn erfinv(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    if x.abs() == 1.0 {
        return x * f64::INFINITY;
    }
    let w = -((1.0 - x) * (1.0 + x)).ln();
    let guess = if w < 5.0 {
        let w = w - 2.5;
        let p = [
            2.810_226_36e-08,
            3.432_739_39e-07,
            -3.523_387_7e-06,
            -4.391_506_54e-06,
            0.000_218_580_87,
            -0.001_253_725_03,
            -0.004_177_681_64,
            0.246_640_727,
            1.501_409_41,
        ];
        p.iter().fold(0.0, |acc, &c| acc * w + c)
    } else {
        let w = w.sqrt() - 3.0;
        let p = [
            -0.000_200_214_257,
            0.000_100_950_558,
            0.001_349_343_22,
            -0.003_673_428_44,
            0.005_739_507_73,
            -0.007_622_461_3,
            0.009_438_870_47,
            1.001_674_06,
            2.832_976_82,
        ];
        p.iter().fold(0.0, |acc, &c| acc * w + c)
    };
    let mut y = guess * x;
    for _ in 0..2 {
        let slope = std::f64::consts::FRAC_2_SQRT_PI * (-y * y).exp();
        y -= (libm::erf(y) - x) / slope;
    }
    y
}

/// The modified Bessel function of the first kind of order `nu` (0 or 1) at `x`, times
/// `e^{-|x|}` when `scaled` (`i0`, `i1`, `i0e`, `i1e`). Computed in `f64`: the power series
/// `(x/2)^ν Σ_k (x²/4)^k / (k! (k+ν)!)` (all terms positive, so no cancellation) up to
/// `|x| = 30`, beyond it the asymptotic series `e^|x| / √(2π|x|) · Σ_k (-1)^k a_k(ν) / |x|^k`,
/// whose terms still fall for the thirty it takes. `i1` is odd, `i0` even.
pub fn bessel_i(nu: u32, x: f64, scaled: bool) -> f64 {
    if x.is_nan() {
        return x;
    }
    let ax = x.abs();
    let odd = if nu == 1 && x < 0.0 { -1.0 } else { 1.0 };
    let value = if ax <= 30.0 {
        let (q, nu) = (ax * ax / 4.0, f64::from(nu));
        let mut term = if nu == 1.0 { ax / 2.0 } else { 1.0 };
        let mut sum = term;
        let mut k = 1.0;
        while term > sum * 1e-17 {
            term *= q / (k * (k + nu));
            sum += term;
            k += 1.0;
        }
        if scaled {
            sum * (-ax).exp()
        } else {
            sum
        }
    } else {
        let mu = 4.0 * f64::from(nu * nu);
        let (mut term, mut sum) = (1.0f64, 1.0f64);
        for j in 1..=30 {
            let odd_square = f64::from(2 * j - 1).powi(2);
            let next = term * -(mu - odd_square) / (f64::from(j) * 8.0 * ax);
            if next.abs() >= term.abs() || next == 0.0 {
                break;
            }
            term = next;
            sum += term;
        }
        let front = sum / (2.0 * std::f64::consts::PI * ax).sqrt();
        if scaled {
            front
        } else {
            // e^|x| in two halves: the product stays finite as long as the value does
            let half = (ax / 2.0).exp();
            half * front * half
        }
    };
    odd * value
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-13 * b.abs().max(1.0)
    }

    #[test]
    fn digamma_known_values() {
        const EULER: f64 = 0.577_215_664_901_532_9;
        assert!(close(digamma(1.0), -EULER));
        assert!(close(digamma(0.5), -EULER - 2.0 * std::f64::consts::LN_2));
        assert!(close(digamma(11.5), 2.398_239_129_535_781_4));
        assert!(close(digamma(-0.5), 0.036_489_973_978_576_52));
        assert_eq!(digamma(0.0), f64::NEG_INFINITY);
        assert!(digamma(-2.0f64).is_nan());
    }

    #[test]
    fn polygamma_known_values() {
        // ψ'(1) = π²/6, ψ''(1) = -2 ζ(3), ψ'(0.5) = π²/2; PyTorch's trigamma series stops at
        // x^-7 (relative error ~5e-10), and we give its values
        assert_eq!(polygamma(1, 1.0), 1.6449340676383375);
        assert_eq!(polygamma(1, -3.0), 7.311989052578831e+31);
        assert_eq!(polygamma(1, -1.0f32), 1291369695936512.0);
        assert!((polygamma(1, 1.0) - PI * PI / 6.0).abs() < 1e-9);
        assert!(close(polygamma(2, 1.0), -2.0 * 1.202_056_903_159_594_2));
        assert_eq!(polygamma(1, 0.5), 4.934802202073678);
        assert!((polygamma(1, 0.5) - PI * PI / 2.0).abs() < 1e-8);
        // at a pole PyTorch's reflection gives π² / sin²(πx) with the rounded sin: huge, finite
        assert!(polygamma(1, -3.0) > 1e30 && polygamma(1, -3.0f32) > 1e14);
        assert_eq!(polygamma(2, -3.0), f64::NEG_INFINITY);
        assert!(polygamma(2, f64::INFINITY).is_nan());
    }

    #[test]
    fn bessel_values() {
        // values of the series, the asymptotic side and the switch between them
        assert!(close(bessel_i(0, 1.0, false), 1.266_065_877_752_008_4));
        assert!(close(bessel_i(1, 1.0, false), 0.565_159_103_992_485_1));
        assert!(close(bessel_i(1, -1.0, false), -0.565_159_103_992_485_1));
        assert!(close(bessel_i(0, 2.5, true), 0.270_046_441_612_203));
        for nu in [0, 1] {
            // both sides of the switch at 30 agree with the slope there (about -1.2e-3)
            let (below, above) = (bessel_i(nu, 30.0, true), bessel_i(nu, 30.000_001, true));
            let step = (below - above) / 1e-6;
            assert!(
                (step - below / 60.0).abs() < 1e-4,
                "nu {nu}: {below} {above}"
            );
        }
        // PyTorch's float64 values
        assert!(close(bessel_i(0, 40.0, true), 0.063_278_279_875_235_32));
        assert_eq!(bessel_i(1, 0.0, false), 0.0);
        assert_eq!(bessel_i(0, 0.0, true), 1.0);
        assert_eq!(bessel_i(0, f64::INFINITY, true), 0.0);
        assert!(bessel_i(0, f64::NAN, false).is_nan());
    }
}
