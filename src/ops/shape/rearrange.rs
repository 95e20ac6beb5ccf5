//! Shape ops: `permute`, `flatten`, `cat`, `stack`, `split`, `chunk`, `unbind`, `flip`, `repeat`.

use crate::autograd::{is_recording, record_multi};
use crate::core::dispatch::{intercept1, Arg, Call};
use crate::core::error::{Error, Result};
use crate::core::grad_mode::GradModeGuard;
use crate::core::layout::{fmt_shape, normalize_dim, Layout};
use crate::core::tensor::Tensor;
use crate::cpu::kernels::{cast, write_into};
use crate::ops::result_type;
use crate::with_any;

/// A dispatched call of an op on a list of tensors and a dim (`cat`, `stack`).
fn list_call(op: &'static str, tensors: &[Tensor], dim: isize) -> Call {
    Call::new(
        op,
        vec![Arg::Tensors(tensors.to_vec()), Arg::Int(dim as i64)],
    )
}

impl Tensor {
    /// Reorders the dimensions (a view); gradient: the inverse permutation.
    pub fn permute(&self, dims: &[isize]) -> Result<Tensor> {
        if dims.len() != self.dim() {
            return Err(Error::runtime(format!(
                "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = {} is not equal to len(dims) = {}",
                self.dim(),
                dims.len()
            )));
        }
        let perm: Vec<usize> = dims
            .iter()
            .map(|&d| normalize_dim(d, self.dim()))
            .collect::<Result<_>>()?;
        let mut seen = vec![false; perm.len()];
        for &p in &perm {
            if std::mem::replace(&mut seen[p], true) {
                return Err(Error::runtime("permute(): duplicate dims are not allowed."));
            }
        }
        let l = self.layout();
        let layout = Layout {
            shape: perm.iter().map(|&p| l.shape[p]).collect(),
            strides: perm.iter().map(|&p| l.strides[p]).collect(),
            offset: l.offset,
        };
        let call = || {
            let dims = dims.iter().map(|&d| d as i64).collect();
            Call::new("permute.default", vec![self.into(), Arg::Ints(dims)])
        };
        let out = self.view_of_layout(layout, call)?;
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let mut inverse = vec![0isize; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p] = i as isize;
        }
        Ok(crate::autograd::record(
            out,
            "PermuteBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).permute(&inverse)?)]),
        ))
    }

    /// Merges dims `start..=end` into one.
    pub fn flatten_dims(&self, start: isize, end: isize) -> Result<Tensor> {
        if self.dim() == 0 {
            // a 0-d tensor flattens to one element; its only dims are 0 and -1
            normalize_dim(start, 0)?;
            normalize_dim(end, 0)?;
            return self.reshape(&[1]);
        }
        let (s, e) = (
            normalize_dim(start, self.dim())?,
            normalize_dim(end, self.dim())?,
        );
        if s > e {
            return Err(Error::runtime(
                "flatten() has invalid args: start_dim cannot come after end_dim",
            ));
        }
        if s == e {
            return Ok(self.clone()); // nothing to merge: PyTorch returns the tensor itself
        }
        let mut shape: Vec<isize> = self.shape()[..s].iter().map(|&v| v as isize).collect();
        shape.push(self.shape()[s..=e].iter().product::<usize>() as isize);
        shape.extend(self.shape()[e + 1..].iter().map(|&v| v as isize));
        self.reshape(&shape)
    }

    /// Concatenates `tensors` along `dim`; each input gets its slice of the gradient.
    pub fn cat(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first = tensors
            .first()
            .ok_or_else(|| Error::runtime("torch.cat(): expected a non-empty list of Tensors"))?;
        let d = normalize_dim(dim, first.dim())?;
        let mut dtype = first.dtype();
        let mut total = 0;
        for (i, t) in tensors.iter().enumerate() {
            if t.dim() != first.dim() {
                return Err(Error::runtime(format!(
                    "Tensors must have same number of dimensions: got {} and {}",
                    first.dim(),
                    t.dim()
                )));
            }
            for k in 0..t.dim() {
                if k != d && t.shape()[k] != first.shape()[k] {
                    return Err(Error::runtime(format!(
                        "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list (shapes {} and {}).",
                        first.shape()[k], t.shape()[k], fmt_shape(first.shape()), fmt_shape(t.shape())
                    )));
                }
            }
            dtype = result_type(&Tensor::zeros(&[1], dtype), t);
            total += t.shape()[d];
        }
        let mut shape = first.shape().to_vec();
        shape[d] = total;
        let sizes: Vec<usize> = tensors.iter().map(|t| t.shape()[d]).collect();
        let out = match intercept1(&tensors.iter().collect::<Vec<_>>(), || {
            list_call("cat.default", tensors, dim)
        }) {
            Some(dispatched) => dispatched?,
            None if tensors
                .iter()
                .all(|t| t.dtype() == dtype && t.subclass().is_none()) =>
            {
                let outer = shape[..d].iter().product::<usize>();
                with_any!(dtype, T => {
                    let data = crate::cpu::kernels::cat_along::<T>(tensors, outer);
                    Tensor::from_vec(data, &shape)?
                })
            }
            None => {
                let out = Tensor::zeros(&shape, dtype);
                let mut start = 0;
                for (t, &n) in tensors.iter().zip(&sizes) {
                    let region = out.detach().slice(
                        d as isize,
                        Some(start as isize),
                        Some((start + n) as isize),
                        1,
                    )?;
                    write_into(&region, &cast(t, dtype));
                    start += n;
                }
                out
            }
        };
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        if !is_recording(&inputs) {
            return Ok(out);
        }
        // PyTorch gives a 1-D empty input fresh zeros (no history), not a slice of the gradient
        let legacy_empty: Vec<bool> = tensors.iter().map(|t| t.shape() == [0]).collect();
        let node = record_multi(
            vec![out],
            "CatBackward0",
            &inputs,
            &[],
            Box::new(move |ctx| {
                let parts = slices_along(ctx.grad(0), d, &sizes)?;
                let parts = parts.into_iter().zip(&legacy_empty);
                Ok(parts
                    .map(|(p, &empty)| Some(if empty { p.detach() } else { p }))
                    .collect())
            }),
        );
        Ok(node.into_iter().next().expect("one output"))
    }

    /// Stacks equally shaped tensors along a new dimension `dim`.
    pub fn stack(tensors: &[Tensor], dim: isize) -> Result<Tensor> {
        let first = tensors
            .first()
            .ok_or_else(|| Error::runtime("stack expects a non-empty TensorList"))?;
        for (i, t) in tensors.iter().enumerate() {
            if t.shape() != first.shape() {
                return Err(Error::runtime(format!(
                    "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                    fmt_shape(first.shape()),
                    fmt_shape(t.shape())
                )));
            }
        }
        let d = normalize_dim(dim, first.dim() + 1)? as isize;
        let out = match intercept1(&tensors.iter().collect::<Vec<_>>(), || {
            list_call("stack.default", tensors, dim)
        }) {
            Some(dispatched) => dispatched?,
            None => {
                let parts = tensors
                    .iter()
                    .map(|t| t.detach().unsqueeze(d))
                    .collect::<Result<Vec<_>>>()?;
                Tensor::cat(&parts, d)?
            }
        };
        let inputs: Vec<&Tensor> = tensors.iter().collect();
        if !is_recording(&inputs) {
            return Ok(out);
        }
        // each input's gradient is its slice of the incoming one
        Ok(crate::autograd::record(
            out,
            "StackBackward0",
            &inputs,
            &[],
            move |ctx| Ok(ctx.grad(0).unbind(d)?.into_iter().map(Some).collect()),
        ))
    }

    /// Splits along `dim` into pieces of `size` (the last may be smaller); the pieces are views.
    pub fn split(&self, size: usize, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return Err(Error::runtime(
                "split expects at least a 1-dimensional tensor",
            ));
        }
        let d = normalize_dim(dim, self.dim())?;
        let n = self.shape()[d];
        if size == 0 && n > 0 {
            return Err(Error::runtime(
                "split_size can only be 0 if dimension size is 0",
            ));
        }
        let mut sizes: Vec<usize> = (0..n)
            .step_by(size.max(1))
            .map(|s| size.min(n - s))
            .collect();
        if sizes.is_empty() {
            sizes.push(0); // an empty dim splits into one empty piece, as PyTorch
        }
        self.split_named(&sizes, d, "SplitBackward0")
    }

    /// Splits along `dim` into pieces of the given sizes (which must add up to the dim's size).
    pub fn split_sizes(&self, sizes: &[usize], dim: isize) -> Result<Vec<Tensor>> {
        let d = normalize_dim(dim, self.dim())?;
        if sizes.iter().sum::<usize>() != self.shape()[d] {
            return Err(Error::runtime(format!(
                "split_with_sizes expects split_sizes to sum exactly to {} (input tensor's size at dimension {d}), but got split_sizes={sizes:?}",
                self.shape()[d]
            )));
        }
        self.split_named(sizes, d, "SplitWithSizesBackward0")
    }

    /// The pieces `split` makes of this tensor (`split`, `split_sizes` or `chunk` along `dim`)
    /// as tensors of their own for autograd, not views (PyTorch's `unsafe_split`,
    /// `unsafe_split_with_sizes`, `unsafe_chunk`): they share the elements, but each counts
    /// its versions alone, so an in-place write through one is an ordinary in-place op, never
    /// refused and not seen by the others' saved-tensor checks; the caller answers for it.
    pub fn unsafe_pieces(
        &self,
        dim: isize,
        node: &'static str,
        split: impl FnOnce(&Tensor) -> Result<Vec<Tensor>>,
    ) -> Result<Vec<Tensor>> {
        let pieces = {
            let _untracked = GradModeGuard::new(false);
            split(self)?
        };
        let d = normalize_dim(dim, self.dim())?;
        let pieces = pieces.iter().map(Tensor::data_alias).collect();
        Ok(self.record_pieces(pieces, d, node, false))
    }

    /// The views of `split` and `split_sizes`, recorded as one node named `node` whose
    /// outputs they are (PyTorch's `SplitBackward0`): the gradient is the pieces' gradients
    /// concatenated, zeros for pieces that got none.
    fn split_named(&self, sizes: &[usize], d: usize, node: &'static str) -> Result<Vec<Tensor>> {
        let pieces = {
            let _untracked = GradModeGuard::new(false);
            slices_along(self, d, sizes)?
        };
        Ok(self.record_pieces(pieces, d, node, false))
    }

    /// Records `pieces` (views of this tensor along `d`, which `unbind` removed when
    /// `squeezed`) as the outputs of one node named `node`.
    fn record_pieces(
        &self,
        pieces: Vec<Tensor>,
        d: usize,
        node: &'static str,
        squeezed: bool,
    ) -> Vec<Tensor> {
        if crate::core::grad_mode::is_grad_enabled() {
            for piece in pieces.iter().filter(|p| p.base().is_some()) {
                piece.set_view_creation(crate::core::tensor::ViewCreation::MultiOutput);
            }
        }
        if !is_recording(&[self]) || pieces.is_empty() {
            return pieces;
        }
        let shapes: Vec<Vec<usize>> = pieces.iter().map(|p| p.shape().to_vec()).collect();
        let dtype = self.dtype();
        record_multi(
            pieces,
            node,
            &[self],
            &[],
            Box::new(move |ctx| {
                let grads = shapes
                    .iter()
                    .enumerate()
                    .map(|(i, shape)| match ctx.grad_opt(i) {
                        Some(g) => g.clone(),
                        None => Tensor::zeros(shape, dtype),
                    })
                    .collect::<Vec<_>>();
                let whole = match squeezed {
                    true => Tensor::stack(&grads, d as isize)?,
                    false => Tensor::cat(&grads, d as isize)?,
                };
                Ok(vec![Some(whole)])
            }),
        )
    }

    /// `chunks` nearly equal pieces along `dim`.
    pub fn chunk(&self, chunks: usize, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return Err(Error::runtime(
                "chunk expects at least a 1-dimensional tensor",
            ));
        }
        if chunks == 0 {
            return Err(Error::runtime(
                "chunk expects `chunks` to be greater than 0, got: 0",
            ));
        }
        let d = normalize_dim(dim, self.dim())?;
        if self.shape()[d] == 0 {
            // an empty dim gives `chunks` empty pieces, as PyTorch
            return self.split_named(&vec![0; chunks], d, "SplitWithSizesBackward0");
        }
        let size = self.shape()[d].div_ceil(chunks);
        self.split(size.max(1), dim)
    }

    /// The slices along `dim`, each without that dimension.
    pub fn unbind(&self, dim: isize) -> Result<Vec<Tensor>> {
        if self.dim() == 0 {
            return Err(Error::index(format!(
                "Dimension specified as {dim} but tensor has no dimensions"
            )));
        }
        let d = normalize_dim(dim, self.dim())?;
        let pieces = {
            let _untracked = GradModeGuard::new(false);
            (0..self.shape()[d] as isize)
                .map(|i| self.select(d as isize, i))
                .collect::<Result<Vec<_>>>()?
        };
        Ok(self.record_pieces(pieces, d, "UnbindBackward0", true))
    }

    /// Reverses the order along `dims` (a copy); the gradient is flipped back.
    pub fn flip(&self, dims: &[isize]) -> Result<Tensor> {
        crate::ops::reduce::reduction::check_distinct_dims(dims, self.dim())?;
        if self.dim() == 0 {
            // a 0-d tensor flips to a copy of itself (its only dim names are 0 and -1)
            return self.clone_tensor();
        }
        let ds: Vec<usize> = dims
            .iter()
            .map(|&d| normalize_dim(d, self.dim()))
            .collect::<Result<_>>()?;
        let src = self.detach();
        let mut l = src.layout().clone();
        for &d in &ds {
            if l.shape[d] > 0 {
                l.offset = (l.offset as isize + (l.shape[d] as isize - 1) * l.strides[d]) as usize;
                l.strides[d] = -l.strides[d];
            }
        }
        let out = src.alias_with_layout(l).deep_copy();
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let dims = dims.to_vec();
        Ok(crate::autograd::record(
            out,
            "FlipBackward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).flip(&dims)?)]),
        ))
    }

    /// Rotated by `k` quarter turns in the plane of `dims` (from the first towards the second):
    /// a flip and a transpose, as one op (`Rot90Backward0`; the gradient is rotated back). The
    /// result has the transposed strides of the flipped copy for odd `k`, as PyTorch's.
    pub fn rot90(&self, k: i64, dims: [isize; 2]) -> Result<Tensor> {
        let n = self.dim();
        if n < 2 {
            return Err(Error::runtime(format!(
                "expected total dims >= 2, but got total dims = {n}"
            )));
        }
        let n_signed = n as isize;
        if dims[0] == dims[1] || (dims[0] - dims[1]).abs() == n_signed {
            return Err(Error::runtime(format!(
                "expected rotation dims to be different, but got dim0 = {} and dim1 = {}",
                dims[0], dims[1]
            )));
        }
        for (i, &d) in dims.iter().enumerate() {
            if !(-n_signed..n_signed).contains(&d) {
                return Err(Error::runtime(format!(
                    "Rotation dim{i} out of range, dim{i} = {d}"
                )));
            }
        }
        let k = k.rem_euclid(4);
        let src = self.detach();
        let out = match k {
            1 => src.flip(&[dims[1]])?.transpose(dims[0], dims[1])?,
            2 => src.flip(&dims)?,
            3 => src.flip(&[dims[0]])?.transpose(dims[0], dims[1])?,
            _ => src.clone_tensor()?,
        };
        // the transposed copy stands alone, not as a view of the flipped one
        let out = Tensor::from_parts(
            out.storage().clone(),
            out.layout().clone(),
            out.dtype(),
            None,
        );
        if !is_recording(&[self]) {
            return Ok(out);
        }
        Ok(crate::autograd::record(
            out,
            "Rot90Backward0",
            &[self],
            &[],
            move |ctx| Ok(vec![Some(ctx.grad(0).rot90(-k, dims)?)]),
        ))
    }

    /// Tiles the tensor `repeats[d]` times along each dimension (a copy).
    pub fn repeat(&self, repeats: &[usize]) -> Result<Tensor> {
        if repeats.len() < self.dim() {
            return Err(Error::runtime(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor",
            ));
        }
        let extra = repeats.len() - self.dim();
        let mut padded: Vec<usize> = vec![1; extra];
        padded.extend_from_slice(self.shape());
        let out_shape: Vec<usize> = repeats
            .iter()
            .zip(&padded)
            .map(|(&r, &s)| r.saturating_mul(s))
            .collect();
        crate::core::storage::check_allocation(&out_shape, self.dtype())?;
        // view as (1, s0, 1, s1, ...), expand to (r0, s0, r1, s1, ...), copy into the merged shape
        let mut inter: Vec<isize> = Vec::new();
        let mut expanded: Vec<isize> = Vec::new();
        for (&r, &s) in repeats.iter().zip(&padded) {
            inter.extend([1, s as isize]);
            expanded.extend([r as isize, s as isize]);
        }
        let call = || {
            let repeats = repeats.iter().map(|&r| r as i64).collect();
            Call::new("repeat.default", vec![self.into(), Arg::Ints(repeats)])
        };
        let out = match intercept1(&[self], call) {
            Some(dispatched) => dispatched?,
            None => {
                let copies_view = self.detach().reshape(&inter)?.expand(&expanded)?;
                // always a fresh tensor, never a view: the result shares no storage with the input
                Tensor::from_buffer(copies_view.contiguous_buffer(), &out_shape)?
            }
        };
        if !is_recording(&[self]) {
            return Ok(out);
        }
        // the gradient seen as (r0, s0, r1, s1, ...), summed over the copies
        let copies: Vec<isize> = (0..repeats.len() as isize).map(|i| 2 * i).collect();
        let shape: Vec<isize> = self.shape().iter().map(|&v| v as isize).collect();
        Ok(crate::autograd::record(
            out,
            "RepeatBackward0",
            &[self],
            &[],
            move |ctx| {
                let g = ctx.grad(0).reshape(&expanded)?.sum_dims(&copies, false)?;
                Ok(vec![Some(g.reshape(&shape)?)])
            },
        ))
    }
}

