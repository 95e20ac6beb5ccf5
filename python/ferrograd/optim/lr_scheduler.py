"""``optim.lr_scheduler``: learning-rate schedules with PyTorch's names, defaults and formulas
(the same recursive updates, so the rates agree to the last bit). A schedule is configuration:
it only sets ``param_group["lr"]`` (and, for ``OneCycleLR`` and ``CyclicLR``, the momentum)
between steps."""

import bisect
import functools
import math
import types
import warnings
import weakref
from collections import Counter

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)
"""The warning ``step(epoch)`` gives (PyTorch's text): the epoch argument is deprecated."""


def _track_step_calls(optimizer):
    """Wraps ``optimizer.step`` (once) so that it records that it was called, as PyTorch's
    schedulers do to warn about the old order of calls. The wrapper holds the optimizer
    weakly (no reference cycle)."""
    if hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        return
    opt_ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        opt = opt_ref()
        opt._opt_called = True
        return func.__get__(opt, opt.__class__)(*args, **kwargs)

    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper


def _warn_if_stepped_first(optimizer):
    """PyTorch's warnings when the scheduler's second ``step()`` comes before any
    ``optimizer.step()`` (or ``optimizer.step`` was replaced after the scheduler wrapped it)."""
    more = (
        "See more details at https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
    )
    if not hasattr(optimizer.step, "_wrapped_by_lr_sched"):
        warnings.warn(
            "Seems like `optimizer.step()` has been overridden after learning rate scheduler "
            f"initialization. Please, make sure to call `optimizer.step()` before "
            f"`lr_scheduler.step()`. {more}",
            UserWarning,
            stacklevel=3,
        )
    elif not getattr(optimizer, "_opt_called", False):
        warnings.warn(
            "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 "
            "and later, you should call them in the opposite order: `optimizer.step()` before "
            "`lr_scheduler.step()`.  Failure to do this will result in PyTorch skipping the "
            f"first value of the learning rate schedule. {more}",
            UserWarning,
            stacklevel=3,
        )


def _group_values(optimizer, key):
    """``group[key]`` of every group, a tensor copied (the scheduler's lists never alias the
    optimizer's tensors)."""
    from .._core import Tensor

    return [
        group[key].clone() if isinstance(group[key], Tensor) else group[key]
        for group in optimizer.param_groups
    ]


def _set_group_value(group, key, value):
    """``group[key] = value``, written into the tensor in place when the group holds one (its
    type and identity kept, as PyTorch's)."""
    from .._core import Tensor

    if isinstance(group[key], Tensor):
        group[key].fill_(float(value))
    else:
        group[key] = value


def _set_momentum(use_beta1, group, value):
    """Sets a group's momentum, or Adam's first beta (the cycling schedulers move it)."""
    if use_beta1:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


class LRScheduler:
    """Base class: ``step()`` moves to the next epoch and writes each group's new rate;
    ``get_last_lr()`` returns the rates it wrote."""

    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        from .._core import Tensor
        from . import Optimizer

        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                if isinstance(initial_lr, Tensor):
                    initial_lr = initial_lr.clone()
                group.setdefault("initial_lr", initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)"
                    )
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self):
        """The step a scheduler takes when made (or restarted by ``SequentialLR``): the
        chainable schedules keep the current rates during it (``_is_initial``), so a scheduler
        made with ``last_epoch`` of a checkpoint does not move the loaded rates a step ahead."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The rates for ``self.last_epoch`` (each subclass's formula)."""
        raise NotImplementedError

    def get_last_lr(self):
        """The rates the last ``step()`` set."""
        return self._last_lr

    def step(self, epoch=None):
        """Advances one epoch (or to ``epoch``) and sets each group's learning rate."""
        if self._step_count == 1:
            _warn_if_stepped_first(self.optimizer)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Moves to the next epoch (or to ``epoch``, by the closed form where there is one) and
        writes the rates; ``SequentialLR`` restarts a scheduler with ``_update_lr(0)``."""
        # set while the rates are computed (PyTorch's flag: ``get_lr`` called at another time
        # warns; its name is part of the state dict)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def state_dict(self):
        """Everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores what :meth:`state_dict` returned."""
        self.__dict__.update(state_dict)

    def _group_lrs(self):
        return [group["lr"] for group in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """Multiplies the rate by ``gamma`` every ``step_size`` epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size) for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiplies the rate by ``gamma`` at each milestone epoch."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._group_lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [
            base * self.gamma ** bisect.bisect_right(milestones, self.last_epoch)
            for base in self.base_lrs
        ]


