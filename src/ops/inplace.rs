//! In-place ops. Each computes its result out of place, writes it into the tensor's storage,
//! bumps the shared version counter, and — when recording — moves the tensor's history onto the
//! new node (PyTorch's "rebase"), so later uses differentiate through the in-place op.

use crate::autograd::{is_recording, record, Save};
use crate::core::dispatch::{intercept, Call};
use crate::core::dtype::{DType, Scalar};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::is_grad_enabled;
use crate::core::layout::fmt_shape;
use crate::core::storage::Storage;
use crate::core::tensor::Tensor;
use crate::cpu::kernels::write_into;
use crate::ops::pointwise::arithmetic::{binary, BinaryOp};
use crate::ops::shape::strided::copy_slices;
use crate::ops::Operand;

/// Called with each tensor an in-place op is about to write into (see [`set_write_observer`]).
pub type WriteObserver = std::rc::Rc<dyn Fn(&Tensor) -> Result<()>>;

thread_local! {
    static WRITE_OBSERVER: std::cell::RefCell<Option<WriteObserver>> =
        const { std::cell::RefCell::new(None) };
}

/// Note [Observing in-place writes]: PyTorch's `allow_mutation_on_saved_tensors` intercepts
/// every op that writes into a tensor (a dispatch mode) and, before the write, clones the tensors
/// saved for backward that share the written memory. Here the in-place machinery itself calls
/// the observer installed on this thread, after the op's autograd checks pass and before its
/// data changes: in-place ops, `copy_`, and the optimizers' parameter updates. Returns the
/// observer installed before (`None`: no observer).
pub fn set_write_observer(observer: Option<WriteObserver>) -> Option<WriteObserver> {
    WRITE_OBSERVER.with(|o| o.replace(observer))
}

/// Tells this thread's write observer, if any, that `tensor` is about to be written.
pub(crate) fn observe_write(tensor: &Tensor) -> Result<()> {
    let observer = WRITE_OBSERVER.with(|o| o.borrow().clone());
    match observer {
        Some(observe) => observe(tensor),
        None => Ok(()),
    }
}

impl Tensor {
    /// An in-place op's checks before it writes into this tensor: PyTorch's autograd
    /// preconditions ([`Tensor::check_inplace`]), then the write observer.
    pub(crate) fn begin_write(&self, others: &[&Tensor]) -> Result<()> {
        self.check_inplace(others)?;
        observe_write(self)
    }

    /// Checks PyTorch's preconditions for writing into this tensor while grad mode is on;
    /// `others` are the op's other tensor inputs.
    pub(crate) fn check_inplace(&self, others: &[&Tensor]) -> Result<()> {
        if self.is_inference() && !crate::core::grad_mode::is_inference_mode_enabled() {
            return Err(Error::runtime(
                "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to \
                 get a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for \
                 more details.",
            ));
        }
        // a view made before its base required grad still writes into a tensor that does
        let requires_grad = self.requires_grad()
            || self.base().is_some_and(|b| b.requires_grad())
            || others.iter().any(|t| t.requires_grad());
        if !is_grad_enabled() || !requires_grad {
            return Ok(());
        }
        if self.base().is_some() {
            if let Some(refused) = crate::autograd::view_write_refused(self, false) {
                return Err(refused);
            }
        }
        if let Some(base) = self.base() {
            if base.is_leaf() && base.requires_grad() {
                return Err(Error::runtime(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation.",
                ));
            }
        }
        if self.is_leaf() && self.requires_grad() {
            return Err(Error::runtime(
                "a leaf Variable that requires grad is being used in an in-place operation. (Wrap the update in \
                 `with torch.no_grad():` to change a parameter, or use an out-of-place operation.)",
            ));
        }
        Ok(())
    }

    /// Runs the in-place op named `name`: `compute` maps the current value to the new one.
    ///
    /// `others` are the op's other tensor inputs (they decide whether the result is recorded).
    /// An in-place op on a wrapper tensor (Note [Tensor subclasses that dispatch]): its class
    /// writes (`call` is the in-place overload, whose returned tensors are ignored, as
    /// PyTorch's), and this tensor's version moves. Not yet while recording autograd history.
    fn dispatch_inplace(&self, name: &'static str, others: &[&Tensor], call: Call) -> Result<()> {
        self.begin_write(others)?;
        let mut inputs = vec![self];
        inputs.extend_from_slice(others);
        if is_recording(&inputs) {
            return Err(Error::not_implemented(format!(
                "{name}: an in-place op on a __torch_dispatch__ tensor subclass that records autograd \
                 history is not supported in ferrograd yet (run it under torch.no_grad(), or out of place)"
            )));
        }
        intercept(&inputs, || call).expect("a wrapper among the inputs")?;
        self.storage().bump_version(name);
        Ok(())
    }

