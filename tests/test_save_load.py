"""``ferrograd.save``/``ferrograd.load`` against PyTorch's files (``tools/record_torch_files.py``
wrote them with ``torch.save`` into ``tests/golden/saved/`` and recorded what they hold):
ferrograd reads PyTorch's files (dtypes, views sharing a storage, parameters, state dicts,
nested containers, optimizer states, the legacy format, big-endian files), writes the same
structure PyTorch writes (records, alignment, pickle opcodes), round-trips its own objects,
refuses what PyTorch's weights-only loader refuses with PyTorch's messages, and resumes training
from a PyTorch checkpoint."""

import collections
import fractions
import io
import json
import pickle
import warnings
import zipfile
from pathlib import Path

import ferrograd
import numpy as np
import pytest
import save_load_cases as cases
from ferrograd import serialization

GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN = json.loads((GOLDEN_DIR / cases.GOLDEN).read_text())
SAVED = GOLDEN_DIR / cases.SAVED_DIR

# the dtypes ferrograd lacks, and the ones their tensors load as (the values are exact)
WIDENED = {
    "uint16": "int64",
    "uint32": "int64",
    "float16": "float32",
    "bfloat16": "float32",
}


def widened(expected):
    """PyTorch's description of a file with the dtypes ferrograd widens replaced."""
    if isinstance(expected, dict):
        out = {k: widened(v) for k, v in expected.items()}
        if "tensor" in expected:
            out["dtype"] = WIDENED.get(expected["dtype"], expected["dtype"])
        return out
    if isinstance(expected, list):
        return [widened(v) for v in expected]
    return expected


def describe(obj):
    return cases.describe(obj, ferrograd)


def saved_bytes(obj, **kwargs):
    buf = io.BytesIO()
    ferrograd.save(obj, buf, **kwargs)
    return buf.getvalue()


# ----- PyTorch's files ---------------------------------------------------------------------------

PLAIN_FILES = [
    "views",
    "scalars_and_empty",
    "state_dict",
    "parameters",
    "nested",
    "checkpoint",
    "legacy",
    "big_endian",
]


def foreign_dtypes(expected):
    """PyTorch's description with the dtype objects ferrograd lacks as ferrograd loads them (an
    object that prints as the dtype, for a tensor of it is widened or refused)."""
    if isinstance(expected, dict):
        if set(expected) == {"dtype"} and expected["dtype"].startswith("torch.float16"):
            name = "ferrograd.serialization._ForeignDtype"
            return {"other": name, "repr": expected["dtype"]}
        return {k: foreign_dtypes(v) for k, v in expected.items()}
    if isinstance(expected, list):
        return [foreign_dtypes(v) for v in expected]
    return expected


@pytest.mark.parametrize("name", PLAIN_FILES)
def test_loads_pytorch_file(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded = ferrograd.load(SAVED / f"{name}.pt")
    assert describe(loaded) == foreign_dtypes(GOLDEN["files"][name]["contents"])


def test_loads_every_dtype_widening_the_missing_ones():
    with pytest.warns(UserWarning) as caught:
        loaded = ferrograd.load(SAVED / "dtypes.pt")
    assert describe(loaded) == widened(GOLDEN["files"]["dtypes"]["contents"])
    assert len(caught) == 1
    message = str(caught[0].message)
    for dtype, target in WIDENED.items():
        assert f"torch.{dtype} as torch.{target}" in message
    assert caught[0].filename == __file__


def test_state_dict_keeps_metadata_and_computes_pytorchs_forward():
    sd = ferrograd.load(SAVED / "state_dict.pt")
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert sd._metadata == collections.OrderedDict(
        [("", {"version": 1}), ("0", {"version": 1}), ("1", {"version": 1}), ("2", {"version": 1})]
    )
    x = ferrograd.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]])
    hidden = (x @ sd["0.weight"].t() + sd["0.bias"]).relu()
    out = hidden @ sd["2.weight"].t() + sd["2.bias"]
    expected = GOLDEN["files"]["state_dict"]["forward"]
    assert np.allclose(out.tolist(), expected, rtol=1e-6, atol=1e-7)


