"""``ferrograd.distributions`` checked without PyTorch (``distributions_cases.py`` is the golden
comparison with PyTorch's recorded output): the samplers' moments over many draws, the
reparameterized Gamma and Dirichlet gradients against the derivatives of their means, gradcheck
of the differentiable methods, and the private linear algebra and special functions against
NumPy and closed forms."""

import math

import ferrograd as torch
import ferrograd.distributions as D
import numpy as np
import pytest
from ferrograd.distributions import _special

F64 = torch.float64


def test_namespace():
    assert torch.distributions is D
    assert torch.distributions.Normal is D.Normal
    assert D.kl.kl_divergence is D.kl_divergence
    assert D.transforms.ExpTransform is D.ExpTransform
    assert "distributions" in torch.__all__


def _check_moments(x, mean, var, n):
    """Sample mean within 5 standard errors of ``mean``; sample variance within 10%."""
    x = x.to(F64)
    m = x.mean(0)
    se = (var / n) ** 0.5
    assert bool(((m - mean).abs() <= 5 * se).all()), (m, mean)
    v = x.var(0)
    assert bool(((v - var).abs() <= 0.1 * var).all()), (v, var)


@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_gamma_moments(dtype):
    torch.manual_seed(0)
    conc = torch.tensor([0.3, 1.0, 4.5, 30.0], dtype=dtype)
    rate = torch.tensor([1.0, 2.0, 0.5, 3.0], dtype=dtype)
    n = 20000
    x = D.Gamma(conc, rate).sample((n,))
    assert x.dtype == dtype and tuple(x.shape) == (n, 4)
    assert bool((x > 0).all())
    c, r = conc.to(F64), rate.to(F64)
    _check_moments(x, c / r, c / r**2, n)


def test_beta_and_dirichlet_moments():
    torch.manual_seed(1)
    n = 20000
    a, b = torch.tensor([0.5, 2.0, 9.0], dtype=F64), torch.tensor([1.5, 3.0, 7.0], dtype=F64)
    x = D.Beta(a, b).sample((n,))
    assert bool(((x > 0) & (x < 1)).all())
    total = a + b
    _check_moments(x, a / total, a * b / (total**2 * (total + 1)), n)
    alpha = torch.tensor([0.4, 1.0, 3.0, 6.0], dtype=F64)
    y = D.Dirichlet(alpha).sample((n,))
    assert bool(((y.sum(-1) - 1).abs() < 1e-12).all())
    a0 = alpha.sum()
    _check_moments(y, alpha / a0, alpha * (a0 - alpha) / (a0**2 * (a0 + 1)), n)


def test_gamma_rsample_gradient_is_the_derivative_of_the_mean():
    # E[x] = alpha / rate, so the mean of dx/dalpha over many draws is 1 / rate
    torch.manual_seed(2)
    n = 20000
    conc = torch.tensor([0.4, 2.0, 12.0], dtype=F64, requires_grad=True)
    rate = torch.tensor([1.0, 2.0, 4.0], dtype=F64, requires_grad=True)
    x = D.Gamma(conc, rate).rsample((n,))
    g_conc, g_rate = torch.autograd.grad(x.sum(), [conc, rate])
    assert np.allclose((g_conc / n).tolist(), (1 / rate.detach()).tolist(), rtol=0.03)
    expected = (-conc / rate**2).detach()
    assert np.allclose((g_rate / n).tolist(), expected.tolist(), rtol=0.03)


def test_dirichlet_rsample_gradient_is_the_derivative_of_the_mean():
    # E[x_0] = alpha_0 / sum(alpha)
    torch.manual_seed(3)
    n = 20000
    alpha = torch.tensor([0.5, 2.0, 7.0], dtype=F64, requires_grad=True)
    x = D.Dirichlet(alpha).rsample((n,))
    (g,) = torch.autograd.grad(x[:, 0].sum(), [alpha])
    a = alpha.detach()
    a0 = a.sum()
    expected = [(a0 - a[0]) / a0**2, -a[0] / a0**2, -a[0] / a0**2]
    assert np.allclose((g / n).tolist(), [float(e) for e in expected], rtol=0.05, atol=2e-3)
    b = torch.tensor([1.5, 4.0], dtype=F64, requires_grad=True)
    y = D.Beta(b[0], b[1]).rsample((n,))
    (gb,) = torch.autograd.grad(y.sum(), [b])
    total = float(b.sum())
    want = [float(b[1]) / total**2, -float(b[0]) / total**2]
    assert np.allclose((gb / n).tolist(), want, rtol=0.05)


def test_gamma_sampler_keeps_other_streams_apart():
    torch.manual_seed(4)
    before = torch.get_rng_state()
    gen = torch.Generator().manual_seed(9)
    a = D.Gamma(torch.tensor([2.0, 0.5]), 1.0).sample((3,), generator=gen)
    assert bool(torch.equal(torch.get_rng_state(), before))
    gen = torch.Generator().manual_seed(9)
    b = D.Gamma(torch.tensor([2.0, 0.5]), 1.0).sample((3,), generator=gen)
    assert bool(torch.equal(a, b))
    D.Gamma(torch.tensor([2.0, 0.5]), 1.0).sample()
    assert not bool(torch.equal(torch.get_rng_state(), before))


def _gradcheck(f, *inputs):
    assert torch.autograd.gradcheck(f, inputs, eps=1e-6, atol=1e-5)


