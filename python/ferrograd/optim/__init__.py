"""``optim``: optimizers with PyTorch's API (``param_groups``, ``state``, ``zero_grad``,
``state_dict``); each step's arithmetic is one call into the Rust core per parameter group."""

from collections import defaultdict

from .. import _core
from .._grad_mode import no_grad


class Optimizer:
    """Base class: parameter groups (dicts of parameters and hyper-parameters, the defaults
    filled in) and per-parameter state, as ``torch.optim.Optimizer``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Adds a group of parameters, with its own hyper-parameters where given."""
        group = dict(param_group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, _core.Tensor) else list(params)
        for name, default in self.defaults.items():
            group.setdefault(name, default)
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
                    k: (v.clone() if isinstance(v, _core.Tensor) else v)
                    for k, v in state_dict["state"][i].items()
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
    ):
        _non_negative(lr=lr, momentum=momentum, weight_decay=weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        defaults = dict(
            lr=lr,
            momentum=momentum,
            dampening=dampening,
            weight_decay=weight_decay,
            nesterov=nesterov,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            params = self._with_grads(group)
            buffers = [self.state[p].get("momentum_buffer") for p in params]
            buffers = _core._sgd_step(
                params,
                self._grads(params, group),
                buffers,
                group["lr"],
                group["momentum"],
                group["dampening"],
                group["weight_decay"],
                group["nesterov"],
                group["maximize"],
            )
            if group["momentum"] != 0:
                for p, buf in zip(params, buffers):
                    self.state[p]["momentum_buffer"] = buf
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
        maximize=False,
    ):
        _non_negative(lr=lr, eps=eps)
        _check_betas(betas)
        _non_negative(weight_decay=weight_decay)
        defaults = dict(
            lr=lr,
            betas=tuple(betas),
            eps=eps,
            weight_decay=weight_decay,
            amsgrad=amsgrad,
            maximize=maximize,
        )
        super().__init__(params, defaults)

    @no_grad()
    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns the closure's loss."""
        loss = _evaluate(closure)
        for group in self.param_groups:
            params = self._with_grads(group)
            grads = self._grads(params, group)
            for p in params:
                state = self.state[p]
                if not state:
                    state["step"] = _core.tensor(0.0)
                    state["exp_avg"] = _core.zeros_like(p)
                    state["exp_avg_sq"] = _core.zeros_like(p)
                    if group["amsgrad"]:
                        state["max_exp_avg_sq"] = _core.zeros_like(p)
            states = [self.state[p] for p in params]
            _core._adam_step(
                params,
                grads,
                [s["exp_avg"] for s in states],
                [s["exp_avg_sq"] for s in states],
                [s.get("max_exp_avg_sq") for s in states],
                [s["step"] for s in states],
                group["lr"],
                tuple(group["betas"]),
                group["eps"],
                group["weight_decay"],
                group["amsgrad"],
                group["maximize"],
                self._decoupled,
            )
        return loss


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
    ):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class _Adaptive(Optimizer):
    """An optimizer whose step is ``_core._optim_step`` over each group: the subclass names its
    kernel, its state tensors in order (made zero on a parameter's first step) and which
    hyper-parameters the kernel reads."""

    _kernel = ""
    _state_names: tuple = ()
    _kernel_order: tuple = ()  # the state the kernel reads, by position (default: all of it)

    def _states_for(self, group):
        """The names of the state tensors this group keeps."""
        return self._state_names

    def _hyper(self, group):
        """The group's settings as the kernel reads them (numbers; booleans as 0/1; ``betas``
        as ``beta1`` and ``beta2``)."""
        hyper = {k: float(v) for k, v in group.items() if isinstance(v, (int, float))}
        if "betas" in group:
            hyper["beta1"], hyper["beta2"] = (float(b) for b in group["betas"])
        return hyper

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
            names = self._kernel_order or self._states_for(group)
            for p in params:
                if not self.state[p]:
                    self._init_state(p, group)
            states = [self.state[p] for p in params]
            steps = []
            for s in states:
                s["step"] = _core.tensor(s["step"].item() + 1.0)
                steps.append(int(s["step"].item()))
            _core._optim_step(
                self._kernel,
                params,
                grads,
                [[s.get(n) for n in names] for s in states],
                steps,
                self._hyper(group),
            )
        return loss


class RMSprop(_Adaptive):
    """RMSprop (``momentum``, ``centered``, ``weight_decay``, ``maximize``), as
    ``torch.optim.RMSprop``."""

    _kernel = "rmsprop"
    _kernel_order = ("square_avg", "momentum_buffer", "grad_avg")

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
        state["sum"] = _core.full(
            tuple(p.shape), float(group["initial_accumulator_value"]), dtype=p.dtype
        )


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
    _kernel_order = ("exp_avg", "exp_avg_sq", "mu_product")

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


from . import lr_scheduler, swa_utils  # noqa: E402
from .lbfgs import LBFGS  # noqa: E402
from .sparse_adam import SparseAdam  # noqa: E402

__all__ = [
    "LBFGS",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "SGD",
    "SparseAdam",
    "lr_scheduler",
    "swa_utils",
]
