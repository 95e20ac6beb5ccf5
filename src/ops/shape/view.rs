//! Views: tensors that share their base's storage and version counter, with new shape and strides.
//! Each backward maps the gradient back to the input's shape.

use crate::autograd::{is_recording, record, record_part};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, normalize_dim, Dims, Layout, Part};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::write_into;
use smallvec::SmallVec;

/// PyTorch's node name for the backward of taking `part`.
fn part_node_name(part: Part) -> &'static str {
    match part {
        Part::Select { .. } => "SelectBackward0",
        Part::Slice { .. } => "SliceBackward0",
    }
}

/// The arguments of a dispatched view op: the tensor, then `rest`.
fn view_call(op: &'static str, t: &Tensor, rest: Vec<Arg>) -> Call {
    let mut args = vec![Arg::from(t)];
    args.extend(rest);
    Call::new(op, args)
}

/// The dispatched call of taking `part` of `t` (`names`: the select and the slice overload),
/// `first` before the part's arguments: `dim, index` or `dim, start, end, step`, as PyTorch's.
fn part_call(names: [&'static str; 2], t: &Tensor, mut first: Vec<Arg>, part: Part) -> Call {
    let int = |v: usize| Arg::Int(v as i64);
    match part {
        Part::Select { dim, index } => {
            first.extend([int(dim), int(index)]);
            view_call(names[0], t, first)
        }
        Part::Slice {
            dim,
            start,
            len,
            step,
        } => {
            first.extend([int(dim), int(start), int(start + len * step), int(step)]);
            view_call(names[1], t, first)
        }
    }
}

/// A list of dims or sizes as a dispatched argument.
fn ints(v: &[isize]) -> Arg {
    Arg::Ints(v.iter().map(|&d| d as i64).collect())
}

impl Tensor {
    /// The view of this tensor with `layout`; for a wrapper, the view its class makes for
    /// `call` (Note [Tensor subclasses that dispatch]).
    pub(crate) fn view_of_layout(&self, layout: Layout, call: impl Fn() -> Call) -> Result<Tensor> {
        if let Some(dispatched) = intercept1(&[self], &call) {
            return dispatched;
        }
        let view = self.alias_with_layout(layout);
        if crate::core::grad_mode::is_view_replay_enabled() {
            // the ops from the base to this view, when every step of the way kept them
            let before = match self.base() {
                None => Some(Vec::new()),
                Some(_) => self.meta().view_replay.as_deref().cloned(),
            };
            if let Some(mut ops) = before {
                let mut this = call();
                if let Some(first) = this.args.first_mut() {
                    *first = Arg::None;
                }
                ops.push(this);
                view.meta().view_replay = Some(std::sync::Arc::new(ops));
            }
        }
        Ok(view)
    }

    /// The view op `call` (as [`Tensor::view_of_layout`] keeps it) made again from `self`;
    /// `None` for an op this replay does not know (the caller falls back to `as_strided`).
    pub(crate) fn replay_view(&self, call: &Call) -> Option<Result<Tensor>> {
        let int = |i: usize| match call.args.get(i) {
            Some(Arg::Int(v)) => Some(*v as isize),
            _ => None,
        };
        let ints = |i: usize| match call.args.get(i) {
            Some(Arg::Ints(v)) => Some(v.iter().map(|&d| d as isize).collect::<Vec<_>>()),
            _ => None,
        };
        Some(match call.op {
            "view.default" => self.view(&ints(1)?),
            "expand.default" => self.expand(&ints(1)?),
            "permute.default" => self.permute(&ints(1)?),
            "select.int" => self.select(int(1)?, int(2)?),
            "slice.Tensor" => self.slice(int(1)?, Some(int(2)?), Some(int(3)?), int(4)?),
            "transpose.int" => self.transpose(int(1)?, int(2)?),
            "unsqueeze.default" => self.unsqueeze(int(1)?),
            "squeeze.dim" => self.squeeze_dim(int(1)?),
            "squeeze.default" => self.squeeze(),
            "t.default" => self.t(),
            "alias.default" => self.alias(),
            _ => return None,
        })
    }

    /// A tensor sharing this one's storage (and version counter) with another layout.
    pub(crate) fn alias_with_layout(&self, layout: Layout) -> Tensor {
        if self.storage().is_elementless() {
            // a wrapper's views are made by its class (the view op dispatches); one that does not
            // would share the wrapper's state under another shape
            crate::core::storage::refuse_elements();
        }
        // an inference tensor has no autograd metadata, so its views are not views to autograd
        // (no base: `_is_view()` is False), as PyTorch's
        let base = match self.is_inference() {
            true => None,
            false => Some(self.base().cloned().unwrap_or_else(|| self.clone())),
        };
        let view = Tensor::from_parts(self.storage().clone(), layout, self.dtype(), base);
        // a view of a special view stays special (PyTorch's propagate_creation_meta)
        let inference = crate::core::grad_mode::is_inference_mode_enabled();
        if inference {
            view.set_view_creation(crate::core::tensor::ViewCreation::InferenceMode);
        } else if !crate::core::grad_mode::is_grad_enabled() {
            view.set_view_creation(crate::core::tensor::ViewCreation::NoGradMode);
        } else if self.base().is_some() {
            view.set_view_creation(self.view_creation());
        }
        // a view made under no_grad (or in inference mode, of a normal tensor) of a tensor that
        // requires grad is a leaf that requires grad, as in PyTorch; a view of an inference
        // tensor is an inference tensor, which never requires grad
        let inference_view = inference && self.is_inference();
        if self.requires_grad() && !crate::core::grad_mode::is_grad_enabled() && !inference_view {
            let _ = view.set_requires_grad(true);
        }
        view
    }

    /// The view `part` of this tensor, recorded for autograd.
    pub(crate) fn part(&self, part: Part) -> Result<Tensor> {
        let call = || part_call(["select.int", "slice.Tensor"], self, vec![], part);
        let out = self.view_of_layout(self.layout().part(part), call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Dims = self.shape().into();
        // (a wrapper's gradient goes through the formula: see `passes_part_on`)
        Ok(record_part(
            out,
            part_node_name(part),
            self,
            part,
            move |ctx| Ok(vec![Some(embed(ctx.grad(0), &shape, part)?)]),
        ))
    }

    /// `x[index]` along `dim` (negative values count from the end); drops `dim`.
    pub fn select(&self, dim: isize, index: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(Error::index("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"));
        }
        let dim = normalize_dim(dim, self.dim())?;
        let size = self.shape()[dim] as isize;
        let i = if index < 0 { index + size } else { index };
        if i < 0 || i >= size {
            return Err(Error::index(format!(
                "index {index} is out of bounds for dimension {dim} with size {size}"
            )));
        }
        self.part(Part::Select {
            dim,
            index: i as usize,
        })
    }

    /// Elements `start, start+step, ...` before `end` along `dim` (Python slice semantics, clamped).
    pub fn slice(
        &self,
        dim: isize,
        start: Option<isize>,
        end: Option<isize>,
        step: isize,
    ) -> Result<Tensor> {
        if step <= 0 {
            return Err(Error::value("step must be greater than zero"));
        }
        if self.dim() == 0 {
            return Err(Error::index("slice() cannot be applied to a 0-dim tensor."));
        }
        let dim = normalize_dim(dim, self.dim())?;
        let size = self.shape()[dim] as isize;
        let clamp = |v: isize| {
            if v < 0 {
                (v + size).max(0)
            } else {
                v.min(size)
            }
        };
        let s = clamp(start.unwrap_or(0));
        let e = clamp(end.unwrap_or(size)).max(s);
        let len = ((e - s) + step - 1) / step;
        self.part(Part::Slice {
            dim,
            start: s as usize,
            len: len as usize,
            step: step as usize,
        })
    }

    /// Swaps dimensions `d0` and `d1`.
    pub fn transpose(&self, d0: isize, d1: isize) -> Result<Tensor> {
        let (a, b) = (
            normalize_dim(d0, self.dim())?,
            normalize_dim(d1, self.dim())?,
        );
        let mut layout = self.layout().clone();
        if self.dim() > 0 {
            layout.shape.swap(a, b);
            layout.strides.swap(a, b);
        }
        let call = || {
            view_call(
                "transpose.int",
                self,
                vec![Arg::Int(d0 as i64), Arg::Int(d1 as i64)],
            )
        };
        let out = self.view_of_layout(layout, call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "TransposeBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).transpose(a as isize, b as isize)?)]),
        ))
    }

    /// `length` elements of `dim` starting at `start` (a slice view).
    pub fn narrow(&self, dim: isize, start: isize, length: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            return Err(Error::runtime(
                "narrow() cannot be applied to a 0-dim tensor.",
            ));
        }
        let d = normalize_dim(dim, self.dim())?;
        let size = self.shape()[d] as isize;
        if start < -size || start > size {
            return Err(Error::index(format!(
                "start out of range (expected to be in range of [{}, {size}], but got {start})",
                -size
            )));
        }
        let start = if start < 0 { start + size } else { start };
        if length < 0 || start + length > size {
            return Err(Error::runtime(format!(
                "start ({start}) + length ({length}) exceeds dimension size ({size})."
            )));
        }
        self.slice(dim, Some(start), Some(start + length), 1)
    }

    /// A view of the whole tensor (`x[...]`); the gradient passes unchanged (`AliasBackward0`).
    pub fn alias(&self) -> Result<Tensor> {
        let out = self.view_of_layout(self.layout().clone(), || {
            view_call("alias.default", self, vec![])
        })?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "AliasBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone())])
        }))
    }

    /// `x.T`: the dimensions in reverse order, a permute view (as PyTorch records it).
    pub fn reversed_dims(&self) -> Result<Tensor> {
        let dims: Vec<isize> = (0..self.dim() as isize).rev().collect();
        self.permute(&dims)
    }

    /// `x.mT` (and, for real tensors, `x.mH`): the last two dimensions swapped, a transpose
    /// view; `attribute` names the property in the refusal of fewer than 2 dimensions.
    pub fn matrix_transpose(&self, attribute: &str) -> Result<Tensor> {
        if self.dim() < 2 {
            return Err(Error::runtime(format!(
                "tensor.{attribute} is only supported on matrices or batches of matrices. Got {}-D tensor.",
                self.dim()
            )));
        }
        self.transpose(-2, -1)
    }

    /// `x.H` of a real matrix: its transpose (a transpose view); refused beyond 2 dimensions,
    /// with PyTorch's message (0-d tensors are the binding's: PyTorch warns, then returns them).
    pub fn matrix_adjoint(&self) -> Result<Tensor> {
        match self.dim() {
            2 => self.transpose(0, 1),
            d => Err(Error::runtime(format!(
                "tensor.H is only supported on matrices (2-D tensors). Got {d}-D tensor.{}",
                if d > 2 {
                    " For batches of matrices, consider using tensor.mH"
                } else {
                    ""
                }
            ))),
        }
    }

    /// Transpose of a tensor with at most 2 dimensions (0-d and 1-d come back as they are).
    pub fn t(&self) -> Result<Tensor> {
        if self.dim() > 2 {
            return Err(Error::runtime(format!(
                "t() expects a tensor with <= 2 dimensions, but self is {}D",
                self.dim()
            )));
        }
        let mut layout = self.layout().clone();
        layout.shape.reverse();
        layout.strides.reverse();
        let out = self.view_of_layout(layout, || view_call("t.default", self, vec![]))?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "TBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).t()?)])
        }))
    }

    /// Inserts a dimension of size 1 at `dim`.
    pub fn unsqueeze(&self, dim: isize) -> Result<Tensor> {
        let d = normalize_dim(dim, self.dim() + 1)?;
        let mut layout = self.layout().clone();
        let stride = if d < self.dim() {
            layout.strides[d] * layout.shape[d] as isize
        } else {
            1
        };
        layout.shape.insert(d, 1);
        layout.strides.insert(d, stride);
        let call = || view_call("unsqueeze.default", self, vec![Arg::Int(dim as i64)]);
        let out = self.view_of_layout(layout, call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "UnsqueezeBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).squeeze_dim(d as isize)?)]),
        ))
    }

    /// Removes dimension `dim` if its size is 1 (otherwise the view has the same shape).
    pub fn squeeze_dim(&self, dim: isize) -> Result<Tensor> {
        self.squeeze_dim_named(dim, "SqueezeBackward1")
    }

    /// [`Tensor::squeeze_dim`] recorded as `node` (PyTorch names its in-place `squeeze_`,
    /// which `matmul` uses, `SqueezeBackward4`).
    pub(crate) fn squeeze_dim_named(&self, dim: isize, node: &'static str) -> Result<Tensor> {
        if self.dim() == 0 {
            return Ok(self.clone());
        }
        let d = normalize_dim(dim, self.dim())?;
        let mut layout = self.layout().clone();
        let squeezed = layout.shape[d] == 1;
        if squeezed {
            layout.shape.remove(d);
            layout.strides.remove(d);
        }
        let call = || view_call("squeeze.dim", self, vec![Arg::Int(dim as i64)]);
        let out = self.view_of_layout(layout, call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, node, &[self], &[], move |ctx| {
            let g = ctx.grad(0);
            Ok(vec![Some(if squeezed {
                g.unsqueeze(d as isize)?
            } else {
                g.clone()
            })])
        }))
    }

    /// Removes every dimension of size 1.
    pub fn squeeze(&self) -> Result<Tensor> {
        let l = self.layout();
        let keep: Vec<usize> = (0..self.dim()).filter(|&d| l.shape[d] != 1).collect();
        let layout = Layout {
            shape: keep.iter().map(|&d| l.shape[d]).collect(),
            strides: keep.iter().map(|&d| l.strides[d]).collect(),
            offset: l.offset,
        };
        let out = self.view_of_layout(layout, || view_call("squeeze.default", self, vec![]))?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let shape: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        Ok(record(out, "SqueezeBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).reshape(&shape)?)])
        }))
    }

    /// This tensor seen with a larger `shape` (size-1 dims repeat with stride 0; `-1` keeps a size).
    pub fn expand(&self, shape: &[isize]) -> Result<Tensor> {
        let sizes = self.shape();
        if shape.len() < sizes.len() {
            return Err(Error::runtime(format!(
                "expand({}{{{}}}, size={}): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
                self.dtype().legacy_name(), fmt_shape(sizes), fmt_isizes(shape), shape.len(), sizes.len()
            )));
        }
        let extra = shape.len() - sizes.len();
        let mut target: Dims = SmallVec::new();
        for (i, &s) in shape.iter().enumerate() {
            if i < extra {
                if s < 0 {
                    return Err(Error::runtime(format!("The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}")));
                }
                target.push(s as usize);
            } else {
                let own = sizes[i - extra];
                let t = if s == -1 { own } else { s as usize };
                if own != 1 && own != t {
                    return Err(Error::runtime(format!(
                        "The expanded size of the tensor ({t}) must match the existing size ({own}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                        fmt_isizes(shape), fmt_shape(sizes)
                    )));
                }
                target.push(t);
            }
        }
        // an element count that overflows is refused here, as PyTorch's numel()
        if target
            .iter()
            .try_fold(1usize, |n, &s| n.checked_mul(s))
            .is_none_or(|n| n > isize::MAX as usize)
        {
            return Err(Error::runtime("numel: integer multiplication overflow"));
        }
        // the same shape is still a new view with its own node, as in PyTorch
        let call = || view_call("expand.default", self, vec![ints(shape)]);
        let out = self.view_of_layout(self.layout().broadcast_to(&target), call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let input: Dims = sizes.into();
        Ok(record(out, "ExpandBackward0", &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).sum_to(&input)?)])
        }))
    }

    /// The same elements with another shape; one entry may be `-1`. Requires a layout in
    /// which the new shape needs no copy ([`Layout::reshaped`]).
    pub fn view(&self, shape: &[isize]) -> Result<Tensor> {
        self.view_named(shape, "ViewBackward0")
    }

    /// [`Tensor::view`] recorded as `name`.
    fn view_named(&self, shape: &[isize], name: &'static str) -> Result<Tensor> {
        let target = infer_shape(shape, self.numel())?;
        let Some(layout) = self.layout().reshaped(&target) else {
            return Err(Error::runtime(
                "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.",
            ));
        };
        let out = self.view_of_layout(layout, || {
            view_call("view.default", self, vec![ints(shape)])
        })?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let input: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        Ok(record(out, name, &[self], &[], move |ctx| {
            Ok(vec![Some(ctx.grad(0).reshape(&input)?)])
        }))
    }

    /// Like [`Tensor::view`], copying first when the layout does not allow a view. A view of a
    /// tensor that is not contiguous is PyTorch's `_reshape_alias` (`ReshapeAliasBackward0`).
    pub fn reshape(&self, shape: &[isize]) -> Result<Tensor> {
        let target = infer_shape(shape, self.numel())?;
        if self.layout().reshaped(&target).is_some() {
            return match self.is_contiguous() {
                true => self.view(shape),
                false => self.view_named(shape, "ReshapeAliasBackward0"),
            };
        }
        // a copy (recorded as PyTorch's clone), then seen with the new shape
        self.clone_tensor()?.unsafe_view(&target)
    }

    /// A contiguous tensor seen with the shape `target` without being a view of it (PyTorch's
    /// `_unsafe_view`, `UnsafeViewBackward0`): the result of an op computed through a fresh
    /// intermediate owns that storage, no `_base`.
    pub(crate) fn unsafe_view(&self, target: &[usize]) -> Result<Tensor> {
        debug_assert!(self.is_contiguous());
        let layout = Layout {
            offset: self.layout().offset,
            ..Layout::contiguous(target)
        };
        let call = || {
            let sizes: Vec<isize> = target.iter().map(|&s| s as isize).collect();
            view_call("_unsafe_view.default", self, vec![ints(&sizes)])
        };
        let out = match intercept1(&[self], call) {
            Some(dispatched) => dispatched?,
            None => Tensor::from_parts(self.storage().clone(), layout, self.dtype(), None),
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let input: Vec<isize> = self.shape().iter().map(|&s| s as isize).collect();
        Ok(record(
            out,
            "UnsafeViewBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).reshape(&input)?)]),
        ))
    }

    /// This tensor if contiguous, else a contiguous copy (recorded as a clone).
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.clone_tensor()
        }
    }

    /// Whether the elements are dense in channels-last order (PyTorch's `channels_last` for a
    /// 4-D `[N, C, H, W]` tensor, `channels_last_3d` for 5-D: the channel dim varies fastest);
    /// dims of size 1 may have any stride, as there.
    pub fn is_channels_last(&self) -> bool {
        let (shape, strides) = (self.shape(), &self.layout().strides);
        if !matches!(shape.len(), 4 | 5) {
            return false;
        }
        let mut expected = 1isize;
        for d in channels_last_order(shape.len()) {
            if shape[d] != 1 && strides[d] != expected {
                return false;
            }
            expected *= shape[d] as isize;
        }
        true
    }

    /// Whether the strides suggest a channels-last layout (PyTorch's
    /// `is_channels_last_strides_2d/3d`, behind `suggest_memory_format`): they grow from the
    /// channels through the spatial dims to the batch, ambiguous size-1 cases counted as the
    /// standard layout. Unlike [`Tensor::is_channels_last`] it does not need the tensor dense.
    pub fn suggests_channels_last(&self) -> bool {
        let (shape, strides) = (self.shape(), &self.layout().strides);
        if !matches!(shape.len(), 4 | 5) || strides[1] == 0 {
            return false;
        }
        let mut smallest = 0isize;
        for d in channels_last_order(shape.len()) {
            if shape[d] == 0 || strides[d] < smallest || (d == 0 && smallest == strides[1]) {
                return false;
            }
            smallest = strides[d] * shape[d].max(1) as isize;
        }
        true
    }

    /// A copy laid out channels-last (`contiguous(memory_format=torch.channels_last)` of a 4-D
    /// or 5-D tensor), or this tensor when it already is; recorded as PyTorch's clone
    /// (`CloneBackward0`).
    pub fn channels_last(&self) -> Result<Tensor> {
        if self.is_channels_last() && matches!(self.dim(), 4 | 5) {
            return Ok(self.clone());
        }
        self.channels_last_copy()
    }

    /// A copy with exactly the channels-last strides, even where the standard ones would also
    /// pass as channels-last (a single channel): what `to(memory_format=torch.channels_last)`
    /// makes of a tensor whose strides do not suggest that layout, as PyTorch's.
    pub fn channels_last_copy(&self) -> Result<Tensor> {
        let n = self.dim();
        if !matches!(n, 4 | 5) {
            return Err(Error::runtime(format!(
                "required rank 4 or 5 tensor to use a channels-last format, got rank {n}"
            )));
        }
        // the values in [N, spatial..., C] order, seen as [N, C, spatial...]
        let mut to_last: Vec<isize> = vec![0];
        to_last.extend((2..n).map(|d| d as isize));
        to_last.push(1);
        let dense = self.detach().permute(&to_last)?.deep_copy();
        let mut back: Vec<isize> = vec![0, n as isize - 1];
        back.extend((1..n - 1).map(|d| d as isize));
        let layout = dense.permute(&back)?.layout().clone();
        let out = Tensor::from_parts(dense.storage().clone(), layout, self.dtype(), None);
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(record(out, "CloneBackward0", &[self], &[], |ctx| {
            Ok(vec![Some(ctx.grad(0).clone())])
        }))
    }
}

