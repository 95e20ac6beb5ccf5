//! Shapes, strides and broadcasting: how a tensor's elements sit in its storage, and copying
//! the elements a layout describes out in row-major order (`gather`).

use crate::core::error::{Error, Result};
use smallvec::SmallVec;

/// A list of sizes (a shape) or of per-dimension values.
pub type Dims = SmallVec<[usize; 4]>;
/// A list of strides, in elements.
pub type Strides = SmallVec<[isize; 4]>;

/// Where a tensor's elements are: `offset + sum(index[d] * strides[d])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Size of each dimension.
    pub shape: Dims,
    /// Step in elements between neighbours along each dimension (0 for broadcast dimensions).
    pub strides: Strides,
    /// Position of element `[0, 0, ...]` in the storage.
    pub offset: usize,
}

/// How many elements from the first to the last (inclusive) a layout of `shape` with the
/// non-negative `strides` reaches from its offset: the storage it needs (0 when empty).
pub fn strided_span(shape: &[usize], strides: &[isize]) -> usize {
    if shape.contains(&0) {
        return 0;
    }
    1 + shape
        .iter()
        .zip(strides)
        .map(|(&n, &s)| (n - 1) * s.max(0) as usize)
        .sum::<usize>()
}

/// A sub-view of one dimension: a single index or a strided range (the views `select` and
/// `slice` take, whose gradients the engine can add straight into part of a sum).
#[derive(Clone, Copy, Debug)]
pub enum Part {
    /// `x.select(dim, index)`: drops `dim`.
    Select {
        /// The dimension indexed.
        dim: usize,
        /// The index taken.
        index: usize,
    },
    /// `x.slice(dim, start, end, step)`: keeps `dim` with `len` elements.
    Slice {
        /// The dimension sliced.
        dim: usize,
        /// The first index taken.
        start: usize,
        /// How many indices are taken.
        len: usize,
        /// The step between them.
        step: usize,
    },
}

impl Layout {
    /// This view's layout in the row-major coordinates of `base` (as if `base` were contiguous
    /// from offset 0): what PyTorch's CopySlices and view regeneration need to replay the view
    /// on a gradient of `base`'s shape. `None` unless `base` is non-overlapping and the view's
    /// elements are elements of `base` (every view of `base` taken by select, slice, permute or
    /// unsqueeze is).
    pub fn relative_to(&self, base: &Layout) -> Option<Layout> {
        if base.is_contiguous() {
            let mut out = self.clone();
            out.offset = self.offset.checked_sub(base.offset)?;
            return Some(out);
        }
        let logical = contiguous_strides(&base.shape);
        // base's dimensions that step, outermost (largest stride) first
        let mut dims: Vec<usize> = (0..base.shape.len())
            .filter(|&d| base.shape[d] > 1)
            .collect();
        if dims.iter().any(|&d| base.strides[d] <= 0) {
            return None;
        }
        dims.sort_by_key(|&d| std::cmp::Reverse(base.strides[d]));
        let nested = dims
            .windows(2)
            .all(|w| base.strides[w[0]] >= base.strides[w[1]] * base.shape[w[1]] as isize);
        if !nested {
            return None;
        }
        // a distance in storage to the distance in base's row-major coordinates
        let to_logical = |mut dist: isize| -> Option<isize> {
            if dist < 0 {
                return None;
            }
            let mut out = 0;
            for &d in &dims {
                let q = dist / base.strides[d];
                if q >= base.shape[d] as isize {
                    return None;
                }
                out += q * logical[d];
                dist -= q * base.strides[d];
            }
            (dist == 0).then_some(out)
        };
        let start = self.offset as isize - base.offset as isize;
        let offset = to_logical(start)?;
        let mut strides = Strides::new();
        let (mut far, mut far_logical) = (start, offset);
        for (&n, &s) in self.shape.iter().zip(&self.strides) {
            if n <= 1 {
                strides.push(0);
                continue;
            }
            let step = to_logical(s)?;
            // each axis's last element must land where the mapped stride says
            if to_logical(start + (n as isize - 1) * s)? != offset + (n as isize - 1) * step {
                return None;
            }
            far += (n as isize - 1) * s;
            far_logical += (n as isize - 1) * step;
            strides.push(step);
        }
        if self.shape.contains(&0) {
            return Some(Layout {
                shape: self.shape.clone(),
                strides,
                offset: offset as usize,
            });
        }
        (to_logical(far)? == far_logical).then(|| Layout {
            shape: self.shape.clone(),
            strides,
            offset: offset as usize,
        })
    }

