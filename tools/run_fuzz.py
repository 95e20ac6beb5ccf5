"""Differential fuzzing of ferrograd against PyTorch (issue "Same answers as PyTorch").

Run with a Python that has both PyTorch and ferrograd (never needed by the tests or CI)::

    /work/torchenv/bin/python tools/run_fuzz.py --n 3000 --seed 0 \\
        --record tests/golden/fuzz_programs.json --keep 300

Each program of ``tests/fuzz_programs.py`` (``generate(seed)`` for ``seed`` in
``[--seed, --seed + --n)``) runs with PyTorch in this process and with ferrograd in a worker
subprocess that handles programs one after the other: a worker that dies (a crash) or stops
answering (a hang) is counted against the program it was running and replaced. The results are
compared with ``fuzz_programs.compare`` and sorted into: crashes, panics (``PanicException`` or
an "internal error" message), exception-class mismatches, silent divergences (values or flags
differ, grouped by the first op where they do) and node-name-only differences (``grad_fn``
names, reported apart). PyTorch runs in a worker process too, so that its own rare crashes
(counted, the program skipped) do not end the run. Every program that does not agree is shrunk
(steps dropped or bypassed while its class stays the same, within ``--shrink-seconds``); a
difference found only in the gradients or at ``backward`` is then grouped by the shrunk
program's chain of ops. Each class is printed with its smallest reproducer, as Python for
``import ferrograd as torch``, and what PyTorch and ferrograd give.

``--record FILE --keep K`` writes K programs with PyTorch's results for
``tests/test_fuzz_golden.py``: the smallest example of every class that is not agreement, then
randomly chosen agreeing programs.
"""

import argparse
import collections
import importlib
import json
import os
import random
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_programs as fp  # noqa: E402

TIMEOUT = 30.0  # seconds for one program in the worker


# ---------------------------------------------------------------------------------------------
# the worker: ferrograd only, one JSON program per line in, one JSON result per line out


def worker_main(lib_name):
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything the library prints goes to stderr, not into the protocol
    lib = importlib.import_module(lib_name)
    lib.set_num_threads(1)
    for line in sys.stdin:
        result = fp.run(json.loads(line), lib)
        out.write(json.dumps(result) + "\n")
        out.flush()


