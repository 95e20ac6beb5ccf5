"""The layer functions of ``nn.functional`` (re-exported there)."""

__all__: list = []
