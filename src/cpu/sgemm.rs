//! float32 matrix product with AVX-512 or AVX2: `C = A·B`, the GotoBLAS way.
//!
//! `B` is packed a `KC×NC` block at a time into `NR`-column slivers, `A` a `MC×KC` block at a
//! time into `MR`-row slivers; an `MR×NR` micro-kernel keeps its tile of `C` in vector
//! registers while it walks `KC` (edge tiles have kernels of their own height). The tile and
//! block sizes are the instruction set's (`Tile`: 14×32 with AVX-512, 6×16 with AVX2, see
//! [`crate::cpu::sgemm_avx2`]). Operands are read through their strides, so transposes cost
//! nothing. Threads take row or column ranges of `C`; every element of `C` is summed in the
//! same order whatever the thread count. Used when the CPU has AVX-512F or AVX2 and FMA (see
//! [`available`]); other CPUs and float64 use the `gemm` crate.

#[cfg(target_arch = "x86_64")]
use crate::cpu::sgemm_avx2 as avx2;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::cell::RefCell;
use std::mem::MaybeUninit;

/// Rows of the AVX-512 micro-tile.
const MR: usize = 14;
/// Columns of the AVX-512 micro-tile (two 16-float vectors).
const NR: usize = 32;

/// The register tile of one instruction set, with the block sizes that suit it.
pub(crate) struct Tile {
    /// Rows of the micro-tile.
    mr: usize,
    /// Columns of the micro-tile (two vectors).
    nr: usize,
    /// Largest depth of a packed block (the depth is split into equal blocks of at most about
    /// this).
    kc: usize,
    /// Largest row block packed at once (a multiple of `mr`).
    mc: usize,
    /// Largest column block packed at once (every sliver of `A` walks a packed `kc×nc` block
    /// of `B`).
    nc: usize,
    /// The micro-kernel for `height` rows (`1..=mr`), one vector wide (false) or two (true).
    kernel: fn(usize, bool) -> Kernel,
    /// Whether the CPU has AVX-512 (the thin products and the packing moves that use it).
    avx512: bool,
    /// The micro-kernel that reads `A` in place, by height and width as `kernel`, where the
    /// tile has one (Note [Few columns: A read in place]).
    lines: Option<fn(usize, bool) -> avx2::LinesKernel>,
}

/// The AVX-512 tile: 14×32 in 28 of the 32 registers.
static AVX512: Tile = Tile {
    mr: MR,
    nr: NR,
    kc: 384,
    mc: 196,
    nc: 1024,
    kernel: |height, wide| KERNELS[usize::from(wide)][height - 1],
    avx512: true,
    lines: None,
};

/// The AVX2 tile: 6×16 in 12 of the 16 registers. Block sizes as measured on a Zen 3 (32 KiB
/// L1, 512 KiB L2 a core): kc 256, mc 72-144 and nc 384-4096 within this machine's noise of
/// each other, ~83-90 GFLOP/s a core on (1024×384)·(384×1152), as PyTorch's BLAS.
#[cfg(target_arch = "x86_64")]
static AVX2: Tile = Tile {
    mr: avx2::MR,
    nr: avx2::NR,
    kc: 256,
    mc: 144,
    nc: 1024,
    kernel: avx2::kernel_for,
    avx512: false,
    lines: Some(avx2::lines_kernel_for),
};

/// This CPU's tile (only where [`available`]).
fn tile() -> &'static Tile {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() == 1 {
        return &AVX2;
    }
    &AVX512
}

/// Whether this CPU runs the kernel (AVX-512F, or AVX2 and FMA).
pub fn available() -> bool {
    crate::cpu::kernels::simd_level() >= 1
}

/// Whether [`sgemm`] is the kernel to use for an `m×n×k` product on this CPU (where
/// [`available`]): always with AVX-512; with AVX2 all but the thin products (one row, one
/// column or depth 1), which it would pack whole for little arithmetic and which the `gemm`
/// crate computes without packing. Products with row-table operands always take [`sgemm`].
pub fn suits(m: usize, n: usize, k: usize) -> bool {
    tile().avx512 || (m > 1 && n > 1 && k > 1)
}

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
    unsafe fn at_ptr(&self, i: usize, j: usize) -> *const f32 {
        if self.row_offsets.is_null() {
            self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
        } else {
            self.ptr.add(*self.row_offsets.add(i) + j)
        }
    }

    /// Address of element `(i, j)` of a matrix without a row table (the thin products' hot
    /// loops, which never see one).
    #[inline(always)]
    unsafe fn at_strided(&self, i: usize, j: usize) -> *const f32 {
        debug_assert!(self.row_offsets.is_null());
        self.ptr.offset(i as isize * self.rs + j as isize * self.cs)
    }

    /// Rows `i..` of this matrix.
    unsafe fn rows_from(self, i: usize) -> MatRef {
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
    fn indexed(&self) -> bool {
        !self.row_offsets.is_null()
    }
}

