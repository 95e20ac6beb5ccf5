"""Attention and transformer layers checked against PyTorch (``tools/record_torch_cases.py``
records them, ``test_attention_golden.py`` replays them): ``F.scaled_dot_product_attention``
(masks, causal, scale, grouped-query heads; values and gradients in float32 and float64),
``nn.MultiheadAttention`` (packed and separate projections, masks, bias_k/v, zero attention,
unbatched, batch_first, averaged or per-head weights), ``TransformerEncoderLayer``,
``TransformerEncoder``, ``TransformerDecoderLayer`` and ``TransformerDecoder`` built after
``manual_seed`` (initial parameters, parameter names, reprs, outputs and gradients of inputs and
every parameter, in training with dropout 0 and in evaluation with dropout > 0), and bad
arguments (class and message). Runs unchanged with ``torch`` or ``ferrograd`` as ``lib``."""

import math

GOLDEN = "attention.json"  # in tests/golden, written by tools/record_torch_cases.py


def _t(lib, shape, phase, dtype="float32", grad=False, scale=1.0):
    """A fixed tensor of ``shape`` (no random numbers)."""
    n = math.prod(shape)
    vals = [
        scale * (math.sin(1.3 * i + phase) + 0.5 * math.cos(0.37 * i * phase)) for i in range(n)
    ]
    x = lib.tensor(vals, dtype=getattr(lib, dtype)).reshape(*shape)
    return x.requires_grad_() if grad else x


def _bool_mask(lib, shape, phase):
    """A bool mask with no row entirely False/True (``keep`` pattern varies with ``phase``)."""
    n = math.prod(shape)
    last = shape[-1]
    vals = [((i * 7 + phase) % 3 != 0) or (i % last == 0) for i in range(n)]
    return lib.tensor(vals).reshape(*shape)


def _list(x):
    return None if x is None else x.detach().double().flatten().tolist()


# (name, query/key/value shapes, keyword arguments, mask spec)
SDPA = [
    ("plain", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}, None),
    ("bool_mask", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}, ("bool", (4, 6))),
    ("float_mask", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7), {}, ("float", (2, 1, 4, 6))),
    ("causal", (2, 4, 5), (2, 4, 5), (2, 4, 3), {"is_causal": True}, None),
    ("causal_rect", (2, 3, 5), (2, 6, 5), (2, 6, 3), {"is_causal": True}, None),
    ("scale", (3, 4, 5), (3, 6, 5), (3, 6, 2), {"scale": 0.3}, ("bool", (3, 4, 6))),
    ("gqa", (2, 4, 3, 5), (2, 2, 6, 5), (2, 2, 6, 4), {"enable_gqa": True}, None),
    ("masked_row", (2, 4, 5), (2, 6, 5), (2, 6, 3), {}, ("blocked", (4, 6))),
    ("two_dims", (4, 5), (6, 5), (6, 3), {}, ("float", (4, 6))),
    # past one block of the fused kernel's causal queries (64), with fewer keys than queries
    ("causal_long", (1, 2, 130, 8), (1, 2, 130, 8), (1, 2, 130, 4), {"is_causal": True}, None),
    ("causal_wide", (2, 70, 4), (2, 50, 4), (2, 50, 3), {"is_causal": True}, None),
    # a padding mask per batch element over ragged lengths, broadcast over heads
    ("padding", (3, 2, 5, 4), (3, 2, 7, 4), (3, 2, 7, 4), {}, ("ragged", (3, 1, 1, 7))),
]


def _sdpa(lib, case, dtype):
    _, qs, ks, vs, kwargs, mask = case
    q, k, v = (_t(lib, s, p, dtype, grad=True) for s, p in ((qs, 0.1), (ks, 0.7), (vs, 1.3)))
    kw = dict(kwargs)
    if mask is not None:
        if mask[0] == "float":
            kw["attn_mask"] = _t(lib, mask[1], 2.1, dtype)
        else:
            kw["attn_mask"] = _bool_mask(lib, mask[1], 1)
            if mask[0] == "blocked":  # the second query attends to nothing: zeros
                kw["attn_mask"][1] = False
            if mask[0] == "ragged":  # sequence b has 7 - 2b keys
                lengths = lib.tensor([7, 5, 3]).reshape(3, 1, 1, 1)
                kw["attn_mask"] = lib.arange(7).reshape(1, 1, 1, 7) < lengths
    out = lib.nn.functional.scaled_dot_product_attention(q, k, v, **kw)
    cot = _t(lib, tuple(out.shape), 0.5, dtype)
    (out * cot).sum().backward()
    return {
        "shape": list(out.shape),
        "value": _list(out),
        "grads": [_list(x.grad) for x in (q, k, v)],
    }


