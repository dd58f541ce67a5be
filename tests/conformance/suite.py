"""ONNX's backend node suite through the user's path: `ge-atc`, then `ge-run`.

The installed onnx package builds every node test case in memory
(`onnx.backend.test.case.node.collect_testcases`: a one-node model, or for
`*_expanded` cases the node's function body, with its inputs and expected
outputs). Each case runs as a user would run it, through the tools' own
`main` functions in-process:

1. the model is written as `CASE/model.onnx` and its inputs as `.npy` files
   (`np.save`, as a user writes them; a sequence input as an `.npz` of
   arrays `0` to `n-1`, an absent optional as an empty `.npz`);
2. `ge-atc --model=CASE/model.onnx --framework=5 --output=CASE/model`
   (with `--input_shape` for sequence and optional inputs: their elements'
   shapes `x:([2,3],[4])`, or `x:none`);
3. `ge-run CASE/model.om --input NAME=FILE ... --trace` (the JIT), and
   `ge-run CASE/model.om ... --reference` (the reference evaluator);
4. each output either run wrote (an `.npy`; an `.npz` for a sequence or an
   absent optional) is compared with the expected output:
   shapes and dtypes exactly, floats with `rtol=1e-3, atol=1e-4` (NaN where
   NaN is expected, infinities of the same sign), everything else exactly.
   A float dtype coarser than that (bfloat16, the float8 types) is compared
   at two units of its rounding (`rtol = 2 * eps`): the expected outputs
   come from NumPy rounding to the dtype after every elementwise step, where
   a kernel rounds once per op, so the two differ by an ulp or two.

A case's `Status`: `pass` (both runs right, and `--trace` shows every op ran
on the JIT), `refused` (a one-line error from a tool: the message is what
the user sees, with the case folder as the path), `not-jit` (right numbers,
but some part ran on the reference evaluator or a host fallback: the
message names them), `wrong` (an output differs) or `crash` (an internal
error or a message that is not one line).

`EXPECTATIONS` (checked in) lists every case that does not pass with its
status and message; `differences` compares a run with it. Regenerate it with
`python bench/bench_conformance.py --update` (or `GE_CONFORMANCE_UPDATE=1`
with the slow test).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import io
import re
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
from onnx import numpy_helper

from tools import ge_atc, ge_run

EXPECTATIONS = Path(__file__).resolve().parent / "expected.txt"
"""The cases that do not pass: `name<TAB>status<TAB>message`, one per line."""

UPDATE_HINT = (
    "regenerate tests/conformance/expected.txt with "
    "`python bench/bench_conformance.py --update` "
    "(or `GE_CONFORMANCE_UPDATE=1 python -m pytest -m slow "
    "tests/test_onnx_conformance.py`) and review its diff"
)

RTOL = 1e-3
ATOL = 1e-4
SEED = 0
"""`np.random` seed while the onnx package builds the cases (their random data)."""

EXPANDED = re.compile(r"_expanded(_ver\d+)?$")
"""The suffix of a case that runs the function body of its op."""
SUMMARY = re.compile(r"^(?P<file>\S+\.np[yz]): (shape \[|a sequence|no value)")
"""A `ge-run` line naming an output file it wrote."""
NO_VALUE = ": no value"
"""How `ge-run` describes an absent optional output."""
JIT_TRACE = re.compile(
    r" (sunk \(part \d+, (jit|\d+ streams)[),]|host kernel \(jit kernel )"
)
"""A `ge-run --trace` line of an op that ran on the JIT (`jit, 2 nest(s)
element by element: ...` too: compiled, in its scalar path)."""


class Status(enum.StrEnum):
    """What happened to a case."""

    PASS = "pass"
    REFUSED = "refused"
    NOT_JIT = "not-jit"
    WRONG = "wrong"
    CRASH = "crash"


@dataclass(frozen=True)
class Case:
    """One node test case: the op it tests, its model, inputs and outputs."""

    name: str
    family: str
    """The ONNX op the case tests (`domain.Op` outside the default domain)."""
    model: onnx.ModelProto
    inputs: tuple[object, ...]
    outputs: tuple[object, ...]

    @property
    def expanded(self) -> bool:
        """Whether the case runs the op's function body instead of the op."""
        return EXPANDED.search(self.name) is not None


