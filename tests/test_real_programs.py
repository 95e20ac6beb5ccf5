"""The real-program corpus (``real_programs/``, issue "The programs people run today run
unchanged"): each vendored program runs under ferrograd, unchanged but for the edits its
``SOURCE.md`` lists, and its output is compared with PyTorch 2.15's recorded ``expected.txt``
by ``real_programs/run.py`` (numbers to rtol 1e-4 on the first lines, 1e-2 after, or, for a
chaotic program with a recorded band, within twice the spread of PyTorch's own rounding
variants).
``real_programs/status.json`` lists each program as ``pass`` or with the reason it does not
pass yet; those are strict xfails, so a program that starts to pass fails its test until its
entry says ``pass``. It never imports torch."""

import json
import os
import sys

import pytest

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "real_programs")
sys.path.insert(0, HERE)
import run as corpus  # noqa: E402

STATUS = {
    k: v
    for k, v in json.load(open(os.path.join(HERE, "status.json"))).items()
    if not k.startswith("_")
}


def test_status_lists_every_program():
    assert sorted(STATUS) == corpus.programs()


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=[] if why == "pass" else pytest.mark.xfail(reason=why, strict=True))
        for n, why in sorted(STATUS.items())
    ],
)
def test_program_gives_pytorchs_output(name):
    status, out, err, _seconds, cfg = corpus.run_program(name, "ferrograd", sys.executable)
    assert status == "ok", corpus.last_error_line(err) if status == "error" else status
    verdict, detail = corpus.judge(name, corpus.mask_text(out, cfg.get("mask", [])), cfg)
    assert verdict in ("pass", "loose", "band"), detail
