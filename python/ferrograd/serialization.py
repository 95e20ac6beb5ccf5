"""``torch.save``/``torch.load`` in PyTorch's file format.

A file is a zip archive as PyTorch writes it: ``<archive>/data.pkl`` (a protocol-2 pickle in
which every tensor is a ``torch._utils._rebuild_tensor_v2`` call on a persistent id
``('storage', torch.FloatStorage, key, 'cpu', numel)``), the raw little-endian bytes of each
storage in ``<archive>/data/<key>`` (aligned to 64 bytes), and the records ``.format_version``,
``.storage_alignment``, ``byteorder``, ``version`` and ``.data/serialization_id``. The pickle
names PyTorch's globals (``torch._utils``, ``torch.FloatStorage``, ``torch.Size``, ...), so
PyTorch reads ferrograd's files, and ``load`` maps those names to ferrograd's objects, so
ferrograd reads PyTorch's. PyTorch's legacy (pre-1.6, non-zip) format is read and written too.

``load`` is weights-only by default, as PyTorch 2.6 on: the unpickler only resolves the globals
PyTorch's weights-only unpickler allows (plus those given to :func:`add_safe_globals`), and
anything else raises ``pickle.UnpicklingError``.

What ferrograd cannot express: it has the dtypes float32, float64, int64, int32, int16, int8,
uint8 and bool, so tensors stored as uint16 or uint32 load as int64 and float16 or bfloat16 as
float32 (the values are exact; a ``UserWarning`` names the widening), and complex, quantized,
float8, sparse and nested tensors are refused. Tensors that share a storage in the file come back
as views of one ferrograd tensor (writes through one show in the others), except where their
layouts overlap in ways views cannot express, where they are copies. ``save`` writes each tensor
with a storage of its own (ferrograd does not expose strides and storages to Python), so views of
one tensor are saved as separate copies; the same tensor object saved twice is stored once.
"""

import _compat_pickle
import codecs
import collections
import contextlib
import hashlib
import io
import os
import pickle
import struct
import warnings
import zipfile
import zlib

import numpy as np

from . import _core

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "load",
    "safe_globals",
    "save",
]

DEFAULT_PROTOCOL = 2
# The legacy format's header: a magic number, its protocol version and the writer's type sizes.
MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
_STORAGE_ALIGNMENT = 64
# The zip format version PyTorch 2.x writes in the ``version`` record.
_FILE_FORMAT_VERSION = b"3\n"

UNSAFE_MESSAGE = (
    "In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
    "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
    "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
    "file from a trusted source."
)
_DOCS_MESSAGE = (
    "\n\nCheck the documentation of torch.load to learn more about types accepted by default with "
    "weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
)

# ----- dtypes ------------------------------------------------------------------------------------

# PyTorch's dtypes whose storages ferrograd reads: name -> (legacy storage class, numpy type of
# the stored elements, the ferrograd dtype the tensor loads as).
_DTYPES = {
    "float32": ("FloatStorage", "f4", "float32"),
    "float64": ("DoubleStorage", "f8", "float64"),
    "int64": ("LongStorage", "i8", "int64"),
    "bool": ("BoolStorage", "?", "bool"),
    "int32": ("IntStorage", "i4", "int32"),
    "int16": ("ShortStorage", "i2", "int16"),
    "int8": ("CharStorage", "i1", "int8"),
    "uint8": ("ByteStorage", "u1", "uint8"),
    "uint16": (None, "u2", "int64"),
    "uint32": (None, "u4", "int64"),
    "float16": ("HalfStorage", "f2", "float32"),
    "bfloat16": ("BFloat16Storage", "u2", "float32"),  # the top half of a float32
}
# PyTorch's dtypes that ferrograd has no way to hold (refused when a tensor needs them).
_FOREIGN_DTYPES = (
    "complex32 complex64 complex128 bcomplex32 uint64 qint8 quint8 qint32 quint4x2 quint2x4 "
    "float8_e4m3fn float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn_x2 "
    "bits1x8 bits2x4 bits4x2 bits8 bits16 "
    "int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7"
).split()
_FOREIGN_STORAGES = {
    "ComplexFloatStorage": "complex64",
    "ComplexDoubleStorage": "complex128",
    "QInt8Storage": "qint8",
    "QUInt8Storage": "quint8",
    "QInt32Storage": "qint32",
    "QUInt4x2Storage": "quint4x2",
    "QUInt2x4Storage": "quint2x4",
}
_SAVED_DTYPES = {"float32", "float64", "int64", "int32", "int16", "int8", "uint8", "bool"}


class _ForeignDtype:
    """A PyTorch dtype ferrograd has no equivalent of, as it comes out of a file (it names the
    dtype of a tensor rebuilt with ``_rebuild_tensor_v3``; a tensor of it is widened or refused)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __eq__(self, other):
        return isinstance(other, _ForeignDtype) and other.name == self.name

    def __hash__(self):
        return hash(("torch", self.name))


def _dtype_name(dtype):
    """``float32`` for ``ferrograd.float32``, a foreign dtype or a storage type."""
    if isinstance(dtype, (_ForeignDtype, _StorageType)):
        return dtype.name
    return str(dtype).rpartition(".")[2]


def _ferrograd_dtype(name):
    return getattr(_core, name)


class _StorageType:
    """A storage class named in a file (``torch.FloatStorage``, ``torch.storage.UntypedStorage``):
    the dtype of the elements the persistent id counts."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"StorageType(dtype=torch.{self.name})"


