"""The deterministic red team under each guard mutant (`ops-eval mutate --redteam`): a mutant that
switches a guard off must make the red team fail -- a breach, an attack past a guard, coverage
that drifts -- or the red team, too, has a blind spot. `with_redteam` plays every guard mutant
an eval set let survive through the red team."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .mutants import Mutant


def redteam_kill(mutant: Mutant, attacks: Sequence[object], benign: Sequence[object],
                 seed: object) -> str | None:  # fmt: skip
    """What the red team found under `mutant` -- its breaches, the coverage that drifted -- or
    None when it passed as it passes on the agent as it is."""
    from ..base.model_logs import model_logs
    from ..redteam.suite import run_suite

    with mutant.applied(), model_logs(floor=logging.ERROR):
        result = run_suite(list(attacks), list(benign), seed=seed)  # type: ignore[arg-type]
    if result.exit_code == 0:
        return None
    found = []
    if result.breached:
        found.append(f"{len(result.breached)} breach(es), e.g. {result.breached[0].attack}")
    if result.drift:
        found.append(f"coverage drift in {len(result.drift)} class(es)")
    if result.invalid:
        found.append(f"{len(result.invalid)} invalid run(s)")
    return "; ".join(found) or f"exit {result.exit_code}"


def with_redteam(result: Any, plan: Any) -> Any:
    """`result` (`offline.Mutation`) with each surviving guard mutant played through the
    red team: killed when the red team fails under it."""
    from dataclasses import replace

    from ..redteam import (
        default_attacks,
        default_benign,
        default_held_out,
        load_attacks,
        load_benign,
    )

    attacks = load_attacks([default_attacks(), default_held_out()], plan.seed)
    benign = load_benign(default_benign())
    verdicts = []
    for v in result.verdicts:
        found = None
        if v.mutant.kind == "guard" and v.status == "survived":
            found = redteam_kill(v.mutant, attacks, benign, plan.seed)
        verdicts.append(replace(v, status="killed", killed_by={"red team": [found]}) if found
                        else v)  # fmt: skip
    return replace(result, verdicts=verdicts)
