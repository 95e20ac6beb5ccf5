//! Summing gradients: the input buffer where a node's incoming gradients add up, and
//! AccumulateGrad's write into a leaf's `.grad`.
//!
//! Note [Deterministic sums]: every sum here is made in an order fixed by the graph (the
//! one-thread engine's order, Note [Execution order], never thread timing), and floating-point addition is done
//! pairwise in that order, so gradients are the same bits with any number of threads. A sum is
//! written into its left operand only when nobody else can see that tensor.

use crate::core::dtype::DType;
use crate::core::error::Result;
use crate::core::layout::{same_shape, Dims, Layout, Part};
use crate::core::tensor::{owns_exclusively, Tensor};
use crate::cpu::kernels::{add_into, write_into};
use smallvec::SmallVec;

/// The gradient summed so far for each input slot of a node (PyTorch's InputBuffer), `None`
/// where nothing arrived. Gradients are added as they are delivered; deliveries happen in an
/// order fixed by the graph (never by thread timing), so the sums are the same with any number
/// of threads.
#[derive(Default)]
pub(crate) struct InputBuffer(pub(super) Grads);

/// One gradient per input slot of a node (two inline: most nodes have one or two).
pub(crate) type Grads = SmallVec<[Option<Tensor>; 2]>;

/// The gradient of a view that is one part of its input, on its way into the input's sum
/// (Note [Gradients of parts]).
pub(crate) struct PartGrad {
    /// The view's gradient.
    pub(super) grad: Tensor,
    /// Which part of the input the view is.
    pub(super) part: Part,
    /// The input's shape and dtype.
    pub(super) shape: Dims,
    pub(super) dtype: DType,
}

impl PartGrad {
    /// The gradient as the view's formula makes it: zeros of the input's shape holding `grad`
    /// in the part.
    fn dense(&self) -> Tensor {
        let out = Tensor::zeros(&self.shape, self.dtype);
        write_into(&self.view_of(&out), &self.grad);
        out
    }

    /// The part of `whole` (a contiguous tensor of the input's shape) as a tensor sharing its
    /// storage; drop it before asking whether `whole` is shared.
    fn view_of(&self, whole: &Tensor) -> Tensor {
        let layout = Layout::contiguous(&self.shape).part(self.part);
        Tensor::from_parts(whole.storage().clone(), layout, self.dtype, None)
    }
}

/// A gradient delivered along an edge: a tensor of the input's shape, or a part of it.
pub(crate) enum Arriving {
    /// A gradient of the input's shape.
    Whole(Tensor),
    /// A view's gradient, to be added into its part of the input's sum.
    Part(PartGrad),
}

impl InputBuffer {
    /// Adds `g` into input slot `slot`.
    pub(super) fn add(&mut self, slot: usize, g: Arriving) -> Result<()> {
        while self.0.len() <= slot {
            self.0.push(None);
        }
        let sum = match (self.0[slot].take(), g) {
            (None, Arriving::Whole(g)) => g,
            (None, Arriving::Part(p)) => p.dense(),
            (Some(acc), Arriving::Whole(g)) => sum_two(acc, g)?,
            (Some(acc), Arriving::Part(p)) => {
                let in_place = !acc.requires_grad()
                    && acc.dtype() == p.dtype
                    && same_shape(acc.shape(), &p.shape)
                    && owns_exclusively(&acc);
                if in_place {
                    add_into(&p.view_of(&acc), &p.grad)?;
                    acc
                } else {
                    sum_two(acc, p.dense())?
                }
            }
        };
        self.0[slot] = Some(sum);
        Ok(())
    }
}

/// `acc + g`, written into `acc` when nobody else sees it and no graph is being built (the
/// same values as a new sum, without allocating one).
pub(super) fn sum_two(acc: Tensor, g: Tensor) -> Result<Tensor> {
    let reusable = !acc.requires_grad()
        && !g.requires_grad()
        && g.subclass().is_none()
        && acc.subclass().is_none()
        && acc.dtype() == g.dtype()
        && same_shape(acc.shape(), g.shape())
        && owns_exclusively(&acc);
    if reusable {
        add_into(&acc, &g)?;
        return Ok(acc);
    }
    sum_of(&acc, &g)
}

/// `a + b` as a new tensor; a sparse `a` goes second, as PyTorch adds sparse into dense only.
fn sum_of(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    if a.is_sparse() && !b.is_sparse() {
        return b.add(a);
    }
    a.add(b)
}

