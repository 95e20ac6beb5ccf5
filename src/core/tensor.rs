//! The `Tensor` handle: storage + layout + dtype + autograd metadata.

use crate::autograd::{self, Edge, Node};
use crate::core::buffer::{Buffer, BufferElement, ForeignElements};
use crate::core::dtype::{DType, Element, Scalar};
use crate::core::error::{Error, Result};
use crate::core::layout::{fmt_shape, gather, Layout, Strides};
use crate::core::storage::{check_allocation, Storage};
use crate::with_any;
use parking_lot::{Mutex, MutexGuard};
use std::sync::{Arc, Weak};

/// A reference-counted n-dimensional array that can take part in automatic differentiation.
///
/// Cloning a `Tensor` clones the handle (like binding a second Python name), not the data.
#[derive(Clone)]
pub struct Tensor(pub(crate) Arc<TensorImpl>);

/// What a `Tensor` handle points to. Views share `storage` with their base.
pub struct TensorImpl {
    pub(crate) storage: Arc<Storage>,
    pub(crate) layout: Layout,
    pub(crate) dtype: DType,
    pub(crate) meta: Mutex<AutogradMeta>,
    /// The tensor this one is a view of (always a non-view), if any.
    pub(crate) base: Option<Tensor>,
    /// Opaque slot where a language binding keeps a borrowed pointer to this tensor's wrapper
    /// object, so the same object comes back each time (never dereferenced by the core).
    pub binding_object: std::sync::atomic::AtomicPtr<std::ffi::c_void>,
    /// `meta.requires_grad || meta.grad_fn.is_some()`, readable without the lock (every op asks).
    requires_grad: std::sync::atomic::AtomicBool,
    /// For a view: the storage version its `grad_fn` was made at. An in-place write through
    /// the base or another view makes it stale; the history is then regenerated from the
    /// base's (see `autograd::refresh_view`, PyTorch's view `grad_fn` regeneration).
    pub(crate) view_version: std::sync::atomic::AtomicU64,
    /// For a view: how it was made ([`ViewCreation`], as a `u8`), which decides whether an
    /// in-place write through it or its base is allowed (PyTorch's `CreationMeta`).
    view_creation: std::sync::atomic::AtomicU8,
}

/// How a view was made, for the in-place rules PyTorch applies to views (its `CreationMeta`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewCreation {
    /// An ordinary view, made with grad mode on.
    Default = 0,
    /// Made under `no_grad`: an in-place write with grad mode on through it, or through its
    /// base before it is used again, is refused.
    NoGradMode = 1,
    /// One of several views returned by one op (`split`, `unbind`, `chunk`): in-place writes
    /// through it, or through its base before it is used again, are refused.
    MultiOutput = 2,
    /// Made in inference mode from a normal tensor: refused as [`ViewCreation::NoGradMode`],
    /// with PyTorch's inference-mode message.
    InferenceMode = 3,
    /// Returned by a custom Function's forward (or an input returned as-is): an in-place
    /// write through it would bypass the Function's backward, so it is refused.
    InCustomFunction = 4,
}

/// Autograd state of one tensor.
#[derive(Default)]
pub(crate) struct AutogradMeta {
    /// Leaf flag set by the user; non-leaves require grad through `grad_fn`.
    pub requires_grad: bool,
    /// Accumulated gradient (leaves, or non-leaves that retain it).
    pub grad: Option<Tensor>,
    /// The node that produced this tensor and which of its outputs it is.
    pub grad_fn: Option<Edge>,
    /// The leaf's AccumulateGrad node, held weakly (the node holds the leaf).
    pub accumulator: Weak<Node>,
    /// Whether `retain_grad()` was called on this non-leaf.
    pub retains_grad: bool,
    /// Hooks of a leaf, run before and after its gradient is accumulated (non-leaf hooks live
    /// on the node); boxed, since few tensors have any and every op makes a tensor.
    pub hooks: Option<Box<crate::autograd::LeafHooks>>,
    /// For a view made with view replay on: the view ops that make it from its base.
    pub view_replay: Option<autograd::ViewOps>,
}

