"""What PyTorch's test files import from ``torch.testing._internal``, written with public API.

PyTorch's own test files (kept unmodified under ``upstream/``) import their test-case class,
parametrization, device instantiation and skip decorators from ``torch.testing._internal``, a
private package that ferrograd does not have. This module provides those names, written here
against the public API only, so that the same glue runs under PyTorch (which decides which
tests form the suite) and under ferrograd (the library measured).

``install(lib)`` makes ``import torch`` give ``lib`` (``"torch"`` or ``"ferrograd"``), registers
the glue modules under their ``torch.testing._internal`` names, and turns every name a test file
imports at its top level that ``lib`` lacks into a ``Missing`` placeholder that raises when used:
a missing feature fails the tests that use it, never the whole file.
"""

from __future__ import annotations

import ast
import collections
import contextlib
import enum
import functools
import gc
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import math
import os
import random
import sys
import types
import unittest
import warnings
from collections.abc import Mapping, Sequence

import numpy as np

torch = None  # the library under test, set by install()

SEED = 1234


# ---------------------------------------------------------------------------------------------
# Placeholders for what the library under test lacks
# ---------------------------------------------------------------------------------------------


class MissingFeature(NotImplementedError):
    """Raised when a test touches a name the library under test does not provide."""


class Missing:
    """Stands for ``qualname``, which the library lacks: importing it works, using it raises."""

    def __init__(self, qualname):
        object.__setattr__(self, "_qualname", qualname)
        # named as the class or function it stands for (test generators print and key by it)
        object.__setattr__(self, "__name__", qualname.rsplit(".", 1)[-1])

    def _fail(self, *args, **kwargs):
        raise MissingFeature(f"{self._qualname} is not provided by the library under test")

    __call__ = __enter__ = __iter__ = __len__ = _fail
    __add__ = __radd__ = __mul__ = __rmul__ = __getitem__ = _fail

    def __exit__(self, *args):
        return False

    def __getattr__(self, name):
        return _missing_attribute(self._qualname, name)

    def __mro_entries__(self, bases):
        self._fail()

    def __bool__(self):
        return False

    def __repr__(self):
        return f"<missing {self._qualname}>"


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``torch.X`` as ``ferrograd.X``; a module ferrograd lacks that the test files
    import (``wanted``) becomes a placeholder module whose attributes are ``Missing``."""

    def __init__(self, wanted):
        self.wanted = set(wanted)

    def find_spec(self, name, path=None, target=None):
        if name != "torch" and not name.startswith("torch."):
            return None
        real = "ferrograd" + name[len("torch") :]
        try:
            exists = importlib.util.find_spec(real) is not None
        except ImportError:
            exists = False
        if not exists and name not in self.wanted:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        real = "ferrograd" + spec.name[len("torch") :]
        try:
            return importlib.import_module(real)
        except ImportError:
            module = types.ModuleType(spec.name)
            module.__path__ = []
            module.__getattr__ = functools.partial(_missing_attribute, spec.name)
            return module

    def exec_module(self, module):
        pass


def _top_level_imports(path):
    """(module, [names]) of every ``from torch... import ...`` and ``import torch...`` at the
    top level of the file at ``path``."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("torch"):
            found.append((node.module, [a.name for a in node.names]))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("torch"):
                    found.append((alias.name, []))
    return found