/// A channels-last tensor's dims from fastest to slowest: channels, then the spatial dims
/// backwards, then the batch.
fn channels_last_order(ndim: usize) -> Vec<usize> {
    let mut order: Vec<usize> = vec![1];
    order.extend((2..ndim).rev());
    order.push(0);
    order
}

/// Zeros of `shape` with `g` written into the view `part`: the gradient of taking that view.
fn embed(g: &Tensor, shape: &[usize], part: Part) -> Result<Tensor> {
    let names = ["select_backward.default", "slice_backward.default"];
    let call = || part_call(names, g, vec![Arg::from(shape)], part);
    let out = match intercept1(&[g], call) {
        Some(dispatched) => dispatched?,
        None => {
            let out = Tensor::zeros(shape, g.dtype());
            write_into(&out.alias_with_layout(out.layout().part(part)), g);
            out
        }
    };
    if !is_recording(&[g]) {
        return Ok(out);
    }
    let name = match part {
        Part::Select { .. } => "SelectBackwardBackward0",
        Part::Slice { .. } => "SliceBackwardBackward0",
    };
    Ok(record(out, name, &[g], &[], move |ctx| {
        Ok(vec![Some(ctx.grad(0).part(part)?)])
    }))
}

/// Resolves a `-1` entry and checks the element count.
pub(crate) fn infer_shape(shape: &[isize], numel: usize) -> Result<Dims> {
    let known: usize = shape
        .iter()
        .filter(|&&s| s >= 0)
        .map(|&s| s as usize)
        .product();
    let unknown = shape.iter().filter(|&&s| s == -1).count();
    let bad = || {
        Error::runtime(format!(
            "shape '{}' is invalid for input of size {numel}",
            fmt_isizes(shape)
        ))
    };
    if unknown > 1 || shape.iter().any(|&s| s < -1) {
        return Err(if unknown > 1 {
            Error::runtime("only one dimension can be inferred")
        } else {
            bad()
        });
    }
    let mut out: Dims = SmallVec::new();
    for &s in shape {
        if s == -1 {
            if known == 0 || !numel.is_multiple_of(known) {
                return Err(bad());
            }
            out.push(numel / known);
        } else {
            out.push(s as usize);
        }
    }
    if out.iter().product::<usize>() != numel {
        return Err(bad());
    }
    Ok(out)
}

fn fmt_isizes(shape: &[isize]) -> String {
    let parts: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}
