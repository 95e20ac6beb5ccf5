"""ferrograd.viz.make_dot: the DOT text of the backward graph, checked against the grad_fn graph.

The seed 002 graphs (``x.norm()``, the two-layer tanh network, the shared ``w[i]`` loop) are
compared with their expected structure written out by hand (node labels and edges, as torchviz
draws them from PyTorch's graph) and with a walk of ``grad_fn.next_functions``. Rendering is
tested when the graphviz package and the dot program are there; the messages that say what to
install are tested by hiding them.
"""

import re
import shutil
import sys
import warnings

import ferrograd as torch
import pytest
from ferrograd import nn
from ferrograd.viz import DotGraph, _fn_label, make_dot

NODE = re.compile(r'^\t"([^"]+)" \[label="((?:[^"\\]|\\.)*)"(.*)\]$')
EDGE = re.compile(r'^\t"([^"]+)" -> "([^"]+)"(?: \[(.*)\])?$')
ATTR = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def unescape(s):
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), s)


def parse(source):
    """The DOT text of make_dot as ``(nodes, edges, header)``: ``nodes[id] = (label, attrs)``,
    ``edges = [(tail, head, attrs)]``; every line must be one of make_dot's statement kinds."""
    lines = source.splitlines()
    assert lines[0] == "digraph {" and lines[-1] == "}"
    nodes, edges, header = {}, [], {}
    for line in lines[1:-1]:
        if m := NODE.match(line):
            nodes[m.group(1)] = (unescape(m.group(2)), dict(ATTR.findall(m.group(3))))
        elif m := EDGE.match(line):
            edges.append((m.group(1), m.group(2), dict(ATTR.findall(m.group(3) or ""))))
        elif line.startswith(("\tgraph [", "\tnode [")):
            header[line[1:5]] = dict(ATTR.findall(line))
        else:
            raise AssertionError(f"unexpected DOT line {line!r}")
    for tail, head, _ in edges:
        assert tail in nodes and head in nodes, (tail, head)
    return nodes, edges, header


def sig(label, *preds):
    """A node's label with the signatures of the nodes that feed it (order-free)."""
    return (label, tuple(sorted(preds)))


def dot_signature(source, node_id):
    """The signature of ``node_id`` in the DOT text: its label and, recursively, those of the
    nodes with an edge into it (saved-tensor edges, ``dir=none``, left out)."""
    nodes, edges, _ = parse(source)

    def go(n):
        preds = [t for t, h, a in edges if h == n and a.get("dir") != "none"]
        return sig(nodes[n][0], *(go(p) for p in preds))

    return go(node_id)


def grad_fn_signature(t, names):
    """The same signature computed from the tensor's grad_fn graph: what make_dot must draw."""

    def label(v):
        return f"{names.get(id(v), '')}\n ({', '.join(str(d) for d in v.shape)})"

    def go(fn):
        preds = [go(u) for u, _ in fn.next_functions if u is not None]
        if type(fn).__name__ == "AccumulateGrad":
            preds.append(sig(label(fn.variable)))
        return sig(type(fn).__name__, *preds)

    return sig(label(t), *([go(t.grad_fn)] if t.grad_fn is not None else []))


def distinct_nodes(t):
    """The distinct backward nodes of ``t``'s graph (nodes compare by the node they stand for)."""
    seen, stack = [], [t.grad_fn]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.append(fn)
        stack.extend(u for u, _ in fn.next_functions)
    return seen


def output_id(source):
    nodes, _, _ = parse(source)
    (out,) = [n for n, (_, a) in nodes.items() if a.get("fillcolor") == "darkolivegreen1"]
    return out


def by_label(source, label):
    nodes, _, _ = parse(source)
    return [n for n, (lab, _) in nodes.items() if lab == label]


def acc(name, shape):
    return sig("AccumulateGrad", sig(f"{name}\n {shape}"))


