"""Start-up cost: a bare `ge-opt` against `xdsl-opt` on an empty module,
every tool's `--help` against `xdsl-opt --help`, and per model what compiling
once and starting cold cost against onnxruntime.

    python bench/bench_startup.py [--rounds 15]
    python bench/bench_startup.py --models resnet50 shufflenet bert-base \
        gpt2-medium [--cache DIR] [--threads 2]
    python bench/bench_startup.py --models zoo bert-base [--cache DIR]

The drivers run from this interpreter's `bin/` (no version-manager shims),
interleaved round by round; each run's CPU time (user + system of the child)
is measured, and the medians and their ratios are printed with the load
average. The project's budgets: `ge-opt` on `builtin.module {}` at most 1.2x
`xdsl-opt`, each tool's `--help` at most 1.5x `xdsl-opt --help`.

With `--models`, one table (`models_table`), each number from a child
process under `/usr/bin/time`: `ge-atc` wall and CPU time (its C compilers
included; with an empty code cache) and peak RSS against the
bytes of the model's weights (its initializers), the `.om` size against the
`.onnx`'s, and a cold `ge-run M.om --random-inputs` (new process, one
inference) first with an empty code cache (the kernels come from the
`.om`), then again, against onnxruntime's cold start (new process, session,
one inference; the script imports onnxruntime and NumPy only), wall and
CPU seconds (user + system: what the machine's other load disturbs
least). Models: the onnx package's light models (`bench_ge_run.LIGHT`:
ResNet-50, ShuffleNet, DenseNet-121, ...; seeded weights), any model of
the zoo (`tests/model_zoo`, compiled at and run on its sample inputs, as
is onnxruntime: `mobilevit`, `yolov8`, ...; `zoo` names every model
`bench_zoo` times), and transformers' BERT-base (sequence 128) and a
355M-parameter GPT-2 (24 layers, 1024 wide, 16 heads; sequence 128),
random init, exported once into `--cache`. The table ends with the models
below 100M parameters whose `ge-atc` and first run take more than 10 s
(issue 36's budget).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

BIN = Path(sys.executable).parent
TOOLS = ("xdsl-opt", "ge-opt")
HELP_TOOLS = ("xdsl-opt", "ge-opt", "ge-atc", "ge-translate", "ge-dump-compare")


def median_cpu_seconds(commands: dict[str, list[str]], rounds: int) -> dict[str, float]:
    """Median CPU seconds of each command over `rounds` interleaved runs."""
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, command in commands.items():
            samples[name].append(child_cpu_seconds(command))
    return {name: statistics.median(times) for name, times in samples.items()}


def child_cpu_seconds(command: list[str]) -> float:
    """The CPU seconds (user + system) one run of `command` takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(rounds: int) -> dict[str, float]:
    """Median CPU seconds of each tool on an empty module."""
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp) / "empty.mlir"
        empty.write_text("builtin.module {}\n")
        commands = {tool: [str(BIN / tool), str(empty)] for tool in TOOLS}
        return median_cpu_seconds(commands, rounds)


def measure_help(rounds: int) -> dict[str, float]:
    """Median CPU seconds of each tool's `--help`."""
    commands = {tool: [str(BIN / tool), "--help"] for tool in HELP_TOOLS}
    return median_cpu_seconds(commands, rounds)


ORT_COLD = """
import sys, numpy as np, onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = int(sys.argv[2])
options.inter_op_num_threads = 1
session = ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
feeds = dict(np.load(sys.argv[3])) if len(sys.argv) > 3 else {}
for i in session.get_inputs()[: 0 if feeds else None]:
    shape = [d if isinstance(d, int) else 1 for d in i.shape]
    feeds[i.name] = (
        np.ones(shape, np.int64) if "int" in i.type
        else rng.standard_normal(shape).astype(np.float32)
    )
session.run(None, feeds)
"""
"""onnxruntime's cold start: a new process, a session, one inference (on the
inputs of the `.npz` given, else ones and normal samples at the file's
shapes, 1 for a dynamic dimension)."""

TRANSFORMERS = {
    "bert-base": ("BertConfig", "BertModel", {}),
    "gpt2-medium": (
        "GPT2Config",
        "GPT2Model",
        {"n_layer": 24, "n_embd": 1024, "n_head": 16, "use_cache": False},
    ),
}
"""Transformers configs (random init) of the large models: class names, options."""
SEQUENCE = 128
BUDGET_SECONDS = 10.0
BUDGET_PARAMETERS = 100e6
"""Issue 36's budget: `ge-atc` and the first run of any model below 100M
parameters within 10 s (wall, with an empty code cache)."""


@dataclass
class Timed:
    """One child process: wall seconds, CPU seconds, peak RSS in bytes."""

    wall: float
    cpu: float
    rss: int


