"""Data-parallel training with ``DistributedDataParallel``: the spiral classifier on N processes.

Shows: ``torch.distributed.init_process_group``, ``DistributedSampler`` + ``DataLoader`` (each
process loads its share of every batch), ``nn.parallel.DistributedDataParallel`` (gradients
averaged over the processes during ``backward``), ``set_epoch`` for a new shuffle per epoch,
an ``all_reduce`` of the loss for printing, and printing on rank 0 only.

The global batch (40) is split among the processes, so the run computes the same steps on any
number of them (up to float32 rounding): one process on the whole batch prints what 2 or 4 do.

Launch with MPI (ferrograd's processes are started by ``mpirun``; the script also runs alone)::

    python examples/ddp_train.py                                   # one process
    mpirun -n 2 python examples/ddp_train.py                       # two on this machine
    mpirun -H host1,host2 -n 4 python examples/ddp_train.py        # four on two machines

(as root, add ``--allow-run-as-root`` to ``mpirun``.)
"""

import importlib
import math
import os

torch = importlib.import_module(os.environ.get("EXAMPLES_LIB", "ferrograd"))
nn = torch.nn
dist = torch.distributed
data = torch.utils.data

CLASSES = 3
POINTS_PER_CLASS = 120
GLOBAL_BATCH = 40


def make_spirals(points_per_class=POINTS_PER_CLASS, noise=0.3):
    """Points (x, y) on ``CLASSES`` spiral arms, with Gaussian jitter on the angle."""
    xs, ys = [], []
    for k in range(CLASSES):
        radius = torch.linspace(0.05, 1.0, points_per_class)
        angle = radius * 3.5 + k * 2 * math.pi / CLASSES
        angle = angle + noise * torch.randn(points_per_class)
        xs.append(torch.stack([radius * torch.sin(angle), radius * torch.cos(angle)], dim=1))
        ys.append(torch.full((points_per_class,), k, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def setup():
    """Joins the process group. ferrograd takes rank and world size from ``mpirun``; PyTorch's
    ``env://`` rendezvous reads them from the environment, filled here from Open MPI's variables
    when the script was not started by ``torchrun``."""
    os.environ.setdefault("RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    os.environ.setdefault("WORLD_SIZE", os.environ.get("OMPI_COMM_WORLD_SIZE", "1"))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29533")
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def main(epochs=4, seed=0, verbose=True):
    """Trains for ``epochs``; returns every step's loss (averaged over the processes) and the
    final accuracy on all the points. Every process returns the same."""
    rank, world = setup()
    torch.manual_seed(seed)
    x, y = make_spirals()
    dataset = data.TensorDataset(x, y)
    sampler = data.distributed.DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = data.DataLoader(dataset, batch_size=GLOBAL_BATCH // world, sampler=sampler)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                          nn.Linear(64, CLASSES))  # fmt: skip
    model = nn.parallel.DistributedDataParallel(model)
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    losses, step = [], 0
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()  # the gradients are averaged over the processes here
            optimizer.step()
            mean_loss = loss.detach().clone()
            dist.all_reduce(mean_loss)  # (SUM: PyTorch's gloo has no AVG)
            losses.append(mean_loss.item() / world)
            step += 1
            if verbose and rank == 0 and step % 4 == 0:
                print(f"epoch {epoch + 1}  step {step:3d}  loss {losses[-1]:.5f}")
    model.eval()
    with torch.no_grad():
        accuracy = (model(x).argmax(dim=1) == y).float().mean().item()
    if verbose and rank == 0:
        print(f"{world} process(es), {step} steps: accuracy {accuracy:.4f}")
    dist.destroy_process_group()
    return {"losses": losses, "accuracy": accuracy}


if __name__ == "__main__":
    main()
