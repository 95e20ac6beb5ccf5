"""``scaled_dot_product_attention`` composed of ferrograd ops (PyTorch's reference "math"
formulation): ``softmax(q @ k^T * scale + bias) @ v`` with optional dropout on the weights; and
``multi_head_attention_forward``, what ``nn.MultiheadAttention`` computes, given its weights."""

import math

from .. import _core

__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]


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


def _fused_attention(query, key, value, attn_mask, dropout_p, is_causal, scale):
    """The fused kernel's result (one ``ScaledDotProductFlashAttentionForCpuBackward0`` node,
    as PyTorch's CPU path), or ``None`` where PyTorch computes attention by its composite
    instead (``dropout_p``) or the kernel does not apply: 3-D or 4-D operands of one floating
    dtype with the same leading dims, no empty size, a mask that is bool or of that dtype and
    needs no gradient, not both a mask and ``is_causal``. 3-D operands get a leading dim of
    1, squeezed afterwards (``SqueezeBackward1``, as PyTorch's)."""
    nd = query.dim()
    if dropout_p > 0.0 or nd not in (3, 4) or key.dim() != nd or value.dim() != nd:
        return None
    dtype = query.dtype
    if not dtype.is_floating_point or key.dtype != dtype or value.dtype != dtype:
        return None
    if key.shape[:-2] != query.shape[:-2] or value.shape[:-2] != query.shape[:-2]:
        return None
    if 0 in query.shape or 0 in key.shape or 0 in value.shape:
        return None
    if key.shape[-2] != value.shape[-2]:
        return None
    bias = None
    L, S = query.shape[-2], key.shape[-2]
    if attn_mask is not None:
        if is_causal or attn_mask.requires_grad or attn_mask.dim() > nd:
            return None
        if attn_mask.dtype == _core.bool:
            bias = _core.zeros(attn_mask.shape, dtype=dtype).masked_fill(~attn_mask, float("-inf"))
        elif attn_mask.dtype == dtype:
            bias = attn_mask
        else:
            return None
        try:
            full = bias.expand(*query.shape[:-2], L, S)
        except RuntimeError:
            return None
        leading = bias.shape[: bias.dim() - 2] if bias.dim() > 2 else ()
        if bias.dim() >= 2 and all(d == 1 for d in leading):
            bias = bias.reshape(bias.shape[-2], bias.shape[-1]).expand(L, S).contiguous()
        else:
            bias = full.contiguous()
    if nd == 3:
        out = _core.scaled_dot_product_attention(
            query.unsqueeze(0),
            key.unsqueeze(0),
            value.unsqueeze(0),
            bias if bias is None or bias.dim() == 2 else bias.unsqueeze(0),
            is_causal,
            scale,
        )
        return out.squeeze(0)
    return _core.scaled_dot_product_attention(query, key, value, bias, is_causal, scale)


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
    fused = _fused_attention(query, key, value, attn_mask, dropout_p, is_causal, scale)
    if fused is not None:
        return fused
    scores = query.matmul(key.transpose(-2, -1)) * scale
    bias = _attention_bias(attn_mask, is_causal, L, S, query.dtype)
    if bias is not None:
        scores = scores + bias
    weights = scores.softmax(-1) if bias is None else _safe_softmax(scores)
    if dropout_p > 0.0:
        from .functional import dropout

        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _float_mask(mask, dtype):
    """A bool mask (True = masked out) as an additive float mask, a float mask unchanged."""
    if mask is None:
        return None
    if mask.dtype == _core.bool:
        return _core.zeros(mask.shape, dtype=dtype).masked_fill(mask, float("-inf"))
    if not mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of masks are supported")
    return mask


def _pad_last(mask):
    """``F.pad(mask, (0, 1))`` for a float mask: one more (zero) key column."""
    if mask is None:
        return None
    extra = _core.zeros(*mask.shape[:-1], 1, dtype=mask.dtype)
    return _core.cat([mask, extra], -1)


def _in_projection(query, key, value, embed_dim, weights, in_proj_bias):
    """Query, key and value through their projections: slices of ``in_proj_weight`` (one
    matrix) or three separate weights, and the slices of ``in_proj_bias``."""
    from .functional import linear

    E = embed_dim
    b = in_proj_bias
    bq, bk, bv = (None,) * 3 if b is None else (b[:E], b[E : 2 * E], b[2 * E :])
    if len(weights) == 1:
        (w,) = weights
        wq, wk, wv = w[:E], w[E : 2 * E], w[2 * E :]
    else:
        wq, wk, wv = weights
    return linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)


