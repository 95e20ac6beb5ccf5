"""``torch.distributions`` as one program: for each distribution its repr, shapes, moments,
``log_prob``/``entropy``/``cdf``/``icdf`` values and their gradients with respect to the
parameters, draws after ``manual_seed`` (float64 and float32) and the gradients of reparameterized
draws, ``expand``, the constraints' reprs and checks, the transforms, ``kl_divergence`` for every
registered pair ferrograd has (values and gradients) and its refusals, and the ``ValueError``s of
argument validation. ``test_index_ops_golden.py`` runs it with ferrograd and compares its output
with PyTorch 2.15's (``golden/distributions_torch.txt``, recorded by running it with
``import torch``).

Numbers are printed to 8 significant digits (float32 draws to 5): the linear algebra and the
incomplete gamma function are compositions here and LAPACK or Cephes there, equal up to
rounding."""

import math
import warnings

import ferrograd as torch
from case_printing import refused

warnings.simplefilter("ignore")
D = torch.distributions
F64 = torch.float64


def r(v, digits=8):
    if isinstance(v, bool) or isinstance(v, int):
        return v
    if isinstance(v, list):
        return [r(x, digits) for x in v]
    return float(f"{v:.{digits}g}")


def show(name, t, digits=8):
    if not isinstance(t, torch.Tensor):
        print(name, t)
        return
    values = t.detach().reshape(-1).tolist()
    print(name, tuple(t.shape), str(t.dtype), r(values, digits))


PARAMS = []


def param(values, dtype=F64):
    t = torch.tensor(values, dtype=dtype, requires_grad=True)
    PARAMS.append(t)
    return t


def leaves_of(out):
    """The parameters ``out`` depends on, in the order they were made."""
    found, stack, seen = [], [out.grad_fn], {}
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node  # kept alive, so no other node takes its id
        if hasattr(node, "variable"):
            found.append(node.variable)
        stack.extend(n for n, _ in node.next_functions)
    return [p for p in PARAMS if any(p is f for f in found)]


def weights(t):
    """Fixed weights 1, 2, 3, ... in ``t``'s shape, so a gradient tells the elements apart."""
    return torch.arange(1.0, t.numel() + 1.0, dtype=t.dtype).reshape(tuple(t.shape))


def grads(name, out, params):
    """The gradient of ``sum(out * weights)`` with respect to each parameter."""
    try:
        gs = torch.autograd.grad(
            (out * weights(out)).sum(), params, allow_unused=True, retain_graph=True
        )
    except Exception as e:
        print(f"  d{name}", type(e).__name__, e)
        return
    for i, g in enumerate(gs):
        show(f"  d{name}/d{i}", g if g is not None else "None")


def describe(name, make, params, value, extra=()):
    """A distribution's printed facts: ``make()`` builds it from ``params``."""
    d = make()
    print(f"== {name}", repr(d), tuple(d.batch_shape), tuple(d.event_shape))
    print("  support", repr(d.support), "has_rsample", d.has_rsample)
    print("  arg_constraints", {k: repr(v) for k, v in d.arg_constraints.items()})
    for prop in ("mean", "variance", "stddev", "mode"):
        try:
            show(f"  {prop}", getattr(d, prop))
        except NotImplementedError:
            print(f"  {prop} NotImplementedError")  # (its text names the module)
    for method, arg in [("log_prob", value), ("entropy", None), *extra]:
        try:
            out = getattr(d, method)(arg) if arg is not None else getattr(d, method)()
        except NotImplementedError as e:
            print(f"  {method} NotImplementedError", e)
            continue
        show(f"  {method}", out)
        if out.requires_grad:
            grads(method, out, params)
    for dtype, digits in ((F64, 8), (torch.float32, 5)):
        torch.manual_seed(0)
        dd = make() if dtype == F64 else make_in(make, params, dtype)
        s = dd.sample((3,))
        show(f"  sample {dtype}", s, digits)
        show(f"  sample () {dtype}", dd.sample(), digits)
    if d.has_rsample:
        torch.manual_seed(1)
        x = make().rsample((2,))
        show("  rsample", x)
        grads("rsample", x, params)
    e = d.expand((2, *d.batch_shape))
    print("  expand", repr(e), tuple(e.batch_shape), tuple(e.event_shape))
    torch.manual_seed(2)
    show("  expand sample", e.sample())


