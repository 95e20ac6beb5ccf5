"""``nn`` modules checked against PyTorch (``tools/record_torch_cases.py`` records them,
``test_nn_golden.py`` replays them): reprs, ``state_dict`` keys and values after
``manual_seed``, traversals, ``load_state_dict`` results and errors, attribute rules and their
errors, forward and full backward hooks, containers, layer initialisations, layer functions
(values and gradients), activation and loss modules, ``nn.utils`` and ``nn.init``. Runs
unchanged with ``torch`` or ``ferrograd`` as ``lib``.

Each ``answers`` entry is JSON: lists of numbers (compared with float tolerance), strings and
exceptions as ``[class name, message]`` (compared exactly)."""

import copy
import math
import pickle
import warnings
from collections import OrderedDict

GOLDEN = "nn_modules.json"  # in tests/golden, written by tools/record_torch_cases.py


def _vals(n, phase=0.0, scale=1.0):
    return [scale * math.sin(1.3 * i + phase) for i in range(n)]


def _t(lib, shape, phase=0.0, scale=1.0, dtype=None, requires_grad=False):
    n = 1
    for s in shape:
        n *= s
    t = lib.tensor(_vals(n, phase, scale), dtype=dtype or lib.float32).reshape(*shape)
    return t.requires_grad_(requires_grad)


def _flat(t):
    if t is None:
        return None
    return t.detach().reshape(-1).tolist()


