"""Sparse COO tensors as one program: construction, printing, coalescing, conversions, products
with dense matrices and their gradients (a sparse operand's gradient is sparse), sums, scaling,
``gather(sparse_grad=True)``, how AccumulateGrad adds sparse gradients, and refusals.
``test_index_ops_golden.py`` runs it with ferrograd and compares its output with PyTorch 2.15's
(``golden/sparse_torch.txt``, recorded by running it with ``import torch``)."""

import case_printing
import ferrograd as torch


def refused(call):
    """The exception's class and the first part of its message (PyTorch's own text)."""
    case_printing.refused(call, width=60)


def dense(t):
    """Values of a sparse or dense tensor as rounded nested lists."""
    t = t.to_dense() if t.is_sparse else t
    return [round(v, 6) for v in t.flatten().tolist()], list(t.shape)


i = torch.tensor([[0, 1, 1, 0], [2, 0, 2, 2]])
v = torch.tensor([3.0, 4.0, 5.0, 1.0])
s = torch.sparse_coo_tensor(i, v, (2, 3))
print(s)
print("meta", s.is_sparse, s.layout, s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced())
print("inferred size", torch.sparse_coo_tensor([[0, 4], [1, 0]], [1, 2]).shape)
c = s.coalesce()
print(c)
print("coalesced parts", c.indices().tolist(), c.values().tolist(), c.is_coalesced())
print("to_dense", dense(s))
refused(lambda: s.indices())
print("to_sparse", torch.tensor([[0.0, 2.0], [0.0, -1.0]]).to_sparse())
print("to_sparse empty", torch.zeros(2, 2).to_sparse()._nnz())
print("double", s.double().dtype, dense(s.double()))
print("int64", torch.sparse_coo_tensor(i, torch.ones(4), (2, 3), dtype=torch.int64))

d = torch.arange(6.0).reshape(3, 2)
print("sparse @ dense", dense(s @ d), (s @ d).is_sparse)
print("torch.spmm", dense(torch.spmm(s, d)), "sparse.mm", dense(torch.sparse.mm(s, d)))
print("dense @ sparse", dense(torch.arange(4.0).reshape(2, 2) @ s))
print("dense + sparse", dense(torch.ones(2, 3) + s), "dense - sparse", dense(torch.ones(2, 3) - s))
refused(lambda: s + torch.ones(2, 3))
print("sparse + sparse", (s + s).is_sparse, dense(s + s))
cc = c + torch.sparse_coo_tensor([[0], [0]], [5.0], (2, 3)).coalesce()
print("coalesced + coalesced", cc._nnz(), cc.is_coalesced(), cc._indices().tolist())
print("coalesced flags", (c * 2).is_coalesced(), (s * 2).is_coalesced(), c.t().is_coalesced())
print("sparse - sparse", dense(s - c))
print("scaled", dense(s * 2), dense(3 * s), dense(s / 2), dense(-s))
print("t", dense(s.t()), s.t().shape, "sum", s.sum().item(), dense(torch.sparse.sum(s, 0)))

w = torch.arange(6.0).reshape(3, 2).requires_grad_()
out = torch.sparse.mm(s, w)
print("mm node", out.grad_fn.name())
out.sum().backward()
print("dense operand grad", dense(w.grad), w.grad.is_sparse)