def test_module_loads_pytorchs_state_dict():
    model = ferrograd.nn.Sequential(
        ferrograd.nn.Linear(3, 4), ferrograd.nn.ReLU(), ferrograd.nn.Linear(4, 2)
    )
    model.load_state_dict(ferrograd.load(SAVED / "state_dict.pt"))
    with ferrograd.no_grad():
        out = model(ferrograd.tensor([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]]))
    expected = GOLDEN["files"]["state_dict"]["forward"]
    assert np.allclose(out.tolist(), expected, rtol=1e-6, atol=1e-7)


def test_parameters_come_back_as_parameters():
    loaded = ferrograd.load(SAVED / "parameters.pt")
    p = loaded["p"]
    assert type(p) is ferrograd.nn.Parameter and p.requires_grad and p.is_leaf
    assert loaded["twice"][0] is p and loaded["twice"][1] is p
    assert type(loaded["frozen"]) is ferrograd.nn.Parameter and not loaded["frozen"].requires_grad
    grad = loaded["grad"]
    assert type(grad) is ferrograd.Tensor and grad.requires_grad and grad.is_leaf
    (p * p).sum().backward()
    assert p.grad.tolist() == [2.0, -4.0]


def _unravel(flat, shape):
    return tuple(int(i) for i in np.unravel_index(flat, tuple(shape))) if shape else ()


# made with as_strided over overlapping elements: views cannot express it, so it is a copy
NOT_SHARED = {"overlapping"}
# views whose elements repeat: writing into them is refused (as PyTorch), write the other one
REPEATING = {"expanded", "overlapping"}


def _probes(name):
    return [
        (name, p)
        for p in GOLDEN["files"][name]["probes"]
        if p["a"] not in NOT_SHARED and p["b"] not in NOT_SHARED
    ]


@pytest.mark.parametrize("name, probe", _probes("views") + _probes("legacy"))
def test_tensors_sharing_a_storage_share_it(name, probe):
    loaded = ferrograd.load(SAVED / f"{name}.pt")
    write, read = ("a", "b") if probe["a"] not in REPEATING else ("b", "a")
    target, source = loaded[probe[write]], loaded[probe[read]]
    with ferrograd.no_grad():
        target[_unravel(probe[f"{write}_index"], target.shape)] = -123.0
    assert source[_unravel(probe[f"{read}_index"], source.shape)].item() == -123.0


def test_overlapping_layout_is_a_copy_with_pytorchs_values():
    loaded = ferrograd.load(SAVED / "views.pt")
    expected = [[1.0, 3.0, 5.0], [3.0, 5.0, 7.0], [5.0, 7.0, 9.0]]
    assert loaded["overlapping"].tolist() == expected
    with ferrograd.no_grad():
        loaded["base"].fill_(0.0)
    assert loaded["overlapping"].tolist() == expected


def test_views_of_loaded_storage_are_leaves():
    loaded = ferrograd.load(SAVED / "views.pt")
    for name in ("t", "column", "stepped"):
        assert loaded[name].is_leaf and loaded[name].grad_fn is None


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_resumes_pytorchs_optimizer(name):
    saved = ferrograd.load(SAVED / "checkpoint.pt")[name]
    p = ferrograd.nn.Parameter(saved["param"].clone())
    group = saved["optimizer"]["param_groups"][0]
    if name == "sgd":
        opt = ferrograd.optim.SGD([p], lr=0.5, momentum=group["momentum"], nesterov=True)
    else:
        opt = ferrograd.optim.Adam([p], lr=0.5)
    opt.load_state_dict(saved["optimizer"])
    assert opt.param_groups[0]["lr"] == group["lr"]
    (p * p * p).sum().backward()
    opt.step()
    expected = GOLDEN["files"]["checkpoint"]["after_step"][name]
    assert np.allclose(p.tolist(), expected, rtol=1e-6, atol=1e-7)


# ----- what ferrograd writes ---------------------------------------------------------------------