thread_local! {
    /// Per-thread packing buffer for blocks of `A` (reused across calls).
    static PACKED_A: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// The calling thread's packing buffer for blocks of `B` (reused across calls).
    static PACKED_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// Per-thread buffer for one sliver of `B` (Note [Few rows: B a sliver at a time]).
    static PANEL_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Makes `buf` hold exactly `len` elements, zero-filling only the part that grows (every element
/// is overwritten by the packing).
fn fit(buf: &mut Vec<f32>, len: usize) {
    if buf.len() < len {
        buf.resize(len, 0.0);
    }
    buf.truncate(len);
}

/// `c = a·b` with `a` m×k, `b` k×n, `c` m×n row-major (`m·n` elements, which need not be
/// initialized: every one is written), split for `threads` threads (run by
/// [`crate::cpu::parallel::for_each_unit`]).
///
/// # Safety
/// [`available`] must be true; `a`, `b` must address valid `f32`s for every index in range
/// that nobody writes during the call.
pub unsafe fn sgemm(
    m: usize,
    n: usize,
    k: usize,
    a: MatRef,
    b: MatRef,
    c: &mut [MaybeUninit<f32>],
    threads: usize,
) {
    if empty_product((m, n, k), c) {
        return;
    }
    let c_ptr = CPtr(c.as_mut_ptr().cast::<f32>());
    let t = tile();
    #[cfg(target_arch = "x86_64")]
    if t.avx512 && thin((m, n, k), a, b, c_ptr, threads) {
        return;
    }
    if threads == 1 || (m.max(n) < MIN_SPLIT * threads) {
        PACKED_B.with(|buf| {
            let rhs = Rhs::Strided(b, &mut buf.borrow_mut());
            product(t, (m, n, n, k), a, rhs, c_ptr, threads)
        });
        return;
    }
    // each thread takes its own rows (when A is at least as tall as B is wide) or columns and
    // runs the whole blocked loop on them, with no barrier between threads, packing all of the
    // other operand (the smaller: k·n or m·k, against m·k·n/threads of arithmetic). Rows keep
    // a chain of products local: a thread reads the rows of A it wrote as the last output
    let by_rows = m >= n;
    let (len, align) = if by_rows { (m, t.mr) } else { (n, t.nr) };
    let size = len.div_ceil(threads).next_multiple_of(align);
    crate::cpu::parallel::for_each_unit(len.div_ceil(size), |part| {
        let (at, take) = (part * size, size.min(len - part * size));
        let (rows, cols, a_part, b_part, c_part) = if by_rows {
            (take, n, a.rows_from(at), b, c_ptr.add(at * n))
        } else {
            let b_cols = MatRef {
                ptr: b.ptr.offset(at as isize * b.cs),
                ..b
            };
            (m, take, a, b_cols, c_ptr.add(at))
        };
        PACKED_B.with(|buf| {
            let rhs = Rhs::Strided(b_part, &mut buf.borrow_mut());
            product(t, (rows, cols, n, k), a_part, rhs, c_part, 1)
        });
    });
}

/// Checks that `c` holds the m×n output, and handles the products with nothing to multiply:
/// true (and `c` written: zeros when the depth is 0) when there is nothing left to do.
fn empty_product((m, n, k): (usize, usize, usize), c: &mut [MaybeUninit<f32>]) -> bool {
    assert_eq!(c.len(), m * n, "output size");
    if k == 0 {
        c.fill(MaybeUninit::new(0.0));
    }
    m == 0 || n == 0 || k == 0
}

/// Thin products (AVX-512 only) of more than this many multiply-adds split their outputs over
/// the threads.
#[cfg(target_arch = "x86_64")]
const THIN_PARALLEL: usize = 1 << 18;

/// The shapes [`thin`] computes without packing.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
enum Thin {
    /// `k == 1`, `b` unit-stride along its row: `c[i, :] = a[i, 0]·b[0, :]`, by rows of `c`.
    Outer,
    /// `m == 1`, `b`'s rows unit-stride: `c = Σ_p a[0, p]·b[p, :]`, by columns of `c`.
    RowTimesRows,
    /// `m == 1` or `n == 1`, `a`'s rows and `b`'s columns unit-stride: dot products, by
    /// elements of `c`.
    Dots,
}

/// Products too thin to pay for packing, with unit-stride operands: a row vector times a
/// matrix or a matrix times a column vector (`m == 1` or `n == 1`: a recurrent cell's step at
/// batch 1, a matrix-vector product) and an outer product (`k == 1`: its weight gradient).
/// Writes `c` and returns true, or returns false (nothing written) when the shape or strides
/// do not fit. Large ones split their outputs over `threads`; each output's sum runs in an
/// order fixed by the shape and strides, whatever the thread count.
///
/// # Safety
/// As [`sgemm`]; `c` has `m·n` elements.
#[cfg(target_arch = "x86_64")]
unsafe fn thin(
    (m, n, k): (usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c: CPtr,
    threads: usize,
) -> bool {
    if a.indexed() || b.indexed() {
        return false;
    }
    let (kind, outputs, align) = if k == 1 && b.cs == 1 {
        (Thin::Outer, m, 1)
    } else if m == 1 && b.cs == 1 {
        (Thin::RowTimesRows, n, 128)
    } else if (m == 1 || n == 1) && a.cs == 1 && b.rs == 1 {
        (Thin::Dots, m.max(n), 4)
    } else {
        return false;
    };
    let run = |from: usize, to: usize| {
        // SAFETY: the caller's contract; units write disjoint outputs
        unsafe { thin_range(kind, (m, n, k), a, b, c, from, to) }
    };
    if threads > 1 && m * n * k > THIN_PARALLEL && outputs > align {
        let size = outputs.div_ceil(threads).next_multiple_of(align);
        crate::cpu::parallel::for_each_unit(outputs.div_ceil(size), |u| {
            run(u * size, (u * size + size).min(outputs))
        });
    } else {
        run(0, outputs);
    }
    true
}

/// Outputs `from..to` (rows, columns or elements of `c`, see [`Thin`]) of a thin product.
///
/// # Safety
/// As [`thin`], for a product whose shape and strides fit `kind`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
#[allow(clippy::too_many_arguments)]
unsafe fn thin_range(
    kind: Thin,
    (m, n, k): (usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c: CPtr,
    from: usize,
    to: usize,
) {
    let c = c.0;
    match kind {
        Thin::Outer => {
            // (masked stores are slow on some CPUs: only a row's last partial vector has one).
            // The sign of a zero product follows PyTorch's CPU BLAS: a matrix-vector product
            // (one row or one column) starts its sums from zero, so -0.0 products give +0.0; a
            // larger product's single term is the product itself (-0.0 stays)
            let (full, tail) = (n - n % 16, lanes(n, n - n % 16));
            let zero = if m == 1 || n == 1 {
                _mm512_setzero_ps()
            } else {
                _mm512_set1_ps(-0.0)
            };
            for i in from..to {
                let ai = _mm512_set1_ps(*a.at_strided(i, 0));
                let out = c.add(i * n);
                for j in (0..full).step_by(16) {
                    let v = _mm512_loadu_ps(b.ptr.add(j));
                    _mm512_storeu_ps(out.add(j), _mm512_fmadd_ps(ai, v, zero));
                }
                if tail != 0 {
                    let v = _mm512_maskz_loadu_ps(tail, b.ptr.add(full));
                    _mm512_mask_storeu_ps(out.add(full), tail, _mm512_fmadd_ps(ai, v, zero));
                }
            }
        }
        Thin::RowTimesRows => {
            // 128 columns at a time, held in registers across the whole depth
            for j in (from..to).step_by(128) {
                let width = (to - j).min(128);
                let row = |p: usize| b.at_strided(p, j);
                let done = match width {
                    128 => row_times_rows::<8>(k, a, row, c.add(j)),
                    64 => row_times_rows::<4>(k, a, row, c.add(j)),
                    32 => row_times_rows::<2>(k, a, row, c.add(j)),
                    16 => row_times_rows::<1>(k, a, row, c.add(j)),
                    _ => false,
                };
                if done {
                    continue;
                }
                let masks: [__mmask16; 8] = std::array::from_fn(|q| lanes(to, j + 16 * q));
                let mut acc = [_mm512_setzero_ps(); 8];
                for p in 0..k {
                    let ap = _mm512_set1_ps(*a.at_strided(0, p));
                    let row = b.at_strided(p, j);
                    for (q, (sum, &mask)) in acc.iter_mut().zip(&masks).enumerate() {
                        if mask == u16::MAX {
                            *sum = _mm512_fmadd_ps(ap, _mm512_loadu_ps(row.add(16 * q)), *sum);
                        } else if mask != 0 {
                            let v = _mm512_maskz_loadu_ps(mask, row.add(16 * q));
                            *sum = _mm512_fmadd_ps(ap, v, *sum);
                        }
                    }
                }
                for (q, (sum, &mask)) in acc.iter().zip(&masks).enumerate() {
                    if mask == u16::MAX {
                        _mm512_storeu_ps(c.add(j + 16 * q), *sum);
                    } else if mask != 0 {
                        _mm512_mask_storeu_ps(c.add(j + 16 * q), mask, *sum);
                    }
                }
            }
        }
        Thin::Dots if k % 16 == 0 && matches!(k / 16, 1 | 2 | 4 | 8 | 16) => {
            // the shared vector (a's row or b's column) held in registers
            let (shared, other, step) = if m == 1 {
                (a.ptr, b.ptr, b.cs)
            } else {
                (b.ptr, a.ptr, a.rs)
            };
            let others = |t: usize| other.offset(t as isize * step);
            let out = c.add(from);
            match k / 16 {
                16 => held_dots::<16>(shared, others, from, to, out),
                8 => held_dots::<8>(shared, others, from, to, out),
                4 => held_dots::<4>(shared, others, from, to, out),
                2 => held_dots::<2>(shared, others, from, to, out),
                1 => held_dots::<1>(shared, others, from, to, out),
                _ => unreachable!("k / 16 is one of the above"),
            }
        }
        Thin::Dots => {
            // four dot products at a time, each in sixteen lanes added up at the end
            let vectors = |t: usize| {
                let (i, j) = if m == 1 { (0, t) } else { (t, 0) };
                (a.at_strided(i, 0), b.at_strided(0, j))
            };
            for t0 in (from..to).step_by(4) {
                let count = 4.min(to - t0);
                let mut acc = [_mm512_setzero_ps(); 4];
                for p in (0..k).step_by(16) {
                    let mask = lanes(k, p);
                    for (q, sum) in acc.iter_mut().enumerate().take(count) {
                        let (x, y) = vectors(t0 + q);
                        let (u, v) = if mask == u16::MAX {
                            (_mm512_loadu_ps(x.add(p)), _mm512_loadu_ps(y.add(p)))
                        } else {
                            let u = _mm512_maskz_loadu_ps(mask, x.add(p));
                            (u, _mm512_maskz_loadu_ps(mask, y.add(p)))
                        };
                        *sum = _mm512_fmadd_ps(u, v, *sum);
                    }
                }
                for (q, sum) in acc.iter().enumerate().take(count) {
                    *c.add(t0 + q) = _mm512_reduce_add_ps(*sum);
                }
            }
        }
    }
}

/// `c[..16·V] = Σ_p a[0, p]·row(p)[..16·V]` with the sums in `V` registers across the whole
/// depth (the unmasked common case of [`Thin::RowTimesRows`]); returns true.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn row_times_rows<const V: usize>(
    k: usize,
    a: MatRef,
    row: impl Fn(usize) -> *const f32,
    c: *mut f32,
) -> bool {
    let mut acc = [_mm512_setzero_ps(); V];
    for p in 0..k {
        let (ap, r) = (_mm512_set1_ps(*a.at_strided(0, p)), row(p));
        for (q, sum) in acc.iter_mut().enumerate() {
            *sum = _mm512_fmadd_ps(ap, _mm512_loadu_ps(r.add(16 * q)), *sum);
        }
    }
    for (q, sum) in acc.iter().enumerate() {
        _mm512_storeu_ps(c.add(16 * q), *sum);
    }
    true
}

/// `c[t - from] = shared · others(t)` for `t` in `from..to`, dot products of `16·V` contiguous
/// floats with `shared` held in registers, four at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn held_dots<const V: usize>(
    shared: *const f32,
    others: impl Fn(usize) -> *const f32,
    from: usize,
    to: usize,
    c: *mut f32,
) {
    let x: [__m512; V] = std::array::from_fn(|q| _mm512_loadu_ps(shared.add(16 * q)));
    let mut t = from;
    while t + 4 <= to {
        let rows = [0, 1, 2, 3].map(|q| others(t + q));
        let mut acc = [_mm512_setzero_ps(); 4];
        for (q, xq) in x.iter().enumerate() {
            for (sum, row) in acc.iter_mut().zip(&rows) {
                *sum = _mm512_fmadd_ps(*xq, _mm512_loadu_ps(row.add(16 * q)), *sum);
            }
        }
        _mm_storeu_ps(c.add(t - from), sum4(acc));
        t += 4;
    }
    for t in t..to {
        let row = others(t);
        let mut sum = _mm512_setzero_ps();
        for (q, xq) in x.iter().enumerate() {
            sum = _mm512_fmadd_ps(*xq, _mm512_loadu_ps(row.add(16 * q)), sum);
        }
        *c.add(t - from) = _mm512_reduce_add_ps(sum);
    }
}

/// The sums of four vectors' lanes, `[Σ v0, Σ v1, Σ v2, Σ v3]`, added pairwise across the four
/// vectors at once (a third of the instructions of four separate reductions).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2,fma")]
unsafe fn sum4([v0, v1, v2, v3]: [__m512; 4]) -> __m128 {
    // per 128-bit lane: [v0 0+2, v0 1+3, v1 0+2, v1 1+3] (and v2, v3 alike)
    let t01 = _mm512_add_ps(_mm512_unpacklo_ps(v0, v1), _mm512_unpackhi_ps(v0, v1));
    let t23 = _mm512_add_ps(_mm512_unpacklo_ps(v2, v3), _mm512_unpackhi_ps(v2, v3));
    // per 128-bit lane: [v0, v1, v2, v3] each summed over the lane's four elements
    let (t01, t23) = (_mm512_castps_pd(t01), _mm512_castps_pd(t23));
    let lo = _mm512_castpd_ps(_mm512_unpacklo_pd(t01, t23));
    let hi = _mm512_castpd_ps(_mm512_unpackhi_pd(t01, t23));
    let u = _mm512_add_ps(lo, hi);
    // then across the four 128-bit lanes
    let halves = _mm256_add_ps(_mm512_castps512_ps256(u), _mm512_extractf32x8_ps::<1>(u));
    _mm_add_ps(
        _mm256_castps256_ps128(halves),
        _mm256_extractf128_ps::<1>(halves),
    )
}

/// The lanes of a 16-float vector starting at element `at` that lie before `len`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn lanes(len: usize, at: usize) -> __mmask16 {
    let valid = len.saturating_sub(at).min(16);
    ((1u32 << valid) - 1) as __mmask16
}

/// Products with at least this many rows or columns per thread split into one part per thread
/// (see [`sgemm`]).
const MIN_SPLIT: usize = 64;

/// `B` packed once for many products with it (a recurrent layer's weights, multiplied at
/// every step): the slivers a product would pack, for every depth and column block, in the
/// order it walks them. Its buffer comes from and goes back to the buffer pool.
pub struct PackedB {
    k: usize,
    n: usize,
    data: Vec<f32>,
}

impl PackedB {
    /// Packs the k×n matrix `b` (on up to `threads` threads).
    ///
    /// # Safety
    /// [`available`] must be true; `b` must address valid `f32`s for every index in range that
    /// nobody writes during the call.
    pub unsafe fn new(k: usize, n: usize, b: MatRef, threads: usize) -> PackedB {
        let t = tile();
        let mut data = crate::core::pool::buffer::<f32>(n.div_ceil(t.nr) * t.nr * k);
        let mut at = 0;
        for_each_block(t, k, n, |(pc, kc), (jc, nc)| {
            let len = nc.div_ceil(t.nr) * t.nr * kc;
            pack_b(t, &mut data[at..at + len], b, (pc, kc), (jc, nc), threads);
            at += len;
        });
        PackedB { k, n, data }
    }
}

impl Drop for PackedB {
    fn drop(&mut self) {
        use crate::core::buffer::BufferElement;
        crate::core::pool::recycle(f32::into_buffer(std::mem::take(&mut self.data)));
    }
}

/// `c = a·b` for `a` m×k and a packed `b` (k×n), `c` m×n row-major (every element written):
/// the same sums in the same order as [`sgemm`]'s packing path.
///
/// # Safety
/// [`available`] must be true; `a` must address valid `f32`s for every index in range that
/// nobody writes during the call.
pub unsafe fn sgemm_packed(
    m: usize,
    a: MatRef,
    b: &PackedB,
    c: &mut [MaybeUninit<f32>],
    threads: usize,
) {
    let (n, k) = (b.n, b.k);
    if empty_product((m, n, k), c) {
        return;
    }
    let c_ptr = CPtr(c.as_mut_ptr().cast::<f32>());
    product(
        tile(),
        (m, n, n, k),
        a,
        Rhs::Packed(&b.data),
        c_ptr,
        threads,
    );
}

/// Calls `f((pc, kc), (jc, nc))` for the blocks of a k×n `B` in the order [`product`] walks
/// them: column blocks of at most the tile's `nc`, and within each, equal depth blocks of at
/// most about its `kc` (784 = 392 + 392, not 384 + 384 + 16: a thin last block would read and
/// write all of `C` for little arithmetic).
fn for_each_block(t: &Tile, k: usize, n: usize, mut f: impl FnMut((usize, usize), (usize, usize))) {
    let depth = depth(t, k);
    for jc in (0..n).step_by(t.nc) {
        let nc = t.nc.min(n - jc);
        for pc in (0..k).step_by(depth) {
            f((pc, depth.min(k - pc)), (jc, nc));
        }
    }
}

/// The depth of each block of a depth-`k` product: equal blocks of at most about the tile's
/// `kc` (see [`for_each_block`]); every loop order cuts the depth this way, so they all sum
/// in the same order.
fn depth(t: &Tile, k: usize) -> usize {
    k.div_ceil(k.div_ceil(t.kc).max(1)).max(1)
}

/// Where [`product`] finds `B`'s slivers.
enum Rhs<'a> {
    /// A strided `B`, packed block by block into the buffer.
    Strided(MatRef, &'a mut Vec<f32>),
    /// Every block already packed ([`PackedB`]'s layout).
    Packed(&'a [f32]),
}

/// The blocked loops of [`sgemm`] for an m×n part of `C` whose rows are `ldc` apart.
unsafe fn product(
    t: &Tile,
    (m, n, ldc, k): (usize, usize, usize, usize),
    a: MatRef,
    mut rhs: Rhs<'_>,
    c_ptr: CPtr,
    threads: usize,
) {
    if let Rhs::Strided(b, _) = rhs {
        let in_place = a.indexed() || a.cs == 1;
        if let Some(lines) = t.lines.filter(|_| in_place && n <= LINES_MAX_COLUMNS) {
            return by_lines(t, lines, (m, n, ldc, k), a, b, c_ptr, threads);
        }
        if m <= t.mc {
            return by_panels(t, (m, n, ldc, k), a, b, c_ptr, threads);
        }
    }
    let mut at = 0;
    for_each_block(t, k, n, |(pc, kc), (jc, nc)| {
        let panels = nc.div_ceil(t.nr);
        let packed_b: &[f32] = match &mut rhs {
            Rhs::Strided(b, buf) => {
                fit(buf, panels * t.nr * kc);
                pack_b(t, buf, *b, (pc, kc), (jc, nc), threads);
                buf
            }
            Rhs::Packed(all) => {
                at += panels * t.nr * kc;
                &all[at - panels * t.nr * kc..at]
            }
        };
        let units = split(t, m, panels, threads);
        let run = |&(i0, i1, p0, p1): &(usize, usize, usize, usize)| {
            PACKED_A.with(|buf| {
                let mut buf = buf.borrow_mut();
                // SAFETY: every unit writes a disjoint tile range of `c` (rows i0..i1 of
                // columns jc + p0·nr ..), and the operands are valid per the caller
                unsafe {
                    block(
                        t,
                        &mut buf,
                        a,
                        packed_b,
                        (i0, i1),
                        (p0, p1),
                        (pc, kc),
                        (jc, nc),
                        c_ptr,
                        ldc,
                    )
                }
            })
        };
        if threads > 1 && units.len() > 1 {
            crate::cpu::parallel::for_each_unit(units.len(), |u| run(&units[u]));
        } else {
            units.iter().for_each(run);
        }
    });
}

// Note [Few rows: B a sliver at a time]
// `product` packs a whole kc×nc block of B (up to 1 MiB with the AVX2 tile, more than a Zen 3
// core's L2) and streams it from the outer caches once per sliver of A: right when A has many
// rows (each packed B element then serves many slivers from cache). When all of A's rows fit
// one row block (a convolution's weight of 16-64 output channels against an image's 1,000
// pixels), `by_panels` packs A once per depth block and B one nr-wide sliver at a time into a
// buffer that stays in L1 while every sliver of A runs over it: B is still packed once, but
// read back from L1 instead of L3. The sums are the same, in the same order (depth blocks as
// `for_each_block` cuts them), so the bits do not depend on which loop order ran.

/// [`product`] for an `A` of at most one row block (`m <= mc`) and a strided `B`, sliver by
/// sliver of `B` (Note [Few rows: B a sliver at a time]); threads take ranges of slivers.
unsafe fn by_panels(
    t: &Tile,
    (m, n, ldc, k): (usize, usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c_ptr: CPtr,
    threads: usize,
) {
    let (mr, nr) = (t.mr, t.nr);
    let depth = depth(t, k);
    let panels = n.div_ceil(nr);
    let parts = threads.min(panels).max(1);
    let per_part = panels.div_ceil(parts);
    let run = |part: usize| {
        PACKED_A.with(|abuf| {
            PANEL_B.with(|bbuf| {
                let (packed_a, panel) = (&mut *abuf.borrow_mut(), &mut *bbuf.borrow_mut());
                let first = part * per_part;
                for pc in (0..k).step_by(depth) {
                    let kc = depth.min(k - pc);
                    fit(panel, kc * nr);
                    // SAFETY: rows 0..m and columns pc..pc+kc of a, rows pc..pc+kc of b and
                    // the part's columns are in range (the caller's contract); this part's
                    // columns of c are written by no other part
                    unsafe {
                        pack_a(t, packed_a, a, (0, m), (pc, kc));
                        for p in first..(first + per_part).min(panels) {
                            let (j0, width) = (p * nr, nr.min(n - p * nr));
                            pack_panel(t, panel, b, (pc, kc), (j0, width));
                            for (s, r0) in (0..m).step_by(mr).enumerate() {
                                let height = mr.min(m - r0);
                                let kernel = (t.kernel)(height, width > nr / 2);
                                let ap = packed_a.as_ptr().add(s * mr * kc);
                                let cp = c_ptr.add(r0 * ldc + j0);
                                kernel(kc, ap, panel.as_ptr(), cp.0, ldc, width, pc > 0);
                            }
                        }
                    }
                }
            })
        })
    };
    if parts > 1 {
        crate::cpu::parallel::for_each_unit(parts, run);
    } else {
        run(0);
    }
}

// Note [Few columns: A read in place]
// With few columns (a convolution's weight gradient, `im2col(x) @ dyᵀ` with 16-64 output
// channels), every element of A meets only one or a few slivers of B, so packing A (for an
// A whose rows are contiguous, such as im2col's tap rows: an 8×8 transpose per block) costs
// about as much as the arithmetic. Where the tile has a kernel that reads A in place
// (`Tile::lines`: six rows of A through six pointers, broadcast one step at a time, AVX2),
// `by_lines` packs only B (all of its few slivers, small) and runs each sliver of A straight
// from its rows over them; the sliver's rows stay in L1 across B's slivers. Same sums in the
// same order as packing A first.

/// Most columns of `C` for which [`by_lines`] runs (Note [Few columns: A read in place]).
const LINES_MAX_COLUMNS: usize = 64;

/// [`product`] for an `A` with contiguous rows and few columns, `A` read in place (Note [Few
/// columns: A read in place]); threads take ranges of `A`'s slivers.
#[allow(clippy::too_many_arguments)]
unsafe fn by_lines(
    t: &Tile,
    lines: fn(usize, bool) -> avx2::LinesKernel,
    (m, n, ldc, k): (usize, usize, usize, usize),
    a: MatRef,
    b: MatRef,
    c_ptr: CPtr,
    threads: usize,
) {
    let (mr, nr) = (t.mr, t.nr);
    let depth = depth(t, k);
    let (panels, slivers) = (n.div_ceil(nr), m.div_ceil(mr));
    let parts = threads.min(slivers).max(1);
    let per_part = slivers.div_ceil(parts);
    let run = |part: usize| {
        PANEL_B.with(|buf| {
            let packed_b = &mut *buf.borrow_mut();
            let first = part * per_part;
            for pc in (0..k).step_by(depth) {
                let kc = depth.min(k - pc);
                fit(packed_b, panels * nr * kc);
                // SAFETY: rows 0..m and columns pc..pc+kc of a, rows pc..pc+kc of b and its
                // columns are in range (the caller's contract); this part's rows of c are
                // written by no other part
                unsafe {
                    for (p, dst) in packed_b.chunks_mut(nr * kc).enumerate() {
                        pack_panel(t, dst, b, (pc, kc), (p * nr, nr.min(n - p * nr)));
                    }
                    for s in first..(first + per_part).min(slivers) {
                        let (r0, height) = (s * mr, mr.min(m - s * mr));
                        let mut rows = [a.at_ptr(r0, pc); avx2::MR];
                        for (i, row) in rows.iter_mut().enumerate().take(height) {
                            *row = a.at_ptr(r0 + i, pc);
                        }
                        for p in 0..panels {
                            let (j0, width) = (p * nr, nr.min(n - p * nr));
                            let kernel = lines(height, width > nr / 2);
                            let bp = packed_b.as_ptr().add(p * nr * kc);
                            let cp = c_ptr.add(r0 * ldc + j0);
                            kernel(kc, &rows, bp, cp.0, ldc, width, pc > 0);
                        }
                    }
                }
            }
        })
    };
    if parts > 1 {
        crate::cpu::parallel::for_each_unit(parts, run);
    } else {
        run(0);
    }
}

/// The output pointer, shared by units that write disjoint tiles.
#[derive(Clone, Copy)]
struct CPtr(*mut f32);
// SAFETY: units write disjoint parts of the output (see `split`).
unsafe impl Send for CPtr {}
unsafe impl Sync for CPtr {}

impl CPtr {
    /// The pointer `n` elements further.
    unsafe fn add(self, n: usize) -> CPtr {
        CPtr(self.0.add(n))
    }
}

/// Work units `(first row, end row, first panel, end panel)`: row blocks of at most `mc` rows,
/// as many as a multiple of the thread count, with the `mr`-row slivers dealt out evenly; and,
/// when there are fewer slivers than threads, the column panels split too.
fn split(t: &Tile, m: usize, panels: usize, threads: usize) -> Vec<(usize, usize, usize, usize)> {
    let slivers = m.div_ceil(t.mr);
    let mut blocks = m.div_ceil(t.mc).max(1);
    if threads > 1 {
        blocks = blocks.next_multiple_of(threads).min(slivers);
    }
    let col_parts = if blocks < threads {
        threads.min(panels)
    } else {
        1
    };
    let per_part = panels.div_ceil(col_parts);
    let mut units = Vec::new();
    let mut first = 0;
    for block in 0..blocks {
        let count = slivers / blocks + usize::from(block < slivers % blocks);
        let (i0, i1) = (first * t.mr, ((first + count) * t.mr).min(m));
        first += count;
        for p0 in (0..panels).step_by(per_part) {
            units.push((i0, i1, p0, (p0 + per_part).min(panels)));
        }
    }
    units
}

/// Packs `b[pc..pc+kc, jc..jc+nc]` as `nr`-column slivers, each `kc` rows of `nr` floats
/// (zero-padded past `nc`).
fn pack_b(
    t: &Tile,
    out: &mut [f32],
    b: MatRef,
    (pc, kc): (usize, usize),
    (jc, nc): (usize, usize),
    threads: usize,
) {
    let nr = t.nr;
    let pack = |(panel, dst): (usize, &mut [f32])| {
        let j0 = jc + panel * nr;
        // SAFETY: rows pc..pc+kc and columns j0.. are inside b (the caller's contract)
        unsafe { pack_panel(t, dst, b, (pc, kc), (j0, nr.min(jc + nc - j0))) }
    };
    if threads > 1 && nc * kc >= 1 << 15 {
        crate::cpu::parallel::for_each_block(out, nr * kc, |at, dst| pack((at / (nr * kc), dst)));
    } else {
        out.chunks_mut(nr * kc).enumerate().for_each(pack);
    }
}

/// Packs `b[pc..pc+kc, j0..j0+width]` as one `nr`-column sliver (zero-padded past `width`).
///
/// # Safety
/// Those rows and columns are inside `b`; `dst` holds `kc·nr` floats.
unsafe fn pack_panel(
    t: &Tile,
    dst: &mut [f32],
    b: MatRef,
    (pc, kc): (usize, usize),
    (j0, width): (usize, usize),
) {
    if b.indexed() {
        pack_rows(t, dst, |p| b.at_ptr(pc + p, j0), kc, width, t.nr)
    } else {
        pack_sliver(t, dst, b.at_ptr(pc, j0), (b.rs, b.cs), kc, width, t.nr)
    }
}

/// Packs `a[i0..i1, pc..pc+kc]` as `mr`-row slivers, each `kc` columns of `mr` floats.
unsafe fn pack_a(
    t: &Tile,
    out: &mut Vec<f32>,
    a: MatRef,
    (i0, i1): (usize, usize),
    (pc, kc): (usize, usize),
) {
    let mr = t.mr;
    let slivers = (i1 - i0).div_ceil(mr);
    fit(out, slivers * mr * kc);
    for (s, dst) in out.chunks_mut(mr * kc).enumerate() {
        let r0 = i0 + s * mr;
        let height = mr.min(i1 - r0);
        // the sliver is A's rows r0.. read as columns: its transpose, packed like B's
        if a.indexed() {
            pack_lines(t, dst, |j| a.at_ptr(r0 + j, pc), kc, height, mr);
        } else {
            pack_sliver(t, dst, a.at_ptr(r0, pc), (a.cs, a.rs), kc, height, mr);
        }
    }
}

/// Writes `dst[p·w + j] = src[p·step + j·across]` for `p < kc`, `j < width`, and zeros for
/// `width <= j < w`: one sliver of a packed operand. Reads along whichever of the two strides
/// is 1, so both row- and column-major sources are read sequentially.
///
/// # Safety
/// `src` must address valid floats at every offset `p·step + j·across` in range, and the CPU
/// must have the tile's instruction set.
unsafe fn pack_sliver(
    t: &Tile,
    dst: &mut [f32],
    src: *const f32,
    (step, across): (isize, isize),
    kc: usize,
    width: usize,
    w: usize,
) {
    if across == 1 {
        return pack_rows(t, dst, |p| src.offset(p as isize * step), kc, width, w);
    }
    if step == 1 {
        return pack_lines(t, dst, |j| src.offset(j as isize * across), kc, width, w);
    }
    #[cfg(target_arch = "x86_64")]
    if t.avx512 && across.unsigned_abs() * w < i32::MAX as usize / 4 {
        return gather_sliver(dst, src, (step, across), kc, width, w);
    }
    for j in 0..width {
        let col = src.offset(j as isize * across);
        for p in 0..kc {
            *dst.get_unchecked_mut(p * w + j) = *col.offset(p as isize * step);
        }
    }
    if width < w {
        for row in dst.chunks_exact_mut(w).take(kc) {
            row[width..].fill(0.0);
        }
    }
}

/// [`pack_sliver`] with AVX-512 for strides of neither 1: 16 columns at a time with one
/// gather per row (the sources are `across` apart).
///
/// # Safety
/// As [`pack_sliver`], on a CPU with AVX-512F, with `|across|·w` below `i32::MAX / 4`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn gather_sliver(
    dst: &mut [f32],
    src: *const f32,
    (step, across): (isize, isize),
    kc: usize,
    width: usize,
    w: usize,
) {
    let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let stride = _mm512_set1_epi32(across as i32);
    for j0 in (0..w).step_by(16) {
        let valid = width.saturating_sub(j0).min(16);
        let mask: __mmask16 = ((1u32 << valid) - 1) as __mmask16;
        let index = _mm512_mullo_epi32(lanes, stride);
        let base = src.offset(j0 as isize * across);
        for p in 0..kc {
            let row = base.offset(p as isize * step);
            let v = _mm512_mask_i32gather_ps::<4>(_mm512_setzero_ps(), mask, index, row);
            let out = dst.as_mut_ptr().add(p * w + j0);
            _mm512_mask_storeu_ps(out, ((1u32 << (w - j0).min(16)) - 1) as __mmask16, v);
        }
    }
}

/// [`pack_sliver`] from a source whose sliver rows are contiguous: row `p` (of `width`
/// floats) starts at `row(p)`.
///
/// # Safety
/// As [`pack_sliver`], for every `row(p)`, `p < kc`.
unsafe fn pack_rows(
    t: &Tile,
    dst: &mut [f32],
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if t.avx512 && w <= 2 * 16 {
        return masked_rows(dst, row, kc, width, w);
    } else if !t.avx512 && w <= 16 {
        return avx2::pack_rows(dst, row, kc, width, w);
    }
    for (p, out) in dst.chunks_exact_mut(w).take(kc).enumerate() {
        out[..width].copy_from_slice(std::slice::from_raw_parts(row(p), width));
        out[width..].fill(0.0);
    }
}

/// [`pack_rows`] with AVX-512 for slivers of at most 32 floats: masked vector moves, one or
/// two a row (a `memcpy` call costs more than a row's copy).
///
/// # Safety
/// As [`pack_rows`], on a CPU with AVX-512F, with `w <= 32`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn masked_rows(
    dst: &mut [f32],
    row: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    let lanes = |n: usize, from: usize| ((1u32 << n.saturating_sub(from).min(16)) - 1) as __mmask16;
    let (load, store) = (
        [lanes(width, 0), lanes(width, 16)],
        [lanes(w, 0), lanes(w, 16)],
    );
    for (p, out) in dst.chunks_exact_mut(w).take(kc).enumerate() {
        let from = row(p);
        for v in 0..w.div_ceil(16) {
            let x = _mm512_maskz_loadu_ps(load[v], from.wrapping_add(16 * v));
            _mm512_mask_storeu_ps(out.as_mut_ptr().add(16 * v), store[v], x);
        }
    }
}

/// [`pack_sliver`] from a source whose sliver columns are contiguous (a row-major A, a
/// transposed B): column `j` (of `kc` floats) starts at `line(j)`.
///
/// # Safety
/// As [`pack_sliver`], for every `line(j)`, `j < width`.
unsafe fn pack_lines(
    t: &Tile,
    dst: &mut [f32],
    line: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    #[cfg(target_arch = "x86_64")]
    if t.avx512 {
        return transposed_lines(dst, line, kc, width, w);
    } else if w <= 16 {
        return avx2::pack_lines(dst, line, kc, width, w);
    }
    for p in 0..kc {
        for j in 0..w {
            dst[p * w + j] = if j < width { *line(j).add(p) } else { 0.0 };
        }
    }
}

/// [`pack_lines`] with AVX-512: 16×16 blocks loaded line by line and transposed in registers.
///
/// # Safety
/// As [`pack_lines`], on a CPU with AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn transposed_lines(
    dst: &mut [f32],
    line: impl Fn(usize) -> *const f32,
    kc: usize,
    width: usize,
    w: usize,
) {
    for j0 in (0..w).step_by(16) {
        let valid = width.saturating_sub(j0).min(16);
        let store = ((1u32 << (w - j0).min(16)) - 1) as __mmask16;
        for p0 in (0..kc).step_by(16) {
            let steps = (kc - p0).min(16);
            let load = ((1u32 << steps) - 1) as __mmask16;
            let mut block = [_mm512_setzero_ps(); 16];
            for (j, row) in block.iter_mut().enumerate().take(valid) {
                *row = _mm512_maskz_loadu_ps(load, line(j0 + j).add(p0));
            }
            transpose16(&mut block);
            for (p, column) in block.iter().enumerate().take(steps) {
                _mm512_mask_storeu_ps(dst.as_mut_ptr().add((p0 + p) * w + j0), store, *column);
            }
        }
    }
}

