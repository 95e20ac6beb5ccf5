//! `Tensor`'s arithmetic and comparison operators (`x + y`, `x += y`, `x < y`...): a number or
//! tensor on either side, NotImplemented for anything else (so Python tries the other side).
//! Each `// stub` comment gives the operator's stub (pyo3 takes no signature on these).

use super::errors::run;
use super::tensor::{compare, to_object, PyTensor, TResult};
use super::tensor_math::{arith, inplace};
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::BinaryOp;
use pyo3::basic::CompareOp as PyCompareOp;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    // stub: (self, other: _Operand, /) -> Tensor
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Add, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __radd__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Add, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __sub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Sub, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __rsub__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Sub, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __mul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Mul, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __rmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Mul, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __truediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Div, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    fn __rtruediv__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Div, &self.inner, o, true)
    }

    // stub: (self, other: _Operand, modulo: None = None, /) -> Tensor
    fn __pow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Pow, &self.inner, o, false)
    }

    // stub: (self, other: _Operand, modulo: None = None, /) -> Tensor
    fn __rpow__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        _modulo: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        arith(py, BinaryOp::Pow, &self.inner, o, true)
    }

    // stub: (self, other: Tensor, /) -> Tensor
    fn __matmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let out = run(|| self.inner.matmul(&other.get().inner))?;
        to_object(py, out)
    }

    // stub: (self, other: Tensor, /) -> Tensor
    fn __rmatmul__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let Ok(other) = o.cast::<PyTensor>() else {
            return Ok(py.NotImplemented());
        };
        let out = run(|| other.get().inner.matmul(&self.inner))?;
        to_object(py, out)
    }

    // stub: (self) -> Tensor
    fn __neg__(&self) -> TResult {
        self.neg()
    }

    // stub: (self) -> Self
    fn __pos__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    // stub: (self) -> Tensor
    fn __abs__(&self) -> TResult {
        self.abs()
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __iadd__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Add, &self.inner, o)
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __isub__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Sub, &self.inner, o)
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __imul__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Mul, &self.inner, o)
    }

    // stub: (self, other: _Operand, /) -> Self
    fn __itruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<()> {
        inplace(BinaryOp::Div, &self.inner, o)
    }

    // (no `modulo` at runtime, unlike `__pow__`, hence the ignore)
    // stub: (self, other: _Operand, /) -> Self  # type: ignore[misc]
    fn __ipow__(&self, o: &Bound<'_, PyAny>, _modulo: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        inplace(BinaryOp::Pow, &self.inner, o)
    }

    // stub __lt__: (self, other: _Operand, /) -> Tensor
    // stub __le__: (self, other: _Operand, /) -> Tensor
    // stub __gt__: (self, other: _Operand, /) -> Tensor
    // stub __ge__: (self, other: _Operand, /) -> Tensor
    // stub __eq__: (self, other: object, /) -> Tensor  # type: ignore[override]
    // stub __ne__: (self, other: object, /) -> Tensor  # type: ignore[override]
    fn __richcmp__(
        &self,
        py: Python<'_>,
        o: &Bound<'_, PyAny>,
        op: PyCompareOp,
    ) -> PyResult<Py<PyAny>> {
        let op = match op {
            PyCompareOp::Lt => CompareOp::Lt,
            PyCompareOp::Le => CompareOp::Le,
            PyCompareOp::Gt => CompareOp::Gt,
            PyCompareOp::Ge => CompareOp::Ge,
            PyCompareOp::Eq => CompareOp::Eq,
            PyCompareOp::Ne => CompareOp::Ne,
        };
        compare(py, &self.inner, op, o)
    }
}
