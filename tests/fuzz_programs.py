"""Random small autograd programs, run alike with PyTorch and ferrograd (issue "Same answers as
PyTorch").

``generate(seed)`` builds a program: a few input tensors (0-d, empty and broadcastable shapes,
float32/float64, values with occasional 0, negatives, NaN and inf), 2-8 operations over
ferrograd's supported surface (pointwise and special functions, arithmetic with tensors and
Python numbers, reductions, views, basic and advanced indexing, ``x[...] = v``, in-place ops on
non-leaf intermediates and through views, steps under ``no_grad``, ``where``/``masked_fill``/
``clamp``, matrix products, ``cat``/``stack``/``split``, ...), then either ``.sum().backward()``
or ``autograd.grad(..., create_graph=True)`` followed by a second-order ``autograd.grad``.

A program is plain data (JSON-storable): ``{"id", "seed", "inputs", "steps", "final"}``.
``run(program, lib)`` executes it with ``lib`` the module (``torch`` or ``ferrograd``) and returns
plain data: every step's outputs as records (value as nested lists with NaN/inf as strings,
dtype name, shape, ``requires_grad``, ``is_leaf``, ``grad_fn`` type name), the values of every
variable after the last step, the leaf gradients (and second-order gradients), or the class of
the exception raised and where. ``compare(expected, actual, program)`` lists the differences;
``classify`` names the first one. ``to_python(program)`` renders a program as a script for
``import ferrograd as torch``.

This module imports neither torch nor ferrograd: ``tools/run_fuzz.py`` runs both,
``test_fuzz_golden.py`` replays the recorded programs with ferrograd.
"""

import math
import operator
import random
import warnings
from contextlib import nullcontext

GENERATOR_VERSION = 1

# (rtol, atol) by dtype name of the expected (PyTorch's) tensor.
TOLERANCES = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-9)}

NAN, INF = float("nan"), float("inf")

# ---------------------------------------------------------------------------------------------
# the op catalogue (only what both libraries support)

# Unary pointwise ops: method, ``torch.<name>`` function and (unless listed below) in-place twin.
UNARY = [
    "neg", "abs", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "sigmoid", "relu", "erf", "lgamma", "digamma", "sign", "floor", "ceil",
    "round", "trunc", "frac", "square", "logit",
]  # fmt: skip
# ``square_`` is not in ferrograd; PyTorch raises NotImplementedError for ``asinh_``, ``acosh_``
# and ``atanh_`` on a tensor with history where ferrograd differentiates (a documented deviation).
NO_INPLACE = {"square", "asinh", "acosh", "atanh"}

# nn.functional activations: name -> list of (kwarg, choices) options.
ACTIVATIONS = {
    "gelu": [("approximate", ["none", "tanh"])],
    "silu": [],
    "softplus": [("beta", [1.0, 2.0, 0.5]), ("threshold", [20.0, 1.0])],
    "leaky_relu": [("negative_slope", [0.01, 0.2])],
    "elu": [("alpha", [1.0, 0.5])],
    "relu": [],
    "sigmoid": [],
    "tanh": [],
}

# Binary ops taking two tensors: name -> (has in-place twin, accepts a Python number as other).
BINARY = {
    "add": (True, True),
    "sub": (True, True),
    "mul": (True, True),
    "div": (True, True),
    "pow": (True, True),
    "maximum": (False, False),
    "minimum": (False, False),
    "xlogy": (True, True),
    "hypot": (True, False),
    "atan2": (True, False),
}
ARITH_OPS = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "pow": "**"}
COMPARE_OPS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
LOGIC_OPS = {"and_": "&", "or_": "|", "xor": "^"}
BINOP_SYMBOLS = {**ARITH_OPS, **COMPARE_OPS, **LOGIC_OPS, "matmul": "@"}
IOP_SYMBOLS = {"iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ipow": "**="}
UNOP_SYMBOLS = {"neg": "-", "invert": "~", "pos": "+"}

NUMBERS = [2.0, 0.5, -1.5, 3.0, 1.0, 0.0, -2.0, 0.25, 2, 3, -1, 1e-3, 10.0]

SHAPES = [
    ((), 6), ((1,), 3), ((3,), 8), ((4,), 4), ((2, 3), 10), ((3, 2), 5), ((1, 3), 5),
    ((3, 1), 5), ((2, 1, 3), 4), ((2, 3, 2), 3), ((2, 2, 2), 3), ((1, 1), 2), ((0,), 2),
    ((2, 0), 2), ((0, 3), 2),
]  # fmt: skip

