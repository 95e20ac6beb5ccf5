"""ferrograd: reverse-mode automatic differentiation in Rust, with PyTorch's autograd API.

``import ferrograd as torch`` runs autograd code written for PyTorch (for what ferrograd covers).
"""

import builtins as _builtins
import sys as _sys

from . import _C as _C  # torch._C: the Generator class lives there, as in PyTorch
from . import _VF as _VF  # torch._VF: internal functions that tests call
from . import _core
from ._core import (
    Generator,
    Tensor,
    arange,
    bernoulli,
    bool,
    bucketize,
    can_cast,
    cat,
    default_generator,
    double,
    dtype,
    empty,
    empty_strided,
    eye,
    float,
    float32,
    float64,
    from_dlpack,
    from_numpy,
    full,
    get_num_threads,
    initial_seed,
    int8,
    int16,
    int32,
    int64,
    is_grad_enabled,
    linspace,
    long,
    manual_seed,
    multinomial,
    ones,
    ones_like,
    promote_types,
    rand,
    randint,
    randn,
    randperm,
    result_type,
    searchsorted,
    seed,
    set_num_threads,
    short,
    sparse_coo_tensor,
    stack,
    tensor,
    uint8,
    zeros,
    zeros_like,
)
from ._grad_mode import enable_grad, no_grad, set_grad_enabled


class Size(tuple):
    """The shape of a tensor: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self):
        return f"torch.Size({list(self)!r})"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, index):
        """An element, or (for a slice) a ``Size`` of the elements, as PyTorch's."""
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other):
        """The concatenation, a ``Size`` (``other`` a tuple)."""
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):
        """``tuple + Size``: a ``Size``, as PyTorch's."""
        return Size(tuple(other) + tuple(self))

    def __mul__(self, times):
        """Repeated ``times`` times, a ``Size``."""
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__


_core._register_size(Size)

from . import _hooks, _ops  # noqa: E402
from . import _logging as _logging  # noqa: E402
from ._ops import ops as ops  # noqa: E402

_core._register_types(
    {
        "RemovableHandle": _hooks.RemovableHandle,
        "op_overload": _ops.op_overload,
        **_hooks.RETURN_TYPES,
    }
)

