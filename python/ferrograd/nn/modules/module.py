"""``nn.Module``: the base class of layers, with PyTorch's registration rules for parameters,
buffers and sub-modules, its traversals, ``state_dict``/``load_state_dict`` (with their pre- and
post-hooks), conversions, forward hooks and backward hooks (full, and the deprecated non-full
ones), the hooks common to all modules (``register_module_*_hook``), and its ``repr``."""

import functools
import inspect
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ... import __future__, _core
from ..._core import Tensor
from ..._grad_mode import no_grad
from ..._typename import typename as _typename
from ...autograd.function import Function
from ...utils import swap_tensors
from ..parameter import Buffer, Parameter, is_lazy

_TENSOR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool"}


# Hooks common to all modules (PyTorch's ``torch.nn.modules.module.register_module_*_hook``):
# global state meant for debugging and profiling, run before each module's own hooks.
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_always_called: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: OrderedDict = OrderedDict()


def register_module_buffer_registration_hook(hook):
    """``hook(module, name, buffer)`` runs whenever any module registers a buffer; it may
    return a replacement buffer."""
    handle = RemovableHandle(_global_buffer_registration_hooks)
    _global_buffer_registration_hooks[handle.id] = hook
    return handle


def register_module_module_registration_hook(hook):
    """``hook(module, name, submodule)`` runs whenever any module registers a sub-module; it
    may return a replacement."""
    handle = RemovableHandle(_global_module_registration_hooks)
    _global_module_registration_hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook):
    """``hook(module, name, param)`` runs whenever any module registers a parameter; it may
    return a replacement."""
    handle = RemovableHandle(_global_parameter_registration_hooks)
    _global_parameter_registration_hooks[handle.id] = hook
    return handle


def register_module_forward_pre_hook(hook):
    """``hook(module, args)`` runs before every module's ``forward`` (before its own
    pre-hooks); it may return replacement args."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) runs after
    every module's ``forward`` (before its own hooks); it may return a replacement output."""
    handle = RemovableHandle(
        _global_forward_hooks,
        extra_dict=[_global_forward_hooks_always_called, _global_forward_hooks_with_kwargs],
    )
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_global_backward_kind(full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook):
    """The deprecated non-full backward hook for every module (see
    ``Module.register_backward_hook``)."""
    _set_global_backward_kind(False)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook):
    """``hook(module, grad_output)`` for every module, before its own backward pre-hooks."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """``hook(module, grad_input, grad_output)`` for every module, before its own."""
    _set_global_backward_kind(True)
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def _registration_hooked(hooks, module, name, value):
    """``value`` after the global registration ``hooks`` (each may replace it)."""
    for hook in hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value


def _addindent(text, spaces):
    """Indents every line of ``text`` but the first by ``spaces`` spaces."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    pad = " " * spaces
    return "\n".join([lines[0]] + [pad + line for line in lines[1:]])


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods of modules: ``remove()`` unregisters the
    hook (also usable as a context manager)."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        extras = [] if extra_dict is None else extra_dict
        if isinstance(extras, dict):
            extras = [extras]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras)

    def remove(self):
        """Unregisters the hook (a no-op when already removed)."""
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id, tuple(r() for r in self.extra_dict_ref))

    def __setstate__(self, state):
        hooks, self.id, extras = state
        self.hooks_dict_ref = weakref.ref(OrderedDict() if hooks is None else hooks)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
        return False


class _WrappedHook:
    """A hook as PyTorch stores it: the callable, and (weakly) the module to pass first when
    it was registered with one (a load-state-dict pre-hook ``with_module``; a non-full
    backward hook on a node, called as ``hook(module, grad_inputs, grad_outputs)``)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = False
        if module is not None:
            self.module = weakref.ref(module)
            self.with_module = True

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self):
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


class _IncompatibleKeysBase(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()


class _IncompatibleKeys(_IncompatibleKeysBase):
    """What ``load_state_dict`` returns: the missing and the unexpected keys."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, "
            f"unexpected_keys={self.unexpected_keys!r})"
        )

    __str__ = __repr__


class BackwardHookFunction(Function):
    """The identity, recorded as a node so that module backward hooks can see the gradients of
    a module's inputs and outputs (PyTorch's ``BackwardHookFunctionBackward``)."""

    @staticmethod
    def forward(ctx, *args):
        """The inputs themselves (those not requiring grad marked non-differentiable)."""
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        """The incoming gradients, unchanged."""
        return grads