FLOATS = ("float32", "float64")
_CATEGORY = {"bool": 0, "int64": 1, "float32": 2, "float64": 2}


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _broadcast(a, b):
    """Broadcast shape of ``a`` and ``b``, or None."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(reversed(out))


def _promote(a, b):
    if _CATEGORY[a] != _CATEGORY[b]:
        return a if _CATEGORY[a] > _CATEGORY[b] else b
    return "float64" if "float64" in (a, b) else a


def result_dtype(operands):
    """PyTorch's result type: ``operands`` holds ``(dtype, ndim)`` for tensors and
    ``("pyfloat"|"pyint", None)`` for Python numbers."""
    levels = [[], [], []]  # dimensioned tensors, 0-d tensors, Python numbers
    for dtype, nd in operands:
        if nd is None:
            levels[2].append("float32" if dtype == "pyfloat" else "int64")
        else:
            levels[0 if nd > 0 else 1].append(dtype)
    result = None
    for level in levels:
        if not level:
            continue
        top = level[0]
        for d in level[1:]:
            top = _promote(top, d)
        if result is None:
            result = top
        elif _CATEGORY[top] > _CATEGORY[result]:
            result = _promote(result, top) if level is not levels[2] else top
    return result


# ---------------------------------------------------------------------------------------------
# generation


def _ref(name):
    return {"ref": name}


def _tup(items):
    return {"tuple": list(items)}


def _num(x):
    """A Python number as plain data (NaN and inf as {"f": ...})."""
    if isinstance(x, float) and not math.isfinite(x):
        return {"f": _enc_float(x)}
    return x


class _Meta:
    """What the generator knows about a variable (approximately, for requires_grad)."""

    def __init__(self, shape, dtype, rg, leaf, vleaf=False, expanded=False):
        self.shape = shape  # tuple, or None when it depends on the values (x[mask])
        self.dtype = dtype
        self.rg = rg
        self.leaf = leaf
        self.vleaf = vleaf  # a leaf requiring grad, or a view of one
        self.expanded = expanded  # elements share memory (expand): in-place writes fail

    @property
    def nd(self):
        return None if self.shape is None else len(self.shape)

    @property
    def is_float(self):
        return self.dtype in FLOATS


class _Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.inputs = []
        self.steps = []
        self.vars = {}
        self.order = []  # variable names, oldest first
        self.counter = 0
        self.no_grad = False
        self.retained = []

    # ---- helpers
    def chance(self, p):
        return self.rng.random() < p

    def pick(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def fresh(self, prefix="v"):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def value(self, dtype, mode):
        rng = self.rng
        if dtype == "bool":
            return rng.random() < 0.5
        r = rng.random()
        if r < 0.012:
            return rng.choice([NAN, INF, -INF])
        if r < 0.07:
            return 0.0
        if r < 0.17:
            return float(rng.randint(-3, 3)) if mode == "mixed" else float(rng.randint(1, 3))
        if r < 0.21 and mode == "mixed":
            return rng.choice([0.5, -0.5, 1.5, -2.5])
        if mode == "pos":
            return round(rng.uniform(0.05, 3.0), 3)
        if mode == "unit":
            return round(rng.uniform(-0.95, 0.95), 3)
        return round(rng.uniform(-3.0, 3.0), 3)

    def new_input(self, shape, dtype=None, rg=None, values=None, prefix="x"):
        if dtype is None:
            dtype = "float32" if self.chance(0.6) else "float64"
        if rg is None:
            rg = dtype in FLOATS and self.chance(0.75)
        mode = self.pick(["mixed", "mixed", "pos", "unit"])
        n = _numel(shape)
        if values is None:
            values = [self.value(dtype, mode) for _ in range(n)]
        name = self.fresh(prefix)
        self.inputs.append(
            {
                "name": name,
                "shape": list(shape),
                "dtype": dtype,
                "data": [_enc_scalar(v) for v in values],
                "requires_grad": rg,
            }
        )
        self.vars[name] = _Meta(tuple(shape), dtype, rg, True, vleaf=rg)
        self.order.append(name)
        return name

    def index_input(self, shape, high, unique=False):
        """An int64 input of ``shape`` with values in ``[0, high)``."""
        n = _numel(shape)
        if unique:
            values = self.rng.sample(range(high), n)
        else:
            values = [self.rng.randrange(high) for _ in range(n)]
        return self.new_input(shape, "int64", False, values, prefix="i")

    def random_shape(self):
        shapes = [s for s, _ in SHAPES]
        weights = [w for _, w in SHAPES]
        return self.rng.choices(shapes, weights)[0]

    def choose(self, pred=lambda m: True, recent=0.6):
        """A variable satisfying ``pred``, preferring the most recent one."""
        names = [n for n in self.order if pred(self.vars[n])]
        if not names:
            return None
        if self.chance(recent):
            return names[-1]
        return self.pick(names)

    def float_var(self, known_shape=True, min_nd=0, max_nd=9):
        def ok(m):
            if not m.is_float:
                return False
            if m.shape is None:
                return not known_shape
            return min_nd <= len(m.shape) <= max_nd

        return self.choose(ok)

    def inplace_ok(self, m):
        return m.is_float and not m.vleaf and not m.expanded and m.shape is not None

    def inplace_target(self):
        """A variable an in-place op may write (rarely one it may not: errors are compared too)."""
        if self.chance(0.04):
            return self.float_var()
        return self.choose(self.inplace_ok)

    def partner_shape(self, shape, into=False):
        """A shape broadcastable with ``shape`` (``into``: broadcasting to exactly ``shape``)."""
        nd = len(shape)
        r = self.rng.random()
        if r < 0.45:
            return tuple(shape)
        if r < 0.6 and nd > 0:
            return tuple(shape[self.rng.randint(1, nd) :])
        if r < 0.85:
            return tuple(1 if self.chance(0.5) else s for s in shape)
        if into:
            return ()
        return (self.rng.choice([1, 2]), *shape)

    def partner(self, shape, into=False, dtype=None):
        """A tensor operand broadcastable with ``shape``: an existing variable or a new input."""
        if self.chance(0.35):
            name = self.choose(
                lambda m: (
                    m.is_float
                    and m.shape is not None
                    and _broadcast(m.shape, shape) is not None
                    and (not into or _broadcast(m.shape, shape) == tuple(shape))
                ),
                recent=0.3,
            )
            if name is not None:
                return name
        if dtype is None:
            dtype = "float32" if self.chance(0.65) else "float64"
        return self.new_input(self.partner_shape(shape, into), dtype)

    def bool_operand(self, shape, into=False):
        name = self.choose(
            lambda m: (
                m.dtype == "bool"
                and m.shape is not None
                and _broadcast(m.shape, shape) is not None
                and (not into or _broadcast(m.shape, shape) == tuple(shape))
            ),
            recent=0.5,
        )
        if name is not None and self.chance(0.7):
            return name
        return self.new_input(self.partner_shape(shape, into), "bool", False, prefix="m")

    def number(self):
        if self.chance(0.02):
            return {"f": self.pick(["nan", "inf", "-inf"])}
        return self.pick(NUMBERS)

    def dim(self, nd):
        if nd == 0:
            return self.pick([0, -1])
        return self.rng.randrange(-nd, nd)

    def dims(self, nd):
        """None, an int or a tuple of distinct dims."""
        r = self.rng.random()
        if r < 0.3:
            return None
        if r < 0.75 or nd <= 1:
            return self.dim(nd)
        k = self.rng.randint(1, nd)
        return _tup(self.rng.sample(range(nd), k))

    # ---- recording
    def emit(self, step, outs):
        """Appends ``step``; ``outs`` is a list of (_Meta) for the new variables."""
        step["out"] = []
        if self.no_grad:
            step["ng"] = True
        for meta in outs:
            name = self.fresh()
            if self.no_grad:
                meta.rg = False
            self.vars[name] = meta
            self.order.append(name)
            step["out"].append(name)
        self.steps.append(step)
        return step["out"]

    def emit_inplace(self, step, target, other_rg=False, shape=None):
        """An in-place step on ``target``: the output aliases it (a new name, the same tensor)."""
        m = self.vars[target]
        rg = m.rg or (other_rg and not self.no_grad)
        meta = _Meta(m.shape if shape is None else shape, m.dtype, rg, m.leaf and not rg)
        meta.vleaf, meta.expanded = m.vleaf, m.expanded
        m.rg = rg
        return self.emit(step, [meta])

    def out_meta(self, shape, dtype, args, view_of=None):
        rg = (not self.no_grad) and dtype in FLOATS and any(self.vars[a].rg for a in args)
        meta = _Meta(shape, dtype, rg, not rg)
        if view_of is not None:
            src = self.vars[view_of]
            meta.vleaf = src.vleaf
            meta.expanded = src.expanded
            if not rg:
                meta.leaf = src.leaf and not src.rg
        return meta

    # ---- ops; each returns True when it emitted a step
    def op_unary(self):
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        name = self.pick(UNARY)
        args = []
        if name == "logit" and self.chance(0.4):
            args = [self.pick([0.1, 1e-3])]
        form = self.rng.random()
        label = name
        if form < 0.25 and name not in NO_INPLACE and self.inplace_ok(m):
            label = name + "_"
            step = {"k": "method", "x": x, "name": name + "_", "args": args}
            self.emit_inplace({**step, "label": label}, x)
            return True
        if form < 0.5:
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x), *args]}
            label = "torch." + name
        else:
            step = {"k": "method", "x": x, "name": name, "args": args}
        step["label"] = label
        self.emit(step, [self.out_meta(m.shape, m.dtype, [x])])
        return True

    def op_polygamma(self):
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        n = self.pick([0, 1, 2])
        if self.chance(0.5):
            step = {"k": "func", "mod": "torch", "name": "polygamma", "args": [n, _ref(x)]}
        else:
            step = {"k": "method", "x": x, "name": "polygamma", "args": [n]}
        step["label"] = f"polygamma({n})"
        self.emit(step, [self.out_meta(m.shape, m.dtype, [x])])
        return True

    def op_activation(self):
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        name = self.pick(list(ACTIVATIONS))
        kw = {}
        for key, choices in ACTIVATIONS[name]:
            if self.chance(0.5):
                kw[key] = self.pick(choices)
        step = {"k": "func", "mod": "F", "name": name, "args": [_ref(x)], "kw": kw}
        step["label"] = "F." + name
        self.emit(step, [self.out_meta(m.shape, m.dtype, [x])])
        return True

    def op_binary(self):
        x = self.float_var()
        if x is None:
            return False
        m = self.vars[x]
        name = self.pick(list(BINARY))
        has_inplace, _ = BINARY[name]
        form = self.rng.random()
        inplace = form < 0.2 and has_inplace and self.inplace_ok(m)
        y = self.partner(m.shape, into=inplace)
        my = self.vars[y]
        kw = {}
        if name in ("add", "sub") and self.chance(0.2):
            kw["alpha"] = self.pick([2, -0.5])
        if inplace:
            step = {"k": "method", "x": x, "name": name + "_", "args": [_ref(y)], "kw": kw}
            step["label"] = name + "_"
            self.emit_inplace(step, x, my.rg)
            return True
        shape = _broadcast(m.shape, my.shape)
        dtype = result_dtype([(m.dtype, m.nd), (my.dtype, my.nd)])
        a, b = (x, y) if self.chance(0.8) else (y, x)
        if form < 0.45 and name in ("add", "sub", "mul", "pow") and not kw:
            op = "truediv" if name == "div" else name
            step = {"k": "binop", "op": op, "a": _ref(a), "b": _ref(b), "label": ARITH_OPS[op]}
        elif form < 0.45 and name == "div":
            step = {"k": "binop", "op": "truediv", "a": _ref(a), "b": _ref(b), "label": "/"}
        elif form < 0.7:
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(a), _ref(b)]}
            step["kw"], step["label"] = kw, "torch." + name
        else:
            step = {"k": "method", "x": a, "name": name, "args": [_ref(b)], "kw": kw}
            step["label"] = name
        self.emit(step, [self.out_meta(shape, dtype, [a, b])])
        return True

    def op_scalar(self):
        """Arithmetic with a Python number on either side."""
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        c = self.number()
        r = self.rng.random()
        if r < 0.6:
            op = self.pick(list(ARITH_OPS))
            if self.chance(0.5):
                step = {"k": "binop", "op": op, "a": _ref(x), "b": c, "label": f"t{ARITH_OPS[op]}n"}
            else:
                step = {"k": "binop", "op": op, "a": c, "b": _ref(x), "label": f"n{ARITH_OPS[op]}t"}
        elif r < 0.85:
            name = self.pick(["add", "sub", "mul", "div", "pow", "xlogy"])
            step = {"k": "method", "x": x, "name": name, "args": [c], "label": f"{name}(number)"}
        elif self.inplace_ok(m):
            if self.chance(0.5):
                op = self.pick(list(IOP_SYMBOLS))
                step = {"k": "iop", "op": op, "x": x, "b": c, "label": f"t{IOP_SYMBOLS[op]}n"}
            else:
                name = self.pick(["add_", "sub_", "mul_", "div_", "pow_", "fill_"])
                step = {"k": "method", "x": x, "name": name, "args": [c]}
                step["label"] = f"{name}(number)"
            self.emit_inplace(step, x)
            return True
        else:
            step = {"k": "func", "mod": "torch", "name": "pow", "args": [c, _ref(x)]}
            step["label"] = "torch.pow(number, t)"
        self.emit(step, [self.out_meta(m.shape, m.dtype, [x])])
        return True

    def op_inplace(self):
        """In-place arithmetic with a tensor, ``copy_``, ``zero_``, on a (usually non-leaf)."""
        x = self.inplace_target()
        if x is None:
            return False
        m = self.vars[x]
        if m.shape is None:
            return False
        r = self.rng.random()
        if r < 0.1:
            step = {"k": "method", "x": x, "name": "zero_", "args": [], "label": "zero_"}
            self.emit_inplace(step, x)
            return True
        y = self.partner(m.shape, into=True)
        my = self.vars[y]
        if r < 0.3:
            step = {"k": "method", "x": x, "name": "copy_", "args": [_ref(y)], "label": "copy_"}
        elif r < 0.65:
            op = self.pick(list(IOP_SYMBOLS))
            step = {"k": "iop", "op": op, "x": x, "b": _ref(y), "label": f"t{IOP_SYMBOLS[op]}t"}
        else:
            name = self.pick(["add_", "sub_", "mul_", "div_", "pow_"])
            step = {"k": "method", "x": x, "name": name, "args": [_ref(y)], "label": name}
        self.emit_inplace(step, x, my.rg)
        return True

    def op_compare(self):
        x = self.choose(lambda m: m.dtype != "bool" and m.shape is not None)
        if x is None:
            return False
        m = self.vars[x]
        op = self.pick(list(COMPARE_OPS))
        if self.chance(0.5):
            other, shape = self.number(), m.shape
        else:
            y = self.partner(m.shape)
            other, shape = _ref(y), _broadcast(m.shape, self.vars[y].shape)
        step = {"k": "binop", "op": op, "a": _ref(x), "b": other, "label": COMPARE_OPS[op]}
        self.emit(step, [_Meta(shape, "bool", False, True)])
        return True

    def op_logic(self):
        x = self.choose(lambda m: m.dtype == "bool" and m.shape is not None)
        if x is None:
            x = self.choose(lambda m: m.shape is not None)
            if x is None:
                return False
            name = self.pick(["isnan", "isinf", "isfinite"])
            if self.chance(0.5):
                step = {"k": "method", "x": x, "name": name, "args": [], "label": name}
            else:
                step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x)]}
                step["label"] = "torch." + name
            self.emit(step, [_Meta(self.vars[x].shape, "bool", False, True)])
            return True
        m = self.vars[x]
        r = self.rng.random()
        if r < 0.2:
            step = {"k": "method", "x": x, "name": "logical_not", "args": [], "label": "not"}
            shape = m.shape
        elif r < 0.3:
            step = {"k": "unop", "op": "invert", "a": _ref(x), "label": "~"}
            shape = m.shape
        else:
            y = self.bool_operand(m.shape)
            shape = _broadcast(m.shape, self.vars[y].shape)
            if r < 0.6:
                op = self.pick(list(LOGIC_OPS))
                step = {"k": "binop", "op": op, "a": _ref(x), "b": _ref(y), "label": LOGIC_OPS[op]}
            else:
                name = self.pick(["logical_and", "logical_or", "logical_xor"])
                step = {"k": "method", "x": x, "name": name, "args": [_ref(y)], "label": name}
        self.emit(step, [_Meta(shape, "bool", False, True)])
        return True

    def op_where(self):
        x = self.float_var()
        if x is None:
            return False
        m = self.vars[x]
        cond = self.bool_operand(m.shape)
        shape = _broadcast(m.shape, self.vars[cond].shape)
        if self.chance(0.3):
            other, args, odt = self.number(), [x], [(m.dtype, m.nd), ("pyfloat", None)]
        else:
            y = self.partner(shape)
            my = self.vars[y]
            other, args, odt = _ref(y), [x, y], [(m.dtype, m.nd), (my.dtype, my.nd)]
            shape = _broadcast(shape, my.shape)
        if self.chance(0.6):
            step = {"k": "func", "mod": "torch", "name": "where"}
            step["args"], step["label"] = [_ref(cond), _ref(x), other], "where"
        else:
            step = {"k": "method", "x": x, "name": "where", "args": [_ref(cond), other]}
            step["label"] = "Tensor.where"
        self.emit(step, [self.out_meta(shape, result_dtype(odt), args)])
        return True

    def op_masked_fill(self):
        x = self.float_var()
        if x is None:
            return False
        m = self.vars[x]
        mask = self.bool_operand(m.shape, into=True)
        args = [x]
        if self.chance(0.25):
            v = self.new_input((), m.dtype)
            args.append(v)
            value = _ref(v)
        else:
            value = self.number()
        if self.chance(0.3) and self.inplace_ok(m):
            step = {"k": "method", "x": x, "name": "masked_fill_", "args": [_ref(mask), value]}
            step["label"] = "masked_fill_"
            self.emit_inplace(step, x, len(args) > 1 and self.vars[args[1]].rg)
            return True
        step = {"k": "method", "x": x, "name": "masked_fill", "args": [_ref(mask), value]}
        step["label"] = "masked_fill"
        self.emit(step, [self.out_meta(m.shape, m.dtype, args)])
        return True

    def op_clamp(self):
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        kw = {}
        r = self.rng.random()
        if r < 0.4:
            kw = {"min": self.pick([-1.0, 0.0, 0.5])}
        elif r < 0.7:
            kw = {"max": self.pick([1.0, 0.0, -0.5])}
        else:
            kw = {"min": self.pick([-1.0, 0.0]), "max": self.pick([1.0, 2.0, -2.0])}
        name = self.pick(["clamp", "clamp", "clip", "clamp_"])
        if name == "clamp_" and self.inplace_ok(m):
            step = {"k": "method", "x": x, "name": name, "args": [], "kw": kw, "label": name}
            self.emit_inplace(step, x)
            return True
        name = name.rstrip("_")
        if self.chance(0.3):
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x)], "kw": kw}
            step["label"] = "torch." + name
        else:
            step = {"k": "method", "x": x, "name": name, "args": [], "kw": kw, "label": name}
        self.emit(step, [self.out_meta(m.shape, m.dtype, [x])])
        return True

    def op_reduce(self):
        x = self.float_var(known_shape=False)
        if x is None:
            return False
        m = self.vars[x]
        if m.shape is None:
            name = self.pick(["sum", "mean", "amax", "prod"])
            self.emit(
                {"k": "method", "x": x, "name": name, "args": [], "label": name + "()"},
                [self.out_meta((), m.dtype, [x])],
            )
            return True
        nd = m.nd
        name = self.pick(
            ["sum", "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "var", "std",
             "norm", "logsumexp", "cumsum", "softmax", "log_softmax", "all", "any"]
        )  # fmt: skip
        kw = {}
        args = []
        dims = None
        if name in ("sum", "mean", "amax", "amin", "var", "std", "norm"):
            dims = self.dims(nd)
        elif name in ("prod", "argmax", "max", "min"):
            dims = self.dim(nd) if self.chance(0.6) else None
        elif name in ("logsumexp",):
            dims = self.dims(nd)
            if dims is None:
                dims = self.dim(nd)
        elif name in ("cumsum", "softmax", "log_softmax"):
            dims = self.dim(nd)
        keepdim = dims is not None and self.chance(0.4)
        if name in ("var", "std"):
            r = self.rng.random()
            if r < 0.25:
                kw["unbiased"] = False
            elif r < 0.4:
                kw["correction"] = self.pick([0, 2])
        if name == "norm":
            p = self.pick([None, 1, 2, 3.0, "fro"])
            if p == "fro" and isinstance(dims, int):
                p = None
            if p is not None:
                kw["p"] = p
        if dims is not None:
            kw["dim"] = dims
        if keepdim:
            kw["keepdim"] = True
        if name in ("cumsum", "softmax", "log_softmax"):
            args, kw = [dims], {}
        label = name + ("(dim)" if dims is not None else "()")
        # output shape
        if name in ("cumsum", "softmax", "log_softmax"):
            shape = m.shape
        elif dims is None:
            shape = ()
        else:
            ds = dims["tuple"] if isinstance(dims, dict) else [dims]
            ds = {d % nd if nd else 0 for d in ds}
            if keepdim:
                shape = tuple(1 if i in ds else s for i, s in enumerate(m.shape))
            else:
                shape = tuple(s for i, s in enumerate(m.shape) if i not in ds)
        form = "func" if self.chance(0.25) and name not in ("all", "any") else "method"
        if form == "func":
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x), *args], "kw": kw}
            label = "torch." + label
        else:
            step = {"k": "method", "x": x, "name": name, "args": args, "kw": kw}
        step["label"] = label
        if name in ("max", "min") and dims is not None:
            step["multi"] = True
            self.emit(
                step,
                [self.out_meta(shape, m.dtype, [x]), _Meta(shape, "int64", False, True)],
            )
        elif name == "argmax":
            self.emit(step, [_Meta(shape, "int64", False, True)])
        elif name in ("all", "any"):
            self.emit(step, [_Meta((), "bool", False, True)])
        else:
            self.emit(step, [self.out_meta(shape, m.dtype, [x])])
        return True

    def new_shape(self, n):
        """A random shape with ``n`` elements (sometimes with a -1)."""
        if n == 0:
            return self.pick([[0], [0, 2], [2, 0], [1, 0, 3]])
        factors = []
        rest = n
        for p in (2, 3, 5, 7):
            while rest % p == 0:
                factors.append(p)
                rest //= p
        if rest > 1:
            factors.append(rest)
        self.rng.shuffle(factors)
        k = self.rng.randint(1, 3)
        shape = [1] * k
        for f in factors:
            shape[self.rng.randrange(k)] *= f
        if self.chance(0.2):
            shape.insert(self.rng.randrange(len(shape) + 1), 1)
        if n == 1 and self.chance(0.3):
            shape = []
        if shape and self.chance(0.3):
            shape[self.rng.randrange(len(shape))] = -1
        return shape

    def op_view(self):
        x = self.choose(lambda m: m.shape is not None and m.dtype != "int64")
        if x is None:
            return False
        m = self.vars[x]
        shape, nd = m.shape, m.nd
        name = self.pick(
            ["t", "T", "transpose", "permute", "view", "reshape", "expand", "unsqueeze",
             "squeeze", "select", "narrow", "flatten", "flip", "repeat", "contiguous", "clone",
             "detach"]
        )  # fmt: skip
        args = []
        view = True
        if name in ("t", "T"):
            if nd > 2 or (name == "T" and nd != 2):
                return False
            out = tuple(reversed(shape))
        elif name == "transpose":
            if nd == 0:
                return False
            d0, d1 = self.dim(nd), self.dim(nd)
            args = [d0, d1]
            out = list(shape)
            out[d0 % nd], out[d1 % nd] = out[d1 % nd], out[d0 % nd]
        elif name == "permute":
            perm = list(range(nd))
            self.rng.shuffle(perm)
            args = [perm] if self.chance(0.5) or not perm else perm
            out = [shape[p] for p in perm]
        elif name in ("view", "reshape"):
            new = self.new_shape(_numel(shape))
            args = [_tup(new)] if self.chance(0.4) or not new else new
            known = [s for s in new if s != -1]
            out = [(_numel(shape) // max(1, _numel(known))) if s == -1 else s for s in new]
            view = name == "view"
        elif name == "expand":
            lead = [self.pick([1, 2])] if self.chance(0.3) else []
            grown = [self.pick([2, 3]) if s == 1 and self.chance(0.6) else s for s in shape]
            out = [*lead, *grown]
            keep = [-1 if g == s and self.chance(0.3) else g for g, s in zip(grown, shape)]
            sizes = [*lead, *keep]
            args = [_tup(sizes)] if self.chance(0.3) or not sizes else sizes
        elif name == "unsqueeze":
            d = self.rng.randint(-nd - 1, nd)
            args = [d]
            out = list(shape)
            out.insert(d % (nd + 1), 1)
        elif name == "squeeze":
            if nd and self.chance(0.6):
                d = self.dim(nd)
                args = [d]
                out = [s for i, s in enumerate(shape) if not (i == d % nd and s == 1)]
            else:
                out = [s for s in shape if s != 1]
        elif name == "select":
            if nd == 0:
                return False
            d = self.dim(nd)
            size = shape[d % nd]
            if size == 0 and not self.chance(0.1):
                return False
            i = self.rng.randint(-size, max(size - 1, 0))
            args = [d, i]
            out = [s for k, s in enumerate(shape) if k != d % nd]
        elif name == "narrow":
            if nd == 0:
                return False
            d = self.dim(nd)
            size = shape[d % nd]
            start = self.rng.randint(0, size)
            length = self.rng.randint(0, size - start)
            args = [d, start, length]
            out = list(shape)
            out[d % nd] = length
        elif name == "flatten":
            if nd == 0:
                out = [1]
            else:
                a = self.rng.randrange(nd)
                b = self.rng.randrange(a, nd)
                if self.chance(0.6):
                    args = [a, b]
                out = [*shape[:a], _numel(shape[a : b + 1]), *shape[b + 1 :]]
                if not args:
                    out = [_numel(shape)]
        elif name == "flip":
            if nd == 0:
                return False
            ds = self.rng.sample(range(nd), self.rng.randint(1, nd))
            args = [ds] if self.chance(0.5) else ds
            out = shape
            view = False
        elif name == "repeat":
            reps = [self.pick([1, 2]) for _ in range(nd + self.pick([0, 0, 1]))]
            if not reps:
                return False
            padded = (1,) * (len(reps) - nd) + tuple(shape)
            out = [a * b for a, b in zip(padded, reps)]
            args = reps
            view = False
        else:  # contiguous, clone, detach
            out = shape
            view = name != "clone"
        if name == "T":
            step = {"k": "attr", "x": x, "name": "T", "label": "T"}
        elif self.chance(0.2) and _has_func_form(name, args):
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x), *args]}
            step["label"] = "torch." + name
        else:
            step = {"k": "method", "x": x, "name": name, "args": args, "label": name}
        meta = self.out_meta(tuple(out), m.dtype, [x], view_of=x if view else None)
        if name == "detach":
            meta = _Meta(tuple(out), m.dtype, False, True, vleaf=False, expanded=m.expanded)
        if name == "expand":
            meta.expanded = meta.expanded or out != list(shape)
        if name == "clone":
            meta.expanded = False
        self.emit(step, [meta])
        return True

    def basic_index(self, shape):
        """A basic index (ints, slices, None, ``...``) and the shape it selects."""
        nd = len(shape)
        if nd == 0:
            return self.pick([None, {"ellipsis": 1}, _tup([None, None])]), ()  # shape fixed below
        if self.chance(0.15):
            return self.ellipsis_index(shape)
        items, out = [], []
        k = self.rng.randint(1, nd)
        for d in range(k):
            size = shape[d]
            r = self.rng.random()
            if r < 0.3 and size > 0:
                items.append(self.rng.randint(-size, size - 1))
            elif r < 0.45:
                items.append({"slice": [None, None, None]})
                out.append(size)
            else:
                start = self.pick([None, 0, 1, -1, -2])
                stop = self.pick([None, None, 2, -1, 3])
                step = self.pick([None, None, 1, 2, 3])
                items.append({"slice": [start, stop, step]})
                out.append(len(range(size)[slice(start, stop, step)]))
            if self.chance(0.1):
                items.append(None)
                out.append(1)
        out += shape[k:]
        idx = items[0] if len(items) == 1 and self.chance(0.5) else _tup(items)
        return idx, tuple(out)

    def ellipsis_index(self, shape):
        """``x[..., i, ::2]``: the last dims indexed after an ellipsis."""
        nd = len(shape)
        d = self.rng.randrange(nd)
        items, out = [{"ellipsis": 1}], list(shape[:d])
        for s in shape[d:]:
            if self.chance(0.4) and s > 0:
                items.append(self.rng.randint(-s, s - 1))
            else:
                items.append({"slice": [None, None, 2]})
                out.append(len(range(s)[::2]))
        return _tup(items), tuple(out)

    def adv_index(self, shape, unique=False):
        """An advanced index on dim 0: a list of ints or an int64 tensor."""
        size = shape[0]
        if size == 0:
            return None, None
        k = self.rng.randint(1, 3)
        if unique:
            vals = [v - size * self.chance(0.3) for v in self.rng.sample(range(size), min(k, size))]
        else:
            vals = [self.rng.randint(-size, size - 1) for _ in range(k)]
        out = (len(vals), *shape[1:])
        if self.chance(0.4):
            idx = self.new_input((len(vals),), "int64", False, [v % size for v in vals], "i")
            return _ref(idx), out
        return vals, out

    def op_getitem(self):
        x = self.choose(lambda m: m.shape is not None and m.dtype != "int64")
        if x is None:
            return False
        m = self.vars[x]
        view = True
        r = self.rng.random()
        if r < 0.7 or m.nd == 0:
            idx, shape = self.basic_index(m.shape)
            if m.nd == 0:
                shape = _zero_d_index_shape(idx)
            label = "getitem[basic]"
        elif r < 0.85:
            idx, shape = self.adv_index(m.shape)
            if idx is None:
                return False
            label, view = "getitem[adv]", False
        else:
            mask = self.choose(lambda mm: mm.dtype == "bool" and mm.shape == m.shape)
            if mask is None:
                mask = self.new_input(m.shape, "bool", False, prefix="m")
            idx, shape, label, view = _ref(mask), None, "getitem[mask]", False
        step = {"k": "getitem", "x": x, "idx": idx, "label": label}
        self.emit(step, [self.out_meta(shape, m.dtype, [x], view_of=x if view else None)])
        return True

    def op_setitem(self):
        x = self.inplace_target()
        if x is None:
            return False
        m = self.vars[x]
        if m.shape is None:
            return False
        r = self.rng.random()
        tensor_value = self.chance(0.6)
        if r < 0.65 or m.nd == 0:
            idx, shape = self.basic_index(m.shape)
            if m.nd == 0:
                shape = _zero_d_index_shape(idx)
            label = "setitem[basic]"
        elif r < 0.85:
            idx, shape = self.adv_index(m.shape, unique=tensor_value)
            if idx is None:
                return False
            label = "setitem[adv]"
        else:
            mask = self.choose(lambda mm: mm.dtype == "bool" and mm.shape == m.shape)
            if mask is None:
                mask = self.new_input(m.shape, "bool", False, prefix="m")
            idx, shape, label = _ref(mask), None, "setitem[mask]"
        rg = False
        if tensor_value:
            vshape = self.partner_shape(shape, into=True) if shape is not None else ()
            v = self.new_input(vshape, m.dtype if self.chance(0.8) else None)
            rg = self.vars[v].rg
            value = _ref(v)
            label += "=tensor"
        else:
            value = self.number()
            label += "=number"
        step = {"k": "setitem", "x": x, "idx": idx, "v": value, "label": label}
        self.emit_inplace(step, x, rg)
        return True

    def op_matmul(self):
        x = self.float_var(min_nd=1, max_nd=3)
        if x is None:
            return False
        m = self.vars[x]
        shape, nd = m.shape, m.nd
        k = self.pick([1, 2, 3, 3, 0])
        b = shape[0] if nd == 3 else self.pick([2, 1])
        left = self.chance(0.2) and nd <= 2
        if left:  # y @ x
            n = shape[0]
            pshape = self.pick([(n,), (k, n), (b, k, n)])
        else:
            n = shape[-1]
            options = [(n,), (n, k), (b, n, k)]
            if nd == 3:
                options.append((1, n, k))
            pshape = self.pick(options)
        dtype = m.dtype if self.chance(0.97) else self.pick(FLOATS)
        y = self.new_input(pshape, dtype)
        a, c = (y, x) if left else (x, y)
        sa, sc = self.vars[a].shape, self.vars[c].shape
        out = _matmul_shape(sa, sc)
        if out is None:
            return False
        special = None
        if len(sa) == 2 and len(sc) == 2:
            special = "mm"
        elif len(sa) == 2 and len(sc) == 1:
            special = "mv"
        elif len(sa) == 1 and len(sc) == 1:
            special = "dot"
        elif len(sa) == 3 and len(sc) == 3 and sa[0] == sc[0]:
            special = "bmm"
        r = self.rng.random()
        if r < 0.35:
            step = {"k": "binop", "op": "matmul", "a": _ref(a), "b": _ref(c), "label": "@"}
        elif r < 0.55:
            step = {"k": "method", "x": a, "name": "matmul", "args": [_ref(c)], "label": "matmul"}
        elif r < 0.7:
            step = {"k": "func", "mod": "torch", "name": "matmul", "args": [_ref(a), _ref(c)]}
            step["label"] = "torch.matmul"
        elif special is not None:
            step = {"k": "method", "x": a, "name": special, "args": [_ref(c)], "label": special}
        elif nd == 1 and self.chance(0.5):
            z = self.new_input((self.pick([2, 3, 0]),), m.dtype)
            step = {"k": "method", "x": x, "name": "outer", "args": [_ref(z)], "label": "outer"}
            out = (shape[0], self.vars[z].shape[0])
            a, c = x, z
        else:
            step = {"k": "binop", "op": "matmul", "a": _ref(a), "b": _ref(c), "label": "@"}
        dtype = result_dtype([(self.vars[a].dtype, 1), (self.vars[c].dtype, 1)])
        self.emit(step, [self.out_meta(out, dtype, [a, c])])
        return True

    def op_join(self):
        x = self.float_var(min_nd=1)
        if x is None:
            return False
        m = self.vars[x]
        shape, nd = m.shape, m.nd
        r = self.rng.random()
        if r < 0.55:
            stack = r < 0.2
            d = self.rng.randint(-nd - 1, nd) if stack else self.dim(nd)
            parts = [x]
            for _ in range(self.pick([1, 1, 2])):
                if self.chance(0.25):
                    parts.append(x)
                    continue
                pshape = list(shape)
                if not stack:
                    pshape[d % nd] = self.pick([0, 1, 2])
                parts.append(self.new_input(tuple(pshape), self.pick([m.dtype, m.dtype, None])))
            if stack:
                out = list(shape)
                out.insert(d % (nd + 1), len(parts))
            else:
                out = list(shape)
                out[d % nd] = sum(self.vars[p].shape[d % nd] for p in parts)
            name = "stack" if stack else "cat"
            tensors = [_ref(p) for p in parts]
            if self.chance(0.3):
                tensors = _tup(tensors)
            kw = {"dim": d} if self.chance(0.5) else {}
            args = [tensors] if kw else [tensors, d]
            step = {"k": "func", "mod": "torch", "name": name, "args": args, "kw": kw}
            step["label"] = name
            dtype = m.dtype
            for p in parts:
                dtype = _promote(dtype, self.vars[p].dtype)
            self.emit(step, [self.out_meta(tuple(out), dtype, parts)])
            return True
        d = self.dim(nd)
        size = shape[d % nd]
        name = self.pick(["split", "split", "chunk", "unbind"])
        if name == "unbind":
            if size > 4:
                return False
            pieces = [tuple(s for i, s in enumerate(shape) if i != d % nd)] * size
            args = [d]
        elif name == "chunk":
            n = self.pick([1, 2, 3])
            if size == 0:
                sizes = [0] * n
            else:
                cs = -(-size // n)
                count = -(-size // cs)
                sizes = [cs] * (count - 1) + [size - cs * (count - 1)]
            args = [n, d]
        else:
            if self.chance(0.4) and size > 0:
                sizes, left = [], size
                while left > 0:
                    s = self.rng.randint(0, left)
                    sizes.append(s)
                    left -= s
                args = [list(sizes), d]
            else:
                s = self.pick([1, 2])
                sizes = [s] * (size // s) + ([size % s] if size % s else [])
                if size == 0:
                    sizes = [0]
                args = [s, d]
        if name != "unbind":
            pieces = []
            for s in sizes:
                p = list(shape)
                p[d % nd] = s
                pieces.append(tuple(p))
        if not pieces or len(pieces) > 5:
            return False
        if self.chance(0.3) and name != "chunk":
            step = {"k": "func", "mod": "torch", "name": name, "args": [_ref(x), *args]}
            step["label"] = "torch." + name
        else:
            step = {"k": "method", "x": x, "name": name, "args": args, "label": name}
        step["multi"] = True
        metas = [self.out_meta(p, m.dtype, [x], view_of=x) for p in pieces]
        for meta in metas:  # in-place writes to the outputs of split/unbind are errors
            meta.vleaf = True
        self.emit(step, metas)
        return True

    def op_convert(self):
        x = self.choose(lambda m: m.shape is not None)
        if x is None:
            return False
        m = self.vars[x]
        if m.is_float:
            target = self.pick(["float32", "float64"])
            if self.chance(0.5):
                step = {"k": "method", "x": x, "name": "to", "args": [{"dtype": target}]}
            else:
                name = "float" if target == "float32" else "double"
                step = {"k": "method", "x": x, "name": name, "args": []}
            step["label"] = "to(float)"
            meta = self.out_meta(m.shape, target, [x], view_of=x if target == m.dtype else None)
            if target == m.dtype:  # .to(same dtype) returns the tensor itself
                meta = _Meta(m.shape, m.dtype, m.rg, m.leaf, m.vleaf, m.expanded)
        else:
            r = self.rng.random()
            if r < 0.5:
                target = self.pick(["float32", "float64"])
                name = "float" if target == "float32" else "double"
                step = {"k": "method", "x": x, "name": name, "args": [], "label": "int->float"}
                meta = _Meta(m.shape, target, False, True)
            elif r < 0.8:
                step = {"k": "method", "x": x, "name": "sum", "args": [], "label": "sum(int)"}
                meta = _Meta((), "int64", False, True)
            else:
                y = self.partner(m.shape)
                my = self.vars[y]
                step = {"k": "binop", "op": self.pick(["add", "mul"]), "a": _ref(x)}
                step["b"], step["label"] = _ref(y), "int+float"
                shape = _broadcast(m.shape, my.shape)
                meta = self.out_meta(shape, result_dtype([(m.dtype, m.nd), (my.dtype, my.nd)]),
                                     [y])  # fmt: skip
        self.emit(step, [meta])
        return True

    def op_gather(self):
        x = self.float_var(min_nd=1)
        if x is None:
            return False
        m = self.vars[x]
        shape, nd = m.shape, m.nd
        d = self.dim(nd)
        size = shape[d % nd]
        if size == 0:
            return False
        r = self.rng.random()
        if r < 0.4:
            idx = self.index_input((self.pick([1, 2, 3, 0]),), size)
            out = list(shape)
            out[d % nd] = self.vars[idx].shape[0]
            if self.chance(0.5):
                step = {"k": "method", "x": x, "name": "index_select", "args": [d, _ref(idx)]}
            else:
                step = {"k": "func", "mod": "torch", "name": "index_select"}
                step["args"] = [_ref(x), d, _ref(idx)]
            step["label"] = "index_select"
            self.emit(step, [self.out_meta(tuple(out), m.dtype, [x])])
            return True
        ishape = [self.rng.randint(0, s) if s > 1 else s for s in shape]
        ishape[d % nd] = self.pick([1, 2, 3])
        if r < 0.7:
            idx = self.index_input(tuple(ishape), size)
            step = {"k": "method", "x": x, "name": "gather", "args": [d, _ref(idx)]}
            step["label"] = "gather"
            self.emit(step, [self.out_meta(tuple(ishape), m.dtype, [x])])
            return True
        ishape[d % nd] = self.rng.randint(1, max(1, size))
        idx = self.index_input(tuple(ishape), size)
        src = self.new_input(tuple(ishape), m.dtype)
        if self.chance(0.3) and self.inplace_ok(m):
            step = {"k": "method", "x": x, "name": "scatter_add_"}
            step["args"], step["label"] = [d, _ref(idx), _ref(src)], "scatter_add_"
            self.emit_inplace(step, x, self.vars[src].rg)
            return True
        step = {"k": "method", "x": x, "name": "scatter_add", "args": [d, _ref(idx), _ref(src)]}
        step["label"] = "scatter_add"
        self.emit(step, [self.out_meta(shape, m.dtype, [x, src])])
        return True

    def op_retain_grad(self):
        x = self.choose(lambda m: m.rg and not m.leaf and m.shape is not None)
        if x is None or x in self.retained:
            return False
        self.steps.append({"k": "method", "x": x, "name": "retain_grad", "args": [], "out": [],
                           "label": "retain_grad"})  # fmt: skip
        self.retained.append(x)
        return True

    OPS = (
        ("op_unary", 20), ("op_polygamma", 1), ("op_activation", 4), ("op_binary", 14),
        ("op_scalar", 10), ("op_inplace", 6), ("op_compare", 3), ("op_logic", 2),
        ("op_where", 4), ("op_masked_fill", 3), ("op_clamp", 3), ("op_reduce", 12),
        ("op_view", 14), ("op_getitem", 6), ("op_setitem", 6), ("op_matmul", 5),
        ("op_join", 5), ("op_convert", 3), ("op_gather", 3), ("op_retain_grad", 1),
    )  # fmt: skip

    def build(self):
        rng = self.rng
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            shape = self.random_shape()
            self.new_input(shape, rg=self.chance(0.9))
        n_ops = rng.randint(2, 8)
        names = [n for n, _ in self.OPS]
        weights = [w for _, w in self.OPS]
        emitted = 0
        attempts = 0
        while emitted < n_ops and attempts < 200:
            attempts += 1
            self.no_grad = self.chance(0.07)
            before = len(self.steps)
            if getattr(self, rng.choices(names, weights)[0])() and len(self.steps) > before:
                emitted += 1
        self.no_grad = False
        # the output differentiated: the newest float variable, preferably requiring grad
        floats = [n for n in self.order if self.vars[n].is_float and n not in self.input_names()]
        with_grad = [n for n in floats if self.vars[n].rg]
        pool = with_grad if with_grad and self.chance(0.95) else floats
        target = pool[-1] if pool and self.chance(0.7) else (self.pick(pool) if pool else None)
        if target is None:
            target = self.order[-1]
        final = {"mode": "backward" if self.chance(0.6) else "grad2", "target": target}
        if final["mode"] == "backward" and self.chance(0.1):
            final["twice"] = True
        if self.retained:
            final["retained"] = list(self.retained)
        return {
            "id": f"fz-{self.seed}",
            "seed": self.seed,
            "version": GENERATOR_VERSION,
            "inputs": self.inputs,
            "steps": self.steps,
            "final": final,
        }

    def input_names(self):
        return {i["name"] for i in self.inputs}


def _has_func_form(name, args):
    """Whether ``torch.<name>(x, *args)`` takes the arguments as the method does."""
    if name in ("transpose", "t", "squeeze", "unsqueeze", "flatten"):
        return True
    if name == "permute":  # torch.permute(x, dims) takes one sequence
        return bool(args) and isinstance(args[0], list)
    if name == "reshape":  # torch.reshape(x, shape) likewise
        return bool(args) and isinstance(args[0], dict)
    return False


def _zero_d_index_shape(idx):
    """Shape of ``x[idx]`` for a 0-d ``x`` (each None adds a dim of 1)."""
    items = idx["tuple"] if isinstance(idx, dict) and "tuple" in idx else [idx]
    return tuple(1 for i in items if i is None)


def _matmul_shape(a, b):
    if not a or not b:
        return None
    if len(a) == 1 and len(b) == 1:
        return () if a[0] == b[0] else None
    if len(a) == 1:
        return (*b[:-2], b[-1]) if a[0] == b[-2] else None
    if len(b) == 1:
        return a[:-1] if a[-1] == b[0] else None
    if a[-1] != b[-2]:
        return None
    batch = _broadcast(a[:-2], b[:-2])
    if batch is None:
        return None
    return (*batch, a[-2], b[-1])


def generate(seed):
    """The program of ``seed`` (deterministic: plain data, see the module docstring)."""
    return _Generator(seed).build()


# ---------------------------------------------------------------------------------------------
# running


def _enc_float(v):
    if math.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def _enc_scalar(v):
    if isinstance(v, float) and not math.isfinite(v):
        return _enc_float(v)
    return v


def _enc(value):
    """Nested lists of numbers with NaN/inf as strings."""
    if isinstance(value, (list, tuple)):
        return [_enc(v) for v in value]
    if isinstance(value, float):
        return _enc_scalar(value)
    return value


def _dec_scalar(v):
    return float(v) if isinstance(v, str) else v


def _nest(flat, shape):
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return list(flat)
    step = _numel(shape[1:])
    return [_nest(flat[i * step : (i + 1) * step], shape[1:]) for i in range(shape[0])]


def _make_input(spec, lib):
    dtype = getattr(lib, spec["dtype"])
    shape = spec["shape"]
    rg = spec["requires_grad"]
    if _numel(shape) == 0:
        return lib.zeros(tuple(shape), dtype=dtype, requires_grad=rg)
    data = _nest([_dec_scalar(v) for v in spec["data"]], shape)
    return lib.tensor(data, dtype=dtype, requires_grad=rg)


def _decode(arg, env, lib):
    if isinstance(arg, list):
        return [_decode(a, env, lib) for a in arg]
    if isinstance(arg, dict):
        if "ref" in arg:
            return env[arg["ref"]]
        if "tuple" in arg:
            return tuple(_decode(a, env, lib) for a in arg["tuple"])
        if "slice" in arg:
            return slice(*arg["slice"])
        if "ellipsis" in arg:
            return Ellipsis
        if "dtype" in arg:
            return getattr(lib, arg["dtype"])
        if "f" in arg:
            return float(arg["f"])
        raise ValueError(f"bad argument {arg!r}")
    return arg


def _execute(step, env, lib):
    def arg(a):
        return _decode(a, env, lib)

    kind = step["k"]
    args = [arg(a) for a in step.get("args", [])]
    kw = {k: arg(v) for k, v in step.get("kw", {}).items()}
    if kind == "method":
        return getattr(env[step["x"]], step["name"])(*args, **kw)
    if kind == "attr":
        return getattr(env[step["x"]], step["name"])
    if kind == "func":
        mod = lib if step["mod"] == "torch" else lib.nn.functional
        return getattr(mod, step["name"])(*args, **kw)
    if kind == "binop":
        return getattr(operator, step["op"])(arg(step["a"]), arg(step["b"]))
    if kind == "unop":
        return getattr(operator, step["op"])(arg(step["a"]))
    if kind == "iop":
        return getattr(operator, step["op"])(env[step["x"]], arg(step["b"]))
    if kind == "getitem":
        return env[step["x"]][arg(step["idx"])]
    if kind == "setitem":
        x = env[step["x"]]
        x[arg(step["idx"])] = arg(step["v"])
        return x
    raise ValueError(f"bad step kind {kind!r}")


def record(obj, lib):
    """Plain data for a step's output: a tensor record, a list of them, or ``{"py": value}``."""
    if obj is None:
        return None
    if isinstance(obj, (list, tuple)):
        return {"seq": [record(o, lib) for o in obj]}
    if isinstance(obj, lib.Tensor):
        gf = obj.grad_fn
        zero_tensor = getattr(obj, "_is_zerotensor", None)
        if zero_tensor is not None and zero_tensor():
            # PyTorch's storage-less zeros (some double-backward formulas): tolist() fails or
            # crashes on them
            value = _nest([0.0] * obj.numel(), list(obj.shape))
        else:
            value = obj.tolist()
        return {
            "value": _enc(value),
            "dtype": str(obj.dtype).rsplit(".", 1)[-1],
            "shape": list(obj.shape),
            "requires_grad": bool(obj.requires_grad),
            "is_leaf": bool(obj.is_leaf),
            "grad_fn": None if gf is None else type(gf).__name__,
        }
    if isinstance(obj, (bool, int, float)):
        return {"py": _enc_scalar(obj)}
    return {"py": type(obj).__name__}


