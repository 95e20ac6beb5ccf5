"""Recurrent layers against PyTorch (``tools/record_torch_cases.py`` records them,
``test_rnn_golden.py`` replays them): after ``manual_seed``, each cell and sequence layer's
parameters (PyTorch's initialisation and names), outputs, final states and the gradients of
the input, the initial states and every parameter; ``repr``s and ``state_dict`` keys. Runs
unchanged with ``torch`` or ``ferrograd`` as ``lib``."""

GOLDEN = "rnn.json"  # in tests/golden, written by tools/record_torch_cases.py

CELLS = [
    ("rnn_tanh", "RNNCell", {}),
    ("rnn_relu", "RNNCell", {"nonlinearity": "relu"}),
    ("lstm", "LSTMCell", {}),
    ("gru", "GRUCell", {}),
    ("gru_no_bias", "GRUCell", {"bias": False}),
]

LAYERS = [
    ("lstm", "LSTM", {}),
    ("gru_2_layers", "GRU", {"num_layers": 2}),
    ("rnn_bidirectional", "RNN", {"bidirectional": True}),
    ("lstm_2_bidirectional_batch_first", "LSTM",
     {"num_layers": 2, "bidirectional": True, "batch_first": True}),
    ("gru_batch_first_no_bias", "GRU", {"batch_first": True, "bias": False}),
    ("rnn_relu_2_layers", "RNN", {"num_layers": 2, "nonlinearity": "relu"}),
]  # fmt: skip


def _flat(t):
    return t.detach().reshape(-1).tolist()


def run_cell(lib, name, cls, kwargs):
    """One step of a cell with given states; values, gradients, names, repr."""
    lib.manual_seed(len(name))
    cell = getattr(lib.nn, cls)(3, 4, **kwargs)
    x = lib.randn(2, 3, requires_grad=True)
    h0 = lib.randn(2, 4, requires_grad=True)
    if cls == "LSTMCell":
        c0 = lib.randn(2, 4, requires_grad=True)
        h, c = cell(x, (h0, c0))
        loss = (h * h).sum() + (c * lib.arange(4.0)).sum()
        inputs, outs = [x, h0, c0], [_flat(h), _flat(c)]
        single = cell(x[0])[1]
    else:
        h = cell(x, h0)
        loss = (h * h).sum()
        inputs, outs = [x, h0], [_flat(h)]
        single = cell(x[0])
    grads = lib.autograd.grad(loss, inputs + list(cell.parameters()))
    return {
        "repr": repr(cell),
        "names": [n for n, _ in cell.named_parameters()],
        "params": [_flat(p) for p in cell.parameters()],
        "outputs": outs,
        "unbatched": _flat(single),
        "grads": [_flat(g) for g in grads],
    }


def run_layer(lib, name, cls, kwargs):
    """A sequence layer over a (2, 5, 3) input (time-major unless batch_first)."""
    lib.manual_seed(len(name))
    layer = getattr(lib.nn, cls)(3, 4, **kwargs)
    x = lib.randn(2, 5, 3, requires_grad=True)
    out, state = layer(x)
    h_n = state[0] if isinstance(state, tuple) else state
    loss = (out * out).sum() + (h_n * lib.arange(4.0)).sum()
    if isinstance(state, tuple):
        loss = loss + state[1].sum()
    grads = lib.autograd.grad(loss, [x, *layer.parameters()])
    return {
        "repr": repr(layer),
        "keys": list(layer.state_dict().keys()),
        "shapes": [list(out.shape), list(h_n.shape)],
        "output": _flat(out),
        "h_n": _flat(h_n),
        "grads": [_flat(g) for g in grads],
    }


def answers(lib):
    """Every case (what the golden file holds)."""
    return {
        "cells": {name: run_cell(lib, name, cls, kw) for name, cls, kw in CELLS},
        "layers": {name: run_layer(lib, name, cls, kw) for name, cls, kw in LAYERS},
    }
