"""Differential fuzzing: random graphs through pipeline, lowering and JIT.

- the quick profile (`QUICK_EXAMPLES` graphs, the same every run) is part of
  the suite; the long one is `slow` (`GE_FUZZ_EXAMPLES`, default 2000, new
  graphs every run): `GE_FUZZ_EXAMPLES=5000 pytest -m slow tests/test_fuzz.py`;
- the checker catches what it is for: a pass that changes the meaning, IR
  that stops verifying between passes, a pipeline that is not idempotent;
- a shrunk failure is saved as a regression lit test that runs the checker
  on it (`tests/filecheck/regressions/`), and the checker script passes on
  every saved regression once its bug is fixed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from fuzz.campaign import REGRESSIONS, Campaign, run_campaign, save_regression
from fuzz.differential import Mismatch, check_module, main, pipeline_pass
from fuzz.graphs import FuzzCase, PipelineOptions, fuzz_cases
from hypothesis import given, settings
from xdsl.context import Context
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, ModuleOp, UnitAttr, i64
from xdsl.passes import ModulePass

from ge_dialect.builder import GraphBuilder
from ge_dialect.ops import Conv2DOp
from passes.format_pipeline import FormatPipelinePass

QUICK_EXAMPLES = 100


def test_quick_profile():
    campaign = run_campaign(QUICK_EXAMPLES, derandomize=True)
    assert campaign.graphs == QUICK_EXAMPLES and campaign.failures == 0


@settings(max_examples=6, derandomize=True, deadline=None)
@given(case=fuzz_cases(max_blocks=2, blocks_from=("attention",)))
def test_attention_blocks(case: FuzzCase):
    """GPT-2-style attention (one QKV product split into Q, K and V, head
    splits, K^T over [B*H, S, D], the head merge): the split in FRACTAL_NZ
    and the fused head splits compute what the graph computes."""
    check_module(case.module, case.options.make_pass(), case.seed)


@settings(max_examples=6, derandomize=True, deadline=None)
@given(case=fuzz_cases(max_blocks=4, blocks_from=("conv", "shuffle", "conv")))
def test_shuffle_blocks(case: FuzzCase):
    """Channel shuffles between convolutions: fused into ge.channel_shuffle in
    NC1HWC0 (padded C1 blocks included), they compute what the graph does."""
    check_module(case.module, case.options.make_pass(), case.seed)


@settings(max_examples=8, derandomize=True, deadline=None)
@given(case=fuzz_cases(max_blocks=4, blocks_from=("conv", "split", "conv")))
def test_split_blocks(case: FuzzCase):
    """C2f-style splits of conv activations along C or H (whole C0 blocks
    or not) and their concats: in NC1HWC0 where whole channel blocks move,
    they compute what the graph does."""
    check_module(case.module, case.options.make_pass(), case.seed)


@settings(max_examples=8, derandomize=True, deadline=None)
@given(case=fuzz_cases(max_blocks=2, blocks_from=("recurrent",)))
def test_recurrent_blocks(case: FuzzCase):
    """Unrolled LSTM steps (step slices of one sequence product, gate
    columns, the state into the next recurrent product, the stacked
    states): in FRACTAL_NZ where whole fractals move, padded rows and
    columns included, they compute what the graph does."""
    check_module(case.module, case.options.make_pass(), case.seed)


@settings(max_examples=8, derandomize=True, deadline=None)
@given(case=fuzz_cases(max_blocks=3, blocks_from=("conv", "tokens")))
def test_token_blocks(case: FuzzCase):
    """Patch embeddings and back (a conv's result regrouped into rows of
    channels, a class token concatenated at row 0, a product over the
    tokens, the class token sliced off, the rows folded back into an image
    for a conv): NC1HWC0 <-> FRACTAL_NZ confusion transposes and row-offset
    concats and slices in FRACTAL_NZ compute what the graph does."""
    check_module(case.module, case.options.make_pass(), case.seed)


@pytest.mark.slow
def test_long_profile():
    examples = int(os.environ.get("GE_FUZZ_EXAMPLES", "2000"))
    campaign = Campaign(examples)
    run_campaign(examples, campaign=campaign)
    assert campaign.graphs >= examples and campaign.failures == 0


# ---------------------------------------------------------------------------
# The checker fails when it should
# ---------------------------------------------------------------------------


def conv_graph(dtype: str = "float32") -> ModuleOp:
    """x (1x17x5x5) -> conv 3x3 (33 channels) -> relu, odd channel counts."""
    rng = np.random.default_rng(0)
    b = GraphBuilder("main")
    x = b.data([1, 17, 5, 5], dtype, format="NCHW", name="x")
    w = b.const(rng.standard_normal((33, 17, 3, 3)).astype(dtype), format="NCHW")
    y = b.conv2d(x, w, pads=[1, 1, 1, 1], data_format="NCHW")
    b.output(b.relu(y))
    return b.build()


def test_conv_graph_passes():
    for dtype in ("float16", "float32"):
        (out,) = check_module(conv_graph(dtype), FormatPipelinePass(), seed=1)
        assert out.shape == (1, 33, 5, 5)


@dataclass(frozen=True)
class ShiftPads(ModulePass):
    """A wrong 'optimisation': convolutions pad two rows on top, none below."""

    name = "shift-pads"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for conv in op.walk():
            if isinstance(conv, Conv2DOp):
                conv.attributes["pads"] = DenseArrayBase.from_list(i64, [2, 0, 1, 1])


@dataclass(frozen=True)
class BreakGroups(ModulePass):
    """Leaves invalid IR: 5 groups do not divide the convolution's channels."""

    name = "break-groups"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for conv in op.walk():
            if isinstance(conv, Conv2DOp):
                conv.attributes["groups"] = IntegerAttr(5, i64)