def timed(argv: list[str], env: dict[str, str] | None = None) -> Timed:
    """Run `argv` under `/usr/bin/time` (its own peak RSS, not this
    process's); a failure is a RuntimeError with the end of its stderr."""
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%e %U %S %M", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)}: {done.stderr[-800:]}")
    _, user, system, rss = done.stderr.strip().splitlines()[-1].split()
    return Timed(wall, float(user) + float(system), int(rss) * 1024)


def model_file(name: str, directory: Path) -> tuple[Path, dict | None]:
    """The `.onnx` of `name` and the inputs it compiles and runs with (None:
    the file's own shapes): a large transformer of `TRANSFORMERS` made once
    in `directory`, else a light, zoo or shipped model as `bench_zoo` finds
    it, with its seeded inputs."""
    if name not in TRANSFORMERS:
        from bench_zoo import model_files, zoo

        return model_files(name, zoo().get(name, "light"), directory)
    path = directory / f"{name}.onnx"
    if not path.is_file():
        export_transformer(name, path)
    return path, None


def export_transformer(name: str, path: Path) -> None:
    """A transformers model of `TRANSFORMERS`, random init (seed 0), token
    ids of `SEQUENCE` in (and BERT's attention mask), exported to `path`."""
    import torch
    import transformers

    config_class, model_class, options = TRANSFORMERS[name]
    torch.manual_seed(0)
    config = getattr(transformers, config_class)(**options)
    model = getattr(transformers, model_class)(config).eval()
    ids = torch.randint(0, config.vocab_size, (1, SEQUENCE))
    inputs: tuple[torch.Tensor, ...] = (ids,)
    names = ["input_ids"]
    if name == "bert-base":
        inputs += (torch.ones(1, SEQUENCE, dtype=torch.int64),)
        names.append("attention_mask")
    dynamo = name != "bert-base"  # the tracer has no aten::diff (GPT-2's mask)

    class ByName(torch.nn.Module):
        """The model given its inputs by name: traced positionally, this
        transformers' `BertModel.forward` got `use_cache` twice."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *tensors: torch.Tensor) -> tuple[torch.Tensor, ...]:
            return self.model(**dict(zip(names, tensors, strict=True))).to_tuple()

    with torch.no_grad():
        torch.onnx.export(
            ByName(),
            inputs,
            str(path),
            dynamo=dynamo,
            opset_version=18 if dynamo else 17,
            input_names=names,
        )


def weights(path: Path) -> tuple[int, int]:
    """The elements (parameters) and bytes of a model's initializers and
    `Constant` tensors (some exporters keep the weights in those)."""
    import numpy as np
    import onnx
    from onnx import helper

    model = onnx.load(path, load_external_data=False)
    tensors = [*model.graph.initializer] + [
        attribute.t
        for node in model.graph.node
        if node.op_type == "Constant"
        for attribute in node.attribute
        if attribute.name == "value"
    ]
    sizes = [
        (
            int(np.prod(tensor.dims, dtype=np.int64)),
            helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize,
        )
        for tensor in tensors
    ]
    return sum(count for count, _ in sizes), sum(c * size for c, size in sizes)


def model_bytes(path: Path) -> int:
    """The bytes of a model: its `.onnx` and the external data files it names."""
    import onnx

    model = onnx.load(path, load_external_data=False)
    locations = {
        entry.value
        for tensor in model.graph.initializer
        for entry in tensor.external_data
        if entry.key == "location"
    }
    return path.stat().st_size + sum(
        (path.parent / name).stat().st_size for name in locations
    )


@dataclass
class ModelRow:
    """One model's row of the table."""

    model: str
    parameters: int
    weights: int
    onnx: int
    om: int
    atc: Timed
    first: Timed
    again: Timed
    ort: Timed


def measure_model(name: str, directory: Path, threads: int) -> ModelRow:
    """Compile `name` with `ge-atc`, run it cold twice and onnxruntime once."""
    onnx_path, feeds = model_file(name, directory)
    om = directory / f"{name}.om"
    scratch = Path(tempfile.mkdtemp(prefix=f"ge-xdsl-{name}-", dir=directory))
    env = {**os.environ, "GE_XDSL_CACHE": str(scratch / "atc-cache")}
    shape_flag, run_inputs, ort_inputs = [], [], []
    if feeds is not None:  # compiled at, and both run with, these inputs
        import numpy as np

        shapes = ";".join(
            f"{key}:{','.join(map(str, array.shape))}" for key, array in feeds.items()
        )
        shape_flag = [f"--input_shape={shapes}"]
        np.savez(scratch / "inputs.npz", **feeds)
        ort_inputs = [str(scratch / "inputs.npz")]
        for index, (key, array) in enumerate(feeds.items()):
            np.save(scratch / f"input{index}.npy", array)
            run_inputs.append(f"--input={key}={scratch / f'input{index}.npy'}")
    atc = timed(
        [
            str(BIN / "ge-atc"),
            f"--model={onnx_path}",
            "--framework=5",
            "--soc_version=Ascend910",
            f"--output={om.with_suffix('')}",
            "--log=error",
            *shape_flag,
        ],
        env,
    )
    env["GE_XDSL_CACHE"] = str(scratch / "run-cache")  # empty: kernels from the .om
    run = [
        str(BIN / "ge-run"),
        str(om),
        *run_inputs,
        "--random-inputs",  # the inputs not given
        f"--threads={threads}",
        f"--output-dir={scratch / 'out'}",
    ]
    first, again = timed(run, env), timed(run, env)
    ort = timed(
        [sys.executable, "-c", ORT_COLD, str(onnx_path), str(threads), *ort_inputs]
    )
    return ModelRow(
        name,
        *weights(onnx_path),
        model_bytes(onnx_path),
        om.stat().st_size,
        atc,
        first,
        again,
        ort,
    )