# Function forms of tensor methods: the Rust methods themselves, no Python wrapper in between.
# <generated: functions> written by tools/gen_surface.py from the tables
abs = _core.abs
acos = _core.acos
acosh = _core.acosh
add = Tensor.add
addcdiv = Tensor.addcdiv
addcmul = Tensor.addcmul
addmm = Tensor.addmm
addmv = Tensor.addmv
all = Tensor.all
allclose = Tensor.allclose
amax = Tensor.amax
amin = Tensor.amin
aminmax = Tensor.aminmax
any = Tensor.any
argmax = Tensor.argmax
argmin = Tensor.argmin
argsort = Tensor.argsort
argwhere = Tensor.argwhere
as_strided = Tensor.as_strided
asin = _core.asin
asinh = _core.asinh
atan = _core.atan
atan2 = _core.atan2
atanh = _core.atanh
baddbmm = Tensor.baddbmm
bitwise_and = Tensor.bitwise_and
bitwise_left_shift = Tensor.bitwise_left_shift
bitwise_not = Tensor.bitwise_not
bitwise_or = Tensor.bitwise_or
bitwise_right_shift = Tensor.bitwise_right_shift
bitwise_xor = Tensor.bitwise_xor
bmm = Tensor.bmm
broadcast_to = Tensor.broadcast_to
ceil = _core.ceil
chunk = Tensor.chunk
clamp = Tensor.clamp
clip = Tensor.clip
clone = Tensor.clone
cos = _core.cos
cosh = _core.cosh
count_nonzero = Tensor.count_nonzero
cross = Tensor.cross
cummax = Tensor.cummax
cummin = Tensor.cummin
cumprod = Tensor.cumprod
cumsum = Tensor.cumsum
detach = Tensor.detach
diag = Tensor.diag
diagonal = Tensor.diagonal
digamma = _core.digamma
div = Tensor.div
dot = Tensor.dot
equal = Tensor.equal
erf = _core.erf
erfc = _core.erfc
erfinv = _core.erfinv
exp = _core.exp
exp2 = _core.exp2
expm1 = _core.expm1
flatten = Tensor.flatten
flip = Tensor.flip
floor = _core.floor
floor_divide = _core.floor_divide
fmod = Tensor.fmod
frac = _core.frac
gather = Tensor.gather
hypot = _core.hypot
i0 = _core.i0
index_add = Tensor.index_add
index_copy = Tensor.index_copy
index_fill = Tensor.index_fill
index_reduce = Tensor.index_reduce
index_select = Tensor.index_select
isclose = Tensor.isclose
isfinite = Tensor.isfinite
isin = _core.isin
isinf = Tensor.isinf
isnan = Tensor.isnan
kthvalue = Tensor.kthvalue
lerp = Tensor.lerp
lgamma = _core.lgamma
log = _core.log
log10 = _core.log10
log1p = _core.log1p
log2 = _core.log2
log_softmax = Tensor.log_softmax
logaddexp = Tensor.logaddexp
logaddexp2 = Tensor.logaddexp2
logical_and = Tensor.logical_and
logical_not = Tensor.logical_not
logical_or = Tensor.logical_or
logical_xor = Tensor.logical_xor
logit = Tensor.logit
logsumexp = Tensor.logsumexp
masked_fill = Tensor.masked_fill
masked_select = Tensor.masked_select
matmul = Tensor.matmul
max = Tensor.max
maximum = Tensor.maximum
mean = Tensor.mean
median = Tensor.median
min = Tensor.min
minimum = Tensor.minimum
mm = Tensor.mm
mode = Tensor.mode
mul = Tensor.mul
mv = Tensor.mv
nan_to_num = Tensor.nan_to_num
nan_to_num_ = Tensor.nan_to_num_
nanmedian = Tensor.nanmedian
nansum = Tensor.nansum
narrow = Tensor.narrow
neg = _core.neg
nonzero = Tensor.nonzero
norm = Tensor.norm
numel = Tensor.numel
outer = Tensor.outer
permute = Tensor.permute
polygamma = _core.polygamma
pow = _core.pow
prod = Tensor.prod
reciprocal = _core.reciprocal
relu = _core.relu
remainder = _core.remainder
reshape = Tensor.reshape
roll = Tensor.roll
round = _core.round
rsqrt = _core.rsqrt
scatter = Tensor.scatter
scatter_add = Tensor.scatter_add
scatter_reduce = Tensor.scatter_reduce
select = Tensor.select
sigmoid = _core.sigmoid
sign = _core.sign
signbit = Tensor.signbit
sin = _core.sin
sinh = _core.sinh
softmax = Tensor.softmax
sort = Tensor.sort
split = Tensor.split
split_with_sizes = Tensor.split_with_sizes
sqrt = _core.sqrt
square = Tensor.square
squeeze = Tensor.squeeze
std = Tensor.std
std_mean = _core.std_mean
sub = Tensor.sub
sum = Tensor.sum
t = Tensor.t
take_along_dim = Tensor.take_along_dim
tan = _core.tan
tanh = _core.tanh
threshold = _core.threshold
threshold_ = _core.threshold_
topk = Tensor.topk
trace = Tensor.trace
transpose = Tensor.transpose
tril = Tensor.tril
triu = Tensor.triu
trunc = _core.trunc
unbind = Tensor.unbind
unique = Tensor.unique
unique_consecutive = Tensor.unique_consecutive
unsafe_chunk = Tensor.unsafe_chunk
unsafe_split = Tensor.unsafe_split
unsafe_split_with_sizes = Tensor.unsafe_split_with_sizes
unsqueeze = Tensor.unsqueeze
var = Tensor.var
var_mean = _core.var_mean
where = _core.where
xlogy = _core.xlogy
# </generated: functions>


def _unique(input, sorted=True, return_inverse=False):
    """The internal op behind ``unique``: ``(values, inverse)``, the inverse empty unless
    asked for."""
    values, inverse = input.unique(sorted=sorted, return_inverse=True)
    return values, inverse if return_inverse else empty(0, dtype=int64)


