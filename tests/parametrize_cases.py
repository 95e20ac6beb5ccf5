"""Parametrizations checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_parametrize_golden.py`` replays them): ``nn.utils.parametrize`` (registration, the
generated ``Parametrized<Class>``, ``print(model)``, ``state_dict`` keys, values and gradients
of the originals, ``right_inverse`` with one and with several originals, chains, buffers,
``cached()``, assignment, removal with ``leave_parametrized`` True and False, copies, pickling,
and the refusals' texts), ``nn.utils.parametrizations`` (``weight_norm``, ``spectral_norm``
with its power-iteration buffers over training and evaluation forwards, ``orthogonal`` with
each map and trivialization, trained a few steps) and the older hook-based
``nn.utils.weight_norm``/``spectral_norm`` (their parameters, buffers, warnings, state-dict
metadata, conversions and removal). Every module is made after ``manual_seed`` in the same
order under both libraries, so the initial weights and the random draws are the same. Runs
unchanged with ``torch`` or ``ferrograd`` as ``lib``.

Each ``answers`` entry is JSON: lists of numbers (compared with float tolerance), strings and
exceptions as ``[class name, message]`` (compared exactly)."""

import copy
import importlib
import math
import pickle
import warnings

GOLDEN = "parametrize.json"  # in tests/golden, written by tools/record_torch_cases.py


def _mods(lib):
    name = lib.__name__
    return (
        importlib.import_module(name + ".nn.utils.parametrize"),
        importlib.import_module(name + ".nn.utils.parametrizations"),
    )


def _t(lib, shape, phase=0.0, scale=1.0, dtype=None):
    n = 1
    for s in shape:
        n *= s
    vals = [scale * math.sin(1.3 * i + phase) + 0.3 * math.cos(0.7 * i) for i in range(n)]
    return lib.tensor(vals, dtype=dtype or lib.float32).reshape(tuple(shape))


def _v(t):
    return None if t is None else t.detach().tolist()


