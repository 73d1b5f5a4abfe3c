"""Benchmark: how many conversations at once the embedded llama.cpp server should serve on this
machine, and so whether `EMBEDDED_PARALLEL` (its slots, and a run's concurrency with it) is
right.

For each level it starts llama.cpp's server with that many slots (continuous batching, each slot
keeping its conversation's prompt), then plays the same trials -- the ops set's first cases, on
the real agent, through LiteLLM and HTTP -- at that concurrency, and counts the model calls the
server answered (every call is recorded with `--record`, so the counts are the model's). It
prints trials per minute and model calls per second at each level.

    .venv/bin/python evals/benchmarks/concurrency.py [--levels 1,2] [--trials 8]

Exits 1 when another level plays the trials more than `--most` times as fast as the default:
then the default costs the user time and should change.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def calls_in(recording: Path) -> int:
    """Model calls in a recording: one line each after the header line."""
    return max(0, len(recording.read_text(encoding="utf-8").splitlines()) - 1)


def main() -> None:
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models import local_deps
    from ops_eval.models.embedded import EMBEDDED_PARALLEL, client, default_served, serving
    from ops_eval.models.stand_ins import fixed_model

    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", default="1,2")
    parser.add_argument("--trials", type=int, default=8, help="trials at every level")
    parser.add_argument("--most", type=float, default=1.1, help="largest speed-up to pass")
    args = parser.parse_args()
    levels = sorted({int(x) for x in args.levels.split(",")} | {EMBEDDED_PARALLEL})
    local_deps.ensure(print)
    cases = [c.eval_id for c in read_evalset(REPO / "evals" / "ops.evalset.json").cases]
    chosen = cases[: args.trials]
    print(f"{os.cpu_count()} cores; {len(chosen)} trials of the ops set at each level; the "
          f"default is {EMBEDDED_PARALLEL} slot(s)")  # fmt: skip
    speed: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as null:
        for level in levels:
            served = replace(default_served(), parallel=level)
            log = Path(tmp) / f"server-{level}.log"
            with serving(served, lambda line: None, log) as server:
                model = client(served, server.base_url)
                chooser = fixed_model(model, f"openai/{served.alias}", "the benchmark's")
                recording = Path(tmp) / f"level-{level}.jsonl"
                options = RunOptions(
                    cases=chosen, concurrency=level, record=recording,
                    output=Path(tmp) / f"level-{level}.json",
                )  # fmt: skip
                # one trial first, so every level starts with the shared prompt prefix cached
                warm = replace(options, cases=chosen[:1], record=None, concurrency=1,
                               output=Path(tmp) / f"warm-{level}.json")  # fmt: skip
                execute(warm, chooser=chooser, out=null, err=null)
                start = time.perf_counter()
                _, record, _ = execute(options, chooser=chooser, out=null, err=null)
                seconds = time.perf_counter() - start
            calls = calls_in(recording)
            errors = sum(t.status == "error" for t in record.trials)
            speed[level] = len(record.trials) / seconds
            print(f"{level} slot(s), concurrency {record.concurrency}: {len(record.trials)} "
                  f"trials ({errors} errors), {calls} model calls in {seconds:.1f} s: "
                  f"{60 * speed[level]:.1f} trials/min, {calls / seconds:.2f} calls/s")  # fmt: skip
    best = max(speed, key=speed.__getitem__)
    gain = speed[best] / speed[EMBEDDED_PARALLEL]
    print(f"fastest: {best} slot(s), {gain:.2f}x the default's trials/min (the default stays "
          f"right while this is at most {args.most}x)")  # fmt: skip
    sys.exit(0 if gain <= args.most else 1)


if __name__ == "__main__":
    main()
