//! `repr` as PyTorch prints it: `tensor([27., 12., 75.], grad_fn=<PowBackward0>)`.
//!
//! Follows torch/_tensor_str.py: one formatter for all elements (integer, fixed with 4 decimals,
//! or scientific), right-aligned to a common width, rows wrapped at 80 columns, and tensors of more
//! than 1000 elements summarised with `...`.

use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use std::fmt;

/// `torch.set_printoptions`: digits after the point, elements before summarising, items kept
/// at each edge of a summary, characters per line, and scientific notation forced on or off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PrintOptions {
    /// Digits after the decimal point (4).
    pub precision: usize,
    /// Tensors with more elements than this are summarised with `...` (1000).
    pub threshold: usize,
    /// Items shown at each end of a summarised dimension (3).
    pub edgeitems: usize,
    /// Characters per line before wrapping (80).
    pub linewidth: usize,
    /// `Some(true)`/`Some(false)` forces scientific notation on/off; `None` chooses.
    pub sci_mode: Option<bool>,
}

impl PrintOptions {
    /// PyTorch's defaults.
    pub const DEFAULT: PrintOptions = PrintOptions {
        precision: 4,
        threshold: 1000,
        edgeitems: 3,
        linewidth: 80,
        sci_mode: None,
    };
}

static OPTIONS: parking_lot::RwLock<PrintOptions> = parking_lot::RwLock::new(PrintOptions::DEFAULT);

/// The print options in effect.
pub fn print_options() -> PrintOptions {
    *OPTIONS.read()
}

/// Replaces the print options.
pub fn set_print_options(options: PrintOptions) {
    *OPTIONS.write() = options;
}

/// How every element of one tensor is printed.
struct Formatter {
    precision: usize,
    boolean: bool,
    floating: bool,
    int_mode: bool,
    sci_mode: bool,
    width: usize,
}