_MAKERS = {}


def make_in(make, params, dtype):
    """The same distribution built from ``params`` converted to ``dtype``."""
    converted = [p.detach().to(dtype) for p in params]
    return _MAKERS[make](*converted)


def case(name, builder, params, value, extra=()):
    def make():
        return builder(*params)

    _MAKERS[make] = builder
    describe(name, make, params, value, extra)


# --- the distributions -------------------------------------------------------------------------

loc, scale = param([0.5, -1.0, 2.0]), param([1.0, 2.0, 0.5])
case(
    "Normal",
    lambda a, b: D.Normal(a, b),
    [loc, scale],
    torch.tensor([0.3, -2.0, 2.5], dtype=F64),
    extra=[
        ("cdf", torch.tensor([0.3, -2.0, 2.5], dtype=F64)),
        ("icdf", torch.tensor([0.1, 0.5, 0.975], dtype=F64)),
    ],
)
print("Normal scalar", repr(D.Normal(0.0, 1.0)), tuple(D.Normal(0.0, 1.0).batch_shape))
print("Normal one", repr(D.Normal(torch.tensor([0.0]), torch.tensor([1.0]))))
torch.manual_seed(0)
show("Normal scalar sample", D.Normal(0.0, 1.0).sample((3,)))
torch.manual_seed(0)
show("Normal float32 rsample 20", D.Normal(0.0, 1.0).rsample((20,)), 6)
torch.manual_seed(0)
show("Normal float32 sample 4x5", D.Normal(torch.zeros(5), torch.ones(5)).sample((4,)), 6)

probs = param([0.2, 0.5, 0.9])
case(
    "Bernoulli probs",
    lambda p: D.Bernoulli(probs=p),
    [probs],
    torch.tensor([1.0, 0.0, 1.0], dtype=F64),
)
logits = param([-1.0, 0.0, 2.0])
case(
    "Bernoulli logits",
    lambda x: D.Bernoulli(logits=x),
    [logits],
    torch.tensor([1.0, 0.0, 0.0], dtype=F64),
)
show("Bernoulli enumerate_support", D.Bernoulli(probs=probs).enumerate_support())

cprobs = param([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])
case("Categorical probs", lambda p: D.Categorical(probs=p), [cprobs], torch.tensor([2, 0]))
clogits = param([[1.0, -1.0, 0.5, 0.0]])
case("Categorical logits", lambda x: D.Categorical(logits=x), [clogits], torch.tensor([3]))
show("Categorical enumerate_support", D.Categorical(probs=cprobs).enumerate_support())
show("Categorical logits of probs", D.Categorical(probs=cprobs).logits)
torch.manual_seed(0)
show("Categorical 10", D.Categorical(torch.tensor([0.2, 0.3, 0.5])).sample((10,)))

case(
    "OneHotCategorical",
    lambda p: D.OneHotCategorical(probs=p),
    [cprobs],
    torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=F64),
)
case(
    "OneHotCategoricalStraightThrough",
    lambda x: D.OneHotCategoricalStraightThrough(logits=x),
    [clogits],
    torch.tensor([[0.0, 1.0, 0.0, 0.0]], dtype=F64),
)