/// Transposes a 16×16 block held as 16 rows: afterwards `r[k]` holds what was column `k`.
/// Pairs of rows interleaved, then groups of four within each 128-bit lane, then the lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn transpose16(r: &mut [__m512; 16]) {
    let mut t = [_mm512_setzero_ps(); 16];
    for i in (0..16).step_by(2) {
        t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    // r[4g + c], lane l: rows 4g..4g+4 of column 4l + c
    for g in (0..16).step_by(4) {
        r[g] = _mm512_shuffle_ps::<0x44>(t[g], t[g + 2]);
        r[g + 1] = _mm512_shuffle_ps::<0xEE>(t[g], t[g + 2]);
        r[g + 2] = _mm512_shuffle_ps::<0x44>(t[g + 1], t[g + 3]);
        r[g + 3] = _mm512_shuffle_ps::<0xEE>(t[g + 1], t[g + 3]);
    }
    for c in 0..4 {
        let (a, b, cc, d) = (r[c], r[4 + c], r[8 + c], r[12 + c]);
        let u0 = _mm512_shuffle_f32x4::<0x44>(a, b);
        let u1 = _mm512_shuffle_f32x4::<0xEE>(a, b);
        let u2 = _mm512_shuffle_f32x4::<0x44>(cc, d);
        let u3 = _mm512_shuffle_f32x4::<0xEE>(cc, d);
        t[c] = _mm512_shuffle_f32x4::<0x88>(u0, u2);
        t[4 + c] = _mm512_shuffle_f32x4::<0xDD>(u0, u2);
        t[8 + c] = _mm512_shuffle_f32x4::<0x88>(u1, u3);
        t[12 + c] = _mm512_shuffle_f32x4::<0xDD>(u1, u3);
    }
    *r = t;
}

