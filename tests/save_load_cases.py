"""Objects saved with ``torch.save``/``ferrograd.save`` and how to compare them, shared by the
recorder (``tools/record_torch_files.py``, run under PyTorch) and ``tests/test_save_load.py``.

``describe(obj, lib)`` turns a loaded object (PyTorch's or ferrograd's) into JSON: tensors with
their class, dtype, shape, ``requires_grad`` and values, containers with their type (and the
``_metadata`` of a state dict), and the other values PyTorch's files hold. ``fingerprint(data)``
is the structure of a written file: its records (without the archive's name), their sizes, where
their bytes start, and the opcodes of ``data.pkl``. ``BUILDERS`` make the same objects with
``lib`` = torch or ferrograd, so the files each library writes for them can be compared.
"""

import collections
import hashlib
import io
import math
import pickletools
import zipfile

GOLDEN = "saved_files.json"
SAVED_DIR = "saved"  # under tests/golden: the files PyTorch wrote


def _number(x):
    if isinstance(x, float) and not math.isfinite(x):
        return repr(x)
    return x


def describe(obj, lib):
    """``obj`` as JSON (see the module's docstring)."""
    if lib.is_tensor(obj):
        kind = "Parameter" if isinstance(obj, lib.nn.Parameter) else "Tensor"
        values = obj.detach().reshape(-1).tolist()
        return {
            "tensor": kind,
            "dtype": str(obj.dtype).replace("torch.", ""),
            "shape": list(obj.shape),
            "requires_grad": obj.requires_grad,
            "values": [_number(float(v)) if isinstance(v, float) else v for v in values],
        }
    if isinstance(obj, lib.Size):
        return {"Size": list(obj)}
    if isinstance(obj, lib.dtype):
        return {"dtype": str(obj)}
    if isinstance(obj, lib.device):
        return {"device": str(obj)}
    if isinstance(obj, dict):
        out = {
            "dict": type(obj).__name__,
            "items": [[describe(k, lib), describe(v, lib)] for k, v in obj.items()],
        }
        if hasattr(obj, "_metadata"):
            out["metadata"] = describe(obj._metadata, lib)
        return out
    if isinstance(obj, (list, tuple)):
        return {type(obj).__name__: [describe(v, lib) for v in obj]}
    if isinstance(obj, (set, frozenset)):
        return {"set": sorted((describe(v, lib) for v in obj), key=repr)}
    if obj is None or isinstance(obj, (bool, int, str)):
        return {type(obj).__name__: obj}
    if isinstance(obj, float):
        return {"float": _number(obj)}
    if isinstance(obj, complex):
        return {"complex": [_number(obj.real), _number(obj.imag)]}
    if isinstance(obj, (bytes, bytearray)):
        return {type(obj).__name__: obj.hex()}
    return {"other": f"{type(obj).__module__}.{type(obj).__qualname__}", "repr": repr(obj)}


def fingerprint(data):
    """The structure of a file written by ``save`` (bytes): record names without the archive
    prefix, in order; their sizes (the random ``serialization_id`` aside); the contents of the
    small records; a hash of each storage; whether each record's bytes start at a multiple of
    64 and how many bytes follow them before the next record (PyTorch's loader computes where
    storages start from those); and ``data.pkl``'s opcodes with their arguments."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    infos = archive.infolist()
    prefix = infos[0].filename.partition("/")[0] + "/"
    names = [i.filename[len(prefix) :] for i in infos]
    contents, storages, aligned, after = {}, {}, [], []
    for k, (info, name) in enumerate(zip(infos, names)):
        body = archive.read(info.filename)
        if name.startswith("data/"):
            storages[name] = hashlib.sha256(body).hexdigest()[:16]
        elif name not in ("data.pkl", ".data/serialization_id"):
            contents[name] = body.decode()
        # the record's bytes follow the local header (30 bytes, the name, the extra field)
        head = data[info.header_offset : info.header_offset + 30]
        start = info.header_offset + 30 + int.from_bytes(head[26:28], "little")
        start += int.from_bytes(head[28:30], "little")
        aligned.append(start % 64 == 0)
        if k + 1 < len(infos):  # what lies between the data and the next record's header
            after.append(infos[k + 1].header_offset - start - info.file_size)
    ops = []
    for op, arg, _ in pickletools.genops(archive.read(prefix + "data.pkl")):
        if isinstance(arg, bytes):
            arg = arg.hex()
        elif isinstance(arg, float):
            arg = _number(arg)
        ops.append([op.name, arg])
    return {
        "names": names,
        "sizes": {n: i.file_size for n, i in zip(names, infos) if n != ".data/serialization_id"},
        "id_digits": len(archive.read(prefix + ".data/serialization_id")),
        "contents": contents,
        "storages": storages,
        "aligned": aligned,
        "after_data": after,
        "pickle": ops,
    }


# ----- objects both libraries build --------------------------------------------------------------


def _tensor(lib):
    return lib.tensor([[0.0, 1.5, -2.0], [3.25, 4.0, -0.5]])


def _state_dict(lib):
    sd = collections.OrderedDict()
    sd["weight"] = lib.tensor([[0.5, -1.0, 2.0], [1.0, 0.0, -3.0]])
    sd["bias"] = lib.tensor([0.25, -0.75])
    sd._metadata = collections.OrderedDict()
    sd._metadata[""] = {"version": 1}
    return sd


def _nested(lib):
    shared = lib.tensor([7, -8, 9])
    return {
        "a": [lib.tensor([1, 2, 3]), 3, 2.5, "text", None, True, 2**70, -1, 300, 70000],
        "b": (lib.tensor([True, False]), lib.tensor(1.5, dtype=lib.float64)),
        "c": {},
        "same": [shared, shared],
        "float": [float("inf"), -0.0, 1e-300],
    }


def _parameters(lib):
    return {
        "p": lib.nn.Parameter(lib.tensor([1.0, 2.0])),
        "frozen": lib.nn.Parameter(lib.tensor([[3.0]]), requires_grad=False),
        "g": lib.tensor([4.0, 5.0], requires_grad=True),
    }


def _objects(lib):
    return {
        "dtype": lib.float64,
        "again": lib.float64,
        "long": lib.int64,
        "size": lib.Size([2, 3]),
        "device": lib.device("cpu"),
        "bytes": b"ab\x00",
    }


def _empty(lib):
    return [lib.zeros(0), lib.zeros(2, 0), lib.tensor(5), lib.tensor(-1.0, dtype=lib.float64)]


def _module_state_dict(lib):
    model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.ReLU(), lib.nn.Linear(2, 1))
    with lib.no_grad():
        for i, p in enumerate(model.parameters()):
            p.copy_(lib.arange(float(p.numel())).reshape(p.shape) * 0.5 - i)
    return model.state_dict()


BUILDERS = {
    "tensor": _tensor,
    "state_dict": _state_dict,
    "nested": _nested,
    "parameters": _parameters,
    "objects": _objects,
    "empty": _empty,
    "module_state_dict": _module_state_dict,
}
