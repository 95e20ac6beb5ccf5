"""``optim.swa_utils``, the newer ``nn.init`` functions and the 3-D / alpha dropouts, as one
program: ``AveragedModel`` (SWA by default, EMA through ``avg_fn`` / ``multi_avg_fn``, with
and without ``use_buffers``) after a few ``update_parameters``, ``SWALR``'s rates step by step
(cosine, linear, no annealing, a rate per group, ``state_dict`` round trip), ``update_bn``;
``nn.init.dirac_``, ``sparse_`` (values under a fixed seed), ``orthogonal_``, the deprecated
names without the underscore and the zero-element warning of ``kaiming_*_``; ``F.dropout3d``,
``F.alpha_dropout``, ``F.feature_alpha_dropout`` and their modules (values, gradients and node
names under a fixed seed); and the errors PyTorch raises. ``test_index_ops_golden.py`` runs
it with ferrograd and compares its output with PyTorch 2.15's
(``golden/swa_init_dropout_torch.txt``, recorded by running it with ``import torch``)."""

import warnings

import ferrograd as torch
from case_printing import refused

F = torch.nn.functional
init = torch.nn.init
swa_utils = torch.optim.swa_utils
F64 = torch.float64


def rounded(t):
    return [round(v, 8) for v in t.detach().reshape(-1).tolist()]