/// One unit: packs its rows of `A`, then runs the micro-kernel over its tiles.
#[allow(clippy::too_many_arguments)]
unsafe fn block(
    t: &Tile,
    packed_a: &mut Vec<f32>,
    a: MatRef,
    packed_b: &[f32],
    (i0, i1): (usize, usize),
    (p0, p1): (usize, usize),
    (pc, kc): (usize, usize),
    (jc, nc): (usize, usize),
    c: CPtr,
    ldc: usize,
) {
    pack_a(t, packed_a, a, (i0, i1), (pc, kc));
    let accumulate = pc > 0;
    let (mr, nr) = (t.mr, t.nr);
    // one A sliver (mr×kc) stays in L1 while the B slivers stream from L2
    for (s, r0) in (i0..i1).step_by(mr).enumerate() {
        let height = mr.min(i1 - r0);
        let ap = packed_a.as_ptr().add(s * mr * kc);
        for panel in p0..p1 {
            let j0 = jc + panel * nr;
            let width = nr.min(jc + nc - j0);
            let bp = packed_b.as_ptr().add(panel * nr * kc);
            let tile = (t.kernel)(height, width > nr / 2);
            tile(kc, ap, bp, c.0.add(r0 * ldc + j0), ldc, width, accumulate);
        }
    }
}