@dataclass(frozen=True)
class Outcome:
    """The result of one case."""

    name: str
    family: str
    status: Status
    message: str = ""
    seconds: float = 0.0

    @property
    def expectation(self) -> tuple[Status, str]:
        """What the expectation file says for this outcome."""
        return self.status, self.message


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------


def as_array(value: object) -> object:
    """An input or output of a case as NumPy (sequences and None stay;
    strings, which onnx holds as object arrays, as NumPy unicode: what a
    user saves to `.npy` without pickling)."""
    if isinstance(value, onnx.TensorProto):
        value = numpy_helper.to_array(value)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return value.astype(np.str_)
    return value


@functools.cache
def load_cases() -> tuple[Case, ...]:
    """Every node case of the installed onnx package, sorted by name.

    The onnx package draws the cases' data from `np.random`; it is seeded
    here (and its state restored), so every run sees the same data.
    """
    from onnx.backend.test.case.node import collect_testcases

    state = np.random.get_state()
    np.random.seed(SEED)
    try:
        with warnings.catch_warnings():  # the generators divide by zero on purpose
            warnings.simplefilter("ignore")
            collected = collect_testcases()
    finally:
        np.random.set_state(state)
    families = {
        case.name: _family(case.model.graph.node[0])
        for case in collected
        if not EXPANDED.search(case.name)
    }
    cases = []
    for case in collected:
        (inputs, outputs) = case.data_sets[0]
        base = EXPANDED.sub("", case.name)
        cases.append(
            Case(
                case.name,
                families.get(base) or _family(case.model.graph.node[0]),
                case.model,
                tuple(as_array(a) for a in inputs),
                tuple(as_array(a) for a in outputs),
            )
        )
    return tuple(sorted(cases, key=lambda case: case.name))


def _family(node: onnx.NodeProto) -> str:
    if node.domain in ("", "ai.onnx"):
        return node.op_type
    return f"{node.domain}.{node.op_type}"


def sample(
    cases: Iterable[Case], expected: Mapping[str, tuple[Status, str]]
) -> list[Case]:
    """The default run's fixed sample: every op, each way it is expected to end.

    Per op family, the first case (by name) of each (direct or expanded,
    expected status) group, so every op is covered and so is every outcome
    the expectation file records for it.
    """
    chosen: dict[tuple[str, bool, Status], Case] = {}
    for case in cases:
        status = expected.get(case.name, (Status.PASS, ""))[0]
        chosen.setdefault((case.family, case.expanded, status), case)
    return sorted(chosen.values(), key=lambda case: case.name)


# ---------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolRun:
    """An in-process run of a tool's `main`: exit code, stdout and stderr."""

    code: int
    out: str
    err: str


def run_tool(main: Callable[[list[str]], int], argv: Sequence[str]) -> ToolRun:
    """Run a tool's `main` in-process, capturing what it prints."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")  # NumPy's on the cases' special values
        code = main([str(a) for a in argv])
    return ToolRun(code, out.getvalue(), err.getvalue())


class CaseFailure(Exception):
    """Ends a case early with its status and message."""

    def __init__(self, status: Status, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def failure_of(run: ToolRun, tool: str, workdir: Path) -> CaseFailure:
    """A failed tool run as `refused` (one-line error) or `crash`."""
    message = run.err.strip().replace(f"{workdir}/", "")
    lines = message.splitlines()
    if len(lines) != 1:
        shown = " | ".join(lines[-3:]) or f"{tool} exited {run.code} with no message"
        return CaseFailure(Status.CRASH, f"{len(lines)}-line error: {shown}")
    if "internal error" in message or "Traceback" in message:
        return CaseFailure(Status.CRASH, message)
    return CaseFailure(Status.REFUSED, message)


def graph_inputs(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The model's inputs that are not initializers."""
    initialized = {init.name for init in model.graph.initializer}
    return [v for v in model.graph.input if v.name not in initialized]


