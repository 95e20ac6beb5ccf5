"""``import torch`` means ferrograd in the processes a test starts, as it does in the test's own.

Some of PyTorch's tests run a script in a new interpreter (``subprocess.check_output(
[sys.executable, "-c", script])``, the script beginning ``import torch``). Under the ferrograd
run, the runner puts this directory first on ``PYTHONPATH``, so Python's start-up imports this
module and the child's ``import torch`` goes through the same alias as the test's
(``glue._AliasFinder``).
"""

import os
import sys

sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from glue import _AliasFinder

sys.meta_path.insert(0, _AliasFinder(()))