/// The consecutive slices of `t` along `d` with the given sizes (views).
fn slices_along(t: &Tensor, d: usize, sizes: &[usize]) -> Result<Vec<Tensor>> {
    let mut start = 0;
    sizes
        .iter()
        .map(|&n| {
            let piece = t.slice(
                d as isize,
                Some(start as isize),
                Some((start + n) as isize),
                1,
            );
            start += n;
            piece
        })
        .collect()
}

impl Tensor {
    /// Sub-pixel rearrangement `(*, C·r², H, W) → (*, C, H·r, W·r)` (`PixelShuffleBackward0`;
    /// the gradient is unshuffled), as PyTorch's `pixel_shuffle`.
    pub fn pixel_shuffle(&self, upscale_factor: i64) -> Result<Tensor> {
        self.pixel_rearranged(upscale_factor, true)
    }

    /// The inverse rearrangement `(*, C, H·r, W·r) → (*, C·r², H, W)`
    /// (`PixelUnshuffleBackward0`).
    pub fn pixel_unshuffle(&self, downscale_factor: i64) -> Result<Tensor> {
        self.pixel_rearranged(downscale_factor, false)
    }

    fn pixel_rearranged(&self, factor: i64, shuffle: bool) -> Result<Tensor> {
        let (op, what) = if shuffle {
            ("pixel_shuffle", "upscale_factor")
        } else {
            ("pixel_unshuffle", "downscale_factor")
        };
        let n = self.dim();
        if n < 3 {
            return Err(Error::runtime(format!(
                "{op} expects input to have at least 3 dimensions, but got input with {n} dimension(s)"
            )));
        }
        if factor <= 0 {
            return Err(Error::runtime(format!(
                "{op} expects a positive {what}, but got {factor}"
            )));
        }
        let r = factor as usize;
        let s = self.shape();
        let (c, h, w) = (s[n - 3], s[n - 2], s[n - 1]);
        let batch: Vec<isize> = s[..n - 3].iter().map(|&d| d as isize).collect();
        let b = batch.len() as isize;
        let (split, order, joined): (Vec<usize>, Vec<isize>, [usize; 3]) = if shuffle {
            if c % (r * r) != 0 {
                return Err(Error::runtime(format!(
                    "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {}",
                    r * r
                )));
            }
            // (*, C, r, r, H, W) -> (*, C, H, r, W, r)
            (
                vec![c / (r * r), r, r, h, w],
                vec![0, 3, 1, 4, 2],
                [c / (r * r), h * r, w * r],
            )
        } else {
            for (dim, size, name) in [(-2, h, "height"), (-1, w, "width")] {
                if size % r != 0 {
                    return Err(Error::runtime(format!(
                        "pixel_unshuffle expects {name} to be divisible by downscale_factor, but input.size({dim})={size} is not divisible by {r}"
                    )));
                }
            }
            // (*, C, H, r, W, r) -> (*, C, r, r, H, W)
            (
                vec![c, h / r, r, w / r, r],
                vec![0, 2, 4, 1, 3],
                [c * r * r, h / r, w / r],
            )
        };
        let mut split_shape = batch.clone();
        split_shape.extend(split.iter().map(|&d| d as isize));
        let mut perm: Vec<isize> = (0..b).collect();
        perm.extend(order.iter().map(|&d| d + b));
        let mut out_shape = batch;
        out_shape.extend(joined.iter().map(|&d| d as isize));
        let out = self
            .detach()
            .reshape(&split_shape)?
            .permute(&perm)?
            .clone_tensor()?
            .reshape(&out_shape)?;
        let out = Tensor::from_parts(
            out.storage().clone(),
            out.layout().clone(),
            out.dtype(),
            None,
        );
        if !is_recording(&[self]) {
            return Ok(out);
        }
        let name = if shuffle {
            "PixelShuffleBackward0"
        } else {
            "PixelUnshuffleBackward0"
        };
        Ok(crate::autograd::record(
            out,
            name,
            &[self],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                Ok(vec![Some(g.pixel_rearranged(factor, !shuffle)?)])
            },
        ))
    }
}
