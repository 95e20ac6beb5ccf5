"""Runs PyTorch's own test files (``upstream/``) under PyTorch or ferrograd, one test per process.

    python tests/pytorch_suite/runner.py --lib ferrograd --list
    python tests/pytorch_suite/runner.py --lib ferrograd --one TestAutograd.test_grad
    python tests/pytorch_suite/runner.py --lib torch --all --out results-torch.json
    python tests/pytorch_suite/runner.py --lib ferrograd --all --status status.json
    python tests/pytorch_suite/runner.py --lib ferrograd --file nn/test_dropout.py --all --status
    python tests/pytorch_suite/runner.py --lib ferrograd --file all --all --status

``--file`` names the test file (its path under ``upstream/test/``; ``test_autograd.py`` by
default, ``all`` for every file in turn, each in its own runner process). ``--all`` runs every
test of the file (``--jobs`` at once, each in its own process with a timeout) and writes
``{test id: outcome}``; with ``--status`` (the file's own status list when no path is given) it
runs the tests the status list names and fails (exit 1) when a test listed as ``pass`` does
not pass. ``--record-status`` writes a new status list from a PyTorch run (the tests that pass
under PyTorch on a CPU) and a ferrograd run. With ``--file all``, ``--out`` and the two result
arguments of ``--record-status`` are directories holding one results file per test file.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
UPSTREAM = os.path.join(HERE, "upstream", "test")
CHILD_ALIAS = os.path.join(HERE, "child_alias")
DEFAULT_FILE = "test_autograd.py"

# Every test file the suite runs (its path under upstream/test/): the files it takes test
# classes from (itself first; the glue fills in what they import) and its status list.
SUITES = {
    "test_autograd.py": (
        [
            "test_autograd.py",
            "autograd/test_functional.py",
            "autograd/test_complex.py",
            "autograd/test_logging.py",
        ],
        "status.json",
    ),
    "nn/test_module_hooks.py": (["nn/test_module_hooks.py"], "status/nn/test_module_hooks.json"),
    "nn/test_load_state_dict.py": (
        ["nn/test_load_state_dict.py"],
        "status/nn/test_load_state_dict.json",
    ),
    "nn/test_init.py": (["nn/test_init.py"], "status/nn/test_init.json"),
    "nn/test_dropout.py": (["nn/test_dropout.py"], "status/nn/test_dropout.json"),
    "nn/test_packed_sequence.py": (
        ["nn/test_packed_sequence.py"],
        "status/nn/test_packed_sequence.json",
    ),
    "optim/test_swa_utils.py": (["optim/test_swa_utils.py"], "status/optim/test_swa_utils.json"),
    "nn/test_pooling.py": (["nn/test_pooling.py"], "status/nn/test_pooling.json"),
    "nn/test_multihead_attention.py": (
        ["nn/test_multihead_attention.py"],
        "status/nn/test_multihead_attention.json",
    ),
    "nn/test_parametrization.py": (
        ["nn/test_parametrization.py"],
        "status/nn/test_parametrization.json",
    ),
    "nn/test_embedding.py": (["nn/test_embedding.py"], "status/nn/test_embedding.json"),
    "nn/test_convolution.py": (["nn/test_convolution.py"], "status/nn/test_convolution.json"),
    "optim/test_lrscheduler.py": (
        ["optim/test_lrscheduler.py"],
        "status/optim/test_lrscheduler.json",
    ),
    "optim/test_optim.py": (["optim/test_optim.py"], "status/optim/test_optim.json"),
    "test_optim.py": (["test_optim.py"], "status/test_optim.json"),
    "test_nn.py": (["test_nn.py"], "status/test_nn.json"),
    "optim/test_adafactor_mixed_dtype.py": (
        ["optim/test_adafactor_mixed_dtype.py"],
        "status/optim/test_adafactor_mixed_dtype.json",
    ),
    "optim/test_optimizer_memory.py": (
        ["optim/test_optimizer_memory.py"],
        "status/optim/test_optimizer_memory.json",
    ),
    "optim/test_reduce_lr_tensor.py": (
        ["optim/test_reduce_lr_tensor.py"],
        "status/optim/test_reduce_lr_tensor.json",
    ),
    "optim/test_stateless.py": (
        ["optim/test_stateless.py"],
        "status/optim/test_stateless.json",
    ),
    "nn/test_pruning.py": (["nn/test_pruning.py"], "status/nn/test_pruning.json"),
    "nn/test_lazy_modules.py": (["nn/test_lazy_modules.py"], "status/nn/test_lazy_modules.json"),
    "nn/test_linear_module_validation.py": (
        ["nn/test_linear_module_validation.py"],
        "status/nn/test_linear_module_validation.json",
    ),
}

# Names a file imports from a sibling test file whose stored version lacks them (the file index
# keeps one version of each file, not one commit of the whole repository): an empty test class
# stands in, so the file's own tests load; the sibling's tests are counted in its own suite.
STAND_INS = {"test_optim.py": {"optim.test_optim": ["TestOptim"]}}


def suite_files(key):
    """Absolute paths of the files the test file ``key`` takes its test classes from."""
    return [os.path.join(UPSTREAM, f) for f in SUITES[key][0]]


def status_path(key):
    """The committed status list of the test file ``key``."""
    return os.path.join(HERE, SUITES[key][1])


def results_name(key):
    """The name of ``key``'s results file in a ``--file all`` results directory."""
    return key.replace("/", "__").replace(".py", ".json")


