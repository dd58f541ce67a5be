"""The generated docs are current, every pass has a working example, and CI runs
the README's test command."""

from __future__ import annotations

import os
import re
import subprocess
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


MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def relative_links(page: Path) -> list[str]:
    """The targets of `page`'s markdown links that are paths in the repository
    (not URLs, not anchors of the page itself), without their `#anchor`."""
    targets = (match.group(1) for match in MARKDOWN_LINK.finditer(page.read_text()))
    return [
        target.partition("#")[0]
        for target in targets
        if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")
    ]


def tracked_files() -> set[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    return {path for path in listed.split("\0") if path}


def test_markdown_pages_link_only_tracked_files():
    """What a fresh clone has: a link into a generated, git-ignored file fails."""
    tracked = tracked_files()
    folders = {str(Path(path).parent) for path in tracked}
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in pages
        for target in relative_links(page)
        if os.path.relpath((page.parent / target).resolve(), ROOT)
        not in tracked | folders
    ]
    assert broken == []


def test_link_check_sees_a_missing_file(tmp_path: Path):
    page = tmp_path / "page.md"
    page.write_text("[a](docs/x.md#y) [b](https://x.org) [c](#z) [d](../e.md)")
    assert relative_links(page) == ["docs/x.md", "../e.md"]
