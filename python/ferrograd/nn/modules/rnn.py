"""Recurrent layers: the cells ``RNNCell``, ``LSTMCell``, ``GRUCell`` (one core node per step)
and the sequence layers ``RNN``, ``LSTM``, ``GRU`` (layers, ``batch_first``,
``bidirectional``, dropout between layers, initial states) running those cells over time,
with PyTorch's parameter names, shapes and initialisation. The sequence layers take a padded
tensor or a ``PackedSequence`` (each sequence run over its own length)."""

import math

from ... import _core
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _step(mode, x, state, weights):
    """One time step of a cell of ``mode``; ``state`` is ``h`` (or ``(h, c)`` for LSTM)."""
    w_ih, w_hh, b_ih, b_hh = weights
    if mode == "LSTM":
        return _core.lstm_cell(x, state[0], state[1], w_ih, w_hh, b_ih, b_hh)
    if mode == "GRU":
        return _core.gru_cell(x, state, w_ih, w_hh, b_ih, b_hh)
    return _core.rnn_cell(x, state, w_ih, w_hh, b_ih, b_hh, mode == "RNN_RELU")


def _rows(state, start, count):
    """Rows ``start..start+count`` of a state (``h``, or ``(h, c)``)."""
    if isinstance(state, tuple):
        return tuple(s.narrow(0, start, count) for s in state)
    return state.narrow(0, start, count)


def _cat_rows(pieces):
    """States stacked row-wise (pieces of ``h``, or of ``(h, c)``)."""
    if isinstance(pieces[0], tuple):
        return tuple(_core.cat(list(parts), 0) for parts in zip(*pieces))
    return _core.cat(pieces, 0)


def _packed_forward(mode, data, batch_sizes, offsets, state, weights):
    """One direction over packed ``data`` from the first step: step ``t`` runs the cell on the
    first ``batch_sizes[t]`` rows; a sequence's final state is its state after its last step.
    Returns the packed outputs and the final states of all rows."""
    outputs, ended = [], []
    for t, size in enumerate(batch_sizes):
        state = _step(mode, data.narrow(0, offsets[t], size), state, weights)
        outputs.append(state[0] if mode == "LSTM" else state)
        following = batch_sizes[t + 1] if t + 1 < len(batch_sizes) else 0
        if following < size:  # the last rows end here
            ended.append(_rows(state, following, size - following))
            state = _rows(state, 0, following)
    return _core.cat(outputs, 0), _cat_rows(ended[::-1])


def _packed_reverse(mode, data, batch_sizes, offsets, initial, weights):
    """One direction over packed ``data`` from the last step back: a sequence starts from its
    initial state at its own last step. Returns the packed outputs (in step order) and the
    final states (after step 0) of all rows."""
    outputs = [None] * len(batch_sizes)
    state = None
    for t in reversed(range(len(batch_sizes))):
        size = batch_sizes[t]
        running = batch_sizes[t + 1] if t + 1 < len(batch_sizes) else 0
        if size > running:  # these rows' sequences end at step t: they start here
            starting = _rows(initial, running, size - running)
            state = starting if state is None else _cat_rows([state, starting])
        state = _step(mode, data.narrow(0, offsets[t], size), state, weights)
        outputs[t] = state[0] if mode == "LSTM" else state
    return _core.cat(outputs, 0), state