@dataclass(frozen=True)
class Toggle(ModulePass):
    """Not idempotent: each run flips a harmless attribute of every relu."""

    name = "toggle"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for relu in op.walk():
            if relu.name == "ge.relu":
                flipped = relu.attributes.get("toggled") != UnitAttr()
                if flipped:
                    relu.attributes["toggled"] = UnitAttr()
                else:
                    del relu.attributes["toggled"]


def replace_inner_pass(monkeypatch, name: str, broken: ModulePass) -> None:
    """Make `ge-format-pipeline` run `broken` instead of its pass `name`."""
    original = FormatPipelinePass.inner_pass

    def inner_pass(self: FormatPipelinePass, wanted: str) -> ModulePass:
        return broken if wanted == name else original(self, wanted)

    monkeypatch.setattr(FormatPipelinePass, "inner_pass", inner_pass)


def test_a_pass_that_changes_the_meaning_is_caught(monkeypatch):
    replace_inner_pass(monkeypatch, "unchanged-transpose-remove", ShiftPads())
    with pytest.raises(Mismatch, match="^optimised graph: output 0: max"):
        check_module(conv_graph(), FormatPipelinePass(), seed=1)


def test_invalid_ir_between_passes_is_caught(monkeypatch):
    replace_inner_pass(monkeypatch, "cast-remove", BreakGroups())
    with pytest.raises(Mismatch, match="^pipeline: invalid IR after break-groups: "):
        check_module(conv_graph(), FormatPipelinePass(), seed=1)


def test_a_pipeline_that_is_not_idempotent_is_caught(monkeypatch):
    replace_inner_pass(monkeypatch, "unchanged-transpose-remove", Toggle())
    with pytest.raises(Mismatch, match="^idempotence: "):
        check_module(conv_graph(), FormatPipelinePass(), seed=1)


# ---------------------------------------------------------------------------
# Saved regressions
# ---------------------------------------------------------------------------


def run_lines(path: Path) -> list[str]:
    return re.findall(r"^// RUN: (.*)$", path.read_text(), re.MULTILINE)


def checker_arguments(path: Path) -> list[str]:
    """The differential checker's arguments on a regression's RUN line."""
    words = shlex.split(run_lines(path)[0].split("|")[0])
    assert words[:2] == ["python", "%S/../../fuzz/differential.py"]
    return [str(path) if w == "%s" else w for w in words[2:]]


def test_saved_regression_reruns_the_check(tmp_path: Path, capsys):
    case = FuzzCase(
        conv_graph("float16"), PipelineOptions(target="Ascend910"), 7, ("conv",)
    )
    path = save_regression(case, Mismatch("jit", "output 0: max |error| 3"), tmp_path)
    assert path.parent == tmp_path and path.suffix == ".mlir"
    assert "//   Mismatch: jit: output 0: max |error| 3" in path.read_text()
    assert len(run_lines(path)) == 2  # the checker, and ge-opt down to loops
    args = checker_arguments(path)
    assert args[1:] == ["--options", case.options.option_text(), "--seed", "7"]
    assert main(args) == 0
    assert capsys.readouterr().out == "ok: 1 outputs agree\n"


def test_the_checker_script_reports_a_mismatch(tmp_path: Path, capsys, monkeypatch):
    case = FuzzCase(conv_graph(), PipelineOptions(), 0, ("conv",))
    path = save_regression(case, Mismatch("jit", "x"), tmp_path)
    assert main([str(path), "--options", "data-format=NCHW"]) == 0
    with monkeypatch.context() as patched:
        replace_inner_pass(patched, "unchanged-transpose-remove", ShiftPads())
        assert main([str(path), "--options", "data-format=NCHW"]) == 1
    assert "error: optimised graph: output 0: max" in capsys.readouterr().err
    path.write_text(path.read_text().replace("ge.relu", "ge.tahn", 1))
    assert main([str(path)]) == 1
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize(
    "path", sorted(REGRESSIONS.glob("*.mlir")), ids=lambda p: p.name
)
def test_regression_passes(path: Path):
    """Each saved regression (also run by lit) passes the checker."""
    assert main(checker_arguments(path)) == 0


def test_options_round_trip_through_the_option_text():
    options = PipelineOptions("NHWC", "Ascend910", spread=False, beyond_ge=False)
    parsed = pipeline_pass(options.option_text())
    assert parsed == options.make_pass()
