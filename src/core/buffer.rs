//! Element buffers: one typed vector per dtype, and moving typed vectors in and out of them;
//! or elements that another library owns (a NumPy array, a DLPack producer), shared in place.

use crate::core::dtype::{DType, Element};
use std::any::Any;
use std::ptr::NonNull;

/// Elements in memory that someone else owns and frees (`from_numpy`, `from_dlpack`): read and
/// written in place, kept alive by `owner`, never freed or reused here.
pub struct ForeignElements {
    dtype: DType,
    ptr: NonNull<u8>,
    len: usize,
    _owner: Box<dyn Any + Send + Sync>,
}

// SAFETY: the elements are plain numbers, accessed under the storage's lock like an owned
// vector; the owner is Send + Sync.
unsafe impl Send for ForeignElements {}
unsafe impl Sync for ForeignElements {}

impl ForeignElements {
    /// Elements of `dtype` (not bool: any byte would have to be 0 or 1) at `ptr`, `len` of them.
    ///
    /// # Safety
    /// `ptr` is aligned for `dtype` and addresses `len` elements that stay valid and are not
    /// freed or moved while `owner` lives; nobody else frees them before `owner` is dropped.
    pub unsafe fn new(
        dtype: DType,
        ptr: NonNull<u8>,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
    ) -> Option<Self> {
        (dtype != DType::Bool).then_some(ForeignElements {
            dtype,
            ptr,
            len,
            _owner: owner,
        })
    }

    fn slice<T: BufferElement>(&self) -> Option<&[T]> {
        // SAFETY: `new`'s contract: aligned, valid for `len` elements of `dtype` (checked = T)
        (self.dtype == T::DTYPE)
            .then(|| unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast::<T>(), self.len) })
    }

    fn slice_mut<T: BufferElement>(&mut self) -> Option<&mut [T]> {
        // SAFETY: as `slice`; `&mut self` (the storage's write lock) makes the access exclusive
        (self.dtype == T::DTYPE).then(|| unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast::<T>(), self.len)
        })
    }
}

impl std::fmt::Debug for ForeignElements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ForeignElements({} x {})", self.len, self.dtype.name())
    }
}

/// The elements of a storage, one variant per dtype, or elements owned elsewhere.
#[derive(Debug)]
pub enum Buffer {
    /// bool elements.
    Bool(Vec<bool>),
    /// uint8 elements.
    U8(Vec<u8>),
    /// int8 elements.
    I8(Vec<i8>),
    /// int16 elements.
    I16(Vec<i16>),
    /// int32 elements.
    I32(Vec<i32>),
    /// int64 elements.
    I64(Vec<i64>),
    /// float32 elements.
    F32(Vec<f32>),
    /// float64 elements.
    F64(Vec<f64>),
    /// Elements owned by another library, shared in place.
    Foreign(ForeignElements),
}

impl Clone for Buffer {
    /// A copy of the elements (foreign ones are copied into a vector of their own).
    fn clone(&self) -> Self {
        match self {
            Buffer::Bool(v) => Buffer::Bool(v.clone()),
            Buffer::U8(v) => Buffer::U8(v.clone()),
            Buffer::I8(v) => Buffer::I8(v.clone()),
            Buffer::I16(v) => Buffer::I16(v.clone()),
            Buffer::I32(v) => Buffer::I32(v.clone()),
            Buffer::I64(v) => Buffer::I64(v.clone()),
            Buffer::F32(v) => Buffer::F32(v.clone()),
            Buffer::F64(v) => Buffer::F64(v.clone()),
            Buffer::Foreign(f) => crate::with_any!(f.dtype, T => T::into_buffer(
                f.slice::<T>().expect("the dtype dispatched on").to_vec()
            )),
        }
    }
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
                    Buffer::Foreign(f) => f.slice::<Self>(),
                    _ => None,
                }
            }
            fn slice_mut(b: &mut Buffer) -> Option<&mut [Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    Buffer::Foreign(f) => f.slice_mut::<Self>(),
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
buffer_element!(u8, U8);
buffer_element!(i8, I8);
buffer_element!(i16, I16);
buffer_element!(i32, I32);
buffer_element!(i64, I64);
buffer_element!(f32, F32);
buffer_element!(f64, F64);

impl Buffer {
    /// The dtype of the elements.
    pub fn dtype(&self) -> DType {
        match self {
            Buffer::Bool(_) => DType::Bool,
            Buffer::U8(_) => DType::UInt8,
            Buffer::I8(_) => DType::Int8,
            Buffer::I16(_) => DType::Int16,
            Buffer::I32(_) => DType::Int32,
            Buffer::I64(_) => DType::Int64,
            Buffer::F32(_) => DType::Float32,
            Buffer::F64(_) => DType::Float64,
            Buffer::Foreign(f) => f.dtype,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Buffer::Bool(v) => v.len(),
            Buffer::U8(v) => v.len(),
            Buffer::I8(v) => v.len(),
            Buffer::I16(v) => v.len(),
            Buffer::I32(v) => v.len(),
            Buffer::I64(v) => v.len(),
            Buffer::F32(v) => v.len(),
            Buffer::F64(v) => v.len(),
            Buffer::Foreign(f) => f.len,
        }
    }

    /// Size of the elements in bytes.
    pub fn byte_len(&self) -> usize {
        match self {
            Buffer::Foreign(f) => f.len * f.dtype.size(),
            other => other.len() * other.dtype().size(),
        }
    }

    /// Whether the elements are owned by another library (never pooled for reuse).
    pub fn is_foreign(&self) -> bool {
        matches!(self, Buffer::Foreign(_))
    }

    /// The address of the first element.
    pub fn as_ptr(&self) -> *const u8 {
        match self {
            Buffer::Bool(v) => v.as_ptr().cast(),
            Buffer::U8(v) => v.as_ptr().cast(),
            Buffer::I8(v) => v.as_ptr().cast(),
            Buffer::I16(v) => v.as_ptr().cast(),
            Buffer::I32(v) => v.as_ptr().cast(),
            Buffer::I64(v) => v.as_ptr().cast(),
            Buffer::F32(v) => v.as_ptr().cast(),
            Buffer::F64(v) => v.as_ptr().cast(),
            Buffer::Foreign(f) => f.ptr.as_ptr(),
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
