//! Matrix products: `mm`, `mv`, `dot`, and `matmul` dispatching on dimensions.

use crate::autograd::{is_recording, record, Save};
use crate::core::buffer::BufferElement;
use crate::core::dispatch::{intercept1, Call};
use crate::core::error::{Error, Result};
use crate::core::layout::Layout;
use crate::core::tensor::Tensor;
use crate::with_num;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, LinalgScalar, ShapeBuilder};

/// Below this many multiply-adds a product runs on the calling thread: a second thread's wake
/// and packing cost more than it saves there (measured on 2 cores: the 16- to 80-row products
/// of sampling from a small GPT ran slower on 2 threads than on 1 below 1 << 22; 1 << 23 made
/// the ResNet's convolutions slower).
const PARALLEL_GEMM_WORK: usize = 1 << 22;

/// [`PARALLEL_GEMM_WORK`] for one float32 product through [`crate::cpu::sgemm`], whose
/// helpers are already watching for work (Note [Helpers that spin before they sleep] in
/// `cpu::team`): sampling from a small GPT (products of 16-64 rows, 0.26-3 M multiply-adds)
/// ran 1.2-1.4x faster at two threads with this than with `PARALLEL_GEMM_WORK`.
const PARALLEL_SGEMM_WORK: usize = 1 << 18;

/// `a (m×k) @ b (k×n)` for 2-D layouts given as strides (transposes cost nothing). Floats go
/// through the `gemm` crate's SIMD kernels (rayon-parallel for large products); integers
/// through ndarray.
fn gemm<T: BufferElement + LinalgScalar>(
    a: &Tensor,
    la: &Layout,
    b: &Tensor,
    lb: &Layout,
) -> Vec<T> {
    let (m, k, n) = (la.shape[0], la.shape[1], lb.shape[1]);
    if m == 0 || n == 0 || k == 0 {
        return vec![T::zero(); m * n];
    }
    if T::DTYPE == crate::DType::Float32
        && crate::cpu::sgemm::available()
        && crate::cpu::sgemm::suits(m, n, k)
    {
        return sgemm_f32(a, la, b, lb);
    }
    // every element is written below
    let mut out = crate::core::pool::buffer::<T>(m * n);
    a.read(|da: &[T], _| {
        b.read(|db: &[T], _| {
            if T::DTYPE.is_floating_point() {
                let big = m * n * k >= PARALLEL_GEMM_WORK;
                let mut run = |threads: usize| {
                    let parallelism = if threads > 1 {
                        gemm::Parallelism::Rayon(threads)
                    } else {
                        gemm::Parallelism::None
                    };
                    // SAFETY: both layouts address only elements inside their buffers (checked when
                    // the tensors were built), `out` has m·n elements written with row stride n, and
                    // the read guards outlive the call.
                    unsafe {
                        gemm::gemm(
                            m,
                            n,
                            k,
                            out.as_mut_ptr(),
                            1,
                            n as isize,
                            false,
                            da.as_ptr().add(la.offset),
                            la.strides[1],
                            la.strides[0],
                            db.as_ptr().add(lb.offset),
                            lb.strides[1],
                            lb.strides[0],
                            T::zero(),
                            T::one(),
                            false,
                            false,
                            false,
                            parallelism,
                        );
                    }
                };
                if big {
                    crate::cpu::parallel::install(run);
                } else {
                    run(1);
                }
                crate::cpu::gemm::signed_zeros_as_blas((m, n, k), T::zero(), &mut out);
                return;
            }
            let view = |data: &[T], l: &Layout| {
                let strides = (l.strides[0] as usize, l.strides[1] as usize);
                // SAFETY: as above; integer layouts here have non-negative strides.
                unsafe {
                    ArrayView2::from_shape_ptr(
                        (l.shape[0], l.shape[1]).strides(strides),
                        data.as_ptr().add(l.offset),
                    )
                }
            };
            let (av, bv) = (view(da, la), view(db, lb));
            let mut cv = ArrayViewMut2::from_shape((m, n), &mut out).expect("m*n elements");
            general_mat_mul(T::one(), &av, &bv, T::zero(), &mut cv);
        })
    });
    out
}

