//! Loss functions recorded as one node each, as PyTorch records them (`MseLossBackward0`,
//! `HuberLossBackward0`, `SmoothL1LossBackward0`, `BinaryCrossEntropyBackward0`,
//! `BinaryCrossEntropyWithLogitsBackward0`, `NllLossBackward0`): the forward is computed
//! without recording, and one backward formula per loss, written with ops so it differentiates
//! again. Losses that PyTorch composes from other ops (`l1_loss`, `kl_div`, `cross_entropy`
//! with probabilities, the margin losses) are composed in `nn.functional` the same way.

use crate::autograd::{is_recording, record, Save};
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::grad_mode::no_grad;
use crate::core::tensor::Tensor;
use crate::ops::pointwise::comparison::CompareOp;
use crate::ops::{result_type, Operand};
use std::sync::Arc;

/// How a loss reduces its elementwise values (PyTorch's `reduction=`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// The elementwise losses themselves.
    None,
    /// Their mean.
    Mean,
    /// Their sum.
    Sum,
}

impl Reduction {
    /// `"none"`, `"mean"` or `"sum"`; anything else is PyTorch's ValueError.
    pub fn parse(name: &str) -> Result<Reduction> {
        match name {
            "none" => Ok(Reduction::None),
            "mean" => Ok(Reduction::Mean),
            "sum" => Ok(Reduction::Sum),
            other => Err(Error::value(format!(
                "{other} is not a valid value for reduction"
            ))),
        }
    }

    /// The reduced value of elementwise losses `l`.
    fn apply(self, l: &Tensor) -> Result<Tensor> {
        match self {
            Reduction::None => Ok(l.clone()),
            Reduction::Mean => l.mean(),
            Reduction::Sum => l.sum(),
        }
    }

    /// The gradient of the reduction: `g` spread over `shape` (divided by the count for a mean).
    fn spread(self, g: &Tensor, shape: &[usize]) -> Result<Tensor> {
        let dims: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
        match self {
            Reduction::None => Ok(g.clone()),
            Reduction::Sum => g.expand(&dims),
            Reduction::Mean => {
                let n = shape.iter().product::<usize>();
                g.div_scalar(n as f64)?.expand(&dims)
            }
        }
    }
}

/// `input` and `target` as floating tensors of their common type and shape (broadcast).
fn operands(input: &Tensor, target: &Tensor, op: &str) -> Result<(Tensor, Tensor)> {
    let dtype = result_type(input, target);
    if !dtype.is_floating_point() {
        return Err(Error::not_implemented(format!(
            "\"{op}\" not implemented for '{}'",
            dtype.scalar_name()
        )));
    }
    let shape = crate::core::layout::broadcast_shapes(input.shape(), target.shape())?.to_vec();
    let dims: Vec<isize> = shape.iter().map(|&s| s as isize).collect();
    let cast = |t: &Tensor| -> Result<Tensor> {
        let t = if t.dtype() == dtype {
            t.clone()
        } else {
            t.to_dtype(dtype)?
        };
        if t.shape() == shape.as_slice() {
            Ok(t)
        } else {
            t.expand(&dims)
        }
    };
    Ok((cast(input)?, cast(target)?))
}

/// The slope of a loss of the difference `d = input - target`, as ops of `d`.
type Slope = Arc<dyn Fn(&Tensor) -> Result<Tensor> + Send + Sync>;

