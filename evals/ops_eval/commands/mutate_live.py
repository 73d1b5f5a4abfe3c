"""`ops-eval mutate --live`: instruction mutants (`playing/mutants/instruction.py`) on a live
model, each compared with the unmutated agent on the same model, cases and repeats.

The unmutated agent is run first, then each mutant, as `ops-eval run` runs them (the same
model choice, progress lines and records: `runs/mutate-<time>/unmutated.json` and one record
per mutant, whose `instruction_sha256` is the mutated instruction's). Each mutant's verdict is
the gate's comparison of the two records (`deciding/mutation.py`): killed only when the gate
would flag a regression (Newcombe), never on one unlucky trial.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..deciding.mutation import LiveVerdict, live_score, live_verdict
from ..playing.mutants import Mutant
from ..running.options import RunOptions
from ..validation.gate_config import GateConfig


def live_folder(runs_dir: Path) -> Path:
    return runs_dir / f"mutate-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def mutate_live(
    options: RunOptions,
    mutants: Sequence[Mutant],
    config: GateConfig,
    folder: Path,
    chooser: Callable[..., Any] | None = None,
) -> list[LiveVerdict]:
    """Run the unmutated agent, then each mutant, into `folder`; each mutant's verdict."""
    from .run import execute

    _, unmutated, _ = execute(replace(options, output=folder / "unmutated.json"), chooser=chooser)
    verdicts = []
    for mutant in mutants:
        print(f"mutant {mutant.name}: {mutant.bug}", flush=True)
        with mutant.applied():
            _, mutated, _ = execute(
                replace(options, output=folder / f"{mutant.name}.json"), chooser=chooser
            )
        verdicts.append(live_verdict(mutant, unmutated, mutated, config))
    return verdicts


def _rate(tally: Any) -> str:
    """`9/15 (60%) 1 err`: errored trials (a timeout, say) are among the n, as failing."""
    rate = f"{tally.k}/{tally.n}" + (f" ({tally.rate:.0%})" if tally.n else "")
    return rate + (f" {tally.errors} err" if tally.errors else "")


def print_live(verdicts: Sequence[LiveVerdict], eval_set: str, folder: Path) -> None:
    width = max(len(v.mutant.name) for v in verdicts) + 2
    print(
        f"\n{'mutant':<{width}}{'unmutated':<22}{'mutated':<22}{'difference (95% CI)':<30}verdict"
    )
    for v in verdicts:
        c = v.comparison
        diff = f"{c.estimate:+.1%} [{c.low:+.1%}, {c.high:+.1%}]"
        print(
            f"{v.mutant.name:<{width}}{_rate(c.baseline):<22}{_rate(c.candidate):<22}"
            f"{diff:<30}{v.status}"
        )
        for cat in v.categories:
            if cat.verdict in ("regressed", "inconclusive_noise"):
                said = f"{cat.estimate:+.1%} [{cat.low:+.1%}, {cat.high:+.1%}]"
                print(
                    f"{'':<{width}}  category {cat.name}: {_rate(cat.baseline)} -> "
                    f"{_rate(cat.candidate)}, {said} {cat.verdict}"
                )
        for flip in v.flips:
            print(
                f"{'':<{width}}  {flip.case_id}: {flip.direction} ({flip.baseline} -> "
                f"{flip.candidate}) {flip.divergence}"
            )
    killed, counted = live_score(list(verdicts))
    print(
        f"instruction mutation score of {eval_set}: {killed}/{counted} killed (a regression the "
        f"gate would flag); records in {folder}"
    )
