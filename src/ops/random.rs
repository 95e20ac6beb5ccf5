//! Random sampling: the global generator (`manual_seed`, PyTorch's Mersenne Twister), `rand`,
//! `randn`, and the in-place `normal_` and `uniform_`, drawing as PyTorch's CPU kernels do.

use super::creation::sampled;
use crate::autograd::{is_recording, record};
use crate::core::buffer::BufferElement;
use crate::core::dtype::DType;
use crate::core::dtype::Element;
use crate::core::error::{Error, Result};
use crate::core::profiler::Range;
use crate::core::tensor::Tensor;
use crate::cpu::boxmuller;
use crate::with_any;
use parking_lot::Mutex;
use std::sync::{Arc, LazyLock};

/// PyTorch's default seed, so a fresh process draws a fixed sequence.
const DEFAULT_SEED: u64 = 67280421310721;

/// The Mersenne Twister state size.
const MT_N: usize = 624;

/// PyTorch's CPU generator: a 32-bit Mersenne Twister (MT19937) seeded with the low 32 bits of
/// the seed, drawn from exactly as PyTorch's distributions draw (one 32-bit number for a
/// float32 uniform, two for a float64 one, Box-Muller normals with the second value kept), so
/// `manual_seed(s)` followed by `rand`, `randn`, `normal_` or `uniform_` gives PyTorch's
/// numbers.
#[derive(Clone)]
pub struct Generator {
    /// The seed the stream started from (`initial_seed()`).
    seed: u64,
    state: [u32; MT_N],
    next: usize,
    /// The second value of the last float64 Box-Muller pair, used by the next normal draw.
    next_double_normal: Option<f64>,
}

impl Generator {
    /// A generator whose stream is fixed by `seed`.
    pub fn new(seed: u64) -> Self {
        let mut state = [0u32; MT_N];
        state[0] = seed as u32;
        for j in 1..MT_N {
            let prev = state[j - 1];
            state[j] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(j as u32);
        }
        Generator {
            seed,
            state,
            next: MT_N,
            next_double_normal: None,
        }
    }

    /// The seed this stream started from.
    pub fn initial_seed(&self) -> u64 {
        self.seed
    }

    /// The whole state as numbers (seed, position, cached normal, the 624 words), for
    /// `get_state`; [`Generator::from_state`] is its inverse.
    pub fn state(&self) -> Vec<i64> {
        let mut out = vec![
            self.seed as i64,
            self.next as i64,
            self.next_double_normal.map_or(0, |_| 1),
            self.next_double_normal.map_or(0, |v| v.to_bits() as i64),
        ];
        out.extend(self.state.iter().map(|&w| i64::from(w)));
        out
    }

    /// A generator restored from [`Generator::state`]'s numbers.
    pub fn from_state(words: &[i64]) -> Result<Generator> {
        if words.len() != 4 + MT_N || !(0..=MT_N as i64).contains(&words[1]) {
            return Err(Error::runtime(format!(
                "Expected a generator state of {} numbers (from get_state()), got {}",
                4 + MT_N,
                words.len()
            )));
        }
        let mut state = [0u32; MT_N];
        for (s, &w) in state.iter_mut().zip(&words[4..]) {
            *s = w as u32;
        }
        Ok(Generator {
            seed: words[0] as u64,
            state,
            next: words[1] as usize,
            next_double_normal: (words[2] != 0).then(|| f64::from_bits(words[3] as u64)),
        })
    }

