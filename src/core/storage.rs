//! Shared element storage with a version counter, and the check of a new tensor's size
//! (`check_allocation`).
//!
//! Every view of a tensor (and `detach()`) shares one `Storage`, so they share its version
//! counter: any in-place write through any of them is seen by the saved-tensor check. PyTorch's
//! `.data` is the exception: a storage that shares another's elements but counts its own
//! versions ([`Storage::sharing_elements_of`]).

use super::buffer::Buffer;
use super::dtype::DType;
use super::error::{Error, Result};
use super::layout::fmt_shape;
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::any::Any;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// The binding's state of a wrapper tensor (for Python: its class and instance dictionary).
pub type Subclass = Arc<dyn Any + Send + Sync>;

/// Whether a wrapper tensor was ever made in this process: until one is, no op looks at its
/// inputs for one (the check costs one load of this flag).
static WRAPPERS_MADE: AtomicBool = AtomicBool::new(false);

/// Records that a wrapper tensor exists (its storage is being made).
pub(crate) fn note_wrapper_made() {
    WRAPPERS_MADE.store(true, Ordering::Relaxed);
}

/// Whether any wrapper tensor was ever made in this process.
#[inline(always)]
pub fn wrappers_made() -> bool {
    WRAPPERS_MADE.load(Ordering::Relaxed)
}

/// The state of a tensor on the `meta` device (PyTorch's device of shapes without values): a
/// wrapper whose ops the binding answers by their outputs' shapes alone, never by values
/// (Note [The meta device] in `ferrograd/_meta.py`).
#[derive(Debug)]
pub struct Meta;

/// The panic payload of a read or write of a wrapper's (missing) elements: the binding turns
/// it into an exception naming the op that tried.
#[derive(Debug, Clone, Copy)]
pub struct NoElements;

/// Refuses access to the elements of an elementless storage (see [`NoElements`]).
#[cold]
pub(crate) fn refuse_elements() -> ! {
    std::panic::panic_any(NoElements)
}

impl Drop for Storage {
    fn drop(&mut self) {
        if self.data.get_mut().byte_len() >= super::pool::MIN_BYTES {
            super::pool::recycle(std::mem::replace(
                self.data.get_mut(),
                Buffer::Bool(Vec::new()),
            ));
        }
    }
}

/// Elements plus the version counter that every alias of them shares.
#[derive(Debug)]
pub struct Storage {
    data: RwLock<Buffer>,
    /// The buffer's element count (a buffer never changes length), readable without the lock.
    numel: usize,
    version: AtomicU64,
    last_writer: Mutex<&'static str>,
    /// The storage whose elements these are, for a `.data` alias (then `data` is empty).
    elements_of: Option<Arc<Storage>>,
    /// The storage whose version counter this one counts with (`version` unused), for a tensor
    /// given other elements by `x.data = y` or `set_`, which keeps its own counter.
    versions_of: Option<Arc<Storage>>,
    /// Made in inference mode: the tensors over it (views included) are inference tensors.
    inference: bool,
    /// For a wrapper tensor's storage, which has no elements (reading or writing them is
    /// refused, Note [Tensor subclasses that dispatch]): the binding's state of the wrapper (its
    /// class and instance dictionary, for Python). Boxed: one word in every storage.
    subclass: Option<Box<Subclass>>,
}

impl Storage {
    /// A storage owning `buffer`, at version 0.
    pub fn new(buffer: Buffer) -> Self {
        Storage {
            numel: buffer.len(),
            data: RwLock::new(buffer),
            version: AtomicU64::new(0),
            last_writer: Mutex::new(""),
            elements_of: None,
            versions_of: None,
            inference: crate::core::grad_mode::is_inference_mode_enabled(),
            subclass: None,
        }
    }

    /// The storage of a wrapper tensor of `dtype`: no elements, and any read or write of them
    /// refused (Note [Tensor subclasses that dispatch]).
    pub fn elementless(dtype: crate::core::dtype::DType, subclass: Subclass) -> Self {
        let empty = crate::with_any!(dtype, T => <T as crate::core::buffer::BufferElement>::into_buffer(Vec::new()));
        let mut storage = Storage::new(empty);
        storage.subclass = Some(Box::new(subclass));
        note_wrapper_made();
        storage
    }

    /// Whether this is a wrapper tensor's storage, which has no elements.
    #[inline]
    pub fn is_elementless(&self) -> bool {
        self.subclass.is_some()
    }

    /// A wrapper tensor's binding state (see [`Storage::elementless`]).
    #[inline]
    pub fn subclass(&self) -> Option<&Subclass> {
        self.subclass.as_deref()
    }

    /// Whether the storage was made in inference mode (its tensors are inference tensors).
    pub fn is_inference(&self) -> bool {
        self.inference
    }