low, high = param([0.0, -1.0]), param([1.0, 3.0])
case(
    "Uniform",
    lambda a, b: D.Uniform(a, b),
    [low, high],
    torch.tensor([0.5, 2.0], dtype=F64),
    extra=[
        ("cdf", torch.tensor([0.25, 0.0], dtype=F64)),
        ("icdf", torch.tensor([0.25, 0.5], dtype=F64)),
    ],
)
rate = param([0.5, 2.0])
case(
    "Exponential",
    lambda a: D.Exponential(a),
    [rate],
    torch.tensor([1.0, 0.25], dtype=F64),
    extra=[
        ("cdf", torch.tensor([1.0, 0.25], dtype=F64)),
        ("icdf", torch.tensor([0.3, 0.9], dtype=F64)),
    ],
)
case(
    "Laplace",
    lambda a, b: D.Laplace(a, b),
    [loc, scale],
    torch.tensor([0.3, -2.0, 2.5], dtype=F64),
    extra=[
        ("cdf", torch.tensor([0.3, -2.0, 2.5], dtype=F64)),
        ("icdf", torch.tensor([0.1, 0.5, 0.975], dtype=F64)),
    ],
)
c1, c0 = param([0.5, 2.0, 9.0]), param([1.5, 3.0, 7.0])
case("Beta", lambda a, b: D.Beta(a, b), [c1, c0], torch.tensor([0.2, 0.5, 0.6], dtype=F64))
conc, gr = param([0.5, 2.0, 12.0]), param([1.0, 0.5, 3.0])
case(
    "Gamma",
    lambda a, b: D.Gamma(a, b),
    [conc, gr],
    torch.tensor([0.3, 4.0, 3.5], dtype=F64),
    extra=[("cdf", torch.tensor([0.3, 4.0, 3.5], dtype=F64))],
)
alpha = param([[0.5, 1.0, 3.0], [2.0, 8.0, 7.0]])
case(
    "Dirichlet",
    lambda a: D.Dirichlet(a),
    [alpha],
    torch.tensor([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], dtype=F64),
)
case(
    "LogNormal",
    lambda a, b: D.LogNormal(a, b),
    [loc, scale],
    torch.tensor([0.5, 1.0, 9.0], dtype=F64),
)

mloc = param([1.0, -1.0, 0.5])
cov = param([[2.0, 0.5, 0.2], [0.5, 1.0, 0.3], [0.2, 0.3, 1.5]])
mvalue = torch.tensor([[0.5, 0.0, 1.0], [2.0, -1.0, 0.0]], dtype=F64)
case(
    "MultivariateNormal covariance",
    lambda m, c: D.MultivariateNormal(m, covariance_matrix=c),
    [mloc, cov],
    mvalue,
)
prec = param([[1.5, -0.3, 0.1], [-0.3, 2.0, 0.4], [0.1, 0.4, 1.0]])
case(
    "MultivariateNormal precision",
    lambda m, p: D.MultivariateNormal(m, precision_matrix=p),
    [mloc, prec],
    mvalue,
)
tril = param([[1.5, 0.0, 0.0], [0.3, 0.8, 0.0], [-0.2, 0.4, 1.2]])
case(
    "MultivariateNormal scale_tril",
    lambda m, s: D.MultivariateNormal(m, scale_tril=s),
    [mloc, tril],
    mvalue,
)
bloc = param([[0.0, 1.0], [2.0, -1.0]])
bcov = param([[[1.0, 0.3], [0.3, 2.0]], [[0.5, -0.1], [-0.1, 0.7]]])
case(
    "MultivariateNormal batched",
    lambda m, c: D.MultivariateNormal(m, covariance_matrix=c),
    [bloc, bcov],
    torch.tensor([[0.5, 0.5], [1.0, 0.0]], dtype=F64),
)
m = D.MultivariateNormal(mloc, covariance_matrix=cov)
show("MVN scale_tril", m.scale_tril)
show("MVN precision_matrix", m.precision_matrix)
grads("precision", m.precision_matrix, [cov])
show(
    "MVN covariance of precision",
    D.MultivariateNormal(mloc, precision_matrix=prec).covariance_matrix,
)
show("MVN log_prob broadcast", m.log_prob(torch.zeros(4, 1, 3, dtype=F64)))

case(
    "Independent Normal",
    lambda a, b: D.Independent(D.Normal(a, b), 1),
    [loc, scale],
    torch.tensor([0.3, -2.0, 2.5], dtype=F64),
)
case(
    "Independent Bernoulli 2d",
    lambda p: D.Independent(D.Bernoulli(probs=p), 1),
    [cprobs],
    torch.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]], dtype=F64),
)

# --- transforms and transformed distributions ---------------------------------------------------

T = D.transforms
tx = torch.tensor([-1.5, 0.0, 0.7], dtype=F64, requires_grad=True)
for t in [
    T.ExpTransform(),
    T.AffineTransform(1.0, -2.0),
    T.AffineTransform(
        torch.tensor([1.0, 2.0, 3.0], dtype=F64), torch.tensor([0.5, 2.0, -1.0], dtype=F64)
    ),
    T.SigmoidTransform(),
    T.TanhTransform(),
    T.SoftplusTransform(),
    T.PowerTransform(torch.tensor(2.0, dtype=F64)),
    T.ComposeTransform([T.AffineTransform(0.5, 3.0), T.TanhTransform()]),
    T.ExpTransform().inv,
]:
    x = tx.exp() if isinstance(t, T.PowerTransform) or t == T.ExpTransform().inv else tx
    y = t(x)
    print("transform", repr(t), repr(t.domain), repr(t.codomain), t.bijective)
    show("  y", y)
    show("  inv", t.inv(y))
    ladj = t.log_abs_det_jacobian(x, y)
    show("  log_abs_det_jacobian", ladj)
    grads("ladj", ladj, [tx])
