"""``torch.backends.openmp``: not used by ferrograd (it has its own thread pool)."""


def is_available():
    """False: ferrograd does not use it."""
    return False
