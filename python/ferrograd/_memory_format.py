"""``torch.memory_format``: the order a tensor's elements are laid out in. ferrograd makes
row-major results; ``contiguous(memory_format=torch.channels_last)`` makes a channels-last copy
(every op reads any strides), and ``is_contiguous(memory_format=...)`` checks a layout."""


class memory_format:
    """A memory format (``torch.contiguous_format``, ``torch.channels_last``, ...)."""

    __slots__ = ("_memory_format_name",)

    def __init__(self, name):
        self._memory_format_name = name

    def __repr__(self):
        return f"torch.{self._memory_format_name}"

    def __reduce__(self):
        return self._memory_format_name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
