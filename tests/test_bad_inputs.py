"""The bad-input corpus: every malformed or hostile input fails cleanly.

Cases come from two places, run by one parametrized test:

- `tests/bad_inputs/cases*.json`: one entry per malformed input (MLIR syntax,
  verifier rules, dataflow cycles, passes rejecting IR, bad pass options and
  flags, broken, unsupported or hostile ONNX models, corrupt or forged
  offline models, bad `.npy` inputs, resource bombs, paths out of a model's
  folder, ...), each `{"name", "args": [TOOL, ...], "expect"}` where `{dir}`
  stands for `tests/bad_inputs`, `{out}` for an empty scratch directory and
  `{in}` for its parent, where the optional `"files"` are written first:
  `{"NAME": "text"}`, or `{"NAME": {"generate": GENERATOR, ...}}` for inputs
  too big to keep or made from another (`GENERATORS`: deep nesting, one
  valid single-op file or offline model mutated, TensorFlow graphs), and
  `{"NAME": {"folder_mode": "0777"}}` for a folder, `{"NAME": {"symlink_to":
  PATH}}` for a symbolic link; the optional `"env"`
  sets environment variables (`GE_XDSL_CACHE`);
- every `// -----` chunk of `tests/filecheck/dialect/invalid-*.mlir` (the
  dialect's verifier rules), run through `ge-opt` on its own, expecting the
  file:line:col and message of its `CHECK` line.

Each must: exit with code 1, print exactly one line on stderr (no
traceback, no internal error, no warning) that contains the expected
diagnostic, nothing on stdout, leave `{out}` empty (no partial output
file), and finish within `CASE_SECONDS` inside a process whose address
space is limited to `MEMORY_LIMIT` (a case that tried to allocate what an
input claims would fail with "out of memory" instead of its diagnostic).

The tools run in-process in `WORKERS` long-lived worker processes (this
file run as a script), so the whole corpus takes seconds:
`test_console_scripts_fail_cleanly` runs a few cases through the installed
console scripts.
"""

from __future__ import annotations

import io
import json
import os
import queue
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).parent / "bad_inputs"
DIALECT = Path(__file__).parent / "filecheck" / "dialect"

MEMORY_LIMIT = 3 << 30
"""Address-space limit of the worker processes (RLIMIT_AS)."""
CASE_SECONDS = 30.0
"""The most one case may take (a worker is killed after twice that)."""
WORKERS = 2


# ---------------------------------------------------------------------------
# Generated inputs
# ---------------------------------------------------------------------------


def nested_graph(depth: int, op: str = "partitioned_call") -> str:
    """A graph whose ops nest `depth` regions deep (`ge.partitioned_call` or
    `ge.if` inside each other)."""
    tensor = "tensor<2xf32>"
    block = ""
    for level in range(depth):
        data = f"%a{level} = ge.data {{parent_index = 1 : i64}} : {tensor}\n"
        cond = f"%c{level} = ge.data {{parent_index = 0 : i64}} : tensor<i1>\n"
        if level == 0:
            block = f"{cond}{data}ge.netoutput %a0 : {tensor}"
        elif op == "if":
            block = (
                f"{cond}{data}%r{level} = ge.if %c{level}, %a{level} : "
                f"(tensor<i1>, {tensor}) -> {tensor} then {{\n{block}\n}} else {{\n"
                f"%e{level} = ge.data {{parent_index = 1 : i64}} : {tensor}\n"
                f"ge.netoutput %e{level} : {tensor}\n}}\n"
                f"ge.netoutput %r{level} : {tensor}"
            )
        else:
            block = (
                f"{cond}{data}%r{level} = ge.partitioned_call %c{level}, %a{level} : "
                f"(tensor<i1>, {tensor}) -> {tensor} {{\n{block}\n}}\n"
                f"ge.netoutput %r{level} : {tensor}"
            )
    return (
        "ge.graph @main {\n%c = ge.data {index = 0 : i64} : tensor<i1>\n"
        f"%x = ge.data {{index = 1 : i64}} : {tensor}\n"
        f"%r = ge.partitioned_call %c, %x : (tensor<i1>, {tensor}) -> {tensor} {{\n"
        f"{block}\n}}\nge.netoutput %r : {tensor}\n}}\n"
    )


