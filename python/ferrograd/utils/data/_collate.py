"""Collation: turning a list of samples into a batch (``default_collate``), and converting a
single sample's numpy arrays to tensors (``default_convert``), with PyTorch's rules:

* tensors are stacked along a new first dimension;
* numpy arrays become tensors and are stacked, numpy scalars become one tensor;
* Python floats become a float64 tensor, ints (and bools) a tensor of ``tensor()``'s dtype;
* strings and bytes stay as they are (the batch's sequence of them);
* mappings, namedtuples and sequences are collated field by field (tuples give lists).

``collate(batch, collate_fn_map=...)`` is the general walker; ``default_collate_fn_map`` maps
element types to their collate functions and may be extended.
"""

import collections.abc
import copy
import re

import numpy as np

from ... import _core
from ..._core import Tensor

# numpy dtype codes that cannot become tensors: bytes, strings, unicode and objects.
_NOT_NUMERIC = re.compile(r"[SaUO]")

_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _numpy_to_tensor(value):
    """A tensor with the array's values (numpy's dtype where ferrograd has it)."""
    if not value.flags.c_contiguous:
        value = value.copy(order="C")
    return _core.from_numpy(value)


def _is_numpy(value):
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data):
    """Converts the numpy arrays and scalars inside one sample to tensors, keeping the
    containers (tuples become lists, as in PyTorch); everything else is returned unchanged."""
    if isinstance(data, Tensor):
        return data
    if _is_numpy(data):
        if isinstance(data, np.ndarray) and _NOT_NUMERIC.search(data.dtype.str) is not None:
            return data
        return _numpy_to_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        return _rebuild_mapping(data, converted)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(template, converted):
    """A mapping of ``template``'s type holding ``converted`` (a plain dict if that type cannot
    be built so)."""
    try:
        if isinstance(template, collections.abc.MutableMapping):
            out = copy.copy(template)
            out.update(converted)
            return out
        return type(template)(converted)
    except TypeError:
        return converted


def _rebuild_sequence(template, items):
    """A sequence of ``template``'s type holding ``items`` (a list if that type cannot be built
    so)."""
    try:
        if isinstance(template, collections.abc.MutableSequence):
            out = copy.copy(template)
            for i, item in enumerate(items):
                out[i] = item
            return out
        return type(template)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map=None):
    """Collates ``batch`` (a sequence of samples of one structure): the function registered in
    ``collate_fn_map`` for the first element's type (exact type first, then by
    ``isinstance`` in the map's order), else field by field through containers."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for registered, fn in collate_fn_map.items():
            if isinstance(elem, registered):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        fields = {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
        }
        return _rebuild_mapping(elem, fields)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return kind(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(_ERROR.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Tensors: stacked along a new first dimension."""
    return _core.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    """Numpy arrays: converted to tensors, then collated as tensors (string and object arrays
    are refused)."""
    if _NOT_NUMERIC.search(batch[0].dtype.str) is not None:
        raise TypeError(_ERROR.format(batch[0].dtype))
    return collate([_numpy_to_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    """Numpy scalars: one tensor of their dtype."""
    return _numpy_to_tensor(np.array(list(batch)))


def collate_float_fn(batch, *, collate_fn_map=None):
    """Python floats: a float64 tensor."""
    return _core.tensor(list(batch), dtype=_core.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    """Python ints (and bools): ``tensor(batch)`` (int64, or bool for bools only)."""
    return _core.tensor(list(batch))


def collate_str_fn(batch, *, collate_fn_map=None):
    """Strings and bytes: the batch as it is."""
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Puts a list of samples together into a batch with PyTorch's rules (see the module)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)


__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]
