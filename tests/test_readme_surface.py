"""The README's supported-surface tables match the package, both ways."""

import re
from pathlib import Path

import ferrograd as torch
import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _names(section: str) -> set:
    match = re.search(rf"<!-- surface:{section} -->(.*?)<!-- /surface:{section} -->", README, re.S)
    assert match, f"README has no surface:{section} table"
    rows = [line for line in match.group(1).splitlines() if line.startswith("| ") and "`" in line]
    names = set()
    for row in rows:
        cells = row.split("|")
        names.update(re.findall(r"`([^`]+)`", cells[2]))
    return names


SURFACES = {
    "tensor": {n for n in dir(torch.Tensor) if not n.startswith("_")},
    "torch": set(torch.__all__),
    "functional": set(torch.nn.functional.__all__),
}


@pytest.mark.parametrize("section", sorted(SURFACES))
def test_readme_lists_exactly_the_public_surface(section):
    """Every listed name exists, and every public name is listed."""
    listed = _names(section)
    actual = SURFACES[section]
    assert listed - actual == set(), f"listed in README but missing: {sorted(listed - actual)}"
    assert actual - listed == set(), f"public but not in README: {sorted(actual - listed)}"
