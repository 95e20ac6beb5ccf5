//! Sharing memory with other array libraries, PyTorch's rules: NumPy through the array
//! interface (`Tensor.numpy()`, `np.asarray(t)`, `from_numpy`), and DLPack capsules both ways
//! (`Tensor.__dlpack__`, `from_dlpack`). Only conversions live here; the shared elements are a
//! core [`ForeignElements`] buffer or a tensor's own storage.

use super::tensor::{to_object, PyTensor};
use crate::core::buffer::ForeignElements;
use crate::core::dtype::DType;
use crate::core::tensor::Tensor;
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::ffi::{c_void, CStr};
use std::ptr::NonNull;

// ---------------------------------------------------------------------------------------------
// NumPy
// ---------------------------------------------------------------------------------------------

/// Keeps a tensor's elements alive for the NumPy array that views them (the array's `base`),
/// and describes them through the array interface.
#[pyclass(name = "_ArrayOwner", module = "ferrograd._core", frozen)]
pub struct ArrayOwner {
    tensor: Tensor,
}

/// NumPy's type string of a dtype (little-endian machines).
fn typestr(dtype: DType) -> &'static str {
    match dtype {
        DType::Bool => "|b1",
        DType::UInt8 => "|u1",
        DType::Int8 => "|i1",
        DType::Int16 => "<i2",
        DType::Int32 => "<i4",
        DType::Int64 => "<i8",
        DType::Float32 => "<f4",
        DType::Float64 => "<f8",
    }
}

#[pymethods]
impl ArrayOwner {
    /// The array interface (version 3) of the tensor's elements, in place.
    #[getter]
    // stub: -> dict[str, Any]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let t = &self.tensor;
        let size = t.dtype().size() as isize;
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("shape", PyTuple::new(py, t.shape())?)?;
        d.set_item("typestr", typestr(t.dtype()))?;
        let strides: Vec<isize> = t.layout().strides.iter().map(|s| s * size).collect();
        d.set_item("strides", PyTuple::new(py, strides)?)?;
        d.set_item("data", (t.data_ptr() as usize, false))?;
        Ok(d)
    }
}