def _mha_inputs(lib, spec):
    """Inputs for a module forward: tensors needing grad and masks."""
    out = {}
    for key, (kind, shape, phase) in spec.items():
        if kind == "x":
            out[key] = _t(lib, shape, phase, grad=True)
        elif kind == "bool":
            out[key] = _bool_mask(lib, shape, phase)
        elif kind == "pad":  # key padding: True = ignore; the first key is always kept
            n, s = shape
            vals = [[j >= s - 1 - (i + phase) % 2 and j > 0 for j in range(s)] for i in range(n)]
            out[key] = lib.tensor(vals)
        elif kind == "causal":  # float mask, -inf above the diagonal
            out[key] = lib.triu(lib.full(shape, float("-inf")), diagonal=1)
        else:
            out[key] = _t(lib, shape, phase)
    return out


# (name, class, constructor args, constructor kwargs, forward positional names, forward
# kwargs of input names, other forward kwargs, inputs spec, train)
MODULES = [
    (
        "mha_self",
        "MultiheadAttention",
        (4, 2),
        {},
        ["x", "x", "x"],
        {},
        {},
        {"x": ("x", (3, 2, 4), 0.3)},
        True,
    ),
    (
        "mha_cross_heads",
        "MultiheadAttention",
        (6, 3),
        {},
        ["q", "k", "v"],
        {},
        {"average_attn_weights": False},
        {"q": ("x", (3, 2, 6), 0.3), "k": ("x", (5, 2, 6), 0.9), "v": ("x", (5, 2, 6), 1.7)},
        True,
    ),
    (
        "mha_masks",
        "MultiheadAttention",
        (4, 2),
        {},
        ["q", "k", "k"],
        {"key_padding_mask": "kpm", "attn_mask": "am"},
        {},
        {
            "q": ("x", (3, 2, 4), 0.3),
            "k": ("x", (5, 2, 4), 0.9),
            "kpm": ("pad", (2, 5), 0),
            "am": ("bool", (3, 5), 2),
        },
        True,
    ),
    (
        "mha_no_weights_float_masks",
        "MultiheadAttention",
        (4, 2),
        {},
        ["q", "k", "v"],
        {"key_padding_mask": "kpm", "attn_mask": "am"},
        {"need_weights": False},
        {
            "q": ("x", (3, 2, 4), 0.3),
            "k": ("x", (5, 2, 4), 0.9),
            "v": ("x", (5, 2, 4), 1.1),
            "kpm": ("f", (2, 5), 0.4),
            "am": ("f", (4, 3, 5), 1.4),
        },
        True,
    ),
    (
        "mha_batch_first_kdim_vdim",
        "MultiheadAttention",
        (4, 2),
        {"kdim": 3, "vdim": 5, "batch_first": True},
        ["q", "k", "v"],
        {"key_padding_mask": "kpm"},
        {},
        {
            "q": ("x", (2, 3, 4), 0.3),
            "k": ("x", (2, 4, 3), 0.9),
            "v": ("x", (2, 4, 5), 1.1),
            "kpm": ("pad", (2, 4), 1),
        },
        True,
    ),
    (
        "mha_bias_kv_zero_attn",
        "MultiheadAttention",
        (4, 2),
        {"add_bias_kv": True, "add_zero_attn": True},
        ["q", "k", "k"],
        {"key_padding_mask": "kpm", "attn_mask": "am"},
        {},
        {
            "q": ("x", (3, 2, 4), 0.3),
            "k": ("x", (5, 2, 4), 0.9),
            "kpm": ("pad", (2, 5), 1),
            "am": ("bool", (3, 5), 1),
        },
        True,
    ),
    (
        "mha_no_bias",
        "MultiheadAttention",
        (4, 1),
        {"bias": False},
        ["x", "x", "x"],
        {},
        {},
        {"x": ("x", (3, 2, 4), 0.3)},
        True,
    ),
    (
        "mha_unbatched",
        "MultiheadAttention",
        (4, 2),
        {},
        ["q", "k", "k"],
        {"key_padding_mask": "kpm"},
        {},
        {"q": ("x", (3, 4), 0.3), "k": ("x", (5, 4), 0.9), "kpm": ("bool", (5,), 1)},
        True,
    ),
    (
        "mha_causal_eval_dropout",
        "MultiheadAttention",
        (4, 2),
        {"dropout": 0.5},
        ["x", "x", "x"],
        {"attn_mask": "am"},
        {"is_causal": True},
        {"x": ("x", (4, 2, 4), 0.3), "am": ("causal", (4, 4), 0)},
        False,
    ),
    (
        "enc_layer",
        "TransformerEncoderLayer",
        (4, 2),
        {"dim_feedforward": 8, "dropout": 0.0},
        ["x"],
        {"src_key_padding_mask": "kpm"},
        {},
        {"x": ("x", (3, 2, 4), 0.3), "kpm": ("pad", (2, 3), 0)},
        True,
    ),
    (
        "enc_layer_gelu_norm_first_batch_first",
        "TransformerEncoderLayer",
        (6, 3),
        {
            "dim_feedforward": 10,
            "dropout": 0.0,
            "activation": "gelu",
            "norm_first": True,
            "batch_first": True,
            "layer_norm_eps": 1e-3,
        },
        ["x"],
        {"src_mask": "am"},
        {},
        {"x": ("x", (2, 3, 6), 0.3), "am": ("causal", (3, 3), 0)},
        True,
    ),
    (
        "enc_layer_eval",
        "TransformerEncoderLayer",
        (4, 2),
        {"dim_feedforward": 8},
        ["x"],
        {},
        {},
        {"x": ("x", (3, 2, 4), 0.3)},
        False,
    ),
    (
        "enc_layer_no_bias",
        "TransformerEncoderLayer",
        (4, 2),
        {"dim_feedforward": 8, "dropout": 0.0, "bias": False},
        ["x"],
        {},
        {},
        {"x": ("x", (3, 2, 4), 0.3)},
        True,
    ),
    (
        "encoder",
        "TransformerEncoder",
        (),
        {"num_layers": 2, "norm": True},
        ["x"],
        {"mask": "am", "src_key_padding_mask": "kpm"},
        {},
        {"x": ("x", (3, 2, 4), 0.3), "am": ("causal", (3, 3), 0), "kpm": ("pad", (2, 3), 1)},
        True,
    ),
    (
        "encoder_eval",
        "TransformerEncoder",
        (),
        {"num_layers": 2},
        ["x"],
        {},
        {},
        {"x": ("x", (3, 2, 4), 0.3)},
        False,
    ),
    (
        "dec_layer",
        "TransformerDecoderLayer",
        (4, 2),
        {"dim_feedforward": 8, "dropout": 0.0},
        ["t", "m"],
        {"tgt_mask": "am", "memory_key_padding_mask": "kpm", "memory_mask": "mm"},
        {},
        {
            "t": ("x", (3, 2, 4), 0.3),
            "m": ("x", (5, 2, 4), 1.2),
            "am": ("causal", (3, 3), 0),
            "kpm": ("pad", (2, 5), 0),
            "mm": ("bool", (3, 5), 1),
        },
        True,
    ),
    (
        "dec_layer_norm_first_batch_first",
        "TransformerDecoderLayer",
        (4, 2),
        {"dim_feedforward": 8, "dropout": 0.0, "norm_first": True, "batch_first": True},
        ["t", "m"],
        {"tgt_key_padding_mask": "tkpm"},
        {},
        {"t": ("x", (2, 3, 4), 0.3), "m": ("x", (2, 5, 4), 1.2), "tkpm": ("pad", (2, 3), 1)},
        True,
    ),
    (
        "decoder",
        "TransformerDecoder",
        (),
        {"num_layers": 2, "norm": True},
        ["t", "m"],
        {"tgt_mask": "am"},
        {},
        {"t": ("x", (3, 2, 4), 0.3), "m": ("x", (5, 2, 4), 1.2), "am": ("causal", (3, 3), 0)},
        True,
    ),
    (
        "decoder_eval",
        "TransformerDecoder",
        (),
        {"num_layers": 1},
        ["t", "m"],
        {},
        {},
        {"t": ("x", (3, 2, 4), 0.3), "m": ("x", (5, 2, 4), 1.2)},
        False,
    ),
    (
        "transformer",
        "Transformer",
        (),
        {
            "d_model": 4,
            "nhead": 2,
            "num_encoder_layers": 2,
            "num_decoder_layers": 1,
            "dim_feedforward": 8,
            "dropout": 0.0,
        },
        ["s", "t"],
        {"tgt_mask": "am", "src_key_padding_mask": "kpm"},
        {},
        {
            "s": ("x", (5, 2, 4), 0.3),
            "t": ("x", (3, 2, 4), 1.2),
            "am": ("causal", (3, 3), 0),
            "kpm": ("pad", (2, 5), 0),
        },
        True,
    ),
]


