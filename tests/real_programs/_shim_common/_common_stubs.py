"""Stand-ins installed under both libraries alike, for output-only dependencies that neither
environment has: ``torch.utils.tensorboard`` (needs the ``tensorboard`` package) gets a
``SummaryWriter`` whose methods do nothing. Importing this module does not import torch."""

import importlib.abc
import importlib.machinery
import sys
import types


class _NoOpWriter:
    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


class _TensorboardFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    NAME = "torch.utils.tensorboard"

    def find_spec(self, name, path=None, target=None):
        if name == self.NAME:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.SummaryWriter = _NoOpWriter
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _TensorboardFinder())
