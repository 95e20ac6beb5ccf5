"""Loaded at interpreter start (this directory is on PYTHONPATH) when the runner runs a program
under ferrograd: ``import torch`` and ``import torch.X`` give ``ferrograd`` and ``ferrograd.X``.

Same approach as tests/pytorch_suite/glue.py's ``_AliasFinder``, without placeholders: a
submodule ferrograd lacks fails to import with ``No module named 'torch.X'``, as the program
would see it.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys


class _TorchAliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        if name != "torch" and not name.startswith("torch."):
            return None
        real = "ferrograd" + name[len("torch") :]
        try:
            if importlib.util.find_spec(real) is None:
                return None
        except ImportError:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        real = "ferrograd" + spec.name[len("torch") :]
        module = importlib.import_module(real)
        # every ferrograd submodule loaded so far also under its torch name, so a later
        # ``import torch.a.b`` does not rebind attribute ``b`` of ``torch.a``
        for name, mod in list(sys.modules.items()):
            if name.startswith("ferrograd.") and mod is not None:
                sys.modules.setdefault("torch" + name[len("ferrograd") :], mod)
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _TorchAliasFinder())

try:
    import _common_stubs  # noqa: F401  (tests/real_programs/_shim_common)
except ImportError:
    pass