def _build(lib, cls, args, kwargs):
    nn = lib.nn
    kwargs = dict(kwargs)
    if cls == "TransformerEncoder":
        layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.1)
        norm = nn.LayerNorm(4) if kwargs.pop("norm", False) else None
        return nn.TransformerEncoder(layer, norm=norm, **kwargs)
    if cls == "TransformerDecoder":
        layer = nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, dropout=0.1)
        norm = nn.LayerNorm(4) if kwargs.pop("norm", False) else None
        return nn.TransformerDecoder(layer, norm=norm, **kwargs)
    return getattr(nn, cls)(*args, **kwargs)


def run_module(lib, case):
    """Construct after ``manual_seed(0)``, run forward and backward, report everything."""
    _, cls, args, kwargs, pos, named, extra, spec, train = case
    lib.manual_seed(0)
    m = _build(lib, cls, args, kwargs)
    initial = {n: _list(p) for n, p in m.named_parameters()}
    if cls in ("TransformerEncoder", "TransformerDecoder"):
        # the deep copies have equal values: perturb each layer so the test sees which is which
        with lib.no_grad():
            for i, layer in enumerate(m.layers):
                for p in layer.parameters():
                    p.add_(0.01 * (i + 1))
    m.train(train)
    inputs = _mha_inputs(lib, spec)
    res = m(*[inputs[k] for k in pos], **{k: inputs[v] for k, v in named.items()}, **extra)
    out, weights = res if isinstance(res, tuple) else (res, None)
    loss = (out * _t(lib, tuple(out.shape), 0.5)).sum()
    if weights is not None:
        loss = loss + (weights * _t(lib, tuple(weights.shape), 1.5)).sum()
    loss.backward()
    grads = {k: _list(v.grad) for k, v in inputs.items() if v.requires_grad}
    return {
        "repr": repr(m),
        "initial": initial,
        "out_shape": list(out.shape),
        "out": _list(out),
        "weights_shape": None if weights is None else list(weights.shape),
        "weights": _list(weights),
        "input_grads": grads,
        "param_grads": {n: _list(p.grad) for n, p in m.named_parameters()},
    }


