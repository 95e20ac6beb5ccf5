"""ferrograd: reverse-mode automatic differentiation in Rust, with PyTorch's autograd API.

``import ferrograd as torch`` runs autograd code written for PyTorch (for what ferrograd covers).
"""

from . import _core
from ._core import (
    Tensor,
    arange,
    bool,
    double,
    dtype,
    empty,
    float,
    float32,
    float64,
    from_numpy,
    full,
    int64,
    is_grad_enabled,
    linspace,
    long,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from ._grad_mode import enable_grad, no_grad, set_grad_enabled


class Size(tuple):
    """The shape of a tensor: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


_core._register_size(Size)

# Function forms of tensor methods: the Rust methods themselves, no Python wrapper in between.
exp = Tensor.exp
log = Tensor.log
sin = Tensor.sin
cos = Tensor.cos
tanh = Tensor.tanh
sigmoid = Tensor.sigmoid
relu = Tensor.relu
abs = Tensor.abs
sqrt = Tensor.sqrt
neg = Tensor.neg
reciprocal = Tensor.reciprocal
sum = Tensor.sum
mean = Tensor.mean
norm = Tensor.norm
matmul = Tensor.matmul
mm = Tensor.mm
mv = Tensor.mv
dot = Tensor.dot
outer = Tensor.outer
t = Tensor.t
transpose = Tensor.transpose
reshape = Tensor.reshape
squeeze = Tensor.squeeze
unsqueeze = Tensor.unsqueeze
clone = Tensor.clone
detach = Tensor.detach
add = Tensor.add
sub = Tensor.sub
mul = Tensor.mul
div = Tensor.div
pow = Tensor.pow
numel = Tensor.numel
flatten = Tensor.flatten

from . import autograd, nn, optim  # noqa: E402


def is_tensor(obj) -> "bool":
    """True if ``obj`` is a ferrograd tensor."""
    return isinstance(obj, Tensor)


def get_default_dtype():
    """The default floating dtype (float32)."""
    return float32


__version__ = "0.1.0"

__all__ = [
    "Size", "Tensor", "abs", "add", "arange", "autograd", "bool", "clone", "cos", "detach", "div",
    "dot", "double", "dtype", "empty", "enable_grad", "exp", "flatten", "float", "float32",
    "float64", "from_numpy", "full", "get_default_dtype", "int64", "is_grad_enabled",
    "is_tensor", "linspace", "log", "long", "manual_seed", "matmul", "mean", "mm", "mul", "mv",
    "neg", "nn", "no_grad", "norm", "numel", "ones", "ones_like", "optim", "outer", "pow", "rand",
    "randn", "reciprocal", "relu", "reshape", "set_grad_enabled", "sigmoid", "sin", "sqrt",
    "squeeze", "sub", "sum", "t", "tanh", "tensor", "transpose", "unsqueeze", "zeros",
    "zeros_like",
]
