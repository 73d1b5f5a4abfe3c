"""Benchmark: wall time of the fast test tier, `mise run test`, exactly as a contributor runs it
before a push (lint, the red team, eval:validate, then every test not marked e2e on every core).

Run it warm: in a checkout whose `.venv` is synced and whose optional groups are installed (any
earlier `mise run test` did both). Each run is timed from the command's start to its end; the
figures are every run, then min, median and max. It fails when the median passes the target, or
when a run fails (a red tier has no speed worth reporting).

    .venv/bin/python evals/benchmarks/test_speed.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET_S = 180.0


def timed() -> float:
    mise = shutil.which("mise")
    if mise is None:
        print("test_speed: mise is not on PATH (npm install -g @jdxcode/mise)", file=sys.stderr)
        sys.exit(2)
    start = time.perf_counter()
    proc = subprocess.run(
        [mise, "run", "test"], cwd=REPO, capture_output=True, text=True, env=os.environ.copy()
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        said = (proc.stdout + proc.stderr).splitlines()
        # what failed, and the order's seed to replay it
        keep = [ln for ln in said if ln.split("] ", 1)[-1].startswith(("FAILED", "ERROR", "rand"))]
        print(f"test_speed: `mise run test` failed (exit {proc.returncode}):")
        print("\n".join(keep or said[-40:]))
        sys.exit(1)
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    times = []
    for i in range(args.runs):
        times.append(timed())
        print(f"run {i + 1}/{args.runs}: {times[-1]:.1f} s", flush=True)
    median = statistics.median(times)
    print(
        f"fast tier (mise run test) on {os.cpu_count()} cores: min {min(times):.1f} s, "
        f"median {median:.1f} s, max {max(times):.1f} s over {args.runs} runs "
        f"(target: median within {TARGET_S:.0f} s)"
    )
    sys.exit(0 if median <= TARGET_S else 1)


if __name__ == "__main__":
    main()
