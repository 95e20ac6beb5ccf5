"""Records PyTorch's side of ``tests/test_save_load.py`` and checks that PyTorch reads the files
ferrograd writes. Run under PyTorch, with a copy of the installed ferrograd importable::

    mkdir -p /tmp/fg_pkg && cp -r .venv/lib/python3.11/site-packages/ferrograd /tmp/fg_pkg/
    PYTHONPATH=/tmp/fg_pkg /work/torchenv/bin/python tools/record_torch_files.py

It writes small files with ``torch.save`` into ``tests/golden/saved/`` and, into
``tests/golden/saved_files.json``: what each holds (``save_load_cases.describe``), the
structure of PyTorch's file for each object of ``save_load_cases.BUILDERS``
(``save_load_cases.fingerprint``), PyTorch's weights-only allowlist and its error messages. Then
it saves each of those objects built with ferrograd, with ``ferrograd.save`` (zip and legacy
formats), loads them with ``torch.load`` (weights-only) and checks they equal PyTorch's objects.
"""

import collections
import copy
import fractions
import io
import json
import pickle
import sys
import tempfile
import zipfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import save_load_cases as cases  # noqa: E402

SAVED = ROOT / "tests" / "golden" / cases.SAVED_DIR


def describe(obj):
    return cases.describe(obj, torch)


def _storage_probes(obj):
    """For each pair of tensors of ``obj`` (a dict) sharing storage elements: a flat index into
    each that names the same element, so a test can write through one and read the other."""
    tensors = [(k, v) for k, v in obj.items() if torch.is_tensor(v) and v.numel()]
    probes = []
    for i, (ka, a) in enumerate(tensors):
        for kb, b in tensors[i + 1 :]:
            if a.untyped_storage().data_ptr() != b.untyped_storage().data_ptr():
                continue
            positions_b = {}
            for flat, index in enumerate(_indices(b.shape)):
                positions_b.setdefault(_position(b, index), flat)
            for flat, index in enumerate(_indices(a.shape)):
                where = _position(a, index)
                if where in positions_b:
                    probes.append(
                        {"a": ka, "a_index": flat, "b": kb, "b_index": positions_b[where]}
                    )
                    break
    return probes


def _indices(shape):
    if not shape:
        yield ()
        return
    for first in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (first, *rest)


def _position(t, index):
    return t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))


def _rewrite(data, change):
    """A copy of the zip ``data`` with ``change(name, bytes) -> bytes`` applied to each record."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            copy_info = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            dst.writestr(copy_info, change(info.filename, src.read(info.filename)))
    return out.getvalue()


def _saved(obj, **kwargs):
    buf = io.BytesIO()
    torch.save(obj, buf, **kwargs)
    return buf.getvalue()


def _error(call):
    try:
        call()
    except Exception as e:
        return {"type": type(e).__name__, "message": str(e)}
    raise AssertionError("PyTorch accepted it")


def torch_files():
    """The files PyTorch writes, with what they hold (and the pairs of tensors sharing data)."""
    files = {}

    dtypes = {
        str(d).replace("torch.", ""): torch.tensor(v, dtype=d)
        for d, v in [
            (torch.float32, [1.5, -2.25, float("inf"), float("nan")]),
            (torch.float64, [0.1, -1e300]),
            (torch.int64, [2**62, -(2**63)]),
            (torch.int32, [2**31 - 1, -(2**31)]),
            (torch.int16, [-(2**15), 7]),
            (torch.int8, [-128, 127]),
            (torch.uint8, [0, 255]),
            (torch.uint16, [65535, 1]),
            (torch.uint32, [2**32 - 1, 2]),
            (torch.bool, [True, False, True]),
            (torch.float16, [0.5, -65504.0, 1e-7]),
            (torch.bfloat16, [1.0, -3.0e38, 0.0078125]),
        ]
    }
    files["dtypes"] = dtypes

    base = torch.arange(24.0).reshape(4, 6)
    files["views"] = {
        "base": base,
        "t": base.t(),
        "column": base[:, 2],
        "last_column": base[:, 5],
        "rows": base[1:3],
        "stepped": base[1:, ::2],
        "every_fifth": base.reshape(-1)[1::5],
        "expanded": base[0:1].expand(3, 6),
        "element": base[2, 3],
        "overlapping": base.reshape(-1).as_strided((3, 3), (2, 2), 1),
    }

    files["scalars_and_empty"] = {
        "float": torch.tensor(2.5),
        "double": torch.tensor(-1.0, dtype=torch.float64),
        "long": torch.tensor(7),
        "bool": torch.tensor(True),
        "empty": torch.zeros(0),
        "empty_2d": torch.ones(3, 0, dtype=torch.int64),
    }

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    files["state_dict"] = model.state_dict()
    with torch.no_grad():
        forward = model(torch.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])).tolist()

    p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    files["parameters"] = {
        "p": p,
        "frozen": torch.nn.Parameter(torch.tensor([3.0]), requires_grad=False),
        "grad": torch.tensor([[4.0], [5.0]], requires_grad=True),
        "twice": [p, p],
        "model_weight": model[0].weight,
    }

    counter = collections.Counter("abca")
    files["nested"] = {
        "list": [torch.tensor([1, 2]), 3, 2.5, "text", None, True, False],
        "tuple": (torch.tensor([0.5]), (1, (2, "deep"))),
        "dict": {"a": {"b": torch.tensor([[1.0]])}, 7: "int key", (1, 2): "tuple key"},
        "ordered": collections.OrderedDict([("z", 1), ("a", 2)]),
        "counter": counter,
        "numbers": [2**70, -(2**40), 1e-310, float("-inf"), -0.0],
        "bytes": b"\x00\xffab",
        "bytearray": bytearray(b"xy"),
        "set": {1, 2, 3},
        "complex": 1.5 - 2j,
        "size": torch.Size([2, 3]),
        "dtype": torch.float16,
        "device": torch.device("cpu"),
        "unicode": "żółw ✓",
    }

    files["checkpoint"] = _checkpoint()
    return files, forward


def _checkpoint():
    """Parameters and optimizer states after two steps of SGD (momentum) and Adam; a test
    resumes from them and compares the third step with PyTorch's."""
    out, after = {}, {}
    for name, make in [
        ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)),
        ("adam", lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.9), weight_decay=0.01)),
    ]:
        p = torch.nn.Parameter(torch.tensor([1.0, -2.0, 3.0]))
        opt = make([p])
        for _ in range(2):
            opt.zero_grad()
            (p * p * p).sum().backward()
            opt.step()
        # a copy: state_dict() holds the live buffers, which the next step changes
        out[name] = {"param": p.detach().clone(), "optimizer": copy.deepcopy(opt.state_dict())}
        opt.zero_grad()
        (p * p * p).sum().backward()
        opt.step()
        after[name] = p.detach().tolist()
    return out, after


