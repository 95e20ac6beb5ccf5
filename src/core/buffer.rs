//! Element buffers: one typed vector per dtype, and moving typed vectors in and out of them.

use crate::core::dtype::{DType, Element};

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
