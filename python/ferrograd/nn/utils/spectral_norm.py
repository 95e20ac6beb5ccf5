"""``nn.utils.spectral_norm``/``remove_spectral_norm``: the older, hook-based spectral
normalization (https://arxiv.org/abs/1802.05957), as PyTorch's
``torch.nn.utils.spectral_norm``: the parameter ``<name>`` becomes ``<name>_orig``, the buffers
``<name>_u`` and ``<name>_v`` hold the estimated singular vectors, and a forward pre-hook sets
``<name> = <name>_orig / sigma`` before each call (one more power iteration first, in training
mode). State dicts carry a version in their metadata, and old ones (holding ``<name>`` but not
``<name>_v``) are converted on loading, as PyTorch's."""

import numpy as np

from ... import _core
from ..._grad_mode import no_grad
from ..._memory_format import contiguous_format
from .. import functional as F
from ..parameter import Parameter, UninitializedParameter

__all__ = [
    "SpectralNorm",
    "SpectralNormLoadStateDictPreHook",
    "SpectralNormStateDictHook",
    "remove_spectral_norm",
    "spectral_norm",
]


def _conv_transposes():
    """The transposed convolution classes (whose output dimension is 1)."""
    from .. import modules

    names = ("ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d")
    return tuple(getattr(modules, n) for n in names if hasattr(modules, n))


class SpectralNorm:
    """The forward pre-hook that sets ``module.<name>`` to ``<name>_orig / sigma``."""

    # version 1: the buffer <name>_v is saved, <name> is not
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError(
                "Expected n_power_iterations to be positive, but "
                f"got n_power_iterations={n_power_iterations}"
            )
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix with ``dim`` first and the other dimensions flattened."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(
                self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim]
            )
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module, do_power_iteration):
        """``<name>_orig / (u . W v)``, after ``n_power_iterations`` in-place updates of ``u``
        and ``v`` when ``do_power_iteration`` (used through clones, so that a graph built by
        an earlier call stays valid)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(weight_mat.mv(v), dim=0, eps=self.eps, out=u)
                if self.n_power_iterations > 0:
                    u = u.clone(memory_format=contiguous_format)
                    v = v.clone(memory_format=contiguous_format)
        sigma = u.dot(weight_mat.mv(v))
        return weight / sigma

    def remove(self, module):
        """Makes ``module.<name>`` a parameter again, holding its current value."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        """``v = (W^T W)^+ W^T u`` rescaled so that ``u . W v = target_sigma`` (a version-0
        state dict holds no ``v``); the pseudo-inverse is NumPy's (LAPACK's SVD), as
        ``torch.pinverse`` with its default cutoff."""
        w = weight_mat.detach().numpy().astype(np.float64)
        uu = u.detach().numpy().astype(np.float64)
        v = np.linalg.pinv(w.T @ w) @ w.T @ uu
        v = _core.tensor(v.tolist(), dtype=weight_mat.dtype)
        return v.mul_(target_sigma / u.dot(weight_mat.mv(v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Moves ``module.<name>`` to ``<name>_orig``, draws ``u`` and ``v`` (normal, then
        normalized) and registers the hooks."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}"
                )
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError(
                "The module passed to `SpectralNorm` can't have uninitialized parameters. Make "
                "sure to run the dummy forward before applying spectral normalization"
            )
        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # random unit vectors (the first forward in training mode iterates from them)
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)

        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # a plain attribute until the first forward computes it (.data: not a parameter)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)

        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Converts a state dict saved before version 1 (``<name>``, ``<name>_orig`` and
    ``<name>_u``, no ``<name>_v``) when loading."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if (
                version is None
                and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                and weight_key not in state_dict
            ):
                # a version-1 state dict whose metadata was lost: nothing to convert
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


class SpectralNormStateDictHook:
    """Records the format's version in the state dict's metadata
    (``metadata["spectral_norm"]["<name>.version"]``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides the parameter ``module.<name>`` by its largest singular value, estimated by
    power iteration before every call (``n_power_iterations`` steps in training mode, none in
    evaluation mode); ``dim`` (the output dimension) defaults to 1 for transposed
    convolutions, 0 otherwise. Returns ``module``."""
    if dim is None:
        dim = 1 if isinstance(module, _conv_transposes()) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undoes :func:`spectral_norm` on ``module.<name>``, leaving its current value (no further
    power iteration) as a parameter. Returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")

    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break
    # as in PyTorch, the load pre-hook is stored wrapped (by
    # Module._register_load_state_dict_pre_hook), so this search does not find it: it stays
    # registered after the removal
    for k, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break
    return module