/// [`gemm`] for float32 on CPUs with AVX-512 or AVX2, through [`crate::cpu::sgemm`], into uninitialized memory.
fn sgemm_f32<T: BufferElement>(a: &Tensor, la: &Layout, b: &Tensor, lb: &Layout) -> Vec<T> {
    assert_eq!(T::DTYPE, crate::DType::Float32, "sgemm_f32 is for float32");
    let (m, k, n) = (la.shape[0], la.shape[1], lb.shape[1]);
    let mut out = crate::core::pool::with_capacity::<f32>(m * n);
    let threads = if m * n * k >= PARALLEL_SGEMM_WORK {
        crate::cpu::parallel::num_threads()
    } else {
        1
    };
    sgemm_batch(
        a,
        la,
        b,
        lb,
        1,
        &mut out.spare_capacity_mut()[..m * n],
        threads,
    );
    // SAFETY: sgemm_batch wrote all m·n elements
    unsafe { out.set_len(m * n) };
    let mut out = std::mem::ManuallyDrop::new(out);
    // SAFETY: T is f32 (asserted above): the same buffer, length and capacity
    unsafe { Vec::from_raw_parts(out.as_mut_ptr().cast::<T>(), out.len(), out.capacity()) }
}

/// `count` float32 products `a[i] @ b[i]` into `c` one after another (`c[i·m·n ..]`), through
/// [`crate::cpu::sgemm`]: `la`/`lb` are 3-D layouts (batch, rows, columns) when `count > 1`,
/// 2-D otherwise. Products below [`PARALLEL_GEMM_WORK`] run one per thread, each on one
/// thread, so that a batch of small ones (attention's heads) shares the cores as PyTorch's
/// does; larger ones run one after another, each split over `threads`. Either way a product
/// is computed the same way at any thread count.
fn sgemm_batch(
    a: &Tensor,
    la: &Layout,
    b: &Tensor,
    lb: &Layout,
    count: usize,
    c: &mut [std::mem::MaybeUninit<f32>],
    threads: usize,
) {
    let d = la.shape.len() - 2;
    let (m, k, n) = (la.shape[d], la.shape[d + 1], lb.shape[d + 1]);
    a.read(|da: &[f32], _| {
        b.read(|db: &[f32], _| {
            let mat = |data: &[f32], l: &Layout, i: usize| {
                let batch = if d == 1 { l.strides[0] * i as isize } else { 0 };
                crate::cpu::sgemm::MatRef::strided(
                    // SAFETY: the layout addresses only elements inside the buffer
                    unsafe { data.as_ptr().offset(l.offset as isize + batch) },
                    l.strides[d],
                    l.strides[d + 1],
                )
            };
            let one = |i: usize, c: &mut [std::mem::MaybeUninit<f32>], threads: usize| {
                // SAFETY: the kernel is available (the caller checked); both layouts address
                // only elements inside their buffers, held by the read guards for the call
                unsafe {
                    crate::cpu::sgemm::sgemm(m, n, k, mat(da, la, i), mat(db, lb, i), c, threads)
                }
            };
            if count > 1 && threads > 1 && m * n * k < PARALLEL_GEMM_WORK {
                crate::cpu::parallel::for_each_block(c, m * n, |at, c| one(at / (m * n), c, 1));
            } else {
                for (i, c) in c.chunks_mut(m * n).enumerate() {
                    one(i, c, threads);
                }
            }
        })
    });
}

fn same_dtype(op: &str, a: &Tensor, b: &Tensor) -> Result<()> {
    if a.dtype() != b.dtype() {
        return Err(Error::runtime(format!(
            "{op}: expected both operands to have the same dtype, but got: {} != {}",
            a.dtype().name(),
            b.dtype().name()
        )));
    }
    Ok(())
}

/// True for a 2-D layout stored column by column (the transpose of a contiguous matrix).
pub(crate) fn is_column_major(l: &Layout) -> bool {
    l.shape.len() == 2 && l.shape[1] > 1 && l.strides[0] == 1 && l.strides[1] == l.shape[0] as isize
}

fn as_column(l: &Layout) -> Layout {
    Layout {
        shape: smallvec::smallvec![l.shape[0], 1],
        strides: smallvec::smallvec![l.strides[0], 1],
        offset: l.offset,
    }
}

