"""Pictures of the autograd graph: ``make_dot``, in the spirit of the torchviz package.

``make_dot(loss, params=dict(model.named_parameters()))`` walks the backward graph from
``loss.grad_fn`` through ``next_functions`` and returns a :class:`DotGraph`: its ``.source`` is
the Graphviz DOT text (always available, no dependency), and ``.render()``/``.pipe()`` turn it
into SVG or PNG with the ``graphviz`` Python package and Graphviz's ``dot`` program.

The colours are torchviz's: backward nodes (``MulBackward0``, ``AccumulateGrad``, ...) are grey
boxes; leaf tensors that require grad (the ones whose ``.grad`` ``backward()`` fills) are light
blue, labelled with their name in ``params`` and their shape; saved tensors are orange; the
output tensors are green, and the base of an output that is a view dark green, joined to it by a
dotted edge. Edges point the way the forward pass went: from a node to the node that used its
result.

Saved tensors and attributes: PyTorch's nodes expose what they saved for backward as
``_saved_*`` attributes (``_saved_self``, ``_saved_dim``, ...) and a custom ``Function``'s node
its ``saved_tensors``; ``show_saved``/``show_attrs`` draw whatever the nodes expose. ferrograd's
nodes expose the saved tensors of the pointwise ops, ``mul``, ``div`` and ``pow`` so far (not yet
saved non-tensor values, nor other ops' saves); when none of the drawn nodes exposes anything,
``make_dot`` warns once that there was nothing to draw.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

from ._core import Tensor

__all__ = ["DotGraph", "make_dot"]

#: Attributes of a backward node that hold what it saved for backward (PyTorch's convention).
SAVED_PREFIX = "_saved_"

_DOT_HINT = (
    "Graphviz's dot program (apt-get install graphviz on Debian/Ubuntu, brew install graphviz "
    "on macOS, or see https://graphviz.org/download/)"
)
_INSTALL_HINT = (
    "install the graphviz Python package (pip install graphviz, or pip install "
    "'ferrograd[demo]') and " + _DOT_HINT
)

_NODE_ATTR = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "ranksep": "0.1",
    "height": "0.2",
    "fontname": "monospace",
}


def _quote(text: str) -> str:
    """``text`` as a DOT quoted string (backslashes and quotes escaped, newlines as ``\\n``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _attr_list(attrs: Mapping[str, str]) -> str:
    return " ".join(f"{k}={_quote(v)}" for k, v in attrs.items())


class DotGraph:
    """A Graphviz picture of an autograd graph, made by :func:`make_dot`.

    ``source`` (and ``str(graph)``) is the DOT text; ``nodes`` and ``edges`` are the same graph
    as Python data: ``nodes`` maps each node's id to ``(label, attributes)`` and ``edges`` lists
    ``(tail, head, attributes)``. ``render``/``pipe`` need the ``graphviz`` Python package and
    Graphviz's ``dot`` program; ``save`` writes the DOT text and needs nothing.
    """

    def __init__(
        self,
        node_attr: Mapping[str, str] | None = None,
        graph_attr: Mapping[str, str] | None = None,
    ) -> None:
        self.node_attr: dict[str, str] = dict(node_attr or {})
        self.graph_attr: dict[str, str] = dict(graph_attr or {})
        self.nodes: dict[str, tuple[str, dict[str, str]]] = {}
        self.edges: list[tuple[str, str, dict[str, str]]] = []

    def node(self, name: str, label: str, **attrs: str) -> None:
        """Adds node ``name`` with ``label`` (a node added again keeps its latest label)."""
        self.nodes[name] = (label, dict(attrs))

    def edge(self, tail: str, head: str, **attrs: str) -> None:
        """Adds an edge from ``tail`` to ``head``."""
        self.edges.append((tail, head, dict(attrs)))

    @property
    def source(self) -> str:
        """The DOT text of the graph."""
        lines = ["digraph {"]
        if self.graph_attr:
            lines.append(f"\tgraph [{_attr_list(self.graph_attr)}]")
        if self.node_attr:
            lines.append(f"\tnode [{_attr_list(self.node_attr)}]")
        for name, (label, attrs) in self.nodes.items():
            extra = f" {_attr_list(attrs)}" if attrs else ""
            lines.append(f"\t{_quote(name)} [label={_quote(label)}{extra}]")
        for tail, head, attrs in self.edges:
            extra = f" [{_attr_list(attrs)}]" if attrs else ""
            lines.append(f"\t{_quote(tail)} -> {_quote(head)}{extra}")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"<DotGraph: {len(self.nodes)} nodes, {len(self.edges)} edges>"

    def save(self, filename: str | os.PathLike) -> str:
        """Writes the DOT text to ``filename`` (render it later with ``dot -Tsvg filename``);
        returns the path. Needs neither the graphviz package nor ``dot``."""
        path = os.fspath(filename)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.source)
        return path

    def _call(self, action: str, method: str, **kwargs: Any) -> Any:
        """``graphviz.Source(self.source).<method>(**kwargs)``, with messages that say what to
        install when the graphviz package or the ``dot`` program is missing."""
        try:
            import graphviz  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError as e:
            raise ImportError(
                f"{action} the autograd graph needs Graphviz: " + _INSTALL_HINT
                + ". The DOT text is available without them as .source or .save(filename)."
            ) from e
        try:
            return getattr(graphviz.Source(self.source), method)(**kwargs)
        except graphviz.ExecutableNotFound as e:
            raise RuntimeError(
                f"{action} the autograd graph needs Graphviz's dot program, which was not found "
                "on PATH: install " + _DOT_HINT
                + ". The DOT text is available without it as .source or .save(filename)."
            ) from e

    def pipe(self, format: str = "svg") -> bytes:
        """The picture in ``format`` (``"svg"``, ``"png"``, ``"pdf"``, ...) as bytes.

        Raises ImportError when the graphviz Python package is missing and RuntimeError when
        Graphviz's ``dot`` program is, naming what to install."""
        return bytes(self._call("drawing", "pipe", format=format))

    def render(
        self,
        filename: str | os.PathLike | None = None,
        directory: str | os.PathLike | None = None,
        format: str = "svg",
        cleanup: bool = True,
        view: bool = False,
    ) -> str:
        """Draws the graph into ``filename + "." + format`` (``"svg"`` or ``"png"``, or any
        format ``dot`` knows) and returns that path, as ``graphviz.Digraph.render`` does: the
        DOT text goes to ``filename`` (default ``"autograd_graph"``), removed afterwards unless
        ``cleanup=False``; ``view=True`` opens the picture.

        Raises ImportError when the graphviz Python package is missing and RuntimeError when
        Graphviz's ``dot`` program is, naming what to install."""
        name = os.fspath(filename) if filename is not None else "autograd_graph"
        where = os.fspath(directory) if directory is not None else None
        source_path = os.path.join(where, name) if where is not None else name
        existed = os.path.exists(source_path)
        try:
            out = self._call(
                "rendering",
                "render",
                filename=name,
                directory=where,
                format=format,
                cleanup=cleanup,
                view=view,
            )
        except RuntimeError:
            # graphviz wrote the DOT text before it found no dot to run: leave no stray file
            if cleanup and not existed and os.path.exists(source_path):
                os.remove(source_path)
            raise
        return str(out)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Jupyter's display: the SVG when Graphviz is installed, else the DOT text."""
        try:
            return {"image/svg+xml": self.pipe("svg").decode("utf-8")}
        except (ImportError, RuntimeError):
            return {"text/plain": self.source}