def structured_input_shapes(case: Case) -> str:
    """`--input_shape` of the case's sequence and optional inputs (their
    elements' shapes, `x:([2,3],[4])`; an absent optional `x:none`), which
    `ge-atc` needs to resolve them into tensors."""
    entries = []
    for info, value in zip(graph_inputs(case.model), case.inputs, strict=False):
        kind = info.type.WhichOneof("value")
        if kind not in ("sequence_type", "optional_type"):
            continue
        if value is None:
            entries.append(f"{info.name}:none")
        elif isinstance(value, list):
            shapes = ",".join(
                f"[{','.join(str(d) for d in np.shape(v))}]" for v in value
            )
            entries.append(f"{info.name}:({shapes})")
        else:
            entries.append(f"{info.name}:{','.join(str(d) for d in np.shape(value))}")
    return ";".join(entries)


def write_input(folder: Path, name: str, value: object) -> Path:
    """An input file as a user writes it: a tensor as `.npy`, a sequence as
    an `.npz` of arrays `0` to `n-1`, an absent optional as an empty `.npz`."""
    stem = folder / f"input_{len(list(folder.glob('input_*')))}"
    if isinstance(value, np.ndarray):
        path = stem.with_suffix(".npy")
        np.save(path, value, allow_pickle=False)
        return path
    if value is not None and not isinstance(value, list):
        raise CaseFailure(Status.CRASH, f"input '{name}' is a {type(value).__name__}")
    path = stem.with_suffix(".npz")
    np.savez(path, **{str(i): np.asarray(v) for i, v in enumerate(value or [])})
    return path


Output = np.ndarray | list[np.ndarray] | None
"""An output as a file holds it: a tensor, a sequence, an absent optional."""


def written_outputs(run: ToolRun, directory: Path) -> list[Output]:
    """The outputs a `ge-run` wrote, in the order of its summary lines: an
    `.npy` a tensor, an `.npz` a sequence (arrays `0` to `n-1`) or, when its
    line says there is no value, an absent optional."""
    outputs: list[Output] = []
    for line in run.out.splitlines():
        if (match := SUMMARY.match(line)) is None:
            continue
        path = directory / match["file"]
        if path.suffix == ".npy":
            outputs.append(np.load(path, allow_pickle=False))
        elif NO_VALUE in line:
            outputs.append(None)
        else:
            with np.load(path, allow_pickle=False) as archive:
                outputs.append([archive[str(i)] for i in range(len(archive.files))])
    return outputs


def non_jit_parts(run: ToolRun) -> str | None:
    """What `ge-run --trace` says did not run on the JIT (None: all of it did).

    Ops are grouped by how they ran: `sunk (part 0, reference: why): ge.a, ge.b`.
    """
    groups: dict[str, list[str]] = defaultdict(list)
    for line in run.out.splitlines():
        if not line.startswith("trace: ") or JIT_TRACE.search(line):
            continue
        fields = line.removeprefix("trace: ").rsplit(" -> ", 1)[0].split(" ", 3)
        if len(fields) < 4:
            groups[line].append("?")
            continue
        _, op, _, how = fields
        if op not in groups[how]:
            groups[how].append(op)
    if not groups:
        return None
    return "ge-run --trace: " + "; ".join(
        f"{how}: {', '.join(ops)}" for how, ops in groups.items()
    )


def is_float(dtype: np.dtype) -> bool:
    """Whether `dtype` is a floating-point type (NumPy's or ml_dtypes')."""
    if dtype.kind == "f":
        return True
    try:
        ml_dtypes.finfo(dtype)
    except ValueError:
        return False
    return True


def float_rtol(dtype: np.dtype) -> float:
    """The relative tolerance for floats of `dtype`: `RTOL`, or two units of
    rounding (2 * eps) for a dtype whose eps is coarser (bfloat16, float8)."""
    eps = float(ml_dtypes.finfo(dtype).eps)
    return RTOL if eps <= RTOL else 2 * eps