impl Drop for TensorImpl {
    fn drop(&mut self) {
        // Hand the history to the iterative releaser so a long chain never recurses.
        let meta = self.meta.get_mut();
        let edge = meta.grad_fn.take();
        let grad = meta.grad.take();
        if edge.is_some() || grad.is_some() {
            autograd::release_iteratively(edge.map(|e| e.node), grad);
        }
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl Tensor {
    // ----- construction -------------------------------------------------------------------

    pub(crate) fn from_parts(
        storage: Arc<Storage>,
        layout: Layout,
        dtype: DType,
        base: Option<Tensor>,
    ) -> Tensor {
        let view_version = match base {
            Some(_) => storage.version(),
            None => 0,
        };
        Tensor(Arc::new(TensorImpl {
            storage,
            layout,
            dtype,
            meta: Mutex::new(AutogradMeta::default()),
            base,
            binding_object: std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()),
            requires_grad: std::sync::atomic::AtomicBool::new(false),
            view_version: std::sync::atomic::AtomicU64::new(view_version),
            view_creation: std::sync::atomic::AtomicU8::new(ViewCreation::Default as u8),
        }))
    }

    /// A wrapper tensor (Note [Tensor subclasses that dispatch]): `shape`, `strides` and
    /// `offset` describe it, it owns no elements, and `subclass` is the binding's state of it.
    pub fn wrapper(
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        dtype: DType,
        subclass: crate::core::storage::Subclass,
    ) -> Result<Tensor> {
        if shape.len() != strides.len() {
            return Err(Error::runtime(format!(
                "a wrapper tensor of shape {} needs {} strides, got {}",
                fmt_shape(shape),
                shape.len(),
                strides.len()
            )));
        }
        if shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .is_none()
        {
            return Err(Error::runtime(format!(
                "numel: integer multiplication overflow (shape {})",
                fmt_shape(shape)
            )));
        }
        let layout = Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        };
        let storage = Arc::new(Storage::elementless(dtype, subclass));
        Ok(Tensor::from_parts(storage, layout, dtype, None))
    }

    /// A tensor on the `meta` device: a shape, strides and a dtype, and no elements (a wrapper
    /// whose state is [`Meta`](crate::core::storage::Meta)).
    pub fn on_meta(
        shape: &[usize],
        strides: &[isize],
        offset: usize,
        dtype: DType,
    ) -> Result<Tensor> {
        Tensor::wrapper(
            shape,
            strides,
            offset,
            dtype,
            std::sync::Arc::new(crate::core::storage::Meta),
        )
    }

    /// Whether this tensor is on the `meta` device ([`Tensor::on_meta`]).
    #[inline]
    pub fn is_meta(&self) -> bool {
        self.subclass()
            .is_some_and(|s| s.is::<crate::core::storage::Meta>())
    }

    /// The binding's state of a wrapper tensor (held by its storage, so the tensors sharing
    /// it, `detach()`ed or saved for backward, are the same wrapper); `None` for a tensor with
    /// elements.
    #[inline]
    pub fn subclass(&self) -> Option<&crate::core::storage::Subclass> {
        self.0.storage.subclass()
    }

