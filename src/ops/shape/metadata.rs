//! Ops that change which elements a tensor shows, or how: `x.data = y` of another shape or
//! dtype (PyTorch's `set_data`), `set_`, `resize_` and the in-place view ops (`t_`,
//! `transpose_`, `squeeze_`, `unsqueeze_`, `as_strided_`, ...), and `as_strided` itself.
//!
//! PyTorch changes the tensor's sizes, strides or storage in place. A core tensor never changes
//! its layout or storage (kernels and backward threads read them without a lock), so each op
//! here returns the *successor*: a new tensor with the new layout and elements that takes over
//! this one's autograd state (`requires_grad`, `.grad`, hooks, history) and version counter.
//! A language binding then shows the successor in place of this tensor (the Python bindings'
//! Note [Rebinding a tensor object]). Graphs recorded before keep the old tensor: a gradient
//! they compute for it is accumulated there, as a `swap_tensors`-ed tensor's is in PyTorch.

use crate::autograd::Node;
use crate::core::buffer::BufferElement;
use crate::core::dtype::DType;
use crate::core::error::{Error, Result};
use crate::core::layout::{contiguous_strides, Layout};
use crate::core::storage::Storage;
use crate::core::tensor::{Tensor, ViewCreation};
use crate::with_any;
use std::sync::Arc;

impl Tensor {
    /// The tensor over `storage` with `layout`, `dtype` and `base` that takes this one's
    /// autograd state: its leaf flag, `.grad`, hooks and history move to the successor.
    fn successor(
        &self,
        storage: Arc<Storage>,
        layout: Layout,
        dtype: DType,
        base: Option<Tensor>,
    ) -> Tensor {
        let next = Tensor::from_parts(storage, layout, dtype, base);
        {
            let mut old = self.meta();
            let mut new = next.meta();
            new.requires_grad = old.requires_grad;
            new.grad = old.grad.take();
            new.grad_fn = old.grad_fn.clone();
            new.retains_grad = old.retains_grad;
            new.hooks = old.hooks.take();
            next.sync_requires_grad(&new);
        }
        next.set_view_creation(match next.base() {
            Some(_) => self.view_creation(),
            None => ViewCreation::Default,
        });
        next
    }

    /// `x.data = y` (PyTorch's `set_data`) when `y` differs from this tensor in shape, strides
    /// or dtype: the successor showing `y`'s elements (shared, not copied), with this tensor's
    /// version counter and autograd state. Autograd does not see the change.
    pub fn with_data_of(&self, y: &Tensor) -> Result<Tensor> {
        if self.requires_grad() && !y.dtype().is_floating_point() {
            return Err(Error::runtime(
                "data set to a tensor that requires gradients must be floating point or complex dtype",
            ));
        }
        let storage = Storage::sharing_elements_and_versions(y.storage(), self.storage());
        Ok(self.successor(Arc::new(storage), y.layout().clone(), y.dtype(), None))
    }

    /// `x.set_(source)`: the successor showing `source`'s elements with its sizes and strides
    /// (an in-place op: PyTorch's checks, and a version bump).
    pub fn set_(&self, source: &Tensor) -> Result<Tensor> {
        if source.dtype() != self.dtype() {
            return Err(Error::runtime(format!(
                "Could not set tensor of type {} to a tensor of type {}",
                source.dtype().cpp_name(),
                self.dtype().cpp_name()
            )));
        }
        self.begin_write(&[source])?;
        let storage = Storage::sharing_elements_and_versions(source.storage(), self.storage());
        self.storage().bump_version("set_");
        let layout = source.layout().clone();
        Ok(self.successor(Arc::new(storage), layout, self.dtype(), None))
    }

    /// `x.set_()`: the successor with no elements (shape `[0]`).
    pub fn set_empty_(&self) -> Result<Tensor> {
        self.set_(&Tensor::zeros(&[0], self.dtype()))
    }

    /// `x.resize_(shape)` (refused for a tensor that requires grad, outside inference mode):
    /// `None` when the shape is already `shape` (no change, no version
    /// bump, as PyTorch's), else the successor with that shape, contiguous from this tensor's
    /// offset over the same elements while they suffice, over a larger copy of them otherwise
    /// (new elements are zero; PyTorch leaves them uninitialized).
    pub fn resize_(&self, shape: &[usize]) -> Result<Option<Tensor>> {
        // refused by autograd, which inference mode skips
        if self.requires_grad() && !crate::core::grad_mode::is_inference_mode_enabled() {
            return Err(Error::runtime("cannot resize variables that require grad"));
        }
        if self.shape() == shape {
            return Ok(None);
        }
        self.begin_write(&[])?;
        let offset = self.layout().offset;
        let need = offset + shape.iter().product::<usize>();
        let storage = match need <= self.storage().numel() {
            true => self.storage().clone(),
            false => {
                let grown = with_any!(self.dtype(), T => {
                    let old = self.storage().read();
                    let old = old.as_slice::<T>();
                    let mut grown = vec![T::default(); need];
                    grown[..old.len()].copy_from_slice(old);
                    T::into_buffer(grown)
                });
                Arc::new(Storage::new(grown).counting_with(self.storage()))
            }
        };
        self.storage().bump_version("resize_");
        let layout = Layout {
            shape: shape.into(),
            strides: contiguous_strides(shape),
            offset,
        };
        let base = self.base().cloned();
        let base = base.filter(|b| Arc::ptr_eq(b.storage(), &storage));
        Ok(Some(self.successor(storage, layout, self.dtype(), base)))
    }

