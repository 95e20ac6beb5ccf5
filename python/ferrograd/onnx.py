"""``torch.onnx``: importable, as programs import it at the top; exporting a model to ONNX is
refused (ferrograd records no graph ONNX could describe)."""

__all__ = ["export", "is_in_onnx_export"]


def export(*args, **kwargs):
    """Refused: ferrograd cannot export models to ONNX."""
    raise NotImplementedError("torch.onnx.export: ferrograd cannot export models to ONNX")


def is_in_onnx_export():
    """False: never inside an ONNX export."""
    return False