def _err(fn):
    """``[exception class name, message]`` of calling ``fn`` (None when it does not raise)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:
        return [type(e).__name__, str(e)]
    return None


def _shape(t):
    return None if t is None else list(t.shape)


# ----- reprs ----------------------------------------------------------------------------------


def big_model(lib):
    """A nested model holding every layer, activation and loss class, with non-default args."""
    nn = lib.nn
    return nn.Sequential(
        OrderedDict(
            [
                ("fc", nn.Linear(4, 6)),
                ("fc_nobias", nn.Linear(6, 6, bias=False)),
                ("bil", nn.Bilinear(3, 2, 5, bias=False)),
                ("id", nn.Identity(7, unused=True)),
                ("flat", nn.Flatten()),
                ("flat2", nn.Flatten(0, 2)),
                ("unflat", nn.Unflatten(1, (2, 3))),
                ("emb", nn.Embedding(10, 3)),
                (
                    "emb2",
                    nn.Embedding(
                        8,
                        2,
                        padding_idx=-1,
                        max_norm=1.5,
                        norm_type=1.0,
                        scale_grad_by_freq=True,
                        sparse=True,
                    ),
                ),
                ("drop", nn.Dropout()),
                ("drop2", nn.Dropout(0.25, inplace=True)),
                ("drop1d", nn.Dropout1d(0.1)),
                ("drop2d", nn.Dropout2d(p=0.3, inplace=True)),
                (
                    "acts",
                    nn.Sequential(
                        nn.ReLU(),
                        nn.ReLU(inplace=True),
                        nn.ReLU6(),
                        nn.ReLU6(True),
                        nn.LeakyReLU(),
                        nn.LeakyReLU(0.2, inplace=True),
                        nn.ELU(),
                        nn.ELU(alpha=0.5, inplace=True),
                        nn.SELU(),
                        nn.SELU(inplace=True),
                        nn.CELU(alpha=2.0),
                        nn.GELU(),
                        nn.GELU(approximate="tanh"),
                        nn.SiLU(),
                        nn.SiLU(inplace=True),
                        nn.Mish(),
                        nn.Softplus(),
                        nn.Softplus(beta=2, threshold=10),
                        nn.Softsign(),
                        nn.Hardtanh(),
                        nn.Hardtanh(-2.0, 3.0, inplace=True),
                        nn.Hardsigmoid(),
                        nn.Hardswish(inplace=True),
                        nn.Sigmoid(),
                        nn.LogSigmoid(),
                        nn.Tanh(),
                        nn.Softmax(),
                        nn.Softmax(dim=1),
                        nn.LogSoftmax(dim=-1),
                    ),
                ),
                (
                    "losses",
                    nn.ModuleList(
                        [
                            nn.MSELoss(),
                            nn.L1Loss(reduction="sum"),
                            nn.SmoothL1Loss(beta=0.5),
                            nn.HuberLoss(delta=2.0),
                            nn.CrossEntropyLoss(label_smoothing=0.1),
                            nn.NLLLoss(ignore_index=2),
                            nn.BCELoss(),
                            nn.BCEWithLogitsLoss(),
                            nn.KLDivLoss(reduction="batchmean", log_target=True),
                            nn.CosineEmbeddingLoss(margin=0.5),
                            nn.MarginRankingLoss(margin=0.1),
                            nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True),
                        ]
                    ),
                ),
            ]
        )
    )


def reprs(lib):
    """Model and container reprs."""
    nn = lib.nn
    out = {"big": repr(big_model(lib))}
    out["module_list_runs"] = repr(
        nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Tanh()])
    )
    out["module_list_empty"] = repr(nn.ModuleList())
    out["module_list_nested"] = repr(
        nn.ModuleList([nn.Sequential(nn.Linear(1, 1), nn.ReLU()), nn.Sequential()])
    )
    out["module_dict"] = repr(nn.ModuleDict({"b": nn.ReLU(), "a": nn.Linear(1, 2)}))
    out["parameter_list"] = repr(
        nn.ParameterList([nn.Parameter(lib.zeros(2, 3)), lib.ones(4), "text"])
    )
    out["parameter_dict"] = repr(
        nn.ParameterDict({"w": nn.Parameter(lib.zeros(2, 3)), "b": lib.ones(4, dtype=lib.float64)})
    )
    out["empty_module"] = repr(nn.Module())
    out["sequential_empty"] = repr(nn.Sequential())
    out["hardtanh_default"] = repr(nn.Hardtanh())
    return out


# ----- state dicts, traversal, loading --------------------------------------------------------


def _with_buffers(lib):
    nn = lib.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    model[0].register_buffer("running", _t(lib, (4,), 0.4))
    model[0].register_buffer("scratch", lib.zeros(2), persistent=False)
    model[2].register_buffer("empty", None)
    model.add_module("loss", nn.CrossEntropyLoss(weight=_t(lib, (2,), 1.0).abs()))
    return model


def state_dicts(lib):
    """state_dict keys, shapes and values after manual_seed; traversal names (shared too)."""
    nn = lib.nn
    lib.manual_seed(0)
    model = _with_buffers(lib)
    sd = model.state_dict()
    out = {
        "keys": list(sd.keys()),
        "shapes": [list(v.shape) for v in sd.values()],
        "values": [_flat(v) for v in sd.values()],
        "requires_grad": [v.requires_grad for v in sd.values()],
        "is_ordered": type(sd).__name__,
        "metadata": {k: dict(v) for k, v in sd._metadata.items()},
        "keep_vars_requires_grad": [
            v.requires_grad for v in model.state_dict(keep_vars=True).values()
        ],
        "prefixed": list(model.state_dict(prefix="net.").keys()),
        "named_parameters": [n for n, _ in model.named_parameters()],
        "named_parameters_prefix": [n for n, _ in model.named_parameters(prefix="m")],
        "named_parameters_norecurse": [n for n, _ in model[0].named_parameters(recurse=False)],
        "named_buffers": [n for n, _ in model.named_buffers()],
        "named_modules": [n for n, _ in model.named_modules()],
        "named_children": [n for n, _ in model.named_children()],
        "module_types": [type(m).__name__ for m in model.modules()],
        "children_types": [type(m).__name__ for m in model.children()],
        "n_parameters": len(list(model.parameters())),
        "n_buffers": len(list(model.buffers())),
    }
    shared = nn.Linear(2, 2)
    tied = nn.Sequential(shared, nn.ReLU(), shared)
    tied.extra = nn.Linear(2, 2)
    tied.extra.weight = shared.weight
    out["shared_named_modules"] = [n for n, _ in tied.named_modules()]
    out["shared_named_modules_dup"] = [n for n, _ in tied.named_modules(remove_duplicate=False)]
    out["shared_named_parameters"] = [n for n, _ in tied.named_parameters()]
    out["shared_named_parameters_dup"] = [
        n for n, _ in tied.named_parameters(remove_duplicate=False)
    ]
    out["shared_state_dict"] = list(tied.state_dict().keys())
    out["shared_children"] = [n for n, _ in tied.named_children()]
    return out


def loading(lib):
    """load_state_dict: results, values, strict errors, assign, 1-element into 0-d."""
    nn = lib.nn
    lib.manual_seed(1)
    src = _with_buffers(lib)
    lib.manual_seed(2)
    dst = _with_buffers(lib)
    before = dst[0].weight
    result = dst.load_state_dict(src.state_dict())
    out = {
        "ok_repr": repr(result),
        "ok_fields": [list(result.missing_keys), list(result.unexpected_keys)],
        "values_after": [_flat(v) for v in dst.state_dict().values()],
        "same_parameter_object": dst[0].weight is before,
        "requires_grad_after": dst[0].weight.requires_grad,
    }
    partial = OrderedDict(src.state_dict())
    del partial["0.bias"]
    partial["2.extra"] = lib.zeros(1)
    partial["9.weight"] = lib.zeros(1)
    partial["1.weight"] = lib.zeros(1)
    out["missing_unexpected_error"] = _err(lambda: dst.load_state_dict(partial))
    nonstrict = dst.load_state_dict(partial, strict=False)
    out["nonstrict_repr"] = repr(nonstrict)
    out["nonstrict_fields"] = [list(nonstrict.missing_keys), list(nonstrict.unexpected_keys)]
    bad = OrderedDict(src.state_dict())
    bad["0.weight"] = lib.zeros(3, 4)
    bad["2.bias"] = lib.zeros(5)
    out["size_mismatch_error"] = _err(lambda: dst.load_state_dict(bad))
    out["not_tensor_error"] = _err(lambda: dst.load_state_dict({**src.state_dict(), "0.bias": 3}))
    out["not_mapping_error"] = _err(lambda: dst.load_state_dict([1, 2]))
    lib.manual_seed(3)
    lin = nn.Linear(2, 3)
    fresh = {"weight": _t(lib, (3, 2), 0.7), "bias": _t(lib, (3,), 0.2)}
    res = lin.load_state_dict(fresh, assign=True)
    out["assign_repr"] = repr(res)
    out["assign_type"] = type(lin.weight).__name__
    out["assign_requires_grad"] = lin.weight.requires_grad
    out["assign_values"] = _flat(lin.weight) + _flat(lin.bias)
    scalar = nn.Module()
    scalar.register_buffer("count", lib.tensor(0.0))
    scalar.load_state_dict({"count": lib.tensor([5.0])})
    out["one_elem_into_scalar"] = [scalar.count.tolist(), list(scalar.count.shape)]
    return out


# ----- attribute rules ------------------------------------------------------------------------


def attributes(lib):
    """Registration and attribute rules, with PyTorch's errors."""
    nn = lib.nn
    out = {}
    lin = nn.Linear(2, 2)

    def assign_tensor_to_param():
        lin.weight = lib.zeros(2, 2)

    out["tensor_as_parameter"] = _err(assign_tensor_to_param)

    def assign_int_to_param():
        lin.bias = 3

    out["int_as_parameter"] = _err(assign_int_to_param)

    class Early(nn.Module):
        def __init__(self, what):
            if what == "param":
                self.w = nn.Parameter(lib.zeros(1))
            elif what == "module":
                self.m = nn.ReLU()
            elif what == "buffer":
                self.register_buffer("b", lib.zeros(1))
            else:
                self.register_parameter("p", None)
            super().__init__()

    for what in ("param", "module", "buffer", "register_param"):
        out[f"before_init_{what}"] = _err(lambda what=what: Early(what))

    seq = nn.Sequential(nn.ReLU())

    def assign_tensor_to_module():
        seq[0] = lib.zeros(1)

    out["tensor_as_module"] = _err(assign_tensor_to_module)

    def setattr_tensor_to_module():
        seq._modules["0"] = nn.ReLU()
        seq.__setattr__("0", lib.zeros(1))

    out["setattr_tensor_as_module"] = _err(setattr_tensor_to_module)
    m = nn.Module()
    m.register_buffer("buf", lib.zeros(2))

    def assign_int_to_buffer():
        m.buf = 5

    out["int_as_buffer"] = _err(assign_int_to_buffer)
    m.buf = lib.ones(3)
    out["buffer_reassigned"] = [list(m.buf.shape), "buf" in dict(m.named_buffers())]
    m.plain = 7
    out["register_buffer_existing_attr"] = _err(lambda: m.register_buffer("plain", lib.zeros(1)))
    out["register_buffer_dot"] = _err(lambda: m.register_buffer("a.b", lib.zeros(1)))
    out["register_buffer_empty"] = _err(lambda: m.register_buffer("", lib.zeros(1)))
    out["register_buffer_name_type"] = _err(lambda: m.register_buffer(3, lib.zeros(1)))
    out["register_buffer_not_tensor"] = _err(lambda: m.register_buffer("x", [1.0]))
    out["register_parameter_dot"] = _err(lambda: m.register_parameter("a.b", None))
    out["register_parameter_empty"] = _err(lambda: m.register_parameter("", None))
    out["register_parameter_existing"] = _err(
        lambda: m.register_parameter("plain", nn.Parameter(lib.zeros(1)))
    )
    out["register_parameter_not_param"] = _err(lambda: m.register_parameter("q", lib.zeros(1)))
    nonleaf = nn.Parameter(lib.ones(2)) * 2
    out["register_parameter_nonleaf"] = _err(
        lambda: m.register_parameter("r", nonleaf)  # a plain tensor: the type error
    )
    out["register_parameter_name_type"] = _err(lambda: m.register_parameter(1.5, None))
    out["add_module_not_module"] = _err(lambda: m.add_module("c", 3))
    out["add_module_name_type"] = _err(lambda: m.add_module(4, nn.ReLU()))
    out["add_module_dot"] = _err(lambda: m.add_module("a.b", nn.ReLU()))
    out["add_module_empty"] = _err(lambda: m.add_module("", nn.ReLU()))
    out["add_module_existing"] = _err(lambda: m.add_module("plain", nn.ReLU()))
    out["getattr_missing"] = _err(lambda: lin.nothing)
    out["forward_missing"] = _err(lambda: nn.Module()(lib.zeros(1)))
    model = nn.Sequential(
        OrderedDict([("enc", nn.Sequential(nn.Linear(2, 3))), ("act", nn.ReLU())])
    )
    model.enc.register_buffer("stat", lib.ones(1))
    out["get_submodule"] = repr(model.get_submodule("enc.0"))
    out["get_submodule_self"] = model.get_submodule("") is model
    out["get_submodule_missing"] = _err(lambda: model.get_submodule("enc.5"))
    out["get_submodule_not_module"] = _err(lambda: model.get_submodule("enc.0.weight"))
    out["get_parameter"] = list(model.get_parameter("enc.0.bias").shape)
    out["get_parameter_missing"] = _err(lambda: model.get_parameter("enc.0.gamma"))
    out["get_parameter_not_param"] = _err(lambda: model.get_parameter("enc.stat"))
    out["get_buffer"] = model.get_buffer("enc.stat").tolist()
    out["get_buffer_not_buffer"] = _err(lambda: model.get_buffer("enc.0.weight"))
    # moving a name between kinds, deleting
    holder = nn.Module()
    holder.x = nn.Parameter(lib.zeros(1))
    holder.x = None
    out["param_set_none"] = [list(holder._parameters), holder.x is None]
    holder.y = nn.ReLU()
    holder.y = nn.Parameter(lib.ones(1))
    out["module_replaced_by_param"] = [list(holder._modules), list(holder._parameters)]
    del holder.y
    out["deleted"] = [list(holder._parameters), hasattr(holder, "y")]
    out["delattr_missing"] = _err(lambda: delattr(holder, "zzz"))
    names = dir(model)
    out["dir"] = [n in names for n in ("enc", "act", "forward", "training", "0", "stat")]
    out["dir_enc"] = [n in dir(model.enc) for n in ("stat", "0", "append")]
    out["train_not_bool"] = _err(lambda: model.train("yes"))
    out["init_kwargs"] = _err(lambda: nn.Module(foo=1))
    out["init_args"] = _err(lambda: nn.Module(1, 2))
    return out


