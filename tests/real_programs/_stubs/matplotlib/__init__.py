"""Output-only stand-in (matplotlib is not installed in the PyTorch environment): every
``matplotlib.pyplot`` function and every object it returns accepts anything and does nothing."""


def use(*args, **kwargs):
    pass
