"""The stubs of the typed bindings, read from their Rust source.

A ``#[pyfunction]`` of ``src/python/`` whose ``#[pyo3(signature = ...)]`` gives a Python type
to every parameter and to the result, as

    /// The docstring.
    #[pyfunction]
    #[pyo3(signature = (input: "Tensor", dim: "int | None" = None) -> "Tensor")]

gets its ``_core.pyi`` stub from there: the parameters, kinds and defaults of the signature,
the types written in it (``int``, ``float``, ``bool``, ``str``... stand for ``builtins.``'s, which
the ``Tensor`` class's methods of those names would shadow) and the doc comment as docstring.
pyo3 reads the signature, so the stub says what the function takes; ``mypy.stubtest`` checks
it against the built module. ``tools/gen_surface.py`` writes the stubs between the
``<generated: bindings>`` markers; a binding without types keeps a hand-written stub.

pyo3 refuses a signature on a special method (``__add__``) and a getter has none, so there a
comment line above the method gives the stub's signature, as it follows the name:

    // stub: (self, other: _Operand, /) -> Tensor
    fn __add__(&self, py: Python<'_>, o: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {

``// stub __lt__: ...`` names the Python method where one Rust method serves several
(``__richcmp__``), and text after the signature (``  # type: ignore[override]``) is kept.
A getter's ``// stub: -> Tensor`` makes a property, a setter's ``// stub: (self, value: T) ->
None`` its setter, and ``// stub deleter: (self) -> None`` there its deleter.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

BUILTINS = re.compile(r"(?<![\w.])(int|float|bool|str|bytes|complex|object|type|slice)(?!\w)")
NUMBER = re.compile(r"-?\d[\d_]*(\.\d+)?([eE]-?\d+)?")
RUST_TO_PYTHON = {"None": "None", "true": "True", "false": "False"}


@dataclass
class Binding:
    """One typed ``#[pyfunction]``."""

    name: str
    params: list[str]  # each as the stub writes it: ``dim: builtins.int | None = None``
    returns: str
    doc: list[str]
    origin: str
    static: bool = False
    decorator: str | None = None  # ``property`` or ``name.setter``
    trailer: str = ""  # a comment after the signature: ``  # type: ignore[override]``

STUB_COMMENT = re.compile(r"// stub(?: (\w+))?: (.*)$")


def split_top(text: str, sep: str = ",") -> list[str]:
    """``text`` cut at the ``sep`` characters outside brackets and string literals."""
    parts, depth, quote, current = [], 0, False, []
    i = 0
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                current.append(text[i : i + 2])
                i += 2
                continue
            quote = c != '"'
        elif c == '"':
            quote = True
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def string_literal(text: str) -> str | None:
    """The value of the Rust string literal ``text``, or None if it is not one."""
    text = text.strip()
    if len(text) < 2 or text[0] != '"' or text[-1] != '"':
        return None
    return re.sub(r"\\(.)", r"\1", text[1:-1])


def python_type(annotation: str) -> str:
    return BUILTINS.sub(r"builtins.\1", annotation)


def python_default(rust: str) -> str:
    rust = rust.strip()
    if rust in RUST_TO_PYTHON:
        return RUST_TO_PYTHON[rust]
    if NUMBER.fullmatch(rust):
        return rust.replace("_", "")
    if string_literal(rust) is not None:
        return rust
    return "..."


def stub_param(item: str) -> str | None:
    """The stub of one signature item, or None when it has no type."""
    if item in ("*", "/"):
        return item
    default = None
    head = item
    if "=" in item:
        head, default = (p.strip() for p in item.split("=", 1))
    if ":" not in head:
        return None
    name, annotation = (p.strip() for p in head.split(":", 1))
    ann = string_literal(annotation)
    if ann is None:
        return None
    text = f"{name}: {python_type(ann)}"
    return text if default is None else f"{text} = {python_default(default)}"


