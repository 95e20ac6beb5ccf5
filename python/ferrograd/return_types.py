"""``torch.return_types``: the named tuples ops return, as PyTorch names and prints them
(``torch.return_types.max(\\nvalues=...,\\nindices=...)``), picklable by name."""

from __future__ import annotations

from collections import namedtuple


def _structseq(name: str, fields: list[str]) -> type:
    """A named tuple class called ``name`` with PyTorch's multi-line repr."""
    base = namedtuple(name, fields)  # type: ignore[misc]

    def __repr__(self):
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    doc = f"``({', '.join(fields)})``, the result of ``{name}``."
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__doc__": doc,
                                "__module__": __name__})  # fmt: skip


_VALUES_INDICES = ["values", "indices"]
max = _structseq("max", _VALUES_INDICES)
min = _structseq("min", _VALUES_INDICES)
sort = _structseq("sort", _VALUES_INDICES)
topk = _structseq("topk", _VALUES_INDICES)
kthvalue = _structseq("kthvalue", _VALUES_INDICES)
median = _structseq("median", _VALUES_INDICES)
nanmedian = _structseq("nanmedian", _VALUES_INDICES)
mode = _structseq("mode", _VALUES_INDICES)
cummax = _structseq("cummax", _VALUES_INDICES)
cummin = _structseq("cummin", _VALUES_INDICES)
aminmax = _structseq("aminmax", ["min", "max"])

__all__ = [
    "aminmax",
    "cummax",
    "cummin",
    "kthvalue",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "sort",
    "topk",
]