# ----- hooks ----------------------------------------------------------------------------------


def hooks(lib):
    """Forward pre-hooks and hooks: order, replacement, kwargs, removal, always_call."""
    nn = lib.nn
    out = {}
    log = []
    lib.manual_seed(4)
    lin = nn.Linear(3, 2)

    def pre_a(mod, args):
        log.append(["pre_a", type(mod).__name__, len(args), _shape(args[0])])

    def pre_b(mod, args):
        log.append(["pre_b"])
        return args[0] * 2  # not a tuple: wrapped into one

    def pre_first(mod, args):
        log.append(["pre_first"])

    def fwd_a(mod, args, output):
        log.append(["fwd_a", _flat(args[0]), _flat(output)])

    def fwd_b(mod, args, output):
        log.append(["fwd_b"])
        return output + 1

    h1 = lin.register_forward_pre_hook(pre_a)
    lin.register_forward_pre_hook(pre_b)
    lin.register_forward_pre_hook(pre_first, prepend=True)
    lin.register_forward_hook(fwd_a)
    h4 = lin.register_forward_hook(fwd_b)
    x = _t(lib, (2, 3), 0.3)
    y = lin(x)
    out["forward_log"] = log[:]
    out["forward_out"] = _flat(y)
    h1.remove()
    h4.remove()
    h4.remove()
    log.clear()
    y2 = lin(x)
    out["after_remove_log"] = [e[0] for e in log]
    out["after_remove_out"] = _flat(y2)
    out["handle_ids_increase"] = h4.id > h1.id

    class Scale(nn.Module):
        def forward(self, x, factor=1.0):
            return x * factor

    scale = Scale()
    kwlog = []

    def pre_kw(mod, args, kwargs):
        kwlog.append(["pre_kw", sorted(kwargs)])
        return args, {"factor": kwargs.get("factor", 1.0) * 10}

    def fwd_kw(mod, args, kwargs, output):
        kwlog.append(["fwd_kw", sorted(kwargs), _flat(output)])

    scale.register_forward_pre_hook(pre_kw, with_kwargs=True)
    scale.register_forward_hook(fwd_kw, with_kwargs=True)
    out["kwargs_out"] = _flat(scale(lib.ones(2), factor=0.5))
    out["kwargs_log"] = kwlog

    def bad_pre(mod, args, kwargs):
        return 5

    bad = Scale()
    bad.register_forward_pre_hook(bad_pre, with_kwargs=True)
    out["bad_pre_kwargs"] = _err(lambda: bad(lib.ones(1)))

    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    boom = Boom()
    always = []
    boom.register_forward_hook(lambda m, a, o: always.append(["always", o]), always_call=True)
    boom.register_forward_hook(lambda m, a, o: always.append(["normal"]))
    out["always_call_error"] = _err(lambda: boom(lib.ones(1)))
    out["always_call_log"] = always

    with lin.register_forward_hook(lambda m, a, o: o * 0):
        out["context_handle"] = _flat(lin(x))
    out["context_removed"] = _flat(lin(x))
    return out


def backward_hooks(lib):
    """Full backward hooks and pre-hooks: order and the gradients they see."""
    nn = lib.nn
    out = {}
    lib.manual_seed(5)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    log = []

    def record(name):
        def hook(mod, grad_input, grad_output):
            log.append(
                [
                    "bw",
                    name,
                    [_shape(g) for g in grad_input],
                    [_flat(g) for g in grad_input],
                    [_shape(g) for g in grad_output],
                    [_flat(g) for g in grad_output],
                ]
            )

        return hook

    def record_pre(name):
        def hook(mod, grad_output):
            log.append(["bwpre", name, [_flat(g) for g in grad_output]])

        return hook

    model.register_full_backward_hook(record("seq"))
    model.register_full_backward_pre_hook(record_pre("seq"))
    for i, layer in enumerate(model):
        layer.register_full_backward_hook(record(str(i)))
        layer.register_full_backward_pre_hook(record_pre(str(i)))
    x = _t(lib, (2, 3), 0.9, requires_grad=True)
    y = model(x)
    out["output_grad_fn"] = y.grad_fn.name()
    (y * _t(lib, (2, 2), 0.1)).sum().backward()
    out["log"] = log[:]
    out["x_grad"] = _flat(x.grad)
    out["weight_grads"] = [_flat(p.grad) for p in model.parameters()]

    # inputs without grad: the hook fires from the output side with grad_input (None,)
    log.clear()
    model.zero_grad()
    x2 = _t(lib, (2, 3), 0.2)
    model(x2).sum().backward()
    out["no_input_grad_log"] = [[e[0], e[1], e[2] if e[0] == "bw" else None] for e in log]

    # a pre-hook replacing grad_output, a hook replacing grad_input
    lib.manual_seed(6)
    lin = nn.Linear(2, 2)
    lin.register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,))
    x3 = _t(lib, (1, 2), 0.5, requires_grad=True)
    lin(x3).sum().backward()
    out["replaced_x_grad"] = _flat(x3.grad)
    out["replaced_weight_grad"] = _flat(lin.weight.grad)

    # two inputs, one without grad: grad_input holds None in its place
    lib.manual_seed(7)
    bil = nn.Bilinear(2, 3, 2)
    seen = []
    bil.register_full_backward_hook(
        lambda m, gi, go: seen.append([[_flat(g) for g in gi], [_flat(g) for g in go]])
    )
    u = _t(lib, (2, 2), 0.3, requires_grad=True)
    v = _t(lib, (2, 3), 0.8)
    (bil(u, v) * _t(lib, (2, 2), 0.6)).sum().backward()
    out["two_inputs"] = [seen, _flat(u.grad)]

    wrong = nn.Linear(2, 2)
    wrong.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    x4 = _t(lib, (1, 2), 0.5, requires_grad=True)
    out["wrong_count"] = _err(lambda: wrong(x4).sum().backward())
    return out


