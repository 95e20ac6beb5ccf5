"""``torch._logging``: ``set_logs``. Of PyTorch's log components ferrograd has the autograd
engine's (``autograd=logging.DEBUG``: a line per node a backward pass runs, on the
``ferrograd.autograd`` logger); the others name parts of PyTorch that ferrograd does not have
(the compiler, distributed wrappers, ONNX export), so setting them logs nothing."""

import logging

from . import _core

__all__ = ["set_logs"]

_COMPONENTS = (
    "all dynamo aot autograd dynamic inductor distributed c10d ddp fsdp dtensor onnx bytecode "
    "aot_graphs aot_joint_graph ddp_graphs graph graph_code graph_code_verbose graph_breaks "
    "side_effects graph_sizes guards recompiles recompiles_verbose trace_source trace_call "
    "trace_bytecode output_code kernel_code schedule perf_hints pre_grad_graphs "
    "post_grad_graphs ir_pre_fusion ir_post_fusion onnx_diagnostics fusion overlap export "
    "modules cudagraphs sym_node compiled_autograd compiled_autograd_verbose "
    "cudagraph_static_inputs benchmarking autotuning autotuning_inputs incremental "
    "graph_region_expansion inductor_metrics hierarchical_compile compute_dependencies caching "
    "partitioned_scatter"
).split()


_HANDLER: list[logging.Handler] = []  # the stderr handler set_logs installed, if any


def set_logs(**settings):
    """Sets the log level of PyTorch's log components (keyword arguments named after them, a
    ``logging`` level each; ``all`` for every one); a call without arguments resets them all.
    ``autograd=logging.DEBUG`` logs each node a backward pass executes."""
    for name in settings:
        if name not in _COMPONENTS:
            raise TypeError(f"set_logs() got an unexpected keyword argument '{name}'")
    level = settings.get("autograd", settings.get("all"))
    logger = logging.getLogger(f"{__name__.split('.')[0]}.autograd")
    logger.setLevel(level if level is not None else logging.NOTSET)
    _core._set_autograd_logging(level is not None and level <= logging.DEBUG)
    # as PyTorch's, the records are also written to stderr while a level is set
    while _HANDLER:
        logger.removeHandler(_HANDLER.pop())
    if level is not None:
        handler = logging.StreamHandler()
        handler.setFormatter(
            logging.Formatter("%(levelname).1s%(asctime)s %(process)d %(name)s] %(message)s")
        )
        logger.addHandler(handler)
        _HANDLER.append(handler)
