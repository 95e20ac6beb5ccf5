"""``torch.__future__``: switches for behaviours PyTorch means to change.

``set_overwrite_module_params_on_conversion(True)`` makes ``Module.to``/``float``/``double``
/... give the module new ``Parameter`` objects instead of converting the existing ones in
place. ``set_swap_module_params_on_conversion(True)`` makes them, and ``load_state_dict``,
swap each parameter's contents with the converted or loaded tensor's
(``torch.utils.swap_tensors``) instead of ``param.data = ...`` or ``param.copy_(...)``."""

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
    """Whether converting a module (and ``load_state_dict``) swaps each parameter's contents
    with ``torch.utils.swap_tensors`` (the objects keep their identity) instead of assigning
    ``.data`` or copying into them."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = bool(value)


def get_swap_module_params_on_conversion() -> bool:
    """See :func:`set_swap_module_params_on_conversion` (default ``False``)."""
    return _swap_module_params_on_conversion
