"""``nn.utils.parametrize``: a tensor of a module computed on each access from "original"
tensors by a chain of modules, as PyTorch's ``torch.nn.utils.parametrize``.

``register_parametrization(module, "weight", p)`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (or ``original0``, ``original1``, ... when ``p``'s
``right_inverse`` returns several tensors) and gives the module a generated subclass,
``Parametrized<Class>``, with a property ``weight`` that evaluates the chain on every read and
hands an assigned value to the chain's ``right_inverse``. The ``state_dict`` keys, ``repr`` and
error texts are PyTorch's.

One difference: PyTorch moves a new value into an original tensor with ``Tensor.set_``, which
keeps the tensor object even when the shape changes. ferrograd writes the values into the same
tensor object when the shape is unchanged (always the case unless ``unsafe=True``); a value of
another shape is registered as a new tensor (a parameter stays a parameter), so an optimizer
built before such a change must be given the new one.
"""

import collections.abc
import copy
import copyreg
from contextlib import contextmanager

from ..._core import Tensor
from ..._grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter

__all__ = [
    "ParametrizationList",
    "cached",
    "is_parametrized",
    "register_parametrization",
    "remove_parametrizations",
    "transfer_parametrizations_and_params",
    "type_before_parametrizations",
]

# how many ``cached()`` blocks are open, and the values computed inside them by
# (id(module), tensor name)
_cache_enabled = 0
_cache: dict = {}