/// A micro-kernel for tiles of one height: `(kc, a, b, c, ldc, width, accumulate)`.
pub(crate) type Kernel = unsafe fn(usize, *const f32, *const f32, *mut f32, usize, usize, bool);

/// The AVX-512 micro-kernels for each tile width (index 0: at most 16 columns, one vector; 1: up to
/// 32, two) and height `1..=MR` (index `height - 1`): edge tiles cost their own rows and
/// vectors, not a full tile's (a product with 16 columns, such as a convolution's weight
/// gradient for 16 channels, does half the arithmetic of a full-width tile).
const KERNELS: [[Kernel; MR]; 2] = [of_width::<1>(), of_width::<2>()];

/// The micro-kernels of `V` vectors' width, by height.
const fn of_width<const V: usize>() -> [Kernel; MR] {
    [
        kernel::<1, V>,
        kernel::<2, V>,
        kernel::<3, V>,
        kernel::<4, V>,
        kernel::<5, V>,
        kernel::<6, V>,
        kernel::<7, V>,
        kernel::<8, V>,
        kernel::<9, V>,
        kernel::<10, V>,
        kernel::<11, V>,
        kernel::<12, V>,
        kernel::<13, V>,
        kernel::<14, V>,
    ]
}

/// The micro-kernel: `c (R×width, row stride ldc) (+)= Σ_p a[p]ᵀ·b[p]` over `kc` packed steps
/// (`a`: `MR` floats per step, of which the first `R` are used; `b`: 32 floats per step, of
/// which the first `16·V` are used). The tile's `R×16V` sums stay in registers (28 of the 32
/// for `R = MR`, `V = 2`); columns past `width` are masked off when stored.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn kernel<const R: usize, const V: usize>(
    kc: usize,
    a: *const f32,
    b: *const f32,
    c: *mut f32,
    ldc: usize,
    width: usize,
    accumulate: bool,
) {
    let mut acc = [[_mm512_setzero_ps(); V]; R];
    for p in 0..kc {
        let mut bv = [_mm512_setzero_ps(); V];
        for (v, x) in bv.iter_mut().enumerate() {
            *x = _mm512_loadu_ps(b.add(p * NR + 16 * v));
        }
        let ap = a.add(p * MR);
        for (i, row) in acc.iter_mut().enumerate() {
            let ai = _mm512_set1_ps(*ap.add(i));
            for (sum, bx) in row.iter_mut().zip(bv) {
                *sum = _mm512_fmadd_ps(ai, bx, *sum);
            }
        }
    }
    let mask =
        |from: usize| (((1u32 << width.saturating_sub(from).min(16)) - 1) & 0xffff) as __mmask16;
    for (i, row) in acc.iter().enumerate() {
        let out = c.add(i * ldc);
        for (v, &sum) in row.iter().enumerate() {
            let (m, at) = (mask(16 * v), out.wrapping_add(16 * v));
            let total = if accumulate {
                _mm512_add_ps(sum, _mm512_maskz_loadu_ps(m, at))
            } else {
                sum
            };
            _mm512_mask_storeu_ps(at, m, total);
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn kernel<const R: usize, const V: usize>(
    _: usize,
    _: *const f32,
    _: *const f32,
    _: *mut f32,
    _: usize,
    _: usize,
    _: bool,
) {
    unreachable!("sgemm::available() is false off x86_64")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fixed row-major operands `a` (m×k) and `b` (k×n) with varied values.
    fn operands(m: usize, n: usize, k: usize) -> (Vec<f32>, Vec<f32>) {
        let a = (0..m * k).map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0);
        let b = (0..k * n).map(|i| ((i * 53 % 97) as f32 - 48.0) / 30.0);
        (a.collect(), b.collect())
    }

    fn naive(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f64> {
        let mut c = vec![0.0f64; m * n];
        for i in 0..m {
            for j in 0..n {
                for p in 0..k {
                    c[i * n + j] += a[i * k + p] as f64 * b[p * n + j] as f64;
                }
            }
        }
        c
    }

    #[test]
    fn transpose16_swaps_rows_and_columns() {
        if !available() || !tile().avx512 {
            return;
        }
        let m: Vec<f32> = (0..256).map(|v| v as f32).collect();
        let mut out = [0.0f32; 256];
        // SAFETY: AVX-512F is available (checked above); 16 rows of 16 floats in and out
        unsafe {
            let mut rows = [_mm512_setzero_ps(); 16];
            for (i, row) in rows.iter_mut().enumerate() {
                *row = _mm512_loadu_ps(m.as_ptr().add(16 * i));
            }
            transpose16(&mut rows);
            for (k, column) in rows.iter().enumerate() {
                _mm512_storeu_ps(out.as_mut_ptr().add(16 * k), *column);
            }
        }
        for i in 0..16 {
            for k in 0..16 {
                assert_eq!(out[16 * k + i], m[16 * i + k]);
            }
        }
    }

    /// The outer product of a column `a` and a row `b` through [`sgemm`] (`k == 1`).
    fn outer(a: &[f32], b: &[f32]) -> Vec<f32> {
        let mut c = vec![MaybeUninit::new(f32::NAN); a.len() * b.len()];
        let aref = MatRef::strided(a.as_ptr(), 1, 1);
        let bref = MatRef::strided(b.as_ptr(), b.len() as isize, 1);
        // SAFETY: the kernel is available (checked by the callers); an m x 1 and a 1 x n operand
        unsafe { sgemm(a.len(), b.len(), 1, aref, bref, &mut c, 1) };
        // SAFETY: sgemm wrote every element
        c.iter().map(|v| unsafe { v.assume_init() }).collect()
    }

    #[test]
    fn thin_products_sign_zeros_as_pytorch() {
        // (with AVX2 the thin products go to the `gemm` crate, see `suits`)
        if !available() || !tile().avx512 {
            return;
        }
        // PyTorch's 0.001 / (x @ y) with x = [[-0.257]], y = [[-2.758, 0.0, -1.544]]: the middle
        // element is +0.0 (a matrix-vector product's sum starts from zero), so +inf after it
        let row = outer(&[-0.257], &[-2.758, 0.0, -1.544]);
        assert_eq!(row[1].to_bits(), 0.0f32.to_bits());
        // a larger outer product keeps -0.0 (fz-317632: PyTorch's atan2 of it gives -pi)
        let block = outer(&[0.0, -0.176], &[0.176, 2.76, 0.0]);
        assert_eq!(block[5].to_bits(), (-0.0f32).to_bits());
    }

    #[test]
    fn matches_a_naive_product_on_ragged_and_transposed_shapes() {
        if !available() {
            return;
        }
        for &(m, n, k) in &[
            (1, 1, 1),
            (13, 33, 7),
            (12, 32, 384),
            (50, 70, 800),
            (200, 3100, 5),
            (30, 1100, 900),
            (64, 130, 784),
            (29, 45, 20),
            (3, 600, 33),
            (300, 40, 50),
            (700, 200, 400),
            // thin shapes (row vector, column vector, outer product): see `thin`
            (1, 384, 128),
            (1, 33, 7),
            (1, 200, 1),
            (1, 1, 300),
            (384, 128, 1),
            (7, 1, 45),
            (17, 1, 33),
            (1, 130, 600),
            // thin shapes large enough to split their outputs over threads
            (1, 3000, 200),
            (700, 600, 1),
            (3000, 1, 200),
        ] {
            let (a, b) = operands(m, n, k);
            let want = naive(m, n, k, &a, &b);
            // b also given transposed: bt (n×k) read with swapped strides
            let bt: Vec<f32> = (0..n * k).map(|q| b[(q % k) * n + q / k]).collect();
            for (threads, bref) in [
                (1, MatRef::strided(b.as_ptr(), n as isize, 1)),
                (3, MatRef::strided(bt.as_ptr(), 1, k as isize)),
            ] {
                let mut c = vec![MaybeUninit::new(f32::NAN); m * n];
                let aref = MatRef::strided(a.as_ptr(), k as isize, 1);
                // SAFETY: the operands hold m·k and k·n floats, read within range
                unsafe { sgemm(m, n, k, aref, bref, &mut c, threads) };
                // SAFETY: sgemm wrote every element
                let c: Vec<f32> = c.iter().map(|v| unsafe { v.assume_init() }).collect();
                for (got, want) in c.iter().zip(&want) {
                    assert!(
                        (*got as f64 - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{m}x{n}x{k}"
                    );
                }
            }
        }
    }

    #[test]
    fn row_table_operands_read_each_row_where_the_table_says() {
        if !available() {
            return;
        }
        // rows gathered from a larger buffer in a shuffled, overlapping order (an im2col's
        // tap rows overlap in the padded image); A with a table (packed as lines), B with a
        // table (packed as rows), on one and on two threads, ragged edges and a 16-wide B
        for &(m, n, k, threads) in &[(17, 40, 23, 1), (45, 16, 300, 2), (3, 70, 9, 2)] {
            let (a, b) = operands(m, n, k);
            let width = |cols: usize, rows: usize| cols + 3 * rows;
            let spread = |dense: &[f32], rows: usize, cols: usize| {
                // the rows in reverse order, `cols + 3` apart (NaN between them)
                let mut buf = vec![f32::NAN; width(cols, rows) * rows];
                let offsets: Vec<usize> =
                    (0..rows).map(|r| (rows - 1 - r) * width(cols, 1)).collect();
                for (r, &o) in offsets.iter().enumerate() {
                    buf[o..o + cols].copy_from_slice(&dense[r * cols..(r + 1) * cols]);
                }
                (buf, offsets)
            };
            let (abuf, aoff) = spread(&a, m, k);
            let (bbuf, boff) = spread(&b, k, n);
            let aref = MatRef {
                row_offsets: aoff.as_ptr(),
                ..MatRef::strided(abuf.as_ptr(), 0, 1)
            };
            let bref = MatRef {
                row_offsets: boff.as_ptr(),
                ..MatRef::strided(bbuf.as_ptr(), 0, 1)
            };
            let want = naive(m, n, k, &a, &b);
            let mut c = vec![MaybeUninit::new(f32::NAN); m * n];
            // SAFETY: every offset plus its row's length is inside its buffer
            unsafe { sgemm(m, n, k, aref, bref, &mut c, threads) };
            for (got, want) in c.iter().zip(&want) {
                // SAFETY: sgemm wrote every element
                let got = unsafe { got.assume_init() } as f64;
                assert!(
                    (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                    "{m}x{n}x{k}"
                );
            }
        }
    }

    #[test]
    fn packed_b_gives_the_same_bits_as_packing_per_product() {
        if !available() {
            return;
        }
        // several depth blocks (k > KC), several column blocks (n > NC), ragged edges
        for &(m, n, k, threads) in &[
            (16, 512, 128, 1),
            (16, 128, 512, 1),
            (2, 33, 7, 1),
            // few columns, A read in place (Note [Few columns: A read in place])
            (40, 48, 600, 2),
            (29, 1100, 900, 2),
            (200, 70, 800, 3),
        ] {
            let (a, b) = operands(m, n, k);
            let aref = MatRef::strided(a.as_ptr(), k as isize, 1);
            // b read transposed, as a recurrent layer's h·w_hhᵀ reads w_hh
            let bt: Vec<f32> = (0..n * k).map(|q| b[(q % k) * n + q / k]).collect();
            let bref = MatRef::strided(bt.as_ptr(), 1, k as isize);
            let mut want = vec![MaybeUninit::new(f32::NAN); m * n];
            let mut got = vec![MaybeUninit::new(f32::NAN); m * n];
            // SAFETY: the operands hold m·k and k·n floats, read within range
            unsafe {
                sgemm(m, n, k, aref, bref, &mut want, threads);
                let packed = PackedB::new(k, n, bref, threads);
                sgemm_packed(m, aref, &packed, &mut got, threads);
            }
            // SAFETY: both products wrote every element
            let bits = |c: &[MaybeUninit<f32>]| -> Vec<u32> {
                c.iter()
                    .map(|v| unsafe { v.assume_init() }.to_bits())
                    .collect()
            };
            assert_eq!(bits(&got), bits(&want), "{m}x{n}x{k}");
        }
    }
}
