"""The safetensors format (what most published checkpoints use), with the API of the
``safetensors`` package's ``safetensors.torch`` module: ``save``/``save_file`` write a dict of
tensors, ``load``/``load_file`` read one, ``save_model``/``load_model`` go through a module's
state dict.

A file is an 8-byte little-endian header length, a JSON header naming each tensor's dtype,
shape and byte range (and an optional ``__metadata__`` of strings), then the tensors' bytes,
row-major and little-endian. Files are written as the reference implementation writes them
(tensors ordered by dtype, then name; the header padded with spaces to 8 bytes), so
``safetensors.torch.save_file`` and this module give the same bytes for the same tensors.
``load_file`` maps the file into memory: tensors of the dtypes ferrograd has share the mapped
pages (copy on write), so loading reads only what is used. Dtypes ferrograd lacks are widened
(``F16``/``BF16`` to float32, ``U16``/``U32`` to int64) with a warning, as ``load`` does for
PyTorch's files."""

import json
import mmap
import struct
import warnings

import numpy as np

from .. import _core

__all__ = ["load", "load_file", "load_model", "save", "save_file", "save_model"]

# ferrograd dtype -> (safetensors name, numpy dtype); the order of the names is the reference
# implementation's dtype order (higher first in a file)
_WRITTEN = {
    "bool": ("BOOL", np.dtype(np.bool_)),
    "float32": ("F32", np.dtype("<f4")),
    "float64": ("F64", np.dtype("<f8")),
    "int64": ("I64", np.dtype("<i8")),
    "int32": ("I32", np.dtype("<i4")),
    "int16": ("I16", np.dtype("<i2")),
    "int8": ("I8", np.dtype("i1")),
    "uint8": ("U8", np.dtype("u1")),
}
# the reference implementation's order of dtypes (files list larger ranks first)
_RANK = {"BOOL": 0, "U8": 1, "I8": 2, "I16": 5, "I32": 9, "F32": 11, "F64": 12, "I64": 13}

# safetensors name -> (numpy dtype of the stored bytes, numpy dtype ferrograd keeps)
_READ = {
    "BOOL": (np.dtype(np.bool_), None),
    "F32": (np.dtype("<f4"), None),
    "F64": (np.dtype("<f8"), None),
    "I64": (np.dtype("<i8"), None),
    "F16": (np.dtype("<f2"), np.dtype(np.float32)),
    "I32": (np.dtype("<i4"), None),
    "I16": (np.dtype("<i2"), None),
    "I8": (np.dtype("i1"), None),
    "U8": (np.dtype("u1"), None),
    "U16": (np.dtype("<u2"), np.dtype(np.int64)),
    "U32": (np.dtype("<u4"), np.dtype(np.int64)),
}


def _dtype_name(t):
    return repr(t.dtype).removeprefix("torch.")


def _layout(tensors, metadata):
    """The header (bytes, padded) and each tensor's contiguous array, in file order."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    entries = []
    for name, t in tensors.items():
        if not isinstance(name, str):
            raise ValueError(f"Key `{name}` is invalid, expected str but received {type(name)}")
        if not isinstance(t, _core.Tensor):
            raise ValueError(
                f"Key `{name}` is invalid, expected torch.Tensor but received {type(t)}"
            )
        code, np_dtype = _WRITTEN[_dtype_name(t)]
        array = np.ascontiguousarray(t.detach().numpy(), dtype=np_dtype)
        entries.append((name, code, list(t.shape), array))
    entries.sort(key=lambda e: (-_RANK[e[1]], e[0]))
    header = {}
    if metadata is not None:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("metadata must be a dict of str to str")
        header["__metadata__"] = dict(metadata)
    at = 0
    for name, code, shape, array in entries:
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [at, at + array.nbytes]}
        at += array.nbytes
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    return text, [e[3] for e in entries]


def save(tensors, metadata=None):
    """The safetensors bytes of a dict of tensors (``metadata``: a dict of strings)."""
    header, arrays = _layout(tensors, metadata)
    return struct.pack("<Q", len(header)) + header + b"".join(a.tobytes() for a in arrays)


def save_file(tensors, filename, metadata=None):
    """Writes a dict of tensors to ``filename`` in the safetensors format."""
    header, arrays = _layout(tensors, metadata)
    with open(filename, "wb") as f:
        f.write(struct.pack("<Q", len(header)))
        f.write(header)
        for array in arrays:
            f.write(memoryview(array).cast("B"))


def _parse(buffer):
    """The header and the byte offset of the data in ``buffer`` (bytes or a mapping)."""
    if len(buffer) < 8:
        raise ValueError("Error while deserializing header: HeaderTooSmall")
    (n,) = struct.unpack("<Q", bytes(buffer[:8]))
    if 8 + n > len(buffer):
        raise ValueError("Error while deserializing header: InvalidHeaderLength")
    try:
        header = json.loads(bytes(buffer[8 : 8 + n]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(
            f"Error while deserializing header: InvalidHeaderDeserialization ({e})"
        ) from None
    header.pop("__metadata__", None)
    return header, 8 + n


def _tensors(buffer, share):
    """The tensors stored in ``buffer``; with ``share``, float32/float64/int64 ones share it."""
    header, start = _parse(buffer)
    out = {}
    for name, info in header.items():
        code = info["dtype"]
        if code not in _READ:
            raise ValueError(f"ferrograd cannot load dtype {code} (tensor '{name}')")
        stored, kept = _READ[code]
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape, dtype=np.int64))
        if end - begin != count * stored.itemsize or start + end > len(buffer):
            raise ValueError(f"Error while deserializing header: InvalidOffset({name!r})")
        array = np.frombuffer(buffer, dtype=stored, count=count, offset=start + begin)
        array = array.reshape(shape)
        if kept is not None:
            warnings.warn(
                f"safetensors: tensor '{name}' is {code}, which ferrograd does not have; "
                f"loaded as {kept.name}",
                stacklevel=3,
            )
            array = array.astype(kept)
        elif not share:
            array = array.copy()
        out[name] = _core.from_numpy(array) if array.flags.writeable else _core.tensor(array)
    return out


def load(data):
    """The dict of tensors in safetensors bytes (copies)."""
    return _tensors(bytes(data), share=False)


def load_file(filename, device="cpu"):
    """The dict of tensors in a safetensors file, sharing the memory-mapped file where the
    dtype allows (copy on write: writing a tensor does not change the file)."""
    if str(device) != "cpu":
        raise RuntimeError(f"load_file: ferrograd computes on the CPU only, not on '{device}'")
    with open(filename, "rb") as f:
        if f.seek(0, 2) == 0:
            raise ValueError("Error while deserializing header: HeaderTooSmall")
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY)
    return _tensors(mapped, share=True)


def save_model(model, filename, metadata=None, force_contiguous=False):
    """Writes ``model.state_dict()`` to ``filename`` (``force_contiguous`` is accepted: every
    tensor is written row-major)."""
    save_file(dict(model.state_dict()), filename, metadata=metadata)


def load_model(model, filename, strict=True, device="cpu"):
    """Loads a file written by :func:`save_model` into ``model``; returns the missing and
    unexpected keys, as ``load_state_dict`` reports them."""
    state = load_file(filename, device=device)
    result = model.load_state_dict(state, strict=strict)
    return result.missing_keys, result.unexpected_keys
