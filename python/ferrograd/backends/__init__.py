"""``torch.backends``: the flags PyTorch's backends keep, as a PyTorch built for the CPU alone
reports them. Programs set them (``cudnn.benchmark = True``, ``cuda.matmul.allow_tf32 = True``)
whatever their device; here the flags are kept and read back, and none changes a result:
ferrograd always computes float32 products in full float32 and is always deterministic."""

from . import cuda, cudnn, mkl, mkldnn, mps, openmp, quantized

__all__ = ["cuda", "cudnn", "mkl", "mkldnn", "mps", "openmp", "quantized"]