def _unique2(input, sorted=True, return_inverse=False, return_counts=False):
    """The internal op behind ``unique``: ``(values, inverse, counts)``, each of the last two
    empty unless asked for."""
    values, inverse, counts = input.unique(sorted=sorted, return_inverse=True, return_counts=True)
    none = empty(0, dtype=int64)
    return values, inverse if return_inverse else none, counts if return_counts else none


clamp_min = Tensor.clamp_min
clamp_max = Tensor.clamp_max
lt, le, gt, ge, eq, ne = Tensor.lt, Tensor.le, Tensor.gt, Tensor.ge, Tensor.eq, Tensor.ne


def set_anomaly_enabled(enabled: _builtins.bool, check_nan: _builtins.bool = True) -> None:
    """Turns anomaly detection on or off (``autograd.detect_anomaly`` as a plain switch)."""
    _core._set_anomaly_enabled(_builtins.bool(enabled), _builtins.bool(check_nan))


is_anomaly_enabled = _core.is_anomaly_enabled
is_anomaly_check_nan_enabled = _core.is_anomaly_check_nan_enabled


def set_warn_always(b: _builtins.bool) -> None:
    """Gives the warnings PyTorch gives once per process every time (``True``) or once."""
    _core._set_warn_always(_builtins.bool(b))


def is_warn_always_enabled() -> _builtins.bool:
    """Whether ``set_warn_always(True)`` is in effect."""
    return _core._is_warn_always_enabled()


def _nnpack_available() -> _builtins.bool:
    """False: ferrograd's convolutions have no NNPACK path (PyTorch's private query, which its
    own tests and some programs call to pick a backend)."""
    return False


from . import __future__ as __future__  # noqa: E402
from . import _dynamo as _dynamo  # noqa: E402  (torch._dynamo: compile is eager here)
from . import (  # noqa: E402
    _meta,
    amp,
    autograd,
    backends,
    cuda,
    distributed,
    distributions,
    func,
    linalg,
    multiprocessing,
    nn,
    onnx,
    optim,
    overrides,
    profiler,
    random,
    return_types,
    sparse,
    special,
    testing,
    utils,
    viz,
)
from ._aliases import _install as _install_aliases  # noqa: E402
from ._composites import (  # noqa: E402
    _install as _install_composites,
)
from ._composites import (  # noqa: E402
    _weight_norm as _weight_norm,  # torch._weight_norm: internal, used by weight_norm
)
from ._composites import (  # noqa: E402
    atleast_1d,
    atleast_2d,
    atleast_3d,
    column_stack,
    concat,
    concatenate,
    constant_pad_nd,
    diff,
    dsplit,
    dstack,
    fliplr,
    flipud,
    hsplit,
    hstack,
    inner,
    kron,
    moveaxis,
    movedim,
    msort,
    norm_except_dim,
    ravel,
    repeat_interleave,
    rot90,
    row_stack,
    swapaxes,
    swapdims,
    tensor_split,
    tensordot,
    tile,
    unflatten,
    vsplit,
    vstack,
)
from ._dtype_info import finfo, iinfo  # noqa: E402
from ._lobpcg import lobpcg  # noqa: E402
from ._realness import _install as _install_realness  # noqa: E402
from ._shared_memory import _install as _install_shared_memory  # noqa: E402
from .func import vmap  # noqa: E402
from .sparse import spmm  # noqa: E402

# torch.int is int32, as in PyTorch (this module uses no builtin int)
int = _core.int
from ._creation import (  # noqa: E402
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
    as_tensor,
    empty_like,
    full_like,
    get_default_dtype,
    get_rng_state,
    inference_mode,
    is_inference,
    is_inference_mode_enabled,
    normal,
    rand_like,
    randint_like,
    randn_like,
    set_default_dtype,
    set_printoptions,
    set_rng_state,
)
from ._device import accelerator, device  # noqa: E402
from ._foreach import _install as _install_foreach  # noqa: E402
from ._global_flags import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    compile,
    get_default_device,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_default_device,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from ._histogram import histc, histogram  # noqa: E402