print(
    "ExpTransform eq", T.ExpTransform() == T.ExpTransform(), T.ExpTransform() == T.TanhTransform()
)
print("sign", T.ExpTransform().sign, T.AffineTransform(0.0, -3.0).sign)
cached = T.ExpTransform(cache_size=1)
y = cached(tx)
print("cache", cached.inv(y) is tx)
show("StickBreaking", T.StickBreakingTransform()(tx))
show("Softmax", T.SoftmaxTransform()(tx))
show("LowerCholesky", T.LowerCholeskyTransform()(torch.arange(4.0, dtype=F64).reshape(2, 2) / 4))
show("CorrCholesky", T.CorrCholeskyTransform()(tx))
print(
    "IndependentTransform",
    repr(T.IndependentTransform(T.ExpTransform(), 1)),
    T.ReshapeTransform((2, 3), (6,)).forward_shape((4, 2, 3)),
)

case(
    "Transformed Affine(Normal)",
    lambda a, b: D.TransformedDistribution(D.Normal(a, b), [T.AffineTransform(1.0, -2.0)]),
    [loc, scale],
    torch.tensor([0.3, -2.0, 2.5], dtype=F64),
    extra=[
        ("cdf", torch.tensor([0.3, -2.0, 2.5], dtype=F64)),
        ("icdf", torch.tensor([0.1, 0.5, 0.975], dtype=F64)),
    ],
)
case(
    "Transformed Tanh(Normal)",
    lambda a, b: D.TransformedDistribution(
        D.Normal(a, b), T.ComposeTransform([T.TanhTransform(), T.AffineTransform(0.0, 2.0)])
    ),
    [loc, scale],
    torch.tensor([0.3, -1.5, 0.9], dtype=F64),
)
case(
    "Transformed Sigmoid(Uniform)",
    lambda a, b: D.TransformedDistribution(D.Uniform(a, b), [T.SigmoidTransform()]),
    [low, high],
    torch.tensor([0.6, 0.9], dtype=F64),
)
case(
    "Transformed Exp(MVN)",
    lambda m, s: D.TransformedDistribution(D.MultivariateNormal(m, scale_tril=s), T.ExpTransform()),
    [mloc, tril],
    torch.tensor([1.5, 0.2, 2.0], dtype=F64),
)

# --- kl_divergence ------------------------------------------------------------------------------