    /// The next 32 random bits (MT19937's tempered output).
    pub fn next_u32(&mut self) -> u32 {
        if self.next >= MT_N {
            self.twist();
        }
        let mut y = self.state[self.next];
        self.next += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    fn twist(&mut self) {
        for i in 0..MT_N {
            let y = (self.state[i] & 0x8000_0000) | (self.state[(i + 1) % MT_N] & 0x7fff_ffff);
            let mut v = self.state[(i + 397) % MT_N] ^ (y >> 1);
            if y & 1 != 0 {
                v ^= 0x9908_b0df;
            }
            self.state[i] = v;
        }
        self.next = 0;
    }

    /// The next 64 random bits: two 32-bit draws, the first one high (PyTorch's `random64`).
    pub fn next_u64(&mut self) -> u64 {
        let high = self.next_u32() as u64;
        (high << 32) | self.next_u32() as u64
    }

    /// A float32 uniform in `[0, 1)`: 24 random bits of one draw.
    pub fn uniform_f32(&mut self) -> f32 {
        (self.next_u32() & 0x00ff_ffff) as f32 * (1.0 / (1u32 << 24) as f32)
    }

    /// A float64 uniform in `[0, 1)`: 53 random bits of two draws.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() & ((1u64 << 53) - 1)) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A standard normal in float64 (PyTorch's `normal_distribution<double>`: Box-Muller on two
    /// uniforms, the sine value kept for the next call).
    pub fn normal(&mut self) -> f64 {
        if let Some(v) = self.next_double_normal.take() {
            return v;
        }
        let u1 = self.uniform();
        let u2 = self.uniform();
        let r = (-2.0 * (-u2).ln_1p()).sqrt();
        let theta = 2.0 * std::f64::consts::PI * u1;
        self.next_double_normal = Some(r * theta.sin());
        r * theta.cos()
    }

    /// An integer in `[0, range)`: one 32-bit draw modulo `range`, or a 64-bit draw when the
    /// range needs more bits (PyTorch's `random_from_to`).
    pub fn below(&mut self, range: u64) -> u64 {
        if range >= 1 << 32 {
            self.next_u64() % range
        } else {
            u64::from(self.next_u32()) % range
        }
    }

    /// Uniforms in `[from, to)` of `dtype`, one per element in order (PyTorch's
    /// `uniform_real_distribution`: `x * (to - from) + from` in the element type, one rounding
    /// as its compiled kernel's fused multiply-add).
    fn uniforms(&mut self, n: usize, dtype: DType, from: f64, to: f64) -> Vec<f64> {
        match dtype {
            DType::Float32 => {
                let (from, to) = (from as f32, to as f32);
                (0..n)
                    .map(|_| f64::from(self.uniform_f32().mul_add(to - from, from)))
                    .collect()
            }
            _ => (0..n)
                .map(|_| self.uniform().mul_add(to - from, from))
                .collect(),
        }
    }

    /// Normal samples of `dtype` as PyTorch's `normal_` makes them: from 16 elements on, all
    /// uniforms first, then Box-Muller over each block of 16 (pairing element `j` with `j + 8`)
    /// in the element type (float32 with the log and sincos of PyTorch's x86-64 kernel), a partial last block recomputed from 16 fresh uniforms over the last
    /// 16 elements; fewer than 16 elements (or a tensor that is not `dense`), one float64
    /// normal each.
    fn normals(&mut self, n: usize, dtype: DType, mean: f64, std: f64, dense: bool) -> Vec<f64> {
        if n < 16 || !dense {
            return (0..n).map(|_| self.normal() * std + mean).collect();
        }
        macro_rules! fill {
            ($T:ty, $uniform:ident, $ln:expr, $sin_cos:expr) => {{
                let (mean, std) = (mean as $T, std as $T);
                let mut data: Vec<$T> = (0..n).map(|_| self.$uniform() as $T).collect();
                // a ragged end redraws the last 16 from the next uniforms, as PyTorch does
                let tail: Option<[$T; 16]> =
                    (n % 16 != 0).then(|| std::array::from_fn(|_| self.$uniform() as $T));
                /// Box-Muller on one block of 16 uniforms: pairs `(j, j + 8)`.
                #[inline(always)]
                fn block(d: &mut [$T], mean: $T, std: $T) {
                    for j in 0..8 {
                        let u1 = 1.0 - d[j];
                        let u2 = d[j + 8];
                        let radius = (-2.0 * $ln(u1)).sqrt();
                        let theta = (2.0 * std::f64::consts::PI) as $T * u2;
                        let (sin, cos): ($T, $T) = $sin_cos(theta);
                        d[j] = (radius * cos).mul_add(std, mean);
                        d[j + 8] = (radius * sin).mul_add(std, mean);
                    }
                }
                // compiled for wide vectors with FMA: each `mul_add` one instruction (the same
                // correctly rounded result as the library call it is otherwise)
                crate::cpu::kernels::wide(
                    #[inline(always)]
                    || {
                        let mut i = 0;
                        while i + 16 <= n {
                            block(&mut data[i..i + 16], mean, std);
                            i += 16;
                        }
                        if let Some(mut last) = tail {
                            block(&mut last, mean, std);
                            data[n - 16..].copy_from_slice(&last);
                        }
                    },
                );
                data.into_iter().map(|v| v as f64).collect()
            }};
        }
        // float32 with PyTorch's x86-64 kernel's own log and sincos (`cpu::boxmuller`), float64
        // with the correctly rounded functions, as its scalar kernel
        match dtype {
            DType::Float32 => fill!(f32, uniform_f32, boxmuller::log_f32, boxmuller::sin_cos_f32),
            _ => fill!(f64, uniform, f64::ln, f64::sin_cos),
        }
    }
}

/// A generator shared by handles (`torch.Generator` objects and the default generator).
pub type SharedGenerator = Arc<Mutex<Generator>>;

static DEFAULT_GENERATOR: LazyLock<SharedGenerator> =
    LazyLock::new(|| Arc::new(Mutex::new(Generator::new(DEFAULT_SEED))));

/// The process-wide generator (`torch.default_generator`).
pub fn default_generator() -> &'static SharedGenerator {
    &DEFAULT_GENERATOR
}

