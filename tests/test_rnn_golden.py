"""Recurrent cells and layers against PyTorch's recorded answers (``rnn_cases.py``): the same
initial parameters after ``manual_seed``, outputs, states and gradients in float32 (within
float32 rounding), names and reprs; gradcheck and gradgradcheck of the cells in float64."""

import json
from pathlib import Path

import ferrograd as torch
import numpy as np
import pytest
import rnn_cases

GOLDEN = json.loads((Path(__file__).parent / "golden" / rnn_cases.GOLDEN).read_text())


def _close(got, expected):
    return np.allclose(np.array(got), np.array(expected), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", rnn_cases.CELLS, ids=lambda c: c[0])
def test_cell_matches_pytorch(case):
    got, expected = rnn_cases.run_cell(torch, *case), GOLDEN["cells"][case[0]]
    assert got["repr"] == expected["repr"] and got["names"] == expected["names"]
    assert got["params"] == expected["params"]  # the same draws, exactly
    for key in ("outputs", "grads"):
        assert all(_close(g, e) for g, e in zip(got[key], expected[key], strict=True)), key
    assert _close(got["unbatched"], expected["unbatched"])


@pytest.mark.parametrize("case", rnn_cases.LAYERS, ids=lambda c: c[0])
def test_layer_matches_pytorch(case):
    got, expected = rnn_cases.run_layer(torch, *case), GOLDEN["layers"][case[0]]
    assert got["repr"] == expected["repr"] and got["keys"] == expected["keys"]
    assert got["shapes"] == expected["shapes"]
    assert _close(got["output"], expected["output"]) and _close(got["h_n"], expected["h_n"])
    assert all(_close(g, e) for g, e in zip(got["grads"], expected["grads"], strict=True))


def _cell_inputs(gates, seed, bias=True):
    torch.manual_seed(seed)
    shapes = [(2, 3), (2, 4), (gates * 4, 3), (gates * 4, 4)] + ([(gates * 4,)] * 2 if bias else [])
    return [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]


@pytest.mark.parametrize(
    "name, fn, gates",
    [
        ("lstm", lambda x, h, c, *w: torch._core.lstm_cell(x, h, c, *w), 4),
        ("gru", lambda x, h, *w: torch._core.gru_cell(x, h, *w), 3),
        ("rnn_tanh", lambda x, h, *w: torch._core.rnn_cell(x, h, *w), 1),
    ],
)
def test_cells_gradcheck_and_gradgradcheck(name, fn, gates):
    inputs = _cell_inputs(gates, 3)
    if name == "lstm":
        torch.manual_seed(4)
        inputs.insert(2, torch.randn(2, 4, dtype=torch.float64, requires_grad=True))
    assert torch.autograd.gradcheck(fn, inputs)
    assert torch.autograd.gradgradcheck(fn, inputs)


def test_lstm_layer_gradcheck_and_refused_double_backward():
    """The fused LSTM layer (one node over the sequence, steps in Rust) has exact first
    derivatives for batch 1 and batch 3; like PyTorch's layer, no second derivative."""
    for batch in (1, 3):
        torch.manual_seed(batch)
        shapes = [(4, batch, 3), (batch, 5), (batch, 5), (20, 3), (20, 5), (20,), (20,)]
        inputs = [torch.randn(*s, dtype=torch.float64, requires_grad=True) for s in shapes]
        assert torch.autograd.gradcheck(lambda *a: torch._core.lstm_layer(*a), inputs)
    out, _, c = torch._core.lstm_layer(*inputs)
    (g,) = torch.autograd.grad(out.sum() + c.sum(), inputs[0], create_graph=True)
    with pytest.raises(NotImplementedError, match="mkldnn_rnn_layer_backward"):
        g.sum().backward()


def test_input_dtype_must_match_the_weights():
    """PyTorch 2.15's ValueError, word for word; the Rust layer refuses mixed dtypes too."""
    import ferrograd as torch
    import pytest

    lstm = torch.nn.LSTM(4, 3)
    x = torch.randn(5, 2, 4, dtype=torch.float64)
    with pytest.raises(ValueError) as err:
        lstm(x)
    assert str(err.value) == (
        "RNN input dtype (torch.float64) does not match weight dtype (torch.float32). "
        "Convert input: input.to(torch.float32), or convert model: model.to(torch.float64)"
    )
    lstm.double()
    h = (torch.zeros(1, 2, 3, dtype=torch.float64), torch.zeros(1, 2, 3))
    with pytest.raises((RuntimeError, TypeError)):
        lstm(x, h)
