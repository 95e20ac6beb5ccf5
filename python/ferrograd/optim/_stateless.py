"""``torch.optim._stateless``: running an optimizer over other tensors and another state for a
while, as ``nn.utils.stateless`` runs a module over other parameters.

:func:`swap_in_optimizer_params_and_state` takes parameters (one tensor per optimizer
parameter, in ``param_groups`` order) and a state in ``optimizer.state_dict()``'s form (state
keyed by packed parameter ids), and makes them the optimizer's for the ``with`` block: each
group's settings and parameter list, and ``optimizer.state`` (per-parameter dictionaries
copied, their tensors shared, so in-place updates reach the given state while reassignments
stay inside). On exit, normally or by an exception, the optimizer's own groups and state
objects come back unchanged.
"""

import contextlib
from collections import defaultdict

from .. import _core

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _refuse(message):
    raise RuntimeError(f"{_NAME}: {message}")


def _check(optimizer, parameters, swapin_optim_state):
    """Refuses a state that is not ``optimizer.state_dict()``'s form for this optimizer, or
    parameters that do not match its groups; returns the parameters as a list."""
    if not optimizer.state:
        _refuse(f"{_NAME} requires initialized optimizer state.")
    state = swapin_optim_state.get("state")
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(state, dict):
        _refuse(f"expects swapin_optim_state['state'] to be a dict, got {type(state).__name__}")
    if not isinstance(groups, list):
        _refuse(
            f"expects swapin_optim_state['param_groups'] to be a list, got {type(groups).__name__}"
        )
    live = optimizer.param_groups
    if len(groups) != len(live):
        _refuse(
            f"swapin_optim_state has a different number of parameter groups ({len(groups)}) "
            f"than the optimizer ({len(live)})"
        )
    ids = set()
    for i, (group, mine) in enumerate(zip(groups, live)):
        if len(group["params"]) != len(mine["params"]):
            _refuse(
                f"param group {i} has a different number of params in swapin_optim_state "
                f"({len(group['params'])}) than in the optimizer ({len(mine['params'])})"
            )
        for entry in group["params"]:
            if isinstance(entry, bool) or not isinstance(entry, int):
                _refuse(
                    "expects swapin_optim_state param_groups[*]['params'] entries keyed by "
                    f"packed parameter ids (as optimizer.state_dict() gives), got {entry!r}"
                )
            ids.add(entry)
    if any(isinstance(k, _core.Tensor) for k in state):
        _refuse(
            "expects the optimizer state keyed by packed parameter ids (as "
            "optimizer.state_dict() gives), not by tensors: swapin_optim_state['state'] has a "
            "tensor key"
        )
    extra = [k for k in state if k not in ids]
    if extra:
        _refuse(
            "swapin_optim_state['state'] has entries for no parameter of its param_groups: "
            f"got extra keys {extra}"
        )
    for key, entry in state.items():
        if not isinstance(entry, dict):
            _refuse(
                "expects per-parameter optimizer state entries to be dictionaries, got "
                f"{type(entry).__name__} for parameter {key}"
            )
    for i, (group, mine) in enumerate(zip(groups, live)):
        theirs, ours = set(group) - {"params"}, set(mine) - {"params"}
        if theirs != ours:
            _refuse(
                f"param group {i} settings differ. Keys only in swap-in: "
                f"{sorted(theirs - ours)}. Keys only in live: {sorted(ours - theirs)}"
            )
    tensors = list(parameters.values()) if isinstance(parameters, dict) else list(parameters)
    count = sum(len(g["params"]) for g in live)
    if len(tensors) != count:
        _refuse(
            f"got {len(tensors)} parameters for an optimizer of {count}: they must be one per "
            "optimizer parameter and match optimizer.param_groups ordering"
        )
    return tensors


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, parameters, swapin_optim_state):
    """Makes ``parameters`` (a dict or sequence, one tensor per optimizer parameter in
    ``param_groups`` order) and ``swapin_optim_state`` (``optimizer.state_dict()``'s form) the
    optimizer's inside the ``with`` block; restores its own on exit."""
    tensors = _check(optimizer, parameters, swapin_optim_state)
    saved_groups = [dict(g) for g in optimizer.param_groups]
    saved_state = optimizer.state
    swapped_state = defaultdict(dict)
    start = 0
    for group, theirs in zip(optimizer.param_groups, swapin_optim_state["param_groups"]):
        params = tensors[start : start + len(theirs["params"])]
        start += len(params)
        for p, key in zip(params, theirs["params"]):
            if key in swapin_optim_state["state"]:
                swapped_state[p] = dict(swapin_optim_state["state"][key])
        group.clear()
        group.update({k: v for k, v in theirs.items() if k != "params"})
        group["params"] = params
    optimizer.state = swapped_state
    try:
        yield
    finally:
        optimizer.state = saved_state
        for group, saved in zip(optimizer.param_groups, saved_groups):
            group.clear()
            group.update(saved)