def _checked_attn_mask(attn_mask, L, S, N, H):
    """``attn_mask`` as ``(1 or N*H, L, S)``, its shape checked as PyTorch checks it."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (L, S):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be {(L, S)}."
            )
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (N * H, L, S):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                f"{(N * H, L, S)}."
            )
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of the inputs' ranks (its messages); whether the query is batched."""
    if query.dim() not in (2, 3):
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.dim()}-D query tensor"
        )
    batched = query.dim() == 3
    kind, rank = ("batched (3-D)", 3) if batched else ("unbatched (2-D)", 2)
    if key.dim() != rank or value.dim() != rank:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {rank}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != rank - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {rank - 1}-D but "
            f"found {key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None:
        if attn_mask.dim() not in (2, 3):
            raise AssertionError(
                f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                f"{attn_mask.dim()}-D tensor instead"
            )
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}"
            )
    return batched


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """Multi-head attention of ``query (L, N, E)`` over ``key (S, N, kdim)`` and
    ``value (S, N, vdim)`` (unbatched ``(L, E)`` also accepted), given the weights
    ``nn.MultiheadAttention`` holds: the projections, ``num_heads`` heads of scaled dot-product
    attention (``key_padding_mask (N, S)`` and ``attn_mask (L, S)`` or ``(N*num_heads, L, S)``:
    bool True = ignore, float = added), dropout on the weights when ``training``, the output
    projection. Returns ``(attn_output, attn_weights)``: the weights averaged over the heads by
    default, ``None`` without ``need_weights``. ``is_causal`` is a hint: ``attn_mask`` must be
    given."""
    from .functional import dropout, linear

    batched = _check_mha_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = (x.unsqueeze(1) for x in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    L, N, E = query.shape
    H = num_heads
    if E != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}"
        )
    hd = E // H
    if hd * H != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {H}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(
                f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                f"{value.shape[:2]}"
            )
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    dtype = query.dtype
    if (
        key_padding_mask is not None
        and attn_mask is not None
        and (key_padding_mask.dtype == _core.bool) != (attn_mask.dtype == _core.bool)
    ):
        import warnings

        warnings.warn(
            "Support for mismatched key_padding_mask and attn_mask is deprecated. Use same type "
            "for both instead.",
            UserWarning,
            stacklevel=3,
        )
    key_padding_mask = _float_mask(key_padding_mask, dtype)
    attn_mask = _float_mask(attn_mask, dtype)
    weights = (
        (q_proj_weight, k_proj_weight, v_proj_weight)
        if use_separate_proj_weight
        else (in_proj_weight,)
    )
    q, k, v = _in_projection(query, key, value, E, weights, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _checked_attn_mask(attn_mask, L, key.shape[0], N, H)
    if bias_k is not None and bias_v is not None:
        if static_k is not None or static_v is not None:
            raise AssertionError("bias cannot be added to static key or value.")
        k = _core.cat([k, bias_k.expand(1, N, E)], 0)
        v = _core.cat([v, bias_v.expand(1, N, E)], 0)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape(L, N * H, hd).transpose(0, 1)
    k = k.reshape(k.shape[0], N * H, hd).transpose(0, 1) if static_k is None else static_k
    v = v.reshape(v.shape[0], N * H, hd).transpose(0, 1) if static_v is None else static_v
    for name, static, t in (("key", static_k, k), ("value", static_v, v)):
        if static is not None and (t.shape[0] != N * H or t.shape[2] != hd):
            raise AssertionError(
                f"expecting static_{name[0]}.size(0) of {N * H} and size(2) of {hd}, but got "
                f"{tuple(t.shape)}"
            )
    if add_zero_attn:
        k = _core.cat([k, _core.zeros(N * H, 1, hd, dtype=dtype)], 1)
        v = _core.cat([v, _core.zeros(N * H, 1, hd, dtype=dtype)], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    S = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (N, S):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(N, S)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        kpm = key_padding_mask.reshape(N, 1, 1, S).expand(N, H, 1, S).reshape(N * H, 1, S)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not need_weights:
        # as PyTorch: the heads through scaled_dot_product_attention (the fused kernel)
        mask = attn_mask
        if mask is not None and mask.dim() == 3:
            if mask.shape[0] == N * H:
                mask = mask.reshape(N, H, mask.shape[1], S)
            else:
                mask = mask.reshape(mask.shape[1], S)
        out = scaled_dot_product_attention(
            q.reshape(N, H, L, hd),
            k.reshape(N, H, S, hd),
            v.reshape(N, H, S, hd),
            attn_mask=mask,
            dropout_p=dropout_p if training else 0.0,
        )
        out = out.permute(2, 0, 1, 3).reshape(L * N, E)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
        return (out if batched else out.squeeze(1)), None
    scores = (q * math.sqrt(1.0 / hd)).bmm(k.transpose(1, 2))
    if attn_mask is not None:
        scores = scores + attn_mask
    # the weights PyTorch returns are a plain softmax (NaN on fully masked rows); its
    # need_weights=False path goes through scaled_dot_product_attention (zeros there)
    weights = scores.softmax(-1) if need_weights or attn_mask is None else _safe_softmax(scores)
    if training and dropout_p > 0.0:  # the returned weights are the dropped ones, as PyTorch's
        weights = dropout(weights, dropout_p, True)
    out = weights.bmm(v).transpose(0, 1).reshape(L * N, E)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(L, N, E)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(N, H, L, S)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights
