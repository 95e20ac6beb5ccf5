"""Type stubs for ``ferrograd._core``, the native module built from ``src/python/*.rs``.

The blocks between ``<generated: ...>`` markers are written by ``tools/gen_surface.py``: the
pointwise ops from the derivative tables; every binding from its typed ``#[pyo3(signature =
...)]`` or the ``// stub`` comments above it (special methods, properties, overloads), with its
Rust doc comment as docstring (``tools/binding_stubs.py``); the ``Tensor`` methods written in
Python, the class headers and the module's constants from the imported package
(``tools/runtime_stubs.py``); ``__all__``. Written by hand: this header, the vocabulary the
signatures are written in (imports, type aliases).
``python -m mypy.stubtest ferrograd._core`` compares this file with the built module.

The module defines dtype constants named ``float``, ``bool``, ``long`` and ``double``, and
``Tensor`` has methods with those names, so builtin types are always spelled ``builtins.X`` here.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal, SupportsIndex, final, overload

from numpy.typing import DTypeLike, NDArray
from typing_extensions import Self, TypeAlias, disjoint_base

from ._hooks import (
    RemovableHandle,
    aminmax_result,
    cummax_result,
    cummin_result,
    kthvalue_result,
    max_result,
    median_result,
    min_result,
    mode_result,
    nanmedian_result,
    sort_result,
    topk_result,
)
from ._linalg_functions import slogdet_result

if sys.version_info >= (3, 10):
    from types import EllipsisType
else:
    from builtins import ellipsis as EllipsisType

# A Python number: what an arithmetic operand, a fill value or a bound may be besides a tensor.
_Number: TypeAlias = builtins.float | builtins.int | builtins.bool
# A tensor or a Python number: either side of an arithmetic or comparison op.
_Operand: TypeAlias = Tensor | _Number
# A `dtype=` argument: a ferrograd dtype, or Python's `float` (float64), `int` (int64), `bool`.
_DType: TypeAlias = dtype
_DTypeLike: TypeAlias = dtype | type[builtins.float] | type[builtins.int] | type[builtins.bool]
# A `device=` argument: accepted for compatibility and ignored (the CPU is the only device).
_Device: TypeAlias = builtins.str
# Nested lists/tuples of numbers (or of one-element tensors), as `tensor(data)` takes them.
_NestedSequence: TypeAlias = Sequence[_Number | Tensor | _NestedSequence]
# `tensor(data)`: nested sequences, a number, a NumPy array, or a tensor (copied).
_Data: TypeAlias = _NestedSequence | _Number | Tensor | NDArray[Any]
# One item of `x[index]`: an int (or a 0-d int64 tensor), a slice, None (new axis) or `...`.
_IndexItem: TypeAlias = builtins.int | slice | EllipsisType | Tensor | None
_Index: TypeAlias = _IndexItem | tuple[_IndexItem, ...]
# Dimensions given as an int or a sequence of ints.
_Dims: TypeAlias = builtins.int | Sequence[builtins.int]
# A scalar as `item()` gives it: bool, int or float according to the dtype.
_Scalar: TypeAlias = builtins.float | builtins.int | builtins.bool
# One tensor, or a sequence of them (`cat`, `stack`, `grad`, `backward`).
_Tensors: TypeAlias = Tensor | Sequence[Tensor]
# A gradient hook (`register_hook`): called with the gradient, may return a replacement.
_Hook: TypeAlias = Callable[[Tensor], Tensor | None]
# The gradients a node hook sees: one per input or output slot, None where there is none.
_Grads: TypeAlias = tuple[Tensor | None, ...]
# What a custom `autograd.Function`'s backward gives back: one gradient (or None) per input.
_FunctionGrads: TypeAlias = Tensor | tuple[Tensor | None, ...] | None

# <generated: __all__> written by tools/gen_surface.py from this file
__all__ = [
    "Generator",
    "Node",
    "SavedTensor",
    "Tensor",
    "_ArrayOwner",
    "_LinAlgError",
    "_PendingTensor",
    "_SavedTensors",
    "_current_graph_task_id",
    "_embedding",
    "_embedding_bag",
    "_euclidean_dist",
    "_get_default_dtype",
    "_get_printoptions",
    "_grad_to_edges",
    "_gradient_edge",
    "_increment_version",
    "_is_checkpoint_valid",
    "_is_view_replay_enabled",
    "_is_warn_always_enabled",
    "_meta_tensor",
    "_node_class",
    "_optim_step",
    "_pop_saved_tensors_hooks",
    "_profiler_enabled",
    "_profiler_note_inputs",
    "_profiler_pop",
    "_profiler_push",
    "_profiler_start",
    "_profiler_stop",
    "_push_saved_tensors_hooks",
    "_queue_callback",
    "_record_execution_sets",
    "_record_function",
    "_register_size",
    "_register_types",
    "_restore_inference_mode",
    "_set_anomaly_enabled",
    "_set_autograd_logging",
    "_set_default_dtype",
    "_set_grad_enabled",
    "_set_inference_mode",
    "_set_multithreading_enabled",
    "_set_printoptions",
    "_set_view_replay_enabled",
    "_set_warn_always",
    "_set_write_observer",
    "_sparse_mm",
    "_special_i0e",
    "_special_i1",
    "_special_i1e",
    "_swap_tensor_impl",
    "_will_engine_execute_node",
    "_with_out",
    "abs",
    "acos",
    "acosh",
    "adaptive_avg_pool2d",
    "adaptive_max_pool2d",
    "arange",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "avg_pool2d",
    "backward",
    "batch_norm",
    "bernoulli",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "bool",
    "bucketize",
    "can_cast",
    "cat",
    "cdist_direct",
    "ceil",
    "celu",
    "cholesky_inverse",
    "cholesky_solve",
    "col2im",
    "convolution",
    "cos",
    "cosh",
    "default_generator",
    "digamma",
    "double",
    "dtype",
    "empty",
    "empty_strided",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "float",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "frac",
    "from_dlpack",
    "from_numpy",
    "full",
    "get_num_threads",
    "glu",
    "grad",
    "group_norm",
    "gru_cell",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "huber_loss",
    "hypot",
    "i0",
    "im2col",
    "initial_seed",
    "instance_norm",
    "int",
    "int16",
    "int32",
    "int64",
    "int8",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_multithreading_enabled",
    "isin",
    "layer_norm",
    "lgamma",
    "linalg_cholesky_ex",
    "linalg_det",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_lstsq",
    "linalg_lu_factor_ex",
    "linalg_matrix_exp",
    "linalg_pinv",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_solve_triangular",
    "linalg_svd",
    "linear",
    "linspace",
    "log",
    "log10",
    "log1p",
    "log2",
    "logsigmoid",
    "long",
    "lstm_cell",
    "lstm_layer",
    "manual_seed",
    "max_pool2d_with_indices",
    "mish",
    "mse_loss",
    "multinomial",
    "neg",
    "nll_loss",
    "ones",
    "ones_like",
    "pixel_shuffle",
    "pixel_unshuffle",
    "polygamma",
    "pow",
    "prelu",
    "promote_types",
    "rand",
    "randint",
    "randn",
    "randperm",
    "reciprocal",
    "relu",
    "remainder",
    "result_type",
    "rms_norm",
    "rnn_cell",
    "round",
    "rrelu",
    "rsqrt",
    "scaled_dot_product_attention",
    "searchsorted",
    "seed",
    "selu",
    "set_num_threads",
    "short",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "smooth_l1_loss",
    "softshrink",
    "sparse_coo_tensor",
    "sqrt",
    "stack",
    "std_mean",
    "svdvals",
    "tan",
    "tanh",
    "tensor",
    "threshold",
    "threshold_",
    "trunc",
    "uint8",
    "upsample",
    "var_mean",
    "where",
    "xlogy",
    "zeros",
    "zeros_like",
]
# </generated: __all__>

# ----- dtypes ------------------------------------------------------------------------------------

# <generated: class dtype> written by tools/gen_surface.py from the imported ferrograd
@final
class dtype:
    """`torch.float32` and friends."""
# </generated: class dtype>
    # <generated: dtype methods> written by tools/gen_surface.py from src/python/
    def __eq__(self, other: object, /) -> builtins.bool: ...

    def __hash__(self) -> builtins.int: ...

    def __reduce__(self) -> Any:
        """Pickling: by name, rebuilt as the module attribute (`ferrograd.float32`)."""

    @property
    def is_floating_point(self) -> builtins.bool:
        """True for float32 and float64."""

    @property
    def is_signed(self) -> builtins.bool:
        """True for the dtypes that hold negative values (not bool, not uint8)."""

    @property
    def is_complex(self) -> builtins.bool:
        """False: ferrograd has no complex dtypes yet."""

    @property
    def itemsize(self) -> builtins.int:
        """Bytes per element."""
    # </generated: dtype methods>

# ----- graph nodes -------------------------------------------------------------------------------

# <generated: class SavedTensor> written by tools/gen_surface.py from the imported ferrograd
@final
class SavedTensor:
    """One saved slot of a node, as held (PyTorch's `torch._C._autograd.SavedTensor`, from
    `grad_fn._raw_saved_<name>`): its packed value and hooks, and `register_hooks`."""
# </generated: class SavedTensor>

    # <generated: SavedTensor methods> written by tools/gen_surface.py from src/python/
    def __new__(cls) -> SavedTensor:
        """Made only from a node's `_raw_saved_<name>`, as PyTorch's."""

    @property
    def data(self) -> Any:
        """What is kept: a pack hook's value, the saved input itself, or a saved output without
        its history; `None` where nothing was saved."""

    @property
    def unpack_hook(self) -> Callable[[Any], Tensor] | None:
        """The unpack hook of a packed saved tensor, else `None`."""

    def register_hooks(
        self,
        pack_hook: Callable[[Tensor], Any],
        unpack_hook: Callable[[Any], Tensor],
    ) -> None:
        """Packs this saved tensor now with `pack_hook`; the backward pass reads it back through
        `unpack_hook` (once per saved tensor, as PyTorch)."""
    # </generated: SavedTensor methods>

# <generated: class Node> written by tools/gen_surface.py from the imported ferrograd
@disjoint_base
class Node:
    """A node of the backward graph; the base class of every node kind's class."""
# </generated: class Node>

    # <generated: Node methods> written by tools/gen_surface.py from src/python/
    def __dir__(self) -> list[builtins.str]:
        """The attributes, with the node's `_saved_<name>` and `_raw_saved_<name>` ones (graph
        drawers list them)."""

    def __call__(self, *grads: Tensor | None) -> Any:
        """`grad_fn(*grads)`: the node's formula on one gradient per output of its op; the
        gradient of its one input, or a tuple of one per input."""

    def name(self) -> builtins.str:
        """The node's name (`MulBackward0`; `torch::autograd::AccumulateGrad` for a leaf's node)."""

    def _sequence_nr(self) -> builtins.int:
        """The node's creation number: later nodes run first among those ready together (an
        AccumulateGrad's is 2**64 - 1, so it runs as soon as it is ready)."""

    def _set_sequence_nr(self, sequence_nr: builtins.int) -> None:
        """Renumbers the node, moving it in the order the engine runs the nodes ready together."""

    @property
    def next_functions(self) -> tuple[tuple[Node | None, builtins.int], ...]:
        """`((node, input_nr), ...)` for each input; `(None, 0)` where an input needs no gradient.
        """

    @property
    def variable(self) -> Tensor:
        """The leaf tensor of an `AccumulateGrad` node."""

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict kept with the node, for the user's own data (empty at first)."""

    def register_hook(
        self,
        hook: Callable[[_Grads, _Grads], Sequence[Tensor | None] | None],
    ) -> RemovableHandle:
        """Registers `hook(grad_inputs, grad_outputs)`, run after the node computed the gradients
        of its inputs; it may return replacements for them. Returns a removable handle."""

    def register_prehook(
        self,
        hook: Callable[[_Grads], Sequence[Tensor | None] | None],
    ) -> RemovableHandle:
        """Registers `hook(grad_outputs)`, run before the node on its incoming gradients; it may
        return replacements for them. Returns a removable handle."""

    def _remove_hook(self, id: builtins.int) -> None:
        """Removes a hook registered on this node (used by the handle)."""

    def __eq__(self, other: builtins.object, /) -> builtins.bool: ...

    def __hash__(self) -> builtins.int: ...
    # </generated: Node methods>

# ----- tensors -----------------------------------------------------------------------------------

# <generated: class Tensor> written by tools/gen_surface.py from the imported ferrograd
@disjoint_base
class Tensor:
    """A multi-dimensional array that records operations for automatic differentiation."""