@pytest.mark.parametrize("name", list(cases.BUILDERS))
def test_writes_what_pytorch_writes(name):
    ours = cases.fingerprint(saved_bytes(cases.BUILDERS[name](ferrograd)))
    theirs = GOLDEN["fingerprints"][name]
    for part in ("names", "sizes", "id_digits", "contents", "storages", "aligned", "after_data"):
        assert ours[part] == theirs[part], part
    assert ours["pickle"] == theirs["pickle"]


@pytest.mark.parametrize("legacy", [False, True], ids=["zip", "legacy"])
@pytest.mark.parametrize("name", list(cases.BUILDERS))
def test_round_trip(name, legacy):
    obj = cases.BUILDERS[name](ferrograd)
    data = saved_bytes(obj, _use_new_zipfile_serialization=not legacy)
    assert data.startswith(b"PK\x03\x04") != legacy
    loaded = ferrograd.load(io.BytesIO(data))
    assert describe(loaded) == describe(obj)


def test_round_trip_keeps_identity_types_and_metadata():
    nested = ferrograd.load(io.BytesIO(saved_bytes(cases.BUILDERS["nested"](ferrograd))))
    assert nested["same"][0] is nested["same"][1]
    assert type(nested["b"]) is tuple
    sd = ferrograd.load(io.BytesIO(saved_bytes(cases.BUILDERS["state_dict"](ferrograd))))
    assert type(sd) is collections.OrderedDict and sd._metadata == {"": {"version": 1}}
    objects = ferrograd.load(io.BytesIO(saved_bytes(cases.BUILDERS["objects"](ferrograd))))
    assert objects["dtype"] == ferrograd.float64 and objects["long"] == ferrograd.int64
    assert type(objects["size"]) is ferrograd.Size and objects["size"] == (2, 3)
    assert objects["device"] == ferrograd.device("cpu")


def test_linear_parameters_round_trip():
    ferrograd.manual_seed(3)
    layer = ferrograd.nn.Linear(3, 2)
    state = collections.OrderedDict([("weight", layer.weight), ("bias", layer.bias)])
    loaded = ferrograd.load(io.BytesIO(saved_bytes(state)))
    x = ferrograd.tensor([[1.0, 2.0, 3.0]])
    for key in state:
        assert type(loaded[key]) is ferrograd.nn.Parameter and loaded[key].requires_grad
        assert loaded[key].tolist() == state[key].tolist()
    expected = layer(x).tolist()
    assert (x @ loaded["weight"].t() + loaded["bias"]).tolist() == expected


def test_views_are_saved_with_their_values():
    base = ferrograd.arange(12.0).reshape(3, 4)
    views = {"t": base.t(), "column": base[:, 1], "stepped": base[::2, 1::2], "row": base[2]}
    loaded = ferrograd.load(io.BytesIO(saved_bytes(views)))
    for key, value in views.items():
        assert loaded[key].tolist() == value.tolist()
        assert loaded[key].shape == value.shape


def test_saves_graph_tensors_as_leaves():
    x = ferrograd.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    loaded = ferrograd.load(io.BytesIO(saved_bytes({"y": y})))["y"]
    assert loaded.tolist() == [3.0, 6.0]
    assert loaded.requires_grad and loaded.is_leaf and loaded.grad_fn is None


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_other_pickle_protocols_round_trip(protocol):
    obj = cases.BUILDERS["parameters"](ferrograd)
    loaded = ferrograd.load(io.BytesIO(saved_bytes(obj, pickle_protocol=protocol)))
    assert describe(loaded) == describe(obj)


