"""The legacy ``Resize`` and ``Type`` Functions of ``torch.autograd._functions``."""

import math
import warnings

from ..function import Function

__all__ = ["Resize", "Type"]


class Type(Function):
    """``Type.apply(x, dest_type)``: ``x.type(dest_type)``, the gradient converted back to
    ``x``'s type (deprecated since PyTorch 2.1, with its ``FutureWarning``)."""

    @staticmethod
    def forward(ctx, i, dest_type):
        warnings.warn(
            "`torch.autograd._functions.Type` is deprecated as of PyTorch 2.1, please use "
            "`torch.tensor.to(dtype=dtype)` instead.",
            FutureWarning,
            stacklevel=2,
        )
        ctx.input_type = i.type()
        return i.type(dest_type)

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output.type(ctx.input_type), None


class Resize(Function):
    """``Resize.apply(x, sizes)``: ``x`` seen with the shape ``sizes`` (the same number of
    elements; shared when ``x`` is contiguous, else a contiguous copy); the gradient is viewed
    back to ``x``'s shape."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.sizes = sizes
        ctx.numel = math.prod(sizes)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, sizes))} ({ctx.numel} elements in "
                f"total), but the given tensor has a size of "
                f"{'x'.join(map(str, tensor.size()))} ({tensor.numel()} elements). autograd's "
                "resize can only change the shape of a given tensor, while preserving the "
                "number of elements. "
            )
        ctx.input_sizes = tensor.size()
        if tensor.is_contiguous():
            return tensor.detach().view(*sizes)
        return tensor.contiguous().view(*sizes)

    @staticmethod
    def backward(ctx, grad_output):
        assert grad_output.numel() == ctx.numel
        return grad_output.contiguous().view(ctx.input_sizes), None