KL = [
    (
        "Normal Normal",
        D.Normal(loc, scale),
        D.Normal(param([0.0, 0.0, 1.0]), param([1.0, 1.5, 2.0])),
    ),
    ("Bernoulli Bernoulli", D.Bernoulli(probs=probs), D.Bernoulli(logits=logits)),
    (
        "Bernoulli zero",
        D.Bernoulli(probs=torch.tensor([0.0, 0.3, 1.0])),
        D.Bernoulli(probs=torch.tensor([0.5, 0.0, 0.5])),
    ),
    (
        "Categorical Categorical",
        D.Categorical(probs=cprobs),
        D.Categorical(logits=param([[0.0, 1.0, 2.0], [1.0, 1.0, -1.0]])),
    ),
    (
        "Categorical zero",
        D.Categorical(probs=torch.tensor([0.5, 0.5, 0.0])),
        D.Categorical(probs=torch.tensor([0.0, 0.5, 0.5])),
    ),
    (
        "OneHot OneHot",
        D.OneHotCategorical(probs=cprobs),
        D.OneHotCategorical(probs=cprobs.detach().flip(-1)),
    ),
    ("Uniform Uniform", D.Uniform(low, high), D.Uniform(param([-1.0, -2.0]), param([2.0, 2.0]))),
    ("Beta Beta", D.Beta(c1, c0), D.Beta(param([1.0, 1.0, 2.0]), param([2.0, 0.5, 3.0]))),
    ("Gamma Gamma", D.Gamma(conc, gr), D.Gamma(param([1.0, 3.0, 2.0]), param([2.0, 1.0, 1.0]))),
    (
        "Dirichlet Dirichlet",
        D.Dirichlet(alpha),
        D.Dirichlet(param([[1.0, 1.0, 1.0], [3.0, 2.0, 1.0]])),
    ),
    ("Exponential Exponential", D.Exponential(rate), D.Exponential(param([1.0, 1.0]))),
    (
        "Laplace Laplace",
        D.Laplace(loc, scale),
        D.Laplace(param([0.0, 0.0, 0.0]), param([1.0, 1.0, 1.0])),
    ),
    (
        "MVN MVN",
        D.MultivariateNormal(mloc, covariance_matrix=cov),
        D.MultivariateNormal(param([0.0, 0.0, 0.0]), scale_tril=tril),
    ),
    (
        "MVN batched",
        D.MultivariateNormal(bloc, covariance_matrix=bcov),
        D.MultivariateNormal(param([0.5, 0.5]), precision_matrix=param([[2.0, 0.1], [0.1, 1.0]])),
    ),
    (
        "Independent Independent",
        D.Independent(D.Normal(loc, scale), 1),
        D.Independent(D.Normal(torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64)), 1),
    ),
    (
        "LogNormal LogNormal",
        D.LogNormal(loc, scale),
        D.LogNormal(torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64)),
    ),
    (
        "Normal Uniform",
        D.Normal(loc, scale),
        D.Uniform(-torch.ones(3, dtype=F64), torch.ones(3, dtype=F64)),
    ),
    (
        "Normal Laplace",
        D.Normal(loc, scale),
        D.Laplace(torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64)),
    ),
    (
        "Laplace Normal",
        D.Laplace(loc, scale),
        D.Normal(torch.zeros(3, dtype=F64), torch.ones(3, dtype=F64)),
    ),
    ("Beta Normal", D.Beta(c1, c0), D.Normal(loc, scale)),
    (
        "Beta Uniform",
        D.Beta(c1, c0),
        D.Uniform(
            torch.tensor([0.0, -1.0, 0.5], dtype=F64), torch.tensor([1.0, 2.0, 1.0], dtype=F64)
        ),
    ),
    ("Beta Gamma", D.Beta(c1, c0), D.Gamma(conc, gr)),
    ("Beta Exponential", D.Beta(c1, c0), D.Exponential(param([1.0, 2.0, 0.5]))),
    ("Gamma Normal", D.Gamma(conc, gr), D.Normal(loc, scale)),
    ("Gamma Exponential", D.Gamma(conc, gr), D.Exponential(param([1.0, 2.0, 0.5]))),
    ("Exponential Gamma", D.Exponential(rate), D.Gamma(param([1.0, 3.0]), param([2.0, 1.0]))),
    ("Exponential Normal", D.Exponential(rate), D.Normal(param([0.0, 1.0]), param([1.0, 2.0]))),
    ("Uniform Normal", D.Uniform(low, high), D.Normal(param([0.0, 1.0]), param([1.0, 2.0]))),
    (
        "Uniform Beta",
        D.Uniform(param([0.1, 0.2]), param([0.5, 0.9])),
        D.Beta(param([2.0, 1.5]), param([3.0, 0.5])),
    ),
    (
        "Uniform Gamma",
        D.Uniform(param([0.1, -1.0]), param([0.5, 2.0])),
        D.Gamma(param([2.0, 1.5]), param([3.0, 0.5])),
    ),
    (
        "Uniform Exponential",
        D.Uniform(param([0.1, -1.0]), param([0.5, 2.0])),
        D.Exponential(param([2.0, 1.5])),
    ),
    (
        "Gamma Uniform",
        D.Gamma(conc, gr),
        D.Uniform(-torch.ones(3, dtype=F64), torch.ones(3, dtype=F64)),
    ),
]
for name, p, q in KL:
    kl = D.kl_divergence(p, q)
    show(f"kl {name}", kl)
    if kl.requires_grad:
        grads(f"kl {name}", kl, leaves_of(kl))
