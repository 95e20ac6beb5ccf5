//! Random-number bindings: `torch.Generator` objects, the default generator, and the sampling
//! functions that take `generator=` (`rand`, `randn`, `randint`, `randperm`).

use super::convert::{device_arg, dtype_arg, size_args};
use super::creation::finish;
use super::errors::run;
use super::tensor::PyTensor;
use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use crate::ops::random::{default_generator, Generator, SharedGenerator};
use parking_lot::Mutex;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

/// PyTorch's default seed of a new generator.
const DEFAULT_SEED: u64 = 67280421310721;

/// `torch.Generator`: a random stream of its own, seeded independently of the global one.
#[pyclass(name = "Generator", module = "ferrograd._C", frozen)]
pub struct PyGenerator {
    pub(crate) inner: SharedGenerator,
}

/// A seed from the operating system's randomness (PyTorch's `seed()`).
fn fresh_seed() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(std::process::id().into());
    h.finish()
}

/// A Python int as PyTorch reads a seed (`int(seed)`; negative values wrap to 64 bits).
fn seed_arg(seed: &Bound<'_, PyAny>) -> PyResult<u64> {
    let int = seed.py().get_type::<pyo3::types::PyInt>().call1((seed,))?;
    match int.extract::<u64>() {
        Ok(v) => Ok(v),
        Err(_) => {
            let v: i64 = int.extract().map_err(|_| {
                PyRuntimeError::new_err(format!(
                    "Overflow when unpacking long long (seed {int} out of range)"
                ))
            })?;
            Ok(v as u64)
        }
    }
}

#[pymethods]
impl PyGenerator {
    /// PyTorch's printed form, `<torch._C.Generator object at 0x...>` (programs print the
    /// generator `torch.manual_seed` returns).
    fn __repr__(slf: &Bound<'_, Self>) -> String {
        format!(
            "<torch._C.Generator object at {:#x}>",
            slf.as_ptr() as usize
        )
    }

    #[new]
    #[pyo3(signature = (device=None))]
    // stub: (cls, device: _Device | None = None) -> Self
    fn new(device: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        device_arg(device)?;
        Ok(PyGenerator {
            inner: Arc::new(Mutex::new(Generator::new(DEFAULT_SEED))),
        })
    }

    /// Reseeds this generator; returns it.
    #[pyo3(signature = (seed: "int") -> "Self")]
    fn manual_seed<'py>(
        slf: Bound<'py, Self>,
        seed: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let seed = seed_arg(seed)?;
        *slf.get().inner.lock() = Generator::new(seed);
        Ok(slf)
    }

    /// Reseeds from the operating system's randomness; returns the seed.
    #[pyo3(signature = () -> "int")]
    fn seed(&self) -> u64 {
        let seed = fresh_seed();
        *self.inner.lock() = Generator::new(seed);
        seed
    }

    /// The seed the current stream started from.
    #[pyo3(signature = () -> "int")]
    fn initial_seed(&self) -> u64 {
        self.inner.lock().initial_seed()
    }

    /// The generator's state as an int64 tensor (pass it to `set_state`).
    #[pyo3(signature = () -> "Tensor")]
    fn get_state(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let words = self.inner.lock().state();
        let n = words.len();
        let t = run(|| Tensor::from_vec(words, &[n]))?;
        super::tensor::to_object(py, t)
    }

    /// Restores a state from `get_state`; returns the generator.
    #[pyo3(signature = (state: "Tensor") -> "Self")]
    fn set_state<'py>(
        slf: Bound<'py, Self>,
        state: PyRef<'py, PyTensor>,
    ) -> PyResult<Bound<'py, Self>> {
        let words = run(|| state.inner.to_dtype(DType::Int64)?.to_vec::<i64>())?;
        let restored = run(|| Generator::from_state(&words))?;
        *slf.get().inner.lock() = restored;
        Ok(slf)
    }

    /// Always `device(type='cpu')`.
    #[getter]
    // stub: -> Any
    fn device(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(py
            .import("ferrograd")?
            .getattr("device")?
            .call1(("cpu",))?
            .unbind())
    }
}

/// The generator a `generator=` argument names (`None`: the default generator).
pub(crate) fn generator_arg(gen: Option<&Bound<'_, PyAny>>) -> PyResult<Option<SharedGenerator>> {
    match gen {
        None => Ok(None),
        Some(g) if g.is_none() => Ok(None),
        Some(g) => match g.cast::<PyGenerator>() {
            Ok(g) => Ok(Some(g.get().inner.clone())),
            Err(_) => Err(PyTypeError::new_err(format!(
                "generator must be a torch.Generator, not {}",
                g.get_type().name()?
            ))),
        },
    }
}

/// Seeds the default generator; returns it.
#[pyfunction]
#[pyo3(signature = (seed: "int") -> "Generator")]
pub(crate) fn manual_seed(py: Python<'_>, seed: &Bound<'_, PyAny>) -> PyResult<Py<PyGenerator>> {
    crate::manual_seed(seed_arg(seed)?);
    Py::new(
        py,
        PyGenerator {
            inner: default_generator().clone(),
        },
    )
}

/// Reseeds the default generator from the operating system's randomness; returns the seed.
#[pyfunction]
#[pyo3(signature = () -> "int")]
pub(crate) fn seed() -> u64 {
    let seed = fresh_seed();
    crate::manual_seed(seed);
    seed
}

/// The seed the default generator's stream started from.
#[pyfunction]
#[pyo3(signature = () -> "int")]
pub(crate) fn initial_seed() -> u64 {
    default_generator().lock().initial_seed()
}

