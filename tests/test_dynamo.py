"""``torch._dynamo`` as scripts and PyTorch's tests reach into it: with ``torch.compile``
running eagerly there is nothing to steer, so ``disable`` gives the function back and
``config`` holds settings that change no result (PyTorch 2.15's defaults below)."""

import ferrograd as torch


def test_disable_gives_the_function_back():
    def f(x):
        return x * 2

    assert torch._dynamo.disable(f) is f
    assert torch._dynamo.disable()(f) is f
    assert torch._dynamo.disable(f, recursive=False) is f
    assert torch._dynamo.is_compiling() is False
    assert torch._dynamo.reset() is None


def test_config_defaults_and_settings():
    config = torch._dynamo.config
    assert (config.suppress_errors, config.verbose, config.cache_size_limit) == (False, False, 8)
    assert config.accumulated_cache_size_limit == 256
    assert config.optimize_ddp and config.automatic_dynamic_shapes
    saved = config.suppress_errors
    config.suppress_errors = True  # what older training scripts write before compiling
    try:
        model = torch.compile(torch.nn.Linear(2, 1))
        x = torch.ones(3, 2)
        torch.testing.assert_close(model(x), model._orig_mod(x))
    finally:
        config.suppress_errors = saved
