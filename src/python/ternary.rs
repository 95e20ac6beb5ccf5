//! Bindings of the three-tensor pointwise ops (`crate::ops::pointwise::ternary`): `lerp` with a
//! number or tensor weight, `addcmul`, `addcdiv`, and their in-place twins.

use super::convert::tensor_arg;
use super::errors::run;
use super::tensor::{wrap, PyTensor, TResult};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

/// A lerp weight: a tensor, or a number.
enum Weight {
    Tensor(crate::core::tensor::Tensor),
    Number(f64),
}

/// `weight` as a tensor or a number, or PyTorch's TypeError naming `op`.
fn weight_arg(weight: &Bound<'_, PyAny>, op: &str) -> PyResult<Weight> {
    if let Ok(t) = weight.cast::<PyTensor>() {
        return Ok(Weight::Tensor(t.get().inner.clone()));
    }
    match weight.extract::<f64>() {
        Ok(w) => Ok(Weight::Number(w)),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{op}(): argument 'weight' must be Tensor or Number, not {}",
            weight
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))),
    }
}

#[pymethods]
impl PyTensor {
    /// `self + weight · (end - self)` (`weight` a number or a tensor).
    #[pyo3(signature = (end: "Tensor", weight: "float | Tensor") -> "Tensor")]
    fn lerp(&self, end: &Bound<'_, PyAny>, weight: &Bound<'_, PyAny>) -> TResult {
        let end = tensor_arg(end, "lerp(): argument 'end'")?;
        wrap(match weight_arg(weight, "lerp")? {
            Weight::Number(w) => run(|| self.inner.lerp(&end, w)),
            Weight::Tensor(w) => run(|| self.inner.lerp_tensor(&end, &w)),
        })
    }

    /// In-place `lerp`.
    #[pyo3(signature = (end: "Tensor", weight: "float | Tensor") -> "Self")]
    fn lerp_<'py>(
        slf: Bound<'py, Self>,
        end: &Bound<'py, PyAny>,
        weight: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        let end = tensor_arg(end, "lerp_(): argument 'end'")?;
        let this = &slf.get().inner;
        match weight_arg(weight, "lerp_")? {
            Weight::Number(w) => run(|| this.lerp_(&end, w))?,
            Weight::Tensor(w) => run(|| this.lerp_tensor_(&end, &w))?,
        }
        Ok(slf)
    }

    /// `self + value · tensor1 · tensor2`.
    #[pyo3(signature = (tensor1: "Tensor", tensor2: "Tensor", *, value: "float" = 1.0) -> "Tensor")]
    fn addcmul(
        &self,
        tensor1: &Bound<'_, PyAny>,
        tensor2: &Bound<'_, PyAny>,
        value: f64,
    ) -> TResult {
        let t1 = tensor_arg(tensor1, "addcmul(): argument 'tensor1'")?;
        let t2 = tensor_arg(tensor2, "addcmul(): argument 'tensor2'")?;
        wrap(run(|| self.inner.addcmul(&t1, &t2, value)))
    }

    /// In-place `addcmul`.
    #[pyo3(signature = (tensor1: "Tensor", tensor2: "Tensor", *, value: "float" = 1.0) -> "Self")]
    fn addcmul_<'py>(
        slf: Bound<'py, Self>,
        tensor1: &Bound<'py, PyAny>,
        tensor2: &Bound<'py, PyAny>,
        value: f64,
    ) -> PyResult<Bound<'py, Self>> {
        let t1 = tensor_arg(tensor1, "addcmul_(): argument 'tensor1'")?;
        let t2 = tensor_arg(tensor2, "addcmul_(): argument 'tensor2'")?;
        run(|| slf.get().inner.addcmul_(&t1, &t2, value))?;
        Ok(slf)
    }

    /// `self + value · tensor1 / tensor2`.
    #[pyo3(signature = (tensor1: "Tensor", tensor2: "Tensor", *, value: "float" = 1.0) -> "Tensor")]
    fn addcdiv(
        &self,
        tensor1: &Bound<'_, PyAny>,
        tensor2: &Bound<'_, PyAny>,
        value: f64,
    ) -> TResult {
        let t1 = tensor_arg(tensor1, "addcdiv(): argument 'tensor1'")?;
        let t2 = tensor_arg(tensor2, "addcdiv(): argument 'tensor2'")?;
        wrap(run(|| self.inner.addcdiv(&t1, &t2, value)))
    }

    /// In-place `addcdiv`.
    #[pyo3(signature = (tensor1: "Tensor", tensor2: "Tensor", *, value: "float" = 1.0) -> "Self")]
    fn addcdiv_<'py>(
        slf: Bound<'py, Self>,
        tensor1: &Bound<'py, PyAny>,
        tensor2: &Bound<'py, PyAny>,
        value: f64,
    ) -> PyResult<Bound<'py, Self>> {
        let t1 = tensor_arg(tensor1, "addcdiv_(): argument 'tensor1'")?;
        let t2 = tensor_arg(tensor2, "addcdiv_(): argument 'tensor2'")?;
        run(|| slf.get().inner.addcdiv_(&t1, &t2, value))?;
        Ok(slf)
    }
}
