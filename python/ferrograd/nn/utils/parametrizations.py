"""``nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal`` as
parametrizations (:mod:`.parametrize`), as PyTorch's ``torch.nn.utils.parametrizations``.

``orthogonal``'s maps are PyTorch's: ``linalg.matrix_exp``, the Cayley map through
``linalg.solve``, and Q of ``linalg.qr`` for the initialisation. ferrograd has no
``linalg.householder_product`` or ``geqrf`` op yet: the Householder map multiplies its reflectors
one at a time (differentiable, PyTorch's values up to rounding, the composing ops' nodes), and
``right_inverse`` without a base reads LAPACK's reflectors through NumPy (no gradient).
"""

from enum import Enum, auto

import numpy as np

from ... import _composites, _core, linalg
from ..._core import Tensor
from ..._grad_mode import no_grad
from ..._memory_format import contiguous_format
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

# torch.finfo(dtype).eps of the floating dtypes ferrograd has
_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _dtype_key(dtype):
    return str(dtype).rpartition(".")[2]


def _eye(n, k, like):
    return _core.eye(n, k, dtype=like.dtype)


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = _core.eye(k, dtype=Q.dtype)
    eps = 10.0 * n * _EPS[_dtype_key(Q.dtype)]
    return (Q.mH @ Q).allclose(Id, atol=eps)


# ----- compositions standing in for geqrf and householder_product ------------------------


def _geqrf(A):
    """LAPACK's ``geqrf`` of each matrix of ``A`` (no gradient): the reflectors below the
    diagonal and R on and above it, and the reflectors' scales ``tau``."""
    a = A.detach().numpy()
    batch = a.shape[:-2]
    m, n = a.shape[-2:]
    flat = a.reshape(-1, m, n)
    hs, taus = [], []
    for mat in flat:
        h, tau = np.linalg.qr(np.asarray(mat, dtype=np.float64), mode="raw")
        hs.append(h.T)
        taus.append(tau)
    h = np.stack(hs).reshape(*batch, m, n) if flat.shape[0] else np.zeros(a.shape)
    tau = (
        np.stack(taus).reshape(*batch, min(m, n))
        if flat.shape[0]
        else np.zeros((*batch, min(m, n)))
    )
    return (
        _core.tensor(h.tolist(), dtype=A.dtype).reshape(*a.shape),
        _core.tensor(tau.tolist(), dtype=A.dtype).reshape(*batch, min(m, n)),
    )