class BackwardHook:
    """Runs a module's full backward hooks: identity nodes on the module's tensor inputs and
    outputs capture ``grad_output`` (where backward pre-hooks run) and then ``grad_input``,
    where the full hooks run with both, as PyTorch's ``BackwardHook``."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_positions = None
        self.n_inputs = -1
        self.input_positions = None
        self.input_meta = []

    @staticmethod
    def _spread(positions, values, size):
        out = [None] * size
        for i, v in zip(positions, values):
            out[i] = v
        return tuple(out)

    def _wrap(self, args, on_node):
        """Passes the tensors of ``args`` through one identity node (when one requires grad
        and grad mode is on) and hands the node to ``on_node``; the positions wrapped, or None."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in positions]
        if not (any(t.requires_grad for t in tensors) and _core.is_grad_enabled()):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        if not isinstance(wrapped, tuple):
            wrapped = (wrapped,)
        node = next(
            t.grad_fn
            for t in wrapped
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        )
        on_node(node)
        out = list(args)
        for i, t in zip(positions, wrapped):
            out[i] = t
        return (tuple(out) if type(args) is tuple else type(args)(*out)), positions

    def setup_input_hook(self, args):
        """Wraps the inputs; their node runs the full hooks once their gradients are known."""

        def on_node(node):
            def hook(grad_inputs, _grad_outputs):
                if self.grad_outputs is None:
                    return None  # the gradient did not come through the module's output
                # an input that needs no gradient gets zeros, as PyTorch's identity node
                # materialises them
                grads = [
                    _core.zeros(shape, dtype=dtype) if g is None else g
                    for g, (shape, dtype) in zip(grad_inputs, self.input_meta)
                ]
                res = self._spread(self.input_positions, grads, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, res, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(res):
                        raise RuntimeError(
                            "Backward hook returned an invalid number of grad_input, "
                            f"got {len(out)}, but expected {len(res)}"
                        )
                    res = out
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_positions)

            node.register_hook(hook)

        wrapped, self.input_positions = self._wrap(args, on_node)
        self.n_inputs = len(args)
        if self.input_positions is not None:
            self.input_meta = [(tuple(args[i].shape), args[i].dtype) for i in self.input_positions]
        return wrapped

    def setup_output_hook(self, result):
        """Wraps the outputs; their node records ``grad_output`` and runs the pre-hooks."""

        def on_node(node):
            def hook(_grad_inputs, grad_outputs):
                self.grad_outputs = self._spread(
                    self.output_positions, grad_outputs, self.n_outputs
                )
                for pre_hook in self.user_pre_hooks:
                    replaced = pre_hook(self.module, self.grad_outputs)
                    if replaced is None:
                        continue
                    if len(replaced) != len(self.grad_outputs):
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, "
                            f"got {len(replaced)}, but expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = replaced
                local = self.grad_outputs
                if self.input_positions is None:
                    # no input requires grad: the full hooks run here, with None grad_inputs
                    if self.user_hooks:
                        warnings.warn(
                            "Full backward hook is firing when gradients are computed with "
                            "respect to module outputs since no inputs require gradients.",
                            stacklevel=2,
                        )
                        none_inputs = (None,) * self.n_inputs
                        for user_hook in self.user_hooks:
                            res = user_hook(self.module, none_inputs, self.grad_outputs)
                            if res is not None and not (
                                isinstance(res, tuple) and all(r is None for r in res)
                            ):
                                raise RuntimeError(
                                    "Backward hook for Modules where no input requires "
                                    "gradient should always return None or None for all "
                                    "gradients."
                                )
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_positions)

            node.register_hook(hook)

        single = not isinstance(result, tuple)
        args = (result,) if single else result
        wrapped, self.output_positions = self._wrap(args, on_node)
        self.n_outputs = len(args)
        return wrapped[0] if single else wrapped


def _forward_unimplemented(self, *args, **kwargs):
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


_HOOK_DICTS = (
    "_backward_pre_hooks",
    "_backward_hooks",
    "_forward_hooks",
    "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called",
    "_forward_pre_hooks",
    "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks",
    "_state_dict_pre_hooks",
    "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)


def _parse_to(args, kwargs):
    """``Module.to``'s arguments: (device, dtype, non_blocking, memory_format)."""
    kwargs = dict(kwargs)
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, _core.dtype):
            dtype = arg
        elif isinstance(arg, bool):
            non_blocking = arg
        else:
            device = arg
    return device, dtype, non_blocking, memory_format