/// Python's `'{:.{p}e}'`: mantissa, `e`, sign, at least two exponent digits.
fn sci(v: f64, precision: usize) -> String {
    if !v.is_finite() {
        return non_finite(v);
    }
    let s = format!("{:.*e}", precision, v);
    let (mantissa, exp) = s.split_once('e').expect("exponent present");
    let exp: i32 = exp.parse().expect("integer exponent");
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

fn non_finite(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

impl Formatter {
    fn new(values: &[f64], dtype: DType) -> Formatter {
        let boolean = dtype == DType::Bool;
        let options = print_options();
        let mut f = Formatter {
            precision: options.precision,
            boolean,
            floating: dtype.is_floating_point(),
            int_mode: true,
            sci_mode: false,
            width: 1,
        };
        if !f.floating {
            f.width = values.iter().map(|v| f.plain(*v).len()).max().unwrap_or(1);
            return f;
        }
        let finite: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        // as PyTorch's _Formatter: only the non-zero finite values set the width (zeros,
        // infinities and NaN are padded to it, never widen it)
        if finite.is_empty() {
            return f;
        }
        let abs: Vec<f64> = finite.iter().map(|v| v.abs()).collect();
        let min = abs.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = abs.iter().cloned().fold(0.0, f64::max);
        f.int_mode = finite.iter().all(|v| v.ceil() == *v);
        let p = f.precision;
        let widths: Vec<usize> = if f.int_mode {
            if options.sci_mode.unwrap_or(max / min > 1000.0 || max > 1e8) {
                f.sci_mode = true;
                finite.iter().map(|v| sci(*v, p).len()).collect()
            } else {
                finite.iter().map(|v| format!("{v:.0}").len() + 1).collect()
            }
        } else if options
            .sci_mode
            .unwrap_or(max / min > 1000.0 || max > 1e8 || min < 1e-4)
        {
            f.sci_mode = true;
            finite.iter().map(|v| sci(*v, p).len()).collect()
        } else {
            finite.iter().map(|v| format!("{v:.p$}").len()).collect()
        };
        f.width = f.width.max(widths.into_iter().max().unwrap_or(1));
        f
    }

    fn plain(&self, v: f64) -> String {
        if self.floating {
            if !v.is_finite() {
                non_finite(v)
            } else if self.sci_mode {
                sci(v, self.precision)
            } else if self.int_mode {
                format!("{v:.0}.")
            } else {
                format!("{v:.*}", self.precision)
            }
        } else if self.boolean {
            (if v != 0.0 { "True" } else { "False" }).into()
        } else {
            format!("{}", v as i64)
        }
    }

    fn format(&self, v: f64) -> String {
        let s = self.plain(v);
        format!("{s:>width$}", width = self.width)
    }
}

/// Nested-list body of the tensor (`[[1., 2.],\n        [3., 4.]]`) given its row-major values.
fn body(
    values: &[f64],
    shape: &[usize],
    f: &dyn Fn(f64) -> String,
    width: usize,
    indent: usize,
    summarize: bool,
) -> String {
    if shape.is_empty() {
        return f(values[0]);
    }
    let n = shape[0];
    let inner: usize = shape[1..].iter().product();
    let chunk = |i: usize| &values[i * inner..(i + 1) * inner];
    let edge = print_options().edgeitems;
    let picked: Vec<Option<usize>> = if summarize && n > 2 * edge {
        (0..edge)
            .map(Some)
            .chain([None])
            .chain((n - edge..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    };
    if shape.len() == 1 {
        let items: Vec<String> = picked
            .iter()
            .map(|i| i.map_or(" ...".to_string(), |i| f(values[i])))
            .collect();
        let line_width = print_options().linewidth;
        let per_line = ((line_width.saturating_sub(indent)) / (width + 2)).max(1);
        let lines: Vec<String> = items.chunks(per_line).map(|c| c.join(", ")).collect();
        return format!(
            "[{}]",
            lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
        );
    }
    let parts: Vec<String> = picked
        .iter()
        .map(|i| {
            i.map_or("...".to_string(), |i| {
                body(chunk(i), &shape[1..], f, width, indent + 1, summarize)
            })
        })
        .collect();
    let sep = format!(
        ",{}{}",
        "\n".repeat(shape.len() - 1),
        " ".repeat(indent + 1)
    );
    format!("[{}]", parts.join(&sep))
}

/// The values that decide the formatter: all of them, or only the printed edges when summarised.
fn visible_values(values: &[f64], shape: &[usize], summarize: bool) -> Vec<f64> {
    if !summarize || shape.is_empty() {
        return values.to_vec();
    }
    let n = shape[0];
    let inner: usize = shape[1..].iter().product();
    let edge = print_options().edgeitems;
    let rows: Vec<usize> = if n > 2 * edge {
        (0..edge).chain(n - edge..n).collect()
    } else {
        (0..n).collect()
    };
    rows.into_iter()
        .flat_map(|i| visible_values(&values[i * inner..(i + 1) * inner], &shape[1..], true))
        .collect()
}

/// Appends `suffixes` to `out` and closes it as PyTorch's `_add_suffixes` does: each after a
/// comma, on a new line indented by `indent` when the line would pass the print width (the
/// first one always when `force_newline`).
fn add_suffixes(
    mut out: String,
    suffixes: Vec<String>,
    indent: usize,
    force_newline: bool,
) -> String {
    let mut last_line = out.rsplit('\n').next().map_or(0, |l| l.len());
    let mut force = force_newline;
    for s in suffixes {
        if force || last_line + s.len() + 2 > print_options().linewidth {
            out.push_str(&format!(",\n{}{s}", " ".repeat(indent)));
            last_line = indent + s.len();
            force = false;
        } else {
            out.push_str(&format!(", {s}"));
            last_line += s.len() + 2;
        }
    }
    out.push(')');
    out
}

/// A shape as PyTorch prints a size tuple: `(2, 3)`, `(3,)`, `()`.
fn size_tuple(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

impl Tensor {
    /// PyTorch's `repr(tensor)`.
    pub fn repr(&self) -> String {
        if let Some(parts) = self.coo() {
            return self.sparse_repr(&parts);
        }
        if self.is_meta() {
            return self.meta_repr();
        }
        self.repr_as(false)
    }

    /// PyTorch's repr of a tensor on the meta device: no values, its size, dtype unless the
    /// default float, and autograd state.
    fn meta_repr(&self) -> String {
        let mut suffixes = vec![
            "device='meta'".to_string(),
            format!("size={}", size_tuple(self.shape())),
        ];
        if self.dtype() != crate::core::dtype::default_float() {
            suffixes.push(format!("dtype=torch.{}", self.dtype().name()));
        }
        if let Some(node) = self.grad_fn() {
            suffixes.push(format!("grad_fn=<{}>", node.name()));
        } else if self.requires_grad() {
            suffixes.push("requires_grad=True".into());
        }
        format!("tensor(..., {})", suffixes.join(", "))
    }

    /// PyTorch's repr of a sparse COO tensor: its indices and values, then its size, number of
    /// stored elements, dtype, layout and autograd state.
    fn sparse_repr(&self, parts: &crate::core::sparse::CooParts) -> String {
        let nested = |t: &Tensor, indent: usize| {
            t.repr_as(true)
                .replace('\n', &format!("\n{}", " ".repeat(indent)))
        };
        let text = format!(
            "tensor(indices={},\n       values={}",
            nested(&parts.indices, 15),
            nested(&parts.values, 14)
        );
        let mut suffixes = vec![
            format!("size={}", size_tuple(self.shape())),
            format!("nnz={}", parts.values.shape().first().copied().unwrap_or(0)),
        ];
        if !matches!(self.dtype(), DType::Float32 | DType::Int64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", self.dtype().name()));
        }
        suffixes.push("layout=torch.sparse_coo".into());
        if let Some(node) = self.grad_fn() {
            suffixes.push(format!("grad_fn=<{}>", node.name()));
        } else if self.requires_grad() {
            suffixes.push("requires_grad=True".into());
        }
        add_suffixes(text, suffixes, 7, true)
    }

    /// The repr, or with `inner` the part of it inside another tensor's repr (no dtype or
    /// autograd suffixes, as PyTorch prints a sparse tensor's indices and values).
    fn repr_as(&self, inner: bool) -> String {
        let prefix = "tensor(";
        let indent = prefix.len();
        let values = self.to_f64_vec();
        let shape = self.shape();
        let dtype = self.dtype();
        let summarize = values.len() > print_options().threshold;
        let mut suffixes: Vec<String> = Vec::new();
        let text = if values.is_empty() {
            if shape.len() != 1 {
                let dims: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
                let tuple = if dims.len() == 1 {
                    format!("({},)", dims[0])
                } else {
                    format!("({})", dims.join(", "))
                };
                suffixes.push(format!("size={tuple}"));
            }
            "[]".to_string()
        } else {
            let fmt = Formatter::new(&visible_values(&values, shape, summarize), dtype);
            body(
                &values,
                shape,
                &|v| fmt.format(v),
                fmt.width,
                indent,
                summarize,
            )
        };
        if !inner && !matches!(dtype, DType::Float32 | DType::Int64 | DType::Bool) {
            suffixes.push(format!("dtype=torch.{}", dtype.name()));
        }
        if !inner {
            if let Some(node) = self.grad_fn() {
                suffixes.push(format!("grad_fn=<{}>", node.name()));
            } else if self.requires_grad() {
                suffixes.push("requires_grad=True".into());
            }
        }
        add_suffixes(format!("{prefix}{text}"), suffixes, indent, false)
    }
}

impl fmt::Display for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.repr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: Vec<f32>, shape: &[usize]) -> Tensor {
        Tensor::from_vec(v, shape).unwrap()
    }

    #[test]
    fn matches_pytorch_reprs() {
        assert_eq!(
            t(vec![27.0, 12.0, 75.0], &[3]).repr(),
            "tensor([27., 12., 75.])"
        );
        assert_eq!(t(vec![0.1, 0.05], &[2]).repr(), "tensor([0.1000, 0.0500])");
        assert_eq!(
            t(vec![-0.25, 24.0], &[2]).repr(),
            "tensor([-0.2500, 24.0000])"
        );
        assert_eq!(t(vec![-8.248e-8], &[]).repr(), "tensor(-8.2480e-08)");
        assert_eq!(t(vec![10.0], &[]).repr(), "tensor(10.)");
        assert_eq!(
            t(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).repr(),
            "tensor([[1., 2.],\n        [3., 4.]])"
        );
        assert_eq!(
            Tensor::from_vec(vec![1i64, 10], &[2]).unwrap().repr(),
            "tensor([ 1, 10])"
        );
        assert_eq!(
            Tensor::from_vec(vec![0.5f64], &[1]).unwrap().repr(),
            "tensor([0.5000], dtype=torch.float64)"
        );
        assert_eq!(t(vec![], &[0]).repr(), "tensor([])");
        assert_eq!(
            Tensor::from_vec(vec![true, false], &[2]).unwrap().repr(),
            "tensor([ True, False])"
        );
    }
}
