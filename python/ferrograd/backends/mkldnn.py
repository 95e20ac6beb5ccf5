"""``torch.backends.mkldnn``: oneDNN (MKL-DNN) is not used by ferrograd."""

enabled = True


def is_available():
    """False: ferrograd does not use it."""
    return False
