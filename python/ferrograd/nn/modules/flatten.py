"""``Flatten`` and ``Unflatten``."""

from .module import Module


class Flatten(Module):
    """Flattens dims ``start_dim`` .. ``end_dim`` into one."""

    __constants__ = ("start_dim", "end_dim")

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        """``input.flatten(start_dim, end_dim)``."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into the sizes ``unflattened_size`` (one of which may be -1)."""

    __constants__ = ("dim", "unflattened_size")

    def __init__(self, dim, unflattened_size):
        super().__init__()
        if isinstance(dim, str):
            raise TypeError("ferrograd has no named tensors: dim must be an int")
        if not isinstance(dim, int):
            raise TypeError("invalid argument type for dim parameter")
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                "unflattened_size must be tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        for i, size in enumerate(unflattened_size):
            if not isinstance(size, int):
                raise TypeError(
                    "unflattened_size must be tuple of ints, but found element of type "
                    f"{type(size).__name__} at pos {i}"
                )
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input):
        """``input`` with dim ``dim`` split into ``unflattened_size``."""
        shape = list(input.shape)
        dim = self.dim + len(shape) if self.dim < 0 else self.dim
        sizes = list(self.unflattened_size)
        known = 1
        for s in sizes:
            if s != -1:
                known *= s
        if -1 in sizes:
            sizes[sizes.index(-1)] = shape[dim] // known if known else 0
        elif known != shape[dim]:
            raise RuntimeError(
                f"unflatten: Provided sizes {list(self.unflattened_size)} don't multiply up to "
                f"the size of dim {self.dim} ({shape[dim]}) in the input tensor"
            )
        return input.reshape(*shape[:dim], *sizes, *shape[dim + 1 :])

    def extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


__all__ = ["Flatten", "Unflatten"]
