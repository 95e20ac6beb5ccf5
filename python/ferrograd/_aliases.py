"""PyTorch's second names for its functions: ``torch.multiply`` for ``torch.mul``, NumPy's
``arctan`` for ``atan``, ``fix`` for ``trunc``, ``ger`` for ``outer``... Each alias is the very
same function (and ``Tensor`` method, in-place twin included) under another name, as in PyTorch,
where they share one kernel; ``_install`` binds them on the namespace and on ``Tensor``, and
puts the convolutions of ``nn.functional`` in the namespace too, as PyTorch has them."""

ALIASES = {
    "multiply": "mul",
    "subtract": "sub",
    "divide": "div",
    "true_divide": "div",
    "negative": "neg",
    "absolute": "abs",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
    "arccos": "acos",
    "arcsin": "asin",
    "arctan": "atan",
    "arccosh": "acosh",
    "arcsinh": "asinh",
    "arctanh": "atanh",
    "arctan2": "atan2",
    "fix": "trunc",
    "ger": "outer",
}
"""alias -> the function it names again (both exist on the namespace and as ``Tensor``
methods; the in-place method ``alias_`` is ``target_``)."""

# functions of ``nn.functional`` that PyTorch also has in its namespace (``torch.conv2d``)
FROM_FUNCTIONAL = (
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "conv_tbc",
    "cosine_similarity",
    "hardshrink",
    "pairwise_distance",
    "pdist",
    "prelu",
    "rrelu",
)

# functions of the namespace PyTorch also has as Tensor methods (``x.det()``)
NAMESPACE_METHODS = ("det", "logdet", "slogdet", "inverse", "matrix_power")


def _install(namespace, tensor):
    """Binds the aliases in the module dict ``namespace`` and on the class ``tensor``."""
    for alias, target in ALIASES.items():
        namespace[alias] = namespace[target]
        setattr(tensor, alias, getattr(tensor, target))
        if hasattr(tensor, target + "_"):
            setattr(tensor, alias + "_", getattr(tensor, target + "_"))
    if hasattr(tensor, "clamp_"):
        tensor.clip_ = tensor.clamp_
    for name in NAMESPACE_METHODS:
        setattr(tensor, name, namespace[name])
    functional = namespace["nn"].functional
    for name in FROM_FUNCTIONAL:
        namespace[name] = getattr(functional, name)