def load_module(lib, key=DEFAULT_FILE):
    """Imports the upstream test file ``key`` under its own name (``test_autograd``...) with
    ``import torch`` giving ``lib``."""
    main = os.path.join(UPSTREAM, key)
    sys.path.insert(0, os.path.dirname(main))
    sys.path.insert(0, UPSTREAM)
    sys.path.insert(0, HERE)
    import glue

    glue.install(lib, suite_files(key))
    import importlib
    import importlib.util

    for sibling, names in STAND_INS.get(key, {}).items():
        imported = importlib.import_module(sibling)
        for n in names:
            if not hasattr(imported, n):
                setattr(imported, n, type(n, (unittest.TestCase,), {"__module__": sibling}))

    name = os.path.splitext(os.path.basename(main))[0]
    spec = importlib.util.spec_from_file_location(name, main)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _own_modules(key):
    """The module names of the classes ``key``'s tests come from: the file itself (imported
    under its base name) and the files it takes classes from (under their import paths). A
    class a file imports from another test file with a suite of its own is counted there."""
    main, *others = SUITES[key][0]
    return {os.path.splitext(os.path.basename(main))[0]} | {
        os.path.splitext(f)[0].replace("/", ".") for f in others
    }


def list_tests(lib, key=DEFAULT_FILE):
    module = load_module(lib, key)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    own = _own_modules(key)
    ids = []

    def walk(s):
        for t in s:
            if isinstance(t, unittest.TestSuite):
                walk(t)
            elif type(t).__module__ in own:
                ids.append(f"{type(t).__name__}.{t._testMethodName}")

    walk(suite)
    return ids


