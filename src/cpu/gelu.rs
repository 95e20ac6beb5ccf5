//! Exact GELU over float32 slices, its slope and its gradient: the vector code of
//! [`crate::cpu::vmath`] at the widest width the CPU has (AVX-512 at `simd_level() == 2`,
//! AVX2+FMA at 1), else [`crate::cpu::fastmath`]'s portable formulas element by element (the
//! same formulas, coefficient for coefficient).

use crate::cpu::fastmath::{normal_cdf_f32, FastMath};

/// `$portable` over the slices, or the `vmath` kernel `$avx512` or `$avx2` where the CPU has
/// its instructions.
macro_rules! widest {
    ($avx512:ident, $avx2:ident, ($a:expr, $b:expr, $out:expr), $portable:expr) => {{
        #[cfg(target_arch = "x86_64")]
        match crate::cpu::kernels::simd_level() {
            // SAFETY: the CPU has AVX-512 (level 2), AVX2 and FMA (level 1)
            2 => return unsafe { crate::cpu::vmath::$avx512($a, $b, $out) },
            1 => return unsafe { crate::cpu::vmath::$avx2($a, $b, $out) },
            _ => {}
        }
        $portable
    }};
}

/// Exact GELU over a float32 slice, `out = x·Φ(x)`.
pub fn gelu_slice(x: &[f32], out: &mut [f32]) {
    widest!(gelu_avx512, gelu_avx2, (x, x, out), {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = v * normal_cdf_f32(v);
        }
    })
}

/// Exact GELU's derivative over a float32 slice, `out = Φ(x) + x·φ(x)`.
pub fn gelu_slope_slice(x: &[f32], out: &mut [f32]) {
    widest!(gelu_slope_avx512, gelu_slope_avx2, (x, x, out), {
        for (o, &v) in out.iter_mut().zip(x) {
            *o = v.fast_normal_cdf() + v * v.fast_normal_pdf();
        }
    })
}

/// Exact GELU's gradient over float32 slices, `out = g·(Φ(x) + x·φ(x))`.
pub fn gelu_grad_slice(g: &[f32], x: &[f32], out: &mut [f32]) {
    widest!(gelu_grad_avx512, gelu_grad_avx2, (g, x, out), {
        for ((o, &g), &v) in out.iter_mut().zip(g).zip(x) {
            *o = g * (v.fast_normal_cdf() + v * v.fast_normal_pdf());
        }
    })
}