/// Runs `f` with `gen`, or with the process-wide generator when `gen` is `None`.
pub fn with_generator<R>(gen: Option<&SharedGenerator>, f: impl FnOnce(&mut Generator) -> R) -> R {
    let mut guard = gen.unwrap_or(&DEFAULT_GENERATOR).lock();
    f(&mut guard)
}

/// Reseeds the process-wide generator (`torch.manual_seed`).
pub fn manual_seed(seed: u64) {
    *DEFAULT_GENERATOR.lock() = Generator::new(seed);
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

/// A random factory's tensor made as PyTorch makes it: allocated (the profiler's nested
/// `aten::empty` event), then filled with the `draw(numel)` samples (the `fill` event,
/// `aten::normal_` for `randn`).
fn drawn_factory(
    shape: &[usize],
    dtype: DType,
    fill: &'static str,
    draw: impl FnOnce(usize) -> Vec<f64>,
) -> Result<Tensor> {
    let n = crate::core::storage::check_allocation(shape, dtype)?;
    with_any!(dtype, T => {
        let mut data = {
            let _event = Range::new(|| "aten::empty".into());
            vec![T::default(); n]
        };
        let _event = Range::new(|| fill.into());
        for (element, v) in data.iter_mut().zip(draw(n)) {
            *element = T::from_f64(v);
        }
        Tensor::from_buffer(T::into_buffer(data), shape)
    })
}

impl Tensor {
    /// Fills with the tensor `make` draws (random in-place ops); history, if any, gets a zero
    /// gradient.
    pub(crate) fn fill_random_(
        &self,
        name: &'static str,
        node: &'static str,
        make: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        self.apply_inplace(name, &[], |x| {
            let out = make(x)?;
            if !is_recording(&[x]) {
                return Ok(out);
            }
            Ok(record(out, node, &[x], &[], |ctx| {
                Ok(vec![Some(ctx.grad(0).zeros_like())])
            }))
        })
    }

    /// Uniform samples in `[0, 1)`.
    pub fn rand(shape: &[usize], dtype: DType, gen: Option<&SharedGenerator>) -> Result<Tensor> {
        float_only(dtype, "check_uniform_bounds")?;
        drawn_factory(shape, dtype, "aten::uniform_", |n| {
            with_generator(gen, |g| g.uniforms(n, dtype, 0.0, 1.0))
        })
    }

    /// Standard normal samples.
    pub fn randn(shape: &[usize], dtype: DType, gen: Option<&SharedGenerator>) -> Result<Tensor> {
        float_only(dtype, "normal_kernel_cpu")?;
        drawn_factory(shape, dtype, "aten::normal_", |n| {
            with_generator(gen, |g| g.normals(n, dtype, 0.0, 1.0, true))
        })
    }

    /// Integers uniform in `[low, high)` (PyTorch's `randint`: one draw modulo the range per
    /// element), as `dtype`.
    pub fn randint(
        low: i64,
        high: i64,
        shape: &[usize],
        dtype: DType,
        gen: Option<&SharedGenerator>,
    ) -> Result<Tensor> {
        if low >= high {
            return Err(Error::runtime(format!(
                "random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )));
        }
        let range = high.wrapping_sub(low) as u64;
        let n = crate::core::storage::check_allocation(shape, dtype)?;
        let values: Vec<i64> = with_generator(gen, |g| {
            (0..n)
                .map(|_| low.wrapping_add(g.below(range) as i64))
                .collect()
        });
        Tensor::from_vec(values, shape)?.to_dtype(dtype)
    }

    /// A random permutation of `0..n` (PyTorch's `randperm`: Fisher-Yates, swapping element
    /// `i` with element `i + draw % (n - i)`), as `dtype`.
    pub fn randperm(n: usize, dtype: DType, gen: Option<&SharedGenerator>) -> Result<Tensor> {
        crate::core::storage::check_allocation(&[n], dtype)?;
        let mut r: Vec<i64> = (0..n as i64).collect();
        let wide = n as u64 >= u64::from(u32::MAX / 20);
        with_generator(gen, |g| {
            for i in 0..n.saturating_sub(1) {
                let span = (n - i) as u64;
                let z = match wide {
                    true => g.next_u64() % span,
                    false => u64::from(g.next_u32()) % span,
                } as usize;
                r.swap(i, i + z);
            }
        });
        Tensor::from_vec(r, &[n])?.to_dtype(dtype)
    }

    /// Fills in place with integers drawn as PyTorch's `random_`: uniform in `[from, to)` when
    /// `to` is given (one draw modulo the range), otherwise over every integer the dtype holds
    /// exactly (`[0, 2^24]` for float32, `[0, 2^53]` for float64, `[0, 2^63)` for int64, a bit
    /// for bool).
    pub fn random_(&self, from: i64, to: Option<i64>, gen: Option<&SharedGenerator>) -> Result<()> {
        if let Some(to) = to {
            if from >= to {
                return Err(Error::runtime(format!(
                    "random_ expects 'from' to be less than 'to', but got from={from} >= to={to}"
                )));
            }
        }
        if self.is_meta() {
            return Ok(()); // no values to draw on the meta device
        }
        let (n, dtype) = (self.numel(), self.dtype());
        let values: Vec<i64> = with_generator(gen, |g| {
            (0..n)
                .map(|_| match (to, dtype) {
                    (Some(to), _) => g.below(to.wrapping_sub(from) as u64) as i64,
                    (None, DType::Float32) => i64::from(g.next_u32() % ((1 << 24) + 1)),
                    (None, DType::Float64) => (g.next_u64() % ((1 << 53) + 1)) as i64,
                    (None, DType::Int64) => (g.next_u64() % (1 << 63)) as i64,
                    (None, DType::Bool) => i64::from(g.next_u32() & 1),
                    // [0, 2^bits) for uint8, [0, 2^(bits-1)) for the signed narrow integers
                    (None, d) => {
                        let bits = 8 * d.size() as u32 - u32::from(d.is_signed());
                        i64::from(g.next_u32() % (1u32 << bits))
                    }
                })
                .map(|v| v.wrapping_add(from))
                .collect()
        });
        let drawn = Tensor::from_vec(values, self.shape())?.to_dtype(dtype)?;
        self.fill_random_("random_", "RandomBackward0", |_| Ok(drawn))
    }

    /// Fills in place with 1 where a uniform draw falls below `p`, else 0 (PyTorch's
    /// `bernoulli_(p)`: one float64 uniform, two 32-bit draws, per element).
    pub fn bernoulli_(&self, p: f64, gen: Option<&SharedGenerator>) -> Result<()> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::runtime(format!(
                "bernoulli_ expects p to be in [0, 1], but got p={p}"
            )));
        }
        if self.is_meta() {
            return Ok(()); // no values to draw on the meta device
        }
        let n = self.numel();
        let mut values = with_generator(gen, |g| {
            (0..n)
                .map(|_| f64::from(u8::from(g.uniform() < p)))
                .collect::<Vec<_>>()
        })
        .into_iter();
        let dtype = self.dtype();
        self.fill_random_("bernoulli_", "BernoulliBackward0", |x| {
            sampled(x.shape(), dtype, || values.next().unwrap_or_default())
        })
    }

    /// A new tensor of 1s and 0s, each 1 with the probability in `self` (PyTorch's
    /// `torch.bernoulli(probs)`: float64 probabilities compare a float64 uniform, float32 ones a
    /// float32 uniform of one 32-bit draw).
    pub fn bernoulli(&self, gen: Option<&SharedGenerator>) -> Result<Tensor> {
        float_only(self.dtype(), "bernoulli_tensor_cpu_p_")?;
        let probs = self
            .detach()
            .to_dtype(DType::Float64)?
            .contiguous()?
            .to_vec::<f64>()?;
        if probs.iter().any(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::runtime(
                "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)",
            ));
        }
        let single = self.dtype() == DType::Float32;
        let drawn: Vec<f64> = with_generator(gen, |g| {
            probs
                .iter()
                .map(|&p| match single {
                    true => u8::from(g.uniform_f32() < p as f32),
                    false => u8::from(g.uniform() < p),
                })
                .map(f64::from)
                .collect()
        });
        let mut values = drawn.into_iter();
        sampled(self.shape(), self.dtype(), || {
            values.next().unwrap_or_default()
        })
    }

    /// Fills in place with exponential samples of rate `lambd` (PyTorch's CPU kernel: one
    /// float64 uniform `u` per element, `-log1p(-u) / lambd`, rounded to the element type).
    pub fn exponential_(&self, lambd: f64, gen: Option<&SharedGenerator>) -> Result<()> {
        if lambd.is_nan() || lambd <= 0.0 {
            return Err(Error::runtime(format!(
                "exponential_ expects lambda > 0.0, but found lambda={lambd}"
            )));
        }
        float_only(self.dtype(), "exponential_cpu")?;
        if self.is_meta() {
            return Ok(()); // no values to draw on the meta device
        }
        let (n, dtype) = (self.numel(), self.dtype());
        let mut values = with_generator(gen, |g| {
            (0..n)
                .map(|_| -(-g.uniform()).ln_1p() / lambd)
                .collect::<Vec<_>>()
        })
        .into_iter();
        self.fill_random_("exponential_", "ExponentialBackward0", |x| {
            sampled(x.shape(), dtype, || values.next().unwrap_or_default())
        })
    }

    /// `num_samples` class indices per row of the (1-D or 2-D) weights `self`, drawn as
    /// PyTorch's CPU kernel draws them: with replacement, one float64 uniform per sample
    /// located by binary search in the row's normalised cumulative sum; without, the
    /// `num_samples` largest `weight / Exp(1)` (one exponential per weight).
    pub fn multinomial(
        &self,
        num_samples: usize,
        replacement: bool,
        gen: Option<&SharedGenerator>,
    ) -> Result<Tensor> {
        let dim = self.dim();
        if !(1..=2).contains(&dim) {
            return Err(Error::runtime("prob_dist must be 1 or 2 dim"));
        }
        float_only(self.dtype(), "multinomial")?;
        let categories = self.shape()[dim - 1];
        let rows = if dim == 2 { self.shape()[0] } else { 1 };
        if num_samples == 0 {
            return Err(Error::runtime("cannot sample n_sample <= 0 samples"));
        }
        if !replacement && num_samples > categories {
            return Err(Error::runtime(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement",
            ));
        }
        let weights = self
            .detach()
            .to_dtype(DType::Float64)?
            .contiguous()?
            .to_vec::<f64>()?;
        if weights.iter().any(|w| !w.is_finite() || *w < 0.0) {
            return Err(Error::runtime(
                "probability tensor contains either `inf`, `nan` or element < 0",
            ));
        }
        for row in weights.chunks(categories.max(1)) {
            if row.iter().sum::<f64>() <= 0.0 {
                return Err(Error::runtime(
                    "invalid multinomial distribution (sum of probabilities <= 0)",
                ));
            }
        }
        let single = self.dtype() == DType::Float32;
        let round = |v: f64| if single { f64::from(v as f32) } else { v };
        let picks: Vec<i64> = if replacement && num_samples > 1 {
            with_generator(gen, |g| {
                let mut out = Vec::with_capacity(rows * num_samples);
                for row in weights.chunks(categories) {
                    let mut cumulative = Vec::with_capacity(categories);
                    let mut total = 0.0;
                    for &w in row {
                        total = round(total + w);
                        cumulative.push(total);
                    }
                    cumulative.iter_mut().for_each(|c| *c = round(*c / total));
                    for _ in 0..num_samples {
                        let u = g.uniform();
                        out.push(cumulative.partition_point(|&c| c < u).min(categories - 1) as i64);
                    }
                }
                out
            })
        } else {
            // argmax/topk of weight / Exp(1), the exponentials drawn in the weights' dtype
            let q = with_generator(gen, |g| {
                weights
                    .iter()
                    .map(|&w| round(w / round(-(-g.uniform()).ln_1p())))
                    .collect::<Vec<_>>()
            });
            let mut out = Vec::with_capacity(rows * num_samples);
            for row in q.chunks(categories) {
                let mut order: Vec<usize> = (0..categories).collect();
                order.sort_by(|&a, &b| row[b].total_cmp(&row[a]).then(a.cmp(&b)));
                out.extend(order[..num_samples].iter().map(|&i| i as i64));
            }
            out
        };
        let shape: Vec<usize> = if dim == 2 {
            vec![rows, num_samples]
        } else {
            vec![num_samples]
        };
        Tensor::from_vec(picks, &shape)
    }

    /// Fills in place with normal samples of mean `mean` and standard deviation `std`.
    pub fn normal_(&self, mean: f64, std: f64, gen: Option<&SharedGenerator>) -> Result<()> {
        if std.is_nan() || std < 0.0 {
            return Err(Error::runtime(format!(
                "normal expects std >= 0.0, but found std {std}"
            )));
        }
        float_only(self.dtype(), "normal_kernel_cpu")?;
        if self.is_meta() {
            return Ok(()); // no values to draw on the meta device
        }
        let (n, dtype, dense) = (self.numel(), self.dtype(), self.is_contiguous());
        let mut values = with_generator(gen, |g| g.normals(n, dtype, mean, std, dense)).into_iter();
        self.fill_random_("normal_", "NormalBackward0", |x| {
            sampled(x.shape(), dtype, || values.next().unwrap_or_default())
        })
    }

    /// Fills in place with uniform samples in `[from, to)`.
    pub fn uniform_(&self, from: f64, to: f64, gen: Option<&SharedGenerator>) -> Result<()> {
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
        if self.is_meta() {
            return Ok(()); // no values to draw on the meta device
        }
        let (n, dtype) = (self.numel(), self.dtype());
        let mut values = with_generator(gen, |g| g.uniforms(n, dtype, from, to)).into_iter();
        self.fill_random_("uniform_", "UniformBackward0", |x| {
            sampled(x.shape(), dtype, || values.next().unwrap_or_default())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn randn_draws_pytorchs_numbers() {
        // torch.manual_seed(0); torch.randn(18) under PyTorch 2.15 on x86-64: a block of 16
        // and the last 16 redrawn, as bit patterns
        const TORCH: [u32; 18] = [
            0xbf901b85, 0xbf93808a, 0x3f111004, 0x3f4b235d, 0x3f194d8b, 0xbfc70d5b, 0xbeaec6ca,
            0x3fed2f4e, 0x3eefaa55, 0xbe217f5f, 0xbe318eeb, 0x3e3be1a4, 0x3fb1d6c0, 0x3fcb0d00,
            0x3f72409c, 0xbf57fb33, 0x3f6e8c30, 0x3fa12737,
        ];
        let gen = std::sync::Arc::new(parking_lot::Mutex::new(Generator::new(0)));
        let dtype = crate::core::dtype::DType::Float32;
        let x = crate::core::tensor::Tensor::randn(&[18], dtype, Some(&gen)).unwrap();
        let bits: Vec<u32> = x
            .to_vec::<f32>()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(bits, TORCH);
    }

    #[test]
    fn seeded_streams_repeat_and_look_normal() {
        manual_seed(3);
        let a = Tensor::randn(&[1000], DType::Float64, None)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        manual_seed(3);
        let b = Tensor::randn(&[1000], DType::Float64, None)
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