    pub(crate) fn apply_inplace(
        &self,
        name: &'static str,
        others: &[&Tensor],
        compute: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        self.begin_write(others)?;
        self.check_memory_overlap(name, others)?;
        // a meta tensor has no values to write: the op runs on it for its checks (broadcast,
        // dtype) and the tensor is left as it is (Note [The meta device])
        let meta = self.is_meta();
        let mut inputs = vec![self];
        inputs.extend_from_slice(others);
        let recording = is_recording(&inputs) && !meta;
        // When recording, the op reads a snapshot carrying this tensor's history, so a formula that
        // needs the old value still has it after the write.
        let source = if recording {
            let snapshot = self.deep_copy();
            snapshot.set_grad_fn(self.meta().grad_fn.clone());
            snapshot
        } else {
            self.clone()
        };
        let result = compute(&source)?;
        if result.shape() != self.shape() {
            return Err(Error::runtime(format!(
                "output with shape {} doesn't match the broadcast shape {} (in-place {name})",
                fmt_shape(self.shape()),
                fmt_shape(result.shape())
            )));
        }
        self.check_result_dtype(result.dtype(), &format!(" (in-place {name})"))?;
        if meta {
            return Ok(());
        }
        write_into(self, &result);
        self.storage().bump_version(name);
        if recording {
            if let Some(edge) = result.meta().grad_fn.as_ref() {
                edge.node.rebind_saved_output(self, None);
            }
            let relative = self
                .base()
                .and_then(|b| Some((b, self.layout().relative_to(b.layout())?)));
            match relative {
                // written through a view: the base's history records the write (CopySlices)
                Some((base, relative)) => {
                    let history = copy_slices(base, self, &result, &relative)?;
                    self.set_grad_fn(history);
                }
                None => self.set_grad_fn(result.meta().grad_fn.clone()),
            }
        }
        Ok(())
    }

    /// PyTorch's refusal to write a result of dtype `result` into this tensor when its dtype
    /// cannot hold it (a float into an integer tensor); `context` ends the message.
    pub(crate) fn check_result_dtype(&self, result: DType, context: &str) -> Result<()> {
        if self.dtype().can_hold(result) {
            return Ok(());
        }
        Err(Error::runtime(format!(
            "result type {} can't be cast to the desired output type {}{context}",
            result.scalar_name(),
            self.dtype().scalar_name()
        )))
    }

    /// PyTorch's memory checks of an in-place op named `op` (after its autograd checks): no
    /// writing into a tensor whose elements share memory (an expanded one; `fill_`, `zero_`,
    /// `masked_fill_` and `index_put_` are exempt, as there), and no input sharing part of its
    /// memory (`x[1:].copy_(x[:-1])`, `x.add_(x.t())`): the result would depend on the order
    /// of the writes. Inputs that are exactly this tensor's elements (`x.add_(x)`) are fine.
    fn check_memory_overlap(&self, op: &str, others: &[&Tensor]) -> Result<()> {
        let idempotent = matches!(op, "fill_" | "zero_" | "masked_fill_" | "index_put_");
        if !idempotent && self.layout().has_internal_overlap() {
            return Err(Error::runtime(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.",
            ));
        }
        // `fill_`'s 0-d value is read once before the writes (PyTorch clones it when it is a
        // view of the tensor filled)
        let read_first = op == "fill_";
        for other in others.iter().filter(|_| !read_first) {
            if !Storage::same_elements(self.storage(), other.storage()) {
                continue;
            }
            let (mine, theirs) = (self.layout(), other.layout());
            if mine == theirs {
                continue;
            }
            if let (Some(a), Some(b)) = (mine.dense_extent(), theirs.dense_extent()) {
                // the same range with the same strides is a full overlap (allowed); a shared
                // part, or the same range with other strides, is not - strides compared as they
                // are, as PyTorch does, so `x.add_(x.t())` and also `y.sub_(y[0])` for a (1, n)
                // `y` are refused
                let same_order = a == b && mine.strides == theirs.strides;
                if !same_order && a.start < b.end && b.start < a.end {
                    return Err(Error::runtime(
                        "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.",
                    ));
                }
            }
        }
        Ok(())
    }

