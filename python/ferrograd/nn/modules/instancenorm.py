"""Instance normalization layers: each sample's channels normalized over their own spatial
positions (``F.instance_norm``), as PyTorch's ``InstanceNorm1d``/``2d``/``3d``."""

import warnings

from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase


class _InstanceNorm(_NormBase):
    """What the instance norms share; unlike batch norms, no affine parameters and no running
    statistics unless asked for."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=False,
        track_running_stats=False,
        device=None,
        dtype=None,
    ):
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype
        )

    def _check_input_dim(self, input):
        raise NotImplementedError

    def _get_no_batch_dim(self):
        raise NotImplementedError

    def _handle_no_batch_input(self, input):
        return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)

    def _apply_instance_norm(self, input):
        return F.instance_norm(
            input,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            self.training or not self.track_running_stats,
            self.momentum if self.momentum is not None else 0.0,
            self.eps,
        )

    def forward(self, input):
        """``F.instance_norm`` with each sample's statistics (in training, or when running
        statistics are not tracked), else the running ones; an input without its batch
        dimension is normalized as a batch of one."""
        self._check_input_dim(input)
        feature_dim = input.dim() - self._get_no_batch_dim()
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(
                    f"expected input's size at dim={feature_dim} to match num_features"
                    f" ({self.num_features}), but got: {input.size(feature_dim)}."
                )
            warnings.warn(
                f"input's size at dim={feature_dim} does not match num_features. "
                "You can silence this warning by not passing in num_features, "
                "which is not used because affine=False",
                stacklevel=2,
            )
        if input.dim() == self._get_no_batch_dim():
            return self._handle_no_batch_input(input)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` (or ``(C, L)``) inputs over ``L``."""

    def _get_no_batch_dim(self):
        return 2

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` (or ``(C, H, W)``) inputs over ``H``, ``W``."""

    def _get_no_batch_dim(self):
        return 3

    def _check_input_dim(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"expected 3D or 4D input (got {input.dim()}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) inputs over ``D``,
    ``H``, ``W``."""

    def _get_no_batch_dim(self):
        return 4

    def _check_input_dim(self, input):
        if input.dim() not in (4, 5):
            raise ValueError(f"expected 4D or 5D input (got {input.dim()}D input)")


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm1d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = InstanceNorm1d
    _get_no_batch_dim = InstanceNorm1d._get_no_batch_dim
    _check_input_dim = InstanceNorm1d._check_input_dim


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm2d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = InstanceNorm2d
    _get_no_batch_dim = InstanceNorm2d._get_no_batch_dim
    _check_input_dim = InstanceNorm2d._check_input_dim


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """An ``InstanceNorm3d`` whose ``num_features`` is taken from its first input."""

    cls_to_become = InstanceNorm3d
    _get_no_batch_dim = InstanceNorm3d._get_no_batch_dim
    _check_input_dim = InstanceNorm3d._check_input_dim


__all__ = [
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]