# ----- containers -----------------------------------------------------------------------------


def containers(lib):
    """Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict behaviours."""
    nn = lib.nn
    out = {}
    lib.manual_seed(7)
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1), nn.Sigmoid())
    out["len"] = len(seq)
    out["index"] = [repr(seq[0]), repr(seq[-1]), repr(seq[-4])]
    out["index_error"] = _err(lambda: seq[4])
    out["index_error_neg"] = _err(lambda: seq[-5])
    out["slice"] = repr(seq[1:3])
    out["slice_step"] = repr(seq[::2])
    out["slice_type"] = type(seq[1:]).__name__
    out["slice_shares"] = seq[:1][0] is seq[0]
    out["iter"] = [type(m).__name__ for m in seq]
    x = _t(lib, (2, 2), 0.1)
    out["forward"] = _flat(seq(x))
    seq2 = nn.Sequential(OrderedDict([("a", nn.Tanh()), ("b", nn.Linear(2, 2))]))
    out["ordered_repr"] = repr(seq2)
    out["ordered_index"] = repr(seq2[1])
    out["ordered_slice"] = repr(seq2[1:])
    seq3 = nn.Sequential(nn.ReLU(), nn.Tanh())
    seq3.append(nn.Sigmoid())
    seq3.insert(1, nn.Identity())
    seq3.insert(-1, nn.Softsign())
    seq3.extend(nn.Sequential(nn.ELU(), nn.SELU()))
    out["mutated"] = repr(seq3)
    out["pop"] = repr(seq3.pop(2))
    out["after_pop"] = repr(seq3)
    del seq3[0]
    out["after_del"] = [n for n, _ in seq3.named_children()]
    del seq3[1:3]
    out["after_del_slice"] = repr(seq3)
    seq3[0] = nn.GELU()
    seq3[-1] = nn.Mish()
    out["after_setitem"] = repr(seq3)
    out["insert_error"] = _err(lambda: seq3.insert(10, nn.ReLU()))
    out["insert_not_module"] = _err(lambda: seq3.insert(0, 3))
    added = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh(), nn.Sigmoid())
    out["add"] = repr(added)
    out["add_error"] = _err(lambda: nn.Sequential() + nn.ModuleList())
    inplace = nn.Sequential(nn.ReLU())
    inplace += nn.Sequential(nn.Tanh())
    out["iadd"] = repr(inplace)
    out["mul"] = repr(nn.Sequential(nn.ReLU(), nn.Tanh()) * 2)
    out["mul_error"] = _err(lambda: nn.Sequential(nn.ReLU()) * 0)

    ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    ml.append(nn.Sigmoid())
    ml.extend([nn.ELU(), nn.SELU()])
    ml.insert(1, nn.Identity())
    ml += [nn.GELU()]
    out["ml"] = repr(ml)
    out["ml_len"] = len(ml)
    out["ml_index"] = [repr(ml[0]), repr(ml[-1])]
    out["ml_slice"] = repr(ml[1:3])
    out["ml_pop"] = repr(ml.pop(-2))
    del ml[0]
    ml[0] = nn.Softsign()
    out["ml_after"] = repr(ml)
    out["ml_index_error"] = _err(lambda: ml[10])
    out["ml_add"] = repr(nn.ModuleList([nn.ReLU()]) + nn.ModuleList([nn.Tanh()]))
    out["ml_extend_error"] = _err(lambda: ml.extend(5))
    out["ml_forward"] = _err(lambda: ml(lib.zeros(1)))

    md = nn.ModuleDict({"z": nn.ReLU(), "a": nn.Tanh()})
    md["m"] = nn.Linear(1, 1)
    md.update([("q", nn.Sigmoid())])
    md.update(OrderedDict([("z", nn.ELU())]))
    out["md_keys"] = list(md.keys())
    out["md_values"] = [type(v).__name__ for v in md.values()]
    out["md_items"] = [k for k, _ in md.items()]
    out["md_contains"] = ["a" in md, "nope" in md]
    out["md_pop"] = repr(md.pop("a"))
    del md["q"]
    out["md_after"] = repr(md)
    out["md_len"] = len(md)
    out["md_iter"] = list(md)
    out["md_update_error"] = _err(lambda: md.update([("a", nn.ReLU(), 3)]))
    md.clear()
    out["md_cleared"] = len(md)

    pl = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(3)])
    pl.append(lib.ones(1, 2))
    pl.extend([nn.Parameter(lib.zeros(2, 2))])
    out["pl_types"] = [type(p).__name__ for p in pl]
    out["pl_requires_grad"] = [p.requires_grad for p in pl]
    out["pl_names"] = [n for n, _ in pl.named_parameters()]
    out["pl_len"] = len(pl)
    out["pl_slice"] = repr(pl[1:3])
    out["pl_index"] = list(pl[-1].shape)
    out["pl_extend_error"] = _err(lambda: pl.extend(lib.ones(2)))
    out["pl_call"] = _err(lambda: pl(1))

    pd = nn.ParameterDict({"b": lib.ones(1), "a": nn.Parameter(lib.zeros(2))})
    pd["c"] = lib.ones(3)
    pd.update([("d", lib.zeros(1))])
    out["pd_keys"] = list(pd.keys())
    out["pd_names"] = [n for n, _ in pd.named_parameters()]
    out["pd_types"] = [type(v).__name__ for v in pd.values()]
    out["pd_get"] = [pd.get("zz", "default"), list(pd.get("a").shape)]
    out["pd_pop"] = list(pd.pop("b").shape)
    out["pd_popitem"] = pd.popitem()[0]
    out["pd_setdefault"] = list(pd.setdefault("e", lib.ones(4)).shape)
    out["pd_contains"] = ["a" in pd, "b" in pd]
    out["pd_len"] = len(pd)
    out["pd_reversed"] = list(reversed(pd))
    out["pd_or"] = list((pd | nn.ParameterDict({"f": lib.ones(1)})).keys())
    out["pd_key_error"] = _err(lambda: pd[3])
    out["pd_call"] = _err(lambda: pd(1))
    out["pd_repr"] = repr(pd)
    return out


# ----- modes, conversions, copies -------------------------------------------------------------


