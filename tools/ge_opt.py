"""`ge-opt`: the `ge` modular optimizer driver, built on xDSL's `xDSLOptMain`.

Besides xDSL's options (`-p`, `--split-input-file`, `--verify-diagnostics`,
`--print-op-generic`, `--print-between-passes`, `-o`, ...), every registered
`ge` pass is also a flag, as in `mlir-opt`:

    ge-opt --infer-origin-format in.mlir
    ge-opt --infer-origin-format=data-format=NHWC in.mlir

The text after `=` is what would go inside the braces of `-p NAME{...}`
(several options are separated by spaces). Pass flags run in command-line
order, after the passes given with `-p`. `--time-passes` prints a table of
each pass's time to stderr (the passes inside `ge-format-pipeline` too).
Errors are one line (`file:line:col: error: ...`) and exit code 1.

An offline model (`ge-opt net.om`) is read as the optimised IR inside it,
named `net.om:model`: printed unchanged, its lines are the ones an error
located at `net.om:model:LINE:COL` (from `ge-run` or `ge-atc`) points at.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import traceback
from collections.abc import Sequence
from typing import IO, Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.xdsl_opt_main import xDSLOptMain

from ge_dialect.diagnostics import GEError
from ge_dialect.files import write_atomically
from ge_dialect.input_files import (
    OFFLINE_MODEL,
    OFFLINE_MODEL_IR,
    check_input_file,
    check_input_kind,
    input_kind,
)
from ge_dialect.ir_text import print_module
from ge_dialect.limits import budget_of, check_bytes, memory_budget
from ge_dialect.parsing import parse_module
from ge_dialect.verification import StageVerifier
from tools.common import (
    LOG_LEVELS,
    accept_both_spellings,
    add_memory_budget_flag,
    load_plugins,
    logging_to_stderr,
    offline_model_ir,
    one_line_errors,
    run_tool,
)


class PassFlag(argparse.Action):
    """A `--PASS[=OPTIONS]` flag, listed in `--help`.

    The flags are taken out of the command line by `split_pass_flags` before
    argparse runs (so `--PASS FILE` never swallows the file name); this action
    only documents them.
    """

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        raise AssertionError("pass flags are handled by split_pass_flags")


def split_pass_flags(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Separate `--PASS[=OPTIONS]` flags (as pipeline entries) from other
    arguments; `--infer_origin_format` names `infer-origin-format` too."""
    from passes import PASSES

    pipeline: list[str] = []
    rest: list[str] = []
    for arg in argv:
        name, has_options, options = arg.removeprefix("--").partition("=")
        name = name.replace("_", "-")
        if arg.startswith("--") and name in PASSES:
            pipeline.append(f"{name}{{{options}}}" if has_options else name)
        else:
            rest.append(arg)
    return pipeline, rest


class PassHelpFormatter(argparse.HelpFormatter):
    """Shows each pass flag with its docstring's first line and its options
    (`passes.pass_help`: no pass is imported)."""

    def _expand_help(self, action: argparse.Action) -> str:
        if not isinstance(action, PassFlag):
            return super()._expand_help(action)
        from passes import pass_help

        return "\n".join(pass_help()[action.dest])

    def _split_lines(self, text: str, width: int) -> list[str]:
        """Wrap each line on its own (each pass option starts a line)."""
        wrapped = []
        for line in text.splitlines():
            body = line.lstrip()
            indent = line[: len(line) - len(body)]
            pieces = super()._split_lines(body, width - len(indent) - 2) or [""]
            more = f"{indent}  " if indent else ""
            wrapped += [indent + pieces[0], *(more + piece for piece in pieces[1:])]
        return wrapped


