"""The bad-input promise on inputs mutated at random.

Valid IR text, ONNX models (binary and text) and offline models get byte
flips, truncation, and tokens deleted or duplicated; each mutant goes
through the tool that reads it, in this process (`ge-opt`, `ge-translate
--import-onnx`, `ge-atc --mode=1`). Whatever the mutant, the tool exits 0
with its output written, or exits 1 with exactly one line on stderr (no
traceback, no internal error, no Python wording) and no output file. The
corpus (`tests/test_bad_inputs.py`) holds the cases found and fixed; this
looks for the next ones in a bounded budget of examples.
"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import onnx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CORPUS = Path(__file__).parent / "bad_inputs"
VALID_IR = (CORPUS / "valid.mlir").read_bytes()
VALID_ONNX_TEXT = (CORPUS / "valid.onnxtxt").read_bytes()
VALID_OM = (CORPUS / "om-valid.om").read_bytes()
PYTHON_WORDING = re.compile(
    r"Traceback|internal error|Error:|unhashable|not subscriptable|"
    r"has no attribute|object is not|unpack|\(expected \d+, got \d+\)"
)
"""What Python's own exceptions say, which no diagnostic should."""


def valid_onnx_binary() -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "the onnxtxt format is experimental"
        return onnx.load(str(CORPUS / "valid.onnxtxt")).SerializeToString()


VALID_ONNX = valid_onnx_binary()
TOKEN = re.compile(rb"\w+|[^\w\s]")

Mutation = tuple[str, float, int]


def mutate(data: bytes, mutations: Sequence[Mutation]) -> bytes:
    """`data` after each `(kind, where, n)`: flip bit `n % 8` of the byte at
    the fraction `where`, truncate there, or delete or duplicate the token
    found there."""
    for kind, where, n in mutations:
        if not data:
            break
        at = min(int(where * len(data)), len(data) - 1)
        if kind == "flip":
            data = data[:at] + bytes([data[at] ^ (1 << (n % 8))]) + data[at + 1 :]
        elif kind == "truncate":
            data = data[:at]
        else:
            tokens = list(TOKEN.finditer(data))
            if not tokens:
                continue
            token = tokens[min(int(where * len(tokens)), len(tokens) - 1)]
            start, end = token.span()
            copies = 0 if kind == "delete" else 2
            data = data[:start] + token.group() * copies + data[end:]
    return data


mutations = st.lists(
    st.tuples(
        st.sampled_from(["flip", "truncate", "delete", "duplicate"]),
        st.floats(0, 1, allow_nan=False),
        st.integers(0, 255),
    ),
    min_size=1,
    max_size=3,
)


def keeps_the_promise(
    main: Callable[[list[str]], int], args: list[str], output: Path
) -> None:
    """Run `main(args)`; exit 0 with `output` written, or 1 with one clean
    line on stderr and no `output`."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        code = main(args)
    message = err.getvalue()
    if code == 0:
        assert output.exists(), message
        return
    assert code == 1, message
    lines = message.splitlines()
    assert len(lines) == 1, message
    assert PYTHON_WORDING.search(lines[0]) is None, lines[0]
    assert not output.exists(), lines[0]
    assert not list(output.parent.glob(".*partial*")), lines[0]


def run_mutant(
    data: bytes,
    name: str,
    main: Callable[[list[str]], int],
    args: Callable[[Path, Path], list[str]],
    output_name: str,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / name
        source.write_bytes(data)
        output = Path(folder) / "out" / output_name
        output.parent.mkdir()
        keeps_the_promise(main, args(source, output), output)


FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))


@FUZZ
@given(mutations)
def test_mutated_ir_keeps_the_promise(edits: list[Mutation]) -> None:
    from tools import ge_opt

    run_mutant(
        mutate(VALID_IR, edits),
        "m.mlir",
        ge_opt.main,
        lambda source, output: [str(source), "-o", str(output)],
        "out.mlir",
    )


@FUZZ
@given(mutations, st.booleans())
def test_mutated_onnx_keeps_the_promise(edits: list[Mutation], text: bool) -> None:
    from tools import ge_translate

    valid, name = (VALID_ONNX_TEXT, "m.onnxtxt") if text else (VALID_ONNX, "m.onnx")
    run_mutant(
        mutate(valid, edits),
        name,
        ge_translate.main,
        lambda source, output: ["--import-onnx", str(source), "-o", str(output)],
        "out.mlir",
    )


@FUZZ
@given(mutations)
def test_mutated_offline_model_keeps_the_promise(edits: list[Mutation]) -> None:
    from tools import ge_atc

    run_mutant(
        mutate(VALID_OM, edits),
        "m.om",
        ge_atc.main,
        lambda source, output: ["--mode=1", f"--om={source}", f"--json={output}"],
        "out.json",
    )
