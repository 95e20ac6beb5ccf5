"""The layer classes of ``nn`` (re-exported there)."""

from . import utils as utils  # torch.nn.modules.utils, reached as an attribute
from .activation import (
    CELU,
    ELU,
    GELU,
    GLU,
    SELU,
    Hardshrink,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LeakyReLU,
    LogSigmoid,
    LogSoftmax,
    Mish,
    PReLU,
    ReLU,
    ReLU6,
    RReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softmin,
    Softplus,
    Softshrink,
    Softsign,
    Tanh,
    Tanhshrink,
    Threshold,
)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import *  # noqa: F403
from .conv import __all__ as _conv_names
from .distance import CosineSimilarity, PairwiseDistance
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
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .normalization import GroupNorm, LayerNorm, RMSNorm
from .padding import *  # noqa: F403
from .padding import __all__ as _padding_names
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
    "Softmin",
    "TripletMarginWithDistanceLoss",
    "CosineSimilarity",
    "PairwiseDistance",
    "SoftMarginLoss",
    "PoissonNLLLoss",
    "MultiMarginLoss",
    "MultiLabelSoftMarginLoss",
    "MultiLabelMarginLoss",
    "HingeEmbeddingLoss",
    "GaussianNLLLoss",
    "AdaptiveLogSoftmaxWithLoss",
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
    "GLU",
    "Hardshrink",
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
    "PReLU",
    "Module",
    "ModuleDict",
    "ModuleList",
    "NLLLoss",
    "ParameterDict",
    "ParameterList",
    "RMSNorm",
    "ReLU",
    "ReLU6",
    "RReLU",
    "SELU",
    "Sequential",
    "SiLU",
    "Sigmoid",
    "SmoothL1Loss",
    "Softmax",
    "Softplus",
    "Softshrink",
    "Softsign",
    "Tanh",
    "Tanhshrink",
    "TripletMarginLoss",
    "Unflatten",
]
__all__ += [
    *_conv_names,
    *_padding_names,
    *_pooling_names,
    *_transformer_names,
    *_upsampling_names,
]