def test_seed_002_norm_graph():
    x = torch.tensor([1.0, 2.0, 2.0]).requires_grad_()
    q = x.norm()
    assert q.item() == 3.0
    g = make_dot(q, params={"x": x})
    nodes, edges, header = parse(g.source)
    assert header["node"]["style"] == "filled" and header["node"]["shape"] == "box"
    assert header["grap"]["size"] == "12,12"
    assert sorted(lab for lab, _ in nodes.values()) == sorted(
        ["\n ()", "LinalgVectorNormBackward0", "AccumulateGrad", "x\n (3)"]
    )
    named = {lab: n for n, (lab, _) in nodes.items()}
    assert nodes[named["x\n (3)"]][1] == {"fillcolor": "lightblue"}
    assert nodes[named["\n ()"]][1] == {"fillcolor": "darkolivegreen1"}
    assert nodes[named["AccumulateGrad"]][1] == {}  # the graph's grey backward nodes
    assert sorted((nodes[t][0], nodes[h][0]) for t, h, _ in edges) == sorted(
        [
            ("x\n (3)", "AccumulateGrad"),
            ("AccumulateGrad", "LinalgVectorNormBackward0"),
            ("LinalgVectorNormBackward0", "\n ()"),
        ]
    )
    assert dot_signature(g.source, output_id(g.source)) == grad_fn_signature(q, {id(x): "x"})


def tanh_network():
    torch.manual_seed(0)
    w1 = torch.rand(20, 10).requires_grad_()
    b1 = torch.rand(20).requires_grad_()
    w2 = torch.rand(5, 20).requires_grad_()
    b2 = torch.rand(5).requires_grad_()
    x = torch.rand(10)
    h = torch.tanh(w1 @ x + b1)
    y = torch.tanh(w2 @ h + b2)
    targets = torch.rand(5)
    loss = (y - targets).pow(2).mean()
    return loss, {"w1": w1, "b1": b1, "w2": w2, "b2": b2}


def test_seed_002_two_layer_tanh_network():
    loss, params = tanh_network()
    g = make_dot(loss, params=params)
    # PyTorch's graph of this code, as torchviz draws it (a tree here: nothing is shared)
    hidden = sig(
        "TanhBackward0",
        sig("AddBackward0", sig("MvBackward0", acc("w1", "(20, 10)")), acc("b1", "(20)")),
    )
    expected = sig(
        "\n ()",
        sig(
            "MeanBackward0",
            sig(
                "PowBackward0",
                sig(
                    "SubBackward0",
                    sig(
                        "TanhBackward0",
                        sig(
                            "AddBackward0",
                            sig("MvBackward0", acc("w2", "(5, 20)"), hidden),
                            acc("b2", "(5)"),
                        ),
                    ),
                ),
            ),
        ),
    )
    out = output_id(g.source)
    assert dot_signature(g.source, out) == expected
    names = {id(v): k for k, v in params.items()}
    assert dot_signature(g.source, out) == grad_fn_signature(loss, names)
    nodes, edges, _ = parse(g.source)
    # one DOT node per backward node, per leaf and for the output; one edge per graph edge
    fns = distinct_nodes(loss)
    assert len(fns) == 13  # 9 operations and 4 AccumulateGrad
    assert len(nodes) == len(fns) + len(params) + 1
    n_edges = sum(u is not None for fn in fns for u, _ in fn.next_functions)
    assert len(edges) == n_edges + len(params) + 1 == 17
    leaves = sorted(lab for lab, a in nodes.values() if a.get("fillcolor") == "lightblue")
    assert leaves == ["b1\n (20)", "b2\n (5)", "w1\n (20, 10)", "w2\n (5, 20)"]


def test_seed_002_shared_parameter_is_one_node():
    torch.manual_seed(0)
    w = torch.rand(3, 10, 10).requires_grad_()

    def blah(k, x):
        for i in range(k):
            x = torch.tanh(w[i] @ x)
        return x

    q = blah(1, torch.rand(10)).dot(blah(3, torch.rand(10)))
    g = make_dot(q, params={"w": w})
    nodes, edges, _ = parse(g.source)
    (w_node,) = by_label(g.source, "w\n (3, 10, 10)")
    (w_acc,) = [h for t, h, _ in edges if t == w_node]
    consumers = [nodes[h][0] for t, h, _ in edges if t == w_acc]
    assert consumers == ["SelectBackward0"] * 4
    assert len(by_label(g.source, "AccumulateGrad")) == 1
    assert len(by_label(g.source, "TanhBackward0")) == 4
    assert len(nodes) == len(distinct_nodes(q)) + 2 == 16
    assert dot_signature(g.source, output_id(g.source)) == grad_fn_signature(q, {id(w): "w"})


