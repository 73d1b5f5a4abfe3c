"""Simulation: how often the regression gate cries wolf, and how often it catches a real drop.

Two runs of a 13-case set are drawn with every trial passing independently at a true rate, and
put through the gate's own comparison (`ops_eval.deciding.gate.compare.evaluate`, on synthetic run
records, under the shipped policy's regression threshold and category setting):

- false alarms: both runs at the same true rate; the share the gate calls `regressed`;
- power: the candidate's true rate 10 points lower; the share it calls `regressed`;
- and how often each ends `inconclusive_noise` (a drop past the threshold, within noise).

for 13 x 1, 13 x 5 and 13 x 20 trials per run. The random draws are seeded, so the counts are
the same on every machine. Exits 1 when the false-alarm rate passes `--max-false-alarm` at any
size, or the power at 13 x 20 falls below `--min-power`.

    .venv/bin/python evals/benchmarks/gate_power.py [--runs 1000] [--rate 0.85] [--drop 0.10]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

CASES = 13
REPEATS = (1, 5, 20)
CATEGORIES = ("happy", "negative", "approval", "adversarial", "memory")


def _draw(rng: random.Random, rate: float, repeats: int, run_id: str):
    from ops_eval.results.synthetic import synthetic_record

    outcomes = [
        (
            f"case-{i:02d}",
            CATEGORIES[i % len(CATEGORIES)],
            [rng.random() < rate for _ in range(repeats)],
        )
        for i in range(CASES)
    ]
    return synthetic_record(outcomes, run_id=run_id)


def simulate(
    runs: int, rate: float, drop: float, repeats: int, configs: list, seed: int
) -> list[Counter]:
    """Verdicts of `runs` comparisons under each policy of `configs`, on the same draws:
    baseline at `rate`, candidate at `rate - drop`."""
    from ops_eval.deciding.gate.compare import evaluate

    rng = random.Random(seed)
    verdicts: list[Counter] = [Counter() for _ in configs]
    for i in range(runs):
        baseline = _draw(rng, rate, repeats, f"b{i}")
        candidate = _draw(rng, rate - drop, repeats, f"c{i}")
        for counter, config in zip(verdicts, configs, strict=True):
            counter[evaluate(candidate, baseline, config).verdict] += 1
    return verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="simulated comparisons per cell")
    parser.add_argument("--rate", type=float, default=0.85, help="true pass rate of the baseline")
    parser.add_argument("--drop", type=float, default=0.10, help="true drop for the power figure")
    parser.add_argument("--max-false-alarm", type=float, default=0.05)
    parser.add_argument("--min-power", type=float, default=0.70, help="at 13 x 20 trials")
    args = parser.parse_args()

    from ops_eval.base.stats import wilson
    from ops_eval.validation.gate_config import gate_file, read_gate_config

    shipped, _ = read_gate_config(gate_file())
    config = shipped.model_copy(update={"suite_threshold": 0.0, "required_cases": {}})
    other = "gate" if config.categories == "report" else "report"
    configs = [config, config.model_copy(update={"categories": other})]
    print(
        f"gate simulation: {args.runs} comparisons per cell, true rate {args.rate:.0%}, drop "
        f"{args.drop:.0%}; regression threshold {config.regression_threshold:.0%}, categories "
        f"{config.categories} (last figure: categories {other}); trials independent"
    )
    missed = []
    started = time.perf_counter()
    for repeats in REPEATS:
        size = f"13 x {repeats:<2} = {CASES * repeats:>3} trials"
        for label, drop in (("false alarm", 0.0), ("power", args.drop)):
            seed = 1000 * repeats + (1 if drop else 0)
            v, alt = simulate(args.runs, args.rate, drop, repeats, configs, seed)
            k = v["regressed"]
            low, high = wilson(k, args.runs)
            print(
                f"{size}  {label:<11} regressed {k:>4}/{args.runs} = {k / args.runs:6.1%} "
                f"(95% CI {low:.1%} to {high:.1%}); inconclusive {v['inconclusive_noise']:>4}; "
                f"pass {v['pass']:>4}; improved {v['improved']:>3}; with categories {other}: "
                f"regressed {alt['regressed']}"
            )
            if label == "false alarm" and k / args.runs > args.max_false_alarm:
                missed.append(f"false alarms {k / args.runs:.1%} at {size}")
            if label == "power" and repeats == REPEATS[-1] and k / args.runs < args.min_power:
                missed.append(f"power {k / args.runs:.1%} at {size}")
    print(f"({time.perf_counter() - started:.0f} s)")
    if missed:
        print(f"MISSED: {'; '.join(missed)}")
        sys.exit(1)
    print(
        f"ok: false alarms at most {args.max_false_alarm:.0%} at every size, power at least "
        f"{args.min_power:.0%} at 13 x 20"
    )


if __name__ == "__main__":
    main()
