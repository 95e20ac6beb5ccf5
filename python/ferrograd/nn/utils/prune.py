"""``nn.utils.prune``: masking a module's parameters, as PyTorch's ``torch.nn.utils.prune``.

Pruning parameter ``<name>`` of a module moves the trained values to the parameter
``<name>_orig``, stores a ``<name>_mask`` buffer (1 keeps an entry, 0 prunes it) and makes
``module.<name>`` the plain tensor ``<name>_orig * <name>_mask``, recomputed before every
forward call by the pruning method, which is registered as a forward pre-hook. Gradients reach
``<name>_orig`` through the product, so pruned entries get zero gradient.

Pruning the same tensor again combines the methods in a :class:`PruningContainer`: the new
method sees only what is still unpruned (the entries, for unstructured methods; the channels
along its ``dim``, for structured ones) and its mask is written over the old one.
:func:`remove` makes the pruning permanent: ``<name>`` becomes a parameter again holding the
masked values. The methods are plain Python objects, so a pruned module pickles and deep-copies.
"""

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import _core
from ..._creation import rand_like
from .convert_parameters import parameters_to_vector

__all__ = [
    "BasePruningMethod",
    "CustomFromMask",
    "Identity",
    "L1Unstructured",
    "LnStructured",
    "PruningContainer",
    "RandomStructured",
    "RandomUnstructured",
    "custom_from_mask",
    "global_unstructured",
    "identity",
    "is_pruned",
    "l1_unstructured",
    "ln_structured",
    "random_structured",
    "random_unstructured",
    "remove",
]


class BasePruningMethod(ABC):
    """A way of computing a pruning mask; an instance is the forward pre-hook that keeps
    ``module.<name>`` equal to ``<name>_orig * <name>_mask``. Subclasses define
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` with a ``dim``, or ``"global"``) and
    :meth:`compute_mask`."""

    _tensor_name: str

    def __call__(self, module, inputs):
        """The forward pre-hook: recomputes the pruned tensor from the current parameter."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask of ``t`` (same shape), pruning further what ``default_mask`` (the mask
        of earlier prunings, 1 for unpruned) keeps."""

    def apply_mask(self, module):
        """``<name>_orig`` times ``<name>_mask`` (the mask cast to the parameter's dtype)."""
        assert self._tensor_name is not None, f"Module {module} has to be pruned"
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prunes ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with the tensor's
        earlier pruning, if any), ranking entries by ``importance_scores`` (default: the
        parameter itself); returns the method now registered as the hook."""
        method = _composite_method(cls, module, name, args, kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            assert importance_scores.shape == orig.shape, (
                f"importance_scores should have the same shape as parameter {name} of {module}"
            )
        else:
            importance_scores = orig
        first = not isinstance(method, PruningContainer)
        if first:
            # the parameter moves to <name>_orig; <name> becomes a computed attribute
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _core.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times its mask, computed from ``importance_scores`` (default: ``t``) without
        touching any module."""
        if importance_scores is not None:
            assert importance_scores.shape == t.shape, (
                "importance_scores should have the same shape as tensor t"
            )
        else:
            importance_scores = t
        if default_mask is None:
            default_mask = _core.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module):
        """Makes the pruning permanent: ``module.<name>`` becomes the parameter ``<name>_orig``
        holding the masked values; ``<name>_orig`` and ``<name>_mask`` are removed."""
        assert self._tensor_name is not None, (
            f"Module {module} has to be pruned before pruning can be removed"
        )
        name = self._tensor_name
        weight = self.apply_mask(module)
        if hasattr(module, name):
            delattr(module, name)
        orig = module._parameters[name + "_orig"]
        orig.data = weight.data
        del module._parameters[name + "_orig"]
        del module._buffers[name + "_mask"]
        setattr(module, name, orig)


def _composite_method(cls, module, name, args, kwargs):
    """``cls(*args, **kwargs)`` for ``module.<name>``, taking the place of the tensor's existing
    pruning hook: alone if there is none, else added to it in a :class:`PruningContainer`."""
    old_keys = [
        key
        for key, hook in module._forward_pre_hooks.items()
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name
    ]
    assert len(old_keys) <= 1, (
        f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. "
        "Use a PruningContainer."
    )
    old = module._forward_pre_hooks.pop(old_keys[0]) if old_keys else None
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    if not isinstance(old, PruningContainer):
        old = PruningContainer(old)
    old.add_pruning_method(method)
    return old


class PruningContainer(BasePruningMethod):
    """The successive pruning methods of one tensor; its mask is the last method's, computed
    on what the earlier ones left."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        """Appends ``method`` (which must prune the container's tensor)."""
        if method is not None and not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{self._tensor_name}' to PruningContainer {self}. "
                f"Found '{method._tensor_name}'"
            )
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the last method's mask written over the part of ``t`` it may
        still prune: the unpruned entries (unstructured), the channels along its ``dim`` with
        any unpruned entry (structured) or everything (global)."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        kind = method.PRUNING_TYPE
        if kind == "unstructured":
            region = default_mask == 1
        elif kind == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError(
                    "Pruning methods of PRUNING_TYPE 'structured' need to have the attribute "
                    "`dim` defined."
                )
            n_dims = t.dim()
            dim = method.dim + n_dims if method.dim < 0 else method.dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            others = [d for d in range(n_dims) if d != dim]
            kept_channels = default_mask.sum(dim=others) != 0
            region = _along(n_dims, dim, kept_channels)
        elif kind == "global":
            region = (slice(None),) * t.dim()
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
        partial = method.compute_mask(t[region], default_mask=default_mask[region])
        new_mask[region] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _along(n_dims, dim, index):
    """The index tuple selecting ``index`` along ``dim`` of an ``n_dims``-dimensional tensor."""
    region = [slice(None)] * n_dims
    region[dim] = index
    return tuple(region)


