"""Runs the real-program corpus (issue 25) under PyTorch or ferrograd and compares stdout.

    /work/torchenv/bin/python tests/real_programs/run.py --record        # PyTorch -> expected.txt
    /work/torchenv/bin/python tests/real_programs/run.py --lib torch     # PyTorch reproduces it?
    .venv/bin/python tests/real_programs/run.py                           # ferrograd vs expected.txt
    .venv/bin/python tests/real_programs/run.py nanogpt_char mnist -v     # some programs, show diffs

Each program lives in ``<name>/`` with its files, ``SOURCE.md`` and ``run.json``:

    {"cmd": [["train.py", "--epochs", "1"]],   # one or more commands, run in order
     "timeout": 120,                           # seconds for all commands (default 120)
     "mask": ["time [0-9.]+ms"],               # regexes replaced by "<masked>" before comparing
     "tight_lines": 5}                         # lines compared at rtol 1e-4 (default 5)

A program runs in a fresh copy of its directory (under a temporary directory, so checkpoints and
logs it writes do not land in the tree), with ``PYTHONHASHSEED=0`` and ``OMP_NUM_THREADS=1`` (unless set), each command as
``<python> <args...>``. Under ferrograd, ``_shim_ferrograd/sitecustomize.py`` makes ``import
torch`` (and ``torch.X``) give ``ferrograd`` (``ferrograd.X``). Under both libraries
``_shim_common`` stubs ``torch.utils.tensorboard`` and ``_stubs/`` provides ``matplotlib``
(no-op) and the ``torchvision`` data stand-in (neither is installed in the PyTorch venv).

Comparison, line by line after masking: the text with numbers taken out must be equal; integers
must be equal; floats must agree to ``rtol 1e-4`` (or one unit in the last printed digit) on the
first ``tight_lines`` lines (default 5) and to ``rtol 1e-2`` after them (long training amplifies rounding);
an absolute ``1e-7`` is allowed everywhere (a
mathematical zero printed as ``-1.4e-09`` vs ``1.9e-09``); a program that passes only by the loose tolerance is reported ``PASS (loose: ...)``.

Chaotic programs (long training where a one-ulp difference flips a max-pool's choice or a
stopping rule and grows from there) also have a recorded band: ``--record-band`` runs them under
PyTorch's own rounding variants (``_tools/variants``: oneDNN off, two threads, three runs with
gradients nudged by 1e-6 relative) into ``band/<variant>.txt``. Their later lines may then differ
from the recording by up to twice the most any variant moved that number, and their output may
follow any one variant's text (which examples a model gets wrong); such a pass is reported
``PASS (band: ...)``. A band says "ferrograd differs from PyTorch no more than PyTorch differs
from itself"; the first lines stay tight unless the program prints nothing before many steps.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIGHT_RTOL = 1e-4
LOOSE_RTOL = 1e-2
# PyTorch's own rounding variants (``_tools/variants``) recorded for a chaotic program's band
BAND_VARIANTS = ("nomkldnn", "threads2", "perturb1", "perturb2", "perturb3")
BAND_FACTOR = 2.0  # a few variants underestimate the spread; allow twice the widest
ATOL = 1e-7  # float32 rounding noise of O(1) quantities (a mathematical zero printed as 1e-9)
NUM_RE = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")


def programs():
    return sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "run.json")))


def run_program(name, lib, python, variant=None):
    """Runs one program; ``variant`` (PyTorch only) is one of ``BAND_VARIANTS``."""
    src = os.path.join(HERE, name)
    with open(os.path.join(src, "run.json")) as f:
        cfg = json.load(f)
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env["OMP_NUM_THREADS"] = env.get("OMP_NUM_THREADS", "1")
    paths = [os.path.join(HERE, "_shim_common"), os.path.join(HERE, "_stubs")]
    if lib == "ferrograd":
        paths.insert(0, os.path.join(HERE, "_shim_ferrograd"))
    if variant:
        paths.insert(0, os.path.join(HERE, "_tools", "variants"))
        env["REAL_PROGRAMS_VARIANT"] = variant
        if variant == "threads2":
            env["OMP_NUM_THREADS"] = "2"
    if os.environ.get("REAL_PROGRAMS_EXTRA_PATH"):
        # diagnostics only: a directory put first (e.g. a sitecustomize that polyfills the first
        # blocker to see the next one); never set when measuring
        paths.insert(0, os.environ["REAL_PROGRAMS_EXTRA_PATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    timeout = cfg.get("timeout", 120)
    out, err, status = [], "", "ok"
    start = time.time()
    with tempfile.TemporaryDirectory(prefix=f"rp_{name}_") as tmp:
        work = os.path.join(tmp, name)
        shutil.copytree(src, work, ignore=shutil.ignore_patterns("expected.txt", "__pycache__"))
        for cmd in cfg["cmd"]:
            left = timeout - (time.time() - start)
            try:
                p = subprocess.run(
                    [python] + cmd,
                    cwd=work,
                    env=env,
                    capture_output=True,
                    text=True,
                    timeout=max(left, 1),
                )
            except subprocess.TimeoutExpired as e:
                so = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                out.append(so)
                status = "timeout"
                break
            out.append(p.stdout)
            if p.returncode != 0:
                status, err = "error", p.stderr
                break
    return status, "".join(out), err, time.time() - start, cfg


GLOBAL_MASKS = [r" at 0x[0-9a-fA-F]+>"]  # object addresses in reprs


def mask_text(text, masks):
    for m in list(masks) + GLOBAL_MASKS:
        text = re.sub(m, "<masked>", text)
    return text


def _is_int(tok):
    return re.fullmatch(r"[-+]?\d+", tok) is not None


def _ulp(tok):
    """One unit in the last printed digit of ``tok`` (0 for integers)."""
    mant = re.split(r"[eE]", tok)[0]
    exp = int(re.split(r"[eE]", tok)[1]) if re.search(r"[eE]", tok) else 0
    if "." not in mant:
        return 10.0**exp if exp else 0.0
    decimals = len(mant.split(".")[1])
    return 10.0 ** (exp - decimals)


def _num_close(a, b, rtol, scale_floor=0.0):
    """Whether printed numbers ``a`` (torch) and ``b`` agree: integers exactly; floats within
    ``rtol`` of the larger magnitude or of ``scale_floor`` (the largest float printed on the
    line, so a value that is rounding noise next to it, e.g. 6.7e-10 beside 2.2, is compared at
    that line's scale), plus one unit in the last printed digit. Returns (ok, relative diff)."""
    if a == b:
        return True, 0.0
    if _is_int(a) and _is_int(b):
        return False, math.inf
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False, math.inf
    if math.isnan(x) and math.isnan(y):
        return True, 0.0
    if not (math.isfinite(x) and math.isfinite(y)):
        return x == y, (0.0 if x == y else math.inf)
    diff = abs(x - y)
    scale = max(abs(x), abs(y), scale_floor)
    rel = diff / scale if scale else 0.0
    slack = 1.0000001 * max(_ulp(a), _ulp(b))
    return diff <= rtol * scale + slack + ATOL, rel


def _line_scale(tokens):
    floats = [abs(float(t)) for t in tokens if not _is_int(t) and re.fullmatch(NUM_RE, t)]
    floats = [f for f in floats if math.isfinite(f)]
    return max(floats) if floats else 0.0


def load_band(name):
    """The outputs of PyTorch's rounding variants recorded for ``name`` (``band/<variant>.txt``,
    written by ``--record-band``), or None when the program has none."""
    folder = os.path.join(HERE, name, "band")
    if not os.path.isdir(folder):
        return None
    band = []
    for variant in BAND_VARIANTS:
        with open(os.path.join(folder, variant + ".txt")) as f:
            band.append(f.read().splitlines())
    return band


def _band_width(band, i, j, line, expected_token):
    """How far PyTorch's own variants that printed line ``i`` in the shape of ``line`` moved its
    ``j``-th number from ``expected_token`` (None when no variant printed such a line)."""
    shape = NUM_RE.sub("#", line)
    widths = []
    for lines in band:
        if i >= len(lines) or NUM_RE.sub("#", lines[i]) != shape:
            continue
        try:
            widths.append(abs(float(NUM_RE.findall(lines[i])[j]) - float(expected_token)))
        except ValueError:
            return None
    return max(widths) if widths else None


def compare(expected, actual, tight_lines, lib="ferrograd", band=None):
    """Returns (verdict, detail): verdict is "pass", "loose", "band" or "diff".

    ``band`` (see ``load_band``) widens the later lines' tolerance of a chaotic program: a number
    there may differ from the recording by up to ``BAND_FACTOR`` times the most any of PyTorch's
    own rounding variants moved it (integers too, e.g. the batch at which a stopping rule fires).
    """
    exp_lines = expected.splitlines()
    act_lines = actual.splitlines()
    worst_loose = None
    worst_band = None
    for i in range(max(len(exp_lines), len(act_lines))):
        if i >= len(exp_lines):
            return "diff", f"line {i + 1}: extra output\n    {lib + ':':10s} {act_lines[i]!r}"
        if i >= len(act_lines):
            return "diff", f"line {i + 1}: output ends early\n    torch:     {exp_lines[i]!r}"
        e, a = exp_lines[i], act_lines[i]
        if e == a:
            continue
        e_nums, a_nums = NUM_RE.findall(e), NUM_RE.findall(a)
        if NUM_RE.sub("#", e) != NUM_RE.sub("#", a) or len(e_nums) != len(a_nums):
            return "diff", f"line {i + 1} (text)\n    torch:     {e!r}\n    {lib + ':':10s} {a!r}"
        rtol = TIGHT_RTOL if i < tight_lines else LOOSE_RTOL
        floor = _line_scale(e_nums)
        for j, (en, an) in enumerate(zip(e_nums, a_nums)):
            ok, rel = _num_close(en, an, rtol, floor)
            banded = not ok and band is not None and i >= tight_lines
            width = _band_width(band, i, j, e, en) if banded else None
            if banded:
                try:
                    off = abs(float(an) - float(en))
                except ValueError:
                    off = math.inf
                if width is not None and off <= BAND_FACTOR * width + 1.0000001 * _ulp(en):
                    if worst_band is None or off / max(width, 1e-300) > worst_band[0]:
                        worst_band = (off / max(width, 1e-300), i + 1, en, an)
                    continue
            if not ok:
                kind = "tight rtol 1e-4" if i < tight_lines else "loose rtol 1e-2 (later line)"
                if banded:
                    kind += f", outside {BAND_FACTOR}x PyTorch's band {width}"
                return "diff", (
                    f"line {i + 1} ({kind}; rel diff {rel:.2g})\n"
                    f"    torch:     {e!r}\n    {lib + ':':10s} {a!r}"
                )
            if i >= tight_lines and not _num_close(en, an, TIGHT_RTOL, floor)[0]:
                if worst_loose is None or rel > worst_loose[0]:
                    worst_loose = (rel, i + 1)
    if worst_band:
        ratio, line, en, an = worst_band
        return (
            "band",
            f"within PyTorch's rounding band: line {line} {an} vs {en}, "
            f"{ratio:.2g}x the widest variant",
        )
    if worst_loose:
        return (
            "loose",
            f"later lines differ by more than 1e-4: max rel {worst_loose[0]:.2g} at line {worst_loose[1]}",
        )
    return "pass", ""


def judge(name, output, cfg, lib="ferrograd"):
    """Compares a program's masked ``output`` with its recording; returns (verdict, detail).

    A program with a recorded band (``load_band``) may instead match any one of PyTorch's
    variant outputs, with the band of the others (a chaotic program's printed text itself can
    change with rounding: which examples a model gets wrong, when a stopping rule fires); the
    verdict is then "band" and names the variant.
    """
    with open(os.path.join(HERE, name, "expected.txt")) as f:
        expected = f.read()
    tight = cfg.get("tight_lines", 5)
    band = load_band(name)
    verdict, detail = compare(expected, output, tight, lib, band)
    if verdict != "diff" or band is None:
        return verdict, detail
    references = [expected.splitlines()] + band
    for k, variant in enumerate(BAND_VARIANTS, start=1):
        others = references[:k] + references[k + 1 :]
        v, d = compare("\n".join(references[k]), output, tight, lib, others)
        if v != "diff":
            return "band", f"as PyTorch's variant {variant}" + (f"; {d}" if d else "")
    return verdict, detail


def last_error_line(err):
    """The exception line of the last traceback in ``err`` (``Type: message``, first line)."""
    lines = [l for l in err.strip().splitlines() if l.strip()]
    pat = re.compile(
        r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Iteration|Warning|Missing\w*))(: |$)"
    )
    for l in reversed(lines):
        if pat.match(l):
            return l[:300]
    return lines[-1][:300] if lines else "(no stderr)"