class _Result(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.outcome = None
        self.detail = ""

    def addSuccess(self, test):
        self.outcome = self.outcome or "pass"

    def addError(self, test, err):
        self.outcome, self.detail = "error", self._exc_info_to_string(err, test)

    def addFailure(self, test, err):
        self.outcome, self.detail = "fail", self._exc_info_to_string(err, test)

    def addSkip(self, test, reason):
        self.outcome, self.detail = "skip", reason

    def addExpectedFailure(self, test, err):
        self.outcome = "expected-failure"

    def addUnexpectedSuccess(self, test):
        self.outcome = "unexpected-success"

    def addSubTest(self, test, subtest, err):
        if err is not None:
            kind = "fail" if issubclass(err[0], test.failureException) else "error"
            self.outcome, self.detail = kind, self._exc_info_to_string(err, test)


def run_one(lib, test_id, key=DEFAULT_FILE):
    """Runs one test in this process; prints its outcome as one JSON line."""
    try:
        module = load_module(lib, key)
    except BaseException as e:  # the whole file failed to import
        print(json.dumps({"outcome": "error", "detail": f"import: {type(e).__name__}: {e}"}))
        return
    try:
        cls_name, method = test_id.split(".")
        cls = getattr(module, cls_name)
        test = cls(method)
    except BaseException as e:
        print(json.dumps({"outcome": "error", "detail": f"load: {type(e).__name__}: {e}"}))
        return
    result = _Result()
    test.run(result)
    sys.stdout.flush()
    print(
        "\n@@RESULT@@" + json.dumps({"outcome": result.outcome or "error", "detail": result.detail})
    )


def _last_line(text):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def run_isolated(python, lib, test_id, timeout, key=DEFAULT_FILE):
    cmd = [python, os.path.abspath(__file__), "--lib", lib, "--file", key, "--one", test_id]
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=UPSTREAM
        )
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "detail": f"more than {timeout} s"}
    marker = proc.stdout.rfind("@@RESULT@@")
    if marker < 0:
        tail = _last_line(proc.stderr) or _last_line(proc.stdout)
        return {"outcome": "crash", "detail": f"exit {proc.returncode}: {tail}"}
    result = json.loads(proc.stdout[marker + len("@@RESULT@@") :].strip().splitlines()[0])
    result["detail"] = _last_line(result.get("detail", ""))
    return result


def _run_in_child(module, test_id, write_fd):
    """In a forked child: runs one test, writes its outcome as JSON to ``write_fd``, exits."""
    try:
        cls_name, method = test_id.split(".")
        result = _Result()
        getattr(module, cls_name)(method).run(result)
        out = {"outcome": result.outcome or "error", "detail": _last_line(result.detail)}
    except BaseException as e:
        out = {"outcome": "error", "detail": f"load: {type(e).__name__}: {e}"}
    data = json.dumps(out).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(write_fd, view) :]
    os._exit(0)


def run_forked(lib, ids, jobs, timeout, key=DEFAULT_FILE):
    """Runs each test in its own process forked from one that loaded the file once (as
    fresh as a new interpreter for the test, without paying the import for every test)."""
    import select
    import signal

    module = load_module(lib, key)
    results, pending, running = {}, list(ids), {}
    start = time.time()
    while pending or running:
        while pending and len(running) < jobs:
            test_id = pending.pop(0)
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(read_fd)
                _run_in_child(module, test_id, write_fd)
            os.close(write_fd)
            running[read_fd] = (pid, test_id, time.time(), [])
        ready, _, _ = select.select(list(running), [], [], 0.2)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if chunk:
                running[fd][3].append(chunk)
                continue
            pid, test_id, _, chunks = running.pop(fd)
            os.close(fd)
            _, status = os.waitpid(pid, 0)
            if chunks:
                results[test_id] = json.loads(b"".join(chunks))
            else:
                results[test_id] = {"outcome": "crash", "detail": f"exit status {status}"}
        for fd, (pid, test_id, began, _) in list(running.items()):
            if time.time() - began > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                os.close(fd)
                del running[fd]
                results[test_id] = {"outcome": "timeout", "detail": f"more than {timeout} s"}
        if len(results) and len(results) % 100 == 0 and not ready:
            pass
    print(f"  {len(results)} tests in {time.time() - start:.0f} s", file=sys.stderr)
    return dict(sorted(results.items()))


def run_many(lib, ids, jobs, timeout, python, key=DEFAULT_FILE):
    results = {}
    start = time.time()
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = {pool.submit(run_isolated, python, lib, t, timeout, key): t for t in ids}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            results[futures[fut]] = fut.result()
            if n % 100 == 0:
                print(f"  {n}/{len(ids)} tests, {time.time() - start:.0f} s", file=sys.stderr)
    return dict(sorted(results.items()))