def test_seed_002_parameter_used_twice():
    torch.manual_seed(0)
    w1 = torch.rand(5, 5).requires_grad_()
    w2 = torch.rand(5, 5).requires_grad_()
    x0 = torch.randn(5)
    x1 = w1 @ x0
    x2 = x0 + w2 @ x1
    x3 = w1 @ (x1 + x2)
    q = x3.norm()
    g = make_dot(q, params={"w1": w1, "w2": w2})
    nodes, edges, _ = parse(g.source)
    (w1_node,) = by_label(g.source, "w1\n (5, 5)")
    (w1_acc,) = [h for t, h, _ in edges if t == w1_node]
    assert sorted(nodes[h][0] for t, h, _ in edges if t == w1_acc) == ["MvBackward0"] * 2
    names = {id(w1): "w1", id(w2): "w2"}
    assert dot_signature(g.source, output_id(g.source)) == grad_fn_signature(q, names)


def test_module_parameters_by_name_and_pairs():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
    loss = nn.CrossEntropyLoss()(model(torch.randn(5, 4)), torch.tensor([0, 1, 1, 0, 1]))
    from_dict = make_dot(loss, params=dict(model.named_parameters()))
    from_pairs = make_dot(loss, params=model.named_parameters())
    assert from_dict.source == from_pairs.source
    nodes, _, _ = parse(from_dict.source)
    leaves = sorted(lab for lab, a in nodes.values() if a.get("fillcolor") == "lightblue")
    assert leaves == ["0.bias\n (3)", "0.weight\n (3, 4)", "2.bias\n (2)", "2.weight\n (2, 3)"]
    labels = {lab for lab, _ in nodes.values()}
    assert {"NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "TBackward0"} <= labels
    unnamed = make_dot(loss)
    assert "0.weight" not in unnamed.source and "\n (3, 4)" in parse(unnamed.source)[0][
        by_label(unnamed.source, "\n (3, 4)")[0]
    ][0]


def test_params_must_be_tensors():
    x = torch.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match=r"params\['x'\] must be a Tensor, got list"):
        make_dot(x.sum(), params={"x": [1.0]})
    with pytest.raises(TypeError, match="dict of name -> tensor"):
        make_dot(x.sum(), params=[x])
    with pytest.raises(TypeError, match="expected a Tensor, got int"):
        make_dot(3)


def test_deep_graph_needs_no_recursion():
    x = torch.ones(2, requires_grad=True)
    y = x
    depth = 3 * sys.getrecursionlimit()
    for _ in range(depth):
        y = y + 1.0
    g = make_dot(y.sum(), params={"x": x})
    nodes, edges, _ = parse(g.source)
    assert len(by_label(g.source, "AddBackward0")) == depth
    assert len(nodes) == depth + 4  # + SumBackward0, AccumulateGrad, x, the output
    assert len(edges) == depth + 3
    size = float(g.graph_attr["size"].split(",")[0])
    assert size == pytest.approx((len(nodes) + len(edges)) * 0.15)  # torchviz's resize_graph


def test_tensor_without_graph_and_several_outputs():
    g = make_dot(torch.ones(2, 3))
    nodes, edges, _ = parse(g.source)
    assert list(nodes.values()) == [("\n (2, 3)", {"fillcolor": "darkolivegreen1"})]
    assert edges == []

    x = torch.ones(3, requires_grad=True)
    a, b = x * 2, x.exp()
    g = make_dot((a, b), params={"x": x})
    nodes, edges, _ = parse(g.source)
    outputs = [n for n, (_, at) in nodes.items() if at.get("fillcolor") == "darkolivegreen1"]
    assert len(outputs) == 2
    assert len(by_label(g.source, "x\n (3)")) == 1
    assert len(by_label(g.source, "AccumulateGrad")) == 1
    (acc_node,) = by_label(g.source, "AccumulateGrad")
    assert sorted(nodes[h][0] for t, h, _ in edges if t == acc_node) == [
        "ExpBackward0",
        "MulBackward0",
    ]