def modes(lib):
    """train/eval, requires_grad_, apply, zero_grad, dtype conversions."""
    nn = lib.nn
    out = {}
    lib.manual_seed(8)
    model = nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5), nn.Sequential(nn.ReLU()))
    out["default"] = [m.training for m in model.modules()]
    ret = model.eval()
    out["eval"] = [m.training for m in model.modules()] + [ret is model]
    model.train()
    out["train"] = [m.training for m in model.modules()]
    model[2].train(False)
    out["partial"] = [m.training for m in model.modules()]
    model.requires_grad_(False)
    out["requires_grad_off"] = [p.requires_grad for p in model.parameters()]
    model.requires_grad_()
    order = []
    model.apply(lambda m: order.append(type(m).__name__))
    out["apply_order"] = order
    x = _t(lib, (3, 2), 0.6)
    model(x).sum().backward()
    out["grads_set"] = [p.grad is not None for p in model.parameters()]
    model.zero_grad(set_to_none=False)
    out["zero_grad_zeros"] = [_flat(p.grad) for p in model.parameters()]
    model.zero_grad()
    out["zero_grad_none"] = [p.grad is None for p in model.parameters()]
    out["dropout_eval"] = _flat(model.eval()(x))

    lin = nn.Linear(2, 3)
    lin.register_buffer("stat", lib.ones(2))
    lin.register_buffer("count", lib.zeros(1, dtype=lib.int64))
    w_before = _flat(lin.weight)
    param_before = lin.weight
    ret = lin.double()
    out["double_keeps_parameter_object"] = lin.weight is param_before
    out["double"] = [str(lin.weight.dtype), str(lin.stat.dtype), str(lin.count.dtype), ret is lin]
    out["double_values"] = _flat(lin.weight) == w_before
    out["double_type"] = type(lin.weight).__name__
    lin.float()
    out["float"] = [str(lin.weight.dtype), str(lin.stat.dtype)]
    lin.to(lib.float64)
    out["to_dtype"] = str(lin.bias.dtype)
    lin.to("cpu", lib.float32)
    out["to_device_dtype"] = str(lin.bias.dtype)
    lin.to(dtype=lib.float64)
    out["to_kw"] = str(lin.bias.dtype)
    lin.to(lib.zeros(1))
    out["to_tensor"] = str(lin.bias.dtype)
    lin.to("cpu")
    lin.cpu()
    out["to_cpu"] = str(lin.bias.dtype)
    out["to_int_error"] = _err(lambda: lin.to(lib.int64))
    lin.type(lib.float64)
    out["type"] = str(lin.weight.dtype)
    return out


def copies(lib):
    """deepcopy and pickle of a model."""
    nn = lib.nn
    out = {}
    lib.manual_seed(9)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    model[0].register_buffer("stat", _t(lib, (3,), 0.1))
    holder = nn.ModuleDict({"net": model, "first": model[0]})
    held = copy.deepcopy(holder)
    clone = held["net"]
    out["deepcopy_repr"] = repr(clone) == repr(model)
    out["deepcopy_values"] = [_flat(v) for v in clone.state_dict().values()]
    out["deepcopy_independent"] = clone[0].weight is not model[0].weight
    out["deepcopy_tied"] = held["first"] is clone[0]
    out["deepcopy_param_type"] = type(clone[0].weight).__name__
    x = _t(lib, (2, 2), 0.4)
    out["deepcopy_forward"] = _flat(clone(x))
    restored = pickle.loads(pickle.dumps(model))
    out["pickle_keys"] = list(restored.state_dict().keys())
    out["pickle_values"] = [_flat(v) for v in restored.state_dict().values()]
    out["pickle_forward"] = _flat(restored(x))
    out["pickle_training"] = restored.training
    return out


# ----- layers ---------------------------------------------------------------------------------


def _grads(lib, out, inputs, phase=0.2):
    """Gradients of ``sum(out * w)`` for fixed weights ``w`` with respect to ``inputs``."""
    w = _t(lib, tuple(out.shape), phase, dtype=out.dtype)
    (out * w).sum().backward()
    return [_flat(t.grad) for t in inputs]


def layer_inits(lib):
    """Linear, Bilinear and Embedding initial weights after manual_seed; constructor errors."""
    nn = lib.nn
    out = {}
    for seed in (0, 11):
        lib.manual_seed(seed)
        lin = nn.Linear(5, 3)
        bil = nn.Bilinear(3, 4, 2)
        emb = nn.Embedding(6, 3)
        emb_pad = nn.Embedding(20, 4, padding_idx=-2)
        lin_nb = nn.Linear(4, 2, bias=False)
        out[str(seed)] = {
            "linear": _flat(lin.weight) + _flat(lin.bias),
            "bilinear": _flat(bil.weight) + _flat(bil.bias),
            "embedding": _flat(emb.weight),
            "embedding_pad": _flat(emb_pad.weight),
            "embedding_pad_idx": emb_pad.padding_idx,
            "linear_nobias": [*_flat(lin_nb.weight), lin_nb.bias is None],
        }
    lib.manual_seed(0)
    lin64 = nn.Linear(3, 2, dtype=lib.float64)
    out["linear_float64"] = [str(lin64.weight.dtype), *_flat(lin64.weight)]
    pre = _t(lib, (4, 3), 0.3)
    frozen = nn.Embedding.from_pretrained(pre)
    out["from_pretrained"] = [
        _flat(frozen.weight),
        frozen.weight.requires_grad,
        repr(frozen),
    ]
    trainable = nn.Embedding.from_pretrained(pre, freeze=False, padding_idx=1)
    out["from_pretrained_trainable"] = [trainable.weight.requires_grad, repr(trainable)]
    out["from_pretrained_error"] = _err(lambda: nn.Embedding.from_pretrained(lib.zeros(3)))
    out["padding_error"] = _err(lambda: nn.Embedding(3, 2, padding_idx=3))
    out["padding_error_neg"] = _err(lambda: nn.Embedding(3, 2, padding_idx=-4))
    out["weight_shape_error"] = _err(lambda: nn.Embedding(3, 2, _weight=lib.zeros(2, 2)))
    out["dropout_p_error"] = _err(lambda: nn.Dropout(1.5))
    out["triplet_margin_error"] = _err(lambda: nn.TripletMarginLoss(margin=0))
    return out


