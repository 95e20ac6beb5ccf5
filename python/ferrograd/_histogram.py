"""``histc`` and ``histogram``: counts of a tensor's elements in equal-width bins (or between
given edges), computed as PyTorch's CPU kernel computes them (a bin from ``(x - lo) * bins /
(hi - lo)`` in the input's dtype, then a local search among the edges for ``histogram``, the
last bin closed on the right), so the counts agree with PyTorch's on its edge cases."""

from collections import namedtuple

import numpy as np

from . import _core

__all__ = ["histc", "histogram"]

histogram_result = namedtuple("histogram", ["hist", "bin_edges"])  # type: ignore[name-match]


def _values(input, name):
    if not input.is_floating_point():
        raise RuntimeError(
            f"torch.{name}: input tensor and bins tensors should have the same dtype, but got "
            f"input {input.dtype} and bins {input.dtype}"
            if name == "histogram"
            else f"\"histogram_cpu\" not implemented for '{str(input.dtype).split('.')[-1]}'"
        )
    return input.detach().contiguous().numpy().reshape(-1)


def _outer_edges(x, lo, hi, name, equal_pad):
    """The range ``[lo, hi]``: the data's when not given; widened when empty."""
    if lo == hi == 0 or (lo is None and hi is None):
        if x.size:
            lo, hi = x.min(), x.max()
        else:
            lo, hi = 0, 0
    lo, hi = x.dtype.type(lo), x.dtype.type(hi)
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.{name}: range of [{lo}, {hi}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.{name}: min should not exceed max, but got min {lo} max {hi}")
    if lo == hi:
        lo, hi = lo - x.dtype.type(equal_pad), hi + x.dtype.type(equal_pad)
    return lo, hi


def _count(x, edges, weights, linear, local_search):
    """PyTorch's bin of every element of ``x`` (NaN and out-of-range elements dropped)."""
    bins = len(edges) - 1
    lo, hi = edges[0], edges[-1]
    keep = (x >= lo) & (x <= hi)
    xs = x[keep]
    w = None if weights is None else weights[keep]
    if linear:
        ft = x.dtype.type
        pos = ((xs - lo) * ft(bins) / (hi - lo)).astype(np.int64)
        if local_search:
            # upper_bound among edges[pos - 1 : pos + 2], minus one
            n_edges = bins + 1
            pos_min = np.maximum(pos - 1, 0)
            pos_max = np.minimum(pos + 2, n_edges)
            below = np.zeros_like(pos)
            for k in range(3):
                at = pos_min + k
                below += (at < pos_max) & (edges[np.minimum(at, n_edges - 1)] <= xs)
            pos = pos_min + below - 1
    else:
        pos = np.searchsorted(edges, xs, side="right") - 1
    pos = np.where(pos == bins, bins - 1, pos)
    return np.bincount(pos, weights=w, minlength=bins).astype(x.dtype)


def histc(input, bins=100, min=0, max=0, *, out=None):
    """Counts of ``input``'s elements in ``bins`` equal bins over ``[min, max]`` (the data's
    range when both are 0); elements outside are ignored."""
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins))
    x = _values(input, "histc")
    lo, hi = _outer_edges(x, min, max, "histc", 1)
    edges = _core.linspace(float(lo), float(hi), bins + 1, dtype=input.dtype).numpy()
    counts = _count(x, edges, None, linear=True, local_search=False)
    result = _core.from_numpy(counts)
    if out is not None:
        return out.copy_(result)
    return result


def histogram(input, bins=100, *, range=None, weight=None, density=False, out=None):
    """``(hist, bin_edges)``: counts (or sums of ``weight``) of ``input``'s elements in
    ``bins`` equal bins over ``range`` (the data's range by default), or between the edges of a
    ``bins`` tensor; ``density`` divides by the total and the bin widths."""
    x = _values(input, "histogram")
    weights = None if weight is None else weight.detach().contiguous().numpy().reshape(-1)
    if isinstance(bins, _core.Tensor):
        edges = bins.detach().contiguous().numpy().reshape(-1).astype(x.dtype)
        linear = False
    else:
        if range is None and not x.size:
            lo, hi = 0.0, 1.0
        else:
            lo, hi = (None, None) if range is None else range
            lo, hi = _outer_edges(x, lo, hi, "histogram", 0.5)
        edges = _core.linspace(float(lo), float(hi), int(bins) + 1, dtype=input.dtype).numpy()
        linear = True
    counts = _count(x, edges, weights, linear=linear, local_search=True)
    if density:
        widths = np.diff(edges)
        total = counts.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            counts = (counts / (total * widths)).astype(x.dtype)
    result = histogram_result(_core.from_numpy(counts), _core.from_numpy(np.array(edges)))
    if out is not None:
        out[0].copy_(result.hist)
        out[1].copy_(result.bin_edges)
        return histogram_result(out[0], out[1])
    return result
