//! `Tensor`'s arithmetic, comparison, logical and bitwise methods (with their in-place forms),
//! the bitwise operators, `clamp` and `where` (the arithmetic and comparison operators:
//! `tensor_operators.rs`).

use super::convert::{operand_arg, scalar_arg, tensor_arg, OwnedOperand};
use super::errors::{run, run_as};
use super::out::with_out;
use super::tensor::{compare, operand_tensor, to_object, wrap, PyTensor, TResult};
use crate::core::dtype::{DType, Scalar};
use crate::core::tensor::Tensor;
use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
use crate::ops::{pointwise::arithmetic::binary, BinaryOp, Operand};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;

#[pymethods]
impl PyTensor {
    /// `self < other` elementwise, as a bool tensor (`torch.lt`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn lt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Lt, other)
    }

    /// `self <= other` elementwise, as a bool tensor (`torch.le`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn le(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Le, other)
    }

    /// `self > other` elementwise, as a bool tensor (`torch.gt`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn gt(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Gt, other)
    }

    /// `self >= other` elementwise, as a bool tensor (`torch.ge`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn ge(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Ge, other)
    }

    /// `self == other` elementwise, as a bool tensor (`torch.eq`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn eq(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Eq, other)
    }

    /// `self != other` elementwise, as a bool tensor (`torch.ne`).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn ne(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        compare_method(py, &self.inner, CompareOp::Ne, other)
    }

    /// `self + alpha * other`.
    #[pyo3(signature = (other: "_Operand", *, alpha: "float | None" = None, out: "Tensor | None" = None) -> "Tensor")]
    fn add(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<f64>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || with_alpha(slf.py(), BinaryOp::Add, &slf.get().inner, other, alpha);
        with_out(slf.py(), "add", out, &[slf.as_any(), other], compute)
    }

    /// `self - alpha * other`.
    #[pyo3(signature = (other: "_Operand", *, alpha: "float | None" = None, out: "Tensor | None" = None) -> "Tensor")]
    fn sub(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        alpha: Option<f64>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || with_alpha(slf.py(), BinaryOp::Sub, &slf.get().inner, other, alpha);
        with_out(slf.py(), "sub", out, &[slf.as_any(), other], compute)
    }

    /// `self * other`.
    #[pyo3(signature = (other: "_Operand", *, out: "Tensor | None" = None) -> "Tensor")]
    fn mul(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Mul, &slf.get().inner, other);
        with_out(slf.py(), "mul", out, &[slf.as_any(), other], compute)
    }

    /// `self / other`.
    #[pyo3(signature = (other: "_Operand", *, out: "Tensor | None" = None) -> "Tensor")]
    fn div(
        slf: &Bound<'_, Self>,
        other: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Div, &slf.get().inner, other);
        with_out(slf.py(), "div", out, &[slf.as_any(), other], compute)
    }

    /// `self ** exponent`.
    #[pyo3(signature = (exponent: "_Operand", *, out: "Tensor | None" = None) -> "Tensor")]
    fn pow(
        slf: &Bound<'_, Self>,
        exponent: &Bound<'_, PyAny>,
        out: Option<&Bound<'_, PyTensor>>,
    ) -> PyResult<Py<PyAny>> {
        let compute = || checked_arith(slf.py(), BinaryOp::Pow, &slf.get().inner, exponent);
        with_out(slf.py(), "pow", out, &[slf.as_any(), exponent], compute)
    }

    /// In-place `self += alpha * other`.
    #[pyo3(signature = (other: "_Operand", *, alpha: "float | None" = None) -> "Self")]
    fn add_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<f64>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace_alpha(BinaryOp::Add, &slf.get().inner, other, alpha)?;
        Ok(slf)
    }

    /// In-place `self -= alpha * other`.
    #[pyo3(signature = (other: "_Operand", *, alpha: "float | None" = None) -> "Self")]
    fn sub_<'py>(
        slf: Bound<'py, Self>,
        other: &Bound<'py, PyAny>,
        alpha: Option<f64>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace_alpha(BinaryOp::Sub, &slf.get().inner, other, alpha)?;
        Ok(slf)
    }

    /// In-place `self *= other`.
    #[pyo3(signature = (other: "_Operand") -> "Self")]
    fn mul_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Mul, &slf.get().inner, other)?;
        Ok(slf)
    }

    /// In-place `self /= other`.
    #[pyo3(signature = (other: "_Operand") -> "Self")]
    fn div_<'py>(slf: Bound<'py, Self>, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Div, &slf.get().inner, other)?;
        Ok(slf)
    }

    /// In-place `self **= exponent`.
    #[pyo3(signature = (exponent: "_Operand") -> "Self")]
    fn pow_<'py>(
        slf: Bound<'py, Self>,
        exponent: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, Self>> {
        inplace(BinaryOp::Pow, &slf.get().inner, exponent)?;
        Ok(slf)
    }

    /// Sets every element to 0.
    #[pyo3(signature = () -> "Self")]
    fn zero_(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.zero_())?;
        Ok(slf)
    }

    /// Sets every element to `value` (a number, or a 0-d tensor whose gradient is the sum).
    #[pyo3(signature = (value: "_Operand") -> "Self")]
    fn fill_<'py>(slf: Bound<'py, Self>, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        if let Ok(t) = value.cast::<PyTensor>() {
            run(|| slf.get().inner.fill_tensor_(&t.get().inner))?;
            return Ok(slf);
        }
        let v =
            scalar_arg(value).ok_or_else(|| PyTypeError::new_err("fill_() expects a number"))?;
        run(|| slf.get().inner.fill_(v))?;
        Ok(slf)
    }

    /// Copies `src` into this tensor (broadcasting, converting the dtype).
    #[pyo3(signature = (src: "Tensor") -> "Self")]
    fn copy_<'py>(slf: Bound<'py, Self>, src: &Bound<'py, PyAny>) -> PyResult<Bound<'py, Self>> {
        let src = tensor_arg(src, "copy_() argument 'src'")?;
        run(|| slf.get().inner.copy_(&src))?;
        Ok(slf)
    }

    /// Fills with normal samples.
    #[pyo3(signature = (mean: "float" = 0.0, std: "float" = 1.0, *, generator: "Generator | None" = None) -> "Self")]
    fn normal_<'py>(
        slf: Bound<'py, Self>,
        mean: f64,
        std: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        run(|| slf.get().inner.normal_(mean, std, gen.as_ref()))?;
        Ok(slf)
    }

    /// Fills with uniform samples in `[from, to)`.
    #[pyo3(signature = (from_: "float" = 0.0, to: "float" = 1.0, *, generator: "Generator | None" = None) -> "Self")]
    fn uniform_<'py>(
        slf: Bound<'py, Self>,
        from_: f64,
        to: f64,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        run(|| slf.get().inner.uniform_(from_, to, gen.as_ref()))?;
        Ok(slf)
    }

    /// 0/1 samples with this tensor's probabilities (or the number `p` for every element), as
    /// `torch.bernoulli(self, p)`.
    #[pyo3(signature = (p: "float | None" = None, *, generator: "Generator | None" = None) -> "Tensor")]
    pub(crate) fn bernoulli(
        &self,
        py: Python<'_>,
        p: Option<f64>,
        generator: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let gen = super::random::generator_arg(generator)?;
        let t = match p {
            Some(p) => run(|| {
                let out = Tensor::zeros(self.inner.shape(), self.inner.dtype());
                out.bernoulli_(p, gen.as_ref())?;
                Ok(out)
            })?,
            None => run(|| self.inner.bernoulli(gen.as_ref()))?,
        };
        to_object(py, t)
    }
    /// Fills with 1 with probability `p` (a number or a tensor of probabilities), else 0.
    #[pyo3(signature = (p: "float | Tensor | None" = None, *, generator: "Generator | None" = None) -> "Self")]
    fn bernoulli_<'py>(
        slf: Bound<'py, Self>,
        p: Option<&Bound<'py, PyAny>>,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        let Some(p) = p else {
            run(|| slf.get().inner.bernoulli_(0.5, gen.as_ref()))?;
            return Ok(slf);
        };
        match p.cast::<PyTensor>() {
            Ok(probs) => {
                let probs = probs.get().inner.clone();
                run(|| {
                    let dims: Vec<isize> = slf
                        .get()
                        .inner
                        .shape()
                        .iter()
                        .map(|&s| s as isize)
                        .collect();
                    let drawn = probs.expand(&dims)?.bernoulli(gen.as_ref())?;
                    slf.get().inner.copy_(&drawn)
                })?;
            }
            Err(_) => {
                let p: f64 = p.extract()?;
                run(|| slf.get().inner.bernoulli_(p, gen.as_ref()))?;
            }
        }
        Ok(slf)
    }

    /// Fills with random integers: `random_()`, `random_(to)` or `random_(from, to)`.
    #[pyo3(signature = (from_: "int | None" = None, to: "int | None" = None, *, generator: "Generator | None" = None) -> "Self")]
    fn random_<'py>(
        slf: Bound<'py, Self>,
        from_: Option<i64>,
        to: Option<i64>,
        generator: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, Self>> {
        let gen = super::random::generator_arg(generator)?;
        let (from, to) = match (from_, to) {
            (Some(to), None) => (0, Some(to)),
            (from, to) => (from.unwrap_or(0), to),
        };
        run(|| slf.get().inner.random_(from, to, gen.as_ref()))?;
        Ok(slf)
    }

    /// `self` where `condition`, else `other`.
    #[pyo3(name = "where")]
    #[pyo3(signature = (condition: "Tensor", other: "_Operand") -> "Tensor")]
    fn where_method(&self, condition: &Bound<'_, PyAny>, other: &Bound<'_, PyAny>) -> TResult {
        let cond = tensor_arg(condition, "where() argument 'condition'")?;
        let other = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| Tensor::where_(&cond, &self.inner, &other)))
    }

    /// Elementwise maximum.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn maximum(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "maximum() argument 'other'")?;
        wrap(run(|| self.inner.maximum(&o)))
    }

    /// Elementwise minimum.
    #[pyo3(signature = (other: "Tensor") -> "Tensor")]
    fn minimum(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = tensor_arg(other, "minimum() argument 'other'")?;
        wrap(run(|| self.inner.minimum(&o)))
    }

    /// Limits values to `[min, max]`.
    #[pyo3(signature = (min: "_Operand | None" = None, max: "_Operand | None" = None) -> "Tensor")]
    fn clamp(&self, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> TResult {
        let (min, max) = (bound_arg(min, "min")?, bound_arg(max, "max")?);
        let (min, max) = (
            min.as_ref().map(|m| m.as_operand()),
            max.as_ref().map(|m| m.as_operand()),
        );
        wrap(run(|| self.inner.clamp_bounds(min, max)))
    }

    /// `max(x, min)` (`ClampMinBackward0`).
    #[pyo3(signature = (min: "float") -> "Tensor")]
    fn clamp_min(&self, min: f64) -> TResult {
        wrap(run(|| self.inner.clamp_min(min)))
    }

    /// `min(x, max)` (`ClampMaxBackward0`).
    #[pyo3(signature = (max: "float") -> "Tensor")]
    fn clamp_max(&self, max: f64) -> TResult {
        wrap(run(|| self.inner.clamp_max(max)))
    }

    /// In-place `clamp_min`.
    #[pyo3(signature = (min: "float") -> "Self")]
    fn clamp_min_(slf: Bound<'_, Self>, min: f64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_min_", |x| x.clamp_min(min)))?;
        Ok(slf)
    }

    /// In-place `clamp_max`.
    #[pyo3(signature = (max: "float") -> "Self")]
    fn clamp_max_(slf: Bound<'_, Self>, max: f64) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_max_", |x| x.clamp_max(max)))?;
        Ok(slf)
    }

    /// Alias of `clamp`.
    #[pyo3(signature = (min: "_Operand | None" = None, max: "_Operand | None" = None) -> "Tensor")]
    fn clip(&self, min: Option<&Bound<'_, PyAny>>, max: Option<&Bound<'_, PyAny>>) -> TResult {
        self.clamp(min, max)
    }

    /// In-place `clamp`.
    #[pyo3(signature = (min: "float | None" = None, max: "float | None" = None) -> "Self")]
    fn clamp_(
        slf: Bound<'_, Self>,
        min: Option<f64>,
        max: Option<f64>,
    ) -> PyResult<Bound<'_, Self>> {
        run(|| slf.get().inner.unary_("clamp_", |x| x.clamp(min, max)))?;
        Ok(slf)
    }

    /// NaN test (bool tensor).
    #[pyo3(signature = () -> "Tensor")]
    fn isnan(&self) -> TResult {
        wrap(run(|| self.inner.isnan()))
    }

    /// Sign-bit test (bool tensor): true for negative numbers, `-0.0` and negative NaN.
    #[pyo3(signature = () -> "Tensor")]
    fn signbit(&self) -> TResult {
        wrap(run(|| self.inner.signbit()))
    }

    /// ±inf test (bool tensor).
    #[pyo3(signature = () -> "Tensor")]
    fn isinf(&self) -> TResult {
        wrap(run(|| self.inner.isinf()))
    }

    /// Finiteness test (bool tensor).
    #[pyo3(signature = () -> "Tensor")]
    fn isfinite(&self) -> TResult {
        wrap(run(|| self.inner.isfinite()))
    }

    /// `x²`.
    #[pyo3(signature = () -> "Tensor")]
    fn square(&self) -> TResult {
        wrap(run(|| self.inner.square()))
    }

    /// GELU (`approximate="none"` or `"tanh"`).
    #[pyo3(signature = (approximate: "Literal['none', 'tanh']" = "none") -> "Tensor")]
    fn gelu(&self, approximate: &str) -> TResult {
        wrap(run(|| self.inner.gelu(approximate)))
    }

    /// SiLU, `x·σ(x)`.
    #[pyo3(signature = () -> "Tensor")]
    fn silu(&self) -> TResult {
        wrap(run(|| self.inner.silu()))
    }

    /// Softplus.
    #[pyo3(signature = (beta: "float" = 1.0, threshold: "float" = 20.0) -> "Tensor")]
    fn softplus(&self, beta: f64, threshold: f64) -> TResult {
        wrap(run(|| self.inner.softplus(beta, threshold)))
    }

    /// Leaky ReLU.
    #[pyo3(signature = (negative_slope: "float" = 0.01) -> "Tensor")]
    fn leaky_relu(&self, negative_slope: f64) -> TResult {
        wrap(run(|| self.inner.leaky_relu(negative_slope)))
    }

    /// ELU.
    #[pyo3(signature = (alpha: "float" = 1.0) -> "Tensor")]
    fn elu(&self, alpha: f64) -> TResult {
        wrap(run(|| self.inner.elu(alpha)))
    }

    /// Logical and of bool tensors (or truthiness of numbers).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn logical_and(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::And)
    }

    /// Logical or.
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn logical_or(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::Or)
    }

    /// Logical exclusive or.
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn logical_xor(&self, other: &Bound<'_, PyAny>) -> TResult {
        logical(&self.inner, other, LogicalOp::Xor)
    }

    /// Logical not.
    #[pyo3(signature = () -> "Tensor")]
    fn logical_not(&self) -> TResult {
        wrap(run(|| self.inner.logical_not()))
    }

    // stub: (self) -> Tensor
    fn __invert__(&self) -> TResult {
        if self.inner.dtype().is_floating_point() {
            return Err(PyTypeError::new_err(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors",
            ));
        }
        wrap(run(|| self.inner.bitwise_not()))
    }

    /// `~x` as a method: logical not for bool, the bitwise complement for integers.
    #[pyo3(signature = () -> "Tensor")]
    fn bitwise_not(&self) -> TResult {
        wrap(run(|| self.inner.bitwise_not()))
    }

    // pyo3 also exposes the reflected slots of the bitwise operators, but they take a tensor
    // on the left only (`True & x` raises TypeError), hence `other: Tensor` in their stubs
    // stub: (self, other: _Operand, /) -> Tensor
    // stub __rlshift__: (self, other: Tensor, /) -> Tensor
    fn __lshift__(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| self.inner.shift(&o, true)))
    }

    // stub: (self, other: _Operand, /) -> Tensor
    // stub __rrshift__: (self, other: Tensor, /) -> Tensor
    fn __rshift__(&self, other: &Bound<'_, PyAny>) -> TResult {
        let o = operand_tensor(other, self.inner.dtype())?;
        wrap(run(|| self.inner.shift(&o, false)))
    }

    /// `self << other` elementwise, for integer tensors.
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn bitwise_left_shift(&self, other: &Bound<'_, PyAny>) -> TResult {
        self.__lshift__(other)
    }

    /// `self >> other` elementwise (arithmetic shift), for integer tensors.
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn bitwise_right_shift(&self, other: &Bound<'_, PyAny>) -> TResult {
        self.__rshift__(other)
    }

    /// Bitwise and of integer tensors (logical and of bool ones).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn bitwise_and(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::And)
    }

    /// Bitwise or of integer tensors (logical or of bool ones).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn bitwise_or(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Or)
    }

    /// Bitwise exclusive or of integer tensors (logical xor of bool ones).
    #[pyo3(signature = (other: "_Operand") -> "Tensor")]
    fn bitwise_xor(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Xor)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    // stub __rand__: (self, other: Tensor, /) -> Tensor
    fn __and__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::And)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    // stub __ror__: (self, other: Tensor, /) -> Tensor
    fn __or__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Or)
    }

    // stub: (self, other: _Operand, /) -> Tensor
    // stub __rxor__: (self, other: Tensor, /) -> Tensor
    fn __xor__(&self, other: &Bound<'_, PyAny>) -> TResult {
        bitwise(&self.inner, other, LogicalOp::Xor)
    }

    /// True if any element is true (non-zero).
    #[pyo3(signature = (dim: "int | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn any(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| match dim {
            None => self.inner.any(),
            Some(d) => self.inner.any_dim(d, keepdim),
        }))
    }

    /// True if every element is true (non-zero).
    #[pyo3(signature = (dim: "int | None" = None, keepdim: "bool" = false) -> "Tensor")]
    fn all(&self, dim: Option<isize>, keepdim: bool) -> TResult {
        wrap(run(|| match dim {
            None => self.inner.all(),
            Some(d) => self.inner.all_dim(d, keepdim),
        }))
    }
}