def layer_functions(lib):
    """Layer functions and modules: values, gradients and errors."""
    F = lib.nn.functional
    nn = lib.nn
    out = {}

    def case(name, fn, *inputs):
        try:
            result = fn(*inputs)
        except Exception as e:
            out[name] = {"error": [type(e).__name__, str(e)]}
            return
        entry = {"shape": list(result.shape), "value": _flat(result)}
        if result.requires_grad:
            entry["grads"] = _grads(lib, result, [t for t in inputs if t.requires_grad])
        out[name] = entry

    x = _t(lib, (3, 4), 0.1, requires_grad=True)
    w = _t(lib, (2, 4), 0.5, requires_grad=True)
    b = _t(lib, (2,), 0.9, requires_grad=True)
    case("linear", F.linear, x, w, b)
    case(
        "linear_nobias",
        lambda a, c: F.linear(a, c),
        _t(lib, (2, 3, 4), 0.3, requires_grad=True),
        _t(lib, (5, 4), 0.1, requires_grad=True),
    )
    case("linear_1d", F.linear, _t(lib, (4,), 0.2, requires_grad=True), w, b)
    x1 = _t(lib, (3, 2), 0.1, requires_grad=True)
    x2 = _t(lib, (3, 4), 0.7, requires_grad=True)
    wb = _t(lib, (5, 2, 4), 0.3, requires_grad=True)
    bb = _t(lib, (5,), 1.1, requires_grad=True)
    case("bilinear", F.bilinear, x1, x2, wb, bb)
    case(
        "bilinear_batch",
        lambda a, c, d: F.bilinear(a, c, d),
        _t(lib, (2, 3, 2), 0.4, requires_grad=True),
        _t(lib, (2, 3, 4), 0.8, requires_grad=True),
        wb,
    )
    out["bilinear_size_error"] = _err(lambda: F.bilinear(x2, x2, wb))
    out["bilinear_batch_error"] = _err(lambda: F.bilinear(x1, _t(lib, (2, 4)), wb))
    out["bilinear_dim_error"] = _err(lambda: F.bilinear(x1, _t(lib, (1, 3, 4)), wb))
    out["bilinear_bias_error"] = _err(lambda: F.bilinear(x1, x2, wb, _t(lib, (3,))))

    idx = lib.tensor([[0, 2, 1], [2, 2, 4]])
    table = _t(lib, (5, 3), 0.2, requires_grad=True)
    case("embedding", lambda t: F.embedding(idx, t), table)
    case("embedding_padding", lambda t: F.embedding(idx, t, padding_idx=2), table)
    case("embedding_freq", lambda t: F.embedding(idx, t, scale_grad_by_freq=True), table)
    case(
        "embedding_padding_freq",
        lambda t: F.embedding(idx, t, padding_idx=0, scale_grad_by_freq=True),
        table,
    )
    renormed = _t(lib, (5, 3), 0.6, scale=3.0)
    with lib.no_grad():
        F.embedding(lib.tensor([1, 3, 1]), renormed, max_norm=1.0)
    out["embedding_max_norm"] = _flat(renormed)
    renormed1 = _t(lib, (5, 3), 0.6, scale=3.0)
    with lib.no_grad():
        F.embedding(lib.tensor([0, 4]), renormed1, max_norm=2.0, norm_type=1.0)
    out["embedding_max_norm_p1"] = _flat(renormed1)
    out["embedding_float_index"] = _err(lambda: F.embedding(lib.zeros(2), table))
    out["embedding_range"] = _err(lambda: F.embedding(lib.tensor([5]), table))
    out["embedding_negative"] = _err(lambda: F.embedding(lib.tensor([-1]), table))
    lib.manual_seed(12)
    emb = nn.Embedding(6, 2, padding_idx=0)
    ids = lib.tensor([[0, 1], [5, 0]])
    y = emb(ids)
    (y * _t(lib, (2, 2, 2), 0.5)).sum().backward()
    out["embedding_module"] = [_flat(y), _flat(emb.weight.grad)]

    p = _t(lib, (2, 3, 4), 0.3, requires_grad=True)
    case("pad_constant", lambda t: F.pad(t, (1, 2)), p)
    case("pad_constant_value", lambda t: F.pad(t, (0, 1, 2, 0), value=-1.5), p)
    case("pad_constant_3d", lambda t: F.pad(t, (1, 0, 0, 1, 1, 1), "constant", 0.5), p)
    case("pad_negative", lambda t: F.pad(t, (-1, 1, 0, -2)), p)
    case("pad_reflect", lambda t: F.pad(t, (2, 3), mode="reflect"), p)
    case("pad_reflect_2d", lambda t: F.pad(t, (1, 1, 2, 1), mode="reflect"), p)
    case("pad_replicate", lambda t: F.pad(t, (3, 1), mode="replicate"), p)
    case("pad_replicate_2d", lambda t: F.pad(t, (0, 2, 1, 3), mode="replicate"), p)
    case("pad_circular", lambda t: F.pad(t, (2, 1), mode="circular"), p)
    case("pad_circular_2d", lambda t: F.pad(t, (1, 2, 1, 1), mode="circular"), p)
    case("pad_int", lambda: F.pad(lib.tensor([[1, 2]]), (1, 1), value=7))
    out["pad_odd"] = _err(lambda: F.pad(p, (1, 2, 3)))
    out["pad_too_long"] = _err(lambda: F.pad(p, (1,) * 8))
    out["pad_reflect_too_big"] = _err(lambda: F.pad(p, (4, 0), mode="reflect"))
    out["pad_reflect_dims"] = _err(lambda: F.pad(_t(lib, (4,)), (1, 1), mode="reflect"))
    out["pad_negative_size"] = _err(lambda: F.pad(p, (-3, -2)))

    labels = lib.tensor([[0, 3], [1, 1]])
    out["one_hot"] = F.one_hot(labels).tolist()
    out["one_hot_classes"] = F.one_hot(lib.tensor([2, 0]), num_classes=5).tolist()
    out["one_hot_dtype"] = str(F.one_hot(lib.tensor([1])).dtype)
    out["one_hot_float"] = _err(lambda: F.one_hot(lib.zeros(2)))
    out["one_hot_too_big"] = _err(lambda: F.one_hot(lib.tensor([3]), 3))
    out["one_hot_negative"] = _err(lambda: F.one_hot(lib.tensor([-1])))
    out["one_hot_empty"] = _err(lambda: F.one_hot(lib.zeros(0, dtype=lib.int64)))

    n = _t(lib, (3, 4), 0.4, requires_grad=True)
    case("normalize", F.normalize, n)
    case("normalize_p1_dim0", lambda t: F.normalize(t, p=1.0, dim=0), n)
    case("normalize_zero_row", lambda t: F.normalize(t * lib.tensor([[1.0], [0.0], [1.0]])), n)
    a = _t(lib, (3, 4), 0.2, requires_grad=True)
    c = _t(lib, (3, 4), 1.4, requires_grad=True)
    case("cosine_similarity", F.cosine_similarity, a, c)
    case("cosine_similarity_dim0", lambda u, v: F.cosine_similarity(u, v, dim=0), a, c)
    case(
        "cosine_similarity_broadcast",
        lambda u, v: F.cosine_similarity(u, v, dim=-1),
        a,
        _t(lib, (4,), 0.9, requires_grad=True),
    )
    case("pairwise_distance", F.pairwise_distance, a, c)
    case(
        "pairwise_distance_p1_keepdim",
        lambda u, v: F.pairwise_distance(u, v, 1.0, keepdim=True),
        a,
        c,
    )
    case("pairwise_distance_inf", lambda u, v: F.pairwise_distance(u, v, p=math.inf), a, c)

    fl = _t(lib, (2, 3, 2, 2), 0.5, requires_grad=True)
    case("flatten", nn.Flatten(), fl)
    case("flatten_0_2", nn.Flatten(0, 2), fl)
    case("unflatten", nn.Unflatten(1, (3, 1)), fl)
    case("unflatten_neg", nn.Unflatten(-1, (2, 1)), fl)
    case("unflatten_infer", nn.Unflatten(1, (-1, 1)), fl)
    out["unflatten_bad"] = _err(lambda: nn.Unflatten(1, (2, 2))(fl))
    case("identity", nn.Identity(), fl)
    out["identity_same_object"] = nn.Identity()(fl) is fl
    drop = nn.Dropout(0.3)
    drop.eval()
    case("dropout_eval", drop, fl)
    case("dropout_p0", nn.Dropout(0.0), fl)
    for name, make, shape in [
        ("dropout_train", lambda: nn.Dropout(0.4), (3, 5)),
        ("dropout_train_big", lambda: nn.Dropout(0.25), (4, 20)),
        ("dropout1d_train", lambda: nn.Dropout1d(0.5), (2, 6, 3)),
        ("dropout2d_train", lambda: nn.Dropout2d(0.5), (2, 6, 2, 2)),
    ]:
        lib.manual_seed(15)
        case(name, make(), _t(lib, shape, 0.2, requires_grad=True))
    lib.manual_seed(16)
    case("dropout_p1", nn.Dropout(1.0), _t(lib, (2, 3), 0.2, requires_grad=True))
    lib.manual_seed(13)
    lin = nn.Linear(4, 3)
    case("linear_module", lin, _t(lib, (2, 4), 0.8, requires_grad=True))
    lib.manual_seed(14)
    bil = nn.Bilinear(2, 3, 2)
    case(
        "bilinear_module",
        bil,
        _t(lib, (4, 2), 0.1, requires_grad=True),
        _t(lib, (4, 3), 0.6, requires_grad=True),
    )
    return out