def nested_while(depth: int) -> str:
    """A graph of `ge.while` loops nested `depth` deep in each other's body,
    every condition a constant true (the innermost one runs away)."""
    tensor = "tensor<2xf32>"
    body = (
        f"%b = ge.data {{parent_index = 0 : i64}} : {tensor}\n"
        f"ge.netoutput %b : {tensor}"
    )
    for level in range(depth):
        body = (
            f"%b{level} = ge.data {{parent_index = 0 : i64}} : {tensor}\n"
            f"%w{level} = ge.while %b{level} : ({tensor}) -> {tensor} cond {{\n"
            f"%a{level} = ge.data {{parent_index = 0 : i64}} : {tensor}\n"
            f"%t{level} = ge.const {{value = dense<1> : tensor<i32>}} : tensor<i32>\n"
            f"ge.netoutput %t{level} : tensor<i32>\n}} body {{\n{body}\n}}\n"
            f"ge.netoutput %w{level} : {tensor}"
        )
    return (
        f'ge.graph @main {{\n%x = ge.data {{index = 0 : i64, name = "x"}} : {tensor}\n'
        f"%r = ge.partitioned_call %x : ({tensor}) -> {tensor} {{\n{body}\n}}\n"
        f"ge.netoutput %r : {tensor}\n}}\n"
    )


def nested_json(depth: int, key: str | None = None) -> str:
    """`[[[...]]]` (or `{"key": {...}}`) nested `depth` deep."""
    if key is None:
        return "[" * depth + "]" * depth + "\n"
    return f'{{"{key}": ' * depth + "1" + "}" * depth + "\n"


def nested_attribute(depth: int) -> str:
    """A graph whose `ge.data` carries an array attribute nested `depth` deep."""
    junk = "[" * depth + "]" * depth
    return (
        "ge.graph @main {\n"
        f"  %x = ge.data {{index = 0 : i64, junk = {junk}}} : tensor<2xf32>\n"
        "  ge.netoutput %x : tensor<2xf32>\n}\n"
    )


SINGLEOP_CONV: dict[str, Any] = {
    "op": "Conv2D",
    "input_desc": [
        {
            "name": "x",
            "format": "NC1HWC0",
            "origin_format": "NCHW",
            "shape": [1, 2, 8, 8, 16],
            "origin_shape": [1, 17, 8, 8],
            "type": "float16",
        },
        {
            "name": "filter",
            "format": "FRACTAL_Z",
            "origin_format": "NCHW",
            "shape": [18, 3, 16, 16],
            "origin_shape": [33, 17, 3, 3],
            "type": "float16",
        },
        {"name": "bias", "format": "ND", "shape": [33], "type": "float16"},
    ],
    "output_desc": [
        {
            "format": "NC1HWC0",
            "origin_format": "NCHW",
            "shape": [1, 3, 8, 8, 16],
            "origin_shape": [1, 33, 8, 8],
            "type": "float16",
        }
    ],
    "attr": [
        {"name": "strides", "type": "list_int", "value": [1, 1, 1, 1]},
        {"name": "pads", "type": "list_int", "value": [1, 1, 1, 1]},
        {"name": "dilations", "type": "list_int", "value": [1, 1, 1, 1]},
        {"name": "groups", "type": "int", "value": 1},
        {"name": "data_format", "type": "string", "value": "NCHW"},
        {"name": "offset_x", "type": "int", "value": 0},
    ],
}
"""A valid single-op description: a 3x3 Conv2D from 17 to 33 channels, in
storage formats (`ge-atc --singleop`)."""


def singleop(edits: dict[str, Any]) -> str:
    """`SINGLEOP_CONV` as a one-op `--singleop` file, with `edits` applied:
    `{"input_desc.0.origin_shape.1": -17}` replaces that one field."""
    op = json.loads(json.dumps(SINGLEOP_CONV))
    for path, value in edits.items():
        *parents, last = (int(key) if key.isdigit() else key for key in path.split("."))
        holder = op
        for key in parents:
            holder = holder[key]
        holder[last] = value
    return json.dumps([op], indent=1) + "\n"