def nested(lib):
    """``TransformerEncoder`` in evaluation without gradients with a key padding mask:
    PyTorch's nested-tensor path (batch_first, left-aligned padding, no ``mask``) returns
    zeros at padded positions; other calls return the ordinary outputs there."""
    lib.manual_seed(0)
    nn = lib.nn
    layer = nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)
    enc = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(4)).eval()
    x = _t(lib, (2, 3, 4), 0.3)
    left = lib.tensor([[False, False, True], [False, False, False]])
    not_left = lib.tensor([[False, True, False], [False, False, False]])
    causal = lib.triu(lib.full((3, 3), float("-inf")), diagonal=1)
    out = {}
    with lib.no_grad():
        out["left"] = _list(enc(x, src_key_padding_mask=left))
        out["not_left"] = _list(enc(x, src_key_padding_mask=not_left))
        out["with_mask"] = _list(enc(x, mask=causal, src_key_padding_mask=left))
    out["grad_enabled"] = _list(enc(x, src_key_padding_mask=left))
    return out


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class is the answer
        return [type(e).__name__, str(e)]
    return None


def errors(lib):
    """Bad arguments: exception class and message."""
    nn, F = lib.nn, lib.nn.functional
    x = _t(lib, (3, 2, 4), 0.1)
    m = nn.MultiheadAttention(4, 2)
    return {
        "heads_not_dividing": _error(lambda: nn.MultiheadAttention(5, 2)),
        "bad_activation": _error(lambda: nn.TransformerEncoderLayer(4, 2, activation="tanh")),
        "causal_without_mask": _error(lambda: m(x, x, x, is_causal=True)),
        "mask_shape": _error(lambda: m(x, x, x, attn_mask=lib.zeros(2, 3))),
        "embed_dim": _error(lambda: m(_t(lib, (3, 2, 5), 0.1), x, x)),
        "sdpa_causal_and_mask": _error(
            lambda: F.scaled_dot_product_attention(
                x, x, x, attn_mask=lib.zeros(2, 2), is_causal=True
            )
        ),
    }


def answers(lib):
    """Every recorded answer, keyed by case."""
    import warnings

    warnings.simplefilter("ignore")
    out = {"sdpa": {}, "modules": {}}
    for case in SDPA:
        for dtype in ("float32", "float64"):
            out["sdpa"][f"{case[0]}-{dtype}"] = _sdpa(lib, case, dtype)
    for case in MODULES:
        out["modules"][case[0]] = run_module(lib, case)
    out["errors"] = errors(lib)
    out["nested"] = nested(lib)
    return out