def record_band(names, python):
    """Runs each program under every variant of ``BAND_VARIANTS`` (PyTorch) into ``band/``."""
    failed = 0
    for name in names:
        folder = os.path.join(HERE, name, "band")
        os.makedirs(folder, exist_ok=True)
        for variant in BAND_VARIANTS:
            status, out, err, dt, cfg = run_program(name, "torch", python, variant)
            if status != "ok":
                failed += 1
                print(f"{status.upper():8s} {name} {variant}: {last_error_line(err)}")
                continue
            with open(os.path.join(folder, variant + ".txt"), "w") as f:
                f.write(mask_text(out, cfg.get("mask", [])))
            print(f"RECORDED {name} {variant} ({dt:.1f}s)")
    return 1 if failed else 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("names", nargs="*")
    p.add_argument("--record", action="store_true", help="run under PyTorch, write expected.txt")
    p.add_argument(
        "--record-band",
        action="store_true",
        help="run the named programs under each of PyTorch's rounding variants, write band/",
    )
    p.add_argument("--python", default=None, help="interpreter (default: this one)")
    p.add_argument(
        "--lib",
        choices=["torch", "ferrograd"],
        default=None,
        help="library to compare (default ferrograd; `--lib torch` under the PyTorch venv checks "
        "that the recording reproduces)",
    )
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--json", default=None, help="write results to this file")
    args = p.parse_args()
    python = args.python or sys.executable
    lib = "torch" if args.record or args.record_band else (args.lib or "ferrograd")
    names = args.names or programs()
    if args.record_band:
        return record_band(names, python)
    counts = {}
    results = {}
    for name in names:
        status, out, err, dt, cfg = run_program(name, lib, python)
        masked = mask_text(out, cfg.get("mask", []))
        exp_path = os.path.join(HERE, name, "expected.txt")
        if args.record:
            if status == "ok":
                with open(exp_path, "w") as f:
                    f.write(masked)
                verdict, detail = "RECORDED", f"{len(masked.splitlines())} lines"
            else:
                verdict = status.upper()
                detail = last_error_line(err) if status == "error" else f"after {dt:.0f}s"
        else:
            if status == "error":
                verdict, detail = "ERROR", last_error_line(err)
            elif status == "timeout":
                verdict, detail = "TIMEOUT", f"after {cfg.get('timeout', 120)}s"
            elif not os.path.exists(exp_path):
                verdict, detail = "NO-EXPECTED", ""
            else:
                v, detail = judge(name, masked, cfg, lib)
                verdict = {"pass": "PASS", "loose": "PASS", "band": "PASS", "diff": "DIFF"}[v]
                if v in ("loose", "band"):
                    detail = f"({v}) " + detail
        counts[verdict] = counts.get(verdict, 0) + 1
        results[name] = {"verdict": verdict, "detail": detail, "seconds": round(dt, 1)}
        print(f"{verdict:8s} {name:32s} {dt:6.1f}s  {detail.splitlines()[0] if detail else ''}")
        if detail and len(detail.splitlines()) > 1:
            for l in detail.splitlines()[1:]:
                print(" " * 9 + l)
        if args.verbose and status == "error":
            print("\n".join("    | " + l for l in err.strip().splitlines()[-15:]))
        sys.stdout.flush()
    print(
        "summary: "
        + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        + f" (of {len(names)})"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if args.record or counts.get("PASS", 0) == len(names) else 1


if __name__ == "__main__":
    sys.exit(main())
