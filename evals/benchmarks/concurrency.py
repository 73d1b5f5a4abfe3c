"""Benchmark: what `--concurrency` buys against the real embedded llama.cpp model.

A llama-cpp-python server serves one request at a time and keeps one prompt's evaluated state,
so at concurrency N the embedded model runs N servers (at most one per core), the cores split
between them, each conversation kept to one server (`ops_eval.models.replicas`). Measured as
model calls answered per second: the same trials (the set's first cases), each bounded by
`--window` seconds because the small model calls tools until its context is full, at
concurrency 1 and at the highest level asked for, each level with its own servers. Every call is
recorded (`--record`), so the counts are the model's, not an estimate.

    .venv/bin/python evals/benchmarks/concurrency.py [--levels 1,2] [--trials 4] [--window 30]

Exits 1 when the highest level serves fewer calls per second than `--target` times level 1.
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
    parser.add_argument("--target", type=float, default=1.1, help="least speed-up to pass")
    args = parser.parse_args()
    levels = sorted({int(x) for x in args.levels.split(",")})
    cases = [c.eval_id for c in read_evalset(REPO / "evals" / "ops.evalset.json").cases]
    chosen = cases[: args.trials]

    rate: dict[int, float] = {}
    print(f"{os.cpu_count()} cores, n_ctx={EMBEDDED_CONTEXT}, {len(chosen)} trials of "
          f"{args.window:.0f} s at most per level")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as null:
        for level in levels:
            with embedded_model(lambda line: None, Path(tmp), "bench", parallel=level) as choice:
                recording = Path(tmp) / f"c{level}.jsonl"
                options = RunOptions(
                    cases=chosen, concurrency=level, timeout_s=args.window, record=recording,
                    output=Path(tmp) / f"c{level}.json",
                )  # fmt: skip
                chooser = fixed_model(choice.model, choice.name, choice.reason)
                start = time.perf_counter()
                execute(options, chooser=chooser, out=null, err=null)
                seconds = time.perf_counter() - start
            calls = calls_in(recording)
            rate[level] = calls / seconds
            print(f"concurrency {level} ({choice.reason.split(':')[0]}): {calls} model calls "
                  f"in {seconds:.1f} s, {rate[level]:.2f} calls/s")  # fmt: skip
    low, high = levels[0], levels[-1]
    speedup = rate[high] / rate[low]
    print(f"speed-up {low}->{high}: {speedup:.2f}x calls/s (target >= {args.target}x)")
    sys.exit(0 if speedup >= args.target else 1)


if __name__ == "__main__":
    main()