class Module:
    """Base class of all layers. Sub-classes set parameters, buffers and sub-modules as
    attributes in ``__init__`` (after ``super().__init__()``) and define ``forward``."""

    dump_patches = False
    _version = 1
    training: bool
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and args:
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        for name in _HOOK_DICTS:
            setattr_(self, name, OrderedDict())
            if name == "_backward_hooks":
                setattr_(self, "_is_full_backward_hook", None)
        setattr_(self, "_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # ----- registration ------------------------------------------------------------------

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer: state that is not a parameter (in ``state_dict`` when persistent)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = _registration_hooked(
            _global_buffer_registration_hooks, self, name, tensor
        )
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter (a :class:`Parameter` or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = _registration_hooked(
            _global_parameter_registration_hooks, self, name, param
        )

    def add_module(self, name, module):
        """Adds a sub-module (or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registration_hooked(
            _global_module_registration_hooks, self, name, module
        )

    def register_module(self, name, module):
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The sub-module at the dotted path ``target`` ("" is the module itself)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    def get_extra_state(self):
        """Extra state for ``state_dict`` (define it together with ``set_extra_state``)."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug."
        )

    def set_extra_state(self, state):
        """Restores what ``get_extra_state`` returned."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
            "bug-report.yml to report this bug."
        )

    # ----- attributes --------------------------------------------------------------------

    def __getattr__(self, name):
        d = self.__dict__
        for table in ("_parameters", "_buffers", "_modules"):
            members = d.get(table)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _register_assigned_buffer(self, name, buffer):
        """``self.name = Buffer(...)``: registered with the buffer's persistence, also by a
        subclass whose own ``register_buffer`` lacks the ``persistent`` argument (as PyTorch
        allows; such a subclass can take only persistent buffers)."""
        register = self.register_buffer
        if getattr(register, "__func__", None) is Module.register_buffer or (
            "persistent" in inspect.signature(register).parameters
        ):
            register(name, buffer, buffer.persistent)
            return
        if not buffer.persistent:
            raise RuntimeError(
                "Registering a non-persistent buffer on a Module subclass that implements "
                "register_buffer() without the persistent argument is not allowed."
            )
        register(name, buffer)

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*tables):
            for table in tables:
                if name in table:
                    if isinstance(table, dict):
                        del table[name]
                    else:
                        table.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            modules[name] = _registration_hooked(
                _global_module_registration_hooks, self, name, value
            )
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = _registration_hooked(
                _global_module_registration_hooks, self, name, value
            )
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer):
            if buffers is None:
                raise AttributeError("cannot assign buffer before Module.__init__() call")
            # (no attribute of that name is removed first: register_buffer refuses one, as
            # PyTorch's does)
            self._register_assigned_buffer(name, value)
            return
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            buffers[name] = _registration_hooked(
                _global_buffer_registration_hooks, self, name, value
            )
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self):
        keys = (
            dir(type(self))
            + list(self.__dict__)
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(k for k in keys if not k[0].isdigit())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())

    # ----- traversal ---------------------------------------------------------------------

    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        seen = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for name, value in get_members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + name), value

    def parameters(self, recurse=True):
        """The parameters (of sub-modules too when ``recurse``), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted name, parameter)`` pairs."""
        yield from self._named_members(
            lambda m: m._parameters.items(), prefix, recurse, remove_duplicate
        )

    def buffers(self, recurse=True):
        """The buffers (of sub-modules too when ``recurse``)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted name, buffer)`` pairs."""
        yield from self._named_members(
            lambda m: m._buffers.items(), prefix, recurse, remove_duplicate
        )

    def children(self):
        """The direct sub-modules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """``(name, module)`` of the direct sub-modules, each module once."""
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self):
        """This module and every sub-module, each once, depth first."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted name, module)`` for this module ("" or ``prefix``) and every sub-module."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    def apply(self, fn):
        """Calls ``fn`` on every sub-module (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ----- modes and gradients -----------------------------------------------------------

    def train(self, mode=True):
        """Sets training mode (``mode=False`` is evaluation mode) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """Evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        """Sets ``requires_grad`` of every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Resets the gradients of the parameters (to None, or zeros in place)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()

    def _replicate_for_data_parallel(self):
        """A shallow replica for data parallelism, as PyTorch's: the same attributes, copies
        of the buffer and submodule dicts, and no parameters of its own (they are set on it
        afterwards, as views of the original's)."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def share_memory(self):
        """Moves every parameter and buffer into shared memory (``Tensor.share_memory_``), so
        processes started after it train the same tensors; returns the module."""
        return self._apply(lambda t: t.share_memory_())

    # ----- conversions -------------------------------------------------------------------

    def _apply(self, fn, recurse=True):
        """Replaces every parameter (and its gradient) and buffer by ``fn`` of it. A parameter
        keeps its identity: ``fn``'s result becomes its ``.data``, or, with
        ``torch.__future__.set_swap_module_params_on_conversion(True)``, is swapped in
        (``torch.utils.swap_tensors``); with ``set_overwrite_module_params_on_conversion(True)``
        the module gets a new ``Parameter`` instead."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        swap = __future__.get_swap_module_params_on_conversion()
        overwrite = __future__.get_overwrite_module_params_on_conversion()
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            grad = param.grad
            if swap:
                try:
                    param.grad = None
                    swap_tensors(param, Parameter(applied, requires_grad=param.requires_grad))
                except Exception as e:
                    param.grad = grad
                    raise RuntimeError(f"_apply(): Couldn't swap {self._get_name()}.{key}") from e
                new_param = param
            elif not overwrite:
                param.data = applied
                new_param = param
            else:
                new_param = Parameter(applied, param.requires_grad)
                self._parameters[key] = new_param
            if grad is None:
                continue
            with no_grad():
                grad_applied = fn(grad)
            if swap:
                grad_applied.requires_grad_(grad.requires_grad)
                try:
                    swap_tensors(grad, grad_applied)
                except Exception as e:
                    raise RuntimeError(
                        f"_apply(): Couldn't swap {self._get_name()}.{key}.grad"
                    ) from e
                new_param.grad = grad
            elif not overwrite:
                new_param.grad.data = grad_applied
            else:
                new_param.grad = grad_applied.requires_grad_(grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Converts floating parameters and buffers to a dtype (and/or moves to a device):
        ``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(tensor)``, keywords too;
        ``memory_format=`` lays out the 4-D and 5-D ones in that order."""
        device, dtype, _non_blocking, memory_format = _parse_to(args, kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dtype}"
            )

        def convert(t):
            target = dtype if (dtype is not None and t.is_floating_point()) else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device, target, memory_format=memory_format)
            if device is None and target is None:
                return t
            if target is None:
                return t.to(device)
            return t.to(device, target)

        return self._apply(convert)

    def type(self, dst_type):
        """Casts parameters and buffers to ``dst_type`` (a dtype or a name such as
        ``"torch.DoubleTensor"``)."""
        if isinstance(dst_type, str):
            names = {f"torch.{v}Tensor": k for k, v in _TENSOR_TYPE_NAMES.items()}
            if dst_type not in names:
                raise ValueError(f"invalid type: '{dst_type}'")
            dst_type = getattr(_core, names[dst_type])
        return self._apply(lambda t: t.to(dst_type))

    def float(self):
        """Casts floating parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Casts floating parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse=True):
        """Replaces every parameter and buffer by an uninitialized tensor of its shape and dtype
        on ``device`` (the way from the meta device to real tensors); returns the module."""
        from ... import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self):
        """Moves parameters and buffers to the CPU (where they are)."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Moves parameters and buffers to a CUDA device (refused: ferrograd has none)."""
        target = "cuda" if device is None else device
        if isinstance(target, int):
            target = f"cuda:{target}"
        return self._apply(lambda t: t.to(target))

    # ----- state dict --------------------------------------------------------------------

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra = prefix + "_extra_state"
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[extra] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` of every parameter and persistent buffer by dotted name
        (detached tensors unless ``keep_vars``)."""
        if args:
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead.",
                FutureWarning,
                stacklevel=2,
            )
            if destination is None and len(args) > 0:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        metadata = getattr(destination, "_metadata", None)
        if metadata is not None:
            metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors
    ):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, errors)
        persistent = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
        }
        local_state = {k: v for k, v in local_state.items() if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        swap = __future__.get_swap_module_params_on_conversion()
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                errors.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            # a lazy module's placeholder takes any shape (its load hook materialized it)
            lazy = is_lazy(param)
            if not lazy and len(param.shape) == 0 and len(value.shape) == 1:
                value = value[0]
            if not lazy and tuple(value.shape) != tuple(param.shape):
                errors.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            if param.is_meta and not value.is_meta and not assign:
                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to pass "
                    "`assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    stacklevel=2,
                )
            try:
                with no_grad():
                    if swap:
                        loaded = param.module_load(value, assign=assign)
                        if loaded is value or loaded is param:
                            raise RuntimeError(
                                "module_load returned one of self or other, please .detach() "
                                "the result if returning one of the inputs in module_load"
                            )
                        if isinstance(param, Parameter):
                            if isinstance(loaded, Parameter):
                                loaded.requires_grad_(param.requires_grad)
                            else:
                                loaded = Parameter(loaded, requires_grad=param.requires_grad)
                        swap_tensors(param, loaded)
                        del loaded
                    elif assign:
                        if isinstance(param, Parameter):
                            if isinstance(value, Parameter):
                                value.requires_grad_(param.requires_grad)
                            else:
                                value = Parameter(value, param.requires_grad)
                        setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:
                errors.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.shape} and whose dimensions in the checkpoint are "
                    f"{value.shape}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + "_extra_state"
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix) :].partition(".")
                if dot:
                    if head not in self._modules:
                        unexpected_keys.append(key)
                elif head not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies (or with ``assign`` sets) parameters and buffers from ``state_dict``; with
        ``strict`` its keys must match :meth:`state_dict`'s. Returns the missing and
        unexpected keys."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state, prefix=""):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state, prefix, local_metadata, True, missing, unexpected, errors
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)  # noqa: F821 (deleted after use)
            # the hooks may change the lists in place (what strict then reports)
            incompatible = _IncompatibleKeys(missing, unexpected)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )

        load(self, state_dict)
        del load  # the nested function refers to itself: break the cycle for the collector
        if strict:
            if unexpected:
                keys = ", ".join(f'"{k}"' for k in unexpected)
                errors.insert(0, f"Unexpected key(s) in state_dict: {keys}. ")
            if missing:
                keys = ", ".join(f'"{k}"' for k in missing)
                errors.insert(0, f"Missing key(s) in state_dict: {keys}. ")
        if errors:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(errors)
            )
        return _IncompatibleKeys(missing, unexpected)

    def _register_state_dict_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict`` has
        gathered this module's entries; a dict it returns replaces the result (at the root)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError(
                "Cannot register the same function as the state dict post hook that was "
                "previously registered via register_state_dict_post_hook"
            )
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata)`` runs after ``state_dict`` has
        gathered this module's entries; it may change them in place and must return None."""
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook):
        """``hook(module, prefix, keep_vars)`` runs before ``state_dict`` gathers entries."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """``hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` (the module first when ``with_module``) runs before this module loads its
        entries; it may rewrite ``state_dict`` in place."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None
        )
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` runs before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """``hook(module, incompatible_keys)`` runs after ``load_state_dict`` has loaded this
        module and its sub-modules; it may change the key lists in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # ----- hooks and calls ---------------------------------------------------------------

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) runs before ``forward``;
        it may return replacement args (or ``(args, kwargs)``)."""
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) runs after
        ``forward``; it may return a replacement output."""
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """``hook(module, grad_output)`` runs when the gradients of the outputs are known; it
        may return replacements for them."""
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook):
        """The deprecated non-full backward hook: ``hook(module, grad_input, grad_output)`` with
        the gradients of the last autograd node of the output (use
        ``register_full_backward_hook`` for the module's own inputs and outputs)."""
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """``hook(module, grad_input, grad_output)`` runs when the gradients of the inputs are
        known; it may return replacements for ``grad_input``."""
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _backward_hook_lists(self):
        """``(full, non_full, pre)``: the backward hooks that apply to this module, the global
        ones first."""
        full, non_full = [], []
        for kind, hooks in (
            (_global_is_full_backward_hook, _global_backward_hooks),
            (self._is_full_backward_hook, self._backward_hooks),
        ):
            if kind is True:
                full += hooks.values()
            elif kind is False:
                non_full += hooks.values()
        pre = [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]
        return full, non_full, pre

    def _call_impl(self, *args, **kwargs):
        forward = self.forward
        if not (
            self._backward_hooks
            or self._backward_pre_hooks
            or self._forward_hooks
            or self._forward_pre_hooks
            or _global_backward_pre_hooks
            or _global_backward_hooks
            or _global_forward_hooks
            or _global_forward_pre_hooks
        ):
            return forward(*args, **kwargs)
        result = None
        always_called = set()
        forward_hooks = [*_global_forward_hooks.items(), *self._forward_hooks.items()]

        def run_forward_hook(hook_id, hook, result):
            if hook_id in self._forward_hooks_with_kwargs or (
                hook_id in _global_forward_hooks_with_kwargs
            ):
                return hook(self, args, kwargs, result)
            return hook(self, args, result)

        try:
            full, non_full, pre = self._backward_hook_lists()
            for hook_id, hook in [
                *_global_forward_pre_hooks.items(),
                *self._forward_pre_hooks.items(),
            ]:
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs)
                    if replaced is not None:
                        if isinstance(replaced, tuple) and len(replaced) == 2:
                            args, kwargs = replaced
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of "
                                f"(new_args, new_kwargs), but got {replaced}."
                            )
                else:
                    replaced = hook(self, args)
                    if replaced is not None:
                        args = replaced if isinstance(replaced, tuple) else (replaced,)
            bw_hook = None
            if full or pre:
                bw_hook = BackwardHook(self, full, pre)
                args = bw_hook.setup_input_hook(args)
            result = forward(*args, **kwargs)
            for hook_id, hook in forward_hooks:
                if hook_id in self._forward_hooks_always_called or (
                    hook_id in _global_forward_hooks_always_called
                ):
                    always_called.add(hook_id)
                replaced = run_forward_hook(hook_id, hook, result)
                if replaced is not None:
                    result = replaced
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or a "
                        f"tuple of Tensors but received {type(result)}",
                        stacklevel=2,
                    )
                result = bw_hook.setup_output_hook(result)
            if non_full:
                self._attach_non_full_backward_hooks(non_full, args, result)
            return result
        except Exception:
            for hook_id, hook in forward_hooks:
                called = hook_id in self._forward_hooks_always_called or (
                    hook_id in _global_forward_hooks_always_called
                )
                if called and hook_id not in always_called:
                    try:
                        replaced = run_forward_hook(hook_id, hook, result)
                        if replaced is not None:
                            result = replaced
                    except Exception as e:
                        warnings.warn(
                            "module forward hook with ``always_call=True`` raised an exception "
                            f"that was silenced as another error was raised in forward: {e}",
                            stacklevel=2,
                        )
            raise

    def _attach_non_full_backward_hooks(self, hooks, args, result):
        """The deprecated non-full backward hooks: registered on the ``grad_fn`` of the first
        tensor of the output, so they see that node's gradients (PyTorch's behaviour, with
        its warnings where that misses some of the module's inputs or outputs)."""
        var = result
        while not isinstance(var, Tensor):
            if isinstance(var, dict):
                var = next(v for v in var.values() if isinstance(v, Tensor))
            else:
                var = var[0]
        grad_fn = var.grad_fn
        if grad_fn is None:
            return
        for hook in hooks:
            grad_fn.register_hook(_WrappedHook(hook, self))
        self._maybe_warn_non_full_backward_hook(args, result, grad_fn)

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        def warn(message):
            warnings.warn(message, FutureWarning, stacklevel=4)

        later = "Please use register_full_backward_hook to get the documented behavior."
        if isinstance(result, Tensor):
            result = (result,)
        elif not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            return warn(
                "Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                f"This hook will be missing some of the grad_output. {later}"
            )
        if isinstance(inputs, Tensor):
            inputs = (inputs,)
        elif not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            return warn(
                "Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                f"versions. This hook will be missing some of the grad_input. {later}"
            )
        out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
        if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
            warn(
                "Using a non-full backward hook when outputs are nested in python data structure "
                "is deprecated and will be removed in future versions. This hook will be missing "
                "some grad_output."
            )
        elif len(out_grad_fn) > 1:
            warn(
                "Using a non-full backward hook when outputs are generated by different autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                f"missing some grad_output. {later}"
            )
        else:
            inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
            next_functions = {n[0] for n in grad_fn.next_functions}
            if inputs_grad_fn != next_functions:
                warn(
                    "Using a non-full backward hook when the forward contains multiple autograd "
                    "Nodes is deprecated and will be removed in future versions. This hook will "
                    f"be missing some grad_input. {later}"
                )

    def __call__(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    # ----- printing ----------------------------------------------------------------------

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """The module's own settings for its ``repr`` (override in layers)."""
        return ""

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


__all__ = ["Module", "RemovableHandle"]