def caught(call):
    """Runs ``call``; prints the warnings it raised (class and message, 120 chars)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    for w in seen:
        print(" ", w.category.__name__, str(w.message)[:120])
    if not seen:
        print("  no warning")


def model():
    return torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(), torch.nn.Linear(4, 2)
    ).to(F64)


def show_averaged(name, averaged):
    print(name, "n_averaged", averaged.n_averaged.item())
    for key, value in averaged.state_dict().items():
        print(" ", key, rounded(value) if value.dim() else round(value.item(), 8))


def run_averaging(name, **kwargs):
    torch.manual_seed(0)
    net = model()
    averaged = swa_utils.AveragedModel(net, **kwargs)
    for _ in range(4):
        with torch.no_grad():
            for p in net.parameters():
                p.add_(torch.randn_like(p))
        net(torch.randn(5, 3, dtype=F64))  # moves the BatchNorm statistics
        averaged.update_parameters(net)
    show_averaged(name, averaged)
    out = averaged(torch.randn(2, 3, dtype=F64))
    print("  forward", rounded(out), type(out.grad_fn).__name__)
    return averaged


# ----- AveragedModel ------------------------------------------------------------------------
averaged = run_averaging("swa default")
print("  module type", type(averaged.module).__name__, averaged.module is not None)
print("  n_averaged dtype", averaged.n_averaged.dtype)
run_averaging("swa multi", multi_avg_fn=swa_utils.get_swa_multi_avg_fn())
run_averaging("swa avg_fn", avg_fn=swa_utils.get_swa_avg_fn())
run_averaging("ema multi", multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.9))
run_averaging("ema avg_fn", avg_fn=swa_utils.get_ema_avg_fn(0.8))
run_averaging(
    "ema multi buffers", multi_avg_fn=swa_utils.get_ema_multi_avg_fn(0.7), use_buffers=True
)
run_averaging("swa buffers", use_buffers=True)

# float32 parameters: the SWA weight 1 / (n + 1) as PyTorch reads it
torch.manual_seed(1)
net32 = torch.nn.Linear(3, 3)
avg32 = swa_utils.AveragedModel(net32)
for _ in range(4):
    with torch.no_grad():
        net32.weight.add_(torch.randn(3, 3))
    avg32.update_parameters(net32)
print("float32 swa", [round(v, 5) for v in avg32.module.weight.reshape(-1).tolist()])

# the functions themselves
a = torch.tensor([1.0, 2.0, 3.0], dtype=F64)
b = torch.tensor([4.0, 0.0, -1.0], dtype=F64)
print("swa_avg_fn", rounded(swa_utils.get_swa_avg_fn()(a, b, 2)))
print("ema_avg_fn", rounded(swa_utils.get_ema_avg_fn(0.25)(a, b, 7)))
lst = [a.clone()]
swa_utils.get_swa_multi_avg_fn()(lst, [b], torch.tensor(3))
print("swa_multi tensor count", rounded(lst[0]))
lst = [a.clone()]
swa_utils.get_swa_multi_avg_fn()(lst, [b], 1)
print("swa_multi int count", rounded(lst[0]))
lst = [a.clone()]
swa_utils.get_ema_multi_avg_fn(0.6)(lst, [b], 0)
print("ema_multi", rounded(lst[0]))
ints = [torch.tensor([1, 5, 9])]
swa_utils.get_ema_multi_avg_fn(0.5)(ints, [torch.tensor([4, 4, 4])], 0)
print("ema_multi ints", ints[0].tolist())
try:  # PyTorch's message has a doubled space: compare its start
    swa_utils.get_swa_multi_avg_fn()(
        [torch.tensor([1, 5])], [torch.tensor([2, 2])], torch.tensor(1)
    )
except RuntimeError as e:
    print("RuntimeError", str(e)[:50])
refused(lambda: swa_utils.get_swa_multi_avg_fn()([torch.tensor([1, 5])], [torch.tensor([2, 2])], 1))

# errors
refused(lambda: swa_utils.get_ema_avg_fn(1.5))
refused(lambda: swa_utils.get_ema_multi_avg_fn(-0.1))
refused(
    lambda: swa_utils.AveragedModel(
        torch.nn.Linear(2, 2),
        avg_fn=swa_utils.get_swa_avg_fn(),
        multi_avg_fn=swa_utils.get_swa_multi_avg_fn(),
    )
)

# state_dict round trip
torch.manual_seed(2)
net = model()
first = swa_utils.AveragedModel(net)
second = swa_utils.AveragedModel(net)
for _ in range(3):
    with torch.no_grad():
        for p in net.parameters():
            p.add_(torch.randn_like(p))
    first.update_parameters(net)
second.load_state_dict(first.state_dict())
print(
    "loaded",
    second.n_averaged.item(),
    all(torch.equal(x, y) for x, y in zip(first.parameters(), second.parameters())),
)

# ----- SWALR --------------------------------------------------------------------------------


def run_swalr(name, lrs, steps, **kwargs):
    params = [torch.nn.Parameter(torch.zeros(2)) for _ in lrs]
    groups = [{"params": [p], "lr": lr} for p, lr in zip(params, lrs)]
    opt = torch.optim.SGD(groups, lr=lrs[0])
    sched = swa_utils.SWALR(opt, **kwargs)
    print(name, "initial", [round(g["lr"], 12) for g in opt.param_groups])
    print("  swa_lr", [g["swa_lr"] for g in opt.param_groups])
    rates = []
    for _ in range(steps):
        opt.step()
        sched.step()
        rates.append([round(v, 12) for v in sched.get_last_lr()])
    print("  rates", rates)
    return opt, sched


run_swalr("cos", [0.1], 6, swa_lr=0.01, anneal_epochs=3)
run_swalr("linear", [0.1, 0.5], 6, swa_lr=0.02, anneal_epochs=4, anneal_strategy="linear")
run_swalr("no annealing", [0.3], 3, swa_lr=0.05, anneal_epochs=0)
run_swalr("per group", [0.1, 0.2], 4, swa_lr=[0.01, 0.03], anneal_epochs=2)
run_swalr("default epochs", [1.0], 12, swa_lr=0.5)

opt, sched = run_swalr("state", [0.1], 2, swa_lr=0.01, anneal_epochs=5)
state = sched.state_dict()
print("  state has anneal_func", "anneal_func" in state, "optimizer" in state)
print("  anneal strategy", state["_anneal_strategy"], state["anneal_epochs"])
params = [torch.nn.Parameter(torch.zeros(2))]
opt2 = torch.optim.SGD(params, lr=0.1)
sched2 = swa_utils.SWALR(opt2, swa_lr=0.01, anneal_epochs=5, anneal_strategy="linear")
sched2.load_state_dict(state)
print("  loaded anneal func", sched2.anneal_func(0.5), sched2._anneal_strategy)


def get_lr_outside_step():
    sched.get_lr()


caught(get_lr_outside_step)

opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)
refused(lambda: swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="exp"))
refused(lambda: swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=-1))
refused(lambda: swa_utils.SWALR(opt, swa_lr=0.01, anneal_epochs=2.0))
refused(lambda: swa_utils.SWALR(opt, swa_lr=[0.01, 0.02]))

# ----- update_bn ----------------------------------------------------------------------------
torch.manual_seed(3)
net = torch.nn.Sequential(
    torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4, momentum=0.3), torch.nn.Linear(4, 2)
).to(F64)
data = [torch.randn(6, 3, dtype=F64) for _ in range(3)]
net.eval()
swa_utils.update_bn(data, net)
bn = net[1]
print("update_bn mean", rounded(bn.running_mean))
print("update_bn var", rounded(bn.running_var))
print(
    "update_bn tracked",
    bn.num_batches_tracked.item(),
    "momentum",
    bn.momentum,
    "training",
    net.training,
)
net.train()
swa_utils.update_bn([(x, torch.zeros(6)) for x in data], net, device="cpu")
print("update_bn tuples mean", rounded(bn.running_mean), net.training)
plain = torch.nn.Linear(2, 2)
swa_utils.update_bn([torch.randn(3, 2)], plain)
print("update_bn without BatchNorm", plain.training)

# ----- nn.init ------------------------------------------------------------------------------
for shape, groups in [((4, 2, 3), 1), ((6, 2, 3, 3), 2), ((3, 3, 2, 3, 3), 3), ((2, 5, 3), 1)]:
    w = torch.full(shape, 7.0)
    out = init.dirac_(w, groups)
    nonzero = [tuple(i) for i in torch.nonzero(w).tolist()]
    print("dirac", shape, groups, out is w, w.sum().item(), nonzero)
refused(lambda: init.dirac_(torch.empty(3, 3)))
refused(lambda: init.dirac_(torch.empty(3, 3, 3, 3, 3, 3)))
refused(lambda: init.dirac_(torch.empty(5, 3, 3), groups=2))

torch.manual_seed(4)
w = torch.empty(6, 4, dtype=F64)
out = init.sparse_(w, sparsity=0.5)
print("sparse", out is w, rounded(w))
w = torch.empty(5, 3, dtype=F64)
init.sparse_(w, 0.3, std=2.0)
print("sparse std", rounded(w))
gen = torch.Generator().manual_seed(5)
torch.manual_seed(6)
w = torch.empty(4, 3, dtype=F64)
init.sparse_(w, 0.25, generator=gen)
print("sparse generator", rounded(w))
print("after sparse", rounded(torch.randn(2, dtype=F64)))
refused(lambda: init.sparse_(torch.empty(3), 0.5))
refused(lambda: init.sparse_(torch.empty(3, 3, 3), 0.5))

torch.manual_seed(7)
w = torch.empty(3, 5, dtype=F64)
init.orthogonal_(w, gain=2.0)
print("orthogonal", rounded(w))
print("orthogonal rows", [v + 0.0 for v in rounded(w @ w.t())])

# the deprecated names
torch.manual_seed(8)
w = torch.empty(2, 3, dtype=F64)
for name, args in [
    ("uniform", (w, -1.0, 1.0)),
    ("normal", (w, 0.0, 2.0)),
    ("constant", (w, 0.5)),
    ("eye", (w,)),
    ("xavier_uniform", (w,)),
    ("xavier_normal", (w, 2.0)),
    ("kaiming_uniform", (w,)),
    ("kaiming_normal", (w,)),
    ("orthogonal", (w,)),
    ("sparse", (w, 0.5)),
]:
    fn = getattr(init, name)
    print(name, fn.__name__)
    caught(lambda fn=fn, args=args: fn(*args))
    print("  values", rounded(w))
k = torch.empty(2, 2, 3)
caught(lambda: init.dirac(k))
print("  dirac values", rounded(k))

# zero-element tensors
for name in ["kaiming_uniform_", "kaiming_normal_", "xavier_uniform_", "xavier_normal_"]:
    print(name, "on (0, 3)")
    caught(lambda name=name: getattr(init, name)(torch.empty(0, 3)))

# ----- dropout ------------------------------------------------------------------------------


def show_dropout(name, fn, x, **kwargs):
    leaf = x.detach().clone().requires_grad_()
    y = fn(leaf, **kwargs)
    print(name, rounded(y), y.grad_fn.name() if y.grad_fn is not None else None)
    (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
    print("  grad", rounded(leaf.grad))


torch.manual_seed(9)
x5 = torch.randn(2, 3, 2, 1, 2, dtype=F64)
x4 = torch.randn(3, 2, 1, 2, dtype=F64)
x1 = torch.randn(10, dtype=F64)
x3 = torch.randn(3, 2, 2, dtype=F64)
torch.manual_seed(10)
show_dropout("dropout3d batched", F.dropout3d, x5, p=0.4)
show_dropout("dropout3d unbatched", F.dropout3d, x4, p=0.5)
show_dropout("dropout3d p=1", F.dropout3d, x5, p=1.0)
print("dropout3d eval", F.dropout3d(x5, 0.5, training=False) is x5)
print("dropout3d p=0", F.dropout3d(x5, 0.0) is x5)
y = x5.clone()
print("dropout3d inplace", F.dropout3d(y, 0.3, inplace=True) is y, rounded(y))
y = x4.clone()
print("dropout3d inplace unbatched", F.dropout3d(y, 0.3, inplace=True) is y, rounded(y))
print("dropout3d 3-D")
caught(lambda: print("  ", rounded(F.dropout3d(x3, 0.5))))
print("dropout3d 6-D")
caught(lambda: print("  ", rounded(F.dropout3d(x5.unsqueeze(0), 0.5))))
refused(lambda: F.dropout3d(x5, 1.5))

show_dropout("alpha_dropout", F.alpha_dropout, x1, p=0.3, training=True)
show_dropout("alpha_dropout 5-D", F.alpha_dropout, x5, p=0.6, training=True)
show_dropout("alpha_dropout p=1", F.alpha_dropout, x1, p=1.0, training=True)
print("alpha_dropout default (not training)", F.alpha_dropout(x1, 0.5) is x1)
y = x1.clone()
out = F.alpha_dropout(y, 0.2, training=True, inplace=True)
print("alpha_dropout inplace", out is y, rounded(y))
x32 = torch.randn(8)
print("alpha_dropout float32", [round(v, 5) for v in F.alpha_dropout(x32, 0.5, True).tolist()])
show_dropout("feature_alpha_dropout", F.feature_alpha_dropout, x5, p=0.5, training=True)
show_dropout("feature_alpha_dropout 2-D", F.feature_alpha_dropout, x3[0], p=0.4, training=True)
y = x4.clone()
out = F.feature_alpha_dropout(y, 0.5, True, True)
print("feature_alpha_dropout inplace", out is y, rounded(y))
print("feature_alpha_dropout eval", F.feature_alpha_dropout(x5, 0.5) is x5)
print("feature_alpha_dropout 1-D p=1", rounded(F.feature_alpha_dropout(x1, 1.0, True)))
refused(lambda: F.feature_alpha_dropout(x1, 0.5, True))
refused(lambda: F.alpha_dropout(x1, -0.5, True))
refused(lambda: F.feature_alpha_dropout(x1, 2.0))
print("alpha empty", F.alpha_dropout(torch.empty(0), 0.5, True).shape)

# modules
for cls in [torch.nn.Dropout3d, torch.nn.AlphaDropout, torch.nn.FeatureAlphaDropout]:
    module = cls(0.25)
    print(cls.__name__, repr(module), repr(cls(0.5, inplace=True)))
    refused(lambda cls=cls: cls(1.5))
    torch.manual_seed(11)
    y = module(x5.detach().requires_grad_())
    print("  train", rounded(y), y.grad_fn.name())
    module.eval()
    print("  eval", module(x5) is x5)
