"""``utils.safetensors`` against files written by PyTorch 2.15's ``safetensors.torch``
(``golden/safetensors/``, recorded with the model's output): loading gives PyTorch's values
and the same model output, writing the same tensors gives byte-identical files, dtypes
ferrograd lacks are widened with a warning, and loaded tensors share the mapped file copy on
write."""

import json
import os
import warnings

import ferrograd as torch
import pytest
from ferrograd.utils import safetensors as st

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "safetensors")


def _model():
    return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))


def test_a_pytorch_file_loads_into_the_same_model_and_gives_pytorch_output():
    recorded = json.load(open(os.path.join(HERE, "model_outputs.json")))
    state = st.load_file(os.path.join(HERE, "model_torch.safetensors"))
    assert sorted(state) == recorded["keys"]
    assert state["bn.num_batches_tracked"].dtype is torch.int64
    assert state["mlp.0.weight"].dtype is torch.float32
    model = _model()
    model.load_state_dict({k[4:]: v for k, v in state.items() if k.startswith("mlp.")})
    bn = torch.nn.BatchNorm1d(3)
    bn.load_state_dict({k[3:]: v for k, v in state.items() if k.startswith("bn.")})
    with torch.no_grad():
        out = model(torch.tensor(recorded["input"]))
    assert torch.allclose(out, torch.tensor(recorded["output"]), rtol=1e-6, atol=1e-7)


def test_writing_the_same_tensors_gives_pytorchs_bytes(tmp_path):
    path = os.path.join(HERE, "model_torch.safetensors")
    state = st.load_file(path)
    expected = open(path, "rb").read()
    assert st.save(state, metadata={"format": "pt"}) == expected
    st.save_file(state, tmp_path / "again.safetensors", metadata={"format": "pt"})
    assert (tmp_path / "again.safetensors").read_bytes() == expected


def test_dtypes_ferrograd_lacks_are_widened_with_a_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = st.load_file(os.path.join(HERE, "widened_torch.safetensors"))
    assert sorted(str(w.message).split("'")[1] for w in caught) == ["half"]
    assert got["half"].dtype is torch.float32 and got["half"].tolist() == [0.5, -1.25, 3.0]
    assert got["int32"].dtype is torch.int32 and got["int32"].tolist() == [[1, -2], [3, 4]]
    assert got["uint8"].dtype is torch.uint8 and got["uint8"].tolist() == [0, 255]
    assert got["mask"].dtype is torch.bool and got["mask"].tolist() == [True, False, True]
    assert list(got["empty"].shape) == [0, 3]


def test_round_trip_of_every_dtype_and_strided_tensors():
    base = torch.arange(12.0).reshape(3, 4)
    tensors = {
        "f32_t": base.t(),
        "f64": torch.linspace(-1, 1, 5, dtype=torch.float64),
        "i64": torch.tensor([[-(2**40), 7]]),
        "i32": torch.tensor([[-(2**30), 7]], dtype=torch.int32),
        "i16": torch.tensor([-300, 7], dtype=torch.int16),
        "i8": torch.tensor([-3], dtype=torch.int8),
        "u8": torch.tensor([200, 7], dtype=torch.uint8),
        "b": torch.tensor([[True], [False]]),
        "scalar": torch.tensor(2.5),
    }
    back = st.load(st.save(tensors))
    for name, t in tensors.items():
        assert back[name].dtype is t.dtype and back[name].shape == t.shape
        assert back[name].tolist() == t.tolist()


def test_loaded_tensors_share_the_mapping_copy_on_write(tmp_path):
    path = tmp_path / "w.safetensors"
    st.save_file({"w": torch.ones(4)}, path)
    before = path.read_bytes()
    w = st.load_file(path)["w"]
    w.add_(1)
    assert w.tolist() == [2.0] * 4
    assert path.read_bytes() == before
    assert st.load_file(path)["w"].tolist() == [1.0] * 4


def test_save_model_and_load_model(tmp_path):
    torch.manual_seed(0)
    a, b = _model(), _model()
    st.save_model(a, tmp_path / "m.safetensors")
    missing, unexpected = st.load_model(b, tmp_path / "m.safetensors")
    assert (missing, unexpected) == ([], [])
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="HeaderTooSmall"):
        st.load(b"\x01\x00")
    with pytest.raises(ValueError, match="InvalidHeaderLength"):
        st.load((1000).to_bytes(8, "little") + b"{}")
    with pytest.raises(ValueError, match=r"expected torch\.Tensor"):
        st.save({"x": [1, 2]})
    with pytest.raises(ValueError, match="metadata"):
        st.save({"x": torch.ones(1)}, metadata={"k": 1})
