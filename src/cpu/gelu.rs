//! Exact GELU over float32 slices, its slope and its gradient: the AVX2+FMA code of
//! [`crate::cpu::vmath_avx2`] where the CPU has it (`simd_level() >= 1`), else
//! [`crate::cpu::fastmath`]'s portable formulas element by element (the same formulas,
//! coefficient for coefficient).

use crate::cpu::fastmath::{normal_cdf_f32, FastMath};

/// Exact GELU over a float32 slice, `out = x·Φ(x)`.
pub fn gelu_slice(x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() >= 1 {
        // SAFETY: the CPU has AVX2 and FMA
        return unsafe { crate::cpu::vmath_avx2::gelu(x, out) };
    }
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v * normal_cdf_f32(v);
    }
}

/// Exact GELU's derivative over a float32 slice, `out = Φ(x) + x·φ(x)`.
pub fn gelu_slope_slice(x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() >= 1 {
        // SAFETY: the CPU has AVX2 and FMA
        return unsafe { crate::cpu::vmath_avx2::gelu_slope(x, out) };
    }
    for (o, &v) in out.iter_mut().zip(x) {
        *o = v.fast_normal_cdf() + v * v.fast_normal_pdf();
    }
}

/// Exact GELU's gradient over float32 slices, `out = g·(Φ(x) + x·φ(x))`.
pub fn gelu_grad_slice(g: &[f32], x: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() >= 1 {
        // SAFETY: the CPU has AVX2 and FMA
        return unsafe { crate::cpu::vmath_avx2::gelu_grad(g, x, out) };
    }
    for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
        *o = g * (v.fast_normal_cdf() + v * v.fast_normal_pdf());
    }
}
