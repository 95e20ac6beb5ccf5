//! Random sampling: the global generator (`manual_seed`), `rand`, `randn`, and the in-place
//! `normal_` and `uniform_`.

use super::creation::sampled;
use crate::autograd::{is_recording, record};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use parking_lot::Mutex;

/// PyTorch's default seed, so a fresh process draws a fixed sequence.
const DEFAULT_SEED: u64 = 67280421310721;

/// xoshiro256++ seeded through SplitMix64: small, fast, and good enough for initialisation.
pub struct Generator {
    s: [u64; 4],
}

impl Generator {
    /// A generator whose stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Generator {
            s: [next(), next(), next(), next()],
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = (s[0].wrapping_add(s[3])).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// Uniform in `[0, 1)`.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Standard normal (Box–Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

static GENERATOR: Mutex<Option<Generator>> = Mutex::new(None);

/// Runs `f` with the process-wide generator.
pub fn with_generator<R>(f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut guard = GENERATOR.lock();
    f(guard.get_or_insert_with(|| Generator::new(DEFAULT_SEED)))
}

/// Reseeds the process-wide generator (`torch.manual_seed`).
pub fn manual_seed(seed: u64) {
    *GENERATOR.lock() = Some(Generator::new(seed));
}

fn float_only(dtype: DType, what: &str) -> Result<()> {
    if !dtype.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"{what}\" not implemented for '{}'",
            dtype.scalar_name()
        )));
    }
    Ok(())
}

impl Tensor {
    /// Fills with samples from `sample()` (random in-place ops); history, if any, gets a zero gradient.
    pub(crate) fn fill_random_(
        &self,
        name: &'static str,
        node: &'static str,
        sample: impl FnMut() -> f64,
    ) -> Result<()> {
        self.apply_inplace(name, &[], |x| {
            let out = sampled(x.shape(), x.dtype(), sample)?;
            if !is_recording(&[x]) {
                return Ok(out);
            }
            Ok(record(out, node, &[x], &[], |ctx| {
                Ok(vec![Some(ctx.grad(0).zeros_like())])
            }))
        })
    }

    /// Uniform samples in `[0, 1)`.
    pub fn rand(shape: &[usize], dtype: DType) -> Result<Tensor> {
        float_only(dtype, "check_uniform_bounds")?;
        with_generator(|g| sampled(shape, dtype, || g.uniform()))
    }

    /// Standard normal samples.
    pub fn randn(shape: &[usize], dtype: DType) -> Result<Tensor> {
        float_only(dtype, "normal_kernel_cpu")?;
        with_generator(|g| sampled(shape, dtype, || g.normal()))
    }

    /// Fills in place with normal samples of mean `mean` and standard deviation `std`.
    pub fn normal_(&self, mean: f64, std: f64) -> Result<()> {
        if std.is_nan() || std < 0.0 {
            return Err(Error::runtime(format!(
                "normal expects std >= 0.0, but found std {std}"
            )));
        }
        float_only(self.dtype(), "normal_kernel_cpu")?;
        with_generator(|g| {
            self.fill_random_("normal_", "NormalBackward0", || mean + std * g.normal())
        })
    }

    /// Fills in place with uniform samples in `[from, to)`.
    pub fn uniform_(&self, from: f64, to: f64) -> Result<()> {
        if from > to {
            return Err(Error::runtime(format!(
                "uniform_ expects to return a [from, to) range, but found from={from} > to={to}"
            )));
        }
        float_only(self.dtype(), "check_uniform_bounds")?;
        let limit = if self.dtype() == DType::Float32 {
            f32::MAX as f64
        } else {
            f64::MAX
        };
        for (name, v) in [("from", from), ("to", to)] {
            if v.is_nan() || v.abs() > limit {
                return Err(Error::runtime(format!(
                    "{name} is out of bounds for {} (uniform_ got {v})",
                    self.dtype().scalar_name().to_lowercase()
                )));
            }
        }
        with_generator(|g| {
            self.fill_random_("uniform_", "UniformBackward0", || {
                from + (to - from) * g.uniform()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeded_streams_repeat_and_look_normal() {
        manual_seed(3);
        let a = Tensor::randn(&[1000], DType::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        manual_seed(3);
        let b = Tensor::randn(&[1000], DType::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(a, b);
        let mean = a.iter().sum::<f64>() / 1000.0;
        let var = a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 1000.0;
        assert!(
            mean.abs() < 0.1 && (var - 1.0).abs() < 0.15,
            "mean {mean} var {var}"
        );
    }

    #[test]
    fn linspace_and_arange() {
        let l = Tensor::linspace(0.0, 1.0, 5, DType::Float64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(l, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
        let a = Tensor::arange(0.0, 5.0, 2.0, DType::Int64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap();
        assert_eq!(a, vec![0, 2, 4]);
    }
}
