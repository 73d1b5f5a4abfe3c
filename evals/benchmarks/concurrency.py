"""Benchmark: what `--concurrency` would give against the real embedded llama.cpp model, and so
whether its one-conversation-at-a-time limit is right.

A llama-cpp-python server serves one request at a time with one model instance and keeps one
conversation's evaluated prompt, so the embedded model's choice says it serves one conversation
at a time (`parallel=1`) and a run asking for more keeps to that. This measures the same trials
(the set's first cases, each bounded by `--window` seconds because the small model calls tools
until the call limit or its context window stops it) at concurrency 1 and at the highest level
asked for with the limit lifted, as model calls answered per second. Every call is recorded
(`--record`), so the counts are the model's, not an estimate.

    .venv/bin/python evals/benchmarks/concurrency.py [--levels 1,2] [--trials 4] [--window 30]

Exits 1 when lifting the limit would serve more than `--most` times as many calls per second:
then the limit costs throughput and should go.
"""

from __future__ import annotations

import argparse
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
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models.embedded import EMBEDDED_CONTEXT, embedded_model
    from ops_eval.testing import fixed_model

    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--trials", type=int, default=4, help="trials at every level")
    parser.add_argument("--window", type=float, default=30.0, help="seconds per trial")
    parser.add_argument("--most", type=float, default=1.1, help="largest speed-up to pass")
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
            chooser = fixed_model(choice.model, choice.name, choice.reason, parallel=limit)
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

        base = measure(low, None, f"concurrency {low}")
        lifted = measure(high, None, f"concurrency {high}, limit lifted")
    speedup = lifted / base
    print(f"speed-up {low}->{high} with the limit lifted: {speedup:.2f}x calls/s (the limit "
          f"stays right while this is at most {args.most}x); the server keeps to "
          f"{choice.parallel} at a time")  # fmt: skip
    sys.exit(0 if speedup <= args.most else 1)


if __name__ == "__main__":
    main()
