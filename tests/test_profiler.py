"""``autograd.profiler`` against PyTorch's recorded profile of the same step
(``profiler_cases.py``): every op the Python code called and every backward node is listed
under PyTorch's name, nodes as often as PyTorch runs them, labelled ranges included, and the
table prints PyTorch's header; the seed's ``profile(use_cuda=True)`` runs with a warning."""

import json
from pathlib import Path

import ferrograd
import profiler_cases
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / profiler_cases.GOLDEN).read_text())

# the ops the step calls from Python, as PyTorch names them (PyTorch also lists the ops its
# kernels call internally: aten::to, aten::empty_strided, ...)
CALLED = {"aten::matmul", "aten::add", "aten::tanh", "aten::mul", "aten::mean"}


def test_profile_lists_pytorchs_names_and_node_counts():
    got = profiler_cases.answers(ferrograd)
    keys = set(got["keys"])
    assert keys <= set(GOLDEN["keys"]), keys - set(GOLDEN["keys"])
    nodes = {k for k in GOLDEN["keys"] if "Backward" in k or "autograd" in k}
    assert nodes <= keys
    for key in nodes | {"forward_block"}:
        assert got["counts"][key] == GOLDEN["counts"][key], key
    assert CALLED <= keys
    assert got["header"] == GOLDEN["header"]
    assert got["rows"] == GOLDEN["rows"]


def test_times_nest_and_sort():
    prof = profiler_cases.profile_step(ferrograd)
    averages = prof.key_averages()
    by_key = {e.key: e for e in averages}
    block = by_key["forward_block"]
    inner = sum(by_key[k].cpu_time_total for k in CALLED)
    assert block.cpu_time_total >= inner > 0
    assert block.self_cpu_time_total == pytest.approx(block.cpu_time_total - inner, abs=1.0)
    rows = averages.table(sort_by="self_cpu_time_total").splitlines()[3:-3]
    self_times = [by_key[r.split()[0]].self_cpu_time_total for r in rows if r.split()[0] in by_key]
    assert self_times == sorted(self_times, reverse=True)
    assert prof.self_cpu_time_total == pytest.approx(sum(e.self_cpu_time_total for e in averages))
    with pytest.raises(AttributeError):
        averages.table(sort_by="no_such_column")


def test_seed_quickref_use_cuda_warns_and_profiles():
    a = ferrograd.rand(2, 3, requires_grad=True)
    with pytest.warns(UserWarning, match="CPU only"):
        with ferrograd.autograd.profiler.profile(use_cuda=True) as prf:
            (a * 2).sum().backward()
    table = prf.key_averages().table()
    assert "MulBackward0" in table and "Self CPU time total" in table


def test_unfinished_and_disabled_profiles():
    prof = ferrograd.autograd.profiler.profile()
    with pytest.raises(RuntimeError, match="didn't finish"):
        prof.key_averages()
    with ferrograd.autograd.profiler.profile(enabled=False) as off:
        ferrograd.ones(2) * 2
    assert off.function_events is None


def test_backward_events_carry_the_sequence_number_of_their_forward_op():
    # PyTorch's rule (test_autograd.py's test_profiler_seq_nr): the op that recorded a node and
    # the engine's two events for that node share its sequence number; AccumulateGrad and
    # labelled ranges carry none (-1); a node's events name the thread of its forward op
    with ferrograd.autograd.profiler.profile() as p:
        x = ferrograd.randn(10, 10, requires_grad=True)
        y = ferrograd.randn(10, 10, requires_grad=True)
        with ferrograd.autograd.profiler.record_function("label"):
            z = x + y
        s = z.sum()
        s.backward()
    events = {e.name: e for e in p.function_events}
    for op, node in (("aten::add", "AddBackward0"), ("aten::sum", "SumBackward0")):
        forward = events[op]
        assert forward.sequence_nr >= 0 and forward.fwd_thread == 0
        for name in (node, f"autograd::engine::evaluate_function: {node}"):
            assert events[name].sequence_nr == forward.sequence_nr, name
            assert events[name].fwd_thread == forward.thread, name
    assert events["aten::add"].sequence_nr != events["aten::sum"].sequence_nr
    assert events["torch::autograd::AccumulateGrad"].sequence_nr == -1
    assert events["label"].sequence_nr == -1
    assert events["aten::randn"].sequence_nr == -1


def test_random_factories_allocate_then_fill_as_nested_events():
    # PyTorch's randn is aten::empty then aten::normal_ inside aten::randn (rand: uniform_);
    # the nested ops record no node, so carry no sequence number
    ferrograd.manual_seed(0)
    with ferrograd.autograd.profiler.profile() as p:
        drawn = ferrograd.randn(4, requires_grad=True)
        ferrograd.rand(2, 3)
    names = [(e.name, e.sequence_nr) for e in p.function_events]
    assert names == [
        ("aten::randn", -1),
        ("aten::empty", -1),
        ("aten::normal_", -1),
        ("aten::rand", -1),
        ("aten::empty", -1),
        ("aten::uniform_", -1),
    ]
    randn = p.function_events[0]
    assert [c.name for c in randn.cpu_children] == ["aten::empty", "aten::normal_"]
    # the same samples as before the split (PyTorch's, manual_seed(0))
    expected = [1.5410, -0.2934, -2.1788, 0.5684]
    assert [round(v, 4) for v in drawn.tolist()] == expected


def test_record_shapes_lists_each_arguments_shape_as_pytorch():
    # PyTorch 2.15's input_shapes for these calls (Note [Recording input shapes]): a tensor's
    # shape, [] for any other argument; without record_shapes, no shapes
    ferrograd.manual_seed(0)
    layer = ferrograd.nn.Linear(4, 3)
    x = ferrograd.randn(2, 4)
    add, mul = ferrograd.Tensor.__add__, ferrograd.add
    with ferrograd.autograd.profiler.profile(record_shapes=True) as prof:
        layer(x)
        ferrograd.add(x, x, alpha=2)
        x.mul(x)
        ferrograd.nn.functional.linear(x, layer.weight)
    got = [
        (e.name, e.input_shapes)
        for e in prof.function_events
        if e.name in ("aten::linear", "aten::add", "aten::mul")
    ]
    assert got == [
        ("aten::linear", [[2, 4], [3, 4], [3]]),
        ("aten::add", [[2, 4], [2, 4], []]),
        ("aten::mul", [[2, 4], [2, 4]]),
        ("aten::linear", [[2, 4], [3, 4], []]),
    ]
    # the bindings are put back when the profile closes
    assert ferrograd.Tensor.__add__ is add and ferrograd.add is mul
    assert (x + 1).shape == (2, 4)
    with ferrograd.autograd.profiler.profile() as plain:
        x.mul(x)
    assert [e.input_shapes for e in plain.function_events] == [[]]