def _attribute_chains(path):
    """Every ``torch.a.b...`` attribute chain written in the file at ``path``, as name lists;
    a ``module_name='X'`` keyword (``common_nn``'s test dictionaries, whose generator looks the
    class up with ``getattr(nn, name)``) counts as ``torch.nn.X``."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    chains = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.keyword)
            and node.arg == "module_name"
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            chains.add(("nn", node.value.value))
        names = []
        while isinstance(node, ast.Attribute):
            names.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id == "torch" and names:
            chains.add(tuple(reversed(names)))
    return chains


def fill_missing_names(paths):
    """Makes the files in ``paths`` loadable when the library lacks names they use: every
    ``from torch.M import name`` at their top level, and every ``torch.a.b`` they write, whose
    name a module (or namespace) of the library lacks, becomes a ``Missing`` placeholder there."""
    for path in paths:
        for chain in _attribute_chains(path):
            owner, qual = torch, "torch"
            for name in chain:
                if not hasattr(owner, name):
                    if isinstance(owner, (types.ModuleType, types.SimpleNamespace)):
                        setattr(owner, name, Missing(f"{qual}.{name}"))
                    break
                owner, qual = getattr(owner, name), f"{qual}.{name}"
                if isinstance(owner, Missing):
                    break
        for module_name, names in _top_level_imports(path):
            if module_name.startswith("torch.testing._internal"):
                continue
            module = importlib.import_module(module_name)
            for name in names:
                if name == "*" or hasattr(module, name):
                    continue
                try:
                    importlib.import_module(f"{module_name}.{name}")
                except ImportError:
                    setattr(module, name, Missing(f"{module_name}.{name}"))


# ---------------------------------------------------------------------------------------------
# Comparison (assertEqual): torch.testing.assert_close's rules, via NumPy
# ---------------------------------------------------------------------------------------------

_TOLERANCES = {  # dtype name -> (rtol, atol), as torch.testing.assert_close's defaults
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
    "complex32": (1e-3, 1e-5),
    "complex64": (1.3e-6, 1e-5),
    "complex128": (1e-7, 1e-7),
}


def _dtype_key(dtype):
    return str(dtype).replace("torch.", "")


def _is_tensor(x):
    return isinstance(x, torch.Tensor)


def _wrapped(t):
    """The tensor a wrapper subclass wraps (``elem`` of LoggingTensor, ``_data`` of the
    wrapper subclasses the nn tests define), or None."""
    if type(t) is torch.Tensor:
        return None
    for name in ("elem", "_data"):
        inner = getattr(t, name, None)
        if isinstance(inner, torch.Tensor):
            return inner
    return None


def _as_numpy(t):
    while _wrapped(t) is not None:
        t = _wrapped(t)  # a wrapper subclass: compare what it wraps
    t = t.detach()
    if t.dtype == getattr(torch, "bfloat16", None) or t.dtype == getattr(torch, "float16", None):
        t = t.to(torch.float32)
    try:
        return np.asarray(t.numpy())
    except RuntimeError:  # a subclass without .numpy(): its values through tolist()
        return np.asarray(t.tolist())


def _tolerance(dtypes, rtol, atol, precision, rel_tol):
    if (rtol is None) != (atol is None):
        raise ValueError(
            "Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}."
        )
    if rtol is None:
        pairs = [_TOLERANCES.get(_dtype_key(d), (0.0, 0.0)) for d in dtypes]
        rtol = max(p[0] for p in pairs)
        atol = max(p[1] for p in pairs)
    return max(rtol, rel_tol), max(atol, precision)


class _Mismatch(AssertionError):
    pass


def _compare(x, y, *, rtol, atol, equal_nan, exact_dtype, precision, rel_tol, path=""):
    """Raises ``_Mismatch`` where ``x`` and ``y`` differ as assert_close/assertEqual judge."""

    def recurse(a, b, where):
        _compare(
            a,
            b,
            rtol=rtol,
            atol=atol,
            equal_nan=equal_nan,
            exact_dtype=exact_dtype,
            precision=precision,
            rel_tol=rel_tol,
            path=where,
        )

    if x is None or y is None:
        if x is not y:
            raise _Mismatch(f"None mismatch{path}: {x!r} is not {y!r}")
        return
    if _is_tensor(x) and isinstance(y, Sequence) and not isinstance(y, str):
        y = torch.as_tensor(y, dtype=x.dtype)
    elif _is_tensor(y) and isinstance(x, Sequence) and not isinstance(x, str):
        x = torch.as_tensor(x, dtype=y.dtype)
    if isinstance(x, np.ndarray) and _is_tensor(y):
        x = torch.from_numpy(np.ascontiguousarray(x))
    if isinstance(y, np.ndarray) and _is_tensor(x):
        y = torch.from_numpy(np.ascontiguousarray(y))
    number = (int, float, complex, bool, np.number, np.bool_)
    if _is_tensor(x) or _is_tensor(y):
        # a number against a single-element tensor compares as numbers
        if isinstance(x, number) and _is_tensor(y) and y.numel() == 1:
            y = y.item()
        elif isinstance(y, number) and _is_tensor(x) and x.numel() == 1:
            x = x.item()
        elif isinstance(x, number) or isinstance(y, number):
            t, n = (x, y) if _is_tensor(x) else (y, x)
            raise _Mismatch(
                f"Comparing a tensor of shape {tuple(t.shape)} with the number {n}{path}"
            )
        else:
            _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, precision, rel_tol, path)
            return
    if isinstance(x, (bool, np.bool_)) or isinstance(y, (bool, np.bool_)):
        if bool(x) != bool(y) or not isinstance(x, number) or not isinstance(y, number):
            raise _Mismatch(f"Booleans mismatch{path}: {x} is not {y}")
        return
    if isinstance(x, number) and isinstance(y, number):
        r, a = _tolerance([torch.float64], rtol, atol, precision, rel_tol)
        if isinstance(x, int) and isinstance(y, int) and rtol is None:
            r = a = max(0.0, rel_tol), max(0.0, precision)
            r, a = r
        xf, yf = complex(x), complex(y)
        if (math.isnan(xf.real) or math.isnan(yf.real)) and equal_nan:
            if math.isnan(xf.real) and math.isnan(yf.real):
                return
        if xf == yf:
            return
        if not abs(xf - yf) <= a + r * abs(yf):
            raise _Mismatch(f"Scalars are not close{path}: {x} vs {y}")
        return
    if isinstance(x, str) or isinstance(y, str):
        if x != y:
            raise _Mismatch(f"Strings differ{path}: {x!r} != {y!r}")
        return
    if isinstance(x, Mapping) and isinstance(y, Mapping):
        if set(x.keys()) != set(y.keys()):
            raise _Mismatch(f"Keys differ{path}: {sorted(map(str, x))} vs {sorted(map(str, y))}")
        for k in x:
            recurse(x[k], y[k], f"{path}[{k!r}]")
        return
    if isinstance(x, (set, frozenset)) and isinstance(y, (set, frozenset)):
        if x != y:
            raise _Mismatch(f"Sets differ{path}")
        return
    seq = (Sequence, getattr(torch.nn, "ModuleList", ()), getattr(torch.nn, "Sequential", ()))
    seq = tuple(s for s in seq if isinstance(s, type))
    if isinstance(x, seq) and isinstance(y, seq):
        if len(x) != len(y):
            raise _Mismatch(f"Sequences differ in length{path}: {len(x)} vs {len(y)}")
        for i, (a, b) in enumerate(zip(x, y)):
            recurse(a, b, f"{path}[{i}]")
        return
    if isinstance(x, type) or isinstance(y, type):
        if x is not y:
            raise _Mismatch(f"Types differ{path}: {x} vs {y}")
        return
    if x != y:
        raise _Mismatch(f"Objects differ{path}: {x!r} != {y!r}")


def _compare_tensors(x, y, rtol, atol, equal_nan, exact_dtype, precision, rel_tol, path):
    if tuple(x.shape) != tuple(y.shape):
        raise _Mismatch(
            f"The values for attribute 'shape' do not match{path}: "
            f"{tuple(x.shape)} != {tuple(y.shape)}."
        )
    if exact_dtype and x.dtype != y.dtype:
        raise _Mismatch(
            f"The values for attribute 'dtype' do not match{path}: {x.dtype} != {y.dtype}."
        )
    if getattr(x, "is_sparse", False) or getattr(y, "is_sparse", False):
        x = x.to_dense() if getattr(x, "is_sparse", False) else x
        y = y.to_dense() if getattr(y, "is_sparse", False) else y
    r, a = _tolerance([x.dtype, y.dtype], rtol, atol, precision, rel_tol)
    xn, yn = _as_numpy(x), _as_numpy(y)
    if xn.dtype == np.bool_ or yn.dtype == np.bool_ or (r == 0 and a == 0):
        bad = ~((xn == yn) | (equal_nan & _isnan(xn) & _isnan(yn)))
    else:
        xf = xn.astype(np.complex128 if np.iscomplexobj(xn) or np.iscomplexobj(yn) else np.float64)
        yf = yn.astype(xf.dtype)
        with np.errstate(invalid="ignore", over="ignore"):
            close = (xf == yf) | (np.abs(xf - yf) <= a + r * np.abs(yf))
        if equal_nan:
            close |= _isnan(xf) & _isnan(yf)
        bad = ~close
    if np.any(bad):
        n = int(np.sum(bad))
        raise _Mismatch(
            f"Tensor-likes are not close!{path}\n\nMismatched elements: {n} / {xn.size}\n"
            f"actual: {xn!r}\nexpected: {yn!r}"
        )


def _isnan(a):
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, dtype=bool)


# ---------------------------------------------------------------------------------------------
# common_utils
# ---------------------------------------------------------------------------------------------

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"
IS_LINUX = sys.platform.startswith("linux")
IS_FBCODE = IS_SANDCASTLE = IS_REMOTE_GPU = IS_ARM64 = IS_S390X = False
TEST_WITH_TORCHDYNAMO = TEST_WITH_ROCM = TEST_WITH_ASAN = TEST_WITH_TSAN = False
TEST_WITH_UBSAN = TEST_WITH_SLOW_GRADCHECK = TEST_WITH_CROSSREF = TEST_WITH_TORCHINDUCTOR = False
TEST_WITH_SLOW = os.environ.get("PYTORCH_TEST_WITH_SLOW") == "1"
TEST_NUMPY = True
# SciPy is not a dependency of ferrograd's test environment: the tests that need it (the
# Kolmogorov-Smirnov checks of nn.init) are skipped on both sides, so never in the suite
TEST_SCIPY = False
TEST_CUDA = TEST_MPS = TEST_XPU = TEST_PRIVATEUSE1 = TEST_MULTIGPU = False
TEST_MKL = False
TEST_CUDNN = False
TEST_NUMBA = False
TEST_CUDA_GRAPH = False
TEST_WITH_DEV_DBG_ASAN = False
GRADCHECK_NONDET_TOL = 1e-12


IS_JETSON = False
dtype2prec_DONTUSE = {}
MACOS_VERSION = -1.0  # upstream's float of platform.mac_ver(): -1 off macOS


class HardwareClassification(enum.Enum):
    """The hardware a test class is written for (upstream marks classes with it for CI
    sharding); ``GENERIC`` runs anywhere."""

    GENERIC = "generic"
    CPU = "cpu"
    CUDA = "cuda"


@contextlib.contextmanager
def TemporaryFileName(*args, **kwargs):
    """A path to a new temporary file, removed after the block."""
    import tempfile

    f = tempfile.NamedTemporaryFile(*args, delete=False, **kwargs)
    f.close()
    try:
        yield f.name
    finally:
        with contextlib.suppress(OSError):
            os.unlink(f.name)


def download_file(url, binary=True):
    """Upstream downloads test data from the network; this suite runs offline, so a test that
    needs a download is skipped on both sides."""
    raise unittest.SkipTest(f"would download {url}; the suite runs offline")


def _assertGradAndGradgradChecks(test_case, apply_fn, inputs, check_batched_grad=True):
    """gradcheck and gradgradcheck of ``apply_fn`` at ``inputs`` both pass."""
    test_case.assertTrue(gradcheck(apply_fn, inputs, check_batched_grad=check_batched_grad))
    test_case.assertTrue(gradgradcheck(apply_fn, inputs, check_batched_grad=check_batched_grad))


def set_rng_seed(seed=None):
    seed = SEED if seed is None else seed
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


class TestCase(unittest.TestCase):
    """PyTorch's test-case class as the test files use it: seeded, grad mode restored,
    ``assertEqual`` with assert_close's tolerances, expect files."""

    precision = 0.0
    rel_tol = 0.0
    _default_dtype_check_enabled = False
    longMessage = True

    def setUp(self):
        set_rng_seed()
        self._prev_grad_state = torch.is_grad_enabled()

    def tearDown(self):
        if hasattr(self, "_prev_grad_state"):
            torch.set_grad_enabled(self._prev_grad_state)

    def assertEqual(
        self,
        x,
        y,
        msg=None,
        *,
        atol=None,
        rtol=None,
        equal_nan=True,
        exact_dtype=True,
        exact_device=False,
        exact_layout=False,
        exact_stride=False,
        exact_is_coalesced=False,
    ):
        try:
            _compare(
                x,
                y,
                rtol=rtol,
                atol=atol,
                equal_nan=equal_nan,
                exact_dtype=exact_dtype,
                precision=self.precision,
                rel_tol=self.rel_tol,
            )
        except _Mismatch as e:
            text = str(e)
            if callable(msg):
                text = msg(text)
            elif msg:
                text = f"{text}\n{msg}"
            raise self.failureException(text) from None

    def assertNotEqual(self, x, y, msg=None, *, atol=None, rtol=None, **kwargs):
        with self.assertRaises(AssertionError, msg=msg):
            self.assertEqual(x, y, msg, atol=atol, rtol=rtol, **kwargs)

    def assertEqualIgnoreType(self, *args, **kwargs):
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def assertExpected(self, s, subname=None):
        module = sys.modules[self.__class__.__module__]
        name = self.id()[len(self.__class__.__module__) + 1 :]
        path = os.path.join(os.path.dirname(os.path.realpath(module.__file__)), "expect", name)
        if subname:
            path += "-" + subname
        path += ".expect"
        with open(path, encoding="utf-8") as f:
            expected = f.read()
        self.assertEqual(s, expected)

    def assertExpectedInline(self, actual, expect, skip=0):
        self.assertEqual(str(actual).strip(), str(expect).strip())

    def assertExpectedRaisesInline(self, exc_type, callable, expect, *args, **kwargs):
        try:
            callable(*args, **kwargs)
        except exc_type as e:
            self.assertExpectedInline(str(e), expect)
            return
        self.fail(msg="Did not raise when expected to")

    @contextlib.contextmanager
    def assertNotWarn(self, callable=None, msg=""):
        import warnings

        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            if callable is not None:
                callable()
                self.assertTrue(len(ws) == 0, msg)
                yield
                return
            yield
        self.assertTrue(len(ws) == 0, msg or f"unexpected warnings: {[str(w.message) for w in ws]}")

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category, regex=""):
        import re
        import warnings

        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            yield
        pattern = re.compile(regex)
        found = [
            w for w in ws if issubclass(w.category, category) and pattern.search(str(w.message))
        ]
        if not found:
            self.fail(f'"{regex}" not found in warnings {[str(w.message) for w in ws]}')

    @contextlib.contextmanager
    def assertLeaksNoCudaTensors(self, name=None):
        yield

    def assertRaisesRegexWithHighlight(self, exception, regex, highlight):
        return self.assertRaisesRegex(exception, regex)


