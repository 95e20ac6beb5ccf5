"""``torch.backends.mps``: Apple's Metal (MPS) is not used by ferrograd."""


def is_built():
    """False: ferrograd is not built with MPS."""
    return False


def is_available():
    """False: ferrograd does not use it."""
    return False