def _householder_product(A, tau):
    """The first ``k`` columns of ``H_1 ... H_k`` with ``H_i = I - tau_i v_i v_i^T``, ``v_i``
    the ``i``-th column of ``A`` below the diagonal with a 1 on it (``householder_product``),
    one reflector at a time (differentiable)."""
    n, k = A.size(-2), A.size(-1)
    V = A.tril(-1) + _eye(n, k, A)
    Q = _eye(n, k, A).expand(*A.shape[:-2], n, k)
    for i in reversed(range(k)):
        v = V[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        Q = Q - t * (v @ (v.mT @ Q))
    return Q


def _make_orthogonal(A):
    """The Q factor of ``A = QR`` with ``diag(R) >= 0`` (``A`` tall)."""
    Q, R = linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sign().unsqueeze(-2)


# ----- orthogonal ------------------------------------------------------------------------


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        # X is tall (n >= k) from here on
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # n*k - k(k-1)/2 free entries: the lower triangle, embedded in a square matrix
            X = X.tril()
            if n != k:
                X = _core.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH  # skew-symmetric
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = linalg.matrix_exp(A)
            else:
                # the Cayley map (I - A/2)^{-1} (I + A/2), PyTorch's solve
                Id = _core.eye(n, dtype=A.dtype)
                Q = linalg.solve(Id.add(A, alpha=-0.5), Id.add(A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            # the diagonal of X holds the signs (1 or -1), outside the graph
            Q = Q * X.diagonal(dim1=-2, dim2=-1).long().unsqueeze(-2)

        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    @no_grad()
    def right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(
                f"Expected a matrix or batch of matrices of shape {self.shape}. "
                f"Got a tensor of shape {Q.shape}."
            )
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n

        if not hasattr(self, "base"):
            # without a base only the Householder map can be inverted
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError(
                    "It is not possible to assign to the matrix exponential "
                    "or the Cayley parametrizations when use_trivialization=False."
                )
            A, tau = _geqrf(Q)
            # the diagonal keeps the signs of R's diagonal (flipped where LAPACK used no
            # reflection), so that the map gives Q with diag(R) > 0
            diag = A.diagonal(dim1=-2, dim2=-1)
            signs = diag.sign()
            signs = _core.where(tau == 0.0, -signs, signs)
            diag.copy_(signs)
            return A.mT if transpose else A

        if n == k:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:
            # complete Q to an n x n orthogonal matrix with random columns
            N = _core.randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)
            Q = _make_orthogonal(_core.cat([Q, N], dim=-1))
        self.base = Q
        # -Id: with it the Householder map gives the identity too
        neg_Id = _core.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Makes ``module.<name>`` (a matrix or a batch of matrices) orthogonal: orthonormal
    columns when it is tall, rows when it is wide.

    ``orthogonal_map`` is ``"matrix_exp"`` (the default for square matrices),
    ``"cayley"`` or ``"householder"`` (the default otherwise). With ``use_trivialization``
    (the default) the map is applied around a stored orthogonal ``base``
    (``module.parametrizations.<name>[0].base``), initialised from the tensor's QR
    decomposition. Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(
            f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions."
        )
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
            f"Got: {orthogonal_map}"
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ----- weight_norm -----------------------------------------------------------------------


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _composites._weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        weight_g = _composites.norm_except_dim(weight, 2, self.dim)
        weight_v = weight
        return weight_g, weight_v


def weight_norm(module, name="weight", dim=0):
    """Splits ``module.<name>`` into a magnitude ``g`` (``parametrizations.<name>.original0``,
    one norm per slice along ``dim``, or one for the whole tensor with ``dim=None``) and a
    direction ``v`` (``original1``): ``w = g * v / ||v||``. A state dict of the older
    ``nn.utils.weight_norm`` (``<name>_g``, ``<name>_v``) still loads. Returns ``module``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(
        state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        g_key = f"{prefix}{name}_g"
        v_key = f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            original0 = state_dict.pop(g_key)
            original1 = state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = original0
            state_dict[f"{prefix}parametrizations.{name}.original1"] = original1

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ----- spectral_norm ---------------------------------------------------------------------


class _SpectralNorm(Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(
                "Dimension out of range (expected to be in range of "
                f"[-{ndim}, {ndim - 1}] but got {dim})"
            )
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            # a vector is normalized exactly (see forward): no singular vectors to estimate
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            # start from reasonable singular vectors
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if weight.ndim <= 1:
            raise AssertionError(
                f"Expected weight to have more than 1 dimension, got {weight.ndim}"
            )
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    @no_grad()
    def _power_method(self, weight_mat, n_power_iterations):
        # u and v are updated in place (replicas of the module share them), and cloned
        # before use in forward, so that a graph built by an earlier forward stays valid
        if weight_mat.ndim <= 1:
            raise AssertionError(
                f"Expected weight_mat to have more than 1 dimension, got {weight_mat.ndim}"
            )
        for _ in range(n_power_iterations):
            self._u = F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps, out=self._u)
            self._v = F.normalize(weight_mat.H.mv(self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=contiguous_format)
        v = self._v.clone(memory_format=contiguous_format)
        # vdot of real vectors is dot
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides ``module.<name>`` by its largest singular value, estimated by power iteration
    (the weight seen as a matrix with ``dim`` first): ``n_power_iterations`` steps on each
    read in training mode, none in evaluation mode; the singular vectors are the buffers
    ``_u`` and ``_v`` of ``module.parametrizations.<name>[0]``. ``dim`` defaults to 1 for
    transposed convolutions, 0 otherwise. Returns ``module``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from .spectral_norm import _conv_transposes

        dim = 1 if isinstance(module, _conv_transposes()) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps)
    )
    return module