# ----- activation and loss modules (over the lead's nn.functional) --------------------------


def _activation_cases(nn):
    return [
        ("ReLU", lambda: nn.ReLU()),
        ("ReLU6", lambda: nn.ReLU6()),
        ("LeakyReLU", lambda: nn.LeakyReLU(0.2)),
        ("ELU", lambda: nn.ELU(alpha=0.7)),
        ("SELU", lambda: nn.SELU()),
        ("CELU", lambda: nn.CELU(alpha=1.5)),
        ("GELU", lambda: nn.GELU()),
        ("GELU_tanh", lambda: nn.GELU(approximate="tanh")),
        ("SiLU", lambda: nn.SiLU()),
        ("Mish", lambda: nn.Mish()),
        ("Softplus", lambda: nn.Softplus(beta=2.0, threshold=3.0)),
        ("Softsign", lambda: nn.Softsign()),
        ("Hardtanh", lambda: nn.Hardtanh(-0.5, 1.5)),
        ("Hardsigmoid", lambda: nn.Hardsigmoid()),
        ("Hardswish", lambda: nn.Hardswish()),
        ("Sigmoid", lambda: nn.Sigmoid()),
        ("LogSigmoid", lambda: nn.LogSigmoid()),
        ("Tanh", lambda: nn.Tanh()),
        ("Softmax", lambda: nn.Softmax(dim=1)),
        ("Softmax_dim0", lambda: nn.Softmax(dim=0)),
        ("LogSoftmax", lambda: nn.LogSoftmax(dim=1)),
    ]


ACTIVATION_FUNCTIONS = {
    "ReLU": "relu",
    "ReLU6": "hardtanh",
    "LeakyReLU": "leaky_relu",
    "ELU": "elu",
    "SELU": "selu",
    "CELU": "celu",
    "GELU": "gelu",
    "GELU_tanh": "gelu",
    "SiLU": "silu",
    "Mish": "mish",
    "Softplus": "softplus",
    "Softsign": "softsign",
    "Hardtanh": "hardtanh",
    "Hardsigmoid": "hardsigmoid",
    "Hardswish": "hardswish",
    "Sigmoid": "sigmoid",
    "LogSigmoid": "logsigmoid",
    "Tanh": "tanh",
    "Softmax": "softmax",
    "Softmax_dim0": "softmax",
    "LogSoftmax": "log_softmax",
}


def activation_module(lib, name):
    """Output and input gradient of one activation module (and its in-place form)."""
    nn = lib.nn
    make = dict(_activation_cases(nn))[name]
    x = _t(lib, (3, 5), 0.3, scale=4.0, requires_grad=True)
    y = make()(x)
    entry = {"value": _flat(y), "grads": _grads(lib, y, [x], 0.7)}
    module = make()
    if hasattr(module, "inplace"):
        module.inplace = True
        z = _t(lib, (3, 5), 0.3, scale=4.0)
        result = module(z)
        entry["inplace"] = [_flat(z), result is z]
    return entry


LOSS_FUNCTIONS = {
    "MSELoss": "mse_loss",
    "MSELoss_sum": "mse_loss",
    "L1Loss": "l1_loss",
    "L1Loss_none": "l1_loss",
    "SmoothL1Loss": "smooth_l1_loss",
    "HuberLoss": "huber_loss",
    "CrossEntropyLoss": "cross_entropy",
    "CrossEntropyLoss_weighted": "cross_entropy",
    "CrossEntropyLoss_probs": "cross_entropy",
    "NLLLoss": "nll_loss",
    "NLLLoss_weighted": "nll_loss",
    "BCELoss": "binary_cross_entropy",
    "BCELoss_weighted": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "BCEWithLogitsLoss_pos_weight": "binary_cross_entropy_with_logits",
    "KLDivLoss": "kl_div",
    "KLDivLoss_log_target": "kl_div",
    "CosineEmbeddingLoss": "cosine_embedding_loss",
    "MarginRankingLoss": "margin_ranking_loss",
    "TripletMarginLoss": "triplet_margin_loss",
    "legacy_size_average": "mse_loss",
}


def loss_module(lib, name):
    """Value and input gradients of one loss module on fixed inputs."""
    nn = lib.nn
    a = _t(lib, (4, 3), 0.1, scale=2.0, requires_grad=True)
    b = _t(lib, (4, 3), 0.9, scale=2.0)
    classes = lib.tensor([2, 0, 1, 2])
    probs = _t(lib, (4, 3), 0.5).abs().softmax(1)
    weight = lib.tensor([0.5, 2.0, 1.0])
    sig = _t(lib, (4, 3), 0.4, requires_grad=True)
    bits = (_t(lib, (4, 3), 1.7) > 0).float()
    pm = lib.tensor([1.0, -1.0, -1.0, 1.0])
    v1 = _t(lib, (4,), 0.2, requires_grad=True)
    v2 = _t(lib, (4,), 1.2, requires_grad=True)
    c = _t(lib, (4, 3), 2.1, requires_grad=True)
    cases = {
        "MSELoss": lambda: (nn.MSELoss(), (a, b)),
        "MSELoss_sum": lambda: (nn.MSELoss(reduction="sum"), (a, b)),
        "L1Loss": lambda: (nn.L1Loss(), (a, b)),
        "L1Loss_none": lambda: (nn.L1Loss(reduction="none"), (a, b)),
        "SmoothL1Loss": lambda: (nn.SmoothL1Loss(beta=0.8), (a, b)),
        "HuberLoss": lambda: (nn.HuberLoss(delta=0.6), (a, b)),
        "CrossEntropyLoss": lambda: (nn.CrossEntropyLoss(), (a, classes)),
        "CrossEntropyLoss_weighted": lambda: (
            nn.CrossEntropyLoss(weight=weight, ignore_index=0, label_smoothing=0.2),
            (a, classes),
        ),
        "CrossEntropyLoss_probs": lambda: (nn.CrossEntropyLoss(), (a, probs)),
        "NLLLoss": lambda: (nn.NLLLoss(), (a.log_softmax(1), classes)),
        "NLLLoss_weighted": lambda: (
            nn.NLLLoss(weight=weight, reduction="sum"),
            (a.log_softmax(1), classes),
        ),
        "BCELoss": lambda: (nn.BCELoss(), (sig.sigmoid(), bits)),
        "BCELoss_weighted": lambda: (nn.BCELoss(weight=weight), (sig.sigmoid(), bits)),
        "BCEWithLogitsLoss": lambda: (nn.BCEWithLogitsLoss(), (sig, bits)),
        "BCEWithLogitsLoss_pos_weight": lambda: (
            nn.BCEWithLogitsLoss(weight=weight, pos_weight=lib.tensor([1.0, 3.0, 0.5])),
            (sig, bits),
        ),
        "KLDivLoss": lambda: (nn.KLDivLoss(reduction="batchmean"), (a.log_softmax(1), probs)),
        "KLDivLoss_log_target": lambda: (
            nn.KLDivLoss(reduction="sum", log_target=True),
            (a.log_softmax(1), probs.log()),
        ),
        "CosineEmbeddingLoss": lambda: (nn.CosineEmbeddingLoss(margin=0.2), (a, c, pm)),
        "MarginRankingLoss": lambda: (nn.MarginRankingLoss(margin=0.3), (v1, v2, pm)),
        "TripletMarginLoss": lambda: (nn.TripletMarginLoss(margin=1.5), (a, c, sig)),
        "legacy_size_average": lambda: (nn.MSELoss(size_average=False), (a, b)),
    }
    module, inputs = cases[name]()
    leaves = [t for t in (a, sig, v1, v2, c) if t.requires_grad]
    value = module(*inputs)
    entry = {"value": _flat(value), "reduction": module.reduction}
    if value.dim() == 0:
        value.backward()
    else:
        (value * _t(lib, tuple(value.shape), 0.3)).sum().backward()
    entry["grads"] = [_flat(t.grad) for t in leaves]
    entry["buffers"] = [n for n, _ in module.named_buffers()]
    entry["state_dict"] = list(module.state_dict().keys())
    return entry