class Identity(BasePruningMethod):
    """Prunes nothing: the mask stays all ones (useful to reparametrize a tensor as pruned)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        """``default_mask`` unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module, name):
        """Registers the identity pruning of ``module.<name>``."""
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` entries (a count, or a fraction of the tensor) chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the entries of the largest ``amount`` of uniform draws set
        to 0."""
        count = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            draws = rand_like(t)
            mask.view(-1)[draws.view(-1).topk(k=count).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        """Prunes ``amount`` random entries of ``module.<name>``."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` entries (a count, or a fraction) of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount):
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        """``default_mask`` with the ``amount`` smallest ``|t|`` set to 0."""
        count = _checked_count(self.amount, t.nelement())
        mask = default_mask.clone()
        if count != 0:
            smallest = t.abs().view(-1).topk(k=count, largest=False).indices
            mask.view(-1)[smallest] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        """Prunes the ``amount`` smallest entries of ``module.<name>`` (or of
        ``importance_scores``)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` (a count, or a fraction), chosen at
    random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """Ones on the channels whose uniform draw exceeds the ``amount``-th smallest, times
        ``default_mask``."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        count = _checked_count(self.amount, channels)
        if count == 0:
            return default_mask
        draws = _core.rand(channels)
        threshold = draws.kthvalue(k=count).values
        mask = _core.zeros_like(t)
        mask[_along(t.dim(), self.dim, draws > threshold)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` (a count, or a fraction) of smallest
    ``n``-norm (``n`` as ``torch.norm``'s ``p``: a number, ``inf``, ``-inf``, ``"fro"``,
    ``"nuc"``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        """Ones on the channels of largest norm, times ``default_mask``."""
        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        channels = t.shape[self.dim]
        count = _checked_count(self.amount, channels)
        norm = _compute_norm(t, self.n, self.dim)
        kept = norm.topk(k=channels - count, largest=True).indices
        if count == 0:
            return default_mask
        mask = _core.zeros_like(t)
        mask[_along(t.dim(), self.dim, kept)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        """Prunes the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
        ``n``-norm (of ``importance_scores``, if given)."""
        return super().apply(
            module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores
        )


class CustomFromMask(BasePruningMethod):
    """Prunes where the given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        """``default_mask`` times the given mask."""
        assert default_mask.shape == self.mask.shape
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        """Prunes ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Reparametrizes ``module.<name>`` as pruned with an all-ones mask; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prunes ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prunes the ``amount`` entries of ``module.<name>`` of smallest absolute value (of
    ``importance_scores``, if given); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prunes ``amount`` random channels of ``module.<name>`` along ``dim``; returns
    ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm; returns
    ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prunes the ``(module, name)`` pairs of ``parameters`` together, as one vector, with the
    unstructured ``pruning_method(**kwargs)`` (ranking by ``importance_scores[(module, name)]``
    where given); each tensor then gets its part of the mask as a :class:`CustomFromMask`."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector(
        [
            importance_scores.get((module, name), getattr(module, name))
            for module, name in parameters
        ]
    )
    default_mask = parameters_to_vector(
        [
            getattr(module, name + "_mask", _core.ones_like(getattr(module, name)))
            for module, name in parameters
        ]
    )
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(
            'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
            f"Found method {pruning_method} of type {method.PRUNING_TYPE}"
        )
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        size = param.numel()
        custom_from_mask(module, name, mask=final_mask[start : start + size].view_as(param))
        start += size


def custom_from_mask(module, name, mask):
    """Prunes ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Makes the pruning of ``module.<name>`` permanent (see
    :meth:`BasePruningMethod.remove`); returns ``module``."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(
        f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed"
    )


def is_pruned(module):
    """Whether ``module`` or any of its submodules has a pruning hook."""
    return any(
        isinstance(hook, BasePruningMethod)
        for _, submodule in module.named_modules()
        for hook in submodule._forward_pre_hooks.values()
    )


def _validate_pruning_amount_init(amount):
    """Refuses an ``amount`` that is neither a non-negative integer nor a float in [0, 1]."""
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    integral = isinstance(amount, numbers.Integral)
    if (integral and amount < 0) or (not integral and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(
            f"amount={amount} should either be a float in the range [0, 1] or a non-negative "
            "integer"
        )


def _validate_pruning_amount(amount, tensor_size):
    """Refuses an integer ``amount`` larger than the number of units that can be pruned."""
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(
            f"amount={amount} should be smaller than the number of parameters to "
            f"prune={tensor_size}"
        )


def _validate_structured_pruning(t):
    """Refuses structured pruning of a tensor with fewer than two dimensions."""
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError(
            "Structured pruning can only be applied to multidimensional tensors. Found tensor "
            f"of shape {shape} with {len(shape)} dims"
        )


def _compute_nparams_toprune(amount, tensor_size):
    """The number of units to prune: ``amount`` itself if an integer, else the rounded
    fraction of ``tensor_size``."""
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _checked_count(amount, tensor_size):
    """:func:`_compute_nparams_toprune`, refused when larger than ``tensor_size``."""
    count = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(count, tensor_size)
    return count


def _validate_pruning_dim(t, dim):
    """Refuses a ``dim`` past the tensor's last dimension."""
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The ``n``-norm of each slice of ``t`` along ``dim`` (over all the other dimensions)."""
    dims = list(range(t.dim()))
    dims.remove(dims[dim])
    return t.norm(p=n, dim=dims)
