"""``ferrograd.distributed``, ``nn.parallel.DistributedDataParallel`` and
``utils.data.distributed.DistributedSampler``.

The collectives and DDP run under ``mpirun -n 2`` and ``mpirun -n 4 --oversubscribe`` (this
machine has two cores) on the scripts of ``tests/mpi_scripts/``, which write what each rank got
to JSON files checked here; the tests that need MPI are skipped where ``mpirun`` or ``mpi4py`` is
missing (``tests/run_all.sh`` installs both). PyTorch's answers that need no MPI (the sampler's
indices, the errors before ``init_process_group``) are recorded by
``tools/record_torch_distributed.py`` into ``golden/distributed.json``.

Tolerances: DDP on N processes and one process on the whole batch compute the same float32
steps in a different summation order (each rank's mean over its share, then the mean of the
ranks' gradients), a few units in the last place per step, carried through 18 SGD-momentum steps:
measured at most 1.2e-7 absolute on parameters of magnitude below 1. ``atol=2e-6`` leaves more
than ten times that; a missing division by the world size, a bucket written back to the wrong
parameter or one rank's gradient left out is off by more than 1e-3.
"""

import functools
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ferrograd as torch
import ferrograd.distributed as dist
import numpy as np
import pytest
from ferrograd.utils.data.distributed import DistributedSampler

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = Path(__file__).parent / "mpi_scripts"
GOLDEN = json.loads((Path(__file__).parent / "golden" / "distributed.json").read_text())
MPIRUN = shutil.which("mpirun")
HAVE_MPI = MPIRUN is not None and importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(
    not HAVE_MPI, reason="needs mpirun and mpi4py (run_all.sh installs them)"
)
WORLDS = [2, 4]


def mpirun(n, script, *args, timeout=180):
    """``mpirun -n n python script args`` (oversubscribed: more ranks than cores is fine)."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for name in ("EXAMPLES_LIB", "RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)  # (examples/ddp_train.py run in-process sets the last four)
    cmd = [MPIRUN, "-n", str(n), "--oversubscribe", sys.executable, str(script), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT, timeout=timeout)


@functools.cache
def run_script(name, n, out_root):
    """Runs ``mpi_scripts/<name>.py`` on ``n`` ranks once; returns every rank's JSON."""
    out = Path(out_root) / f"{name}_{n}"
    out.mkdir(parents=True, exist_ok=True)
    proc = mpirun(n, SCRIPTS / f"{name}.py", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [json.loads((out / f"rank{r}.json").read_text()) for r in range(n)]


@pytest.fixture(scope="module")
def out_root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("mpi"))


@pytest.mark.skipif(not os.environ.get("CI"), reason="elsewhere the MPI tests may be skipped")
def test_ci_runs_the_mpi_tests():
    """In CI the tests under mpirun must run, not be skipped: run_all.sh installs Open MPI."""
    assert HAVE_MPI, "mpirun or mpi4py is missing: tests/run_all.sh should have installed them"


# ----- without MPI: PyTorch's answers --------------------------------------------------------


def test_before_init_process_group_errors_are_pytorchs():
    assert dist.is_initialized() is GOLDEN["is_initialized"] is False
    calls = {
        "get_rank": dist.get_rank,
        "get_world_size": dist.get_world_size,
        "all_reduce": lambda: dist.all_reduce(torch.ones(2)),
        "broadcast": lambda: dist.broadcast(torch.ones(2), 0),
        "barrier": dist.barrier,
        "sampler_bad_rank": lambda: DistributedSampler(range(4), num_replicas=2, rank=2),
        "sampler_no_group": lambda: DistributedSampler(range(4)),
    }
    for name, call in calls.items():
        kind, message = GOLDEN["errors"][name]
        with pytest.raises(Exception) as info:  # its class is checked below
            call()
        assert type(info.value).__name__ == kind, name
        assert str(info.value) == message, name


def test_reduce_ops_and_backend_names_are_pytorchs():
    for name, (text, value) in GOLDEN["reduce_ops"].items():
        op = getattr(dist.ReduceOp, name)
        assert repr(op) == text and int(op) == value
    assert dist.default_pg_timeout.total_seconds() == GOLDEN["default_pg_timeout_seconds"]
    assert [str(dist.Backend("MPI")), dist.Backend.MPI] == GOLDEN["backend_mpi"]
    assert torch.distributed is dist and dist.is_available()
    assert torch.utils.data.DistributedSampler is DistributedSampler
    assert torch.nn.parallel.DistributedDataParallel.__name__ == "DistributedDataParallel"