/// `t.numpy()`: an array sharing the tensor's memory (PyTorch's rule: refused while the tensor
/// requires grad, unless `force`).
pub(crate) fn to_numpy<'py>(
    py: Python<'py>,
    t: &Tensor,
    force: bool,
) -> PyResult<Bound<'py, PyAny>> {
    if t.subclass().is_some() {
        return Err(PyRuntimeError::new_err(
            ".numpy() is not supported for tensor subclasses.",
        ));
    }
    // as PyTorch: refused only while grad mode is on
    if t.requires_grad() && crate::core::grad_mode::is_grad_enabled() && !force {
        return Err(PyRuntimeError::new_err(
            "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        ));
    }
    let owner = Bound::new(py, ArrayOwner { tensor: t.clone() })?;
    py.import("numpy")?.call_method1("asarray", (owner,))
}

/// The elements of a NumPy array in place, when our dtypes and PyTorch's sharing rules allow
/// it: float32, float64 or int64, native byte order, aligned, writeable, strides not negative.
/// `Ok(None)` for arrays that must be converted (copied) instead.
fn share_numpy(array: &Bound<'_, PyAny>) -> PyResult<Option<Tensor>> {
    let interface = array.getattr("__array_interface__")?;
    let typestr: String = interface.get_item("typestr")?.extract()?;
    let dtype = match typestr.as_str() {
        "<f4" => DType::Float32,
        "<f8" => DType::Float64,
        "<i8" => DType::Int64,
        "<i4" => DType::Int32,
        "<i2" => DType::Int16,
        "|i1" => DType::Int8,
        "|u1" => DType::UInt8,
        _ => return Ok(None),
    };
    let (ptr, readonly): (usize, bool) = interface.get_item("data")?.extract()?;
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let byte_strides: Vec<isize> = array.getattr("strides")?.extract()?;
    if byte_strides.iter().any(|&s| s < 0) {
        return Err(PyValueError::new_err(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not currently supported. (You can probably work around this by making a copy of your array  with array.copy().) ",
        ));
    }
    let size = dtype.size();
    let aligned = ptr.is_multiple_of(size)
        && byte_strides
            .iter()
            .all(|&s| (s as usize).is_multiple_of(size));
    if shape.contains(&0) {
        // nothing to share
        return Ok(Some(Tensor::zeros(&shape, dtype)));
    }
    let Some(ptr) = NonNull::new(ptr as *mut u8) else {
        return Ok(None);
    };
    if readonly || !aligned {
        return Ok(None);
    }
    let strides: Vec<isize> = byte_strides.iter().map(|&s| s / size as isize).collect();
    let span = crate::core::layout::strided_span(&shape, &strides);
    let owner: Py<PyAny> = array.clone().unbind();
    // SAFETY: the array interface gives the address of `span` aligned elements of `dtype`
    // (strides checked above), which NumPy keeps while the array (held by `owner`) lives; a
    // NumPy array that another object references cannot be resized
    let elements = unsafe { ForeignElements::new(dtype, ptr, span, Box::new(owner)) };
    let Some(elements) = elements else {
        return Ok(None);
    };
    Tensor::from_foreign(elements, &shape, &strides)
        .map(Some)
        .map_err(super::errors::to_py_err)
}

/// A NumPy array's elements as a new tensor of its own (a copy), converting dtypes we do not
/// have (other integer widths to int64, float16 to float32... as PyTorch's `tensor()` would
/// keep them, widened).
pub(crate) fn copy_numpy(array: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    if let Some(t) = share_numpy(array)? {
        return Ok(t.deep_copy());
    }
    let kind: String = array.getattr("dtype")?.getattr("kind")?.extract()?;
    let np = array.py().import("numpy")?;
    let target = match kind.as_str() {
        "b" => "bool",
        "f" if array.getattr("dtype")?.getattr("itemsize")?.extract::<usize>()? <= 4 => {
            "float32"
        }
        "f" => "float64",
        "i" | "u" => "int64",
        _ => {
            return Err(PyTypeError::new_err(format!(
                "can't convert np.ndarray of type {}. The only supported types are: float64, float32, int64, and bool.",
                array.getattr("dtype")?.str()?
            )))
        }
    };
    // (ascontiguousarray makes a 0-d array 1-d: the shape is the array's own)
    let shape: Vec<usize> = array.getattr("shape")?.extract()?;
    let dense = np.call_method1("ascontiguousarray", (array, target))?;
    if target == "bool" {
        let bytes: Vec<u8> = dense
            .call_method1("view", ("uint8",))?
            .call_method0("tobytes")?
            .extract()?;
        let values: Vec<bool> = bytes.into_iter().map(|b| b != 0).collect();
        return Tensor::from_vec(values, &shape).map_err(super::errors::to_py_err);
    }
    let copy = np.call_method1("array", (dense,))?; // writeable and aligned, so shareable
    let shared = share_numpy(&copy)?
        .ok_or_else(|| PyTypeError::new_err("from_numpy: could not read the converted array"))?;
    shared
        .deep_copy()
        .reshape(&shape.iter().map(|&n| n as isize).collect::<Vec<_>>())
        .map_err(super::errors::to_py_err)
}

/// `from_numpy(array)`: a tensor sharing the array's memory (float32/float64/int64 arrays);
/// arrays of other dtypes, read-only or unaligned ones are copied.
#[pyfunction]
#[pyo3(signature = (array: "NDArray[Any]") -> "Tensor")]
pub(crate) fn from_numpy(array: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    if array.getattr("__array_interface__").is_err() || array.getattr("dtype").is_err() {
        return Err(PyTypeError::new_err(format!(
            "expected np.ndarray (got {})",
            array.get_type().name()?
        )));
    }
    let t = match share_numpy(array)? {
        Some(t) => t,
        None => copy_numpy(array)?,
    };
    to_object(array.py(), t)
}

// ---------------------------------------------------------------------------------------------
// DLPack (legacy, unversioned capsules: every consumer accepts them)
// ---------------------------------------------------------------------------------------------

/// DLPack's `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DlDevice {
    device_type: i32,
    device_id: i32,
}

/// DLPack's `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy)]
struct DlDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

