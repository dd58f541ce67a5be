"""What every command-line tool shares: error reporting, plugins, atomic output."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import math
import os
import re
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn

from ge_dialect.diagnostics import GEError, printable
from ge_dialect.input_files import OFFLINE_MODEL_IR
from ge_dialect.limits import BUDGET_FLAG, DEFAULT_MEMORY_BUDGET, human_size, parse_size

LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "null": logging.CRITICAL + 1,
}
"""`--log` values of the tools and the logging levels they stand for."""


@contextmanager
def logging_to_stderr(
    names: Sequence[str], level: str, formatter: logging.Formatter | None = None
) -> Iterator[None]:
    """Route the records of the loggers `names` to stderr at `level` (`LOG_LEVELS`)."""
    handler = logging.StreamHandler(sys.stderr)
    if formatter is not None:
        handler.setFormatter(formatter)
    loggers = [logging.getLogger(name) for name in names]
    saved = [(logger, logger.level) for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(LOG_LEVELS[level])
    try:
        yield
    finally:
        for logger, old in saved:
            logger.removeHandler(handler)
            logger.setLevel(old)


_LOCATED_IN_OFFLINE_MODEL = re.compile(
    rf"^(?P<om>.+\.om):{OFFLINE_MODEL_IR}:(?P<line>\d+):\d+: error: "
)
_NODE_NAME = re.compile(r'\bname = "((?:[^"\\]|\\.)*)"')


def offline_model_ir(path: str) -> bytes:
    """The optimised IR (MLIR text) inside the offline model at `path`."""
    from ge_runtime.offline.om import load_offline_model

    return load_offline_model(path).ir.encode()


def with_offline_model_hint(message: str) -> str:
    """`message`, and if it is located in the IR inside an `.om` (which the
    user cannot see), the node there (its original model's name, when the op
    carries one) and how to see that IR: `ge-opt MODEL.om` prints it."""
    located = _LOCATED_IN_OFFLINE_MODEL.match(message)
    if located is None:
        return message
    om, line = located["om"], int(located["line"])
    try:
        lines = offline_model_ir(om).decode().splitlines()
    except (GEError, OSError):
        return message
    node = _NODE_NAME.search(lines[line - 1]) if 0 < line <= len(lines) else None
    where = f"node '{node.group(1)}', " if node else ""
    return f"{message} ({where}line {line} of the IR in {om}: `ge-opt {om}` prints it)"


def run_tool(tool: str, body: Callable[[], object]) -> int:
    """Run a tool's body; print any user-facing error as one line and return 1.

    NumPy's floating-point `RuntimeWarning`s (overflow, invalid value, divide
    by zero) are not shown: a graph computes with IEEE semantics, as the
    device does, and Inf or NaN in the data is a result, not noise.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            body()
    except GEError as error:  # escaped: a file name may hold a newline
        message = with_offline_model_hint(printable(str(error)))
        print(
            message if ": error:" in message else f"{tool}: {message}", file=sys.stderr
        )
        return 1
    except (OSError, UnicodeDecodeError) as error:
        print(f"{tool}: error: {printable(_describe_os_error(error))}", file=sys.stderr)
        return 1
    except MemoryError:
        print(
            f"{tool}: error: out of memory: the input asks for more than this "
            f"process can allocate (its {BUDGET_FLAG} is set above what is free)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print(f"{tool}: error: interrupted", file=sys.stderr)
        return 1
    except SystemExit as exit_:
        return 0 if exit_.code in (0, None) else 1
    except Exception as error:
        if os.environ.get("GE_XDSL_TRACEBACK"):
            raise
        message = " ".join(str(error).split())
        print(
            f"{tool}: internal error: {type(error).__name__}: {message} "
            "(set GE_XDSL_TRACEBACK=1 for details)",
            file=sys.stderr,
        )
        return 1
    return 0


def _describe_os_error(error: Exception) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"cannot access '{error.filename}': {error.strerror}"
    return " ".join(str(error).split())


def raise_usage_error(message: str) -> NoReturn:
    """argparse's `error` hook: a one-line GEError instead of usage + exit 2."""
    raise GEError(f"error: {message} (see --help)")


class StoreOnce(argparse._StoreAction):
    """A flag that takes one value and may be given once: `--seed 1 --seed 2`
    is an error, not the last one silently winning."""

    given_in: argparse.Namespace | None = None

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if self.given_in is namespace:
            raise argparse.ArgumentError(self, "given twice")
        self.given_in = namespace
        super().__call__(parser, namespace, values, option_string)


def one_line_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Make `parser` report bad flags as one-line GEErrors, a one-value flag
    given twice among them (`StoreOnce`)."""
    parser.error = raise_usage_error  # type: ignore[method-assign]
    for action in parser._actions:
        if type(action) is argparse._StoreAction and action.option_strings:
            action.__class__ = StoreOnce
    return parser


def accept_both_spellings(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Accept every long flag of `parser` with `_` or `-` between its words
    (ATC's `--input_shape` and `--input-shape`), whichever one it was added as.

    The other spelling is an alias, not listed in `--help` (the parser's epilog
    says so); a prefix of both spellings of one flag is not ambiguous.
    """
    aliases = parser._option_string_actions
    for option, action in list(aliases.items()):
        if not option.startswith("--"):
            continue
        name = option[2:]
        for other in (name.replace("_", "-"), name.replace("-", "_")):
            aliases.setdefault(f"--{other}", action)
    find_prefixes = parser._get_option_tuples

    def distinct_prefixes(option_string: str) -> list[tuple]:
        """argparse's candidates for an abbreviated flag, one per flag."""
        candidates = {id(found[0]): found for found in find_prefixes(option_string)}
        return list(candidates.values())

    parser._get_option_tuples = distinct_prefixes  # type: ignore[method-assign]
    note = "Every flag may be written with - or _ between its words."
    parser.epilog = f"{parser.epilog}\n\n{note}" if parser.epilog else note
    return parser


def bounded_int(minimum: int, maximum: int) -> Callable[[str], int]:
    """argparse type of an integer in [minimum, maximum]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range [{minimum}, {maximum}]"
            )
        return value

    return parse


def non_negative_float(text: str) -> float:
    """argparse type of a finite number >= 0 (not NaN, not infinite)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a finite number >= 0")
    return value


def size_argument(text: str) -> int:
    """argparse type of a byte size (`4G`, `512M`, `1000000`)."""
    try:
        return parse_size(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def add_memory_budget_flag(parser: argparse.ArgumentParser) -> None:
    """`--memory-budget SIZE`: the most one tensor or input file may take."""
    parser.add_argument(
        BUDGET_FLAG,
        type=size_argument,
        default=DEFAULT_MEMORY_BUDGET,
        metavar="SIZE",
        help="the most bytes one tensor or input file may take, checked before "
        f"it is allocated (default {human_size(DEFAULT_MEMORY_BUDGET)}; e.g. 16G)",
    )


def positive_int(text: str) -> int:
    """argparse type of a count of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive integer")
    return value


def add_max_iterations_flag(parser: argparse.ArgumentParser) -> None:
    """`--max-iterations N`: the most iterations one `ge.while` may run
    (`ge_runtime.run_inputs.iteration_budget`)."""
    from ge_dialect.limits import DEFAULT_MAX_ITERATIONS, ITERATIONS_FLAG

    parser.add_argument(
        ITERATIONS_FLAG,
        type=positive_int,
        default=DEFAULT_MAX_ITERATIONS,
        metavar="N",
        help="the most iterations one loop (ONNX Loop, TensorFlow While) may run "
        f"before it counts as runaway (default {DEFAULT_MAX_ITERATIONS})",
    )


def load_plugins(argv: Sequence[str]) -> None:
    """Import every `--load-plugin PATH` before the tool sets itself up.

    A plugin is a Python file or an importable module name; importing it lets it
    register ops, infer-format rules, shape functions or op information.
    """
    for index, arg in enumerate(argv):
        if arg == "--load-plugin" and index + 1 < len(argv):
            load_plugin(argv[index + 1])
        elif arg.startswith("--load-plugin="):
            load_plugin(arg.split("=", 1)[1])


def load_plugin(spec: str) -> None:
    """Import one plugin file or module, reporting failures as GEError."""
    try:
        if spec.endswith(".py") or os.sep in spec:
            path = Path(spec)
            if not path.is_file():
                raise GEError(f"error: plugin file '{spec}' not found")
            module_spec = importlib.util.spec_from_file_location(path.stem, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[path.stem] = module
            module_spec.loader.exec_module(module)
        else:
            importlib.import_module(spec)
    except GEError:
        raise
    except Exception as error:
        message = " ".join(str(error).split())
        raise GEError(f"error: cannot load plugin '{spec}': {message}") from None