# ----- reading storages and rebuilding tensors ---------------------------------------------------


class _LoadedStorage:
    """One storage of a file as the rebuild functions receive it: ``nbytes`` bytes read as
    ``dtype`` elements. The tensors built on it share one ferrograd tensor (per dtype) where
    views can express their layouts. In the legacy format the bytes follow the pickle, so its
    tensors are made first and filled in by :meth:`fill`."""

    def __init__(self, context, key, dtype, nbytes, location):
        self.context = context
        self.key = key
        self.dtype = dtype
        self.location = location
        self._nbytes = nbytes
        self._bases = {}  # dtype name -> ('whole', tensor) or ('flat', 1-D tensor)
        self._copies = []  # (tensor, dtype, offset, size, stride) not sharing the storage

    def __repr__(self):
        return f"<storage of {self._nbytes} bytes (torch.{self.dtype}) from {self.location}>"

    def cpu(self):
        """This storage (it is on the CPU): what a ``map_location`` callable may return."""
        return self

    def nbytes(self):
        """Size in bytes."""
        return self._nbytes

    def elements(self, dtype):
        """The storage as a 1-D numpy array of ``dtype``'s elements, converted to the type the
        ferrograd tensor holds (zeros while the bytes are still unread)."""
        kind, target = _DTYPES[dtype][1:]
        item = np.dtype(kind).itemsize
        if self._nbytes % item:
            raise RuntimeError(
                f"storage of {self._nbytes} bytes does not hold a whole number of "
                f"torch.{dtype} elements ({item} bytes each)"
            )
        if target != dtype:
            self.context.widened(dtype, target)
        numpy_target = np.dtype(_DTYPES[target][1])
        data = self.context.raw.get(self.key)
        if data is None:
            return np.zeros(self._nbytes // item, dtype=numpy_target)
        order = ">" if self.context.big_endian else "<"
        raw = np.frombuffer(
            data, dtype=np.dtype(kind).newbyteorder(order), count=self._nbytes // item
        )
        if dtype == "bfloat16":
            return (raw.astype(np.uint32) << 16).view(np.float32)
        return raw.astype(numpy_target)

    def fill(self):
        """Writes the storage's bytes (now read) into the tensors made on it."""
        for dtype, (_, holder) in self._bases.items():
            values = self.elements(dtype).reshape(holder.shape)
            holder.detach().copy_(_core.from_numpy(values))
        for tensor, dtype, offset, size, stride in self._copies:
            tensor.detach().copy_(
                _core.from_numpy(_strided_copy(self.elements(dtype), offset, size, stride))
            )


def _strided_copy(elements, offset, size, stride):
    strided = np.lib.stride_tricks.as_strided(
        elements[offset:],
        shape=size,
        strides=[s * elements.itemsize for s in stride],
        writeable=False,
    )
    return np.ascontiguousarray(strided)


def _contiguous_strides(size):
    strides = []
    step = 1
    for n in reversed(size):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _strided_view(flat, offset, size, stride):
    """The elements ``flat[offset + sum(i_k * stride[k])]`` of the 1-D tensor ``flat`` as a view
    of it, made of slices, narrow/view/select/permute/unsqueeze/expand; None when views cannot
    express the layout (dimensions stepping over the same elements, or rows running past the
    storage's end)."""
    dims = sorted(
        ((d, n, s) for d, (n, s) in enumerate(zip(size, stride)) if n != 1 and s != 0),
        key=lambda dim: -dim[2],
    )
    if len(dims) == 1:  # a step slice: it needs no whole rows
        _, n, s = dims[0]
        view = flat[offset : offset + (n - 1) * s + 1 : s]
    else:
        view = _rows_view(flat, offset, dims)
        if view is None:
            return None
    expanded = False
    for d, (n, s) in enumerate(zip(size, stride)):
        if n == 1 or s == 0:
            view = view.unsqueeze(d)
            expanded = expanded or n != 1
    if expanded:
        view = view.expand(*size)
    return view


def _rows_view(flat, offset, dims):
    """The view for ``dims`` ((dim, size, stride), by decreasing stride): for each dimension the
    storage is cut into rows of ``stride`` elements, the wanted elements at the same place in
    each; the dimensions are then put back in their order."""
    # extent[k]: how many consecutive elements the dimensions after the k-th one span
    extent = [1] * len(dims)
    span = 1
    for k in range(len(dims) - 1, -1, -1):
        extent[k] = span
        span += (dims[k][1] - 1) * dims[k][2]
    view, start, length = flat, offset, flat.shape[0]
    for k, (_, n, s) in enumerate(dims):
        if extent[k] > s:
            return None
        first = max(0, start - (s - extent[k]))  # the earliest row start that keeps them in
        if first + n * s > length:
            return None
        view = view.narrow(-1, first, n * s).view(*view.shape[:-1], n, s)
        start, length = start - first, s
    view = view.select(-1, start)
    if len(dims) > 1:
        view = view.permute(sorted(range(len(dims)), key=lambda k: dims[k][0]))
    return view


def _check_bounds(numel_stored, dtype, offset, size, stride):
    if any(n == 0 for n in size):
        return
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if offset < 0 or any(s < 0 for s in stride) or needed > numel_stored:
        # PyTorch's set_ tries to grow the storage to fit, which a loaded storage refuses
        raise RuntimeError(
            f"Trying to resize storage that is not resizable: sizes {list(size)}, strides "
            f"{list(stride)} and storage offset {offset} need {needed} elements of "
            f"torch.{dtype}, the storage holds {numel_stored}"
        )


def _tensor_on_storage(storage, dtype, offset, size, stride):
    """The tensor PyTorch's ``set_(storage, offset, size, stride)`` makes, as a ferrograd tensor
    sharing its elements with the other tensors on the same storage where it can."""
    if dtype in _FOREIGN_DTYPES or dtype not in _DTYPES:
        raise RuntimeError(f"ferrograd has no tensors of dtype torch.{dtype} (in this file)")
    size, stride = tuple(int(n) for n in size), tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError(
            f"mismatch in length of strides and shape: {len(stride)} strides for {len(size)} sizes"
        )
    elements = storage.elements(dtype)
    _check_bounds(elements.shape[0], dtype, offset, size, stride)
    if any(n == 0 for n in size):
        return _core.from_numpy(np.zeros(size, dtype=elements.dtype))
    base = storage._bases.get(dtype)
    whole = (
        offset == 0
        and stride == _contiguous_strides(size)
        and elements.shape[0] == (int(np.prod(size, dtype=np.int64)))
    )
    if base is None and whole:
        tensor = _core.from_numpy(elements.reshape(size))
        storage._bases[dtype] = ("whole", tensor)
        return tensor
    if base is None:
        base = ("flat", _core.from_numpy(elements))
        storage._bases[dtype] = base
    kind, holder = base
    flat = holder if kind == "flat" else holder.detach().reshape(-1)
    view = _strided_view(flat, offset, size, stride)
    if view is None:
        view = _core.from_numpy(_strided_copy(elements, offset, size, stride))
        storage._copies.append((view, dtype, offset, size, stride))
    return view


def _storage_dtype(storage):
    if not isinstance(storage, _LoadedStorage):
        raise TypeError(f"expected a storage from the file, got {type(storage).__name__}")
    return storage.dtype


def _set_requires_grad(tensor, requires_grad):
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_tensor(storage, storage_offset, size, stride):
    """``torch._utils._rebuild_tensor``: a tensor on ``storage`` (its dtype)."""
    return _tensor_on_storage(storage, _storage_dtype(storage), storage_offset, size, stride)


def _check_metadata(metadata):
    if metadata and any(metadata.values()):
        raise RuntimeError(
            f"ferrograd cannot load a tensor with the conjugate or negative bit set ({metadata})"
        )


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    """``torch._utils._rebuild_tensor_v2``: a tensor on ``storage`` with ``requires_grad``
    (``backward_hooks`` are not saved by PyTorch, so ignored)."""
    _check_metadata(metadata)
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    return _set_requires_grad(tensor, requires_grad)


def _rebuild_tensor_v3(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None
):
    """``torch._utils._rebuild_tensor_v3``: as v2, on an untyped storage with an explicit dtype."""
    _check_metadata(metadata)
    _storage_dtype(storage)
    tensor = _tensor_on_storage(storage, _dtype_name(dtype), storage_offset, size, stride)
    return _set_requires_grad(tensor, requires_grad)


def _parameter_class():
    from .nn import Parameter

    return Parameter


def _set_state(obj, state):
    """Sets the Python attributes PyTorch saved with a tensor (``__dict__``, or it and slots)."""
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError(f"Invalid serialized state: {state}")
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for part in (dict_state, slots_state):
        for name, value in (part or {}).items():
            try:
                setattr(obj, name, value)
            except AttributeError:
                raise RuntimeError(
                    f"ferrograd cannot restore the attribute {name!r} saved with a "
                    f"{type(obj).__name__}: its tensors hold no Python attributes"
                ) from None
    return obj


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """``torch._utils._rebuild_parameter``: an ``nn.Parameter`` sharing ``data``."""
    return _parameter_class()(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """``torch._utils._rebuild_parameter_with_state``: a parameter with Python attributes."""
    return _set_state(_rebuild_parameter(data, requires_grad, backward_hooks), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """``torch._tensor._rebuild_from_type_v2``: ``func(*args)`` as ``new_type``, with ``state``."""
    tensor = func(*args)
    if type(tensor) is not new_type:
        if not (isinstance(new_type, type) and issubclass(new_type, _core.Tensor)):
            raise pickle.UnpicklingError(f"cannot rebuild a tensor as {new_type!r}")
        tensor = new_type(tensor, tensor.requires_grad)
    return _set_state(tensor, state)


def _unsupported(path, what):
    def refuse(*args, **kwargs):
        raise RuntimeError(f"ferrograd cannot load {what} (the file calls {path})")

    refuse.__name__ = path.rpartition(".")[2]
    return refuse


# ----- which globals a file may name -------------------------------------------------------------


_ALLOWED: dict = {}


def _allowed_globals():
    """PyTorch's weights-only allowlist, each name mapped to what ferrograd rebuilds it as."""
    if not _ALLOWED:
        _ALLOWED.update(_make_allowed_globals())
    return _ALLOWED


def _make_allowed_globals():
    import ferrograd

    from .nn import Parameter

    allowed = {
        "collections.OrderedDict": collections.OrderedDict,
        "collections.Counter": collections.Counter,
        "torch.nn.parameter.Parameter": Parameter,
        "torch.Size": ferrograd.Size,
        "torch.Tensor": _core.Tensor,
        "torch.device": ferrograd.device,
        "_codecs.encode": codecs.encode,
        "builtins.bytearray": bytearray,
        "builtins.set": set,
        "builtins.complex": complex,
        "torch._utils._rebuild_tensor": _rebuild_tensor,
        "torch._utils._rebuild_tensor_v2": _rebuild_tensor_v2,
        "torch._utils._rebuild_tensor_v3": _rebuild_tensor_v3,
        "torch._utils._rebuild_parameter": _rebuild_parameter,
        "torch._utils._rebuild_parameter_with_state": _rebuild_parameter_with_state,
        "torch._tensor._rebuild_from_type_v2": _rebuild_from_type_v2,
        "torch.storage.UntypedStorage": _StorageType("uint8"),
        "torch.storage.TypedStorage": _StorageType("uint8"),
    }
    for name in _SAVED_DTYPES:
        allowed[f"torch.{name}"] = _ferrograd_dtype(name)
    for name, (storage, _, _) in _DTYPES.items():
        if f"torch.{name}" not in allowed:
            allowed[f"torch.{name}"] = _ForeignDtype(name)
        if storage is not None:
            allowed[f"torch.{storage}"] = _StorageType(name)
            allowed[f"torch.cuda.{storage}"] = _StorageType(name)
    for name in _FOREIGN_DTYPES:
        allowed[f"torch.{name}"] = _ForeignDtype(name)
    for storage, name in _FOREIGN_STORAGES.items():
        allowed[f"torch.{storage}"] = _StorageType(name)
        if not name.startswith("q"):  # PyTorch has no quantized CUDA storage classes
            allowed[f"torch.cuda.{storage}"] = _StorageType(name)
    refused = {
        "_rebuild_sparse_tensor": "sparse tensors",
        "_rebuild_qtensor": "quantized tensors",
        "_rebuild_meta_tensor_no_storage": "tensors on the meta device",
        "_rebuild_wrapper_subclass": "tensor subclasses without storage",
        "_rebuild_device_tensor_from_cpu_tensor": "tensors of other devices",
        "_rebuild_device_tensor_from_numpy": "tensors of other devices",
    }
    for name, what in refused.items():
        allowed[f"torch._utils.{name}"] = _unsupported(f"torch._utils.{name}", what)
    allowed["torch.serialization._get_layout"] = _unsupported(
        "torch.serialization._get_layout", "tensor layouts"
    )
    for prefix in ("torch", "torch.cuda", "torch.sparse", "torch.cuda.sparse"):
        for kind in ("BFloat16", "Bool", "Byte", "Char", "Double", "Float", "Half", "Int", "Long"):
            if kind != "Bool" or "sparse" not in prefix:
                name = f"{prefix}.{kind}Tensor"
                allowed[name] = _unsupported(name, "PyTorch's legacy tensor types")
        allowed[f"{prefix}.ShortTensor"] = _unsupported(
            f"{prefix}.ShortTensor", "PyTorch's legacy tensor types"
        )
    for scheme in (
        "per_tensor_affine",
        "per_tensor_symmetric",
        "per_channel_affine",
        "per_channel_symmetric",
        "per_channel_affine_float_qparams",
    ):
        allowed[f"torch.{scheme}"] = _unsupported(f"torch.{scheme}", "quantized tensors")
    return allowed


_user_globals: dict = {}


def _global_name(obj):
    if isinstance(obj, tuple):
        obj, name = obj
        return name, obj
    return f"{obj.__module__}.{obj.__qualname__}", obj


def add_safe_globals(safe_globals):
    """Allows ``load`` (weights-only) to use these classes and functions (or ``(obj, name)``
    pairs) when a file names them."""
    for item in safe_globals:
        name, obj = _global_name(item)
        _user_globals[name] = obj


def get_safe_globals():
    """The globals added with :func:`add_safe_globals`."""
    return list(_user_globals.values())


def clear_safe_globals():
    """Forgets the globals added with :func:`add_safe_globals`."""
    _user_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals):
    """A context in which ``load`` also allows ``safe_globals`` (as :func:`add_safe_globals`)."""
    before = dict(_user_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_globals.clear()
        _user_globals.update(before)


def _disallowed(module, name):
    full = f"{module}.{name}"
    if full.startswith("builtins."):
        full = full[len("builtins.") :]
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {full} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full}])` or the "
        f"`torch.serialization.safe_globals([{full}])` context manager to allowlist this global "
        "if you trust this class/function."
    )


def _weights_only_message(message):
    """PyTorch's wording around a weights-only refusal."""
    if "was not an allowed global by default" in message:
        return (
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \033[1mdo those steps only if you trust the source of the checkpoint\033[0m. "
            f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
            "please check the recommended steps in the following error message.\n\t"
            "WeightsUnpickler error: " + message + _DOCS_MESSAGE
        )
    return (
        f"Weights only load failed. {UNSAFE_MESSAGE}\nPlease file an issue with the following so "
        "that we can make `weights_only=True` compatible with your use case: WeightsUnpickler "
        "error: \n\n" + message + _DOCS_MESSAGE
    )


# ----- the unpickler -----------------------------------------------------------------------------


class _LoadContext:
    """What one ``load`` call keeps: the byte order, ``map_location``, the bytes and storages read
    so far, and the dtypes widened (one warning each)."""

    def __init__(self, map_location, read_record=None):
        self.map_location = map_location
        self.read_record = read_record  # key, nbytes -> bytes (None: read after the pickle)
        self.big_endian = False
        self.raw = {}  # storage key -> bytes
        self.storages = {}  # (key, dtype) -> _LoadedStorage
        self.widenings = {}  # dtype -> the dtype it was loaded as

    def widened(self, dtype, target):
        self.widenings[dtype] = target

    def warn(self):
        """One warning naming the dtypes ferrograd widened (from ``load``, for its caller)."""
        if self.widenings:
            names = ", ".join(f"torch.{d} as torch.{t}" for d, t in self.widenings.items())
            warnings.warn(
                f"ferrograd has no dtype for some tensors of this file; loaded {names} "
                "(the values are exact)",
                UserWarning,
                stacklevel=3,
            )

    def storage(self, key, dtype, nbytes, location):
        """The storage ``key`` read as ``dtype`` (one object per key and dtype, as PyTorch)."""
        if (key, dtype) not in self.storages:
            if key not in self.raw and self.read_record is not None:
                self.raw[key] = self.read_record(key, nbytes)
            storage = _LoadedStorage(self, key, dtype, nbytes, location)
            self.storages[key, dtype] = self.place(storage, location)
        return self.storages[key, dtype]

    def place(self, storage, location):
        """Applies ``map_location`` to a storage saved at ``location``: the CPU is the only place
        ferrograd's tensors live."""
        target = self.map_location
        if callable(target) and not isinstance(target, _device_class()):
            placed = target(storage, location)
            if placed is not None:
                return placed
            target = None
        if isinstance(target, dict):
            target = target.get(location, location)
        if target is None:
            if location.partition(":")[0] == "cuda":
                raise RuntimeError(
                    "Attempting to deserialize object on a CUDA device but "
                    "torch.cuda.is_available() is False. If you are running on a CPU-only "
                    "machine, please use torch.load with map_location=torch.device('cpu') to "
                    "map your storages to the CPU."
                )
            target = location
        if str(target).partition(":")[0] != "cpu":
            _core.zeros(0).to(str(target))  # ferrograd's refusal of other devices
        return storage


def _device_class():
    from ._device import device

    return device


class _UnpicklerMixin:
    """Reads ``data.pkl``: PyTorch's globals become ferrograd's, storages come from the file, and
    with ``weights_only`` nothing outside the allowlist is resolved."""

    def __init__(self, file, context, weights_only, legacy=False, **kwargs):
        super().__init__(file, **kwargs)
        self._context = context
        self._weights_only = weights_only
        self._legacy = legacy

    def find_class(self, module, name):
        # Python 2's names, which protocol 2 writes for builtins (as PyTorch maps them)
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[module, name]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        allowed = _allowed_globals()
        if full in allowed:
            return allowed[full]
        if full in _user_globals:
            return _user_globals[full]
        if self._weights_only:
            raise _disallowed(module, name)
        if module == "torch" or module.startswith("torch."):
            raise pickle.UnpicklingError(f"ferrograd has no equivalent of {full}")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple):
            raise pickle.UnpicklingError(
                f"persistent_load id must be tuple or int, but got {type(pid)}"
            )
        kind = pid[0] if pid else None
        if isinstance(kind, bytes):
            kind = kind.decode("ascii")
        if kind != "storage":
            raise pickle.UnpicklingError(
                f"Only persistent_load of storage is allowed, but got {type(kind)}"
            )
        if len(pid) != (6 if self._legacy else 5):
            raise pickle.UnpicklingError(f"unexpected storage id {pid!r}")
        storage_type, key, location, numel = pid[1:5]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"persistent id names {storage_type!r}, not a storage")
        if self._legacy and pid[5] is not None:
            raise RuntimeError("ferrograd cannot load storage views of the legacy format")
        if isinstance(location, bytes):
            location = location.decode("ascii")
        dtype = storage_type.name
        if dtype not in _DTYPES:
            raise RuntimeError(f"ferrograd has no tensors of dtype torch.{dtype} (in this file)")
        nbytes = int(numel) * np.dtype(_DTYPES[dtype][1]).itemsize
        return self._context.storage(key, dtype, nbytes, location)


_unpicklers: dict = {}


def _unpickler(pickle_module):
    """The unpickler class built on ``pickle_module.Unpickler``."""
    base = pickle_module.Unpickler
    if base not in _unpicklers:
        _unpicklers[base] = type("_Unpickler", (_UnpicklerMixin, base), {})
    return _unpicklers[base]


# ----- load --------------------------------------------------------------------------------------


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


@contextlib.contextmanager
def _opened(f, mode):
    if _is_path(f):
        with open(f, mode) as opened:
            yield opened
    else:
        yield f


def _check_seekable(f):
    try:
        f.seek(f.tell())
    except (AttributeError, io.UnsupportedOperation) as e:
        if "seek" not in str(e) and "tell" not in str(e):
            raise
        raise type(e)(
            f"{e}. You can only torch.load from a file that is seekable. Please pre-load the "
            "data into a buffer like io.BytesIO and try to load from it instead."
        ) from None


def _is_zipfile(f):
    start = f.tell()
    head = f.read(4)
    f.seek(start)
    return head == b"PK\x03\x04"


def _archive_prefix(names):
    for name in names:
        head, _, tail = name.partition("/")
        if tail == "data.pkl":
            return head
    raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")


def _load_zip(f, map_location, unpickler, weights_only, kwargs):
    with zipfile.ZipFile(f) as archive:
        names = archive.namelist()
        prefix = _archive_prefix(names)
        records = set(names)
        if f"{prefix}/constants.pkl" in records:
            if weights_only:
                raise RuntimeError(
                    "Cannot use ``weights_only=True`` with TorchScript archives passed to "
                    "``torch.load``. " + UNSAFE_MESSAGE
                )
            raise RuntimeError("ferrograd cannot load TorchScript archives")

        def read_record(key, nbytes):
            name = f"{prefix}/data/{key}"
            if name not in records:
                raise RuntimeError(
                    f"PytorchStreamReader failed locating file data/{key}: file not found"
                )
            data = archive.read(name)
            if len(data) < nbytes:
                raise RuntimeError(
                    f"storage data/{key} holds {len(data)} bytes, the pickle asks for {nbytes}"
                )
            return data

        context = _LoadContext(map_location, read_record)
        if f"{prefix}/byteorder" in records:
            byteorder = archive.read(f"{prefix}/byteorder")
            if byteorder not in (b"little", b"big"):
                raise ValueError("Unknown endianness type: " + byteorder.decode())
            context.big_endian = byteorder == b"big"
        data = io.BytesIO(archive.read(f"{prefix}/data.pkl"))
        return unpickler(data, context, weights_only, **kwargs).load(), context


def _load_legacy(f, map_location, unpickler, weights_only, kwargs):
    context = _LoadContext(map_location)

    def read_pickle():
        return unpickler(f, context, weights_only, legacy=True, **kwargs).load()

    if read_pickle() != MAGIC_NUMBER:
        raise RuntimeError("Invalid magic number; corrupt file?")
    protocol = read_pickle()
    if protocol != PROTOCOL_VERSION:
        raise RuntimeError(f"Invalid protocol version: {protocol}")
    sys_info = read_pickle()
    context.big_endian = not sys_info.get("little_endian", True)
    # The storages' bytes follow the object: its tensors are made first, then filled in.
    result = read_pickle()
    keys = read_pickle()
    storages = {key: s for (key, _), s in context.storages.items()}
    for key in keys:
        if key not in storages:
            raise RuntimeError(f"storage key {key!r} not found in deserialized_objects")
        storage = storages[key]
        (count,) = struct.unpack(">q" if context.big_endian else "<q", f.read(8))
        item = np.dtype(_DTYPES[storage.dtype][1]).itemsize
        context.raw[key] = f.read(count * item)
        if len(context.raw[key]) != storage.nbytes():
            raise RuntimeError(f"storage {key!r} of the file is shorter than its tensors need")
    with _no_grad():
        for storage in context.storages.values():
            storage.fill()
    return result, context


def _no_grad():
    from ._grad_mode import no_grad

    return no_grad()


def load(
    f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args
):
    """Loads an object saved with ``torch.save`` or ``ferrograd.save`` from ``f`` (a path or a
    seekable binary file). Tensors come back as ferrograd tensors on the CPU (``map_location``
    may be None, ``"cpu"``, a CPU device, a dict remapping locations or a callable).

    ``weights_only`` (True unless a ``pickle_module`` is given, as PyTorch) resolves only the
    globals of PyTorch's weights-only allowlist and those of :func:`add_safe_globals`; anything
    else raises ``pickle.UnpicklingError``. ``weights_only=False`` unpickles any object (only for
    files you trust)."""
    kwargs = pickle_load_args
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only:
        if pickle_module is not None:
            raise RuntimeError(
                "Can not safely load weights when explicit pickle_module is specified"
            )
        if kwargs:
            warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
        kwargs = {"encoding": kwargs.get("encoding", "utf-8")}
        pickle_module = pickle
    elif pickle_module is None:
        pickle_module = pickle
    kwargs.setdefault("encoding", "utf-8")
    if isinstance(map_location, (str, _device_class())):
        if str(map_location).partition(":")[0] != "cpu":
            _core.zeros(0).to(str(map_location))  # ferrograd's refusal of other devices
    unpickler = _unpickler(pickle_module)
    with _opened(f, "rb") as opened:
        _check_seekable(opened)
        try:
            if _is_zipfile(opened):
                if mmap and not _is_path(f):
                    raise ValueError("f must be a file path in order to use the mmap argument")
                result, context = _load_zip(opened, map_location, unpickler, weights_only, kwargs)
            else:
                if mmap:
                    name = f"{f}, " if isinstance(f, str) else ""
                    raise RuntimeError(
                        "mmap can only be used with files saved with "
                        f"`torch.save({name}_use_new_zipfile_serialization=True), "
                        "please torch.save your checkpoint with this option in order to use "
                        "mmap."
                    )
                result, context = _load_legacy(
                    opened, map_location, unpickler, weights_only, kwargs
                )
        except pickle.UnpicklingError as e:
            if weights_only:
                raise pickle.UnpicklingError(_weights_only_message(str(e))) from None
            raise
    context.warn()
    return result