impl Tensor {
    /// Matrix product of 2-D tensors; gradients `g @ bᵀ` and `aᵀ @ g`.
    pub fn mm(&self, other: &Tensor) -> Result<Tensor> {
        if self.dim() != 2 || other.dim() != 2 {
            return Err(Error::runtime(format!(
                "mm: expected 2-D tensors, got {}-D and {}-D",
                self.dim(),
                other.dim()
            )));
        }
        let (m, k, k2, n) = (
            self.shape()[0],
            self.shape()[1],
            other.shape()[0],
            other.shape()[1],
        );
        if k != k2 {
            return Err(Error::runtime(format!(
                "mm: mat1 and mat2 shapes cannot be multiplied ({m}x{k} and {k2}x{n})"
            )));
        }
        same_dtype("mm", self, other)?;
        let out = match intercept1(&[self, other], || {
            Call::new("mm.default", vec![self.into(), other.into()])
        }) {
            Some(dispatched) => dispatched?,
            None => {
                with_num!(self.dtype(), T => Tensor::from_vec(gemm::<T>(self, self.layout(), other, other.layout()), &[m, n])?)
            }
        };
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        // each operand is saved only for the other's gradient, as PyTorch (an in-place write
        // into an operand whose partner needs no gradient is then not an error)
        let (a_column, b_column) = (
            is_column_major(self.layout()),
            is_column_major(other.layout()),
        );
        Ok(record(
            out,
            "MmBackward0",
            &[self, other],
            &saved_for_partner(self, other),
            move |ctx| {
                let (ga, gb) = mm_backward(
                    ctx.grad(0),
                    (ctx.needs_input_grad(0), a_column),
                    (ctx.needs_input_grad(1), b_column),
                    ctx.saved_opt(0),
                    ctx.saved_opt(1),
                )?;
                Ok(vec![ga, gb])
            },
        ))
    }

