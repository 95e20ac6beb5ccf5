"""``utils.data``: datasets, samplers and ``DataLoader``."""

__all__: list = []