@pytest.mark.parametrize(
    "case", GOLDEN["sampler"], ids=lambda c: "n{n}-w{num_replicas}-r{rank}".format(**c)
)
def test_distributed_sampler_indices_are_pytorchs(case):
    sampler = DistributedSampler(
        range(case["n"]),
        num_replicas=case["num_replicas"],
        rank=case["rank"],
        shuffle=case["shuffle"],
        seed=case["seed"],
        drop_last=case["drop_last"],
    )
    assert len(sampler) == case["len"]
    for epoch, want in enumerate(case["epochs"]):
        sampler.set_epoch(epoch)
        assert list(sampler) == want, f"epoch {epoch}"


def test_sampler_shares_cover_the_dataset_once_per_epoch():
    # (a property of the golden cases as well: each index once, padding aside)
    for case in GOLDEN["sampler"]:
        if case["rank"] != 0 or case["drop_last"] or case["n"] < case["num_replicas"]:
            continue
        shares = [
            c
            for c in GOLDEN["sampler"]
            if {k: c[k] for k in ("n", "num_replicas", "shuffle", "seed", "drop_last")}
            == {k: case[k] for k in ("n", "num_replicas", "shuffle", "seed", "drop_last")}
        ]
        together = sorted(i for c in shares for i in c["epochs"][0])
        assert set(together) == set(range(case["n"]))
        assert len(together) == math.ceil(case["n"] / case["num_replicas"]) * case["num_replicas"]


# ----- collectives under mpirun -------------------------------------------------------------


