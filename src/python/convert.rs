//! Python values to core values: data, sizes, dtypes, operands, indices.

use super::tensor::PyTensor;
use crate::core::dtype::{DType, Scalar};
use crate::core::tensor::Tensor;
use crate::ops::shape::subscript::Index;
use crate::ops::{IndexItem, Operand};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyEllipsis, PyFloat, PyInt, PyList, PySlice, PyTuple};

/// `torch.float32` and friends.
#[pyclass(
    name = "dtype",
    module = "ferrograd",
    frozen,
    eq,
    hash,
    skip_from_py_object
)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType {
    pub(crate) inner: DType,
}

#[pymethods]
impl PyDType {
    fn __repr__(&self) -> String {
        format!("torch.{}", self.inner.name())
    }

    /// Pickling: by name, rebuilt as the module attribute (`ferrograd.float32`).
    // stub: (self) -> Any
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (&'static str,))> {
        let by_name = py
            .import("ferrograd._serialization")?
            .getattr("dtype_named")?;
        Ok((by_name, (self.inner.name(),)))
    }

    /// True for float32 and float64.
    #[getter]
    // stub: -> bool
    fn is_floating_point(&self) -> bool {
        self.inner.is_floating_point()
    }

    /// True for the dtypes that hold negative values (not bool, not uint8).
    #[getter]
    // stub: -> bool
    fn is_signed(&self) -> bool {
        self.inner.is_signed()
    }

    /// False: ferrograd has no complex dtypes yet.
    #[getter]
    // stub: -> bool
    fn is_complex(&self) -> bool {
        false
    }

    /// Bytes per element.
    #[getter]
    // stub: -> int
    fn itemsize(&self) -> usize {
        self.inner.size()
    }
}

/// The one Python object of each dtype, so `x.dtype is torch.float32` holds (as in PyTorch).
static DTYPE_OBJECTS: PyOnceLock<Vec<Py<PyDType>>> = PyOnceLock::new();

/// The Python object of `dtype` (always the same one).
pub(crate) fn dtype_object(py: Python<'_>, dtype: DType) -> PyResult<Py<PyDType>> {
    let objects = DTYPE_OBJECTS.get_or_try_init(py, || -> PyResult<Vec<Py<PyDType>>> {
        DType::ALL
            .iter()
            .map(|&inner| Py::new(py, PyDType { inner }))
            .collect()
    })?;
    let i = DType::ALL
        .iter()
        .position(|&d| d == dtype)
        .expect("every dtype is in DType::ALL");
    Ok(objects[i].clone_ref(py))
}

pub(crate) fn add_dtypes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for (name, d) in [
        ("float32", DType::Float32),
        ("float", DType::Float32),
        ("float64", DType::Float64),
        ("double", DType::Float64),
        ("int64", DType::Int64),
        ("long", DType::Int64),
        ("int32", DType::Int32),
        ("int", DType::Int32),
        ("int16", DType::Int16),
        ("short", DType::Int16),
        ("int8", DType::Int8),
        ("uint8", DType::UInt8),
        ("bool", DType::Bool),
    ] {
        m.add(name, dtype_object(m.py(), d)?)?;
    }
    Ok(())
}

/// A `dtype=` argument: a ferrograd dtype, or Python's `float`/`int`/`bool` types.
pub(crate) fn dtype_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<DType>> {
    let Some(obj) = obj else { return Ok(None) };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(d) = obj.cast::<PyDType>() {
        return Ok(Some(d.get().inner));
    }
    let py = obj.py();
    if obj.is(py.get_type::<PyFloat>()) {
        return Ok(Some(DType::Float64));
    }
    if obj.is(py.get_type::<PyBool>()) {
        return Ok(Some(DType::Bool));
    }
    if obj.is(py.get_type::<PyInt>()) {
        return Ok(Some(DType::Int64));
    }
    Err(PyTypeError::new_err(format!(
        "dtype must be a ferrograd dtype (float32, float64, int64, int32, int16, int8, uint8, bool), not {}",
        obj.repr()?
    )))
}

/// The tensor inside a Python `Tensor` (or subclass) argument.
pub(crate) fn tensor_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Tensor> {
    match obj.cast::<PyTensor>() {
        Ok(t) => Ok(t.get().inner.clone()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{what} must be a Tensor, not {}",
            obj.get_type().name()?
        ))),
    }
}

