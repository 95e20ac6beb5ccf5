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
None`` its setter, and ``// stub deleter: (self) -> None`` there its deleter. The same comments
serve where a signature cannot say what a binding takes: several for one name are its
overloads (``max()``, ``max(dim)``, ``max(other)``), and a constructor (``#[new]``) or a
binding without types gets its stub from them. A long signature goes on over the following
comment lines while its parentheses are open::

    // stub: (
    //     outputs: _Tensors,
    //     inputs: _Tensors,
    // ) -> tuple[Tensor, ...]

A ``#[pyfunction]`` written inside a ``macro_rules!`` (``fn $name``) gets a stub for each call of
the macro in its file, named by the call's first argument, documented by its string arguments.
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


def stub_comments(block: list[str]) -> list[tuple[str | None, str]]:
    """The ``// stub`` comments of ``block`` (its lines, stripped): each as the Python name it
    gives (or None) and its text, a signature whose parentheses are still open going on over
    the comment lines that follow."""
    found: list[tuple[str | None, str]] = []
    for i, line in enumerate(block):
        m = STUB_COMMENT.match(line)
        if m is None:
            continue
        text = m.group(2)
        for more in block[i + 1 :]:
            if text.count("(") <= text.count(")") or not more.startswith("//"):
                break
            more = more[2:].strip()
            text += more if text.endswith("(") or more.startswith(")") else " " + more
        found.append((m.group(1), text.replace(",)", ")")))
    return found


def commented_stubs(block: list[str], fn_name: str, doc: list[str], origin: str) -> list[Binding]:
    """The stubs that ``// stub`` comment lines of a binding's ``block`` give (see the module
    docs); several for one name are its overloads."""
    found = []
    getter = next((t for t in block if t.startswith(("#[getter", "#[setter"))), None)
    kind = next((t[2:-1] for t in block if t in ("#[staticmethod]", "#[classmethod]")), None)
    comments = stub_comments(block)
    names = [named or fn_name for named, _ in comments]
    for number, (named, text) in enumerate(comments):
        overloads = getter is None and names.count(named or fn_name) > 1
        signature, _, trailer = text.partition("  #")
        params_text, _, returns = signature.rpartition("->")
        params = split_top(params_text.strip()[1:-1]) if params_text.strip() else ["self"]
        name, decorator = named or fn_name, "overload" if overloads else kind
        if getter is not None:
            found_name = re.search(r"\((\w+)\)", getter)
            plain = fn_name.removeprefix("get_").removeprefix("set_")
            name = found_name.group(1) if found_name else plain
            decorator = "property" if getter.startswith("#[getter") else f"{name}.setter"
            if named == "deleter":  # a setter taking None also serves `del`
                decorator = f"{name}.deleter"
        found.append(
            Binding(
                name=name,
                params=[BUILTINS.sub(r"builtins.\1", p.strip()) for p in params],
                returns=python_type(returns.strip()) if returns.strip() else "None",
                doc=doc if names.index(named or fn_name) == number else [],
                origin=origin,
                decorator=decorator,
                trailer=f"  #{trailer}" if trailer else "",
                static=kind == "staticmethod" and overloads,
            )
        )
    return found


def item_start(lines: list[str], i: int) -> int:
    """The first line of the doc comment, attributes and comments above line ``i`` of a Rust
    file (an attribute may span lines): up to the blank line or the end of the item before."""
    while i > 0 and lines[i - 1].strip() and not lines[i - 1].rstrip().endswith(("}", "{", ";")):
        i -= 1
    return i


# A ``#[pyclass(...)]``, other attributes (``#[derive(...)]``), then its struct.
PYCLASS = re.compile(
    r"#\[pyclass\(([^\]]*)\)\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([a-z]+\))? )?struct (\w+)"
)


def pyclasses(src: Path) -> dict[str, tuple[str, set[str]]]:
    """Each ``#[pyclass(...)]`` struct of ``src``'s files: its Python name and the options
    without a value (``eq``, ``hash``, ``frozen``...)."""
    found = {}
    for path in sorted(src.glob("*.rs")):
        for m in PYCLASS.finditer(path.read_text()):
            name = re.search(r'\bname\s*=\s*"(\w+)"', m.group(1))
            flags = {t.strip() for t in split_top(m.group(1)) if "=" not in t}
            found[m.group(2)] = (name.group(1) if name else m.group(2), flags)
    return found


def class_names(src: Path) -> dict[str, str]:
    """The Python name of each ``#[pyclass]`` struct of ``src``'s files."""
    return {rust: python for rust, (python, _) in pyclasses(src).items()}


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
            first = item_start(lines, i)
            block = [text.strip() for text in lines[first:i]]
            attributes = " ".join(t for t in block if not t.startswith("//"))
            skipped = any(t.startswith(SKIPPED_METHOD_ATTRIBUTES) for t in block)
            if skipped and not stub_comments(block):
                continue
            fn_name = re.search(r"\bfn (?:r#)?(\w+)", line).group(1)
            name = "__new__" if "#[new]" in block else name_of(attributes, fn_name)
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


def macro_calls(text: str, macro: str) -> list[tuple[str, list[str]]]:
    """Each call ``macro!(name, ..., "doc")`` of ``text``: its first argument, the binding's
    name, and its string arguments, the binding's doc comment."""
    calls = re.finditer(rf"^{macro}!\(\s*(\w+),(.*?)\);$", text, re.MULTILINE | re.DOTALL)
    return [(m.group(1), re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2))) for m in calls]


