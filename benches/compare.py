#!/usr/bin/env python3
"""ferrograd against hand-written numpy (and PyTorch CPU when installed), in one process.

    python benches/compare.py [--threads N] [--quick] [--rounds R] [--output BENCHMARKS.md]

Every workload runs through ferrograd's public Python API, through a numpy forward *and*
backward written by hand (the chain rule spelled out), and through PyTorch if ``import torch``
works. Before any timing, each library's gradients (and forward values) are checked against the
numpy baseline, so the benchmark never compares different computations. Each measurement is
the mean over a round's consecutive timed runs (a workload's throughput), the best of
``--rounds`` rounds (default 3) in which numpy and the libraries take turns, so a slow spell of
a shared machine falls on all of them; each round's runs follow one warm-up run (the checked
one), a pause for other libraries' worker threads to go idle and 0.2 s of untimed runs (cores
slow down while idle), timed with ``time.perf_counter`` with the garbage collector on, as users
run. mlp_step also reports each library's peak memory for one step. The
report (markdown) overwrites ``--output``; a summary table is also printed.

``--threads N`` sets OMP/OPENBLAS/MKL/RAYON_NUM_THREADS before numpy (and ferrograd, which
imports it) is imported, calls ``torch.set_num_threads(N)`` and ``ferrograd.set_num_threads(N)``
when they exist, and is recorded in the report. ``--quick`` only lowers the repetition counts.
Needs only the standard library and numpy; PyTorch is optional.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import gc
import glob
import json
import math
import os
import platform
import re
import shlex
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS")
US = "\u00b5s"  # microseconds

# Timed runs per workload (full, quick); each also gets one untimed warm-up (checked) run.
REPS = {
    "small_ops": (1000, 30),
    "nograd_ops": (1000, 30),
    "scalar_chain": (200, 10),
    "mlp_step": (100, 8),
    "matmul_big": (10, 2),
    "elementwise_big": (20, 3),
    "wide_branches": (20, 3),
    "deep_chain": (4, 1),
}

SMALL_N, SMALL_STEPS = 16, 100  # small_ops / nograd_ops: 3 ops per step
SCALAR_STEPS = 1500  # scalar_chain: 2 ops per step
MLP_SIZES, MLP_BATCH, MLP_LR = (784, 256, 128, 10), 64, 0.01
MATMUL_N = 1024
ELEM_N = 4_194_304
WIDE_BRANCHES, WIDE_DEPTH, WIDE_N = 8, 4, 256
DEEP_OPS = 1_000_000

perf = time.perf_counter
SETTLE_S = 0.3  # pause before each library's timed runs (see `measure`)
WARM_S = 0.2  # then untimed runs of the workload for at least this long (see `measure`)
Run = Callable[[bool], "tuple[tuple[float, ...], dict | None]"]


class Mismatch(AssertionError):
    """A library's gradients (or values) differ from the numpy baseline's."""


@dataclass
class Row:
    """One line of the report's table; times in seconds, or a string saying why there is none."""

    name: str
    times: dict[str, float | str]
    figure: str
    target: str
    met: str


