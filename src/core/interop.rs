//! Conversions between tensors and [`ndarray`] arrays, for `f32`, `f64`, `i64` and `bool`
//! elements.
//!
//! - [`Tensor::from_array`] takes any array (owned, shared or a view, of any dimension). An
//!   owned array in standard (row-major) layout gives its vector to the tensor without copying
//!   an element; anything else is copied in row-major order.
//! - [`Tensor::to_array`] copies the elements into a new [`ArrayD`].
//! - [`Tensor::with_array_view`] lends the elements of a contiguous tensor as an
//!   [`ArrayViewD`] without copying them, for the duration of a closure (the storage is behind
//!   a lock: an in-place write to the tensor from another thread waits until the closure ends).
//!
//! ```
//! use ferrograd::Tensor;
//! use ndarray::{array, ArrayD};
//!
//! let t = Tensor::from_array(array![[1.0f32, 2.0], [3.0, 4.0]]);
//! assert_eq!(t.shape(), &[2, 2]);
//! let doubled: ArrayD<f32> = (&t * 2.0).unwrap().to_array().unwrap();
//! assert_eq!(doubled, array![[2.0f32, 4.0], [6.0, 8.0]].into_dyn());
//! let total = t.with_array_view(|v: ndarray::ArrayViewD<f32>| v.sum()).unwrap();
//! assert_eq!(total, 10.0);
//! ```

use crate::core::buffer::BufferElement;
use crate::core::error::{Error, Result};
use crate::core::tensor::Tensor;
use ndarray::{ArrayBase, ArrayD, ArrayViewD, Data, Dimension, IxDyn};

impl Tensor {
    /// A contiguous tensor with the shape and elements of `array`.
    ///
    /// An owned array ([`ndarray::Array`]) in standard layout whose vector holds exactly its
    /// elements moves that vector into the tensor: no element is copied. Views, shared arrays,
    /// transposed or sliced arrays are copied in row-major order.
    ///
    /// ```
    /// use ferrograd::{DType, Tensor};
    /// let a = ndarray::Array::from_shape_vec((2, 3), vec![0i64, 1, 2, 3, 4, 5]).unwrap();
    /// let t = Tensor::from_array(a.t()); // a view, transposed: copied
    /// assert_eq!((t.shape(), t.dtype()), (&[3usize, 2][..], DType::Int64));
    /// assert_eq!(t.to_vec::<i64>().unwrap(), vec![0, 3, 1, 4, 2, 5]);
    /// ```
    pub fn from_array<T, S, D>(array: ArrayBase<S, D>) -> Tensor
    where
        T: BufferElement,
        S: Data<Elem = T>,
        D: Dimension,
    {
        let shape = array.shape().to_vec();
        let numel = array.len();
        // an owned array is moved here, not copied (ndarray's `into_owned` of an `Array`)
        let owned = array.into_owned();
        let data = if owned.is_standard_layout() {
            let (vec, offset) = owned.into_raw_vec_and_offset();
            match offset {
                Some(0) | None if vec.len() == numel => vec,
                Some(offset) => vec[offset..offset + numel].to_vec(),
                None => Vec::new(),
            }
        } else {
            owned.iter().copied().collect()
        };
        Tensor::from_vec(data, &shape).expect("the element count matches the array's shape")
    }

    /// The elements as a new [`ArrayD`] of this tensor's shape; the dtype must be `T`'s.
    ///
    /// ```
    /// use ferrograd::Tensor;
    /// let t = Tensor::from_vec(vec![true, false, true, true], &[2, 2]).unwrap();
    /// let a = t.t().unwrap().to_array::<bool>().unwrap();
    /// assert_eq!(a, ndarray::array![[true, true], [false, true]].into_dyn());
    /// assert!(t.to_array::<f32>().is_err()); // not a float32 tensor
    /// ```
    pub fn to_array<T: BufferElement>(&self) -> Result<ArrayD<T>> {
        let data = self.to_vec::<T>()?;
        Ok(ArrayD::from_shape_vec(IxDyn(self.shape()), data)
            .expect("the element count matches the tensor's shape"))
    }