def test_paths_and_file_objects(tmp_path):
    obj = {"w": ferrograd.tensor([1.0, 2.0])}
    path = tmp_path / "my.model.pt"
    ferrograd.save(obj, path)
    assert zipfile.ZipFile(path).namelist()[0] == "my.model/data.pkl"
    ferrograd.save(obj, str(tmp_path / "noext"))
    assert zipfile.ZipFile(tmp_path / "noext").namelist()[0] == "noext/data.pkl"
    with open(tmp_path / "handle.pt", "wb") as f:
        ferrograd.save(obj, f)
    assert zipfile.ZipFile(tmp_path / "handle.pt").namelist()[0] == "archive/data.pkl"
    for source in (path, str(path), tmp_path / "noext", tmp_path / "handle.pt"):
        assert ferrograd.load(source)["w"].tolist() == [1.0, 2.0]
    with open(path, "rb") as f:
        assert ferrograd.load(f)["w"].tolist() == [1.0, 2.0]
    assert ferrograd.load(path, mmap=True)["w"].tolist() == [1.0, 2.0]
    buf = io.BytesIO()
    buf.write(b"header")
    ferrograd.save(obj, buf)
    buf.seek(6)
    assert ferrograd.load(buf)["w"].tolist() == [1.0, 2.0]


# ----- weights-only loading ----------------------------------------------------------------------


def test_weights_only_refuses_other_globals_as_pytorch():
    expected = GOLDEN["errors"]["unsafe"]
    with pytest.raises(pickle.UnpicklingError) as caught:
        ferrograd.load(SAVED / "unsafe.pt")
    assert str(caught.value) == expected["message"]
    ours = saved_bytes({"w": ferrograd.ones(2), "f": fractions.Fraction(1, 3)})
    with pytest.raises(pickle.UnpicklingError) as caught:
        ferrograd.load(io.BytesIO(ours))
    assert str(caught.value) == expected["message"]


def test_weights_only_false_and_safe_globals_load_other_objects():
    expected = GOLDEN["files"]["unsafe"]["contents"]
    assert describe(ferrograd.load(SAVED / "unsafe.pt", weights_only=False)) == expected
    assert describe(ferrograd.load(SAVED / "unsafe.pt", pickle_module=pickle)) == expected
    with serialization.safe_globals([fractions.Fraction]):
        assert describe(ferrograd.load(SAVED / "unsafe.pt")) == expected
    with pytest.raises(pickle.UnpicklingError):
        ferrograd.load(SAVED / "unsafe.pt")
    serialization.add_safe_globals([fractions.Fraction])
    try:
        assert fractions.Fraction in serialization.get_safe_globals()
        assert ferrograd.load(SAVED / "unsafe.pt")["f"] == fractions.Fraction(1, 3)
    finally:
        serialization.clear_safe_globals()
    assert fractions.Fraction not in serialization.get_safe_globals()


def test_allowlist_is_pytorchs():
    assert sorted(serialization._allowed_globals()) == GOLDEN["allowed_globals"]


def test_weights_only_refuses_code_in_the_pickle():
    class Evil:
        def __reduce__(self):
            return (print, ("run",))

    data = saved_bytes({"x": Evil()})
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL print was not an allowed global"):
        ferrograd.load(io.BytesIO(data))
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert b"__builtin__\nprint" in archive.read("archive/data.pkl")  # protocol 2's name


