//! Pointwise float functions of two tensors (broadcast, promoted to a float dtype): the
//! derivative table, and the fused backward ops that the one-tensor table's formulas call.
//!
//! A backward op such as `tanh_backward(g, y) = g (1 - y²)` is an op like any other, with its
//! own row and its own derivative (PyTorch's `tanh_backward` and `TanhBackwardBackward0`): the
//! first-order backward runs its single fused kernel, and a second-order backward
//! differentiates exactly that op. Called on a [`Grad`] it writes its result over the
//! incoming gradient when the engine allows it.

use crate::autograd::{is_recording, record, Grad, Save};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast_ref, zip, zip_into};
use crate::ops::Operand;
use crate::ops::{float_dtype, result_type};
use crate::with_float;

/// The table of pointwise float functions of two tensors. Each row:
///
/// `method, in_place, "NodeName", |a, b| forward, |g, a, b, out| (d_a, d_b);`
///
/// `forward` is the value for one pair of elements (of float type `T`); `d_a` and `d_b` are
/// the gradients of the two inputs given the incoming gradient `g`, written with
/// differentiable ops (each evaluated only when its input needs a gradient). Both inputs are
/// saved, and the output when the derivative reads it (named `out`, not `_out`); a row ending
/// in `own_inputs` has formulas that each read only their own input, which is then saved only
/// when it needs a gradient (as PyTorch, so changing the other input in place afterwards is
/// no error). A row whose op also takes a Python number on either side (as
/// `torch.xlogy(2, x)`) names those forms' nodes after the main one:
/// `"Node0" numbers("NodeNumberSelf", "NodeNumberOther")`; the same formula serves them, with
/// the number as a 0-d constant. Invoked with a macro's path, it expands to that macro applied
/// to the rows.
#[macro_export]
macro_rules! binary_table {
    ($then:path) => {
        $then! {
            /// `x · ln(y)`, 0 where `x == 0` (unless `y` is NaN)
            xlogy, xlogy_, "XlogyBackward0" numbers("XlogyBackward1", "XlogyBackward2"),
                |x, y| if x == 0.0 && !y.is_nan() { 0.0 } else { x * y.ln() },
                |g, x, y, _out| (xlogy_self_part(g, x, y), g.mul(x)?.div(y));
            /// `sqrt(x² + y²)`
            hypot, hypot_, "HypotBackward0", |x, y| x.hypot(y),
                |g, x, y, out| (g.mul(x)?.div(out), g.mul(y)?.div(out)) own_inputs;
            /// the angle of the point `(other, self)`: `atan(self / other)` in the right quadrant
            atan2, atan2_, "Atan2Backward0", |y, x| y.atan2(x),
                |g, y, x, _out| (atan2_part(g, x, y, x), atan2_part(g, &y.neg()?, y, x));
        }
    };
}

/// The fused backward ops: rows as in [`binary_table!`](crate::binary_table), without in-place
/// twins. Each is also a method of [`Grad`] that may write over the incoming gradient.
#[macro_export]
macro_rules! backward_table {
    ($then:path) => {
        $then! {
            /// tanh's backward `g (1 - y²)` from its output `y`
            tanh_backward, -, "TanhBackwardBackward0", |g, y| g * (1.0 - y * y),
                |gg, g, y, _out| (gg.tanh_backward(y), gg.mul(g)?.mul(y)?.mul_scalar(-2.0));
            /// sigmoid's backward `g (1 - y) y` from its output `y`
            sigmoid_backward, -, "SigmoidBackwardBackward0", |g, y| g * (1.0 - y) * y,
                |gg, g, y, _out| (gg.sigmoid_backward(y), gg.mul(g)?.mul(&y.mul_scalar(-2.0)?.add_scalar(1.0)?));
            /// relu's backward: 0 where the output `y <= 0`, else `g` (a NaN output passes `g`)
            threshold_backward, -, "ThresholdBackwardBackward0", |g, y| if y <= 0.0 { 0.0 } else { g },
                |gg, _g, y, _out| (gg.threshold_backward(y), Ok(y.zeros_like()));
        }
    };
}

/// Whether a row's formulas may read both inputs: true unless the row ends in `own_inputs`.
macro_rules! reads_both {
    () => {
        true
    };
    (own_inputs) => {
        false
    };
}

