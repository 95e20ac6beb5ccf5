"""Programs print what PyTorch 2.15 printed for them, each against its recorded output in
``golden/``: ``scatter_cases.py`` (the scatter family), ``selection_cases.py`` (finding
elements), ``layout_cases.py`` (how results are laid out in memory), ``cpu_surface_cases.py``
(what programs call on a machine without an accelerator), ``lbfgs_cases.py``
(``optim.LBFGS``), ``composites_cases.py`` (functions PyTorch composes of other ops) and
``scheduler_extra_cases.py`` (more learning-rate schedulers, and ``step(epoch)``),
``special_cases.py`` (``torch.special``), ``embedding_cases.py`` (``F.embedding``),
``testing_cases.py`` (``torch.testing``: ``assert_close``'s messages, ``make_tensor``) and
``rnn_packed_cases.py`` (``nn.utils.rnn`` and recurrent layers over packed sequences),
``numeric_cases.py`` (running extrema, NaN-aware reductions, ``logaddexp``, ``nan_to_num``,
``erfc``/``erfinv``, ``pixel_shuffle``, ``aminmax``, ``bincount``, triangle indices) and
``optim_extra_cases.py`` (``optim.NAdam``, ``RAdam``, ``Rprop``, ``ASGD``, the flags) and
``distributions_cases.py``
(``torch.distributions``), ``module_globals_cases.py`` (``as_tensor``, ``torch.__future__``,
the hooks common to all modules), ``inplace_activation_cases.py`` (in-place activations inside
a graph), ``cyclic_lr_cases.py`` (``lr_scheduler.CyclicLR``), ``swa_init_dropout_cases.py``
(``optim.swa_utils``, ``nn.init.dirac_``/``sparse_`` and the deprecated init names, 3-D and
alpha dropout),
``linalg_decomp_cases.py`` (``torch.linalg``'s decompositions and solvers, ``cdist``),
``rebinding_cases.py`` (``x.data =`` of another shape or dtype, ``set_``, ``resize_``, in-place
view ops, ``swap_tensors`` and the module conversions built on them), ``conv3d_cases.py``
(``F.conv3d``, ``nn.Conv3d``), ``subclass_dispatch_cases.py`` (wrapper subclasses and
``__torch_dispatch__``), ``int_dtypes_cases.py`` (uint8, int8, int16 and int32: promotion,
wrapping arithmetic, conversions, reductions, NumPy, indexing, refusals), ``sparse_cases.py``
(sparse COO tensors: products, sums, gradients, accumulation), ``embedding_bag_cases.py``
(``F.embedding_bag``, ``nn.EmbeddingBag``), ``func_cases.py`` (``torch.func``'s transforms,
``functional_call``, ``stack_module_state``; ``utils.benchmark.Timer``), ``meta_cases.py`` (the
meta device), ``pool3d_cases.py`` (the 3-D pools) and ``channels_last_cases.py`` (results laid
out channels-last), ``unpool_cases.py`` (``max_unpool``), ``mha_functional_cases.py``
(``F.multi_head_attention_forward``) and ``nn_extra_cases.py`` (the activations, losses,
padding layers, bicubic and antialiased resampling and ``AdaptiveLogSoftmaxWithLoss`` that
PyTorch's ``test_nn.py`` needed) and ``prune_lazy_cases.py`` (``nn.utils.prune`` and the lazy
modules)."""

import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.mark.parametrize(
    ("program", "recorded"),
    [
        ("scatter_cases.py", "scatter_torch.txt"),
        ("selection_cases.py", "selection_torch.txt"),
        ("layout_cases.py", "layout_torch.txt"),
        ("cpu_surface_cases.py", "cpu_surface_torch.txt"),
        ("lbfgs_cases.py", "lbfgs_torch.txt"),
        ("composites_cases.py", "composites_torch.txt"),
        ("scheduler_extra_cases.py", "scheduler_extra_torch.txt"),
        ("special_cases.py", "special_torch.txt"),
        ("embedding_cases.py", "embedding_torch.txt"),
        ("testing_cases.py", "testing_torch.txt"),
        ("numeric_cases.py", "numeric_torch.txt"),
        ("optim_extra_cases.py", "optim_extra_torch.txt"),
        ("distributions_cases.py", "distributions_torch.txt"),
        ("module_globals_cases.py", "module_globals_torch.txt"),
        ("inplace_activation_cases.py", "inplace_activation_torch.txt"),
        ("cyclic_lr_cases.py", "cyclic_lr_torch.txt"),
        ("rnn_packed_cases.py", "rnn_packed_torch.txt"),
        ("swa_init_dropout_cases.py", "swa_init_dropout_torch.txt"),
        ("linalg_decomp_cases.py", "linalg_decomp_torch.txt"),
        ("rebinding_cases.py", "rebinding_torch.txt"),
        ("subclass_dispatch_cases.py", "subclass_dispatch_torch.txt"),
        ("conv3d_cases.py", "conv3d_torch.txt"),
        ("int_dtypes_cases.py", "int_dtypes_torch.txt"),
        ("sparse_cases.py", "sparse_torch.txt"),
        ("embedding_bag_cases.py", "embedding_bag_torch.txt"),
        ("func_cases.py", "func_torch.txt"),
        ("meta_cases.py", "meta_torch.txt"),
        ("pool3d_cases.py", "pool3d_torch.txt"),
        ("channels_last_cases.py", "channels_last_torch.txt"),
        ("unpool_cases.py", "unpool_torch.txt"),
        ("mha_functional_cases.py", "mha_functional_torch.txt"),
        ("nn_extra_cases.py", "nn_extra_torch.txt"),
        ("prune_lazy_cases.py", "prune_lazy_torch.txt"),
    ],
)
def test_program_matches_pytorch(program, recorded):
    with open(os.path.join(HERE, "golden", recorded)) as f:
        expected = f.read().splitlines()
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, program)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    assert len(out) == len(expected)
    for got, want in zip(out, expected):
        assert got == want
