"""``F.embedding`` and ``nn.Embedding`` as one program: the node (``EmbeddingBackward0``), the
weight gradient with ``padding_idx`` and ``scale_grad_by_freq``, a gradient taken with
``create_graph``, and a 0-d index. ``test_index_ops_golden.py`` runs it with ferrograd and
compares its output with PyTorch 2.15's (``golden/embedding_torch.txt``, recorded by running it
with ``import torch``)."""

import ferrograd as torch

torch.manual_seed(0)
w = torch.randn(6, 3, dtype=torch.float64, requires_grad=True)
idx = torch.tensor([[0, 2, 2], [5, 2, 1]])
for kw in [
    {},
    {"padding_idx": 2},
    {"scale_grad_by_freq": True},
    {"padding_idx": -1, "scale_grad_by_freq": True},
]:
    w.grad = None
    e = torch.nn.functional.embedding(idx, w, **kw)
    (e * torch.arange(18.0, dtype=torch.float64).reshape(2, 3, 3)).sum().backward()
    print(
        kw,
        tuple(e.shape),
        e.grad_fn.name(),
        [round(v, 8) for v in w.grad.reshape(-1).tolist()],
        e._base is None,
        e.is_contiguous(),
    )
m = torch.nn.Embedding(4, 2, padding_idx=0)
out = m(torch.tensor([0, 3]))
print(out.grad_fn.name(), out.detach().tolist()[0])
e = torch.nn.functional.embedding(torch.tensor([1, 4]), w)
(g,) = torch.autograd.grad(e.sum(), w, create_graph=True)
print(g.requires_grad, [round(v, 8) for v in g.reshape(-1).tolist()])
print(torch.nn.functional.embedding(torch.tensor(3), w).shape)
