"""Whole training steps (forward, loss, backward, optimizer step), ferrograd against PyTorch.

Each library runs in processes of its own, the two alternating over rounds (this machine's
speed drifts); every workload is timed in a fresh process and again in one process after all
the others ran (as in a training script), and the table reports both. The result replaces the
training-steps section of ``BENCHMARKS.md``::

    .venv/bin/python benches/train_steps.py [--rounds 3] [--torch /work/torchenv/bin/python]

A library that lacks a workload's layers reports n/a for it.
"""

import argparse
import datetime
import json
import os
import platform
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- training-steps -->", "<!-- /training-steps -->"

# name: (description, target ratio torch time / ferrograd time, or None)
WORKLOADS = {
    "mlp": ("MLP 64-128-64-10, batch 64, CrossEntropyLoss, Adam", 1.5),
    "lstm_b1": ("char LSTM (embedding 64->32, hidden 128, 50 steps), batch 1, Adam", 3.0),
    "lstm_b32": ("char LSTM, batch 32", 1.5),
    "grucell_loop": ("Python loop of 50 GRUCell steps, batch 1, Adam", 3.0),
    "tree": ("tree network: a new random 32-leaf binary tree per step, SGD", 3.0),
    "cnn": ("CNN: two 3x3 convs with 2x2 max pools on 32 28x28 images, SGD momentum", 1.0),
    "transformer": ("2 TransformerEncoderLayers, d_model 64, 4 heads, 8x32 tokens, AdamW", 1.0),
    # sequences taken apart: the backward alone, of a (T, 32, 512) tensor's steps
    "unbind_t50": ("backward of x.unbind(0), T=50 (within 1.5x of PyTorch)", 0.67),
    "unbind_t100": ("backward of x.unbind(0), T=100", 0.67),
    "select_loop_t50": ("backward of a loop over x[t], T=50", 1.0),
    "select_loop_t100": ("backward of a loop over x[t], T=100", 1.0),
    "sin_mul_4m": ("(x.sin() * x).sum().backward() on 4M floats", None),
}


