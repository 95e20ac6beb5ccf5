"""``torch.profiler.itt``: Intel ITT annotations. ferrograd is not built with ITT, so
``is_available()`` is False (as in a PyTorch build without it)."""


def is_available():
    """Whether ITT annotations can be emitted: never in ferrograd."""
    return False


__all__ = ["is_available"]
