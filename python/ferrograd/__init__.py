"""ferrograd: reverse-mode automatic differentiation in Rust, with PyTorch's autograd API.

``import ferrograd as torch`` runs autograd code written for PyTorch (for what ferrograd covers).
"""

import builtins as _builtins

from . import _core
from ._core import (
    Tensor,
    arange,
    bool,
    cat,
    double,
    dtype,
    empty,
    float,
    float32,
    float64,
    from_numpy,
    full,
    get_num_threads,
    int64,
    is_grad_enabled,
    linspace,
    long,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    set_num_threads,
    stack,
    tensor,
    zeros,
    zeros_like,
)
from ._core import where as where
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

from . import _hooks  # noqa: E402

_core._register_types(
    {"RemovableHandle": _hooks.RemovableHandle, "max": _hooks.max_result, "min": _hooks.min_result}
)

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
permute = Tensor.permute
split = Tensor.split
chunk = Tensor.chunk
unbind = Tensor.unbind
flip = Tensor.flip
gather = Tensor.gather
scatter_add = Tensor.scatter_add
index_select = Tensor.index_select
masked_fill = Tensor.masked_fill
maximum = Tensor.maximum
minimum = Tensor.minimum
clamp = Tensor.clamp
clip = Tensor.clip
softmax = Tensor.softmax
log_softmax = Tensor.log_softmax
prod = Tensor.prod
max = Tensor.max
min = Tensor.min
amax = Tensor.amax
amin = Tensor.amin
argmax = Tensor.argmax
argmin = Tensor.argmin
var = Tensor.var
std = Tensor.std
logsumexp = Tensor.logsumexp
cumsum = Tensor.cumsum
bmm = Tensor.bmm
isnan = Tensor.isnan
isinf = Tensor.isinf
isfinite = Tensor.isfinite
sign = Tensor.sign
floor = Tensor.floor
ceil = Tensor.ceil
round = Tensor.round
exp2 = Tensor.exp2
log2 = Tensor.log2
log10 = Tensor.log10
log1p = Tensor.log1p
expm1 = Tensor.expm1
rsqrt = Tensor.rsqrt
square = Tensor.square
erf = Tensor.erf
logical_and = Tensor.logical_and
logical_or = Tensor.logical_or
logical_xor = Tensor.logical_xor
logical_not = Tensor.logical_not
any = Tensor.any
all = Tensor.all
repeat = Tensor.repeat

from . import autograd, nn, optim  # noqa: E402


def is_tensor(obj) -> _builtins.bool:
    """True if ``obj`` is a ferrograd tensor."""
    return isinstance(obj, Tensor)


def get_default_dtype():
    """The default floating dtype (float32)."""
    return float32


__version__ = "0.1.0"

__all__ = [
    "get_num_threads",
    "set_num_threads",
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "bmm",
    "cat",
    "ceil",
    "chunk",
    "clamp",
    "clip",
    "cumsum",
    "erf",
    "exp2",
    "expm1",
    "flip",
    "floor",
    "gather",
    "index_select",
    "isfinite",
    "isinf",
    "isnan",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logsumexp",
    "masked_fill",
    "max",
    "maximum",
    "min",
    "minimum",
    "permute",
    "prod",
    "repeat",
    "round",
    "rsqrt",
    "scatter_add",
    "sign",
    "softmax",
    "split",
    "square",
    "stack",
    "std",
    "unbind",
    "var",
    "where",
    "Size",
    "Tensor",
    "abs",
    "add",
    "arange",
    "autograd",
    "bool",
    "clone",
    "cos",
    "detach",
    "div",
    "dot",
    "double",
    "dtype",
    "empty",
    "enable_grad",
    "exp",
    "flatten",
    "float",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "get_default_dtype",
    "int64",
    "is_grad_enabled",
    "is_tensor",
    "linspace",
    "log",
    "long",
    "manual_seed",
    "matmul",
    "mean",
    "mm",
    "mul",
    "mv",
    "neg",
    "nn",
    "no_grad",
    "norm",
    "numel",
    "ones",
    "ones_like",
    "optim",
    "outer",
    "pow",
    "rand",
    "randn",
    "reciprocal",
    "relu",
    "reshape",
    "set_grad_enabled",
    "sigmoid",
    "sin",
    "sqrt",
    "squeeze",
    "sub",
    "sum",
    "t",
    "tanh",
    "tensor",
    "transpose",
    "unsqueeze",
    "zeros",
    "zeros_like",
]
