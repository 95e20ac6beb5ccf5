"""``torch.utils._pytree``: nested containers (tuples, lists, dicts, named tuples) flattened into
their leaves and rebuilt, as ``__torch_dispatch__`` implementations use it to unwrap and wrap
the arguments of a call."""

from collections import OrderedDict

__all__ = [
    "LeafSpec",
    "TreeSpec",
    "tree_flatten",
    "tree_leaves",
    "tree_map",
    "tree_map_only",
    "tree_structure",
    "tree_unflatten",
]


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _children(node):
    """``(children, context)`` of a container node, or None for a leaf (``None`` is a leaf, as
    PyTorch's)."""
    if _is_namedtuple(node):
        return list(node), type(node)
    if isinstance(node, (tuple, list)):
        return list(node), None
    if isinstance(node, dict):
        keys = list(node.keys())
        return [node[k] for k in keys], keys
    return None


class TreeSpec:
    """The structure of a flattened tree: the container type, its context (dict keys, named
    tuple class) and its children's specs."""

    def __init__(self, type, context, children_specs):
        self.type = type
        self.context = context
        self.children_specs = children_specs
        self.num_leaves = sum(c.num_leaves for c in children_specs)

    def is_leaf(self):
        """Whether this is the spec of a single leaf."""
        return False

    def __eq__(self, other):
        return (
            isinstance(other, TreeSpec)
            and not isinstance(other, LeafSpec)
            and (self.type, self.context, self.children_specs)
            == (other.type, other.context, other.children_specs)
        )

    def __repr__(self):
        return f"TreeSpec({self.type.__name__}, {self.context}, {self.children_specs})"


class LeafSpec(TreeSpec):
    """The spec of a single leaf."""

    def __init__(self):
        super().__init__(None, None, [])
        self.num_leaves = 1

    def is_leaf(self):
        return True

    def __eq__(self, other):
        return isinstance(other, LeafSpec)

    def __repr__(self):
        return "*"


def tree_flatten(tree, is_leaf=None):
    """The leaves of ``tree`` in order, and its :class:`TreeSpec`."""
    leaves = []

    def flatten(node):
        parts = None if is_leaf is not None and is_leaf(node) else _children(node)
        if parts is None:
            leaves.append(node)
            return LeafSpec()
        children, context = parts
        return TreeSpec(type(node), context, [flatten(c) for c in children])

    spec = flatten(tree)
    return leaves, spec


def tree_unflatten(leaves, treespec):
    """The tree of ``treespec``'s structure holding ``leaves``."""
    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(
            f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
            f"to a pytree that holds {treespec.num_leaves} items ({treespec})."
        )
    it = iter(leaves)

    def build(spec):
        if spec.is_leaf():
            return next(it)
        children = [build(c) for c in spec.children_specs]
        if spec.context is not None and isinstance(spec.context, type):
            return spec.context(*children)
        if issubclass(spec.type, dict):
            made = dict(zip(spec.context, children))
            return OrderedDict(made) if spec.type is OrderedDict else spec.type(made)
        return spec.type(children)

    return build(treespec)


def tree_leaves(tree, is_leaf=None):
    """The leaves of ``tree``, in order."""
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None):
    """The :class:`TreeSpec` of ``tree``."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with every leaf replaced by ``func(leaf, *same_leaf_of_each_rest)``."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec_leaves for spec_leaves in (tree_flatten(r, is_leaf)[0] for r in rests)]
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)


def tree_map_only(type_or_types, func, tree, is_leaf=None):
    """``tree`` with the leaves of the given type(s) replaced by ``func(leaf)``."""
    return tree_map(lambda x: func(x) if isinstance(x, type_or_types) else x, tree, is_leaf=is_leaf)
