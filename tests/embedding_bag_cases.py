"""``nn.functional.embedding_bag`` and ``nn.EmbeddingBag`` as one program: sums, means and
maxima of bags cut by offsets or given as a 2-D input, empty bags, ``padding_idx``,
``include_last_offset``, per-sample weights, ``scale_grad_by_freq``, sparse gradients, the
gradients of weight and per-sample weights (gradcheck), the layer and its refusals.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch 2.15's
(``golden/embedding_bag_torch.txt``, recorded by running it with ``import torch``)."""

import warnings

import case_printing
import ferrograd as torch
import ferrograd.nn.functional as F


def refused(call):
    """The exception's class and the first part of its message (PyTorch's own text)."""
    case_printing.refused(call, width=70)


def r(t):
    """Values of a dense or sparse tensor as rounded nested lists."""
    t = t.to_dense() if t.is_sparse else t
    return [[round(v, 5) for v in row] for row in t.reshape(t.shape[0], -1).tolist()]


torch.manual_seed(0)
w = torch.randn(6, 3, requires_grad=True)
idx = torch.tensor([0, 2, 2, 5, 1, 4, 3])
off = torch.tensor([0, 3, 3, 5])
gout = torch.randn(4, 3)
for mode in ("sum", "mean", "max"):
    out = F.embedding_bag(idx, w, off, mode=mode)
    print(mode, out.grad_fn.name(), r(out))
    (g,) = torch.autograd.grad(out, w, gout)
    print(mode, "grad", r(g))
for mode in ("sum", "mean", "max"):
    out = F.embedding_bag(idx, w, off, mode=mode, padding_idx=2)
    (g,) = torch.autograd.grad(out, w, gout)
    print(mode, "padding", r(out), r(g))
last = torch.tensor([0, 3, 3, 5, 7])
out = F.embedding_bag(idx, w, last, mode="sum", include_last_offset=True)
print("include_last_offset", r(out), r(torch.autograd.grad(out, w, gout)[0]))
two_d = torch.tensor([[1, 2, 3], [3, 0, 0]])
out = F.embedding_bag(two_d, w, mode="mean")
print("2-D", r(out), r(torch.autograd.grad(out.sum(), w)[0]))
psw = torch.rand(7, requires_grad=True)
out = F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw)
gw, gp = torch.autograd.grad(out, (w, psw), gout)
print("per_sample_weights", r(out), r(gw), [round(v, 5) for v in gp.tolist()])
out = F.embedding_bag(idx, w, off, mode="sum", per_sample_weights=psw, padding_idx=5)
gw, gp = torch.autograd.grad(out, (w, psw), gout)
print("psw padding", r(gw), [round(v, 5) for v in gp.tolist()])
out = F.embedding_bag(idx, w, off, mode="mean", scale_grad_by_freq=True)
print("scale_grad_by_freq", r(torch.autograd.grad(out, w, gout)[0]))
out = F.embedding_bag(idx, w, off, mode="mean", sparse=True)
(g,) = torch.autograd.grad(out, w, gout)
print("sparse", g.is_sparse, g._nnz(), g._indices().tolist(), r(g))
out = F.embedding_bag(idx, w, off, mode="sum", sparse=True, padding_idx=2)
(g,) = torch.autograd.grad(out, w, gout)
print("sparse padding", g._nnz(), g._indices().tolist(), r(g))
psw2 = torch.rand(7, requires_grad=True, dtype=torch.float64)
w2 = w.detach().double().requires_grad_()
print(
    "gradcheck",
    torch.autograd.gradcheck(
        lambda a, b: F.embedding_bag(idx, a, off, mode="sum", per_sample_weights=b), (w2, psw2)
    ),
)
print(
    "gradcheck mean",
    torch.autograd.gradcheck(lambda a: F.embedding_bag(idx, a, off, mode="mean"), (w2,)),
)
print("int32", r(F.embedding_bag(idx.int(), w, off.int(), mode="sum")))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    out = F.embedding_bag(w, idx, off, mode="sum")
print("swapped", r(out), [str(c.message)[:40] for c in caught])

torch.manual_seed(1)
bag = torch.nn.EmbeddingBag(10, 4, mode="sum", padding_idx=0)
print(bag, bag.weight.shape, bag.weight[0].tolist())
print("layer", r(bag(torch.tensor([[1, 0, 3], [4, 5, 0]]))))
pre = torch.nn.EmbeddingBag.from_pretrained(torch.arange(8.0).reshape(4, 2), mode="max")
print(pre, pre.weight.requires_grad, r(pre(torch.tensor([0, 3, 1]), torch.tensor([0, 1]))))
print(torch.nn.EmbeddingBag(5, 2, max_norm=1.0, scale_grad_by_freq=True))

refused(lambda: F.embedding_bag(idx, w, torch.tensor([1, 3])))
refused(lambda: F.embedding_bag(idx, w, torch.tensor([0, 9])))
refused(lambda: F.embedding_bag(idx, w, None))
refused(lambda: F.embedding_bag(two_d, w, off))
refused(lambda: F.embedding_bag(idx, w, off, mode="median"))
refused(lambda: F.embedding_bag(idx, w, off, mode="max", sparse=True))
refused(lambda: F.embedding_bag(idx, w, off, mode="max", scale_grad_by_freq=True))
refused(lambda: F.embedding_bag(idx, w, off, mode="mean", per_sample_weights=psw))
refused(lambda: F.embedding_bag(idx, w, off, per_sample_weights=torch.rand(3)))
refused(lambda: F.embedding_bag(idx, w[0], off))
refused(lambda: F.embedding_bag(idx.reshape(1, 1, 7), w))
refused(lambda: F.embedding_bag(idx, w, off.reshape(2, 2)))
