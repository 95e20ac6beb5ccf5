# PyTorch's own test files under upstream/ are run by runner.py (one process per test, under
# the glue), never collected by pytest directly.
collect_ignore = ["upstream", "glue.py", "runner.py"]
