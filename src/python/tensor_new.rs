//! Tensor methods that make tensors like this one or describe its memory: `new_tensor`,
//! `new_zeros`/`new_ones`/`new_empty`/`new_full`, `type`, the dtype casts PyTorch has and
//! ferrograd refuses (`int`, `half`), `stride`, `storage_offset`, `element_size`.

use super::convert::{dtype_arg, scalar_arg, size_args, tensor_from_data};
use super::creation::finish;
use super::errors::run;
use super::tensor::{to_object, PyTensor};
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

/// The dtype of a `new_*` result: `dtype=` if given, else this tensor's.
fn dtype_or(t: &Tensor, dtype: Option<&Bound<'_, PyAny>>) -> PyResult<crate::DType> {
    Ok(dtype_arg(dtype)?.unwrap_or(t.dtype()))
}

/// A dtype ferrograd does not have: PyTorch's cast is refused with a pointer to what exists.
fn missing(what: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "ferrograd has no {what} dtype (it has float32, float64, int64, int32, int16, int8, uint8 and bool)"
    ))
}

#[pymethods]
impl PyTensor {
    /// A new tensor holding `data` (copied), with this tensor's dtype unless `dtype` is
    /// given.
    #[pyo3(signature = (data: "_Data", *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    fn new_tensor(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        super::convert::device_arg(device)?;
        let dtype = dtype_or(&self.inner, dtype)?;
        if data.cast::<PyTensor>().is_ok() {
            let warnings = py.import("warnings")?;
            warnings.call_method1(
                "warn",
                (
                    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).",
                    py.get_type::<pyo3::exceptions::PyUserWarning>(),
                    2,
                ),
            )?;
        }
        let t = tensor_from_data(data, Some(dtype))?;
        finish(t, requires_grad)
    }

    /// Legacy `x.new(...)`, with this tensor's dtype: `new(*sizes)` or `new(torch.Size)` an
    /// uninitialized tensor of that shape (zeros in ferrograd), `new(data)` a tensor of `data`
    /// (a list or tuple), `new()` an empty one.
    #[pyo3(name = "new")]
    #[pyo3(signature = (*args: "Any") -> "Tensor")]
    fn legacy_new(&self, args: &Bound<'_, PyTuple>) -> PyResult<Py<PyAny>> {
        let dtype = self.inner.dtype();
        let data = match args.len() {
            1 => Some(args.get_item(0)?),
            _ => None,
        }
        .filter(|a| {
            !super::convert::is_size(a)
                && (a.is_instance_of::<pyo3::types::PyList>() || a.is_instance_of::<PyTuple>())
        });
        if let Some(data) = data {
            return finish(tensor_from_data(&data, Some(dtype))?, false);
        }
        if let Some(t) = (args.len() == 1)
            .then(|| args.get_item(0).ok())
            .flatten()
            .filter(|a| a.is_instance_of::<PyTensor>())
        {
            return Err(PyTypeError::new_err(format!(
                "new(): a tensor argument is not supported (got a {}); use new_tensor() or clone()",
                t.get_type().name()?
            )));
        }
        let shape = match args.is_empty() {
            true => vec![0],
            false => size_args(args)?,
        };
        finish(run(|| Tensor::try_full(&shape, 0.0, dtype))?, false)
    }

    /// Zeros of `size`, with this tensor's dtype unless `dtype` is given.
    #[pyo3(signature = (*size: "Any", dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    fn new_zeros(
        &self,
        size: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        self.new_filled(size, 0.0, dtype, device, requires_grad)
    }

    /// Ones of `size`, with this tensor's dtype unless `dtype` is given.
    #[pyo3(signature = (*size: "Any", dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    fn new_ones(
        &self,
        size: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        self.new_filled(size, 1.0, dtype, device, requires_grad)
    }

    /// An uninitialized tensor of `size` (zeros in ferrograd), with this tensor's dtype.
    #[pyo3(signature = (*size: "Any", dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    fn new_empty(
        &self,
        size: &Bound<'_, PyTuple>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        self.new_filled(size, 0.0, dtype, device, requires_grad)
    }

    /// An uninitialized tensor of `size` laid out with `stride` (zeros in ferrograd), with this
    /// tensor's dtype unless `dtype` is given.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (size: "Sequence[int]", stride: "Sequence[int]", *, dtype: "_DTypeLike | None" = None, layout: "object" = None, device: "_Device | None" = None, requires_grad: "bool" = false, pin_memory: "bool" = false) -> "Tensor")]
    fn new_empty_strided(
        &self,
        size: &Bound<'_, PyAny>,
        stride: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        layout: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
        pin_memory: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = pin_memory; // nothing to pin without a GPU
        let dtype = dtype_arg(dtype)?.unwrap_or(self.inner.dtype());
        super::creation::strided_tensor(size, stride, dtype, layout, device, requires_grad)
    }

    /// `fill_value` everywhere in a tensor of `size`, with this tensor's dtype.
    #[pyo3(signature = (size: "Sequence[int]", fill_value: "_Number", *, dtype: "_DTypeLike | None" = None, device: "_Device | None" = None, requires_grad: "bool" = false) -> "Tensor")]
    fn new_full(
        &self,
        size: &Bound<'_, PyAny>,
        fill_value: &Bound<'_, PyAny>,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        let value = scalar_arg(fill_value)
            .ok_or_else(|| PyTypeError::new_err("new_full(): fill_value must be a number"))?;
        let size = PyTuple::new(size.py(), [size])?;
        self.new_filled(&size, value.to_f64(), dtype, device, requires_grad)
    }

    /// `type()`: the legacy type name (`'torch.FloatTensor'`); `type(dtype)`,
    /// `type(torch.DoubleTensor)` or `type('torch.DoubleTensor')`: the tensor converted.
    #[pyo3(signature = (dtype=None, non_blocking=false))]
    // stub: (self, dtype: Any = None, non_blocking: bool = False) -> Any
    fn r#type(
        &self,
        py: Python<'_>,
        dtype: Option<&Bound<'_, PyAny>>,
        non_blocking: bool,
    ) -> PyResult<Py<PyAny>> {
        let _ = non_blocking;
        let Some(dtype) = dtype else {
            return Ok(PyString::new(py, self.inner.dtype().legacy_name())
                .into_any()
                .unbind());
        };
        let target = match dtype.cast::<PyString>() {
            Ok(name) => {
                let name = name.to_cow()?;
                crate::DType::ALL
                    .into_iter()
                    .find(|&d| d.legacy_name() == name)
                    .ok_or_else(|| PyRuntimeError::new_err(format!("invalid type: '{name}'")))?
            }
            // a legacy type (`torch.DoubleTensor`) names its dtype
            Err(_) => match dtype.getattr("_dtype") {
                Ok(legacy) => dtype_arg(Some(&legacy))?.unwrap_or(self.inner.dtype()),
                Err(_) => dtype_arg(Some(dtype))?.unwrap_or(self.inner.dtype()),
            },
        };
        to_object(py, run(|| self.inner.to_dtype(target))?)
    }

    /// Converts to int32.
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn int(&self, py: Python<'_>, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        self.converted(py, crate::DType::Int32, memory_format)
    }

    /// Converts to int16.
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn short(
        &self,
        py: Python<'_>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.converted(py, crate::DType::Int16, memory_format)
    }

    /// Converts to int8.
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn char(
        &self,
        py: Python<'_>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.converted(py, crate::DType::Int8, memory_format)
    }

    /// Converts to uint8.
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn byte(
        &self,
        py: Python<'_>,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        self.converted(py, crate::DType::UInt8, memory_format)
    }

    /// `half()` would be float16, which ferrograd lacks: refused (use `float()`).
    #[pyo3(signature = (memory_format: "Any" = None) -> "Tensor")]
    fn half(&self, memory_format: Option<&Bound<'_, PyAny>>) -> PyResult<Py<PyAny>> {
        let _ = memory_format;
        Err(missing("float16 (`.half()`; `.float()` gives float32)"))
    }

    /// Steps in elements between neighbours along each dimension (or along `dim`).
    #[pyo3(signature = (dim: "int | None" = None) -> "Any")]
    fn stride(&self, py: Python<'_>, dim: Option<isize>) -> PyResult<Py<PyAny>> {
        let strides: Vec<isize> = self.inner.layout().strides.to_vec();
        match dim {
            None => Ok(PyTuple::new(py, strides)?.into_any().unbind()),
            Some(d) => {
                let i = run(|| crate::core::layout::normalize_dim(d, strides.len()))?;
                Ok(strides[i].into_pyobject(py)?.into_any().unbind())
            }
        }
    }

    /// Position of the first element in the storage, in elements.
    #[pyo3(signature = () -> "int")]
    fn storage_offset(&self) -> usize {
        self.inner.layout().offset
    }

    /// Fills with exponential samples of rate `lambd`.
    #[pyo3(signature = (lambd: "float" = 1.0, *, generator: "Generator | None" = None) -> "Self")]
    fn exponential_<'py>(
        slf: Bound<'py, Self>,
        lambd: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        run(|| slf.get().inner.exponential_(lambd, gen.as_ref()))?;
        Ok(slf)
    }

    /// Class indices drawn with the weights in each row (`torch.multinomial`).
    #[pyo3(signature = (num_samples: "int", replacement: "bool" = false, *, generator: "Generator | None" = None) -> "Tensor")]
    fn multinomial(
        &self,
        py: Python<'_>,
        num_samples: i64,
        replacement: bool,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let gen = super::random::generator_arg(generator)?;
        let n = usize::try_from(num_samples)
            .map_err(|_| PyRuntimeError::new_err("cannot sample n_sample <= 0 samples"))?;
        to_object(
            py,
            run(|| self.inner.multinomial(n, replacement, gen.as_ref()))?,
        )
    }

    /// Bytes per element.
    #[pyo3(signature = () -> "int")]
    fn element_size(&self) -> usize {
        self.inner.dtype().size()
    }
}

impl PyTensor {
    /// `self` converted to `dtype` (itself when it has it), `memory_format` accepted and ignored
    /// beyond PyTorch's default (`torch.preserve_format`).
    fn converted(
        &self,
        py: Python<'_>,
        dtype: crate::DType,
        memory_format: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let _ = memory_format;
        to_object(py, run(|| self.inner.to_dtype(dtype))?)
    }

    fn new_filled(
        &self,
        size: &Bound<'_, PyTuple>,
        value: f64,
        dtype: Option<&Bound<'_, PyAny>>,
        device: Option<&Bound<'_, PyAny>>,
        requires_grad: bool,
    ) -> PyResult<Py<PyAny>> {
        super::convert::device_arg(device)?;
        let shape = size_args(size)?;
        let dtype = dtype_or(&self.inner, dtype)?;
        finish(
            run(|| Tensor::try_full(&shape, value, dtype))?,
            requires_grad,
        )
    }
}