    /// The layout of the sub-view `part` of this layout (same storage).
    pub fn part(&self, part: Part) -> Layout {
        let mut out = self.clone();
        match part {
            Part::Select { dim, index } => {
                out.offset = (self.offset as isize + index as isize * self.strides[dim]) as usize;
                out.shape.remove(dim);
                out.strides.remove(dim);
            }
            Part::Slice {
                dim,
                start,
                len,
                step,
            } => {
                out.offset = (self.offset as isize + start as isize * self.strides[dim]) as usize;
                out.shape[dim] = len;
                out.strides[dim] = self.strides[dim] * step as isize;
            }
        }
        out
    }

    /// A row-major contiguous layout of `shape` starting at offset 0.
    pub fn contiguous(shape: &[usize]) -> Self {
        Layout {
            shape: shape.into(),
            strides: contiguous_strides(shape),
            offset: 0,
        }
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Number of dimensions.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// True when the elements are row-major and dense (offset may be non-zero).
    pub fn is_contiguous(&self) -> bool {
        if self.numel() == 0 {
            return true; // no element to be out of place (PyTorch's rule)
        }
        let mut expected = 1isize;
        for (&size, &stride) in self.shape.iter().zip(&self.strides).rev() {
            if size != 1 && stride != expected {
                return false;
            }
            expected *= size as isize;
        }
        true
    }

    /// Whether two elements share a memory location (a broadcast dimension, stride 0): what
    /// PyTorch refuses to write into.
    pub fn has_internal_overlap(&self) -> bool {
        self.shape
            .iter()
            .zip(&self.strides)
            .any(|(&n, &s)| n > 1 && s == 0)
    }

    /// The storage range the elements fill when they are dense in some order of the dimensions
    /// (a permutation of a contiguous layout); `None` otherwise or when empty.
    pub fn dense_extent(&self) -> Option<std::ops::Range<usize>> {
        let n = self.numel();
        if n == 0 {
            return None;
        }
        let mut dims: Vec<(isize, usize)> = self
            .strides
            .iter()
            .zip(&self.shape)
            .filter(|(_, &size)| size != 1)
            .map(|(&stride, &size)| (stride, size))
            .collect();
        dims.sort_unstable();
        let mut expected = 1isize;
        for (stride, size) in dims {
            if stride != expected {
                return None;
            }
            expected *= size as isize;
        }
        Some(self.offset..self.offset + n)
    }

    /// The storage range `offset..offset+numel` when contiguous.
    pub fn contiguous_range(&self) -> Option<std::ops::Range<usize>> {
        let n = self.numel();
        if n == 0 {
            // an empty view may sit at an offset past the end of its (empty) storage
            return Some(0..0);
        }
        self.is_contiguous().then(|| self.offset..self.offset + n)
    }

    /// Calls `f` with the storage position of every element, in row-major order.
    pub fn for_each_offset(&self, mut f: impl FnMut(usize)) {
        let n = self.numel();
        if n == 0 {
            return;
        }
        if let Some(range) = self.contiguous_range() {
            range.for_each(f);
            return;
        }
        let nd = self.ndim();
        let mut index: Dims = SmallVec::from_elem(0, nd);
        let mut pos = self.offset as isize;
        for _ in 0..n {
            f(pos as usize);
            // odometer increment, innermost dimension first
            for d in (0..nd).rev() {
                index[d] += 1;
                pos += self.strides[d];
                if index[d] < self.shape[d] {
                    break;
                }
                pos -= self.strides[d] * self.shape[d] as isize;
                index[d] = 0;
            }
        }
    }

    /// This layout with its dimensions reordered as `strides` (an output layout's strides)
    /// orders them, largest first: a row-major walk of the result visits elements in the
    /// order they sit in an output of those strides.
    pub fn ordered_by(&self, strides: &[isize]) -> Layout {
        let mut dims: Dims = (0..self.ndim()).collect();
        dims.sort_by_key(|&d| std::cmp::Reverse(strides[d]));
        Layout {
            shape: dims.iter().map(|&d| self.shape[d]).collect(),
            strides: dims.iter().map(|&d| self.strides[d]).collect(),
            offset: self.offset,
        }
    }

    /// This layout seen with the shape `target` (same element count) without moving any element,
    /// or `None` when some new dimension would span two of the old non-mergeable ones (PyTorch's
    /// `computeStride`: a view of a non-contiguous tensor is possible when each run of old
    /// dimensions it splits or merges is itself contiguous).
    pub fn reshaped(&self, target: &[usize]) -> Option<Layout> {
        let (shape, strides) = (&self.shape, &self.strides);
        let fresh = |strides: Strides| Layout {
            shape: target.into(),
            strides,
            offset: self.offset,
        };
        if shape.is_empty() {
            return Some(fresh(SmallVec::from_elem(1, target.len())));
        }
        if self.numel() == 0 {
            if same_shape(shape, target) {
                return Some(self.clone());
            }
            return Some(fresh(contiguous_strides(target)));
        }
        let mut new_strides: Strides = SmallVec::from_elem(0, target.len());
        let mut view_d = target.len() as isize - 1;
        let mut chunk_stride = *strides.last().expect("not 0-d");
        let (mut tensor_numel, mut view_numel) = (1usize, 1usize);
        for d in (0..shape.len()).rev() {
            tensor_numel *= shape[d];
            // the end of a run of dimensions that merge into one contiguous chunk
            let chunk_ends = d == 0
                || (shape[d - 1] != 1 && strides[d - 1] != tensor_numel as isize * chunk_stride);
            if chunk_ends {
                while view_d >= 0 && (view_numel < tensor_numel || target[view_d as usize] == 1) {
                    new_strides[view_d as usize] = view_numel as isize * chunk_stride;
                    view_numel *= target[view_d as usize];
                    view_d -= 1;
                }
                if view_numel != tensor_numel {
                    return None;
                }
                if d > 0 {
                    chunk_stride = strides[d - 1];
                    tensor_numel = 1;
                    view_numel = 1;
                }
            }
        }
        (view_d == -1).then(|| fresh(new_strides))
    }

    /// The strides PyTorch's `preserve_format` gives a new tensor shaped as this layout: this
    /// layout's own when it is dense in some order, else dense in its stride order; `None`
    /// for row-major (Note [Elementwise output layout]).
    pub fn preserved_strides(&self) -> Option<Strides> {
        if self.dense_extent().is_some() {
            // exactly these strides, even where the row-major ones would also pass as
            // contiguous (a single channel laid out channels-last), as PyTorch's `empty_like`
            let row_major = Layout::contiguous(&self.shape).strides;
            return (self.strides != row_major).then(|| self.strides.clone());
        }
        if self.is_contiguous() {
            return None;
        }
        elementwise_strides(&self.shape, &[self])
    }

    /// This layout seen with the shape `target` (NumPy broadcasting: stride 0 on new or size-1 dims).
    pub fn broadcast_to(&self, target: &[usize]) -> Layout {
        let extra = target.len() - self.ndim();
        let mut strides: Strides = SmallVec::from_elem(0, target.len());
        for d in 0..self.ndim() {
            if self.shape[d] == target[d + extra] {
                strides[d + extra] = self.strides[d];
            }
        }
        Layout {
            shape: target.into(),
            strides,
            offset: self.offset,
        }
    }
}

/// The strides PyTorch's TensorIterator gives the output of an elementwise op of `shape`
/// computed from `operands` (each already broadcast to `shape`), when they are not row-major;
/// `None` when the output is row-major (or empty).
///
/// Note [Elementwise output layout]: PyTorch does not make every result row-major. Its
/// iterator orders the dimensions by the operands' strides (the first operand whose strides
/// tell two dimensions apart decides; broadcast dimensions, stride 0, tell nothing; equal
/// strides put the smaller dimension inside), then lays the output out densely in that order,
/// so `x.t().exp()` is again column-major and its `.contiguous()` is a copy, not an alias.
/// A program that writes into such a copy must not see the original change, so ferrograd
/// follows the same rule in its elementwise kernels (`cpu::kernels::map`, `zip`, ...).
pub fn elementwise_strides(shape: &[usize], operands: &[&Layout]) -> Option<Strides> {
    let n = shape.len();
    if n < 2 || shape.contains(&0) {
        return None;
    }
    // 1 when `d0` belongs outside `d1`, -1 inside, 0 when no operand tells
    let order = |d0: usize, d1: usize| -> i8 {
        for l in operands {
            let (s0, s1) = (l.strides[d0], l.strides[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 != s1 {
                return if s0 < s1 { -1 } else { 1 };
            }
            if shape[d0] > shape[d1] {
                return 1;
            }
        }
        0
    };
    // the dimensions fastest first, by PyTorch's insertion sort that tolerates ties
    let mut perm: Dims = (0..n).rev().collect();
    for i in 1..n {
        let mut d1 = i;
        for d0 in (0..i).rev() {
            match order(perm[d0], perm[d1]) {
                1 => {
                    perm.swap(d0, d1);
                    d1 = d0;
                }
                -1 => break,
                _ => {}
            }
        }
    }
    if perm.iter().enumerate().all(|(i, &d)| d == n - 1 - i) {
        return None;
    }
    let mut strides: Strides = SmallVec::from_elem(0, n);
    let mut step = 1isize;
    for &d in &perm {
        strides[d] = step;
        step *= shape[d] as isize;
    }
    Some(strides)
}

/// Row-major strides of `shape`.
pub fn contiguous_strides(shape: &[usize]) -> Strides {
    let mut strides: Strides = SmallVec::from_elem(1, shape.len());
    let mut acc = 1isize;
    for d in (0..shape.len()).rev() {
        strides[d] = acc;
        acc *= shape[d].max(1) as isize;
    }
    strides
}

/// `a == b` for two shapes, as an inline loop: a slice `==` calls `memcmp`, which costs more
/// than comparing the few sizes a shape has (every op compares shapes).
#[inline]
pub fn same_shape(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The broadcast shape of `a` and `b`, or PyTorch's error naming both sizes and the dimension.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Dims> {
    if same_shape(a, b) {
        return Ok(SmallVec::from_slice(a));
    }
    let n = a.len().max(b.len());
    let mut out: Dims = SmallVec::from_elem(1, n);
    for i in 0..n {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return Err(Error::runtime(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i} \
                 (shapes {} and {})",
                fmt_shape(a),
                fmt_shape(b)
            )));
        };
    }
    Ok(out)
}

