"""``nn.utils.rnn`` and recurrent layers over packed sequences, as one program:
``pad_sequence``, ``pack_padded_sequence`` (sorted, unsorted, lengths as a list or a tensor),
``pad_packed_sequence``, ``pack_sequence``, ``unpack_sequence``, ``unpad_sequence``,
``PackedSequence``'s conversions, the errors PyTorch raises, gradients through packing and
padding; then ``RNN``/``LSTM``/``GRU`` (bidirectional, 2 layers, batch_first, given initial
states) on packed inputs of ragged lengths: packed outputs, final states taken at each
sequence's own end, and the gradients of the input and every parameter, in float64 with the
same initial parameters after ``manual_seed``. ``test_index_ops_golden.py`` runs it with
ferrograd and compares its output with PyTorch 2.15's (``golden/rnn_packed_torch.txt``,
recorded by running it with ``import torch``)."""

import ferrograd as torch
from case_printing import refused

R = torch.nn.utils.rnn
F64 = torch.float64


def rounded(t):
    return [round(v, 8) for v in t.detach().reshape(-1).tolist()]


def show(name, packed):
    print(name, type(packed).__name__, rounded(packed.data), packed.batch_sizes.tolist())
    for field in ("sorted_indices", "unsorted_indices"):
        value = getattr(packed, field)
        print(" ", field, None if value is None else value.tolist())


# padding
torch.manual_seed(0)
seqs = [torch.randn(n, 2, dtype=F64, requires_grad=True) for n in (2, 4, 1)]
for kwargs in ({}, {"batch_first": True}, {"padding_value": -1.0, "padding_side": "left"}):
    padded = R.pad_sequence(seqs, **kwargs)
    grads = torch.autograd.grad((padded * padded.cos()).sum(), seqs)
    print("pad_sequence", kwargs, list(padded.shape), rounded(padded))
    print("  grads", [rounded(g) for g in grads])
print("pad_sequence of a tensor", rounded(R.pad_sequence(torch.arange(6.0).reshape(2, 3))))
refused(lambda: R.pad_sequence(seqs, padding_side="middle"))
refused(lambda: R.pad_sequence(5))
refused(lambda: R.pad_sequence([]))
refused(lambda: R.pad_sequence([torch.ones(2, 2), torch.ones(3)]))

# packing and unpacking
torch.manual_seed(1)
x = torch.randn(4, 3, 2, dtype=F64, requires_grad=True)
show("sorted list", R.pack_padded_sequence(x, [4, 2, 1]))
show("sorted tensor", R.pack_padded_sequence(x, torch.tensor([4, 3, 3])))
show("unsorted", R.pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False))
show("ties", R.pack_padded_sequence(x, [2, 3, 2], enforce_sorted=False))
xb = torch.randn(3, 4, 2, dtype=F64)
show("batch_first", R.pack_padded_sequence(xb, torch.tensor([1, 4, 2]), True, False))
refused(lambda: R.pack_padded_sequence(x, [2, 4, 1]))
refused(lambda: R.pack_padded_sequence(x, torch.tensor([2, 4, 1])))
refused(lambda: R.pack_padded_sequence(x, [4, 2, 0]))
refused(lambda: R.pack_padded_sequence(x, [4, 2]))
refused(lambda: R.pack_padded_sequence(x, torch.tensor([[4, 2, 1]])))
packed = R.pack_padded_sequence(x, [3, 4, 1], enforce_sorted=False)
for kwargs in ({}, {"batch_first": True}, {"padding_value": 9.0, "total_length": 6}):
    out, lengths = R.pad_packed_sequence(packed, **kwargs)
    (g,) = torch.autograd.grad((out * out).sum() + out.sum(), x, retain_graph=True)
    print("pad_packed", kwargs, list(out.shape), rounded(out), lengths.tolist(), lengths.dtype)
    print("  grad", rounded(g))
