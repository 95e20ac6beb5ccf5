"""``utils.data`` against PyTorch's recorded answers (``data_cases.py``, recorded by
``tools/record_torch_cases.py``): DataLoader batches in PyTorch's order after ``manual_seed``
(and the global random stream after them), samplers, ``random_split``, collation of every kind
of sample, iterable datasets, workers (emulated in-process by ferrograd), and the errors of bad
arguments."""

import json
import math
from pathlib import Path

import data_cases
import ferrograd
import pytest

GOLDEN = json.loads((Path(__file__).parent / "golden" / data_cases.GOLDEN).read_text())


def assert_same(got, expected, where="answer"):
    """Equal JSON trees, floats compared to 1e-6 relative (float32 random numbers)."""
    if isinstance(expected, dict):
        assert isinstance(got, dict) and got.keys() == expected.keys(), f"{where}: {got}"
        for key in expected:
            assert_same(got[key], expected[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got}"
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, float):
        assert isinstance(got, float) and math.isclose(got, expected, rel_tol=1e-6), where
    else:
        assert type(got) is type(expected) and got == expected, f"{where}: {got!r} != {expected!r}"


SECTIONS = ["loaders", "samplers", "splits", "collation", "iterables", "workers", "errors"]
ANSWERS = {}


def answers_of(section):
    if section not in ANSWERS:
        ANSWERS[section] = getattr(data_cases, section)(ferrograd)
    return ANSWERS[section]


@pytest.mark.parametrize(
    "section, key", [(s, k) for s in SECTIONS for k in GOLDEN[s]], ids=lambda v: str(v)
)
def test_matches_pytorch(section, key):
    assert_same(answers_of(section)[key], GOLDEN[section][key], f"{section}.{key}")


def test_num_workers_warning_beyond_cpu_count():
    ds = data_cases._tensor_dataset(ferrograd, 4)
    with pytest.warns(UserWarning, match="This DataLoader will create 4096 worker processes"):
        ferrograd.utils.data.DataLoader(ds, num_workers=4096)


def test_pin_memory_warns_without_accelerator():
    ds = data_cases._tensor_dataset(ferrograd, 4)
    loader = ferrograd.utils.data.DataLoader(ds, pin_memory=True)
    with pytest.warns(UserWarning, match="no accelerator is found"):
        batches = list(loader)
    assert len(batches) == 4


class _Tagged(ferrograd.utils.data.Dataset):
    """Items tagged with the worker's copy of ``tag`` (set by ``worker_init_fn``)."""

    tag = 0

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return (i, ferrograd.utils.data.get_worker_info().id, self.tag)


def test_worker_init_fn_configures_its_own_dataset_copy():
    def init(worker_id):
        info = ferrograd.utils.data.get_worker_info()
        assert (info.id, info.num_workers) == (worker_id, 2)
        info.dataset.tag = 100 * (worker_id + 1)

    ds = _Tagged()
    loader = ferrograd.utils.data.DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=init)
    got = [[t.tolist() for t in batch] for batch in loader]
    assert got == [
        [[0, 1], [0, 0], [100, 100]],
        [[2, 3], [1, 1], [200, 200]],
        [[4, 5], [0, 0], [100, 100]],
    ]
    assert ds.tag == 0 and ferrograd.utils.data.get_worker_info() is None
