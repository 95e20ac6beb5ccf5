//! Special functions of one real argument, in float64: `digamma`, `polygamma` (through the
//! Hurwitz zeta function) and `lgamma`. Each shifts its argument up by the recurrence until an
//! asymptotic series converges to float64 precision, as Cephes does.

// Bernoulli numbers and series coefficients are kept as published.
#![allow(clippy::excessive_precision)]

use std::f64::consts::PI;

/// `ln |Γ(x)|`; `+inf` at the poles (0 and the negative integers), as PyTorch gives.
pub fn lgamma(x: f64) -> f64 {
    libm::lgamma(x)
}

/// The digamma function `ψ(x) = Γ'(x)/Γ(x)`. Like PyTorch: `-inf` at 0 (`+inf` at -0.0 is not
/// made a case: both give `∓inf` by the sign of zero), NaN at the negative integers.
pub fn digamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if x == 0.0 {
        return if x.is_sign_negative() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    if x < 0.0 {
        if x == x.floor() {
            return f64::NAN;
        }
        // reflection: ψ(x) = ψ(1 - x) - π / tan(πx)
        let r = x - x.floor(); // tan(πx) computed from the fractional part keeps its accuracy
        return digamma(1.0 - x) - PI / (PI * r).tan();
    }
    let mut x = x;
    let mut acc = 0.0;
    while x < 10.0 {
        acc -= 1.0 / x;
        x += 1.0;
    }
    // ψ(x) ~ ln x - 1/(2x) - Σ B_2k / (2k x^2k)
    const B2K_OVER_2K: [f64; 7] = [
        1.0 / 12.0,
        -1.0 / 120.0,
        1.0 / 252.0,
        -1.0 / 240.0,
        1.0 / 132.0,
        -691.0 / 32760.0,
        1.0 / 12.0,
    ];
    let inv2 = 1.0 / (x * x);
    let mut series = 0.0;
    let mut power = inv2;
    for c in B2K_OVER_2K {
        series += c * power;
        power *= inv2;
    }
    acc + x.ln() - 0.5 / x - series
}

/// The Hurwitz zeta function `ζ(s, q) = Σ_{k≥0} (q + k)^-s` for integer `s >= 2` (what
/// `polygamma` needs); `+inf` when `q` is a pole (0 or a negative integer).
pub fn hurwitz_zeta(s: f64, q: f64) -> f64 {
    if q.is_nan() || s.is_nan() || q == f64::NEG_INFINITY {
        return f64::NAN;
    }
    if q == f64::INFINITY {
        return 0.0;
    }
    if q <= 0.0 && q == q.floor() {
        return f64::INFINITY;
    }
    // direct terms until q + k >= 20, then Euler-Maclaurin
    let mut q = q;
    let mut acc = 0.0;
    while q < 20.0 {
        acc += q.powf(-s);
        q += 1.0;
    }
    // ζ(s, q) ~ q^(1-s)/(s-1) + q^-s/2 + Σ B_2k/(2k)! · s(s+1)…(s+2k-2) · q^(-s-2k+1)
    const B2K: [f64; 8] = [
        1.0 / 6.0,
        -1.0 / 30.0,
        1.0 / 42.0,
        -1.0 / 30.0,
        5.0 / 66.0,
        -691.0 / 2730.0,
        7.0 / 6.0,
        -3617.0 / 510.0,
    ];
    let mut tail = q.powf(1.0 - s) / (s - 1.0) + 0.5 * q.powf(-s);
    let mut rising = s; // s (s+1) … (s+2k-2)
    let mut factorial = 2.0; // (2k)!
    let mut power = q.powf(-s - 1.0); // q^(-s-2k+1)
    for (k, b) in B2K.iter().enumerate() {
        let k = k as f64 + 1.0;
        tail += b / factorial * rising * power;
        rising *= (s + 2.0 * k - 1.0) * (s + 2.0 * k);
        factorial *= (2.0 * k + 1.0) * (2.0 * k + 2.0);
        power /= q * q;
    }
    acc + tail
}

/// The polygamma function `ψ⁽ⁿ⁾(x)`, the n-th derivative of digamma (`n = 0` is digamma).
pub fn polygamma(n: u32, x: f64) -> f64 {
    if n == 0 {
        return digamma(x);
    }
    // ψ⁽ⁿ⁾(x) = (-1)^(n+1) n! ζ(n+1, x)
    let factorial: f64 = (1..=n).map(f64::from).product();
    let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
    sign * factorial * hurwitz_zeta(f64::from(n) + 1.0, x)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(digamma(-2.0).is_nan());
    }

    #[test]
    fn polygamma_known_values() {
        // ψ'(1) = π²/6, ψ''(1) = -2 ζ(3), ψ'(0.5) = π²/2
        assert!(close(polygamma(1, 1.0), PI * PI / 6.0));
        assert!(close(polygamma(2, 1.0), -2.0 * 1.202_056_903_159_594_2));
        assert!(close(polygamma(1, 0.5), PI * PI / 2.0));
        assert_eq!(polygamma(1, -3.0), f64::INFINITY);
    }
}