def main():
    import ferrograd

    SAVED.mkdir(parents=True, exist_ok=True)
    golden = {"torch_version": torch.__version__, "files": {}}

    files, forward = torch_files()
    checkpoint, after = files.pop("checkpoint")
    files["checkpoint"] = checkpoint
    for name, obj in files.items():
        (SAVED / f"{name}.pt").write_bytes(_saved(obj))
        entry = {"contents": describe(torch.load(SAVED / f"{name}.pt"))}
        if name == "views":
            entry["probes"] = _storage_probes(obj)
        if name == "checkpoint":
            entry["after_step"] = after
        if name == "state_dict":
            entry["forward"] = forward
        golden["files"][name] = entry

    # the legacy (non-zip) format, with tensors sharing a storage
    legacy = {
        "base": files["views"]["base"],
        "t": files["views"]["t"],
        "p": files["parameters"]["p"],
    }
    (SAVED / "legacy.pt").write_bytes(_saved(legacy, _use_new_zipfile_serialization=False))
    golden["files"]["legacy"] = {
        "contents": describe(torch.load(SAVED / "legacy.pt")),
        "probes": _storage_probes(legacy),
    }

    # a big-endian writer's file (PyTorch byte-swaps it on reading)
    little = _saved({"f": files["dtypes"]["float32"], "l": files["dtypes"]["int64"]})

    def to_big(name, body):
        if name.endswith("/byteorder"):
            return b"big"
        if "/data/" in name:
            width = 4 if name.endswith("/0") else 8
            return b"".join(body[i : i + width][::-1] for i in range(0, len(body), width))
        return body

    (SAVED / "big_endian.pt").write_bytes(_rewrite(little, to_big))
    golden["files"]["big_endian"] = {"contents": describe(torch.load(SAVED / "big_endian.pt"))}

    # files PyTorch loads only with weights_only=False, or not at all here
    (SAVED / "unsafe.pt").write_bytes(_saved({"w": torch.ones(2), "f": fractions.Fraction(1, 3)}))
    (SAVED / "complex.pt").write_bytes(_saved({"c": torch.tensor([1 + 2j])}))
    cpu = _saved({"w": torch.tensor([1.0, 2.0])})
    (SAVED / "cuda.pt").write_bytes(
        _rewrite(
            cpu,
            lambda n, b: (
                b.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
                if n.endswith("data.pkl")
                else b
            ),
        )
    )
    bounds = _saved(torch.arange(4.0))
    (SAVED / "out_of_bounds.pt").write_bytes(
        _rewrite(
            bounds,
            lambda n, b: (
                b.replace(b"K\x00K\x04\x85", b"K\x00K\x05\x85") if n.endswith("data.pkl") else b
            ),
        )
    )
    golden["files"]["unsafe"] = {
        "contents": describe(torch.load(SAVED / "unsafe.pt", weights_only=False))
    }
    golden["files"]["cuda"] = {
        "contents": describe(torch.load(SAVED / "cuda.pt", map_location="cpu"))
    }
    plain = pickle.dumps({"a": 1}, protocol=2)
    golden["errors"] = {
        "unsafe": _error(lambda: torch.load(SAVED / "unsafe.pt")),
        "cuda": _error(lambda: torch.load(SAVED / "cuda.pt")),
        "out_of_bounds": _error(lambda: torch.load(SAVED / "out_of_bounds.pt")),
        "pickle_module": _error(
            lambda: torch.load(SAVED / "views.pt", pickle_module=pickle, weights_only=True)
        ),
        "mmap_buffer": _error(
            lambda: torch.load(io.BytesIO((SAVED / "views.pt").read_bytes()), mmap=True)
        ),
        "not_a_checkpoint": _error(lambda: torch.load(io.BytesIO(plain))),
        "empty": _error(lambda: torch.load(io.BytesIO(b""))),
    }

    from torch._weights_only_unpickler import _get_allowed_globals

    golden["allowed_globals"] = sorted(_get_allowed_globals())

    # PyTorch's files for the objects both libraries build, and ferrograd's files read by PyTorch
    golden["fingerprints"] = {}
    mismatches = []
    for name, build in cases.BUILDERS.items():
        theirs = cases.fingerprint(_saved(build(torch)))
        golden["fingerprints"][name] = theirs
        expected = describe(build(torch))
        for legacy_format in (False, True):
            buf = io.BytesIO()
            ferrograd.save(build(ferrograd), buf, _use_new_zipfile_serialization=not legacy_format)
            buf.seek(0)
            got = describe(torch.load(buf))
            if got != expected:
                mismatches.append(f"{name} (legacy={legacy_format}): {got} != {expected}")
            if not legacy_format and cases.fingerprint(buf.getvalue()) != theirs:
                mismatches.append(f"{name}: ferrograd's file differs from PyTorch's in structure")

    # ferrograd's views are saved with their values; a path names the archive as PyTorch does
    base = ferrograd.arange(12.0).reshape(3, 4)
    views = {"t": base.t(), "column": base[:, 1], "stepped": base[::2, 1::2]}
    buf = io.BytesIO()
    ferrograd.save(views, buf)
    buf.seek(0)
    for key, value in torch.load(buf).items():
        if value.tolist() != views[key].tolist():
            mismatches.append(f"view {key}: {value.tolist()} != {views[key].tolist()}")
    with tempfile.TemporaryDirectory() as tmp:
        ferrograd.save(ferrograd.ones(1), Path(tmp) / "my.model.pt")
        torch.save(torch.ones(1), Path(tmp) / "torch.model.pt")
        ours = zipfile.ZipFile(Path(tmp) / "my.model.pt").namelist()[0]
        theirs = zipfile.ZipFile(Path(tmp) / "torch.model.pt").namelist()[0]
        if ours.replace("my.", "torch.") != theirs:
            mismatches.append(f"archive name from a path: {ours} vs PyTorch's {theirs}")
        # PyTorch's mmap loading, also where it computes the storages' offsets from the layout
        from torch.utils.serialization import config

        ours = {"a": ferrograd.arange(5.0), "b": ferrograd.ones(3, dtype=ferrograd.float64)}
        ferrograd.save({**ours, "c": ferrograd.tensor([1, 2])}, Path(tmp) / "mapped.pt")
        for calculate in (False, True):
            config.load.calculate_storage_offsets = calculate
            mapped = torch.load(Path(tmp) / "mapped.pt", mmap=True)
            if [v.tolist() for v in mapped.values()] != [[0, 1, 2, 3, 4], [1, 1, 1], [1, 2]]:
                mismatches.append(f"mmap (calculate_storage_offsets={calculate}): {mapped}")
        config.load.calculate_storage_offsets = False

    path = ROOT / "tests" / "golden" / cases.GOLDEN
    path.write_text(_format(golden))
    print(f"wrote {path} and {len(list(SAVED.iterdir()))} files in {SAVED}")
    if mismatches:
        print("PyTorch reads ferrograd's files differently:", *mismatches, sep="\n  ")
        sys.exit(1)
    print("PyTorch reads every file ferrograd wrote as the objects PyTorch builds")


def _format(golden):
    """JSON with one line per file, fingerprint and error (diffs show which one changed)."""
    lines = ["{"]
    for i, (key, value) in enumerate(golden.items()):
        comma = "," if i < len(golden) - 1 else ""
        if isinstance(value, dict):
            lines.append(f" {json.dumps(key)}: {{")
            for j, (name, item) in enumerate(value.items()):
                inner = "," if j < len(value) - 1 else ""
                lines.append(f"  {json.dumps(name)}: {json.dumps(item, ensure_ascii=False)}{inner}")
            lines.append(f" }}{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{comma}")
    return "\n".join([*lines, "}"]) + "\n"


if __name__ == "__main__":
    main()
