"""ferrograd against PyTorch's answers on recorded random programs (issue "Same answers as
PyTorch").

``tools/run_fuzz.py`` generated random programs with ``fuzz_programs.py``, ran them with PyTorch
and ferrograd, and recorded in ``golden/fuzz_programs.json`` the smallest (shrunk) example of
every class of difference it found plus randomly chosen programs on which the two agreed, each
with PyTorch's result. This test replays every program with ferrograd and compares with
``fuzz_programs.compare``: values (float32 within rtol 1e-4/atol 1e-5, float64 within 1e-9,
NaN/inf exactly), dtype, shape, ``requires_grad``, ``is_leaf``, gradients and the class and
place of any exception. ``grad_fn`` names are reported by the fuzzer but not checked here
(``test_golden_nodes.py`` checks graphs). It never imports torch.

Programs that still differ are listed in ``KNOWN`` as strict xfails: fixing one makes its test
pass, which fails until its entry is removed. A program recorded as a crash of ferrograd runs in
a subprocess so that a crash fails its test rather than ending the session.
"""

import json
import subprocess
import sys
from pathlib import Path

import ferrograd
import fuzz_programs as fp
import pytest

HERE = Path(__file__).parent
GOLDEN = json.loads((HERE / "golden" / "fuzz_programs.json").read_text())
ENTRIES = GOLDEN["programs"]

# Recorded programs on which ferrograd still differs from PyTorch: id -> the class of the
# difference ("kind: first difference at op", "<- ops" for the shrunk program's chain when only
# the gradients or backward differ). Written from the output of ``tools/run_fuzz.py --record``.
KNOWN = {
    # recorded from seeds 1100000..1104999 (after the fixes of the third round)
    "fz-1102864-min": "divergence: value at second-order grad <- polygamma(0) > abs",
    "fz-1104836-min": "exception: RuntimeError vs RuntimeError at bmm",
}


def _run_isolated(program):
    """``fp.run(program, ferrograd)`` in a fresh interpreter: a crash becomes an error here."""
    code = (
        "import json, sys; import ferrograd, fuzz_programs as fp; "
        "print(json.dumps(fp.run(json.loads(sys.stdin.read()), ferrograd)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(program),
        capture_output=True,
        text=True,
        cwd=HERE,
        timeout=120,
    )
    if proc.returncode != 0:
        raise AssertionError(
            f"ferrograd crashed (exit code {proc.returncode}): {proc.stderr[-500:]}\n"
            + fp.to_python(program)
        )
    return json.loads(proc.stdout)


def _params():
    for entry in ENTRIES:
        marks = []
        if entry["id"] in KNOWN:
            marks.append(pytest.mark.xfail(strict=True, reason=KNOWN[entry["id"]]))
        yield pytest.param(entry, id=entry["id"], marks=marks)


@pytest.mark.parametrize("entry", list(_params()))
def test_same_answers_as_pytorch(entry):
    program = entry["program"]
    if entry["status"] == "crash":
        actual = _run_isolated(program)
    else:
        actual = fp.run(program, ferrograd)
    diffs = [d for d in fp.compare(entry["torch"], actual, program) if d["field"] != "grad_fn"]
    if diffs:
        kind, key = fp.classify(diffs, program, chain=True)
        lines = [f"{kind}: {key}"]
        for d in diffs[:5]:
            lines.append(
                f"  {d['where']} ({d['label']}) {d['field']}: "
                f"torch {d['expected']!r}, ferrograd {d['actual']!r}"
            )
        for who, result in (("torch", entry["torch"]), ("ferrograd", actual)):
            err = result["error"]
            if err:
                lines.append(f"  {who} raised {err['type']} at {err['where']}: {err['msg'][:200]}")
        lines.append(fp.to_python(program))
        pytest.fail("\n".join(lines))


def test_known_are_recorded():
    ids = {entry["id"] for entry in ENTRIES}
    assert not set(KNOWN) - ids, "KNOWN lists programs that golden/fuzz_programs.json lacks"


def test_generator_reproduces_recorded_programs():
    """Unshrunk programs are ``generate(seed)`` itself while the generator version is the same
    (a change to the generator bumps ``GENERATOR_VERSION`` and re-records)."""
    checked = 0
    for entry in ENTRIES:
        program = entry["program"]
        if program["id"] == f"fz-{program['seed']}" and program["version"] == (
            fp.GENERATOR_VERSION
        ):
            assert fp.generate(program["seed"]) == program, program["id"]
            checked += 1
    assert checked or not ENTRIES