def _error(where, exc):
    return {"where": where, "type": type(exc).__name__, "msg": str(exc)[:400]}


_PASS_THROUGH = (KeyboardInterrupt, SystemExit, GeneratorExit)


def run(program, lib):
    """Runs ``program`` with ``lib`` (``torch`` or ``ferrograd``); plain-data result.

    ``{"steps": [[record, ...] per step], "final": {name: record} (the variables changed since
    they were made), "grads": {...} or None,
    "error": None or {"where", "type", "msg"}}``. ``where`` is ``"inputs"``, ``"step N"``,
    ``"final"`` (with ``"variable"``: looking at it raised), ``"backward"``, ``"backward2"``,
    ``"grad1"`` or ``"grad2"``; nothing after the first exception runs.
    """
    result = {"steps": [], "final": None, "grads": None, "error": None}
    env = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            for spec in program["inputs"]:
                env[spec["name"]] = _make_input(spec, lib)
            initial = [[record(env[spec["name"]], lib)] for spec in program["inputs"]]
        except BaseException as exc:
            if isinstance(exc, _PASS_THROUGH):
                raise
            result["error"] = _error("inputs", exc)
            return result
        for i, step in enumerate(program["steps"]):
            try:
                with lib.no_grad() if step.get("ng") else nullcontext():
                    out = _execute(step, env, lib)
                names = step["out"]
                if len(names) > 1 or step.get("multi"):
                    outs = list(out)
                    for name, o in zip(names, outs):
                        env[name] = o
                    result["steps"].append([record(o, lib) for o in outs])
                elif names:
                    env[names[0]] = out
                    result["steps"].append([record(out, lib)])
                else:
                    result["steps"].append([])
            except BaseException as exc:
                if isinstance(exc, _PASS_THROUGH):
                    raise
                result["error"] = _error(f"step {i}", exc)
                return result
        where = "final"
        try:
            result["final"] = _final_records(program, env, initial, result["steps"], lib)
            result["grads"] = _differentiate(program, env, lib, result)
        except BaseException as exc:
            if isinstance(exc, _PASS_THROUGH):
                raise
            where = result.pop("_where", where)
            result["error"] = _error(where, exc)
            if getattr(exc, "fuzz_variable", None):
                result["error"]["variable"] = exc.fuzz_variable
        result.pop("_where", None)
    return result


