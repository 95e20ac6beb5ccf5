#!/usr/bin/env bash
# Runs every check of ferrograd from a fresh clone: Rust formatting, lints, unit and integration
# tests, the Rust examples, cargo package, docs, benchmarks in smoke mode, then builds the wheel
# into a venv and runs mypy (with stubtest of the native module), ruff and pytest.
# Needs only cargo and python3; everything else is installed into ./.venv (override with VENV=...).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"

step() { printf '\n== %s\n' "$*"; }

step "python venv ($VENV) with maturin, numpy, pytest, ruff, mypy, hypothesis (PyTorch's test_nn.py imports it) and the demo extra's packages"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install -q "maturin>=1.9.4,<2" "numpy>=1.21" "pytest>=7" ruff mypy hypothesis \
    scikit-learn tqdm matplotlib graphviz
# Graphviz's dot program, for the tests that render make_dot's pictures (skipped without it)
if ! command -v dot >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz) \
        >/dev/null 2>&1 || echo "(could not install graphviz: its rendering tests will be skipped)"
fi
# Open MPI (mpirun, and the MPI library mpi4py loads) for the tests of ferrograd.distributed,
# which run scripts under mpirun (skipped without it); then mpi4py (a binary wheel that uses the
# system's Open MPI, else built from source with its mpicc)
if ! command -v mpirun >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends openmpi-bin libopenmpi-dev) >/dev/null 2>&1 \
        || echo "(could not install Open MPI: the tests under mpirun will be skipped)"
fi
"$VENV/bin/python" -m pip install -q "mpi4py>=4"

step "cargo fmt / clippy"
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo clippy --features python -- -D warnings

step "cargo test (core, no Python)"
cargo test

step "Rust examples (each checks its own results) and a crate that depends on ferrograd"
cargo run -q --example double_backward
cargo run -q --example mlp
cargo run -q --manifest-path examples/downstream/Cargo.toml --target-dir target

step "cargo package (the crate's files packaged, then built on their own)"
cargo package -q --allow-dirty

step "cargo doc"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -q

step "cargo bench (smoke: each benchmark once)"
cargo bench -- --test

step "build and install the Python package"
"$VENV/bin/python" -m pip install -q --no-build-isolation .

step "mypy: stubtest of the native module against _core.pyi, then the package"
"$VENV/bin/python" -m mypy.stubtest ferrograd._core
"$VENV/bin/python" -m mypy python/ferrograd

step "generated surface (stubs, aliases, README tables) matches the derivative tables"
"$VENV/bin/python" tools/gen_surface.py --check

step "ruff"
"$VENV/bin/ruff" check python tests benches tools examples

step "pytest"
"$VENV/bin/python" -m pytest -q tests
