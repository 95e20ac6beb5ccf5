"""Records PyTorch's answers for ``tests/test_distributed.py`` that need no MPI: the indices of
``torch.utils.data.distributed.DistributedSampler`` (every rank, shuffled or not, padded or
``drop_last``, over several epochs and seeds), the repr of ``ReduceOp`` members and the errors of
the ``torch.distributed`` calls made before ``init_process_group``. Writes
``tests/golden/distributed.json``. Run where torch is installed (the tests never import it)::

    /work/torchenv/bin/python tools/record_torch_distributed.py
"""

import json
from pathlib import Path

import torch
import torch.distributed as dist
from torch.utils.data.distributed import DistributedSampler

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "distributed.json"

# (dataset length, num_replicas, shuffle, seed, drop_last, epochs)
SAMPLER_CASES = [
    (10, 3, True, 0, False, 3),
    (10, 3, True, 0, True, 2),
    (10, 3, False, 0, False, 1),
    (10, 3, False, 0, True, 1),
    (12, 4, True, 42, False, 2),
    (7, 2, True, 5, True, 2),
    (3, 8, True, 0, False, 2),  # padding longer than the data: repeated several times
    (3, 8, False, 0, False, 1),
    (100, 4, True, 1234, False, 3),
    (1, 1, True, 0, False, 1),
]


def sampler_cases():
    out = []
    for n, replicas, shuffle, seed, drop_last, epochs in SAMPLER_CASES:
        for rank in range(replicas):
            s = DistributedSampler(
                range(n), num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                drop_last=drop_last,
            )  # fmt: skip
            per_epoch = []
            for epoch in range(epochs):
                s.set_epoch(epoch)
                per_epoch.append(list(s))
            out.append({
                "n": n, "num_replicas": replicas, "rank": rank, "shuffle": shuffle,
                "seed": seed, "drop_last": drop_last, "len": len(s), "epochs": per_epoch,
            })  # fmt: skip
    return out


def error_of(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


def main():
    errors = {
        "get_rank": error_of(dist.get_rank),
        "get_world_size": error_of(dist.get_world_size),
        "all_reduce": error_of(lambda: dist.all_reduce(torch.ones(2))),
        "broadcast": error_of(lambda: dist.broadcast(torch.ones(2), 0)),
        "barrier": error_of(dist.barrier),
        "sampler_bad_rank": error_of(lambda: DistributedSampler(range(4), num_replicas=2, rank=2)),
        "sampler_no_group": error_of(lambda: DistributedSampler(range(4))),
    }
    ops = {name: [repr(getattr(dist.ReduceOp, name)), int(getattr(dist.ReduceOp, name))]
           for name in ["SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]}  # fmt: skip
    out = {
        "torch_version": torch.__version__,
        "sampler": sampler_cases(),
        "errors": errors,
        "reduce_ops": ops,
        "is_initialized": dist.is_initialized(),
        "default_pg_timeout_seconds": dist.default_pg_timeout.total_seconds(),
        "backend_mpi": [str(dist.Backend("MPI")), dist.Backend.MPI],
    }
    GOLDEN.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {GOLDEN}: {len(out['sampler'])} sampler cases")


if __name__ == "__main__":
    main()