    /// `self op= other` for a tensor or scalar operand.
    pub fn binary_(&self, op: BinaryOp, other: Operand<'_>) -> Result<()> {
        let others = other.tensors();
        let mut inputs = others.clone();
        inputs.push(self);
        if !is_recording(&inputs) && self.try_binary_in_place(op, other)? {
            return Ok(());
        }
        self.apply_inplace(op.inplace_name(), &others, |x| {
            binary(op, Operand::Tensor(x), other)
        })
    }

    /// The fast path of an unrecorded `self op= other` on a contiguous float tensor: one pass
    /// over the storage under its write lock (the SGD update). Returns false when it does not apply.
    fn try_binary_in_place(&self, op: BinaryOp, other: Operand<'_>) -> Result<bool> {
        let dtype = self.dtype();
        let Some(range) = self.layout().contiguous_range() else {
            return Ok(false);
        };
        if !dtype.is_floating_point()
            || op == BinaryOp::Pow
            || self.base().is_some()
            || self.subclass().is_some()
        {
            return Ok(false);
        }
        let others = other.tensors();
        self.begin_write(&others)?;
        self.check_memory_overlap(op.inplace_name(), &others)?;
        let done = crate::with_float!(dtype, T => {
            let f = |a: T, b: T| match op {
                BinaryOp::Add => a + b,
                BinaryOp::Sub => a - b,
                BinaryOp::Mul => a * b,
                _ => a / b,
            };
            match other {
                Operand::Scalar(s) => {
                    let b = s.to_f64() as T;
                    let mut guard = self.storage().write();
                    guard.as_mut_slice::<T>()[range].iter_mut().for_each(|a| *a = f(*a, b));
                    true
                }
                Operand::Tensor(o) if crate::cpu::kernels::zip_into(self, o, f) => true,
                Operand::Tensor(o) if o.dtype() == dtype && !Storage::same_elements(o.storage(), self.storage()) => {
                    if crate::core::layout::broadcast_shapes(self.shape(), o.shape())?.as_slice() != self.shape() {
                        return Ok(false);
                    }
                    let values: Vec<T> = o.read(|d, l| crate::core::layout::gather(d, &l.broadcast_to(self.shape())));
                    let mut guard = self.storage().write();
                    for (a, &b) in guard.as_mut_slice::<T>()[range].iter_mut().zip(&values) {
                        *a = f(*a, b);
                    }
                    true
                }
                Operand::Tensor(_) => false,
            }
        });
        if done {
            self.storage().bump_version(op.inplace_name());
        }
        Ok(done)
    }

    /// `self op= alpha * other` for `op` add or sub (`add_(other, alpha=...)`): one pass when
    /// unrecorded and both are contiguous floats of the same shape (the SGD update).
    pub fn binary_scaled_(&self, op: BinaryOp, other: &Tensor, alpha: f64) -> Result<()> {
        let fast = matches!(op, BinaryOp::Add | BinaryOp::Sub)
            && self.dtype().is_floating_point()
            && self.base().is_none()
            && !is_recording(&[self, other]);
        self.begin_write(&[other])?;
        self.check_memory_overlap(op.inplace_name(), &[other])?;
        if fast {
            let done = crate::with_float!(self.dtype(), T => {
                let alpha = alpha as T;
                match op {
                    BinaryOp::Add => crate::cpu::kernels::zip_into(self, other, |a: T, b: T| a + b * alpha),
                    _ => crate::cpu::kernels::zip_into(self, other, |a: T, b: T| a - b * alpha),
                }
            });
            if done {
                self.storage().bump_version(op.inplace_name());
                return Ok(());
            }
        }
        self.binary_(op, Operand::Tensor(&other.mul_scalar(alpha)?))
    }

    /// `self += other`
    pub fn add_(&self, other: &Tensor) -> Result<()> {
        self.binary_(BinaryOp::Add, Operand::Tensor(other))
    }

    /// `self -= other`
    pub fn sub_(&self, other: &Tensor) -> Result<()> {
        self.binary_(BinaryOp::Sub, Operand::Tensor(other))
    }

    /// `self *= other`
    pub fn mul_(&self, other: &Tensor) -> Result<()> {
        self.binary_(BinaryOp::Mul, Operand::Tensor(other))
    }

    /// `self /= other`
    pub fn div_(&self, other: &Tensor) -> Result<()> {
        self.binary_(BinaryOp::Div, Operand::Tensor(other))
    }