/// DLPack's `DLTensor`.
#[repr(C)]
struct DlTensor {
    data: *mut c_void,
    device: DlDevice,
    ndim: i32,
    dtype: DlDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

/// DLPack's `DLManagedTensor`.
#[repr(C)]
struct DlManagedTensor {
    dl_tensor: DlTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DlManagedTensor)>,
}

/// DLPack's `DLManagedTensorVersioned` (DLPack 1.x), read when a producer sends one.
#[repr(C)]
struct DlManagedTensorVersioned {
    version: [u32; 2],
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DlManagedTensorVersioned)>,
    flags: u64,
    dl_tensor: DlTensor,
}

const KDL_CPU: i32 = 1;
const DLTENSOR: &CStr = c"dltensor";
const USED_DLTENSOR: &CStr = c"used_dltensor";
const DLTENSOR_VERSIONED: &CStr = c"dltensor_versioned";
const USED_DLTENSOR_VERSIONED: &CStr = c"used_dltensor_versioned";

/// What an exported capsule keeps alive: the tensor and the shape/strides arrays it points to.
struct Exported {
    _tensor: Tensor,
    shape: Vec<i64>,
    strides: Vec<i64>,
}

unsafe extern "C" fn delete_exported(managed: *mut DlManagedTensor) {
    if managed.is_null() {
        return;
    }
    // SAFETY: `managed` and its context were made by `to_dlpack` with Box::into_raw, and the
    // consumer calls the deleter once
    unsafe {
        drop(Box::from_raw((*managed).manager_ctx.cast::<Exported>()));
        drop(Box::from_raw(managed));
    }
}

unsafe extern "C" fn delete_exported_versioned(managed: *mut DlManagedTensorVersioned) {
    if managed.is_null() {
        return;
    }
    // SAFETY: as `delete_exported`
    unsafe {
        drop(Box::from_raw((*managed).manager_ctx.cast::<Exported>()));
        drop(Box::from_raw(managed));
    }
}

/// The capsule's destructor: frees the tensor unless a consumer took it (renamed the capsule).
unsafe extern "C" fn capsule_destructor(capsule: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule, with the GIL held
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, DLTENSOR.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, DLTENSOR.as_ptr());
            delete_exported(managed.cast());
        } else if ffi::PyCapsule_IsValid(capsule, DLTENSOR_VERSIONED.as_ptr()) == 1 {
            let managed = ffi::PyCapsule_GetPointer(capsule, DLTENSOR_VERSIONED.as_ptr());
            delete_exported_versioned(managed.cast());
        }
    }
}

fn dl_dtype(dtype: DType) -> DlDataType {
    let (code, bits) = match dtype {
        DType::Bool => (6, 8),
        DType::UInt8 => (1, 8),
        DType::Int8 => (0, 8),
        DType::Int16 => (0, 16),
        DType::Int32 => (0, 32),
        DType::Int64 => (0, 64),
        DType::Float32 => (2, 32),
        DType::Float64 => (2, 64),
    };
    DlDataType {
        code,
        bits,
        lanes: 1,
    }
}

/// `t.__dlpack__()`: a DLPack capsule sharing the tensor's memory; a versioned (DLPack 1.0,
/// writable) one when the consumer asks for `max_version >= (1, 0)`, else the legacy kind.
pub(crate) fn to_dlpack(py: Python<'_>, t: &Tensor, versioned: bool) -> PyResult<Py<PyAny>> {
    if t.requires_grad() {
        return Err(PyBufferError::new_err(
            "Can't export tensors that require gradient, use tensor.detach()",
        ));
    }
    let mut ctx = Box::new(Exported {
        _tensor: t.clone(),
        shape: t.shape().iter().map(|&n| n as i64).collect(),
        strides: t.layout().strides.iter().map(|&s| s as i64).collect(),
    });
    let dl_tensor = DlTensor {
        data: t.data_ptr() as *mut c_void,
        device: DlDevice {
            device_type: KDL_CPU,
            device_id: 0,
        },
        ndim: t.dim() as i32,
        dtype: dl_dtype(t.dtype()),
        shape: ctx.shape.as_mut_ptr(),
        strides: ctx.strides.as_mut_ptr(),
        byte_offset: 0,
    };
    let manager_ctx = Box::into_raw(ctx).cast();
    let (pointer, name): (*mut c_void, &CStr) = if versioned {
        let managed = Box::new(DlManagedTensorVersioned {
            version: [1, 0],
            manager_ctx,
            deleter: Some(delete_exported_versioned),
            flags: 0,
            dl_tensor,
        });
        (Box::into_raw(managed).cast(), DLTENSOR_VERSIONED)
    } else {
        let managed = Box::new(DlManagedTensor {
            dl_tensor,
            manager_ctx,
            deleter: Some(delete_exported),
        });
        (Box::into_raw(managed).cast(), DLTENSOR)
    };
    // SAFETY: a capsule over our managed tensor, whose destructor frees it unless consumed
    let capsule = unsafe { ffi::PyCapsule_New(pointer, name.as_ptr(), Some(capsule_destructor)) };
    if capsule.is_null() {
        // SAFETY: the capsule was not made, so nobody else owns the managed tensor
        unsafe {
            match versioned {
                true => delete_exported_versioned(pointer.cast()),
                false => delete_exported(pointer.cast()),
            }
        }
        return Err(PyErr::fetch(py));
    }
    // SAFETY: PyCapsule_New returned a new reference
    Ok(unsafe { Bound::from_owned_ptr(py, capsule) }.unbind())
}

