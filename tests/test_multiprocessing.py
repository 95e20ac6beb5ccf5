"""``torch.multiprocessing`` and tensors in shared memory (``Tensor.share_memory_``,
``Module.share_memory``): a child process started with ``spawn`` trains the parent's shared
parameters in place (the Hogwild pattern), shared tensors travel through queues by name and
alias, others are copied, ``spawn`` reports a child's failure as PyTorch's does, and no segment
outlives its tensor."""

import os

import ferrograd as torch
import ferrograd.multiprocessing as mp
import pytest
from ferrograd import nn


def _segments():
    return {n for n in os.listdir("/dev/shm") if n.startswith("psm_")}


def _sgd_steps(model, x, y, steps=3):
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for _ in range(steps):
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def _train_in_child(model, x, y):
    _sgd_steps(model, x, y)


def _bump(t, q):
    t.add_(1)
    q.put(t)


def _raise(i):
    if i == 1:
        raise ValueError("child one failed")


def _exit(i):
    os._exit(3)


def _write(i, t):
    t[i] = i + 10


def test_share_memory_keeps_the_tensor():
    t = torch.arange(6.0).reshape(2, 3).requires_grad_()
    address = t.data_ptr()
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and t.is_leaf and t.requires_grad
    assert t.data_ptr() != address
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert t.share_memory_().data_ptr() == t.data_ptr()  # once
    assert t[1].is_shared()  # a view of a shared tensor is shared
    (t * 2).sum().backward()
    assert t.grad.tolist() == [[2.0] * 3] * 2 and not t.grad.is_shared()
    assert torch.zeros(0).share_memory_().numel() == 0


def test_hogwild_child_trains_the_parents_parameters():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    reference = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    reference.load_state_dict(model.state_dict())
    x, y = torch.randn(16, 4), torch.randn(16, 1)
    model.share_memory()
    assert all(p.is_shared() for p in model.parameters())
    ctx = mp.get_context("spawn")
    p = ctx.Process(target=_train_in_child, args=(model, x, y))
    p.start()
    p.join()
    assert p.exitcode == 0
    _sgd_steps(reference, x, y)  # the same three steps, here
    for mine, theirs in zip(model.parameters(), reference.parameters()):
        assert torch.equal(mine, theirs)
        assert isinstance(mine, nn.Parameter) and mine.requires_grad
    assert not torch.equal(model[0].weight, nn.Linear(4, 8).weight)


def test_shared_tensors_travel_by_name_others_by_copy():
    ctx = mp.get_context("spawn")
    shared = torch.ones(3).share_memory_()
    plain = torch.ones(3)
    q = ctx.Queue()
    for t, aliases in ((shared, True), (plain, False)):
        p = ctx.Process(target=_bump, args=(t, q))
        p.start()
        back = q.get()
        p.join()
        assert back.tolist() == [2.0, 2.0, 2.0]
        assert t.tolist() == ([2.0] * 3 if aliases else [1.0] * 3)
        assert back.is_shared() == aliases


def test_spawn_runs_and_reports_failures():
    t = torch.zeros(3).share_memory_()
    assert mp.spawn(_write, args=(t,), nprocs=3) is None
    assert t.tolist() == [10.0, 11.0, 12.0]
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: child one failed"):
        mp.spawn(_raise, nprocs=2)
    with pytest.raises(mp.ProcessExitedException, match="terminated with exit code 3") as info:
        mp.spawn(_exit, nprocs=1)
    assert info.value.exit_code == 3 and info.value.error_index == 0


def test_sharing_strategies_and_no_leftover_segments():
    assert mp.get_sharing_strategy() == "file_system"
    assert mp.get_all_sharing_strategies() == {"file_system"}
    mp.set_sharing_strategy("file_system")
    with pytest.raises(AssertionError, match="file_descriptor"):
        mp.set_sharing_strategy("file_descriptor")
    before = _segments()
    t = torch.ones(1000).share_memory_()
    assert len(_segments() - before) == 1
    del t
    import gc

    gc.collect()
    assert _segments() - before == set()
    assert mp.Process is __import__("multiprocessing").Process  # Python's own, as PyTorch's