/// True when a tensor of shape `from` can be expanded to `to`.
pub fn is_expandable_to(from: &[usize], to: &[usize]) -> bool {
    if from.len() > to.len() {
        return false;
    }
    let extra = to.len() - from.len();
    from.iter()
        .enumerate()
        .all(|(d, &s)| s == 1 || s == to[d + extra])
}

/// Formats a shape as PyTorch does in messages: `[2, 3]`.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// Resolves a possibly negative dimension index against `ndim` dimensions.
pub fn normalize_dim(dim: isize, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as isize;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(Error::index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        )));
    }
    Ok(d as usize)
}

/// Copies the elements described by `layout` out of `data`, in row-major order: the two
/// innermost dimensions a matrix at a time (in tiles when that is a transpose), the matrices
/// where the outer dimensions put them.
pub(crate) fn gather<T: Copy>(data: &[T], layout: &Layout) -> Vec<T> {
    if let Some(range) = layout.contiguous_range() {
        return data[range].to_vec();
    }
    let n = layout.numel();
    if n == 0 {
        return Vec::new();
    }
    if layout.strides.iter().all(|&s| s == 0) {
        return vec![data[layout.offset]; n];
    }
    let nd = layout.ndim();
    let (shape, strides) = (&layout.shape, &layout.strides);
    let (dims, steps) = if nd >= 2 {
        (
            (shape[nd - 2], shape[nd - 1]),
            (strides[nd - 2], strides[nd - 1]),
        )
    } else {
        ((1, shape[0]), (0, strides[0]))
    };
    // the matrices' first elements: the layout of the outer dimensions
    let outer = nd.saturating_sub(2);
    let bases = Layout {
        shape: shape[..outer].into(),
        strides: strides[..outer].into(),
        offset: layout.offset,
    };
    let mut out = Vec::with_capacity(n);
    let mut blocks = out.spare_capacity_mut()[..n].chunks_exact_mut(dims.0 * dims.1);
    bases.for_each_offset(|base| {
        if let Some(block) = blocks.next() {
            copy_matrix(data, base as isize, dims, steps, block);
        }
    });
    // SAFETY: every block, so all n elements, was written by `copy_matrix`
    unsafe { out.set_len(n) };
    out
}

