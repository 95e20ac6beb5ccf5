"""``torch.linalg``'s decompositions and solvers, and ``torch.cdist``, as one program: values,
gradients and node names of ``inv``/``inv_ex``, ``solve``/``solve_ex`` (left, right, vector and
broadcast right-hand sides), ``det``/``slogdet``/``logdet`` (singular matrices too),
``lu_factor``, ``cholesky``/``cholesky_ex``, ``solve_triangular``, ``cholesky_solve``,
``cholesky_inverse``, ``qr`` (all modes), ``eigh``/``eigvalsh``, ``svd``/``torch.svd``,
``pinv``/``pinverse``, ``lstsq``, ``matrix_exp``, ``matrix_power``, ``matrix_rank`` and
``cdist`` (p = 0, 0.5, 1, 2, 3, inf; both of PyTorch's computations), float64 mostly and some
float32; then the errors (``LinAlgError`` for singular and indefinite input, shape and dtype
errors). ``test_index_ops_golden.py`` runs it with ferrograd and compares its output with
PyTorch 2.15's (``golden/linalg_decomp_torch.txt``).

Eigenvectors and singular vectors are printed by magnitude, and their gradients through
functions of them that do not depend on their signs: ferrograd's Jacobi methods and LAPACK may
choose opposite signs for a vector. Numbers are rounded (8 decimals in float64, 4 in float32):
the algorithms agree up to rounding."""

import math

import ferrograd as torch
from case_printing import refused

F64 = torch.float64


def nums(t, d=8):
    return [round(v, d) + 0.0 for v in t.detach().reshape(-1).tolist()]


def show(label, t, d=8):
    print(label, list(t.shape), nums(t, d))