    /// Runs `f` on a borrowed [`ArrayViewD`] of this tensor's elements, without copying them,
    /// and returns its result. The tensor must be contiguous (call
    /// [`contiguous`](Tensor::contiguous) first otherwise) and its dtype `T`'s.
    ///
    /// The view is read under the storage's shared lock: do not write to this tensor (or one
    /// sharing its storage) inside `f`, which would wait for the lock forever.
    ///
    /// ```
    /// use ferrograd::Tensor;
    /// let t = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]).unwrap();
    /// let column_sums = t
    ///     .with_array_view(|v: ndarray::ArrayViewD<f64>| v.sum_axis(ndarray::Axis(0)))
    ///     .unwrap();
    /// assert_eq!(column_sums.as_slice().unwrap(), &[5.0, 7.0, 9.0]);
    /// assert!(t.t().unwrap().with_array_view(|v: ndarray::ArrayViewD<f64>| v.len()).is_err());
    /// ```
    pub fn with_array_view<T: BufferElement, R>(
        &self,
        f: impl FnOnce(ArrayViewD<'_, T>) -> R,
    ) -> Result<R> {
        if self.dtype() != T::DTYPE {
            return Err(Error::type_error(format!(
                "expected a {} tensor, got {}",
                T::DTYPE.name(),
                self.dtype().name()
            )));
        }
        let Some(range) = self.layout().contiguous_range() else {
            return Err(Error::runtime(
                "with_array_view needs a contiguous tensor; call .contiguous() first",
            ));
        };
        self.read(|data: &[T], _| {
            let view = ArrayViewD::from_shape(IxDyn(self.shape()), &data[range])
                .expect("a contiguous range holds the tensor's elements");
            Ok(f(view))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{s, Array, Array2};

    #[test]
    fn an_owned_standard_array_moves_its_vector() {
        let a = Array::from_shape_vec((3, 4), (0..12).map(|i| i as f32).collect()).unwrap();
        let ptr = a.as_ptr();
        let t = Tensor::from_array(a);
        let seen = t.with_array_view(|v: ArrayViewD<f32>| v.as_ptr()).unwrap();
        assert_eq!(seen, ptr, "the tensor's elements are the array's");
        assert_eq!(t.shape(), &[3, 4]);
    }

    #[test]
    fn sliced_and_transposed_arrays_are_copied_in_row_major_order() {
        let a = Array2::from_shape_fn((4, 5), |(i, j)| (10 * i + j) as f64);
        let sliced = a.clone().slice_move(s![1..3, 2..4]);
        let t = Tensor::from_array(sliced);
        assert_eq!(t.to_vec::<f64>().unwrap(), vec![12.0, 13.0, 22.0, 23.0]);
        let tail = a.clone().slice_move(s![2.., ..]);
        let t = Tensor::from_array(tail);
        assert_eq!(t.shape(), &[2, 5]);
        assert_eq!(t.to_vec::<f64>().unwrap()[0], 20.0);
        let t = Tensor::from_array(a.reversed_axes());
        assert_eq!(t.shape(), &[5, 4]);
        assert_eq!(t.to_vec::<f64>().unwrap()[..3], [0.0, 10.0, 20.0]);
    }

    #[test]
    fn round_trips_keep_dtype_and_shape() {
        let a = Array::from_shape_vec(vec![2, 1, 3], vec![1i64, -2, 3, -4, 5, -6]).unwrap();
        let t = Tensor::from_array(a.view());
        assert_eq!(t.to_array::<i64>().unwrap(), a);
        let scalar = Tensor::from_array(ndarray::arr0(2.5f32));
        assert_eq!(scalar.dim(), 0);
        assert_eq!(scalar.to_array::<f32>().unwrap()[[]], 2.5);
        let empty = Tensor::from_array(Array2::<f64>::zeros((0, 3)));
        assert_eq!(empty.to_array::<f64>().unwrap().shape(), &[0, 3]);
    }
}