def mismatch(got: np.ndarray, expected: np.ndarray) -> str | None:
    """How `got` differs from `expected` (None: it does not)."""
    expected = np.asarray(expected)
    if got.shape != expected.shape:
        return f"shape {list(got.shape)}, expected {list(expected.shape)}"
    if got.dtype != expected.dtype and not got.dtype.kind == expected.dtype.kind == "U":
        return f"dtype {got.dtype}, expected {expected.dtype}"
    if is_float(expected.dtype):
        ours, theirs = got.astype(np.float64), expected.astype(np.float64)
        close = np.isclose(
            ours, theirs, rtol=float_rtol(expected.dtype), atol=ATOL, equal_nan=True
        )
        if close.all():
            return None
        where = tuple(int(i) for i in np.argwhere(~close)[0])
        return (
            f"{int((~close).sum())} of {close.size} elements off, first at "
            f"{list(where)}: {ours[where]!r}, expected {theirs[where]!r}"
        )
    if expected.dtype.kind == "V":  # ml_dtypes' integer types
        got, expected = got.astype(np.int64), expected.astype(np.int64)
    if np.array_equal(got, expected):
        return None
    off = got != expected
    where = tuple(int(i) for i in np.argwhere(off)[0])
    return (
        f"{int(off.sum())} of {off.size} elements differ, first at {list(where)}: "
        f"{got[where]!r}, expected {expected[where]!r}"
    )


def structured_mismatch(got: Output, expected: object) -> str | None:
    """How an output differs from the expectation, sequences and absent
    optionals included (None: it does not)."""
    if expected is None or got is None:
        if expected is None and got is None:
            return None
        return "no value, expected one" if got is None else "a value, expected none"
    if isinstance(expected, list) != isinstance(got, list):
        return (
            "a sequence, expected a tensor"
            if isinstance(got, list)
            else ("a tensor, expected a sequence")
        )
    if isinstance(got, list):
        assert isinstance(expected, list)
        if len(got) != len(expected):
            return f"a sequence of {len(got)}, expected {len(expected)}"
        for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
            if (why := mismatch(ours, theirs)) is not None:
                return f"element {index}: {why}"
        return None
    return mismatch(got, expected)  # type: ignore[arg-type]


def compare(label: str, got: Sequence[Output], expected: Sequence[object]) -> None:
    """Raise `wrong` if an output of the `label` run differs from the expectation."""
    if len(got) != len(expected):
        raise CaseFailure(
            Status.WRONG, f"{label}: {len(got)} outputs, expected {len(expected)}"
        )
    for index, (ours, theirs) in enumerate(zip(got, expected, strict=True)):
        if (why := structured_mismatch(ours, theirs)) is not None:
            raise CaseFailure(Status.WRONG, f"{label}: output {index}: {why}")


def run_case(case: Case, workdir: Path) -> Outcome:
    """Run one case in `workdir/<case name>/` (see the module docstring)."""
    start = time.perf_counter()
    try:
        _run(case, workdir)
    except CaseFailure as failure:
        status, message = failure.status, failure.message
    else:
        status, message = Status.PASS, ""
    return Outcome(case.name, case.family, status, message, time.perf_counter() - start)


def _run(case: Case, workdir: Path) -> None:
    folder = workdir / case.name
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / "model.onnx"
    onnx.save(case.model, model)
    shapes = structured_input_shapes(case)
    compiled = run_tool(
        ge_atc.main,
        [
            f"--model={model}",
            "--framework=5",
            f"--output={folder / 'model'}",
            "--log=error",
            *([f"--input_shape={shapes}"] if shapes else []),
        ],
    )
    if compiled.code:
        raise failure_of(compiled, "ge-atc", workdir)
    feeds: list[str] = []
    for info, value in zip(graph_inputs(case.model), case.inputs, strict=False):
        feeds += ["--input", f"{info.name}={write_input(folder, info.name, value)}"]
    om = folder / "model.om"
    jit = run_tool(
        ge_run.main, [om, *feeds, "--trace", f"--output-dir={folder / 'jit'}"]
    )
    if jit.code:
        raise failure_of(jit, "ge-run", workdir)
    compare("jit", written_outputs(jit, folder / "jit"), case.outputs)
    reference = run_tool(
        ge_run.main, [om, *feeds, "--reference", f"--output-dir={folder / 'reference'}"]
    )
    if reference.code:
        raise failure_of(reference, "ge-run --reference", workdir)
    compare("reference", written_outputs(reference, folder / "reference"), case.outputs)
    if (parts := non_jit_parts(jit)) is not None:
        raise CaseFailure(Status.NOT_JIT, parts)