# ----- save --------------------------------------------------------------------------------------


class _TorchName:
    """A global of PyTorch's (``torch._utils._rebuild_tensor_v2``) as the pickle names it."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module = module
        self.name = name

    def __call__(self, *args):  # pickle's save_reduce wants a callable
        raise TypeError(f"{self.module}.{self.name} is PyTorch's, named in ferrograd's files only")


_torch_names: dict = {}


def _torch_name(module, name):
    key = (module, name)
    if key not in _torch_names:
        _torch_names[key] = _TorchName(module, name)
    return _torch_names[key]


class _SavedStorage:
    """The elements of one saved tensor, written as ``data/<key>``."""

    __slots__ = ("data", "dtype", "numel")

    def __init__(self, tensor):
        self.dtype = _dtype_name(tensor.dtype)
        if self.dtype not in _SAVED_DTYPES:
            raise RuntimeError(f"cannot save a tensor of dtype {tensor.dtype}")
        values = np.asarray(tensor.detach().numpy())
        self.numel = int(values.size)
        kind = np.dtype(_DTYPES[self.dtype][1]).newbyteorder("<")
        self.data = np.ascontiguousarray(values, dtype=kind).tobytes()


def _pickler_base(pickle_module):
    base = getattr(pickle_module, "_Pickler", None) if pickle_module is pickle else None
    base = base or getattr(pickle_module, "Pickler", None)
    if not (isinstance(base, type) and issubclass(base, pickle._Pickler)):
        raise TypeError(
            "ferrograd.save needs a pickle module whose Pickler derives from the pure-Python "
            "pickle._Pickler (pickle itself, or dill)"
        )
    return base


def _dump(obj, file, pickle_module, protocol, legacy):
    """Pickles ``obj`` into ``file`` as PyTorch does; returns the storages, in key order."""
    storages = []
    keys = {}

    class Pickler(_pickler_base(pickle_module)):
        def persistent_id(self, obj):
            if not isinstance(obj, _SavedStorage):
                return None
            if id(obj) not in keys:
                keys[id(obj)] = str(len(storages))
                storages.append(obj)
            storage_type = _torch_name("torch", _DTYPES[obj.dtype][0])
            if legacy:
                return ("storage", storage_type, keys[id(obj)], "cpu", obj.numel, None)
            return ("storage", storage_type, keys[id(obj)], "cpu", obj.numel)

        def save(self, obj, save_persistent_id=True):
            if isinstance(obj, (_core.dtype, _ForeignDtype)):
                obj = _torch_name("torch", _dtype_name(obj))
            super().save(obj, save_persistent_id)

        def reducer_override(self, obj):
            if isinstance(obj, _TorchName):
                return obj.name
            if isinstance(obj, _core.Tensor):
                return _reduce_tensor(obj)
            import ferrograd

            if isinstance(obj, ferrograd.Size):
                return (_torch_name("torch", "Size"), (tuple(obj),))
            if isinstance(obj, ferrograd.device):
                args = (obj.type,) if obj.index is None else (obj.type, obj.index)
                return (_torch_name("torch", "device"), args)
            return NotImplemented

        def save_global(self, obj, name=None):
            if not isinstance(obj, _TorchName):
                return super().save_global(obj, name)
            if self.proto >= 4:
                self.save(obj.module)
                self.save(obj.name)
                self.write(pickle.STACK_GLOBAL)
            else:
                self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            self.memoize(obj)

    Pickler(file, protocol=protocol).dump(obj)
    return storages


def _reduce_tensor(tensor):
    """How PyTorch's ``Tensor.__reduce_ex__`` and ``Parameter.__reduce_ex__`` pickle it."""
    parameter = _parameter_class()
    state = dict(getattr(tensor, "__dict__", None) or {})
    if isinstance(tensor, parameter):
        data = tensor.detach()
        hooks = collections.OrderedDict()
        if state:
            name = _torch_name("torch._utils", "_rebuild_parameter_with_state")
            return (name, (data, tensor.requires_grad, hooks, state))
        return (
            _torch_name("torch._utils", "_rebuild_parameter"),
            (data, tensor.requires_grad, hooks),
        )
    shape = tuple(tensor.shape)
    args = (
        _SavedStorage(tensor),
        0,
        shape,
        _contiguous_strides(shape),
        tensor.requires_grad,
        collections.OrderedDict(),
    )
    rebuild = _torch_name("torch._utils", "_rebuild_tensor_v2")
    if type(tensor) is _core.Tensor and not state:
        return (rebuild, args)
    return (
        _torch_name("torch._tensor", "_rebuild_from_type_v2"),
        (rebuild, type(tensor), args, state),
    )


