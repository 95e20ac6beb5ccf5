"""Optimizer steps, ferrograd against PyTorch: ``opt.step()`` of every ``torch.optim`` rule on
the parameters of a small CNN-sized model (45 tensors, 0.39M float32 elements), with the
gradients already in ``.grad``.

Each (library, rule) runs in a fresh process, the libraries alternating within each round;
a run times many consecutive steps after warm-up steps, with Python's garbage collector on,
and reports their mean; the table keeps the best mean over rounds. Both libraries use their
default settings (PyTorch picks its own ``foreach`` implementation). The result replaces the
optimizer-steps section of ``BENCHMARKS.md``::

    .venv/bin/python benches/optim_steps.py [--rounds 3] [--threads 1] [--no-write]
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- optimizer-steps -->", "<!-- /optimizer-steps -->"

# rule: keyword arguments besides the learning rate
RULES = {
    "SGD": {},
    "SGD momentum": {"momentum": 0.9},
    "Adam": {},
    "AdamW": {},
    "RMSprop": {},
    "Adagrad": {},
    "Adadelta": {},
    "Adamax": {},
    "NAdam": {},
    "RAdam": {},
    "ASGD": {},
    "Rprop": {},
}

# 40 matrices of 96x96 and 5 vectors of 4000: the parameter count of a small CNN or MLP
SHAPES = [(96, 96)] * 40 + [(4000,)] * 5


def worker(lib, rule, threads, seconds):
    """Runs in a child process: the mean time of one step of ``rule``, in seconds."""
    torch = __import__(lib)
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    params = [torch.randn(*s, requires_grad=True) for s in SHAPES]
    for p in params:
        p.grad = torch.randn(*p.shape)
    cls = getattr(torch.optim, rule.split()[0])
    opt = cls(params, lr=1e-4, **RULES[rule])
    for _ in range(10):
        opt.step()
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        opt.step()
        steps += 1
    return (time.perf_counter() - start) / steps


def run_child(python, lib, rule, threads, seconds):
    done = subprocess.run(
        [python, __file__, "--worker", lib, rule, str(threads), str(seconds)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return f"n/a ({done.stderr.strip().splitlines()[-1:]})"
    return json.loads(done.stdout.strip().splitlines()[-1])


def fmt(value):
    return f"{value * 1e6:.0f} µs" if isinstance(value, float) else "n/a"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=1.0, help="timed seconds per run")
    parser.add_argument("--torch", default="/work/torchenv/bin/python",
                        help="a Python with torch installed (skipped if missing)")  # fmt: skip
    parser.add_argument("--no-write", action="store_true", help="print, leave BENCHMARKS.md")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        lib, rule, threads, seconds = args.worker
        print(json.dumps(worker(lib, rule, int(threads), float(seconds))))
        return 0
    pythons = {"ferrograd": sys.executable}
    if Path(args.torch).exists():
        pythons["torch"] = args.torch
    means = {lib: {rule: [] for rule in RULES} for lib in pythons}
    started = time.time()
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        for rule in RULES:
            for lib, python in pythons.items():  # alternate the libraries
                means[lib][rule].append(run_child(python, lib, rule, args.threads, args.seconds))
    best = {
        lib: {
            rule: min((v for v in runs if isinstance(v, float)), default=runs[0])
            for rule, runs in by_rule.items()
        }
        for lib, by_rule in means.items()
    }
    rows = [
        "| rule | ferrograd | torch | torch / ferrograd |",
        "|---|---:|---:|---:|",
    ]
    for rule in RULES:
        fg = best["ferrograd"][rule]
        tv = best.get("torch", {}).get(rule, "n/a")
        ratio = tv / fg if isinstance(fg, float) and isinstance(tv, float) else None
        rows.append(
            f"| {rule} | {fmt(fg)} | {fmt(tv)} | {'n/a' if ratio is None else f'{ratio:.2f}x'} |"
        )
    section = [
        START,
        "## Optimizer steps against PyTorch",
        "",
        "- **Command**: `.venv/bin/python benches/optim_steps.py` (from the repository root)",
        f"- **Date (UTC)**: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} "
        f"UTC; the run took {time.time() - started:.0f} s",
        f"- **Machine**: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        f"cores; {args.threads} thread(s) for both libraries",
        "- **Workload**: `opt.step()` on 45 float32 parameters (40 of 96x96, 5 of 4000: 0.39M "
        "elements) whose `.grad` is set, learning rate 1e-4, every other setting the default",
        f"- **Method**: {args.rounds} rounds; in each, every rule in a fresh process per "
        f"library, the libraries alternating; a run is the mean of the steps of {args.seconds} s "
        "after 10 warm-up steps (garbage collector on); the table keeps the best mean.",
        "",
        *rows,
        END,
    ]
    print("\n".join(rows))
    if not args.no_write:
        report = ROOT / "BENCHMARKS.md"
        text = report.read_text()
        if START in text:
            head, rest = text.split(START, 1)
            text = head + "\n".join(section) + rest.split(END, 1)[1]
        else:
            text = text.rstrip("\n") + "\n\n" + "\n".join(section) + "\n"
        report.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