def _produced(program, steps):
    """Variable name -> its record when its step produced it."""
    out = {}
    for step, recs in zip(program["steps"], steps):
        for name, rec in zip(step["out"], recs):
            out[name] = rec
    return out


def _final_records(program, env, initial, steps, lib):
    """Records of the variables that changed since they were made (in-place writes through
    aliases and views), after the last step."""
    produced = _produced(program, steps)
    for spec, recs in zip(program["inputs"], initial):
        produced[spec["name"]] = recs[0]
    final = {}
    for name, t in env.items():
        try:
            rec = record(t, lib)
        except Exception as exc:  # e.g. PyTorch: grad_fn of a stale no_grad view
            exc.fuzz_variable = name
            raise
        if name not in produced or produced[name] != rec:
            final[name] = rec
    return final


def _differentiate(program, env, lib, result):
    final = program["final"]
    if final["mode"] == "none":
        return None
    target = env[final["target"]]
    leaf_names = [i["name"] for i in program["inputs"] if i["requires_grad"]]
    leaves = [env[n] for n in leaf_names]
    grads = {}
    if final["mode"] == "backward":
        result["_where"] = "backward"
        loss = target.sum()
        if final.get("twice"):
            loss.backward(retain_graph=True)
            result["_where"] = "backward2"
        loss.backward()
        result["_where"] = "final"
        grads["leaf"] = {n: record(t.grad, lib) for n, t in zip(leaf_names, leaves)}
        grads["retained"] = {n: record(env[n].grad, lib) for n in final.get("retained", [])}
        return grads
    result["_where"] = "grad1"
    first = lib.autograd.grad(target.sum(), leaves, create_graph=True, allow_unused=True)
    grads["first"] = [record(g, lib) for g in first]
    terms = [(g * g).sum() for g in first if g is not None and g.requires_grad]
    if not terms:
        grads["second"] = None
        return grads
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    result["_where"] = "grad2"
    second = lib.autograd.grad(total, leaves, allow_unused=True)
    grads["second"] = [record(g, lib) for g in second]
    return grads