def tf_graph(nodes: list[dict[str, Any]]) -> str:
    """A TensorFlow GraphDef in text form. Each node is `{"name", "op",
    "input": [...], "attr": {KEY: "AttrValue text"}}` with shorthands for the
    usual attributes: `"dtype"`/`"T"`/`"Tidx"`: a type (`DT_FLOAT`),
    `"shape"`: dims, `"value"`: `{"dtype", "shape", "int_val": [...]}` (any
    `*_val` field, or `"tensor_content"` as escaped text)."""
    lines = []
    for node in nodes:
        attrs = dict(node.get("attr", {}))
        for key in ("dtype", "T", "Tidx"):
            if key in node:
                attrs[key] = f"type: {node[key]}"
        if "shape" in node:
            attrs["shape"] = f"shape {{ {_tf_dims(node['shape'])} }}"
        if "value" in node:
            value = dict(node["value"])
            fields = [f"dtype: {value.pop('dtype')}"]
            fields.append(f"tensor_shape {{ {_tf_dims(value.pop('shape', []))} }}")
            for field_name, items in value.items():
                if field_name == "tensor_content":
                    fields.append(f'tensor_content: "{items}"')
                else:
                    fields += [f"{field_name}: {json.dumps(item)}" for item in items]
            attrs["value"] = f"tensor {{ {' '.join(fields)} }}"
        inputs = "".join(f' input: "{source}"' for source in node.get("input", []))
        attr_text = "".join(
            f' attr {{ key: "{key}" value {{ {text} }} }}'
            for key, text in attrs.items()
        )
        lines.append(
            f'node {{ name: "{node["name"]}" op: "{node["op"]}"{inputs}{attr_text} }}'
        )
    return "\n".join(lines) + "\n"


def _tf_dims(dims: Sequence[int]) -> str:
    return " ".join(f"dim {{ size: {size} }}" for size in dims)


def om_flip(at: float, bit: int = 0) -> bytes:
    """`om-valid.om` with one bit flipped at the fraction `at` of its length."""
    data = bytearray((CORPUS / "om-valid.om").read_bytes())
    data[int(at * (len(data) - 1))] ^= 1 << bit
    return bytes(data)


def om_truncated(at: float) -> bytes:
    """`om-valid.om` cut at the fraction `at` of its length."""
    data = (CORPUS / "om-valid.om").read_bytes()
    return data[: int(at * len(data))]


def npy_array(values: list[Any], dtype: str) -> bytes:
    """`values` as a `.npy` file of `dtype` (a runtime input)."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.array(values, dtype=dtype))
    return buffer.getvalue()


def onnx_external(location: str) -> bytes:
    """An ONNX model `y = x + w` whose 4-float `w` is external data at
    `location` (the data file is another of the case's files)."""
    from onnx import TensorProto, helper

    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], [0.0] * 4)
    weight.ClearField("float_data")
    weight.data_location = TensorProto.EXTERNAL
    weight.external_data.add(key="location", value=location)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
        [weight],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString()


def long_string(size: int, after: str, close: bool = True) -> str:
    """A graph whose `ge.data` name is a `size`-character string (left open
    when not `close`), then the `after` line."""
    quote = '"' if close else ""
    return (
        'ge.graph @main {\n  %x = ge.data {index = 0 : i64, name = "'
        + "a" * size
        + f"{quote}}} : tensor<2xf32>\n{after}  ge.netoutput %x : tensor<2xf32>\n}}\n"
    )


def pickled_npy() -> bytes:
    """A `.npy` of dtype object (its data a pickle)."""
    import numpy as np

    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    return buffer.getvalue()


def onnx_custom_domain() -> bytes:
    """A valid ONNX model `y = Relu(x)` whose Relu is in a domain no runtime
    knows (the checker accepts it, onnxruntime refuses it)."""
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], domain="com.unknown")],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.unknown", 1)]
    return helper.make_model(graph, opset_imports=opsets).SerializeToString()