@contextmanager
def cached():
    """Inside this block each parametrized tensor is computed once, on its first read, and
    reused; the values are dropped when the outermost block ends."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, value):
    if isinstance(value, Parameter):
        module.register_parameter(name, value)
    else:
        module.register_buffer(name, value)


def _same_layout(dest, src):
    return tuple(dest.shape) == tuple(src.shape) and dest.dtype == src.dtype


def _maybe_set(owner, name, dest, src):
    """Makes ``owner.<name>`` (now ``dest``) hold ``src``'s values: in place when the shape
    and dtype agree (PyTorch's ``set_`` keeps the object), else as a new tensor of the same
    kind registered under ``name``. Returns the tensor that holds the values."""
    if src is dest:
        return dest
    if _same_layout(dest, src):
        with no_grad():
            dest.data = src.detach()
        return dest
    new = src.detach().clone()
    if isinstance(dest, Parameter):
        new = Parameter(new, requires_grad=dest.requires_grad)
    else:
        new.requires_grad_(dest.requires_grad)
    if name in owner._parameters:
        owner._parameters[name] = new
    elif name in owner._buffers:
        owner._buffers[name] = new
    else:
        _register_parameter_or_buffer(owner, name, new)
    return new


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in registration order, with the original tensor(s)
    they start from: ``original`` when the first parametrization's ``right_inverse`` gives one
    tensor (or it has none), else ``original0``, ``original1``, ...

    Made by :func:`register_parametrization`; ``module.parametrizations[name]`` is one.
    ``unsafe=True`` allows the chain to change the tensor's shape and dtype (not checked)."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe

        original_shape = original.shape
        original_dtype = original.dtype

        # the originals: right_inverse of each parametrization, last registered first
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass

        if not isinstance(new, Tensor) and not isinstance(new, collections.abc.Sequence):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(new).__name__}"
            )

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}"
                )
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}"
                )
            # the same tensor object keeps the values, so an optimizer that holds it needs
            # no update
            if new is not original:
                if _same_layout(original, new):
                    with no_grad():
                        original.data = new.detach()
                else:
                    fresh = new.detach().clone()
                    if isinstance(original, Parameter):
                        fresh = Parameter(fresh, requires_grad=original.requires_grad)
                    else:
                        fresh.requires_grad_(original.requires_grad)
                    original = fresh
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        "(list, tuple...). "
                        f"Got element {i} of the sequence with type {type(originali).__name__}."
                    )
                # a parameter gives parameters (to be added to the optimizer by the user)
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # the chain applied to the originals must give back the tensor's shape and dtype
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {Z.dtype}"
                )
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {Z.shape}"
                )

    def right_inverse(self, value):
        """Runs ``value`` through the ``right_inverse`` of each parametrization (last registered
        first) and stores the result in ``original`` (or ``original0``, ``original1``, ...)."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(
                        f"parametrization {type(module).__name__} does not implement right_inverse."
                    )
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}"
                    )
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}"
                    )
                _maybe_set(self, "original", self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors. "
                        f"Got {type(value).__name__}."
                    )
                if len(value) != self.ntensors:
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors of length "
                        f"{self.ntensors}. Got a sequence of length {len(value)}."
                    )
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError(
                            "'right_inverse' must return a sequence of tensors "
                            "or reference-type opaques. Got element "
                            f"{i} of type {type(tensor).__name__}."
                        )
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(
                            f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                            f"while `original{i}` has dtype {original_i.dtype}"
                        )
                    _maybe_set(self, f"original{i}", original_i, tensor)

    def forward(self):
        """The parametrized tensor: the first parametrization applied to the original(s), then
        each further one in turn."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        # the parametrizations are the entries "1", "2", ... (not other sub-modules)
        i = 1
        while str(i) in self._modules:
            x = self._modules[str(i)](x)
            i += 1
        return x


def _default_deepcopy(self, memo):
    """A copy of the instance's ``__dict__`` under the same (generated) class, as
    ``copy.deepcopy`` makes when no ``__deepcopy__`` is defined."""
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    replica = self.__new__(self.__class__)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(self.__class__):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _refuse_pickling(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only "
        "supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training"
    )


def _inject_new_class(module):
    """Gives ``module`` the class ``Parametrized<Class>``, a subclass of its own made for this
    instance, which will hold the properties of its parametrized tensors."""
    cls = module.__class__
    namespace = {"__getstate__": _refuse_pickling}
    # pickling is refused, but copy.deepcopy must still work: it uses __deepcopy__ when
    # there is one, __getstate__ otherwise
    if not hasattr(cls, "__deepcopy__"):
        namespace["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    """Adds to the module's generated class the property ``tensor_name``: reading it evaluates
    the parametrization (once per ``cached()`` block), assigning to it calls ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_against(parametrization, tensor_name, Y):
    """Before appending to an existing chain: ``parametrization`` and its ``right_inverse``
    must map tensors of ``Y``'s shape and dtype to the same."""
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    if X.dtype != Y.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {X.dtype}"
        )
    if X.shape != Y.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {X.shape}"
        )
    if not hasattr(parametrization, "right_inverse"):
        return  # taken to be the identity
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}"
        )
    if Z.dtype != Y.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"returned dtype: {Z.dtype}"
        )
    if Z.shape != Y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"returned shape: {Z.shape}"
        )


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Makes ``module.<tensor_name>`` (a parameter, a buffer, or an already parametrized
    tensor) the output of ``parametrization`` applied to the original tensor.

    The first registration on a tensor moves it to
    ``module.parametrizations[tensor_name].original`` (or, when ``parametrization``'s
    ``right_inverse`` returns several tensors, to ``original0``, ``original1``, ...); later
    ones are appended to the chain. Assigning to ``module.<tensor_name>`` runs the chain's
    ``right_inverse``. Returns ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_against(parametrization, tensor_name, getattr(module, tensor_name))
        if not isinstance(module.parametrizations, ModuleDict):
            raise AssertionError(
                "Expected module.parametrizations to be a ModuleDict, "
                f"got {type(module.parametrizations).__name__}"
            )
        module.parametrizations[tensor_name].append(parametrization)
        # once unsafe, always unsafe
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # made first: its checks may refuse the parametrization before the module changes
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        if not isinstance(module.parametrizations, ModuleDict):
            raise AssertionError(
                "Expected module.parametrizations to be a ModuleDict, "
                f"got {type(module.parametrizations).__name__}"
            )
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(
            f"Module '{module}' does not have a parameter, a buffer, or a "
            f"parametrized element with name '{tensor_name}'"
        )
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when
    ``None``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Removes the parametrizations of ``module.<tensor_name>``, which becomes a plain
    parameter or buffer again: holding its current parametrized value when
    ``leave_parametrized`` (in the original tensor object when there is one original), else
    the original tensor (possible only when there is one). The module gets its own class back
    when no other tensor stays parametrized. Returns ``module``."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    if not isinstance(module.parametrizations, ModuleDict):
        raise AssertionError(
            "Expected module.parametrizations to be a ModuleDict, "
            f"got {type(module.parametrizations).__name__}"
        )
    parametrizations = module.parametrizations[tensor_name]

    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            original = _maybe_set(parametrizations, "original", original, t)
    elif leave_parametrized:
        # not under no_grad: whether an original requires grad decides what is left
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError(
            "Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
            "that is parametrized in terms of a sequence of tensors."
        )

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)

    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before parametrizations were registered (its class when none
    were)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Registers on ``to_module`` the parametrizations of ``from_module`` (of ``tensor_name``
    only, when given), creating the parametrized tensors ``to_module`` lacks, and makes its
    originals the same tensors as ``from_module``'s. Returns ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = from_module.parametrizations if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        for param_func in from_module.parametrizations[name]:
            register_parametrization(to_module, name, param_func)
        source = from_module.parametrizations[name]
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