/// A loss of `d = input - target` elementwise: `value(d)` forward, `slope(d)·g` back to the
/// input and its negation to the target.
fn difference_loss(
    input: &Tensor,
    target: &Tensor,
    reduction: Reduction,
    (op, node): (&str, &'static str),
    value: impl Fn(&Tensor) -> Result<Tensor>,
    slope: Slope,
) -> Result<Tensor> {
    let (x, t) = operands(input, target, op)?;
    let out = no_grad(|| reduction.apply(&value(&x.sub(&t)?)?))?;
    if !is_recording(&[&x, &t]) {
        return Ok(out);
    }
    Ok(record(
        out,
        node,
        &[&x, &t],
        &[Save::Tensor(&x), Save::Tensor(&t)],
        move |ctx| {
            let (x, t) = (ctx.saved(0), ctx.saved(1));
            let gi = reduction
                .spread(ctx.grad(0), x.shape())?
                .mul(&slope(&x.sub(t)?)?)?;
            let gt = if ctx.needs_input_grad(1) {
                Some(gi.neg()?)
            } else {
                None
            };
            Ok(vec![Some(gi), gt])
        },
    ))
}

/// `|d| < bound` as a float mask of `d`'s dtype.
fn inside(d: &Tensor, bound: f64) -> Result<Tensor> {
    d.abs()?
        .compare(CompareOp::Lt, Operand::Scalar(bound.into()))?
        .to_dtype(d.dtype())
}

impl Tensor {
    /// Mean squared error, `(input - target)²` reduced; derivative `2(input - target)`.
    pub fn mse_loss(&self, target: &Tensor, reduction: Reduction) -> Result<Tensor> {
        difference_loss(
            self,
            target,
            reduction,
            ("mse_cpu", "MseLossBackward0"),
            |d| d.mul(d),
            Arc::new(|d| d.mul_scalar(2.0)),
        )
    }

    /// Huber loss: `d²/2` where `|d| < delta`, else `delta·(|d| - delta/2)`; derivative
    /// `d` clamped to `[-delta, delta]`.
    pub fn huber_loss(&self, target: &Tensor, reduction: Reduction, delta: f64) -> Result<Tensor> {
        if delta <= 0.0 {
            return Err(Error::runtime(
                "huber_loss does not support non-positive values for delta.",
            ));
        }
        difference_loss(
            self,
            target,
            reduction,
            ("huber_cpu", "HuberLossBackward0"),
            move |d| {
                let z = d.abs()?;
                let quadratic = d.mul(d)?.mul_scalar(0.5)?;
                let linear = z.add_scalar(-0.5 * delta)?.mul_scalar(delta)?;
                Tensor::where_(&inside(d, delta)?.truth()?, &quadratic, &linear)
            },
            Arc::new(move |d| d.clamp(Some(-delta), Some(delta))),
        )
    }

    /// Smooth L1 loss: `d²/(2·beta)` where `|d| < beta`, else `|d| - beta/2`; derivative `d/beta`
    /// clamped to `[-1, 1]`. (`beta = 0` is the L1 loss, composed in `nn.functional`.)
    pub fn smooth_l1_loss(
        &self,
        target: &Tensor,
        reduction: Reduction,
        beta: f64,
    ) -> Result<Tensor> {
        if beta < 0.0 {
            return Err(Error::runtime(
                "smooth_l1_loss does not support negative values for beta.",
            ));
        }
        difference_loss(
            self,
            target,
            reduction,
            ("smooth_l1_cpu", "SmoothL1LossBackward0"),
            move |d| {
                let z = d.abs()?;
                let quadratic = d.mul(d)?.mul_scalar(0.5 / beta)?;
                let linear = z.add_scalar(-0.5 * beta)?;
                Tensor::where_(&inside(d, beta)?.truth()?, &quadratic, &linear)
            },
            Arc::new(move |d| d.div_scalar(beta)?.clamp(Some(-1.0), Some(1.0))),
        )
    }

    /// Binary cross-entropy of probabilities `self` against `target`:
    /// `-w·(t·log x + (1 - t)·log(1 - x))` with each log floored at -100, as PyTorch.
    pub fn binary_cross_entropy(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        reduction: Reduction,
    ) -> Result<Tensor> {
        let (x, t) = operands(self, target, "binary_cross_entropy")?;
        let outside = x
            .compare(CompareOp::Lt, Operand::Scalar(0.0.into()))?
            .logical(
                crate::ops::pointwise::comparison::LogicalOp::Or,
                &x.compare(CompareOp::Gt, Operand::Scalar(1.0.into()))?,
            )?
            .any()?
            .item()?;
        if outside.to_f64() != 0.0 {
            return Err(Error::runtime(
                "all elements of input should be between 0 and 1",
            ));
        }
        let w = weight_for(weight, &x)?;
        let floored_log = |v: &Tensor| -> Result<Tensor> { v.log()?.clamp(Some(-100.0), None) };
        let out = no_grad(|| {
            let pos = t.mul(&floored_log(&x)?)?;
            let neg = t
                .rsub_scalar(1.0)?
                .mul(&floored_log(&x.rsub_scalar(1.0)?)?)?;
            let mut l = pos.add(&neg)?.neg()?;
            if let Some(w) = &w {
                l = l.mul(w)?;
            }
            reduction.apply(&l)
        })?;
        if !is_recording(&[&x, &t]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "BinaryCrossEntropyBackward0",
            &[&x, &t],
            &[Save::Tensor(&x), Save::Tensor(&t)],
            move |ctx| {
                let (x, t) = (ctx.saved(0), ctx.saved(1));
                let mut g = reduction.spread(ctx.grad(0), x.shape())?;
                if let Some(w) = &w {
                    g = g.mul(w)?;
                }
                // d/dx = (x - t) / max(x(1 - x), 1e-12)
                let gi = g
                    .mul(&x.sub(t)?)?
                    .div(&x.mul(&x.rsub_scalar(1.0)?)?.clamp(Some(1e-12), None)?)?;
                let gt = match ctx.needs_input_grad(1) {
                    // d/dt = log(1 - x) - log(x), each floored at -100
                    true => {
                        Some(g.mul(&floored_log(&x.rsub_scalar(1.0)?)?.sub(&floored_log(x)?)?)?)
                    }
                    false => None,
                };
                Ok(vec![Some(gi), gt])
            },
        ))
    }

    /// Binary cross-entropy of logits `self` against `target`, as PyTorch computes it:
    /// `(1 - t)·x - (1 + (pos_weight - 1)·t)·log σ(x)`, times `weight`.
    pub fn binary_cross_entropy_with_logits(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        pos_weight: Option<&Tensor>,
        reduction: Reduction,
    ) -> Result<Tensor> {
        let (x, t) = operands(self, target, "binary_cross_entropy_with_logits")?;
        let w = weight_for(weight, &x)?;
        let pw = match pos_weight {
            Some(p) => Some(p.detach().to_dtype(x.dtype())?),
            None => None,
        };
        let out = no_grad(|| {
            let log_weight = match &pw {
                Some(p) => p.add_scalar(-1.0)?.mul(&t)?.add_scalar(1.0)?,
                None => Tensor::scalar_of(1.0, x.dtype()),
            };
            let mut l = t
                .rsub_scalar(1.0)?
                .mul(&x)?
                .sub(&log_weight.mul(&log_sigmoid(&x)?)?)?;
            if let Some(w) = &w {
                l = l.mul(w)?;
            }
            reduction.apply(&l)
        })?;
        if !is_recording(&[&x, &t]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "BinaryCrossEntropyWithLogitsBackward0",
            &[&x, &t],
            &[Save::Tensor(&x), Save::Tensor(&t)],
            move |ctx| {
                let (x, t) = (ctx.saved(0), ctx.saved(1));
                let mut g = reduction.spread(ctx.grad(0), x.shape())?;
                if let Some(w) = &w {
                    g = g.mul(w)?;
                }
                let gi = match &pw {
                    // ((pos_weight·t + 1 - t)·σ(x) - pos_weight·t)
                    Some(p) => {
                        let pt = p.mul(t)?;
                        pt.add_scalar(1.0)?.sub(t)?.mul(&x.sigmoid()?)?.sub(&pt)?
                    }
                    None => x.sigmoid()?.sub(t)?,
                };
                let gt = match (ctx.needs_input_grad(1), &pw) {
                    (false, _) => None,
                    // log σ(-x) - pos_weight·log σ(x)
                    (true, Some(p)) => {
                        Some(g.mul(&log_sigmoid(&x.neg()?)?.sub(&p.mul(&log_sigmoid(x)?)?)?)?)
                    }
                    (true, None) => Some(g.mul(&x.neg()?)?),
                };
                Ok(vec![Some(g.mul(&gi)?), gt])
            },
        ))
    }

    /// Negative log-likelihood of class indices `target` under log-probabilities `self`
    /// (classes along dim 1, or dim 0 of a 1-D input): `-weight[t]·input[t]`, nothing for
    /// `ignore_index`; the mean divides by the summed weights of the counted targets.
    pub fn nll_loss(
        &self,
        target: &Tensor,
        weight: Option<&Tensor>,
        reduction: Reduction,
        ignore_index: i64,
    ) -> Result<Tensor> {
        if self.dim() == 3 {
            // PyTorch computes a 3-D input as 4-D (N, C, d, 1) and views the result back
            let x4 = self.unsqueeze(3)?;
            let out = x4.nll_loss(&target.unsqueeze(-1)?, weight, reduction, ignore_index)?;
            return match reduction {
                Reduction::None => out.reshape(&[out.shape()[0] as isize, out.shape()[1] as isize]),
                _ => Ok(out),
            };
        }
        let plan = NllPlan::new(self, target, weight, ignore_index)?;
        let x = self;
        let class_dim = plan.class_dim;
        let (out, total_weight) = no_grad(|| {
            let picked = x
                .gather(class_dim, &plan.safe_target)?
                .squeeze_dim(class_dim)?;
            let losses = picked.mul(&plan.target_weight)?.neg()?;
            let total_weight = plan.target_weight.sum()?;
            let out = match reduction {
                Reduction::None => losses,
                Reduction::Sum => losses.sum()?,
                Reduction::Mean => losses.sum()?.div(&total_weight)?,
            };
            Ok::<_, Error>((out, total_weight))
        })?;
        if !is_recording(&[x]) {
            return Ok(out);
        }
        let node = if x.dim() >= 3 {
            "NllLoss2DBackward0"
        } else {
            "NllLossBackward0"
        };
        // the gradient lands on the picked class: -weight[t] there, zero elsewhere (so nothing,
        // not NaN, when every target is ignored)
        let (picks, divisor) = no_grad(|| {
            let picks = x.zeros_like().scatter_add(
                class_dim,
                &plan.safe_target,
                &plan.target_weight.neg()?.unsqueeze(class_dim)?,
            )?;
            let counted = total_weight.compare(CompareOp::Ne, Operand::Scalar(0.0.into()))?;
            let divisor = Tensor::where_(&counted, &total_weight, &total_weight.ones_like())?;
            Ok::<_, Error>((picks, divisor))
        })?;
        Ok(record(out, node, &[x], &[], move |ctx| {
            let g = ctx.grad(0);
            let g = match reduction {
                Reduction::None => g.unsqueeze(class_dim)?,
                Reduction::Sum => g.clone(),
                Reduction::Mean => g.div(&divisor)?,
            };
            Ok(vec![Some(picks.mul(&g)?)])
        }))
    }
}