    /// A storage with `other`'s elements and a version counter of its own, at 0 (PyTorch's
    /// `x.data`: writes through it are not seen by the saved-tensor checks of `x`'s graphs).
    pub fn sharing_elements_of(other: &Arc<Storage>) -> Self {
        let owner = other.elements_of.clone().unwrap_or_else(|| other.clone());
        Storage {
            numel: other.numel,
            data: RwLock::new(Buffer::Bool(Vec::new())),
            version: AtomicU64::new(0),
            last_writer: Mutex::new(""),
            inference: owner.inference,
            subclass: owner.subclass.clone(),
            elements_of: Some(owner),
            versions_of: None,
        }
    }

    /// A storage with `elements`' elements counting versions with `versions`' counter (PyTorch's
    /// `x.data = y` and `x.set_(y)`: `x` shows `y`'s elements, and its version stays the one
    /// its views and saved tensors see).
    pub fn sharing_elements_and_versions(elements: &Arc<Storage>, versions: &Arc<Storage>) -> Self {
        Storage::sharing_elements_of(elements).counting_with(versions)
    }

    /// This storage, counting versions with `versions`' counter from now on.
    pub fn counting_with(mut self, versions: &Arc<Storage>) -> Self {
        self.versions_of = Some(versions.version_owner_arc());
        self
    }

    /// The storage whose version counter this one uses, as an `Arc`.
    fn version_owner_arc(self: &Arc<Self>) -> Arc<Storage> {
        self.versions_of.clone().unwrap_or_else(|| self.clone())
    }

    /// The storage whose version counter this one uses (itself, unless it counts with another's).
    fn version_owner(&self) -> &Storage {
        self.versions_of.as_deref().unwrap_or(self)
    }
    /// The storage that holds the elements (itself, unless a `.data` alias).
    fn owner(&self) -> &Storage {
        self.elements_of.as_deref().unwrap_or(self)
    }

    /// Whether two storages hold the same elements (the same storage, or a `.data` alias).
    pub fn same_elements(a: &Storage, b: &Storage) -> bool {
        std::ptr::eq(a.owner(), b.owner())
    }

    /// The address of the storage whose lock guards these elements: the order in which two
    /// storages' locks are taken (an alias and its owner share one lock).
    pub fn lock_key(&self) -> *const Storage {
        self.owner()
    }

    /// Whether this is a `.data` alias of another storage's elements.
    pub fn is_alias(&self) -> bool {
        self.elements_of.is_some()
    }

    /// Shared read access. Recursive, so one thread may read the same storage twice (`x * x`).
    pub fn read(&self) -> RwLockReadGuard<'_, Buffer> {
        if self.subclass.is_some() {
            refuse_elements();
        }
        self.owner().data.read_recursive()
    }

    /// Exclusive write access. Callers must bump the version with [`Storage::bump_version`].
    pub fn write(&self) -> RwLockWriteGuard<'_, Buffer> {
        if self.subclass.is_some() {
            refuse_elements();
        }
        self.owner().data.write()
    }

    /// Number of elements (of all the tensors viewing it), without taking the lock.
    pub fn numel(&self) -> usize {
        self.numel
    }

    /// The current version: how many in-place writes this storage has seen.
    pub fn version(&self) -> u64 {
        self.version_owner().version.load(Ordering::Acquire)
    }

    /// Records one in-place write by the op named `op` (kept for error messages).
    pub fn bump_version(&self, op: &'static str) {
        let owner = self.version_owner();
        *owner.last_writer.lock() = op;
        owner.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The name of the last in-place op that wrote here, if any.
    pub fn last_writer(&self) -> &'static str {
        *self.version_owner().last_writer.lock()
    }
}

/// Allocations from this size up are tried before they are made (so a failure is an error,
/// not an abort); smaller ones are left to the allocator.
const TRY_ALLOCATION_BYTES: usize = 1 << 30;

/// Results with fewer elements than this cannot reach 1 GiB, the size from which
/// [`check_allocation`] asks the system (8 bytes at most each): ops skip the check for them.
pub const CHECKED_ELEMENTS: usize = TRY_ALLOCATION_BYTES / 8;

/// The element count of a new tensor of `shape` and `dtype`, checked as PyTorch does: an
/// overflowing size, or memory the system will not give, is a RuntimeError.
pub fn check_allocation(shape: &[usize], dtype: DType) -> Result<usize> {
    let numel = shape
        .iter()
        .try_fold(1usize, |n, &s| n.checked_mul(s))
        .ok_or_else(|| {
            Error::runtime(format!(
                "Storage size calculation overflowed with sizes={shape:?}"
            ))
        })?;
    let item = dtype.size();
    let bytes = numel
        .checked_mul(item)
        .filter(|&b| b <= isize::MAX as usize);
    let refused = |bytes: String| {
        Error::runtime(format!(
            "DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes (a {} tensor of shape {}).",
            dtype.name(),
            fmt_shape(shape)
        ))
    };
    let Some(bytes) = bytes else {
        return Err(refused(format!("more than {}", isize::MAX)));
    };
    if bytes >= TRY_ALLOCATION_BYTES {
        let mut probe: Vec<u8> = Vec::new();
        if probe.try_reserve_exact(bytes).is_err() {
            return Err(refused(bytes.to_string()));
        }
    }
    Ok(numel)
}