/// A binary row's call as PyTorch names it (`threshold_backward` takes its threshold, 0).
fn binary_row_call(name: &'static str, a: &Tensor, b: &Tensor) -> Call {
    let mut args = vec![a.into(), b.into()];
    let op = match name {
        "xlogy" => "xlogy.Tensor",
        "hypot" => "hypot.default",
        "atan2" => "atan2.default",
        "tanh_backward" => "tanh_backward.default",
        "sigmoid_backward" => "sigmoid_backward.default",
        "threshold_backward" => {
            args.push(Arg::Int(0));
            "threshold_backward.default"
        }
        _ => "unknown.default",
    };
    Call::new(op, args)
}

/// Defines the ops of the rows: each method, its in-place twin (or, for `-`, a fused method
/// of [`Grad`]), the form taking operands that may be numbers, and the list of rows.
macro_rules! define_binary_ops {
    ($list:ident: $( $(#[$doc:meta])* $name:ident, $inplace:tt, $node:literal $(numbers($self_node:literal, $other_node:literal))?,
        |$a:ident, $b:ident| $fwd:expr, |$g:ident, $sa:ident, $sb:ident, $so:ident| ($da:expr, $db:expr) $($own:ident)?; )*) => {
        impl Tensor {
            $(
                $(#[$doc])*
                pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
                    let dtype = float_dtype(result_type(self, other));
                    let out = match intercept1(&[self, other], || binary_row_call(stringify!($name), self, other)) {
                        Some(dispatched) => dispatched?,
                        None => {
                            let (a, b) = (cast_ref(self, dtype), cast_ref(other, dtype));
                            with_float!(dtype, T => zip(&a, &b, |$a: T, $b: T| -> T { $fwd })?)
                        }
                    };
                    if !is_recording(&[self, other]) {
                        return Ok(out);
                    }
                    let both = reads_both!($($own)?);
                    let saves = [
                        Save::when(self, both || self.requires_grad()),
                        Save::when(other, both || other.requires_grad()),
                        output_save!($so),
                    ];
                    Ok(record(out, $node, &[self, other], &saves, |ctx| {
                        // a plain tensor: the two formulas both read it, neither may write over it
                        let $g = ctx.grad(0);
                        // an input left unsaved is read by no formula that runs (`own_inputs`):
                        // an empty stand-in, which would fail loudly if one did
                        let none = Tensor::zeros(&[0], $g.dtype());
                        let ($sa, $sb) = (
                            ctx.saved_opt(0).unwrap_or(&none),
                            ctx.saved_opt(1).unwrap_or(&none),
                        );
                        bind_output!(ctx, 2, $so);
                        let da = if ctx.needs_input_grad(0) { Some($da?) } else { None };
                        let db = if ctx.needs_input_grad(1) { Some($db?) } else { None };
                        Ok(vec![da, db])
                    }))
                }
                twin!($inplace, $name, |$a, $b| $fwd);
            )*
        }

        /// The rows: (method, in-place twin or `-`, PyTorch's node name).
        pub const $list: &[(&str, &str, &str)] = &[$((stringify!($name), stringify!($inplace), $node)),*];
    };
}

/// For each row, `Tensor::<name>_operands(a, b)`: the op where either side may be a Python
/// number, for the rows that allow it (`numbers(...)`); others refuse numbers, as PyTorch.
macro_rules! define_operand_forms {
    ($( $(#[$doc:meta])* $name:ident, $inplace:ident, $node:literal $(numbers($self_node:literal, $other_node:literal))?,
        |$a:ident, $b:ident| $fwd:expr, |$g:ident, $sa:ident, $sb:ident, $so:ident| ($da:expr, $db:expr) $($own:ident)?; )*) => {
        /// The ops of the rows with operands that may be Python numbers.
        pub mod operands {
            use super::*;
            $(
                #[doc = concat!("`", stringify!($name), "(a, b)` where either side may be a Python number.")]
                pub fn $name(a: Operand<'_>, b: Operand<'_>) -> Result<Tensor> {
                    match (a, b) {
                        (Operand::Tensor(a), Operand::Tensor(b)) => a.$name(b),
                        $(
                            (Operand::Tensor(x), Operand::Scalar(s)) => {
                                let c = Tensor::scalar_of(s.to_f64(), float_dtype(x.dtype()));
                                let out = number_forward(|| x.$name(&c))?;
                                if !is_recording(&[x]) {
                                    return Ok(out);
                                }
                                let saves = [Save::Tensor(x), output_save!($so)];
                                Ok(record(out, $other_node, &[x], &saves, move |ctx| {
                                    let $g = ctx.grad(0);
                                    let ($sa, $sb) = (ctx.saved(0), &c);
                                    let _ = ($sa, $sb); // a formula may not read both
                                    bind_output!(ctx, 1, $so);
                                    Ok(vec![Some($da?)])
                                }))
                            }
                            (Operand::Scalar(s), Operand::Tensor(x)) => {
                                let c = Tensor::scalar_of(s.to_f64(), float_dtype(x.dtype()));
                                let out = number_forward(|| c.$name(x))?;
                                if !is_recording(&[x]) {
                                    return Ok(out);
                                }
                                let saves = [Save::Tensor(x), output_save!($so)];
                                Ok(record(out, $self_node, &[x], &saves, move |ctx| {
                                    let $g = ctx.grad(0);
                                    let ($sa, $sb) = (&c, ctx.saved(0));
                                    let _ = ($sa, $sb); // a formula may not read both
                                    bind_output!(ctx, 1, $so);
                                    Ok(vec![Some($db?)])
                                }))
                            }
                        )?
                        _ => Err(Error::type_error(format!(
                            "{}() expects tensors for both arguments (got a number)",
                            stringify!($name)
                        ))),
                    }
                }

                #[doc = concat!("In-place `", stringify!($name), "` where `other` may be a Python number.")]
                pub fn $inplace(x: &Tensor, other: Operand<'_>) -> Result<()> {
                    let others: Vec<&Tensor> = match other {
                        Operand::Tensor(t) => vec![t],
                        Operand::Scalar(_) => vec![],
                    };
                    x.apply_inplace(stringify!($inplace), &others, |x| $name(Operand::Tensor(x), other))
                }
            )*
        }
    };
}

/// The value of a number form, computed without recording (the caller records its own node).
fn number_forward(f: impl FnOnce() -> Result<Tensor>) -> Result<Tensor> {
    let _untracked = GradModeGuard::new(false);
    f()
}

/// xlogy's derivative in `x`: `xlogy(g, y)`, taken as 0 where `x == 0` and `y <= 0` (PyTorch's
/// formula: there `log y` is not finite, and the output is 0 whatever `x`'s small change).
fn xlogy_self_part(g: &Tensor, x: &Tensor, y: &Tensor) -> Result<Tensor> {
    use crate::ops::pointwise::comparison::{CompareOp, LogicalOp};
    let zero = |t: &Tensor, op| t.compare(op, Operand::Scalar(crate::Scalar::Float(0.0)));
    let flat = zero(x, CompareOp::Eq)?.logical(LogicalOp::And, &zero(y, CompareOp::Le)?)?;
    let part = g.xlogy(y)?;
    Tensor::where_(&flat, &Tensor::scalar_of(0.0, part.dtype()), &part)
}

/// One of atan2's derivatives, `g · numerator · recip` with `recip = 1 / (y² + x²)` taken as 0
/// where it is infinite (the origin), as PyTorch: a NaN `g` stays NaN, and the second
/// derivative at the origin is NaN (through the reciprocal), as there.
fn atan2_part(g: &Tensor, numerator: &Tensor, y: &Tensor, x: &Tensor) -> Result<Tensor> {
    let recip = y.mul(y)?.add(&x.mul(x)?)?.reciprocal()?;
    let recip = Tensor::where_(
        &recip.isinf()?,
        &Tensor::scalar_of(0.0, recip.dtype()),
        &recip,
    )?;
    g.mul(numerator)?.mul(&recip)
}

/// Whether a row saves its output: only when its derivative names it (`out`, not `_out`), so
/// an in-place op on the output does not break a formula that never reads it.
macro_rules! output_save {
    (_out) => {
        Save::Skip
    };
    ($out:ident) => {
        Save::Output
    };
}

/// Binds the saved output (slot `$i`) to the row's name for it, when the row reads it.
macro_rules! bind_output {
    ($ctx:ident, $i:literal, _out) => {};
    ($ctx:ident, $i:literal, $out:ident) => {
        let $out = $ctx.saved($i);
    };
}

/// The in-place twin of a row (`xlogy_`), or for `-` the row's fused method of [`Grad`].
macro_rules! twin {
    (-, $name:ident, |$a:ident, $b:ident| $fwd:expr) => {};
    ($inplace:ident, $name:ident, |$a:ident, $b:ident| $fwd:expr) => {
        #[doc = concat!("In-place [`Tensor::", stringify!($name), "`].")]
        pub fn $inplace(&self, other: &Tensor) -> Result<()> {
            self.apply_inplace(stringify!($inplace), &[other], |x| x.$name(other))
        }
    };
}

/// Each fused backward op as a method of [`Grad`], written over the gradient when allowed.
macro_rules! define_fused_methods {
    ($list:ident: $( $(#[$doc:meta])* $name:ident, -, $node:literal, |$a:ident, $b:ident| $fwd:expr,
        |$g:ident, $sa:ident, $sb:ident, $so:ident| ($da:expr, $db:expr) $($own:ident)?; )*) => {
        impl Grad<'_, '_> {
            $(
                $(#[$doc])*
                ///
                /// Written over the incoming gradient when the engine no longer needs it.
                pub fn $name(&self, other: &Tensor) -> Result<Tensor> {
                    if let Some(g) = self.spent() {
                        if g.dtype() == other.dtype() && g.dtype().is_floating_point() {
                            let written =
                                with_float!(g.dtype(), T => zip_into(g, other, |$a: T, $b: T| -> T { $fwd }));
                            if written {
                                return Ok(g.clone());
                            }
                        }
                    }
                    Tensor::$name(self, other)
                }
            )*
        }
    };
}

macro_rules! define_binary_table {
    ($($rows:tt)*) => {
        define_binary_ops!(BINARY_OPS: $($rows)*);
        define_operand_forms!($($rows)*);
    };
}

macro_rules! define_backward_table {
    ($($rows:tt)*) => {
        define_binary_ops!(BACKWARD_OPS: $($rows)*);
        define_fused_methods!(BACKWARD_OPS: $($rows)*);
    };
}

crate::binary_table!(define_binary_table);
crate::backward_table!(define_backward_table);

impl Grad<'_, '_> {
    /// `g * other`, written over the incoming gradient when the engine no longer needs it;
    /// for the formula's last use of `g` (as in `MulBackward0`).
    pub fn mul_last_use(&self, other: &Tensor) -> Result<Tensor> {
        if let Some(g) = self.spent() {
            if g.dtype() == other.dtype() && g.dtype().is_floating_point() {
                let written = with_float!(g.dtype(), T => zip_into(g, other, |a: T, b: T| a * b));
                if written {
                    return Ok(g.clone());
                }
            }
        }
        Tensor::mul(self, other)
    }
}

impl Tensor {
    /// `ln(eˣ + eʸ)` without overflow (`LogaddexpBackward0`): `max + ln(1 + e^-|x-y|)`, and
    /// the shared value where both are the same infinity, as PyTorch.
    pub fn logaddexp(&self, other: &Tensor) -> Result<Tensor> {
        self.log_add_exp(other, false)
    }

    /// `log₂(2ˣ + 2ʸ)` without overflow (`Logaddexp2Backward0`).
    pub fn logaddexp2(&self, other: &Tensor) -> Result<Tensor> {
        self.log_add_exp(other, true)
    }

    fn log_add_exp(&self, other: &Tensor, base2: bool) -> Result<Tensor> {
        let promoted = result_type(self, other);
        if !promoted.is_floating_point() {
            let op = if base2 { "logaddexp2" } else { "logaddexp" };
            return Err(Error::not_implemented(format!(
                "\"{op}_cpu\" not implemented for '{}'",
                promoted.scalar_name()
            )));
        }
        let dtype = float_dtype(promoted);
        let (a, b) = (cast_ref(self, dtype), cast_ref(other, dtype));
        let out = with_float!(dtype, T => zip(&a, &b, |x: T, y: T| -> T {
            if x.is_infinite() && x == y {
                x
            } else if base2 {
                let m = x.max(y);
                m + (-(x - y).abs()).exp2().ln_1p() * (1.0 / std::f64::consts::LN_2) as T
            } else {
                let m = x.max(y);
                m + (-(x - y).abs()).exp().ln_1p()
            }
        })?);
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        let name = if base2 {
            "Logaddexp2Backward0"
        } else {
            "LogaddexpBackward0"
        };
        let saves = [Save::Tensor(self), Save::Tensor(other)];
        Ok(record(out, name, &[self, other], &saves, move |ctx| {
            let (g, x, y) = (ctx.grad(0), ctx.saved(0), ctx.saved(1));
            // d/dx = 1 / (1 + b^(y - x)), and symmetrically
            let part = |from: &Tensor, to: &Tensor| -> Result<Tensor> {
                let d = to.sub(from)?;
                let e = if base2 { d.exp2()? } else { d.exp()? };
                g.div(&e.add_scalar(1.0)?)
            };
            let dx = if ctx.needs_input_grad(0) {
                Some(part(x, y)?)
            } else {
                None
            };
            let dy = if ctx.needs_input_grad(1) {
                Some(part(y, x)?)
            } else {
                None
            };
            Ok(vec![dx, dy])
        }))
    }
}
