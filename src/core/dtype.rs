//! Element types: the `DType` tag, the `Element` trait that ties it to Rust types, and type promotion.

use std::fmt::Debug;

/// The element type of a tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `torch.bool`, for masks.
    Bool,
    /// `torch.uint8`, for image data.
    UInt8,
    /// `torch.int8`.
    Int8,
    /// `torch.int16`.
    Int16,
    /// `torch.int32`.
    Int32,
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

    /// Every dtype, in the order of the enum.
    pub const ALL: [DType; 8] = [
        DType::Bool,
        DType::UInt8,
        DType::Int8,
        DType::Int16,
        DType::Int32,
        DType::Int64,
        DType::Float32,
        DType::Float64,
    ];

    /// True for the integer dtypes (not bool).
    pub fn is_integer(self) -> bool {
        self.category() == 1
    }

    /// Whether the dtype holds negative values (PyTorch's `dtype.is_signed`).
    pub fn is_signed(self) -> bool {
        !matches!(self, DType::Bool | DType::UInt8)
    }

    /// Bytes per element (PyTorch's `element_size()`).
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::UInt8 | DType::Int8 => 1,
            DType::Int16 => 2,
            DType::Int32 | DType::Float32 => 4,
            DType::Int64 | DType::Float64 => 8,
        }
    }

    /// PyTorch's name, without the `torch.` prefix.
    pub fn name(self) -> &'static str {
        self.names().0
    }

    /// The legacy type name PyTorch prints in autograd errors (`torch.FloatTensor`).
    pub fn legacy_name(self) -> &'static str {
        self.names().1
    }

    /// The capitalised scalar-type name PyTorch uses in casting errors (`Float`, `Long`).
    pub fn scalar_name(self) -> &'static str {
        self.names().2
    }

    /// The C++ type name PyTorch's errors use (`float`, `double`, `long int`, `bool`).
    pub fn cpp_name(self) -> &'static str {
        self.names().3
    }

    /// (name, legacy tensor type, scalar-type name, C++ type) in one row per dtype.
    fn names(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            DType::Bool => ("bool", "torch.BoolTensor", "Bool", "bool"),
            DType::UInt8 => ("uint8", "torch.ByteTensor", "Byte", "unsigned char"),
            DType::Int8 => ("int8", "torch.CharTensor", "Char", "signed char"),
            DType::Int16 => ("int16", "torch.ShortTensor", "Short", "short"),
            DType::Int32 => ("int32", "torch.IntTensor", "Int", "int"),
            DType::Int64 => ("int64", "torch.LongTensor", "Long", "long"),
            DType::Float32 => ("float32", "torch.FloatTensor", "Float", "float"),
            DType::Float64 => ("float64", "torch.DoubleTensor", "Double", "double"),
        }
    }

    /// 0 for bool, 1 for integers, 2 for floating point: PyTorch's promotion categories.
    pub fn category(self) -> u8 {
        match self {
            DType::Bool => 0,
            DType::UInt8 | DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64 => 1,
            DType::Float32 | DType::Float64 => 2,
        }
    }

    /// PyTorch's `promote_types`: the smallest dtype both convert to without leaving their
    /// category (bool < integers < floating point); uint8 with int8 needs int16.
    pub fn promote(a: DType, b: DType) -> DType {
        if a == b {
            return a;
        }
        match (a.category(), b.category()) {
            (ca, cb) if ca != cb => {
                if ca > cb {
                    a
                } else {
                    b
                }
            }
            _ if a == DType::UInt8 || b == DType::UInt8 => {
                let other = if a == DType::UInt8 { b } else { a };
                if other == DType::Int8 {
                    DType::Int16
                } else {
                    other
                }
            }
            _ => {
                if a.size() >= b.size() {
                    a
                } else {
                    b
                }
            }
        }
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
    /// The value as `i64` (exact for integers and bool; floats as [`Element::to_f64`] then a
    /// C cast).
    fn to_i64(self) -> i64 {
        float_to_int64(self.to_f64())
    }
    /// `v` converted as a C cast does: integers wrap, floats round to nearest, bool is `!= 0`.
    fn from_i64(v: i64) -> Self {
        Self::from_f64(v as f64)
    }
    /// `v` converted as PyTorch's dtype conversion does on x86 (integers: toward zero, the
    /// minimum for NaN and out of range; see [`float_to_int64`]).
    fn cast_from_f64(v: f64) -> Self {
        Self::from_f64(v)
    }
}

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        self as i64 as f64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_i64(v: i64) -> Self {
        v != 0
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
    fn to_i64(self) -> i64 {
        self
    }
    fn from_i64(v: i64) -> Self {
        v
    }
    fn cast_from_f64(v: f64) -> Self {
        float_to_int64(v)
    }
}

