"""Benchmark: wall time of `ops-eval mutate` over the ops set with every deterministic mutant,
interpreter start included (the issue's target: offline, in under a minute).

Prints the median of several runs and exits 1 when it misses the target.

    .venv/bin/python evals/benchmarks/mutate_speed.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OPS_EVAL = Path(sys.executable).with_name("ops-eval")
TARGET_S = 60.0


def timed() -> tuple[float, str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    start = time.perf_counter()
    proc = subprocess.run(
        [str(OPS_EVAL), "mutate"], cwd=REPO, env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        sys.exit(f"ops-eval mutate exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    score = next((ln for ln in proc.stdout.splitlines() if ln.startswith("mutation score")), "")
    return elapsed, score


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = [timed() for _ in range(args.runs)]
    median = statistics.median(seconds for seconds, _ in runs)
    print(f"ops-eval mutate, ops set, every mutant: median {median:.1f} s over {args.runs} "
          f"run(s) (target < {TARGET_S:.0f} s); {runs[-1][1]}")  # fmt: skip
    return 0 if median < TARGET_S else 1


if __name__ == "__main__":
    raise SystemExit(main())