for p, q in [
    (D.Normal(0.0, 1.0), D.Bernoulli(probs=0.3)),
    (D.Categorical(probs=cprobs), D.Normal(loc, scale)),
    (D.MultivariateNormal(mloc, cov), D.Normal(loc, scale)),
    (D.Independent(D.Normal(loc, scale), 1), D.Normal(loc, scale)),
    (D.Beta(c1, c0), D.Dirichlet(alpha)),
]:
    refused(lambda p=p, q=q: D.kl_divergence(p, q))
refused(
    lambda: D.kl_divergence(
        D.Independent(D.Normal(bloc, bloc.exp()), 1), D.Independent(D.Normal(bloc, bloc.exp()), 2)
    )
)
refused(
    lambda: D.kl_divergence(D.MultivariateNormal(mloc, cov), D.MultivariateNormal(bloc[0], bcov[0]))
)


@D.register_kl(D.Exponential, D.Laplace)
def _kl_exp_laplace(p, q):
    return p.rate * 0 + 42.0


torch.manual_seed(5)
gen = torch.Generator().manual_seed(3)
show("Gamma generator", D.Gamma(conc, gr).sample((2,), generator=gen))
show("Gamma default after", D.Gamma(conc, gr).sample((2,)))
show("stream after Gamma", torch.randn(3, dtype=F64))
show("Dirichlet big", D.Dirichlet(torch.tensor([0.3, 1.0, 5.0, 20.0])).sample((5,)), 5)
show("stream after Dirichlet", torch.randn(5, dtype=F64))
show("register_kl", D.kl_divergence(D.Exponential(rate), D.Laplace(0.0, 1.0)))

# --- validation ---------------------------------------------------------------------------------


def refused(call):
    try:
        call()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e))


refused(lambda: D.Normal(0.0, -1.0))
refused(lambda: D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.0])))
refused(lambda: D.Bernoulli(probs=1.5))
refused(lambda: D.Bernoulli())
refused(lambda: D.Bernoulli(probs=0.5, logits=0.0))
refused(lambda: D.Categorical(probs=torch.tensor([-0.1, 1.1])))
refused(lambda: D.Categorical(probs=torch.tensor(0.5)))
refused(lambda: D.Uniform(1.0, 0.0))
refused(lambda: D.Exponential(torch.tensor([-1.0])))
refused(lambda: D.Beta(torch.tensor([0.0]), torch.tensor([1.0])))
refused(lambda: D.Gamma(torch.tensor([1.0]), torch.tensor([-1.0])))
refused(lambda: D.Dirichlet(torch.tensor([1.0, 0.0])))
refused(lambda: D.Dirichlet(torch.tensor(1.0)))
refused(lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]])))
refused(lambda: D.MultivariateNormal(torch.zeros(2), torch.tensor([[1.0, 0.5], [0.0, 1.0]])))
refused(
    lambda: D.MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.5], [0.0, 1.0]]))
)
refused(lambda: D.MultivariateNormal(torch.zeros(2)))
refused(lambda: D.MultivariateNormal(torch.tensor(0.0), torch.eye(2)))
refused(
    lambda: D.MultivariateNormal(
        torch.zeros(2), torch.tensor([[1.0, 2.0], [2.0, 1.0]]), validate_args=False
    )
)
refused(lambda: D.Normal(0.0, 1.0).log_prob(0.5))
refused(lambda: D.Exponential(1.0).log_prob(torch.tensor([-1.0])))
refused(lambda: D.Normal(torch.zeros(3), torch.ones(3)).log_prob(torch.zeros(2)))
refused(lambda: D.MultivariateNormal(torch.zeros(2), torch.eye(2)).log_prob(torch.zeros(3)))
refused(lambda: D.Bernoulli(probs=0.3).log_prob(torch.tensor([0.5])))
refused(lambda: D.Categorical(probs=torch.tensor([0.5, 0.5])).log_prob(torch.tensor([2])))
refused(lambda: D.Uniform(0.0, 1.0).log_prob(torch.tensor([1.5])))
refused(lambda: D.Beta(2.0, 2.0).log_prob(torch.tensor([1.5])))
refused(lambda: D.Dirichlet(torch.ones(3)).log_prob(torch.tensor([0.5, 0.2, 0.2])))
refused(lambda: D.Normal(0.0, torch.tensor([1.0])).cdf(torch.tensor([float("nan")])))
refused(lambda: D.Independent(D.Normal(0.0, 1.0), 1))
refused(lambda: D.TransformedDistribution(D.Normal(0.0, 1.0), "exp"))
refused(lambda: D.Normal(0.0, 1.0).enumerate_support())
refused(lambda: D.Normal(0.0, 1.0).expand((2,)).sample(3))
refused(lambda: D.Distribution.set_default_validate_args(2))
refused(lambda: D.Distribution().mean)
refused(lambda: D.Uniform(0.0, 1.0).mode.item() == 0)
print("mode nan", D.Uniform(0.0, 1.0).mode)
show("no validation", D.Normal(0.0, -1.0, validate_args=False).log_prob(torch.tensor(0.5)))
D.Distribution.set_default_validate_args(False)
show("default off", D.Normal(0.0, -1.0).log_prob(torch.tensor(0.5)))
D.Distribution.set_default_validate_args(True)
refused(lambda: D.Normal(0.0, -1.0))
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.manual_seed(0)
    show("sample_n", D.Normal(0.0, 1.0).sample_n(2))