def counted_loop(trips: int) -> str:
    """A valid graph: `x + 1` `trips` times in a `ge.while` (an ONNX Loop)."""
    i64, i1, f2 = "tensor<i64>", "tensor<i1>", "tensor<2xf32>"
    return f"""ge.graph @main {{
  %x = ge.data {{index = 0 : i64, name = "x"}} : {f2}
  %i = ge.const {{value = dense<0> : {i64}}} : {i64}
  %c = ge.const {{value = dense<true> : {i1}}} : {i1}
  %n, %k, %y = ge.while %i, %c, %x : ({i64}, {i1}, {f2}) -> ({i64}, {i1}, {f2}) cond {{
    %a = ge.data {{parent_index = 0 : i64}} : {i64}
    %b = ge.data {{parent_index = 1 : i64}} : {i1}
    %v = ge.data {{parent_index = 2 : i64}} : {f2}
    %m = ge.const {{value = dense<{trips}> : {i64}}} : {i64}
    %l = ge.less %a, %m : ({i64}, {i64}) -> {i1}
    %go = ge.logical_and %l, %b : ({i1}, {i1}) -> {i1}
    ge.netoutput %go : {i1}
  }} body {{
    %a = ge.data {{parent_index = 0 : i64}} : {i64}
    %b = ge.data {{parent_index = 1 : i64}} : {i1}
    %v = ge.data {{parent_index = 2 : i64}} : {f2}
    %one = ge.const {{value = dense<1.0> : tensor<f32>}} : tensor<f32>
    %w = ge.add %v, %one : ({f2}, tensor<f32>) -> {f2}
    %step = ge.const {{value = dense<1> : {i64}}} : {i64}
    %next = ge.add %a, %step : ({i64}, {i64}) -> {i64}
    ge.netoutput %next, %b, %w : {i64}, {i1}, {f2}
  }}
  ge.netoutput %y : {f2}
}}
"""


def repeated(text: str, count: int) -> str:
    """`text` `count` times."""
    return text * count


GENERATORS: dict[str, Callable[..., str | bytes]] = {
    "nested_graph": nested_graph,
    "nested_json": nested_json,
    "nested_while": nested_while,
    "nested_attribute": nested_attribute,
    "repeated": repeated,
    "singleop": singleop,
    "tf_graph": tf_graph,
    "om_flip": om_flip,
    "om_truncated": om_truncated,
    "npy_array": npy_array,
    "onnx_external": onnx_external,
    "long_string": long_string,
    "pickled_npy": pickled_npy,
    "onnx_custom_domain": onnx_custom_domain,
    "counted_loop": counted_loop,
}
"""Generators of inputs too big (or too repetitive) to keep in the corpus."""


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One malformed input: a command line, the expected diagnostic."""

    name: str
    args: tuple[str, ...]
    expect: str
    files: dict[str, Any] = field(default_factory=dict)
    """Inputs written to `{in}` (the scratch directory's parent) before the run."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables set for the run (`{in}` etc. expanded)."""

    def expand(self, text: str, scratch: Path) -> str:
        return (
            text.replace("{dir}", str(CORPUS))
            .replace("{out}", str(scratch))
            .replace("{in}", str(scratch.parent))
        )

    def write_files(self, scratch: Path) -> None:
        for name, spec in self.files.items():
            path = scratch.parent / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(spec, dict) and "folder_mode" in spec:
                path.mkdir()
                path.chmod(int(spec["folder_mode"], 8))
                continue
            if isinstance(spec, dict) and "symlink_to" in spec:
                path.symlink_to(self.expand(spec["symlink_to"], scratch))
                continue
            if isinstance(spec, dict):
                spec = dict(spec)
                content = GENERATORS[spec.pop("generate")](**spec)
            else:
                content = self.expand(spec, scratch)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content)


def manifest_cases() -> list[Case]:
    """The cases of every `cases*.json` file."""
    cases = []
    for path in sorted(CORPUS.glob("cases*.json")):
        for entry in json.loads(path.read_text()):
            cases.append(
                Case(
                    entry["name"],
                    tuple(entry["args"]),
                    entry["expect"],
                    entry.get("files", {}),
                    entry.get("env", {}),
                )
            )
    return cases


CHECK_LINE = re.compile(
    r"// CHECK: \{\{\.\*\}\}[\w.-]+:\[\[# @LINE \+ 1\]\]:(\d+): (error: .*)$"
)


def verifier_cases() -> list[Case]:
    """One case per chunk of the dialect's invalid-*.mlir FileCheck inputs."""
    cases = []
    for path in sorted(DIALECT.glob("invalid-*.mlir")):
        for number, chunk in enumerate(path.read_text().split("\n// -----\n")):
            lines = chunk.splitlines()
            checks = [
                (index, match)
                for index, line in enumerate(lines)
                if (match := CHECK_LINE.search(line.strip()))
            ]
            if not checks:
                continue
            index, match = checks[0]
            message = match.group(2).split("{{")[0]
            name = f"{path.stem}-{number}"
            where = f"{name}.mlir:{index + 2}:{match.group(1)}: "
            cases.append(
                Case(
                    f"dialect-{name}",
                    ("ge-opt", f"{{in}}/{name}.mlir", "-o", "{out}/out.mlir"),
                    where + message,
                    {f"{name}.mlir": chunk},
                )
            )
    return cases