    /// How this view was made ([`ViewCreation::Default`] for a non-view).
    pub fn view_creation(&self) -> ViewCreation {
        match self
            .0
            .view_creation
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            1 => ViewCreation::NoGradMode,
            2 => ViewCreation::MultiOutput,
            3 => ViewCreation::InferenceMode,
            4 => ViewCreation::InCustomFunction,
            _ => ViewCreation::Default,
        }
    }

    /// Records how this view was made (set once, by the op that makes it).
    pub(crate) fn set_view_creation(&self, how: ViewCreation) {
        self.0
            .view_creation
            .store(how as u8, std::sync::atomic::Ordering::Relaxed);
    }

    /// A tensor over elements another library owns (see [`ForeignElements`]), viewed with
    /// `shape` and `strides` (in elements, not negative) from the first element; no copy.
    pub fn from_foreign(
        elements: ForeignElements,
        shape: &[usize],
        strides: &[isize],
    ) -> Result<Tensor> {
        let buffer = Buffer::Foreign(elements);
        let span = crate::core::layout::strided_span(shape, strides);
        if shape.len() != strides.len() || strides.iter().any(|&s| s < 0) || span > buffer.len() {
            return Err(Error::runtime(format!(
                "from_foreign: shape {} with strides {strides:?} does not fit {} elements",
                fmt_shape(shape),
                buffer.len()
            )));
        }
        let dtype = buffer.dtype();
        let layout = Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset: 0,
        };
        Ok(Tensor::from_parts(
            Arc::new(Storage::new(buffer)),
            layout,
            dtype,
            None,
        ))
    }

    /// The address of the first element (PyTorch's `data_ptr()`): tensors sharing memory with
    /// NumPy arrays or DLPack capsules report the same address as they do.
    pub fn data_ptr(&self) -> *const u8 {
        let base = self.0.storage.read().as_ptr();
        base.wrapping_add(self.0.layout.offset * self.dtype().size())
    }

    /// A contiguous tensor owning `buffer`, viewed with `shape`.
    pub fn from_buffer(buffer: Buffer, shape: &[usize]) -> Result<Tensor> {
        let numel: usize = shape.iter().product();
        if buffer.len() != numel {
            return Err(Error::runtime(format!(
                "shape {} is invalid for input of size {}",
                fmt_shape(shape),
                buffer.len()
            )));
        }
        let dtype = buffer.dtype();
        Ok(Tensor::from_parts(
            Arc::new(Storage::new(buffer)),
            Layout::contiguous(shape),
            dtype,
            None,
        ))
    }

    /// A contiguous tensor from a vector of elements and a shape.
    pub fn from_vec<T: BufferElement>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        Tensor::from_buffer(T::into_buffer(data), shape)
    }

    /// A tensor owning `data`, an output of `shape` laid out with `strides` (a dense
    /// permutation of row-major, see [`crate::core::layout::elementwise_strides`]); row-major
    /// when `strides` is `None`.
    pub fn from_vec_strided<T: BufferElement>(
        data: Vec<T>,
        shape: &[usize],
        strides: Option<Strides>,
    ) -> Tensor {
        let Some(strides) = strides else {
            return Tensor::from_vec(data, shape).expect("one element per index");
        };
        assert_eq!(
            crate::core::layout::strided_span(shape, &strides),
            data.len(),
            "dense strides"
        );
        let layout = Layout {
            shape: shape.into(),
            strides,
            offset: 0,
        };
        Tensor::from_parts(
            Arc::new(Storage::new(T::into_buffer(data))),
            layout,
            T::DTYPE,
            None,
        )
    }

    /// A 0-dimensional tensor holding `value`.
    pub fn scalar<T: BufferElement>(value: T) -> Tensor {
        Tensor::from_parts(
            Arc::new(Storage::new(T::into_buffer(vec![value]))),
            Layout::contiguous(&[]),
            T::DTYPE,
            None,
        )
    }

    /// A 0-dimensional tensor holding `value` converted to `dtype`.
    pub fn scalar_of(value: f64, dtype: DType) -> Tensor {
        Tensor::full(&[], value, dtype)
    }

    /// A tensor of `shape` filled with `value` (converted to `dtype`).
    pub fn full(shape: &[usize], value: f64, dtype: DType) -> Tensor {
        let n: usize = shape.iter().product();
        let buffer = with_any!(dtype, T => T::into_buffer(vec![T::from_f64(value); n]));
        Tensor::from_buffer(buffer, shape).expect("length matches shape")
    }

    /// [`Tensor::full`] for a shape from the user: an element count that overflows, or memory
    /// the system will not give, is an error instead of an abort.
    pub fn try_full(shape: &[usize], value: f64, dtype: DType) -> Result<Tensor> {
        check_allocation(shape, dtype)?;
        Ok(Tensor::full(shape, value, dtype))
    }

    /// PyTorch's `empty_strided`: a fresh tensor of `shape` laid out with `strides` (any
    /// non-negative strides: its storage spans the furthest element), zero-filled here.
    pub fn empty_strided(shape: &[usize], strides: &[isize], dtype: DType) -> Result<Tensor> {
        if shape.len() != strides.len() {
            return Err(Error::runtime(format!(
                "dimensionality of sizes ({}) must match dimensionality of strides ({})",
                shape.len(),
                strides.len()
            )));
        }
        let span = if strides.iter().any(|&s| s < 0) {
            None
        } else if shape.contains(&0) {
            Some(0)
        } else {
            shape
                .iter()
                .zip(strides)
                .try_fold(1usize, |span, (&n, &s)| {
                    (n - 1).checked_mul(s as usize)?.checked_add(span)
                })
        };
        let span = span.ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={shape:?} and strides={strides:?}"
            ))
        })?;
        check_allocation(&[span], dtype)?;
        let layout = Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset: 0,
        };
        let buffer = with_any!(dtype, T => T::into_buffer(vec![T::default(); span]));
        Ok(Tensor::from_parts(
            Arc::new(Storage::new(buffer)),
            layout,
            dtype,
            None,
        ))
    }

    /// A tensor filled with `value` (converted to `dtype`), shaped and laid out as this one
    /// (PyTorch's `*_like` with `preserve_format`).
    pub fn full_like_laid_out(&self, value: f64, dtype: DType) -> Tensor {
        let n = self.numel();
        let strides = self.layout().preserved_strides();
        with_any!(dtype, T => Tensor::from_vec_strided(vec![T::from_f64(value); n], self.shape(), strides))
    }

    /// A tensor of zeros.
    pub fn zeros(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, 0.0, dtype)
    }

    /// A tensor of ones.
    pub fn ones(shape: &[usize], dtype: DType) -> Tensor {
        Tensor::full(shape, 1.0, dtype)
    }

    /// Zeros with this tensor's shape and dtype.
    pub fn zeros_like(&self) -> Tensor {
        Tensor::zeros(self.shape(), self.dtype())
    }

    /// Ones with this tensor's shape and dtype.
    pub fn ones_like(&self) -> Tensor {
        Tensor::ones(self.shape(), self.dtype())
    }

    // ----- plain accessors ----------------------------------------------------------------

    /// Size of each dimension.
    pub fn shape(&self) -> &[usize] {
        &self.0.layout.shape
    }

    /// Number of dimensions.
    pub fn dim(&self) -> usize {
        self.0.layout.ndim()
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.0.layout.numel()
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.0.dtype
    }

    /// Where the elements sit in the storage.
    pub fn layout(&self) -> &Layout {
        &self.0.layout
    }

    /// Whether this is an inference tensor: its elements were made in inference mode.
    pub fn is_inference(&self) -> bool {
        self.storage().is_inference()
    }

    /// The shared storage.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.0.storage
    }

    /// True when the elements are dense and row-major.
    pub fn is_contiguous(&self) -> bool {
        self.0.layout.is_contiguous()
    }

    /// How many in-place writes the storage has seen (PyTorch's `_version`).
    pub fn version(&self) -> u64 {
        self.0.storage.version()
    }

    /// The base tensor if this is a view.
    pub fn base(&self) -> Option<&Tensor> {
        self.0.base.as_ref()
    }

    /// True when both handles are the same tensor object.
    pub fn same(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// A stable identity for this tensor object.
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.0) as usize
    }

    /// `torch.FloatTensor [2, 3]`-style description used in autograd messages.
    pub fn type_description(&self) -> String {
        format!("{} {}", self.dtype().legacy_name(), fmt_shape(self.shape()))
    }

    /// Reads the whole storage and this tensor's layout under a shared lock.
    pub(crate) fn read<T: BufferElement, R>(&self, f: impl FnOnce(&[T], &Layout) -> R) -> R {
        let guard = self.0.storage.read();
        f(guard.as_slice::<T>(), &self.0.layout)
    }

    /// The elements in row-major order, as a new vector (the dtype must be `T`).
    pub fn to_vec<T: BufferElement>(&self) -> Result<Vec<T>> {
        if self.dtype() != T::DTYPE {
            return Err(Error::type_error(format!(
                "expected a {} tensor, got {}",
                T::DTYPE.name(),
                self.dtype().name()
            )));
        }
        Ok(self.read(|data: &[T], layout| gather(data, layout)))
    }

    /// The elements converted to `f64`, in row-major order.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        with_any!(self.dtype(), T => self.read(|data: &[T], layout| {
            let mut out = Vec::with_capacity(layout.numel());
            layout.for_each_offset(|p| out.push(data[p].to_f64()));
            out
        }))
    }

    /// A contiguous copy of the elements in a fresh buffer.
    pub(crate) fn contiguous_buffer(&self) -> Buffer {
        with_any!(self.dtype(), T => T::into_buffer(self.read(|d: &[T], l| gather(d, l))))
    }

    // ----- autograd metadata --------------------------------------------------------------

    pub(crate) fn meta(&self) -> MutexGuard<'_, AutogradMeta> {
        self.0.meta.lock()
    }

    /// Whether gradients flow to this tensor (leaf flag, or produced by a recorded op).
    pub fn requires_grad(&self) -> bool {
        self.0
            .requires_grad
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Refreshes the lock-free `requires_grad` flag from `meta` (call with the lock held).
    pub(crate) fn sync_requires_grad(&self, meta: &AutogradMeta) {
        let value = meta.requires_grad || meta.grad_fn.is_some();
        self.0
            .requires_grad
            .store(value, std::sync::atomic::Ordering::Release);
    }

    /// Sets the leaf flag, with PyTorch's checks (floating dtype; only leaves can stop requiring grad).
    pub fn set_requires_grad(&self, requires_grad: bool) -> Result<()> {
        if requires_grad
            && self.is_inference()
            && !crate::core::grad_mode::is_inference_mode_enabled()
        {
            return Err(Error::runtime(
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
            ));
        }
        let mut meta = self.meta();
        if meta.grad_fn.is_some() {
            if !requires_grad {
                return Err(Error::runtime(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed \
                     variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().",
                ));
            }
            return Ok(());
        }
        if requires_grad && !self.dtype().is_floating_point() {
            return Err(Error::runtime(format!(
                "only Tensors of floating point dtype can require gradients (this tensor is {}; convert it with \
                 .float() or .double() first)",
                self.dtype().name()
            )));
        }
        meta.requires_grad = requires_grad;
        self.sync_requires_grad(&meta);
        Ok(())
    }

    /// True for tensors not produced by a recorded op (user-created, or detached).
    pub fn is_leaf(&self) -> bool {
        self.meta().grad_fn.is_none()
    }

    /// The accumulated gradient, if any.
    pub fn grad(&self) -> Option<Tensor> {
        self.meta().grad.clone()
    }

    /// Replaces the gradient (`None` resets it), checking shape and dtype as PyTorch does.
    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.same(self) {
                return Err(Error::runtime("can't assign Variable as its own grad"));
            }
            if g.dtype() != self.dtype() {
                return Err(Error::runtime(format!(
                    "assigned grad has data of a different type (expected {}, got {})",
                    self.dtype().name(),
                    g.dtype().name()
                )));
            }
            if g.shape() != self.shape() {
                return Err(Error::runtime(format!(
                    "assigned grad has data of a different size (expected {}, got {})",
                    fmt_shape(self.shape()),
                    fmt_shape(g.shape())
                )));
            }
        }
        self.meta().grad = grad;
        Ok(())
    }

    /// The node that produced this tensor (`None` for leaves).
    pub fn grad_fn(&self) -> Option<Arc<Node>> {
        self.meta().grad_fn.as_ref().map(|e| e.node.clone())
    }

    /// Which output of `grad_fn` this tensor is.
    pub fn output_nr(&self) -> usize {
        self.meta().grad_fn.as_ref().map_or(0, |e| e.input_nr)
    }

    /// Sets the `grad_fn` of an op's new output: without locking when no other handle exists.
    pub(crate) fn set_fresh_grad_fn(&mut self, edge: Edge) {
        match Arc::get_mut(&mut self.0) {
            Some(inner) => {
                let meta = inner.meta.get_mut();
                meta.grad_fn = Some(edge);
                inner
                    .requires_grad
                    .store(true, std::sync::atomic::Ordering::Release);
            }
            None => self.set_grad_fn(Some(edge)),
        }
    }

    pub(crate) fn set_grad_fn(&self, edge: Option<Edge>) {
        let mut meta = self.meta();
        if meta.retains_grad {
            // retain_grad follows the tensor's current value: an in-place op moves it to the
            // new history (PyTorch 2), other tensor hooks stay with the old value's node
            let me = Arc::downgrade(&self.0);
            if let Some(old) = &meta.grad_fn {
                old.node.remove_retained_grad(&me);
            }
            if let Some(new) = &edge {
                new.node.add_retained_grad(new.input_nr, me);
            }
        }
        meta.grad_fn = edge;
        self.sync_requires_grad(&meta);
        if self.0.base.is_some() {
            self.mark_view_current();
        }
    }

    /// Records that this view's history matches its storage's current version.
    pub(crate) fn mark_view_current(&self) {
        let now = self.0.storage.version();
        self.0
            .view_version
            .store(now, std::sync::atomic::Ordering::Release);
    }

    /// Whether this view's history predates an in-place write into its storage.
    pub(crate) fn view_is_stale(&self) -> bool {
        self.0.base.is_some()
            && self
                .0
                .view_version
                .load(std::sync::atomic::Ordering::Acquire)
                != self.0.storage.version()
    }

    /// Keeps the gradient of this non-leaf in `.grad` after `backward()`.
    pub fn retain_grad(&self) -> Result<()> {
        let mut meta = self.meta();
        let Some(edge) = meta.grad_fn.clone() else {
            if !meta.requires_grad {
                return Err(Error::runtime(
                    "can't retain_grad on Tensor that has requires_grad=False",
                ));
            }
            return Ok(()); // leaves keep their gradient anyway
        };
        if !meta.retains_grad {
            meta.retains_grad = true;
            edge.node
                .add_retained_grad(edge.input_nr, Arc::downgrade(&self.0));
        }
        Ok(())
    }

    /// Whether `retain_grad()` was called on this non-leaf.
    pub fn retains_grad(&self) -> bool {
        self.meta().retains_grad
    }

    /// A new leaf sharing this tensor's data (and version counter) but not its history. Not a
    /// view even when `self` is one (PyTorch's detach is a non-differentiable view): in-place
    /// writes through it are not recorded, and its history is never regenerated.
    pub fn detach(&self) -> Tensor {
        self.unviewed()
    }

    /// The same storage and layout as a tensor of its own, not a view (PyTorch's
    /// `_unsafe_view`): for ops that compute their result through a view of a fresh
    /// intermediate, whose result must not look like a view to autograd.
    pub fn unviewed(&self) -> Tensor {
        Tensor::from_parts(
            self.0.storage.clone(),
            self.0.layout.clone(),
            self.dtype(),
            None,
        )
    }

    /// PyTorch's `x.data`: a new leaf with this tensor's elements (writes show in both) but a
    /// version counter of its own, so autograd does not see writes through it.
    pub fn data_alias(&self) -> Tensor {
        let storage = Arc::new(Storage::sharing_elements_of(&self.0.storage));
        Tensor::from_parts(storage, self.0.layout.clone(), self.dtype(), None)
    }

    /// Detaches this tensor from its history in place.
    pub fn detach_(&self) -> Result<()> {
        if self.0.base.is_some() {
            return Err(Error::runtime(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.",
            ));
        }
        let mut meta = self.meta();
        meta.grad_fn = None;
        meta.requires_grad = false;
        self.sync_requires_grad(&meta);
        Ok(())
    }

    /// The value of a one-element tensor for Python's `float()`/`int()` (a ValueError
    /// otherwise, as PyTorch).
    pub fn python_scalar(&self) -> Result<Scalar> {
        if self.numel() != 1 {
            return Err(Error::value(format!(
                "only one element tensors can be converted to Python scalars (this one has {})",
                self.numel()
            )));
        }
        self.item()
    }

    /// A contiguous copy with its own storage and no history.
    pub fn deep_copy(&self) -> Tensor {
        Tensor::from_buffer(self.contiguous_buffer(), self.shape()).expect("shape matches")
    }
}

/// Marker so that an `Element` bound also gives buffer access.
pub trait TensorElement: Element + BufferElement {}
impl<T: Element + BufferElement> TensorElement for T {}

/// True when nobody else can see `g`'s data, so it may become a `.grad` and be updated in
/// place: `g` covers all of its storage, densely, and the only other holder of the storage is
/// `g`'s own base (a view's base that nothing else holds, e.g. the `.t()` of a fresh product).
pub(crate) fn owns_exclusively(g: &Tensor) -> bool {
    let base_holds = match g.base() {
        None => 0,
        Some(base) if Arc::strong_count(&base.0) == 1 && base.base().is_none() => 1,
        Some(_) => return false,
    };
    let sole = Arc::strong_count(&g.0) == 1
        && Arc::strong_count(g.storage()) == 1 + base_holds
        && !g.storage().is_alias()
        && g.layout().offset == 0
        && g.is_contiguous()
        && g.storage().numel() == g.numel();
    if sole {
        // the counts are read with relaxed loads: order the other holders' last reads (on
        // other threads, before they dropped their handles) before our writes, as
        // `Arc::get_mut` does
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
    }
    sole
}
