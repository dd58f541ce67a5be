"""Pass options checked when a pass is built, every error naming pass and option.

Each pass with options validates them in `__post_init__` with the checks
below, so a bad value fails when the pipeline is built, before any pass runs,
whether the pass comes from `ge-opt -p`, a `--PASS=...` flag, `ge-atc` or
Python:

```
error: infer-origin-format: option 'data-format': NC1HWC0 is a storage
format; the data format of graph inputs is one of ND, NCHW, NHWC, ...
```

`build_pipeline` replaces xDSL's `PassPipeline.parse_spec` so that an option
of the wrong type (`max-streams=abc`) or an unknown one is reported the same
way instead of as xDSL's `Incompatible types: given ('abc',), expected ...`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection
from typing import Any

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, parse_pipeline

from ge_dialect.diagnostics import GEError
from ge_dialect.formats import (
    INTERNAL_FORMATS,
    ORIGIN_FORMATS,
    FormatError,
    get_target,
    parse_format,
)


class PassOptionError(GEError):
    """A pass option with a bad value: `error: PASS: option 'OPTION': why`."""

    def __init__(self, pass_name: str, option: str, message: str):
        super().__init__(
            f"error: {pass_name}: option '{option.replace('_', '-')}': {message}"
        )


def check_target_option(pass_: ModulePass, option: str, value: str | None) -> None:
    """`value` is None or a known target (SoC) name."""
    if value is None:
        return
    try:
        get_target(value)
    except FormatError as error:
        raise PassOptionError(pass_.name, option, str(error)) from None


def check_data_format_option(pass_: ModulePass, option: str, value: str) -> None:
    """`value` is ND or an origin format (the format of graph inputs), never an
    internal storage format or RESERVED."""
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


def build_pass(pass_class: type[ModulePass], spec: ArgSpec) -> ModulePass:
    """The pass `spec` describes; a PassOptionError names any bad option."""
    fields = [
        f.name for f in dataclasses.fields(pass_class) if f.init and f.name != "name"
    ]
    parameters = spec.normalize_parameter_names().parameters
    for option, value in parameters.items():
        if option not in fields:
            known = ", ".join(f.replace("_", "-") for f in fields) or "none"
            raise PassOptionError(
                pass_class.name, option, f"unknown option (options: {known})"
            )
        try:
            pass_class.from_spec(ArgSpec(pass_class.name, {option: value}))
        except PassOptionError:
            raise
        except Exception as error:  # xDSL's conversion: ValueError, TypeError...
            expected = _option_type(pass_class, option)
            given = " ".join(str(v) for v in value) if value else "nothing"
            raise PassOptionError(
                pass_class.name, option, f"expected {expected}, got '{given}'"
            ) from error
    return pass_class.from_spec(spec)


def _option_type(pass_class: type[ModulePass], option: str) -> str:
    from xdsl.passes import get_pass_option_infos

    for info in get_pass_option_infos(pass_class):
        if info.name == option:
            return info.expected_type
    return "another value"


def build_pipeline(
    available: dict[str, Callable[[], type[ModulePass]]],
    text: str,
    callback: PassPipelineCallbackType | None = None,
) -> PassPipeline:
    """`PassPipeline.parse_spec` with options checked by `build_pass`."""
    specs = tuple(parse_pipeline(text))
    if unknown := [spec.name for spec in specs if spec.name not in available]:
        raise GEError(f"error: unknown passes: {', '.join(unknown)}")
    passes: Any = tuple(build_pass(available[spec.name](), spec) for spec in specs)
    return PassPipeline(passes, callback)