def run_cases(
    cases: Iterable[Case],
    workdir: Path,
    progress: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run `cases` in order (each in its folder under `workdir`)."""
    outcomes = []
    for case in cases:
        outcome = run_case(case, workdir)
        if progress is not None:
            progress(outcome)
        outcomes.append(outcome)
    return outcomes


# ---------------------------------------------------------------------------
# The expectation file
# ---------------------------------------------------------------------------


HEADER = (
    "# The ONNX backend node cases (onnx {version}) that do not pass through\n"
    "# ge-atc + ge-run: name<TAB>status<TAB>the message the user sees.\n"
    "# Every case not listed passes. Regenerate: "
    "python bench/bench_conformance.py --update\n"
)
VERSION_LINE = re.compile(r"^# The ONNX backend node cases \(onnx (?P<version>\S+)\)")


def read_expectations(
    path: Path = EXPECTATIONS,
) -> tuple[str, dict[str, tuple[Status, str]]]:
    """The onnx version the file was made with, and its entries by case name."""
    version = ""
    entries: dict[str, tuple[Status, str]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            if match := VERSION_LINE.match(line):
                version = match["version"]
            continue
        name, status, message = line.split("\t", 2)
        entries[name] = (Status(status), message)
    return version, entries


def write_expectations(
    outcomes: Iterable[Outcome],
    path: Path = EXPECTATIONS,
    kept: Mapping[str, tuple[Status, str]] | None = None,
) -> None:
    """Write every outcome that is not a pass, sorted by case name.

    `kept` holds the entries of cases this run did not run (a run of some
    families only); they are written unchanged.
    """
    entries = dict(kept or {})
    entries.update((o.name, o.expectation) for o in outcomes)
    lines = [
        f"{name}\t{status}\t{message}"
        for name, (status, message) in sorted(entries.items())
        if status is not Status.PASS
    ]
    path.write_text(HEADER.format(version=onnx.__version__) + "\n".join(lines) + "\n")


def differences(
    outcomes: Iterable[Outcome], expected: Mapping[str, tuple[Status, str]]
) -> list[str]:
    """One line per outcome that the expectation file does not predict."""
    lines = []
    for outcome in outcomes:
        was = expected.get(outcome.name, (Status.PASS, ""))
        if outcome.expectation == was:
            continue
        before = f"{was[0]}" + (f" ({was[1]})" if was[1] else "")
        now = f"{outcome.status}" + (f" ({outcome.message})" if outcome.message else "")
        lines.append(f"{outcome.name}: expected {before}, got {now}")
    return lines


# ---------------------------------------------------------------------------
# Reports
# ---------------------------------------------------------------------------


def family_counts(outcomes: Iterable[Outcome]) -> dict[str, Counter[Status]]:
    """Per op family, how many cases ended in each status (sorted by family)."""
    counts: dict[str, Counter[Status]] = defaultdict(Counter)
    for outcome in outcomes:
        counts[outcome.family][outcome.status] += 1
    return dict(sorted(counts.items()))


def table(outcomes: Sequence[Outcome]) -> list[str]:
    """A Markdown table: per op family, cases and how many ended each way."""
    statuses = list(Status)
    lines = [
        "| op family | cases | " + " | ".join(statuses) + " |",
        "|---|---:|" + "---:|" * len(statuses),
    ]
    for family, counts in family_counts(outcomes).items():
        cells = " | ".join(str(counts[s]) for s in statuses)
        lines.append(f"| {family} | {sum(counts.values())} | {cells} |")
    total = Counter(o.status for o in outcomes)
    cells = " | ".join(str(total[s]) for s in statuses)
    lines.append(f"| **total** | {len(outcomes)} | {cells} |")
    return lines