def binding_stubs(block: list[str], name: str, doc: list[str], origin: str) -> list[Binding]:
    """The stubs of one ``#[pyfunction]`` named ``name``, from the lines of its attributes and
    comments (``block``): its ``// stub`` comments, else its typed signature, else none."""
    commented = commented_stubs(block, name, doc, origin)
    attributes = " ".join(t for t in block if not t.startswith("//"))
    typed = typed_signature(attributes)
    if commented or typed is None:
        return commented
    params, returns = typed
    return [Binding(name=name, params=params, returns=returns, doc=doc, origin=origin)]


def rust_bindings(src: Path) -> list[Binding]:
    """Every ``#[pyfunction]`` of the files of ``src`` that is typed or has ``// stub``
    comments; one written in a ``macro_rules!`` (``fn $name``) for each call of the macro."""
    found = []
    for path in sorted(src.glob("*.rs")):
        text = path.read_text()
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.strip() != "#[pyfunction]":
                continue
            doc_start = item_start(lines, i)
            end = i + 1
            while end < len(lines) and not re.search(r"\bfn \$?\w+", lines[end]):
                end += 1
            fn = re.search(r"\bfn (\$?\w+)", lines[end]) if end < len(lines) else None
            if fn is None:
                continue
            block = [text.strip() for text in lines[doc_start:end]]
            doc = [t[4:] if t.startswith("/// ") else "" for t in block if t.startswith("///")]
            attributes = " ".join(t for t in block if not t.startswith("//"))
            calls = [(name_of(attributes, fn.group(1)), doc)]
            if fn.group(1).startswith("$"):
                macro = [m for m in re.findall(r"macro_rules! (\w+)", "\n".join(lines[:i]))]
                calls = macro_calls(text, macro[-1]) if macro else []
            for name, doc in calls:
                found += binding_stubs(block, name, doc, f"{path.name}:{i + 1}")
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
    body = docstring(binding.doc, indent + "    ")
    if body == [f"{indent}    ..."]:  # no docstring: `def f() -> T: ...` on the last line
        head[-1], body = head[-1] + " ...", []
    head[-1] += binding.trailer
    if binding.static:
        head.insert(0, f"{indent}@staticmethod")
    if binding.decorator:
        head.insert(0, f"{indent}@{binding.decorator}")
    # a type too long for one line is left long rather than cut
    head = [line if len(line) <= 100 else f"{line}  # noqa: E501" for line in head]
    return "\n".join(head + body) + "\n"


def stubs_block(src: Path) -> str:
    """The stubs of every typed binding, in the order of the files and their lines."""
    return "\n".join(stub(b) for b in rust_bindings(src))


def with_accessors_together(bindings: list[Binding]) -> list[Binding]:
    """``bindings`` with each property's setter and deleter right after its getter (a type
    checker wants them together; the Rust methods may stand apart)."""
    accessor = [(b.decorator or "").endswith((".setter", ".deleter")) for b in bindings]
    ordered = [b for b, a in zip(bindings, accessor, strict=True) if not a]
    # setters before deleters, each after what its property has so far
    for b in sorted((b for b, a in zip(bindings, accessor, strict=True) if a),
                    key=lambda b: b.decorator.endswith("deleter")):  # fmt: skip
        at = max(i for i, o in enumerate(ordered) if o.name == b.name and o.decorator)
        ordered.insert(at + 1, b)
    return ordered


# The methods a ``#[pyclass(...)]`` option makes pyo3 write, as stubs.
CLASS_OPTION_STUBS = {
    "eq": Binding("__eq__", ["self", "other: object", "/"], "builtins.bool", [], "eq"),
    "hash": Binding("__hash__", ["self"], "builtins.int", [], "hash"),
}


def methods_block(src: Path, class_name: str) -> str:
    """The stubs of the typed methods of ``class_name``, indented for its class body: those
    its ``#[pyclass]`` options make (``eq``, ``hash``), then its methods'."""
    options = next((o for name, o in pyclasses(src).values() if name == class_name), set())
    made = [CLASS_OPTION_STUBS[o] for o in CLASS_OPTION_STUBS if o in options]
    found = with_accessors_together(rust_methods(src).get(class_name, []))
    return "\n".join(stub(b, "    ") for b in made + found)