class GEOptMain(xDSLOptMain):
    """xDSL's opt driver with the `ge` dialect, passes and one-line diagnostics."""

    def __init__(self, args: Sequence[str] | None = None):
        argv = list(sys.argv[1:] if args is None else args)
        load_plugins(argv)
        self.pass_flags, rest = split_pass_flags(argv)
        self._dumped = 0
        super().__init__(description="GE-xDSL modular optimizer driver", args=rest)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input, a regular file or stdin, within the memory budget; MLIR
        text whatever the file's name (as mlir-opt reads it). An offline
        model's input is the IR inside it (`offline_model_ir`)."""
        if self.args.input_file is not None:
            check_input_file(self.args.input_file, "input")
            if input_kind(self.args.input_file) is OFFLINE_MODEL:
                return io.BytesIO(offline_model_ir(self.args.input_file)), "mlir"
            check_input_kind(self.args.input_file, "IR text (.mlir)")
            stream, _ = super().get_input_stream()
            return stream, "mlir"
        data = sys.stdin.buffer.read(memory_budget() + 1)
        check_bytes(len(data), "the input on stdin", "<stdin>")
        return io.BytesIO(data), "mlir"

    def get_input_name(self) -> str:
        """The input's name in locations: an offline model's IR is
        `MODEL.om:model`, as `ge-run` and `ge-atc` locate errors in it."""
        name = super().get_input_name()
        if self.args.input_file and input_kind(self.args.input_file) is OFFLINE_MODEL:
            return f"{name}:{OFFLINE_MODEL_IR}"
        return name

    def register_all_dialects(self) -> None:
        super().register_all_dialects()
        if "ge" not in self.ctx.registered_dialect_names:
            from ge_dialect.dialect import GE

            self.ctx.load_dialect(GE)

    def register_all_passes(self) -> None:
        super().register_all_passes()
        from passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        one_line_errors(arg_parser)
        arg_parser.formatter_class = PassHelpFormatter
        arg_parser.add_argument(
            "--load-plugin",
            action="append",
            default=[],
            metavar="PATH",
            help="Python file or module to import first (user ops, rules, op info)",
        )
        arg_parser.add_argument(
            "--log",
            default="info",
            choices=tuple(LOG_LEVELS),
            help="level of the passes' log lines on stderr (default info; "
            "mark-fallback logs at info)",
        )
        add_memory_budget_flag(arg_parser)
        arg_parser.add_argument(
            "--mlir-elide-elementsattrs-if-larger",
            type=int,
            metavar="N",
            help="print non-splat constants of more than N elements as "
            "dense_resource<__elided__> (for reading; cannot be read back)",
        )
        arg_parser.add_argument(
            "--mlir-print-elementsattrs-as-resources-if-larger",
            type=int,
            metavar="N",
            help="print non-splat constants of more than N elements as "
            "dense_resource blobs in the file's {-# dialect_resources #-} section",
        )
        arg_parser.add_argument(
            "--dump-graph",
            metavar="DIR",
            help="write the input and the IR after each pass (each pass inside a "
            "pipeline too) to DIR as NN-STAGE.mlir "
            "and a Graphviz picture coloured by storage format (NN-STAGE.dot, and "
            ".svg/.png when Graphviz's dot is installed)",
        )
        arg_parser.add_argument(
            "--opinfo",
            action="append",
            default=[],
            metavar="FILE",
            help="op-information JSON file extending or overriding the builtin one",
        )
        from passes import PASSES

        group = arg_parser.add_argument_group(
            "passes",
            "Each pass is also a flag: --PASS, or --PASS='OPT=V OPT2=W' (the text "
            "inside -p 'PASS{...}'). Options are written data-format or data_format.",
        )
        for name in PASSES:
            group.add_argument(
                f"--{name}",
                dest=name,
                action=PassFlag,
                help=name,
            )
        accept_both_spellings(arg_parser)

    def setup_pipeline(self) -> None:
        if self.args.opinfo:
            from ge_dialect.opinfo import load_opinfo_file

            for path in self.args.opinfo:
                load_opinfo_file(path)
        self.args.passes = ",".join(
            p for p in (self.args.passes, *self.pass_flags) if p
        )
        from passes.options import parse_passes

        self.pipeline = PassPipeline(
            parse_passes(self.args.passes, self.available_passes),
            self._between_passes,
        )
        self.verify = StageVerifier()
        self.timer = None
        if self.args.time_passes:
            from ge_runtime.offline.timing import PassTimer

            self.timer = PassTimer()
        if (
            self.args.print_between_passes
            or self.timer is not None
            or self.args.dump_graph is not None
        ):
            from passes.format_pipeline import NESTED_PASS_CALLBACK

            NESTED_PASS_CALLBACK.set(
                self._between_inner_passes
                if self.args.print_between_passes
                else self._between_passes
            )

    def _between_passes(
        self,
        previous: ModulePass | None,
        module: ModuleOp,
        following: ModulePass | None,
    ) -> None:
        if self.timer is not None and previous is not None:
            self.timer.lap(previous.name)
        if not self.args.disable_verify:
            self.verify(module)
        if previous and following and self.args.print_between_passes:
            print(f"// -----// IR after {previous.name} //----- //")
            Printer(stream=sys.stdout).print_op(module)
            print()
        if self.args.dump_graph is not None:
            self._dump(previous.name if previous else "input", module)
        if self.timer is not None:
            self.timer.mark()  # verification and printing are not the passes'

    def _dump(self, stage: str, module: ModuleOp) -> None:
        """`--dump-graph`: the IR and its picture, numbered in the order made."""
        from ge_runtime.offline.graphviz_dump import dump_stage

        dump_stage(self.args.dump_graph, self._dumped, stage, module)
        self._dumped += 1

    def _between_inner_passes(
        self, inner: ModulePass, module: ModuleOp, pipeline: ModulePass
    ) -> None:
        """After a pass inside a pipeline pass: its IR and the TransData count."""
        from passes.format_pipeline import runtime_transdata_count

        self._between_passes(inner, module, pipeline)
        count = runtime_transdata_count(module)
        print(f"// {count} runtime TransData after {inner.name}\n")

    def apply_passes(self, prog: ModuleOp) -> None:
        """The pipeline; an xDSL pass refusing its options or input (its own
        exception, raised in xDSL's code) is a one-line error naming it."""
        try:
            super().apply_passes(prog)
        except (GEError, MemoryError, RecursionError, OSError):
            raise
        except Exception as error:
            failed = _failed_xdsl_pass(error)
            if failed is None:
                raise
            message = " ".join(str(error).split()) or type(error).__name__
            raise GEError(f"error: pass '{failed}' failed: {message}") from None

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """The output text; MLIR text honours the constant-printing options."""
        if self.args.target != "mlir" or self.args.syntax_highlight:
            return super().output_resulting_program(prog)
        args = self.args
        text = print_module(
            prog,
            self.ctx.loaded_dialects,
            elide_elements_if_larger=args.mlir_elide_elementsattrs_if_larger,
            resources_if_larger=args.mlir_print_elementsattrs_as_resources_if_larger,
            print_generic_format=args.print_op_generic,
            print_properties_as_attributes=args.print_no_properties,
            print_debuginfo=args.print_debuginfo,
        )
        return text + "\n"  # xDSL's mlir target ends with a blank line

    def run(self) -> None:
        with (
            budget_of(self.args.memory_budget),
            logging_to_stderr(
                ("passes", "ge_runtime.offline.graphviz_dump"), self.args.log
            ),
        ):
            self._run()

    def _run(self) -> None:
        if self.args.input_file == "-":  # mlir-opt's name for stdin
            self.args.input_file = None
        chunks, _ = self.prepare_input()
        name = self.get_input_name()
        pieces: list[str] = []
        for chunk, offset in chunks:
            text = chunk.read().decode("utf-8", errors="replace")
            chunk.close()
            try:
                module = parse_module(self.ctx, text, name, offset)
                self.apply_passes(module)
                pieces.append(self.output_resulting_program(module))
            except GEError as error:
                if not self.args.verify_diagnostics:
                    raise
                pieces.append(f"{error}\n")
        output = "// -----\n".join(pieces)
        if self.timer is not None:
            print("\n".join(self.timer.lines()), file=sys.stderr)
        if self.args.output_file is None:
            sys.stdout.write(output)
        else:
            write_atomically(self.args.output_file, output)


def _failed_xdsl_pass(error: Exception) -> str | None:
    """The name of the pass whose `apply` `error` came out of, when the error
    was raised in xDSL's own code (a bug in the project stays internal)."""
    frames = list(traceback.walk_tb(error.__traceback__))
    if not frames or f"{os.sep}xdsl{os.sep}" not in frames[-1][0].f_code.co_filename:
        return None
    passes = [
        frame.f_locals["self"]
        for frame, _ in frames
        if isinstance(frame.f_locals.get("self"), ModulePass)
    ]
    return passes[-1].name if passes else None


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of `ge-opt`."""
    return run_tool("ge-opt", lambda: GEOptMain(argv).run())


if __name__ == "__main__":
    sys.exit(main())
