"""A minimal ``nn``: ``Parameter``, ``Module`` and ``Linear`` built on ferrograd tensors."""

import math

from .. import _core
from .._core import Tensor
from . import functional, init


class Parameter(Tensor):
    """A tensor that is a module parameter: a leaf that requires grad by default."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _core.empty(0)
        obj = super().__new__(cls, data, requires_grad)
        obj._register()
        return obj

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        # as PyTorch: a parameter with copied values and requires_grad (not its .grad)
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]


class Module:
    """Base class of layers: tracks parameters and sub-modules set as attributes."""

    def __init__(self):
        object.__setattr__(self, "_parameters", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix=""):
        for name, p in self._parameters.items():
            yield prefix + name, p
        for mname, m in self._modules.items():
            yield from m.named_parameters(prefix + mname + ".")

    def parameters(self):
        for _, p in self.named_parameters():
            yield p

    def zero_grad(self, set_to_none=True):
        for p in self.parameters():
            if set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad.zero_()

    def train(self, mode=True):
        object.__setattr__(self, "training", mode)
        for m in self._modules.values():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)


class Linear(Module):
    """``y = x @ weight.T + bias`` with PyTorch's default uniform initialisation."""

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_core.empty(out_features, in_features))
        self.bias = Parameter(_core.empty(out_features)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's default initialisation, drawing as it does: the weight by
        ``kaiming_uniform_(a=sqrt(5))``, then the bias uniform in ``+-1/sqrt(fan_in)``."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, x):
        return functional.linear(x, self.weight, self.bias)

    def __repr__(self):
        return (
            f"Linear(in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None})"
        )


class ReLU(Module):
    """Elementwise ``max(x, 0)``."""

    def forward(self, x):
        return x.relu()


class Tanh(Module):
    """Elementwise ``tanh``."""

    def forward(self, x):
        return x.tanh()


class Sigmoid(Module):
    """Elementwise logistic sigmoid."""

    def forward(self, x):
        return x.sigmoid()


class MSELoss(Module):
    """Mean squared error."""

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = reduction

    def forward(self, input, target):
        return functional.mse_loss(input, target, reduction=self.reduction)


class Sequential(Module):
    """Applies modules in order."""

    def __init__(self, *modules):
        super().__init__()
        for i, m in enumerate(modules):
            setattr(self, str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x


__all__ = [
    "Linear",
    "MSELoss",
    "Module",
    "Parameter",
    "ReLU",
    "Sequential",
    "Sigmoid",
    "Tanh",
    "functional",
]