/// Tensors from a tensor or a sequence of tensors.
pub(crate) fn tensor_list(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<Tensor>> {
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(vec![tensor_arg(obj, what)?]);
    }
    obj.try_iter()?.map(|t| tensor_arg(&t?, what)).collect()
}

/// A Python number as a scalar operand (bool before int: `True` is an int in Python).
pub(crate) fn scalar_arg(obj: &Bound<'_, PyAny>) -> Option<Scalar> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return t.get().inner.item().ok();
    }
    if obj.is_instance_of::<PyBool>() {
        return obj.extract::<bool>().ok().map(Scalar::Bool);
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().ok().map(Scalar::Int);
    }
    if obj.is_instance_of::<PyFloat>() {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    // NumPy scalars and other numbers
    if obj.hasattr("__index__").unwrap_or(false) {
        return obj
            .call_method0("__index__")
            .ok()?
            .extract::<i64>()
            .ok()
            .map(Scalar::Int);
    }
    if obj.hasattr("__float__").unwrap_or(false) {
        return obj.extract::<f64>().ok().map(Scalar::Float);
    }
    None
}

/// A tensor used as an index, as PyTorch reads it: int32 indices as int64, a uint8 tensor as a
/// mask (with PyTorch's deprecation warning); other dtypes go on to the indexing op's refusal.
fn index_tensor(py: Python<'_>, t: Tensor) -> PyResult<Index> {
    let t = match t.dtype() {
        DType::Int32 => crate::cpu::kernels::cast(&t, DType::Int64),
        DType::UInt8 => {
            let message = c"indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.";
            PyErr::warn(
                py,
                &py.get_type::<pyo3::exceptions::PyUserWarning>(),
                message,
                1,
            )?;
            crate::cpu::kernels::cast(&t, DType::Bool)
        }
        _ => t,
    };
    Ok(Index::Tensor(t))
}

/// Either side of an arithmetic op.
pub(crate) enum OwnedOperand {
    Tensor(Tensor),
    Scalar(Scalar),
}

impl OwnedOperand {
    pub(crate) fn as_operand(&self) -> Operand<'_> {
        match self {
            OwnedOperand::Tensor(t) => Operand::Tensor(t),
            OwnedOperand::Scalar(s) => Operand::Scalar(*s),
        }
    }
}

/// A tensor or a Python number; `None` for anything else (the dunder then returns NotImplemented).
pub(crate) fn operand_arg(obj: &Bound<'_, PyAny>) -> Option<OwnedOperand> {
    if let Ok(t) = obj.cast::<PyTensor>() {
        return Some(OwnedOperand::Tensor(t.get().inner.clone()));
    }
    scalar_arg(obj).map(OwnedOperand::Scalar)
}

/// The items of `f(2, 3)`-style arguments, or of the single tuple/list in `f((2, 3))`.
fn varargs<'py>(args: &Bound<'py, PyTuple>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if args.len() == 1 {
        let first = args.get_item(0)?;
        if first.is_instance_of::<PyTuple>() || first.is_instance_of::<PyList>() {
            return first.try_iter()?.collect();
        }
    }
    Ok(args.iter().collect())
}

/// Sizes given as `f(2, 3)`, `f((2, 3))` or `f([2, 3])`.
pub(crate) fn size_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<usize>> {
    let items = varargs(args)?;
    let sizes = items
        .iter()
        .map(|o| {
            let v: i64 = o.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "size must be a sequence of ints, but got an element of type {}",
                    o.get_type()
                        .name()
                        .map(|n| n.to_string())
                        .unwrap_or_default()
                ))
            })?;
            Ok(v)
        })
        .collect::<PyResult<Vec<i64>>>()?;
    if let Some(v) = sizes.iter().find(|&&v| v < 0) {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "Trying to create tensor with negative dimension {v}: {sizes:?}"
        )));
    }
    Ok(sizes.into_iter().map(|v| v as usize).collect())
}

/// Shapes that may contain `-1`, given as `f(2, -1)` or `f((2, -1))`.
pub(crate) fn shape_args(args: &Bound<'_, PyTuple>) -> PyResult<Vec<isize>> {
    let items = varargs(args)?;
    items.iter().map(|o| o.extract::<isize>()).collect()
}

/// Dimensions given as an int or a sequence of ints.
pub(crate) fn dims_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<isize>> {
    let Some(obj) = obj else { return Ok(vec![]) };
    if obj.is_none() {
        return Ok(vec![]);
    }
    if let Ok(d) = obj.extract::<isize>() {
        return Ok(vec![d]);
    }
    obj.try_iter()?.map(|d| d?.extract::<isize>()).collect()
}