print("sample_n warns", [(w.category.__name__, str(w.message)) for w in caught])

# --- constraints --------------------------------------------------------------------------------

C = D.constraints
for c, v in [
    (C.real, torch.tensor([0.0, float("nan"), float("inf")])),
    (C.positive, torch.tensor([-1.0, 0.0, 2.0])),
    (C.nonnegative, torch.tensor([-1.0, 0.0, 2.0])),
    (C.unit_interval, torch.tensor([-0.1, 0.0, 1.0])),
    (C.interval(-1.0, 2.0), torch.tensor([-1.0, 2.0, 2.5])),
    (C.half_open_interval(-1.0, 2.0), torch.tensor([-1.0, 2.0, 0.0])),
    (C.greater_than(1.0), torch.tensor([1.0, 2.0])),
    (C.greater_than_eq(1.0), torch.tensor([1.0, 0.5])),
    (C.less_than(1.0), torch.tensor([1.0, 0.5])),
    (C.boolean, torch.tensor([0.0, 1.0, 0.5])),
    (C.nonnegative_integer, torch.tensor([0.0, 1.5, 3.0])),
    (C.positive_integer, torch.tensor([0.0, 1.0, 3.0])),
    (C.integer_interval(0, 3), torch.tensor([0.0, 3.0, 4.0])),
    (C.simplex, torch.tensor([[0.3, 0.7], [0.5, 0.6]])),
    (C.one_hot, torch.tensor([[0.0, 1.0], [1.0, 1.0]])),
    (C.real_vector, torch.tensor([[0.0, 1.0], [float("nan"), 1.0]])),
    (C.independent(C.positive, 1), torch.tensor([[1.0, 1.0], [1.0, -1.0]])),
    (C.lower_triangular, torch.tensor([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]])),
    (C.lower_cholesky, torch.tensor([[[1.0, 0.0], [2.0, 1.0]], [[-1.0, 0.0], [0.0, 1.0]]])),
    (C.positive_definite, torch.tensor([[[2.0, 1.0], [1.0, 2.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    (C.positive_semidefinite, torch.tensor([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
    (C.symmetric, torch.tensor([[[1.0, 1.0], [1.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]])),
    (C.square, torch.zeros(2, 3)),
    (C.corr_cholesky, torch.tensor([[1.0, 0.0], [0.6, 0.8]])),
    (C.multinomial(3), torch.tensor([[1.0, 2.0], [2.0, 2.0]])),
    (C.cat([C.positive, C.real], 0, [1, 2]), torch.tensor([-1.0, -1.0, 0.0])),
    (C.stack([C.positive, C.real], 0), torch.tensor([[-1.0, 1.0], [-1.0, 0.0]])),
]:
    print("constraint", repr(c), c.is_discrete, c.event_dim, c.check(v).tolist())
print("dependent", repr(C.dependent), C.is_dependent(C.dependent), C.is_dependent(C.real))
print("support of class", C.is_dependent(D.Uniform.support), repr(D.Uniform(0.0, 2.0).support))
refused(lambda: C.dependent.check(torch.zeros(1)))
refused(lambda: C.dependent.event_dim)
print("dependent call", C.dependent(is_discrete=True, event_dim=1).event_dim)
print("math", math.isfinite(1.0))