@dataclass
class Ctx:
    np: Any
    fg: Any
    torch: Any
    quick: bool
    rounds: int = 1
    checks: list[tuple[str, str, str]] = field(default_factory=list)  # workload, library, diff
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # workload, lib, traceback
    notes: list[str] = field(default_factory=list)

    def reps(self, workload: str) -> int:
        return REPS[workload][1 if self.quick else 0]

    def reps_per_round(self, workload: str) -> int:
        return max(1, -(-self.reps(workload) // self.rounds))

    def autograd_libs(self) -> list[tuple[str, Any]]:
        libs = [("ferrograd", self.fg)]
        if self.torch is not None:
            libs.append(("torch", self.torch))
        return libs


# --------------------------------------------------------------------------------------------
# measuring


def measure(run: Run, reps: int, check: Callable[[dict], None] | None = None
            ) -> tuple[list[float], dict | None]:
    """Calls ``run(True)`` once (the warm-up; its values/gradients go to ``check``, which raises
    on a mismatch before anything is timed), then ``run(False)`` ``reps`` times with the garbage
    collector on, as users run; returns the per-part mean durations over those consecutive runs
    (throughput, not the luckiest run) and the warm-up run's values."""
    _, values = run(True)
    if check is not None:
        check(values)
    gc.collect()
    # idle long enough for the previous library's worker threads to stop spinning (OpenBLAS's
    # and OpenMP's threads busy-wait ~0.1 s after each call and would take a core from this one)
    time.sleep(SETTLE_S)
    total: list[float] = []
    try:
        # then run the workload untimed for a while: after an idle spell this machine's cores
        # take some tens of milliseconds to get back to full speed (a pure-Python loop measured
        # 2x slower for its first ~60 ms), which would otherwise fall on the short workloads'
        # timed runs, of whichever library comes after a pause
        start = perf()
        while perf() - start < WARM_S:
            run(False)
        for _ in range(reps):
            parts, _ = run(False)
            if len(total) != len(parts):
                total = [0.0] * len(parts)
            total = [t + p for t, p in zip(total, parts)]
    finally:
        gc.enable()
    return [t / reps for t in total], values


def check_close(ctx: Ctx, workload: str, lib: str, got: dict, ref: dict, rtol: float,
                atol_rel: float) -> None:
    """Asserts ``got`` matches ``ref`` key by key: |got - ref| <= atol + rtol * |ref| with
    atol = atol_rel * max|ref|. Records the largest relative difference for the report."""
    np = ctx.np
    worst = 0.0
    for key, want in ref.items():
        want = np.asarray(want, dtype=np.float64)
        have = np.asarray(got[key], dtype=np.float64)
        if have.shape != want.shape:
            raise Mismatch(f"{workload}/{lib}: {key} has shape {have.shape}, numpy {want.shape}")
        scale = float(np.max(np.abs(want))) if want.size else 0.0
        atol = atol_rel * scale
        if not np.allclose(have, want, rtol=rtol, atol=atol):
            diff = float(np.max(np.abs(have - want)))
            raise Mismatch(f"{workload}/{lib}: {key} differs from numpy's: max |diff| = "
                           f"{diff:.3g} (max |numpy| = {scale:.3g}, rtol {rtol}, atol {atol:.3g})")
        if scale:
            worst = max(worst, float(np.max(np.abs(have - want))) / scale)
    for i, (w, name, prev) in enumerate(ctx.checks):
        if (w, name) == (workload, lib):  # a later round: keep the worst difference seen
            ctx.checks[i] = (w, name, f"{max(worst, float(prev)):.1e}")
            return
    ctx.checks.append((workload, lib, f"{worst:.1e}"))


def run_libs(ctx: Ctx, workload: str, np_run: Run, make_ag: Callable[[str, Any], Run],
             rtol: float = 1e-4, atol_rel: float = 1e-5,
             after: Callable[[str], None] | None = None) -> dict[str, list[float] | str]:
    """Times numpy, then each autograd library after checking it against numpy's values, in
    ``ctx.rounds`` rounds (numpy and the libraries take turns, so a slow spell of the machine
    hits them alike); keeps each part's best round (lowest mean). ``after(name)`` runs once
    each library is done with its last round."""
    reps = ctx.reps_per_round(workload)
    out: dict[str, list[float] | str] = {}
    runs: dict[str, Run] = {}

    def keep(name: str, best: list[float]) -> None:
        old = out.get(name)
        out[name] = best if not isinstance(old, list) else [min(a, b) for a, b in zip(old, best)]

    for r in range(ctx.rounds):
        last = r == ctx.rounds - 1
        tag = f" (round {r + 1}/{ctx.rounds})" if ctx.rounds > 1 else ""
        print(f"  {workload}: numpy{tag} ...", flush=True)
        best, ref = measure(np_run, reps)
        keep("numpy", best)
        for name, lib in ctx.autograd_libs():
            if isinstance(out.get(name), str):
                continue  # failed in an earlier round
            print(f"  {workload}: {name}{tag} ...", flush=True)
            try:
                if name not in runs:
                    runs[name] = make_ag(name, lib)
                # checked in the first round only: workloads that train (mlp_step) drift
                # apart in float32 rounding over many steps, legitimately
                check = (lambda got, n=name, ref=ref: check_close(ctx, workload, n, got, ref,
                                                                  rtol, atol_rel)
                         ) if r == 0 else None
                best, _ = measure(runs[name], reps, check)
                keep(name, best)
            except Exception as exc:  # reported, and the other libraries still run
                ctx.failures.append((workload, name, traceback.format_exc()))
                kind = "mismatch" if isinstance(exc, Mismatch) else f"failed ({type(exc).__name__})"
                out[name] = kind
                print(f"    {name}: {kind}: {exc}", flush=True)
            if after is not None and last:
                after(name)
    return out


def part(res: dict, lib: str, *idx: int) -> float | str:
    """Sum of the chosen parts of a library's result, or its failure string."""
    val = res.get(lib, "n/a")
    if isinstance(val, str):
        return val
    return sum(val[i] for i in idx) if idx else sum(val)


def leaf(lib: Any, arr: Any) -> Any:
    return lib.from_numpy(arr.copy()).requires_grad_()


def as_np(t: Any) -> Any:
    return t.detach().numpy()


def status_bytes(key: str) -> int:
    """A size from /proc/self/status (VmRSS, VmHWM, ...), in bytes; 0 if absent."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def rss_bytes() -> int:
    return status_bytes("VmRSS")


def mib(n: float) -> str:
    return f"{n / 2**20:.1f} MiB"


def mark(ok: bool | None) -> str:
    if ok is None:
        return "not met (ferrograd failed)"
    return "met" if ok else "not met"


def okf(val: float | str, pred: Callable[[float], bool]) -> bool | None:
    return None if isinstance(val, str) else pred(val)


# --------------------------------------------------------------------------------------------
# workloads


def small_ops(ctx: Ctx) -> list[Row]:
    np = ctx.np
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, SMALL_N).astype(np.float32)
    ws = rng.uniform(-1, 1, SMALL_N).astype(np.float32)

    def np_run(collect: bool):
        t0 = perf()
        ys = [xs]
        y = xs
        for _ in range(SMALL_STEPS):
            y = np.tanh(y * ws + xs)
            ys.append(y)
        t1 = perf()
        y.sum()
        t2 = perf()
        g = np.ones_like(y)  # d sum / d y
        gx = np.zeros_like(xs)
        gw = np.zeros_like(ws)
        for k in range(SMALL_STEPS, 0, -1):
            gz = g * (1 - ys[k] * ys[k])  # tanh'(z) = 1 - tanh(z)^2
            gx += gz  # z = m + x
            gw += gz * ys[k - 1]  # m = y_{k-1} * w
            g = gz * ws
        gx += g  # y_0 is x
        t3 = perf()
        return (t1 - t0, t3 - t2), {"y": y, "x.grad": gx, "w.grad": gw}

    def make_ag(_name: str, lib: Any) -> Run:
        x, w = leaf(lib, xs), leaf(lib, ws)

        def run(collect: bool):
            t0 = perf()
            y = x
            for _ in range(SMALL_STEPS):
                y = (y * w + x).tanh()
            t1 = perf()
            s = y.sum()
            t2 = perf()
            s.backward()
            t3 = perf()
            vals = None
            if collect:
                vals = {"y": as_np(y), "x.grad": as_np(x.grad), "w.grad": as_np(w.grad)}
            del y, s  # the graph is freed outside the timed parts
            x.grad = None
            w.grad = None
            return (t1 - t0, t3 - t2), vals

        return run

    res = run_libs(ctx, "small_ops", np_run, make_ag)
    n_ops, n_nodes = 3 * SMALL_STEPS, 3 * SMALL_STEPS + 1
    fwd, bwd = part(res, "ferrograd", 0), part(res, "ferrograd", 1)
    return [
        Row("small_ops forward (recorded)", {k: part(res, k, 0) for k in res},
            per(fwd, n_ops, "op"), f"<= 0.5 {US}/op",
            mark(okf(fwd, lambda t: t / n_ops <= 0.5e-6))),
        Row("small_ops backward", {k: part(res, k, 1) for k in res},
            per(bwd, n_nodes, "node"), f"<= 0.3 {US}/node",
            mark(okf(bwd, lambda t: t / n_nodes <= 0.3e-6))),
    ]


def per(val: float | str, n: int, what: str) -> str:
    return val if isinstance(val, str) else f"{val / n * 1e6:.3f} {US}/{what}"


def nograd_ops(ctx: Ctx) -> list[Row]:
    np = ctx.np
    rng = np.random.default_rng(0)
    xs = rng.uniform(-1, 1, SMALL_N).astype(np.float32)
    ws = rng.uniform(-1, 1, SMALL_N).astype(np.float32)

    def np_run(collect: bool):
        t0 = perf()
        y = xs
        for _ in range(SMALL_STEPS):
            y = np.tanh(y * ws + xs)
        t1 = perf()
        return (t1 - t0,), {"y": y}

    def make_ag(_name: str, lib: Any) -> Run:
        x, w = leaf(lib, xs), leaf(lib, ws)

        def run(collect: bool):
            with lib.no_grad():
                t0 = perf()
                y = x
                for _ in range(SMALL_STEPS):
                    y = (y * w + x).tanh()
                t1 = perf()
            if y.requires_grad:
                raise AssertionError("no_grad result requires grad")
            return (t1 - t0,), ({"y": as_np(y)} if collect else None)

        return run

    res = run_libs(ctx, "nograd_ops", np_run, make_ag)
    n_ops = 3 * SMALL_STEPS
    t = part(res, "ferrograd")
    return [Row("nograd_ops", {k: part(res, k) for k in res}, per(t, n_ops, "op"),
                f"<= 0.4 {US}/op", mark(okf(t, lambda v: v / n_ops <= 0.4e-6)))]


def scalar_chain(ctx: Ctx) -> list[Row]:
    np = ctx.np
    c1, c2 = np.float32(1.0001), np.float32(0.0001)

    def np_run(collect: bool):
        t0 = perf()
        y = np.float32(0.5)
        for _ in range(SCALAR_STEPS):
            y = y * c1 + c2
        g = np.float32(1.0)
        for _ in range(SCALAR_STEPS):
            g = g * c1  # add passes the gradient through, mul by a constant scales it
        t1 = perf()
        return (t1 - t0,), {"y": y, "x.grad": g}

    def make_ag(_name: str, lib: Any) -> Run:
        x = lib.tensor(0.5, requires_grad=True)

        def run(collect: bool):
            t0 = perf()
            y = x
            for _ in range(SCALAR_STEPS):
                y = y * 1.0001 + 0.0001
            y.backward()
            yv = y.item()
            del y
            t1 = perf()
            vals = {"y": yv, "x.grad": as_np(x.grad)} if collect else None
            x.grad = None
            return (t1 - t0,), vals

        return run

    res = run_libs(ctx, "scalar_chain", np_run, make_ag)
    n_ops = 2 * SCALAR_STEPS
    t = part(res, "ferrograd")
    return [Row("scalar_chain (fwd+bwd)", {k: part(res, k) for k in res},
                per(t, n_ops, "op"), f"<= 1 {US}/op (fwd+bwd)",
                mark(okf(t, lambda v: v / n_ops <= 1e-6)))]


def mlp_runs(ctx: Ctx) -> tuple[Run, Callable[[str, Any], Run]]:
    """mlp_step's numpy run and the maker of each autograd library's run."""
    np = ctx.np
    rng = np.random.default_rng(0)
    init = []
    for fan_in, fan_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        bound = 1 / math.sqrt(fan_in)  # nn.Linear's default init range
        init.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        init.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    xs = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    ys = rng.standard_normal((MLP_BATCH, MLP_SIZES[-1])).astype(np.float32)
    names = ["w1.grad", "b1.grad", "w2.grad", "b2.grad", "w3.grad", "b3.grad"]
    params_np = [a.copy() for a in init]
    lr = np.float32(MLP_LR)

    def np_run(collect: bool):
        t0 = perf()
        w1, b1, w2, b2, w3, b3 = params_np
        z1 = xs @ w1.T + b1
        a1 = np.maximum(z1, 0)
        z2 = a1 @ w2.T + b2
        a2 = np.maximum(z2, 0)
        out = a2 @ w3.T + b3
        diff = out - ys
        loss = np.mean(diff * diff)
        dout = diff * np.float32(2.0 / diff.size)  # d mean((out - y)^2) / d out
        dw3 = dout.T @ a2
        db3 = dout.sum(0)
        dz2 = (dout @ w3) * (z2 > 0)
        dw2 = dz2.T @ a1
        db2 = dz2.sum(0)
        dz1 = (dz2 @ w2) * (z1 > 0)
        dw1 = dz1.T @ xs
        db1 = dz1.sum(0)
        grads = (dw1, db1, dw2, db2, dw3, db3)
        vals = None
        if collect:
            vals = {"loss": loss, **{n: g.copy() for n, g in zip(names, grads)}}
        for p, g in zip(params_np, grads):
            p -= lr * g
        t1 = perf()
        return (t1 - t0,), vals

    def make_ag(_name: str, lib: Any) -> Run:
        params = [leaf(lib, a) for a in init]
        x, y = lib.from_numpy(xs.copy()), lib.from_numpy(ys.copy())
        fn = lib.nn.functional

        def run(collect: bool):
            t0 = perf()
            w1, b1, w2, b2, w3, b3 = params
            h = fn.relu(fn.linear(x, w1, b1))
            h = fn.relu(fn.linear(h, w2, b2))
            loss = fn.mse_loss(fn.linear(h, w3, b3), y)
            loss.backward()
            vals = None
            if collect:  # only on the untimed warm-up run
                vals = {"loss": loss.item(), **{n: as_np(p.grad) for n, p in zip(names, params)}}
            with lib.no_grad():
                for p in params:
                    p.sub_(p.grad, alpha=MLP_LR)
                    p.grad = None
            del h, loss
            t1 = perf()
            return (t1 - t0,), vals

        return run

    return np_run, make_ag


def mlp_step(ctx: Ctx) -> list[Row]:
    np_run, make_ag = mlp_runs(ctx)
    res = run_libs(ctx, "mlp_step", np_run, make_ag, rtol=1e-3, atol_rel=1e-4)
    t, tn = part(res, "ferrograd"), part(res, "numpy")
    fig = t if isinstance(t, str) else f"{t * 1e3:.3f} ms/step"
    def peak(lib: str, env: dict[str, str] | None = None) -> str:
        grown = mlp_peak(lib, env)
        return "n/a" if grown is None else mib(grown)

    libs = ["ferrograd", "numpy"] + (["torch"] if ctx.torch is not None else [])
    peaks = {lib: peak(lib) for lib in libs}
    small_pages = peak("ferrograd", {"MIMALLOC_ALLOW_THP": "0"})
    peaks["ferrograd"] += f" ({small_pages} with `MIMALLOC_ALLOW_THP=0`)"
    fig += "; peak memory of a step: " + ", ".join(f"{lib} {v}" for lib, v in peaks.items())
    ctx.notes.append(
        "mlp_step peak memory: each library's first step in a fresh process (`compare.py "
        "--mlp-peak LIB`), after building the model and starting its threads; the figure is the "
        "process's peak resident memory during the step (VmHWM, reset just before it through "
        "`/proc/self/clear_refs`) minus its resident memory before the step: activations, saved "
        "tensors, gradients and the libraries' work buffers, as the allocator got them from the "
        "OS. The model's parameters (0.9 MiB) are not included. ferrograd's allocator "
        "(mimalloc) backs each thread's heap with 2 MiB transparent huge pages where the kernel "
        "allows it (`/sys/kernel/mm/transparent_hugepage/enabled`: "
        f"{thp_mode()}), so a few threads' first allocations raise resident memory by whole "
        "huge pages; `MIMALLOC_ALLOW_THP=0` turns that off (the figure in parentheses), at a "
        "cost where many small objects are allocated (deep_chain's forward measured 1.5x slower "
        "with it)."
    )
    return [Row("mlp_step", {k: part(res, k) for k in res}, fig, "<= 0.9x numpy time",
                mark(okf(t, lambda v: v <= 0.9 * tn)))]


def mlp_peak(lib: str, env: dict[str, str] | None = None) -> float | None:
    """Peak memory of one mlp_step of `lib`, measured in a fresh process (see `mlp_peak_child`)
    with `env` added to its environment; None where it cannot be measured."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--mlp-peak", lib],
                         capture_output=True, text=True, env={**os.environ, **(env or {})})
    try:
        return float(json.loads(out.stdout.strip().splitlines()[-1])["grown"])
    except (ValueError, IndexError, KeyError):
        return None