/// Nested Python data as flat values with their shape and the dtype PyTorch would infer.
struct Flat {
    values: Vec<f64>,
    shape: Vec<usize>,
    kind: DType,
}

/// The deepest nesting of lists `tensor(data)` reads (the reader recurses once per level).
const MAX_NESTING: usize = 1000;

fn flatten(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    flat: &mut Flat,
    first_at_depth: &mut bool,
) -> PyResult<()> {
    if depth > MAX_NESTING {
        return Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
            "tensor(): data nested more than {MAX_NESTING} levels deep"
        )));
    }
    // tensors and NumPy scalars bring their own dtype; Python numbers their category's
    let mut own_dtype = true;
    let scalar = if let Ok(t) = obj.cast::<PyTensor>() {
        let t: &Tensor = &t.get().inner;
        // a one-element tensor of any shape is a number here, as in PyTorch
        if t.numel() != 1 {
            return Err(PyValueError::new_err(
                "only one element tensors can be converted to Python scalars",
            ));
        }
        flat.kind = DType::promote(flat.kind, t.dtype());
        Some(Scalar::Float(t.to_f64_vec()[0]))
    } else if let Some(d) = numpy_scalar_dtype(obj) {
        // a NumPy scalar counts with its own dtype, as a 0-d tensor does
        flat.kind = DType::promote(flat.kind, d);
        scalar_arg(obj)
    } else {
        own_dtype = false;
        scalar_arg(obj)
    };
    if let Some(s) = scalar {
        if !*first_at_depth && depth != flat.shape.len() {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {depth} (got a number)",
                flat.shape[depth]
            )));
        }
        if *first_at_depth {
            *first_at_depth = false;
        }
        if !own_dtype {
            flat.kind = DType::promote(flat.kind, s.natural_dtype());
        }
        flat.values.push(s.to_f64());
        return Ok(());
    }
    if is_data_sequence(obj) {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        if *first_at_depth {
            flat.shape.push(items.len());
        } else if flat.shape.get(depth) != Some(&items.len()) {
            return Err(PyValueError::new_err(format!(
                "expected sequence of length {} at dim {depth} (got {})",
                flat.shape.get(depth).copied().unwrap_or(0),
                items.len()
            )));
        }
        if items.is_empty() && *first_at_depth {
            *first_at_depth = false;
        }
        for item in &items {
            flatten(item, depth + 1, flat, first_at_depth)?;
        }
        return Ok(());
    }
    if obj.is_instance_of::<pyo3::types::PyInt>() {
        return Err(PyValueError::new_err(format!(
            "Overflow when unpacking long long ({} does not fit in int64)",
            obj.str()?
        )));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        // PyTorch sizes the data by its first elements, reading a string there as one more
        // (character) dimension without end
        if depth > 0 && *first_at_depth {
            return Err(PyValueError::new_err("too many dimensions 'str'"));
        }
        return Err(PyTypeError::new_err("new(): invalid data type 'str'"));
    }
    Err(pyo3::exceptions::PyRuntimeError::new_err(format!(
        "Could not infer dtype of {}",
        obj.get_type().name()?
    )))
}

/// Whether `torch.tensor` reads `obj` as a sequence of elements: a list, a tuple, or any
/// other sequence (`collections.deque`, `range`, ...), as PyTorch; strings and bytes are not.
fn is_data_sequence(obj: &Bound<'_, PyAny>) -> bool {
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        return true;
    }
    !obj.is_instance_of::<pyo3::types::PyString>()
        && !obj.is_instance_of::<pyo3::types::PyBytes>()
        && obj.cast::<pyo3::types::PySequence>().is_ok()
}

/// The dtype of a NumPy scalar (`np.float64(1.5)`, `np.uint8(3)`) that ferrograd has.
fn numpy_scalar_dtype(obj: &Bound<'_, PyAny>) -> Option<DType> {
    let ty = obj.get_type();
    if !ty.module().ok()?.to_cow().ok()?.starts_with("numpy") {
        return None;
    }
    let name: String = obj
        .getattr("dtype")
        .ok()?
        .getattr("name")
        .ok()?
        .extract()
        .ok()?;
    DType::ALL.into_iter().find(|d| d.name() == name)
}

fn is_numpy_array(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type()
        .name()
        .map(|n| n == "ndarray")
        .unwrap_or(false)
}

