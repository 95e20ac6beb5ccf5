//! Matrix products on slices: `c = a·b` with strided operands, through the AVX-512/AVX2
//! `sgemm` for `f32` where the CPU has it and the `gemm` crate otherwise. The kernels that build their
//! operands themselves (convolution's im2col, recurrent layers' steps) call this directly
//! instead of wrapping slices in tensors.

use crate::core::dtype::Float;
use crate::cpu::{parallel, sgemm};

/// A strided read-only matrix operand: element `(i, j)` is at `ptr + i·rs + j·cs`, or at
/// `ptr + row_offsets[i] + j` for a matrix with a row table ([`Mat::indexed`]).
#[derive(Clone, Copy)]
pub struct Mat<T> {
    ptr: *const T,
    rs: isize,
    cs: isize,
    row_offsets: *const usize,
}

// SAFETY: a Mat is only read, while its owner keeps the elements alive and unwritten (see
// `GemmElement::gemm`)
unsafe impl<T: Sync> Send for Mat<T> {}
unsafe impl<T: Sync> Sync for Mat<T> {}

impl<T> Mat<T> {
    /// The row-major matrix with `cols` columns starting at `data`.
    pub fn rows(data: &[T], cols: usize) -> Mat<T> {
        Self::strided(data, 0, cols as isize, 1)
    }

    /// The transpose of the row-major matrix with `cols` columns starting at `data`.
    pub fn transposed(data: &[T], cols: usize) -> Mat<T> {
        Self::strided(data, 0, 1, cols as isize)
    }

    /// The matrix whose row `i` is the unit-stride run of `data` from `offsets[i]` on (an
    /// implicit im2col: a kernel tap's run of a padded image). Only products whose element
    /// type reads row tables ([`GemmElement::reads_row_tables`]) take it, and only untransposed;
    /// `offsets` must outlive the product.
    pub fn indexed(data: &[T], offsets: &[usize]) -> Mat<T> {
        Mat {
            ptr: data.as_ptr(),
            rs: 0,
            cs: 1,
            row_offsets: offsets.as_ptr(),
        }
    }

    /// The matrix whose element `(i, j)` is `data[offset + i·rs + j·cs]` (a view of a tensor's
    /// storage; a product reads only the elements its sizes reach, which the caller keeps
    /// within `data`).
    pub fn strided(data: &[T], offset: usize, rs: isize, cs: isize) -> Mat<T> {
        Mat {
            ptr: data.as_ptr().wrapping_add(offset),
            rs,
            cs,
            row_offsets: std::ptr::null(),
        }
    }

    /// This matrix's transpose (the same elements; not for a matrix with a row table).
    pub fn t(self) -> Mat<T> {
        assert!(
            self.row_offsets.is_null(),
            "a row-table matrix is not transposed"
        );
        Mat {
            ptr: self.ptr,
            rs: self.cs,
            cs: self.rs,
            row_offsets: self.row_offsets,
        }
    }

