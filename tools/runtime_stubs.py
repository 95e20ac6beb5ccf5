"""The parts of ``_core.pyi`` read from the imported package: the class headers, the module's
constants and the ``Tensor`` methods written in Python.

``class_header`` writes a class's decorator, bases and docstring as the built module has them:
``@final`` where Python cannot derive from the class, ``@disjoint_base`` where it can (a pyo3
class has an instance layout of its own), the docstring from the Rust doc comment.
``constants_block`` writes ``name: type`` for each constant the module adds (the dtypes,
``default_generator``).

ferrograd installs some methods on the native ``Tensor`` class at import time: composites
(``ferrograd._composites``), the linear-algebra functions as methods, the answers of a real
tensor to the complex-number API (``ferrograd._realness``), ``share_memory_``, ``nanmean``,
the ``layout`` property, the ``__torch_function__`` protocol (``ferrograd.overrides``), and
second names of native methods (``clip_`` is ``clamp_``). ``python_methods_block`` imports
ferrograd and writes a stub for each attribute of ``Tensor`` that is such a function (or a
property or class method of one) and has no stub of its own yet: the signature from the
function's annotations (every parameter after the first is annotated, in the stub's
vocabulary: ``Tensor``, ``int``, ``Sequence[int]``, ``Any``...), its docstring as docstring. An
attribute that is a native method under a second name gets that method's stub header.
"""

from __future__ import annotations

import inspect
import json
import re
import types
from collections.abc import Callable
from typing import Any

from binding_stubs import Binding, docstring, python_type, stub


def subclassable(cls: type) -> bool:
    """Whether Python can derive a class from ``cls``."""
    try:
        types.new_class("Derived", (cls,))
    except TypeError:
        return False
    return True


def class_header(cls: type) -> str:
    """The header of ``cls``'s stub: decorator, ``class`` line and docstring."""
    bases = [b.__name__ for b in cls.__bases__ if b is not object]
    line = f"class {cls.__name__}({', '.join(bases)}):" if bases else f"class {cls.__name__}:"
    if not subclassable(cls):
        line = "@final\n" + line
    elif not issubclass(cls, BaseException):
        line = "@disjoint_base\n" + line
    return line + "\n" + "\n".join(docstring((cls.__doc__ or "").split("\n"))) + "\n"


def constants_block(module: types.ModuleType) -> str:
    """``name: type`` for each constant of ``module``'s ``__all__``, in its order (what the
    module added: the dtypes, then ``default_generator``)."""
    lines = []
    for name in module.__all__:
        value = getattr(module, name)
        if not callable(value) and not isinstance(value, type):
            lines.append(f"{name}: {type(value).__name__}\n")
    return "".join(lines)


def python_function(value: Any) -> tuple[types.FunctionType, str | None] | None:
    """The Python function behind a class attribute and the decorator its stub needs, or None
    when the attribute is not one (a native method, a constant)."""
    if isinstance(value, classmethod):
        value, decorator = value.__func__, "classmethod"
    elif isinstance(value, staticmethod):
        value, decorator = value.__func__, "staticmethod"
    elif isinstance(value, property):
        value, decorator = value.fget, "property"
    else:
        decorator = None
    if isinstance(value, types.FunctionType) and value.__module__.startswith("ferrograd"):
        return value, decorator
    return None


def default_text(value: Any) -> str:
    """A parameter default as a stub writes it (``...`` for anything but a literal)."""
    if value is None or isinstance(value, bool | int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    return "..."


def stub_params(fn: Callable[..., Any], decorator: str | None) -> list[str]:
    """The stub's parameters of ``fn``: names, annotations (the strings written in the source)
    and defaults, with ``/`` and ``*`` where the kinds change."""
    params, saw_star = [], False
    signature = inspect.signature(fn)
    items = list(signature.parameters.values())
    for i, p in enumerate(items):
        if p.kind is p.KEYWORD_ONLY and not saw_star:
            params.append("*")
            saw_star = True
        prefix = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        saw_star |= p.kind is p.VAR_POSITIONAL
        text = prefix + p.name
        if i == 0 and decorator != "staticmethod":
            pass  # `self`, `cls` or PyTorch's `input`: the stub leaves it bare
        elif p.annotation is not p.empty:
            text += f": {python_type(str(p.annotation))}"
        else:
            raise SystemExit(f"{fn.__module__}.{fn.__qualname__}: parameter {p.name} has no type")
        if p.default is not p.empty:
            text += f" = {default_text(p.default)}" if ":" in text else f"={p.default!r}"
        params.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(items) or items[i + 1].kind is not p.kind):
            params.append("/")
    return params


def python_method(name: str, fn: types.FunctionType, decorator: str | None) -> Binding:
    """The stub of the Python function ``fn`` installed as ``Tensor.name``."""
    returns = inspect.signature(fn).return_annotation
    if returns is inspect.Signature.empty:
        raise SystemExit(f"{fn.__module__}.{fn.__qualname__}: no return type")
    return Binding(
        name=name,
        params=stub_params(fn, decorator),
        returns=python_type(str(returns)),
        doc=(inspect.getdoc(fn) or "").split("\n"),
        origin=f"{fn.__module__}.{fn.__qualname__}",
        decorator=decorator,
    )


def method_headers(text: str, name: str) -> list[list[str]]:
    """The ``def`` lines (with their decorators) of each stub of ``Tensor.name`` in the stub
    ``text``: one list a stub, several for overloads."""
    body = text[text.index("\nclass Tensor:") :]
    body = body[: re.search(r"\n[^\s#]", body[1:]).start() + 1]
    lines = body.split("\n")
    headers = []
    for start, line in enumerate(lines):
        if not line.startswith(f"    def {name}("):
            continue
        first, end = start, start
        while lines[first - 1].startswith("    @"):
            first -= 1
        while not re.search(r"\)( -> .*)?:( \.\.\.)?$", lines[end].split("  #")[0]):
            end += 1
        headers.append(lines[first : end + 1])
    return headers


def python_methods_block(text: str, tensor: type) -> str:
    """The stubs of ``tensor``'s attributes that are Python functions or second names of
    native methods, and that the stub ``text`` does not define yet."""
    out = []
    by_value = {}
    for name, value in vars(tensor).items():
        by_value.setdefault(id(value), name)
        if method_headers(text, name):
            continue
        found = python_function(value)
        if found is not None:
            out.append(stub(python_method(name, *found), "    "))
            continue
        original = by_value[id(value)]
        if original != name and method_headers(text, original):
            doc = f"Alias of `{original}` (PyTorch's second name; the same method)."
            for header in method_headers(text, original):
                header = [line.replace(f"def {original}(", f"def {name}(", 1) for line in header]
                header[-1] = header[-1].removesuffix(" ...")
                out.append("\n".join(header) + f'\n        """{doc}"""\n')
    return "\n".join(out)