    /// Matrix-vector product; gradients `g ⊗ v` and `Aᵀ g`.
    pub fn mv(&self, vec: &Tensor) -> Result<Tensor> {
        if self.dim() != 2 || vec.dim() != 1 {
            return Err(Error::runtime(format!(
                "vector + matrix @ vector expected, got {}, {}, {}",
                1,
                self.dim(),
                vec.dim()
            )));
        }
        let (m, k) = (self.shape()[0], self.shape()[1]);
        if vec.shape()[0] != k {
            return Err(Error::runtime(format!(
                "size mismatch, got input ({m}), mat ({m}x{k}), vec ({})",
                vec.shape()[0]
            )));
        }
        same_dtype("mv", self, vec)?;
        let dispatched = intercept1(&[self, vec], || {
            Call::new("mv.default", vec![self.into(), vec.into()])
        });
        let out = match dispatched.map_or_else(|| gemv_fast(self, vec), |r| r.map(Some))? {
            Some(out) => out,
            None => {
                let col = as_column(vec.layout());
                with_num!(self.dtype(), T => Tensor::from_vec(gemm::<T>(self, self.layout(), vec, &col), &[m])?)
            }
        };
        if !is_recording(&[self, vec]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "MvBackward0",
            &[self, vec],
            &saved_for_partner(self, vec),
            |ctx| {
                let g = ctx.grad(0);
                let ga = if ctx.needs_input_grad(0) {
                    Some(g.outer(ctx.saved(1))?)
                } else {
                    None
                };
                let gv = if ctx.needs_input_grad(1) {
                    Some(ctx.saved(0).t()?.mv(g)?)
                } else {
                    None
                };
                Ok(vec![ga, gv])
            },
        ))
    }

    /// Inner product of two 1-D tensors; gradients `g·b` and `g·a`.
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        if self.dim() != 1 || other.dim() != 1 {
            return Err(Error::runtime(format!(
                "1D tensors expected, but got {}D and {}D tensors",
                self.dim(),
                other.dim()
            )));
        }
        if self.numel() != other.numel() {
            return Err(Error::runtime(format!(
                "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
                self.numel(), other.numel(), self.numel(), other.numel()
            )));
        }
        same_dtype("dot", self, other)?;
        let row = Layout {
            shape: smallvec::smallvec![1, self.numel()],
            strides: smallvec::smallvec![0, self.layout().strides[0]],
            offset: self.layout().offset,
        };
        let col = as_column(other.layout());
        let out = match intercept1(&[self, other], || {
            Call::new("dot.default", vec![self.into(), other.into()])
        }) {
            Some(dispatched) => dispatched?,
            None => {
                with_num!(self.dtype(), T => Tensor::from_vec(gemm::<T>(self, &row, other, &col), &[])?)
            }
        };
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "DotBackward0",
            &[self, other],
            &saved_for_partner(self, other),
            |ctx| {
                let g = ctx.grad(0);
                let ga = if ctx.needs_input_grad(0) {
                    Some(ctx.saved(1).mul(g)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    Some(ctx.saved(0).mul(g)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            },
        ))
    }

    /// Outer product of two 1-D tensors.
    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        for (what, t) in [("self", self), ("vec2", other)] {
            if t.dim() != 1 {
                return Err(Error::runtime(format!(
                    "outer: Expected 1-D argument {what}, but got {}-D",
                    t.dim()
                )));
            }
        }
        // as PyTorch: a column view times the row, broadcast
        self.reshape(&[-1, 1])?.mul(other)
    }

    /// Batched matrix product of 3-D tensors `(b, n, k) @ (b, k, m)`.
    pub fn bmm(&self, other: &Tensor) -> Result<Tensor> {
        if self.dim() != 3 || other.dim() != 3 {
            return Err(Error::runtime(format!(
                "batch1 must be a 3D tensor and batch2 must be a 3D tensor (got {}-D and {}-D)",
                self.dim(),
                other.dim()
            )));
        }
        let (b, n, k) = (self.shape()[0], self.shape()[1], self.shape()[2]);
        let (b2, k2, m) = (other.shape()[0], other.shape()[1], other.shape()[2]);
        if b != b2 || k != k2 {
            return Err(Error::runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{b2}, {k2}]."
            )));
        }
        same_dtype("bmm", self, other)?;
        let dispatched = intercept1(&[self, other], || {
            Call::new("bmm.default", vec![self.into(), other.into()])
        });
        let out = if let Some(dispatched) = dispatched {
            dispatched?
        } else {
            let float32 = self.dtype() == crate::DType::Float32
                && crate::cpu::sgemm::available()
                && crate::cpu::sgemm::suits(n, m, k);
            with_num!(self.dtype(), T => {
                let mut data: Vec<T> = Vec::with_capacity(b * n * m);
                if float32 && b * n * m > 0 && k > 0 {
                    let c = &mut data.spare_capacity_mut()[..b * n * m];
                    // SAFETY: T is f32 (checked above), so MaybeUninit<T> is MaybeUninit<f32>
                    let c = unsafe {
                        std::slice::from_raw_parts_mut(c.as_mut_ptr().cast(), b * n * m)
                    };
                    let threads = crate::cpu::parallel::num_threads();
                    sgemm_batch(self, self.layout(), other, other.layout(), b, c, threads);
                    // SAFETY: sgemm_batch wrote all b·n·m elements
                    unsafe { data.set_len(b * n * m) };
                } else {
                    for i in 0..b {
                        let la = self.select(0, i as isize)?.layout().clone();
                        let lb = other.select(0, i as isize)?.layout().clone();
                        data.extend(gemm::<T>(self, &la, other, &lb));
                    }
                }
                if k == 1 {
                    // PyTorch's batched product starts every sum from +0.0, outer products too
                    // (mm keeps an outer product's -0.0 terms, see `signed_zeros_as_blas`)
                    data.iter_mut().for_each(|v| *v += <T as num_traits::Zero>::zero());
                }
                Tensor::from_vec(data, &[b, n, m])?
            })
        };
        if !is_recording(&[self, other]) {
            return Ok(out);
        }
        Ok(record(
            out,
            "BmmBackward0",
            &[self, other],
            &saved_for_partner(self, other),
            |ctx| {
                let g = ctx.grad(0);
                let ga = if ctx.needs_input_grad(0) {
                    Some(g.bmm(&ctx.saved(1).transpose(1, 2)?)?)
                } else {
                    None
                };
                let gb = if ctx.needs_input_grad(1) {
                    Some(ctx.saved(0).transpose(1, 2)?.bmm(g)?)
                } else {
                    None
                };
                Ok(vec![ga, gb])
            },
        ))
    }

    /// `@` with PyTorch's rules: dot, mv, mm, and batched products with broadcast batch dims
    /// (a 1-D operand gets a temporary dimension that is removed from the result).
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        match (self.dim(), other.dim()) {
            (0, _) | (_, 0) => Err(Error::runtime(format!(
                "both arguments to matmul need to be at least 1D, but they are {}D and {}D",
                self.dim(),
                other.dim()
            ))),
            (1, 1) => self.dot(other),
            (2, 1) => self.mv(other),
            (1, 2) => squeeze_fresh(&self.unsqueeze(0)?.mm(other)?, 0),
            (2, 2) => self.mm(other),
            _ if should_fold(self, other) => self.folded_matmul(other),
            // a vector operand gets a temporary dimension, absent from the result's shape
            (_, 1) => self.batched_matmul(&other.unsqueeze(1)?, Some(1)),
            (1, _) => self.unsqueeze(0)?.batched_matmul(other, Some(2)),
            _ => self.batched_matmul(other, None),
        }
    }

    /// `@` with the larger operand's batch folded into its rows, as PyTorch: one `mm` (or `mv`)
    /// instead of a batched product; a 2-D (or 1-D) `self` times a batch is computed transposed
    /// (`(otherᵀ @ selfᵀ)ᵀ`, made contiguous).
    fn folded_matmul(&self, other: &Tensor) -> Result<Tensor> {
        let transpose = other.dim() > self.dim();
        let (t1, t2) = if transpose {
            let t2 = if self.dim() == 2 {
                self.t()?
            } else {
                self.clone()
            };
            (other.transpose(-2, -1)?, t2)
        } else {
            (self.clone(), other.clone())
        };
        let sizes = t1.shape();
        let mut out_shape = sizes[..sizes.len() - 1].to_vec();
        let rows: usize = out_shape.iter().product();
        let depth = sizes[sizes.len() - 1];
        let folded = t1.reshape(&[rows as isize, depth as isize])?;
        if t2.dim() == 1 {
            return folded.mv(&t2)?.unsafe_view(&out_shape);
        }
        out_shape.push(t2.shape()[1]);
        let out = folded.mm(&t2)?.unsafe_view(&out_shape)?;
        if transpose {
            out.transpose(-2, -1)?.contiguous()
        } else {
            Ok(out)
        }
    }

    /// `@` of operands of at least 2 dimensions, one of them at least 3, through one batched
    /// product; the result is seen (not as a view) without the dimension `drop` places from the
    /// end, a vector operand's temporary one.
    fn batched_matmul(&self, other: &Tensor, drop: Option<usize>) -> Result<Tensor> {
        let (sa, sb) = (self.shape(), other.shape());
        let (n, k) = (sa[sa.len() - 2], sa[sa.len() - 1]);
        let (k2, m) = (sb[sb.len() - 2], sb[sb.len() - 1]);
        let batch =
            crate::core::layout::broadcast_shapes(&sa[..sa.len() - 2], &sb[..sb.len() - 2])?;
        let count: usize = batch.iter().product();
        if k != k2 {
            // PyTorch's message: the operands as the batched product (`bmm`) sees them
            return Err(Error::runtime(format!(
                "Expected size for first two dimensions of batch2 tensor to be: [{count}, {k}] but got: [{count}, {k2}]."
            )));
        }
        let dims = |tail: [usize; 2]| -> Vec<isize> {
            batch.iter().chain(&tail).map(|&s| s as isize).collect()
        };
        let a = self
            .expand(&dims([n, k]))?
            .reshape(&[count as isize, n as isize, k as isize])?;
        let b = other
            .expand(&dims([k, m]))?
            .reshape(&[count as isize, k as isize, m as isize])?;
        let mut shape: Vec<usize> = batch.iter().chain(&[n, m]).copied().collect();
        if let Some(from_end) = drop {
            shape.remove(shape.len() - from_end);
        }
        a.bmm(&b)?.unsafe_view(&shape)
    }
}

