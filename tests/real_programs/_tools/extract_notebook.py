"""Extracts a notebook's code cells, in order, into a script that runs as the notebook does:
IPython magic lines (`%...`, `!...`) become comments, and a cell's final bare expression is
displayed (printed with repr, as Jupyter shows it) unless it is None or the line ends with `;`.
Cells given by index on the command line are omitted (replaced by a comment). With
`--exec-order`, cells are emitted in the order the author last ran them (execution_count),
for notebooks saved after out-of-order execution."""

import ast
import json
import sys

HEADER = """def __display__(value):
    if value is not None:
        print(repr(value))

"""


def convert(nb_path, skip=(), exec_order=False):
    nb = json.load(open(nb_path))
    out = [HEADER]
    cells = list(enumerate(nb["cells"]))
    if exec_order:
        # the order the author last ran the cells in (execution_count); never-run cells last
        cells.sort(
            key=lambda ic: (
                ic[1].get("execution_count") is None,
                ic[1].get("execution_count") or 0,
                ic[0],
            )
        )
    for i, cell in cells:
        if cell["cell_type"] != "code":
            continue
        if i in skip:
            out.append(f"# %% cell {i}: omitted (see SOURCE.md)\n")
            continue
        src = "".join(cell["source"])
        lines = src.split("\n")
        lines = [("# " + ln) if ln.lstrip().startswith(("%", "!")) else ln for ln in lines]
        src = "\n".join(lines).rstrip()
        if not src.strip():
            continue
        tree = ast.parse(src)
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
            last = tree.body[-1]
            lines = src.split("\n")
            start, end = last.lineno - 1, last.end_lineno - 1
            seg = lines[start : end + 1]
            col = last.col_offset
            seg[0] = seg[0][:col] + "__display__((" + seg[0][col:]
            endcol = last.end_col_offset + (len("__display__((") if start == end else 0)
            seg[-1] = seg[-1][:endcol] + "))" + seg[-1][endcol:]
            lines[start : end + 1] = seg
            src = "\n".join(lines)
        out.append(f"# %% cell {i}\n{src}\n")
    return "\n".join(out)


if __name__ == "__main__":
    # usage: extract_notebook.py [--exec-order] NOTEBOOK [CELL_INDEX_TO_OMIT ...]
    args = sys.argv[1:]
    exec_order = "--exec-order" in args
    args = [a for a in args if a != "--exec-order"]
    sys.stdout.write(convert(args[0], {int(a) for a in args[1:]}, exec_order))
