"""Benchmark: wall time of `ops-eval validate`, interpreter start included.

Prints the median of several runs for (a) every eval set in the repository and (b) 10,000
generated cases, each cold (empty ADK-acceptance cache: ADK's models are imported and parse
everything) and warm (the files were accepted before, so ADK is not imported). Python's own
bytecode cache is warm in both, as in any checkout after its first run: one untimed run writes
it first (PYTHONDONTWRITEBYTECODE is dropped, else every run would compile whatever changed
since the cache was last written, and time that). Exits 1 when a median misses its target.

    .venv/bin/python evals/benchmarks/validate_speed.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
OPS_EVAL = Path(sys.executable).with_name("ops-eval")
# (cold, warm) seconds, medians. The repository's sets: a newcomer's `mise run eval:validate`.
TARGET_REPO_S = (1.0, 0.3)
# 10,000 generated cases: cold within 5 s; a warm run skips ADK's import and parse, so it takes
# at most half the time of the lesser of cold and that target.
TARGET_LARGE_S = (5.0, None)
WARM_SHARE = 0.5


def timed(args: list[str], cache: Path, cwd: Path) -> float:
    env = {**os.environ, "OPS_EVAL_CACHE": str(cache), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    start = time.perf_counter()
    proc = subprocess.run(
        [str(OPS_EVAL), "validate", *args], cwd=cwd, env=env, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"validate failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}")
    return elapsed


def measure(
    label: str, args: list[str], cwd: Path, runs: int, target: tuple[float, float | None]
) -> bool:
    """Print the figures; True when the cold median is within `target[0]` seconds and the warm
    one within `target[1]` (None: within `WARM_SHARE` of the lesser of cold and `target[0]`)."""
    cold, warm = [], []
    with tempfile.TemporaryDirectory(prefix="ops-eval-cache-") as cache:
        timed(args, Path(cache), cwd)  # untimed: writes Python's bytecode cache
    for _ in range(runs):
        cache = Path(tempfile.mkdtemp(prefix="ops-eval-cache-"))
        cold.append(timed(args, cache, cwd))
        warm.append(timed(args, cache, cwd))
        shutil.rmtree(cache)
    cold_target, warm_target = target
    warm_limit = warm_target or WARM_SHARE * min(statistics.median(cold), cold_target)
    said = f"{warm_target:.1f} s" if warm_target else f"{WARM_SHARE:.0%} of cold or target"
    print(
        f"{label}: cold median {statistics.median(cold):.2f} s (min {min(cold):.2f}), "
        f"warm median {statistics.median(warm):.2f} s (min {min(warm):.2f}) over {runs} runs "
        f"(targets: cold within {cold_target:.1f} s, warm within {said})"
    )
    return statistics.median(cold) <= cold_target and statistics.median(warm) <= warm_limit


def generate(folder: Path, count: int) -> None:
    """`count` distinct cases: the main set's cases round-robin, each with a unique id and its
    own prompt and reference wording, so no parse or cache can share work between them."""
    base = json.loads((REPO / "evals" / "ops.evalset.json").read_text())
    cases = []
    for i in range(count):
        case = json.loads(json.dumps(base["eval_cases"][i % len(base["eval_cases"])]))
        case["eval_id"] = f"{case['eval_id']}-{i}"
        for turn in case["conversation"]:
            turn["user_content"]["parts"][0]["text"] += f" (variant {i})"
            turn["final_response"]["parts"][0]["text"] += f" [{i}]"
        cases.append(case)
    base["eval_cases"] = cases
    (folder / "generated.evalset.json").write_text(json.dumps(base))
    for name in ("test_config.json", "negatives.yaml"):
        shutil.copy(REPO / "evals" / name, folder / name)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cases", type=int, default=10_000)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus")
    ok = measure("all eval sets in the repo", [], REPO, args.runs, TARGET_REPO_S)
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.cases)
        ok &= measure(
            f"{args.cases} generated cases", [tmp], REPO, max(1, args.runs // 2), TARGET_LARGE_S
        )
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