a = torch.tensor([[1.0, 0.0], [0.0, 2.0]]).to_sparse().requires_grad_()
b = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
(a.mm(b) * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("mm: sparse operand grad", a.grad.is_sparse, dense(a.grad), dense(b.grad))
a.grad = None
(b.mm(a)).sum().backward()
print("mm: sparse right operand grad", a.grad.is_sparse, dense(a.grad))
a.grad, b.grad = None, None
r = torch.sparse.mm(a, b)
(r * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print("sparse.mm grads", r.grad_fn.name(), a.grad.is_sparse, a.grad._nnz(), dense(a.grad))
print("  dense one", dense(b.grad))

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
m = torch.tensor([1.0, 0.0, 1.0]).to_sparse()
y = x.sparse_mask(m)
print("sparse_mask", y.grad_fn.name(), dense(y))
y.to_dense().sum().backward()
print("sparse_mask grad", dense(x.grad))

vals = torch.tensor([1.0, 2.0], requires_grad=True)
st = torch.sparse_coo_tensor([[0, 2]], vals, (4,))
print("from values node", st.grad_fn.name(), st.requires_grad)
(st.to_dense() * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print("values grad", vals.grad.tolist())

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
g = x.gather(1, torch.tensor([[0, 0], [2, 1]]), sparse_grad=True)
g.backward(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print("gather sparse grad", x.grad.is_sparse, x.grad._nnz(), dense(x.grad))

p = torch.tensor([1.0, 2.0], requires_grad=True)
p.grad = torch.sparse_coo_tensor([[1]], [5.0], (2,))
before = p.grad
p.backward(torch.sparse_coo_tensor([[0, 1]], [1.0, 1.0], (2,)))
print("sparse into sparse grad", p.grad is before, p.grad.is_sparse, dense(p.grad))
p.backward(torch.tensor([10.0, 10.0]))
print("dense into sparse grad", p.grad is before, p.grad.is_sparse, dense(p.grad))
before = p.grad
p.backward(torch.sparse_coo_tensor([[0]], [1.0], (2,)))
print("sparse into dense grad", p.grad is before, p.grad.is_sparse, dense(p.grad))

refused(lambda: s.exp())
refused(lambda: s.view(6))
refused(lambda: setattr(torch.zeros(2, 3), "data", s))
# (PyTorch checks the indices only when asked; ferrograd always does)
refused(lambda: torch.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (2,), check_invariants=True))
refused(lambda: torch.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (2,), check_invariants=True))
refused(lambda: s + torch.sparse_coo_tensor([[0]], [1.0], (4,)))

# nn.Embedding(sparse=True): a sparse gradient (padding rows left out) and the optimizers
# that take it (SGD, Adagrad) or refuse it, as PyTorch's
e = torch.nn.Embedding(5, 2, sparse=True, padding_idx=1)
with torch.no_grad():
    e.weight.copy_(torch.arange(10.0).reshape(5, 2) / 10)
x = torch.tensor([[0, 1, 3], [3, 3, 4]])
out = e(x)
(out * torch.arange(12.0).reshape(2, 3, 2)).sum().backward()
print("embedding", out.grad_fn.name(), e.weight.grad)
torch.optim.SGD(e.parameters(), lr=0.1).step()
print("sgd", dense(e.weight.detach()))
e.zero_grad()
print("zero_grad", e.weight.grad)
(e(x) ** 2).sum().backward()
sgd = torch.optim.SGD(e.parameters(), lr=0.1, momentum=0.9)
sgd.step()
sgd.step()
print("sgd momentum", [round(w, 5) for w in e.weight.flatten().tolist()])
ada = torch.optim.Adagrad(e.parameters(), lr=0.5)
ada.step()
ada.step()
print("adagrad", [round(w, 5) for w in e.weight.flatten().tolist()])
for make in (
    torch.optim.Adam,
    torch.optim.AdamW,
    torch.optim.RMSprop,
    torch.optim.Adadelta,
    torch.optim.NAdam,
    lambda p: torch.optim.SGD(p, lr=0.1, weight_decay=0.1),
    lambda p: torch.optim.Adagrad(p, weight_decay=0.1),
):
    refused(lambda make=make: make(e.parameters()).step())
f = torch.nn.Embedding(4, 3, sparse=True, scale_grad_by_freq=True)
refused(lambda: f(torch.tensor([1, 1, 2])).sum().backward())


def parts(t):
    """A sparse tensor's stored indices and values, as kept (coalesced or not)."""
    return t._indices().tolist(), [round(v, 6) for v in t._values().flatten().tolist()]


# sparse * sparse: the elements of one operand times the other's values there (PyTorch's
# intersection kernel: which operand's elements the result keeps depends on coalescing and nnz)
a = torch.sparse_coo_tensor([[0, 1, 2]], [1.0, 2.0, 3.0], (4,))
b = torch.sparse_coo_tensor([[3, 0]], [4.0, 5.0], (4,))
c = torch.sparse_coo_tensor([[1, 1, 0]], [1.0, 2.0, 3.0], (4,))
m = torch.sparse_coo_tensor([[1, 2]], [10.0, 20.0], (4,))
for name, product in (
    ("a*b", lambda: a * b),
    ("b*a", lambda: b * a),
    ("a*b.coalesce()", lambda: a * b.coalesce()),
    ("a.coalesce()*b.coalesce()", lambda: a.coalesce() * b.coalesce()),
    ("c*m", lambda: c * m),
    ("c*m.coalesce()", lambda: c * m.coalesce()),
    ("c*c", lambda: c * c),
):
    r = product()
    print("sparse product", name, parts(r), r.is_coalesced(), dense(r))
hybrid = torch.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2))
other = torch.sparse_coo_tensor([[2, 1]], [[5, 6], [7, 8]], (3, 2), dtype=torch.float64)
r = hybrid * other
print("hybrid product", parts(r), r.dtype, dense(r))
refused(lambda: a * torch.sparse_coo_tensor([[0]], [1.0], (5,)))
x = torch.sparse_coo_tensor([[1, 1]], [1.0, 1.0], (2,), requires_grad=True)
y = x * x
print("product node", y.grad_fn.name(), parts(y))
y.to_dense().sum().backward()
# (how the two sparse contributions are stored once added is PyTorch's add kernel's choice: the
# coalesced gradient is compared)
print("product grad", parts(x.grad.coalesce()), dense(x.grad))

# to_sparse(sparse_dim): hybrid tensors, a stored element a slice over the dense dimensions
h = torch.tensor([[0.0, 0, 0], [1, 0, 2], [0, 0, 0], [0, 3, 0]])
for name, convert in (
    ("to_sparse(1)", lambda: h.to_sparse(1)),
    ("sparse_dim=1", lambda: h.to_sparse(sparse_dim=1)),
    ("dense_dim=1", lambda: h.to_sparse(layout=torch.sparse_coo, dense_dim=1)),
    ("to_sparse(2)", lambda: h.to_sparse(2)),
    ("0-d", lambda: torch.tensor(3.0).to_sparse(0)),
    ("zeros", lambda: torch.zeros(2, 3, 2).to_sparse(2)),
):
    r = convert()
    print("hybrid", name, r.sparse_dim(), r.dense_dim(), parts(r), list(r._values().shape))
refused(lambda: h.to_sparse(3))
refused(lambda: h.to_sparse(-1))
refused(lambda: h.to_sparse(0))
refused(lambda: h.to_sparse(1).to_sparse(2))
leaf = h.clone().requires_grad_()
hybrid = leaf.to_sparse(1)
print("hybrid node", hybrid.grad_fn.name())
hybrid.to_dense().sum().backward()
print("hybrid grad", dense(leaf.grad))