def thp_mode() -> str:
    """The kernel's transparent huge page mode (the bracketed word), or "unknown"."""
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            text = f.read()
    except OSError:
        return "unknown"
    start, end = text.find("["), text.find("]")
    return f"`{text[start + 1:end]}`" if 0 <= start < end else "unknown"


def mlp_peak_child(lib: str) -> int:
    """In a fresh process: one mlp_step of `lib`, printing how far resident memory rose above
    its level before the step (JSON; `grown` is null if the peak cannot be reset)."""
    import ferrograd as fg
    import numpy as np

    torch = None
    if lib == "torch":
        import torch
    ctx = Ctx(np=np, fg=fg, torch=torch, quick=True)
    np_run, make_ag = mlp_runs(ctx)
    if lib == "numpy":
        run = np_run
    else:
        mod = fg if lib == "ferrograd" else torch
        run = make_ag(lib, mod)
        mod.set_num_threads(mod.get_num_threads())  # start the thread pool before measuring
    before = rss_bytes()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident size
    except OSError:
        print(json.dumps({"grown": None}))
        return 0
    run(False)
    print(json.dumps({"grown": status_bytes("VmHWM") - before}))
    return 0


def matmul_big(ctx: Ctx) -> list[Row]:
    np = ctx.np
    rng = np.random.default_rng(0)
    an = rng.standard_normal((MATMUL_N, MATMUL_N)).astype(np.float32)
    bn = rng.standard_normal((MATMUL_N, MATMUL_N)).astype(np.float32)

    def np_run(collect: bool):
        t0 = perf()
        c = an @ bn
        c.sum()
        g = np.ones_like(c)  # d sum / d c
        ga = g @ bn.T
        gb = an.T @ g
        t1 = perf()
        return (t1 - t0,), ({"a.grad": ga, "b.grad": gb} if collect else None)

    def make_ag(_name: str, lib: Any) -> Run:
        a, b = leaf(lib, an), leaf(lib, bn)

        def run(collect: bool):
            t0 = perf()
            (a @ b).sum().backward()
            t1 = perf()
            vals = {"a.grad": as_np(a.grad), "b.grad": as_np(b.grad)} if collect else None
            a.grad = None
            b.grad = None
            return (t1 - t0,), vals

        return run

    res = run_libs(ctx, "matmul_big", np_run, make_ag, rtol=1e-3, atol_rel=1e-4)
    flops = 3 * 2 * MATMUL_N**3
    t, tn = part(res, "ferrograd"), part(res, "numpy")
    fig = f"numpy {flops / tn / 1e9:.1f} GFLOP/s"
    if not isinstance(t, str):
        fig = f"ferrograd {flops / t / 1e9:.1f} GFLOP/s; " + fig
    if isinstance(res.get("torch"), list):
        fig += f"; torch {flops / part(res, 'torch') / 1e9:.1f} GFLOP/s"
    return [Row("matmul_big", {k: part(res, k) for k in res}, fig, ">= 0.95x numpy GFLOP/s",
                mark(okf(t, lambda v: flops / v >= 0.95 * flops / tn)))]