def expected_collectives(rank, world):
    """What every collective of ``mpi_scripts/collectives.py`` must leave on rank ``rank``."""
    ranks = range(world)
    f = [[r + 1.0, -2.0 * (r + 1), 0.5] for r in ranks]
    i = [[r + 1, 10 - 3 * r] for r in ranks]
    columns = lambda rows: list(zip(*rows))  # noqa: E731
    e = {}
    for name, fn in {"SUM": sum, "PRODUCT": math.prod, "MIN": min, "MAX": max}.items():
        e[f"all_reduce_float32_{name}"] = [float(fn(c)) for c in columns(f)]
        e[f"all_reduce_int64_{name}"] = [int(fn(c)) for c in columns(i)]
    e["all_reduce_float32_AVG"] = [sum(c) / world for c in columns(f)]
    e["all_reduce_int64_AVG"] = [int(sum(c) / world) for c in columns(i)]  # truncated
    bits = [[r + 1, 7, 1 << r] for r in ranks]
    e["all_reduce_int64_BAND"] = [functools.reduce(lambda a, b: a & b, c) for c in columns(bits)]
    e["all_reduce_int64_BOR"] = [functools.reduce(lambda a, b: a | b, c) for c in columns(bits)]
    e["all_reduce_int64_BXOR"] = [functools.reduce(lambda a, b: a ^ b, c) for c in columns(bits)]
    e["all_reduce_bool_SUM"] = e["all_reduce_bool_MAX"] = [True, True, False]
    e["all_reduce_bool_MIN"] = [world == 1, True, False]
    e["all_reduce_float64"] = [[sum(1.0 / (r + 3) for r in ranks)]]
    e["all_reduce_parameter"] = [[float(sum(ranks))] * 2, True, True]
    e["broadcast"] = [[world - 1.0] * 2] * 2
    e["broadcast_int64_src0"] = [0, 1, 2]
    e["all_gather"] = [[r, r * 10.0] for r in ranks]
    e["all_gather_into_tensor"] = [v for r in ranks for v in (r, -r)]
    e["reduce_scatter"] = [sum((r + 1.0) * (rank + 1) for r in ranks), float(world)]
    e["reduce_scatter_tensor_max"] = [rank + world - 1.0]
    e["gather"] = [[r * 1.5] * 3 for r in ranks] if rank == 1 % world else None
    e["scatter"] = [rank, rank * rank]
    e["reduce"] = [float(sum(r + 1 for r in ranks))] if rank == 0 else [rank + 1.0]
    e["async_types"] = ["Work"]
    e["async_wait"] = [True] * 5
    e["async_values"] = [[float(sum(r + k for r in ranks))] * 4 for k in range(5)]
    e["async_completed"] = True
    e["sync_returns"] = "None"
    e["async_broadcast_result"] = [[1.0]]
    e["broadcast_object_list"] = [{"lr": 0.1}, "hello"]
    e["all_gather_object"] = [["rank", r] for r in ranks]
    e["after_errors"] = [float(world)]
    e["after_destroy"] = False
    e["late_value"] = [float(sum(r + 1 for r in ranks))] * 2
    return e


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_collectives_values(out_root, world):
    results = run_script("collectives", world, out_root)
    for rank, got in enumerate(results):
        assert (got["rank"], got["world"], got["backend"]) == (rank, world, "mpi")
        assert got["is_initialized"] is True
        for key, want in expected_collectives(rank, world).items():
            where = f"rank {rank} of {world}: {key} = {got[key]!r}, expected {want!r}"
            if "float" in key:  # sums in another order: a few units in the last place
                np.testing.assert_allclose(got[key], want, rtol=1e-6, err_msg=where)
            else:
                assert got[key] == want, where


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_collectives_errors_say_what_went_wrong(out_root, world):
    for got in run_script("collectives", world, out_root):
        not_init = ["ValueError", GOLDEN["errors"]["get_rank"][1]]
        assert got["before_init"]["get_rank"] == got["before_init"]["all_reduce"] == not_init
        assert got["before_init"]["is_initialized"] is False
        assert got["twice"] == [
            "ValueError",
            "trying to initialize the default process group twice!",
        ]
        # the same error on every rank, naming each rank's tensor
        shapes = ", ".join(
            f"rank {r} has a float32 tensor of shape [{r + 1}] with op SUM" for r in range(world)
        )
        assert got["shape_mismatch"] == [
            "RuntimeError",
            f"all_reduce: the ranks' tensors or ops differ: {shapes}",
        ]
        kind, message = got["dtype_mismatch"]
        assert kind == "RuntimeError" and "rank 0 has a float32 tensor" in message
        assert "rank 1 has a float64 tensor of shape [2]" in message
        kind, message = got["op_mismatch"]
        assert message.startswith(
            "collectives differ across ranks: rank 0 called all_reduce, rank 1 called broadcast"
        )
        assert (
            "with root 0" in got["src_mismatch"][1]
            and f"rank {world - 1} has a float32 tensor of shape [2] with root {world - 1}"
            in got["src_mismatch"][1]
        )
        assert got["band_float"] == [
            "RuntimeError",
            "Cannot use ReduceOp.BAND with non-integral dtype torch.float32",
        ]
        assert got["gather_list_elsewhere"] == [
            "ValueError",
            "Argument ``gather_list`` must NOT be specified on non-destination ranks.",
        ]
        assert got["scatter_list_missing"] == [
            "ValueError",
            "Argument ``scatter_list`` must be specified on source rank.",
        ]
        assert got["bad_src"] == [
            "ValueError",
            f"Source rank {world} is not part of the group of {world} ranks (0 to {world - 1})",
        ]
        assert got["short_list"] == [
            "ValueError",
            f"all_gather: tensor_list has 1 tensors, it needs one per rank ({world})",
        ]
        assert (
            got["not_tensor"][0] == "TypeError"
            and "Expected parameter `tensor` of type torch.Tensor" in got["not_tensor"][1]
        )


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_collective_timeout_raises_instead_of_hanging(out_root, world):
    got = run_script("collectives", world, out_root)[0]
    kind, message = got["timeout"]
    assert kind == "DistBackendError"
    assert message.startswith(
        "[Rank 0] all_reduce (collective #1 of this process) timed out after 0:00:01"
    )
    assert f"not every one of the {world} ranks joined it" in message
    assert 1.0 <= got["timeout_after"] < 2.4  # the others joined 2.5 s late
    assert issubclass(dist.DistBackendError, RuntimeError)


@needs_mpi
def test_uncaught_exception_aborts_every_rank():
    proc = mpirun(2, SCRIPTS / "crash.py", timeout=60)
    assert proc.returncode != 0
    assert "ZeroDivisionError: the last rank fails before the barrier" in proc.stderr
    assert "[Rank 1] uncaught ZeroDivisionError: aborting the MPI job" in proc.stderr
    assert "unreachable" not in proc.stdout


