"""Attention and transformer layers against PyTorch's recorded answers (``attention_cases.py``,
recorded by ``tools/record_torch_cases.py``): ``scaled_dot_product_attention`` values and input
gradients, module reprs, parameter names and initial values after ``manual_seed``, outputs,
attention weights, gradients of inputs and every parameter, errors; plus a float64 gradcheck of
``scaled_dot_product_attention`` and dropout behaviour in training vs evaluation."""

import json
from pathlib import Path

import attention_cases
import ferrograd
import numpy as np
import pytest
from ferrograd import nn
from ferrograd.nn import functional as F

GOLDEN = json.loads((Path(__file__).parent / "golden" / attention_cases.GOLDEN).read_text())
TOLERANCE = {"float32": 2e-5, "float64": 1e-10}


def _close(got, expected, tol):
    if expected is None or got is None:
        return got is expected
    g, e = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
    return g.shape == e.shape and np.allclose(g, e, rtol=tol, atol=tol * scale, equal_nan=True)


@pytest.mark.parametrize(
    "case, dtype",
    [(c, d) for c in attention_cases.SDPA for d in ("float32", "float64")],
    ids=lambda v: v[0] if isinstance(v, tuple) else v,
)
def test_sdpa_matches_pytorch(case, dtype):
    expected = GOLDEN["sdpa"][f"{case[0]}-{dtype}"]
    got = attention_cases._sdpa(ferrograd, case, dtype)
    tol = TOLERANCE[dtype]
    assert got["shape"] == expected["shape"]
    assert _close(got["value"], expected["value"], tol)
    for g, e in zip(got["grads"], expected["grads"], strict=True):
        assert _close(g, e, tol), (g, e)


@pytest.mark.parametrize("case", attention_cases.MODULES, ids=lambda c: c[0])
def test_module_matches_pytorch(case):
    expected = GOLDEN["modules"][case[0]]
    got = attention_cases.run_module(ferrograd, case)
    tol = 1e-4  # float32 through several layers of matmul, softmax and layer norm
    assert got["repr"] == expected["repr"]
    assert list(got["initial"]) == list(expected["initial"])  # names, in PyTorch's order
    for k, e in expected["initial"].items():
        assert _close(got["initial"][k], e, 1e-6), k
    assert got["out_shape"] == expected["out_shape"]
    assert got["weights_shape"] == expected["weights_shape"]
    assert _close(got["out"], expected["out"], tol)
    assert _close(got["weights"], expected["weights"], tol)
    assert got["input_grads"].keys() == expected["input_grads"].keys()
    for k, e in expected["input_grads"].items():
        assert _close(got["input_grads"][k], e, tol), k
    assert list(got["param_grads"]) == list(expected["param_grads"])
    for k, e in expected["param_grads"].items():
        assert _close(got["param_grads"][k], e, tol), k


@pytest.mark.parametrize("name", sorted(GOLDEN["errors"]))
def test_errors_match_pytorch(name):
    assert attention_cases.errors(ferrograd)[name] == GOLDEN["errors"][name]


@pytest.mark.parametrize("name", ["left", "not_left", "with_mask", "grad_enabled"])
def test_encoder_inference_padding_matches_pytorch(name):
    expected = GOLDEN["nested"][name]
    got = attention_cases.nested(ferrograd)[name]
    assert _close(got, expected, 1e-4)
    if name == "left":  # the padded position of the first sequence is zero
        assert np.allclose(np.asarray(got).reshape(2, 3, 4)[0, 2], 0.0)


def _gradcheck_inputs(shapes):
    gen = np.random.default_rng(3)
    return [ferrograd.from_numpy(gen.standard_normal(s)).requires_grad_() for s in shapes]


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"is_causal": True}, {"scale": 0.7}, {"enable_gqa": True}, {"mask": True}],
    ids=["plain", "causal", "scale", "gqa", "float_mask"],
)
def test_sdpa_gradcheck_float64(kwargs):
    kwargs = dict(kwargs)
    q, k, v = _gradcheck_inputs(
        [
            (2, 4, 3, 5),
            (2, 2 if "enable_gqa" in kwargs else 4, 4, 5),
            (2, 2 if "enable_gqa" in kwargs else 4, 4, 3),
        ]
    )
    inputs = [q, k, v]
    if kwargs.pop("mask", False):
        mask = _gradcheck_inputs([(3, 4)])[0]
        inputs.append(mask)
        fn = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m)  # noqa: E731
    else:
        fn = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kwargs)  # noqa: E731
    assert ferrograd.autograd.gradcheck(fn, tuple(inputs))


def test_sdpa_dropout():
    q = ferrograd.ones(2, 3, 4)
    assert F.scaled_dot_product_attention(q, q, q, dropout_p=1.0).abs().sum().item() == 0.0
    ferrograd.manual_seed(1)
    out = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    # every weight 1/3 is dropped or doubled, so outputs are k/3 * 2 for k kept of 3
    values = set(np.round(out.numpy().ravel() * 3 / 2, 6).tolist())
    assert values <= {0.0, 1.0, 2.0, 3.0} and len(values) > 1


def test_dropout_only_in_training():
    ferrograd.manual_seed(0)
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.5)
    x = attention_cases._t(ferrograd, (3, 2, 4), 0.3)
    layer.eval()
    a, b = layer(x).detach(), layer(x).detach()
    assert np.array_equal(a.numpy(), b.numpy())
    layer.train()
    c = layer(x)
    assert not np.allclose(c.detach().numpy(), a.numpy())
    mha = nn.MultiheadAttention(4, 2, dropout=0.9).train()
    _, w = mha(x, x, x, average_attn_weights=False)
    w = w.detach().numpy()  # returned after dropout: zero or 10x a softmax weight
    assert (w == 0).mean() > 0.5 and w.max() > 1.0
    mha.eval()
    _, w = mha(x, x, x, average_attn_weights=False)
    assert np.allclose(w.detach().numpy().sum(-1), 1.0)


def test_encoder_layers_are_deep_copies():
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8)
    enc = nn.TransformerEncoder(layer, 3, enable_nested_tensor=False)
    ws = [lyr.linear1.weight for lyr in enc.layers]
    assert len({id(w) for w in ws}) == 3 and all(w is not layer.linear1.weight for w in ws)
    assert all(
        np.array_equal(w.detach().numpy(), layer.linear1.weight.detach().numpy()) for w in ws
    )
    assert len(list(enc.parameters())) == 3 * len(list(layer.parameters()))