def _shape(t: Tensor) -> str:
    return "(" + ", ".join(str(int(d)) for d in t.shape) + ")"


def _param_map(params: Any) -> dict[int, str]:
    if params is None:
        return {}
    items = params.items() if isinstance(params, Mapping) else params
    names: dict[int, str] = {}
    for item in items:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(
                "make_dot(): params must be a dict of name -> tensor (such as "
                f"dict(model.named_parameters())) or (name, tensor) pairs, got {item!r}"
            )
        name, value = item
        if not isinstance(value, Tensor):
            raise TypeError(
                f"make_dot(): params[{name!r}] must be a Tensor, got {type(value).__name__}"
            )
        names[id(value)] = str(name)
    return names


def _saved_attrs(fn: Any) -> list[tuple[str, Any]]:
    """The ``_saved_*`` attributes of a backward node, without the prefix."""
    out = []
    for attr in dir(fn):
        if attr.startswith(SAVED_PREFIX):
            try:
                val = getattr(fn, attr)
            except Exception:  # a released buffer: PyTorch raises on access after backward
                continue
            out.append((attr[len(SAVED_PREFIX):], val))
    return out


def _fn_label(fn: Any, show_attrs: bool, max_attr_chars: int) -> str:
    """The node's class name, and with ``show_attrs`` a table of its saved non-tensor values."""
    name = type(fn).__name__
    if not show_attrs:
        return name
    attrs: dict[str, str] = {}
    for attr, val in _saved_attrs(fn):
        if isinstance(val, Tensor):
            attrs[attr] = "[saved tensor]"
        elif isinstance(val, tuple) and any(isinstance(t, Tensor) for t in val):
            attrs[attr] = "[saved tensors]"
        else:
            attrs[attr] = str(val)
    if not attrs:
        return name
    max_attr_chars = max(max_attr_chars, 3)
    col1 = max(len(k) for k in attrs)
    col2 = min(max(len(v) for v in attrs.values()), max_attr_chars)
    sep = "-" * max(col1 + col2 + 2, len(name))

    def cut(s: str) -> str:
        return s[: col2 - 3] + "..." if len(s) > col2 else s

    rows = "\n".join(f"{k:<{col1}}: {cut(v):>{col2}}" for k, v in attrs.items())
    return f"{name}\n{sep}\n{rows}"


