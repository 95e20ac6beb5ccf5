"""Does ``DistributedDataParallel`` overlap its all-reduces with the backward pass? Measured.

Run under MPI (two ranks on this machine; ``--write`` replaces the DDP section of
``BENCHMARKS.md``)::

    mpirun -n 2 .venv/bin/python benches/ddp_overlap.py [--steps 30] [--threads 1] [--write]

(as root, add ``--allow-run-as-root`` to ``mpirun``). For each workload, every rank trains on its
own batch; the ranks are lined up by a barrier before every timed step, and the median over the
steps is reported (rank 0's; the others' are alike). Times:

- **backward**: ``loss.backward()`` of the model alone (no DDP): the compute to hide behind.
- **copies**: what DDP's hooks add to backward, measured alone: writing every gradient divided by
  the world size into its slice of its bucket (``np.divide`` between arrays sharing the tensors'
  memory).
- **all-reduce**: the MPI all-reduces of DDP's buckets alone (launched together, waited for).
- **communication**: the communication thread's whole job for every bucket, with nothing else
  running: the in-place all-reduce of each bucket (and the hand-off): what there is to hide.
  (The gradients are views of the buckets, so nothing is converted after backward.)
- **backward + reduction, no overlap**: ``loss.backward()`` under DDP with every all-reduce held
  until backward has produced the last gradient (as if the reduction came after backward).
- **backward + reduction, overlap**: ``loss.backward()`` under DDP as it runs: each bucket is
  all-reduced as soon as its gradients are ready, while backward goes on.
- **step**: a whole training step (``zero_grad``, forward, backward with the reduction,
  optimizer step) without and with overlap.

``--link-gbps G`` simulates a network link of G Gbit/s under the shared-memory all-reduce: the
communication thread sleeps for the time the bucket would take on the link (a ring all-reduce
sends about ``2 (n - 1) / n`` times the bucket's bytes), which costs no CPU, as a NIC's transfer
would not. It tells whether DDP overlaps communication that waits rather than computes; it is a
simulation, not a measurement of a network.

Perfect overlap would make the overlapped time ``max(backward, communication)`` plus the hooks'
copies; no overlap at all, their sum plus the same. *Closer to* says which of ``max`` and
``sum`` the overlapped backward + reduction is nearer to.
"""

import argparse
import datetime
import json
import platform
import statistics
import time
from pathlib import Path

import ferrograd as torch
import ferrograd.distributed as dist
from ferrograd import nn
from ferrograd.nn.parallel import DistributedDataParallel as DDP

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- ddp-overlap -->", "<!-- /ddp-overlap -->"

# name: (description, DDP keyword arguments)
WORKLOADS = {
    "mlp": ("MLP 64-128-64-10, batch 64 per rank, Adam", {}),
    "mlp_big": ("MLP 1024-2048-2048-10 (6.3M parameters), batch 64 per rank, Adam", {}),
    "mlp_deep": (
        "MLP 1024-(1024 x 6)-10 (6.3M parameters), batch 64 per rank, Adam, bucket_cap_mb=4 "
        "(one layer per bucket)",
        {"bucket_cap_mb": 4},
    ),
    "transformer": (
        "2 TransformerEncoderLayers, d_model 64, 4 heads, 8x32 tokens per rank, AdamW",
        {},
    ),
    "transformer_small_buckets": (
        "the same transformer, bucket_cap_mb=0.05 (its 0.3 MB of gradients in 8 buckets)",
        {"bucket_cap_mb": 0.05},
    ),
}


def make(name, rank):
    """Model, optimizer and ``forward()`` (the loss) of workload ``name`` on this rank's batch."""
    torch.manual_seed(0)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                              nn.Linear(64, 10))  # fmt: skip
        inputs = 64
    elif name == "mlp_big":
        model = nn.Sequential(nn.Linear(1024, 2048), nn.ReLU(), nn.Linear(2048, 2048), nn.ReLU(),
                              nn.Linear(2048, 10))  # fmt: skip
        inputs = 1024
    elif name == "mlp_deep":
        layers = []
        for _ in range(6):
            layers += [nn.Linear(1024, 1024), nn.ReLU()]
        model = nn.Sequential(*layers, nn.Linear(1024, 10))
        inputs = 1024
    else:
        layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True)  # fmt: skip
        model = nn.TransformerEncoder(layer, 2)
    torch.manual_seed(100 + rank)  # each rank its own data
    if name.startswith("mlp"):
        x, y = torch.randn(64, inputs), torch.randint(0, 10, (64,))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)

        def forward(m):
            return nn.functional.cross_entropy(m(x), y)

    else:
        x = torch.randn(8, 32, 64)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

        def forward(m):
            return m(x).pow(2).mean()

    return model, opt, forward


def median_ms(samples):
    return statistics.median(samples) * 1e3