pub(super) fn checked_arith(
    py: Python<'_>,
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    if operand_arg(other).is_none() {
        return Err(PyTypeError::new_err(format!(
            "expected a Tensor or a number as the operand, got {}",
            other.get_type().name()?
        )));
    }
    arith(py, op, t, other, false)
}

pub(super) fn with_alpha(
    py: Python<'_>,
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<f64>,
) -> PyResult<Py<PyAny>> {
    let Some(alpha) = alpha else {
        return checked_arith(py, op, t, other);
    };
    let o =
        operand_arg(other).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    let out = run_as(op.inplace_name().trim_end_matches('_'), || {
        crate::ops::pointwise::arithmetic::add_scaled(op, t, o.as_operand(), alpha)
    })?;
    to_object(py, out)
}

pub(super) fn inplace_alpha(
    op: BinaryOp,
    t: &Tensor,
    other: &Bound<'_, PyAny>,
    alpha: Option<f64>,
) -> PyResult<()> {
    let Some(alpha) = alpha else {
        return inplace(op, t, other);
    };
    let o =
        operand_arg(other).ok_or_else(|| PyTypeError::new_err("expected a Tensor or a number"))?;
    run(|| match o.as_operand() {
        Operand::Scalar(s) => t.binary_(op, Operand::Scalar(Scalar::Float(s.to_f64() * alpha))),
        Operand::Tensor(other) => t.binary_scaled_(op, other, alpha),
    })
}

