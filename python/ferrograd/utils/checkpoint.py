"""``utils.checkpoint``: recomputing a segment's forward in backward instead of saving it."""

__all__: list = []