def _archive_name(f):
    """PyTorch's archive name for a path: its last component without the extension."""
    name = os.fspath(f) if _is_path(f) else "archive"
    name = name.replace("\\", "/").rpartition("/")[2]
    stem, dot, _ = name.rpartition(".")
    archive = stem if dot else name
    if not archive:
        raise RuntimeError(f"invalid file name: {os.fspath(f)}")
    return archive


_U32 = 0xFFFFFFFF


def _zip64_fields(size, offset):
    """The zip64 extra field for a record whose size or offset does not fit 32 bits."""
    values = (size, size) if size >= _U32 else ()
    values += (offset,) if offset >= _U32 else ()
    if not values:
        return b""
    return struct.pack(f"<HH{len(values)}Q", 1, 8 * len(values), *values)


def _write_zip(f, archive, records):
    """Writes ``records`` ((name, bytes), in order) under ``archive/`` laid out as PyTorch's
    writer (miniz) lays them out: stored, each record's bytes at a multiple of 64 from the
    archive's start (a padding extra field ``FB`` of ``Z`` bytes), followed by a data descriptor
    when there are any (PyTorch's loader counts on those bytes when it computes where storages
    start), then the central directory and zip64 end records."""
    position = 0
    central = []

    def write(data):
        nonlocal position
        f.write(data)
        position += len(data)

    for name, data in records:
        full = f"{archive}/{name}".encode()
        size, crc, offset = len(data), zlib.crc32(data), position
        wide = size >= _U32 or offset >= _U32
        extra = _zip64_fields(size, offset) if wide else b""
        pad = -(offset + 30 + len(full) + len(extra) + 4) % _STORAGE_ALIGNMENT
        extra += b"FB" + struct.pack("<H", pad) + b"Z" * pad
        flags = 0x0808 if size else 0x0800  # UTF-8 name, data descriptor
        header = struct.pack(
            "<IHHHHHIIIHH", 0x04034B50, 0, flags, 0, 0, 0, 0, 0, 0, len(full), len(extra)
        )
        write(header + full + extra)
        write(data)
        if size:
            write(struct.pack("<IIQQ" if wide else "<IIII", 0x08074B50, crc, size, size))
        central.append((full, flags, crc, size, offset))
    directory = position
    for full, flags, crc, size, offset in central:
        extra = _zip64_fields(size, offset)
        write(
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                0,
                0,
                flags,
                0,
                0,
                0,
                crc,
                min(size, _U32),
                min(size, _U32),
                len(full),
                len(extra),
                0,
                0,
                0,
                0,
                min(offset, _U32),
            )
            + full
            + extra
        )
    length, count, end64 = position - directory, len(central), position
    write(
        struct.pack(
            "<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count, count, length, directory
        )
    )
    write(struct.pack("<IIQI", 0x07064B50, 0, end64, 1))
    entries = min(count, 0xFFFF)
    write(
        struct.pack(
            "<IHHHHIIH",
            0x06054B50,
            0,
            0,
            entries,
            entries,
            min(length, _U32),
            min(directory, _U32),
            0,
        )
    )


