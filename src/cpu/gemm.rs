//! Matrix products on slices: `c = a·b` with strided operands, through the AVX-512 `sgemm`
//! for `f32` where the CPU has it and the `gemm` crate otherwise. The kernels that build their
//! operands themselves (convolution's im2col, recurrent layers' steps) call this directly
//! instead of wrapping slices in tensors.

use crate::core::dtype::Float;
use crate::cpu::parallel;

/// A strided read-only matrix operand: element `(i, j)` is at `ptr + i·rs + j·cs`.
#[derive(Clone, Copy)]
pub struct Mat<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
}

// SAFETY: a Mat is only read, while its owner keeps the elements alive and unwritten (see
// `GemmElement::gemm`)
unsafe impl<T: Sync> Send for Mat<T> {}
unsafe impl<T: Sync> Sync for Mat<T> {}

impl<T> Mat<T> {
    /// The row-major matrix with `cols` columns starting at `data`.
    pub fn rows(data: &[T], cols: usize) -> Mat<T> {
        Mat {
            ptr: data.as_ptr(),
            rs: cols as isize,
            cs: 1,
        }
    }

    /// The transpose of the row-major matrix with `cols` columns starting at `data`.
    pub fn transposed(data: &[T], cols: usize) -> Mat<T> {
        Mat {
            ptr: data.as_ptr(),
            rs: 1,
            cs: cols as isize,
        }
    }
}

/// Float element types with a matrix product on slices.
pub trait GemmElement: Float {
    /// `c = a·b` for `a` m×k, `b` k×n, `c` m×n row-major (every element written), on up to
    /// `threads` threads.
    ///
    /// # Safety
    /// `a` and `b` address valid elements for every index in range, not written during the
    /// call; `c` has `m·n` elements.
    unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        a: Mat<Self>,
        b: Mat<Self>,
        c: &mut [Self],
        threads: usize,
    );
}

/// `c = a·b` through the `gemm` crate (the caller has handled empty sizes).
unsafe fn crate_gemm<T: Float>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    c: &mut [T],
    threads: usize,
) {
    let mut run = move |threads: usize| {
        let (a, b) = (a, b);
        let parallelism = if threads > 1 {
            gemm::Parallelism::Rayon(threads)
        } else {
            gemm::Parallelism::None
        };
        // SAFETY: the caller's contract; `c` is m×n with row stride n
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                c.as_mut_ptr(),
                1,
                n as isize,
                false,
                a.ptr,
                a.cs,
                a.rs,
                b.ptr,
                b.cs,
                b.rs,
                T::zero(),
                T::one(),
                false,
                false,
                false,
                parallelism,
            )
        }
    };
    if threads > 1 {
        parallel::install(run);
    } else {
        run(1);
    }
}

/// Handles the sizes where there is nothing to multiply; true when the product is done.
fn trivial<T: Float>(m: usize, n: usize, k: usize, c: &mut [T]) -> bool {
    if m == 0 || n == 0 {
        return true;
    }
    if k == 0 {
        c.fill(T::zero());
        return true;
    }
    false
}

impl GemmElement for f64 {
    unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        a: Mat<f64>,
        b: Mat<f64>,
        c: &mut [f64],
        threads: usize,
    ) {
        if !trivial(m, n, k, c) {
            crate_gemm(m, n, k, a, b, c, threads)
        }
    }
}

impl GemmElement for f32 {
    unsafe fn gemm(
        m: usize,
        n: usize,
        k: usize,
        a: Mat<f32>,
        b: Mat<f32>,
        c: &mut [f32],
        threads: usize,
    ) {
        if trivial(m, n, k, c) {
            return;
        }
        if !crate::cpu::sgemm::available() {
            return crate_gemm(m, n, k, a, b, c, threads);
        }
        let mat = |x: Mat<f32>| crate::cpu::sgemm::MatRef {
            ptr: x.ptr,
            rs: x.rs,
            cs: x.cs,
        };
        // SAFETY: f32 and MaybeUninit<f32> share their layout; sgemm writes every element
        let dst = unsafe {
            std::slice::from_raw_parts_mut(
                c.as_mut_ptr().cast::<std::mem::MaybeUninit<f32>>(),
                c.len(),
            )
        };
        // SAFETY: AVX-512 is available (checked above) and the caller's contract
        unsafe { crate::cpu::sgemm::sgemm(m, n, k, mat(a), mat(b), dst, threads) }
    }
}
