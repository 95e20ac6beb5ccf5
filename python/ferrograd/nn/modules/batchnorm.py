"""``BatchNorm1d``, ``BatchNorm2d`` and ``BatchNorm3d``: per-channel normalization with learnable
``weight``/``bias`` and running statistics (``running_mean``, ``running_var``,
``num_batches_tracked``) updated in training and used in evaluation, as PyTorch's."""

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module


class _NormBase(Module):
    """What batch norms share: parameters, buffers, their reset, repr and old checkpoints."""

    _version = 2
    __constants__ = ("track_running_stats", "momentum", "eps", "num_features", "affine")

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_core.empty(num_features, dtype=dtype, device=device))
            if bias:
                self.bias = Parameter(_core.empty(num_features, dtype=dtype, device=device))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer(
                "running_mean", _core.zeros(num_features, dtype=dtype, device=device)
            )
            self.register_buffer(
                "running_var", _core.ones(num_features, dtype=dtype, device=device)
            )
            self.register_buffer(
                "num_batches_tracked", _core.tensor(0, dtype=_core.long, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Running mean 0, running variance 1, no batches counted."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """The running statistics reset, weight 1 and bias 0."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ):
        version = local_metadata.get("version", None)
        key = prefix + "num_batches_tracked"
        if (version is None or version < 2) and self.track_running_stats and key not in state_dict:
            # checkpoints from before the counter existed start it at 0, as PyTorch's
            state_dict[key] = (
                self.num_batches_tracked
                if self.num_batches_tracked is not None
                else _core.tensor(0, dtype=_core.long)
            )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
        )


class _BatchNorm(_NormBase):
    def forward(self, input):
        """``F.batch_norm`` with the batch's statistics in training (counting the batch and
        updating the running statistics when tracked), the running ones in evaluation."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        # the buffers are passed when they are updated (training, tracked) or used (evaluation)
        passed = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if passed else None,
            self.running_var if passed else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of ``(N, C)`` or ``(N, C, L)`` inputs over ``N`` (and ``L``)."""

    def _check_input_dim(self, input):
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of ``(N, C, H, W)`` inputs over ``N``, ``H`` and ``W``."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalization of ``(N, C, D, H, W)`` inputs over all dims but ``C``."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """What the lazy batch and instance norms share: ``num_features`` taken from the first
    input's dim 1, then the parameters and running statistics materialized and reset."""

    def __init__(
        self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
        dtype=None,
    ):
        # built without affine parameters or statistics: placeholders take their places
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _core.tensor(0, dtype=_core.long, device=device)

    def reset_parameters(self):
        """The eager layer's reset, once the shapes are known."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """Materializes the parameters and statistics for ``input``'s channels and resets
        them."""
        if not self.has_uninitialized_params():
            return
        self.num_features = input.shape[1]
        if self.affine:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            self.running_mean.materialize((self.num_features,))
            self.running_var.materialize((self.num_features,))
        self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm1d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = BatchNorm1d._check_input_dim


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm2d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = BatchNorm2d
    _check_input_dim = BatchNorm2d._check_input_dim


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm3d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = BatchNorm3d
    _check_input_dim = BatchNorm3d._check_input_dim


__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
]
