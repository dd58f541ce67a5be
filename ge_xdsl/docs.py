"""The reference docs, generated from the code: `docs/PASSES.md`, `docs/OPS.md`.

    python -m ge_xdsl.docs           # rewrite both
    python -m ge_xdsl.docs --check   # exit 1 if either is out of date

`docs/PASSES.md` has, per registered pass, its module docstring, its options
(`passes.options.pass_options`: spelling, type, default, docstring) and one
example: the input `docs/examples/passes/NAME.mlir` and what the pass makes of
it, computed here. `docs/OPS.md` has, per `ge` op, its summary, operands,
results, attributes with their defaults, traits and notes, from the op
definitions. `tests/test_docs.py` fails when a file differs from what this
module generates.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from xdsl.passes import ModulePass

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PASS_EXAMPLES = DOCS / "examples" / "passes"
REGENERATE = "python -m ge_xdsl.docs"
EXAMPLE_ELIDE = 16
"""Examples show constants of more elements as `dense_resource<__elided__>`."""


def pass_example_pipeline(text: str, name: str) -> str:
    """The pipeline an example runs: its `// PIPELINE: ...` line, else the pass."""
    for line in text.splitlines():
        if line.startswith("// PIPELINE:"):
            return line.removeprefix("// PIPELINE:").strip()
    return name


def passes_markdown() -> str:
    """The text of `docs/PASSES.md`."""
    from passes import PASSES, get_all_passes
    from passes.options import pass_options

    factories = get_all_passes()
    lines = [
        "# Passes",
        "",
        f"Generated from the code by `{REGENERATE}`; do not edit.",
        "",
        "Run a pass with `ge-opt -p 'NAME{OPTION=VALUE ...}' FILE.mlir`, "
        "`ge-opt --NAME='OPTION=VALUE ...' FILE.mlir` or, from Python, "
        '`ge_xdsl.apply_passes(module, "NAME{OPTION=VALUE}")`. Options are '
        "written `data-format` or `data_format`. Each example is "
        "`docs/examples/passes/NAME.mlir` and the IR the pass makes of it.",
        "",
    ]
    lines += [f"- [`{name}`](#{name})" for name in PASSES]
    for name in PASSES:
        pass_class = factories[name]()
        lines += ["", f"## {name}", "", _summary(pass_class), ""]
        module_doc = inspect.getdoc(sys.modules[pass_class.__module__]) or ""
        source = Path(inspect.getfile(pass_class)).relative_to(ROOT)
        lines += [_demote_headings(module_doc), "", f"Source: `{source}`.", ""]
        options = pass_options(pass_class)
        if options:
            lines += ["| option | type | default | meaning |", "|---|---|---|---|"]
            lines += [
                f"| `{o.name}` | `{o.type}` | `{o.default}` | {o.doc} |"
                for o in options
            ]
        else:
            lines.append("No options.")
        lines += ["", *_example(name)]
    return "\n".join(lines).rstrip() + "\n"


def _summary(pass_class: type[ModulePass]) -> str:
    return " ".join((pass_class.__doc__ or "").split())


def _demote_headings(text: str) -> str:
    """Markdown headings of a docstring, two levels down (under `## pass`)."""
    return "\n".join(
        f"##{line}" if line.startswith("#") else line for line in text.splitlines()
    )


def _example(name: str) -> list[str]:
    from ge_dialect.ir_text import print_module
    from ge_xdsl import apply_passes, parse

    path = PASS_EXAMPLES / f"{name}.mlir"
    text = path.read_text()
    pipeline = pass_example_pipeline(text, name)
    before = parse(text, name=str(path.relative_to(ROOT)))
    after = apply_passes(before, pipeline)
    return [
        f"Example (`ge-opt -p '{pipeline}'`):",
        "",
        "```mlir",
        text.rstrip(),
        "```",
        "",
        "becomes",
        "",
        "```mlir",
        print_module(after, elide_elements_if_larger=EXAMPLE_ELIDE).rstrip(),
        "```",
    ]


def generated() -> dict[Path, str]:
    """Every generated file and its text."""
    return {DOCS / "PASSES.md": passes_markdown()}


def main(argv: list[str] | None = None) -> int:
    """Write (or with `--check`, compare) the generated docs."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare")
    args = parser.parse_args(argv)
    stale = []
    for path, text in generated().items():
        if path.exists() and path.read_text() == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text)
    if args.check and stale:
        names = ", ".join(str(p.relative_to(ROOT)) for p in stale)
        print(f"out of date: {names}; run `{REGENERATE}`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
