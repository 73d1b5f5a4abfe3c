"""Benchmark: what `--concurrency` gives a user of the real embedded llama.cpp model.

A llama-cpp-python server serves one request at a time with one model instance, and keeps one
conversation's evaluated prompt; its model choice says it serves one conversation at a time to
advantage, and a run asking for more keeps to that (with a note). Measured as model calls
answered per second -- the same trials (the set's first cases), each bounded by `--window`
seconds because the small model calls tools until its context is full -- at concurrency 1 and
at the highest level asked for, as a user runs them; and once more at that level without the
limit, to show what the limit spares. Every call is recorded (`--record`), so the counts are the
model's, not an estimate.

    .venv/bin/python evals/benchmarks/concurrency.py [--levels 1,2] [--trials 4] [--window 20]

Exits 1 when the highest level, as a user runs it, serves fewer calls per second than
`--target` times level 1.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def calls_in(recording: Path) -> int:
    """Model calls in a recording: one line each after the header line."""
    return max(0, len(recording.read_text(encoding="utf-8").splitlines()) - 1)


def main() -> None:
    import contextlib

    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models.embedded import EMBEDDED_CONTEXT, embedded_model

    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--trials", type=int, default=4, help="trials at every level")
    parser.add_argument("--window", type=float, default=20.0, help="seconds per trial")
    parser.add_argument("--target", type=float, default=0.9, help="least speed-up to pass")
    args = parser.parse_args()
    levels = sorted({int(x) for x in args.levels.split(",")})
    low, high = levels[0], levels[-1]
    cases = [c.eval_id for c in read_evalset(REPO / "evals" / "ops.evalset.json").cases]
    chosen = cases[: args.trials]
    print(f"{os.cpu_count()} cores, n_ctx={EMBEDDED_CONTEXT}, n_threads={os.cpu_count()}, "
          f"{len(chosen)} trials of {args.window:.0f} s at most per measurement")  # fmt: skip

    with (
        tempfile.TemporaryDirectory() as tmp,
        open(os.devnull, "w") as null,
        embedded_model(lambda line: None, Path(tmp), "the benchmark asked for it") as choice,
    ):

        def measure(level: int, limit: int | None, label: str) -> float:
            @contextlib.contextmanager
            def chooser(*_, **__):
                yield dataclasses.replace(choice, parallel=limit)

            recording = Path(tmp) / f"{label}.jsonl"
            options = RunOptions(
                cases=chosen, concurrency=level, timeout_s=args.window, record=recording,
                output=Path(tmp) / f"{label}.json",
            )  # fmt: skip
            start = time.perf_counter()
            _, record, _ = execute(options, chooser=chooser, out=null, err=null)
            seconds = time.perf_counter() - start
            calls = calls_in(recording)
            print(f"{label}: asked {level}, ran {record.concurrency} at once: {calls} model "
                  f"calls in {seconds:.1f} s, {calls / seconds:.2f} calls/s")  # fmt: skip
            return calls / seconds

        base = measure(low, choice.parallel, f"concurrency {low}")
        kept = measure(high, choice.parallel, f"concurrency {high}")
        raw = measure(high, None, f"concurrency {high}, no limit")
    print(f"speed-up {low}->{high} as run: {kept / base:.2f}x (target >= {args.target}x); "
          f"without the limit it would be {raw / base:.2f}x")  # fmt: skip
    sys.exit(0 if kept / base >= args.target else 1)


if __name__ == "__main__":
    main()