def elementwise_big(ctx: Ctx) -> list[Row]:
    np = ctx.np
    xn = np.random.default_rng(0).standard_normal(ELEM_N).astype(np.float32)

    def np_run(collect: bool):
        t0 = perf()
        s = np.sin(xn)
        (s * xn).sum()
        gx = np.cos(xn) * xn + s  # d/dx sin(x) x = cos(x) x + sin(x)
        t1 = perf()
        return (t1 - t0,), ({"x.grad": gx} if collect else None)

    def make_ag(_name: str, lib: Any) -> Run:
        x = leaf(lib, xn)

        def run(collect: bool):
            t0 = perf()
            (x.sin() * x).sum().backward()
            t1 = perf()
            vals = {"x.grad": as_np(x.grad)} if collect else None
            x.grad = None
            return (t1 - t0,), vals

        return run

    res = run_libs(ctx, "elementwise_big", np_run, make_ag)
    t, tn = part(res, "ferrograd"), part(res, "numpy")
    fig = t if isinstance(t, str) else f"{t / ELEM_N * 1e9:.2f} ns/element"
    return [Row("elementwise_big", {k: part(res, k) for k in res}, fig, "<= 0.6x numpy time",
                mark(okf(t, lambda v: v <= 0.6 * tn)))]


def wide_branches(ctx: Ctx, threads: int | None) -> list[Row]:
    np = ctx.np
    rng = np.random.default_rng(0)
    h0n = rng.standard_normal((WIDE_N, WIDE_N)).astype(np.float32)
    wns = [(rng.standard_normal((WIDE_N, WIDE_N)) / math.sqrt(WIDE_N)).astype(np.float32)
           for _ in range(WIDE_BRANCHES)]
    names = [f"W{i}.grad" for i in range(WIDE_BRANCHES)]

    def np_run(collect: bool):
        t0 = perf()
        tapes = []
        total = np.float32(0)
        for w in wns:
            hs = [h0n]
            h = h0n
            for _ in range(WIDE_DEPTH):
                h = np.tanh(h @ w)
                hs.append(h)
            total = total + h.sum()
            tapes.append(hs)
        grads = []
        for w, hs in zip(wns, tapes):
            g = np.ones_like(hs[-1])  # d total / d h
            gw = None
            for k in range(WIDE_DEPTH, 0, -1):
                gz = g * (1 - hs[k] * hs[k])
                gwk = hs[k - 1].T @ gz
                gw = gwk if gw is None else gw + gwk
                if k > 1:  # h0 needs no gradient
                    g = gz @ w.T
            grads.append(gw)
        t1 = perf()
        return (t1 - t0,), (dict(zip(names, grads)) if collect else None)

    def make_ag(_name: str, lib: Any) -> Run:
        h0 = lib.from_numpy(h0n.copy())
        ws = [leaf(lib, w) for w in wns]

        def run(collect: bool):
            t0 = perf()
            total = None
            for w in ws:
                h = h0
                for _ in range(WIDE_DEPTH):
                    h = (h @ w).tanh()
                total = h.sum() if total is None else total + h.sum()
            total.backward()
            del total, h
            t1 = perf()
            vals = {n: as_np(w.grad) for n, w in zip(names, ws)} if collect else None
            for w in ws:
                w.grad = None
            return (t1 - t0,), vals

        return run

    res = run_libs(ctx, "wide_branches", np_run, make_ag, rtol=1e-3, atol_rel=1e-4)
    t = part(res, "ferrograd")
    fig = t if isinstance(t, str) else f"{t * 1e3:.2f} ms/step"
    met = "n/a \u2014 no thread control yet"
    set_threads = getattr(ctx.fg, "set_num_threads", None)
    if set_threads is not None and not isinstance(t, str):
        get_threads = getattr(ctx.fg, "get_num_threads", None)
        prev = get_threads() if get_threads else threads or os.cpu_count() or 1
        run = make_ag("ferrograd", ctx.fg)
        by_threads: dict[int, list[float]] = {}
        for _ in range(ctx.rounds):  # 1 and 2 threads take turns, as the libraries do
            for n in (1, 2):
                set_threads(n)
                best, _ = measure(run, ctx.reps_per_round("wide_branches"))
                by_threads[n] = [min(a, b) for a, b in zip(by_threads.get(n, best), best)]
        set_threads(prev)
        t1, t2 = by_threads[1][0], by_threads[2][0]
        fig += f"; 1 thread {t1 * 1e3:.2f} ms, 2 threads {t2 * 1e3:.2f} ms ({t1 / t2:.2f}x)"
        met = mark(t1 / t2 >= 1.7)
    return [Row("wide_branches", {k: part(res, k) for k in res}, fig,
                "2 threads >= 1.7x faster than 1", met)]