/// Calls a consumed DLPack tensor's deleter when the tensor made from it is freed.
struct Imported {
    legacy: *mut DlManagedTensor,
    versioned: *mut DlManagedTensorVersioned,
}

// SAFETY: the producer's deleter may run on any thread (DLPack requires it; producers that
// need the GIL take it themselves)
unsafe impl Send for Imported {}
unsafe impl Sync for Imported {}

impl Drop for Imported {
    fn drop(&mut self) {
        // SAFETY: each pointer was taken from a consumed capsule, once; its deleter frees it
        unsafe {
            if let Some(m) = self.legacy.as_mut() {
                if let Some(deleter) = m.deleter {
                    deleter(self.legacy);
                }
            }
            if let Some(m) = self.versioned.as_mut() {
                if let Some(deleter) = m.deleter {
                    deleter(self.versioned);
                }
            }
        }
    }
}

/// The dtype of a DLPack tensor, if we have it.
fn our_dtype(d: DlDataType) -> PyResult<DType> {
    match (d.code, d.bits, d.lanes) {
        (2, 32, 1) => Ok(DType::Float32),
        (2, 64, 1) => Ok(DType::Float64),
        (0, 64, 1) => Ok(DType::Int64),
        (0, 32, 1) => Ok(DType::Int32),
        (0, 16, 1) => Ok(DType::Int16),
        (0, 8, 1) => Ok(DType::Int8),
        (1, 8, 1) => Ok(DType::UInt8),
        (6, 8, 1) => Ok(DType::Bool),
        _ => Err(PyBufferError::new_err(format!(
            "from_dlpack: unsupported DLPack dtype (code {}, bits {}, lanes {}); ferrograd has float32, float64, int64, int32, int16, int8, uint8 and bool",
            d.code, d.bits, d.lanes
        ))),
    }
}