# </generated: class Tensor>

    # ----- Python protocols ----------------------------------------------------------------------

    # `numpy.asarray(tensor)`: the array of `numpy()`, sharing memory (converted for `dtype`,
    # copied when `copy` is true).

    # ----- elementwise functions -----------------------------------------------------------------

    # <generated: pointwise> written by tools/gen_surface.py from the tables
    def neg(self) -> Tensor:
        """`-x`."""
    def neg_(self) -> Self:
        """In-place `neg`."""
    def abs(self) -> Tensor:
        """`|x|`; `abs'(0) = 0`."""
    def abs_(self) -> Self:
        """In-place `abs`."""
    def exp(self) -> Tensor:
        """`e^x`."""
    def exp_(self) -> Self:
        """In-place `exp`."""
    def exp2(self) -> Tensor:
        """`2^x`."""
    def exp2_(self) -> Self:
        """In-place `exp2`."""
    def expm1(self) -> Tensor:
        """`e^x - 1`, accurate near 0."""
    def expm1_(self) -> Self:
        """In-place `expm1`."""
    def log(self) -> Tensor:
        """natural logarithm."""
    def log_(self) -> Self:
        """In-place `log`."""
    def log2(self) -> Tensor:
        """base-2 logarithm."""
    def log2_(self) -> Self:
        """In-place `log2`."""
    def log10(self) -> Tensor:
        """base-10 logarithm."""
    def log10_(self) -> Self:
        """In-place `log10`."""
    def log1p(self) -> Tensor:
        """`ln(1 + x)`, accurate near 0."""
    def log1p_(self) -> Self:
        """In-place `log1p`."""
    def sqrt(self) -> Tensor:
        """square root."""
    def sqrt_(self) -> Self:
        """In-place `sqrt`."""
    def rsqrt(self) -> Tensor:
        """`1 / sqrt(x)`."""
    def rsqrt_(self) -> Self:
        """In-place `rsqrt`."""
    def reciprocal(self) -> Tensor:
        """`1 / x`."""
    def reciprocal_(self) -> Self:
        """In-place `reciprocal`."""
    def sin(self) -> Tensor:
        """sine."""
    def sin_(self) -> Self:
        """In-place `sin`."""
    def cos(self) -> Tensor:
        """cosine."""
    def cos_(self) -> Self:
        """In-place `cos`."""
    def tan(self) -> Tensor:
        """tangent."""
    def tan_(self) -> Self:
        """In-place `tan`."""
    def asin(self) -> Tensor:
        """arcsine."""
    def asin_(self) -> Self:
        """In-place `asin`."""
    def acos(self) -> Tensor:
        """arccosine."""
    def acos_(self) -> Self:
        """In-place `acos`."""
    def atan(self) -> Tensor:
        """arctangent."""
    def atan_(self) -> Self:
        """In-place `atan`."""
    def sinh(self) -> Tensor:
        """hyperbolic sine."""
    def sinh_(self) -> Self:
        """In-place `sinh`."""
    def cosh(self) -> Tensor:
        """hyperbolic cosine."""
    def cosh_(self) -> Self:
        """In-place `cosh`."""
    def tanh(self) -> Tensor:
        """hyperbolic tangent."""
    def tanh_(self) -> Self:
        """In-place `tanh`."""
    def asinh(self) -> Tensor:
        """inverse hyperbolic sine."""
    def asinh_(self) -> Self:
        """In-place `asinh`."""
    def acosh(self) -> Tensor:
        """inverse hyperbolic cosine."""
    def acosh_(self) -> Self:
        """In-place `acosh`."""
    def atanh(self) -> Tensor:
        """inverse hyperbolic tangent."""
    def atanh_(self) -> Self:
        """In-place `atanh`."""
    def sigmoid(self) -> Tensor:
        """logistic sigmoid `1 / (1 + e^-x)`."""
    def sigmoid_(self) -> Self:
        """In-place `sigmoid`."""
    def relu(self) -> Tensor:
        """`max(x, 0)` (NaN stays NaN, -0.0 stays -0.0 as in PyTorch); `relu'(0) = 0`."""
    def relu_(self) -> Self:
        """In-place `relu`."""
    def erf(self) -> Tensor:
        """the error function."""
    def erf_(self) -> Self:
        """In-place `erf`."""
    def erfc(self) -> Tensor:
        """the complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1."""
    def erfc_(self) -> Self:
        """In-place `erfc`."""
    def erfinv(self) -> Tensor:
        """the inverse error function; `±inf` at `±1`, NaN outside `[-1, 1]`."""
    def erfinv_(self) -> Self:
        """In-place `erfinv`."""
    def lgamma(self) -> Tensor:
        """`ln |Γ(x)|`."""
    def lgamma_(self) -> Self:
        """In-place `lgamma`."""
    def digamma(self) -> Tensor:
        """the digamma function `Γ'(x) / Γ(x)`."""
    def digamma_(self) -> Self:
        """In-place `digamma`."""
    def i0(self) -> Tensor:
        """the modified Bessel function of the first kind of order 0; derivative `i1(x)`."""
    def i0_(self) -> Self:
        """In-place `i0`."""
    def sign(self) -> Tensor:
        """sign (-1, 0, 1); zero gradient."""
    def sign_(self) -> Self:
        """In-place `sign`."""
    def floor(self) -> Tensor:
        """round down; zero gradient."""
    def floor_(self) -> Self:
        """In-place `floor`."""
    def ceil(self) -> Tensor:
        """round up; zero gradient."""
    def ceil_(self) -> Self:
        """In-place `ceil`."""
    def round(self) -> Tensor:
        """round half to even, as PyTorch; zero gradient."""
    def round_(self) -> Self:
        """In-place `round`."""
    def trunc(self) -> Tensor:
        """round toward zero; zero gradient."""
    def trunc_(self) -> Self:
        """In-place `trunc`."""
    def frac(self) -> Tensor:
        """the fractional part `x - trunc(x)`; the gradient passes unchanged."""
    def frac_(self) -> Self:
        """In-place `frac`."""
    def xlogy(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """`x · ln(y)`, 0 where `x == 0` (unless `y` is NaN)."""
    def xlogy_(self, other: _Operand) -> Self:
        """In-place `xlogy`."""
    def hypot(self, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        """`sqrt(x² + y²)`."""
    def hypot_(self, other: Tensor) -> Self:
        """In-place `hypot`."""
    def atan2(self, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        """the angle of the point `(other, self)`: `atan(self / other)` in the right quadrant."""
    def atan2_(self, other: Tensor) -> Self:
        """In-place `atan2`."""
    # </generated: pointwise>

    # ----- reductions and linear algebra ---------------------------------------------------------

    # ----- rounding divisions, fused products, triangles, sorting --------------------------------

    # ----- views and copies ----------------------------------------------------------------------

    # PyTorch's alias names (ferrograd._aliases: the same methods), the namespace's
    # linear-algebra functions and `repeat_interleave` as methods, and the complex-number API
    # as it answers for real tensors (ferrograd._realness)
    # <generated: Tensor aliases> written by tools/gen_surface.py from ferrograd._aliases
    def multiply(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """Alias of `mul` (PyTorch's second name; the same method)."""
    def multiply_(self, other: _Operand) -> Self:
        """Alias of `mul_` (PyTorch's second name; the same method)."""
    def subtract(
        self,
        other: _Operand,
        *,
        alpha: builtins.float | None = None,
        out: Tensor | None = None,
    ) -> Tensor:
        """Alias of `sub` (PyTorch's second name; the same method)."""
    def subtract_(self, other: _Operand, *, alpha: builtins.float | None = None) -> Self:
        """Alias of `sub_` (PyTorch's second name; the same method)."""
    def divide(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """Alias of `div` (PyTorch's second name; the same method)."""
    def divide_(self, other: _Operand) -> Self:
        """Alias of `div_` (PyTorch's second name; the same method)."""
    def true_divide(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """Alias of `div` (PyTorch's second name; the same method)."""
    def true_divide_(self, other: _Operand) -> Self:
        """Alias of `div_` (PyTorch's second name; the same method)."""
    def negative(self) -> Tensor:
        """Alias of `neg` (PyTorch's second name; the same method)."""
    def negative_(self) -> Self:
        """Alias of `neg_` (PyTorch's second name; the same method)."""
    def absolute(self) -> Tensor:
        """Alias of `abs` (PyTorch's second name; the same method)."""
    def absolute_(self) -> Self:
        """Alias of `abs_` (PyTorch's second name; the same method)."""
    def greater(self, other: _Operand) -> Tensor:
        """Alias of `gt` (PyTorch's second name; the same method)."""
    def greater_equal(self, other: _Operand) -> Tensor:
        """Alias of `ge` (PyTorch's second name; the same method)."""
    def less(self, other: _Operand) -> Tensor:
        """Alias of `lt` (PyTorch's second name; the same method)."""
    def less_equal(self, other: _Operand) -> Tensor:
        """Alias of `le` (PyTorch's second name; the same method)."""
    def not_equal(self, other: _Operand) -> Tensor:
        """Alias of `ne` (PyTorch's second name; the same method)."""
    def arccos(self) -> Tensor:
        """Alias of `acos` (PyTorch's second name; the same method)."""
    def arccos_(self) -> Self:
        """Alias of `acos_` (PyTorch's second name; the same method)."""
    def arcsin(self) -> Tensor:
        """Alias of `asin` (PyTorch's second name; the same method)."""
    def arcsin_(self) -> Self:
        """Alias of `asin_` (PyTorch's second name; the same method)."""
    def arctan(self) -> Tensor:
        """Alias of `atan` (PyTorch's second name; the same method)."""
    def arctan_(self) -> Self:
        """Alias of `atan_` (PyTorch's second name; the same method)."""
    def arccosh(self) -> Tensor:
        """Alias of `acosh` (PyTorch's second name; the same method)."""
    def arccosh_(self) -> Self:
        """Alias of `acosh_` (PyTorch's second name; the same method)."""
    def arcsinh(self) -> Tensor:
        """Alias of `asinh` (PyTorch's second name; the same method)."""
    def arcsinh_(self) -> Self:
        """Alias of `asinh_` (PyTorch's second name; the same method)."""
    def arctanh(self) -> Tensor:
        """Alias of `atanh` (PyTorch's second name; the same method)."""
    def arctanh_(self) -> Self:
        """Alias of `atanh_` (PyTorch's second name; the same method)."""
    def arctan2(self, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        """Alias of `atan2` (PyTorch's second name; the same method)."""
    def arctan2_(self, other: Tensor) -> Self:
        """Alias of `atan2_` (PyTorch's second name; the same method)."""
    def fix(self) -> Tensor:
        """Alias of `trunc` (PyTorch's second name; the same method)."""
    def fix_(self) -> Self:
        """Alias of `trunc_` (PyTorch's second name; the same method)."""
    def ger(self, vec2: Tensor) -> Tensor:
        """Alias of `outer` (PyTorch's second name; the same method)."""
    # </generated: Tensor aliases>

    # <generated: Tensor Python methods> written by tools/gen_surface.py from the imported ferrograd
    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[builtins.type, ...],
        args: tuple[Any, ...] = ...,
        kwargs: dict[builtins.str, Any] | None = None,
    ) -> Any:
        """``Tensor.__torch_function__``: runs ``func`` with the protocol off for subclasses and
        returns its tensors as instances of ``cls``."""

    @classmethod
    def __init_subclass__(cls, **kwargs: Any) -> None:
        """``Tensor.__init_subclass__``: a class defining ``__torch_dispatch__`` without its own
        ``__torch_function__`` leaves the protocol (PyTorch does this when it makes the class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """``Tensor.__init__``: an object a subclass makes (``MyTensor(data)``) becomes the one
        returned for its tensor, as PyTorch keeps one Python object per tensor, so a result that
        is that tensor (a ``__torch_function__`` returning it through a custom Function) comes
        back as the subclass instance."""

    def diff(
        input,
        n: builtins.int = 1,
        dim: builtins.int = -1,
        prepend: Tensor | None = None,
        append: Tensor | None = None,
    ) -> Tensor:
        """The ``n``-th forward difference along ``dim`` (``prepend``/``append`` joined first):
        ``x[1:] - x[:-1]``, repeated (``logical_xor`` for bool)."""

    def dsplit(
        input,
        indices_or_sections: builtins.int | Sequence[builtins.int],
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dim 2, whole parts only (at least 3-D)."""

    def fliplr(input) -> Tensor:
        """Reversed along dim 1."""

    def flipud(input) -> Tensor:
        """Reversed along dim 0."""

    def hsplit(
        input,
        indices_or_sections: builtins.int | Sequence[builtins.int],
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dim 1 (dim 0 of a 1-D tensor), whole parts only."""

    def inner(input, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        """The sum of products over the last dimension of both (a product when either is 0-d)."""

    def kron(input, other: Tensor) -> Tensor:
        """The Kronecker product: every element of ``input`` times all of ``other``, as blocks."""

    def moveaxis(
        input,
        source: builtins.int | Sequence[builtins.int],
        destination: builtins.int | Sequence[builtins.int],
    ) -> Tensor:
        """The dimensions ``source`` moved to ``destination`` (the others keep their order): a
        permutation view."""

    def movedim(
        input,
        source: builtins.int | Sequence[builtins.int],
        destination: builtins.int | Sequence[builtins.int],
    ) -> Tensor:
        """The dimensions ``source`` moved to ``destination`` (the others keep their order): a
        permutation view."""

    def module_load(self, other: Tensor, assign: builtins.bool = False) -> Tensor:
        """What ``load_state_dict`` puts in this parameter or buffer's place when
        ``torch.__future__.set_swap_module_params_on_conversion(True)`` is on (it is then swapped
        in with ``torch.utils.swap_tensors``): ``other`` detached if ``assign``, else this tensor
        with ``other``'s values copied in, detached. Subclasses override it to load differently."""

    def msort(input) -> Tensor:
        """Sorted along dim 0 (the values of ``sort(dim=0)``)."""

    def ravel(input) -> Tensor:
        """The elements as one dimension (a view when possible)."""

    def repeat_interleave(
        input,
        repeats: Tensor | builtins.int | None = None,
        dim: builtins.int | None = None,
        *,
        output_size: builtins.int | None = None,
    ) -> Tensor:
        """Each element (or slice along ``dim``) repeated ``repeats`` times in place; without
        ``dim`` the flattened input. An int count expands a new dimension and copies it out (so the
        graph is PyTorch's: ``ViewBackward0`` over ``CloneBackward0`` over ``ExpandBackward0``); a
        tensor of counts selects the rows (``IndexSelectBackward0``). With ``repeats`` alone
        (``torch.repeat_interleave(counts)``), the indices ``0, 1, ...`` each repeated."""

    def swapaxes(input, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        """Alias of ``transpose``."""

    def swapdims(input, axis0: builtins.int, axis1: builtins.int) -> Tensor:
        """Alias of ``transpose``."""

    def tensor_split(
        input,
        indices_or_sections: Tensor | builtins.int | Sequence[builtins.int],
        dim: builtins.int = 0,
    ) -> tuple[Tensor, ...]:
        """Views splitting ``dim``: into ``n`` nearly equal parts (the first ``size % n`` one
        longer) when given a number, else at the given indices."""

    def tile(input, dims: builtins.int | Sequence[builtins.int]) -> Tensor:
        """``input`` repeated ``dims[i]`` times along each dimension (missing leading ``dims``
        taken as 1)."""

    def unflatten(input, dim: builtins.int, sizes: Sequence[builtins.int]) -> Tensor:
        """Dimension ``dim`` split into ``sizes`` (one of them may be -1)."""

    def vsplit(
        input,
        indices_or_sections: builtins.int | Sequence[builtins.int],
    ) -> tuple[Tensor, ...]:
        """``tensor_split`` along dim 0, whole parts only (at least 2-D)."""

    def clip_(self, min: builtins.float | None = None, max: builtins.float | None = None) -> Self:
        """Alias of `clamp_` (PyTorch's second name; the same method)."""

    def det(input) -> Tensor:
        """The determinant of each square matrix (``linalg.det``)."""

    def logdet(input) -> Tensor:
        """The logarithm of each determinant: NaN for a negative one, ``-inf`` for zero (PyTorch's
        composition of ``slogdet`` and ``where``)."""

    def slogdet(input) -> slogdet_result:
        """``(sign, logabsdet)`` of each determinant (``linalg.slogdet``)."""

    def inverse(input, *, out: Tensor | None = None) -> Tensor:
        """The inverse of each square matrix (``linalg.inv``)."""

    def matrix_power(input, n: builtins.int) -> Tensor:
        """``input`` to the integer power ``n`` (``linalg.matrix_power``)."""

    def is_complex(input) -> builtins.bool:
        """Whether the tensor's dtype is complex: never, for now."""

    def conj(input) -> Tensor:
        """The complex conjugate: a real tensor itself."""

    def conj_physical(input) -> Tensor:
        """The conjugate materialized: a real tensor itself."""

    def resolve_conj(input) -> Tensor:
        """The tensor with a pending conjugation applied: a real tensor has none."""

    def resolve_neg(input) -> Tensor:
        """The tensor with a pending negation applied: a real tensor has none."""

    def is_conj(input) -> builtins.bool:
        """Whether the conjugate bit is set: never for a real tensor."""

    def is_neg(input) -> builtins.bool:
        """Whether the negative bit is set: never for a real tensor."""

    def sgn(input) -> Tensor:
        """``z / |z|`` of a complex tensor, which for a real one is its sign (PyTorch's node is
        ``SgnBackward0``; here it is ``SignBackward0``, the same zero gradient)."""

    def sgn_(self) -> Self:
        """Alias of `sign_` (PyTorch's second name; the same method)."""

    def share_memory_(self) -> Tensor:
        """Moves this tensor's values into shared memory (once; a no-op when they are there already)
        and returns it; its identity, shape, gradient and graph role are kept."""

    def is_shared(self) -> builtins.bool:
        """Whether this tensor's values live in shared memory (``share_memory_``)."""

    def nanmean(
        input,
        dim: builtins.int | Sequence[builtins.int] | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: _DType | None = None,
        out: Tensor | None = None,
    ) -> Tensor:
        """The mean of the elements that are not NaN (NaN where a lane holds only NaN)."""

    def bincount(input, weights: Tensor | None = None, minlength: builtins.int = 0) -> Tensor:
        """How often each non-negative integer occurs in the 1-d ``input`` (or the sum of its
        ``weights``): a tensor of length ``max(input) + 1``, at least ``minlength``. Counts are
        int64; float32 weights sum in float32, other weights in float64, as PyTorch."""

    @property
    def layout(self) -> Any:
        """The memory layout: ``torch.strided``, or ``torch.sparse_coo`` for a sparse tensor."""
    # </generated: Tensor Python methods>

    # ----- data access ---------------------------------------------------------------------------

    # ----- autograd ------------------------------------------------------------------------------

    # <generated: Tensor methods> written by tools/gen_surface.py from src/python/
    def set_(self, source: Tensor | None = None) -> Self:
        """Makes this tensor show `source`'s elements, sizes and strides (no argument: none)."""

    def resize_(self, *sizes: builtins.int | Sequence[builtins.int]) -> Self:
        """Gives this tensor the shape `sizes` (contiguous), keeping its elements in order and
        growing them (with zeros) when there are too few."""

    def resize_as_(self, other: Tensor) -> Self:
        """`resize_` to `other`'s shape."""

    def transpose_(self, dim0: builtins.int, dim1: builtins.int) -> Self:
        """Swaps dimensions `dim0` and `dim1` in place (this tensor becomes its transpose)."""

    def swapdims_(self, dim0: builtins.int, dim1: builtins.int) -> Self:
        """`transpose_`'s other name."""

    def swapaxes_(self, axis0: builtins.int, axis1: builtins.int) -> Self:
        """`transpose_`'s other name."""

    def t_(self) -> Self:
        """Transposes this matrix (at most 2 dimensions) in place."""

    def unsqueeze_(self, dim: builtins.int) -> Self:
        """Inserts a size-1 dimension at `dim` in place."""

    def as_strided(
        self,
        size: Sequence[builtins.int],
        stride: Sequence[builtins.int],
        storage_offset: builtins.int | None = None,
    ) -> Tensor:
        """A view of this tensor's storage with shape `size`, strides `stride` (in elements) and
        `storage_offset` (default: this tensor's)."""

    def as_strided_(
        self,
        size: Sequence[builtins.int],
        stride: Sequence[builtins.int],
        storage_offset: builtins.int | None = None,
    ) -> Self:
        """`as_strided` in place: this tensor becomes that view."""

    def squeeze_(self, dim: builtins.int | None = None) -> Self:
        """Removes size-1 dimensions (all, or only `dim`) in place."""

    def polygamma(self, n: builtins.int) -> Tensor:
        """The `n`-th derivative of digamma, elementwise."""

    def polygamma_(self, n: builtins.int) -> Self:
        """In-place `polygamma`."""

    def logit(self, eps: builtins.float | None = None) -> Tensor:
        """`log(x / (1 - x))`, with `x` clamped to `[eps, 1 - eps]` when `eps` is given."""

    def logit_(self, eps: builtins.float | None = None) -> Self:
        """In-place `logit`."""

    def scatter(
        self,
        dim: builtins.int,
        index: Tensor,
        src: Tensor | builtins.float | None = None,
        *,
        value: builtins.float | None = None,
    ) -> Tensor:
        """A copy with `src`'s elements (or `value`) written at `index` along `dim`."""

    def scatter_(
        self,
        dim: builtins.int,
        index: Tensor,
        src: Tensor | builtins.float | None = None,
        *,
        value: builtins.float | None = None,
    ) -> Self:
        """In-place `scatter`."""

    def scatter_add(self, dim: builtins.int, index: Tensor, src: Tensor) -> Tensor:
        """A copy with `src` added at `index` along `dim`."""

    def scatter_add_(self, dim: builtins.int, index: Tensor, src: Tensor) -> Self:
        """In-place `scatter_add`."""

    def scatter_reduce(
        self,
        dim: builtins.int,
        index: Tensor,
        src: Tensor,
        reduce: builtins.str,
        *,
        include_self: builtins.bool = True,
    ) -> Tensor:
        """A copy with `src` combined by `reduce` ("sum", "prod", "mean", "amax", "amin") at
        `index` along `dim`."""

    def scatter_reduce_(
        self,
        dim: builtins.int,
        index: Tensor,
        src: Tensor,
        reduce: builtins.str,
        *,
        include_self: builtins.bool = True,
    ) -> Self:
        """In-place `scatter_reduce`."""

    def index_reduce(
        self,
        dim: builtins.int,
        index: Tensor,
        source: Tensor,
        reduce: builtins.str,
        *,
        include_self: builtins.bool = True,
    ) -> Tensor:
        """A copy with the slices of `source` combined by `reduce` ("prod", "mean", "amax",
        "amin") into the slices `index` along `dim`."""

    def index_reduce_(
        self,
        dim: builtins.int,
        index: Tensor,
        source: Tensor,
        reduce: builtins.str,
        *,
        include_self: builtins.bool = True,
    ) -> Self:
        """In-place `index_reduce`."""

    def index_copy(self, dim: builtins.int, index: Tensor, source: Tensor) -> Tensor:
        """A copy with the slices of `source` written at the slices `index` along `dim`."""

    def index_copy_(self, dim: builtins.int, index: Tensor, source: Tensor) -> Self:
        """In-place `index_copy`."""

    def index_fill(
        self,
        dim: builtins.int,
        index: Tensor,
        value: builtins.float | Tensor,
    ) -> Tensor:
        """A copy with the slices `index` along `dim` set to `value`."""

    def index_fill_(self, dim: builtins.int, index: Tensor, value: builtins.float | Tensor) -> Self:
        """In-place `index_fill`."""

    def index_add(
        self,
        dim: builtins.int,
        index: Tensor,
        source: Tensor,
        *,
        alpha: builtins.float = 1.0,
    ) -> Tensor:
        """A copy with `alpha` times the slices of `source` added at the slices `index` along
        `dim`."""

    def index_add_(
        self,
        dim: builtins.int,
        index: Tensor,
        source: Tensor,
        *,
        alpha: builtins.float = 1.0,
    ) -> Self:
        """In-place `index_add`."""

    @overload
    def nonzero(self, *, as_tuple: Literal[False] = False) -> Tensor:
        """The indices of the nonzero elements: `[n, dim]` int64, or with `as_tuple` one 1-D
        tensor per dimension."""

    @overload
    def nonzero(self, *, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...

    def argwhere(self) -> Tensor:
        """The indices of the nonzero elements, one row each (`nonzero()`)."""

    def count_nonzero(self, dim: builtins.int | Sequence[builtins.int] | None = None) -> Tensor:
        """How many elements are nonzero (over `dim`, an int or a tuple, when given), as int64."""

    def masked_select(self, mask: Tensor) -> Tensor:
        """The elements where `mask` is true, as a 1-D tensor."""

    def take_along_dim(self, indices: Tensor, dim: builtins.int | None = None) -> Tensor:
        """The values at `indices` along `dim` (`gather` with `indices` broadcast against this
        tensor); without `dim`, over the flattened tensor."""

    @overload
    def unique_consecutive(
        self,
        return_inverse: Literal[False] = False,
        return_counts: Literal[False] = False,
        dim: builtins.int | None = None,
    ) -> Tensor:
        """Runs of equal consecutive elements (or slices along `dim`) collapsed to one; with the
        inverse indices and the run lengths when asked for."""

    @overload
    def unique_consecutive(
        self,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: builtins.int | None = None,
    ) -> Tensor | tuple[Tensor, ...]: ...

    @property
    def is_sparse(self) -> builtins.bool:
        """Whether the tensor is a sparse COO tensor."""

    def to_dense(
        self,
        dtype: _DTypeLike | None = None,
        *,
        masked_grad: builtins.bool | None = None,
    ) -> Tensor:
        """The dense tensor of a sparse one (a dense tensor is returned as is)."""

    def to_sparse(
        self,
        sparse_dim: builtins.int | None = None,
        *,
        layout: Any = None,
        blocksize: Any = None,
        dense_dim: builtins.int | None = None,
    ) -> Tensor:
        """The sparse COO tensor of a dense one: its first `sparse_dim` dimensions sparse (all by
        default; `dense_dim` counts the others), slices of zeros not stored."""

    def to_sparse_coo(self) -> Tensor:
        """`to_sparse_coo()`: the same as `to_sparse()`."""

    def coalesce(self) -> Tensor:
        """The coalesced form of a sparse tensor: indices sorted, duplicates summed."""

    def is_coalesced(self) -> builtins.bool:
        """Whether a sparse tensor's indices are sorted and distinct."""

    def _indices(self) -> Tensor:
        """The indices of a sparse tensor, `sparse_dim x nnz` (uncoalesced ones too)."""

    def _values(self) -> Tensor:
        """The stored values of a sparse tensor (uncoalesced ones too)."""

    def indices(self) -> Tensor:
        """The indices of a coalesced sparse tensor."""

    def values(self) -> Tensor:
        """The stored values of a coalesced sparse tensor (differentiable)."""

    def _nnz(self) -> builtins.int:
        """The number of stored elements of a sparse tensor."""

    def sparse_dim(self) -> builtins.int:
        """The number of sparse dimensions (0 for a dense tensor)."""

    def dense_dim(self) -> builtins.int:
        """The number of dense dimensions (all of a dense tensor's)."""

    def sparse_mask(self, mask: Tensor) -> Tensor:
        """This tensor's values at the stored positions of the sparse tensor `mask`."""

    @staticmethod
    def _make_subclass(
        cls: builtins.type[Any],
        data: Tensor,
        require_grad: builtins.bool = False,
        dispatch_sizes_strides_policy: Any = None,
        dispatch_device: builtins.bool = False,
        dispatch_layout: builtins.bool = False,
    ) -> Any:
        """`Tensor._make_subclass(cls, data, require_grad=False)`: an object of `cls` sharing
        `data`'s elements (and version counter) as a new leaf, requiring grad if asked."""

    def as_subclass(self, cls: builtins.type[Any]) -> Any:
        """gradients flow back through `AliasBackward0`)."""

    @staticmethod
    def _make_wrapper_subclass(
        cls: builtins.type[Any],
        size: Sequence[builtins.int],
        strides: Sequence[builtins.int] | None = None,
        storage_offset: builtins.int | None = None,
        memory_format: Any = None,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: builtins.bool = False,
        requires_grad: builtins.bool = False,
        dispatch_sizes_strides_policy: Any = None,
        dispatch_device: builtins.bool = False,
        dispatch_layout: builtins.bool = False,
        _extra_dispatch_keys: Any = None,
        storage_size: Any = None,
    ) -> Any:
        """`Tensor._make_wrapper_subclass(cls, size, strides=None, storage_offset=0, dtype=None,
        ..., requires_grad=False)`: an object of `cls` with that shape and dtype and no
        elements, whose ops go to `cls.__torch_dispatch__`."""

    def __new__(cls, *args: Any, requires_grad: builtins.bool | None = None) -> Self:
        """`Tensor(data)`: default-dtype data from a sequence, or a leaf sharing another tensor's
        data; PyTorch's legacy `Tensor(*sizes)` / `Tensor(torch.Size(...))`: a tensor of that
        shape (zeros: ferrograd has no uninitialized memory)."""

    def _register(self) -> None:
        """Makes this object the one returned for its tensor (for objects created by subclasses)."""

    def isclose(
        self,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> Tensor:
        """Elementwise closeness `|a - b| <= atol + rtol * |b|` (a bool tensor)."""

    def allclose(
        self,
        other: Tensor,
        rtol: builtins.float = 1e-05,
        atol: builtins.float = 1e-08,
        equal_nan: builtins.bool = False,
    ) -> builtins.bool:
        """Whether every element is close (see `isclose`)."""

    def equal(self, other: Tensor) -> builtins.bool:
        """Whether `other` has the same shape and equal elements."""

    def __format__(self, spec: builtins.str, /) -> builtins.str:
        """`format(t, spec)`, as PyTorch: a 0-d tensor (of this exact class) formats its value
        (`f"{loss:.4f}"`); anything else formats as `object` does (only an empty spec)."""

    def __len__(self) -> builtins.int: ...

    def __iter__(self) -> Iterator[Tensor]: ...

    def __hash__(self) -> builtins.int: ...

    def __bool__(self) -> builtins.bool: ...

    def __float__(self) -> builtins.float: ...

    def __int__(self) -> builtins.int: ...

    def __index__(self) -> builtins.int: ...

    @property
    def shape(self) -> tuple[builtins.int, ...]:
        """The shape, as `ferrograd.Size`."""

    @overload
    def size(self, dim: None = None) -> tuple[builtins.int, ...]:
        """The shape, or the size of dimension `dim`."""

    @overload
    def size(self, dim: builtins.int) -> builtins.int: ...

    def dim(self) -> builtins.int:
        """Number of dimensions."""

    @property
    def ndim(self) -> builtins.int:
        """Number of dimensions."""

    def numel(self) -> builtins.int:
        """Number of elements."""

    def nelement(self) -> builtins.int:
        """Number of elements."""

    @property
    def dtype(self) -> _DType:
        """Element type."""

    @property
    def device(self) -> Any:
        """`device(type='cpu')`, or `device(type='meta')` for a tensor on the meta device."""

    @property
    def is_meta(self) -> builtins.bool:
        """Whether this tensor is on the meta device (a shape and dtype without values)."""

    @property
    def is_cuda(self) -> builtins.bool:
        """Always False."""

    @property
    def is_xpu(self) -> builtins.bool:
        """Always False (no XPU device)."""

    @property
    def is_mps(self) -> builtins.bool:
        """Always False (no MPS device)."""

    def is_pinned(self, device: Any = None) -> builtins.bool:
        """Always False: no accelerator to pin memory for."""

    def pin_memory(self, device: Any = None) -> None:
        """Refused as PyTorch without an accelerator refuses it."""

    def cuda(
        self,
        device: Any = None,
        non_blocking: builtins.bool = False,
        memory_format: Any = None,
    ) -> None:
        """Refused as PyTorch built without CUDA refuses it."""

    def is_floating_point(self) -> builtins.bool:
        """Whether the dtype is float32 or float64."""

    def item(self) -> _Scalar:
        """The value of a one-element tensor as a Python number."""

    def tolist(self) -> Any:
        """Nested Python lists of the elements."""

    def numpy(self, *, force: builtins.bool = False) -> NDArray[Any]:
        """A NumPy array sharing the tensor's memory (refused while it requires grad, unless
        `force`)."""

    def __array__(
        self,
        dtype: DTypeLike | None = None,
        copy: builtins.bool | None = None,
    ) -> NDArray[Any]:
        """`np.asarray(t)`: the shared array of `numpy()` (converted when `dtype` is given, copied
        when `copy` is true)."""

    def __dlpack__(
        self,
        *,
        stream: Any | None = None,
        max_version: tuple[builtins.int, builtins.int] | None = None,
        dl_device: Any | None = None,
        copy: builtins.bool | None = None,
    ) -> Any:
        """A DLPack capsule sharing the tensor's memory (CPU; refused while it requires grad)."""

    def __dlpack_device__(self) -> tuple[builtins.int, builtins.int]:
        """`(device type, device id)` of the DLPack protocol: `(1, 0)`, the CPU."""

    def data_ptr(self) -> builtins.int:
        """The address of the first element (shared memory reports the same address on both sides).
        """

    def register_hook(self, hook: _Hook) -> RemovableHandle:
        """Registers a hook run on this tensor's gradient; it may return a replacement."""

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """returns a handle whose `remove()` unregisters it."""

    def _remove_hook(self, id: builtins.int) -> None:
        """Removes a hook registered with `register_hook` (used by the handle)."""

    @property
    def requires_grad(self) -> builtins.bool:
        """Whether gradients are computed for this tensor."""

    @requires_grad.setter
    def requires_grad(self, value: builtins.bool) -> None: ...

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Self:
        """Sets `requires_grad` in place and returns this tensor."""

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient, or None."""

    @grad.setter
    def grad(self, value: Tensor | None) -> None: ...

    @grad.deleter
    def grad(self) -> None: ...

    @property
    def _grad(self) -> Tensor | None:
        """The accumulated gradient, or None, without `grad`'s warning for a non-leaf tensor
        (PyTorch's `_grad`)."""

    @_grad.setter
    def _grad(self, value: Tensor | None) -> None:
        """Sets the gradient, as `grad =` does."""

    @property
    def grad_fn(self) -> Node | None:
        """The node that created this tensor, or None for leaves."""

    @property
    def is_leaf(self) -> builtins.bool:
        """True for tensors not produced by a recorded operation."""

    @property
    def retains_grad(self) -> builtins.bool:
        """Whether `retain_grad()` was called."""

    @property
    def _version(self) -> builtins.int:
        """Number of in-place modifications of the storage (inference tensors have no counter)."""

    def _is_view(self) -> builtins.bool:
        """Whether this tensor is a view of another (has a `_base`)."""

    def is_inference(self) -> builtins.bool:
        """Whether this is an inference tensor (made in `inference_mode`)."""

    @property
    def volatile(self) -> builtins.bool:
        """Always False, with PyTorch's warning (`volatile` was removed; use `no_grad`)."""

    @property
    def output_nr(self) -> builtins.int:
        """Which output of `grad_fn` this tensor is."""

    @property
    def _base(self) -> Tensor | None:
        """The tensor this is a view of, or None."""

    @property
    def data(self) -> Tensor:
        """A tensor sharing the data, detached from the graph, with a version counter of its own
        (autograd does not see writes through it)."""

    @data.setter
    def data(self, value: Tensor) -> None:
        """`x.data = y`: from now on `x` shows `y`'s elements (shared), keeping its identity,
        autograd state and version counter; autograd does not see the change. When `y` has
        `x`'s shape, strides and dtype, `y`'s values are written into `x`'s elements instead,
        so graphs recorded before still accumulate into `x` (see [`Tensor::set_data`])."""

    @property
    def _grad_fn(self) -> Node | None:
        """The node that created this tensor (`grad_fn`'s other name, as PyTorch's)."""

    @_grad_fn.setter
    def _grad_fn(self, value: None) -> None:
        """`x._grad_fn = None` detaches the tensor in place; other values and `del` are refused,
        as PyTorch's."""

    @property
    def _backward_hooks(self) -> Any:
        """The legacy dictionary of gradient hooks (`None` until one is set), as PyTorch's
        `_backward_hooks` (kept by `ferrograd._hooks`, outside the instance dictionary)."""

    @_backward_hooks.setter
    def _backward_hooks(self, hooks: Any) -> None:
        """`x._backward_hooks = hooks`: as PyTorch's, a leaf that requires grad calls the
        dictionary's hooks (in order, each may replace the gradient) before accumulating; on
        other tensors the dictionary is only kept (hooks go through `register_hook`)."""

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        """`x._backward_hooks = hooks`: as PyTorch's, a leaf that requires grad calls the
        dictionary's hooks (in order, each may replace the gradient) before accumulating; on
        other tensors the dictionary is only kept (hooks go through `register_hook`)."""

    def __reduce_ex__(self, _protocol: SupportsIndex, /) -> Any:
        """Pickling: the values, dtype, shape, `requires_grad` and class (not the graph)."""

    def __deepcopy__(self, memo: Any) -> Any:
        """`copy.deepcopy`: a new leaf with copied values, `requires_grad` and `.grad`."""

    def retain_grad(self) -> None:
        """Keeps `.grad` for this non-leaf after backward."""

    def detach(self) -> Tensor:
        """A new tensor sharing the data, with no history."""

    def detach_(self) -> Self:
        """Detaches this tensor from its history in place."""

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: _Tensors | None = None,
    ) -> None:
        """Computes gradients of this tensor with respect to the graph leaves."""

    def lt(self, other: _Operand) -> Tensor:
        """`self < other` elementwise, as a bool tensor (`torch.lt`)."""

    def le(self, other: _Operand) -> Tensor:
        """`self <= other` elementwise, as a bool tensor (`torch.le`)."""

    def gt(self, other: _Operand) -> Tensor:
        """`self > other` elementwise, as a bool tensor (`torch.gt`)."""

    def ge(self, other: _Operand) -> Tensor:
        """`self >= other` elementwise, as a bool tensor (`torch.ge`)."""

    def eq(self, other: _Operand) -> Tensor:
        """`self == other` elementwise, as a bool tensor (`torch.eq`)."""

    def ne(self, other: _Operand) -> Tensor:
        """`self != other` elementwise, as a bool tensor (`torch.ne`)."""

    def add(
        self,
        other: _Operand,
        *,
        alpha: builtins.float | None = None,
        out: Tensor | None = None,
    ) -> Tensor:
        """`self + alpha * other`."""

    def sub(
        self,
        other: _Operand,
        *,
        alpha: builtins.float | None = None,
        out: Tensor | None = None,
    ) -> Tensor:
        """`self - alpha * other`."""

    def mul(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """`self * other`."""

    def div(self, other: _Operand, *, out: Tensor | None = None) -> Tensor:
        """`self / other`."""

    def pow(self, exponent: _Operand, *, out: Tensor | None = None) -> Tensor:
        """`self ** exponent`."""

    def add_(self, other: _Operand, *, alpha: builtins.float | None = None) -> Self:
        """In-place `self += alpha * other`."""

    def sub_(self, other: _Operand, *, alpha: builtins.float | None = None) -> Self:
        """In-place `self -= alpha * other`."""

    def mul_(self, other: _Operand) -> Self:
        """In-place `self *= other`."""

    def div_(self, other: _Operand) -> Self:
        """In-place `self /= other`."""

    def pow_(self, exponent: _Operand) -> Self:
        """In-place `self **= exponent`."""

    def zero_(self) -> Self:
        """Sets every element to 0."""

    def fill_(self, value: _Operand) -> Self:
        """Sets every element to `value` (a number, or a 0-d tensor whose gradient is the sum)."""

    def copy_(self, src: Tensor) -> Self:
        """Copies `src` into this tensor (broadcasting, converting the dtype)."""

    def normal_(
        self,
        mean: builtins.float = 0.0,
        std: builtins.float = 1.0,
        *,
        generator: Generator | None = None,
    ) -> Self:
        """Fills with normal samples."""

    def uniform_(
        self,
        from_: builtins.float = 0.0,
        to: builtins.float = 1.0,
        *,
        generator: Generator | None = None,
    ) -> Self:
        """Fills with uniform samples in `[from, to)`."""

    def bernoulli(
        self,
        p: builtins.float | None = None,
        *,
        generator: Generator | None = None,
    ) -> Tensor:
        """0/1 samples with this tensor's probabilities (or the number `p` for every element), as
        `torch.bernoulli(self, p)`."""

    def bernoulli_(
        self,
        p: builtins.float | Tensor | None = None,
        *,
        generator: Generator | None = None,
    ) -> Self:
        """Fills with 1 with probability `p` (a number or a tensor of probabilities), else 0."""

    def random_(
        self,
        from_: builtins.int | None = None,
        to: builtins.int | None = None,
        *,
        generator: Generator | None = None,
    ) -> Self:
        """Fills with random integers: `random_()`, `random_(to)` or `random_(from, to)`."""

    def where(self, condition: Tensor, other: _Operand) -> Tensor:
        """`self` where `condition`, else `other`."""

    def maximum(self, other: Tensor) -> Tensor:
        """Elementwise maximum."""

    def minimum(self, other: Tensor) -> Tensor:
        """Elementwise minimum."""

    def clamp(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:
        """Limits values to `[min, max]`."""

    def clamp_min(self, min: builtins.float) -> Tensor:
        """`max(x, min)` (`ClampMinBackward0`)."""

    def clamp_max(self, max: builtins.float) -> Tensor:
        """`min(x, max)` (`ClampMaxBackward0`)."""

    def clamp_min_(self, min: builtins.float) -> Self:
        """In-place `clamp_min`."""

    def clamp_max_(self, max: builtins.float) -> Self:
        """In-place `clamp_max`."""

    def clip(self, min: _Operand | None = None, max: _Operand | None = None) -> Tensor:
        """Alias of `clamp`."""

    def clamp_(self, min: builtins.float | None = None, max: builtins.float | None = None) -> Self:
        """In-place `clamp`."""

    def isnan(self) -> Tensor:
        """NaN test (bool tensor)."""

    def signbit(self) -> Tensor:
        """Sign-bit test (bool tensor): true for negative numbers, `-0.0` and negative NaN."""

    def isinf(self) -> Tensor:
        """±inf test (bool tensor)."""

    def isfinite(self) -> Tensor:
        """Finiteness test (bool tensor)."""

    def square(self) -> Tensor:
        """`x²`."""

    def gelu(self, approximate: Literal['none', 'tanh'] = "none") -> Tensor:
        """GELU (`approximate="none"` or `"tanh"`)."""

    def silu(self) -> Tensor:
        """SiLU, `x·σ(x)`."""

    def softplus(self, beta: builtins.float = 1.0, threshold: builtins.float = 20.0) -> Tensor:
        """Softplus."""

    def leaky_relu(self, negative_slope: builtins.float = 0.01) -> Tensor:
        """Leaky ReLU."""

    def elu(self, alpha: builtins.float = 1.0) -> Tensor:
        """ELU."""

    def logical_and(self, other: _Operand) -> Tensor:
        """Logical and of bool tensors (or truthiness of numbers)."""

    def logical_or(self, other: _Operand) -> Tensor:
        """Logical or."""

    def logical_xor(self, other: _Operand) -> Tensor:
        """Logical exclusive or."""

    def logical_not(self) -> Tensor:
        """Logical not."""

    def __invert__(self) -> Tensor: ...

    def bitwise_not(self) -> Tensor:
        """`~x` as a method: logical not for bool, the bitwise complement for integers."""

    def __lshift__(self, other: _Operand, /) -> Tensor: ...

    def __rlshift__(self, other: Tensor, /) -> Tensor: ...

    def __rshift__(self, other: _Operand, /) -> Tensor: ...

    def __rrshift__(self, other: Tensor, /) -> Tensor: ...

    def bitwise_left_shift(self, other: _Operand) -> Tensor:
        """`self << other` elementwise, for integer tensors."""

    def bitwise_right_shift(self, other: _Operand) -> Tensor:
        """`self >> other` elementwise (arithmetic shift), for integer tensors."""

    def bitwise_and(self, other: _Operand) -> Tensor:
        """Bitwise and of integer tensors (logical and of bool ones)."""

    def bitwise_or(self, other: _Operand) -> Tensor:
        """Bitwise or of integer tensors (logical or of bool ones)."""

    def bitwise_xor(self, other: _Operand) -> Tensor:
        """Bitwise exclusive or of integer tensors (logical xor of bool ones)."""

    def __and__(self, other: _Operand, /) -> Tensor: ...

    def __rand__(self, other: Tensor, /) -> Tensor: ...

    def __or__(self, other: _Operand, /) -> Tensor: ...

    def __ror__(self, other: Tensor, /) -> Tensor: ...

    def __xor__(self, other: _Operand, /) -> Tensor: ...

    def __rxor__(self, other: Tensor, /) -> Tensor: ...

    def any(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """True if any element is true (non-zero)."""

    def all(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """True if every element is true (non-zero)."""

    def new_tensor(
        self,
        data: _Data,
        *,
        dtype: _DTypeLike | None = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """A new tensor holding `data` (copied), with this tensor's dtype unless `dtype` is
        given."""

    def new(self, *args: Any) -> Tensor:
        """Legacy `x.new(...)`, with this tensor's dtype: `new(*sizes)` or `new(torch.Size)` an
        uninitialized tensor of that shape (zeros in ferrograd), `new(data)` a tensor of `data`
        (a list or tuple), `new()` an empty one."""

    def new_zeros(
        self,
        *size: Any,
        dtype: _DTypeLike | None = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Zeros of `size`, with this tensor's dtype unless `dtype` is given."""

    def new_ones(
        self,
        *size: Any,
        dtype: _DTypeLike | None = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """Ones of `size`, with this tensor's dtype unless `dtype` is given."""

    def new_empty(
        self,
        *size: Any,
        dtype: _DTypeLike | None = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """An uninitialized tensor of `size` (zeros in ferrograd), with this tensor's dtype."""

    def new_empty_strided(
        self,
        size: Sequence[builtins.int],
        stride: Sequence[builtins.int],
        *,
        dtype: _DTypeLike | None = None,
        layout: builtins.object = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
        pin_memory: builtins.bool = False,
    ) -> Tensor:
        """An uninitialized tensor of `size` laid out with `stride` (zeros in ferrograd), with this
        tensor's dtype unless `dtype` is given."""

    def new_full(
        self,
        size: Sequence[builtins.int],
        fill_value: _Number,
        *,
        dtype: _DTypeLike | None = None,
        device: _Device | None = None,
        requires_grad: builtins.bool = False,
    ) -> Tensor:
        """`fill_value` everywhere in a tensor of `size`, with this tensor's dtype."""

    def type(self, dtype: Any = None, non_blocking: builtins.bool = False) -> Any:
        """`type()`: the legacy type name (`'torch.FloatTensor'`); `type(dtype)`,
        `type(torch.DoubleTensor)` or `type('torch.DoubleTensor')`: the tensor converted."""

    def int(self, memory_format: Any = None) -> Tensor:
        """Converts to int32."""

    def short(self, memory_format: Any = None) -> Tensor:
        """Converts to int16."""

    def char(self, memory_format: Any = None) -> Tensor:
        """Converts to int8."""

    def byte(self, memory_format: Any = None) -> Tensor:
        """Converts to uint8."""

    def half(self, memory_format: Any = None) -> Tensor:
        """`half()` would be float16, which ferrograd lacks: refused (use `float()`)."""

    def stride(self, dim: builtins.int | None = None) -> Any:
        """Steps in elements between neighbours along each dimension (or along `dim`)."""

    def storage_offset(self) -> builtins.int:
        """Position of the first element in the storage, in elements."""

    def exponential_(
        self,
        lambd: builtins.float = 1.0,
        *,
        generator: Generator | None = None,
    ) -> Self:
        """Fills with exponential samples of rate `lambd`."""

    def multinomial(
        self,
        num_samples: builtins.int,
        replacement: builtins.bool = False,
        *,
        generator: Generator | None = None,
    ) -> Tensor:
        """Class indices drawn with the weights in each row (`torch.multinomial`)."""

    def element_size(self) -> builtins.int:
        """Bytes per element."""

    def __add__(self, other: _Operand, /) -> Tensor: ...

    def __radd__(self, other: _Operand, /) -> Tensor: ...

    def __sub__(self, other: _Operand, /) -> Tensor: ...

    def __rsub__(self, other: _Operand, /) -> Tensor: ...

    def __mul__(self, other: _Operand, /) -> Tensor: ...

    def __rmul__(self, other: _Operand, /) -> Tensor: ...

    def __truediv__(self, other: _Operand, /) -> Tensor: ...

    def __rtruediv__(self, other: _Operand, /) -> Tensor: ...

    def __pow__(self, other: _Operand, modulo: None = None, /) -> Tensor: ...

    def __rpow__(self, other: _Operand, modulo: None = None, /) -> Tensor: ...

    def __matmul__(self, other: Tensor, /) -> Tensor: ...

    def __rmatmul__(self, other: Tensor, /) -> Tensor: ...

    def __neg__(self) -> Tensor: ...

    def __pos__(self) -> Self: ...

    def __abs__(self) -> Tensor: ...

    def __iadd__(self, other: _Operand, /) -> Self: ...

    def __isub__(self, other: _Operand, /) -> Self: ...

    def __imul__(self, other: _Operand, /) -> Self: ...

    def __itruediv__(self, other: _Operand, /) -> Self: ...

    def __ipow__(self, other: _Operand, /) -> Self: ...  # type: ignore[misc]

    def __lt__(self, other: _Operand, /) -> Tensor: ...

    def __le__(self, other: _Operand, /) -> Tensor: ...

    def __gt__(self, other: _Operand, /) -> Tensor: ...

    def __ge__(self, other: _Operand, /) -> Tensor: ...

    def __eq__(self, other: builtins.object, /) -> Tensor: ...  # type: ignore[override]

    def __ne__(self, other: builtins.object, /) -> Tensor: ...  # type: ignore[override]

    def floor_divide(self, other: _Operand) -> Tensor:
        """`self // other`, rounded toward negative infinity (no derivative, as PyTorch)."""

    def floor_divide_(self, other: _Operand) -> Self:
        """In-place `floor_divide`."""

    def remainder(self, other: _Operand) -> Tensor:
        """`self % other`, with the sign of `other` (Python's modulus)."""

    def remainder_(self, other: _Operand) -> Self:
        """In-place `remainder`."""

    def fmod(self, other: _Operand) -> Tensor:
        """`fmod(self, other)`, with the sign of `self` (C's `fmod`)."""

    def fmod_(self, other: _Operand) -> Self:
        """In-place `fmod`."""

    def __floordiv__(self, other: _Operand, /) -> Tensor: ...

    def __rfloordiv__(self, other: _Operand, /) -> Tensor: ...

    def __mod__(self, other: _Operand, /) -> Tensor: ...

    def __rmod__(self, other: _Operand, /) -> Tensor: ...

    def __ifloordiv__(self, other: _Operand, /) -> Self: ...

    def __imod__(self, other: _Operand, /) -> Self: ...

    def __contains__(self, element: builtins.object, /) -> builtins.bool:
        """`element in self`: whether any element equals `element` (a number or a tensor)."""

    def tril(self, diagonal: builtins.int = 0) -> Tensor:
        """The lower triangle of the last two dimensions (on and below the `diagonal`-th diagonal).
        """

    def triu(self, diagonal: builtins.int = 0) -> Tensor:
        """The upper triangle of the last two dimensions (on and above the `diagonal`-th diagonal).
        """

    def tril_(self, diagonal: builtins.int = 0) -> Self:
        """In-place `tril`."""

    def triu_(self, diagonal: builtins.int = 0) -> Self:
        """In-place `triu`."""

    def diag(self, diagonal: builtins.int = 0) -> Tensor:
        """A 1-D tensor as the `diagonal`-th diagonal of a square matrix, or a matrix's diagonal."""

    def diagonal(
        self,
        offset: builtins.int = 0,
        dim1: builtins.int = 0,
        dim2: builtins.int = 1,
    ) -> Tensor:
        """The `offset`-th diagonal of dims `dim1` and `dim2` (a view, the diagonal last)."""

    def trace(self) -> Tensor:
        """The sum of a matrix's main diagonal."""

    def cumprod(self, dim: builtins.int, *, dtype: _DTypeLike | None = None) -> Tensor:
        """Running product along `dim` (computed in `dtype` when given)."""

    def cumprod_(self, dim: builtins.int) -> Self:
        """In-place `cumprod`."""

    def cumsum_(self, dim: builtins.int) -> Self:
        """In-place `cumsum`."""

    def sort(
        self,
        dim: builtins.int = ...,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool | None = None,
    ) -> sort_result:
        """`(values, indices)` sorted along `dim` (`stable` keeps equal elements in order)."""

    def argsort(
        self,
        dim: builtins.int = ...,
        descending: builtins.bool = False,
        *,
        stable: builtins.bool = False,
    ) -> Tensor:
        """The indices that sort the tensor along `dim`."""

    def topk(
        self,
        k: builtins.int,
        dim: builtins.int = ...,
        largest: builtins.bool = True,
        sorted: builtins.bool = True,
    ) -> topk_result:
        """The `k` largest (or smallest) elements along `dim` and their indices."""

    def kthvalue(
        self,
        k: builtins.int,
        dim: builtins.int = ...,
        keepdim: builtins.bool = False,
    ) -> kthvalue_result:
        """The `k`-th smallest element along `dim` and its index."""

    @overload
    def median(self, dim: None = None, keepdim: builtins.bool = False) -> Tensor:
        """The lower median of all elements, or `(values, indices)` along `dim`."""

    @overload
    def median(self, dim: builtins.int, keepdim: builtins.bool = False) -> median_result: ...

    @overload
    def nanmedian(self, dim: None = None, keepdim: builtins.bool = False) -> Tensor:
        """The lower median of the non-NaN elements, or `(values, indices)` along `dim`."""

    @overload
    def nanmedian(self, dim: builtins.int, keepdim: builtins.bool = False) -> nanmedian_result: ...

    def mode(self, dim: builtins.int = ..., keepdim: builtins.bool = False) -> mode_result:
        """The most frequent value along `dim` and an index of it."""

    @overload
    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: Literal[False] = False,
        return_counts: Literal[False] = False,
        dim: builtins.int | None = None,
    ) -> Tensor:
        """The distinct elements (or slices along `dim`), sorted; with the inverse indices and
        the counts when asked for."""

    @overload
    def unique(
        self,
        sorted: builtins.bool = True,
        return_inverse: builtins.bool = False,
        return_counts: builtins.bool = False,
        dim: builtins.int | None = None,
    ) -> Tensor | tuple[Tensor, ...]: ...

    def cross(self, other: Tensor, dim: builtins.int | None = None) -> Tensor:
        """The cross product of 3-vectors along `dim` (the first dimension of size 3 when absent,
        with PyTorch's deprecation warning)."""

    def roll(
        self,
        shifts: builtins.int | Sequence[builtins.int],
        dims: builtins.int | Sequence[builtins.int] | None = None,
    ) -> Tensor:
        """The elements shifted circularly by `shifts` along `dims` (the flattened tensor when
        `dims` is empty)."""

    def broadcast_to(self, size: builtins.int | Sequence[builtins.int]) -> Tensor:
        """The tensor expanded to `size` (PyTorch's `broadcast_to`: `expand`)."""

    def addmm(
        self,
        mat1: Tensor,
        mat2: Tensor,
        *,
        beta: builtins.float = 1.0,
        alpha: builtins.float = 1.0,
    ) -> Tensor:
        """`beta · self + alpha · (mat1 @ mat2)`."""

    def addmv(
        self,
        mat: Tensor,
        vec: Tensor,
        *,
        beta: builtins.float = 1.0,
        alpha: builtins.float = 1.0,
    ) -> Tensor:
        """`beta · self + alpha · (mat @ vec)`."""

    def baddbmm(
        self,
        batch1: Tensor,
        batch2: Tensor,
        *,
        beta: builtins.float = 1.0,
        alpha: builtins.float = 1.0,
    ) -> Tensor:
        """`beta · self + alpha · (batch1 @ batch2)` for 3-D batches."""

    def cummax(self, dim: builtins.int) -> cummax_result:
        """`(values, indices)` of the running maximum along `dim` (`CummaxBackward0`)."""

    def cummin(self, dim: builtins.int) -> cummin_result:
        """`(values, indices)` of the running minimum along `dim` (`CumminBackward0`)."""

    def aminmax(
        self,
        *,
        dim: builtins.int | None = None,
        keepdim: builtins.bool = False,
    ) -> aminmax_result:
        """`(min, max)` over `dim`, or over all elements (`AminmaxBackward0`)."""

    def nansum(
        self,
        dim: builtins.int | Sequence[builtins.int] | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: _DType | None = None,
    ) -> Tensor:
        """Sum with NaN counted as 0, of all elements or over `dim` (`NansumBackward0`)."""

    def logaddexp(self, other: Tensor) -> Tensor:
        """`ln(eˣ + eʸ)` elementwise, without overflow (`LogaddexpBackward0`)."""

    def logaddexp2(self, other: Tensor) -> Tensor:
        """`log₂(2ˣ + 2ʸ)` elementwise, without overflow (`Logaddexp2Backward0`)."""

    def nan_to_num(
        self,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Tensor:
        """NaN, `+inf` and `-inf` replaced by finite numbers (`NanToNumBackward0`)."""

    def nan_to_num_(
        self,
        nan: builtins.float = 0.0,
        posinf: builtins.float | None = None,
        neginf: builtins.float | None = None,
    ) -> Self:
        """In-place `nan_to_num`."""

    def sum(
        self,
        dim: _Dims | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: _DTypeLike | None = None,
        axis: _Dims | None = None,
        keepdims: builtins.bool | None = None,
    ) -> Tensor:
        """Sum of all elements, or over `dim` (NumPy's `axis=` and `keepdims=` accepted, as
        PyTorch accepts them).
        A `dim` given, even as `None` or `[]`, sums by PyTorch's `sum.dim_IntList` overload
        (`SumBackward1`); none given, by `sum.default` (`SumBackward0`)."""

    def mean(
        self,
        dim: _Dims | None = None,
        keepdim: builtins.bool = False,
        *,
        axis: _Dims | None = None,
        keepdims: builtins.bool | None = None,
    ) -> Tensor:
        """Mean of all elements, or over `dim` (NumPy's `axis=` and `keepdims=` accepted, as
        PyTorch accepts them)."""

    def norm(
        self,
        p: builtins.float | Literal['fro'] | None = None,
        dim: _Dims | None = None,
        keepdim: builtins.bool = False,
        dtype: _DTypeLike | None = None,
    ) -> Tensor:
        """The p-norm (default 2, the Frobenius/Euclidean norm) of all elements or over `dim`."""

    def matmul(self, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        """Matrix product with PyTorch's `matmul` rules for 1-D and 2-D operands."""

    def mm(self, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
        """Matrix-matrix product."""

    def mv(self, vec: Tensor) -> Tensor:
        """Matrix-vector product."""

    def dot(self, other: Tensor) -> Tensor:
        """Inner product of 1-D tensors."""

    def outer(self, vec2: Tensor) -> Tensor:
        """Outer product of 1-D tensors."""

    def softmax(self, dim: builtins.int, dtype: _DTypeLike | None = None) -> Tensor:
        """Softmax along `dim`."""

    def log_softmax(self, dim: builtins.int, dtype: _DTypeLike | None = None) -> Tensor:
        """Log-softmax along `dim`."""

    def prod(
        self,
        dim: builtins.int | None = None,
        keepdim: builtins.bool = False,
        *,
        dtype: _DTypeLike | None = None,
    ) -> Tensor:
        """Product of all elements, or along `dim`."""

    @overload
    def max(self, dim: None = None, keepdim: builtins.bool = False) -> Tensor:
        """
        Maximum of all elements, or `(values, indices)` along `dim`, or the elementwise maximum with
        a tensor."""

    @overload
    def max(self, dim: builtins.int, keepdim: builtins.bool = False) -> max_result: ...

    @overload
    def max(self, dim: Tensor, keepdim: builtins.bool = False) -> Tensor: ...

    @overload
    def min(self, dim: None = None, keepdim: builtins.bool = False) -> Tensor:
        """
        Minimum of all elements, or `(values, indices)` along `dim`, or the elementwise minimum with
        a tensor."""

    @overload
    def min(self, dim: builtins.int, keepdim: builtins.bool = False) -> min_result: ...

    @overload
    def min(self, dim: Tensor, keepdim: builtins.bool = False) -> Tensor: ...

    def amax(self, dim: _Dims | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Maximum over `dim` (an int or a tuple; all when omitted)."""

    def amin(self, dim: _Dims | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Minimum over `dim` (an int or a tuple; all when omitted)."""

    def argmax(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the maximum."""

    def argmin(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        """Index of the minimum."""

    def var(
        self,
        dim: _Dims | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: builtins.float | None = None,
    ) -> Tensor:
        """Variance (unbiased by default; `correction` overrides `unbiased`)."""

    def std(
        self,
        dim: _Dims | None = None,
        unbiased: builtins.bool | None = None,
        keepdim: builtins.bool = False,
        *,
        correction: builtins.float | None = None,
    ) -> Tensor:
        """Standard deviation (unbiased by default; `correction` overrides `unbiased`)."""

    def logsumexp(self, dim: _Dims, keepdim: builtins.bool = False) -> Tensor:
        """`log Σ exp` over `dim`, computed stably."""

    def cumsum(self, dim: builtins.int, *, dtype: _DTypeLike | None = None) -> Tensor:
        """Running sum along `dim`."""

    def bmm(self, mat2: Tensor, *, out: Tensor | None = None) -> Tensor:
        """Batched matrix product of 3-D tensors."""

    def __getitem__(self, index: _Index, /) -> Tensor: ...

    def __setitem__(self, index: _Index, value: _Data, /) -> None: ...

    def t(self) -> Tensor:
        """Transpose of a 2-D tensor."""

    @property
    def T(self) -> Tensor:
        """The transpose (`x.T`), for tensors of at most 2 dimensions: the dimensions reversed."""

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped (`x.mT`), for matrices and batches of them."""

    @property
    def mH(self) -> Tensor:
        """The conjugate transpose of the last two dimensions (`x.mH`): `mT` for real tensors."""

    @property
    def H(self) -> Tensor:
        """The conjugate transpose of a matrix (`x.H`): its transpose for real tensors; a 0-d
        tensor comes back as it is, with PyTorch's deprecation warning."""

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        """Swaps two dimensions."""

    @overload
    def view(self, shape: Sequence[builtins.int], /) -> Tensor:
        """A view with another shape (contiguous tensors)."""

    @overload
    def view(self, *shape: builtins.int) -> Tensor: ...

    @overload
    def reshape(self, shape: Sequence[builtins.int], /) -> Tensor:
        """The same elements with another shape (a view when possible)."""

    @overload
    def reshape(self, *shape: builtins.int) -> Tensor: ...

    def view_as(self, other: Tensor) -> Tensor:
        """Views as `other`'s shape."""

    def reshape_as(self, other: Tensor) -> Tensor:
        """Reshapes to `other`'s shape."""

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        """Inserts a size-1 dimension."""

    def squeeze(self, dim: builtins.int | None = None) -> Tensor:
        """Removes size-1 dimensions (all, or only `dim`)."""

    @overload
    def expand(self, sizes: Sequence[builtins.int], /) -> Tensor:
        """Broadcasts to a larger shape without copying."""

    @overload
    def expand(self, *sizes: builtins.int) -> Tensor: ...

    def expand_as(self, other: Tensor) -> Tensor:
        """Broadcasts to `other`'s shape."""

    def select(self, dim: builtins.int, index: builtins.int) -> Tensor:
        """`x.select(dim, index)`."""

    def narrow(self, dim: builtins.int, start: builtins.int, length: builtins.int) -> Tensor:
        """`length` elements of `dim` starting at `start`."""

    def clone(self, *, memory_format: Any = None) -> Tensor:
        """A copy with its own storage, differentiable, laid out as this tensor (PyTorch's
        `preserve_format`) or in `memory_format`."""

    def contiguous(self, memory_format: Any = None) -> Tensor:
        """This tensor if contiguous, else a contiguous copy (with `memory_format`, in that
        order: `torch.channels_last` for 4-D, `torch.channels_last_3d` for 5-D)."""

    def _suggests_channels_last(self) -> builtins.bool:
        """Whether the strides suggest a channels-last layout (PyTorch's `suggest_memory_format`),
        which decides the layout of a convolution's or a pool's result."""

    def is_contiguous(self, memory_format: Any = None) -> builtins.bool:
        """Whether elements are dense and row-major (or, with `memory_format`, dense in that
        order)."""

    @overload
    def to(self, dtype: _DTypeLike, /) -> Tensor:
        """Converts to `dtype` (differentiable between float types) and, with `memory_format=`,
        lays the elements out in that order; returns this tensor if nothing changes."""

    @overload
    def to(self, other: Tensor, /) -> Tensor: ...

    @overload
    def to(self, device: _Device | None, dtype: _DTypeLike, /) -> Tensor: ...

    @overload
    def to(self, device: _Device | None = None, *, dtype: _DTypeLike) -> Tensor: ...

    @overload
    def to(self, device: _Device | None = None, *, dtype: None = None) -> Self: ...

    def float(self) -> Tensor:
        """Converts to float32."""

    def double(self) -> Tensor:
        """Converts to float64."""

    def long(self) -> Tensor:
        """Converts to int64."""

    def bool(self) -> Tensor:
        """Converts to bool."""

    def type_as(self, other: Tensor) -> Tensor:
        """Converts to `other`'s dtype."""

    def cpu(self) -> Self:
        """This tensor on the CPU (the only device)."""

    @overload
    def permute(self, dims: Sequence[builtins.int], /) -> Tensor:
        """Reorders dimensions (a view)."""

    @overload
    def permute(self, *dims: builtins.int) -> Tensor: ...

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = ...) -> Tensor:
        """Merges dims `start_dim..=end_dim` into one."""

    def split(
        self,
        split_size_or_sections: builtins.int | Sequence[builtins.int],
        dim: builtins.int = 0,
    ) -> tuple[Tensor, ...]:
        """Splits into pieces of `split_size_or_sections` (an int, or a list of sizes) along `dim`.
        """

    def split_with_sizes(
        self,
        split_sizes: Sequence[builtins.int],
        dim: builtins.int = 0,
    ) -> tuple[Tensor, ...]:
        """Splits into pieces of the given sizes along `dim` (views; `SplitWithSizesBackward0`)."""

    def unsafe_split(self, split_size: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """`split` whose pieces autograd does not treat as views (in-place writes are not checked).
        """

    def unsafe_split_with_sizes(
        self,
        split_sizes: Sequence[builtins.int],
        dim: builtins.int = 0,
    ) -> tuple[Tensor, ...]:
        """`split_with_sizes` whose pieces autograd does not treat as views."""

    def unsafe_chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """`chunk` whose pieces autograd does not treat as views."""

    def chunk(self, chunks: builtins.int, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """`chunks` nearly equal pieces along `dim`."""

    def unbind(self, dim: builtins.int = 0) -> tuple[Tensor, ...]:
        """The slices along `dim`."""

    @overload
    def flip(self, dims: Sequence[builtins.int], /) -> Tensor:
        """Reverses the order along `dims`."""

    @overload
    def flip(self, *dims: builtins.int) -> Tensor: ...

    def rot90(self, k: builtins.int = 1, dims: Sequence[builtins.int] = ...) -> Tensor:
        """Rotated by `k` quarter turns in the plane of `dims` (`Rot90Backward0`)."""

    @overload
    def repeat(self, sizes: Sequence[builtins.int], /) -> Tensor:
        """Tiles the tensor along each dimension."""

    @overload
    def repeat(self, *sizes: builtins.int) -> Tensor: ...

    def gather(
        self,
        dim: builtins.int,
        index: Tensor,
        *,
        sparse_grad: builtins.bool = False,
    ) -> Tensor:
        """Values of `self` at `index` along `dim` (with `sparse_grad=True`, the gradient is a
        sparse COO tensor)."""

    def index_select(self, dim: builtins.int, index: Tensor) -> Tensor:
        """Slices `index` of dimension `dim`."""

    def masked_fill(self, mask: Tensor, value: _Operand) -> Tensor:
        """Elements replaced by `value` where `mask` is true."""

    def masked_fill_(self, mask: Tensor, value: _Operand) -> Self:
        """In-place `masked_fill`."""

    def lerp(self, end: Tensor, weight: builtins.float | Tensor) -> Tensor:
        """`self + weight · (end - self)` (`weight` a number or a tensor)."""

    def lerp_(self, end: Tensor, weight: builtins.float | Tensor) -> Self:
        """In-place `lerp`."""

    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: builtins.float = 1.0) -> Tensor:
        """`self + value · tensor1 · tensor2`."""

    def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: builtins.float = 1.0) -> Self:
        """In-place `addcmul`."""

    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: builtins.float = 1.0) -> Tensor:
        """`self + value · tensor1 / tensor2`."""

    def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: builtins.float = 1.0) -> Self:
        """In-place `addcdiv`."""
    # </generated: Tensor methods>

# ----- factories ---------------------------------------------------------------------------------

# <generated: class _ArrayOwner> written by tools/gen_surface.py from the imported ferrograd
@final
class _ArrayOwner:
    """Keeps a tensor's elements alive for the NumPy array that views them (the array's `base`),
    and describes them through the array interface."""
# </generated: class _ArrayOwner>
    # <generated: _ArrayOwner methods> written by tools/gen_surface.py from src/python/
    @property
    def __array_interface__(self) -> dict[builtins.str, Any]:
        """The array interface (version 3) of the tensor's elements, in place."""
    # </generated: _ArrayOwner methods>

# <generated: class _PendingTensor> written by tools/gen_surface.py from the imported ferrograd
@final
class _PendingTensor:
    """A core tensor on its way into a new object of a Python subclass (through
    `Tensor.__new__(cls, pending)`, the only way to make an object of a Python-defined type)."""
# </generated: class _PendingTensor>

# <generated: class _SavedTensors> written by tools/gen_surface.py from the imported ferrograd
@final
class _SavedTensors:
    """A custom Function node's saved tensors while its backward runs: calling it unpacks them
    (running their unpack hooks each time, as PyTorch's `ctx.saved_tensors`); `close()`
    lets go of the node."""
# </generated: class _SavedTensors>

    # <generated: _SavedTensors methods> written by tools/gen_surface.py from src/python/
    def __call__(self, *args: Any, **kwargs: Any) -> list[Tensor]: ...

    def close(self) -> None: ...
    # </generated: _SavedTensors methods>

# ----- random seed and grad mode -----------------------------------------------------------------

# <generated: class Generator> written by tools/gen_surface.py from the imported ferrograd
@final
class Generator:
    """`torch.Generator`: a random stream of its own, seeded independently of the global one."""
# </generated: class Generator>

    # <generated: Generator methods> written by tools/gen_surface.py from src/python/
    def __new__(cls, device: _Device | None = None) -> Self: ...

    def manual_seed(self, seed: builtins.int) -> Self:
        """Reseeds this generator; returns it."""

    def seed(self) -> builtins.int:
        """Reseeds from the operating system's randomness; returns the seed."""

    def initial_seed(self) -> builtins.int:
        """The seed the current stream started from."""

    def get_state(self) -> Tensor:
        """The generator's state as an int64 tensor (pass it to `set_state`)."""

    def set_state(self, state: Tensor) -> Self:
        """Restores a state from `get_state`; returns the generator."""

    @property
    def device(self) -> Any:
        """Always `device(type='cpu')`."""
    # </generated: Generator methods>

# <generated: constants> written by tools/gen_surface.py from the imported ferrograd
float32: dtype
float: dtype
float64: dtype
double: dtype
int64: dtype
long: dtype
int32: dtype
int: dtype
int16: dtype
short: dtype
int8: dtype
uint8: dtype
bool: dtype
default_generator: Generator
# </generated: constants>

# ----- joining and selecting ---------------------------------------------------------------------

# <generated: functions> written by tools/gen_surface.py from the tables
def neg(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`-x`."""

def abs(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`|x|`; `abs'(0) = 0`."""

def exp(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`e^x`."""

def exp2(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`2^x`."""

def expm1(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`e^x - 1`, accurate near 0."""

def log(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """natural logarithm."""

def log2(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """base-2 logarithm."""

def log10(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """base-10 logarithm."""

def log1p(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`ln(1 + x)`, accurate near 0."""

def sqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """square root."""

def rsqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`1 / sqrt(x)`."""

def reciprocal(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`1 / x`."""

def sin(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sine."""

def cos(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """cosine."""

def tan(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """tangent."""

def asin(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """arcsine."""

def acos(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """arccosine."""

def atan(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """arctangent."""

def sinh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """hyperbolic sine."""

def cosh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """hyperbolic cosine."""

def tanh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """hyperbolic tangent."""

def asinh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """inverse hyperbolic sine."""

def acosh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """inverse hyperbolic cosine."""

def atanh(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """inverse hyperbolic tangent."""

def sigmoid(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """logistic sigmoid `1 / (1 + e^-x)`."""

def relu(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`max(x, 0)` (NaN stays NaN, -0.0 stays -0.0 as in PyTorch); `relu'(0) = 0`."""

def erf(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the error function."""

def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the complementary error function `1 - erf(x)`, accurate where `erf(x)` is near 1."""

def erfinv(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the inverse error function; `±inf` at `±1`, NaN outside `[-1, 1]`."""

def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`ln |Γ(x)|`."""

def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the digamma function `Γ'(x) / Γ(x)`."""

def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the modified Bessel function of the first kind of order 0; derivative `i1(x)`."""

def sign(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sign (-1, 0, 1); zero gradient."""

def floor(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """round down; zero gradient."""

def ceil(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """round up; zero gradient."""

def round(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """round half to even, as PyTorch; zero gradient."""

def trunc(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """round toward zero; zero gradient."""

def frac(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the fractional part `x - trunc(x)`; the gradient passes unchanged."""

def xlogy(input: _Operand, other: _Operand, *, out: Tensor | None = None) -> Tensor:
    """`x · ln(y)`, 0 where `x == 0` (unless `y` is NaN)."""

def hypot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """`sqrt(x² + y²)`."""

def atan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """the angle of the point `(other, self)`: `atan(self / other)` in the right quadrant."""
# </generated: functions>

# ----- autograd functions ------------------------------------------------------------------------

# <generated: class _LinAlgError> written by tools/gen_surface.py from the imported ferrograd
class _LinAlgError(RuntimeError):
    """PyTorch's `torch.linalg.LinAlgError`: a factorization or solve failed on its input."""
# </generated: class _LinAlgError>

# ----- nn.functional: activations and losses ------------------------------------------------------

# ----- nn.functional: normalization --------------------------------------------------------------

# ----- nn.functional: convolution, pooling, sliding blocks ---------------------------------------

# <generated: bindings> written by tools/gen_surface.py from src/python/
def _set_anomaly_enabled(enabled: builtins.bool, check_nan: builtins.bool) -> None:
    """Turns anomaly detection on or off (`check_nan`: also check backward results for NaN)."""

def is_anomaly_enabled() -> builtins.bool:
    """Whether anomaly detection is on."""

def is_anomaly_check_nan_enabled() -> builtins.bool:
    """Whether anomaly detection checks backward results for NaN."""

def _swap_tensor_impl(t1: Tensor, t2: Tensor) -> None:
    """`torch._C._swap_tensor_impl(t1, t2)`: each object shows the other's tensor from now on
    (the last step of `torch.utils.swap_tensors`, which swaps the classes and `__dict__`s)."""

def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    transposed: builtins.bool,
    output_padding: Sequence[builtins.int],
    groups: builtins.int,
) -> Tensor:
    """PyTorch's `torch.convolution` (`ConvolutionBackward0`)."""

def max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    ceil_mode: builtins.bool,
) -> tuple[Tensor, Tensor]:
    """`max_pool2d_with_indices` (`MaxPool2DWithIndicesBackward0`): `(values, indices)`."""

def avg_pool2d(
    input: Tensor,
    kernel_size: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    ceil_mode: builtins.bool,
    count_include_pad: builtins.bool,
    divisor_override: builtins.int | None,
) -> Tensor:
    """`avg_pool2d` (`AvgPool2DBackward0`)."""

def adaptive_avg_pool2d(input: Tensor, output_size: Sequence[builtins.int]) -> Tensor:
    """`_adaptive_avg_pool2d` (`AdaptiveAvgPool2DBackward0`)."""

def adaptive_max_pool2d(
    input: Tensor,
    output_size: Sequence[builtins.int],
) -> tuple[Tensor, Tensor]:
    """`adaptive_max_pool2d` (`AdaptiveMaxPool2DBackward0`): `(values, indices)`."""

def im2col(
    input: Tensor,
    kernel_size: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    stride: Sequence[builtins.int],
) -> Tensor:
    """`im2col`, PyTorch's `F.unfold` (`Im2ColBackward0`)."""

def col2im(
    input: Tensor,
    output_size: Sequence[builtins.int],
    kernel_size: Sequence[builtins.int],
    dilation: Sequence[builtins.int],
    padding: Sequence[builtins.int],
    stride: Sequence[builtins.int],
) -> Tensor:
    """`col2im`, PyTorch's `F.fold` (`Col2ImBackward0`)."""

def upsample(
    input: Tensor,
    output_size: Sequence[builtins.int],
    mode: builtins.str,
    align_corners: builtins.bool,
    scales: Sequence[builtins.float] | None = None,
    antialias: builtins.bool = False,
) -> Tensor:
    """`upsample_*` (`F.interpolate`'s kernels): `mode` is `nearest`, `nearest-exact`, `linear`,
    `bilinear`, `bicubic` or `trilinear`, `antialias` for bilinear and bicubic
    (`UpsampleNearest2DBackward0`, ...)."""

def _register_size(cls: builtins.type[tuple[builtins.int, ...]]) -> None:
    """Registers the Python `Size` class (a tuple subclass) used for `.shape`."""

def tensor(
    data: _Data,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`tensor(data, dtype=None, requires_grad=False)`: a new leaf holding a copy of `data`."""

@overload
def zeros(
    sizes: Sequence[builtins.int],
    /,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A tensor of zeros."""

@overload
def zeros(
    *sizes: builtins.int,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

@overload
def zeros(
    *,
    size: Sequence[builtins.int] | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

@overload
def ones(
    sizes: Sequence[builtins.int],
    /,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A tensor of ones."""

@overload
def ones(
    *sizes: builtins.int,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

@overload
def ones(
    *,
    size: Sequence[builtins.int] | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

@overload
def empty(
    sizes: Sequence[builtins.int],
    /,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    pin_memory: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor:
    """An uninitialised tensor (zero-filled here), laid out in `memory_format` (contiguous by
    default, `torch.channels_last` for 4-D ...)."""

@overload
def empty(
    *sizes: builtins.int,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    pin_memory: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor: ...

@overload
def empty(
    *,
    size: Sequence[builtins.int] | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    pin_memory: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor: ...

def empty_strided(
    size: Sequence[builtins.int],
    stride: Sequence[builtins.int],
    *,
    dtype: _DTypeLike | None = None,
    layout: builtins.object = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    pin_memory: builtins.bool = False,
) -> Tensor:
    """`torch.empty_strided(size, stride)`: an uninitialised tensor (zero-filled here) of `size`
    laid out with `stride`."""

def full(
    size: _Dims,
    fill_value: _Number,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """A tensor of `size` filled with `fill_value` (dtype inferred from the value when not given).
    """

def zeros_like(
    input: Tensor,
    *,
    dtype: _DTypeLike | None = None,
    layout: builtins.object = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Zeros with `input`'s shape (and dtype), laid out as `input` (or in `memory_format`)."""

def ones_like(
    input: Tensor,
    *,
    dtype: _DTypeLike | None = None,
    layout: builtins.object = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
    memory_format: Any = None,
) -> Tensor:
    """Ones with `input`'s shape (and dtype), laid out as `input` (or in `memory_format`)."""

def arange(
    start: _Number,
    end: _Number | None = None,
    step: _Number | None = None,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`arange(end)` or `arange(start, end, step)`; int64 when every bound is an integer."""

def linspace(
    start: builtins.float,
    end: builtins.float,
    steps: builtins.int,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`steps` evenly spaced values from `start` to `end`."""

@overload
def grad(
    outputs: _Tensors,
    inputs: _Tensors,
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    allow_unused: Literal[False] | None = None,
    materialize_grads: builtins.bool = False,
) -> tuple[Tensor, ...]:
    """`autograd.grad(outputs, inputs, ...)`: gradients of `outputs` with respect to `inputs`, as a
    tuple."""

@overload
def grad(
    outputs: _Tensors,
    inputs: _Tensors,
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    *,
    allow_unused: builtins.bool | None = None,
    materialize_grads: Literal[True],
) -> tuple[Tensor, ...]: ...

@overload
def grad(
    outputs: _Tensors,
    inputs: _Tensors,
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    allow_unused: builtins.bool | None = None,
    materialize_grads: builtins.bool = False,
) -> tuple[Tensor | None, ...]: ...

def _gradient_edge(tensor: Tensor) -> tuple[Node, builtins.int]:
    """The gradient edge of a tensor (`autograd.graph.get_gradient_edge`): its node (the leaf's
    AccumulateGrad for a leaf) and which output of it the tensor is."""

def _grad_to_edges(
    outputs: Tensor | Sequence[Tensor],
    edges: Sequence[tuple[Node, builtins.int]],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    allow_unused: builtins.bool = False,
) -> tuple[Tensor | None, ...]:
    """`autograd.grad` with respect to gradient edges `(node, output number)`."""

def _increment_version(tensor: Tensor) -> None:
    """Counts an in-place change of `tensor` that autograd did not see (`autograd.graph
    .increment_version`); inference tensors have no counter and are left alone."""

def backward(
    tensors: _Tensors,
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: builtins.bool | None = None,
    create_graph: builtins.bool = False,
    inputs: _Tensors | None = None,
) -> None:
    """`autograd.backward(tensors, grad_tensors, ...)`: accumulates into the leaves' `.grad`."""

def _queue_callback(callback: Callable[[], builtins.object]) -> None:
    """`Variable._execution_engine.queue_callback(callback)`: `callback()` runs once the running
    backward pass has finished (refused outside one)."""

def _current_graph_task_id() -> builtins.int:
    """The id of the backward pass running on this thread, -1 outside one."""

def _is_checkpoint_valid() -> builtins.bool:
    """Whether a reentrant checkpoint may run its backward here: false inside a `grad()` call or a
    `backward(inputs=...)` (see [`crate::autograd::is_checkpoint_valid`])."""

def _will_engine_execute_node(node: Node) -> builtins.bool:
    """Whether the running backward pass executes `node` (see
    [`crate::autograd::will_engine_execute_node`])."""

def _record_execution_sets() -> None:
    """From now on, backward passes record the nodes they execute (for `_will_engine_execute_node`).
    """

def cat(tensors: _Tensors, dim: builtins.int = 0) -> Tensor:
    """Concatenates tensors along `dim`."""

def stack(tensors: _Tensors, dim: builtins.int = 0) -> Tensor:
    """Stacks tensors along a new dimension `dim`."""

@overload
def where(condition: Tensor, input: _Operand, other: _Operand) -> Tensor:
    """`where(condition, input, other)`; with only `condition`, the indices of its true elements."""

@overload
def where(condition: Tensor, input: None = None, other: None = None) -> tuple[Tensor, ...]: ...

def _register_types(types: dict[builtins.str, Any]) -> None:
    """Registers the Python helper types defined in the package."""

def isin(
    elements: _Operand,
    test_elements: _Operand,
    *,
    assume_unique: builtins.bool = False,
    invert: builtins.bool = False,
) -> Tensor:
    """`torch.isin(elements, test_elements, *, assume_unique=False, invert=False)`: whether each
    element is among the test elements (either may be a number, not both); a bool tensor."""

def var_mean(
    input: Tensor,
    dim: builtins.int | Sequence[builtins.int] | None = None,
    unbiased: builtins.bool | None = None,
    keepdim: builtins.bool = False,
    *,
    correction: builtins.float | None = None,
) -> tuple[Tensor, Tensor]:
    """`torch.var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None)`: the
    variance and the mean, one node for both."""

def std_mean(
    input: Tensor,
    dim: builtins.int | Sequence[builtins.int] | None = None,
    unbiased: builtins.bool | None = None,
    keepdim: builtins.bool = False,
    *,
    correction: builtins.float | None = None,
) -> tuple[Tensor, Tensor]:
    """`torch.std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None)`: the
    standard deviation and the mean, one node for both."""

def pow(input: _Operand, exponent: _Operand) -> Tensor:
    """`torch.pow(input, exponent)`: a tensor to a power, or a number to a tensor's powers."""

def _push_saved_tensors_hooks(pack_hook: Any, unpack_hook: Any) -> None:
    """Installs Python `pack_hook`/`unpack_hook` for the tensors saved on this thread
    (`autograd.graph.saved_tensors_hooks.__enter__`)."""

def _pop_saved_tensors_hooks() -> None:
    """Removes the innermost saved-tensor hooks of this thread."""

def _set_write_observer(observer: Callable[[Tensor], builtins.object] | None) -> None:
    """`autograd.graph.allow_mutation_on_saved_tensors` clones saved tensors with it."""

def _record_function(
    name: builtins.str,
    n_args: builtins.int,
    positions: Sequence[builtins.int],
    inputs: Sequence[Tensor],
    outputs: Sequence[Tensor],
    output_slots: Sequence[builtins.int],
    n_slots: builtins.int,
    differentiable: Sequence[builtins.bool],
    dirty: Sequence[builtins.bool],
    saved: Sequence[Tensor],
    backward: Callable[[tuple[Tensor | None, ...], list[Tensor]], _FunctionGrads],
    materialize_grads: builtins.bool,
    ctx: Any = None,
) -> tuple[Tensor, ...]:
    """Records a custom `autograd.Function` call (see [`crate::autograd::record_custom`]): a node
    named `name` whose backward calls `backward(grads, saved)` in Python, and which shows the
    attributes of `ctx` as its own (PyTorch's node of a custom Function is its ctx). Returns the
    outputs to hand to the user."""

def from_numpy(array: NDArray[Any]) -> Tensor:
    """arrays of other dtypes, read-only or unaligned ones are copied."""

def from_dlpack(obj: Any) -> Tensor:
    """`from_dlpack(obj)`: a tensor sharing the memory of an object with `__dlpack__` (a NumPy
    array, a PyTorch tensor...) or of a DLPack capsule."""

def linalg_lu_factor_ex(
    a: Tensor,
    check_errors: builtins.bool = False,
) -> tuple[Tensor, Tensor, Tensor]:
    """`(LU, pivots, info)` of LU with partial pivoting."""

def linalg_inv_ex(a: Tensor, check_errors: builtins.bool = False) -> tuple[Tensor, Tensor]:
    """`(inverse, info)`."""

def linalg_det(a: Tensor) -> Tensor:
    """The determinant of each matrix."""

def linalg_slogdet(a: Tensor) -> tuple[Tensor, Tensor]:
    """`(sign, logabsdet)`."""

def linalg_cholesky_ex(
    a: Tensor,
    upper: builtins.bool = False,
    check_errors: builtins.bool = False,
) -> tuple[Tensor, Tensor]:
    """`(L, info)` of the Cholesky factorization."""

def linalg_qr(a: Tensor, mode: builtins.str = "reduced") -> tuple[Tensor, Tensor]:
    """`(Q, R)` of the Householder QR."""

def linalg_eigh(a: Tensor, uplo: builtins.str = "L") -> tuple[Tensor, Tensor]:
    """`(eigenvalues, eigenvectors)` of symmetric matrices."""

def linalg_svd(a: Tensor, full_matrices: builtins.bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """`(U, S, Vh)`."""

def linalg_matrix_exp(a: Tensor) -> Tensor:
    """`e^A`."""

def linalg_solve_ex(
    a: Tensor,
    b: Tensor,
    left: builtins.bool = True,
    check_errors: builtins.bool = False,
) -> tuple[Tensor, Tensor]:
    """`(X, info)` with `AX = B` (or `XA = B`)."""

def linalg_solve_triangular(
    a: Tensor,
    b: Tensor,
    upper: builtins.bool,
    left: builtins.bool = True,
    unitriangular: builtins.bool = False,
) -> Tensor:
    """`X` with `AX = B` (or `XA = B`) for triangular `A`."""

def cholesky_solve(b: Tensor, l: Tensor, upper: builtins.bool = False) -> Tensor:
    """`X` with `(L Lᴴ) X = B`."""

def cholesky_inverse(l: Tensor, upper: builtins.bool = False) -> Tensor:
    """`(L Lᴴ)⁻¹`."""

def linalg_pinv(
    a: Tensor,
    atol: builtins.float | None = None,
    rtol: builtins.float | None = None,
) -> Tensor:
    """The pseudo-inverse."""

def linalg_lstsq(
    a: Tensor,
    b: Tensor,
    rcond: builtins.float | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """`(solution, residuals, rank, singular_values)`."""

def cdist_direct(x1: Tensor, x2: Tensor, p: builtins.float = 2.0) -> Tensor:
    """Pairwise `p`-norm distances, pair by pair."""

def _euclidean_dist(x1: Tensor, x2: Tensor) -> Tensor:
    """Euclidean distances through a matrix product."""

def mse_loss(input: Tensor, target: Tensor, reduction: builtins.str = "mean") -> Tensor:
    """Mean squared error (`MseLossBackward0`)."""

def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: builtins.str = "mean",
    delta: builtins.float = 1.0,
) -> Tensor:
    """Huber loss (`HuberLossBackward0`)."""

def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    reduction: builtins.str = "mean",
    beta: builtins.float = 1.0,
) -> Tensor:
    """Smooth L1 loss (`SmoothL1LossBackward0`)."""

def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: builtins.str = "mean",
) -> Tensor:
    """Binary cross-entropy of probabilities (`BinaryCrossEntropyBackward0`)."""

def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: builtins.str = "mean",
) -> Tensor:
    """Binary cross-entropy of logits (`BinaryCrossEntropyWithLogitsBackward0`)."""

def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    reduction: builtins.str = "mean",
    ignore_index: builtins.int = ...,
) -> Tensor:
    """Negative log-likelihood of class indices (`NllLossBackward0`)."""

def hardtanh(input: Tensor, min_val: builtins.float, max_val: builtins.float) -> Tensor:
    """Hardtanh (`HardtanhBackward0`)."""

def threshold(input: Tensor, threshold: builtins.float, value: builtins.float) -> Tensor:
    """`threshold(input, threshold, value)`: `x` where `x > threshold`, else `value`
    (`ThresholdBackward0`)."""

def threshold_(input: Tensor, threshold: builtins.float, value: builtins.float) -> Tensor:
    """`threshold_(input, threshold, value)`: `threshold` in place (`ThresholdBackward1`); returns
    `input`."""

def celu(input: Tensor, alpha: builtins.float) -> Tensor:
    """CELU (`CeluBackward0`)."""

def hardshrink(input: Tensor, lambd: builtins.float) -> Tensor:
    """Hard shrinkage (`HardshrinkBackward0`)."""

def softshrink(input: Tensor, lambd: builtins.float) -> Tensor:
    """Soft shrinkage (`SoftshrinkBackward0`)."""

def glu(input: Tensor, dim: builtins.int) -> Tensor:
    """Gated linear unit along `dim` (`GluBackward0`)."""

def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Parametric ReLU (`PreluKernelBackward0`)."""

def rrelu(
    input: Tensor,
    lower: builtins.float,
    upper: builtins.float,
    training: builtins.bool,
    generator: Any | None = None,
) -> Tensor:
    """Randomized leaky ReLU (`RreluWithNoiseBackward0`): random slopes in training, their mean
    in evaluation."""

def selu(input: Tensor) -> Tensor:
    """SELU (`EluBackward0`)."""

def hardsigmoid(input: Tensor) -> Tensor:
    """Hardsigmoid (`HardsigmoidBackward0`)."""

def hardswish(input: Tensor) -> Tensor:
    """Hardswish (`HardswishBackward0`)."""

def mish(input: Tensor) -> Tensor:
    """Mish (`MishBackward0`)."""

def logsigmoid(input: Tensor) -> Tensor:
    """Log-sigmoid (`LogSigmoidBackward0`)."""

def lstm_cell(
    input: Tensor,
    hx: Tensor,
    cx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """One LSTM step: `(h', c')` (one node, `LstmCellBackward0`)."""

def lstm_layer(
    input: Tensor,
    hx: Tensor,
    cx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor, Tensor]:
    """An LSTM layer over a `[steps, batch, input]` sequence: `(output, h_n, c_n)` (one node)."""

def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """One GRU step (one node, `GruCellBackward0`)."""

def rnn_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
    relu: builtins.bool = False,
) -> Tensor:
    """One Elman RNN step with tanh or relu (one node)."""

def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    bias: Tensor | None,
    is_causal: builtins.bool,
    scale: builtins.float,
) -> Tensor:
    """Adds the activation and loss functions to the module.
    `scaled_dot_product_attention(query, key, value, bias, is_causal, scale)`: fused attention
    over the same leading dims, `bias` an additive float mask (see
    [`Tensor::scaled_dot_product_attention`]); the GIL is released while it runs."""

def _embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: builtins.int | None = None,
    scale_grad_by_freq: builtins.bool = False,
    sparse: builtins.bool = False,
) -> Tensor:
    """`F.embedding`'s core: the rows of `weight` at `indices` (`EmbeddingBackward0`; no
    gradient for the row `padding_idx`; each row's gradient divided by its count when
    `scale_grad_by_freq`). The argument checks and `max_norm` are in `nn.functional`."""

def _embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    mode: builtins.int,
    per_sample_weights: Tensor | None = None,
    include_last_offset: builtins.bool = False,
    padding_idx: builtins.int | None = None,
    scale_grad_by_freq: builtins.bool = False,
    sparse: builtins.bool = False,
) -> Tensor:
    """`embedding_bag(weight, indices, offsets, mode, ...)` (`EmbeddingBagBackward0`): one row
    per bag of the weight's rows at the 1-D `indices`, cut into bags by `offsets` and reduced
    by `mode` (0 sum, 1 mean, 2 max). The argument order and the 2-D input are `nn.functional`'s."""

def pixel_shuffle(input: Tensor, upscale_factor: builtins.int) -> Tensor:
    """`(*, C·r², H, W) → (*, C, H·r, W·r)`: `torch.pixel_shuffle` (`PixelShuffleBackward0`)."""

def pixel_unshuffle(input: Tensor, downscale_factor: builtins.int) -> Tensor:
    """`(*, C, H·r, W·r) → (*, C·r², H, W)`: `torch.pixel_unshuffle` (`PixelUnshuffleBackward0`)."""

def _node_class(name: builtins.str) -> builtins.type[Node]:
    """`_node_class(name)`: the class of the nodes named `name` (a custom Function's
    `_backward_cls`)."""

def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[builtins.int],
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: builtins.float = 1e-5,
) -> Tensor:
    """Layer normalization over the trailing `normalized_shape` (`NativeLayerNormBackward0`)."""

def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: builtins.bool = True,
    momentum: builtins.float = 0.1,
    eps: builtins.float = 1e-5,
) -> Tensor:
    """`instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum,
    eps)`: each sample's channel normalized over its spatial positions (see
    [`Tensor::instance_norm`])."""

def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: builtins.bool = False,
    momentum: builtins.float = 0.1,
    eps: builtins.float = 1e-5,
) -> Tensor:
    """Batch normalization per channel, updating given running statistics in training
    (`NativeBatchNormBackward0`)."""

def group_norm(
    input: Tensor,
    num_groups: builtins.int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: builtins.float = 1e-5,
) -> Tensor:
    """Group normalization (`NativeGroupNormBackward0`)."""

def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[builtins.int],
    weight: Tensor | None = None,
    eps: builtins.float | None = None,
) -> Tensor:
    """RMS normalization over the trailing `normalized_shape` (PyTorch's composite graph)."""

def _optim_step(
    name: builtins.str,
    params: list[Tensor],
    grads: list[Tensor],
    states: list[dict[builtins.str, Any]],
    hyper: dict[builtins.str, builtins.float],
) -> list[dict[builtins.str, Tensor] | None]:
    """One step of the optimizer rule `name` over a parameter group: each parameter with its
    gradient and its `state[p]` dict (tensors updated in place, `state["step"]` advanced in
    place). Returns, per parameter, a dict of the entries to add to its state (the tensors the
    rule made, such as SGD's momentum buffer on its first step), or None."""

def _with_out(
    op: builtins.str,
    out: Tensor | None,
    inputs: Sequence[Any],
    compute: Callable[[], Any],
) -> Any:
    """`_with_out(op, out, inputs, compute)`: PyTorch's `out=` for functions written in Python:
    `compute()` is called and its result copied into `out` (when given), with the refusals of
    [`with_out`] (an input requiring grad, a shape or dtype `out` cannot take)."""

def polygamma(n: builtins.int, input: Tensor) -> Tensor:
    """`torch.polygamma(n, input)`: the `n`-th derivative of digamma (PyTorch puts `n` first)."""

def _special_i1(input: Tensor) -> Tensor:
    """`torch.special.i1(input)`: the modified Bessel function of the first kind of order 1."""

def _special_i0e(input: Tensor) -> Tensor:
    """`torch.special.i0e(input)`: `e^{-|x|} i0(x)`."""

def _special_i1e(input: Tensor) -> Tensor:
    """`torch.special.i1e(input)`: `e^{-|x|} i1(x)`."""

def _profiler_start() -> None:
    """Starts recording events (ops called from Python, backward nodes, labelled ranges)."""

def _profiler_stop() -> list[tuple[builtins.str, builtins.float, builtins.float, builtins.float, builtins.int, builtins.int, builtins.int, builtins.int, list[list[builtins.int]] | None]]:  # noqa: E501
    """Stops recording; returns the events in the order they finished."""

def _profiler_push(name: builtins.str) -> None:
    """Opens a labelled range on this thread (`record_function.__enter__`)."""

def _profiler_pop() -> None:
    """Closes the innermost range on this thread (`record_function.__exit__`)."""

def _profiler_note_inputs(shapes: list[list[builtins.int]] | None) -> None:
    """Notes the argument shapes of the op about to be called (`record_shapes`): the next event
    this thread opens takes them; `None` forgets them."""

def _profiler_enabled() -> builtins.bool:
    """Whether the profiler is recording."""

def manual_seed(seed: builtins.int) -> Generator:
    """Seeds the default generator; returns it."""

def seed() -> builtins.int:
    """Reseeds the default generator from the operating system's randomness; returns the seed."""

def initial_seed() -> builtins.int:
    """The seed the default generator's stream started from."""

@overload
def rand(
    size: Sequence[builtins.int],
    /,
    *,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Uniform samples in [0, 1)."""

@overload
def rand(
    *size: builtins.int,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

@overload
def randn(
    size: Sequence[builtins.int],
    /,
    *,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """Standard normal samples."""

@overload
def randn(
    *size: builtins.int,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor: ...

def randint(
    *args: builtins.int | Sequence[builtins.int],
    low: builtins.int | None = None,
    high: builtins.int | None = None,
    size: Sequence[builtins.int] | None = None,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`randint(high, size)` or `randint(low, high, size)`: integers uniform in `[low, high)`
    (int64 unless `dtype` says otherwise)."""

def randperm(
    n: builtins.int,
    *,
    generator: Generator | None = None,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`randperm(n)`: a random permutation of `0..n` (int64 unless `dtype` says otherwise)."""

def bernoulli(
    input: Tensor,
    p: builtins.float | None = None,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """`bernoulli(input, p=None, *, generator=None)`: 0/1 samples with the probabilities in
    `input` (or the number `p` for every element)."""

def multinomial(
    input: Tensor,
    num_samples: builtins.int,
    replacement: builtins.bool = False,
    *,
    generator: Generator | None = None,
) -> Tensor:
    """`multinomial(input, num_samples, replacement=False, *, generator=None)`: class indices
    drawn with the weights in each row of `input`."""

def searchsorted(
    sorted_sequence: Tensor,
    input: Tensor | builtins.float,
    *,
    out_int32: builtins.bool = False,
    right: builtins.bool = False,
    side: builtins.str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """`torch.searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
    sorter=None)`: where each value would go to keep the rows sorted."""

def bucketize(
    input: Tensor | builtins.float,
    boundaries: Tensor,
    *,
    out_int32: builtins.bool = False,
    right: builtins.bool = False,
) -> Tensor:
    """`torch.bucketize(input, boundaries, *, out_int32=False, right=False)`: the bucket of each
    value among the 1-D sorted `boundaries`."""

def _set_printoptions(
    precision: builtins.int,
    threshold: builtins.float,
    edgeitems: builtins.int,
    linewidth: builtins.int,
    sci_mode: builtins.bool | None,
) -> None:
    """Sets every print option (`torch.set_printoptions` fills in the ones not given)."""

def _get_printoptions() -> tuple[builtins.int, builtins.float, builtins.int, builtins.int, builtins.bool | None]:  # noqa: E501
    """The print options in effect: `(precision, threshold, edgeitems, linewidth, sci_mode)`."""

def _set_default_dtype(dtype: Any) -> None:
    """Sets the default floating dtype (float32 or float64)."""

def _get_default_dtype() -> dtype:
    """The default floating dtype."""

def set_num_threads(threads: builtins.int) -> None:
    """Sets the number of threads used by parallel kernels (matmul, large elementwise ops)."""

def promote_types(type1: dtype, type2: dtype) -> dtype:
    """`torch.promote_types`: the dtype both convert to (see [`DType::promote`])."""

def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """`torch.can_cast`: whether PyTorch's casting rules let `from_` be written into `to` in place
    (never to a lower category: float to integer, integer to bool)."""

def result_type(tensor: Any, other: Any) -> dtype:
    """`torch.result_type`: the dtype an arithmetic op on `tensor` and `other` (each a tensor or a
    number) gives."""

def get_num_threads() -> builtins.int:
    """The number of threads used by parallel kernels."""

def is_grad_enabled() -> builtins.bool:
    """Whether this thread records autograd history."""

def _set_grad_enabled(enabled: builtins.bool) -> builtins.bool:
    """Sets grad mode for this thread; returns the previous mode."""

def _is_view_replay_enabled() -> builtins.bool:
    """Whether views made on this thread replay their own view ops when an in-place write makes
    their history stale (`torch.autograd.is_view_replay_enabled`)."""

def _set_view_replay_enabled(enabled: builtins.bool) -> builtins.bool:
    """Sets view replay for this thread; returns the previous setting."""

def _set_warn_always(b: builtins.bool) -> None:
    """`torch.set_warn_always(b)`: warnings PyTorch gives once per process are given every time."""

def _is_warn_always_enabled() -> builtins.bool:
    """`torch.is_warn_always_enabled()`."""

def _set_inference_mode(enabled: builtins.bool) -> tuple[builtins.bool, builtins.bool]:
    """Enters or leaves inference mode on this thread (grad mode set to the opposite); returns the
    previous (grad mode, inference mode) for `_restore_inference_mode`."""

def _restore_inference_mode(grad: builtins.bool, inference: builtins.bool) -> None:
    """Restores what `_set_inference_mode` returned."""

def is_inference_mode_enabled() -> builtins.bool:
    """Whether this thread is in inference mode."""

def is_multithreading_enabled() -> builtins.bool:
    """Whether the engine may run independent branches of a backward pass on several threads."""

def _set_autograd_logging(enabled: builtins.bool) -> None:
    """Turns the engine's log on or off (see [`autograd_logging`])."""

def _set_multithreading_enabled(enabled: builtins.bool) -> None:
    """Allows or forbids running a backward pass's independent branches on several threads."""

def sparse_coo_tensor(
    indices: Any,
    values: Any,
    size: Sequence[builtins.int] | None = None,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    pin_memory: builtins.bool = False,
    requires_grad: builtins.bool = False,
    check_invariants: builtins.bool | None = None,
    is_coalesced: builtins.bool | None = None,
) -> Tensor:
    """`torch.sparse_coo_tensor(indices, values, size=None)`: a sparse COO tensor holding `values`
    at `indices` (one row per sparse dimension); without `size`, each sparse dimension is one
    more than its largest index."""

def _sparse_mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """`torch.sparse.mm(mat1, mat2)`: the product, a sparse `mat1`'s gradient sparse
    (`SparseAddmmBackward0`)."""

def _meta_tensor(
    size: list[builtins.int],
    strides: list[builtins.int],
    dtype: Any,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`_core._meta_tensor(size, strides, dtype, requires_grad)`: a tensor on the meta device."""

def remainder(input: _Operand, other: _Operand) -> Tensor:
    """`torch.remainder(input, other)`: Python's modulus, either side may be a number."""

def floor_divide(input: _Operand, other: _Operand) -> Tensor:
    """`torch.floor_divide(input, other)`: the quotient rounded down, either side a number."""

def eye(
    n: builtins.int,
    m: builtins.int | None = None,
    *,
    dtype: _DTypeLike | None = None,
    device: _Device | None = None,
    requires_grad: builtins.bool = False,
) -> Tensor:
    """`torch.eye(n, m=None)`: the identity matrix (ones on the main diagonal)."""

def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """`nn.functional.linear(input, weight, bias=None)`: `input @ weight.T + bias`, recorded
    as PyTorch records it (`AddmmBackward0` for a 2-D input with a bias)."""

def svdvals(input: Tensor) -> Tensor:
    """`linalg.svdvals(A)`: the singular values of each matrix, descending."""
# </generated: bindings>