def deep_chain(ctx: Ctx) -> list[Row]:
    np = ctx.np
    c = np.float32(1.0000001)
    mem: list[tuple[int, int, int]] = []  # ferrograd: RSS before, after backward, after free

    def np_run(collect: bool):
        t0 = perf()
        y = np.float32(1.0)
        for _ in range(DEEP_OPS):
            y = y * c
        t1 = perf()
        g = np.float32(1.0)
        for _ in range(DEEP_OPS):
            g = g * c
        t2 = perf()
        return (t1 - t0, t2 - t1, 0.0), {"y": y, "x.grad": g}

    def make_ag(name: str, lib: Any) -> Run:
        x = lib.tensor(1.0, requires_grad=True)
        track = name == "ferrograd"

        def run(collect: bool):
            if track:
                gc.collect()
                before = rss_bytes()
            t0 = perf()
            y = x
            for _ in range(DEEP_OPS):
                y = y * 1.0000001
            t1 = perf()
            y.backward()
            t2 = perf()
            yv = y.item()
            if track:
                peak = rss_bytes()
            t2b = perf()
            del y
            t3 = perf()
            vals = {"y": yv, "x.grad": as_np(x.grad)} if collect else None
            x.grad = None
            if track:
                gc.collect()
                mem.append((before, peak, rss_bytes()))
            return (t1 - t0, t2 - t1, t3 - t2b), vals

        return run

    trimmed: list[int] = []

    def after(name: str) -> None:
        """Whether the RSS kept after the free is memory freed but held by the C allocator:
        ask glibc to give it back (diagnostic only; the target uses the plain reading)."""
        if name != "ferrograd" or not mem:
            return
        try:
            ctypes.CDLL("libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):
            return
        gc.collect()
        trimmed.append(rss_bytes())

    res = run_libs(ctx, "deep_chain", np_run, make_ag, after=after)
    t = part(res, "ferrograd")
    if isinstance(t, str) or not mem:
        return [Row("deep_chain (fwd+bwd+free)", {k: part(res, k) for k in res}, str(t),
                    f"completes; <= 1 {US}/op; RSS back to baseline", mark(None))]
    fwd, bwd, free = res["ferrograd"]
    base, peak, end = mem[0][0], max(m[1] for m in mem), mem[-1][2]
    grown = end - base
    mem_ok = grown <= 16 * 2**20
    fig = (f"{t / DEEP_OPS * 1e6:.3f} {US}/op (fwd {fwd / DEEP_OPS * 1e6:.3f}, bwd "
           f"{bwd / DEEP_OPS * 1e6:.3f}, free {free / DEEP_OPS * 1e6:.3f}); RSS {mib(base)} -> "
           f"peak {mib(peak)} -> {mib(end)} after del+gc.collect ({grown / 2**20:+.1f} MiB)")
    ctx.notes.append(
        f"deep_chain memory (ferrograd, VmRSS): {len(mem)} runs of {DEEP_OPS:,} ops; before the "
        f"first run {mib(base)}, highest right after a backward (graph still alive) {mib(peak)}, "
        f"after the last run's `del` + `gc.collect()` {mib(end)} ({grown / 2**20:+.1f} MiB; "
        f"'back to baseline' means within 16 MiB of the first reading). Per run: "
        + ", ".join(f"{mib(b)} -> {mib(p)} -> {mib(a)}" for b, p, a in mem) + ".")
    if trimmed:
        back = trimmed[0] - base
        verdict = ("so what stayed was freed memory held by the C allocator, not a leak"
                   if back <= 16 * 2**20 else "so memory is still held after trimming")
        ctx.notes[-1] += (f" After glibc `malloc_trim(0)` (a diagnostic only; the target uses "
                          f"the reading above): {mib(trimmed[0])} ({back / 2**20:+.1f} MiB), "
                          f"{verdict}.")
    return [Row("deep_chain (fwd+bwd+free)", {k: part(res, k) for k in res}, fig,
                f"completes; <= 1 {US}/op; RSS back to baseline",
                mark(t / DEEP_OPS <= 1e-6 and mem_ok))]


# --------------------------------------------------------------------------------------------
# environment and report


class OtherLoad:
    """What else used the CPUs over an interval, in average cores: other processes (all CPU time
    in /proc/stat minus this process's own and its finished children's, from ``os.times``) and
    steal (time the hypervisor gave the virtual CPUs to someone else)."""

    def __init__(self) -> None:
        self.start = self._snap()

    @staticmethod
    def _snap() -> tuple[float, float, float, float] | None:
        try:
            with open("/proc/stat") as f:
                vals = [int(v) for v in f.readline().split()[1:9]]
        except (OSError, ValueError):
            return None
        vals += [0] * (8 - len(vals))
        tick = os.sysconf("SC_CLK_TCK")
        busy = (sum(vals[:7]) - vals[3] - vals[4]) / tick  # all but idle and iowait
        own = os.times()
        mine = own.user + own.system + own.children_user + own.children_system
        return busy, mine, vals[7] / tick, perf()

    def cores(self) -> tuple[float, float] | None:
        """(other processes, steal), each in average cores; None if unknown or if the interval
        was too short (under 1 s) for the clock-tick counters to say anything."""
        end = self._snap()
        if self.start is None or end is None or end[3] - self.start[3] < 1.0:
            return None
        wall = end[3] - self.start[3]
        other = (end[0] - self.start[0]) - (end[1] - self.start[1])
        return max(0.0, other / wall), (end[2] - self.start[2]) / wall


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_simd() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return " ".join(x for x in ("avx2", "fma", "avx512f") if x in flags) or "-"
    except OSError:
        pass
    return "unknown"


def os_name() -> str:
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    pretty = line.split("=", 1)[1].strip().strip('"')
                    return f"{pretty}, kernel {platform.release()} ({platform.machine()})"
    except OSError:
        pass
    return platform.platform()


def openblas_runtime(np: Any) -> tuple[str | None, int | None]:
    """The kernel (core) name and thread count that numpy's OpenBLAS reports at run time, when
    its library can be found next to numpy (wheels bundle it in ``numpy.libs``)."""
    libdir = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(libdir, "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas_", "openblas_"):
            for suffix in ("64_", ""):
                core = getattr(lib, f"{prefix}get_corename{suffix}", None)
                nthr = getattr(lib, f"{prefix}get_num_threads{suffix}", None)
                if core is not None and nthr is not None:
                    core.restype = ctypes.c_char_p
                    return core().decode(), int(nthr())
    return None, None


def blas_info(np: Any) -> str:
    """numpy's BLAS: name and version from its build config, and OpenBLAS's run-time kernel."""
    out = []
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        out.append(f"{blas.get('name')} {blas.get('version')}")
    except Exception:
        out.append("unknown")
    core, _ = openblas_runtime(np)
    if core:
        out.append(f"kernel {core}")
    return ", ".join(out)


def git_info() -> str:
    try:
        head = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain", "--", "src", "python",
                                "Cargo.toml"], capture_output=True, text=True,
                               check=True).stdout.strip()
        changes = " + uncommitted changes under src/, python/ or Cargo.toml"
        return f"git {head}" + (changes if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "git unknown"


def core_build(fg: Any) -> str:
    try:
        path = fg._core.__file__
        stamp = datetime.datetime.fromtimestamp(os.path.getmtime(path), datetime.timezone.utc)
        return f"{os.path.basename(path)} built {stamp:%Y-%m-%d %H:%M} UTC"
    except Exception:
        return "build unknown"


def fmt_time(val: float | str, unit: tuple[str, float]) -> str:
    if isinstance(val, str):
        return val
    return f"{val / unit[1]:.4g} {unit[0]}"


def fmt_ratio(a: float | str, b: float | str) -> str:
    if isinstance(a, str) or isinstance(b, str):
        return "n/a"
    return f"{a / b:.2f}"


def pick_unit(row: Row) -> tuple[str, float]:
    vals = [v for v in row.times.values() if not isinstance(v, str)]
    ref = row.times.get("ferrograd")
    ref = ref if not isinstance(ref, str) else (min(vals) if vals else 1.0)
    if ref < 1e-3:
        return US, 1e-6
    if ref < 1.0:
        return "ms", 1e-3
    return "s", 1.0


def table(rows: list[Row]) -> list[str]:
    lines = [
        "| workload | ferrograd | numpy (by hand) | ferrograd / numpy | torch | ferrograd / torch "
        "| unit figure (ferrograd) | target | target met? |",
        "|---|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in rows:
        unit = pick_unit(r)
        fg_t, np_t = r.times.get("ferrograd", "n/a"), r.times.get("numpy", "n/a")
        th_t = r.times.get("torch", "n/a")
        lines.append(
            f"| {r.name} | {fmt_time(fg_t, unit)} | {fmt_time(np_t, unit)} | "
            f"{fmt_ratio(fg_t, np_t)} | {fmt_time(th_t, unit)} | {fmt_ratio(fg_t, th_t)} | "
            f"{r.figure} | {r.target} | {r.met} |")
    return lines


WORKLOAD_TEXT = [
    ("small_ops", f"x, w: {SMALL_N} floats requiring grad; `y = x`, then {SMALL_STEPS} times "
     "`y = (y * w + x).tanh()` (300 ops), then `y.sum().backward()`. Forward = the 300 ops; "
     "backward = `backward()` alone (301 nodes: 300 ops + the sum; the two AccumulateGrad "
     "not counted). The graph is freed outside both timings. numpy: keeps every `y`, then the "
     "chain rule by hand."),
    ("nograd_ops", "the same 300-op forward under `no_grad()` (numpy: the forward alone)."),
    ("scalar_chain", f"0-d `x`; {SCALAR_STEPS} times `y = y * 1.0001 + 0.0001` (3,000 ops); "
     "`y.backward()`; time includes freeing the graph. numpy: float32 scalars forward, then "
     "the gradient by hand."),
    ("mlp_step", f"batch {MLP_BATCH}, {'-'.join(map(str, MLP_SIZES))}, "
     "`relu(linear(...))` twice, `linear`, `mse_loss`, `backward()`, then SGD "
     f"(`p.sub_(p.grad, alpha={MLP_LR})`, `p.grad = None`) under `no_grad()`. numpy: "
     "the same forward, backprop through relu and MSE by hand, in-place update."),
    ("matmul_big", f"`(a @ b).sum().backward()`, a, b {MATMUL_N}x{MATMUL_N}; GFLOP/s count "
     f"3 * 2 * {MATMUL_N}^3 flops. numpy: `a @ b`, `.sum()`, `g @ b.T`, `a.T @ g` with g = ones."),
    ("elementwise_big", f"x of {ELEM_N:,} floats; `(x.sin() * x).sum().backward()`. numpy: "
     "`sin(x) * x`, `.sum()`, `cos(x) * x + sin(x)` (reusing sin(x))."),
    ("wide_branches", f"{WIDE_BRANCHES} branches, each its own W ({WIDE_N}x{WIDE_N}, requires "
     f"grad) applied {WIDE_DEPTH} times as `h = (h @ W).tanh()` from a shared constant h0; "
     "the branches' `h.sum()` added up; `backward()`. ms per step."),
    ("deep_chain", f"0-d `x`; {DEEP_OPS:,} times `y = y * 1.0000001`; `y.backward()`; `del y` "
     "(time covers forward, backward and the free). numpy: float32 scalars forward, the "
     "gradient by hand."),
]


def write_report(path: str, rows: list[Row], ctx: Ctx, env: dict[str, str]) -> None:
    lines = [
        "# ferrograd benchmarks: against hand-written numpy and PyTorch CPU",
        "",
        "Written by `benches/compare.py`; rerun it rather than editing this file.",
        "",
        f"- **Command**: `{env['command']}` ({env['where']})",
        f"- **Date (UTC)**: {env['date']}; the run took {env['wall']}",
        f"- **Machine**: {env['cpu']} ({env['simd']}), {env['cores']}; {env['os']}",
        "- **Other load** (this machine is shared; other load adds noise): average cores used "
        "by other processes + taken by the hypervisor (steal), during each workload: "
        f"{env['other']} (n/a: under 1 s, too short to tell). Load average (1 min) at start / "
        f"end: {env['load']}.",
        f"- **Versions**: Python {platform.python_version()}, numpy {ctx.np.__version__} "
        f"(BLAS: {env['blas']}), ferrograd {ctx.fg.__version__} ({env['git']}; "
        f"{env['build']}), torch {env['torch']}",
        f"- **Threads**: {env['threads']}",
        f"- **OPENBLAS_CORETYPE**: {env['coretype']}. On this machine it may be set; it picks "
        "OpenBLAS's kernel and so changes numpy's matmul speed (matmul_big, mlp_step, "
        "wide_branches).",
        f"- **Method**: {env['mode']} mode, {env['rounds']} round(s): in each round numpy and then "
        "each library run the workload (so a slow spell of this shared machine falls on all of "
        "them); each figure is the mean over a round's consecutive timed runs, the best of the "
        "rounds (N timed runs in all, shared out over the rounds), each round's runs after "
        "one warm-up run, a 0.3 s pause (so the previous library's "
        "spinning BLAS/OpenMP threads have gone idle) and 0.2 s of untimed runs (so the cores "
        "are back to full speed after the pause), `time.perf_counter`, garbage collector "
        "on while timing (as users run); float32 throughout. Timed runs per workload (all rounds): "
        + ", ".join(f"{k} {v}" for k, v in env["reps"].items()) + ".",
        "- **Checked**: before timing, every library's gradients (and forward values where "
        "the workload has them) were asserted equal to the numpy baseline's (`np.allclose`, "
        "float32 tolerances; see below).",
        "",
        "Ratios are time ratios: below 1 means ferrograd is faster.",
        "",
        *table(rows),
        "",
        "## Workloads",
        "",
        *[f"- **{name}**: {text}" for name, text in WORKLOAD_TEXT],
        "",
        "## Correctness cross-check",
        "",
        "Largest |difference| from the numpy baseline's gradients/values, relative to the largest "
        "|value| of each checked array (worst over the workload's arrays):",
        "",
        "| workload | library | max rel. diff |",
        "|---|---|---:|",
        *[f"| {w} | {lib} | {d} |" for w, lib, d in ctx.checks],
        "",
    ]
    notes = list(ctx.notes)
    if env["busy"]:
        notes.append("The machine was busy during this run (other processes and steal took at "
                     f"least a quarter of a core, of {os.cpu_count()}, during some workload): "
                     "timings are noisier than usual, and numpy's multi-threaded OpenBLAS in "
                     "particular can slow down sharply while another process holds a core; "
                     "`--threads 1` gives steadier numpy figures.")
    if notes:
        lines += ["## Notes", "", *[f"- {n}" for n in notes], ""]
    lines += ["## Failures", ""]
    if not ctx.failures:
        lines += ["None: every workload ran and matched numpy.", ""]
    for w, lib, tb in ctx.failures:
        lines += [f"**{w}** ({lib}):", "", "```", tb.rstrip(), "```", ""]
    lines += _kept_profile_notes(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


# sections other scripts write (training steps, DDP overlap) or written by hand (profile
# notes), each between `<!-- name -->` and `<!-- /name -->`: carried over unchanged
KEPT_SECTION = re.compile(r"<!-- ([a-z0-9-]+) -->.*?<!-- /\1 -->", re.DOTALL)


def _kept_profile_notes(path: str) -> list[str]:
    """Every marked section of the previous report (hand-written profile notes, the sections
    of ``benches/train_steps.py`` and ``benches/ddp_overlap.py``), carried over unchanged."""
    try:
        old = open(path, encoding="utf-8").read()
    except OSError:
        return []
    kept = []
    for match in KEPT_SECTION.finditer(old):
        kept += ["", match.group(0), ""]
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for numpy's BLAS, torch and ferrograd (sets OMP/OPENBLAS/"
                             "MKL/RAYON_NUM_THREADS before numpy is imported)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer repetitions (same sizes): a full run in well under a minute")
    parser.add_argument("--rounds", type=int, default=3,
                        help="time each workload in this many rounds, numpy and the libraries "
                             "taking turns, and keep the best round's mean (default 3; the "
                             "timed runs per workload are shared out over the rounds)")
    parser.add_argument("--output", default=os.path.join(REPO, "BENCHMARKS.md"),
                        help="markdown report to write (overwritten); default BENCHMARKS.md at "
                             "the repository root")
    parser.add_argument("--mlp-peak", metavar="LIB", choices=["numpy", "ferrograd", "torch"],
                        help=argparse.SUPPRESS)  # internal: see `mlp_peak`
    args = parser.parse_args(argv)
    if args.mlp_peak:
        return mlp_peak_child(args.mlp_peak)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    if args.threads is not None:
        if args.threads < 1:
            parser.error("--threads must be >= 1")
        for var in THREAD_VARS:
            os.environ[var] = str(args.threads)

    # Imported only now, after the thread variables are set (ferrograd imports numpy too).
    import ferrograd as fg
    import numpy as np

    try:
        import torch
    except ImportError:
        torch = None
    if args.threads is not None:
        if torch is not None:
            torch.set_num_threads(args.threads)
        if hasattr(fg, "set_num_threads"):
            fg.set_num_threads(args.threads)

    started = perf()
    whole_run = OtherLoad()
    load0 = os.getloadavg()[0]
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    ctx = Ctx(np=np, fg=fg, torch=torch, quick=args.quick, rounds=args.rounds)
    print(f"ferrograd benchmarks ({'quick' if args.quick else 'full'} mode); numpy "
          f"{np.__version__}; torch {'not installed' if torch is None else torch.__version__}",
          flush=True)

    rows: list[Row] = []
    workloads: list[tuple[str, Callable[[], list[Row]]]] = [
        (fn.__name__, lambda fn=fn: fn(ctx))
        for fn in (small_ops, nograd_ops, scalar_chain, mlp_step, matmul_big, elementwise_big)
    ]
    workloads += [("wide_branches", lambda: wide_branches(ctx, args.threads)),
                  ("deep_chain", lambda: deep_chain(ctx))]
    other: dict[str, tuple[float, float] | None] = {}
    for name, fn in workloads:
        load = OtherLoad()
        rows += fn()
        other[name] = load.cores()
    other["whole run"] = whole_run.cores()

    cmd = shlex.join([sys.executable, *(sys.argv if argv is None else [sys.argv[0], *argv])])
    cwd = os.getcwd()
    where = "run from the repository root" if os.path.samefile(cwd, REPO) else f"run in {cwd}"
    thread_env = {v: os.environ[v] for v in THREAD_VARS if v in os.environ}
    if args.threads is not None:
        threads = f"{args.threads} (`--threads {args.threads}`: {', '.join(THREAD_VARS)} set"
    else:
        threads = "not set by `--threads` (library defaults"
        if thread_env:
            threads += "; from the environment: " + ", ".join(
                f"{k}={v}" for k, v in thread_env.items())
    _, blas_threads = openblas_runtime(np)
    threads += "); numpy's BLAS: " + (f"{blas_threads} thread(s) (OpenBLAS reports)"
                                      if blas_threads else "thread count unknown")
    threads += "; torch " + ("not installed" if torch is None
                             else f"{torch.get_num_threads()} thread(s)")
    threads += "; ferrograd " + (
        "has no `set_num_threads` (not controllable)" if not hasattr(fg, "set_num_threads")
        else f"`set_num_threads({args.threads})`" if args.threads else "default")
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    env = {
        "command": cmd,
        "where": where,
        "date": date,
        "wall": f"{perf() - started:.0f} s",
        "cpu": cpu_model(),
        "simd": cpu_simd(),
        "cores": f"{os.cpu_count()} logical cores ({affinity} usable by this process)",
        "os": os_name(),
        "load": f"{load0:.2f} / {os.getloadavg()[0]:.2f}",
        "busy": "",
        "blas": blas_info(np),
        "git": git_info(),
        "build": core_build(fg),
        "torch": "not installed (torch columns n/a)" if torch is None else torch.__version__,
        "threads": threads,
        "coretype": (f"`{os.environ['OPENBLAS_CORETYPE']}`" if "OPENBLAS_CORETYPE" in os.environ
                     else "not set"),
        "mode": "quick (`--quick`)" if args.quick else "full",
        "rounds": str(args.rounds),
        "reps": {k: ctx.reps_per_round(k) * ctx.rounds for k in REPS},
    }
    known = [sum(v) for v in other.values() if v is not None]
    env["busy"] = "yes" if known and max(known) >= 0.25 else ""
    for row in rows:  # flag verdicts reached while something else held the CPUs
        load = other.get(row.name.split()[0])
        if load is not None and sum(load) >= 0.25:
            row.met += f" (busy: {sum(load):.2f} cores of other load)"
    env["other"] = ", ".join(
        f"{k} {'n/a' if v is None else f'{v[0]:.2f} + {v[1]:.2f}'}" for k, v in other.items())
    write_report(args.output, rows, ctx, env)

    print()
    print("\n".join(table(rows)))
    print(f"\nreport written to {args.output}")
    for w, lib, _ in ctx.failures:
        print(f"FAILED: {w} ({lib})", file=sys.stderr)
    return 1 if any(lib == "ferrograd" for _, lib, _ in ctx.failures) else 0


if __name__ == "__main__":
    sys.exit(main())