def make_step(torch, name):
    """The training step of workload ``name`` written for ``torch`` (either library)."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                              nn.Linear(64, 10))  # fmt: skip
        x, y = torch.randn(64, 64), torch.randint(0, 10, (64,))
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)

        def forward():
            return F.cross_entropy(model(x), y)

    elif name in ("lstm_b1", "lstm_b32"):
        batch = 1 if name == "lstm_b1" else 32
        emb, lstm, head = nn.Embedding(64, 32), nn.LSTM(32, 128), nn.Linear(128, 64)
        params = [*emb.parameters(), *lstm.parameters(), *head.parameters()]
        x, y = torch.randint(0, 64, (50, batch)), torch.randint(0, 64, (50 * batch,))
        opt = torch.optim.Adam(params, lr=1e-3)

        def forward():
            out, _ = lstm(emb(x))
            return F.cross_entropy(head(out.reshape(-1, 128)), y)

    elif name == "grucell_loop":
        cell, head = nn.GRUCell(32, 128), nn.Linear(128, 10)
        xs, y = torch.randn(50, 1, 32), torch.tensor([3])
        opt = torch.optim.Adam([*cell.parameters(), *head.parameters()], lr=1e-3)

        def forward():
            h = torch.zeros(1, 128)
            for t in range(50):
                h = cell(xs[t], h)
            return F.cross_entropy(head(h), y)

    elif name == "tree":
        dim = 64
        w = (torch.randn(dim, 2 * dim) * 0.1).requires_grad_()
        b = torch.zeros(dim, requires_grad=True)
        leaves = torch.randn(32, dim)
        v = torch.randn(dim)
        opt = torch.optim.SGD([w, b], lr=0.01)
        rng = random.Random(0)

        def forward():
            nodes = [leaves[i] for i in range(32)]
            while len(nodes) > 1:  # merge two random neighbours: a new tree every step
                i = rng.randrange(len(nodes) - 1)
                pair = torch.cat([nodes[i], nodes[i + 1]])
                nodes[i : i + 2] = [torch.tanh(w @ pair + b)]
            return (nodes[0] * v).sum() ** 2

    elif name == "cnn":
        model = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Linear(16 * 7 * 7, 10),
        )  # fmt: skip
        x, y = torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def forward():
            return F.cross_entropy(model(x), y)

    elif name == "transformer":
        layer = nn.TransformerEncoderLayer(64, 4, dim_feedforward=128, dropout=0.0,
                                           batch_first=True)  # fmt: skip
        model = nn.TransformerEncoder(layer, 2)
        x = torch.randn(8, 32, 64)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

        def forward():
            return model(x).pow(2).mean()

    elif name.startswith(("unbind_t", "select_loop_t")):
        steps = int(name.rsplit("_t", 1)[1])
        x = torch.randn(steps, 32, 512, requires_grad=True)

        def step():
            parts = x.unbind(0) if name.startswith("unbind") else [x[t] for t in range(steps)]
            total = sum(p.sum() * (t + 1) for t, p in enumerate(parts))
            x.grad = None
            t0 = time.perf_counter()
            total.backward()
            return time.perf_counter() - t0

        return step

    elif name == "sin_mul_4m":
        x = torch.randn(4 << 20, requires_grad=True)

        def step():
            x.grad = None
            (x.sin() * x).sum().backward()

        return step

    else:
        raise ValueError(name)

    def step():
        opt.zero_grad()
        loss = forward()
        loss.backward()
        opt.step()

    return step


def time_step(step, seconds=0.6):
    """The fastest of repeated runs of ``step`` (after warm-up runs), in seconds."""
    for _ in range(3):
        step()
    best, start = float("inf"), time.perf_counter()
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        timed = step()  # a step that times only part of itself returns that time
        best = min(best, timed if timed is not None else time.perf_counter() - t0)
    return best


def worker(lib, names):
    """Runs in a child process: times ``names`` in order in this one process."""
    torch = __import__(lib)
    torch.set_num_threads(2)
    out = {}
    for name in names:
        try:
            out[name] = time_step(make_step(torch, name))
        except (AttributeError, NotImplementedError, TypeError) as e:
            out[name] = f"n/a ({type(e).__name__}: {e})"
    print(json.dumps(out))


def run_child(python, lib, names):
    env = {**os.environ, "PYTHONPATH": str(ROOT / "benches")}
    done = subprocess.run(
        [python, __file__, "--worker", lib, *names], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        return {n: f"n/a (failed: {done.stderr.strip().splitlines()[-1:]})" for n in names}
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_of(results):
    """Per workload, the fastest time over rounds (or the first n/a note)."""
    merged = {}
    for r in results:
        for name, value in r.items():
            old = merged.get(name)
            if isinstance(value, float):
                merged[name] = value if not isinstance(old, float) else min(old, value)
            elif old is None:
                merged[name] = value
    return merged


def fmt(value):
    return f"{value * 1e3:.3f} ms" if isinstance(value, float) else "n/a"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--torch", default="/work/torchenv/bin/python",
                        help="a Python with torch installed (skipped if missing)")  # fmt: skip
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], args.worker[1:])
        return 0
    names = list(WORKLOADS)
    pythons = {"ferrograd": sys.executable}
    if Path(args.torch).exists():
        pythons["torch"] = args.torch
    fresh = {lib: [] for lib in pythons}
    after = {lib: [] for lib in pythons}
    started = time.time()
    for r in range(args.rounds):
        for lib, python in pythons.items():  # alternate the libraries within every round
            print(f"round {r + 1}/{args.rounds}: {lib}", file=sys.stderr)
            fresh[lib].append({n: run_child(python, lib, [n])[n] for n in names})
            after[lib].append(run_child(python, lib, names))
    best = {lib: (best_of(fresh[lib]), best_of(after[lib])) for lib in pythons}
    rows = [
        "| workload | ferrograd (fresh) | ferrograd (after the others) | torch (fresh) | "
        "torch / ferrograd | target | met? |",
        "|---|---:|---:|---:|---:|---|---|",
    ]
    for name in names:
        desc, target = WORKLOADS[name]
        fg, fg_after = best["ferrograd"][0][name], best["ferrograd"][1][name]
        tv = best.get("torch", ({}, {}))[0].get(name, "n/a")
        ratio = tv / fg if isinstance(fg, float) and isinstance(tv, float) else None
        if ratio is None or target is None:
            met = "n/a"
        else:
            met = "met" if ratio >= target else "not met"
        goal = "-" if target is None else f">= {target}x"
        rows.append(
            f"| {name}: {desc} | {fmt(fg)} | {fmt(fg_after)} | {fmt(tv)} | "
            f"{'n/a' if ratio is None else f'{ratio:.2f}x'} | {goal} | {met} |"
        )
    notes = [
        f"n/a for {lib} on {n}: {v}"
        for lib in pythons
        for n, v in best[lib][0].items()
        if not isinstance(v, float)
    ]
    section = [
        START,
        "## Whole training steps against PyTorch",
        "",
        "- **Command**: `.venv/bin/python benches/train_steps.py` (from the repository root)",
        f"- **Date (UTC)**: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} "
        f"UTC; the run took {time.time() - started:.0f} s",
        f"- **Machine**: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        "cores; 2 threads for both libraries",
        f"- **Method**: {args.rounds} rounds, in each ferrograd then torch, each workload in a "
        "fresh process and then all of them in one process; the fastest step of each.",
        "",
        *rows,
        "",
        *[f"- {n}" for n in notes],
        END,
    ]
    report = ROOT / "BENCHMARKS.md"
    text = report.read_text()
    if START in text:
        head, rest = text.split(START, 1)
        text = head + "\n".join(section) + rest.split(END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
    report.write_text(text)
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