# ----- nn.utils and nn.init -------------------------------------------------------------------


def _with_grads(lib, seed):
    nn = lib.nn
    lib.manual_seed(seed)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    (model(_t(lib, (5, 3), 0.2, scale=3.0)) ** 2).sum().backward()
    return model


def utils(lib):
    """nn.utils: gradient clipping and vector conversion."""
    U = lib.nn.utils
    out = {}
    for name, kwargs in [
        ("norm2", {"max_norm": 1.0}),
        ("norm1", {"max_norm": 0.5, "norm_type": 1}),
        ("norm_inf", {"max_norm": 0.3, "norm_type": math.inf}),
        ("norm_inf_str", {"max_norm": 0.3, "norm_type": "inf"}),
        ("no_clip", {"max_norm": 1000.0}),
        ("norm3", {"max_norm": 2.0, "norm_type": 3.0}),
    ]:
        model = _with_grads(lib, 20)
        total = U.clip_grad_norm_(model.parameters(), **kwargs)
        out[name] = {
            "total": total.tolist(),
            "dtype": str(total.dtype),
            "grads": [_flat(p.grad) for p in model.parameters()],
        }
    model = _with_grads(lib, 21)
    first = next(model.parameters())
    total = U.clip_grad_norm_(first, 0.1)
    out["single_tensor"] = [total.tolist(), _flat(first.grad)]
    out["empty"] = U.clip_grad_norm_([], 1.0).tolist()
    with_none = lib.nn.Linear(2, 2)
    out["no_grads"] = U.clip_grad_norm_(with_none.parameters(), 1.0).tolist()
    model = _with_grads(lib, 22)
    next(model.parameters()).grad[0, 0] = math.inf
    out["nonfinite_error"] = _err(
        lambda: U.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
    )
    out["nonfinite_allowed"] = U.clip_grad_norm_(model.parameters(), 1.0).tolist()
    model = _with_grads(lib, 23)
    ret = U.clip_grad_value_(model.parameters(), 0.05)
    out["clip_value"] = [ret is None] + [_flat(p.grad) for p in model.parameters()]
    model = _with_grads(lib, 24)
    vec = U.parameters_to_vector(model.parameters())
    out["to_vector"] = [list(vec.shape), _flat(vec), vec.requires_grad]
    U.vector_to_parameters(_t(lib, (int(vec.shape[0]),), 0.5), model.parameters())
    out["from_vector"] = [_flat(p) for p in model.parameters()]
    out["from_vector_error"] = _err(lambda: U.vector_to_parameters([1.0], model.parameters()))
    out["submodule_path"] = lib.nn.utils.clip_grad.clip_grad_norm_ is U.clip_grad_norm_
    return out


def inits(lib):
    """nn.init.trunc_normal_ and orthogonal_ (and every fill with a Generator)."""
    init = lib.nn.init
    out = {}
    lib.manual_seed(30)
    for name, args in [
        ("trunc_default", ()),
        ("trunc_wide", (0.5, 2.0, -1.0, 3.0)),
        ("trunc_narrow", (0.0, 1.0, 1.5, 2.5)),
        ("trunc_far", (2.0, 0.5, -1.0, 0.5)),
        ("trunc_small_std", (0.0, 0.02, -0.04, 0.04)),
    ]:
        t = lib.empty(6, 7)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            returned = init.trunc_normal_(t, *args)
        out[name] = [*_flat(t), returned is t]
    for name, shape, gain in [
        ("orth_tall", (6, 3), 1.0),
        ("orth_wide", (3, 5), 2.0),
        ("orth_square", (4, 4), 1.0),
        ("orth_conv", (4, 2, 3), 0.5),
    ]:
        t = lib.empty(*shape)
        returned = init.orthogonal_(t, gain)
        out[name] = [*_flat(t), returned is t]
    out["orth_1d_error"] = _err(lambda: init.orthogonal_(lib.empty(3)))
    g = lib.Generator().manual_seed(5)
    lib.manual_seed(31)
    drawn = []
    for fill in (
        lambda t: init.trunc_normal_(t, std=0.5, generator=g),
        lambda t: init.trunc_normal_(t, 0.0, 1.0, 1.0, 3.0, generator=g),
        lambda t: init.orthogonal_(t, generator=g),
        lambda t: init.uniform_(t, -1.0, 1.0, generator=g),
        lambda t: init.normal_(t, 1.0, 2.0, generator=g),
        lambda t: init.xavier_uniform_(t, generator=g),
        lambda t: init.xavier_normal_(t, generator=g),
        lambda t: init.kaiming_uniform_(t, generator=g),
        lambda t: init.kaiming_normal_(t, generator=g),
    ):
        t = lib.empty(5, 4)
        fill(t)
        drawn.append(_flat(t))
    drawn.append(lib.rand(3).tolist())  # the global stream is untouched
    out["with_generator"] = drawn
    p = lib.nn.Parameter(lib.empty(3, 2))
    init.orthogonal_(p)
    out["orth_parameter"] = [p.requires_grad, p.grad_fn is None, p.is_leaf]
    return out


def answers(lib):
    """Every group of answers (what the golden file holds)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = {
            "reprs": reprs(lib),
            "state_dicts": state_dicts(lib),
            "loading": loading(lib),
            "attributes": attributes(lib),
            "hooks": hooks(lib),
            "backward_hooks": backward_hooks(lib),
            "containers": containers(lib),
            "modes": modes(lib),
            "copies": copies(lib),
            "layer_inits": layer_inits(lib),
            "layer_functions": layer_functions(lib),
            "utils": utils(lib),
            "inits": inits(lib),
            "activations": {n: activation_module(lib, n) for n, _ in _activation_cases(lib.nn)},
            "losses": {n: loss_module(lib, n) for n in LOSS_FUNCTIONS},
        }
    return result
