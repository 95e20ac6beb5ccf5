"""``AdaptiveLogSoftmaxWithLoss``: Grave et al.'s adaptive softmax, as PyTorch's module.

The classes are split at ``cutoffs`` into a frequent shortlist and rarer clusters. The head
(one ``Linear``) scores the shortlist and one entry per cluster; each cluster has its own
two-layer tail projecting through a narrower width (``in_features // div_value**(i+1)``). The
log-probability of a class in cluster ``i`` is the head's log-probability of the cluster plus
the tail's log-probability of the class within it. Built from ``Linear``, ``log_softmax`` and
``gather``, so gradients flow through the ops PyTorch's module records.
"""

from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax over ``n_classes`` with clusters split at ``cutoffs``; ``forward``
    gives ``(output, loss)``: each target's log-probability and their negated mean."""

    def __init__(
        self,
        in_features,
        n_classes,
        cutoffs,
        div_value=4.0,
        head_bias=False,
        device=None,
        dtype=None,
    ):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > n_classes - 1
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        made = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = [*cutoffs, n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **made)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            width = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, width, bias=False, **made),
                    Linear(width, size, bias=False, **made),
                )
            )

    def reset_parameters(self):
        """Re-initialises the head and every tail layer."""
        self.head.reset_parameters()
        for into_hidden, to_output in self.tail:
            into_hidden.reset_parameters()
            to_output.reset_parameters()

    def forward(self, input_, target_):
        """``(output, loss)``: the log-probability of each target (``(N,)``, or a scalar for
        one unbatched sample) and the mean negative log-likelihood."""
        batched = self._check_target(input_, target_)
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch_size = target.size(0)
        output = input.new_zeros(batch_size)
        head_index = target.new_empty(batch_size)
        used_rows = 0
        bounds = [0, *self.cutoffs]
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            in_cluster = (target >= low) & (target < high)
            rows = in_cluster.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, rows, target[in_cluster])
            else:
                within = target[in_cluster] - low
                scores = self.tail[i - 1](input.index_select(0, rows))
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                logprob = F.log_softmax(scores, dim=1).gather(1, within.unsqueeze(1))
                output.index_copy_(0, rows, logprob.squeeze(1))
            used_rows += rows.numel()
        if used_rows != batch_size:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    @staticmethod
    def _check_target(input, target):
        """Whether the call is batched (a 1-D target); PyTorch's refusals otherwise."""
        if target.dim() == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size",
                    input.size(),
                )
            return True
        if target.dim() == 0:
            if input.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size",
                    input.size(),
                )
            return False
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def _full_log_prob(self, input, head_output):
        """Log-probabilities of every class, ``(N, n_classes)``."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, : self.shortlist_size] = head_logprob[:, : self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[
                :, self.shortlist_size + i
            ].unsqueeze(1)
        return out

    def log_prob(self, input):
        """Log-probabilities of every class for each input row (or the one unbatched input)."""
        batched = input.dim() > 1
        input = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(input, self.head(input))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each input row; the tails are evaluated only for the rows
        whose head prediction is a cluster."""
        batched = input.dim() > 1
        input = input if batched else input.unsqueeze(0)
        head_output = self.head(input)
        output = head_output.argmax(dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output if batched else output.squeeze(0)
        if outside.all():
            return self._full_log_prob(input, head_output).argmax(dim=1)
        log_prob = self._full_log_prob(input[outside], head_output[outside])
        output[outside] = log_prob.argmax(dim=1)
        return output if batched else output.squeeze(0)