from ._layout import (  # noqa: E402
    _install as _install_layout,
)
from ._layout import (  # noqa: E402
    _mkldnn as _mkldnn,
)
from ._layout import (  # noqa: E402
    jagged,
    layout,
    sparse_bsc,
    sparse_bsr,
    sparse_coo,
    sparse_csc,
    sparse_csr,
    strided,
)
from ._linalg_functions import (  # noqa: E402
    cdist,
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    det,
    inverse,
    logdet,
    matrix_exp,
    matrix_power,
    pinverse,
    slogdet,
    svd,
)
from ._memory_format import (  # noqa: E402
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)
from ._numeric import _install as _install_numeric  # noqa: E402
from ._numeric import bincount, nanmean, tril_indices, triu_indices  # noqa: E402
from ._tensor_functions import broadcast_tensors, einsum, meshgrid  # noqa: E402

_install_composites()
_install_aliases(globals(), Tensor)
_install_realness(globals(), Tensor)
_meta._install(_sys.modules[__name__])
_install_shared_memory()
_install_numeric()
_install_layout(Tensor)
pixel_shuffle = _core.pixel_shuffle
pixel_unshuffle = _core.pixel_unshuffle
from .amp import autocast  # noqa: E402
from .serialization import load, save  # noqa: E402

_install_foreach(globals())


# PyTorch's numeric constants (``torch.inf``, ``torch.pi``, ...), Python floats as there.
inf = _builtins.float("inf")
nan = _builtins.float("nan")
e = 2.718281828459045
pi = 3.141592653589793
newaxis = None


from ._typename import typename  # noqa: E402


def is_tensor(obj) -> _builtins.bool:
    """True if ``obj`` is a ferrograd tensor."""
    return isinstance(obj, Tensor)


__version__ = "0.1.0"

