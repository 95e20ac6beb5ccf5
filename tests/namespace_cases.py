"""Torch-namespace creation and sampling functions against PyTorch (``tools/record_torch_cases.py``
records them, ``test_namespace_golden.py`` replays them): ``exponential_``, ``multinomial`` (with
and without replacement, generators), ``normal``'s overloads, the ``*_like`` constructors,
``new_*``, ``type``, strides, legacy constructors (``Tensor(2, 3)``, ``FloatTensor``), the
default dtype, print options, the generator state and ``inference_mode``. Runs unchanged with
``torch`` or ``ferrograd`` as ``lib``."""

import warnings

GOLDEN = "namespace.json"  # in tests/golden, written by tools/record_torch_cases.py


def run(lib):
    """Every call's result, in order (the generator's stream runs through all of them)."""
    warnings.simplefilter("ignore")
    out = []
    lib.manual_seed(3)
    out.append(lib.empty(5, dtype=lib.float64).exponential_().tolist())
    out.append(lib.empty(5).exponential_(2.5).tolist())
    w = lib.tensor([[0.1, 0.5, 0.2, 0.2], [1.0, 0.0, 3.0, 2.0]])
    out.append(lib.multinomial(w, 1).tolist())
    out.append(lib.multinomial(w, 3).tolist())
    out.append(lib.multinomial(w, 6, replacement=True).tolist())
    out.append(lib.multinomial(w[0], 2).tolist())
    out.append(lib.multinomial(w.double(), 5, replacement=True).tolist())
    out.append(w.multinomial(2).tolist())
    g = lib.Generator().manual_seed(9)
    out.append(lib.multinomial(w, 4, generator=g).tolist())
    out.append(lib.normal(lib.tensor([1.0, 2.0, 3.0]), lib.tensor([0.5, 1.0, 2.0])).tolist())
    out.append(lib.normal(lib.tensor([1.0, 2.0]), 2.0).tolist())
    out.append(lib.normal(1.5, lib.tensor([1.0, 2.0, 3.0])).tolist())
    out.append(lib.normal(1.5, 2.0, (3,)).tolist())
    out.append(lib.normal(lib.zeros(2, 1), lib.ones(1, 3)).tolist())
    out.append(lib.randn_like(lib.ones(2, 2, dtype=lib.float64)).tolist())
    out.append(lib.rand_like(lib.ones(3)).tolist())
    out.append(lib.randint_like(lib.ones(3), 10).tolist())
    out.append(lib.randint_like(lib.ones(3), 5, 10).tolist())
    out.append(lib.full_like(lib.ones(2, dtype=lib.int64), 7).tolist())
    out.append(lib.empty_like(lib.ones(2, 3)).shape == (2, 3))
    x = lib.ones(2, dtype=lib.float64)
    out.append(
        [
            str(x.new_zeros(2, 3).dtype),
            x.new_ones((2,)).tolist(),
            x.new_full((2,), 3).tolist(),
            x.new_tensor([1, 2]).dtype == lib.float64,
            x.new_empty(1).shape == (1,),
        ]
    )
    out.append(
        [
            x.type(),
            lib.ones(1).type(),
            x.type(lib.float32).dtype == lib.float32,
            x.type("torch.LongTensor").tolist(),
        ]
    )
    out.append(
        [
            lib.ones(3, 4).stride(),
            lib.ones(3, 4).t().stride(),
            lib.ones(3, 4)[1:, 2:].storage_offset(),
            lib.ones(3, 4).stride(-1),
            lib.ones(2).element_size(),
        ]
    )
    out.append(
        [
            tuple(lib.Tensor(2, 3).shape),
            lib.Tensor([1, 2]).tolist(),
            lib.FloatTensor([1, 2]).dtype == lib.float32,
            lib.LongTensor([1, 2]).tolist(),
            tuple(lib.DoubleTensor(2).shape),
            isinstance(lib.ones(1), lib.FloatTensor),
            isinstance(lib.ones(1), lib.LongTensor),
        ]
    )
    lib.set_default_dtype(lib.float64)
    out.append(
        [
            str(lib.tensor([1.5]).dtype),
            str(lib.zeros(2).dtype),
            str(lib.arange(0.0, 1.0, 0.5).dtype),
            str(lib.get_default_dtype()),
            str((lib.tensor([1, 2]) * 1.5).dtype),
            str(lib.nn.Linear(2, 2).weight.dtype),
        ]
    )
    lib.set_default_dtype(lib.float32)
    lib.set_printoptions(precision=2)
    out.append(repr(lib.tensor([1.23456, 2.5])))
    lib.set_printoptions(sci_mode=True)
    out.append(repr(lib.tensor([1.23456, 2.5])))
    lib.set_printoptions(profile="default")
    out.append(repr(lib.tensor([1.23456, 2.5])))
    lib.set_printoptions(threshold=5, edgeitems=1)
    out.append(repr(lib.arange(10.0)))
    lib.set_printoptions(profile="default")
    state = lib.get_rng_state()
    a = lib.rand(2).tolist()
    lib.set_rng_state(state)
    out.append(a == lib.rand(2).tolist())
    with lib.inference_mode():
        out.append((lib.ones(1, requires_grad=True) * 2).requires_grad)

    @lib.inference_mode()
    def f():
        return (lib.ones(1, requires_grad=True) * 2).requires_grad

    out.append(f())
    with lib.inference_mode(False):
        out.append((lib.ones(1, requires_grad=True) * 2).requires_grad)
    lib.set_default_dtype(lib.float32)
    lib.set_printoptions(profile="default")
    return out


def answers(lib):
    """The results (what the golden file holds)."""
    return {"results": [r if not isinstance(r, tuple) else list(r) for r in run(lib)]}
