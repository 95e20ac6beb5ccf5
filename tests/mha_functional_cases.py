"""``F.multi_head_attention_forward`` and ``nn.MultiheadAttention`` (which calls it, as
PyTorch's does) as one program: separate projection weights with ``add_bias_kv``, masks of
both kinds (and the deprecation warning for mixing them), values and gradients,
``batch_first`` against the functional form, unbatched inputs, PyTorch's shape refusals.
``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/mha_functional_torch.txt``)."""

import warnings

import ferrograd as torch

warnings.simplefilter("ignore")
F = torch.nn.functional
torch.manual_seed(0)
m = torch.nn.MultiheadAttention(8, 2, bias=True, add_bias_kv=True, kdim=6, vdim=5)
q = torch.randn(4, 3, 8, requires_grad=True)
k = torch.randn(5, 3, 6)
v = torch.randn(5, 3, 5)
kpm = torch.tensor([[False] * 4 + [True]] * 3)
out, w = m(q, k, v, key_padding_mask=kpm, attn_mask=torch.zeros(4, 5))
print(tuple(out.shape), tuple(w.shape), round(out.sum().item(), 5), round(w.sum().item(), 5))
out.pow(2).sum().backward()
print(
    round(q.grad.sum().item(), 5),
    round(m.q_proj_weight.grad.sum().item(), 5),
    round(m.bias_k.grad.sum().item(), 5),
)
m2 = torch.nn.MultiheadAttention(8, 4, batch_first=True)
x = torch.randn(2, 3, 8)
o1, w1 = m2(x, x, x, average_attn_weights=False)
o2, w2 = F.multi_head_attention_forward(
    x.transpose(0, 1),
    x.transpose(0, 1),
    x.transpose(0, 1),
    8,
    4,
    m2.in_proj_weight,
    m2.in_proj_bias,
    None,
    None,
    False,
    0.0,
    m2.out_proj.weight,
    m2.out_proj.bias,
    average_attn_weights=False,
)
print(
    tuple(w1.shape),
    torch.allclose(o1, o2.transpose(0, 1)),
    torch.allclose(w1, w2),
    round(o1.sum().item(), 5),
)
o3, w3 = F.multi_head_attention_forward(
    x[0],
    x[0],
    x[0],
    8,
    4,
    m2.in_proj_weight,
    m2.in_proj_bias,
    None,
    None,
    True,
    0.0,
    m2.out_proj.weight,
    m2.out_proj.bias,
    need_weights=False,
)
print(tuple(o3.shape), w3, round(o3.sum().item(), 5))
for bad in [
    lambda: m2(x, x[0], x),
    lambda: m2(x, x, x, key_padding_mask=torch.zeros(3, dtype=torch.bool)),
    lambda: m2(x, x, x, attn_mask=torch.zeros(2, 3, 3, 3)),
    lambda: F.multi_head_attention_forward(
        x, x, x, 7, 4, m2.in_proj_weight, None, None, None, False, 0.0, m2.out_proj.weight, None
    ),
]:
    try:
        bad()
    except AssertionError as e:
        print("AssertionError", e)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    m(q, k, v, key_padding_mask=kpm, attn_mask=torch.zeros(4, 5))
print("mixed masks warn", [str(c.message)[:40] for c in caught])