class ExponentialLR(LRScheduler):
    """Multiplies the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self._is_initial:
            return self._group_lrs()
        return [lr * self.gamma for lr in self._group_lrs()]

    def _get_closed_form_lr(self):
        return [base * self.gamma**self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from the base rate to ``eta_min`` over ``T_max`` epochs (SGDR's
    formula without restarts, in PyTorch's recursive form)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, t, T = self._group_lrs(), self.last_epoch, self.T_max
        if self._is_initial:
            return lrs
        if self._step_count == 1 and t > 0:
            return [
                self.eta_min + (base - self.eta_min) * (1 + math.cos(t * math.pi / T)) / 2
                for base in self.base_lrs
            ]
        if (t - 1 - T) % (2 * T) == 0:
            return [
                lr + (base - self.eta_min) * (1 - math.cos(math.pi / T)) / 2
                for lr, base in zip(lrs, self.base_lrs)
            ]
        return [
            (1 + math.cos(math.pi * t / T))
            / (1 + math.cos(math.pi * (t - 1) / T))
            * (lr - self.eta_min)
            + self.eta_min
            for lr in lrs
        ]

    def _get_closed_form_lr(self):
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base in self.base_lrs
        ]


def _per_group(lr_lambda, optimizer):
    """One function per parameter group: ``lr_lambda`` for all, or the list given (one each)."""
    groups = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != groups:
            raise ValueError(f"Expected {groups} lr_lambdas, but got {len(lr_lambda)}")
        functions = list(lr_lambda)
    else:
        functions = [lr_lambda] * groups
    for f in functions:
        if not callable(f):
            raise TypeError(f"lr_lambda should be a function, but got {type(f).__name__}")
    return functions


class _LambdaState:
    """The state of a scheduler driven by ``lr_lambdas``: a plain function is not saved
    (``None``), a callable object's attributes are, and are restored into the object."""

    def state_dict(self):
        """Every field but the optimizer; ``lr_lambdas`` as the objects' attribute dicts."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(f, types.FunctionType) else f.__dict__.copy()
            for f in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict):
        """Restores the fields, and each callable object's attributes."""
        lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lambdas
        for f, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                f.__dict__.update(saved)


