"""``scaled_dot_product_attention`` composed of ferrograd ops (PyTorch's reference "math"
formulation): ``softmax(q @ k^T * scale + bias) @ v`` with optional dropout on the weights."""

import math

from .. import _core

__all__ = ["scaled_dot_product_attention"]


def _attention_bias(attn_mask, is_causal, L, S, dtype):
    """The additive bias: ``-inf`` where a bool mask is False or above the causal diagonal,
    a float mask as given, ``None`` when there is neither."""
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                "is_causal=True"
            )
        allowed = _core.ones(L, S, dtype=_core.bool).tril()
        return _core.zeros(L, S, dtype=dtype).masked_fill(~allowed, float("-inf"))
    if attn_mask is None:
        return None
    if attn_mask.dtype == _core.bool:
        return _core.zeros(attn_mask.shape, dtype=dtype).masked_fill(~attn_mask, float("-inf"))
    return attn_mask


def _safe_softmax(scores):
    """``softmax(scores, -1)`` with rows whose scores are all ``-inf`` (fully masked) giving
    zero weights instead of NaN, as PyTorch's attention does (gradients there are zero)."""
    masked = (scores.detach() == float("-inf")).all(-1, keepdim=True)
    return scores.masked_fill(masked, 0.0).softmax(-1).masked_fill(masked, 0.0)


def _repeat_heads(t, repeats):
    """``t.repeat_interleave(repeats, dim=-3)`` by expanding a new axis after the heads."""
    if repeats == 1:
        return t
    shape = list(t.shape)
    expanded = t.unsqueeze(-3).expand(*shape[:-2], repeats, *shape[-2:])
    return expanded.reshape(*shape[:-3], shape[-3] * repeats, *shape[-2:])


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p=0.0,
    is_causal=False,
    scale=None,
    enable_gqa=False,
):
    """Attention of ``query (..., L, E)`` over ``key (..., S, E)`` and ``value (..., S, Ev)``.

    ``attn_mask`` broadcasts to ``(..., L, S)``: a bool mask keeps the positions that are True,
    a float mask is added to the scores; fully masked rows give zeros. ``is_causal`` masks
    above the diagonal. ``scale`` defaults to ``1/sqrt(E)``. ``dropout_p`` drops attention
    weights (always, as PyTorch's function does; modules pass 0 in evaluation).
    ``enable_gqa`` repeats the key/value heads (dim -3) to match the query's."""
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError(
            "scaled_dot_product_attention: query, key and value must have at least 2 "
            f"dimensions, got {query.dim()}, {key.dim()} and {value.dim()}"
        )
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            f"scaled_dot_product_attention: the query's last dimension ({query.shape[-1]}) "
            f"must equal the key's ({key.shape[-1]})"
        )
    L, S = query.shape[-2], key.shape[-2]
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    if enable_gqa and query.dim() >= 3 and key.dim() >= 3:
        hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
        if hq % hk or hq % hv:
            raise RuntimeError(
                f"scaled_dot_product_attention: number of heads in query ({hq}) must be "
                f"divisible by those of key ({hk}) and value ({hv}) with enable_gqa=True"
            )
        key = _repeat_heads(key, hq // hk)
        value = _repeat_heads(value, hq // hv)
    scores = query.matmul(key.transpose(-2, -1)) * scale
    bias = _attention_bias(attn_mask, is_causal, L, S, query.dtype)
    if bias is not None:
        scores = scores + bias
    weights = scores.softmax(-1) if bias is None else _safe_softmax(scores)
    if dropout_p > 0.0:
        from .functional import dropout

        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)