def test_only_storages_may_be_persistent():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02(X\x05\x00\x00\x00othertQ.")
        z.writestr("archive/version", b"3\n")
    archive.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Only persistent_load of storage"):
        ferrograd.load(archive)


# ----- errors ------------------------------------------------------------------------------------


def _recorded(name):
    error = GOLDEN["errors"][name]
    return {"RuntimeError": RuntimeError, "ValueError": ValueError, "EOFError": EOFError}.get(
        error["type"], pickle.UnpicklingError
    ), error["message"]


@pytest.mark.parametrize(
    "name, call",
    [
        ("cuda", lambda: ferrograd.load(SAVED / "cuda.pt")),
        (
            "pickle_module",
            lambda: ferrograd.load(SAVED / "views.pt", pickle_module=pickle, weights_only=True),
        ),
        (
            "mmap_buffer",
            lambda: ferrograd.load(io.BytesIO((SAVED / "views.pt").read_bytes()), mmap=True),
        ),
        ("not_a_checkpoint", lambda: ferrograd.load(io.BytesIO(pickle.dumps({"a": 1}, 2)))),
    ],
)
def test_errors_as_pytorch(name, call):
    kind, message = _recorded(name)
    with pytest.raises(kind) as caught:
        call()
    assert str(caught.value) == message


def test_storage_too_small_for_its_tensor():
    kind, message = _recorded("out_of_bounds")
    with pytest.raises(kind) as caught:
        ferrograd.load(SAVED / "out_of_bounds.pt")
    assert str(caught.value).startswith(message)
    assert "sizes [5], strides [1]" in str(caught.value)


def test_empty_file():
    kind, _ = _recorded("empty")
    with pytest.raises(kind):
        ferrograd.load(io.BytesIO(b""))


def test_map_location():
    expected = GOLDEN["files"]["cuda"]["contents"]
    for where in ("cpu", ferrograd.device("cpu"), {"cuda:0": "cpu"}, lambda s, loc: s):
        assert describe(ferrograd.load(SAVED / "cuda.pt", map_location=where)) == expected
    assert (
        describe(ferrograd.load(SAVED / "views.pt", map_location=lambda s, loc: None))
        == (GOLDEN["files"]["views"]["contents"])
    )
    for where in ("cuda", ferrograd.device("cuda", 0), {"cpu": "cuda:1"}):
        with pytest.raises(RuntimeError, match="ferrograd computes on the CPU only"):
            ferrograd.load(SAVED / "views.pt", map_location=where)


def test_refuses_dtypes_ferrograd_lacks():
    with pytest.raises(RuntimeError, match=r"no tensors of dtype torch\.complex64"):
        ferrograd.load(SAVED / "complex.pt")


def test_file_must_be_seekable():
    class Stream:
        def __init__(self, data):
            self._data = io.BytesIO(data)

        def read(self, n=-1):
            return self._data.read(n)

        def tell(self):
            raise io.UnsupportedOperation("tell")

        def seek(self, offset, whence=0):
            raise io.UnsupportedOperation("seek")

    with pytest.raises(io.UnsupportedOperation, match=r"You can only torch\.load from a file"):
        ferrograd.load(Stream((SAVED / "views.pt").read_bytes()))


def test_pickle_load_args_warn_under_weights_only():
    with pytest.warns(UserWarning, match="pickle_load_args only works if `weights_only=False`"):
        loaded = ferrograd.load(SAVED / "nested.pt", encoding="latin1")
    assert describe(loaded) == foreign_dtypes(GOLDEN["files"]["nested"]["contents"])


def test_torchscript_archive_refused():
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("archive/data.pkl", pickle.dumps(1, 2))
        z.writestr("archive/constants.pkl", pickle.dumps(1, 2))
        z.writestr("archive/version", b"3\n")
    archive.seek(0)
    with pytest.raises(RuntimeError, match="Cannot use ``weights_only=True`` with TorchScript"):
        ferrograd.load(archive)


def test_dtype_objects_ferrograd_lacks_are_saved_back_as_pytorchs():
    loaded = ferrograd.load(SAVED / "nested.pt")
    assert repr(loaded["dtype"]) == "torch.float16"
    data = saved_bytes({"dtype": loaded["dtype"]})
    assert b"ctorch\nfloat16\n" in zipfile.ZipFile(io.BytesIO(data)).read("archive/data.pkl")
    assert ferrograd.load(io.BytesIO(data))["dtype"] == loaded["dtype"]


def test_files_are_deterministic():
    # as PyTorch's writer: the serialization id names the contents, the zip dates are fixed
    first = saved_bytes(cases.BUILDERS["state_dict"](ferrograd))
    assert saved_bytes(cases.BUILDERS["state_dict"](ferrograd)) == first
    other = saved_bytes(cases.BUILDERS["tensor"](ferrograd))
    ids = [
        zipfile.ZipFile(io.BytesIO(d)).read("archive/.data/serialization_id")
        for d in (first, other)
    ]
    assert ids[0] != ids[1] and all(len(i) == 40 and i.isdigit() for i in ids)
