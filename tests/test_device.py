"""``device`` objects, ``cuda`` and ``backends.mps`` as PyTorch has them on a machine without
accelerators (every assertion also holds when this file runs with ``torch``)."""

import pickle

import ferrograd as torch
import pytest


def test_device_objects_parse_print_and_compare_as_pytorch():
    cpu = torch.device("cpu")
    assert cpu.type == "cpu" and cpu.index is None
    assert repr(cpu) == "device(type='cpu')" and str(cpu) == "cpu"
    assert torch.device("cuda:1") == torch.device("cuda", 1)
    assert repr(torch.device("cuda", 1)) == "device(type='cuda', index=1)"
    assert str(torch.device("cpu", 0)) == "cpu:0"
    assert cpu == torch.device(cpu) and cpu != torch.device("cuda")
    assert pickle.loads(pickle.dumps(torch.device("cuda:2"))) == torch.device("cuda:2")
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        torch.device("foo")


def test_tensors_live_on_the_cpu_and_nowhere_else():
    x = torch.ones(2)
    assert repr(x.device) == "device(type='cpu')" and x.device.type == "cpu"
    assert str(x.device) == "cpu" and x.device != "cpu" and x.device.index is None
    assert torch.zeros(1, device=x.device).device == x.device
    assert x.to(torch.device("cpu")) is x
    assert torch.zeros(2, device=torch.device("cpu")).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError):
        x.to(torch.device("cuda"))


def test_no_accelerator_is_reported():
    assert torch.cuda.is_available() is False
    assert torch.cuda.device_count() == 0
    assert torch.backends.mps.is_available() is False
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    assert device.type == "cpu"