macro_rules! random {
    ($name:ident, $method:ident, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        #[pyo3(signature = (*size, generator=None, dtype=None, device=None, requires_grad=false))]
        // stub: (
        //     size: Sequence[int],
        //     /,
        //     *,
        //     generator: Generator | None = None,
        //     dtype: _DTypeLike | None = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        // ) -> Tensor
        // stub: (
        //     *size: int,
        //     generator: Generator | None = None,
        //     dtype: _DTypeLike | None = None,
        //     device: _Device | None = None,
        //     requires_grad: bool = False,
        // ) -> Tensor
        pub(crate) fn $name(
            size: &Bound<'_, PyTuple>,
            generator: Option<&Bound<'_, PyAny>>,
            dtype: Option<&Bound<'_, PyAny>>,
            device: Option<&Bound<'_, PyAny>>,
            requires_grad: bool,
        ) -> PyResult<Py<PyAny>> {
            device_arg(device)?;
            let shape = size_args(size)?;
            let gen = generator_arg(generator)?;
            let dtype = dtype_arg(dtype)?.unwrap_or_else(crate::core::dtype::default_float);
            let t = run(|| Tensor::$method(&shape, dtype, gen.as_ref()))?;
            finish(t, requires_grad)
        }
    };
}

random!(rand, rand, "Uniform samples in [0, 1).");
random!(randn, randn, "Standard normal samples.");

/// `randint(high, size)` or `randint(low, high, size)`: integers uniform in `[low, high)`
/// (int64 unless `dtype` says otherwise).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (*args: "int | Sequence[int]", low: "int | None" = None, high: "int | None" = None, size: "Sequence[int] | None" = None, generator: "Generator | None" = None, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn randint(
    args: &Bound<'_, PyTuple>,
    low: Option<&Bound<'_, PyAny>>,
    high: Option<&Bound<'_, PyAny>>,
    size: Option<&Bound<'_, PyAny>>,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    device_arg(device)?;
    // keywords fill in after the positional arguments, in (low, high, size) order
    let mut items: Vec<Bound<'_, PyAny>> = args.iter().collect();
    if let Some(low) = low {
        items.insert(0, low.clone());
    }
    if let Some(high) = high {
        items.push(high.clone());
    }
    if let Some(size) = size {
        items.push(size.clone());
    }
    let (low, high, size) = match items.len() {
        2 => (0, items[0].extract::<i64>()?, &items[1]),
        3 => (
            items[0].extract::<i64>()?,
            items[1].extract::<i64>()?,
            &items[2],
        ),
        n => {
            return Err(PyTypeError::new_err(format!(
                "randint() takes (high, size) or (low, high, size), got {n} arguments"
            )))
        }
    };
    let shape: Vec<usize> = size.extract()?;
    let gen = generator_arg(generator)?;
    let dtype = dtype_arg(dtype)?.unwrap_or(DType::Int64);
    let t = run(|| Tensor::randint(low, high, &shape, dtype, gen.as_ref()))?;
    finish(t, requires_grad)
}

/// `randperm(n)`: a random permutation of `0..n` (int64 unless `dtype` says otherwise).
#[pyfunction]
#[pyo3(signature = (n: "int", *, generator: "Generator | None" = None, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
pub(crate) fn randperm(
    n: i64,
    generator: Option<&Bound<'_, PyAny>>,
    dtype: Option<&Bound<'_, PyAny>>,
    device: Option<&Bound<'_, PyAny>>,
    requires_grad: bool,
) -> PyResult<Py<PyAny>> {
    device_arg(device)?;
    if n < 0 {
        return Err(PyRuntimeError::new_err(format!(
            "n must be non-negative, got{n}"
        )));
    }
    let gen = generator_arg(generator)?;
    let dtype = dtype_arg(dtype)?.unwrap_or(DType::Int64);
    let t = run(|| Tensor::randperm(n as usize, dtype, gen.as_ref()))?;
    finish(t, requires_grad)
}

/// `bernoulli(input, p=None, *, generator=None)`: 0/1 samples with the probabilities in
/// `input` (or the number `p` for every element).
#[pyfunction]
#[pyo3(signature = (input: "Tensor", p: "float | None" = None, *, generator: "Generator | None" = None) -> "Tensor")]
pub(crate) fn bernoulli(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    p: Option<f64>,
    generator: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    input.bernoulli(py, p, generator)
}

/// `multinomial(input, num_samples, replacement=False, *, generator=None)`: class indices
/// drawn with the weights in each row of `input`.
#[pyfunction]
#[pyo3(signature = (input: "Tensor", num_samples: "int", replacement: "bool" = false, *, generator: "Generator | None" = None) -> "Tensor")]
pub(crate) fn multinomial(
    py: Python<'_>,
    input: PyRef<'_, PyTensor>,
    num_samples: i64,
    replacement: bool,
    generator: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let gen = generator_arg(generator)?;
    let n = usize::try_from(num_samples)
        .map_err(|_| PyRuntimeError::new_err("cannot sample n_sample <= 0 samples"))?;
    super::tensor::to_object(
        py,
        run(|| input.inner.multinomial(n, replacement, gen.as_ref()))?,
    )
}

/// Adds `default_generator` to the module.
pub(crate) fn add_default_generator(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "default_generator",
        Py::new(
            m.py(),
            PyGenerator {
                inner: default_generator().clone(),
            },
        )?,
    )?;
    Ok(())
}
