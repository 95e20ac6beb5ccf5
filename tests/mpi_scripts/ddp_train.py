"""Run under ``mpirun -n N``: ``DistributedDataParallel`` training checked against one process.

The demo's classifiers (its MLP and its CNN) train on its digits with DDP, each rank on its
``DistributedSampler`` share of every batch; rank 0 also trains a plain copy on the whole
batches, as one process would. Each rank writes ``<out>/rank<r>.json`` with the parameters
of both after training (plain SGD with momentum, then with ``no_sync()`` accumulation over two
micro-batches per step, also with ``zero_grad(set_to_none=False)``, so that backward accumulates
straight into the buckets' views), whether the gradients are views of the buckets, the
gradients of a model with unused parameters, and the errors of misuse, for
``tests/test_distributed.py`` to check.
"""

import json
import sys
from pathlib import Path

import ferrograd as torch
import ferrograd.distributed as dist
from ferrograd import nn
from ferrograd.demo import build_model, load_data
from ferrograd.nn.parallel import DistributedDataParallel as DDP
from ferrograd.utils.data.distributed import DistributedSampler

out_dir = Path(sys.argv[1])
dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
results = {"rank": rank, "world": world}

BATCH, SAMPLES, EPOCHS = 32, 192, 3  # 6 steps per epoch


def flat_params(model):
    return [v for p in model.parameters() for v in p.detach().reshape(-1).tolist()]


def grads_are_bucket_views(ddp):
    """Whether every parameter's ``.grad`` lies in the memory of its DDP bucket's flat array."""
    spans = [(b.buffer.ctypes.data, b.buffer.ctypes.data + b.buffer.nbytes) for b in ddp._buckets]
    return all(
        any(lo <= p.grad.data_ptr() < hi for lo, hi in spans) for p in ddp.module.parameters()
    )


def train(kind, accumulate, set_to_none=True):
    """The demo's classifier (``ferrograd.demo.build_model``) on its digits: DDP on this rank's
    ``DistributedSampler`` share of every batch of ``BATCH`` images, and (on rank 0) one process
    on the whole batches: a sampler over one replica with the same seed draws the same
    permutation, so its batch ``k`` is the union of the ranks' batches ``k``."""
    x, y = (torch.from_numpy(a[:SAMPLES]) for a in load_data()[:2])
    dataset = torch.utils.data.TensorDataset(x, y)
    torch.manual_seed(1 + rank)  # each rank initialises differently: DDP broadcasts rank 0's
    model = build_model(torch, kind)
    ddp = DDP(model, bucket_cap_mb=0.004)  # ~4 KB buckets: several all-reduces per backward
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    sampler = DistributedSampler(dataset, seed=7)
    loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH // world, sampler=sampler)
    if rank == 0:
        torch.manual_seed(1)
        single = build_model(torch, kind)
        single_opt = torch.optim.SGD(single.parameters(), lr=0.05, momentum=0.9)
        whole = DistributedSampler(dataset, num_replicas=1, rank=0, seed=7)
        single_loader = torch.utils.data.DataLoader(dataset, batch_size=BATCH, sampler=whole)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            opt.zero_grad(set_to_none=set_to_none)
            if accumulate:
                half = len(yb) // 2
                with ddp.no_sync():
                    (loss_fn(ddp(xb[:half]), yb[:half]) / 2).backward()
                (loss_fn(ddp(xb[half:]), yb[half:]) / 2).backward()
            else:
                loss = loss_fn(ddp(xb), yb)
                loss.backward()
                losses.append(loss.item())
            opt.step()
        if rank == 0:
            whole.set_epoch(epoch)
            for xb, yb in single_loader:
                single_opt.zero_grad()
                loss_fn(single(xb), yb).backward()
                single_opt.step()
    out = {"ddp": flat_params(model), "buckets": len(ddp._bucket_indices()), "losses": losses}
    out["grads_are_bucket_views"] = grads_are_bucket_views(ddp)
    if rank == 0:
        out["single"] = flat_params(single)
    return out, ddp


results["train_cnn"], _ = train("cnn", accumulate=False)
results["train"], ddp = train("mlp", accumulate=False)
results["train_no_sync"], _ = train("mlp", accumulate=True)
results["train_keep_grads"], _ = train("mlp", accumulate=True, set_to_none=False)
results["state_dict_keys"] = list(ddp.state_dict())[:2]
results["module_is_wrapped"] = type(ddp.module).__name__


class Branches(nn.Module):
    """A trunk every rank uses, a head only rank 0 uses, and a layer nobody uses."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(3, 4)
        self.rank0_head = nn.Linear(4, 1)
        self.unused = nn.Linear(4, 1)

    def forward(self, x, use_head):
        h = self.trunk(x).tanh()
        return h.sum() + (self.rank0_head(h).sum() if use_head else 0.0)


torch.manual_seed(3)
branches = Branches()
x = torch.randn(5, 3) + rank
local = Branches()
local.load_state_dict(branches.state_dict())
local(x, rank == 0).backward()
local_grads = {
    n: (p.grad.tolist() if p.grad is not None else None) for n, p in local.named_parameters()
}
everyone = [None] * world
dist.all_gather_object(everyone, local_grads)
results["local_grads"] = everyone
model = DDP(branches, find_unused_parameters=True)
model(x, rank == 0).backward()
results["unused_grads"] = {
    n: (p.grad.tolist() if p.grad is not None else None) for n, p in branches.named_parameters()
}
# a second iteration works too (unused parameters were marked ready, the reduction finished)
model(x, rank == 0).backward()
results["second_iteration"] = branches.trunk.bias.grad.tolist()


def error_of(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


# without find_unused_parameters, a parameter without a gradient stalls the reduction: the next
# forward says so (PyTorch's error), naming the parameters
torch.manual_seed(3)
plain = DDP(Branches())
plain(x, False).backward()
results["unused_error"] = error_of(lambda: plain(x, False))

# buffers: rank 0's at construction and before every forward
bn = nn.BatchNorm1d(3)
with torch.no_grad():
    bn.running_mean.fill_(float(rank))
wrapped = DDP(nn.Sequential(nn.Linear(3, 3), bn))
results["buffer_at_construction"] = bn.running_mean.tolist()
with torch.no_grad():
    bn.running_mean.fill_(10.0 + rank)
wrapped.eval()
with torch.no_grad():
    wrapped(torch.zeros(2, 3))
results["buffer_before_forward"] = bn.running_mean.tolist()

# a model that differs across ranks is refused at construction, on every rank
results["mismatch"] = error_of(lambda: DDP(nn.Linear(3, 4 + (rank == world - 1))))
results["no_params"] = error_of(lambda: DDP(nn.ReLU()))

dist.destroy_process_group()
(out_dir / f"rank{rank}.json").write_text(json.dumps(results))