/// A bound of `clamp`: absent (None), a number, or a tensor.
pub(super) fn bound_arg(
    obj: Option<&Bound<'_, PyAny>>,
    what: &str,
) -> PyResult<Option<OwnedOperand>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => operand_arg(o).map(Some).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "clamp(): argument '{what}' must be a number or a Tensor"
            ))
        }),
    }
}

pub(super) fn bitwise(t: &Tensor, other: &Bound<'_, PyAny>, op: LogicalOp) -> TResult {
    let o = operand_tensor(other, t.dtype())?;
    wrap(run(|| t.bitwise(op, &o)))
}

pub(super) fn logical(t: &Tensor, other: &Bound<'_, PyAny>, op: LogicalOp) -> TResult {
    let o = operand_tensor(other, DType::Bool)?;
    wrap(run(|| t.logical(op, &o)))
}

/// `self op other` for a dunder: NotImplemented when `other` is neither tensor nor number.
pub(super) fn arith(
    py: Python<'_>,
    op: BinaryOp,
    lhs: &Tensor,
    other: &Bound<'_, PyAny>,
    reflected: bool,
) -> PyResult<Py<PyAny>> {
    let Some(o) = operand_arg(other) else {
        return Ok(py.NotImplemented());
    };
    let me = Operand::Tensor(lhs);
    let (a, b) = if reflected {
        (o.as_operand(), me)
    } else {
        (me, o.as_operand())
    };
    let out = run_as(op.inplace_name().trim_end_matches('_'), || binary(op, a, b))?;
    to_object(py, out)
}

/// `t op= other` for an in-place operator or method: a TypeError when `other` is neither
/// tensor nor number.
pub(super) fn inplace(op: BinaryOp, t: &Tensor, other: &Bound<'_, PyAny>) -> PyResult<()> {
    let o = operand_arg(other).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "unsupported operand type for in-place {}: {}",
            op.inplace_name(),
            other
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    run_as(op.inplace_name(), || t.binary_(op, o.as_operand()))
}

/// A named comparison (`x.gt(y)`): as the operator, but a bad operand is a TypeError (an
/// operator returns NotImplemented so Python can try the other side).
fn compare_method(
    py: Python<'_>,
    t: &Tensor,
    op: CompareOp,
    other: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    let out = compare(py, t, op, other)?;
    if out.is(py.NotImplemented()) {
        return Err(PyTypeError::new_err(format!(
            "comparison received an invalid combination of arguments: got (Tensor, {})",
            other.get_type().name()?
        )));
    }
    Ok(out)
}