def test_gradcheck_methods():
    loc = torch.tensor([0.3, -1.0], dtype=F64, requires_grad=True)
    scale = torch.tensor([1.2, 0.7], dtype=F64, requires_grad=True)
    value = torch.tensor([0.5, 0.1], dtype=F64)
    _gradcheck(lambda a, b: D.Normal(a, b).log_prob(value), loc, scale)
    _gradcheck(lambda a, b: D.Normal(a, b).cdf(value), loc, scale)
    _gradcheck(lambda a, b: D.Laplace(a, b).log_prob(value), loc, scale)
    _gradcheck(lambda a, b: D.LogNormal(a, b).log_prob(value.exp()), loc, scale)
    _gradcheck(lambda a, b: D.Gamma(b, b + 1).log_prob(value.abs() + 0.1), loc, scale)
    _gradcheck(lambda a, b: D.Gamma(b, a.exp()).entropy(), loc, scale)
    _gradcheck(lambda a, b: D.Beta(b, b + 0.5).entropy(), loc, scale)
    _gradcheck(lambda a, b: D.kl_divergence(D.Normal(a, b), D.Normal(b, a.exp())), loc, scale)
    _gradcheck(lambda a, b: D.kl_divergence(D.Beta(b, a.exp()), D.Beta(a.exp(), b)), loc, scale)
    logits = torch.tensor([[0.2, -0.4, 1.0]], dtype=F64, requires_grad=True)
    _gradcheck(lambda x: D.Categorical(logits=x).entropy(), logits)
    _gradcheck(lambda x: D.Bernoulli(logits=x).log_prob(torch.ones(1, 3, dtype=F64)), logits)
    y = torch.tensor([-0.9, 0.0, 0.4, 0.95], dtype=F64, requires_grad=True)
    _gradcheck(lambda v: D.Normal(0.0, 1.0).icdf((v + 1) / 2), y)


def test_mvn_gradcheck():
    A = torch.tensor([[2.0, 0.3, 0.1], [0.3, 1.5, -0.2], [0.1, -0.2, 1.0]], dtype=F64)
    cov = A.clone().requires_grad_()
    loc = torch.tensor([0.5, 0.0, -1.0], dtype=F64, requires_grad=True)
    value = torch.tensor([[0.1, 0.2, 0.3], [1.0, -1.0, 0.0]], dtype=F64)

    def f(m, c):
        c = 0.5 * (c + c.mT)  # gradcheck perturbs one entry; keep the matrix symmetric
        return D.MultivariateNormal(m, covariance_matrix=c).log_prob(value)

    _gradcheck(f, loc, cov)

    def g(m, c):
        c = 0.5 * (c + c.mT)
        return D.MultivariateNormal(m, precision_matrix=c).entropy()

    _gradcheck(g, loc, cov)


def test_linalg_against_numpy():
    """The core linear algebra MultivariateNormal is built on, against NumPy."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4, 5, 5))
    spd = a @ a.transpose(0, 2, 1) + 5 * np.eye(5)
    L = torch.linalg.cholesky(torch.from_numpy(spd))
    assert np.allclose(L.numpy(), np.linalg.cholesky(spd), atol=1e-12)
    b = rng.standard_normal((4, 5, 2))
    X = torch.linalg.solve_triangular(L, torch.from_numpy(b), upper=False)
    assert np.allclose(X.numpy(), np.linalg.solve(np.linalg.cholesky(spd), b), atol=1e-10)
    U = L.mT.contiguous()
    Y = torch.linalg.solve_triangular(U, torch.from_numpy(b), upper=True)
    assert np.allclose(Y.numpy(), np.linalg.solve(U.numpy(), b), atol=1e-10)
    P = torch.cholesky_inverse(L)
    assert np.allclose(P.numpy(), np.linalg.inv(spd), atol=1e-10)
    ok = D.constraints.positive_definite.check(torch.from_numpy(np.stack([spd[0], -spd[1]])))
    assert ok.tolist() == [True, False]
    with pytest.raises(torch.linalg.LinAlgError, match="leading minor of order 1"):
        torch.linalg.cholesky(torch.tensor([[-1.0, 0.0], [0.0, 1.0]]))


def test_special_functions():
    y = torch.tensor([-0.999, -0.5, 0.0, 0.3, 0.7, 0.9999], dtype=F64)
    x = torch.erfinv(y)
    assert np.allclose(torch.erf(x).tolist(), y.tolist(), rtol=1e-14, atol=1e-15)
    assert torch.erfinv(torch.tensor([1.0, -1.0, 2.0])).tolist()[:2] == [math.inf, -math.inf]
    assert math.isnan(torch.erfinv(torch.tensor([2.0])).item())
    xs = torch.tensor([0.01, 0.5, 2.0, 10.0, 40.0], dtype=F64)
    p1 = _special.gammainc(torch.ones(5, dtype=F64), xs)
    assert np.allclose(p1.tolist(), [1 - math.exp(-v) for v in xs.tolist()], rtol=1e-13)
    p_half = _special.gammainc(torch.full((5,), 0.5, dtype=F64), xs)
    want = [math.erf(math.sqrt(v)) for v in xs.tolist()]
    assert np.allclose(p_half.tolist(), want, rtol=1e-13)
    # P(3, x) = 1 - e^-x (1 + x + x^2/2)
    p3 = _special.gammainc(torch.full((5,), 3.0, dtype=F64), xs)
    want = [1 - math.exp(-v) * (1 + v + v * v / 2) for v in xs.tolist()]
    assert np.allclose(p3.tolist(), want, rtol=1e-12, atol=1e-15)


def test_double_backward_through_log_prob():
    loc = torch.tensor([0.3], dtype=F64, requires_grad=True)
    lp = D.Normal(loc, 2.0).log_prob(torch.tensor([1.0], dtype=F64)).sum()
    (g,) = torch.autograd.grad(lp, loc, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), loc)
    assert h.tolist() == [-0.25]