/// `from_dlpack(obj)`: a tensor sharing the memory of an object with `__dlpack__` (a NumPy
/// array, a PyTorch tensor...) or of a DLPack capsule.
#[pyfunction]
#[pyo3(signature = (obj: "Any") -> "Tensor")]
pub(crate) fn from_dlpack(obj: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
    let py = obj.py();
    if let Ok(t) = obj.cast::<PyTensor>() {
        return to_object(py, t.get().inner.detach());
    }
    let capsule = if obj.hasattr("__dlpack__")? {
        if let Ok(device) = obj.call_method0("__dlpack_device__") {
            let (kind, _): (i32, i32) = device.extract()?;
            if kind != KDL_CPU {
                return Err(PyBufferError::new_err(format!(
                    "from_dlpack: only CPU memory can be shared (DLPack device type {kind})"
                )));
            }
        }
        obj.call_method0("__dlpack__")?
    } else {
        obj.clone()
    };
    let raw = capsule.as_ptr();
    // SAFETY: capsule checks on a live object, GIL held
    let (tensor, owner) = unsafe {
        if ffi::PyCapsule_IsValid(raw, DLTENSOR.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(raw, DLTENSOR.as_ptr()).cast::<DlManagedTensor>();
            let owner = Imported {
                legacy: m,
                versioned: std::ptr::null_mut(),
            };
            (&(*m).dl_tensor, owner)
        } else if ffi::PyCapsule_IsValid(raw, DLTENSOR_VERSIONED.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(raw, DLTENSOR_VERSIONED.as_ptr())
                .cast::<DlManagedTensorVersioned>();
            let owner = Imported {
                legacy: std::ptr::null_mut(),
                versioned: m,
            };
            (&(*m).dl_tensor, owner)
        } else {
            return Err(PyTypeError::new_err(format!(
                "from_dlpack: expected an object with __dlpack__ or a DLPack capsule (got {}; a capsule can be consumed once)",
                obj.get_type().name()?
            )));
        }
    };
    let used = if owner.legacy.is_null() {
        USED_DLTENSOR_VERSIONED
    } else {
        USED_DLTENSOR
    };
    let checked = (|| {
        if tensor.device.device_type != KDL_CPU {
            return Err(PyBufferError::new_err(format!(
                "from_dlpack: only CPU memory can be shared (DLPack device type {})",
                tensor.device.device_type
            )));
        }
        let dtype = our_dtype(tensor.dtype)?;
        let ndim = tensor.ndim.max(0) as usize;
        // SAFETY: DLPack's contract: `shape` (and `strides`, when not null) hold `ndim` values
        let shape: Vec<usize> = unsafe { std::slice::from_raw_parts(tensor.shape, ndim) }
            .iter()
            .map(|&n| n.max(0) as usize)
            .collect();
        let strides: Vec<isize> = if tensor.strides.is_null() {
            crate::core::layout::contiguous_strides(&shape).to_vec()
        } else {
            // SAFETY: as above
            unsafe { std::slice::from_raw_parts(tensor.strides, ndim) }
                .iter()
                .map(|&s| s as isize)
                .collect()
        };
        if strides.iter().any(|&s| s < 0) {
            return Err(PyBufferError::new_err(
                "from_dlpack: negative strides are not supported",
            ));
        }
        Ok((dtype, shape, strides))
    })();
    let (dtype, shape, strides) = checked?;
    let data = (tensor.data as *mut u8).wrapping_add(tensor.byte_offset as usize);
    let span = crate::core::layout::strided_span(&shape, &strides);
    // the capsule is ours from here on: its memory is freed by `owner`'s drop
    // SAFETY: renaming a valid capsule, GIL held
    unsafe { ffi::PyCapsule_SetName(raw, used.as_ptr()) };
    let t = match (dtype, NonNull::new(data)) {
        (DType::Bool, _) | (_, None) => {
            // bool bytes may hold values other than 0 and 1, and an empty tensor may have no
            // address: copy (and let the producer's memory go)
            let values: Vec<bool> = match NonNull::new(data) {
                // SAFETY: `span` valid bytes at `data` (DLPack's contract)
                Some(p) if span > 0 && dtype == DType::Bool => {
                    unsafe { std::slice::from_raw_parts(p.as_ptr(), span) }
                        .iter()
                        .map(|&b| b != 0)
                        .collect()
                }
                _ => Vec::new(),
            };
            drop(owner);
            if values.is_empty() {
                Tensor::zeros(&shape, dtype)
            } else {
                let whole = Tensor::from_vec(values, &[span]).map_err(super::errors::to_py_err)?;
                let layout = crate::core::layout::Layout {
                    shape: shape.as_slice().into(),
                    strides: strides.as_slice().into(),
                    offset: 0,
                };
                whole.alias_with_layout(layout).deep_copy()
            }
        }
        (_, Some(ptr)) => {
            // SAFETY: DLPack's contract: `span` aligned elements of `dtype` at `ptr`, valid
            // until the deleter (run by `owner`) is called
            let elements = unsafe { ForeignElements::new(dtype, ptr, span, Box::new(owner)) }
                .ok_or_else(|| PyBufferError::new_err("from_dlpack: unsupported dtype"))?;
            Tensor::from_foreign(elements, &shape, &strides).map_err(super::errors::to_py_err)?
        }
    };
    to_object(py, t)
}
