"""ONNX's backend node suite through `ge-atc` + `ge-run`: per op family and total.

    python bench/bench_conformance.py               # the whole suite
    python bench/bench_conformance.py --only Where   # the cases of some families
    python bench/bench_conformance.py --update       # and rewrite the expectations
    python bench/bench_conformance.py --only Where --update   # those lines only

Every case of the installed onnx package's node suite runs as a user runs
it (`tests/conformance/suite.py`): `ge-atc` compiles `model.onnx`, `ge-run`
runs the `.om` through the JIT (with `--trace`) and through the reference
evaluator, and both are compared with the expected outputs. A case passes
only when both are right and every op ran on the JIT. The table (per op
family: cases, pass, refused, not-jit, wrong, crash) goes to stdout and to
`bench/results/conformance.md`, every outcome to
`bench/results/conformance.json`; the differences from the checked-in
expectations (`tests/conformance/expected.txt`) are listed, and `--update`
rewrites that file from this run (with `--only`, the lines of the families
that ran; the others stay as they were).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        metavar="FAMILY,...",
        help="run only the cases of these op families (e.g. Where,Cast)",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="rewrite tests/conformance/expected.txt from this run (with --only: "
        "the lines of those families)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="print one line per case"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "tests"))
    from conformance.suite import (
        EXPECTATIONS,
        Status,
        differences,
        load_cases,
        read_expectations,
        run_cases,
        table,
        write_expectations,
    )

    cases = load_cases()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {case.family for case in cases}
        if unknown:
            print(
                f"--only: no such op family: {', '.join(sorted(unknown))}",
                file=sys.stderr,
            )
            return 1
        cases = tuple(case for case in cases if case.family in wanted)

    def progress(outcome) -> None:
        if args.verbose:
            print(f"{outcome.name}: {outcome.status} {outcome.message}", flush=True)

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ge-conformance-") as workdir:
        outcomes = run_cases(cases, Path(workdir), progress)
    seconds = time.perf_counter() - start
    lines = table(outcomes)
    passed = sum(o.status is Status.PASS for o in outcomes)
    load = os.getloadavg()
    summary = (
        f"{passed} of {len(outcomes)} cases pass ({100 * passed / len(outcomes):.1f}%) "
        f"in {seconds:.0f} s (load average {load[0]:.2f}, {os.cpu_count()} cores)"
    )
    print("\n".join(lines))
    print(summary)
    _, expected = read_expectations()
    changed = differences(outcomes, expected)
    for line in changed:
        print(f"changed: {line}")
    if not args.only:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "conformance.md").write_text(
            "# ONNX backend node suite\n\n" + "\n".join(lines) + f"\n\n{summary}\n"
        )
        record = {
            "machine": platform.platform(),
            "load_average": load,
            "seconds": seconds,
            "passed": passed,
            "cases": len(outcomes),
            "outcomes": [
                {
                    "name": o.name,
                    "family": o.family,
                    "status": str(o.status),
                    "message": o.message,
                    "seconds": round(o.seconds, 4),
                }
                for o in outcomes
            ],
        }
        (RESULTS / "conformance.json").write_text(json.dumps(record, indent=1) + "\n")
    if args.update:
        ran = {o.name for o in outcomes}
        kept = {name: entry for name, entry in expected.items() if name not in ran}
        write_expectations(outcomes, kept=kept)
        print(f"wrote {EXPECTATIONS.relative_to(ROOT)} ({len(changed)} changes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
