"""``optim.swa_utils``: Stochastic Weight Averaging and exponential moving averages of a
model's weights, as ``torch.optim.swa_utils``. ``AveragedModel`` keeps a deep copy of a module
whose parameters (and optionally buffers) it averages with each ``update_parameters(model)``;
``SWALR`` anneals each group's learning rate to a fixed SWA rate; ``update_bn`` recomputes the
BatchNorm statistics of a model with one pass over the data. The averaging functions come in
PyTorch's two kinds: per tensor (``get_swa_avg_fn``, ``get_ema_avg_fn``, returning the new
value) and per list (``get_swa_multi_avg_fn``, ``get_ema_multi_avg_fn``, updating in place
with ``_foreach_lerp_`` for floating tensors), giving PyTorch's values on a CPU."""

import itertools
import math
import warnings
from copy import deepcopy

from .. import _core
from .._foreach import _foreach_lerp_
from .._grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler

__all__ = [
    "AveragedModel",
    "update_bn",
    "SWALR",
    "get_ema_multi_avg_fn",
    "get_swa_multi_avg_fn",
    "get_ema_avg_fn",
    "get_swa_avg_fn",
]


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(
            f"Invalid decay value {decay} provided. Please provide a value in [0,1] range."
        )


def _as_number(value):
    """A 0-d tensor as the Python number PyTorch's scalar overloads read from it."""
    return value.item() if isinstance(value, _core.Tensor) else value


def get_ema_multi_avg_fn(decay=0.999):
    """The in-place exponential moving average over lists of tensors:
    ``ema = decay * ema + (1 - decay) * current`` (a ``lerp`` with weight ``1 - decay`` for
    floating tensors; integer tensors get the product rounded towards zero by ``copy_``)."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param_list, current_param_list, _):
        if ema_param_list[0].is_floating_point():
            _foreach_lerp_(ema_param_list, current_param_list, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """The in-place running average over lists of tensors, after ``num_averaged`` models:
    ``avg += (current - avg) / (num_averaged + 1)`` (a ``lerp`` for floating tensors)."""

    @no_grad()
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        if averaged_param_list[0].is_floating_point():
            weight = _as_number(1 / (num_averaged + 1))
            _foreach_lerp_(averaged_param_list, current_param_list, weight)
            return
        # integer tensors: PyTorch's ``_foreach_sub`` then ``_foreach_addcdiv_`` (a tensor
        # count: refused as an integer division) or ``_foreach_add_`` with a floating
        # ``alpha`` (a number: refused for integers)
        for p_avg, p_model in zip(averaged_param_list, current_param_list):
            diff = p_model - p_avg
            if not isinstance(num_averaged, _core.Tensor):
                raise RuntimeError(
                    "For integral input tensors, argument alpha must not be a floating point "
                    "number."
                )
            p_avg.addcdiv_(diff, num_averaged + 1)

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The exponential moving average of one tensor: returns
    ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running average of one tensor after ``num_averaged`` models: returns
    ``avg + (current - avg) / (num_averaged + 1)``."""

    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


def _group_by_device_and_dtype(averaged, current):
    """Pairs of lists (averaged, current) keyed by the averaged tensor's device and dtype, in
    the order the keys first appear."""
    groups = {}
    for p_avg, p_model in zip(averaged, current):
        pair = groups.setdefault((p_avg.device, p_avg.dtype), ([], []))
        pair[0].append(p_avg)
        pair[1].append(p_model)
    return groups


