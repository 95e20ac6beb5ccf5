"""PyTorch's own DistributedDataParallel on this machine, for comparison with ddp_overlap.py.

Two processes (gloo, one compute thread each) train the big MLP of ``ddp_overlap.py``
(1024-2048-2048-10, batch 64 per rank) and report, as medians over 40 steps of rank 0:
backward alone (``no_sync``), the all-reduce of all gradients alone, backward then the
all-reduce, and DDP's overlapped backward. Needs torch (not run by the tests)::

    /work/torchenv/bin/python benches/torch_ddp_overlap.py
"""

import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def timed(f, steps=40, warmup=5):
    """Median of ``f()``'s returned seconds, in ms."""
    for _ in range(warmup):
        f()
    return statistics.median(f() for _ in range(steps)) * 1e3


def run(rank, world):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = "29533"
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(), nn.Linear(2048, 10)
    )
    ddp = nn.parallel.DistributedDataParallel(model)
    x, y = torch.randn(64, 1024), torch.randint(0, 10, (64,))
    loss_fn = nn.CrossEntropyLoss()
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()])

    def backward(overlap, then_reduce=False):
        def step():
            if overlap:
                loss = loss_fn(ddp(x), y)
            else:
                with ddp.no_sync():
                    loss = loss_fn(ddp(x), y)
            dist.barrier()
            t0 = time.perf_counter()
            loss.backward()
            if then_reduce:
                dist.all_reduce(flat)
            return time.perf_counter() - t0

        return step

    def communication():
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(flat)
        return time.perf_counter() - t0

    res = {
        "backward": timed(backward(False)),
        "communication": timed(communication),
        "backward then all-reduce": timed(backward(False, then_reduce=True)),
        "DDP, overlapped": timed(backward(True)),
    }
    if rank == 0:
        for name, ms in res.items():
            print(f"{name}: {ms:.2f} ms")
        b, c, o = res["backward"], res["communication"], res["DDP, overlapped"]
        closer = "max" if o - max(b, c) < b + c - o else "sum"
        print(f"max {max(b, c):.2f} / sum {b + c:.2f}; overlapped {o:.2f}: closer to the {closer}")
    dist.destroy_process_group()


if __name__ == "__main__":
    mp.spawn(run, args=(2,), nprocs=2)
