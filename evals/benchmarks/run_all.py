"""Every benchmark, one after another, each printing its figures; exits 1 when any missed its
target (all of them run regardless), 2 when the summary file cannot be written. What `mise run
bench` does.

    .venv/bin/python evals/benchmarks/run_all.py [--summary FILE]

With `--summary FILE`, or in a GitHub Actions job (`GITHUB_STEP_SUMMARY`), it also appends a
Markdown summary there: a table of the benchmarks with their result and time, and each one's
printed figures, so the CI job's page shows the numbers without opening its log.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = (
    "validate_speed.py",
    "harness_overhead.py",
    "concurrency.py",
    "gate_power.py",
    "fresh_eval.py",
    "test_speed.py",
    "mutate_speed.py",
)


@dataclass
class Outcome:
    name: str
    code: int
    seconds: float
    output: str

    @property
    def met(self) -> bool:
        return self.code == 0


def run(name: str) -> Outcome:
    """One benchmark in its own interpreter; its output is shown as it comes and kept."""
    started = time.perf_counter()
    lines = []
    with subprocess.Popen(
        [sys.executable, str(HERE / name)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",  # a stray byte in a benchmark's output must not stop the others
        bufsize=1,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            lines.append(line)
    return Outcome(name, process.returncode, time.perf_counter() - started, "".join(lines))


def markdown(outcomes: list[Outcome]) -> str:
    """The summary: one table row per benchmark, then each one's figures as it printed them."""
    missed = [o.name for o in outcomes if not o.met]
    head = "all targets met" if not missed else f"missed: {', '.join(missed)}"
    parts = [
        f"## Benchmarks: {head}",
        "",
        "| benchmark | result | seconds |",
        "|---|---|---:|",
        *(
            f"| `{o.name}` | {'met' if o.met else f'**MISSED** (exit {o.code})'} "
            f"| {o.seconds:.0f} |"
            for o in outcomes
        ),
    ]
    for o in outcomes:
        # a fence longer than any run of backticks in the output, so no output ends it early
        fence = "`" * max(3, max(map(len, re.findall("`+", o.output)), default=0) + 1)
        parts += ["", f"### `{o.name}`", "", fence + "text", o.output.rstrip(), fence]
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--summary",
        type=Path,
        default=os.environ.get("GITHUB_STEP_SUMMARY") or None,
        help="append a Markdown summary here (default: $GITHUB_STEP_SUMMARY when set)",
    )
    args = parser.parse_args(argv)
    if args.summary:  # a summary that cannot be written is said before minutes of benchmarks
        existed = Path(args.summary).exists()
        try:
            Path(args.summary).open("a", encoding="utf-8").close()
            if not existed:
                Path(args.summary).unlink()  # made again when there is something to say
        except OSError as exc:
            print(
                f"bench: --summary {args.summary}: cannot write ({exc.strerror})", file=sys.stderr
            )
            return 2
    outcomes = []
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        outcome = run(name)
        print(f"== {name}: {'ok' if outcome.met else 'MISSED'} in {outcome.seconds:.0f} s")
        outcomes.append(outcome)
    missed = [o.name for o in outcomes if not o.met]
    print("bench: all targets met" if not missed else f"bench: missed {', '.join(missed)}")
    if args.summary:
        with Path(args.summary).open("a", encoding="utf-8") as out:
            out.write(markdown(outcomes))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
