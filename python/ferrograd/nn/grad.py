"""``torch.nn.grad``: the gradients of a convolution with respect to its input and to its
weight, given the gradient of its output. A convolution is linear in each, so each gradient is
the vector-Jacobian product of the convolution at any point (zeros here) with the output's
gradient: computed by the engine from ``conv{1,2,3}d``'s own backward, the same numbers a
backward pass through the convolution gives."""

from .. import _core
from ..autograd import grad as _grad

__all__ = [
    "conv1d_input",
    "conv1d_weight",
    "conv2d_input",
    "conv2d_weight",
    "conv3d_input",
    "conv3d_weight",
]


def _conv(dims):
    from . import functional

    return getattr(functional, f"conv{dims}d")


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = _core.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(x, weight.detach(), None, stride, padding, dilation, groups)
    return _grad(out, x, grad_output, create_graph=grad_output.requires_grad)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = _core.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    out = conv(input.detach(), w, None, stride, padding, dilation, groups)
    return _grad(out, w, grad_output, create_graph=grad_output.requires_grad)[0]


def _input_function(dims):
    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        args = (input_size, weight, grad_output, stride, padding, dilation, groups)
        return _input_grad(_conv(dims), *args)

    conv_input.__name__ = conv_input.__qualname__ = f"conv{dims}d_input"
    conv_input.__doc__ = (
        f"The gradient of ``conv{dims}d`` with respect to an input of ``input_size``."
    )
    return conv_input


def _weight_function(dims):
    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        args = (input, weight_size, grad_output, stride, padding, dilation, groups)
        return _weight_grad(_conv(dims), *args)

    conv_weight.__name__ = conv_weight.__qualname__ = f"conv{dims}d_weight"
    conv_weight.__doc__ = (
        f"The gradient of ``conv{dims}d`` with respect to a weight of ``weight_size``."
    )
    return conv_weight


conv1d_input, conv1d_weight = _input_function(1), _weight_function(1)
conv2d_input, conv2d_weight = _input_function(2), _weight_function(2)
conv3d_input, conv3d_weight = _input_function(3), _weight_function(3)