def _save_zip(obj, f, pickle_module, protocol, byteorder_record):
    pickled = io.BytesIO()
    storages = _dump(obj, pickled, pickle_module, protocol, legacy=False)
    records = [
        ("data.pkl", pickled.getvalue()),
        (".format_version", b"1"),
        (".storage_alignment", str(_STORAGE_ALIGNMENT).encode()),
    ]
    if byteorder_record:
        records.append(("byteorder", b"little"))
    records += [(f"data/{key}", storage.data) for key, storage in enumerate(storages)]
    records.append(("version", _FILE_FORMAT_VERSION))
    records.append((".data/serialization_id", _serialization_id(records)))
    archive = _archive_name(f)
    with _opened(f, "wb") as opened:
        _write_zip(opened, archive, records)


def _serialization_id(records):
    """40 digits that name the file's contents, deterministic as PyTorch's (which combines
    hashes of the record names and CRCs of their data): two 64-bit numbers from a SHA-256 of
    the names and CRCs."""
    digest = hashlib.sha256()
    for name, data in records:
        digest.update(name.encode() + b"\0" + zlib.crc32(data).to_bytes(4, "little"))
    raw = digest.digest()
    return b"".join(b"%020d" % int.from_bytes(raw[i : i + 8], "little") for i in (0, 8))