def make_dot(
    output: Tensor | Iterable[Tensor],
    params: Mapping[str, Tensor] | Iterable[tuple[str, Tensor]] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
) -> DotGraph:
    """The Graphviz picture of the backward graph that ends in ``output``, as torchviz draws it.

    Backward nodes are grey boxes named by their class (``AddmmBackward0``); each leaf tensor
    that requires grad is a light blue box under its ``AccumulateGrad``, labelled with its name
    in ``params`` and its shape; ``output`` (a tensor, or a tuple/list of tensors) is green, and
    the base of an output that is a view dark green. Edges go from inputs to the nodes that used
    them. The graph is walked without recursion, so graphs of any depth can be drawn.

    Args:
        output: the tensor (or tensors) whose graph to draw.
        params: names for the leaf tensors: ``dict(model.named_parameters())`` or
            ``(name, tensor)`` pairs.
        show_attrs: add the non-tensor values each node saved for backward (its ``_saved_*``
            attributes) under its name.
        show_saved: draw the tensors each node saved for backward (orange). Those of a custom
            ``Function``'s node (``saved_tensors``) are always drawn.
        max_attr_chars: with ``show_attrs``, the widest value shown before ``...``.

    Returns:
        a :class:`DotGraph`: ``.source`` is the DOT text, ``.render()``/``.pipe()`` draw it.
    """
    names = _param_map(params)
    outputs: list[Any] = list(output) if isinstance(output, (tuple, list)) else [output]
    for t in outputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dot(): expected a Tensor, got {type(t).__name__}")

    dot = DotGraph(node_attr=_NODE_ATTR, graph_attr={"size": "12,12"})
    keep: list[Any] = []  # the objects named by id(), kept alive so that no id is reused
    tensor_ids: dict[int, str] = {}
    fn_ids: dict[Any, str] = {}  # backward nodes compare and hash by the node they stand for

    def tensor_id(t: Tensor) -> str:
        key = id(t)
        if key not in tensor_ids:
            keep.append(t)
            tensor_ids[key] = f"t{len(tensor_ids)}"
        return tensor_ids[key]

    def fn_id(fn: Any) -> str:
        if fn not in fn_ids:
            fn_ids[fn] = f"f{len(fn_ids)}"
        return fn_ids[fn]

    def var_label(t: Tensor, name: str | None = None) -> str:
        return f"{name or names.get(id(t), '')}\n {_shape(t)}"

    seen_tensors: set[int] = set()
    seen_fns: set[Any] = set()
    exposes_saved = False

    def add_graph(root: Any) -> None:
        """Adds ``root`` and every node it reaches: a depth-first walk with its own stack."""
        nonlocal exposes_saved
        stack = [root]
        while stack:
            fn = stack.pop()
            if fn in seen_fns:
                continue
            seen_fns.add(fn)
            me = fn_id(fn)
            saved = _saved_attrs(fn) if (show_saved or show_attrs) else []
            exposes_saved = exposes_saved or bool(saved)
            if show_saved:
                for attr, val in saved:
                    vals = [(attr, val)] if isinstance(val, Tensor) else (
                        [(f"{attr}[{i}]", v) for i, v in enumerate(val) if isinstance(v, Tensor)]
                        if isinstance(val, tuple) else []
                    )
                    for label, t in vals:
                        seen_tensors.add(id(t))
                        dot.edge(me, tensor_id(t), dir="none")
                        dot.node(tensor_id(t), var_label(t, label), fillcolor="orange")
            var = getattr(fn, "variable", None)
            if isinstance(var, Tensor):  # AccumulateGrad: the leaf it accumulates into
                seen_tensors.add(id(var))
                dot.node(tensor_id(var), var_label(var), fillcolor="lightblue")
                dot.edge(tensor_id(var), me)
            dot.node(me, _fn_label(fn, show_attrs, max_attr_chars))
            nexts = [u for u, _ in getattr(fn, "next_functions", ()) if u is not None]
            for u in nexts:
                dot.edge(fn_id(u), me)
            stack.extend(reversed(nexts))  # visit in order, as a recursive walk would
            for t in getattr(fn, "saved_tensors", None) or ():
                if isinstance(t, Tensor):
                    seen_tensors.add(id(t))
                    dot.edge(tensor_id(t), me, dir="none")
                    dot.node(tensor_id(t), var_label(t), fillcolor="orange")

    for out in outputs:
        base: Tensor | None = out  # then the base of each view in turn
        color = "darkolivegreen1"
        while base is not None and id(base) not in seen_tensors:
            seen_tensors.add(id(base))
            dot.node(tensor_id(base), var_label(base), fillcolor=color)
            if base.grad_fn is not None:
                add_graph(base.grad_fn)
                dot.edge(fn_id(base.grad_fn), tensor_id(base))
            view_of = base._base
            if view_of is not None:
                dot.edge(tensor_id(view_of), tensor_id(base), style="dotted")
                base, color = view_of, "darkolivegreen3"
            else:
                base = None

    if (show_saved or show_attrs) and not exposes_saved and seen_fns:
        warnings.warn(
            "make_dot(): none of these backward nodes exposes what it saved for backward "
            "(PyTorch's _saved_* attributes; ferrograd's nodes expose them for the pointwise ops, "
            "mul, div and pow so far), so show_saved/show_attrs have nothing to draw",
            UserWarning,
            stacklevel=2,
        )

    # torchviz's resize_graph: a larger canvas for larger graphs
    size = max(12.0, (len(dot.nodes) + len(dot.edges)) * 0.15)
    dot.graph_attr["size"] = f"{size:g},{size:g}"
    return dot