def test_view_output_shows_its_base():
    x = torch.ones(4, requires_grad=True)
    y = x * 2
    v = y[1:]
    assert v._base is y
    g = make_dot(v)
    nodes, edges, _ = parse(g.source)
    (out,) = [n for n, (_, a) in nodes.items() if a.get("fillcolor") == "darkolivegreen1"]
    (base,) = [n for n, (_, a) in nodes.items() if a.get("fillcolor") == "darkolivegreen3"]
    assert nodes[out][0] == "\n (3)" and nodes[base][0] == "\n (4)"
    assert (base, out, {"style": "dotted"}) in edges
    # the base's own grad_fn feeds it, and the view's grad_fn feeds the view
    feeding = {nodes[h][0]: nodes[t][0] for t, h, a in edges if not a}
    assert feeding["\n (3)"] == "SliceBackward0" and feeding["\n (4)"] == "MulBackward0"


def test_labels_are_escaped():
    x = torch.ones(2, requires_grad=True)
    g = make_dot(x.sum(), params={'a"b\\c': x})
    assert by_label(g.source, 'a"b\\c\n (2)')


def test_show_saved_draws_the_saved_tensors_nodes_expose():
    x = torch.ones(3, requires_grad=True)
    y = (x * 2).sin().sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g = make_dot(y, show_saved=True)
    # sin's saved input, orange, joined to SinBackward0
    assert g.source.count('fillcolor="orange"') == 1
    assert 'label="self' in g.source
    assert g.source != make_dot(y).source


def test_show_saved_warns_when_no_node_exposes_anything():
    x = torch.ones(3, requires_grad=True)
    y = x.sum()
    with pytest.warns(UserWarning, match="_saved_"):
        g = make_dot(y, show_saved=True, show_attrs=True)
    assert g.source == make_dot(y).source
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_dot(y)  # no warning when nothing was asked for


def test_attribute_table_of_saved_values():
    class FakeNode:  # what PyTorch's nodes expose: _saved_* attributes
        _saved_dim = (0, 1)
        _saved_keepdim = False
        _saved_self = torch.ones(2)
        _saved_long = "x" * 60

    label = _fn_label(FakeNode(), show_attrs=True, max_attr_chars=10)
    assert label.splitlines() == [
        "FakeNode",
        "-" * 19,
        "dim    :     (0, 1)",
        "keepdim:      False",
        "long   : xxxxxxx...",
        "self   : [saved ...",
    ]
    assert _fn_label(FakeNode(), show_attrs=False, max_attr_chars=10) == "FakeNode"


def test_source_str_repr_and_save(tmp_path):
    x = torch.tensor([1.0, 2.0, 2.0]).requires_grad_()
    g = make_dot(x.norm(), params={"x": x})
    assert isinstance(g, DotGraph)
    assert str(g) == g.source
    assert repr(g) == "<DotGraph: 4 nodes, 3 edges>"
    path = g.save(tmp_path / "graph.dot")
    assert open(path).read() == g.source


def test_missing_graphviz_package_says_what_to_install(monkeypatch):
    x = torch.ones(2, requires_grad=True)
    g = make_dot(x.sum())
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=r"pip install graphviz.*apt-get install graphviz"):
        g.pipe("svg")
    with pytest.raises(ImportError, match="pip install graphviz"):
        g.render("graph")
    assert g._repr_mimebundle_() == {"text/plain": g.source}


def test_missing_dot_program_says_what_to_install(monkeypatch, tmp_path):
    pytest.importorskip("graphviz")
    x = torch.ones(2, requires_grad=True)
    g = make_dot(x.sum())
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(RuntimeError, match=r"dot program.*apt-get install graphviz"):
        g.pipe("png")
    with pytest.raises(RuntimeError, match=r"not found on PATH.*\.save\(filename\)"):
        g.render(tmp_path / "graph", format="svg")
    assert list(tmp_path.iterdir()) == []  # the DOT text graphviz wrote first is removed


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot program not installed")
def test_render_and_pipe_svg_and_png(tmp_path):
    pytest.importorskip("graphviz")
    loss, params = tanh_network()
    g = make_dot(loss, params=params)
    svg = g.pipe("svg").decode()
    assert "<svg" in svg and "MeanBackward0" in svg and "w1" in svg
    assert svg.count("AccumulateGrad") == 4
    path = g.render(tmp_path / "tanh", format="png")
    assert path.endswith("tanh.png")
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tanh.png"]  # cleanup of the .gv
    assert "image/svg+xml" in g._repr_mimebundle_()