# ----- DistributedDataParallel under mpirun -------------------------------------------------


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
@pytest.mark.parametrize("run", ["train", "train_no_sync", "train_keep_grads", "train_cnn"])
def test_ddp_equals_one_process_on_the_whole_batch(out_root, world, run):
    results = run_script("ddp_train", world, out_root)
    single = np.array(results[0][run]["single"])
    for rank, got in enumerate(results):
        params = np.array(got[run]["ddp"])
        assert params.shape == single.shape
        np.testing.assert_allclose(params, single, rtol=0, atol=2e-6, err_msg=f"rank {rank}")
        np.testing.assert_array_equal(params, results[0][run]["ddp"])  # replicas identical
        assert got[run]["grads_are_bucket_views"]  # gradient_as_bucket_view: no copy back
    assert results[0][run]["buckets"] >= 2  # the reduction really went bucket by bucket
    assert np.abs(single).max() > 0.1  # trained, not zeros


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_ddp_unused_parameters_and_errors(out_root, world):
    results = run_script("ddp_train", world, out_root)
    local = results[0]["local_grads"]  # each rank's gradients without DDP
    for rank, got in enumerate(results):
        grads = got["unused_grads"]
        for name in ("trunk.weight", "trunk.bias", "rank0_head.weight", "rank0_head.bias"):
            mine = [np.array(g[name]) if g[name] is not None else 0.0 for g in local]
            np.testing.assert_allclose(grads[name], sum(mine) / world, rtol=1e-5, atol=1e-6)
        assert grads["unused.weight"] is None and grads["unused.bias"] is None  # nobody used it
        np.testing.assert_allclose(
            got["second_iteration"], 2 * np.array(grads["trunk.bias"]), rtol=1e-5
        )
        kind, message = got["unused_error"]
        assert kind == "RuntimeError"
        assert message.startswith("Expected to have finished reduction in the prior iteration")
        assert f"Parameter indices which did not receive grad for rank {rank}: 2 3 4 5" in message
        assert "rank0_head.weight, rank0_head.bias, unused.weight, unused.bias" in message
        assert got["buffer_at_construction"] == [0.0] * 3  # rank 0's
        assert got["buffer_before_forward"] == [10.0] * 3
        assert got["mismatch"] == [
            "RuntimeError",
            f"DDP expects same model across all ranks, but Rank {world - 1} has parameter 0 "
            "(weight) of shape [5, 3] and dtype torch.float32, while rank 0 has weight of shape "
            "[4, 3] and dtype torch.float32.",
        ]
        assert got["no_params"][0] == "RuntimeError"
        assert got["state_dict_keys"] == ["module.0.weight", "module.0.bias"]
        assert got["module_is_wrapped"] == "Sequential"


# ----- the example ----------------------------------------------------------------------------

NUMBER = re.compile(r"[-+]?\d+\.\d+")


@needs_mpi
@pytest.mark.parametrize("world", WORLDS)
def test_example_trains_across_processes_as_one(world):
    """``mpirun -n N python examples/ddp_train.py`` prints what one process prints (PyTorch's,
    recorded in ``golden/example_losses.json``): every loss to its last printed digit, and the
    same accuracy."""
    proc = mpirun(world, ROOT / "examples" / "ddp_train.py")
    assert proc.returncode == 0, proc.stderr
    got = proc.stdout.splitlines()
    want = json.loads((Path(__file__).parent / "golden" / "example_losses.json").read_text())
    want = want["examples"]["ddp_train"]["stdout"]
    assert len(got) == len(want)
    assert got[-1] == want[-1].replace("1 process(es)", f"{world} process(es)")
    for g, w in zip(got[:-1], want[:-1]):
        assert NUMBER.sub("#", g) == NUMBER.sub("#", w)
        for a, b in zip(NUMBER.findall(g), NUMBER.findall(w)):
            assert abs(float(a) - float(b)) <= 1.01e-5, (g, w)


@needs_mpi
def test_overlap_benchmark_runs():
    """``benches/ddp_overlap.py`` (whose table is in BENCHMARKS.md) still runs: one step of the
    small MLP, every quantity measured and positive."""
    proc = mpirun(2, ROOT / "benches" / "ddp_overlap.py", "--steps", "2", "--only", "mlp")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout.strip().splitlines()[-1])["mlp"]
    assert row["buckets"] == 1
    for key in ("backward", "all_reduce", "communication", "backward_no_overlap",
                "backward_overlap", "step_no_overlap", "step_overlap"):  # fmt: skip
        assert row[key] > 0, key
