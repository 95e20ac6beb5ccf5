"""Calling a module with other parameters and buffers than its own (``torch.func.functional_call``,
and the deprecated ``torch.nn.utils.stateless.functional_call``): the given tensors stand in the
module's ``_parameters``/``_buffers`` tables for one call and the module's own come back after,
even when the call raises."""

from __future__ import annotations

import contextlib
import warnings

__all__ = ["functional_call"]


def _owner(module, name):
    """The submodule holding dotted ``name`` and the last part of the name."""
    *path, last = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, last


def _untie(module, given):
    """``given`` with each value also under the other names of a tensor the module ties to it
    (PyTorch's ``_untie_named_tensors_map``)."""
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    names_of = {}
    for name, tensor in named.items():
        names_of.setdefault(id(tensor), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    given_tied = [n for n in given if n in tied]
    for name in given_tied:
        names = tied[name]
        if (
            len(names & set(given_tied)) > 1
            and len({id(given[n]) for n in names if n in given}) != 1
        ):
            raise ValueError(
                f"functional_call got multiple values for keys {sorted(names)}, "
                "which are tied. Consider using tie_weights=False"
            )
    untied = dict(given)
    for name in given_tied:
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _swap(module, name, value):
    """Puts ``value`` in place of tensor ``name``; returns what was there (None if nothing)."""
    owner, last = _owner(module, name)
    for table in (owner._parameters, owner._buffers):
        if last in table:
            old, table[last] = table[last], value
            return old
    old = owner.__dict__.get(last)
    object.__setattr__(owner, last, value)
    return old


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers, tie_weights=False, strict=False):
    """For the ``with`` block, ``module`` computes with ``parameters_and_buffers`` (a name ->
    tensor dict) in place of its own; values the call reassigns are written back to the dict."""
    given = _untie(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        own = [n for n, _ in module.named_parameters(remove_duplicate=False)]
        own += [n for n, _ in module.named_buffers(remove_duplicate=False)]
        unexpected = sorted(k for k in given if k not in own)
        missing = sorted(k for k in own if k not in given)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + "\n\t".join(errors)
            )
    originals = {}
    try:
        for name, value in given.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        current = {name: _swap(module, name, old) for name, old in reversed(originals.items())}
        for name in parameters_and_buffers:
            if name in current:
                parameters_and_buffers[name] = current[name]


def _functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged = {}
        for d in parameters_and_buffers:
            repeated = set(merged) & set(d)
            if repeated:
                raise ValueError(
                    f"{sorted(repeated)} appeared in multiple dictionaries; behavior of "
                    "functional call is ambiguous"
                )
            merged.update(d)
        parameters_and_buffers = merged
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)


def functional_call(
    module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False
):
    """Deprecated spelling of ``torch.func.functional_call`` (warns ``FutureWarning`` as
    PyTorch's)."""
    warnings.warn(
        "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will be "
        "removed in a future version of PyTorch. Please use `torch.func.functional_call` instead "
        "which is a drop-in replacement.",
        FutureWarning,
        stacklevel=2,
    )
    return _functional_call(
        module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict
    )
