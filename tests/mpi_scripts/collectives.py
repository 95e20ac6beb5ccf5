"""Run under ``mpirun -n N``: every collective of ``ferrograd.distributed`` on small tensors
whose expected values depend on the rank; each rank writes what it got (and the errors it saw)
to ``<out>/rank<r>.json`` for ``tests/test_distributed.py`` to check."""

import datetime
import json
import sys
import time
from pathlib import Path

import ferrograd as torch
import ferrograd.distributed as dist

out_dir = Path(sys.argv[1])
results = {}


def error_of(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


# before init_process_group
results["before_init"] = {
    "is_initialized": dist.is_initialized(),
    "get_rank": error_of(dist.get_rank),
    "all_reduce": error_of(lambda: dist.all_reduce(torch.ones(2))),
    "barrier": error_of(dist.barrier),
}

dist.init_process_group(backend="mpi")
rank, world = dist.get_rank(), dist.get_world_size()
results["rank"], results["world"] = rank, world
results["is_initialized"] = dist.is_initialized()
results["backend"] = dist.get_backend()
results["twice"] = error_of(dist.init_process_group)

ops = ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
for op in ops:
    x = torch.tensor([rank + 1.0, -2.0 * (rank + 1), 0.5])
    dist.all_reduce(x, op=getattr(dist.ReduceOp, op))
    results[f"all_reduce_float32_{op}"] = x.tolist()
    y = torch.tensor([rank + 1, 10 - 3 * rank], dtype=torch.int64)
    dist.all_reduce(y, op=getattr(dist.ReduceOp, op))
    results[f"all_reduce_int64_{op}"] = y.tolist()
for op in ["BAND", "BOR", "BXOR"]:
    y = torch.tensor([rank + 1, 7, 1 << rank], dtype=torch.int64)
    dist.all_reduce(y, op=getattr(dist.ReduceOp, op))
    results[f"all_reduce_int64_{op}"] = y.tolist()
for op in ["SUM", "MIN", "MAX"]:
    b = torch.tensor([rank == 0, True, False])
    dist.all_reduce(b, op=getattr(dist.ReduceOp, op))
    results[f"all_reduce_bool_{op}"] = b.tolist()
d = torch.tensor([[1.0 / (rank + 3)]], dtype=torch.float64)
dist.all_reduce(d)
results["all_reduce_float64"] = d.tolist()
results["band_float"] = error_of(lambda: dist.all_reduce(torch.ones(1), op=dist.ReduceOp.BAND))

# a parameter that requires grad is changed in place, as PyTorch's collectives do
p = torch.nn.Parameter(torch.full((2,), float(rank)))
dist.all_reduce(p)
results["all_reduce_parameter"] = [p.tolist(), p.requires_grad, p.is_leaf]

b = torch.full((2, 2), float(rank))
dist.broadcast(b, src=world - 1)
results["broadcast"] = b.tolist()
b = torch.arange(3) * (rank + 1)
dist.broadcast(b, 0)
results["broadcast_int64_src0"] = b.tolist()

gathered = [torch.zeros(2) for _ in range(world)]
dist.all_gather(gathered, torch.tensor([rank, rank * 10.0]))
results["all_gather"] = [t.tolist() for t in gathered]

big = torch.zeros(world * 2)
dist.all_gather_into_tensor(big, torch.tensor([rank, -rank], dtype=torch.float32))
results["all_gather_into_tensor"] = big.tolist()

out = torch.zeros(2)
dist.reduce_scatter(out, [torch.tensor([(rank + 1.0) * (i + 1), 1.0]) for i in range(world)])
results["reduce_scatter"] = out.tolist()
out = torch.zeros(1)
inp = torch.arange(world, dtype=torch.float32) + rank
dist.reduce_scatter_tensor(out, inp, op=dist.ReduceOp.MAX)
results["reduce_scatter_tensor_max"] = out.tolist()

dst = 1 % world
g_list = [torch.zeros(3) for _ in range(world)] if rank == dst else None
dist.gather(torch.full((3,), rank * 1.5), g_list, dst=dst)
results["gather"] = [t.tolist() for t in g_list] if g_list is not None else None

s = torch.zeros(2, dtype=torch.int64)
s_list = [torch.tensor([i, i * i]) for i in range(world)] if rank == 0 else None
dist.scatter(s, s_list, src=0)
results["scatter"] = s.tolist()

r = torch.tensor([rank + 1.0])
dist.reduce(r, dst=0, op=dist.ReduceOp.SUM)
results["reduce"] = r.tolist()

# several collectives in flight at once, waited for afterwards
tensors = [torch.full((4,), float(rank + i)) for i in range(5)]
works = [dist.all_reduce(t, async_op=True) for t in tensors]
results["async_types"] = sorted({type(w).__name__ for w in works})
results["async_wait"] = [w.wait() for w in works]
results["async_values"] = [t.tolist() for t in tensors]
results["async_completed"] = all(w.is_completed() and w.is_success() for w in works)
results["sync_returns"] = repr(dist.all_reduce(torch.ones(1)))
w = dist.broadcast(torch.ones(1), src=0, async_op=True)
results["async_broadcast_result"] = [t.tolist() for t in w.result()]

objs = [None, None]
if rank == 0:
    objs = [{"lr": 0.1}, "hello"]
dist.broadcast_object_list(objs, src=0)
results["broadcast_object_list"] = objs
everyone = [None] * world
dist.all_gather_object(everyone, ("rank", rank))
results["all_gather_object"] = everyone
dist.barrier()

# mistakes: raised on every rank with what each rank passed, no hang
results["shape_mismatch"] = error_of(lambda: dist.all_reduce(torch.zeros(rank + 1)))
results["dtype_mismatch"] = error_of(
    lambda: dist.all_reduce(torch.zeros(2, dtype=torch.float64 if rank else torch.float32))
)
results["op_mismatch"] = error_of(
    lambda: dist.all_reduce(torch.zeros(2)) if rank == 0 else dist.broadcast(torch.zeros(2), 0)
)
results["src_mismatch"] = error_of(lambda: dist.broadcast(torch.zeros(2), src=rank))
results["gather_list_elsewhere"] = error_of(
    lambda: dist.gather(torch.zeros(1), [torch.zeros(1)] * world, dst=(rank + 1) % world)
)
results["scatter_list_missing"] = error_of(lambda: dist.scatter(torch.zeros(1), None, src=rank))
results["bad_src"] = error_of(lambda: dist.broadcast(torch.zeros(1), src=world))
results["short_list"] = error_of(lambda: dist.all_gather([torch.zeros(1)], torch.zeros(1)))
results["not_tensor"] = error_of(lambda: dist.all_reduce([1.0, 2.0]))
dist.barrier()  # still in step after all of these
results["after_errors"] = (lambda t: (dist.all_reduce(t), t.tolist())[1])(torch.ones(1))

# a collective that rank 0 calls alone times out with a message, then completes once the
# others join late; the group goes on working
dist.destroy_process_group()
results["after_destroy"] = dist.is_initialized()
dist.init_process_group(timeout=datetime.timedelta(seconds=1))
late = torch.full((2,), rank + 1.0)
if rank == 0:
    start = time.perf_counter()
    results["timeout"] = error_of(lambda: dist.all_reduce(late))
    results["timeout_after"] = time.perf_counter() - start
else:
    time.sleep(2.5)
    dist.all_reduce(late)
dist.barrier(timeout=datetime.timedelta(seconds=60))  # rank 0's waits for its all_reduce first
results["late_value"] = late.tolist()
dist.destroy_process_group()

(out_dir / f"rank{rank}.json").write_text(json.dumps(results))