def measure(name, steps, link_gbps=0.0):
    """The five times of workload ``name`` (ms, medians over ``steps`` after 3 warm-up steps)."""
    rank = dist.get_rank()
    model, opt, forward = make(name, rank)
    kwargs = WORKLOADS[name][1]

    def timed(fn):
        samples = []
        for i in range(steps + 3):
            dist.barrier()
            start = time.perf_counter()
            fn()
            if i >= 3:
                samples.append(time.perf_counter() - start)
        return median_ms(samples)

    def backward_of(m):
        samples = []
        for i in range(steps + 3):
            opt.zero_grad()
            loss = forward(m)
            dist.barrier()
            start = time.perf_counter()
            loss.backward()
            if i >= 3:
                samples.append(time.perf_counter() - start)
        return median_ms(samples)

    out = {"backward": backward_of(model)}
    ddp = DDP(model, **kwargs)
    out["buckets"] = len(ddp._bucket_indices())
    if link_gbps:
        reducer, world = ddp._reducer, dist.get_world_size()

        def over_link(bucket):  # the all-reduce, then the time the link would take (no CPU)
            job = reducer(bucket)
            delay = 2 * (world - 1) / world * bucket.buffer.nbytes * 8 / (link_gbps * 1e9)

            def slow():
                job()
                time.sleep(delay)

            return slow

        ddp._reducer = over_link
    buffers = [b.buffer for b in ddp._buckets]

    def all_reduces():
        works = [dist._all_reduce_sum(buf) for buf in buffers]
        for w in works:
            w.wait()

    def communicate():  # the communication thread's whole job for every bucket
        works = [ddp.process_group._submit("all_reduce", ddp._reducer(b), []) for b in ddp._buckets]
        for w in works:
            w.wait()

    def copies():  # the hooks' copies of every gradient (divided) into its bucket slice
        for i in range(len(ddp._params)):
            ddp._into_bucket(i, adopt=False)

    opt.zero_grad()
    forward(model).backward()  # gradients for the buckets to copy
    out["copies"] = timed(copies)
    out["all_reduce"] = timed(all_reduces)
    out["communication"] = timed(communicate)
    for overlap in (False, True):
        ddp._delay_all_reduce = not overlap
        key = "overlap" if overlap else "no_overlap"
        out[f"backward_{key}"] = backward_of(ddp)

        def step():
            opt.zero_grad()
            forward(ddp).backward()
            opt.step()

        out[f"step_{key}"] = timed(step)
    return out


def table(results, threads, steps, world, took, link_gbps=0.0):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        START,
        "## Data-parallel training: all-reduce overlapping backward (DDP over MPI)",
        "",
        f"- **Command**: `mpirun -n {world} .venv/bin/python benches/ddp_overlap.py --threads "
        f"{threads} --steps {steps}{f' --link-gbps {link_gbps:g}' if link_gbps else ''} --write` "
        "(from the repository root; as root with `--allow-run-as-root`)",
        f"- **Date (UTC)**: {now}; the run took {took:.0f} s",
        f"- **Machine**: {platform.machine()}, 2 logical cores; {world} ranks (processes) of "
        f"{threads} compute thread(s) each, plus each rank's communication thread; Open MPI over "
        "shared memory"
        + (
            f", **plus a simulated {link_gbps:g} Gbit/s link** (`--link-gbps {link_gbps:g}`: "
            "the communication thread sleeps for the bucket's time on such a link)"
            if link_gbps
            else ""
        ),
        f"- **Method**: medians over {steps} steps per quantity (rank 0's), ranks lined up by a "
        "barrier before each step; times in ms. *Saved by overlap* is what the overlapped run "
        "gained on the delayed one, as a share of the most it could gain, the shorter of backward "
        "and communication: `(no overlap - overlap) / min(backward, communication)`.",
        "",
        "| workload | buckets | backward | copies | all-reduce | communication | backward + "
        "reduction, no overlap | backward + reduction, overlap | max / sum of backward and "
        "communication | closer to | saved by overlap | step, no overlap | step, overlap |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|",
    ]
    for name, r in results.items():
        b, c = r["backward"], r["communication"]
        saved = r["backward_no_overlap"] - r["backward_overlap"]
        hidden = saved / min(b, c) if min(b, c) > 0 else 0.0
        o = r["backward_overlap"]
        closer = "max" if abs(o - max(b, c)) < abs(o - (b + c)) else "sum"
        lines.append(
            f"| {name}: {WORKLOADS[name][0]} | {r['buckets']} | {b:.3f} | {r['copies']:.3f} | "
            f"{r['all_reduce']:.3f} | {c:.3f} | "
            f"{r['backward_no_overlap']:.3f} | {o:.3f} | "
            f"{max(b, c):.3f} / {b + c:.3f} | {closer} | {hidden:.0%} | "
            f"{r['step_no_overlap']:.3f} | {r['step_overlap']:.3f} |"
        )
    lines.append("")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1, help="compute threads per rank")
    parser.add_argument("--only", nargs="*", default=list(WORKLOADS))
    parser.add_argument("--write", action="store_true", help="replace BENCHMARKS.md's section")
    parser.add_argument(
        "--link-gbps", type=float, default=0.0, help="simulate a network link of this speed"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    torch.set_num_threads(args.threads)
    dist.init_process_group("mpi")
    results = {name: measure(name, args.steps, args.link_gbps) for name in args.only}
    took = time.perf_counter() - started
    if dist.get_rank() == 0:
        lines = table(
            results, args.threads, args.steps, dist.get_world_size(), took, args.link_gbps
        )
        print("\n".join(lines[1:]))
        print(json.dumps(results))
        if args.write:
            path = ROOT / "BENCHMARKS.md"
            text = path.read_text()
            block = "\n".join([*lines, END])
            if START in text:
                text = text[: text.index(START)] + block + text[text.index(END) + len(END) :]
            else:
                text = text.rstrip("\n") + "\n\n\n" + block + "\n"
            path.write_text(text)
            print(f"wrote {path}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
