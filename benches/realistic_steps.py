"""Models of the size people train on a CPU, ferrograd against PyTorch, timed as throughput.

Issue 26's measure. Each (library, workload, thread count) runs in a fresh process, the two
libraries alternating within every round; a process builds the model and data after
``manual_seed(0)`` (the same initial weights in both libraries), runs four steps while its peak
resident memory is watched (VmHWM reset through ``/proc/self/clear_refs`` once the model and
data exist), then times ``--steps`` consecutive steps as one block. The figure is that block's
mean step time, the best over rounds (never the fastest single step); Python's garbage
collector stays on, as in a training script. Losses of the first 20 steps are compared between
the libraries. The kernel tables time the matrix-product shapes and the fused ops these models
run. The result replaces the realistic-sizes section of ``BENCHMARKS.md``::

    .venv/bin/python benches/realistic_steps.py [--rounds 2] [--torch /work/torchenv/bin/python]

Time only on a quiet machine: PyTorch's OpenMP threads collapse when another process competes
for the cores.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START, END = "<!-- realistic-steps -->", "<!-- /realistic-steps -->"
# training workloads whose losses are also compared in float64 (gpt_medium's would take
# minutes there)
FLOAT64_CHECKS = ("gpt_small", "resnet_small")

# name: (description, target: PyTorch time / ferrograd time at 2 threads)
WORKLOADS = {
    "gpt_small": ("nanoGPT-style char GPT: 4 layers, 4 heads, width 128, context 64, batch 16, "
                  "AdamW, clip_grad_norm_", 1.1),
    "gpt_medium": ("nanoGPT shakespeare-char: 6 layers, 6 heads, width 384, context 256, "
                   "batch 4", 1.1),
    "resnet_small": ("CIFAR ResNet (16/32/64 channels, 2 blocks a stage), batch 32 of 3x32x32, "
                     "SGD momentum, train mode", 1.1),
    "gpt_sample": ("64 tokens from a 16-token prompt with gpt_small, top-k 10, no_grad", 1.5),
    "mlp_infer_b1": ("one example through a 784-256-128-10 MLP under no_grad", 1.5),
}  # fmt: skip

# gpt_small / gpt_medium: (layers, heads, width, context, batch)
GPT_SIZES = {"gpt_small": (4, 4, 128, 64, 16), "gpt_medium": (6, 6, 384, 256, 4)}
VOCAB = 65


def gpt_model(torch, layers, heads, width, context):
    """nanoGPT's model as its ``model.py`` writes it (no dropout, biases, weight tying)."""
    nn, F = torch.nn, torch.nn.functional

    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(width, 3 * width)
            self.c_proj = nn.Linear(width, width)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(width, dim=2)
            q, k, v = (t.view(B, T, heads, C // heads).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn = nn.LayerNorm(width), SelfAttention()
            self.ln_2 = nn.LayerNorm(width)
            self.c_fc, self.gelu = nn.Linear(width, 4 * width), nn.GELU()
            self.c_proj = nn.Linear(4 * width, width)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.c_proj(self.gelu(self.c_fc(self.ln_2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(VOCAB, width), nn.Embedding(context, width)
            self.h = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f = nn.LayerNorm(width)
            self.lm_head = nn.Linear(width, VOCAB, bias=False)
            self.wte.weight = self.lm_head.weight
            for m in self.modules():
                if isinstance(m, (nn.Linear, nn.Embedding)):
                    nn.init.normal_(m.weight, mean=0.0, std=0.02)
                if isinstance(m, nn.Linear) and m.bias is not None:
                    nn.init.zeros_(m.bias)
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * layers))

        def forward(self, idx):
            pos = torch.arange(0, idx.size(1), dtype=torch.long)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.h:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return GPT()


def resnet_model(torch):
    """A CIFAR-style ResNet: 3x3 stem of 16 channels, three stages of two basic blocks at
    16/32/64 channels (stride 2 and a 1x1 convolution shortcut where the shape changes)."""
    nn, F = torch.nn, torch.nn.functional

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(
                    nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout)
                )

        def forward(self, x):
            out = F.relu(self.bn1(self.conv1(x)))
            return F.relu(self.bn2(self.conv2(out)) + self.shortcut(x))

    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()]
    cin = 16
    for cout, stride in ((16, 1), (32, 2), (64, 2)):
        layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
        cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers)


