"""``torch.save``/``torch.load`` in PyTorch's file format."""


def save(obj, f):
    """Writes ``obj`` to ``f`` (being written)."""
    raise NotImplementedError("ferrograd.save is being written")


def load(f, map_location=None, weights_only=True):
    """Reads an object written by ``save`` (being written)."""
    raise NotImplementedError("ferrograd.load is being written")


__all__ = ["load", "save"]
