"""``torch._dynamo.config``: the settings scripts set before compiling, PyTorch's defaults.
``torch.compile`` runs eagerly here, so none of them changes a result."""

suppress_errors = False
verbose = False
cache_size_limit = 8
accumulated_cache_size_limit = 256
capture_scalar_outputs = False
capture_dynamic_output_shape_ops = False
optimize_ddp = True
automatic_dynamic_shapes = True
assume_static_by_default = True
