"""``torch.__future__``: switches for behaviours PyTorch means to change.

``set_overwrite_module_params_on_conversion(True)`` makes ``Module.to``/``float``/``double``
/... give the module new ``Parameter`` objects instead of converting the existing ones in
place. ``set_swap_module_params_on_conversion(True)`` asks PyTorch to swap each parameter's
contents with ``torch.utils.swap_tensors``; ferrograd cannot swap two tensors' contents (a
tensor's dtype and shape are fixed for its life), so it refuses the switch rather than
ignore it."""

_overwrite_module_params_on_conversion: bool = False
_swap_module_params_on_conversion: bool = False


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    """Whether converting a module assigns new parameters instead of converting in place."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = bool(value)


def get_overwrite_module_params_on_conversion() -> bool:
    """See :func:`set_overwrite_module_params_on_conversion` (default ``False``)."""
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value: bool) -> None:
    """``False`` is PyTorch's default and ferrograd's behaviour; ``True`` is refused
    (``NotImplementedError``): ferrograd has no ``swap_tensors``."""
    global _swap_module_params_on_conversion
    if value:
        raise NotImplementedError(
            "set_swap_module_params_on_conversion(True): ferrograd cannot swap the contents of "
            "two tensors (torch.utils.swap_tensors); module conversions and load_state_dict "
            "convert or copy into the existing parameters instead"
        )
    _swap_module_params_on_conversion = False


def get_swap_module_params_on_conversion() -> bool:
    """Always ``False`` in ferrograd (see :func:`set_swap_module_params_on_conversion`)."""
    return _swap_module_params_on_conversion