def run_tests(argv=None):
    unittest.main(argv=argv)


@contextlib.contextmanager
def disable_gc():
    if gc.isenabled():
        try:
            gc.disable()
            yield
        finally:
            gc.enable()
    else:
        yield


def gradcheck(fn, inputs, **kwargs):
    """``autograd.gradcheck`` with the testing defaults (batched gradients, fast mode)."""
    for key, value in {"check_batched_grad": True, "fast_mode": True}.items():
        if kwargs.get(key) is None:
            kwargs[key] = value
    return torch.autograd.gradcheck(fn, inputs, **kwargs)


def gradgradcheck(fn, inputs, grad_outputs=None, **kwargs):
    """``autograd.gradgradcheck`` with the testing defaults (batched gradients, fast mode)."""
    for key, value in {"check_batched_grad": True, "fast_mode": True}.items():
        if kwargs.get(key) is None:
            kwargs[key] = value
    return torch.autograd.gradgradcheck(fn, inputs, grad_outputs, **kwargs)


def _skip(reason):
    def decorator(fn):
        return unittest.skip(reason)(fn)

    return decorator


def _keep(*args, **kwargs):
    """A decorator that keeps the test as it is, used bare (``@skipIfXpu``) or with
    arguments (``@skipIfXpu(msg=...)``)."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return lambda fn: fn


def slowTest(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not TEST_WITH_SLOW:
            raise unittest.SkipTest("test is slow; run with PYTORCH_TEST_WITH_SLOW to enable test")
        return fn(*args, **kwargs)

    wrapper.__dict__["slow_test"] = True
    return wrapper


# decorators that skip only on platforms or modes this suite never runs in (Windows, MPS,
# XPU, Dynamo, a slow-gradcheck environment, non-default CUDA streams): on a CPU they keep the test
skipIfMPS = skipIfMps = skipIfXpu = skipIfSlowGradcheckEnv = skipIfNoLapack = _keep
skipIfRocm = skipIfTorchInductor = skipIfCrossRef = skipIfNoSciPy = _keep


skipIfTorchDynamo = skipIfWindows = gcIfJetson = skipCUDANonDefaultStreamIf = skipIfNoNumpy = _keep
xfailIfTorchDynamo = _keep


def markDynamoStrictTest(cls_or_func=None, nopython=False):
    """Marks a class or test for Dynamo's strict mode, which this suite never runs in: the
    class or test is kept as it is (used bare or with arguments)."""
    if cls_or_func is None:
        return lambda c: c
    return cls_or_func


def suppress_warnings(fn):
    """Runs the test with every warning ignored (as PyTorch's decorator)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(*args, **kwargs)

    return wrapper


@contextlib.contextmanager
def set_default_dtype(dtype):
    """Sets the default floating dtype inside the block, restoring the previous one after."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


def load_tests(loader, tests, pattern):
    """unittest's ``load_tests`` protocol as the test files re-export it: every test, unfiltered
    (upstream's version only checks each test is defined in the running script)."""
    suite = unittest.TestSuite()
    for group in tests:
        if getattr(group, "_tests", None):
            suite.addTest(group)
    return suite


@contextlib.contextmanager
def set_warn_always_context(new_val):
    old = torch.is_warn_always_enabled()
    torch.set_warn_always(new_val)
    try:
        yield
    finally:
        torch.set_warn_always(old)


def scoped_load_inline(func):
    """C++ extensions are outside the suite: the tests that build one are skipped."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        raise unittest.SkipTest("builds a C++ extension (excluded kind)")

    return wrapper


_DTYPE_ALIASES = {
    "cdouble": "complex128",
    "cfloat": "complex64",
    "chalf": "complex32",
    "half": "float16",
    "double": "float64",
    "float": "float32",
    "long": "int64",
    "int": "int32",
    "short": "int16",
}


def dtype_name(dtype):
    if isinstance(dtype, Missing):  # a dtype the library lacks: named as PyTorch names it
        short = dtype._qualname.split(".")[-1]
        return _DTYPE_ALIASES.get(short, short)
    return str(dtype).split(".")[-1]


class subtest:
    """An explicitly named (and possibly decorated) case of ``parametrize``."""

    __slots__ = ["arg_values", "decorators", "name"]

    def __init__(self, arg_values, name=None, decorators=None):
        self.arg_values = arg_values
        self.name = name
        self.decorators = decorators or []


class _TestParametrizer:
    """The base of PyTorch's parametrizing decorators (``parametrize``, ``optims``, ...):
    ``_parametrize_test(test, generic_cls, device_cls)`` yields ``(test, name, param_kwargs,
    decorator_fn)`` for each case; stacked decorators compose as PyTorch's
    ``compose_parametrize_fns`` does (the outer one's name first)."""

    def _parametrize_test(self, test, generic_cls, device_cls):
        raise NotImplementedError

    def __call__(self, fn):
        previous = getattr(fn, "_glue_parametrizations", [])
        fn._glue_parametrizations = [self, *previous]
        return fn


class parametrize(_TestParametrizer):
    """``@parametrize("x,y", values, name_fn=None)``: one test per value, named as PyTorch's."""

    def __init__(self, arg_str, arg_values, name_fn=None):
        self.arg_names = [s.strip() for s in arg_str.split(",") if s != ""]
        self.arg_values = arg_values
        self.name_fn = name_fn

    def _value_name(self, idx, name, value):
        if isinstance(value, torch.dtype) or (
            isinstance(value, Missing) and value._qualname.count(".") == 1
        ):  # a dtype (one the library lacks is a ``Missing`` ``torch.<name>``)
            return dtype_name(value)
        if isinstance(value, torch.device):
            return str(value)
        if isinstance(value, (int, float, str)):
            return f"{name}_{str(value).replace('.', '_')}"
        return f"{name}{idx}"

    def _parametrize_test(self, test, generic_cls, device_cls):
        for idx, values in enumerate(self.arg_values):
            explicit, decorators, gen = None, [], test
            if isinstance(values, subtest):
                explicit, decorators, values = values.name, values.decorators, values.arg_values

                @functools.wraps(test)
                def gen(*args, __test=test, **kwargs):
                    return __test(*args, **kwargs)

            values = list(values) if len(self.arg_names) > 1 else [values]
            kwargs = dict(zip(self.arg_names, values))
            if explicit:
                suffix = explicit
            elif self.name_fn:
                suffix = self.name_fn(*values)
            else:
                suffix = "_".join(
                    self._value_name(idx, a, v) for a, v in zip(self.arg_names, values)
                )
            for d in decorators:
                gen = d(gen)
            yield gen, suffix, kwargs, _no_decorators


def _no_decorators(param_kwargs):
    return []


class swap(parametrize):
    """``@swap([True, False])``: one test per value of
    ``torch.__future__.set_swap_module_params_on_conversion`` (``_swap_True``...), the flag set
    around the test and restored after it."""

    def __init__(self, swap_values):
        super().__init__("", [])
        self.swap_values = swap_values

    def _parametrize_test(self, test, generic_cls, device_cls):
        for value in self.swap_values:

            @functools.wraps(test)
            def gen(*args, __test=test, __value=value, **kwargs):
                future = torch.__future__
                restore = future.get_swap_module_params_on_conversion()
                future.set_swap_module_params_on_conversion(__value)
                try:
                    return __test(*args, **kwargs)
                finally:
                    future.set_swap_module_params_on_conversion(restore)

            yield gen, f"swap_{value}", {}, _no_decorators


def _expand(fn, generic_cls=None, device_cls=None):
    """``(test, suffix, kwargs, decorators)`` for every combination of a test's parametrizing
    decorators, the outermost decorator's name first (as PyTorch composes them);
    ``decorators(kwargs)`` lists the decorators the cases ask for."""
    layers = getattr(fn, "_glue_parametrizations", [])
    combos = [(fn, "", {}, _no_decorators)]
    for layer in reversed(layers):
        new = []
        for test, suffix, kwargs, decorate in combos:
            for gen, s, kw, dec in layer._parametrize_test(test, generic_cls, device_cls):
                name = f"{s}_{suffix}" if s and suffix else s or suffix

                def both(param_kwargs, __old=decorate, __new=dec):
                    return [*__old(param_kwargs), *__new(param_kwargs)]

                new.append((gen, name, {**kwargs, **kw}, both))
        combos = new
    return combos


def _bind(test, kwargs):
    @functools.wraps(test)
    def instantiated(self):
        return test(self, **kwargs)

    return instantiated


def instantiate_parametrized_tests(generic_cls):
    for name in list(vars(generic_cls)):
        fn = vars(generic_cls)[name]
        if not callable(fn) or not hasattr(fn, "_glue_parametrizations"):
            continue
        delattr(generic_cls, name)
        for test, suffix, kwargs, decorate in _expand(fn, generic_cls):
            for d in decorate(kwargs):
                test = d(test)
            setattr(generic_cls, f"{name}_{suffix}" if suffix else name, _bind(test, kwargs))
    return generic_cls


@contextlib.contextmanager
def freeze_rng_state():
    state = torch.get_rng_state()
    try:
        yield
    finally:
        torch.set_rng_state(state)


def make_tensor(*args, **kwargs):
    return torch.testing.make_tensor(*args, **kwargs)


# ---------------------------------------------------------------------------------------------
# common_nn: the base class of the nn test files and the small helpers they import
# ---------------------------------------------------------------------------------------------


class NNTestCase(TestCase):
    """The nn test files' base class. Upstream's adds abstract hooks (``_forward``,
    ``_backward``, ...) for its module-test generators and CUDA checks; the files served here
    use it as a plain ``TestCase``."""

    _do_cuda_memory_leak_check = False
    _do_cuda_non_default_stream = False


def _test_module_empty_input(test_case, module, inp, check_size=True, inference=False):
    """Runs ``module`` on an empty input: the output has the input's size (``check_size``) and,
    unless ``inference``, every gradient is zero."""
    if not inference:
        inp.requires_grad_(True)
    out = module(inp)
    if not inference:
        out.backward(torch.rand_like(out))
    if check_size:
        test_case.assertEqual(out.size(), inp.size())
    if not inference:
        for p in module.parameters():
            if p.requires_grad:
                test_case.assertEqual(p.grad, torch.zeros_like(p.grad))
        test_case.assertEqual(inp.grad, torch.zeros_like(inp))


def _test_bfloat16_ops(test_case, op, device, inp_dims=(), prec=1e-2, scale_factor=None):
    """``op`` in bfloat16 matches ``op`` in float32 (output and input gradient) within ``prec``."""
    input1 = torch.randn(inp_dims, dtype=torch.float32, device=device, requires_grad=True)
    if scale_factor is not None:
        scaled = torch.rand(inp_dims, dtype=torch.bfloat16, device=device) * scale_factor
        input1 = scaled.float().requires_grad_()
    out1 = op(input1)
    grad_input1 = torch.randn_like(out1, device=device)
    out1.backward(grad_input1)
    op_bfp16 = op.bfloat16()
    input2 = input1.detach().bfloat16().requires_grad_()
    out2 = op_bfp16(input2)
    out2.backward(grad_input1.bfloat16())
    test_case.assertEqual(out1, out2, atol=prec, rtol=prec, exact_dtype=False)
    test_case.assertEqual(
        input1.grad.data, input2.grad.data, atol=prec, rtol=prec, exact_dtype=False
    )


def _create_basic_net():
    """``(layer, net, Sequential(net, net))``: modules with a parameter and a buffer each, and
    a submodule, for the registration-hook tests."""
    nn = torch.nn

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer_dummy_param = nn.Parameter(torch.empty(3, 5))
            self.register_buffer("layer_dummy_buf", torch.zeros(1, 3, 3, 7))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = Layer()
            self.dummy_param = nn.Parameter(torch.empty(3, 5))
            self.register_buffer("dummy_buf", torch.zeros(7, 3, 3, 1))

    layer = Layer()
    net = Net()
    return layer, net, nn.Sequential(net, net)


# ---------------------------------------------------------------------------------------------
# common_device_type: CPU only
# ---------------------------------------------------------------------------------------------


class dtypes:
    """``@dtypes(torch.float, torch.double)``: one test per dtype (``_cpu_float32``...)."""

    def __init__(self, *args, device_type="all"):
        self.args = args
        self.device_type = device_type

    def __call__(self, fn):
        if self.device_type in ("all", "cpu"):
            fn._glue_dtypes = self.args
        return fn


class dtypesIfCPU(dtypes):
    def __init__(self, *args):
        super().__init__(*args, device_type="cpu")


class _ignored_dtypes:
    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, fn):
        return fn


dtypesIfCUDA = dtypesIfMPS = dtypesIfXPU = _ignored_dtypes


def onlyCUDA(fn):
    return unittest.skip("only on CUDA")(fn)


onlyCUDAAndPRIVATEUSE1 = onlyCUDA
# CUDA/cuDNN/MIOpen-only conditions and TF32 switching: on a CPU the test runs as it is
disablecuDNN = skipCUDAIfMiopen = skipCUDAIfNoCudnn = skipCUDAIfNoMiopen = _keep
tf32_on_and_off = _keep


def disableMkldnn(fn):
    """Runs the test with the oneDNN (mkldnn) backend disabled, where the library has one."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        flags = getattr(torch.backends.mkldnn, "flags", None)
        with flags(enabled=False) if flags is not None else contextlib.nullcontext():
            return fn(*args, **kwargs)

    return wrapper


def skipCPUIfNoMkldnn(fn):
    """Skips the test when the library has no oneDNN (mkldnn) backend."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not torch.backends.mkldnn.is_available():
            raise unittest.SkipTest("PyTorch is built without mkldnn support")
        return fn(*args, **kwargs)

    return wrapper


def onlyCPU(fn):
    return fn


onlyNativeDeviceTypes = onlyCPU
expectedFailureMPS = expectedFailureXLA = expectedFailureMeta = skipMeta = skipCUDAIfRocm = (
    skipCUDAIf
) = _keep


def deviceCountAtLeast(num_required_devices):
    def decorator(fn):
        if num_required_devices > 1:
            return unittest.skip(f"needs {num_required_devices} devices")(fn)
        fn.num_required_devices = num_required_devices
        return fn

    return decorator


def instantiate_device_type_tests(generic_test_class, scope, except_for=None, only_for=None, **_):
    """Makes ``<Class>CPU`` from a device-generic class (tests get ``device='cpu'``, and one
    copy per dtype of ``@dtypes``), and removes the generic class from ``scope``."""
    scope.pop(generic_test_class.__name__, None)
    if only_for is not None and "cpu" not in (
        only_for if not isinstance(only_for, str) else [only_for]
    ):
        return
    if except_for is not None and "cpu" in (
        except_for if not isinstance(except_for, str) else [except_for]
    ):
        return
    name = generic_test_class.__name__ + "CPU"
    device_cls = types.SimpleNamespace(device_type="cpu")
    members = {}
    for attr in dir(generic_test_class):
        if not attr.startswith("test"):
            continue
        fn = getattr(generic_test_class, attr)
        if not callable(fn):
            continue
        params = inspect.signature(fn).parameters
        dts = getattr(fn, "_glue_dtypes", None)
        for test, suffix, kwargs, decorate in _expand(fn, generic_test_class, device_cls):
            kwargs = dict(kwargs)
            if "device" in params:
                kwargs["device"] = "cpu"
            if "devices" in params:
                kwargs["devices"] = ["cpu"]
            base = f"{attr}_{suffix}" if suffix else attr
            for dt in dts if dts is not None else [None]:
                kw = dict(kwargs)
                if dt is not None:
                    kw["dtypes" if isinstance(dt, (list, tuple)) else "dtype"] = dt
                dt = kw.get("dtypes", kw.get("dtype"))  # a parametrizer's dtype is named alike
                tail = ""
                if isinstance(dt, (list, tuple)):
                    tail = "_" + "_".join(dtype_name(d) for d in dt)
                elif dt is not None:
                    tail = "_" + dtype_name(dt)
                case = test
                for d in decorate(kw):
                    case = d(case)
                members[f"{base}_cpu{tail}"] = _bind(_with_tolerance(case, kw.get("dtype")), kw)
    # the generic tests themselves are not run (only their CPU instances)
    for attr in dir(generic_test_class):
        if attr.startswith("test") and attr not in members:
            members[attr] = None
    cls = type(name, (generic_test_class,), members)
    cls.device_type = "cpu"
    cls.__module__ = scope.get("__name__", generic_test_class.__module__)
    scope[name] = cls


# ---------------------------------------------------------------------------------------------
# common_dtype, common_cuda, common_methods_invocations
# ---------------------------------------------------------------------------------------------


def _with_tolerance(test, dtype):
    """``test`` run with the ``precisionOverride``/``toleranceOverride`` tolerances it declares
    for ``dtype`` (``self.precision``/``self.rel_tol``, restored after), as PyTorch's device
    instantiation applies them."""
    precision = getattr(test, "precision_overrides", {})
    tolerance = getattr(test, "tolerance_overrides", {})
    if dtype not in precision and dtype not in tolerance:
        return test

    @functools.wraps(test)
    def overridden(self, *args, **kwargs):
        saved = self.precision, self.rel_tol
        if dtype in precision:
            self.precision = precision[dtype]
        if dtype in tolerance:
            self.precision, self.rel_tol = tolerance[dtype].atol, tolerance[dtype].rtol
        try:
            return test(self, *args, **kwargs)
        finally:
            self.precision, self.rel_tol = saved

    return overridden


tol = collections.namedtuple("tol", ["atol", "rtol"])


class toleranceOverride:
    """``@toleranceOverride({dtype: tol(atol, rtol)})``: per-dtype tolerances of a device test."""

    def __init__(self, d):
        self.d = d

    def __call__(self, fn):
        fn.tolerance_overrides = self.d
        return fn


class precisionOverride:
    """``@precisionOverride({dtype: atol})``: per-dtype absolute tolerance of a device test."""

    def __init__(self, d):
        self.d = d

    def __call__(self, fn):
        fn.precision_overrides = self.d
        return fn


def largeTensorTest(size, device=None, inductor=False):
    """Skips a test needing more memory than ``size`` (bytes or a ``"4GB"`` string) when the
    machine has less free (upstream checks the same with psutil)."""
    if isinstance(size, str):
        size = int(float(size[:-2]) * 1024**3) if size.endswith("GB") else int(size)

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            try:
                pages = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
            except (ValueError, OSError):
                pages = None
            if pages is not None and pages < size:
                raise unittest.SkipTest(f"Insufficient cpu memory: needs {size} bytes")
            return fn(*args, **kwargs)

        return wrapper

    return decorator


def skipMPS(fn):
    """Skips on MPS only: on a CPU the test is kept."""
    return fn


class DecorateInfo:
    """Decorators an ``OpInfo``/``OptimizerInfo`` applies to the tests it matches (class and
    test name, device type, dtypes, and ``active_if``, a flag or a predicate of the test's
    keyword arguments)."""

    def __init__(
        self,
        decorators,
        cls_name=None,
        test_name=None,
        *,
        device_type=None,
        dtypes=None,
        active_if=True,
    ):
        self.decorators = list(decorators) if isinstance(decorators, Sequence) else [decorators]
        self.cls_name = cls_name
        self.test_name = test_name
        self.device_type = device_type
        self.dtypes = dtypes
        self.active_if = active_if

    def is_active(self, cls_name, test_name, device_type, dtype, param_kwargs):
        return (
            bool(self.active_if)
            and (self.cls_name is None or self.cls_name == cls_name)
            and (self.test_name is None or self.test_name == test_name)
            and (self.device_type is None or self.device_type == device_type)
            and (self.dtypes is None or dtype in self.dtypes)
            and (self.active_if(param_kwargs) if callable(self.active_if) else self.active_if)
        )


def is_iterable(obj):
    """Whether ``iter(obj)`` works."""
    try:
        iter(obj)
        return True
    except TypeError:
        return False


def get_function_arglist(func):
    """The names of ``func``'s parameters, in order."""
    return list(inspect.signature(func).parameters)


IS_PPC = False


def integral_types():
    return _dtypes("uint8", "int8", "int16", "int32", "int64")


def get_all_math_dtypes(device):
    """Upstream's list for ``device``: the integer, float and complex dtypes (float16 on CUDA
    only)."""
    return integral_types() + floating_types() + _dtypes("complex64", "complex128")


def get_all_device_types():
    return ["cpu"]


# CUDA/ROCm facts of a CPU-only machine
SM90OrLater = PLATFORM_SUPPORTS_FLASH_ATTENTION = False
skipCUDAIfNotRocm = _keep


def _get_torch_rocm_version():
    return (0, 0)


@contextlib.contextmanager
def tf32_off():
    """TF32 is a CUDA matmul mode: on a CPU the block runs as it is."""
    yield


@contextlib.contextmanager
def tf32_on(test_case, tf32_precision=1e-5):
    """Upstream's TF32 block loosens ``test_case.precision`` on CUDA; on a CPU it runs as it is."""
    yield


def reduced_f32_on_and_off(bf32_precision=1e-2, tf32_precision=1e-5):
    """Upstream also runs the test with oneDNN's reduced-precision float32 (where the CPU has
    it); here it runs once, at full precision."""
    return _keep


def hypothesis_tensor(shapes=None, elements=None, qparams=None, dtype=np.float32):
    """``hypothesis_utils.tensor``: a strategy drawing ``(array, None)``, an array of one of
    ``shapes`` with finite ``elements`` (floats in [-1e6, 1e6] of float32 width by default);
    quantization parameters (``qparams``) are outside the suite."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as stnp

    if qparams is not None:
        raise MissingFeature("quantized tensors are outside the suite")
    if elements is None:
        elements = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=32)
    shape = shapes if isinstance(shapes, st.SearchStrategy) else st.sampled_from(shapes)
    return shape.flatmap(lambda s: stnp.arrays(dtype=dtype, shape=s, elements=elements)).map(
        lambda array: (array, None)
    )


def _hypothesis_profile():
    """Hypothesis runs deterministically here, without its example database (nothing written
    beside the tests) or deadlines (a forked child's first example is slow)."""
    try:
        from hypothesis import settings
    except ImportError:
        return
    settings.register_profile("pytorch_suite", database=None, deadline=None, derandomize=True)
    settings.load_profile("pytorch_suite")


def set_single_threaded_if_parallel_tbb(fn):
    """Upstream runs a test single-threaded under a TBB build; neither library here is one."""
    return fn


def _dtypes(*names):
    return tuple(getattr(torch, n) for n in names if hasattr(torch, n))


def floating_types():
    return _dtypes("float32", "float64")


def floating_types_and(*dtypes):
    return floating_types() + dtypes


def floating_and_complex_types():
    return _dtypes("float32", "float64", "complex64", "complex128")


def floating_and_complex_types_and(*dtypes):
    return floating_and_complex_types() + dtypes


def all_types_and(*dtypes):
    return _dtypes("uint8", "int8", "int16", "int32", "int64", "float32", "float64") + dtypes


def mask_not_all_zeros(shape):
    assert len(shape) > 0
    while True:
        result = torch.randn(shape).gt(0)
        if result.sum() > 0:
            return result


# ---------------------------------------------------------------------------------------------
# logging_utils: capture the records a library logs under ``torch._logging.set_logs``
# ---------------------------------------------------------------------------------------------


class LoggingTestCase(TestCase):
    """Base class of tests that read the library's log records."""


def make_logging_test(**log_settings):
    """Runs the test with ``torch._logging.set_logs(**log_settings)`` and passes it the
    records logged under the ``torch`` logger."""
    import logging

    def decorator(fn):
        @functools.wraps(fn)
        def test(self):
            records = []

            class _Capture(logging.Handler):
                def emit(self, record):
                    records.append(record)

            handler = _Capture(level=logging.DEBUG)
            torch._logging.set_logs(**log_settings)
            # the library logs under its own package name (`torch.autograd` for PyTorch)
            loggers = [logging.getLogger(f"{torch.__name__}.{name}") for name in log_settings]
            for logger in loggers:
                logger.addHandler(handler)
            try:
                fn(self, records)
            finally:
                torch._logging.set_logs()
                for logger in loggers:
                    logger.removeHandler(handler)

        return test

    return decorator


# ---------------------------------------------------------------------------------------------
# logging_tensor: a wrapper subclass that runs every op on the tensor it wraps
# ---------------------------------------------------------------------------------------------


def _make_logging_tensor_module():
    """``LoggingTensor`` written with the subclass API (``_make_wrapper_subclass``,
    ``__torch_dispatch__``, ``utils._pytree``); the class is built when the module is made, so
    a library without subclass support fails only the tests that instantiate it."""
    module = types.ModuleType("torch.testing._internal.logging_tensor")

    class LoggingTensor(torch.Tensor):
        context = contextlib.nullcontext

        @staticmethod
        def __new__(cls, elem, *args, **kwargs):
            r = torch.Tensor._make_wrapper_subclass(
                cls,
                elem.size(),
                strides=elem.stride(),
                storage_offset=elem.storage_offset(),
                dtype=elem.dtype,
                layout=elem.layout,
                device=elem.device,
                requires_grad=kwargs.get("requires_grad", False),
            )
            r.elem = elem.detach() if r.requires_grad else elem
            return r

        def __repr__(self):
            return f"LoggingTensor({self.elem})"

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            tree_map = torch.utils._pytree.tree_map

            def unwrap(e):
                return e.elem if isinstance(e, cls) else e

            def wrap(e):
                return cls(e) if isinstance(e, torch.Tensor) else e

            with cls.context():
                out = func(*tree_map(unwrap, args), **tree_map(unwrap, kwargs or {}))
            return tree_map(wrap, out)

    module.LoggingTensor = LoggingTensor
    module.__getattr__ = functools.partial(_missing_glue_name, "logging_tensor")
    return module


# ---------------------------------------------------------------------------------------------
# Installation
# ---------------------------------------------------------------------------------------------

_GLUE_MODULES = {
    "common_utils": [
        "TestCase",
        "run_tests",
        "disable_gc",
        "gradcheck",
        "gradgradcheck",
        "slowTest",
        "skipIfMPS",
        "skipIfXpu",
        "skipIfSlowGradcheckEnv",
        "skipIfNoLapack",
        "skipIfRocm",
        "skipIfTorchDynamo",
        "skipIfWindows",
        "skipCUDANonDefaultStreamIf",
        "skipIfNoNumpy",
        "skipIfTorchInductor",
        "skipIfCrossRef",
        "skipIfNoSciPy",
        "set_warn_always_context",
        "scoped_load_inline",
        "subtest",
        "parametrize",
        "instantiate_parametrized_tests",
        "IS_WINDOWS",
        "IS_MACOS",
        "IS_LINUX",
        "IS_FBCODE",
        "IS_SANDCASTLE",
        "IS_REMOTE_GPU",
        "IS_ARM64",
        "IS_S390X",
        "TEST_WITH_TORCHDYNAMO",
        "TEST_WITH_ROCM",
        "TEST_WITH_ASAN",
        "TEST_WITH_TSAN",
        "TEST_WITH_UBSAN",
        "TEST_WITH_SLOW",
        "TEST_WITH_SLOW_GRADCHECK",
        "TEST_WITH_CROSSREF",
        "TEST_WITH_TORCHINDUCTOR",
        "TEST_NUMPY",
        "TEST_SCIPY",
        "TEST_CUDA",
        "TEST_MPS",
        "TEST_XPU",
        "TEST_PRIVATEUSE1",
        "TEST_MKL",
        "TEST_CUDNN",
        "TEST_NUMBA",
        "TEST_CUDA_GRAPH",
        "TEST_WITH_DEV_DBG_ASAN",
        "SEED",
        "set_rng_seed",
        "freeze_rng_state",
        "dtype_name",
        "GRADCHECK_NONDET_TOL",
        "make_tensor",
        "xfailIfTorchDynamo",
        "markDynamoStrictTest",
        "set_default_dtype",
        "suppress_warnings",
        "load_tests",
        "swap",
        "_TestParametrizer",
        "set_single_threaded_if_parallel_tbb",
        "skipIfMps",
        "gcIfJetson",
        "IS_JETSON",
        "MACOS_VERSION",
        "HardwareClassification",
        "TemporaryFileName",
        "download_file",
        "_assertGradAndGradgradChecks",
        "dtype2prec_DONTUSE",
        "is_iterable",
        "get_function_arglist",
        "IS_PPC",
    ],
    "common_nn": [
        "NNTestCase",
        "freeze_rng_state",
        "_create_basic_net",
        "_test_module_empty_input",
        "_test_bfloat16_ops",
    ],
    "common_device_type": [
        "instantiate_device_type_tests",
        "dtypes",
        "dtypesIfCPU",
        "dtypesIfCUDA",
        "dtypesIfMPS",
        "dtypesIfXPU",
        "onlyCUDA",
        "onlyCPU",
        "onlyNativeDeviceTypes",
        "expectedFailureMPS",
        "expectedFailureXLA",
        "skipMeta",
        "skipCUDAIfRocm",
        "skipCUDAIf",
        "deviceCountAtLeast",
        "tol",
        "toleranceOverride",
        "precisionOverride",
        "largeTensorTest",
        "skipMPS",
        "expectedFailureMeta",
        "onlyCUDAAndPRIVATEUSE1",
        "TEST_WITH_ROCM",
        "disablecuDNN",
        "disableMkldnn",
        "skipCPUIfNoMkldnn",
        "skipCUDAIfMiopen",
        "skipCUDAIfNoCudnn",
        "skipCUDAIfNoMiopen",
        "skipCUDAIfNotRocm",
        "get_all_device_types",
    ],
    "common_dtype": [
        "floating_types",
        "floating_types_and",
        "floating_and_complex_types",
        "floating_and_complex_types_and",
        "all_types_and",
        "integral_types",
        "get_all_math_dtypes",
    ],
    "common_cuda": [
        "TEST_CUDA",
        "TEST_MULTIGPU",
        "TEST_CUDNN",
        "tf32_on_and_off",
        "tf32_off",
        "tf32_on",
        "SM90OrLater",
        "PLATFORM_SUPPORTS_FLASH_ATTENTION",
        "_get_torch_rocm_version",
    ],
    "common_mkldnn": ["reduced_f32_on_and_off"],
    "hypothesis_utils": [("tensor", "hypothesis_tensor")],
    "common_methods_invocations": ["mask_not_all_zeros", "DecorateInfo"],
    "logging_utils": ["LoggingTestCase", "make_logging_test"],
}


# Upstream testing modules kept verbatim (``upstream/torch/testing/_internal/``) because the
# test files' parametrization is built on them (``common_optimizers.optim_db``): they run as
# they are, on the glue's ``common_utils``/``common_device_type`` names.
VENDORED_INTERNAL = os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "upstream", "torch", "testing", "_internal"
)


def _vendored_modules(test_files):
    """``{short name: path}`` of the verbatim testing modules ``test_files`` import."""
    found = {}
    for path in test_files:
        for module_name, _ in _top_level_imports(path):
            prefix, _, short = module_name.rpartition(".")
            vendored = os.path.join(VENDORED_INTERNAL, short + ".py")
            if prefix == "torch.testing._internal" and os.path.exists(vendored):
                found[short] = vendored
    return found


def install(lib, test_files=()):
    """Makes ``import torch`` give ``lib`` and registers the glue under
    ``torch.testing._internal``; then fills in the names ``test_files`` import that ``lib``
    lacks (``Missing`` placeholders)."""
    global torch
    vendored = _vendored_modules(test_files)
    test_files = [*test_files, *vendored.values()]
    if lib == "ferrograd":
        wanted = set()
        for path in test_files:
            for module_name, _ in _top_level_imports(path):
                parts = module_name.split(".")
                wanted.update(".".join(parts[: i + 1]) for i in range(len(parts)))
        sys.meta_path.insert(0, _AliasFinder(wanted))
    torch = importlib.import_module("torch")
    if lib == "ferrograd":
        # ferrograd's submodules loaded so far under their torch names too, so that importing
        # one again (``from torch.autograd.gradcheck import X``) does not rebind its parent's
        # attribute of the same name (the function ``autograd.gradcheck``) to the module
        for name, module in list(sys.modules.items()):
            if name.startswith("ferrograd.") and module is not None:
                sys.modules.setdefault("torch" + name[len("ferrograd") :], module)
    torch.set_default_dtype(torch.float32)
    _hypothesis_profile()
    this = sys.modules[__name__]
    global dtype2prec_DONTUSE
    dtype2prec_DONTUSE = {  # per-dtype precision of older tests
        d: p
        for n, p in [("float32", 1e-5), ("float64", 1e-5), ("float16", 1e-2), ("bfloat16", 1e-1)]
        if isinstance(d := getattr(torch, n, None), torch.dtype)
    }
    for name in [m for m in sys.modules if m.startswith("torch.testing._internal")]:
        del sys.modules[name]
    package = types.ModuleType("torch.testing._internal")
    package.__path__ = []
    sys.modules["torch.testing._internal"] = package
    for short, names in _GLUE_MODULES.items():
        module = types.ModuleType(f"torch.testing._internal.{short}")
        for n in names:
            exported, own = n if isinstance(n, tuple) else (n, n)
            setattr(module, exported, getattr(this, own))
        module.__getattr__ = functools.partial(_missing_glue_name, short)
        sys.modules[module.__name__] = module
        setattr(package, short, module)
    try:
        logging_tensor = _make_logging_tensor_module()
    except Exception:  # the library's Tensor cannot be subclassed
        logging_tensor = types.ModuleType("torch.testing._internal.logging_tensor")
        logging_tensor.__getattr__ = functools.partial(_missing_glue_name, "logging_tensor")
    sys.modules[logging_tensor.__name__] = logging_tensor
    package.logging_tensor = logging_tensor
    package.__getattr__ = functools.partial(_missing_attribute, "torch.testing._internal")
    # files write ``torch.testing._internal.common_utils.X``: the attribute must reach the glue
    torch.testing._internal = package
    if lib != "torch":  # PyTorch has every name (torch.ops namespaces appear when registered)
        fill_missing_names(test_files)
    for short, path in vendored.items():
        spec = importlib.util.spec_from_file_location(f"torch.testing._internal.{short}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except Exception:
            if lib == "torch":
                raise
            # built on internals the library lacks (``two_tensor``'s dispatch subclass): the
            # glue's module of that name where there is one, else its names are ``Missing``,
            # failing the tests that use them
            module = getattr(package, short, None)
            if module is None:
                module = types.ModuleType(spec.name)
                module.__getattr__ = functools.partial(_missing_glue_name, short)
            sys.modules[spec.name] = module
        if lib != "torch":
            _tolerate_failing_factories(module)
        setattr(package, short, module)
    return torch


def _tolerate_failing_factories(module):
    """``common_nn``'s test dictionaries come from module-level ``*_test()`` functions called
    while the test file builds its test list; one that needs what the library lacks (a complex
    tensor) would stop the whole file from loading. Each such function is wrapped: when it
    fails, it gives a dictionary whose test (``test_<function>_unavailable``, a name PyTorch's
    list does not have) fails with the reason, so only the test it describes is missing."""
    for name, fn in list(vars(module).items()):
        if not (name.endswith("_test") and inspect.isfunction(fn)):
            continue
        if fn.__module__ != module.__name__:
            continue

        @functools.wraps(fn)
        def tolerant(*args, _fn=fn, **kwargs):
            try:
                return _fn(*args, **kwargs)
            except Exception as e:  # the library lacks what the dictionary is built from
                reason = f"{type(e).__name__}: {e}"
                return dict(
                    fullname=f"{_fn.__name__}_unavailable",
                    constructor=Missing(f"{_fn.__name__} (building it raised {reason})"),
                    input_size=(1,),
                )

        setattr(module, name, tolerant)


def _missing_attribute(prefix, name):
    """A module's ``__getattr__``: ``prefix.name`` as a ``Missing`` (dunders stay missing)."""
    if name.startswith("__"):
        raise AttributeError(name)
    return Missing(f"{prefix}.{name}")


def _missing_glue_name(module, name):
    return _missing_attribute(f"torch.testing._internal.{module}", name)