/// `log σ(x) = min(x, 0) - log1p(e^-|x|)`, stable everywhere.
fn log_sigmoid(x: &Tensor) -> Result<Tensor> {
    x.clamp(None, Some(0.0))?
        .sub(&x.abs()?.neg()?.exp()?.log1p()?)
}

/// A loss weight as a constant of `x`'s dtype broadcast to `x`'s shape.
fn weight_for(weight: Option<&Tensor>, x: &Tensor) -> Result<Option<Tensor>> {
    let Some(w) = weight else { return Ok(None) };
    let dims: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
    Ok(Some(w.detach().to_dtype(x.dtype())?.expand(&dims)?))
}

/// What `nll_loss` needs from its arguments once they are checked: the class dimension, the
/// target with ignored entries pointed at class 0 (shaped for `gather`), and each target's
/// weight (zero where ignored).
struct NllPlan {
    class_dim: isize,
    safe_target: Tensor,
    target_weight: Tensor,
}

impl NllPlan {
    fn new(
        x: &Tensor,
        target: &Tensor,
        weight: Option<&Tensor>,
        ignore_index: i64,
    ) -> Result<NllPlan> {
        if x.dim() == 0 || !x.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "nll_loss expects a floating input of at least 1 dimension, got {}-D {}",
                x.dim(),
                x.dtype().scalar_name()
            )));
        }
        if x.dim() >= 2 && target.dim() >= 1 && target.shape()[0] != x.shape()[0] {
            return Err(Error::value(format!(
                "Expected input batch_size ({}) to match target batch_size ({}).",
                x.shape()[0],
                target.shape()[0]
            )));
        }
        if x.dim() <= 2 && target.dim() > 1 {
            return Err(Error::runtime(
                "0D or 1D target tensor expected, multi-target not supported",
            ));
        }
        if !matches!(target.dtype(), DType::Int64 | DType::UInt8) {
            return Err(Error::runtime(format!(
                "expected target dtype to be Long or Byte, but got {}",
                target.dtype().scalar_name()
            )));
        }
        let target = &crate::cpu::kernels::cast(target, DType::Int64);
        // a 1-D input is one sample: classes along dim 0
        let (class_dim, classes) = if x.dim() == 1 {
            (0, x.shape()[0])
        } else {
            (1, x.shape()[1])
        };
        let expected: Vec<usize> = match x.dim() {
            1 => vec![],
            _ => x
                .shape()
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != 1)
                .map(|(_, &s)| s)
                .collect(),
        };
        let target_ok =
            target.shape() == expected.as_slice() || (x.dim() == 1 && target.shape() == [1]);
        if !target_ok {
            return Err(Error::runtime(format!(
                "Expected target size {:?}, got {:?}",
                expected,
                target.shape()
            )));
        }
        let target = target.reshape(&expected.iter().map(|&s| s as isize).collect::<Vec<_>>())?;
        if let Some(w) = weight {
            if w.numel() != classes || w.dim() != 1 {
                return Err(Error::runtime(format!(
                    "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: {:?}",
                    w.shape()
                )));
            }
        }
        let labels = target.contiguous()?.to_vec::<i64>()?;
        let weights = match weight {
            Some(w) => w.to_dtype(DType::Float64)?.contiguous()?.to_vec::<f64>()?,
            None => vec![1.0; classes],
        };
        let mut safe = Vec::with_capacity(labels.len());
        let mut picked_weight = Vec::with_capacity(labels.len());
        for &t in &labels {
            if t == ignore_index {
                safe.push(0);
                picked_weight.push(0.0);
            } else if t < 0 || t as usize >= classes {
                return Err(Error::index(format!("Target {t} is out of bounds.")));
            } else {
                safe.push(t);
                picked_weight.push(weights[t as usize]);
            }
        }
        let shape = target.shape().to_vec();
        let safe_target = Tensor::from_vec(safe, &shape)?.unsqueeze(class_dim)?;
        let target_weight = Tensor::from_vec(picked_weight, &shape)?.to_dtype(x.dtype())?;
        Ok(NllPlan {
            class_dim,
            safe_target,
            target_weight,
        })
    }
}