CASES = manifest_cases() + verifier_cases()
CASES_BY_NAME = {case.name: case for case in CASES}


# ---------------------------------------------------------------------------
# Workers: the tools in-process, under a memory limit
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """What one case did: exit code, stdout, stderr, wall time."""

    code: int
    out: str
    err: str
    seconds: float


def run_tool_captured(
    tool: str, args: Sequence[str], env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run a tool's `main` in this process (with `env` set); capture Python-
    and C-level output."""
    from tools import ge_atc, ge_dump_compare, ge_opt, ge_run, ge_translate

    mains = {
        "ge-opt": ge_opt.main,
        "ge-translate": ge_translate.main,
        "ge-atc": ge_atc.main,
        "ge-run": ge_run.main,
        "ge-dump-compare": ge_dump_compare.main,
    }
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdout, sys.stderr
    with tempfile.TemporaryFile() as c_level:
        fds = os.dup(1), os.dup(2)
        os.dup2(c_level.fileno(), 1)
        os.dup2(c_level.fileno(), 2)
        sys.stdout, sys.stderr = out, err
        saved_env = {name: os.environ.get(name) for name in env or {}}
        os.environ.update(env or {})
        start = time.perf_counter()
        try:
            code = mains[tool](list(args))
        finally:
            seconds = time.perf_counter() - start
            for name, value in saved_env.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            sys.stdout, sys.stderr = saved
            os.dup2(fds[0], 1)
            os.dup2(fds[1], 2)
            for fd in fds:
                os.close(fd)
        c_level.seek(0)
        native = c_level.read().decode(errors="replace")
    return {
        "code": code,
        "out": out.getvalue(),
        "err": err.getvalue() + native,
        "seconds": seconds,
    }


def worker_main(limit: int, replies: int) -> None:
    """Serve cases read as JSON lines on stdin, one JSON reply line each."""
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    warnings.simplefilter("always")  # a warning must show every time it happens
    with os.fdopen(replies, "w") as channel:
        for line in sys.stdin:
            job = json.loads(line)
            reply = run_tool_captured(job["tool"], job["args"], job.get("env"))
            channel.write(json.dumps(reply))
            channel.write("\n")
            channel.flush()


class Worker:
    """A worker process (this file as a script) and its reply pipe."""

    def __init__(self) -> None:
        read, write = os.pipe()
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", str(MEMORY_LIMIT), str(write)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(write,),
            text=True,
        )
        os.close(write)
        self.replies: queue.Queue[str | None] = queue.Queue()
        channel = os.fdopen(read)
        threading.Thread(target=self._pump, args=(channel,), daemon=True).start()

    def _pump(self, channel: io.TextIOWrapper) -> None:
        for line in channel:
            self.replies.put(line)
        self.replies.put(None)

    def run(
        self,
        tool: str,
        args: Sequence[str],
        timeout: float,
        env: dict[str, str] | None = None,
    ) -> Result:
        assert self.process.stdin is not None
        job = {"tool": tool, "args": list(args), "env": env or {}}
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        try:
            reply = self.replies.get(timeout=timeout)
        except queue.Empty:
            return Result(-1, "", f"killed after {timeout:.0f} s", timeout)
        if reply is None:
            return Result(-1, "", "the worker died (a crash, or the memory limit)", 0)
        return Result(**json.loads(reply))

    def close(self) -> None:
        self.process.kill()
        self.process.wait()


def run_cases(cases: Sequence[Case], root: Path) -> dict[str, Result]:
    """Run `cases` on `WORKERS` workers; each case in its own scratch folder."""
    jobs: queue.Queue[Case] = queue.Queue()
    for case in cases:
        jobs.put(case)
    results: dict[str, Result] = {}

    def serve() -> None:
        worker = Worker()
        try:
            while True:
                try:
                    case = jobs.get_nowait()
                except queue.Empty:
                    return
                scratch = root / case.name / "out"
                scratch.mkdir(parents=True)
                case.write_files(scratch)
                tool, *args = (case.expand(arg, scratch) for arg in case.args)
                env = {k: case.expand(v, scratch) for k, v in case.env.items()}
                result = worker.run(tool, args, 2 * CASE_SECONDS, env)
                results[case.name] = result
                if result.code == -1:  # killed or dead: start afresh
                    worker.close()
                    worker = Worker()
        finally:
            worker.close()

    threads = [threading.Thread(target=serve) for _ in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@pytest.fixture(scope="session")
def corpus_results(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[dict[str, Result], Path]]:
    """Every selected corpus case, run once (in parallel) for the session."""
    selected = [
        item.callspec.params["case"]
        for item in request.session.items
        if getattr(item, "originalname", None) == "test_bad_input_fails_cleanly"
    ]
    root = tmp_path_factory.mktemp("corpus")
    yield run_cases(selected, root), root


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------


def test_corpus_size():
    files = [p for p in CORPUS.iterdir() if p.suffix not in (".py", ".json")]
    assert len(manifest_cases()) >= 250 and len(files) >= 50
    assert len(verifier_cases()) >= 150
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))


def test_every_corpus_file_is_used():
    """Each corpus file is named by a case, or inside a file a case names (the
    weights of a graph, the external data of a model)."""
    used = " ".join(" ".join(case.args) for case in manifest_cases())
    named = [p for p in CORPUS.iterdir() if p.is_file() and p.name in used]
    used += " ".join(p.read_bytes().decode(errors="ignore") for p in named)
    unused = [
        p.name
        for p in CORPUS.iterdir()
        if p.suffix != ".py" and not p.name.startswith("cases") and p.name not in used
    ]
    assert unused == []


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_bad_input_fails_cleanly(case: Case, corpus_results):
    results, root = corpus_results
    result = results[case.name]
    scratch = root / case.name / "out"
    assert result.code == 1, result.err
    lines = result.err.splitlines()
    assert len(lines) == 1, result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    assert "Warning" not in result.err
    assert case.expand(case.expect, scratch) in lines[0]
    assert result.out == ""
    assert list(scratch.iterdir()) == []
    assert result.seconds < CASE_SECONDS


def test_the_valid_inputs_are_valid(tmp_path: Path, capfd):
    """The flags and runtime cases fail because of what they change only."""
    from tools import ge_atc, ge_opt, ge_run, ge_translate

    (tmp_path / "ops.json").write_text(singleop({}))
    assert (
        ge_atc.main(
            [f"--singleop={tmp_path / 'ops.json'}", f"--output={tmp_path / 'ops'}"]
        )
        == 0
    )

    out = tmp_path / "out"
    assert (
        ge_opt.main([str(CORPUS / "valid.mlir"), "-o", str(tmp_path / "v.mlir")]) == 0
    )
    assert (
        ge_run.main(
            [
                str(CORPUS / "om-valid.om"),
                "--random-inputs",
                "--check",
                "--output-dir",
                str(out),
            ]
        )
        == 0
    )
    assert (
        ge_translate.main(
            [
                "--import-onnx",
                str(CORPUS / "valid.onnxtxt"),
                "-o",
                str(tmp_path / "t.mlir"),
            ]
        )
        == 0
    )
    capfd.readouterr()


def test_a_worker_reports_memory_exhaustion(tmp_path: Path):
    """The harness catches what the corpus guards against: a case that
    allocates past the limit fails, it does not take the machine down."""
    (tmp_path / "bomb.mlir").write_text(
        "ge.graph @main {\n  %c = ge.const {value = dense<1.0> : "
        "tensor<30000x30000xf32>} : tensor<30000x30000xf32>\n"
        "  ge.netoutput %c : tensor<30000x30000xf32>\n}\n"
    )
    worker = Worker()
    try:
        result = worker.run(
            "ge-opt",
            [str(tmp_path / "bomb.mlir"), "--memory-budget=100G"],
            2 * CASE_SECONDS,
        )
    finally:
        worker.close()
    assert result.code == 1
    assert "out of memory" in result.err


CONSOLE_CASES = (
    "mlir-binary",
    "translate-onnx-truncated",
    "atc-unknown-soc",
    "run-om-bad-checksum",
)


@pytest.mark.parametrize("name", CONSOLE_CASES)
def test_console_scripts_fail_cleanly(name: str, tmp_path: Path):
    case = CASES_BY_NAME[name]
    scratch = tmp_path / "out"
    scratch.mkdir()
    result = subprocess.run(
        [case.expand(arg, scratch) for arg in case.args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert case.expand(case.expect, scratch) in result.stderr
    assert list(scratch.iterdir()) == []


if __name__ == "__main__" and sys.argv[1:2] == ["--worker"]:
    worker_main(int(sys.argv[2]), int(sys.argv[3]))