def node(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def grads(label, out, inputs, d=7):
    for i, g in enumerate(torch.autograd.grad(out, inputs)):
        show(f"{label} grad{i}", g, d)


torch.manual_seed(0)
A = torch.tensor([[4.0, 1, 0.5], [1, 3, 0.2], [0.5, 0.2, 2]], dtype=F64, requires_grad=True)
M = torch.randn(3, 3, dtype=F64, requires_grad=True)
Mb = torch.randn(2, 3, 3, dtype=F64, requires_grad=True)
B = torch.randn(3, 2, dtype=F64, requires_grad=True)
W3 = torch.randn(3, 3, dtype=F64)
W32 = torch.randn(3, 2, dtype=F64)

print("== inv")
X = torch.linalg.inv(M)
show("inv", X)
print(node(X), node(torch.inverse(M)), type(torch.linalg.inv_ex(M)).__name__)
res = torch.linalg.inv_ex(M)
print(node(res.inverse), res.info.item())
grads("inv", (X * W3).sum(), [M])
Xb = torch.linalg.inv(Mb)
show("inv batch", Xb)
grads("inv batch", Xb.pow(2).sum(), [Mb])

print("== solve")
X = torch.linalg.solve(M, B)
show("solve", X)
print(node(X), type(torch.linalg.solve_ex(M, B)).__name__)
grads("solve", (X * W32).sum(), [M, B])
R = torch.randn(2, 3, dtype=F64, requires_grad=True)
X = torch.linalg.solve(M, R, left=False)
show("solve right", X)
grads("solve right", (X * W32.mT).sum(), [M, R])
v = torch.randn(3, dtype=F64, requires_grad=True)
X = torch.linalg.solve(M, v)
show("solve vector", X)
grads("solve vector", X.sum(), [M, v])
X = torch.linalg.solve(Mb, B)
show("solve broadcast", X)
grads("solve broadcast", X.pow(2).sum(), [Mb, B])
vb = torch.randn(2, 3, dtype=F64, requires_grad=True)
X = torch.linalg.solve(Mb, vb)
show("solve batch vectors", X)
grads("solve batch vectors", X.sum(), [Mb, vb])

print("== det")
d = torch.linalg.det(M)
show("det", d)
print(node(d), node(torch.det(M)))
grads("det", d, [M])
d = torch.linalg.det(Mb)
show("det batch", d)
grads("det batch", d.sum(), [Mb])
S = torch.tensor([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], dtype=F64, requires_grad=True)
show("det singular abs", torch.linalg.det(S).abs())
grads("det singular", torch.linalg.det(S), [S])
(g,) = torch.autograd.grad(torch.linalg.det(S), S, create_graph=True)
show("det singular create_graph grad", g, 7)
show("det singular second", torch.autograd.grad(g[0, 0] + g[1, 2], S)[0], 6)
sign, logabs = torch.linalg.slogdet(M)
print("slogdet", type(torch.linalg.slogdet(M)).__name__, nums(sign), nums(logabs), node(logabs))
grads("slogdet", logabs, [M])
sign, logabs = torch.linalg.slogdet(Mb)
print("slogdet batch", nums(sign), nums(logabs))
grads("slogdet batch", logabs.sum(), [Mb])
print("slogdet singular", nums(torch.linalg.slogdet(S)[1]))
ld = torch.logdet(A)
print("logdet", nums(ld), node(ld), nums(torch.logdet(-torch.eye(3, dtype=F64))))
grads("logdet", ld, [A])

print("== lu_factor")
LU, piv = torch.linalg.lu_factor(M)
show("LU", LU)
print("pivots", piv.tolist(), node(LU))
LU, piv, info = torch.linalg.lu_factor_ex(Mb)
show("LU batch", LU)
print("pivots", piv.tolist(), info.tolist())

print("== cholesky")
L = torch.linalg.cholesky(A)
show("cholesky", L)
print(node(L), type(torch.linalg.cholesky_ex(A)).__name__)
grads("cholesky", (L * W3).sum(), [A])
U = torch.linalg.cholesky(A, upper=True)
show("cholesky upper", U)
grads("cholesky upper", (U * W3).sum(), [A])
P = Mb @ Mb.mT + torch.eye(3, dtype=F64)
Lb, info = torch.linalg.cholesky_ex(P)
show("cholesky batch", Lb)
print("info", info.tolist())
grads("cholesky batch", Lb.pow(2).sum() + Lb.sum(), [Mb])
print(
    "cholesky_ex info",
    torch.linalg.cholesky_ex(torch.tensor([[1.0, 2], [2, 1]], dtype=F64)).info.item(),
)

print("== solve_triangular")
T = torch.randn(3, 3, dtype=F64).triu() + 3 * torch.eye(3, dtype=F64)
T.requires_grad_()
for upper, left, unit in [(True, True, False), (False, True, False), (True, False, True)]:
    rhs = B if left else B.mT
    X = torch.linalg.solve_triangular(
        T if upper else T.mT, rhs, upper=upper, left=left, unitriangular=unit
    )
    show(f"triangular {upper} {left} {unit}", X)
    print(node(X))
    grads(f"triangular {upper} {left} {unit}", X.pow(2).sum(), [T, B])

print("== cholesky_solve / cholesky_inverse")
L = torch.linalg.cholesky(A).detach().requires_grad_()
X = torch.cholesky_solve(B, L)
show("cholesky_solve", X)
print(node(X))
grads("cholesky_solve", (X * W32).sum(), [B, L])
X = torch.cholesky_solve(B, L.mT, upper=True)
show("cholesky_solve upper", X)
Ainv = torch.cholesky_inverse(L)
show("cholesky_inverse", Ainv)
print(node(Ainv))
grads("cholesky_inverse", (Ainv * W3).sum(), [L])
show("cholesky_inverse upper", torch.cholesky_inverse(L.mT, upper=True))

print("== qr")
for shape in [(4, 3), (3, 3), (3, 5)]:
    X = torch.randn(*shape, dtype=F64, requires_grad=True)
    for mode in ("reduced", "complete", "r"):
        Q, R = torch.linalg.qr(X, mode=mode)
        show(f"qr {shape} {mode} Q", Q)
        show(f"qr {shape} {mode} R", R)
        print(node(R), type(torch.linalg.qr(X)).__name__)
    Q, R = torch.linalg.qr(X)
    grads(f"qr {shape}", (Q * torch.ones_like(Q)).sum() + (R * R).sum(), [X])
Q, R = torch.linalg.qr(Mb)
grads("qr batch", Q.sum() + R.sum(), [Mb])
refused(
    lambda: (
        torch.linalg.qr(torch.randn(4, 3, dtype=F64, requires_grad=True), mode="r")[1]
        .sum()
        .backward()
    )
)
refused(
    lambda: (
        torch.linalg.qr(torch.randn(4, 3, dtype=F64, requires_grad=True), mode="complete")[0]
        .sum()
        .backward()
    )
)

print("== eigh")
w, V = torch.linalg.eigh(A)
show("eigh values", w)
show("eigh |vectors|", V.abs())
print(node(w), node(V), type(torch.linalg.eigh(A)).__name__)
grads("eigh", (w * torch.tensor([1.0, 2, 3], dtype=F64)).sum() + (V.pow(2) * W3).sum(), [A])
w = torch.linalg.eigvalsh(A)
print("eigvalsh", nums(w), node(w))
Sym = M + M.mT
w, V = torch.linalg.eigh(Sym, UPLO="U")
show("eigh U values", w)
grads("eigh U", w.pow(3).sum() + (V.pow(2) * W3).sum(), [M])
w, V = torch.linalg.eigh(Mb @ Mb.mT)
show("eigh batch values", w)
show("eigh batch |vectors|", V.abs())
show(
    "eigh lower triangle only", torch.linalg.eigvalsh(torch.tensor([[2.0, 100], [1, 2]], dtype=F64))
)

print("== svd")
for shape in [(4, 3), (3, 3), (3, 5)]:
    X = torch.randn(*shape, dtype=F64, requires_grad=True)
    k = min(shape)
    for full in (True, False):
        U, S, Vh = torch.linalg.svd(X, full_matrices=full)
        print("svd", shape, full, list(U.shape), list(S.shape), list(Vh.shape), node(U), node(S))
        show("  S", S)
        show("  |U|", U[:, :k].abs())
        show("  |Vh|", Vh[:k].abs())
    U, S, Vh = torch.linalg.svd(X, full_matrices=False)
    grads(f"svd S {shape}", (S * torch.arange(1.0, k + 1, dtype=F64)).sum(), [X])
    U, S, Vh = torch.linalg.svd(X, full_matrices=False)
    grads(
        f"svd UV {shape}",
        (U.pow(2) * torch.randn(U.shape, dtype=F64)).sum()
        + (U @ Vh).pow(2).sum()
        + (Vh.pow(2)).sum(),
        [X],
    )
U, S, V = torch.svd(M)
print("torch.svd", type(torch.svd(M)).__name__, node(U), node(S), node(V))
show("torch.svd S", S)
show("torch.svd |V|", V.abs())
U, S, Vh = torch.linalg.svd(Mb)
show("svd batch S", S)
grads("svd batch", ((U * S.unsqueeze(-2)) @ Vh).pow(2).sum() + (U @ Vh).sum(), [Mb])
print("svdvals", nums(torch.linalg.svdvals(M)))

print("== pinv")
X = torch.randn(4, 3, dtype=F64, requires_grad=True)
P = torch.linalg.pinv(X)
show("pinv tall", P)
print(node(P))
grads("pinv tall", (P * torch.randn(3, 4, dtype=F64)).sum(), [X])
Y = torch.randn(2, 5, dtype=F64, requires_grad=True)
P = torch.linalg.pinv(Y)
show("pinv wide", P)
grads("pinv wide", P.pow(2).sum(), [Y])
show("pinv rank deficient", torch.linalg.pinv(S.detach()))
show(
    "pinv rtol",
    torch.linalg.pinv(torch.diag(torch.tensor([1.0, 1e-3, 1e-9], dtype=F64)), rtol=1e-4),
)
show(
    "pinv atol",
    torch.linalg.pinv(torch.diag(torch.tensor([1.0, 1e-3, 1e-9], dtype=F64)), atol=1e-2),
)
P = torch.pinverse(X)
show("pinverse", P)
print(node(P))

print("== lstsq")
X = torch.randn(5, 3, dtype=F64, requires_grad=True)
Y = torch.randn(5, 2, dtype=F64, requires_grad=True)
res = torch.linalg.lstsq(X, Y)
print(
    type(res).__name__,
    node(res.solution),
    node(res.residuals),
    list(res.residuals.shape),
    res.rank.tolist(),
    list(res.singular_values.shape),
)
show("lstsq tall", res.solution)
grads("lstsq tall", (res.solution * W32).sum(), [X, Y])
Z = torch.randn(3, 5, dtype=F64, requires_grad=True)
res = torch.linalg.lstsq(Z, W32.clone().requires_grad_())
show("lstsq wide", res.solution)
print("rank", res.rank.tolist())
grads("lstsq wide", res.solution.pow(2).sum(), [Z])
Dfc = torch.tensor([[1.0, 2], [2, 4], [3, 6]], dtype=F64)
res = torch.linalg.lstsq(Dfc, torch.ones(3, 1, dtype=F64))
show("lstsq rank deficient", res.solution)
print("rank", res.rank.tolist())
res = torch.linalg.lstsq(X, torch.randn(5, dtype=F64))
show("lstsq vector", res.solution)
refused(lambda: torch.linalg.lstsq(torch.randn(2, 4, 3, dtype=F64), torch.randn(4, 2, dtype=F64)))
res = torch.linalg.lstsq(torch.randn(2, 4, 3, dtype=F64), torch.randn(1, 4, 2, dtype=F64))
show("lstsq batch", res.solution)
print("rank", res.rank.tolist())

print("== matrix_exp")
E = torch.linalg.matrix_exp(M)
show("matrix_exp", E)
print(node(E), node(torch.matrix_exp(M)))
grads("matrix_exp", (E * W3).sum(), [M])
big = (M * 4).detach().requires_grad_()
E = torch.linalg.matrix_exp(big)
show("matrix_exp large norm", E, 5)
grads("matrix_exp large norm", E.sum() / 100, [big], 5)
show("matrix_exp small", torch.linalg.matrix_exp(M.detach() * 1e-3))
show("matrix_exp batch", torch.linalg.matrix_exp(Mb))
show("matrix_exp zero", torch.linalg.matrix_exp(torch.zeros(2, 2, dtype=F64)))

print("== matrix_power")
for n in (0, 1, 2, 3, 5, -1, -2, -3):
    Pn = torch.linalg.matrix_power(A, n)
    show(f"matrix_power {n}", Pn, 6)
    print(node(Pn))
grads("matrix_power 5", torch.linalg.matrix_power(A, 5).sum() / 1000, [A])
grads("matrix_power -2", torch.linalg.matrix_power(A, -2).sum(), [A])
show("torch.matrix_power batch", torch.matrix_power(Mb, 3))

print("== matrix_rank")
print(
    torch.linalg.matrix_rank(M).tolist(),
    torch.linalg.matrix_rank(S).tolist(),
    torch.linalg.matrix_rank(Mb).tolist(),
)
print(
    torch.linalg.matrix_rank(
        torch.diag(torch.tensor([1.0, 1e-3, 1e-9], dtype=F64)), atol=1e-2
    ).tolist()
)
print(
    torch.linalg.matrix_rank(
        torch.diag(torch.tensor([1.0, 1e-3, 1e-9], dtype=F64)), rtol=1e-4
    ).tolist()
)
print(
    torch.linalg.matrix_rank(A, hermitian=True).tolist(),
    torch.linalg.matrix_rank(torch.zeros(3, 4, dtype=F64)).tolist(),
)

print("== cdist")
x1 = torch.randn(4, 3, dtype=F64, requires_grad=True)
x2 = torch.randn(5, 3, dtype=F64, requires_grad=True)
Wd = torch.randn(4, 5, dtype=F64)
for p in (0.0, 0.5, 1.0, 2.0, 3.0, math.inf):
    Dd = torch.cdist(x1, x2, p)
    show(f"cdist p={p}", Dd)
    print(node(Dd))
    grads(f"cdist p={p}", (Dd * Wd).sum(), [x1, x2])
Dd = torch.cdist(x1, x2, compute_mode="use_mm_for_euclid_dist")
show("cdist mm", Dd)
print(node(Dd), type(Dd.grad_fn.next_functions[0][0]).__name__)
grads("cdist mm", (Dd * Wd).sum(), [x1, x2])
many = torch.randn(30, 3, dtype=F64, requires_grad=True)
Dd = torch.cdist(many, x2)
print("cdist 30 rows", list(Dd.shape), node(Dd), type(Dd.grad_fn.next_functions[0][0]).__name__)
show("cdist 30 rows first", Dd[:2])
grads("cdist 30 rows", Dd.sum(), [x2])
Dd = torch.cdist(many, x2, compute_mode="donot_use_mm_for_euclid_dist")
print("cdist 30 rows direct", node(Dd))
xb = torch.randn(2, 4, 3, dtype=F64, requires_grad=True)
Dd = torch.cdist(xb, x2)
show("cdist batch", Dd)
grads("cdist batch", Dd.sum(), [xb, x2])
Dd = torch.cdist(xb, x2, compute_mode="use_mm_for_euclid_dist")
print("cdist batch mm", node(Dd), list(Dd.shape))
same = torch.tensor([[0.0, 1.0], [2.0, 2.0]], dtype=F64, requires_grad=True)
for p in (0.5, 1.0, 2.0, 3.0, math.inf):
    Dd = torch.cdist(same, same.detach().clone(), p)
    show(f"cdist coincident p={p}", Dd)
    grads(f"cdist coincident p={p}", Dd.sum(), [same])

print("== float32")
F32 = torch.float32
A32 = A.detach().to(F32).requires_grad_()
show("inv f32", torch.linalg.inv(A32), 4)
show("solve f32", torch.linalg.solve(A32, B.detach().to(F32)), 4)
show("det f32", torch.linalg.det(A32), 3)
show("cholesky f32", torch.linalg.cholesky(A32), 4)
show("eigvalsh f32", torch.linalg.eigvalsh(A32), 4)
show("matrix_exp f32", torch.linalg.matrix_exp(A32 / 4), 4)
show("qr f32 R", torch.linalg.qr(A32).R, 4)
show("svdvals f32", torch.linalg.svd(A32).S, 4)
show("pinv f32", torch.linalg.pinv(A32), 4)
show("cdist f32", torch.cdist(A32, A32 * 2), 4)
L32 = torch.linalg.cholesky(A32)
print(L32.dtype, node(L32))
grads("cholesky f32", L32.sum(), [A32], 4)

print("== errors")
Z2 = torch.zeros(2, 2, dtype=F64)
refused(lambda: torch.linalg.inv(S))
refused(lambda: torch.linalg.inv(Z2))
refused(lambda: torch.linalg.inv(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.linalg.inv(torch.ones(3, dtype=F64)))
refused(lambda: torch.linalg.inv(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.linalg.inv(torch.stack([torch.eye(2, dtype=F64), Z2])))
refused(lambda: torch.inverse(Z2))
print(isinstance(torch.linalg.LinAlgError("x"), RuntimeError))
try:
    torch.linalg.inv(Z2)
except torch.linalg.LinAlgError as e:
    print("caught LinAlgError", str(e)[:60])
refused(lambda: torch.linalg.solve(S, torch.ones(3, dtype=F64)))
refused(
    lambda: torch.linalg.solve(
        torch.stack([torch.eye(2, dtype=F64), Z2]), torch.ones(2, 2, 2, dtype=F64)
    )
)
refused(lambda: torch.linalg.solve(torch.eye(3, dtype=F64), torch.ones(2, dtype=F64)))
refused(lambda: torch.linalg.solve(torch.eye(3, dtype=F64), torch.ones(2, 2, dtype=F64)))
refused(
    lambda: torch.linalg.solve(torch.eye(3, dtype=F64), torch.ones(2, 2, dtype=F64), left=False)
)
refused(lambda: torch.linalg.solve(torch.eye(3, dtype=F64), torch.ones(3, dtype=F64), left=False))
refused(lambda: torch.linalg.solve(torch.eye(3, dtype=F64), torch.ones(3, dtype=torch.float32)))
refused(lambda: torch.linalg.cholesky(torch.tensor([[1.0, 2], [2, 1]], dtype=F64)))
refused(lambda: torch.linalg.cholesky(torch.tensor([[-1.0, 0], [0, 1]], dtype=F64)))
refused(lambda: torch.linalg.cholesky(torch.ones(2, 3, dtype=F64)))
refused(
    lambda: torch.linalg.cholesky(torch.stack([torch.eye(2, dtype=F64), -torch.eye(2, dtype=F64)]))
)
refused(lambda: torch.linalg.cholesky(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.cholesky(A))
refused(lambda: torch.linalg.det(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.linalg.slogdet(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.linalg.det(torch.ones(3, dtype=F64)))
refused(lambda: torch.linalg.det(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.linalg.eigh(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.linalg.eigh(torch.ones(2, 2, dtype=F64), UPLO="X"))
refused(lambda: torch.linalg.qr(torch.ones(3, dtype=F64)))
refused(lambda: torch.linalg.qr(torch.ones(3, 3, dtype=F64), mode="x"))
refused(lambda: torch.linalg.qr(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.linalg.svd(torch.ones(3, dtype=F64)))
refused(lambda: torch.linalg.svd(torch.ones(2, 2, dtype=torch.int64)))
refused(
    lambda: torch.linalg.solve_triangular(
        torch.eye(3, dtype=F64), torch.ones(3, dtype=F64), upper=True
    )
)
refused(
    lambda: torch.linalg.solve_triangular(
        torch.eye(3, dtype=F64), torch.ones(2, 2, dtype=F64), upper=True
    )
)
refused(lambda: torch.linalg.matrix_exp(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.linalg.matrix_power(torch.ones(2, 3, dtype=F64), 2))
refused(lambda: torch.linalg.matrix_power(torch.ones(3, dtype=F64), 2))
refused(lambda: torch.linalg.matrix_power(S, -1))
refused(lambda: torch.linalg.pinv(torch.ones(2, 2, dtype=torch.int64)))
refused(lambda: torch.linalg.lstsq(torch.ones(3, 2, dtype=F64), torch.ones(4, 2, dtype=F64)))
refused(
    lambda: torch.linalg.lstsq(torch.ones(3, 2, dtype=F64), torch.ones(3, 2, dtype=torch.int64))
)
refused(
    lambda: torch.linalg.lstsq(torch.ones(3, 2, dtype=F64), torch.ones(3, 2, dtype=F64), driver="x")
)
refused(lambda: torch.linalg.lu_factor(Z2))
refused(lambda: torch.cholesky_solve(torch.ones(3, 2, dtype=F64), torch.ones(2, 2, dtype=F64)))
refused(lambda: torch.cholesky_inverse(torch.ones(2, 3, dtype=F64)))
refused(lambda: torch.cdist(torch.ones(3, dtype=F64), torch.ones(3, dtype=F64)))
refused(lambda: torch.cdist(torch.ones(3, 2, dtype=F64), torch.ones(3, 3, dtype=F64)))
refused(lambda: torch.cdist(torch.ones(3, 2, dtype=F64), torch.ones(3, 2, dtype=F64), p=-1))
refused(
    lambda: torch.cdist(torch.ones(3, 2, dtype=F64), torch.ones(3, 2, dtype=F64), compute_mode="x")
)