/// `torch.tensor(data)`: nested lists/tuples of numbers, a number, a NumPy array, or a tensor (copied).
pub(crate) fn tensor_from_data(obj: &Bound<'_, PyAny>, dtype: Option<DType>) -> PyResult<Tensor> {
    let t = if let Ok(t) = obj.cast::<PyTensor>() {
        t.get().inner.detach().deep_copy()
    } else if is_numpy_array(obj) {
        super::interop::copy_numpy(obj)?
    } else {
        let mut flat = Flat {
            values: Vec::new(),
            shape: Vec::new(),
            kind: DType::Bool,
        };
        let mut first = true;
        flatten(obj, 0, &mut flat, &mut first)?;
        let kind = if flat.values.is_empty() {
            crate::core::dtype::default_float()
        } else {
            flat.kind
        };
        if dtype == Some(DType::Int64) {
            // PyTorch converts each Python number checked: NaN, inf or out of range is an error
            const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
            if let Some(v) = flat.values.iter().find(|v| !(-LIMIT..LIMIT).contains(*v)) {
                return Err(PyRuntimeError::new_err(format!(
                    "value cannot be converted to type int64 without overflow (got {v})"
                )));
            }
        }
        let t = Tensor::from_vec(flat.values, &flat.shape).map_err(super::errors::to_py_err)?;
        // straight from the f64 values to the requested dtype: no detour through float32
        return t
            .to_dtype(dtype.unwrap_or(kind))
            .map_err(super::errors::to_py_err);
    };
    Ok(match dtype {
        Some(d) => t.to_dtype(d).map_err(super::errors::to_py_err)?,
        None => t,
    })
}

fn index_item(obj: &Bound<'_, PyAny>) -> PyResult<Index> {
    if obj.is_none() {
        return Ok(Index::Basic(IndexItem::NewAxis));
    }
    if obj.is_instance_of::<PyEllipsis>() {
        return Ok(Index::Basic(IndexItem::Ellipsis));
    }
    if let Ok(slice) = obj.cast::<PySlice>() {
        let part = |name: &str| -> PyResult<Option<isize>> {
            let v = slice.getattr(name)?;
            if v.is_none() {
                Ok(None)
            } else {
                v.extract::<isize>().map(Some)
            }
        };
        return Ok(Index::Basic(IndexItem::Slice(
            part("start")?,
            part("stop")?,
            part("step")?.unwrap_or(1),
        )));
    }
    if obj.is_instance_of::<PyBool>() {
        let mask = Tensor::scalar(obj.extract::<bool>()?);
        return Ok(Index::Tensor(mask));
    }
    if let Ok(t) = obj.cast::<PyTensor>() {
        let t: &Tensor = &t.get().inner;
        if t.dim() == 0 && matches!(t.dtype(), DType::Int64 | DType::Int32) {
            if let Ok(Scalar::Int(i)) = t.item() {
                return Ok(Index::Basic(IndexItem::Int(i as isize)));
            }
        }
        return index_tensor(obj.py(), t.clone());
    }
    if obj.is_instance_of::<PyList>() || is_numpy_array(obj) {
        return index_tensor(obj.py(), tensor_from_data(obj, None)?);
    }
    if obj.is_instance_of::<pyo3::types::PyRange>() {
        // a range indexes as the list of its integers (PyTorch reads any sequence as data)
        let items = obj.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        let list = PyList::new(obj.py(), items)?;
        return Ok(Index::Tensor(tensor_from_data(&list, Some(DType::Int64))?));
    }
    if let Ok(i) = obj.extract::<isize>() {
        return Ok(Index::Basic(IndexItem::Int(i)));
    }
    if obj.is_instance_of::<pyo3::types::PyString>() {
        // PyTorch tries the string as tensor data
        return Err(PyTypeError::new_err("new(): invalid data type 'str'"));
    }
    Err(PyIndexError::new_err(format!(
        "only integers, slices (`:`), ellipsis (`...`), None and long or bool tensors are valid indices (got {})",
        obj.get_type().name()?
    )))
}

/// `x[index]` arguments as index entries (a tuple is several entries; a list is one tensor).
pub(crate) fn index_items(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Index>> {
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return tuple.iter().map(|o| index_item(&o)).collect();
    }
    if list_as_tuple(obj)? {
        let category = obj.py().get_type::<pyo3::exceptions::PyUserWarning>();
        PyErr::warn(
            obj.py(),
            &category,
            c"Using a non-tuple sequence for multidimensional indexing is deprecated and will be \
changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be \
interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error or a \
different result",
            1,
        )?;
        return obj.try_iter()?.map(|o| index_item(&o?)).collect();
    }
    Ok(vec![index_item(obj)?])
}

