"""``nn.utils.weight_norm``/``remove_weight_norm``: the older, hook-based weight normalization
(https://arxiv.org/abs/1602.07868), as PyTorch's ``torch.nn.utils.weight_norm``: the parameter
``<name>`` is replaced by ``<name>_g`` (magnitude) and ``<name>_v`` (direction), and a forward
pre-hook recomputes ``<name> = g * v / ||v||`` before each call. Deprecated in PyTorch in
favour of :func:`ferrograd.nn.utils.parametrizations.weight_norm`, with the same
``FutureWarning``."""

import warnings

from ... import _composites
from ..parameter import Parameter, UninitializedParameter

__all__ = ["WeightNorm", "remove_weight_norm", "weight_norm"]

_DEPRECATION = (
    "`torch.nn.utils.weight_norm` is deprecated "
    "in favor of `torch.nn.utils.parametrizations.weight_norm`."
)


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and
    ``<name>_v`` (``dim=None`` is one norm for the whole tensor, kept as ``-1``)."""

    def __init__(self, name, dim):
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module):
        """``g * v / ||v||`` from the module's current ``<name>_g`` and ``<name>_v``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _composites._weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module, name, dim):
        """Replaces ``module.<name>`` by ``<name>_g`` and ``<name>_v`` and registers the hook."""
        warnings.warn(_DEPRECATION, FutureWarning, stacklevel=2)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}"
                )
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `WeightNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying weight normalization"
            )
        del module._parameters[name]
        module.register_parameter(
            name + "_g", Parameter(_composites.norm_except_dim(weight, 2, dim).data)
        )
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        """Makes ``module.<name>`` a parameter again, holding its current value."""
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replaces the parameter ``module.<name>`` by a magnitude ``<name>_g`` (one norm per slice
    along ``dim``; ``dim=None``: one for the whole tensor) and a direction ``<name>_v``; the
    weight is recomputed before every call. Deprecated (a ``FutureWarning``): prefer
    :func:`ferrograd.nn.utils.parametrizations.weight_norm`. Returns ``module``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module, name="weight"):
    """Undoes :func:`weight_norm` on ``module.<name>``, leaving its current value as a
    parameter. Returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