/// Whether `a @ b` folds the larger operand's batch into a matrix (PyTorch's `should_fold`):
/// one operand at least 3-D and the other 1-D or 2-D, and either the smaller one requires grad
/// (its gradient is then one product, not a batch summed) or, for a larger `a`, its leading
/// dimensions can be merged without a copy.
fn should_fold(a: &Tensor, b: &Tensor) -> bool {
    let a_larger = a.dim() >= b.dim();
    let (larger, smaller) = if a_larger { (a, b) } else { (b, a) };
    if !(larger.dim() >= 3 && smaller.dim() <= 2) {
        return false;
    }
    if smaller.requires_grad() {
        return true;
    }
    // a 2-D `a` would need the product transposed back and copied
    if a.dim() == 2 || larger.numel() == 0 {
        return a.dim() != 2;
    }
    // the larger operand as the folded product reads it (transposed when it is `b`)
    let (mut shape, mut strides) = (larger.shape().to_vec(), larger.layout().strides.to_vec());
    if !a_larger {
        let n = shape.len();
        shape.swap(n - 2, n - 1);
        strides.swap(n - 2, n - 1);
    }
    (0..shape.len() - 2).all(|i| strides[i] == strides[i + 1] * shape[i + 1] as isize)
}

/// PyTorch's `t.squeeze_(dim)` on a fresh product (`SqueezeBackward4`): the result owns the
/// product's storage and is not a view, so an in-place op on it rewrites its own history.
fn squeeze_fresh(t: &Tensor, dim: usize) -> Result<Tensor> {
    let out = t.detach().squeeze_dim(dim as isize)?.unviewed();
    if !is_recording(&[t]) {
        return Ok(out);
    }
    Ok(record(out, "SqueezeBackward4", &[t], &[], move |ctx| {
        Ok(vec![Some(ctx.grad(0).unsqueeze(dim as isize)?)])
    }))
}