def _save_legacy(obj, f, pickle_module, protocol):
    sys_info = {
        "protocol_version": PROTOCOL_VERSION,
        "little_endian": True,
        "type_sizes": {"short": 2, "int": 4, "long": struct.calcsize("l")},
    }
    with _opened(f, "wb") as opened:
        for header in (MAGIC_NUMBER, PROTOCOL_VERSION, sys_info):
            pickle_module.dump(header, opened, protocol=protocol)
        storages = _dump(obj, opened, pickle_module, protocol, legacy=True)
        keys = sorted(str(key) for key in range(len(storages)))
        pickle_module.dump(keys, opened, protocol=protocol)
        for key in keys:
            storage = storages[int(key)]
            opened.write(struct.pack("<q", storage.numel))
            opened.write(storage.data)


def save(
    obj,
    f,
    pickle_module=pickle,
    pickle_protocol=DEFAULT_PROTOCOL,
    _use_new_zipfile_serialization=True,
    _disable_byteorder_record=False,
):
    """Saves ``obj`` (tensors, parameters and containers of them, numbers, strings, ...) to ``f``
    (a path or a binary file) in PyTorch's format, for ``torch.load`` or ``ferrograd.load``.
    ``_use_new_zipfile_serialization=False`` writes PyTorch's legacy format."""
    if _use_new_zipfile_serialization:
        _save_zip(obj, f, pickle_module, pickle_protocol, not _disable_byteorder_record)
    else:
        _save_legacy(obj, f, pickle_module, pickle_protocol)