    /// An in-place view op named `name` (`transpose_`, `t_`, `unsqueeze_`, ...): the
    /// successor laid out as `view(self)`, over the same elements, whose history is the
    /// view's node renamed `node` (PyTorch's names for the in-place variants: `TBackward1`,
    /// `TransposeBackward1`, ...). It counts as an in-place write (PyTorch's checks and a
    /// version bump), so views made in inference or `no_grad` mode refuse it as they refuse
    /// any write.
    pub fn inplace_view(
        &self,
        name: &'static str,
        node: &'static str,
        view: impl FnOnce(&Tensor) -> Result<Tensor>,
    ) -> Result<Tensor> {
        self.begin_write(&[])?;
        let viewed = view(self)?;
        self.storage().bump_version(name);
        let layout = viewed.layout().clone();
        let mut history = viewed.meta().grad_fn.take();
        drop(viewed);
        if let Some(edge) = history.as_mut() {
            Node::rename(&mut edge.node, node);
        }
        let next = self.successor(
            self.storage().clone(),
            layout,
            self.dtype(),
            self.base().cloned(),
        );
        if history.is_some() {
            next.set_grad_fn(history);
        }
        Ok(next)
    }

    /// `x.as_strided_(shape, strides, offset)`: the successor laid out as `as_strided` gives
    /// (`AsStridedBackward1`).
    pub fn as_strided_(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: Option<usize>,
    ) -> Result<Tensor> {
        self.inplace_view("as_strided_", "AsStridedBackward1", |t| {
            t.as_strided(shape, strides, offset)
        })
    }
}

/// The storage positions of a layout's elements, in row-major order, as an int64 tensor.
fn positions(layout: &Layout) -> Tensor {
    let mut at = Vec::with_capacity(layout.numel());
    layout.for_each_offset(|o| at.push(o as i64));
    let n = at.len();
    Tensor::from_vec(at, &[n]).expect("one position per element")
}

impl Tensor {
    /// A view of this tensor's storage with any `shape`, `strides` (in elements, not negative)
    /// and `offset` (default: this tensor's): PyTorch's `as_strided`. Its gradient scatters
    /// into the storage's positions and gathers this tensor's (PyTorch's
    /// `AsStridedBackward0`), dividing by how often each position occurs in this tensor when
    /// its elements overlap (an expanded tensor).
    pub fn as_strided(
        &self,
        shape: &[usize],
        strides: &[isize],
        offset: Option<usize>,
    ) -> Result<Tensor> {
        if shape.len() != strides.len() {
            return Err(Error::runtime(format!(
                "mismatch in length of strides and shape: {} strides for {} dimensions",
                strides.len(),
                shape.len()
            )));
        }
        if strides.iter().any(|&s| s < 0) {
            return Err(Error::runtime(format!(
                "as_strided: Negative strides are not supported at the moment, got strides: {strides:?}"
            )));
        }
        let offset = offset.unwrap_or(self.layout().offset);
        let span = crate::core::layout::strided_span(shape, strides);
        let available = self.storage().numel();
        if span > 0 && offset + span > available {
            let size = self.dtype().size();
            return Err(Error::runtime(format!(
                "setStorage: sizes {shape:?}, strides {strides:?}, storage offset {offset}, and itemsize {size} requiring a storage size of {} are out of bounds for storage of size {}",
                (offset + span) * size,
                available * size
            )));
        }
        let layout = Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        };
        let out = self.alias_with_layout(layout.clone());
        if !crate::autograd::is_recording(&[self]) {
            return Ok(out);
        }
        let (to, from) = (positions(&layout), positions(self.layout()));
        let input_shape: Vec<isize> = self.shape().iter().map(|&d| d as isize).collect();
        let overlapping = self.layout().has_internal_overlap();
        Ok(crate::autograd::record(
            out,
            "AsStridedBackward0",
            &[self],
            &[],
            move |ctx| {
                let g = ctx.grad(0);
                let flat = g.reshape(&[-1])?;
                let zeros = Tensor::zeros(&[available], g.dtype());
                let mut scattered = zeros.index_add(0, &to, &flat)?;
                if overlapping {
                    let ones = Tensor::ones(&[from.numel()], g.dtype());
                    let count =
                        Tensor::zeros(&[available], g.dtype()).index_add(0, &from, &ones)?;
                    scattered = scattered.div(&count.clamp_min(1.0)?)?;
                }
                Ok(vec![Some(
                    scattered.index_select(0, &from)?.reshape(&input_shape)?,
                )])
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::Tensor;

    #[test]
    fn resize_keeps_elements_and_version_counter() {
        let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
        let view = x.narrow(0, 0, 2).unwrap();
        let grown = x.resize_(&[3, 2]).unwrap().expect("a new shape");
        assert_eq!(grown.shape(), &[3, 2]);
        let values: Vec<f32> = grown.to_vec().unwrap();
        assert_eq!(values, vec![1.0, 2.0, 3.0, 4.0, 0.0, 0.0]);
        assert_eq!(grown.version(), 1);
        view.fill_(7.0.into()).unwrap();
        assert_eq!(grown.version(), 2, "the successor counts with x's views");
        assert!(
            x.resize_(&[4]).unwrap().is_none(),
            "the same shape changes nothing"
        );
    }

    #[test]
    fn inplace_view_records_the_in_place_node() {
        let leaf = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
        leaf.set_requires_grad(true).unwrap();
        let y = (&leaf * 2.0).unwrap();
        let t = y.inplace_view("t_", "TBackward1", |t| t.t()).unwrap();
        assert_eq!(t.shape(), &[3, 2]);
        assert_eq!(t.grad_fn().unwrap().name(), "TBackward1");
        assert!(leaf.inplace_view("t_", "TBackward1", |t| t.t()).is_err());
    }
}
