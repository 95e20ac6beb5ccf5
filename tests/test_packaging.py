"""The installed package is the one abi3 wheel (CPython 3.9 and later) with its stubs."""

import importlib.metadata
import pathlib

import ferrograd


def test_the_wheel_is_tagged_for_the_stable_abi():
    wheel = importlib.metadata.distribution("ferrograd").read_text("WHEEL") or ""
    tags = [line.split(":", 1)[1].strip() for line in wheel.splitlines() if line.startswith("Tag:")]
    assert tags and all(tag.startswith("cp39-abi3-") for tag in tags), tags
    assert pathlib.Path(ferrograd._core.__file__).name.startswith("_core.abi3.")


def test_stubs_and_py_typed_are_shipped():
    root = pathlib.Path(ferrograd.__file__).parent
    assert (root / "py.typed").exists()
    assert "class Tensor" in (root / "_core.pyi").read_text()
