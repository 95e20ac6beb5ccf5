"""``nn.utils.prune`` and the lazy modules, as one program: the masks each pruning method
computes (unstructured, structured, random ones from the shared generator, global, custom,
with importance scores, combined in a container), what pruning registers and removes,
gradients through a pruned layer, its refusals; lazy layers' inferred shapes and
initialisation (the same random numbers as the eager layer), their reprs, state dicts and the
placeholders' refusals. ``test_index_ops_golden.py`` compares the output with PyTorch 2.15's
(``golden/prune_lazy_torch.txt``)."""

import os
import pickle
import sys
import warnings

import ferrograd as torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ferrograd.nn.utils.prune as prune
from case_printing import refused

nn = torch.nn
warnings.simplefilter("ignore")


def show(t, digits=5):
    """A tensor's values rounded, as a flat list (a zero's sign not shown)."""
    return [round(v, digits) + 0.0 for v in t.detach().double().flatten().tolist()]


def check(label, call, width=150):
    """Prints ``label`` and what ``call`` raises (the first ``width`` characters: messages
    naming a Python function or class differ in its module's name)."""
    print(label, end=": ")
    refused(call, width)


def names(module):
    """The module's parameter and buffer names and its pre-hooks' classes."""
    hooks = [type(h).__name__ for h in module._forward_pre_hooks.values()]
    return [n for n, _ in module.named_parameters()], [n for n, _ in module.named_buffers()], hooks


torch.manual_seed(0)
lin = nn.Linear(4, 3)
prune.l1_unstructured(lin, "weight", amount=0.5)
print("l1", show(lin.weight_mask), show(lin.weight), names(lin))
out = lin(torch.arange(8.0).reshape(2, 4)).sum()
out.backward()
print("grad", show(lin.weight_orig.grad), type(lin.weight).__name__, lin.weight.grad_fn.name())
prune.ln_structured(lin, "weight", amount=1, n=2, dim=0)
print("ln", show(lin.weight_mask), names(lin))
hook = next(iter(lin._forward_pre_hooks.values()))
print("container", len(hook), [type(m).__name__ for m in hook])
prune.l1_unstructured(lin, "bias", amount=1)
print("bias", show(lin.bias_mask), prune.is_pruned(lin))
prune.remove(lin, "weight")
print("removed", names(lin), show(lin.weight))
prune.remove(lin, "bias")
print("unpruned", prune.is_pruned(lin), type(lin.bias).__name__)

torch.manual_seed(1)
conv = nn.Conv2d(2, 4, 2)
prune.random_unstructured(conv, "weight", amount=0.4)
print("random", show(conv.weight_mask), int(conv.weight_mask.sum()))
torch.manual_seed(2)
prune.random_structured(conv, "weight", amount=2, dim=0)
print("random structured", show(conv.weight_mask.sum(dim=(1, 2, 3))))

torch.manual_seed(3)
a, b = nn.Linear(3, 2), nn.Linear(2, 2)
prune.global_unstructured(
    [(a, "weight"), (b, "weight")], pruning_method=prune.L1Unstructured, amount=0.5
)
print("global", show(a.weight_mask), show(b.weight_mask))
scores = {(a, "bias"): torch.tensor([5.0, -1.0])}
prune.global_unstructured(
    [(a, "bias"), (b, "bias")], prune.L1Unstructured, importance_scores=scores, amount=2
)
print("global scores", show(a.bias_mask), show(b.bias_mask))

c = nn.Linear(3, 2)
prune.custom_from_mask(c, "weight", mask=torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]))
print("custom", show(c.weight_mask), show(c.weight == 0))
prune.l1_unstructured(c, "bias", amount=1, importance_scores=torch.tensor([0.0, 9.0]))
print("scores", show(c.bias_mask))
prune.identity(c, "weight")
print("identity", show(c.weight_mask))
method = prune.L1Unstructured(amount=2)
print("method.prune", show(method.prune(torch.tensor([3.0, -1.0, 0.5, 2.0]))))
d = nn.Linear(2, 2)
prune.l1_unstructured(d, "weight", 0.5)
e = pickle.loads(pickle.dumps(d))
print("pickled", names(e), show(e.weight_mask == d.weight_mask))

check("negative amount", lambda: prune.L1Unstructured(amount=-1))
check("amount over 1", lambda: prune.RandomUnstructured(amount=1.5))
check("amount type", lambda: prune.L1Unstructured(amount="1"))
check("amount too large", lambda: prune.l1_unstructured(nn.Linear(2, 2), "weight", 5))
check("structured 1-D", lambda: prune.ln_structured(nn.Linear(2, 2), "bias", 1, 2, 0))
check("dim", lambda: prune.random_structured(nn.Linear(2, 2), "weight", 1, 3))
check("remove unpruned", lambda: prune.remove(nn.Linear(2, 2), "weight"))
check("global type", lambda: prune.global_unstructured(3, prune.L1Unstructured, amount=1))
check(
    "global structured",
    lambda: prune.global_unstructured(
        [(nn.Linear(2, 2), "weight")], prune.RandomStructured, amount=1
    ),
    90,
)

# lazy modules: the same initialisation as the eager layer after the same seed
torch.manual_seed(4)
lazy = nn.LazyLinear(3)
print(lazy, type(lazy.weight).__name__, repr(lazy.weight))
y = lazy(torch.ones(2, 5))
torch.manual_seed(4)
eager = nn.Linear(5, 3)
print(type(lazy).__name__, lazy, show(lazy.weight), show(lazy.weight - eager.weight), show(y))
torch.manual_seed(5)
lconv = nn.LazyConv2d(3, 2, bias=False)
lconv(torch.ones(1, 2, 4, 4))
torch.manual_seed(5)
print(type(lconv).__name__, show(lconv.weight - nn.Conv2d(2, 3, 2, bias=False).weight))
ltconv = nn.LazyConvTranspose1d(2, 3, groups=2)
ltconv(torch.ones(4, 5))
print(ltconv, tuple(ltconv.weight.shape))
bn = nn.LazyBatchNorm2d()
print(bn, type(bn.running_mean).__name__, list(bn.state_dict()))
bn(torch.arange(24.0).reshape(2, 3, 2, 2))
print(bn, show(bn.running_mean), show(bn.running_var), int(bn.num_batches_tracked))
inorm = nn.LazyInstanceNorm1d(affine=True)
inorm(torch.ones(2, 4, 3))
print(inorm, tuple(inorm.weight.shape))
loaded = nn.LazyLinear(2)
loaded.load_state_dict(nn.Linear(3, 2).state_dict())
print(type(loaded).__name__, loaded.has_uninitialized_params(), tuple(loaded.weight.shape))
placeholder = nn.parameter.UninitializedParameter()
check("placeholder +", lambda: placeholder + placeholder, 47)
check("placeholder shape", lambda: placeholder.shape)
check("placeholder method", lambda: placeholder.sum(), 47)
check("load placeholder", lambda: nn.Linear(3, 2).load_state_dict(nn.LazyLinear(2).state_dict()))
check("share memory", lambda: nn.LazyLinear(2).share_memory())
check("weight_norm lazy", lambda: nn.utils.weight_norm(nn.LazyLinear(2)))
check("Adagrad lazy", lambda: torch.optim.Adagrad(nn.LazyLinear(2).parameters()), 47)
check("conv input dims", lambda: nn.LazyConv2d(3, 2)(torch.ones(4)))
check("conv groups", lambda: nn.LazyConv1d(4, 1, groups=2)(torch.ones(1, 3, 5)))
