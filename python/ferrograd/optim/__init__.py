"""``optim``: optimizers with PyTorch's API (``param_groups``, ``state``, ``zero_grad``,
``state_dict``); each step's arithmetic is one call into the Rust core per parameter group."""

import warnings
from collections import defaultdict

from .. import _core
from .._grad_mode import no_grad
from .._typename import typename


class _RequiredParameter:
    """The default of a hyper-parameter each group must set (PyTorch's ``required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class: parameter groups (dicts of parameters and hyper-parameters, the defaults
    filled in) and per-parameter state, as ``torch.optim.Optimizer``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        if isinstance(params, _core.Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got {typename(params)}"
            )
        if isinstance(params, set):
            warnings.warn(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list "
                "instead. This will be an error in a future release.",
                FutureWarning,
                stacklevel=2,
            )
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group of parameters, with its own hyper-parameters where given."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {typename(param_group)}")
        group = dict(param_group)
        params = group["params"]
        if isinstance(params, _core.Tensor):
            group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            group["params"] = list(params)
        # (name, tensor) pairs (``model.named_parameters()``): the names kept as "param_names"
        named = [p for p in group["params"] if isinstance(p, tuple)]
        if named:
            if len(named) != len(group["params"]):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            group["param_names"] = [name for name, _ in named]
            group["params"] = [p for _, p in named]
        for p in group["params"]:
            if not isinstance(p, _core.Tensor):
                raise TypeError(
                    f"optimizer can only optimize Tensors, but one of the params is {typename(p)}"
                )
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            group.setdefault(name, default)
        if len({id(p) for p in group["params"]}) != len(group["params"]):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        for other in self.param_groups:
            if ("param_names" in group) != ("param_names" in other):
                kind = "with names" if "param_names" in group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {kind} to the optimizer"
                )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of every parameter (to None, or zeros in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    p.grad.zero_()

    def state_dict(self):
        """``{"state": {index: state}, "param_groups": [...]}`` with parameters as indices."""
        index, groups, n = {}, [], 0
        for group in self.param_groups:
            ids = []
            for p in group["params"]:
                index.setdefault(id(p), n)
                ids.append(index[id(p)])
                n += 1
            groups.append({**{k: v for k, v in group.items() if k != "params"}, "params": ids})
        state = {
            index[id(p)]: dict(s)
            for group in self.param_groups
            for p in group["params"]
            if (s := self.state.get(p))
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores hyper-parameters and state saved by :meth:`state_dict`."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = []
        for mine, saved in zip(self.param_groups, groups):
            if len(mine["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size "
                    "of optimizer's group"
                )
            params.extend(zip(saved["params"], mine["params"]))
            mine.update({k: v for k, v in saved.items() if k != "params"})
        self.state = defaultdict(dict)
        for i, p in params:
            if i in state_dict["state"]:
                self.state[p] = {
                    k: _loaded_state(p, k, v) for k, v in state_dict["state"][i].items()
                }

    def _with_grads(self, group):
        return [p for p in group["params"] if p.grad is not None]

    def _sparse_refusal(self, group):
        """Why this optimizer refuses sparse gradients (PyTorch's message), ``None`` if it
        takes them."""
        return f"{type(self).__name__} does not support sparse gradients"

    def _grads(self, params, group):
        """The gradients of ``params``. A sparse one (``nn.Embedding(sparse=True)``) is refused
        as PyTorch refuses it, or, by the optimizers that take sparse gradients, made dense:
        the update is the same, as a zero gradient leaves the rows it does not touch unchanged
        in their formulas."""
        grads = [p.grad for p in params]
        if not any(g.is_sparse for g in grads):
            return grads
        why = self._sparse_refusal(group)
        if why is not None:
            raise RuntimeError(why)
        return [g.coalesce().to_dense() if g.is_sparse else g for g in grads]

    def _hyper(self, group):
        """The group's settings as the core's rule reads them (numbers; booleans as 0/1;
        ``betas`` as ``beta1`` and ``beta2``)."""
        hyper = {
            k: _float(v)
            for k, v in group.items()
            if isinstance(v, (int, float)) or (isinstance(v, _core.Tensor) and v.numel() == 1)
        }
        if "betas" in group:
            hyper["beta1"], hyper["beta2"] = (_float(b) for b in group["betas"])
        return hyper

    def _core_step(self, rule, group, params, grads):
        """One step of the core's ``rule`` over ``params``: each parameter's state updated in
        place (``state["step"]`` advanced), and the state the rule makes added."""
        states = [self.state[p] for p in params]
        added = _core._optim_step(rule, params, grads, states, self._hyper(group))
        for state, new in zip(states, added):
            if new:
                state.update(new)

    def step(self, closure=None):
        raise NotImplementedError

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _loaded_state(param, key, value):
    """A state value as :meth:`Optimizer.load_state_dict` keeps it (PyTorch's policy): a step
    count becomes a tensor (older state dicts saved a number), other floating tensors take the
    parameter's dtype; tensors are copied, so the optimizer never writes into the dict."""
    if key == "step":
        if isinstance(value, _core.Tensor):
            return value.clone()
        return _core.tensor(float(value))
    if isinstance(value, _core.Tensor):
        if param.is_floating_point() and value.is_floating_point():
            return value.to(dtype=param.dtype).clone()
        return value.clone()
    return value


def _float(value):
    """A hyper-parameter as a number (a one-element tensor learning rate is read as its value)."""
    if isinstance(value, _core.Tensor):
        if value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        return float(value.item())
    return float(value)


def _flags(foreach, fused, differentiable):
    """PyTorch's checks of the implementation flags. On a CPU every combination PyTorch accepts
    computes the same update here (one core call per group): ``foreach`` and ``fused`` choose
    PyTorch's kernels, not the result."""
    if fused and foreach:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if fused and differentiable:
        raise RuntimeError("`fused` does not support `differentiable`")


_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]


def _check_capturable(group, params):
    """``capturable`` needs an accelerator: PyTorch's assertion at the first step."""
    if group.get("capturable") and params:
        raise AssertionError(
            "If capturable=True, params and state_steps must be on supported devices: "
            f"{_CAPTURABLE_DEVICES}."
        )


def _differentiable_step(kernel, group, params, grads, states):
    """The step of a ``differentiable=True`` group, recorded by autograd (Note [Two forms of an
    optimizer step] in ``_differentiable``)."""
    from .._grad_mode import enable_grad
    from ._differentiable import STEPS

    with enable_grad():
        STEPS[kernel](group, params, grads, states)


_LABELS = {
    "lr": "learning rate",
    "momentum": "momentum value",
    "eps": "epsilon value",
    "weight_decay": "weight_decay value",
    "alpha": "alpha value",
    "lr_decay": "lr_decay value",
    "initial_accumulator_value": "initial_accumulator_value value",
    "momentum_decay": "momentum_decay value",
}


def _non_negative(**hyper_parameters):
    """PyTorch's ``ValueError`` for a negative learning rate, momentum, epsilon or decay."""
    for name, value in hyper_parameters.items():
        if value < 0.0:
            raise ValueError(f"Invalid {_LABELS[name]}: {value}")


def _check_betas(betas):
    """PyTorch's ``ValueError`` for a beta outside ``[0, 1)``."""
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _evaluate(closure):
    if closure is None:
        return None
    from .._grad_mode import enable_grad

    with enable_grad():
        return closure()


class SGD(Optimizer):
    """Stochastic gradient descent with momentum, dampening, Nesterov momentum, weight decay
    and ``maximize``, as ``torch.optim.SGD``."""

    def _sparse_refusal(self, group):
        # PyTorch adds the decay with grad.add(param), which a sparse gradient refuses
        if group["weight_decay"] != 0:
            return "add(sparse, dense) is not supported. Use add(dense, sparse) instead."
        return None

    def __init__(
        self,
        params,
        lr=1e-3,
        momentum=0,
        dampening=0,
        weight_decay=0,
        nesterov=False,
        *,
        maximize=False,
        foreach=None,
        differentiable=False,
        fused=None,
    ):
        _non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _flags(foreach, fused, differentiable)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
            foreach=foreach,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            params = self._with_grads(group)
            grads = self._grads(params, group)
            if group["differentiable"]:
                _differentiable_step("sgd", group, params, grads, [self.state[p] for p in params])
                continue
            self._core_step("sgd", group, params, grads)
        return loss


class Adam(Optimizer):
    """Adam (``amsgrad``, ``maximize``, L2 ``weight_decay``), as ``torch.optim.Adam``."""

    _decoupled = False

    def _sparse_refusal(self, group):
        return "Adam does not support sparse gradients, please consider SparseAdam instead"

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        amsgrad=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
        fused=None,
        decoupled_weight_decay=False,
    ):
        if isinstance(lr, _core.Tensor):
            if foreach and not capturable:
                raise ValueError(
                    "lr as a Tensor is not supported for capturable=False and foreach=True"
                )
            if lr.numel() != 1:
                raise ValueError("Tensor lr must be 1-element")
        _non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _non_negative(weight_decay=weight_decay)
        _flags(foreach, fused, differentiable)
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=decoupled_weight_decay or self._decoupled,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            params = self._with_grads(group)
            grads = self._grads(params, group)
            _check_capturable(group, params)
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = _core.tensor(0.0)
                    state["exp_avg"] = _core.zeros_like(p)
                    state["exp_avg_sq"] = _core.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = _core.zeros_like(p)
            states = [self.state[p] for p in params]
            if group["differentiable"]:
                for s in states:
                    s["step"].add_(1)
                _differentiable_step("adam", group, params, grads, states)
                continue
            self._core_step("adam", group, params, grads)
        return loss

    def _hyper(self, group):
        hyper = super()._hyper(group)
        hyper.setdefault("decoupled_weight_decay", float(self._decoupled))
        return hyper


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01), as ``torch.optim.AdamW``."""

    _decoupled = True

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=1e-2,
        amsgrad=False,
        *,
        maximize=False,
        foreach=None,
        capturable=False,
        differentiable=False,
        fused=None,
    ):
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )


class _Adaptive(Optimizer):
    """An optimizer whose step is the core's rule ``_kernel`` over each group: the subclass
    names the rule and its state tensors (made zero on a parameter's first step)."""

    _kernel = ""
    _state_names: tuple = ()

    def _states_for(self, group):
        """The names of the state tensors this group keeps."""
        return self._state_names

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        for name in self._states_for(group):
            state[name] = _core.zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            params = self._with_grads(group)
            grads = self._grads(params, group)
            _check_capturable(group, params)
            for p in params:
                if not self.state[p]:
                    self._init_state(p, group)
            if group.get("differentiable"):
                states = [self.state[p] for p in params]
                for s in states:
                    s["step"] = _core.tensor(float(s["step"]) + 1.0)
                _differentiable_step(self._kernel, group, params, grads, states)
                continue
            self._core_step(self._kernel, group, params, grads)
        return loss


class RMSprop(_Adaptive):
    """RMSprop (``momentum``, ``centered``, ``weight_decay``, ``maximize``), as
    ``torch.optim.RMSprop``."""

    _kernel = "rmsprop"

    def __init__(
        self,
        params,
        lr=1e-2,
        alpha=0.99,
        eps=1e-8,
        weight_decay=0,
        momentum=0,
        centered=False,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        _non_negative(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        defaults = dict(
            lr=lr,
            momentum=momentum,
            alpha=alpha,
            eps=eps,
            centered=centered,
            weight_decay=weight_decay,
            capturable=capturable,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _states_for(self, group):
        names = ["square_avg"]
        if group["momentum"] > 0:
            names.append("momentum_buffer")
        if group["centered"]:
            names.append("grad_avg")
        return names


class Adagrad(_Adaptive):
    """Adagrad (``lr_decay``, ``initial_accumulator_value``, ``weight_decay``, ``maximize``),
    as ``torch.optim.Adagrad``; its state is made when the optimizer is."""

    _kernel = "adagrad"
    _state_names = ("sum",)

    def _sparse_refusal(self, group):
        if group["weight_decay"] != 0:
            return "weight_decay option is not compatible with sparse gradients"
        return None

    def __init__(
        self,
        params,
        lr=1e-2,
        lr_decay=0,
        weight_decay=0,
        initial_accumulator_value=0,
        eps=1e-10,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        fused=None,
    ):
        _non_negative(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = dict(
            lr=lr,
            lr_decay=lr_decay,
            eps=eps,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            fused=fused,
        )
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, group)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        # made from the parameter (as PyTorch's full_like), so a lazy module's placeholder
        # is refused here, at construction, as in PyTorch
        state["sum"] = p.new_full(p.size(), float(group["initial_accumulator_value"]))


class Adadelta(_Adaptive):
    """Adadelta (``rho``, ``weight_decay``, ``maximize``), as ``torch.optim.Adadelta``."""

    _kernel = "adadelta"
    _state_names = ("square_avg", "acc_delta")

    def __init__(
        self,
        params,
        lr=1.0,
        rho=0.9,
        eps=1e-6,
        weight_decay=0,
        foreach=None,
        *,
        capturable=False,
        maximize=False,
        differentiable=False,
    ):
        _non_negative(lr=lr, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        defaults = dict(
            lr=lr,
            rho=rho,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            capturable=capturable,
            foreach=foreach,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)


class Adamax(_Adaptive):
    """Adamax (``weight_decay``, ``maximize``), as ``torch.optim.Adamax``."""

    _kernel = "adamax"
    _state_names = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        foreach=None,
        *,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        _non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _non_negative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)


class NAdam(_Adaptive):
    """NAdam: Adam with Nesterov momentum whose coefficient warms up over the steps
    (``momentum_decay``; ``decoupled_weight_decay`` for NAdamW), as ``torch.optim.NAdam``."""

    _kernel = "nadam"
    _state_names = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr=2e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        momentum_decay=4e-3,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _non_negative(weight_decay=weight_decay, momentum_decay=momentum_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            momentum_decay=momentum_decay,
            decoupled_weight_decay=decoupled_weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        # the product of the momentum coefficients so far, a float32 number as PyTorch keeps it
        state["mu_product"] = _core.tensor(1.0)
        for name in self._state_names:
            state[name] = _core.zeros_like(p)


class RAdam(_Adaptive):
    """RAdam: Adam with its adaptive rate rectified, and left out while its variance is not
    tractable (the first steps); ``decoupled_weight_decay`` as AdamW's. As
    ``torch.optim.RAdam``."""

    _kernel = "radam"
    _state_names = ("exp_avg", "exp_avg_sq")

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-8,
        weight_decay=0,
        decoupled_weight_decay=False,
        *,
        foreach=None,
        maximize=False,
        capturable=False,
        differentiable=False,
    ):
        _non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _non_negative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=betas,
            eps=eps,
            weight_decay=weight_decay,
            maximize=maximize,
            foreach=foreach,
            capturable=capturable,
            decoupled_weight_decay=decoupled_weight_decay,
            differentiable=differentiable,
        )
        super().__init__(params, defaults)


class Rprop(_Adaptive):
    """Rprop: each element moves by its own step size in the direction of its gradient's sign;
    the step size grows by ``etas[1]`` while the sign holds and shrinks by ``etas[0]`` when it
    flips (within ``step_sizes``), as ``torch.optim.Rprop``."""

    _kernel = "rprop"
    _state_names = ("prev", "step_size")

    def __init__(
        self,
        params,
        lr=1e-2,
        etas=(0.5, 1.2),
        step_sizes=(1e-6, 50),
        *,
        capturable=False,
        foreach=None,
        maximize=False,
        differentiable=False,
    ):
        if isinstance(lr, _core.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _flags(foreach, False, differentiable)
        defaults = dict(
            lr=lr,
            etas=etas,
            step_sizes=step_sizes,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _hyper(self, group):
        hyper = super()._hyper(group)
        hyper["etaminus"], hyper["etaplus"] = (float(e) for e in group["etas"])
        hyper["step_size_min"], hyper["step_size_max"] = (float(s) for s in group["step_sizes"])
        return hyper

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        state["prev"] = _core.zeros_like(p)
        state["step_size"] = _core.full(tuple(p.shape), _float(group["lr"]), dtype=p.dtype)


class ASGD(_Adaptive):
    """Averaged SGD: SGD whose rate ``eta`` decays as ``lr / (1 + lambd·lr·t)^alpha``, keeping
    ``ax``, the running average of the parameter from step ``t0`` on, as ``torch.optim.ASGD``."""

    _kernel = "asgd"
    _state_names = ("ax", "eta", "mu")

    def __init__(
        self,
        params,
        lr=1e-2,
        lambd=1e-4,
        alpha=0.75,
        t0=1e6,
        weight_decay=0,
        foreach=None,
        maximize=False,
        differentiable=False,
        capturable=False,
    ):
        if isinstance(lr, _core.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        _non_negative(weight_decay=weight_decay)
        _flags(foreach, False, differentiable)
        defaults = dict(
            lr=lr,
            lambd=lambd,
            alpha=alpha,
            t0=t0,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
            differentiable=differentiable,
            capturable=capturable,
        )
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        state["eta"] = _core.tensor(_float(group["lr"]))
        state["mu"] = _core.tensor(1.0)
        state["ax"] = _core.zeros_like(p)


class Adafactor(_Adaptive):
    """Adafactor (Shazeer & Stern, 2018) as ``torch.optim.Adafactor``: the second moment of a
    parameter of two or more dimensions kept as row and column averages (``row_var``,
    ``col_var``), a relative step ``min(lr, 1/sqrt(t))`` scaled by the parameter's root mean
    square (at least ``eps[1]``), the update's root mean square clipped to ``d``, decoupled
    ``weight_decay``. ``eps[0]`` (the floor of the variance's square root) defaults to the
    epsilon of each parameter's own dtype."""

    _kernel = "adafactor"

    def __init__(
        self,
        params,
        lr=1e-2,
        beta2_decay=-0.8,
        eps=(None, 1e-3),
        d=1.0,
        weight_decay=0.0,
        *,
        foreach=None,
        maximize=False,
    ):
        if isinstance(lr, _core.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(
            lr=lr,
            beta2_decay=beta2_decay,
            eps=eps,
            d=d,
            weight_decay=weight_decay,
            foreach=foreach,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    def _hyper(self, group):
        hyper = super()._hyper(group)
        eps1, eps2 = group["eps"]
        if eps1 is not None:
            hyper["eps1"] = _float(eps1)
        hyper["eps2"] = _float(eps2)
        return hyper

    def _init_state(self, p, group):
        state = self.state[p]
        state["step"] = _core.tensor(0.0)
        grad = p.grad
        if grad.dim() > 1:
            state["row_var"] = grad.new_zeros((*grad.shape[:-1], 1))
            state["col_var"] = grad.new_zeros((*grad.shape[:-2], 1, grad.shape[-1]))
        else:
            state["variance"] = _core.zeros_like(grad)


from . import lr_scheduler, optimizer, swa_utils  # noqa: E402
from .lbfgs import LBFGS  # noqa: E402
from .sparse_adam import SparseAdam  # noqa: E402


def _class_modules():
    """``torch.optim.adam`` and the other modules PyTorch defines each optimizer in, so that
    ``from torch.optim.adam import Adam`` imports the class defined here."""
    import sys
    import types

    for cls in (
        SGD,
        Adam,
        AdamW,
        RMSprop,
        Adagrad,
        Adadelta,
        Adamax,
        NAdam,
        RAdam,
        Rprop,
        ASGD,
        Adafactor,
    ):
        name = f"{__name__}.{cls.__name__.lower()}"
        module = types.ModuleType(
            name, f"``torch.optim.{cls.__name__.lower()}``: ``{cls.__name__}``."
        )
        module.__dict__.update({cls.__name__: cls, "__all__": [cls.__name__]})
        sys.modules[name] = module
        globals()[cls.__name__.lower()] = module


_class_modules()

__all__ = [
    "ASGD",
    "LBFGS",
    "Adadelta",
    "Adafactor",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
    "lr_scheduler",
    "optimizer",
    "swa_utils",
]
