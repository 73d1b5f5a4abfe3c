"""Benchmark: `--concurrency 4` against 1 with a model that takes 200 ms per call.

The model is the oracle (every case's expected trajectory) with a 200 ms sleep per call, run
in-process on the full ops set through the real runner, agent, tools and ADK Runner.

    .venv/bin/python evals/benchmarks/concurrency.py [--delay 0.2]

Exits 1 when the speed-up from the lowest to the highest level is below 3x.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET_SPEEDUP = 3.0


def main() -> None:
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.testing import OracleLlm, fixed_model

    parser = argparse.ArgumentParser()
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--levels", default="1,4")
    args = parser.parse_args()
    cases = read_evalset(REPO / "evals" / "ops.evalset.json").cases

    class SlowOracle(OracleLlm):
        async def generate_content_async(self, llm_request, stream=False):
            await asyncio.sleep(args.delay)
            async for response in super().generate_content_async(llm_request, stream):
                yield response

    slow = fixed_model(
        SlowOracle.from_cases(cases), "slow oracle", f"{args.delay * 1000:.0f} ms per call"
    )

    times = {}
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as null:
        # Warm-up: imports and first-use caches are paid here, not by the first level measured.
        execute(RunOptions(cases=["list-skills"], output=Path(tmp) / "warm.json"),
                chooser=slow, out=null, err=null)  # fmt: skip
        for level in [int(x) for x in args.levels.split(",")]:
            start = time.perf_counter()
            code, record, _ = execute(
                RunOptions(concurrency=level, output=Path(tmp) / f"c{level}.json"),
                chooser=slow, out=null, err=null,
            )  # fmt: skip
            times[level] = time.perf_counter() - start
            calls = sum(len(t.calls) + 1 for tr in record.trials for t in tr.turns)
            print(
                f"concurrency {level}: {times[level]:.2f} s for {len(record.trials)} trials "
                f"(~{calls} model calls), exit {code}"
            )
    low, high = min(times), max(times)
    speedup = times[low] / times[high]
    print(f"speed-up {low}->{high}: {speedup:.2f}x (target >= {TARGET_SPEEDUP}x)")
    sys.exit(0 if speedup >= TARGET_SPEEDUP else 1)


if __name__ == "__main__":
    main()
