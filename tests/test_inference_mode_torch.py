"""Inference mode and inference tensors, and hostile sizes, against PyTorch 2.15's recorded
behaviour (each answer and message below was printed by PyTorch on the same program)."""

import subprocess
import sys

import ferrograd as torch
import pytest


def test_nested_inference_mode_false_leaves_it_and_enables_grad():
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
        with torch.inference_mode(False):
            assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
        assert torch.is_inference_mode_enabled()
    assert not torch.is_inference_mode_enabled() and torch.is_grad_enabled()
    with torch.no_grad(), torch.inference_mode(False):
        # PyTorch: inference_mode(False) turns grad mode on
        assert torch.is_grad_enabled()


def test_inference_tensors_and_their_views():
    with torch.inference_mode():
        a = torch.ones(2)
        flags = [a.is_inference(), (a + 1).is_inference(), a.view(2).is_inference()]
        flags += [a.data.is_inference(), a.detach().is_inference()]
    assert flags == [True] * 5
    b = torch.ones(2)
    with torch.inference_mode():
        # a view of a normal tensor is a normal tensor; a new result is an inference tensor
        assert not b.view(2).is_inference() and (b + 1).is_inference()
    assert torch.is_inference(a) and not a.clone().is_inference()


def test_inference_tensor_refusals_outside_inference_mode():
    with torch.inference_mode():
        a = torch.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        _ = a._version
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor"):
        a.requires_grad_()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside"):
        a.add_(1)
    # refused before writing (PyTorch 2.15 writes the elements, then raises: not copied)
    assert a.tolist() == [1.0, 1.0]
    s = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        a * s
    # add saves nothing: allowed, and differentiable through the normal operand
    out = a + s
    assert out.requires_grad and not out.is_inference()
    with torch.inference_mode():
        a.add_(1)  # in-place is fine inside inference mode
    assert a.tolist() == [2.0, 2.0]


HOSTILE = {
    # an allocation the system cannot give is a RuntimeError, never an abort
    "x = torch.ones(1, 2).expand(1 << 40, 2).contiguous()": "can't allocate memory",
    "x = torch.ones(1, 2).expand(1 << 40, 2) + 1": "can't allocate memory",
    # an element count that overflows is refused where it is made (PyTorch's text)
    "x = torch.ones(1).expand(2**40, 2**30)": "numel: integer multiplication overflow",
}


@pytest.mark.parametrize("code", sorted(HOSTILE))
def test_hostile_sizes_raise_and_the_interpreter_lives(code):
    script = f"import ferrograd as torch\ntry:\n    {code}\nexcept RuntimeError as e:\n    print(e)"
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert HOSTILE[code] in proc.stdout


def test_thread_count_is_remembered_and_ops_still_run():
    script = (
        "import ferrograd as torch\n"
        "torch.set_num_threads(100000)\n"
        "print(torch.get_num_threads(), torch.ones(100000).sum().item())"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["100000", "100000.0"]
    with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
        torch.set_num_threads(0)