def signature_of(attributes: str) -> tuple[str, str | None] | None:
    """The parameter list and the result annotation (None if not given) of a
    ``signature = (...) -> "..."``."""
    at = attributes.find("signature")
    if at < 0:
        return None
    open_at = attributes.index("(", at)
    depth, quote, i = 0, False, open_at
    while i < len(attributes):
        c = attributes[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            quote = c != '"'
        elif c == '"':
            quote = True
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    params = attributes[open_at + 1 : i]
    m = re.match(r'\s*->\s*("(?:[^"\\]|\\.)*")', attributes[i + 1 :])
    return params, string_literal(m.group(1)) if m else None


def typed_signature(attributes: str) -> tuple[list[str], str] | None:
    """The stub's parameters and result type from a binding's attributes, or None unless the
    signature types every parameter and the result."""
    signature = signature_of(attributes)
    if signature is None or signature[1] is None:
        return None
    params = [stub_param(item) for item in split_top(signature[0])]
    if any(p is None for p in params):
        return None
    return [p for p in params if p is not None], python_type(signature[1])


def name_of(attributes: str, fn_name: str) -> str:
    m = re.search(r'\bname\s*=\s*"(\w+)"', attributes)
    return m.group(1) if m else fn_name


SKIPPED_METHOD_ATTRIBUTES = ("#[new", "#[classmethod", "#[classattr")


def commented_stubs(block: list[str], fn_name: str, doc: list[str], origin: str) -> list[Binding]:
    """The stubs that ``// stub`` comment lines of a method's ``block`` give (see the module
    docs)."""
    found = []
    getter = next((t for t in block if t.startswith(("#[getter", "#[setter"))), None)
    for line in block:
        m = STUB_COMMENT.match(line)
        if m is None:
            continue
        signature, _, trailer = m.group(2).partition("  #")
        params_text, _, returns = signature.rpartition("->")
        params = split_top(params_text.strip()[1:-1]) if params_text.strip() else ["self"]
        name, decorator = m.group(1) or fn_name, None
        if getter is not None:
            named = re.search(r"\((\w+)\)", getter)
            name = named.group(1) if named else fn_name.removeprefix("get_").removeprefix("set_")
            decorator = "property" if getter.startswith("#[getter") else f"{name}.setter"
            if m.group(1) == "deleter":  # a setter taking None also serves `del`
                decorator = f"{name}.deleter"
        found.append(
            Binding(
                name=name,
                params=[BUILTINS.sub(r"builtins.\1", p.strip()) for p in params],
                returns=python_type(returns.strip()) if returns.strip() else "None",
                doc=doc,
                origin=origin,
                decorator=decorator,
                trailer=f"  #{trailer}" if trailer else "",
            )
        )
    return found


def class_names(src: Path) -> dict[str, str]:
    """The Python name of each ``#[pyclass]`` struct of ``src``'s files."""
    names = {}
    for path in sorted(src.glob("*.rs")):
        text = path.read_text()
        # the attributes, other attributes (`#[derive(...)]`), the struct
        pattern = (
            r"#\[pyclass\(([^\]]*)\)\]\s*(?:#\[[^\]]*\]\s*)*"
            r"(?:pub(?:\([a-z]+\))? )?struct (\w+)"
        )
        for m in re.finditer(pattern, text):
            name = re.search(r'\bname\s*=\s*"(\w+)"', m.group(1))
            names[m.group(2)] = name.group(1) if name else m.group(2)
    return names


def rust_methods(src: Path) -> dict[str, list[Binding]]:
    """Every typed method of the ``#[pymethods]`` blocks of ``src``'s files, by class (the
    Python name), in the order of the files and their lines. Getters, setters and special
    methods have stubs where a ``// stub`` comment gives them (see the module docs);
    constructors keep hand-written ones; a static method's stub says so."""
    classes = class_names(src)
    found: dict[str, list[Binding]] = {}
    for path in sorted(src.glob("*.rs")):
        lines = path.read_text().splitlines()
        owner = None
        for i, line in enumerate(lines):
            if line.startswith("impl ") and i > 0 and lines[i - 1].strip() == "#[pymethods]":
                owner = classes.get(line.split()[1])
                continue
            if line == "}":
                owner = None
            if owner is None or not re.match(r"\s+(pub(\([a-z]+\))? )?fn \w+", line):
                continue
            first = i
            while lines[first - 1].strip().startswith(("///", "#[", "// stub")):
                first -= 1
            block = [text.strip() for text in lines[first:i]]
            attributes = " ".join(t for t in block if not t.startswith("//"))
            if any(t.startswith(SKIPPED_METHOD_ATTRIBUTES) for t in block):
                continue
            fn_name = re.search(r"\bfn (\w+)", line).group(1)
            name = name_of(attributes, fn_name)
            doc = [t[4:] if t.startswith("/// ") else "" for t in block if t.startswith("///")]
            origin = f"{path.name}:{i + 1}"
            commented = commented_stubs(block, name, doc, origin)
            if commented or any(t.startswith(("#[getter", "#[setter")) for t in block):
                found.setdefault(owner, []).extend(commented)
                continue
            if name.startswith("__") and name.endswith("__"):
                continue
            typed = typed_signature(attributes)
            if typed is None:
                continue
            params, returns = typed
            static = "#[staticmethod]" in block
            found.setdefault(owner, []).append(
                Binding(
                    name=name,
                    params=params if static else ["self", *params],
                    returns=returns,
                    doc=doc,
                    origin=origin,
                    static=static,
                )
            )
    return found


def rust_bindings(src: Path) -> list[Binding]:
    """Every typed ``#[pyfunction]`` of the files of ``src`` (macro bodies left out)."""
    found = []
    for path in sorted(src.glob("*.rs")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() != "#[pyfunction]":
                continue
            doc_start = i
            while doc_start > 0 and lines[doc_start - 1].strip().startswith(("///", "#[")):
                doc_start -= 1
            doc = [
                text.strip()[4:] if text.strip().startswith("/// ") else ""
                for text in lines[doc_start:i]
                if text.strip().startswith("///")
            ]
            end = i + 1
            while end < len(lines) and not re.search(r"\bfn \$?\w+", lines[end]):
                end += 1
            fn = re.search(r"\bfn (\$?\w+)", lines[end]) if end < len(lines) else None
            if fn is None or fn.group(1).startswith("$"):
                continue
            attributes = " ".join(text.strip() for text in lines[i + 1 : end])
            typed = typed_signature(attributes)
            if typed is None:
                continue
            params, returns = typed
            found.append(
                Binding(
                    name=name_of(attributes, fn.group(1)),
                    params=params,
                    returns=returns,
                    doc=doc,
                    origin=f"{path.name}:{i + 1}",
                )
            )
    return found


def docstring(doc: list[str], indent: str = "    ") -> list[str]:
    """The docstring lines (indented by ``indent``) of a doc comment, each at most 100
    characters."""
    while doc and not doc[-1]:
        doc = doc[:-1]
    if not doc:
        return [f"{indent}..."]
    text = "\n".join(doc).replace('"""', '\\"\\"\\"')
    prefix = 'r"""' if "\\" in text else '"""'
    lines = []
    for line in text.split("\n"):
        width = 100 - len(indent)
        lines += textwrap.wrap(line, width, break_on_hyphens=False, break_long_words=False) or [""]
    lines[0] = prefix + lines[0]
    if len(lines[0]) > width:
        lines[0:1] = [prefix, lines[0][len(prefix) :]]
    if len(lines[-1]) + 3 <= width:
        lines[-1] += '"""'
    else:
        lines.append('"""')
    return [f"{indent}{line}" if line else "" for line in lines]


def stub(binding: Binding, indent: str = "") -> str:
    """The stub of one binding (a method's indented by ``indent``)."""
    one_line = f"{indent}def {binding.name}({', '.join(binding.params)}) -> {binding.returns}:"
    if len(one_line) <= 100 or not binding.params:
        head = [one_line]
    else:
        head = [f"{indent}def {binding.name}("] + [f"{indent}    {p}," for p in binding.params]
        head.append(f"{indent}) -> {binding.returns}:")
    head[-1] += binding.trailer
    if binding.static:
        head.insert(0, f"{indent}@staticmethod")
    if binding.decorator:
        head.insert(0, f"{indent}@{binding.decorator}")
    # a type too long for one line is left long rather than cut
    head = [line if len(line) <= 100 else f"{line}  # noqa: E501" for line in head]
    return "\n".join(head + docstring(binding.doc, indent + "    ")) + "\n"


def stubs_block(src: Path) -> str:
    """The stubs of every typed binding, in the order of the files and their lines."""
    return "\n".join(stub(b) for b in rust_bindings(src))


def with_accessors_together(bindings: list[Binding]) -> list[Binding]:
    """``bindings`` with each property's setter and deleter right after its getter (a type
    checker wants them together; the Rust methods may stand apart)."""
    accessor = [b.decorator is not None and b.decorator != "property" for b in bindings]
    ordered = [b for b, a in zip(bindings, accessor, strict=True) if not a]
    # setters before deleters, each after what its property has so far
    for b in sorted((b for b, a in zip(bindings, accessor, strict=True) if a),
                    key=lambda b: b.decorator.endswith("deleter")):  # fmt: skip
        at = max(i for i, o in enumerate(ordered) if o.name == b.name and o.decorator)
        ordered.insert(at + 1, b)
    return ordered


def methods_block(src: Path, class_name: str) -> str:
    """The stubs of the typed methods of ``class_name``, indented for its class body."""
    found = with_accessors_together(rust_methods(src).get(class_name, []))
    return "\n".join(stub(b, "    ") for b in found)