/// AccumulateGrad: adds `g` into `variable.grad` (PyTorch's rules for stealing vs copying).
pub(super) fn accumulate_grad(variable: &Tensor, g: Tensor, create_graph: bool) -> Result<()> {
    let mut meta = variable.meta();
    let wrapped =
        g.subclass().is_some() || meta.grad.as_ref().is_some_and(|o| o.subclass().is_some());
    if wrapped {
        // a wrapper tensor's sums are ops its class computes (Note [Tensor subclasses that
        // dispatch]): no buffer here to write into, and Python code runs, so not under the lock
        let old = meta.grad.clone();
        drop(meta);
        let new = match old {
            None if create_graph || g.requires_grad() => g.clone_preserving()?,
            // a sparse gradient is kept as it is only when nothing else holds its parts
            None if g.is_sparse() && !g.owns_coo_exclusively() => g.clone_preserving()?,
            None => g,
            // without a graph being built, a sparse gradient is added in place into a sparse
            // `.grad` (appended) or a dense one, so the `.grad` object stays, as PyTorch's
            Some(old) if !create_graph && g.is_sparse() && old.is_sparse() => {
                old.sparse_accumulate_(&g)?;
                old
            }
            Some(old) if !create_graph && g.is_sparse() && old.subclass().is_none() => {
                add_into(&old, &g.to_dense()?)?;
                old.storage().bump_version("add_");
                old
            }
            Some(old) => sum_of(&old, &g)?,
        };
        variable.meta().grad = Some(new);
        return Ok(());
    }
    let new = match meta.grad.take() {
        // (PyTorch's `clone_obey_contract`: a fresh tensor `copy_`'d from the gradient, so a
        // graph being built runs through CopyBackwards and `.grad` never aliases the gradient)
        None if create_graph => {
            let grad = zeros_laid_out_as(variable);
            grad.copy_(&g)?;
            grad
        }
        None if !g.requires_grad()
            && owns_exclusively(&g)
            && obeys_layout_contract(&g, variable) =>
        {
            steal(g)
        }
        None if !variable.is_contiguous() && variable.layout().dense_extent().is_some() => {
            let grad = zeros_laid_out_as(variable);
            write_into(&grad, &g);
            grad
        }
        None => g.deep_copy(),
        Some(old) if create_graph => old.add(&g)?,
        Some(old) => {
            // in place, under the leaf's lock, so concurrent backward passes never lose a sum
            add_into(&old, &g)?;
            old.storage().bump_version("add_");
            old
        }
    };
    meta.grad = Some(new);
    Ok(())
}

/// Note [Gradient layout contract]: as PyTorch's AccumulateGrad, a leaf's first `.grad` is laid
/// out as the leaf when the leaf is dense in some order of its dimensions (a channels-last
/// weight gets a channels-last gradient, whatever layout the gradient arrived in), else
/// row-major. Whether `g` already is (dimensions of size 1 aside, where only a 0 stride is
/// refused).
fn obeys_layout_contract(g: &Tensor, variable: &Tensor) -> bool {
    let (gl, vl) = (g.layout(), variable.layout());
    let as_variable = gl.shape.iter().zip(gl.strides.iter().zip(&vl.strides)).all(
        |(&size, (&gs, &vs))| match size {
            1 => gs != 0,
            _ => gs == vs,
        },
    );
    // (a contiguous variable is dense: the common case decides without the costlier check)
    if variable.is_contiguous() || vl.dense_extent().is_some() {
        return as_variable;
    }
    g.is_contiguous()
}

/// Zeros shaped and laid out as `variable` when it is dense in some order of its dimensions,
/// else row-major (see Note [Gradient layout contract]).
fn zeros_laid_out_as(variable: &Tensor) -> Tensor {
    let (shape, layout) = (variable.shape(), variable.layout());
    if variable.is_contiguous() || layout.dense_extent().is_none() {
        return Tensor::zeros(shape, variable.dtype());
    }
    let n = variable.numel();
    let strides = Some(layout.strides.clone());
    crate::with_any!(variable.dtype(), T => Tensor::from_vec_strided(vec![T::default(); n], shape, strides))
}

/// `g`'s elements as a tensor of their own (no base), without copying; `g` must own them
/// exclusively (see [`owns_exclusively`]).
fn steal(g: Tensor) -> Tensor {
    if g.base().is_none() {
        return g;
    }
    Tensor::from_parts(g.storage().clone(), g.layout().clone(), g.dtype(), None)
}
