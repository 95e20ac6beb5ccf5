//! float32 matrix product with AVX-512 or AVX2: `C = A·B`, the GotoBLAS way.
//!
//! `B` is packed a `KC×NC` block at a time into `NR`-column slivers, `A` a `MC×KC` block at a
//! time into `MR`-row slivers; an `MR×NR` micro-kernel keeps its tile of `C` in vector
//! registers while it walks `KC` (edge tiles have kernels of their own height). The tile and
//! block sizes are the instruction set's (`Tile`: 14×32 with AVX-512, 6×16 with AVX2).
//! Operands are read through their strides, so transposes cost nothing. Threads take row or
//! column ranges of `C`; every element of `C` is summed in the same order whatever the thread
//! count. Used when the CPU has AVX-512F or AVX2 and FMA (see [`available`]); other CPUs and
//! float64 use the `gemm` crate.
//!
//! This file holds the blocked loops and the threads; `tile.rs` what every part shares (the
//! tile, the operand, the kernels' signatures), `avx512.rs` and [`avx2`] the micro-kernels,
//! `pack.rs` the packing and `thin.rs` the products too thin to pack.

#[cfg(target_arch = "x86_64")]
pub mod avx2;
mod avx512;
mod pack;
#[cfg(all(test, target_arch = "x86_64"))]
mod tests;
#[cfg(target_arch = "x86_64")]
mod thin;
mod tile;

pub use tile::MatRef;

use pack::{pack_a, pack_b, pack_panel};
use std::cell::RefCell;
use std::mem::MaybeUninit;
#[cfg(target_arch = "x86_64")]
use thin::thin;
use tile::{fit, CPtr, LinesKernel, Tile, LINE_ROWS};

/// This CPU's tile (only where [`available`]).
fn tile() -> &'static Tile {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::kernels::simd_level() == 1 {
        return &avx2::TILE;
    }
    &avx512::TILE
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

thread_local! {
    /// Per-thread packing buffer for blocks of `A` (reused across calls).
    static PACKED_A: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// The calling thread's packing buffer for blocks of `B` (reused across calls).
    static PACKED_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
    /// Per-thread buffer for one sliver of `B` (Note [Few rows: B a sliver at a time]).
    static PANEL_B: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
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
// (`Tile::lines`: a sliver's rows of A through as many pointers, broadcast one step at a
// time; AVX2's tile reads 6 rows, AVX-512's 14), `by_lines` packs only B (all of its few
// slivers, small) and runs each sliver of A straight from its rows over them; the sliver's
// rows stay in L1 across B's slivers. Same sums in the same order as packing A first.

/// Most columns of `C` for which [`by_lines`] runs (Note [Few columns: A read in place]).
const LINES_MAX_COLUMNS: usize = 64;

/// [`product`] for an `A` with contiguous rows and few columns, `A` read in place (Note [Few
/// columns: A read in place]); threads take ranges of `A`'s slivers.
#[allow(clippy::too_many_arguments)]
unsafe fn by_lines(
    t: &Tile,
    lines: fn(usize, bool) -> LinesKernel,
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
                        let mut rows = [a.at_ptr(r0, pc); LINE_ROWS];
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
