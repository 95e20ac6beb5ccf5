"""``Identity``, ``Linear`` and ``Bilinear``, initialised as PyTorch's (after ``manual_seed``
their weights are PyTorch's)."""

import math

from ... import _core
from ..._grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module


class Identity(Module):
    """Returns its input (any constructor arguments are ignored)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        """``input`` itself."""
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with PyTorch's default uniform initialisation."""

    __constants__ = ("in_features", "out_features")

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_core.empty(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(_core.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default initialisation, drawing as it does: the weight by
        ``kaiming_uniform_(a=sqrt(5))``, then the bias uniform in ``+-1/sqrt(fan_in)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """``F.linear(input, weight, bias)``."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class NonDynamicallyQuantizableLinear(Linear):
    """A ``Linear`` (PyTorch's name for ``MultiheadAttention.out_proj``, defined here as in
    PyTorch's ``torch.nn.modules.linear``)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with weight ``(out, in1, in2)``, uniform in ``+-1/sqrt(in1)``."""

    __constants__ = ("in1_features", "in2_features", "out_features")

    def __init__(
        self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None
    ):
        super().__init__()
        if in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(
            _core.empty(out_features, in1_features, in2_features, dtype=dtype, device=device)
        )
        if bias:
            self.bias = Parameter(_core.empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight then bias uniform in ``+-1/sqrt(in1_features)``."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        """``F.bilinear(input1, input2, weight, bias)``."""
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is taken from its first input (its last dim); it
    becomes a ``Linear`` then, initialised as one."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        """``Linear``'s initialisation, once the shapes are known."""
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materializes the weight (and bias) for ``input``'s features and initialises them."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]
