"""Pass pipelines from text, and each pass's options as users write them.

A pipeline is xDSL's `pass-a,pass-b{opt=v other=w}`. An option may be spelt
`data-format` (as in the docs and `--help`) or `data_format` (the field name).
Errors are one-line `GEError`s that name the pass, the option and the nearest
valid spelling:

    error: pass 'infer-origin-format' has no option 'data-fromat' (did you
    mean 'data-format'?; options: data-format)

A value of the wrong type names its option too (`PassOptionError`), and so
does a value a pass refuses: each pass with options checks them in
`__post_init__` with `check_*_option`, so a bad value fails when the pipeline
is built, before any pass runs, from `ge-opt`, `ge-atc` or Python alike:

    error: pass 'infer-origin-format': option 'data-format': NC1HWC0 is a
    storage format; the data format of graph inputs is one of ND, NCHW, ...

`pass_options` lists a pass's options with type, default and the docstring
written under the field, for `ge-opt --help` and `docs/PASSES.md`.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import textwrap
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from difflib import get_close_matches
from functools import cache
from typing import get_type_hints

from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import (
    ArgSpec,
    PipelineLexer,
    SpecTokenKind,
    _convert_arg_to_type,
    parse_pipeline,
)
from xdsl.utils.exceptions import ArgSpecParseError

from ge_dialect.diagnostics import GEError

PassFactories = Mapping[str, Callable[[], type[ModulePass]]]


@dataclass(frozen=True)
class PassOption:
    """One option of a pass: `name` as users write it (kebab-case)."""

    name: str
    type: str
    default: str
    doc: str

    def usage(self) -> str:
        """`name=TYPE (default D): doc`, as `--help` shows it."""
        text = f"{self.name}={self.type} (default {self.default})"
        return f"{text}: {self.doc}" if self.doc else text


def option_name(field_name: str) -> str:
    """The kebab-case spelling of an option field (`data_format` -> `data-format`)."""
    return field_name.replace("_", "-")


def pass_help_lines(pass_class: type[ModulePass]) -> list[str]:
    """What `ge-opt --help` says of a pass: its docstring's first line, then
    `  name=TYPE (default D): doc` per option (`passes.pass_help`)."""
    lines = (pass_class.__doc__ or "").strip().splitlines()[:1]
    return lines + [f"  {option.usage()}" for option in pass_options(pass_class)]


@cache
def pass_options(pass_class: type[ModulePass]) -> tuple[PassOption, ...]:
    """The options of `pass_class`, in field order."""
    docs = _field_docs(pass_class)
    options = []
    for field in dataclasses.fields(pass_class):
        if field.name == "name" or not field.init:
            continue
        options.append(
            PassOption(
                option_name(field.name),
                _type_text(field.type),
                _default_text(field),
                docs.get(field.name, ""),
            )
        )
    return tuple(options)


def _field_docs(pass_class: type[ModulePass]) -> dict[str, str]:
    """Docstrings written right under the class's annotated fields."""
    docs: dict[str, str] = {}
    for cls in reversed(pass_class.__mro__):
        if not dataclasses.is_dataclass(cls) or cls is ModulePass:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(cls))
        except (OSError, TypeError):
            continue
        body = ast.parse(source).body[0]
        assert isinstance(body, ast.ClassDef)
        for node, following in zip(body.body, body.body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[node.target.id] = " ".join(following.value.value.split())
    return docs


def _type_text(annotation: object) -> str:
    if isinstance(annotation, type):  # `int`, not `<class 'int'>`
        return annotation.__name__
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.replace("typing.", "").replace(" | None", "|none")


def _default_text(field: dataclasses.Field[object]) -> str:
    if field.default is not dataclasses.MISSING:
        value = field.default
    elif field.default_factory is not dataclasses.MISSING:
        value = field.default_factory()
    else:
        return "required"
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "none"
    if isinstance(value, tuple | list):
        return ",".join(str(v) for v in value) or "empty"  # type: ignore[union-attr]
    return str(value)


def parse_passes(
    spec: str, available: PassFactories | None = None
) -> tuple[ModulePass, ...]:
    """The passes of the pipeline `spec` (default registry: the project's)."""
    if available is None:
        from passes import get_all_passes

        available = get_all_passes()
    try:
        specs = list(parse_pipeline(spec))
    except ArgSpecParseError as error:  # a BaseException spanning several lines
        reason = str(error).strip().splitlines()[-1].strip()
        raise GEError(f"error: invalid pass pipeline '{spec}': {reason}") from None
    if (twice := _option_given_twice(spec)) is not None:
        raise PassOptionError(*twice, "given twice")
    return tuple(_instantiate(arg_spec, available) for arg_spec in specs)


def _option_given_twice(spec: str) -> tuple[str, str] | None:
    """(pass, option) of the first option set twice in one pass of the valid
    pipeline `spec` (xDSL would keep the last value; either spelling counts)."""
    pass_name, seen, key_next, previous = "", set[str](), False, None
    for token in PipelineLexer._generator(spec):  # the tokens xDSL parsed
        if token.kind is SpecTokenKind.L_BRACE and previous is not None:
            pass_name, seen, key_next = previous.span.text, set(), True
        elif token.kind is SpecTokenKind.R_BRACE:
            key_next = False
        elif token.kind is SpecTokenKind.SPACE:
            key_next = True  # only within braces: a pipeline has no spaces outside
        elif token.kind is SpecTokenKind.IDENT and key_next:
            if (name := option_name(token.span.text)) in seen:
                return pass_name, name
            seen.add(name)
            key_next = False
        previous = token
    return None


def _instantiate(arg_spec: ArgSpec, available: PassFactories) -> ModulePass:
    name = arg_spec.name
    if name not in available:
        raise GEError(f"error: unknown pass '{name}'{_did_you_mean(name, available)}")
    pass_class = available[name]()
    options = [option.name for option in pass_options(pass_class)]
    for given in arg_spec.parameters:
        if option_name(given) not in options:
            listed = ", ".join(options) if options else "none"
            hint = _did_you_mean(option_name(given), options)
            raise GEError(
                f"error: pass '{name}' has no option '{given}'{hint} "
                f"(options: {listed})"
            )
    types = get_type_hints(pass_class)
    for given, value in arg_spec.parameters.items():
        field_name = given.replace("-", "_")
        try:
            _convert_arg_to_type(value, types[field_name])
        except Exception:  # xDSL's conversion raises several types
            expected = _type_text(types[field_name])
            shown = " ".join(str(v) for v in value) if value else "nothing"
            raise PassOptionError(
                name, given, f"expected {expected}, got '{shown}'"
            ) from None
    given_fields = {given.replace("-", "_") for given in arg_spec.parameters}
    for missing in sorted(pass_class.required_fields() - given_fields - {"name"}):
        raise PassOptionError(name, missing, "is required")
    return pass_class.from_pass_spec(arg_spec)


class PassOptionError(GEError):
    """A bad option value: `error: pass 'PASS': option 'OPTION': why`."""

    def __init__(self, pass_name: str, option: str, message: str):
        super().__init__(
            f"error: pass '{pass_name}': option '{option_name(option)}': {message}"
        )


def check_target_option(pass_: ModulePass, option: str, value: str | None) -> None:
    """`value` is None or a known target (SoC) name."""
    from ge_dialect.formats import FormatError
    from ge_dialect.targets import get_target  # NumPy: only if used

    if value is None:
        return
    try:
        get_target(value)
    except FormatError as error:
        raise PassOptionError(pass_.name, option, str(error)) from None


def check_data_format_option(pass_: ModulePass, option: str, value: str) -> None:
    """`value` is ND or an origin format (the format of graph inputs), never an
    internal storage format or RESERVED."""
    from ge_dialect.formats import (  # NumPy: only if used
        INTERNAL_FORMATS,
        ORIGIN_FORMATS,
        FormatError,
        parse_format,
    )

    try:
        fmt = parse_format(value)
    except FormatError as error:
        raise PassOptionError(pass_.name, option, str(error)) from None
    if fmt not in ORIGIN_FORMATS:
        kind = "a storage format" if fmt in INTERNAL_FORMATS else "not a data format"
        listed = ", ".join(f.value for f in ORIGIN_FORMATS)
        raise PassOptionError(
            pass_.name,
            option,
            f"{fmt.value} is {kind}; the data format of graph inputs is one of "
            f"{listed}",
        )


def check_range_option(
    pass_: ModulePass, option: str, value: int, minimum: int, maximum: int
) -> None:
    """`minimum <= value <= maximum`."""
    if not minimum <= value <= maximum:
        raise PassOptionError(
            pass_.name, option, f"must be in [{minimum}, {maximum}], got {value}"
        )


def check_choice_option(
    pass_: ModulePass, option: str, value: str | None, choices: Collection[str]
) -> None:
    """`value` is None or one of `choices`."""
    if value is not None and value not in choices:
        raise PassOptionError(
            pass_.name,
            option,
            f"unknown value '{value}' (one of {', '.join(sorted(choices))})",
        )


def _did_you_mean(name: str, candidates: object) -> str:
    close = get_close_matches(name, list(candidates), n=1, cutoff=0.75)  # type: ignore[call-overload]
    return f" (did you mean '{close[0]}'?)" if close else ""