    /// The matrix from row `rows` on.
    pub fn below(self, rows: usize) -> Mat<T> {
        if self.row_offsets.is_null() {
            Mat {
                ptr: self.ptr.wrapping_offset(rows as isize * self.rs),
                ..self
            }
        } else {
            Mat {
                row_offsets: self.row_offsets.wrapping_add(rows),
                ..self
            }
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

    /// Whether [`GemmElement::gemm`] takes operands with a row table ([`Mat::indexed`]) on
    /// this CPU.
    fn reads_row_tables() -> bool;

    /// A right-hand operand packed once for many products (see [`SharedRhs`]), where the
    /// element type's kernel packs its operands.
    type Packed: Send + Sync;

    /// `b` (k×n) packed, or None when this CPU's kernel for the type has no packed form.
    ///
    /// # Safety
    /// `b` addresses valid elements for every index in range, not written during the call.
    unsafe fn pack_rhs(k: usize, n: usize, b: Mat<Self>, threads: usize) -> Option<Self::Packed>;

    /// `c = a·b` for a packed `b`, the same sums in the same order as [`GemmElement::gemm`].
    ///
    /// # Safety
    /// As [`GemmElement::gemm`], with `c` of `m·n` elements for `b`'s `n`.
    unsafe fn gemm_packed(m: usize, a: Mat<Self>, b: &Self::Packed, c: &mut [Self], threads: usize);
}

/// The right-hand operand of many products (a recurrent layer's `w_hh`, multiplied at every
/// step): packed once when the kernel packs, instead of at every product. Products of one row
/// (batch 1) read it unpacked, as [`GemmElement::gemm`] does.
pub struct SharedRhs<T: GemmElement> {
    b: Mat<T>,
    k: usize,
    n: usize,
    packed: Option<T::Packed>,
}

impl<T: GemmElement> SharedRhs<T> {
    /// The k×n operand `b`, packed if products of `rows` rows will pack it.
    ///
    /// # Safety
    /// `b` addresses valid elements for every index in range, neither freed nor written while
    /// the returned value lives.
    pub unsafe fn new(k: usize, n: usize, b: Mat<T>, rows: usize, threads: usize) -> Self {
        let packed = if rows > 1 && k > 1 && n > 1 {
            T::pack_rhs(k, n, b, threads)
        } else {
            None
        };
        SharedRhs { b, k, n, packed }
    }

    /// `c = a·b` for `a` m×k (`c` m×n row-major), on up to `threads` threads.
    ///
    /// # Safety
    /// `a` addresses valid elements for every index in range, not written during the call;
    /// `c` has `m·n` elements.
    pub unsafe fn product(&self, m: usize, a: Mat<T>, c: &mut [T], threads: usize) {
        match &self.packed {
            Some(packed) if m > 1 => T::gemm_packed(m, a, packed, c, threads),
            _ => T::gemm(m, self.n, self.k, a, self.b, c, threads),
        }
    }
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
    assert!(
        a.row_offsets.is_null() && b.row_offsets.is_null(),
        "the gemm crate reads no row tables"
    );
    let out = &mut *c;
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
                out.as_mut_ptr(),
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
    signed_zeros_as_blas((m, n, k), T::zero(), c);
}

/// Gives a product's zero sums PyTorch's CPU BLAS signs: its sums start from +0.0 (`C = 0`,
/// then `+=` each term), so a sum of -0.0 terms is +0.0, except that an outer product
/// (`k == 1` with `m, n > 1`) is its single term (-0.0 stays). The `gemm` crate keeps -0.0
/// sums; adding +0.0 afterwards changes exactly those (`sgemm` follows the rule itself).
pub fn signed_zeros_as_blas<T: Copy + std::ops::Add<Output = T>>(
    (m, n, k): (usize, usize, usize),
    zero: T,
    c: &mut [T],
) {
    if k == 1 && m > 1 && n > 1 {
        return;
    }
    for v in c.iter_mut() {
        *v = *v + zero;
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

    fn reads_row_tables() -> bool {
        false
    }

    type Packed = std::convert::Infallible;

    unsafe fn pack_rhs(_: usize, _: usize, _: Mat<f64>, _: usize) -> Option<Self::Packed> {
        None
    }

    unsafe fn gemm_packed(_: usize, _: Mat<f64>, b: &Self::Packed, _: &mut [f64], _: usize) {
        match *b {}
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
        let tables = !a.row_offsets.is_null() || !b.row_offsets.is_null();
        if !sgemm::available() || !(tables || sgemm::suits(m, n, k)) {
            return crate_gemm(m, n, k, a, b, c, threads);
        }
        // SAFETY: the kernel is available (checked above) and the caller's contract
        unsafe { sgemm::sgemm(m, n, k, a.to_sgemm(), b.to_sgemm(), uninit(c), threads) }
    }

    fn reads_row_tables() -> bool {
        crate::cpu::sgemm::available()
    }

    type Packed = sgemm::PackedB;

    unsafe fn pack_rhs(k: usize, n: usize, b: Mat<f32>, threads: usize) -> Option<Self::Packed> {
        // SAFETY: the kernel is available (checked first) and the caller's contract
        sgemm::available().then(|| unsafe { sgemm::PackedB::new(k, n, b.to_sgemm(), threads) })
    }

    unsafe fn gemm_packed(m: usize, a: Mat<f32>, b: &Self::Packed, c: &mut [f32], threads: usize) {
        // SAFETY: a PackedB exists only where the kernel is available; the caller's contract
        unsafe { sgemm::sgemm_packed(m, a.to_sgemm(), b, uninit(c), threads) }
    }
}

impl Mat<f32> {
    /// The same matrix as the `sgemm` kernel's operand type.
    fn to_sgemm(self) -> sgemm::MatRef {
        sgemm::MatRef {
            row_offsets: self.row_offsets,
            ..sgemm::MatRef::strided(self.ptr, self.rs, self.cs)
        }
    }
}

/// `c` as the uninitialized output the `sgemm` kernel writes in full.
fn uninit(c: &mut [f32]) -> &mut [std::mem::MaybeUninit<f32>] {
    // SAFETY: f32 and MaybeUninit<f32> share their layout, and every writer of the returned
    // slice writes only initialized values
    unsafe { std::slice::from_raw_parts_mut(c.as_mut_ptr().cast(), c.len()) }
}
