"""The layer classes of ``nn`` (re-exported there)."""

from . import utils as utils  # torch.nn.modules.utils, reached as an attribute
from .activation import (
    CELU,
    ELU,
    GELU,
    SELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Softsign,
    Tanh,
    Threshold,
)
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import *  # noqa: F403
from .conv import __all__ as _conv_names
from .dropout import (
    AlphaDropout,
    Dropout,
    Dropout1d,
    Dropout2d,
    Dropout3d,
    FeatureAlphaDropout,
)
from .flatten import Flatten, Unflatten
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Bilinear, Identity, Linear
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    TripletMarginLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .pixelshuffle import PixelShuffle, PixelUnshuffle
from .pooling import *  # noqa: F403
from .pooling import __all__ as _pooling_names
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding, EmbeddingBag
from .transformer import *  # noqa: F403
from .transformer import __all__ as _transformer_names
from .upsampling import *  # noqa: F403
from .upsampling import __all__ as _upsampling_names

__all__ = [
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "RNNBase",
    "RNNCell",
    "RNNCellBase",
    "BCELoss",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "BCEWithLogitsLoss",
    "Bilinear",
    "CELU",
    "CosineEmbeddingLoss",
    "CrossEntropyLoss",
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
    "ELU",
    "Embedding",
    "EmbeddingBag",
    "Flatten",
    "GELU",
    "GroupNorm",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "HuberLoss",
    "Identity",
    "Threshold",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "InstanceNorm3d",
    "KLDivLoss",
    "L1Loss",
    "LayerNorm",
    "LeakyReLU",
    "Linear",
    "LogSigmoid",
    "LogSoftmax",
    "MSELoss",
    "PixelShuffle",
    "PixelUnshuffle",
    "MarginRankingLoss",
    "Mish",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ParameterDict",
    "ParameterList",
    "RMSNorm",
    "ReLU",
    "ReLU6",
    "SELU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Softsign",
    "Tanh",
    "TripletMarginLoss",
    "Unflatten",
]
__all__ += [*_conv_names, *_pooling_names, *_transformer_names, *_upsampling_names]