class LambdaLR(_LambdaState, LRScheduler):
    """The base rate times ``lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for f, base in zip(self.lr_lambdas, self.base_lrs)]


class LinearLR(LRScheduler):
    """Scales the rate linearly from ``start_factor`` to ``end_factor`` over ``total_iters``
    epochs."""

    def __init__(
        self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1
    ):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError(
                "Starting multiplicative factor expected to be greater than 0 and less or "
                "equal to 1."
            )
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, t = self._group_lrs(), self.last_epoch
        if t == 0:
            return [lr * self.start_factor for lr in lrs]
        if self._is_initial or t > self.total_iters:
            return lrs
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor + (t - 1) * span)
        return [lr * ratio for lr in lrs]

    def _get_closed_form_lr(self):
        span = self.end_factor - self.start_factor
        done = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + span * done) for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The one-cycle policy: the rate rises from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of the steps, then anneals to ``initial / final_div_factor``; the momentum
    (or Adam's first beta) moves the other way when ``cycle_momentum``."""

    def __init__(
        self,
        optimizer,
        max_lr,
        total_steps=None,
        epochs=None,
        steps_per_epoch=None,
        pct_start=0.3,
        anneal_strategy="cos",
        cycle_momentum=True,
        base_momentum=0.85,
        max_momentum=0.95,
        div_factor=25.0,
        final_div_factor=1e4,
        three_phase=False,
        last_epoch=-1,
    ):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError(
                    "You must define either total_steps OR (epochs AND steps_per_epoch)"
                )
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.total_steps = total_steps
        self._anneal_func_type = anneal_strategy
        if three_phase:
            self._schedule_phases = [
                (
                    float(pct_start * total_steps) - 1,
                    "initial_lr",
                    "max_lr",
                    "max_momentum",
                    "base_momentum",
                ),
                (
                    float(2 * pct_start * total_steps) - 2,
                    "max_lr",
                    "initial_lr",
                    "base_momentum",
                    "max_momentum",
                ),
                (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self._schedule_phases = [
                (
                    float(pct_start * total_steps) - 1,
                    "initial_lr",
                    "max_lr",
                    "max_momentum",
                    "base_momentum",
                ),
                (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        groups = optimizer.param_groups
        if last_epoch == -1:
            for group, top in zip(groups, _format_param("max_lr", optimizer, max_lr)):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _format_param("max_momentum", optimizer, max_momentum)
            bases = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for top, base, group in zip(tops, bases, groups):
                    _set_momentum(self.use_beta1, group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _annealing_cos(start, end, pct):
        """Cosine from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _annealing_linear(start, end, pct):
        """A line from ``start`` to ``end`` as ``pct`` goes from 0 to 1."""
        return (end - start) * pct + start

    def _anneal(self, start, end, pct):
        kind = getattr(self, "_anneal_func_type", None)
        if kind is None:  # a state dict of PyTorch before 2.2 saved the function itself
            return self.anneal_func(start, end, pct)
        if kind == "cos":
            return self._annealing_cos(start, end, pct)
        return self._annealing_linear(start, end, pct)

    def get_lr(self):
        t = self.last_epoch
        if t > self.total_steps:
            raise ValueError(
                f"Tried to step {t} times. The specified number of total steps is "
                f"{self.total_steps}"
            )
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self._schedule_phases):
                if t <= end or i == len(self._schedule_phases) - 1:
                    pct = (t - start) / (end - start)
                    lrs.append(self._anneal(group[lr0], group[lr1], pct))
                    if self.cycle_momentum:
                        _set_momentum(
                            self.use_beta1, group, self._anneal(group[m0], group[m1], pct)
                        )
                    break
                start = end
        return lrs


def _format_param(name, optimizer, param):
    """One value per parameter group: ``param`` for all, or the list given (one each); a
    tensor is copied (the scheduler never aliases the caller's tensors)."""
    from .._core import Tensor

    def copy(value):
        return value.clone() if isinstance(value, Tensor) else value

    groups = len(optimizer.param_groups)
    if isinstance(param, (list, tuple)):
        if len(param) != groups:
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {groups}."
            )
        return [copy(p) for p in param]
    return [copy(param)] * groups


class CyclicLR(LRScheduler):
    """The cyclical learning rate policy: each group's rate moves between ``base_lr`` and
    ``max_lr`` in cycles of ``step_size_up + step_size_down`` steps (stepped after every
    batch), the amplitude scaled per cycle (``triangular``: constant, ``triangular2``: halved
    each cycle) or per step (``exp_range``: ``gamma**step``) or by ``scale_fn``; the momentum
    (or Adam's first beta) moves the other way when ``cycle_momentum``."""

    def __init__(
        self,
        optimizer,
        base_lr,
        max_lr,
        step_size_up=2000,
        step_size_down=None,
        mode="triangular",
        gamma=1.0,
        scale_fn=None,
        scale_mode="cycle",
        cycle_momentum=True,
        base_momentum=0.8,
        max_momentum=0.9,
        last_epoch=-1,
    ):
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                _set_group_value(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for top, base, group in zip(
                    self.max_momentums, self.base_momentums, optimizer.param_groups
                ):
                    _set_momentum(self.use_beta1, group, top)
                    group["max_momentum"] = top
                    group["base_momentum"] = base
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        """The built-in scale of ``mode`` (``_scale_fn_ref``, PyTorch's name; not saved in the
        state dict, so set again on loading), unless a custom ``scale_fn`` was given."""
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref, self.scale_mode = (lambda x: 1.0), "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), "cycle"
        else:
            gamma = self.gamma
            self._scale_fn_ref, self.scale_mode = (lambda x: gamma**x), "iterations"

    def scale_fn(self, x):
        """The amplitude's scale at cycle (or step) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self):
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [
            base + ((top - base) * scale_factor) * self.scale_fn(at)
            for base, top in zip(self.base_lrs, self.max_lrs)
        ]
        if self.cycle_momentum:
            for group, base, top in zip(
                self.optimizer.param_groups, self.base_momentums, self.max_momentums
            ):
                _set_momentum(
                    self.use_beta1, group, top - ((top - base) * scale_factor) * self.scale_fn(at)
                )
        return lrs

    def state_dict(self):
        """Everything but the optimizer; a custom ``scale_fn`` only by its attributes (a
        callable object's ``__dict__``), as PyTorch saves it."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        """Restores what :meth:`state_dict` returned (keeping this scheduler's ``scale_fn``)."""
        state = dict(state_dict)
        fn = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if fn is not None and self._scale_fn_custom is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class ReduceLROnPlateau(LRScheduler):
    """Divides the rate by ``1 / factor`` when a metric (passed to ``step``) has not improved
    for ``patience`` epochs."""

    def __init__(
        self,
        optimizer,
        mode="min",
        factor=0.1,
        patience=10,
        threshold=1e-4,
        threshold_mode="rel",
        cooldown=0,
        min_lr=0,
        eps=1e-8,
    ):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        groups = optimizer.param_groups
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(groups):
                raise ValueError(f"expected {len(groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(groups)
        self.optimizer = optimizer
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._reset()

    def state_dict(self):
        """Everything but the optimizer (as PyTorch's), for checkpoints."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restores what :meth:`state_dict` returned."""
        self.__dict__.update(state_dict)

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def is_better(self, a, best):
        """Whether ``a`` improves on ``best`` by more than the threshold."""
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    @property
    def in_cooldown(self):
        """Whether the last reduction's cooldown is still running."""
        return self.cooldown_counter > 0

    def step(self, metrics, epoch=None):
        """Records this epoch's metric, reducing the rates after ``patience`` bad epochs."""
        current = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self.is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups."
                )
            self.min_lrs = [self.default_min_lr] * len(groups)
        for i, group in enumerate(groups):
            old = float(group["lr"])
            new = max(old * self.factor, self.min_lrs[i])
            if old - new > self.eps:
                _set_group_value(group, "lr", new)

    def get_last_lr(self):
        """The rates after the last ``step``."""
        return self._last_lr


class MultiplicativeLR(_LambdaState, LRScheduler):
    """Multiplies the rate by ``lr_lambda(epoch)`` every epoch after the first (one function,
    or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = _per_group(lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if not self._is_initial:
            return [lr * f(self.last_epoch) for f, lr in zip(self.lr_lambdas, self._group_lrs())]
        return self._group_lrs()


class ConstantLR(LRScheduler):
    """The rate times ``factor`` until epoch ``total_iters``, then the base rate."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = self._group_lrs()
        if self.last_epoch == 0:
            return [lr * self.factor for lr in lrs]
        if self.last_epoch != self.total_iters:
            return lrs
        return [lr * (1.0 / self.factor) for lr in lrs]

    def _get_closed_form_lr(self):
        after = self.last_epoch >= self.total_iters
        return [base * (self.factor + after * (1 - self.factor)) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """The base rate times ``(1 - epoch / total_iters) ** power`` until ``total_iters``, then
    unchanged."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs, t, n = self._group_lrs(), self.last_epoch, self.total_iters
        if self._is_initial or t > n:
            return lrs
        factor = ((1.0 - t / n) / (1.0 - (t - 1) / n)) ** self.power
        return [lr * factor for lr in lrs]

    def _get_closed_form_lr(self):
        t, n = self.last_epoch, self.total_iters
        return [base * (1.0 - min(n, t) / n) ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the base rate to ``eta_min`` over ``T_0`` epochs, restarting
    from the base rate, each period ``T_mult`` times longer than the last (SGDR)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(
                f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}"
            )
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [
            self.eta_min
            + (base - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
            for base in self.base_lrs
        ]

    def step(self, epoch=None):
        """Advances one epoch, or to a (possibly fractional) ``epoch`` within its period."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult**n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult**n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")


def _check_schedulers(schedulers, optimizer, name):
    if len(schedulers) < 1:
        raise ValueError(f"{name} expects at least one scheduler, but got no scheduler.")
    for i, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(
                f"{name} does not support `ReduceLROnPlateau` scheduler as it requires "
                f"additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence."
            )
        if optimizer != scheduler.optimizer:
            raise ValueError(
                f"{name} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {scheduler.__class__.__name__} at index {i} has "
                f"{scheduler.optimizer}, which is different from "
                f"{optimizer.__class__.__name__}."
            )


class _Composed(LRScheduler):
    """A scheduler made of schedulers (PyTorch's subclasses of ``LRScheduler`` that do not run
    its ``__init__``): its state is its own fields and theirs."""

    def get_last_lr(self):
        """The rates the last ``step()`` set."""
        return self._last_lr

    def state_dict(self):
        """Its own fields and each scheduler's ``state_dict``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        """Restores what :meth:`state_dict` returned."""
        state = dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state.pop("_schedulers")):
            scheduler.load_state_dict(saved)
        self.__dict__.update(state)


class SequentialLR(_Composed):
    """``schedulers[i]`` in charge from ``milestones[i - 1]`` on, each restarted at its
    milestone."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_schedulers(schedulers, optimizer, "SequentialLR")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                f"than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}"
            )
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # back to the initial rates, the other schedulers' first steps undone (inside composed
        # ones too), then the first scheduler's first step again
        for group in optimizer.param_groups:
            _set_group_value(group, "lr", group["initial_lr"])
        self._undo_first_steps(self)
        schedulers[0]._initial_step()
        self._last_lr = schedulers[0].get_last_lr()

    @staticmethod
    def _undo_first_steps(scheduler):
        if hasattr(scheduler, "_schedulers"):
            for inner in scheduler._schedulers:
                SequentialLR._undo_first_steps(inner)
        elif hasattr(scheduler, "last_epoch"):
            scheduler.last_epoch -= 1

    def step(self):
        """Advances the scheduler in charge (restarting one at its milestone)."""
        self.last_epoch += 1
        idx = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composed):
    """Steps every scheduler in turn, each on the rate the previous one left."""

    def __init__(self, schedulers, optimizer=None):
        optimizer = optimizer or (schedulers[0].optimizer if schedulers else None)
        _check_schedulers(schedulers, optimizer, "ChainedScheduler")
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        """Steps every scheduler."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")

    def _initial_step(self):
        self.step()


__all__ = [
    "LRScheduler",
    "StepLR",
    "MultiStepLR",
    "ExponentialLR",
    "CosineAnnealingLR",
    "LambdaLR",
    "LinearLR",
    "OneCycleLR",
    "CyclicLR",
    "ReduceLROnPlateau",
    "MultiplicativeLR",
    "ConstantLR",
    "PolynomialLR",
    "CosineAnnealingWarmRestarts",
    "SequentialLR",
    "ChainedScheduler",
]