/// NumPy's old rule, which PyTorch keeps (with a deprecation warning): a list of fewer than 32
/// entries indexes as a tuple of indices when an entry is a tensor, a sequence, a slice,
/// `...` or `None` (`x[[[0, 1], [2, 0]]]` is `x[[0, 1], [2, 0]]`), else as one index tensor.
fn list_as_tuple(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let Ok(list) = obj.cast::<PyList>() else {
        return Ok(false);
    };
    if list.len() >= 32 {
        return Ok(false);
    }
    for item in list.iter() {
        let sequence = item.is_instance_of::<PyList>()
            || item.is_instance_of::<PyTuple>()
            || item.is_instance_of::<pyo3::types::PyRange>()
            || item.is_instance_of::<pyo3::types::PyString>()
            || is_numpy_array(&item);
        if sequence
            || item.cast::<PyTensor>().is_ok()
            || item.is_instance_of::<PySlice>()
            || item.is_instance_of::<PyEllipsis>()
            || item.is_none()
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// True when every entry is basic (the result is then a view).
pub(crate) fn basic_only(items: &[Index]) -> Option<Vec<IndexItem>> {
    items
        .iter()
        .map(|i| match i {
            Index::Basic(b) => Some(*b),
            Index::Tensor(_) => None,
        })
        .collect()
}

static SIZE_TYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Registers the Python `Size` class (a tuple subclass) used for `.shape`.
#[pyfunction]
#[pyo3(signature = (cls: "type[tuple[int, ...]]") -> "None")]
pub(crate) fn _register_size(py: Python<'_>, cls: Py<PyAny>) {
    let _ = SIZE_TYPE.set(py, cls);
}

/// Whether `obj` is a `ferrograd.Size`.
pub(crate) fn is_size(obj: &Bound<'_, PyAny>) -> bool {
    SIZE_TYPE
        .get(obj.py())
        .is_some_and(|cls| obj.is_instance(cls.bind(obj.py())).unwrap_or(false))
}

/// A shape as `ferrograd.Size` (a tuple) for Python.
pub(crate) fn size_object<'py>(py: Python<'py>, shape: &[usize]) -> PyResult<Bound<'py, PyAny>> {
    let tuple = PyTuple::new(py, shape)?;
    match SIZE_TYPE.get(py) {
        Some(cls) => cls.bind(py).call1((tuple,)),
        None => Ok(tuple.into_any()),
    }
}

/// PyTorch's device types, for its message on an unknown one.
const DEVICE_TYPES: &str = "cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone";

/// Whether a `device=` argument names the meta device (`"meta"`, `"meta:0"`, `device("meta")`).
pub(crate) fn is_meta_device(device: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(s) = device.extract::<String>() {
        return Ok(s.split(':').next() == Some("meta"));
    }
    if device.hasattr("type")? && device.hasattr("index")? {
        return Ok(device.getattr("type")?.extract::<String>().ok().as_deref() == Some("meta"));
    }
    Ok(false)
}

/// Checks a `device=` argument (a string such as `"cpu:0"` or a `device` object): the CPU is
/// accepted; any other device PyTorch knows is a RuntimeError saying ferrograd has only the
/// CPU; anything else is PyTorch's RuntimeError for an unknown device string.
pub(crate) fn device_arg(device: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
    let Some(device) = device.filter(|d| !d.is_none()) else {
        return Ok(());
    };
    let text = match device.extract::<String>() {
        Ok(s) => s,
        Err(_) if device.hasattr("type")? => device.str()?.to_string(),
        Err(_) => {
            return Err(pyo3::exceptions::PyTypeError::new_err(format!(
                "device must be a string or a device, not {}",
                device.get_type().name()?
            )))
        }
    };
    let kind = text.split(':').next().unwrap_or_default();
    if kind == "cpu" {
        return Ok(());
    }
    if DEVICE_TYPES.split(", ").any(|k| k == kind) {
        return Err(PyRuntimeError::new_err(format!(
            "ferrograd computes on the CPU only: device '{text}' is not available"
        )));
    }
    Err(PyRuntimeError::new_err(format!(
        "Expected one of {DEVICE_TYPES} device type at start of device string: {text}"
    )))
}
