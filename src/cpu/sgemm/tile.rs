//! What every part of the product shares: the register tile of one instruction set
//! ([`Tile`]), the micro-kernels' signatures, the strided operand ([`MatRef`]), the shared
//! output pointer ([`CPtr`]) and two small helpers. It uses no other file of the product.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The register tile of one instruction set, with the block sizes that suit it.
pub(crate) struct Tile {
    /// Rows of the micro-tile.
    pub(super) mr: usize,
    /// Columns of the micro-tile (two vectors).
    pub(super) nr: usize,
    /// Largest depth of a packed block (the depth is split into equal blocks of at most about
    /// this).
    pub(super) kc: usize,
    /// Largest row block packed at once (a multiple of `mr`).
    pub(super) mc: usize,
    /// Largest column block packed at once (every sliver of `A` walks a packed `kc×nc` block
    /// of `B`).
    pub(super) nc: usize,
    /// The micro-kernel for `height` rows (`1..=mr`), one vector wide (false) or two (true).
    pub(super) kernel: fn(usize, bool) -> Kernel,
    /// Whether the CPU has AVX-512 (the thin products and the packing moves that use it).
    pub(super) avx512: bool,
    /// The micro-kernel that reads `A` in place, by height and width as `kernel`, where the
    /// tile has one (Note [Few columns: A read in place]).
    pub(super) lines: Option<fn(usize, bool) -> LinesKernel>,
}

/// A micro-kernel for tiles of one height: `(kc, a, b, c, ldc, width, accumulate)`.
pub(crate) type Kernel = unsafe fn(usize, *const f32, *const f32, *mut f32, usize, usize, bool);

/// Row pointers a micro-kernel reading `A` in place takes: the most rows of any tile (the
/// AVX-512 tile's; the AVX2 tile's kernels use the first 6).
pub(super) const LINE_ROWS: usize = 14;

/// A micro-kernel reading `A` in place: `(kc, rows, b, c, ldc, width, accumulate)` with the
/// tile's rows of `A` at `rows`.
pub(crate) type LinesKernel =
    unsafe fn(usize, &[*const f32; LINE_ROWS], *const f32, *mut f32, usize, usize, bool);

/// A strided read-only matrix: element `(i, j)` is at `ptr + i·rs + j·cs`, or, for a matrix
/// with a row table, at `ptr + row_offsets[i] + j·cs` (the rows of an implicit im2col: runs
/// of an image starting wherever a kernel tap puts them, never copied out).
#[derive(Clone, Copy)]
pub struct MatRef {
    /// First element.
    pub ptr: *const f32,
    /// Row stride, in elements (unused with a row table).
    pub rs: isize,
    /// Column stride, in elements.
    pub cs: isize,
    /// Null, or the offset of each row from `ptr` (the matrix's rows are then unit-stride:
    /// `cs == 1`).
    pub row_offsets: *const usize,
}

// SAFETY: a MatRef is only read, while the caller keeps the storage it points into alive and
// unwritten (see `sgemm`).
unsafe impl Send for MatRef {}
unsafe impl Sync for MatRef {}

impl MatRef {
    /// A matrix through its strides (no row table).
    pub fn strided(ptr: *const f32, rs: isize, cs: isize) -> MatRef {
        MatRef {
            ptr,
            rs,
            cs,
            row_offsets: std::ptr::null(),
        }
    }

    /// Address of element `(i, j)`.
    #[inline(always)]
    pub(super) unsafe fn at_ptr(&self, i: usize, j: usize) -> *const f32 {
        if self.row_offsets.is_null() {
            self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
        } else {
            self.ptr.add(*self.row_offsets.add(i) + j)
        }
    }

    /// Address of element `(i, j)` of a matrix without a row table (the thin products' hot
    /// loops, which never see one).
    #[inline(always)]
    pub(super) unsafe fn at_strided(&self, i: usize, j: usize) -> *const f32 {
        debug_assert!(self.row_offsets.is_null());
        self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// Rows `i..` of this matrix.
    pub(super) unsafe fn rows_from(self, i: usize) -> MatRef {
        if self.row_offsets.is_null() {
            MatRef {
                ptr: self.at_ptr(i, 0),
                ..self
            }
        } else {
            MatRef {
                row_offsets: self.row_offsets.add(i),
                ..self
            }
        }
    }

    /// Whether rows come from a table.
    pub(super) fn indexed(&self) -> bool {
        !self.row_offsets.is_null()
    }
}

/// The output pointer, shared by units that write disjoint tiles.
#[derive(Clone, Copy)]
pub(super) struct CPtr(pub(super) *mut f32);
// SAFETY: units write disjoint parts of the output (see `split`).
unsafe impl Send for CPtr {}
unsafe impl Sync for CPtr {}

impl CPtr {
    /// The pointer `n` elements further.
    pub(super) unsafe fn add(self, n: usize) -> CPtr {
        CPtr(self.0.add(n))
    }
}

/// Makes `buf` hold exactly `len` elements, zero-filling only the part that grows (every element
/// is overwritten by the packing).
pub(super) fn fit(buf: &mut Vec<f32>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0.0);
    }
    buf.truncate(len);
}

/// The lanes of a 16-float vector starting at element `at` that lie before `len`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn lanes(len: usize, at: usize) -> __mmask16 {
    let valid = len.saturating_sub(at).min(16);
    ((1u32 << valid) - 1) as __mmask16
}