def make_step(torch, name, float64=False):
    """``(step, unit)``: ``step()`` runs one step (returning the loss as a float, or None);
    with ``float64`` the model and its float inputs in float64."""
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    if name in GPT_SIZES:
        layers, heads, width, context, batch = GPT_SIZES[name]
        model = gpt_model(torch, layers, heads, width, context)
        if float64:
            model = model.double()
        data = torch.randint(0, VOCAB, (batch, context + 1))
        x, y = data[:, :-1], data[:, 1:]
        params = [p for p in model.parameters() if p.requires_grad]
        groups = [
            {"params": [p for p in params if p.dim() >= 2], "weight_decay": 0.1},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0},
        ]
        opt = torch.optim.AdamW(groups, lr=1e-3, betas=(0.9, 0.95))

        def step():
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, VOCAB), y.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            return loss.item()

        return step, "step"
    if name == "resnet_small":
        model = resnet_model(torch)
        model.train()
        x, y = torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))
        if float64:
            model, x = model.double(), x.double()
        opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)

        def step():
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            return loss.item()

        return step, "step"
    if name == "gpt_sample":
        layers, heads, width, context, _ = GPT_SIZES["gpt_small"]
        model = gpt_model(torch, layers, heads, width, context)
        model.eval()
        prompt = torch.randint(0, VOCAB, (1, 16))

        def step():
            idx = prompt
            with torch.no_grad():
                for _ in range(64):
                    logits = model(idx[:, -context:])[:, -1, :]
                    v, _ = torch.topk(logits, 10)
                    logits[logits < v[:, [-1]]] = -float("inf")
                    probs = F.softmax(logits, dim=-1)
                    idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return None

        return step, "64 tokens"
    if name == "mlp_infer_b1":
        model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                              nn.Linear(128, 10))  # fmt: skip
        model.eval()
        x = torch.randn(1, 784)

        def step():
            with torch.no_grad():
                model(x)
            return None

        return step, "example"
    raise ValueError(name)


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def run_workload(torch, name, steps):
    """Peak memory over four steps, then the mean of ``steps`` consecutive steps."""
    step, unit = make_step(torch, name)
    gc.collect()
    base = _status_kib("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM to the current resident size
        peak_ok = True
    except OSError:
        peak_ok = False
    losses = [step() for _ in range(4)]
    peak = (_status_kib("VmHWM") - base) / 1024 if peak_ok else None
    t0 = time.perf_counter()
    for _ in range(steps):
        losses.append(step())
    mean = (time.perf_counter() - t0) / steps
    losses = [v for v in losses if v is not None][:20]
    return {"mean": mean, "peak_mib": peak, "losses": losses, "unit": unit}


def kernel_cases(torch):
    """``(name, work, fn)``: the matrix products (``work`` = flops) and fused ops (``work`` =
    None) of the GPT workloads, each ``fn()`` one forward and backward (products: forward
    only)."""
    F = torch.nn.functional
    cases = []
    for m, k, n in ((1024, 128, 384), (1024, 128, 512), (1024, 512, 128), (128, 1024, 384),
                    (1024, 384, 128), (1024, 384, 1152), (1024, 384, 1536), (1024, 1536, 384),
                    (384, 1024, 1152), (1024, 128, 65)):  # fmt: skip
        a, b = torch.randn(m, k), torch.randn(k, n)
        cases.append((f"mm {m}x{k} @ {k}x{n}", 2 * m * k * n, lambda a=a, b=b: a @ b))
    for bh, t, d in ((64, 64, 32), (24, 256, 64)):
        q, kt = torch.randn(bh, t, d), torch.randn(bh, d, t)
        cases.append((f"bmm {bh}x{t}x{d} @ {d}x{t}", 2 * bh * t * d * t,
                      lambda q=q, kt=kt: q @ kt))  # fmt: skip

    def fwd_bwd(make, shape):
        x = torch.randn(*shape, requires_grad=True)

        def run():
            x.grad = None
            make(x).sum().backward()

        return run

    cases.append(("gelu fwd+bwd (16, 64, 512)", None, fwd_bwd(F.gelu, (16, 64, 512))))
    cases.append(("gelu tanh fwd+bwd (16, 64, 512)", None,
                  fwd_bwd(lambda x: F.gelu(x, approximate="tanh"), (16, 64, 512))))  # fmt: skip
    ln = torch.nn.LayerNorm(384)
    cases.append(("layer_norm fwd+bwd (1024, 384)", None, fwd_bwd(ln, (1024, 384))))
    cases.append(("softmax fwd+bwd (4096, 256)", None,
                  fwd_bwd(lambda x: F.softmax(x, -1), (4096, 256))))  # fmt: skip
    for b, h, t, d in ((16, 4, 64, 32), (4, 6, 256, 64)):
        q, k, v = (torch.randn(b, h, t, d, requires_grad=True) for _ in range(3))

        def attn(q=q, k=k, v=v):
            for p in (q, k, v):
                p.grad = None
            F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()

        cases.append((f"causal attention fwd+bwd ({b}, {h}, {t}, {d})", None, attn))
    return cases


def run_kernels(torch, seconds=0.3):
    """Each kernel case's mean time over consecutive runs for about ``seconds``."""
    out = {}
    for name, work, fn in kernel_cases(torch):
        for _ in range(3):
            fn()
        runs, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds or runs < 5:
            fn()
            runs += 1
        out[name] = {"mean": (time.perf_counter() - t0) / runs, "flops": work}
    return out


def float64_losses(torch, name, steps):
    """The losses of the first ``steps`` steps with the model in float64."""
    step, _ = make_step(torch, name, float64=True)
    return {"losses": [step() for _ in range(steps)]}


def worker(lib, what, threads, steps):
    torch = __import__(lib)
    torch.set_num_threads(threads)
    if what == "kernels":
        result = run_kernels(torch)
    elif what.startswith("float64:"):
        result = float64_losses(torch, what.split(":", 1)[1], steps)
    else:
        result = run_workload(torch, what, steps)
    print(json.dumps(result))


def run_child(python, lib, what, threads, steps):
    done = subprocess.run(
        [python, __file__, "--worker", lib, what, str(threads), str(steps)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def steps_for(name, quick):
    base = {"gpt_sample": 5, "mlp_infer_b1": 2000}.get(name, 20)
    return max(2, base // 4) if quick else base


def fmt_time(seconds):
    if seconds is None:
        return "n/a"
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--torch", default="/work/torchenv/bin/python")
    parser.add_argument("--threads", default="2,1", help="thread counts, comma-separated")
    parser.add_argument("--only", nargs="*", help="workloads to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="few steps (a smoke run)")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        lib, what, threads, steps = args.worker
        worker(lib, what, int(threads), int(steps))
        return 0
    names = args.only or list(WORKLOADS)
    threads = [int(t) for t in args.threads.split(",")]
    pythons = {"ferrograd": sys.executable}
    if Path(args.torch).exists():
        pythons["torch"] = args.torch
    started = time.time()
    results: dict = {}  # (lib, name, threads) -> list of round results
    kernels: dict = {}  # lib -> list of round results
    for r in range(args.rounds):
        for name in names:
            for t in threads:
                for lib, python in pythons.items():
                    print(f"round {r + 1}: {name} {t} thread(s) {lib}", file=sys.stderr)
                    res = run_child(python, lib, name, t, steps_for(name, args.quick))
                    results.setdefault((lib, name, t), []).append(res)
        for lib, python in pythons.items():
            kernels.setdefault(lib, []).append(run_child(python, lib, "kernels", 2, 0))
    float64 = {}  # name -> {lib: result}: the training losses recomputed in float64
    for name in [n for n in FLOAT64_CHECKS if n in names and not args.quick]:
        for lib, python in pythons.items():
            print(f"float64 losses: {name} {lib}", file=sys.stderr)
            float64.setdefault(name, {})[lib] = run_child(python, lib, f"float64:{name}", 1, 20)

    def best(lib, name, t):
        runs = [x for x in results.get((lib, name, t), []) if "mean" in x]
        if not runs:
            errs = results.get((lib, name, t), [{}])
            return None, errs[0].get("error", "not run")
        return min(runs, key=lambda x: x["mean"]), None

    rows = [
        "| workload | threads | ferrograd | PyTorch | time ratio (ferrograd / PyTorch) | "
        "peak MiB ferrograd / PyTorch | target | met? |",
        "|---|---:|---:|---:|---:|---:|---|---|",
    ]
    notes = []
    for name in names:
        desc, target = WORKLOADS[name]
        for t in threads:
            fg, fg_err = best("ferrograd", name, t)
            tv, tv_err = best("torch", name, t)
            ratio = fg["mean"] / tv["mean"] if fg and tv else None
            goal = f"<= {1 / target:.2f}" if t == 2 else "<= 1.00"
            met = "n/a" if ratio is None else ("met" if ratio <= float(goal[3:]) else "not met")
            mem = "n/a"
            if fg and tv and fg["peak_mib"] is not None and tv["peak_mib"] is not None:
                mem = f"{fg['peak_mib']:.1f} / {tv['peak_mib']:.1f}"
            unit = (fg or tv or {"unit": "step"})["unit"]
            rows.append(
                f"| {name}: {desc} | {t} | {fmt_time(fg and fg['mean'])} | "
                f"{fmt_time(tv and tv['mean'])} | {'n/a' if ratio is None else f'{ratio:.2f}'} "
                f"| {mem} | {goal} | {met} |"
            )
            notes += [f"{name} at {t} thread(s) per {unit}"] if t == threads[0] else []
            # each round's own pair (the two libraries ran back to back): how far the
            # machine's speed moved the ratio between rounds
            paired = [
                f"{a['mean'] / b['mean']:.2f}"
                for a, b in zip(
                    results.get(("ferrograd", name, t), []), results.get(("torch", name, t), [])
                )
                if "mean" in a and "mean" in b
            ]
            if len(paired) > 1:
                notes.append(f"{name} at {t} thread(s): each round's ratio {', '.join(paired)}")
            for lib, err in (("ferrograd", fg_err), ("PyTorch", tv_err)):
                if err:
                    notes.append(f"{lib} failed {name} ({t} threads): {err}")
            if fg and tv and fg["losses"] and t == threads[0]:
                pairs = list(zip(fg["losses"], tv["losses"]))
                worst = max(abs(a - b) / max(abs(b), 1e-12) for a, b in pairs)
                notes.append(
                    f"{name}: losses of the first {len(pairs)} steps, largest relative "
                    f"difference from PyTorch's {worst:.1e} (first: {pairs[0][0]:.6f} vs "
                    f"{pairs[0][1]:.6f})"
                )
                wide = float64.get(name, {})
                if all("losses" in wide.get(lib, {}) for lib in ("ferrograd", "torch")):
                    pairs = list(zip(wide["ferrograd"]["losses"], wide["torch"]["losses"]))
                    worst = max(abs(a - b) / max(abs(b), 1e-12) for a, b in pairs)
                    notes.append(
                        f"{name} in float64 (model and inputs, 1 thread): the first "
                        f"{len(pairs)} losses' largest relative difference from PyTorch's "
                        f"{worst:.1e}, so the float32 difference above is rounding that the "
                        "training steps amplify, not a different computation"
                    )
    krows = [
        "| kernel (2 threads) | ferrograd | PyTorch | time ratio | ferrograd GFLOP/s | "
        "PyTorch GFLOP/s |",
        "|---|---:|---:|---:|---:|---:|",
    ]

    def kbest(lib, key):
        runs = [k[key] for k in kernels.get(lib, []) if key in k]
        return min(runs, key=lambda x: x["mean"]) if runs else None

    for key in [k for k in (kernels.get("ferrograd") or [{}])[0] if k != "error"]:
        fg, tv = kbest("ferrograd", key), kbest("torch", key)
        ratio = f"{fg['mean'] / tv['mean']:.2f}" if fg and tv else "n/a"
        flops = (fg or tv or {}).get("flops")
        g_fg = f"{flops / fg['mean'] / 1e9:.1f}" if flops and fg else "-"
        g_tv = f"{flops / tv['mean'] / 1e9:.1f}" if flops and tv else "-"
        krows.append(
            f"| {key} | {fmt_time(fg and fg['mean'])} | {fmt_time(tv and tv['mean'])} | {ratio} "
            f"| {g_fg} | {g_tv} |"
        )
    load = os.getloadavg()[0]
    section = [
        START,
        "## Realistic sizes: whole steps against PyTorch (issue 26)",
        "",
        "- **Command**: `.venv/bin/python benches/realistic_steps.py` (from the repository root)",
        f"- **Date (UTC)**: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; "
        f"the run took {time.time() - started:.0f} s; load average at the end {load:.2f}",
        f"- **Machine**: {platform.processor() or platform.machine()}, {os.cpu_count()} logical "
        "cores",
        f"- **Method**: {args.rounds} round(s); in each, every workload and thread count runs in a "
        "fresh process per library, the libraries alternating; four untimed steps (peak "
        "resident memory over them, after the model and data exist), then the mean of "
        f"{', '.join(f'{n} {steps_for(n, args.quick)}' for n in names)} consecutive steps; "
        "best of rounds; garbage collector on; the same initial weights (manual_seed(0)).",
        "- **Ratios** are ferrograd's time over PyTorch's: below 1 means ferrograd is faster. "
        "Targets: at 2 threads, at most 0.9 for the training steps and 0.67 for sampling and "
        "inference; at 1 thread, at most 1.0.",
        "",
        *rows,
        "",
        *[f"- {n}" for n in notes],
        "",
        *krows,
        END,
    ]
    print("\n".join(rows + [""] + [f"- {n}" for n in notes] + [""] + krows))
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
