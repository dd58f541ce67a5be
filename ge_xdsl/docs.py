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
import json
import re
import sys
from functools import cache
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


def ops_markdown() -> str:
    """The text of `docs/OPS.md`."""
    import ge_dialect.ops as ops_package
    from ge_dialect.ops import GE_OPS
    from ge_dialect.ops import base as ops_base

    lines = [
        "# The `ge` ops",
        "",
        f"Generated from the op definitions (`ge_dialect/ops/`) by `{REGENERATE}`;",
        "do not edit.",
        "",
        inspect.getdoc(ops_package) or "",
        "",
        "## Conventions",
        "",
        _demote_headings(inspect.getdoc(ops_base) or ""),
        "",
        "Each op below lists its operands (`?` optional, `*` variadic), results,",
        "regions, attributes (with the default an absent one takes, or",
        "*required*), traits (`ge_dialect/traits.py`), its infer-format rule",
        "(`ge_dialect/format_rules.py`) and its op information",
        "(`ge_dialect/data/opinfo/`, or what its traits imply): engine, dtypes",
        "and the storage formats each tensor may take, in preference order",
        "(`origin`: the tensor's own origin format).",
    ]
    families: dict[str, list[type]] = {}
    for op in GE_OPS:
        families.setdefault(op.__module__, []).append(op)
    lines += ["", "Families:", ""]
    lines += [
        f"- [`{module.rsplit('.', 1)[1]}`](#{module.rsplit('.', 1)[1]}): "
        + ", ".join(f"`{op.name}`" for op in ops)
        for module, ops in families.items()
    ]
    for module, ops in families.items():
        family = module.rsplit(".", 1)[1]
        module_doc = inspect.getdoc(sys.modules[module]) or ""
        lines += ["", f"## {family}", "", _demote_headings(module_doc)]
        for op in ops:
            lines += ["", *_op_section(op)]
    return "\n".join(lines).rstrip() + "\n"


def _op_section(op: type) -> list[str]:
    from xdsl.irdl import OptOperandDef, VarOperandDef, VarRegionDef

    from ge_dialect.opinfo import op_info

    definition = op.get_irdl_definition()
    lines = [f"### {op.name}", "", inspect.getdoc(op) or "", ""]
    if definition.assembly_format:
        lines += [f"Syntax: ``{op.name} {definition.assembly_format}``", ""]
    if example := op_examples().get(op.name):
        where, line = example
        lines += [f"Example (`{where}`):", "", "```mlir", line, "```", ""]
    operands = [
        f"`{name}`"
        + ("?" if isinstance(spec, OptOperandDef) else "")
        + (
            "*"
            if isinstance(spec, VarOperandDef) and not isinstance(spec, OptOperandDef)
            else ""
        )
        for name, spec in definition.operands
    ]
    results = [f"`{name}`" for name, _ in definition.results]
    regions = [
        f"`{name}`" + ("*" if isinstance(spec, VarRegionDef) else "")
        for name, spec in definition.regions
    ]
    lines.append(f"- operands: {', '.join(operands) or 'none'}")
    lines.append(f"- results: {', '.join(results) or 'none'}")
    if regions:
        lines.append(f"- regions: {', '.join(regions)}")
    traits = sorted(
        {type(trait).__name__ for trait in definition.traits}
        - {"TensorLayoutsAreValid"}
    )
    lines.append(f"- traits: {', '.join(traits) or 'none'}")
    rule = getattr(op, "FORMAT_RULE", None)
    if rule is not None:
        summary = (inspect.getdoc(rule) or "").split("\n\n")[0]
        lines.append(f"- format rule: `{rule.__name__}`: {' '.join(summary.split())}")
    lines.extend(_op_information(op_info(op.name)))
    if definition.attributes:
        lines += ["", "| attribute | type | default |", "|---|---|---|"]
        for name, spec in definition.attributes.items():
            default = getattr(spec, "default_value", None)
            optional = type(spec).__name__.startswith("Opt")
            shown = (
                f"`{default}`"
                if default is not None
                else ("optional" if optional else "*required*")
            )
            lines.append(f"| `{name}` | {_constraint_text(spec.constr)} | {shown} |")
    return lines


def _operand_mark(spec: object, optional: type, variadic: type) -> str:
    if isinstance(spec, optional):
        return "?"
    return "*" if isinstance(spec, variadic) else ""


DIALECT_TESTS = ROOT / "tests" / "filecheck" / "dialect"
"""Round-trip tests (print and parse), where each op's example comes from."""


@cache
def op_examples() -> dict[str, tuple[str, str]]:
    """Per op name, its shortest use in the dialect's round-trip tests (with
    its regions, if it has any)."""
    examples: dict[str, tuple[str, str]] = {}
    for path in sorted(DIALECT_TESTS.glob("*.mlir")):
        if path.name.startswith("invalid-"):
            continue
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            code = line.strip()
            match = re.match(r"(?:%[\w#:, %]+ = )?(ge\.\w+)", code)
            if code.startswith("//") or not match:
                continue
            text = _with_regions(lines, number)
            known = examples.get(match.group(1))
            if known is None or len(text) < len(known[1]):
                examples[match.group(1)] = (str(path.relative_to(ROOT)), text)
    return examples


def _with_regions(lines: list[str], first: int) -> str:
    """Lines from `first` until its braces close, dedented."""
    indent = len(lines[first]) - len(lines[first].lstrip())
    depth, taken = 0, []
    for line in lines[first:]:
        taken.append(line[indent:])
        depth += line.count("{") - line.count("}")
        if depth <= 0 and not line.rstrip().endswith("{"):
            break
    return "\n".join(taken)


def _op_information(info: object) -> list[str]:
    inputs = getattr(info, "inputs", ())
    outputs = getattr(info, "outputs", ())
    if not inputs and not outputs:
        return []
    dtypes = getattr(info, "dtypes", None)
    engine = info.engine
    lines = [
        f"- engine {engine.value}; dtypes: "
        + (", ".join(sorted(dtypes)) if dtypes else "any")
        + ("; heavy (chooses its formats first)" if info.heavy else "")
    ]
    tensors = [*inputs, *outputs]
    formats = ", ".join(
        f"`{tensor.name}` "
        + "/".join(f.value if f is not None else "origin" for f in tensor.formats)
        for tensor in tensors
    )
    lines.append(f"- storage formats: {formats}")
    if getattr(info, "description", ""):
        lines.append(f"- {info.description}")  # type: ignore[attr-defined]
    return lines


def _constraint_text(constraint: object) -> str:
    from xdsl.irdl import AnyAttr, AnyOf, BaseAttr

    if isinstance(constraint, BaseAttr):
        return f"`{constraint.attr.__name__}`"
    if isinstance(constraint, AnyOf):
        return " or ".join(_constraint_text(c) for c in constraint.attr_constrs)
    if isinstance(constraint, AnyAttr):
        return "any attribute"
    return f"`{type(constraint).__name__.removesuffix('Constraint')}`"


def pass_help_json() -> str:
    """The text of `passes/pass_help.json` (`passes.pass_help`)."""
    from passes import PASSES, get_all_passes
    from passes.options import pass_help_lines

    factories = get_all_passes()
    lines = {name: pass_help_lines(factories[name]()) for name in PASSES}
    return json.dumps(lines, indent=2) + "\n"


def generated() -> dict[Path, str]:
    """Every generated file and its text."""
    from passes import PASS_HELP_FILE

    return {
        DOCS / "PASSES.md": passes_markdown(),
        DOCS / "OPS.md": ops_markdown(),
        PASS_HELP_FILE: pass_help_json(),
    }


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
