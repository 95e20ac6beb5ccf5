//! Errors raised by ferrograd, mapped one-to-one onto Python exception types.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// The Python exception type an [`Error`] becomes at the binding boundary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// `RuntimeError`: autograd and shape errors, as PyTorch raises them.
    Runtime,
    /// `TypeError`: an argument of the wrong type.
    Type,
    /// `IndexError`: an index out of range.
    Index,
    /// `ValueError`: an argument of the right type but a wrong value.
    Value,
    /// `NotImplementedError`: an op PyTorch has no kernel for with this dtype.
    NotImplemented,
    /// `torch.linalg.LinAlgError` (a `RuntimeError`): a factorization or solve that failed on
    /// its input (singular, not positive-definite).
    LinAlg,
}

/// An error with the PyTorch key phrase first, then the details that make it actionable.
#[derive(Clone)]
pub struct Error {
    /// Which Python exception this becomes.
    pub kind: ErrorKind,
    /// The full message.
    pub message: String,
    /// An error from user code (a Python hook or Function) to re-raise unchanged at the boundary.
    pub payload: Option<Arc<dyn Any + Send + Sync>>,
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.kind)
            .field("message", &self.message)
            .finish()
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Error {
    /// A `RuntimeError`.
    pub fn runtime(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Runtime,
            message: message.into(),
            payload: None,
        }
    }
    /// A `NotImplementedError` (PyTorch's "not implemented for 'Long'").
    pub fn not_implemented(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::NotImplemented,
            message: message.into(),
            payload: None,
        }
    }
    /// A `LinAlgError` (PyTorch's `torch.linalg.LinAlgError`, a `RuntimeError`).
    pub fn linalg(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::LinAlg,
            message: message.into(),
            payload: None,
        }
    }
    /// A `TypeError`.
    pub fn type_error(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Type,
            message: message.into(),
            payload: None,
        }
    }
    /// An `IndexError`.
    pub fn index(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Index,
            message: message.into(),
            payload: None,
        }
    }
    /// A `ValueError`.
    pub fn value(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Value,
            message: message.into(),
            payload: None,
        }
    }
}

impl Error {
    /// An error raised by user code, carried through the engine and re-raised as it was.
    pub fn with_payload(message: impl Into<String>, payload: Arc<dyn Any + Send + Sync>) -> Self {
        Error {
            kind: ErrorKind::Runtime,
            message: message.into(),
            payload: Some(payload),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Result type of every fallible ferrograd operation.
pub type Result<T> = std::result::Result<T, Error>;

/// Returns early with a `RuntimeError` built by `format!`.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => { return Err($crate::Error::runtime(format!($($arg)*))) };
}
