//! Element types: the `DType` tag, the `Element` trait that ties it to Rust types, and type promotion.

use std::fmt::Debug;

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `torch.bool`, for masks.
    Bool,
    /// `torch.int64`, for indices and integer data.
    Int64,
    /// `torch.float32`, the default floating type.
    Float32,
    /// `torch.float64`.
    Float64,
}

/// The default floating dtype (`torch.get_default_dtype()`): 0 for float32, 1 for float64.
static DEFAULT_FLOAT: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// The dtype Python floats and floating results of integer inputs take (float32 unless
/// `set_default_float` changed it).
pub fn default_float() -> DType {
    match DEFAULT_FLOAT.load(std::sync::atomic::Ordering::Relaxed) {
        0 => DType::Float32,
        _ => DType::Float64,
    }
}

/// Sets the default floating dtype (`torch.set_default_dtype`); only float32 and float64.
pub fn set_default_float(dtype: DType) -> crate::core::error::Result<()> {
    let code = match dtype {
        DType::Float32 => 0,
        DType::Float64 => 1,
        _ => {
            return Err(crate::core::error::Error::type_error(
                "only floating-point types are supported as the default type",
            ))
        }
    };
    DEFAULT_FLOAT.store(code, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

impl DType {
    /// True for float32 and float64: the dtypes that can require gradients.
    pub fn is_floating_point(self) -> bool {
        matches!(self, DType::Float32 | DType::Float64)
    }

    /// Bytes per element (PyTorch's `element_size()`).
    pub fn size(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    /// PyTorch's name, without the `torch.` prefix.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int64 => "int64",
            DType::Float32 => "float32",
            DType::Float64 => "float64",
        }
    }

    /// The legacy type name PyTorch prints in autograd errors (`torch.FloatTensor`).
    pub fn legacy_name(self) -> &'static str {
        match self {
            DType::Bool => "torch.BoolTensor",
            DType::Int64 => "torch.LongTensor",
            DType::Float32 => "torch.FloatTensor",
            DType::Float64 => "torch.DoubleTensor",
        }
    }

    /// The capitalised scalar-type name PyTorch uses in casting errors (`Float`, `Long`).
    pub fn scalar_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::Int64 => "Long",
            DType::Float32 => "Float",
            DType::Float64 => "Double",
        }
    }

    /// The C++ type name PyTorch's `set_` error uses (`float`, `double`, `long`, `bool`).
    pub fn cpp_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::Int64 => "long",
            DType::Float32 => "float",
            DType::Float64 => "double",
        }
    }

    /// 0 for bool, 1 for integers, 2 for floating point: PyTorch's promotion categories.
    pub fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::Int64 => 1,
            DType::Float32 | DType::Float64 => 2,
        }
    }

    /// The smallest dtype that holds both (the ordering of the enum is the lattice here).
    pub fn promote(a: DType, b: DType) -> DType {
        a.max(b)
    }

    /// Whether a value of dtype `from` may be written into a tensor of dtype `self` in place.
    pub fn can_hold(self, from: DType) -> bool {
        self.category() >= from.category()
    }
}

/// A Python-like scalar operand: its category matters for type promotion, not its width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A Python `bool`.
    Bool(bool),
    /// A Python `int`.
    Int(i64),
    /// A Python `float`.
    Float(f64),
}

impl Scalar {
    /// The value as `f64`.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// The dtype a tensor would get if made from this scalar alone.
    pub fn natural_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::Int64,
            Scalar::Float(_) => default_float(),
        }
    }

    /// The dtype of `tensor op scalar`: the scalar widens the category, never the width.
    pub fn result_type_with(self, tensor: DType) -> DType {
        let own = self.natural_dtype();
        if own.category() > tensor.category() {
            own
        } else {
            tensor
        }
    }
}

impl From<f64> for Scalar {
    fn from(v: f64) -> Self {
        Scalar::Float(v)
    }
}

impl From<i64> for Scalar {
    fn from(v: i64) -> Self {
        Scalar::Int(v)
    }
}

/// A Rust type that can be a tensor element.
pub trait Element: Copy + Send + Sync + Debug + PartialOrd + Default + 'static {
    /// The matching dtype tag.
    const DTYPE: DType;
    /// Lossy conversion to `f64`.
    fn to_f64(self) -> f64;
    /// Lossy conversion from `f64` (saturating for integers, `!= 0` for bool).
    fn from_f64(v: f64) -> Self;
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        self as i64 as f64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
}

impl Element for i64 {
    const DTYPE: DType = DType::Int64;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as i64
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
}

impl Element for f64 {
    const DTYPE: DType = DType::Float64;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(v: f64) -> Self {
        v
    }
}

/// Element types with arithmetic (everything but bool).
pub trait Num:
    Element
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::AddAssign
    + std::iter::Sum
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// `-self` (`-0.0` for `0.0`; integers wrap, as PyTorch's).
    fn negated(self) -> Self;
}

impl Num for i64 {
    const ZERO: Self = 0;
    const ONE: Self = 1;
    fn negated(self) -> Self {
        self.wrapping_neg()
    }
}
impl Num for f32 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn negated(self) -> Self {
        -self
    }
}
impl Num for f64 {
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    fn negated(self) -> Self {
        -self
    }
}

/// Floating element types: the ones with gradients.
pub trait Float: Num + num_traits::Float + std::ops::Div<Output = Self> {}
impl Float for f32 {}
impl Float for f64 {}

/// Runs `$body` with `$T` bound to the Rust type of a floating dtype; other dtypes are an error.
#[macro_export]
macro_rules! with_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
            other => {
                return Err($crate::Error::runtime(format!(
                    "this operation needs a floating point tensor, got {}",
                    other.name()
                )))
            }
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a numeric dtype (bool is an error).
#[macro_export]
macro_rules! with_num {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
            $crate::DType::Bool => {
                return Err($crate::Error::runtime(
                    "this arithmetic operation is not supported for bool tensors; convert with .long() or .float() first",
                ))
            }
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of any dtype.
#[macro_export]
macro_rules! with_any {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::DType::Int64 => {
                type $T = i64;
                $body
            }
            $crate::DType::Float32 => {
                type $T = f32;
                $body
            }
            $crate::DType::Float64 => {
                type $T = f64;
                $body
            }
        }
    };
}
