"""``torch.backends.mkl``: Intel MKL is not used by ferrograd."""


def is_available():
    """False: ferrograd does not use it."""
    return False