# ---------------------------------------------------------------------------------------------
# comparing

_PHASES = ["final", "backward", "backward2", "grad1", "grad2"]


def _where_order(where, n_steps):
    if where == "inputs":
        return -1
    if where.startswith("step "):
        return int(where.split()[1])
    return n_steps + _PHASES.index(where)


def _close(e, a, dtype, coarse):
    if isinstance(e, str) or isinstance(a, str):
        return e == a
    if isinstance(e, bool) or isinstance(a, bool) or dtype not in TOLERANCES:
        return e == a and type(e) is type(a)
    rtol, atol = TOLERANCES["float32" if coarse else dtype]
    return abs(e - a) <= atol + rtol * abs(e)


def _flat(v):
    if isinstance(v, list):
        out = []
        for x in v:
            out.extend(_flat(x))
        return out
    return [v]


def _compare_record(where, e, a, add, coarse=False, names=True):
    if e is None or a is None:
        if e is not a:
            add(where, "presence", e is not None, a is not None)
        return
    if "seq" in e or "seq" in a:
        es, as_ = e.get("seq"), a.get("seq")
        if es is None or as_ is None or len(es) != len(as_):
            add(where, "structure", _short(e), _short(a))
            return
        for k, (x, y) in enumerate(zip(es, as_)):
            _compare_record(f"{where}[{k}]", x, y, add, coarse, names)
        return
    if "py" in e or "py" in a:
        if e.get("py") != a.get("py"):
            add(where, "value", e.get("py"), a.get("py"))
        return
    for field in ("dtype", "shape", "requires_grad", "is_leaf"):
        if e[field] != a[field]:
            add(where, field, e[field], a[field])
    if e["dtype"] == a["dtype"] and e["shape"] == a["shape"]:
        ev, av = _flat(e["value"]), _flat(a["value"])
        bad = [k for k, (x, y) in enumerate(zip(ev, av)) if not _close(x, y, e["dtype"], coarse)]
        if bad or len(ev) != len(av):
            k = bad[0] if bad else 0
            add(where, "value", ev[k] if ev else None, av[k] if av else None)
    if names and e["grad_fn"] != a["grad_fn"]:
        add(where, "grad_fn", e["grad_fn"], a["grad_fn"])


