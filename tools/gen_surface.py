"""Generates the regular parts of ferrograd's Python surface from the derivative tables.

The rows of ``unary_table!`` (``src/ops/pointwise/unary.rs``) and ``binary_table!``
(``src/ops/pointwise/binary.rs``) are the single source of the pointwise ops. From them and
from the short lists below this script writes, between ``<generated: NAME>`` markers:

- ``python/ferrograd/_core.pyi``: the stubs of every row's method and in-place twin, of every
  binding (``binding_stubs.py``), of the ``Tensor`` methods written in Python
  (``runtime_stubs.py``, which imports the built package) and ``__all__``;
- ``python/ferrograd/__init__.py``: the ``torch.xxx`` function aliases and ``__all__``;
- ``README.md``: the pointwise, in-place and function rows of the surface tables.

``python tools/gen_surface.py`` rewrites the files; ``--check`` (run by CI) fails, naming the
file, when one differs from what the tables give.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from binding_stubs import methods_block, stubs_block
from runtime_stubs import class_header, constants_block, method_headers, python_methods_block

ROOT = Path(__file__).resolve().parent.parent

# torch.xxx functions that are Tensor methods but not rows of the pointwise tables.
OTHER_FUNCTIONS = [
    "add", "sub", "mul", "div", "pow", "square", "clamp", "clip", "polygamma", "logit",
    "sum", "mean", "norm", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var",
    "std", "logsumexp", "cumsum", "softmax", "log_softmax", "all", "any",
    "matmul", "mm", "mv", "dot", "outer", "bmm",
    "t", "transpose", "reshape", "squeeze", "unsqueeze", "flatten", "permute", "split",
    "chunk", "unbind", "flip", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes",
    "unsafe_chunk", "var_mean", "std_mean", "isin", "threshold", "threshold_",
    "gather", "scatter_add", "index_select", "masked_fill", "maximum", "minimum",
    "isnan", "isinf", "isfinite", "signbit", "logical_and", "logical_or", "logical_xor",
    "logical_not",
    "clone", "detach", "numel", "where", "isclose", "allclose", "equal",
    "floor_divide", "remainder", "fmod", "tril", "triu", "diag", "diagonal", "trace", "cumprod",
    "sort", "argsort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique", "cross",
    "roll",
    "broadcast_to", "addmm", "addmv", "baddbmm", "lerp", "addcmul", "addcdiv",
    "scatter", "scatter_reduce", "index_reduce", "index_copy", "index_fill", "index_add",
    "nonzero", "argwhere", "count_nonzero", "masked_select", "take_along_dim",
    "unique_consecutive", "cummax", "cummin", "aminmax", "nansum", "logaddexp", "logaddexp2",
    "nan_to_num", "nan_to_num_", "as_strided", "select", "narrow", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
]  # fmt: skip

# torch.xxx functions of the native module itself (they take numbers where Tensor's methods
# take tensors, as ``torch.pow(2, x)``, or their arguments in another order, as
# ``torch.polygamma(n, x)``).
CORE_FUNCTIONS = [
    "pow", "polygamma", "where", "remainder", "floor_divide", "var_mean", "std_mean", "isin",
    "threshold", "threshold_",
]  # fmt: skip

# In-place methods that are not twins of table rows.
OTHER_INPLACE = [
    "add_", "sub_", "mul_", "div_", "pow_", "zero_", "fill_", "copy_", "normal_", "uniform_",
    "random_", "bernoulli_", "exponential_", "clamp_min_", "clamp_max_",
    "clamp_", "masked_fill_", "scatter_add_", "polygamma_", "logit_",
    "floor_divide_", "remainder_", "fmod_", "tril_", "triu_", "cumprod_", "cumsum_",
    "lerp_", "addcmul_", "addcdiv_", "scatter_", "scatter_reduce_", "index_reduce_",
    "index_copy_", "index_fill_", "index_add_", "nan_to_num_",
    "set_", "resize_", "resize_as_", "t_", "transpose_", "swapdims_", "swapaxes_", "squeeze_",
    "unsqueeze_", "as_strided_",
]  # fmt: skip

# Names of ferrograd's namespace that are not function aliases (for ``__all__``).
OTHER_EXPORTS = [
    "Size", "Tensor", "arange", "autograd", "backends", "bool", "cat", "cuda", "device",
    "double", "dtype", "empty",
    "enable_grad", "float", "float32", "float64", "from_dlpack", "from_numpy", "full",
    "get_default_dtype",
    "get_num_threads", "int64", "int32", "int16", "int8", "uint8", "int", "short", "finfo",
    "iinfo", "promote_types", "result_type", "can_cast", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "is_grad_enabled", "is_tensor", "typename", "linspace", "long",
    "repeat_interleave", "multiply", "subtract", "divide", "true_divide", "negative", "absolute",
    "greater", "greater_equal", "less", "less_equal", "not_equal", "arccos", "arcsin", "arctan",
    "arccosh", "arcsinh", "arctanh", "arctan2", "fix", "ger", "is_complex", "is_floating_point",
    "conj", "conj_physical", "resolve_conj", "resolve_neg", "is_conj", "is_neg", "sgn",
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "conv_tbc",
    "cosine_similarity",
    "hardshrink",
    "pairwise_distance",
    "pdist",
    "prelu",
    "rrelu",
    "manual_seed", "nn", "no_grad", "ones", "ones_like", "optim", "rand", "randint", "randn",
    "randperm",
    "save", "load", "utils", "Generator", "default_generator", "seed", "initial_seed", "bernoulli",
    "clamp_min", "clamp_max", "multinomial", "BoolTensor", "DoubleTensor", "FloatTensor",
    "LongTensor", "empty_like", "full_like", "get_rng_state", "inference_mode",
    "is_inference_mode_enabled", "normal", "rand_like", "randint_like", "randn_like",
    "set_default_dtype", "set_printoptions", "set_rng_state",
    "set_grad_enabled", "set_num_threads", "stack", "tensor", "zeros", "zeros_like",
    "eye", "einsum", "meshgrid", "broadcast_tensors", "linalg", "distributed", "viz",
    "accelerator", "profiler", "random", "lt", "le", "gt", "ge", "eq", "ne", "layout", "strided",
    "sparse_coo", "sparse_csr", "sparse_csc", "sparse", "sparse_coo_tensor", "spmm",
    "sparse_bsr", "sparse_bsc", "jagged", "set_warn_always", "is_warn_always_enabled",
    "is_inference", "set_anomaly_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
    "searchsorted", "bucketize", "memory_format", "contiguous_format", "channels_last",
    "channels_last_3d", "preserve_format",
    "amp", "autocast", "onnx", "compile", "use_deterministic_algorithms",
    "are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "set_default_device",
    "get_default_device", "histc", "histogram",
    "atleast_1d", "atleast_2d", "atleast_3d", "column_stack", "concat", "concatenate",
    "constant_pad_nd",
    "diff",
    "dsplit", "dstack", "fliplr", "flipud", "hsplit", "hstack", "inner", "kron", "moveaxis",
    "movedim", "msort", "ravel", "rot90", "row_stack", "swapaxes", "swapdims", "tensor_split",
    "tensordot", "tile", "unflatten", "vsplit", "vstack", "special", "testing", "norm_except_dim",
    "distributions", "as_tensor", "__future__", "return_types",
    "pixel_shuffle", "pixel_unshuffle", "nanmean", "bincount", "tril_indices", "triu_indices",
    "cdist", "cholesky", "cholesky_inverse", "cholesky_solve", "det", "inverse", "logdet",
    "matrix_exp", "matrix_power", "pinverse", "slogdet", "svd",
    "empty_strided", "overrides", "lobpcg", "func", "vmap", "multiprocessing",
]  # fmt: skip


@dataclass
class Row:
    """One row of a derivative table."""

    name: str
    inplace: str
    node: str
    doc: str
    arity: int
    numbers: bool  # a two-tensor op that also takes a Python number on either side


ROW = re.compile(r"^\s*(\w+), (\w+), \"(\w+)\"(?:,| numbers\()", re.MULTILINE)


def table_rows(path: Path, macro: str, arity: int) -> list[Row]:
    """The rows of ``macro!`` in ``path``, each with the doc comment above it."""
    text = path.read_text()
    start = text.index(f"macro_rules! {macro}")
    end = text.index("\n}\n", start)
    rows = []
    doc = ""
    for line in text[start:end].splitlines():
        stripped = line.strip()
        if stripped.startswith("///"):
            doc = stripped[3:].strip()
            continue
        m = ROW.match(line)
        if m:
            numbers = "numbers(" in line
            rows.append(Row(m.group(1), m.group(2), m.group(3), doc, arity, numbers))
            doc = ""
    if not rows:
        raise SystemExit(f"no rows found in {macro}! of {path}")
    return rows


def all_rows() -> list[Row]:
    return table_rows(ROOT / "src/ops/pointwise/unary.rs", "unary_table", 1) + table_rows(
        ROOT / "src/ops/pointwise/binary.rs", "binary_table", 2
    )


def other_type(r: Row) -> str:
    return "_Operand" if r.numbers else "Tensor"


def stub_block(rows: list[Row]) -> str:
    out = []
    for r in rows:
        doc = r.doc.replace("\\", "\\\\")
        args = "self" if r.arity == 1 else f"self, other: {other_type(r)}"
        # (one-tensor methods take no out=: a keyword costs every call of the method)
        out_args = args if r.arity == 1 else f"{args}, *, out: Tensor | None = None"
        out.append(f'    def {r.name}({out_args}) -> Tensor:\n        """{doc}."""')
        out.append(f'    def {r.inplace}({args}) -> Self:\n        """In-place `{r.name}`."""')
    return "\n".join(out) + "\n"


def module_function_block(rows: list[Row]) -> str:
    """Stubs of the native module's functions for the rows (``torch.sin``, ``torch.xlogy``),
    which take ``out=``."""
    out = []
    for r in rows:
        doc = r.doc.replace("\\", "\\\\")
        if r.arity == 2:
            t = other_type(r)
            sig = f"input: {t}, other: {t}, *, out: Tensor | None = None"
        else:
            sig = "input: Tensor, *, out: Tensor | None = None"
        out.append(f'def {r.name}({sig}) -> Tensor:\n    """{doc}."""\n')
    return "\n".join(out)


# A name the stub defines at module level: a class, a function or a constant (`float32: dtype`),
# not a type alias (`_Number: TypeAlias = ...`).
TOP_LEVEL_NAME = re.compile(r"^(?:class|def) (\w+)|^(\w+): (?!TypeAlias)", re.MULTILINE)


def module_all_block(stub: str) -> str:
    """``_core``'s ``__all__``: every name the stub ``stub`` defines at module level, sorted
    (pyo3 lists every class, function and constant the module adds; stubtest compares)."""
    names = {m.group(1) or m.group(2) for m in TOP_LEVEL_NAME.finditer(stub)}
    return "__all__ = [\n" + "".join(f'    "{name}",\n' for name in sorted(names)) + "]\n"


def core_functions(rows: list[Row]) -> set[str]:
    """Functions the native module defines itself (the others alias Tensor methods)."""
    return set(CORE_FUNCTIONS) | {r.name for r in rows}


def function_names(rows: list[Row]) -> list[str]:
    return sorted({r.name for r in rows} | set(OTHER_FUNCTIONS))


def alias_block(rows: list[Row]) -> str:
    native = core_functions(rows)
    lines = [
        f"{name} = _core.{name}" if name in native else f"{name} = Tensor.{name}"
        for name in function_names(rows)
    ]
    return "\n".join(lines) + "\n"


def all_block(rows: list[Row]) -> str:
    names = sorted(set(function_names(rows)) | set(OTHER_EXPORTS))
    body = "".join(f'    "{n}",\n' for n in names)
    return f"__all__ = [\n{body}]\n"


def readme_table(title: str, rows: list[tuple[str, list[str]]]) -> str:
    """A two-column Markdown table: a header cell, then one row of names per category."""
    lines = [f"| {title} | |", "|---|---|"]
    lines += [f"| {cat} | " + " ".join(f"`{n}`" for n in names) + " |" for cat, names in rows]
    return "\n".join(lines) + "\n"


def replace_block(
    text: str, name: str, body: str, path: Path, comment: str, source: str = "the tables"
) -> str:
    """``text`` with the lines between the ``<generated: name>`` markers set to ``body``
    (markers in ``comment`` comments: ``#`` or ``<!--``; ``source`` is what they say it is
    written from)."""
    close = " -->" if comment == "<!--" else ""
    begin = f"{comment} <generated: {name}>"
    end = f"{comment} </generated: {name}>"
    pattern = re.compile(
        rf"^([ \t]*){re.escape(begin)}[^\n]*\n.*?^[ \t]*{re.escape(end)}[^\n]*$",
        re.MULTILINE | re.DOTALL,
    )
    m = pattern.search(text)
    if not m:
        raise SystemExit(f"{path}: markers '{begin}' ... '{end}' not found")
    indent = m.group(1)
    note = f"{indent}{begin} written by tools/gen_surface.py from {source}{close}\n"
    block = note + body + f"{indent}{end}{close}"
    return text[: m.start()] + block + text[m.end() :]


def aliases() -> dict[str, str]:
    """``ferrograd._aliases.ALIASES`` (alias -> the function it names again), read from the
    source."""
    tree = ast.parse((ROOT / "python/ferrograd/_aliases.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ALIASES":
            return ast.literal_eval(node.value)
    raise SystemExit("python/ferrograd/_aliases.py: no ALIASES")


def method_header(text: str, name: str) -> list[str] | None:
    """The ``def`` lines of the ``Tensor`` method ``name`` in the stub ``text`` (None if it has
    none, overloads or a decorator)."""
    headers = method_headers(text, name)
    if len(headers) != 1 or headers[0][0].lstrip().startswith("@"):
        return None
    header = headers[0]
    header[-1] = header[-1].removesuffix(" ...")
    return header


def alias_methods_block(text: str) -> str:
    """The stubs of the ``Tensor`` aliases (``multiply`` for ``mul``, in-place twins too):
    each its target's signature, under the alias's name."""
    out = []
    for alias, target in aliases().items():
        for a, t in ((alias, target), (alias + "_", target + "_")):
            header = method_header(text, t)
            if header is None:
                continue
            header[0] = header[0].replace(f"def {t}(", f"def {a}(", 1)
            doc = f"Alias of `{t}` (PyTorch's second name; the same method)."
            out.append("\n".join(header) + f'\n        """{doc}"""\n')
    return "".join(out)


def generated() -> dict[Path, str]:
    rows = all_rows()
    files = {}
    pyi = ROOT / "python/ferrograd/_core.pyi"
    try:
        import ferrograd  # the installed package (CI builds it before this runs)
    except ImportError as e:
        raise SystemExit(f"gen_surface reads the built package: build it first ({e})") from e

    text, core, built = pyi.read_text(), ferrograd._core, "the imported ferrograd"
    for name in re.findall(r"<generated: class (\w+)>", text):
        header = class_header(getattr(core, name))
        text = replace_block(text, f"class {name}", header, pyi, "#", built)
    text = replace_block(text, "constants", constants_block(core), pyi, "#", built)
    text = replace_block(text, "pointwise", stub_block(rows), pyi, "    #")
    text = replace_block(text, "functions", module_function_block(rows), pyi, "#")
    source = "src/python/"
    text = replace_block(text, "bindings", stubs_block(ROOT / "src/python"), pyi, "#", source)
    for name in re.findall(r"<generated: (\w+) methods>", text):
        block = methods_block(ROOT / "src/python", name)
        text = replace_block(text, f"{name} methods", block, pyi, "    #", source)
    block = alias_methods_block(text)
    text = replace_block(text, "Tensor aliases", block, pyi, "    #", "ferrograd._aliases")
    # after the native methods: a Python method is stubbed here only if they lack it
    name = "Tensor Python methods"
    text = replace_block(text, name, "", pyi, "    #", built)
    block = python_methods_block(text, ferrograd.Tensor)
    text = replace_block(text, name, block, pyi, "    #", built)
    # last: it lists what the blocks above define
    text = replace_block(text, "__all__", module_all_block(text), pyi, "#", "this file")
    files[pyi] = text
    init = ROOT / "python/ferrograd/__init__.py"
    text = replace_block(init.read_text(), "functions", alias_block(rows), init, "#")
    files[init] = replace_block(text, "__all__", all_block(rows), init, "#")
    readme = ROOT / "README.md"
    text = readme.read_text()
    pointwise = [r.name for r in rows]
    inplace = OTHER_INPLACE + [r.inplace for r in rows]
    text = replace_block(
        text,
        "tensor-rows",
        readme_table(
            "`Tensor` (from the derivative tables)",
            [("Pointwise", pointwise), ("In-place", inplace)],
        ),
        readme,
        "<!--",
    )
    text = replace_block(
        text,
        "torch-rows",
        readme_table(
            "`ferrograd` functions", [("Same as the Tensor methods", function_names(rows))]
        ),
        readme,
        "<!--",
    )
    files[readme] = text
    return files


# Issue 27 asks for no hand-written line in _core.pyi; until then their number may only fall.
HAND_WRITTEN_STUB_LINES_AT_MOST = 53


def hand_written_lines(text: str) -> int:
    """The non-blank, non-comment lines of a stub file outside its generated blocks."""
    count, depth = 0, 0
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("# <generated:"):
            depth += 1
        elif s.startswith("# </generated:"):
            depth -= 1
        elif depth == 0 and s and not s.startswith("#"):
            count += 1
    return count


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a file is out of date")
    args = parser.parse_args()
    stale = []
    for path, text in generated().items():
        if path.read_text() != text:
            if args.check:
                stale.append(path.relative_to(ROOT))
            else:
                path.write_text(text)
                print(f"wrote {path.relative_to(ROOT)}")
    hand = hand_written_lines((ROOT / "python/ferrograd/_core.pyi").read_text())
    if hand > HAND_WRITTEN_STUB_LINES_AT_MOST:
        print(
            f"_core.pyi has {hand} hand-written lines, more than the "
            f"{HAND_WRITTEN_STUB_LINES_AT_MOST} allowed: type the new binding's pyo3 signature "
            "(or give it a `// stub` comment) instead",
            file=sys.stderr,
        )
        return 1
    if stale:
        names = ", ".join(str(p) for p in stale)
        print(f"out of date: {names}; run `python tools/gen_surface.py`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
