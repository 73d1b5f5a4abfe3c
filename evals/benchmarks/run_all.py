"""Every benchmark, one after another, each printing its figures; exits 1 when any missed its
target (all of them run regardless). What `mise run bench` does.

    .venv/bin/python evals/benchmarks/run_all.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = ("validate_speed.py", "harness_overhead.py", "concurrency.py", "gate_power.py")


def main() -> None:
    missed = []
    for name in BENCHMARKS:
        print(f"== {name}", flush=True)
        started = time.perf_counter()
        code = subprocess.call([sys.executable, str(HERE / name)])
        print(
            f"== {name}: {'ok' if code == 0 else 'MISSED'} in {time.perf_counter() - started:.0f} s"
        )
        if code != 0:
            missed.append(name)
    print("bench: all targets met" if not missed else f"bench: missed {', '.join(missed)}")
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
