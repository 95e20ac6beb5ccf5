"""``LazyModuleMixin``: modules whose parameter shapes are inferred from their first input, as
PyTorch's ``torch.nn.modules.lazy``.

A lazy module starts with :class:`~ferrograd.nn.parameter.UninitializedParameter` (and
``UninitializedBuffer``) placeholders. A forward pre-hook calls its
``initialize_parameters(*args, **kwargs)`` with the first call's arguments, which materializes
them (shapes from the input) and resets them as the eager module would, drawing the same random
numbers; the hooks then remove themselves and the module becomes its ``cls_to_become`` (a
``LazyLinear`` becomes a ``Linear``). Loading a state dict materializes the placeholders it
has values for; the class changes at the first call.
"""

import itertools
import warnings
from typing import Optional

from ..._grad_mode import no_grad
from ..parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """The mixin (listed before the module class) that makes a module lazy. A subclass
    defines ``initialize_parameters`` and sets ``cls_to_become``."""

    cls_to_become: Optional[type] = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True
        )
        warnings.warn(
            "Lazy modules are a new feature under heavy development so changes to the API or "
            "functionality can happen at any moment.",
            stacklevel=2,
        )

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # placeholders go into the state dict as they are (detaching one is refused)
        for name, param in self._parameters.items():
            if param is not None:
                keep = keep_vars or is_lazy(param)
                destination[prefix + name] = param if keep else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                keep = keep_vars or is_lazy(buf)
                destination[prefix + name] = buf if keep else buf.detach()

    def _lazy_load_hook(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ):
        """Materializes each placeholder the state dict has an initialized value for, with
        that value's shape (the load then copies the value in)."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if param is None or key not in state_dict:
                continue
            value = state_dict[key]
            if is_lazy(param) and not is_lazy(value):
                with no_grad():
                    param.materialize(value.shape)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes and initializes the placeholders from the first call's arguments."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}"
        )

    def has_uninitialized_params(self):
        """Whether any of this module's own parameters or buffers is still a placeholder."""
        tensors = itertools.chain(self._parameters.values(), self._buffers.values())
        return any(is_lazy(t) for t in tensors)

    def _infer_parameters(self, module, args, kwargs=None):
        """The forward pre-hook: initializes the parameters from this call's arguments, then
        removes the hooks and turns the module into ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError(
            "Modules with uninitialized parameters can't be used with `DataParallel`. Run a "
            "dummy forward pass to correctly initialize the modules"
        )