# Kinds the suite leaves to other issues or excludes (the "excluded kinds"), recognised
# in a test's own source; the first that matches names the kind. A test that passes under
# PyTorch on a CPU is never a CUDA test, whatever it mentions, so CUDA is no kind here.
EXCLUDED_KINDS = [
    (
        "excluded: forward-mode AD / torch.func (the transforms issue)",
        (
            "fwAD",
            "forward_ad",
            "torch.func",
            "vmap",
            "check_forward_ad=True",
            "jvp(",
            "jacfwd",
            "_vmap_internals",
            "check_batched_grad=True",
            "ForwardMode",
        ),
    ),
    (
        "excluded: sparse layouts other than COO",
        ("sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "to_sparse_csr"),
    ),
    ("excluded: TorchScript", ("torch.jit", "jit.script", "jit.trace")),
    ("excluded: C++ extensions", ("load_inline", "cpp_extension")),
    (
        "excluded: dispatch internals (torch._C, dispatch keys, torch.ops)",
        (
            "torch._C",
            "make_fx",
            "DispatchKey",
            "torch.ops.",
            "torch.library",
            "_python_dispatch",
            "TorchDispatchMode",
            "no_dispatch",
            "TwoTensor",
        ),
    ),
]


# The tests test_nn.py generates from common_nn's dictionaries have no source of their own; one
# whose dictionary asks gradcheck for forward-mode AD (``supports_forward_ad``) is recognised by
# ferrograd's refusal of it, which names that mode.
FORWARD_AD_REFUSAL = "ferrograd has no forward-mode AD yet"


def _test_sources(key=DEFAULT_FILE):
    """{test method name: its source} for every test function in the upstream files."""
    import ast

    sources = {}
    for path in suite_files(key):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                        sources[(node.name, item.name)] = ast.get_source_segment(text, item)
    return sources


def _source_of(sources, test_id):
    cls, method = test_id.split(".")
    cls = cls[:-3] if cls.endswith("CPU") else cls
    best = ""
    for (c, name), src in sources.items():
        if c == cls and method.startswith(name) and len(name) > len(best):
            best, found = name, src
    return (cls + " " + found) if best else cls


def record_status(torch_results, ferrograd_results, key=DEFAULT_FILE):
    """The status list: every test that passes under PyTorch on a CPU with this glue, as
    ``pass`` or the reason it does not pass under ferrograd (its kind when excluded)."""
    sources = _test_sources(key)
    tests, excluded = {}, set()
    for test_id, result in sorted(torch_results.items()):
        if result["outcome"] != "pass":
            continue
        src = _source_of(sources, test_id)
        kind = next((k for k, words in EXCLUDED_KINDS if any(w in src for w in words)), None)
        # a test the file could not build under ferrograd (its parameters need what ferrograd
        # lacks, see glue._tolerate_failing_factories) is missing from ferrograd's results
        mine = ferrograd_results.get(
            test_id, {"outcome": "missing", "detail": "not built under ferrograd"}
        )
        if kind is None and FORWARD_AD_REFUSAL in mine.get("detail", ""):
            kind = EXCLUDED_KINDS[0][0]
        if kind:
            excluded.add(test_id)
        if mine["outcome"] == "pass":
            tests[test_id] = "pass"
            continue
        reason = f"{mine['outcome']}: {mine['detail']}"[:240]
        tests[test_id] = f"{kind} | {reason}" if kind else f"fails | {reason}"
    counted = [t for t in tests if t not in excluded]
    passing = sum(1 for t in counted if tests[t] == "pass")
    summary = {
        "pass under PyTorch on a CPU (the suite)": len(tests),
        "excluded kinds (passing or not)": len(excluded),
        "counted": len(counted),
        "pass under ferrograd (of counted)": passing,
        "pass under ferrograd (of all)": sum(1 for s in tests.values() if s == "pass"),
    }
    return {"summary": summary, "tests": tests}


def _write_status(torch_json, ferrograd_json, out, key):
    with open(torch_json) as f:
        torch_results = json.load(f)
    with open(ferrograd_json) as f:
        ferrograd_results = json.load(f)
    status = record_status(torch_results, ferrograd_results, key)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(status, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{key}: {json.dumps(status['summary'])}")


def _every_file(args):
    """``--file all``: runs this runner once per test file, each in its own process."""
    if args.record_status:
        torch_dir, ferrograd_dir, _ = args.record_status
        for key in SUITES:
            name = results_name(key)
            _write_status(
                os.path.join(torch_dir, name),
                os.path.join(ferrograd_dir, name),
                status_path(key),
                key,
            )
        return 0
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    worst = 0
    for key in SUITES:
        cmd = [sys.executable, os.path.abspath(__file__), "--lib", args.lib, "--file", key]
        cmd += ["--jobs", str(args.jobs), "--timeout", str(args.timeout)]
        cmd += ["--python", args.python]
        if args.list:
            cmd.append("--list")
        if args.all:
            cmd.append("--all")
        if args.fresh_interpreters:
            cmd.append("--fresh-interpreters")
        if args.only:
            cmd += ["--only", *args.only]
        if args.status is not None:
            cmd.append("--status")  # each file's own status list
        if args.out:
            cmd += ["--out", os.path.join(args.out, results_name(key))]
        print(f"== {key}", flush=True)
        worst = max(worst, subprocess.run(cmd).returncode)
    return worst


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--lib", choices=["torch", "ferrograd"], default="ferrograd")
    p.add_argument(
        "--file",
        default=DEFAULT_FILE,
        choices=[*SUITES, "all"],
        help="the test file (its path under upstream/test/), or all of them",
    )
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--list", action="store_true")
    p.add_argument("--one")
    p.add_argument("--all", action="store_true", help="run every test of the file")
    p.add_argument("--only", nargs="*", help="test ids (or prefixes) to run with --all")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument(
        "--fresh-interpreters",
        action="store_true",
        help="start a new interpreter per test instead of forking one that loaded the file",
    )
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("--out")
    p.add_argument(
        "--status",
        nargs="?",
        const="",
        help="status list (the file's own without a path): fail when a listed pass does not pass",
    )
    p.add_argument(
        "--record-status",
        nargs=3,
        metavar=("TORCH_JSON", "FERROGRAD_JSON", "OUT"),
        help="write the status list from a PyTorch run and a ferrograd run (OUT '-': the "
        "file's own status list; with --file all: two results directories, OUT ignored)",
    )
    args = p.parse_args()
    if args.lib == "ferrograd":
        # scripts the tests start in a new interpreter import torch through the alias too
        paths = [CHILD_ALIAS, os.environ.get("PYTHONPATH", "")]
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    key = args.file
    if key == "all":
        return _every_file(args)

    if args.record_status:
        torch_json, ferrograd_json, out = args.record_status
        _write_status(torch_json, ferrograd_json, status_path(key) if out == "-" else out, key)
        return 0
    if args.one:
        run_one(args.lib, args.one, key)
        return 0
    if args.list:
        for t in list_tests(args.lib, key):
            print(t)
        return 0
    if args.status is not None:
        with open(args.status or status_path(key)) as f:
            status = json.load(f)["tests"]
        ids = sorted(status)
    else:
        ids = list_tests(args.lib, key)
    if args.only:
        ids = [t for t in ids if any(t == o or t.startswith(o) for o in args.only)]
    if args.fresh_interpreters:
        results = run_many(args.lib, ids, args.jobs, args.timeout, args.python, key)
    else:
        results = run_forked(args.lib, ids, args.jobs, args.timeout, key)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1, sort_keys=True)
    counts = {}
    for r in results.values():
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    print(f"{args.lib}: {key}: {len(results)} tests: {counts}")
    if args.status is None:
        return 0
    regressions = [t for t in ids if status[t] == "pass" and results[t]["outcome"] != "pass"]
    listed_pass = sum(1 for t in ids if status[t] == "pass")
    now_pass = [t for t in ids if status[t] != "pass" and results[t]["outcome"] == "pass"]
    for t in regressions:
        print(f"REGRESSION {t}: {results[t]['outcome']}: {results[t]['detail']}")
    for t in now_pass:
        print(f"now passes (update the status list): {t}")
    passed = listed_pass - len(regressions)
    print(f"{passed} passed, {len(regressions)} failed")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
