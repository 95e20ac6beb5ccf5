"""The calls that need an accelerator fail as they fail in a PyTorch built for the CPU alone
(ferrograd has no CUDA): ``AssertionError("Torch not compiled with CUDA enabled")`` for
``torch.cuda`` calls and ``Tensor.cuda()``, PyTorch's refusal of ``pin_memory`` without an
accelerator; and the refusals ferrograd adds where PyTorch would compute something ferrograd
cannot (ONNX export, autocast to a 16-bit dtype, another default device). The values that work
without an accelerator are checked against PyTorch's recorded output by
``cpu_surface_cases.py``."""

import warnings

import ferrograd as torch
import pytest

NOT_COMPILED = "Torch not compiled with CUDA enabled"


@pytest.mark.parametrize(
    "call",
    [
        torch.cuda.current_device,
        torch.cuda.synchronize,
        torch.cuda.get_device_name,
        torch.cuda.initial_seed,
        torch.cuda.get_rng_state,
        lambda: torch.cuda.set_device(0),
        lambda: torch.ones(2).cuda(),
        lambda: torch.cuda.device(0).__enter__(),
    ],
)
def test_calls_needing_cuda_raise_pytorchs_assertion(call):
    with pytest.raises(AssertionError, match=NOT_COMPILED):
        call()


def test_what_works_without_cuda():
    assert torch.cuda.get_rng_state_all() == []
    torch.cuda.set_rng_state_all([])
    with torch.cuda.device(-1):
        pass
    assert torch.backends.cudnn.is_available() is False
    assert torch.backends.cudnn.version() is None
    assert torch.backends.cuda.is_built() is False
    assert torch.accelerator.current_accelerator() is None
    assert torch.ones(2).is_pinned() is False


def test_pin_memory_is_refused_without_an_accelerator():
    with pytest.raises(RuntimeError, match="Cannot access accelerator device"):
        torch.ones(2).pin_memory()


def test_deprecated_cuda_amp_spellings_warn_and_disable():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            pass
    texts = [str(w.message) for w in seen]
    assert any("torch.cuda.amp.GradScaler(args...)` is deprecated" in t for t in texts)
    assert any("CUDA is not available.  Disabling." in t for t in texts)
    assert any("torch.cuda.amp.autocast(args...)` is deprecated" in t for t in texts)
    assert scaler.is_enabled() is False and scaler.state_dict() == {}


def test_grad_scaler_misuse_is_refused():
    s = torch.amp.GradScaler("cpu")
    p = torch.nn.Parameter(torch.ones(2))
    opt = torch.optim.SGD([p], lr=0.1)
    with pytest.raises(AssertionError, match="No inf checks were recorded prior to update"):
        s.update()
    s.scale(p.sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        s.step(opt)
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        s.step(opt, closure=lambda: None)
    with pytest.raises(AssertionError, match=r"growth factor must be > 1\.0"):
        torch.amp.GradScaler("cpu", growth_factor=0.5)
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        torch.amp.GradScaler("cpu").load_state_dict({})


def test_what_ferrograd_cannot_compute_is_refused():
    import ferrograd.onnx

    with pytest.raises(NotImplementedError, match="ONNX"):
        ferrograd.onnx.export(torch.nn.Linear(2, 2), torch.ones(1, 2), "m.onnx")
    with pytest.raises(NotImplementedError, match="bfloat16 or float16"):
        with torch.autocast("cpu"):
            pass
    with pytest.raises(RuntimeError, match="CPU only"):
        torch.set_default_device("cuda")
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        torch.compile(lambda x: x, mode="fast")
    with pytest.raises(TypeError, match="must be bool"):
        torch.use_deterministic_algorithms("yes")


def test_device_as_a_context_manager():
    # PyTorch: `with torch.device("cpu") as d` gives d and creates tensors on the CPU inside;
    # an accelerator would be the default inside the block: refused here, as set_default_device
    with torch.device("cpu") as d:
        assert repr(d) == "device(type='cpu')"
        assert torch.zeros(1).device == d and torch.get_default_device() == d
    with pytest.raises(RuntimeError, match="CPU only"):
        with torch.device("cuda"):
            pass
    assert torch.get_default_device() == d  # the refused block left the default as it was
    # the meta device is the default inside its block, and the CPU again after it (even when
    # the block raises); tests/meta_cases.py checks what it makes against PyTorch
    with pytest.raises(KeyError):
        with torch.device("meta"):
            assert torch.zeros(2).is_meta
            raise KeyError("leaves the block")
    assert not torch.zeros(2).is_meta and torch.get_default_device() == d


def test_quantized_backend_has_no_engine_and_refuses_choosing_one():
    # ferrograd has no quantized tensors, so no engine; the refusals are PyTorch 2.15's texts
    # (an unknown name; a known engine that is not built in, named by its C++ enum)
    assert torch.backends.quantized.supported_engines == []
    assert "fbgemm" not in torch.backends.quantized.supported_engines
    assert torch.backends.quantized.engine == "none"
    with pytest.raises(RuntimeError, match=r"^foo is not a valid value for quantized engine$"):
        torch.backends.quantized.engine = "foo"
    with pytest.raises(RuntimeError, match=r"^quantized engine FBGEMM is not supported$"):
        torch.backends.quantized.engine = "fbgemm"
    assert torch.backends.quantized.engine == "none"