def _short(r):
    return str(r)[:80]


def _changed(rec):
    return "unchanged" if rec is None else _flat(rec["value"])[:1]


def _dtypes(rec):
    if isinstance(rec, dict):
        if "dtype" in rec:
            yield rec["dtype"]
        for v in rec.get("seq", []):
            yield from _dtypes(v)


def _uses_float32(expected, program):
    """Whether float32 values take part: then float64 results derived from them (``.double()``,
    promotion) are compared with float32's tolerance too."""
    if program and any(i["dtype"] == "float32" for i in program["inputs"]):
        return True
    return any(d == "float32" for recs in expected["steps"] for r in recs for d in _dtypes(r))


def compare(expected, actual, program=None):
    """The differences between two ``run`` results, in program order ([] when they agree).

    Each is ``{"where", "field", "expected", "actual", "label"}``; ``field`` is ``value``,
    ``dtype``, ``shape``, ``requires_grad``, ``is_leaf``, ``presence`` (a gradient None on one
    side only), ``structure``, ``exception`` or ``grad_fn`` (the node name, reported apart).
    ``label`` names the op of the step (from ``program``) or the phase. Values are compared
    with ``TOLERANCES`` (float32's whenever float32 values take part), NaN and inf exactly.
    ``grad_fn`` names of the gradients themselves (double-backward graphs) are not compared:
    the README documents them as differing.
    """
    diffs = []
    steps = program["steps"] if program else []

    producer = {n: step_label(s) for s in steps for n in s["out"]}

    def add(where, field, e, a):
        head = where.split("[")[0].strip()
        if head.startswith("step ") and steps:
            step = steps[int(head.split()[1])]
            label = step_label(step) + (" under no_grad" if step.get("ng") else "")
        elif head.startswith("final "):
            label = "final value of " + producer.get(head.split()[1], "an input")
        elif head.startswith("grad "):
            label = "grad"
        elif head.startswith("second"):
            label = "second-order grad"
        elif head.startswith("first"):
            label = "first-order grad"
        else:
            label = head
        diffs.append({"where": where, "field": field, "expected": e, "actual": a, "label": label})

    n = len(steps) if steps else max(len(expected["steps"]), len(actual["steps"]))
    coarse = _uses_float32(expected, program)
    ee, ae = expected["error"], actual["error"]
    stop = min(
        _where_order(ee["where"], n) if ee else 10**9,
        _where_order(ae["where"], n) if ae else 10**9,
    )
    for i, (es, as_) in enumerate(zip(expected["steps"], actual["steps"])):
        if i >= stop:
            break
        if len(es) != len(as_):
            add(f"step {i}", "structure", len(es), len(as_))
            continue
        for k, (x, y) in enumerate(zip(es, as_)):
            _compare_record(f"step {i}" + (f"[{k}]" if len(es) > 1 else ""), x, y, add, coarse)
    if stop > n + _PHASES.index("final") and expected["final"] and actual["final"]:
        e_prod = _produced(program, expected["steps"]) if program else {}
        a_prod = _produced(program, actual["steps"]) if program else {}
        for name in sorted(set(expected["final"]) | set(actual["final"])):
            e = expected["final"].get(name, e_prod.get(name))
            a = actual["final"].get(name, a_prod.get(name))
            if e is None or a is None:  # an input changed by one library only
                add(f"final {name}", "value", _changed(e), _changed(a))
                continue
            _compare_record(f"final {name}", e, a, add, coarse)
    eg, ag = expected["grads"], actual["grads"]
    if eg is not None and ag is not None:
        for part in ("leaf", "retained"):
            for name, e in (eg.get(part) or {}).items():
                _compare_record(f"grad {name}", e, (ag.get(part) or {}).get(name), add, coarse)
        for part in ("first", "second"):
            el, al = eg.get(part), ag.get(part)
            if el is None and al is None:
                continue
            if el is None or al is None or len(el) != len(al):
                add(f"{part} grads", "presence", el is not None, al is not None)
                continue
            for k, (x, y) in enumerate(zip(el, al)):
                _compare_record(f"{part} grad [{k}]", x, y, add, coarse, names=False)
    if (ee is None) != (ae is None) or (
        ee and ae and (ee["where"] != ae["where"] or ee["type"] != ae["type"])
    ):
        where = ee["where"] if ee and (not ae or stop == _where_order(ee["where"], n)) else None
        where = where or ae["where"]
        add(where, "exception", ee and ee["type"], ae and ae["type"])
    order = {"exception": 1}
    diffs.sort(key=lambda d: (_diff_order(d["where"], n), order.get(d["field"], 0)))
    return diffs


