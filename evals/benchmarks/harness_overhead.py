"""Benchmark: harness overhead of `ops-eval run` against `adk eval`, same set, same model.

The model is a zero-latency replay: the oracle (which follows every case's expected trajectory)
is recorded once, then both harnesses answer from that recording, so the wall times measure the
harnesses, not a model. Interpreter start and imports are included in both.

    .venv/bin/python evals/benchmarks/harness_overhead.py [--runs 3] [--max-seconds S]

Exits 1 when ops-eval takes more than a third of adk eval's time (or more than --max-seconds).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SET = REPO / "evals" / "ops.evalset.json"
TARGET_RATIO = 0.33


def record_oracle(path: Path) -> None:
    from ops_eval import RunOptions, execute, read_evalset
    from ops_eval.models.stand_ins import OracleLlm, fixed_model

    oracle = fixed_model(OracleLlm.from_cases(read_evalset(SET).cases), "oracle", "recording")

    with open(os.devnull, "w") as null:
        code, _, _ = execute(
            RunOptions(record=path, output=path.with_suffix(".run.json")), chooser=oracle,
            out=null, err=null,
        )  # fmt: skip
    assert code == 0, "the oracle must pass its own gate"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stdout[-2000:] + proc.stderr[-2000:]
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{tail}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--max-seconds", type=float, help="also fail when ops-eval's median exceeds this"
    )
    args = parser.parse_args()
    from ops_eval import read_evalset

    cases = len(read_evalset(SET).cases)
    with tempfile.TemporaryDirectory() as tmp:
        recording = Path(tmp) / "oracle.jsonl"
        record_oracle(recording)
        env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True",
               "OPS_AGENT_MODEL": f"replay:{recording}"}  # fmt: skip
        # Both harnesses get cached bytecode, as under mise (which unsets this variable).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        ours_cmd = [str(BIN / "ops-eval"), "run", "--output", str(Path(tmp) / "ours.json")]
        adk_cmd = [str(BIN / "adk"), "eval", "evals/replay_agent", str(SET)]
        history = REPO / "evals" / "replay_agent" / ".adk" / "eval_history"
        before = set(history.glob("*")) if history.exists() else set()
        ours, adk = [], []
        for _ in range(args.runs):
            ours.append(timed(ours_cmd, env))
            adk.append(timed(adk_cmd, env))
        for path in set(history.glob("*")) - before if history.exists() else []:
            path.unlink() if path.is_file() else shutil.rmtree(path)
    o, a = statistics.median(ours), statistics.median(adk)
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, {args.runs} runs each, "
        f"{SET.relative_to(REPO)} ({cases} cases), zero-latency replayed oracle"
    )
    print(f"ops-eval run: median {o:.2f} s (min {min(ours):.2f})")
    print(f"adk eval:     median {a:.2f} s (min {min(adk):.2f})")
    print(f"ops-eval / adk eval = {o / a:.2f} (target <= {TARGET_RATIO})")
    if args.max_seconds is not None:
        print(f"ops-eval run median {o:.2f} s against a limit of {args.max_seconds:.2f} s")
    missed = o / a > TARGET_RATIO or (args.max_seconds is not None and o > args.max_seconds)
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
