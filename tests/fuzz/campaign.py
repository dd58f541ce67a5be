"""Fuzzing campaigns: many random graphs through the differential check.

`run_campaign(examples)` draws `examples` graphs (`graphs.fuzz_cases`) and
checks each (`differential.check_module`). A failure is shrunk by
hypothesis to a minimal graph; that final graph is saved as a regression
lit test (`save_regression`) and the hypothesis error is raised. The quick
profile runs in the test suite (`tests/test_fuzz.py`); the long one from
`bench/run_all.py --fuzz 2000` or `pytest -m slow tests/test_fuzz.py`
(`GE_FUZZ_EXAMPLES`).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis.control import current_build_context

from fuzz.differential import check_module
from fuzz.graphs import FuzzCase, fuzz_cases

REGRESSIONS = Path(__file__).resolve().parent.parent / "filecheck" / "regressions"
"""Where shrunk failures are saved as lit tests."""

DIFFERENTIAL = "%S/../../fuzz/differential.py"
"""The checker script, as a lit RUN line under `REGRESSIONS` names it."""


def save_regression(case: FuzzCase, error: BaseException, directory: Path) -> Path:
    """Write `case` as a lit test that runs the differential check on it.

    The test passes once the bug is fixed; the header says how it failed.
    """
    text = case.text()
    options = case.options.option_text()
    reason = " ".join(f"{type(error).__name__}: {error}".split())[:300]
    name = hashlib.sha256(f"{options}|{case.seed}|{text}".encode()).hexdigest()[:10]
    lines = [
        "// Shrunk by hypothesis from a failing differential fuzz case",
        f"// (tests/test_fuzz.py, blocks {', '.join(case.blocks)}). It failed with:",
        f"//   {reason}",
        f'// RUN: python {DIFFERENTIAL} %s --options "{options}" --seed {case.seed} '
        "| filecheck %s",
        "// CHECK: ok: {{[0-9]+}} outputs agree",
    ]
    lines += [
        f'// RUN: ge-opt %s --ge-format-pipeline="{options}" --convert-ge-to-loops '
        "| filecheck %s --check-prefix=LOOPS",
        "// LOOPS: func.func @main",
    ]
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"fuzz-{name}.mlir"
    path.write_text("\n".join(lines) + "\n\n" + text + "\n")
    return path


@dataclass
class Campaign:
    """What a campaign did: graphs checked, failures, saved regressions."""

    examples: int
    graphs: int = 0
    failures: int = 0
    seconds: float = 0.0
    saved: list[Path] = field(default_factory=list)


def run_campaign(
    examples: int,
    *,
    derandomize: bool = False,
    save_to: Path | None = REGRESSIONS,
    campaign: Campaign | None = None,
) -> Campaign:
    """Check `examples` random graphs; shrink, save and raise on a failure.

    `derandomize` draws the same graphs every run (the test suite's quick
    profile); `save_to=None` saves nothing. Pass `campaign` to read the
    counts after a failure.
    """
    campaign = campaign or Campaign(examples)
    start = time.perf_counter()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(case=fuzz_cases())
    def fuzz(case: FuzzCase) -> None:
        campaign.graphs += 1
        try:
            check_module(case.module, case.options.make_pass(), case.seed)
        except Exception as error:
            campaign.failures += 1
            if save_to is not None and current_build_context().is_final:
                campaign.saved.append(save_regression(case, error, save_to))
            raise

    try:
        fuzz()
    finally:
        campaign.seconds = time.perf_counter() - start
    return campaign
