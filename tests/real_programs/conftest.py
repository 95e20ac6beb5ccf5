"""The corpus programs are run by ``run.py`` (through ``tests/test_real_programs.py``), never
collected as tests themselves: some vendor their own test files, written for PyTorch."""

collect_ignore_glob = ["*"]
