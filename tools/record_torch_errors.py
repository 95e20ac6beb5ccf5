"""Records how PyTorch refuses the hostile calls into ``tests/golden/hostile_calls.json``.

Run with a Python that has PyTorch installed (never needed by the tests or CI)::

    /work/torchenv/bin/python tools/record_torch_errors.py

Each case of ``tests/hostile_cases.py`` runs with ``import torch`` on fresh inputs: its set-up
lines first, then its last line, the hostile call. The file holds, per case, ``id``, ``code``,
``exception`` (the most specific builtin class in the MRO of what PyTorch raised, among
``BUILTIN_CLASSES``, so that ``torch._C._LinAlgError`` records as ``RuntimeError``),
``torch_exception`` (the class PyTorch actually raised) and ``message``. Cases that PyTorch does
not refuse, and cases whose refusal changes a tensor in PyTorch too, are printed and left out;
the catalogue holds refusals that leave everything as it was.
"""

import builtins
import importlib.util
import json
import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "golden" / "hostile_calls.json"
MIN_CASES = 160

# Most specific first is not needed: the MRO is walked and the first of these found wins.
BUILTIN_CLASSES = (
    "TypeError",
    "ValueError",
    "IndexError",
    "RuntimeError",
    "NotImplementedError",
    "AttributeError",
    "KeyError",
)


def _load_cases():
    path = ROOT / "tests" / "hostile_cases.py"
    spec = importlib.util.spec_from_file_location("hostile_cases", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hostile_cases = _load_cases()


def builtin_class(exc):
    """The name of the first class in ``type(exc).__mro__`` among ``BUILTIN_CLASSES``.

    Falls back to the first builtin class in the MRO (``Exception`` at worst).
    """
    wanted = {getattr(builtins, name) for name in BUILTIN_CLASSES}
    mro = type(exc).__mro__
    for cls in mro:
        if cls in wanted:
            return cls.__name__
    for cls in mro:
        if cls.__module__ == "builtins":
            return cls.__name__
    raise AssertionError(f"no builtin class in {mro}")


def qualified_name(cls):
    return cls.__name__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def record(case_id, code):
    """The entry of one case, or ``(None, reason)`` when it is left out."""
    torch.manual_seed(0)
    names = hostile_cases.namespace(torch)
    setup, call = hostile_cases.split_code(code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(compile(setup, f"<{case_id} setup>", "exec"), names)
        except Exception as exc:
            return None, f"set-up raised {type(exc).__name__}: {exc}"
        before = hostile_cases.snapshot(names, torch)
        try:
            exec(compile(call, f"<{case_id}>", "exec"), names)
        except Exception as exc:
            caught = exc
        else:
            return None, "PyTorch does not raise"
        after = hostile_cases.snapshot(names, torch)
    diff = hostile_cases.changed(before, after)
    if diff:
        return None, f"PyTorch raises {type(caught).__name__} but changes {diff}"
    entry = {
        "id": case_id,
        "code": code,
        "exception": builtin_class(caught),
        "torch_exception": qualified_name(type(caught)),
        "message": str(caught),
    }
    return entry, None


def main():
    ids = [case_id for case_id, _ in hostile_cases.CASES]
    duplicates = sorted({x for x in ids if ids.count(x) > 1})
    if duplicates:
        sys.exit(f"duplicate case ids: {duplicates}")
    threads = torch.get_num_threads()
    entries = []
    dropped = []
    for case_id, code in hostile_cases.CASES:
        try:
            entry, reason = record(case_id, code)
        finally:
            torch.set_num_threads(threads)
        if entry is None:
            dropped.append(case_id)
            print(f"dropped {case_id}: {code!r}: {reason}")
        else:
            entries.append(entry)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(entries)} refusals recorded in {OUT.relative_to(ROOT)}, {len(dropped)} dropped")
    if len(entries) < MIN_CASES:
        sys.exit(f"only {len(entries)} cases recorded, at least {MIN_CASES} wanted")


if __name__ == "__main__":
    main()