refused(lambda: R.pad_packed_sequence(packed, total_length=3))
(g,) = torch.autograd.grad((packed.data * torch.arange(8.0, dtype=F64)[:, None]).sum(), x)
print("grad of packed data", rounded(g))
print("sequences", [rounded(s) for s in R.unpack_sequence(packed)])
out, lengths = R.pad_packed_sequence(packed, batch_first=True)
print("unpad", [rounded(s) for s in R.unpad_sequence(out, lengths, batch_first=True)])
print("unpad time-major", [list(s.shape) for s in R.unpad_sequence(out.transpose(0, 1), lengths)])
show("pack_sequence", R.pack_sequence([torch.tensor([1.0, 2.0, 3.0]), torch.tensor([4.0])]))
show("pack_sequence unsorted", R.pack_sequence(seqs, enforce_sorted=False))
refused(lambda: R.pack_sequence([torch.tensor([1.0]), torch.tensor([4.0, 5.0])]))
print("invert_permutation", R.invert_permutation(torch.tensor([2, 0, 3, 1])).tolist())
as_float = packed.float()
print(as_float.data.dtype, packed.double() is packed, as_float.to(F64).data.dtype)
print(as_float.sorted_indices.tolist(), isinstance(packed, tuple), len(packed), packed._fields)
print(packed.is_cuda, R.PackedSequence(packed.data, packed.batch_sizes).unsorted_indices)

# recurrent layers on packed input: (name, class, kwargs, lengths, enforce_sorted, hx given)
LAYERS = [
    ("lstm sorted", "LSTM", {}, [5, 3, 2], True, False),
    ("lstm unsorted", "LSTM", {}, [2, 5, 3, 1], False, False),
    ("lstm bidirectional", "LSTM", {"bidirectional": True}, [3, 5, 1], False, False),
    ("lstm 2 layers bidirectional batch_first", "LSTM",
     {"num_layers": 2, "bidirectional": True, "batch_first": True}, [2, 4, 4, 1], False, True),
    ("gru sorted", "GRU", {}, [4, 4, 2], True, False),
    ("gru 2 layers", "GRU", {"num_layers": 2}, [1, 3, 5], False, True),
    ("gru bidirectional batch_first", "GRU", {"bidirectional": True, "batch_first": True},
     [5, 2, 2], True, False),
    ("rnn tanh bidirectional", "RNN", {"bidirectional": True}, [2, 4, 3], False, True),
    ("rnn relu 2 layers batch_first", "RNN",
     {"num_layers": 2, "nonlinearity": "relu", "batch_first": True}, [3, 1, 4], False, False),
    ("rnn single sequence", "RNN", {"num_layers": 2, "bidirectional": True}, [3], True, False),
]  # fmt: skip
for i, (name, cls, kwargs, lengths, enforce_sorted, with_hx) in enumerate(LAYERS):
    torch.manual_seed(10 + i)
    layer = getattr(torch.nn, cls)(3, 4, dtype=F64, **kwargs)
    batch_first = kwargs.get("batch_first", False)
    steps, batch = max(lengths), len(lengths)
    shape = (batch, steps, 3) if batch_first else (steps, batch, 3)
    x = torch.randn(*shape, dtype=F64, requires_grad=True)
    states = layer.num_layers * (2 if layer.bidirectional else 1)
    hx = None
    if with_hx:
        h0 = torch.randn(states, batch, 4, dtype=F64, requires_grad=True)
        hx = (h0, torch.randn(states, batch, 4, dtype=F64)) if cls == "LSTM" else h0
    packed = R.pack_padded_sequence(x, lengths, batch_first, enforce_sorted)
    out, state = layer(packed, hx)
    h_n, c_n = state if cls == "LSTM" else (state, None)
    padded, out_lengths = R.pad_packed_sequence(out, batch_first)
    weight = torch.arange(padded.numel(), dtype=F64).reshape(padded.shape).sin()
    loss = (padded * weight).sum() + (h_n * h_n).sum() * 0.5
    if c_n is not None:
        loss = loss + c_n.cos().sum()
    inputs = [x, *layer.parameters()] + ([hx[0] if cls == "LSTM" else hx] if with_hx else [])
    grads = torch.autograd.grad(loss, inputs)
    print("==", name, type(out).__name__, out.batch_sizes.tolist(), list(out.data.shape))
    print("  lengths", out_lengths.tolist(), "h_n", list(h_n.shape))
    print("  output", rounded(out.data))
    print("  h_n", rounded(h_n))
    if c_n is not None:
        print("  c_n", rounded(c_n))
    for (pname, _), g in zip([("input", x), *layer.named_parameters()], grads):
        print("  grad", pname, rounded(g))
    if with_hx:
        print("  grad h0", rounded(grads[-1]))

# the packed path gives what the padded path gives when all lengths are equal
torch.manual_seed(3)
lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, dtype=F64)
x = torch.randn(4, 2, 3, dtype=F64)
full, (h, c) = lstm(x)
out, (hp, cp) = lstm(R.pack_padded_sequence(x, [4, 4]))
difference = (full - R.pad_packed_sequence(out)[0]).abs().max() + (h - hp).abs().max()
print("equal lengths", difference.item() < 1e-12, rounded(h))