/// The integer a float becomes in a C cast to a 32-bit integer on x86 (`cvttss2si`): toward
/// zero, and `i32::MIN` for NaN, infinities and values out of range.
fn float_to_int32(v: f64) -> i32 {
    if v.is_nan() || !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
        i32::MIN
    } else {
        v as i32
    }
}

/// The integer a float becomes in a C cast to int64 on x86 (`cvttsd2si`): toward zero, and
/// `i64::MIN` for NaN, infinities and values out of range (not Rust's saturation).
pub fn float_to_int64(v: f64) -> i64 {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if v.is_nan() || !(-LIMIT..LIMIT).contains(&v) {
        i64::MIN
    } else {
        v as i64
    }
}

macro_rules! small_int_element {
    ($t:ty, $dtype:ident, $via:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$dtype;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn cast_from_f64(v: f64) -> Self {
                #[allow(clippy::redundant_closure_call)]
                ($via)(v)
            }
        }
        impl Num for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn negated(self) -> Self {
                self.wrapping_neg()
            }
        }
    };
}
// PyTorch converts floats to uint8 through int64 (c10's `static_cast_with_inter_type`), and
// to the other narrow integers through C's conversion to int.
small_int_element!(u8, UInt8, |v| float_to_int64(v) as u8);
small_int_element!(i8, Int8, |v| float_to_int32(v) as i8);
small_int_element!(i16, Int16, |v| float_to_int32(v) as i16);
small_int_element!(i32, Int32, float_to_int32);

impl Element for f32 {
    const DTYPE: DType = DType::Float32;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn from_i64(v: i64) -> Self {
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

/// The `match` of [`with_float!`], [`with_num!`] and [`with_any!`]: an arm per listed dtype
/// running `$body` with `$T` bound to its Rust type, then the arms given after the list.
#[doc(hidden)]
#[macro_export]
macro_rules! match_dtype {
    ($dtype:expr, $T:ident => $body:expr, [$($variant:ident: $ty:ty),*] $($rest:tt)*) => {
        match $dtype {
            $($crate::DType::$variant => {
                type $T = $ty;
                $body
            })*
            $($rest)*
        }
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a floating dtype; other dtypes are an error.
#[macro_export]
macro_rules! with_float {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::match_dtype!($dtype, $T => $body, [Float32: f32, Float64: f64]
            other => {
                return Err($crate::Error::runtime(format!(
                    "this operation needs a floating point tensor, got {}",
                    other.name()
                )))
            }
        )
    };
}

/// Runs `$body` with `$T` bound to the Rust type of a numeric dtype (bool is an error).
#[macro_export]
macro_rules! with_num {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::match_dtype!($dtype, $T => $body,
            [UInt8: u8, Int8: i8, Int16: i16, Int32: i32, Int64: i64, Float32: f32, Float64: f64]
            $crate::DType::Bool => {
                return Err($crate::Error::runtime(
                    "this arithmetic operation is not supported for bool tensors; convert with .long() or .float() first",
                ))
            }
        )
    };
}

/// Runs `$body` with `$T` bound to the Rust type of any dtype.
#[macro_export]
macro_rules! with_any {
    ($dtype:expr, $T:ident => $body:expr) => {
        $crate::match_dtype!($dtype, $T => $body,
            [Bool: bool, UInt8: u8, Int8: i8, Int16: i16, Int32: i32, Int64: i64, Float32: f32, Float64: f64]
        )
    };
}
