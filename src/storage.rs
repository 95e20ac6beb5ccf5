//! Shared element storage with a version counter.
//!
//! Every view of a tensor (and `detach()`) shares one `Storage`, so they share its version
//! counter: any in-place write through any of them is seen by the saved-tensor check.

use crate::dtype::{DType, Element};
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::atomic::{AtomicU64, Ordering};

/// The elements of a storage, one variant per dtype.
#[derive(Clone, Debug)]
pub enum Buffer {
    /// bool elements.
    Bool(Vec<bool>),
    /// int64 elements.
    I64(Vec<i64>),
    /// float32 elements.
    F32(Vec<f32>),
    /// float64 elements.
    F64(Vec<f64>),
}

/// Moves typed vectors in and out of a [`Buffer`].
pub trait BufferElement: Element {
    /// Wraps a vector.
    fn into_buffer(v: Vec<Self>) -> Buffer;
    /// The elements, if the buffer has this type.
    fn slice(b: &Buffer) -> Option<&[Self]>;
    /// The elements, mutably, if the buffer has this type.
    fn slice_mut(b: &mut Buffer) -> Option<&mut [Self]>;
    /// The vector itself, if the buffer has this type.
    fn take_vec(b: Buffer) -> Option<Vec<Self>>;
}

macro_rules! buffer_element {
    ($t:ty, $variant:ident) => {
        impl BufferElement for $t {
            fn into_buffer(v: Vec<Self>) -> Buffer {
                Buffer::$variant(v)
            }
            fn slice(b: &Buffer) -> Option<&[Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn slice_mut(b: &mut Buffer) -> Option<&mut [Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn take_vec(b: Buffer) -> Option<Vec<Self>> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
buffer_element!(bool, Bool);
buffer_element!(i64, I64);
buffer_element!(f32, F32);
buffer_element!(f64, F64);

impl Buffer {
    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::I64(_) => DType::Int64,
            Buffer::F32(_) => DType::Float32,
            Buffer::F64(_) => DType::Float64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
        }
    }

    /// Size of the elements in bytes.
    pub fn byte_len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::I64(v) => v.len() * 8,
            Buffer::F32(v) => v.len() * 4,
            Buffer::F64(v) => v.len() * 8,
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The typed elements; panics on a dtype mismatch, which callers rule out by dispatching on dtype.
    pub fn as_slice<T: BufferElement>(&self) -> &[T] {
        T::slice(self).expect("buffer dtype matches the dispatched element type")
    }

    /// The typed elements, mutably; same contract as [`Buffer::as_slice`].
    pub fn as_mut_slice<T: BufferElement>(&mut self) -> &mut [T] {
        T::slice_mut(self).expect("buffer dtype matches the dispatched element type")
    }
}

impl Drop for Storage {
    fn drop(&mut self) {
        if self.data.get_mut().byte_len() >= crate::pool::MIN_BYTES {
            crate::pool::recycle(std::mem::replace(
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
}

impl Storage {
    /// A storage owning `buffer`, at version 0.
    pub fn new(buffer: Buffer) -> Self {
        Storage {
            numel: buffer.len(),
            data: RwLock::new(buffer),
            version: AtomicU64::new(0),
            last_writer: Mutex::new(""),
        }
    }

    /// Shared read access. Recursive, so one thread may read the same storage twice (`x * x`).
    pub fn read(&self) -> RwLockReadGuard<'_, Buffer> {
        self.data.read_recursive()
    }

    /// Exclusive write access. Callers must bump the version with [`Storage::bump_version`].
    pub fn write(&self) -> RwLockWriteGuard<'_, Buffer> {
        self.data.write()
    }

    /// Number of elements (of all the tensors viewing it), without taking the lock.
    pub fn numel(&self) -> usize {
        self.numel
    }

    /// The current version: how many in-place writes this storage has seen.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Records one in-place write by the op named `op` (kept for error messages).
    pub fn bump_version(&self, op: &'static str) {
        *self.last_writer.lock() = op;
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The name of the last in-place op that wrote here, if any.
    pub fn last_writer(&self) -> &'static str {
        *self.last_writer.lock()
    }
}