def _err(fn):
    """``[exception class name, message]`` of calling ``fn`` (None when it does not raise)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


def _names(module):
    return {
        "class": type(module).__name__,
        "params": [n for n, _ in module.named_parameters()],
        "buffers": [n for n, _ in module.named_buffers()],
        "state_dict": list(module.state_dict().keys()),
    }


def _grads(module):
    return {n: _v(p.grad) for n, p in module.named_parameters()}


# ----- parametrizations used by the cases ------------------------------------------------


def _classes(lib):
    nn = lib.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class SymmetricInv(Symmetric):
        def right_inverse(self, A):
            return A.triu()

    class Scale(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, X):
            return X * self.c

        def right_inverse(self, X):
            return X / self.c

        def extra_repr(self):
            return f"c={self.c}"

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    class RankOne(nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0] * 1.0, Z[0, :] * 0.5

    class Counting(nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        def forward(self, X):
            self.calls += 1
            return X * 2.0

    class WrongShape(nn.Module):
        def forward(self, X):
            return X[0]

    class WrongInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return X[0]

    class WrongDtype(nn.Module):
        def forward(self, X):
            return X.double()

    class NotTensor(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return 3

    class Flatten(nn.Module):
        def __init__(self, shape):
            super().__init__()
            self.shape = shape

        def forward(self, x):
            return x.reshape(*self.shape)

        def right_inverse(self, X):
            return X.reshape(-1)

    return {
        "Symmetric": Symmetric,
        "SymmetricInv": SymmetricInv,
        "Scale": Scale,
        "Skew": Skew,
        "RankOne": RankOne,
        "Counting": Counting,
        "WrongShape": WrongShape,
        "WrongInverse": WrongInverse,
        "WrongDtype": WrongDtype,
        "NotTensor": NotTensor,
        "Flatten": Flatten,
    }


# ----- parametrize -----------------------------------------------------------------------


def registration(lib):
    """Registering, printing, names, values and gradients; chains; buffers; tuples."""
    P, _ = _mods(lib)
    nn = lib.nn
    C = _classes(lib)
    out = {}

    lib.manual_seed(0)
    m = nn.Linear(3, 3)
    w0 = _v(m.weight)
    weight_obj = m.weight
    P.register_parametrization(m, "weight", C["Symmetric"]())
    x = _t(lib, (2, 3), 0.4)
    y = m(x)
    (y * _t(lib, (2, 3), 1.1)).sum().backward()
    out["symmetric"] = {
        "repr": repr(m),
        "names": _names(m),
        "original_kept": m.parametrizations.weight.original is weight_obj,
        "original": _v(m.parametrizations.weight.original),
        "w0": w0,
        "weight": _v(m.weight),
        "y": _v(y),
        "grads": _grads(m),
        "is_parametrized": [
            P.is_parametrized(m),
            P.is_parametrized(m, "weight"),
            P.is_parametrized(m, "bias"),
        ],
        "type_before": P.type_before_parametrizations(m).__name__,
        "bases": [c.__name__ for c in type(m).__bases__],
        "is_instance": isinstance(m, nn.Linear),
        "weight_in_params": "weight" in dict(m.named_parameters()),
        "requires_grad": m.weight.requires_grad,
    }

    # a second parametrization on the same tensor, and one on another
    P.register_parametrization(m, "weight", C["Scale"](2.0))
    P.register_parametrization(m, "bias", C["Scale"](3.0))
    out["chain"] = {
        "repr": repr(m),
        "names": _names(m),
        "weight": _v(m.weight),
        "bias": _v(m.bias),
        "bias_original": _v(m.parametrizations.bias.original),
        "len": len(m.parametrizations.weight),
    }

    # right_inverse runs at registration: original = right_inverse(weight)
    lib.manual_seed(1)
    m = nn.Linear(4, 4)
    w0 = _v(m.weight)
    P.register_parametrization(m, "weight", C["SymmetricInv"]())
    out["right_inverse"] = {"w0": w0, "original": _v(m.parametrizations.weight.original)}
    # assigning runs right_inverse
    m.weight = _t(lib, (4, 4), 0.2)
    out["right_inverse"]["assigned_original"] = _v(m.parametrizations.weight.original)
    out["right_inverse"]["assigned_weight"] = _v(m.weight)

    # several originals
    lib.manual_seed(2)
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", C["RankOne"]())
    y = m(_t(lib, (2, 3), 0.9))
    y.pow(2).sum().backward()
    out["tuple"] = {
        "repr": repr(m),
        "names": _names(m),
        "original0": _v(m.parametrizations.weight.original0),
        "original1": _v(m.parametrizations.weight.original1),
        "weight": _v(m.weight),
        "grads": _grads(m),
        "has_original": hasattr(m.parametrizations.weight, "original"),
        "is_parameter": isinstance(m.parametrizations.weight.original0, nn.Parameter),
    }
    m.weight = _t(lib, (4, 3), 0.1)
    out["tuple"]["assigned"] = [
        _v(m.parametrizations.weight.original0),
        _v(m.parametrizations.weight.original1),
    ]

    # a buffer
    lib.manual_seed(3)
    bn = nn.BatchNorm1d(3)
    bn.running_var.copy_(_t(lib, (3,), 0.5).abs() + 1.0)
    P.register_parametrization(bn, "running_var", C["Scale"](0.5))
    out["buffer"] = {
        "repr": repr(bn),
        "names": _names(bn),
        "running_var": _v(bn.running_var),
        "original": _v(bn.parametrizations.running_var.original),
        "requires_grad": bn.running_var.requires_grad,
    }

    # unsafe: a shape-changing parametrization
    lib.manual_seed(4)
    m = nn.Linear(3, 2)
    P.register_parametrization(m, "weight", C["Flatten"]((2, 3)), unsafe=True)
    out["unsafe"] = {
        "names": _names(m),
        "original_shape": list(m.parametrizations.weight.original.shape),
        "weight": _v(m.weight),
        "unsafe": m.parametrizations.weight.unsafe,
    }

    # a parametrized module inside a model
    lib.manual_seed(5)
    model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 2))
    P.register_parametrization(model[0], "weight", C["Skew"]())
    y = model(_t(lib, (4, 3), 0.3))
    y.sum().backward()
    out["nested"] = {
        "repr": repr(model),
        "names": _names(model),
        "y": _v(y),
        "grads": _grads(model),
    }
    return out


def caching_and_modes(lib):
    """``cached()``, training mode handed to the parametrization, copies and pickling."""
    P, _ = _mods(lib)
    nn = lib.nn
    C = _classes(lib)
    out = {}
    lib.manual_seed(10)
    m = nn.Linear(2, 2)
    counter = C["Counting"]()
    m.eval()
    P.register_parametrization(m, "weight", counter)
    out["training_given"] = counter.training
    base = counter.calls  # the registration's check evaluates it once
    m.weight  # noqa: B018
    m.weight  # noqa: B018
    uncached = counter.calls - base
    with P.cached():
        a = m.weight
        b = m.weight
        with P.cached():
            c = m.weight
        d = m.weight
    cached = counter.calls - base - uncached
    m.weight  # noqa: B018
    out["calls"] = [base, uncached, cached, counter.calls]
    out["same_objects"] = [a is b, b is c, c is d]
    # copies and pickling
    clone = copy.deepcopy(m)
    out["deepcopy"] = {
        "class": type(clone).__name__,
        "same_class": type(clone) is type(m),
        "weight": _v(clone.weight),
        "distinct": clone.parametrizations.weight.original
        is not m.parametrizations.weight.original,
    }
    out["pickle"] = _err(lambda: pickle.dumps(m))
    return out


def removal(lib):
    """``remove_parametrizations`` with ``leave_parametrized`` True and False."""
    P, _ = _mods(lib)
    nn = lib.nn
    C = _classes(lib)
    out = {}
    for leave in (True, False):
        lib.manual_seed(20)
        m = nn.Linear(3, 3)
        original = m.weight
        P.register_parametrization(m, "weight", C["Symmetric"]())
        P.register_parametrization(m, "bias", C["Scale"](2.0))
        value = _v(m.weight)
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        step1 = {
            "repr": repr(m),
            "names": _names(m),
            "weight": _v(m.weight),
            "parametrized_value": value,
            "same_object": m.weight is original,
            "is_parameter": isinstance(m.weight, nn.Parameter),
        }
        P.remove_parametrizations(m, "bias", leave_parametrized=leave)
        step2 = {
            "repr": repr(m),
            "names": _names(m),
            "bias": _v(m.bias),
            "class_restored": type(m) is nn.Linear,
            "has_parametrizations": hasattr(m, "parametrizations"),
        }
        out[f"leave_{leave}"] = [step1, step2]
    # several originals: left parametrized as one new parameter; not left: refused
    lib.manual_seed(21)
    m = nn.Linear(3, 4)
    P.register_parametrization(m, "weight", C["RankOne"]())
    value = _v(m.weight)
    out["tuple_refused"] = _err(
        lambda: P.remove_parametrizations(m, "weight", leave_parametrized=False)
    )
    P.remove_parametrizations(m, "weight")
    out["tuple_left"] = {
        "names": _names(m),
        "weight": _v(m.weight),
        "value": value,
        "is_parameter": isinstance(m.weight, nn.Parameter),
    }
    # a buffer stays a buffer
    lib.manual_seed(22)
    bn = nn.BatchNorm1d(2)
    P.register_parametrization(bn, "running_mean", C["Scale"](2.0))
    P.remove_parametrizations(bn, "running_mean")
    out["buffer"] = {"names": _names(bn), "running_mean": _v(bn.running_mean)}
    return out


def errors(lib):
    """Refusals and their messages."""
    P, _ = _mods(lib)
    nn = lib.nn
    C = _classes(lib)
    out = {}

    def fresh():
        lib.manual_seed(30)
        return nn.Linear(3, 3)

    out["missing_name"] = _err(
        lambda: P.register_parametrization(fresh(), "weigth", C["Symmetric"]())
    )
    for key, case in (("wrong_shape", "WrongShape"), ("wrong_dtype", "WrongDtype")):
        out[key] = _err(lambda case=case: P.register_parametrization(fresh(), "weight", C[case]()))
    out["inverse_not_tensor"] = _err(
        lambda: P.register_parametrization(fresh(), "weight", C["NotTensor"]())
    )

    def second(p):
        m = fresh()
        P.register_parametrization(m, "weight", C["Symmetric"]())
        P.register_parametrization(m, "weight", p)

    out["second_wrong_shape"] = _err(lambda: second(C["WrongShape"]()))
    out["second_wrong_dtype"] = _err(lambda: second(C["WrongDtype"]()))
    out["second_inverse_shape"] = _err(lambda: second(C["WrongInverse"]()))
    out["second_inverse_not_tensor"] = _err(lambda: second(C["NotTensor"]()))
    out["remove_missing"] = _err(lambda: P.remove_parametrizations(fresh(), "weight"))

    def assign_without_inverse():
        m = fresh()
        P.register_parametrization(m, "weight", C["Symmetric"]())
        m.weight = _t(lib, (3, 3))

    out["assign_without_inverse"] = _err(assign_without_inverse)

    def assign_parameter():
        m = fresh()
        P.register_parametrization(m, "weight", C["SymmetricInv"]())
        m.weight = nn.Parameter(_t(lib, (3, 3)))

    out["assign_parameter"] = _err(assign_parameter)

    def assign_tuple_wrong_length():
        m = fresh()
        P.register_parametrization(m, "weight", C["RankOne"]())
        m.parametrizations.weight.right_inverse  # noqa: B018
        m.parametrizations.weight.ntensors = 3
        m.weight = _t(lib, (3, 3))

    out["tuple_wrong_length"] = _err(assign_tuple_wrong_length)
    out["empty_list"] = _err(lambda: P.ParametrizationList([], _t(lib, (2, 2))))
    return out


# ----- parametrizations.weight_norm -------------------------------------------------------


def weight_norms(lib):
    """``parametrizations.weight_norm`` on linear and convolution weights, each ``dim``."""
    _, PZ = _mods(lib)
    nn = lib.nn
    out = {}
    cases = [
        ("linear", lambda: nn.Linear(4, 3), {}, (2, 4)),
        ("linear_dim1", lambda: nn.Linear(4, 3), {"dim": 1}, (2, 4)),
        ("linear_none", lambda: nn.Linear(4, 3), {"dim": None}, (2, 4)),
        ("conv_dim0", lambda: nn.Conv2d(2, 3, 2), {}, (1, 2, 3, 3)),
        ("conv_dim1", lambda: nn.Conv2d(2, 3, 2), {"dim": 1}, (1, 2, 3, 3)),
        ("conv_dim2", lambda: nn.Conv2d(2, 3, 2), {"dim": 2}, (1, 2, 3, 3)),
        ("conv_dim3", lambda: nn.Conv2d(2, 3, 2), {"dim": 3}, (1, 2, 3, 3)),
        ("conv_dim_minus1", lambda: nn.Conv2d(2, 3, 2), {"dim": -1}, (1, 2, 3, 3)),
    ]
    for i, (name, make, kw, xshape) in enumerate(cases):
        lib.manual_seed(40 + i)
        m = make()
        w0 = _v(m.weight)
        PZ.weight_norm(m, **kw)
        x = _t(lib, xshape, 0.1 * i)
        y = m(x)
        (y * y).sum().backward()
        out[name] = {
            "names": _names(m),
            "w0": w0,
            "weight": _v(m.weight),
            "g_shape": list(m.parametrizations.weight.original0.shape),
            "g": _v(m.parametrizations.weight.original0),
            "v_is_w0": _v(m.parametrizations.weight.original1) == w0,
            "y": _v(y),
            "grads": _grads(m),
        }
    lib.manual_seed(50)
    m = PZ.weight_norm(nn.Linear(3, 2))
    out["repr"] = repr(m)
    out["dim_attr"] = m.parametrizations.weight[0].dim
    # a state dict of the older weight_norm loads through the module's compatibility hook
    lib.manual_seed(51)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = nn.utils.weight_norm(nn.Linear(3, 2))
    with lib.no_grad():
        old.weight_g.mul_(1.5)
    sd = old.state_dict()
    result = m.load_state_dict(sd)
    out["load_old"] = {
        "keys": list(sd.keys()),
        "result": [list(result.missing_keys), list(result.unexpected_keys)],
        "original0": _v(m.parametrizations.weight.original0),
        "weight": _v(m.weight),
    }
    # training steps move g and v
    lib.manual_seed(52)
    m = PZ.weight_norm(nn.Linear(3, 2))
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        m(_t(lib, (5, 3), step)).pow(2).mean().backward()
        opt.step()
    out["trained"] = {"weight": _v(m.weight), "g": _v(m.parametrizations.weight.original0)}
    PZ_P, _ = _mods(lib)
    PZ_P.remove_parametrizations(m, "weight")
    out["removed"] = {"names": _names(m), "weight": _v(m.weight), "repr": repr(m)}
    return out


# ----- parametrizations.spectral_norm -----------------------------------------------------


def spectral_norms(lib):
    """``parametrizations.spectral_norm``: buffers at registration, after training forwards
    (updated) and evaluation forwards (not), values and gradients."""
    P, PZ = _mods(lib)
    nn = lib.nn
    out = {}
    cases = [
        ("linear", lambda: nn.Linear(5, 4), {}, (3, 5)),
        ("linear_wide", lambda: nn.Linear(3, 6), {"n_power_iterations": 2}, (3, 3)),
        ("conv", lambda: nn.Conv2d(2, 3, 2), {}, (1, 2, 3, 3)),
        ("conv_transpose", lambda: nn.ConvTranspose2d(3, 2, 2), {}, (1, 3, 2, 2)),
        ("conv_dim1", lambda: nn.Conv2d(2, 3, 2), {"dim": 1, "eps": 1e-6}, (1, 2, 3, 3)),
    ]
    for i, (name, make, kw, xshape) in enumerate(cases):
        lib.manual_seed(60 + i)
        m = make()
        w0 = _v(m.weight)
        PZ.spectral_norm(m, **kw)
        sn = m.parametrizations.weight[0]
        case = {
            "names": _names(m),
            "w0": w0,
            "dim": sn.dim,
            "u0": _v(sn._u),
            "v0": _v(sn._v),
        }
        ys = []
        for step in range(3):
            y = m(_t(lib, xshape, 0.3 * step))
            ys.append(_v(y))
        case["u_train"] = _v(sn._u)
        case["v_train"] = _v(sn._v)
        y = m(_t(lib, xshape, 2.0))
        (y * _t(lib, tuple(y.shape), 0.7)).sum().backward()
        case["grads"] = _grads(m)
        case["ys"] = ys
        m.eval()
        u_before = _v(sn._u)
        for step in range(2):
            m(_t(lib, xshape, step))
        case["eval_unchanged"] = _v(sn._u) == u_before
        case["weight_eval"] = _v(m.weight)
        with lib.no_grad():
            ratio = m.parametrizations.weight.original.reshape(-1) / m.weight.reshape(-1)
        case["sigma_estimate"] = float(ratio[0])
        out[name] = case
    lib.manual_seed(70)
    m = PZ.spectral_norm(nn.Linear(3, 2))
    out["repr"] = repr(m)
    # a vector is normalized exactly, without buffers
    lib.manual_seed(71)
    m = PZ.spectral_norm(nn.Linear(3, 4), name="bias")
    out["vector"] = {"names": _names(m), "bias": _v(m.bias)}
    # two forwards in one graph (a GAN discriminator's real and fake batches)
    lib.manual_seed(72)
    d = PZ.spectral_norm(nn.Linear(4, 1))
    loss = d(_t(lib, (2, 4), 0.1)).mean() - d(_t(lib, (2, 4), 1.2)).mean()
    loss.backward()
    out["two_forwards"] = {"loss": float(loss), "grads": _grads(d)}
    # training steps
    lib.manual_seed(73)
    m = PZ.spectral_norm(nn.Linear(4, 3))
    opt = lib.optim.SGD(m.parameters(), lr=0.5)
    for step in range(3):
        opt.zero_grad()
        m(_t(lib, (5, 4), step)).pow(2).mean().backward()
        opt.step()
    out["trained"] = {
        "weight": _v(m.weight),
        "u": _v(m.parametrizations.weight[0]._u),
        "original": _v(m.parametrizations.weight.original),
    }
    P.remove_parametrizations(m, "weight")
    out["removed"] = {"names": _names(m), "weight": _v(m.weight)}
    lib.manual_seed(74)
    m = nn.Linear(3, 3)
    PZ.spectral_norm(m)
    m.eval()
    P.remove_parametrizations(m, "weight", leave_parametrized=False)
    out["removed_unparametrized"] = {"names": _names(m), "weight": _v(m.weight)}
    out["errors"] = {
        "dim": _err(lambda: PZ.spectral_norm(nn.Linear(3, 3), dim=2)),
        "iterations": _err(lambda: PZ.spectral_norm(nn.Linear(3, 3), n_power_iterations=0)),
        "missing": _err(lambda: PZ.spectral_norm(nn.Linear(3, 3), name="kernel")),
    }
    return out


# ----- parametrizations.orthogonal --------------------------------------------------------


def _orth_error(lib, Q):
    n, k = Q.shape[-2], Q.shape[-1]
    if n < k:
        Q = Q.transpose(-1, -2)
        k = n
    return float((Q.transpose(-1, -2) @ Q - lib.eye(k, dtype=Q.dtype)).abs().max())


def orthogonals(lib):
    """``parametrizations.orthogonal`` with each map, square, tall and wide weights, with and
    without trivialization: values, orthogonality, gradients and a few training steps."""
    P, PZ = _mods(lib)
    nn = lib.nn
    out = {}
    shapes = {"square": (4, 4), "tall": (3, 5), "wide": (5, 3)}  # Linear(in, out)
    i = 0
    for orth_map in ("matrix_exp", "cayley", "householder"):
        for shape_name, (fan_in, fan_out) in shapes.items():
            for triv in (True, False):
                i += 1
                name = f"{orth_map}-{shape_name}-{'triv' if triv else 'plain'}"
                lib.manual_seed(80 + i)
                m = nn.Linear(fan_in, fan_out)
                w0 = _v(m.weight)
                res = _err(
                    lambda m=m, orth_map=orth_map, triv=triv: PZ.orthogonal(
                        m, orthogonal_map=orth_map, use_trivialization=triv
                    )
                )
                case = {"registered": res, "w0": w0}
                if res is None:
                    case["names"] = _names(m)
                    case["weight"] = _v(m.weight)
                    case["orth_error_small"] = _orth_error(lib, m.weight.detach()) < 1e-5
                    x = _t(lib, (2, fan_in), 0.2 * i)
                    y = m(x)
                    (y * _t(lib, (2, fan_out), 1.0)).sum().backward()
                    case["y"] = _v(y)
                    case["grads"] = _grads(m)
                    opt = lib.optim.SGD(m.parameters(), lr=0.2)
                    for step in range(3):
                        opt.zero_grad()
                        m(_t(lib, (4, fan_in), step)).pow(2).mean().backward()
                        opt.step()
                    case["trained"] = _v(m.weight)
                    case["trained_orth_error_small"] = _orth_error(lib, m.weight.detach()) < 1e-5
                out[name] = case
    lib.manual_seed(100)
    m = PZ.orthogonal(nn.Linear(3, 3))
    out["repr"] = repr(m)
    out["default_maps"] = []
    for fan_in, fan_out in ((3, 3), (3, 5)):
        lib.manual_seed(101)
        mm = PZ.orthogonal(nn.Linear(fan_in, fan_out))
        out["default_maps"].append(mm.parametrizations.weight[0].orthogonal_map.name)
    # an orthogonal weight is kept as it is
    lib.manual_seed(102)
    m = nn.Linear(3, 3)
    with lib.no_grad():
        m.weight.copy_(lib.eye(3)[[2, 0, 1]])
    PZ.orthogonal(m)
    out["kept_orthogonal"] = _v(m.weight)
    # assigning an orthogonal matrix (trivialization: it becomes the new base)
    lib.manual_seed(103)
    m = PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="cayley")
    target = lib.eye(3)[[1, 2, 0]] * -1.0
    m.weight = target
    out["assigned"] = {
        "weight": _v(m.weight),
        "original": _v(m.parametrizations.weight.original),
    }
    # a batch of matrices held in a buffer-free module
    lib.manual_seed(104)
    holder = nn.Module()
    holder.weight = nn.Parameter(lib.randn(2, 3, 3))
    PZ.orthogonal(holder)
    out["batched"] = {
        "weight": _v(holder.weight),
        "orth_error_small": max(_orth_error(lib, holder.weight[j].detach()) for j in range(2))
        < 1e-5,
    }

    def assign_plain(orth_map):
        lib.manual_seed(105)
        m = PZ.orthogonal(nn.Linear(3, 3), orthogonal_map=orth_map, use_trivialization=False)
        m.weight = lib.eye(3)

    out["errors"] = {
        "vector": _err(lambda: PZ.orthogonal(nn.Linear(3, 3), name="bias")),
        "bad_map": _err(lambda: PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")),
        "missing": _err(lambda: PZ.orthogonal(nn.Linear(3, 3), name="kernel")),
        "assign_matrix_exp_plain": _err(lambda: assign_plain("matrix_exp")),
        "assign_cayley_plain": _err(lambda: assign_plain("cayley")),
        "assign_wrong_shape": _err(lambda: setattr(m, "weight", lib.eye(2))),
    }
    P.remove_parametrizations(m, "weight")
    out["removed"] = {"names": _names(m), "weight": _v(m.weight)}
    return out


# ----- the older hook-based functions -----------------------------------------------------


def old_weight_norm(lib):
    """``nn.utils.weight_norm``/``remove_weight_norm``."""
    nn = lib.nn
    out = {}
    lib.manual_seed(110)
    m = nn.Linear(4, 3)
    w0 = _v(m.weight)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nn.utils.weight_norm(m)
    out["warnings"] = [[w.category.__name__, str(w.message)] for w in caught]
    out["before_forward"] = {
        "names": _names(m),
        "repr": repr(m),
        "weight_is_parameter": isinstance(m.weight, nn.Parameter),
        "weight": _v(m.weight),
        "g": _v(m.weight_g),
        "v_is_w0": _v(m.weight_v) == w0,
        "hooks": len(m._forward_pre_hooks),
    }
    y = m(_t(lib, (2, 4), 0.5))
    (y * y).sum().backward()
    out["forward"] = {"y": _v(y), "grads": _grads(m)}
    with lib.no_grad():
        m.weight_g.mul_(2.0)
    stale = _v(m.weight)
    m(_t(lib, (1, 4)))
    out["recomputed"] = {"stale": stale, "fresh": _v(m.weight)}
    nn.utils.remove_weight_norm(m)
    out["removed"] = {
        "names": _names(m),
        "weight": _v(m.weight),
        "hooks": len(m._forward_pre_hooks),
        "is_parameter": isinstance(m.weight, nn.Parameter),
    }
    for i, dim in enumerate((1, None)):
        lib.manual_seed(111 + i)
        c = nn.Conv1d(2, 3, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nn.utils.weight_norm(c, dim=dim)
        y = c(_t(lib, (1, 2, 4), 0.3))
        y.sum().backward()
        out[f"conv_dim_{dim}"] = {
            "g_shape": list(c.weight_g.shape),
            "g": _v(c.weight_g),
            "y": _v(y),
            "grads": _grads(c),
        }

    def twice():
        lib.manual_seed(113)
        m = nn.Linear(2, 2)
        nn.utils.weight_norm(m)
        nn.utils.weight_norm(m)

    lib.manual_seed(114)
    out["errors"] = {
        "twice": _err(twice),
        "remove_missing": _err(lambda: nn.utils.remove_weight_norm(nn.Linear(2, 2))),
    }
    return out


def old_spectral_norm(lib):
    """``nn.utils.spectral_norm``/``remove_spectral_norm``, with the state-dict hooks."""
    nn = lib.nn
    out = {}
    lib.manual_seed(120)
    m = nn.Linear(5, 3)
    w0 = _v(m.weight)
    weight_obj = m.weight
    nn.utils.spectral_norm(m)
    sd = m.state_dict()
    out["registered"] = {
        "names": _names(m),
        "repr": repr(m),
        "orig_is_weight": m.weight_orig is weight_obj,
        "weight_is_parameter": isinstance(m.weight, nn.Parameter),
        "weight_requires_grad": m.weight.requires_grad,
        "weight": _v(m.weight),
        "w0": w0,
        "u0": _v(m.weight_u),
        "v0": _v(m.weight_v),
        "metadata": {k: dict(v) for k, v in sd._metadata.items()},
    }
    ys = []
    for step in range(3):
        ys.append(_v(m(_t(lib, (2, 5), 0.2 * step))))
    y = m(_t(lib, (2, 5), 1.5))
    (y * y).sum().backward()
    out["training"] = {
        "ys": ys,
        "u": _v(m.weight_u),
        "v": _v(m.weight_v),
        "weight": _v(m.weight),
        "grads": _grads(m),
    }
    m.eval()
    u_before = _v(m.weight_u)
    m(_t(lib, (2, 5)))
    out["eval"] = {"unchanged": _v(m.weight_u) == u_before, "weight": _v(m.weight)}
    # a round trip through state_dict
    lib.manual_seed(121)
    m2 = nn.utils.spectral_norm(nn.Linear(5, 3))
    res = m2.load_state_dict(m.state_dict())
    out["round_trip"] = {
        "result": [list(res.missing_keys), list(res.unexpected_keys)],
        "u": _v(m2.weight_u),
    }
    # a version-0 state dict (the computed weight saved, no v): v is solved for
    lib.manual_seed(122)
    m3 = nn.utils.spectral_norm(nn.Linear(2, 4))
    m3(_t(lib, (1, 2)))
    old = dict(m3.state_dict())
    old["weight"] = m3.weight.detach().clone()
    del old["weight_v"]
    lib.manual_seed(123)
    m4 = nn.utils.spectral_norm(nn.Linear(2, 4))
    res = m4.load_state_dict(old)
    out["version0"] = {
        "result": [list(res.missing_keys), list(res.unexpected_keys)],
        "v": _v(m4.weight_v),
        "expected_v_direction": _v(m3.weight_v),
    }
    nn.utils.remove_spectral_norm(m)
    out["removed"] = {
        "names": _names(m),
        "weight": _v(m.weight),
        "hooks": [
            len(m._forward_pre_hooks),
            len(m._state_dict_hooks),
            len(m._load_state_dict_pre_hooks),
        ],
        # PyTorch leaves the load pre-hook registered: loading the module's own state dict
        # then fails
        "reload": _err(lambda: m.load_state_dict(m.state_dict())),
    }
    lib.manual_seed(124)
    ct = nn.ConvTranspose1d(3, 2, 2)
    nn.utils.spectral_norm(ct)
    out["conv_transpose"] = {"u": _v(ct.weight_u), "v": _v(ct.weight_v), "names": _names(ct)}

    def twice():
        lib.manual_seed(125)
        m = nn.Linear(2, 2)
        nn.utils.spectral_norm(m)
        nn.utils.spectral_norm(m)

    lib.manual_seed(126)
    out["errors"] = {
        "twice": _err(twice),
        "remove_missing": _err(lambda: nn.utils.remove_spectral_norm(nn.Linear(2, 2))),
        "iterations": _err(lambda: nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)),
    }
    return out


# ----- the functions weight_norm is made of, and the nodes --------------------------------


def functions(lib):
    """``torch.norm_except_dim`` and ``torch._weight_norm`` for each ``dim`` (values and the
    gradients of ``v`` and ``g``, in float64)."""
    out = {}
    for dim in (0, 1, 2, -1):
        v = _t(lib, (3, 2, 4), 0.3, dtype=lib.float64).requires_grad_(True)
        n = lib.norm_except_dim(v, 2, dim)
        (n * _t(lib, tuple(n.shape), 1.7, dtype=lib.float64)).sum().backward()
        case = {"shape": list(n.shape), "norm": _v(n), "grad": _v(v.grad)}
        v.grad = None
        g = (n.detach() * 1.5).requires_grad_(True)
        w = lib._weight_norm(v, g, dim)
        (w * _t(lib, (3, 2, 4), 0.9, dtype=lib.float64)).sum().backward()
        case["w"] = _v(w)
        case["grads"] = [_v(v.grad), _v(g.grad)]
        out[f"dim_{dim}"] = case
    return out


def nodes(lib):
    """The node of each parametrized weight, where ferrograd's is PyTorch's (the fused weight
    norm's ``WeightNormInterfaceBackward0`` and the linear-algebra nodes inside ``orthogonal``
    without a base are not: see the module docstrings)."""
    _, PZ = _mods(lib)
    nn = lib.nn

    def name(t):
        return None if t.grad_fn is None else type(t.grad_fn).__name__

    out = {}
    lib.manual_seed(130)
    out["spectral_norm"] = name(PZ.spectral_norm(nn.Linear(3, 4)).weight)
    out["weight_norm_dim1"] = name(PZ.weight_norm(nn.Conv2d(2, 3, 2), dim=1).weight)
    out["weight_norm_none"] = name(PZ.weight_norm(nn.Conv2d(2, 3, 2), dim=None).weight)
    for shape in ((3, 3), (3, 5), (5, 3)):
        for orth_map in ("matrix_exp", "cayley", "householder"):
            m = PZ.orthogonal(nn.Linear(*shape), orthogonal_map=orth_map)
            out[f"orthogonal_{orth_map}_{shape[0]}x{shape[1]}"] = name(m.weight)
    m = PZ.orthogonal(nn.Linear(3, 3), orthogonal_map="householder", use_trivialization=False)
    out["orthogonal_householder_plain"] = name(m.weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = nn.utils.spectral_norm(nn.Linear(3, 2))
        out["old_spectral_before_forward"] = name(m.weight)
        m(lib.ones(1, 3))
        out["old_spectral"] = name(m.weight)
        out["old_weight_norm_none"] = name(nn.utils.weight_norm(nn.Linear(3, 2), dim=None).weight)
    return out


# ----- the state-dict hooks the older functions rely on -----------------------------------


def module_hooks(lib):
    """``Module``'s state-dict hooks: pre- and post-hooks of ``state_dict`` (a returned dict
    replaces the result only through the private registration), load pre- and post-hooks
    (which may rewrite the state dict and the key lists), their order and refusals."""
    nn = lib.nn
    out = {}
    calls = []
    lib.manual_seed(140)
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    model.register_state_dict_pre_hook(lambda m, prefix, keep: calls.append(["pre", prefix]))
    model[0].register_state_dict_pre_hook(lambda m, prefix, keep: calls.append(["pre0", prefix]))

    def post(m, sd, prefix, meta):
        calls.append(["post", prefix, sorted(meta)])
        sd[prefix + "extra"] = lib.ones(1)

    model[1].register_state_dict_post_hook(post)
    sd = model.state_dict()
    out["state_dict"] = {"calls": calls, "keys": list(sd.keys())}
    model[1]._register_state_dict_hook(lambda m, sd, prefix, meta: {"replaced": lib.zeros(1)})
    out["private_child_result_ignored"] = list(model.state_dict().keys())
    root = nn.Linear(2, 2)
    root._register_state_dict_hook(lambda m, sd, prefix, meta: {"replaced": lib.zeros(1)})
    out["private_root_result"] = list(root.state_dict().keys())
    bad = nn.Linear(2, 2)
    bad.register_state_dict_post_hook(lambda m, sd, prefix, meta: {})
    out["public_returning"] = _err(lambda: bad.state_dict())

    def twice(m, sd, prefix, meta):
        return None

    def register_twice():
        m = nn.Linear(2, 2)
        m.register_state_dict_post_hook(twice)
        m._register_state_dict_hook(twice)

    out["private_after_public"] = _err(register_twice)

    # loading
    calls = []
    lib.manual_seed(141)
    target = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))

    def rename(m, sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(["pre", prefix, type(m).__name__, strict])
        if prefix + "w" in sd:
            sd[prefix + "weight"] = sd.pop(prefix + "w")

    def private_pre(sd, prefix, meta, strict, missing, unexpected, errors):
        calls.append(["private_pre", prefix])

    def post_hook(m, keys):
        calls.append(["post", type(m).__name__, list(keys.missing_keys)])
        keys.missing_keys.clear()

    target[0].register_load_state_dict_pre_hook(rename)
    target[1]._register_load_state_dict_pre_hook(private_pre)
    target[1].register_load_state_dict_post_hook(post_hook)
    source = dict(model.state_dict())
    source.pop("1.extra")
    source.pop("1.bias")
    source["0.w"] = source.pop("0.weight")
    result = target.load_state_dict(source)
    out["load"] = {
        "calls": calls,
        "result": [list(result.missing_keys), list(result.unexpected_keys)],
        "weight": _v(target[0].weight),
    }
    bad = nn.Linear(2, 2)
    bad.register_load_state_dict_post_hook(lambda m, keys: 1)
    out["load_post_returning"] = _err(lambda: bad.load_state_dict(nn.Linear(2, 2).state_dict()))
    return out


GROUPS = {
    "registration": registration,
    "caching_and_modes": caching_and_modes,
    "removal": removal,
    "errors": errors,
    "weight_norms": weight_norms,
    "spectral_norms": spectral_norms,
    "orthogonals": orthogonals,
    "old_weight_norm": old_weight_norm,
    "old_spectral_norm": old_spectral_norm,
    "functions": functions,
    "nodes": nodes,
    "module_hooks": module_hooks,
}


def answers(lib):
    """Every group of answers (what the golden file holds)."""
    return {name: fn(lib) for name, fn in GROUPS.items()}