def _diff_order(where, n):
    head = where.split("[")[0].strip()
    if head.startswith("step "):
        return int(head.split()[1])
    if head in _PHASES:
        return n + _PHASES.index(head)
    if head.startswith("final "):
        return n
    return n + 1  # gradients


def is_panic(result):
    err = result and result.get("error")
    return bool(err) and (err["type"] == "PanicException" or "internal error" in err["msg"])


VIEW_OPS = {
    "t", "T", "transpose", "permute", "view", "reshape", "expand", "unsqueeze", "squeeze",
    "select", "narrow", "flatten", "getitem[basic]", "split", "chunk", "unbind",
}  # fmt: skip
_LOCATED = ("step ",)


def step_label(step):
    """The op of a step as grouped in reports (method and function forms together)."""
    label = step.get("label", "?")
    for prefix in ("torch.", "Tensor."):
        if label.startswith(prefix) and not label.startswith("torch.pow(number"):
            label = label[len(prefix) :]
    return label


def is_inplace(step):
    """Whether a step writes into an existing tensor (its output aliases it)."""
    if step["k"] in ("iop", "setitem"):
        return True
    return step["k"] == "method" and step["name"].endswith("_") and step["name"] != "requires_grad_"


def chain_label(step):
    """A step in the op chain of a class key: in-place writes are one token."""
    return "in-place" if is_inplace(step) else step_label(step)


def classify(diffs, program=None, chain=False):
    """``(kind, key)`` of the first difference that is not a node name; kind is ``"agree"``,
    ``"node name"``, ``"exception"`` or ``"divergence"``.

    ``key`` names the field and the op of the step where it first differs, or the phase
    (gradients, values after the last step, backward) when no step output differs; with
    ``chain`` (for a shrunk ``program``) such a phase key also lists the program's ops (any
    in-place write as "in-place").
    Requires_grad/is_leaf differences of views made under ``no_grad`` form one class.
    """
    real = [d for d in diffs if d["field"] != "grad_fn"]
    if not real:
        return ("node name", diffs[0]["label"]) if diffs else ("agree", None)
    d = real[0]
    label = d["label"]
    if d["field"] in ("requires_grad", "is_leaf") and label.endswith(" under no_grad"):
        if label[: -len(" under no_grad")] in VIEW_OPS:
            label = "a view made under no_grad"
    if d["field"] == "exception":
        key = f"{d['expected']} vs {d['actual']} at {label}"
    else:
        key = f"{d['field']} at {label}"
    if chain and program is not None and not d["where"].startswith(_LOCATED):
        key += " <- " + " > ".join(chain_label(s) for s in program["steps"])
    return ("exception" if d["field"] == "exception" else "divergence"), key


# ---------------------------------------------------------------------------------------------
# rendering as Python


def _src(arg, subscript=False):
    if isinstance(arg, list):
        return "[" + ", ".join(_src(a) for a in arg) + "]"
    if isinstance(arg, dict):
        if "ref" in arg:
            return arg["ref"]
        if "tuple" in arg:
            items = [_src(a, subscript) for a in arg["tuple"]]
            if subscript:
                return ", ".join(items) if len(items) != 1 else items[0] + ","
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if "slice" in arg:
            a, b, c = ("" if v is None else str(v) for v in arg["slice"])
            return f"{a}:{b}" + (f":{c}" if c else "")
        if "ellipsis" in arg:
            return "..."
        if "dtype" in arg:
            return f"torch.{arg['dtype']}"
        if "f" in arg:
            return f"float({arg['f']!r})"
    if arg is None and subscript:
        return "None"
    return repr(arg)


def _call_args(step):
    parts = [_src(a) for a in step.get("args", [])]
    parts += [f"{k}={_src(v)}" for k, v in step.get("kw", {}).items()]
    return ", ".join(parts)


