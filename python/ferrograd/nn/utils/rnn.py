"""``nn.utils.rnn``: variable-length sequences for the recurrent layers. ``PackedSequence`` (the
time steps of a batch of sequences sorted by decreasing length, stored step after step with
only the rows still running), ``pack_padded_sequence``, ``pad_packed_sequence``,
``pad_sequence``, ``unpad_sequence``, ``pack_sequence``, ``unpack_sequence`` and
``invert_permutation``, with PyTorch's arguments, results and errors. Packing and padding are
built from ferrograd's differentiable ``index_select`` and ``cat``, so gradients flow from the
packed data back to the padded input and the reverse."""

from collections.abc import Iterable
from typing import NamedTuple, Optional

from ... import _core

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class PackedSequence_(NamedTuple):
    data: _core.Tensor
    batch_sizes: _core.Tensor
    sorted_indices: Optional[_core.Tensor]
    unsorted_indices: Optional[_core.Tensor]


class PackedSequence(PackedSequence_):
    """A packed batch of sequences: ``data`` holds step 0 of every sequence, then step 1 of
    those still running, and so on (the sequences sorted by decreasing length);
    ``batch_sizes[t]`` is how many rows step ``t`` has; ``sorted_indices`` (``None`` when the
    batch came sorted) maps sorted rows to the original batch order and ``unsorted_indices`` is
    its inverse. Made by ``pack_padded_sequence``/``pack_sequence``, accepted by ``nn.RNN``,
    ``nn.LSTM`` and ``nn.GRU``."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PackedSequence((data, batch_sizes), ...)
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data`` converted as ``Tensor.to`` converts it (``self`` when nothing changes);
        the indices follow to ``data``'s device, ``batch_sizes`` stays as it is."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self

        def move(t):
            return None if t is None else t.to(data.device)

        return type(self)(
            data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices)
        )

    def cpu(self, *args, **kwargs):
        """``data`` on the CPU."""
        return self.to("cpu", *args, **kwargs)

    def double(self):
        """``data`` as float64."""
        return self.to(dtype=_core.float64)

    def float(self):
        """``data`` as float32."""
        return self.to(dtype=_core.float32)

    def long(self):
        """``data`` as int64."""
        return self.to(dtype=_core.int64)

    def _cast(self, dtype_name, method):
        """``data`` as ``dtype_name``, refused (``TypeError``) while ferrograd lacks it."""
        dtype = getattr(_core, dtype_name, None)
        if dtype is None:
            raise TypeError(
                f"ferrograd has no {dtype_name} dtype (`PackedSequence.{method}()`; it has "
                "float32, float64, int64, int32, int16, int8, uint8 and bool)"
            )
        return self.to(dtype=dtype)

    def int(self):
        """``data`` as int32."""
        return self._cast("int32", "int")

    def short(self):
        """``data`` as int16."""
        return self._cast("int16", "short")

    def char(self):
        """``data`` as int8."""
        return self._cast("int8", "char")

    def byte(self):
        """``data`` as uint8."""
        return self._cast("uint8", "byte")

    def half(self):
        """``data`` as float16 (which ferrograd lacks: a ``TypeError``)."""
        return self._cast("float16", "half")

    def bfloat16(self):
        """``data`` as bfloat16 (which ferrograd lacks: a ``TypeError``)."""
        return self._cast("bfloat16", "bfloat16")

    @property
    def is_cuda(self):
        """Whether ``data`` is on a GPU (never, with ferrograd)."""
        return self.data.is_cuda

    def is_pinned(self):
        """Whether ``data`` is in pinned memory."""
        return self.data.is_pinned()


def invert_permutation(permutation):
    """The inverse of a 1-D permutation tensor (``None`` for ``None``)."""
    if permutation is None:
        return None
    count = permutation.numel()
    return _core.zeros(count, dtype=permutation.dtype).scatter_(
        0, permutation, _core.arange(count, dtype=permutation.dtype)
    )


def _lengths_list(lengths):
    if isinstance(lengths, _core.Tensor):
        if lengths.dim() != 1:
            raise RuntimeError(
                "'lengths' argument should be a 1D CPU int64 tensor, but got "
                f"{lengths.dim()}D cpu Long tensor"
            )
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences
    of the given ``lengths`` (a list or a tensor). With ``enforce_sorted`` the lengths must
    decrease (PyTorch's ``RuntimeError`` otherwise); without, the batch is sorted here and the
    permutation kept in the result. The data is one ``index_select`` of the input: gradients
    flow back to it."""
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    lengths = _lengths_list(lengths)
    sorted_indices = None
    if not enforce_sorted:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])  # stable, as sort's
        sorted_indices = _core.tensor(order, dtype=_core.int64)
        lengths = [lengths[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    steps, batch = input.shape[0], input.shape[1]
    if len(lengths) != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
            f"(batch_size={batch})"
        )
    if any(n <= 0 for n in lengths):
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in "
            "'lengths' that is <= 0"
        )
    if any(a < b for a, b in zip(lengths, lengths[1:])):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
            "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
            "to sidestep this requirement if you do not need ONNX exportability."
        )
    batch_sizes = [sum(1 for n in lengths if n > t) for t in range(lengths[0])]
    rows = [t * batch + b for t, size in enumerate(batch_sizes) for b in range(size)]
    flat = input.reshape(steps * batch, *input.shape[2:])
    data = flat.index_select(0, _core.tensor(rows, dtype=_core.int64))
    return PackedSequence(data, _core.tensor(batch_sizes, dtype=_core.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Pads a ``PackedSequence`` back to ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``),
    ``T`` the longest length or ``total_length``, in the batch's original order; returns the
    padded tensor and the lengths (int64). Differentiable with respect to ``sequence.data``."""
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    steps = len(batch_sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being "
                f"{steps}"
            )
        steps = total_length
    data = sequence.data
    batch = batch_sizes[0]
    # every padded place reads a row of data, or the padding row appended after them
    pad_row = len(data)
    rows = [pad_row] * (steps * batch)
    lengths = [0] * batch
    offset = 0
    for t, size in enumerate(batch_sizes):
        for b in range(size):
            rows[t * batch + b] = offset + b
            lengths[b] = t + 1
        offset += size
    padding = _core.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    source = _core.cat([data, padding], 0)
    padded = source.index_select(0, _core.tensor(rows, dtype=_core.int64))
    padded = padded.reshape(steps, batch, *data.shape[1:])
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths_t = _core.tensor(lengths, dtype=_core.int64)
    if sequence.unsorted_indices is not None:
        unsorted = sequence.unsorted_indices
        padded = padded.index_select(0 if batch_first else 1, unsorted)
        lengths_t = lengths_t[unsorted]
    return padded, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks sequences of shapes ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` with
    ``batch_first``), ``T`` the longest, padding each with ``padding_value`` on its right (or
    left, ``padding_side="left"``). Differentiable with respect to every sequence."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(
            "pad_sequence: Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)}"
        )
    sequences = tuple(sequences)
    if padding_side not in ("left", "right"):
        raise RuntimeError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    # each sequence is written into a (length, *trailing) place, broadcast as a copy is
    sequences = tuple(_broadcast_into(s, (len(s), *trailing)) for s in sequences)
    steps, batch = max(len(s) for s in sequences), len(sequences)
    # all sequences one after the other, then a padding row; each place reads one row
    pad_row = sum(len(s) for s in sequences)
    rows = [pad_row] * (steps * batch)
    offset = 0
    for b, s in enumerate(sequences):
        start = 0 if padding_side == "right" else steps - len(s)
        for t in range(len(s)):
            rows[(start + t) * batch + b] = offset + t
        offset += len(s)
    dtype = sequences[0].dtype
    padding = _core.full((1, *trailing), padding_value, dtype=dtype)
    source = _core.cat([*sequences, padding], 0)
    padded = source.index_select(0, _core.tensor(rows, dtype=_core.int64))
    padded = padded.reshape(steps, batch, *trailing)
    return padded.transpose(0, 1) if batch_first else padded


def _broadcast_into(sequence, shape):
    """``sequence`` expanded to ``shape`` (its sizes aligned from the right), with the error of
    a copy that cannot broadcast."""
    sizes = tuple(sequence.shape)
    if sizes == shape:
        return sequence
    for back in range(1, len(sizes) + 1):
        dim = len(shape) - back
        if dim < 0 or sizes[-back] not in (1, shape[dim]):
            target = shape[dim] if dim >= 0 else 1
            raise RuntimeError(
                f"The size of tensor a ({target}) must match the size of tensor b "
                f"({sizes[-back]}) at non-singleton dimension {max(dim, 0)}"
            )
    return sequence.expand(*shape)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length (a list of tensors)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths)``: packs a list of sequences
    (sorted by decreasing length unless ``enforce_sorted=False``)."""
    lengths = [len(s) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The sequences of a ``PackedSequence``, in their original order (a list of tensors)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