# <generated: __all__> written by tools/gen_surface.py from the tables
__all__ = [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "Generator",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "Size",
    "Tensor",
    "__future__",
    "abs",
    "absolute",
    "accelerator",
    "acos",
    "acosh",
    "add",
    "addcdiv",
    "addcmul",
    "addmm",
    "addmv",
    "all",
    "allclose",
    "amax",
    "amin",
    "aminmax",
    "amp",
    "any",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "are_deterministic_algorithms_enabled",
    "argmax",
    "argmin",
    "argsort",
    "argwhere",
    "as_strided",
    "as_tensor",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "autocast",
    "autograd",
    "backends",
    "baddbmm",
    "bernoulli",
    "bincount",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "bmm",
    "bool",
    "broadcast_tensors",
    "broadcast_to",
    "bucketize",
    "can_cast",
    "cat",
    "cdist",
    "ceil",
    "channels_last",
    "channels_last_3d",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "chunk",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "column_stack",
    "compile",
    "concat",
    "concatenate",
    "conj",
    "conj_physical",
    "constant_pad_nd",
    "contiguous_format",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_tbc",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
    "cos",
    "cosh",
    "cosine_similarity",
    "count_nonzero",
    "cross",
    "cuda",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "default_generator",
    "det",
    "detach",
    "device",
    "diag",
    "diagonal",
    "diff",
    "digamma",
    "distributed",
    "distributions",
    "div",
    "divide",
    "dot",
    "double",
    "dsplit",
    "dstack",
    "dtype",
    "einsum",
    "empty",
    "empty_like",
    "empty_strided",
    "enable_grad",
    "eq",
    "equal",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "eye",
    "finfo",
    "fix",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "float",
    "float32",
    "float64",
    "floor",
    "floor_divide",
    "fmod",
    "frac",
    "from_dlpack",
    "from_numpy",
    "full",
    "full_like",
    "func",
    "gather",
    "ge",
    "ger",
    "get_default_device",
    "get_default_dtype",
    "get_float32_matmul_precision",
    "get_num_threads",
    "get_rng_state",
    "greater",
    "greater_equal",
    "gt",
    "hardshrink",
    "histc",
    "histogram",
    "hsplit",
    "hstack",
    "hypot",
    "i0",
    "iinfo",
    "index_add",
    "index_copy",
    "index_fill",
    "index_reduce",
    "index_select",
    "inference_mode",
    "initial_seed",
    "inner",
    "int",
    "int16",
    "int32",
    "int64",
    "int8",
    "inverse",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_complex",
    "is_conj",
    "is_deterministic_algorithms_warn_only_enabled",
    "is_floating_point",
    "is_grad_enabled",
    "is_inference",
    "is_inference_mode_enabled",
    "is_neg",
    "is_tensor",
    "is_warn_always_enabled",
    "isclose",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "jagged",
    "kron",
    "kthvalue",
    "layout",
    "le",
    "lerp",
    "less",
    "less_equal",
    "lgamma",
    "linalg",
    "linspace",
    "load",
    "lobpcg",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logaddexp",
    "logaddexp2",
    "logdet",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logsumexp",
    "long",
    "lt",
    "manual_seed",
    "masked_fill",
    "masked_select",
    "matmul",
    "matrix_exp",
    "matrix_power",
    "max",
    "maximum",
    "mean",
    "median",
    "memory_format",
    "meshgrid",
    "min",
    "minimum",
    "mm",
    "mode",
    "moveaxis",
    "movedim",
    "msort",
    "mul",
    "multinomial",
    "multiply",
    "multiprocessing",
    "mv",
    "nan_to_num",
    "nan_to_num_",
    "nanmean",
    "nanmedian",
    "nansum",
    "narrow",
    "ne",
    "neg",
    "negative",
    "nn",
    "no_grad",
    "nonzero",
    "norm",
    "norm_except_dim",
    "normal",
    "not_equal",
    "numel",
    "ones",
    "ones_like",
    "onnx",
    "optim",
    "outer",
    "overrides",
    "pairwise_distance",
    "pdist",
    "permute",
    "pinverse",
    "pixel_shuffle",
    "pixel_unshuffle",
    "polygamma",
    "pow",
    "prelu",
    "preserve_format",
    "prod",
    "profiler",
    "promote_types",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "random",
    "randperm",
    "ravel",
    "reciprocal",
    "relu",
    "remainder",
    "repeat_interleave",
    "reshape",
    "resolve_conj",
    "resolve_neg",
    "result_type",
    "return_types",
    "roll",
    "rot90",
    "round",
    "row_stack",
    "rrelu",
    "rsqrt",
    "save",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "searchsorted",
    "seed",
    "select",
    "set_anomaly_enabled",
    "set_default_device",
    "set_default_dtype",
    "set_float32_matmul_precision",
    "set_grad_enabled",
    "set_num_threads",
    "set_printoptions",
    "set_rng_state",
    "set_warn_always",
    "sgn",
    "short",
    "sigmoid",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "slogdet",
    "softmax",
    "sort",
    "sparse",
    "sparse_bsc",
    "sparse_bsr",
    "sparse_coo",
    "sparse_coo_tensor",
    "sparse_csc",
    "sparse_csr",
    "special",
    "split",
    "split_with_sizes",
    "spmm",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "std_mean",
    "strided",
    "sub",
    "subtract",
    "sum",
    "svd",
    "swapaxes",
    "swapdims",
    "t",
    "take_along_dim",
    "tan",
    "tanh",
    "tensor",
    "tensor_split",
    "tensordot",
    "testing",
    "threshold",
    "threshold_",
    "tile",
    "topk",
    "trace",
    "transpose",
    "tril",
    "tril_indices",
    "triu",
    "triu_indices",
    "true_divide",
    "trunc",
    "typename",
    "uint8",
    "unbind",
    "unflatten",
    "unique",
    "unique_consecutive",
    "unsafe_chunk",
    "unsafe_split",
    "unsafe_split_with_sizes",
    "unsqueeze",
    "use_deterministic_algorithms",
    "utils",
    "var",
    "var_mean",
    "viz",
    "vmap",
    "vsplit",
    "vstack",
    "where",
    "xlogy",
    "zeros",
    "zeros_like",
]
# </generated: __all__>
