"""PyTorch's test_autograd ``graph_desc``, shared by the engine tests (imports no library)."""


def graph_desc(fn):
    """The graph below the node ``fn`` as nested names (``"AddBackward0(None, None)"``)."""
    if fn is None:
        return "None"
    inner = ", ".join(graph_desc(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({inner})"