    /// Applies a unary op in place (`exp_`, `relu_`, ...): `op` is the out-of-place version.
    pub fn unary_(
        &self,
        name: &'static str,
        op: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<()> {
        self.apply_inplace(name, &[], op)
    }

    /// Sets every element to `value`; the gradient to the old value is zero.
    pub fn fill_(&self, value: Scalar) -> Result<()> {
        if self.subclass().is_some() {
            let call = Call::new("fill_.Scalar", vec![self.into(), value.into()]);
            return self.dispatch_inplace("fill_", &[], call);
        }
        self.fill_named_("fill_", "FillBackward2", value)
    }

    /// Sets every element to the value of the 0-d tensor `value` (PyTorch's `fill_.Tensor`,
    /// `FillBackward3`): `value`'s gradient is the sum of this tensor's.
    pub fn fill_tensor_(&self, value: &Tensor) -> Result<()> {
        if value.dim() != 0 {
            return Err(Error::runtime(format!(
                "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                value.dim()
            )));
        }
        if self.subclass().is_some() || value.subclass().is_some() {
            let call = Call::new("fill_.Tensor", vec![self.into(), value.into()]);
            return self.dispatch_inplace("fill_", &[value], call);
        }
        self.apply_inplace("fill_", &[value], |x| {
            let out = Tensor::full(x.shape(), value.item()?.to_f64(), x.dtype());
            if !is_recording(&[x, value]) {
                return Ok(out);
            }
            Ok(record(out, "FillBackward3", &[x, value], &[], |ctx| {
                let g = ctx.grad(0);
                Ok(vec![Some(g.zeros_like()), Some(g.sum()?)])
            }))
        })
    }

    /// `fill_` under the name of the op that called it (`zero_`: `ZeroBackward0`).
    fn fill_named_(&self, op: &'static str, node: &'static str, value: Scalar) -> Result<()> {
        self.apply_inplace(op, &[], |x| {
            let out = Tensor::full(x.shape(), value.to_f64(), x.dtype());
            if !is_recording(&[x]) {
                return Ok(out);
            }
            Ok(record(out, node, &[x], &[], |ctx| {
                Ok(vec![Some(ctx.grad(0).zeros_like())])
            }))
        })
    }

    /// Sets every element to zero (nothing to set on the meta device).
    pub fn zero_(&self) -> Result<()> {
        if self.is_meta() {
            return Ok(());
        }
        self.fill_named_("zero_", "ZeroBackward0", Scalar::Float(0.0))
    }

    /// PyTorch's `x.data = y`, as a write of `y`'s values into `x`'s storage that autograd does
    /// not see (no version bump, no history): `x` keeps its identity, `.grad` and graph
    /// connections. Unlike PyTorch, `x` does not start sharing `y`'s storage, so `y` must have
    /// `x`'s shape and dtype.
    pub fn set_data(&self, src: &Tensor) -> Result<()> {
        if src.shape() != self.shape() || src.dtype() != self.dtype() {
            return Err(Error::runtime(format!(
                "ferrograd's `x.data = y` writes y's values into x, so it needs the same shape and dtype: x is {} {}, y is {} {}",
                self.dtype().scalar_name(),
                fmt_shape(self.shape()),
                src.dtype().scalar_name(),
                fmt_shape(src.shape())
            )));
        }
        write_into(self, &src.detach().deep_copy());
        Ok(())
    }

    /// Copies `src` (broadcast to this shape, converted to this dtype) into this tensor.
    pub fn copy_(&self, src: &Tensor) -> Result<()> {
        if self.subclass().is_some() || src.subclass().is_some() {
            let call = Call::new("copy_.default", vec![self.into(), src.into()]);
            return self.dispatch_inplace("copy_", &[src], call);
        }
        // outside autograd, between contiguous tensors of one shape and dtype: memcpy
        if !is_recording(&[self, src]) && self.shape() == src.shape() {
            self.begin_write(&[src])?;
            self.check_memory_overlap("copy_", &[src])?;
            if crate::cpu::kernels::copy_contiguous(self, src) {
                self.storage().bump_version("copy_");
                return Ok(());
            }
        }
        self.apply_inplace("copy_", &[src], |x| {
            let target: Vec<isize> = x.shape().iter().map(|&s| s as isize).collect();
            let out = src.expand(&target)?.detach().deep_copy();
            let out = crate::cpu::kernels::cast(&out, x.dtype());
            if !is_recording(&[x, src]) {
                return Ok(out);
            }
            Ok(record(
                out,
                "CopyBackwards",
                &[x, src],
                &[Save::Skip],
                |ctx| {
                    let g = ctx.grad(0);
                    Ok(vec![Some(g.zeros_like()), Some(g.clone())])
                },
            ))
        })
    }
}