class AveragedModel(Module):
    """A running average of a model's parameters (SWA by default, or the average ``avg_fn``
    / ``multi_avg_fn`` computes, e.g. an EMA), kept in a deep copy of the model
    (``self.module``, moved to ``device`` when given). ``update_parameters(model)`` copies the
    model's parameters the first time and averages them in afterwards; ``n_averaged`` (a
    buffer, saved in the ``state_dict``) counts the models averaged. Buffers are copied from
    the model unless ``use_buffers``, which averages them with the parameters. Calling the
    averaged model runs the copy."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _core.tensor(0, dtype=_core.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        """Runs the averaged copy of the model."""
        return self.module(*args, **kwargs)

    def _tensors(self, model):
        """The tensors averaged: parameters, then buffers with ``use_buffers``."""
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model):
        """Averages ``model``'s current parameters (and buffers, with ``use_buffers``) into
        this copy; without ``use_buffers`` the buffers are copied over."""
        own = self._tensors(self.module) if self.use_buffers else list(self.parameters())
        theirs = self._tensors(model)
        averaged, current = [], []
        first = bool(self.n_averaged == 0)
        for p_avg, p_model in zip(own, theirs):
            p_model_ = p_model.detach().to(p_avg.device)
            averaged.append(p_avg.detach())
            current.append(p_model_)
            if first:
                p_avg.detach().copy_(p_model_)
        if not first:
            if self.multi_avg_fn is not None or self.avg_fn is None:
                for (device, _), (avg_list, cur_list) in _group_by_device_and_dtype(
                    averaged, current
                ).items():
                    n_averaged = self.n_averaged.to(device)
                    if self.multi_avg_fn is not None:
                        self.multi_avg_fn(avg_list, cur_list, n_averaged)
                    else:
                        # PyTorch's CPU path: the per-tensor average (no fused kernels)
                        swa = get_swa_avg_fn()
                        for p_avg, p_model in zip(avg_list, cur_list):
                            p_avg.copy_(swa(p_avg, p_model, n_averaged))
            else:
                for p_avg, p_model in zip(averaged, current):
                    n_averaged = self.n_averaged.to(p_avg.device)
                    p_avg.detach().copy_(self.avg_fn(p_avg.detach(), p_model, n_averaged))
        if not self.use_buffers:
            own_buffers = list(self.module.buffers())
            their_buffers = list(model.buffers())
            if len(own_buffers) != len(their_buffers):  # PyTorch's zip(..., strict=True)
                which = "shorter" if len(their_buffers) < len(own_buffers) else "longer"
                raise ValueError(f"zip() argument 2 is {which} than argument 1")
            for b_swa, b_model in zip(own_buffers, their_buffers):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recomputes the running mean and variance of every BatchNorm layer of ``model`` with
    one pass over ``loader`` (each batch a tensor, or a list/tuple whose first element is the
    input), as a cumulative average (``momentum=None`` for the pass); the layers' momenta and
    the model's training mode are restored afterwards."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


def _format_param(name, optimizer, param):
    """One value per parameter group: ``param`` for all, or the list given (one each)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. {name} has "
                f"{len(param)} values, param_groups has {len(optimizer.param_groups)}."
            )
        values = list(param)
    else:
        values = [param] * len(optimizer.param_groups)
    return [v.clone() if isinstance(v, _core.Tensor) else v for v in values]


class SWALR(LRScheduler):
    """Anneals each group's learning rate from its current value to ``swa_lr`` (one value,
    or one per group, stored as ``group["swa_lr"]``) over ``anneal_epochs`` steps, by cosine
    (``"cos"``) or linear (``"linear"``) interpolation, then keeps it there, with PyTorch's
    recursive formula (so the rates agree with PyTorch's to the last bit)."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for value, group in zip(swa_lrs, optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(
                f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy):
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self):
        """The rates of the step being taken: the rate the previous step's interpolation
        started from, moved to ``swa_lr`` by the annealing function of ``step / anneal_epochs``
        (clamped to ``[0, 1]``)."""
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, "
                "please use `get_last_lr()`.",
                UserWarning,
                stacklevel=2,
            )
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        prev_lrs = [
            self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
            for group in self.optimizer.param_groups
        ]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [
            group["swa_lr"] * alpha + lr * (1 - alpha)
            for group, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]

    def state_dict(self):
        """Everything but the optimizer and the annealing function."""
        return {
            key: value
            for key, value in self.__dict__.items()
            if key not in ("optimizer", "anneal_func")
        }

    def load_state_dict(self, state_dict):
        """Restores what :meth:`state_dict` returned (the annealing function from its name)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