/// Writes the `rows × cols` matrix at `data[base + i·rs + j·cs]` row-major into `out`. A
/// transpose (`cs` the larger stride) goes in 32×32 tiles, so that both the reads and the
/// writes stay within a few cache lines.
fn copy_matrix<T: Copy>(
    data: &[T],
    base: isize,
    (rows, cols): (usize, usize),
    (rs, cs): (isize, isize),
    out: &mut [std::mem::MaybeUninit<T>],
) {
    const TILE: usize = 32;
    let at = |i: usize, j: usize| data[(base + i as isize * rs + j as isize * cs) as usize];
    if cs == 1 {
        for (i, row) in out.chunks_exact_mut(cols).enumerate() {
            let start = (base + i as isize * rs) as usize;
            for (o, &v) in row.iter_mut().zip(&data[start..start + cols]) {
                o.write(v);
            }
        }
    } else if rows < 2 || cols < 2 || cs.unsigned_abs() <= rs.unsigned_abs() {
        for i in 0..rows {
            for j in 0..cols {
                out[i * cols + j].write(at(i, j));
            }
        }
    } else {
        for i0 in (0..rows).step_by(TILE) {
            for j0 in (0..cols).step_by(TILE) {
                for i in i0..(i0 + TILE).min(rows) {
                    for j in j0..(j0 + TILE).min(cols) {
                        out[i * cols + j].write(at(i, j));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_and_strides() {
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap().as_slice(), &[3, 4]);
        let err = broadcast_shapes(&[3], &[2]).unwrap_err();
        assert!(err
            .message
            .contains("must match the size of tensor b (2) at non-singleton dimension 0"));
        assert_eq!(contiguous_strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
        let l = Layout::contiguous(&[3]).broadcast_to(&[2, 3]);
        let mut seen = vec![];
        l.for_each_offset(|p| seen.push(p));
        assert_eq!(seen, vec![0, 1, 2, 0, 1, 2]);
    }

    #[test]
    fn transposed_offsets() {
        let l = Layout {
            shape: smallvec::smallvec![3, 2],
            strides: smallvec::smallvec![1, 3],
            offset: 0,
        };
        assert!(!l.is_contiguous());
        let mut seen = vec![];
        l.for_each_offset(|p| seen.push(p));
        assert_eq!(seen, vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(normalize_dim(-1, 2).unwrap(), 1);
        assert!(normalize_dim(2, 2).is_err());
    }
}
