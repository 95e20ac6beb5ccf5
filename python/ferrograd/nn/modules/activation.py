"""Activation modules: thin layers over ``nn.functional`` with PyTorch's constructor
arguments, attribute names and reprs."""

from ... import _core
from .. import functional as F
from .. import init as initialisers
from ..parameter import Parameter
from .module import Module


def _inplace_suffix(inplace):
    return ", inplace=True" if inplace else ""


class _InplaceOnly(Module):
    """An activation whose only setting is ``inplace`` (printed only when True)."""

    __constants__ = ("inplace",)
    _fn = ""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        """The activation, elementwise."""
        fn = getattr(F, self._fn)
        return fn(input, inplace=True) if self.inplace else fn(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceOnly):
    """``max(x, 0)``."""

    _fn = "relu"


class SELU(_InplaceOnly):
    """``scale * (max(0, x) + min(0, alpha * (exp(x) - 1)))`` with PyTorch's constants."""

    _fn = "selu"


class SiLU(_InplaceOnly):
    """``x * sigmoid(x)``."""

    _fn = "silu"


class Mish(_InplaceOnly):
    """``x * tanh(softplus(x))``."""

    _fn = "mish"


class Hardsigmoid(_InplaceOnly):
    """``relu6(x + 3) / 6``."""

    _fn = "hardsigmoid"

    def extra_repr(self):
        return ""


class Hardswish(_InplaceOnly):
    """``x * relu6(x + 3) / 6``."""

    _fn = "hardswish"

    def extra_repr(self):
        return ""


class Hardtanh(Module):
    """``x`` clamped to ``[min_val, max_val]``."""

    __constants__ = ("min_val", "max_val", "inplace")

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        if min_value is not None:
            min_val = min_value
        if max_value is not None:
            max_val = max_value
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError()

    def forward(self, input):
        """``F.hardtanh(input, min_val, max_val, inplace)``."""
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}{_inplace_suffix(self.inplace)}"


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``."""

    __constants__ = ("threshold", "value", "inplace")

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):
        """``F.threshold(input, threshold, value, inplace)``."""
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}{_inplace_suffix(self.inplace)}"


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``."""

    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` for positive ``x``, else ``negative_slope * x``."""

    __constants__ = ("inplace", "negative_slope")

    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):
        """``F.leaky_relu(input, negative_slope, inplace)``."""
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}{_inplace_suffix(self.inplace)}"


class ELU(Module):
    """``x`` for positive ``x``, else ``alpha * (exp(x) - 1)``."""

    __constants__ = ("alpha", "inplace")

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):
        """``F.elu(input, alpha, inplace)``."""
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}{_inplace_suffix(self.inplace)}"


class CELU(ELU):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""

    def forward(self, input):
        """``F.celu(input, alpha)``."""
        if self.inplace:
            return F.celu(input, self.alpha, inplace=True)
        return F.celu(input, self.alpha)


class GELU(Module):
    """Gaussian error linear unit (``approximate="tanh"`` for the tanh form)."""

    __constants__ = ("approximate",)

    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        """``F.gelu(input, approximate)``."""
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta`` (linear above ``threshold``)."""

    __constants__ = ("beta", "threshold")

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):
        """``F.softplus(input, beta, threshold)``."""
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardshrink(Module):
    """``x`` outside ``[-lambd, lambd]``, 0 inside."""

    __constants__ = ("lambd",)

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        """``F.hardshrink(input, lambd)``."""
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x`` moved ``lambd`` towards 0; 0 inside ``[-lambd, lambd]``."""

    def forward(self, input):
        """``F.softshrink(input, lambd)``."""
        return F.softshrink(input, self.lambd)


class Tanhshrink(Module):
    """``x - tanh(x)``."""

    def forward(self, input):
        """``F.tanhshrink(input)``."""
        return F.tanhshrink(input)


class GLU(Module):
    """The gated linear unit ``a * sigmoid(b)`` of the input's halves along ``dim``."""

    __constants__ = ("dim",)

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``F.glu(input, dim)``."""
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class PReLU(Module):
    """``x`` above 0, ``a * x`` below, with a learnt slope ``a`` (``weight``): one, or one per
    channel (``num_parameters``), all starting at ``init``."""

    __constants__ = ("num_parameters",)

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_core.empty(num_parameters, device=device, dtype=dtype))
        self.reset_parameters()

    def reset_parameters(self):
        """Every slope back to ``init``."""
        initialisers.constant_(self.weight, self.init)

    def forward(self, input):
        """``F.prelu(input, weight)``."""
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    """Leaky ReLU with a random slope from ``[lower, upper)`` per element in training, and
    their mean in evaluation."""

    __constants__ = ("lower", "upper", "inplace")

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower = lower
        self.upper = upper
        self.inplace = inplace

    def forward(self, input):
        """``F.rrelu(input, lower, upper, self.training, inplace)``."""
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}{_inplace_suffix(self.inplace)}"


class Softsign(Module):
    """``x / (1 + |x|)``."""

    def forward(self, input):
        """``F.softsign(input)``."""
        return F.softsign(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))``."""

    def forward(self, input):
        """``F.logsigmoid(input)``."""
        return F.logsigmoid(input)


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``."""

    def forward(self, input):
        """``F.sigmoid(input)``."""
        return F.sigmoid(input)


class Tanh(Module):
    """``tanh(x)``."""

    def forward(self, input):
        """``F.tanh(input)``."""
        return F.tanh(input)


class Softmin(Module):
    """``softmax(-x)`` along ``dim``."""

    __constants__ = ("dim",)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        """``F.softmin(input, dim)``."""
        return F.softmin(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(Module):
    """``exp(x) / sum(exp(x))`` along ``dim``."""

    __constants__ = ("dim",)

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "dim"):
            self.dim = None

    def forward(self, input):
        """``F.softmax(input, dim)``."""
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``dim``."""

    def forward(self, input):
        """``F.log_softmax(input, dim)``."""
        return F.log_softmax(input, self.dim)


__all__ = [
    "Threshold",
    "CELU",
    "ELU",
    "GELU",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "LogSigmoid",
    "LogSoftmax",
    "Mish",
    "ReLU",
    "ReLU6",
    "SELU",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Softsign",
    "Tanh",
]

# PyTorch defines MultiheadAttention in torch.nn.modules.activation; programs name it there
from .transformer import MultiheadAttention  # noqa: E402, F401