class Worker:
    """A subprocess running programs with one library; ``run`` returns its result, or
    ``{"crash": ...}`` when the process died or stopped answering."""

    def __init__(self, lib_name):
        self.lib_name = lib_name
        self.proc = None
        self.stderr = None
        self.buffer = b""
        self.started = 0

    def start(self):
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, RUST_BACKTRACE="0", PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", self.lib_name],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
        )
        self.buffer = b""
        self.started += 1

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def _stderr_tail(self):
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace").strip().splitlines()
        return "\n".join(text[-6:])

    def run(self, program):
        if self.proc is None:
            self.start()
        try:
            self.proc.stdin.write((json.dumps(program) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + TIMEOUT
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.stop()
                return {"crash": "hang", "detail": f"no answer in {TIMEOUT:.0f} s"}
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                code = self.proc.wait()
                detail = self._stderr_tail()
                self.proc = None
                return {"crash": f"exit code {code}", "detail": detail}
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        result = json.loads(line)
        if fp.is_panic(result):
            self.stop()  # a fresh interpreter after a panic: no state left half-updated
        return result


# ---------------------------------------------------------------------------------------------
# evaluation


class Outcome:
    def __init__(self, kind, key, diffs=(), expected=None, actual=None):
        self.kind = kind  # agree, node name, divergence, exception, panic, crash
        self.key = key
        self.diffs = list(diffs)
        self.expected = expected
        self.actual = actual

    def same_class(self, other):
        return self.kind == other.kind and self.key == other.key


def evaluate(program, workers):
    expected = workers["torch"].run(program)
    actual = workers["ferrograd"].run(program)
    if "crash" in expected:
        return Outcome("torch crash", expected["crash"], expected=expected, actual=actual)
    if "crash" in actual:
        return Outcome("crash", actual["crash"], expected=expected, actual=actual)
    if fp.is_panic(actual):
        err = actual["error"]
        where = err["where"]
        label = where
        if where.startswith("step "):
            label = fp.step_label(program["steps"][int(where.split()[1])])
        message = err["msg"].split("(please report it):")[-1].strip()[:70]
        return Outcome("panic", f"{message!r} at {label}", expected=expected, actual=actual)
    diffs = fp.compare(expected, actual, program)
    kind, key = fp.classify(diffs)
    return Outcome(kind, key, diffs, expected, actual)


QUIET_KINDS = ("agree", "node name")


def refine(program, outcome):
    """The class of a (shrunk) program: phase-located differences name its ops."""
    if outcome.kind in ("divergence", "exception"):
        return fp.classify(outcome.diffs, program, chain=True)[1]
    return outcome.key


def _values(records):
    return {n: r.get("value", r.get("inputdata")) for n, r in records.items()}


def anchor_check(program, outcome, workers):
    """For a value difference at a step: that step alone on PyTorch's values of its operands
    (``fuzz_programs.anchor``). Returns ``(program, outcome)`` of the one-step program when it
    agrees (the difference was rounding, amplified) or differs in value at the same op (a
    one-step reproducer); otherwise None."""
    if outcome.kind != "divergence":
        return None
    first = next(d for d in outcome.diffs if d["field"] != "grad_fn")
    if first["field"] != "value" or not first["where"].startswith("step "):
        return None
    index = int(first["where"].split()[1].split("[")[0])
    one = fp.anchor(program, outcome.expected, index)
    if one is None:
        return None
    o = evaluate(one, workers)
    if o.kind in QUIET_KINDS:
        # rounding only if the operands did differ (by rounding) in the program itself
        theirs = fp.operand_records(program, outcome.actual, index)
        ours = fp.operand_records(program, outcome.expected, index)
        if theirs is None or _values(theirs) == _values(ours):
            return None
        return one, o
    if o.kind == "divergence" and o.key == outcome.key.replace(" under no_grad", ""):
        return one, o
    return None


def shrink(program, outcome, workers, deadline):
    """Drops steps (and simplifies) while the outcome keeps its class."""
    best, best_outcome = program, outcome
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for cand in fp.shrink_candidates(best):
            if fp.size(cand) > fp.size(best) or cand == best:
                continue
            o = evaluate(cand, workers)
            if o.same_class(outcome):
                best, best_outcome = cand, o
                improved = True
                break
            if time.monotonic() >= deadline:
                break
    best = {**best, "id": program["id"] + ("-min" if best is not program else "")}
    return best, best_outcome


# ---------------------------------------------------------------------------------------------
# reporting


def _fmt(v):
    return json.dumps(v) if not isinstance(v, str) else v


def describe(program, outcome):
    """A reproducer: the program as Python, then what PyTorch and ferrograd give."""
    show = None
    first = next((d for d in outcome.diffs if d["field"] != "grad_fn"), None)
    if first and first["where"].startswith("step "):
        i = int(first["where"].split()[1].split("[")[0])
        show = program["steps"][i]["out"]
    elif first and first["where"].startswith("final "):
        show = [first["where"].split()[1]]
    for r in (outcome.expected, outcome.actual):
        err = r.get("error") if r else None
        if err and err.get("variable"):
            show = [err["variable"]]
    lines = [line for line in fp.to_python(program, show=show).splitlines()[1:] if line]
    text = "\n".join("      " + line for line in lines)
    exp, act = outcome.expected, outcome.actual
    if outcome.kind == "crash":
        tail = act.get("detail", "").splitlines()[-1:] or [""]
        text += f"\n    ferrograd: worker {outcome.key}: {tail[0][:160]}"
    elif outcome.kind in ("panic", "exception"):
        for who, r in (("torch", exp), ("ferrograd", act)):
            err = r.get("error")
            msg = f"{err['type']} at {err['where']}: {err['msg'][:160]}" if err else "no error"
            text += f"\n    {who}: {msg}"
    elif first is not None:
        text += (
            f"\n    first difference at {first['where']} ({first['label']}), {first['field']}:"
            f" torch {_fmt(first['expected'])}, ferrograd {_fmt(first['actual'])}"
        )
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="number of programs (default 5000)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--record", metavar="FILE", help="write programs with torch's results")
    ap.add_argument("--keep", type=int, default=300, help="programs to record (default 300)")
    ap.add_argument("--shrink-seconds", type=float, default=300.0, help="total shrinking budget")
    ap.add_argument("--examples", type=int, default=60, help="classes printed with an example")
    ap.add_argument("--worker", choices=["torch", "ferrograd"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker_main(args.worker)
        return

    import ferrograd
    import torch

    workers = {"torch": Worker("torch"), "ferrograd": Worker("ferrograd")}
    start = time.monotonic()
    outcomes = []  # (program, Outcome)
    for k in range(args.n):
        program = fp.generate(args.seed + k)
        outcomes.append((program, evaluate(program, workers)))
        if (k + 1) % 500 == 0:
            print(f"  ... {k + 1} programs, {time.monotonic() - start:.0f} s", file=sys.stderr)
    run_seconds = time.monotonic() - start

    # shrink every program that does not agree (smallest first, within the budget), then
    # group them by class; the phases' classes (gradients, backward) name the shrunk ops
    todo = [(i, p, o) for i, (p, o) in enumerate(outcomes) if o.kind not in QUIET_KINDS]
    todo.sort(key=lambda t: fp.size(t[1]))
    deadline = time.monotonic() + args.shrink_seconds
    classes = collections.defaultdict(list)  # (kind, key) -> [(index, small, outcome)]
    unshrunk = 0
    for i, program, o in todo:
        if time.monotonic() < deadline:
            anchored = anchor_check(program, o, workers)
            if anchored is not None:
                small, so = anchored
                if so.kind in QUIET_KINDS:  # the step agrees on PyTorch's operands
                    outcomes[i] = (program, Outcome("rounding", o.key, o.diffs, o.expected,
                                                    o.actual))  # fmt: skip
                    classes[("rounding", o.key)].append((i, program, outcomes[i][1]))
                    continue
            else:
                small, so = shrink(program, o, workers, min(deadline, time.monotonic() + 10.0))
            key = refine(small, so)
        else:
            small, so, key = program, o, o.key + " (not shrunk)"
            unshrunk += 1
        classes[(o.kind, key)].append((i, small, so))
    for i, (program, o) in enumerate(outcomes):
        if o.kind == "node name":
            classes[(o.kind, o.key)].append((i, program, o))
    shrink_seconds = time.monotonic() - start - run_seconds
    # summary
    n = len(outcomes)
    kinds = collections.Counter(o.kind for _, o in outcomes)
    torch_errors = sum(1 for _, o in outcomes if o.expected and o.expected.get("error"))
    hangs = sum(1 for _, o in outcomes if o.kind == "crash" and o.key == "hang")
    print(f"ferrograd ({Path(ferrograd.__file__).parent}) vs PyTorch {torch.__version__}")
    print(
        f"{n} programs, seeds {args.seed}..{args.seed + n - 1}; {run_seconds:.0f} s running, "
        f"{shrink_seconds:.0f} s shrinking; torch raised in {torch_errors}"
    )
    print(f"  agree                        {kinds['agree']:6d}")
    print(f"  node names only              {kinds['node name']:6d}  (grad_fn names differ)")
    print(
        f"  silent divergences           {kinds['divergence']:6d}  "
        f"({100.0 * kinds['divergence'] / max(n, 1):.2f}% of programs)"
    )
    print(
        f"  rounding, amplified          {kinds['rounding']:6d}  (a step's value differs only"
        " because its operands differed by rounding: not counted above)"
    )
    print(f"  exception-class mismatches   {kinds['exception']:6d}")
    print(f"  panics                       {kinds['panic']:6d}")
    print(f"  crashes                      {kinds['crash']:6d}  (of which hangs: {hangs})")
    print(f"  torch crashes (skipped)      {kinds['torch crash']:6d}")
    print(f"  ferrograd workers started    {workers['ferrograd'].started:6d}")

    order = ["torch crash", "crash", "panic", "exception", "divergence", "rounding", "node name"]
    titles = {
        "rounding": "Rounding amplified by an ill-conditioned step (the step alone agrees)",
        "torch crash": "PyTorch crashes (programs skipped)",
        "crash": "Crashes",
        "panic": "Panics (by where)",
        "exception": "Exception-class mismatches (torch vs ferrograd)",
        "divergence": "Silent divergences (by the first op where values/flags differ)",
        "node name": "Node-name differences (first differing op)",
    }
    for kind in order:
        ranked = sorted(
            ((key, m) for (k, key), m in classes.items() if k == kind), key=lambda km: -len(km[1])
        )
        if not ranked:
            continue
        print(f"\n{titles[kind]}: {sum(len(m) for _, m in ranked)} programs")
        for rank, (key, members) in enumerate(ranked):
            print(f"  {len(members):5d}  {key}")
            if rank < args.examples and kind != "node name":
                _, small, so = min(members, key=lambda m: fp.size(m[1]))
                print(f"    example {small['id']} ({len(small['steps'])} steps):")
                print(describe(small, so))
        if kind == "node name":
            pairs = collections.Counter()
            for _, o in outcomes:
                for d in o.diffs:
                    if d["field"] == "grad_fn":
                        pairs[(d["label"], d["expected"], d["actual"])] += 1
            print("  grad_fn names (op: torch -> ferrograd), over all programs:")
            for (label, e, a), c in pairs.most_common(20):
                print(f"  {c:5d}  {label}: {e} -> {a}")
    if unshrunk:
        print(f"\n({unshrunk} programs not shrunk: the shrinking budget ran out)")

    if args.record:
        record(args, outcomes, classes, torch)


def record(args, outcomes, classes, torch):
    rng = random.Random(args.seed)
    chosen = []
    known = {}
    for (kind, key), members in sorted(classes.items()):
        if kind in ("agree", "node name", "torch crash", "rounding"):
            continue
        _, program, o = min(members, key=lambda m: fp.size(m[1]))
        chosen.append((program, o, kind, key))
        known[program["id"]] = f"{kind}: {key}"
    agreeing = [(p, o) for p, o in outcomes if o.kind in ("agree", "node name")]
    rng.shuffle(agreeing)
    # programs where PyTorch raises are a few of the agreeing ones, not most of them
    raising = [po for po in agreeing if po[1].expected["error"]]
    quiet = [po for po in agreeing if not po[1].expected["error"]]
    room = max(args.keep - len(chosen), 0)
    picked = raising[: room // 8] + quiet
    for program, o in picked[:room]:
        chosen.append((program, o, o.kind, o.key))
    entries = [
        {
            "id": program["id"],
            "status": status,
            "class": key,
            "program": program,
            "torch": o.expected,
        }
        for program, o, status, key in chosen
    ]
    path = Path(args.record)
    path.parent.mkdir(parents=True, exist_ok=True)
    header = {
        "about": "tools/run_fuzz.py: programs of tests/fuzz_programs.py with PyTorch's results",
        "torch_version": torch.__version__,
        "generator_version": fp.GENERATOR_VERSION,
        "command": " ".join(sys.argv[1:]),
    }
    with path.open("w") as f:
        f.write("{\n")
        for k, v in header.items():
            f.write(f"  {json.dumps(k)}: {json.dumps(v)},\n")
        f.write('  "programs": [\n')
        for i, entry in enumerate(entries):
            sep = "," if i + 1 < len(entries) else ""
            f.write("    " + json.dumps(entry, separators=(",", ":")) + sep + "\n")
        f.write("  ]\n}\n")
    print(f"\nrecorded {len(entries)} programs ({len(known)} known differences) in {path}")
    print(known_block(known))


def known_block(known):
    """``KNOWN = {...}`` for ``tests/test_fuzz_golden.py``, lines within 100 characters."""
    lines = ["KNOWN = {"]
    for pid, reason in known.items():
        line = f"    {json.dumps(pid)}: {json.dumps(reason)},"
        if len(line) <= 100:
            lines.append(line)
            continue
        lines.append(f"    {json.dumps(pid)}: (")
        words, part = reason.split(" "), ""
        for word in words:
            if part and len(part) + len(word) + 11 > 100:
                lines.append(f"        {json.dumps(part)}")
                part = ""
            part += word + " "
        lines.append(f"        {json.dumps(part.rstrip())}")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