class RNNCellBase(Module):
    """The parameters of a cell: ``weight_ih`` (gates·hidden, input), ``weight_hh``
    (gates·hidden, hidden) and their biases, uniform in ``±1/sqrt(hidden_size)``."""

    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = _GATES[self._mode] * hidden_size
        self.weight_ih = Parameter(_core.empty(gates, input_size, dtype=dtype))
        self.weight_hh = Parameter(_core.empty(gates, hidden_size, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_core.empty(gates, dtype=dtype))
            self.bias_hh = Parameter(_core.empty(gates, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """PyTorch's initialisation: every parameter uniform in ``±1/sqrt(hidden_size)``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, input, hx):
        if input.dim() not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead"
            )
        if hx is not None and hx.dim() != input.dim():
            raise ValueError(
                f"{type(self).__name__}: Expected hidden to be {input.dim()}D, got "
                f"{hx.dim()}D instead"
            )
        return input.dim() == 2

    def _weights(self):
        # straight from the parameter dict (Module.__getattr__ costs ~0.4 us a name, a tenth of
        # a small cell's step); an attribute set otherwise (a plain tensor) is looked up as usual
        params = self._parameters
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        if all(n in params for n in names):
            return tuple(params[n] for n in names)
        return tuple(getattr(self, n, None) for n in names)

    def _zeros(self, input):
        return _core.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)


class RNNCell(RNNCellBase):
    """``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (or relu)."""

    def __init__(
        self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None
    ):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        """The next hidden state."""
        batched = self._batched(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        state = hx if hx is not None else self._zeros(input)
        h = _step(self._mode, input, state, self._weights())
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """``(h', c')`` from gates ``i, f, g, o`` (PyTorch's order)."""

    _mode = "LSTM"

    def forward(self, input, hx=None):
        """The next hidden and cell states."""
        batched = self._batched(input, None if hx is None else hx[0])
        if not batched:
            input = input.unsqueeze(0)
            hx = None if hx is None else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        if hx is None:
            hx = (self._zeros(input), self._zeros(input))
        h, c = _step("LSTM", input, hx, self._weights())
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """``h' = (1 - z)·n + z·h`` from gates ``r, z, n`` (PyTorch's order)."""

    _mode = "GRU"

    def forward(self, input, hx=None):
        """The next hidden state."""
        batched = self._batched(input, hx)
        if not batched:
            input = input.unsqueeze(0)
            hx = hx.unsqueeze(0) if hx is not None else None
        h = _step("GRU", input, hx if hx is not None else self._zeros(input), self._weights())
        return h if batched else h.squeeze(0)


class RNNBase(Module):
    """A stack of recurrent layers (each direction its own cell parameters, named as
    PyTorch's: ``weight_ih_l0``, ``bias_hh_l1_reverse``, ...) run over a sequence."""

    _mode = "RNN_TANH"

    def __init__(
        self,
        input_size,
        hidden_size,
        num_layers=1,
        bias=True,
        batch_first=False,
        dropout=0.0,
        bidirectional=False,
        proj_size=0,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if proj_size:
            raise NotImplementedError("ferrograd's LSTM has no proj_size")
        self.input_size, self.hidden_size = input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gates = _GATES[self._mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                width = input_size if layer == 0 else hidden_size * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gates, width)), ("weight_hh", (gates, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(_core.empty(*shape, dtype=dtype)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def flatten_parameters(self):
        """Nothing to do: PyTorch packs the weights into one buffer for cuDNN only (on a CPU its
        ``flatten_parameters`` is a no-op too)."""

    def reset_parameters(self):
        """PyTorch's initialisation: every parameter uniform in ``±1/sqrt(hidden_size)``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    @property
    def _flat_weights(self):
        """The weights in ``_flat_weights_names`` order, as the module holds them now (a plain
        tensor where a parametrization or pruning replaced a parameter), as PyTorch's list."""
        return [getattr(self, name, None) for name in self._flat_weights_names]

    def _layer_weights(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        names = [n + suffix for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
        # straight from the parameter dict when all are there (Module.__getattr__ per name is
        # a few percent of a small layer's step); otherwise looked up as usual
        params = self._parameters
        if all(n in params for n in names):
            return tuple(params[n] for n in names)
        return tuple(getattr(self, n, None) for n in names)

    def _run(self, input, hx):
        """Runs the stack; ``hx`` is ``(layers·directions, batch, hidden)`` (a pair for LSTM).
        Returns the last layer's outputs over time and the final states."""
        directions = 2 if self.bidirectional else 1
        lstm = self._mode == "LSTM"
        seq = input  # (steps, batch, features): the layer's input sequence
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                state = (hx[0][k], hx[1][k]) if lstm else hx[k]
                weights = self._layer_weights(layer, direction)
                if lstm:
                    # the whole layer is one core node: the steps run in Rust
                    steps = seq.flip(0) if direction == 1 else seq
                    out_seq, h_last, c_last = _core.lstm_layer(steps, *state, *weights)
                    outputs.append(out_seq.flip(0) if direction == 1 else out_seq)
                    finals_h.append(h_last)
                    finals_c.append(c_last)
                    continue
                inputs = seq.unbind(0)
                order = range(len(inputs))
                if direction == 1:
                    order = reversed(order)
                out = [None] * len(inputs)
                for t in order:
                    state = _step(self._mode, inputs[t], state, weights)
                    out[t] = state
                outputs.append(_core.stack(out, 0))
                finals_h.append(state)
            seq = _core.cat(outputs, 2) if directions == 2 else outputs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = F.dropout(seq, self.dropout, True)
        h_n = _core.stack(finals_h, 0)
        return seq, ((h_n, _core.stack(finals_c, 0)) if lstm else h_n)

    def _run_packed(self, data, batch_sizes, hx):
        """Runs the stack over packed ``data`` (``batch_sizes[t]`` rows at step ``t``, the
        longest sequences first): layer by layer and direction by direction, each step one cell
        on the rows still running. Returns the last layer's packed outputs and the final
        states, each sequence's taken at its own last step (the reverse direction starts at
        each sequence's own end)."""
        directions = 2 if self.bidirectional else 1
        lstm = self._mode == "LSTM"
        offsets = [0]
        for size in batch_sizes[:-1]:
            offsets.append(offsets[-1] + size)
        seq = data
        finals_h, finals_c = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                state = (hx[0][k], hx[1][k]) if lstm else hx[k]
                weights = self._layer_weights(layer, direction)
                run = _packed_reverse if direction == 1 else _packed_forward
                out, last = run(self._mode, seq, batch_sizes, offsets, state, weights)
                outputs.append(out)
                finals_h.append(last[0] if lstm else last)
                if lstm:
                    finals_c.append(last[1])
            seq = _core.cat(outputs, 1) if directions == 2 else outputs[0]
            if self.dropout and self.training and layer < self.num_layers - 1:
                seq = F.dropout(seq, self.dropout, True)
        h_n = _core.stack(finals_h, 0)
        return seq, ((h_n, _core.stack(finals_c, 0)) if lstm else h_n)

    def _forward_packed(self, packed, hx):
        """``forward`` for a ``PackedSequence``: a ``PackedSequence`` of outputs (the same
        batch sizes and permutation) and the final states in the batch's original order."""
        lstm = self._mode == "LSTM"
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        self._check_features(data)
        sizes = [int(n) for n in batch_sizes.tolist()]
        if hx is None:
            layers = self.num_layers * (2 if self.bidirectional else 1)
            zeros = _core.zeros(layers, sizes[0], self.hidden_size, dtype=data.dtype)
            hx = (zeros, zeros) if lstm else zeros
        elif sorted_indices is not None:  # the states follow the batch into sorted order
            hx = (
                tuple(h.index_select(1, sorted_indices) for h in hx)
                if lstm
                else (hx.index_select(1, sorted_indices))
            )
        output, state = self._run_packed(data, sizes, hx)
        if unsorted_indices is not None:
            state = (
                tuple(s.index_select(1, unsorted_indices) for s in state)
                if lstm
                else (state.index_select(1, unsorted_indices))
            )
        return type(packed)(output, batch_sizes, sorted_indices, unsorted_indices), state

    def _check_features(self, input):
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.shape[-1]}"
            )
        weight_dtype = self._layer_weights(0, 0)[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight_dtype}). "
                f"Convert input: input.to({weight_dtype}), or convert model: "
                f"model.to({input.dtype})"
            )

    def forward(self, input, hx=None):
        """``(output, h_n)`` (``(output, (h_n, c_n))`` for LSTM); for a ``PackedSequence``
        input, the output is a ``PackedSequence`` too."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        lstm = self._mode == "LSTM"
        if input.dim() not in (2, 3):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                "tensor instead"
            )
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        self._check_features(input)
        layers = self.num_layers * (2 if self.bidirectional else 1)
        if hx is None:
            zeros = _core.zeros(layers, input.shape[1], self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros) if lstm else zeros
        expected = (layers, input.shape[1], self.hidden_size)
        for i, h in enumerate(hx if lstm else (hx,)):
            if tuple(h.shape) != expected:
                which = f"hidden[{i}]" if lstm else "hidden"
                raise RuntimeError(f"Expected {which} size {expected}, got {list(h.shape)}")
        output, state = self._run(input, hx)
        if not batched:
            output = output.squeeze(1)
            state = tuple(s.squeeze(1) for s in state) if lstm else state.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, state


class RNN(RNNBase):
    """Elman RNN layers (``nonlinearity`` tanh or relu)."""

    def __init__(self, *args, **kwargs):
        # the nonlinearity is the fourth positional argument, as in PyTorch
        if len(args) > 3:
            nonlinearity, args = args[3], args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(*args, **kwargs)


class LSTM(RNNBase):
    """LSTM layers; ``forward`` returns ``(output, (h_n, c_n))``."""

    _mode = "LSTM"


class GRU(RNNBase):
    """GRU layers."""

    _mode = "GRU"


__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]