def _step_src(step):
    k = step["k"]
    if k == "method":
        expr = f"{step['x']}.{step['name']}({_call_args(step)})"
    elif k == "attr":
        expr = f"{step['x']}.{step['name']}"
    elif k == "func":
        mod = "torch" if step["mod"] == "torch" else "torch.nn.functional"
        expr = f"{mod}.{step['name']}({_call_args(step)})"
    elif k == "binop":
        expr = f"{_src(step['a'])} {BINOP_SYMBOLS[step['op']]} {_src(step['b'])}"
    elif k == "unop":
        expr = f"{UNOP_SYMBOLS[step['op']]}{_src(step['a'])}"
    elif k == "iop":
        lines = [f"{step['x']} {IOP_SYMBOLS[step['op']]} {_src(step['b'])}"]
        lines += [f"{o} = {step['x']}" for o in step["out"]]
        return lines
    elif k == "getitem":
        expr = f"{step['x']}[{_src(step['idx'], subscript=True)}]"
    elif k == "setitem":
        lines = [f"{step['x']}[{_src(step['idx'], subscript=True)}] = {_src(step['v'])}"]
        lines += [f"{o} = {step['x']}" for o in step["out"]]
        return lines
    else:
        raise ValueError(k)
    outs = step["out"]
    if not outs:
        return [expr]
    if len(outs) == 1 and not step.get("multi"):
        return [f"{outs[0]} = {expr}"]
    return [", ".join(outs) + (", = " if len(outs) == 1 else " = ") + expr]


def _input_src(spec):
    dtype = f"torch.{spec['dtype']}"
    rg = ", requires_grad=True" if spec["requires_grad"] else ""
    shape = spec["shape"]
    if _numel(shape) == 0:
        return f"{spec['name']} = torch.zeros({tuple(shape)!r}, dtype={dtype}{rg})"
    data = _nest(spec["data"], shape)
    text = repr(data).replace("'nan'", "nan").replace("'-inf'", "-inf").replace("'inf'", "inf")
    return f"{spec['name']} = torch.tensor({text}, dtype={dtype}{rg})"


def to_python(program, show=None):
    """The program as a script for ``import ferrograd as torch`` (or ``import torch``).

    ``show``: variable names to print after the steps (default: the last step's outputs).
    """
    lines = ["import ferrograd as torch", ""]
    if any(isinstance(v, str) for i in program["inputs"] for v in i["data"]):
        lines.insert(1, "nan, inf = float('nan'), float('inf')")
    lines += [_input_src(spec) for spec in program["inputs"]]
    for step in program["steps"]:
        body = _step_src(step)
        if step.get("ng"):
            lines.append("with torch.no_grad():")
            lines += ["    " + b for b in body]
        else:
            lines += body
    if show is None:
        show = program["steps"][-1]["out"] if program["steps"] else []
    for name in show:
        lines.append(f"print({name})")
    final = program["final"]
    leaves = [i["name"] for i in program["inputs"] if i["requires_grad"]]
    target = final.get("target")
    if final["mode"] == "none":
        pass
    elif final["mode"] == "backward":
        if final.get("twice"):
            lines.append(f"{target}.sum().backward(retain_graph=True)")
        lines.append(f"{target}.sum().backward()")
        lines += [f"print({n}.grad)" for n in leaves + final.get("retained", [])]
    else:
        lv = "[" + ", ".join(leaves) + "]"
        lines.append(
            f"gs = torch.autograd.grad({target}.sum(), {lv}, create_graph=True, allow_unused=True)"
        )
        lines.append("print(gs)")
        lines.append("terms = [(g * g).sum() for g in gs if g is not None and g.requires_grad]")
        lines.append("if terms:")
        lines.append(f"    print(torch.autograd.grad(sum(terms[1:], terms[0]), {lv}, "
                     "allow_unused=True))")  # fmt: skip
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# shrinking (used by tools/run_fuzz.py)


def _refs(obj):
    if isinstance(obj, dict):
        if "ref" in obj:
            yield obj["ref"]
        for v in obj.values():
            yield from _refs(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _refs(v)


def step_uses(step):
    """Variable names a step reads."""
    names = set(_refs({k: v for k, v in step.items() if k not in ("out",)}))
    if "x" in step:
        names.add(step["x"])
    return names


def without_step(program, index):
    """``program`` without step ``index`` and everything that depends on its outputs; None when
    nothing differentiable would be left to differentiate."""
    removed = set(program["steps"][index]["out"])
    steps = []
    for i, step in enumerate(program["steps"]):
        if i == index:
            continue
        if step_uses(step) & removed:
            removed |= set(step["out"])
            continue
        steps.append(step)
    return _retarget({**program, "steps": steps}, removed)


def _rename(obj, old, new):
    if isinstance(obj, dict):
        if obj.get("ref") == old:
            return {"ref": new}
        out = {}
        for k, v in obj.items():
            if k == "x" and v == old:
                out[k] = new
            elif k == "out":
                out[k] = v
            else:
                out[k] = _rename(v, old, new)
        return out
    if isinstance(obj, list):
        return [_rename(v, old, new) for v in obj]
    return obj


def _primary_input(step):
    if "x" in step:
        return step["x"]
    for key in ("a", "b", "args"):
        refs = list(_refs(step.get(key)))
        if refs:
            return refs[0]
    return None


def bypass_step(program, index):
    """``program`` with step ``index`` skipped: later uses of its (single) output read its first
    tensor input instead; None when the step has no such input."""
    step = program["steps"][index]
    src = _primary_input(step)
    if src is None or len(step["out"]) != 1:
        return None
    out = step["out"][0]
    steps = program["steps"][:index]
    steps += [_rename(s, out, src) for s in program["steps"][index + 1 :]]
    final = dict(program["final"])
    if final["target"] == out:
        final["target"] = src
    if out in final.get("retained", []):
        final["retained"] = [n for n in final["retained"] if n != out]
    return prune_inputs({**program, "steps": steps, "final": final})


def _retarget(program, removed):
    final = dict(program["final"])
    if final.get("retained"):
        final["retained"] = [n for n in final["retained"] if n not in removed]
        if not final["retained"]:
            del final["retained"]
    if final["target"] in removed:
        produced = [n for s in program["steps"] for n in s["out"]]
        if not produced:
            return None
        final["target"] = produced[-1]
    return prune_inputs({**program, "final": final})


def prune_inputs(program):
    used = {program["final"]["target"], *program["final"].get("retained", [])}
    for step in program["steps"]:
        used |= step_uses(step)
    inputs = [i for i in program["inputs"] if i["name"] in used]
    return {**program, "inputs": inputs}


def shrink_candidates(program):
    """Smaller variants of ``program``, most aggressive first."""
    steps = program["steps"]
    for i in reversed(range(len(steps))):
        p = without_step(program, i)
        if p is not None and p["steps"]:
            yield p
    for i in reversed(range(len(steps))):
        p = bypass_step(program, i)
        if p is not None and p["steps"]:
            yield p
    final = program["final"]
    if final["mode"] == "grad2":
        yield {**program, "final": {"mode": "backward", "target": final["target"]}}
    if final.get("twice"):
        yield {**program, "final": {k: v for k, v in final.items() if k != "twice"}}
    for i, step in enumerate(steps):
        if step.get("ng"):
            s = {k: v for k, v in step.items() if k != "ng"}
            yield {**program, "steps": [*steps[:i], s, *steps[i + 1 :]]}
    for k, spec in enumerate(program["inputs"]):
        if spec["requires_grad"] and sum(i["requires_grad"] for i in program["inputs"]) > 1:
            inputs = list(program["inputs"])
            inputs[k] = {**spec, "requires_grad": False}
            yield {**program, "inputs": inputs}


def _flat_values(rec):
    if "inputdata" in rec:
        return rec["inputdata"]
    return [_enc_scalar(v) for v in _flat(rec["value"])] if rec["shape"] else [rec["value"]]


def operand_records(program, result, index):
    """The records of the tensors step ``index`` reads, as they were when it ran (the inputs'
    from their specs: dtype, shape and values only); None when one is unknown. Writes through
    views are not followed: a base written through its view keeps its older record."""
    inputs = {i["name"]: i for i in program["inputs"]}
    root = {}  # in-place outputs alias the tensor they wrote
    latest = {}  # root name -> its latest record before the step
    for j, st in enumerate(program["steps"][:index]):
        recs = result["steps"][j] if j < len(result["steps"]) else None
        if recs is None or len(recs) != len(st["out"]):
            return None
        for name, rec in zip(st["out"], recs):
            r = root.get(st["x"], st["x"]) if is_inplace(st) else name
            root[name] = r
            latest[r] = rec
    out = {}
    for name in step_uses(program["steps"][index]):
        r = root.get(name, name)
        rec = latest.get(r)
        if rec is None:
            if r not in inputs:
                return None
            spec = inputs[r]
            rec = {"dtype": spec["dtype"], "shape": spec["shape"], "inputdata": spec["data"]}
        if not isinstance(rec, dict) or ("value" not in rec and "inputdata" not in rec):
            return None
        out[name] = rec
    return out


def anchor(program, expected, index):
    """Step ``index`` alone, on the values PyTorch computed for its tensor operands (recorded in
    ``expected``): inputs that do not require grad, nothing differentiated. None when an operand's
    value is unknown. When ferrograd agrees with PyTorch on it, a value difference at that step
    only amplified rounding differences of its operands; when not, it is a one-step reproducer.
    """
    step = program["steps"][index]
    operands = operand_records(program, expected, index)
    if operands is None:
        return None
    specs = []
    for name, rec in sorted(operands.items()):
        if "dtype" not in rec:
            return None
        specs.append(
            {
                "name": name,
                "shape": rec["shape"],
                "dtype": rec["dtype"],
                "data": _flat_values(rec) if _numel(rec["shape"]) else [],
                "requires_grad": False,
            }
        )
    one = {k: v for k, v in step.items() if k != "ng"}
    return {
        "id": f"{program['id']}-step{index}",
        "seed": program["seed"],
        "version": program["version"],
        "inputs": specs,
        "steps": [one],
        "final": {"mode": "none"},
    }


def size(program):
    return len(program["steps"]) * 100 + sum(len(i["data"]) for i in program["inputs"])