def cold_cell(run: Timed, ort: Timed) -> str:
    """`wall / CPU (ratios to onnxruntime's)` of a cold run."""
    return (
        f"{run.wall:.2f} / {run.cpu:.2f} "
        f"({run.wall / ort.wall:.1f}x / {run.cpu / ort.cpu:.1f}x)"
    )


def times(part: int, whole: int) -> str:
    """`part` as a multiple of `whole` (a model without weights: "-")."""
    return f"{part / whole:.2f}x" if whole else "-"


def models_table(rows: list[ModelRow], threads: int) -> str:
    """The Markdown table of `measure_model`'s rows."""
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    lines = [
        f"Compile once, start cold: {threads} thread(s), load average {load}; "
        "cold runs: wall s / CPU s (ratio to onnxruntime's)",
        "",
        "| model | parameters M | weights MB | ge-atc wall / CPU s "
        "| ge-atc + first run s | ge-atc peak RSS MB (x weights) "
        "| .om MB (x the model) | first ge-run | repeated ge-run | onnxruntime "
        "| ge-run peak RSS MB (x weights) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        first, again = (cold_cell(t, r.ort) for t in (r.first, r.again))
        lines.append(
            f"| {r.model} | {r.parameters / 1e6:.1f} | {r.weights / 1e6:.0f} "
            f"| {r.atc.wall:.1f} / {r.atc.cpu:.1f} | {r.atc.wall + r.first.wall:.1f} "
            f"| {r.atc.rss / 1e6:.0f} ({times(r.atc.rss, r.weights)}) "
            f"| {r.om / 1e6:.0f} ({r.om / r.onnx:.3f}x) | {first} "
            f"| {again} | {r.ort.wall:.2f} / {r.ort.cpu:.2f} "
            f"| {r.first.rss / 1e6:.0f} ({times(r.first.rss, r.weights)}) |"
        )
    over = [
        f"{r.model} {r.atc.wall + r.first.wall:.1f} s"
        for r in rows
        if r.parameters < BUDGET_PARAMETERS
        and r.atc.wall + r.first.wall > BUDGET_SECONDS
    ]
    small = sum(r.parameters < BUDGET_PARAMETERS for r in rows)
    lines += [
        "",
        f"ge-atc + first run over {BUDGET_SECONDS:.0f} s (wall), of the {small} "
        f"models below {BUDGET_PARAMETERS / 1e6:.0f}M parameters: "
        + (", ".join(over) if over else "none"),
    ]
    return "\n".join(lines)


def expand(names: list[str]) -> list[str]:
    """`names` with `zoo` replaced by every model of `bench_zoo.zoo()`."""
    if "zoo" not in names:
        return names
    from bench_zoo import zoo

    expanded = [name for name in names if name != "zoo"]
    return expanded + [name for name in zoo() if name not in expanded]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument(
        "--models",
        nargs="+",
        help="the compile-once table instead ('zoo': every model bench_zoo times)",
    )
    parser.add_argument("--cache", metavar="DIR", help="where models are kept")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    if args.models:
        directory = Path(args.cache or tempfile.mkdtemp(prefix="ge-xdsl-startup-"))
        directory.mkdir(parents=True, exist_ok=True)
        rows, failures = [], []
        for name in expand(args.models):
            try:
                rows.append(measure_model(name, directory, args.threads))
            except RuntimeError as error:  # a tool failed: its message
                failures.append(f"- {name}: {str(error).strip().splitlines()[-1]}")
                print(failures[-1], file=sys.stderr, flush=True)
                continue
            print(rows[-1], file=sys.stderr, flush=True)
        print(models_table(rows, args.threads))
        print("\n".join(["", *failures]) if failures else "")
        return
    medians = measure(args.rounds)
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"cpus {os.cpu_count()}, load average {load}, {args.rounds} rounds")
    for tool, seconds in medians.items():
        print(f"{tool:9s} median CPU {seconds:.3f} s")
    print(f"ge-opt / xdsl-opt: {medians['ge-opt'] / medians['xdsl-opt']:.2f}")
    helps = measure_help(args.rounds)
    for tool, seconds in helps.items():
        ratio = seconds / helps["xdsl-opt"]
        print(f"{tool + ' --help':25s} median CPU {seconds:.3f} s ({ratio:.2f}x)")


if __name__ == "__main__":
    main()