/// What a product of `a` and `b` saves: each operand only when the other one needs a gradient
/// (the only formula that reads it), as PyTorch.
fn saved_for_partner<'a>(a: &'a Tensor, b: &'a Tensor) -> [Save<'a>; 2] {
    [
        Save::when(a, b.requires_grad()),
        Save::when(b, a.requires_grad()),
    ]
}

/// `a @ v` for a floating row-major (or column-major: a transposed view) matrix and a contiguous
/// vector, through the vectorized matrix-vector kernels; `None` for other layouts.
fn gemv_fast(a: &Tensor, v: &Tensor) -> Result<Option<Tensor>> {
    let (m, k) = (a.shape()[0], a.shape()[1]);
    let (Some(rv), true) = (v.layout().contiguous_range(), a.dtype().is_floating_point()) else {
        return Ok(None);
    };
    let row_major = a.layout().contiguous_range();
    let column_major =
        is_column_major(a.layout()).then(|| a.layout().offset..a.layout().offset + m * k);
    macro_rules! run {
        ($T:ty) => {{
            let wa = a.storage().read();
            let wv = v.storage().read();
            let (data, x) = (wa.as_slice::<$T>(), &wv.as_slice::<$T>()[rv]);
            let mut y = vec![0.0 as $T; m];
            match (row_major, column_major) {
                (Some(r), _) => crate::cpu::kernels::gemv(&data[r], x, &mut y),
                (None, Some(r)) => crate::cpu::kernels::gemv_t(&data[r], x, &mut y),
                _ => return Ok(None),
            }
            y
        }};
    }
    let out = match a.dtype() {
        crate::DType::Float32 => Tensor::from_vec(run!(f32), &[m])?,
        _ => Tensor::from_vec(run!(f64), &[m])?,
    };
    Ok(Some(out))
}

/// The gradients of `a @ b` for the incoming `g` (`g bᵀ` and `aᵀ g`), each where `need.0`,
/// and each produced in its input's memory order (`need.1`: the input is column-major), as
/// PyTorch does: the gradient of a transposed weight (`x @ w.t()`) is then contiguous once it
/// reaches `w` and becomes `w.grad` without a copy.
pub(crate) fn mm_backward(
    g: &Tensor,
    a_need: (bool, bool),
    b_need: (bool, bool),
    a: Option<&Tensor>,
    b: Option<&Tensor>,
) -> Result<(Option<Tensor>, Option<Tensor>)> {
    let saved = |t: Option<&Tensor>| {
        t.cloned()
            .ok_or_else(|| Error::runtime("mm's backward needs the partner it saved"))
    };
    let ga = match a_need {
        (false, _) => None,
        (true, true) => Some(saved(b)?.mm(&g.t()?)?.t()?),
        (true, false) => Some(g.mm(&saved(b)?.t()?)?),
    };
    let gb = match b_need {
        (false, _) => None,
        (true, true) => Some(g.t()?.mm(&saved(a)?)?.t()?),
        (true, false) => Some(saved(a)?.t()?.mm(g)?),
    };
    Ok((ga, gb))
}
