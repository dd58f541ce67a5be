"""The generated docs are current, every pass has a working example, and CI runs
the README's test command."""

from __future__ import annotations

from pathlib import Path

import pytest

from ge_xdsl import apply_passes, docs, parse
from passes import PASSES

ROOT = Path(__file__).parents[1]


@pytest.mark.parametrize("path", sorted(docs.generated()), ids=lambda p: p.name)
def test_generated_doc_is_current(path: Path):
    expected = docs.generated()[path]
    relative = path.relative_to(ROOT)
    assert path.exists(), f"{relative} is missing; run `{docs.REGENERATE}`"
    assert path.read_text() == expected, (
        f"{relative} is out of date; run `{docs.REGENERATE}`"
    )


@pytest.mark.parametrize("name", PASSES)
def test_every_pass_has_an_example_it_changes(name: str):
    path = docs.PASS_EXAMPLES / f"{name}.mlir"
    assert path.exists(), f"{name} has no example {path.relative_to(ROOT)}"
    before = parse(path.read_text(), name=path.name)
    after = apply_passes(before, docs.pass_example_pipeline(path.read_text(), name))
    assert str(after) != str(before), f"{name} does not change its example"


def test_every_op_has_an_example_in_the_round_trip_tests():
    from ge_dialect.ops import GE_OPS

    examples = docs.op_examples()
    assert [op.name for op in GE_OPS if op.name not in examples] == []


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(
        line
        for line in readme.splitlines()
        if line.startswith('python -m pip install -e ".[test]"') and "pytest" in line
    )
    assert command in ci.splitlines()
    assert "lit -sv tests/filecheck" in command  # lit prints the count passed
