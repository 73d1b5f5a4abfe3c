"""A live mutant's verdict: its run against the unmutated agent's run, on the same model, cases
and repeats, decided by the gate's rule (`gate/compare.decide`) on the paired difference:

- **killed**: a regression the gate would flag -- the pass rate down by more than the
  regression threshold *and* the 95% interval of the paired difference (Newcombe) below zero.
  One unlucky trial does not kill a mutant;
- **inconclusive**: down by more than the threshold, the interval reaching zero -- more repeats
  would tell; not killed;
- **survived**: no such drop: the eval set, on this model, did not notice the mutant.

One difference from the gate: an errored trial counts as failing here. The gate leaves errors
out of its comparison (infrastructure is not evidence about the agent); but both arms run on
the same model and machine, and a mutant whose instruction makes the model ramble until the
trial times out has changed what the agent does. Left out, those trials made such a mutant look
*better* than the agent (measured: +80 points with five timeouts dropped).

The score is killed / mutants, as the deterministic one is. `mutate_live` plays both arms as
`ops-eval run` plays a run (`running.execute`: the same model choice, progress lines, judge --
`judging.run.judged` -- and records, `runs/mutate-<time>/unmutated.json` and one record per
mutant, whose `instruction_sha256` is the mutated instruction's), with `live_run_options`;
`live_lines` is the table `ops-eval mutate --live` prints.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TextIO

from ..base.stats import newcombe_paired
from ..deciding.gate.compare import Comparison, decide
from ..deciding.gate.flips import Flip, case_flips
from ..deciding.gate.outcomes import Tally, judgeable, trial_verdict
from ..judging.run import judged
from ..results.records import RunRecord, TrialRecord
from ..running.execute import Summary, execute
from ..running.judge import Opener
from ..running.options import RunOptions
from ..validation.gate_config import GateConfig
from .mutants import Mutant

LiveStatus = Literal["killed", "inconclusive", "survived"]


@dataclass(frozen=True)
class LiveVerdict:
    mutant: Mutant
    status: LiveStatus
    comparison: Comparison
    """The whole set: each side's tally, the difference and its interval."""
    flips: list[Flip]
    """Cases whose pass rate moved, with where the trajectories first part."""
    run_id: str
    model: str
    """The model both runs played on, as the records name it."""
    categories: list[Comparison]
    """Each category's comparison: shown, and killing only under `categories: gate`."""


def live_verdict(
    mutant: Mutant, unmutated: RunRecord, mutated: RunRecord, config: GateConfig
) -> LiveVerdict:
    """The mutant's verdict from its run and the unmutated one, paired by (case, repeat), over
    the set and per category; a category's regression kills it only when `gate.yaml` gates on
    categories (`categories: gate`), as the gate decides. OpsEvalError when a side has no trial
    with a verdict at all: every trial errored, which says the model or the machine failed, not
    which instruction is better."""
    scorers = config.gating_scorers
    judgeable(unmutated, scorers, "unmutated")
    judgeable(mutated, scorers, mutant.name)
    whole = _compare("all", unmutated.trials, mutated.trials, scorers, config)
    names = dict.fromkeys(t.category for t in unmutated.trials + mutated.trials)
    categories = [
        _compare(
            name,
            [t for t in unmutated.trials if t.category == name],
            [t for t in mutated.trials if t.category == name],
            scorers,
            config,
        )
        for name in names
    ]
    flagged = [whole] + ([c for c in categories] if config.categories == "gate" else [])
    verdicts = {c.verdict for c in flagged}
    status: LiveStatus = (
        "killed" if "regressed" in verdicts
        else "inconclusive" if whole.verdict == "inconclusive_noise" else "survived"
    )  # fmt: skip
    flips = case_flips(unmutated, mutated, scorers)[0]
    return LiveVerdict(mutant, status, whole, flips, mutated.run_id, mutated.model.name, categories)


def _compare(
    name: str,
    before: list[TrialRecord],
    after: list[TrialRecord],
    scorers: list[str],
    config: GateConfig,
) -> Comparison:
    """The paired difference (after - before) of one scope, errored trials as failing."""
    b, a = _verdicts(before, scorers), _verdicts(after, scorers)
    pairs = [(b[k], a[k]) for k in b if k in a and b[k] is not None and a[k] is not None]
    both = sum(x and y for x, y in pairs)
    only_after = sum(y and not x for x, y in pairs)
    only_before = sum(x and not y for x, y in pairs)
    estimate, low, high = newcombe_paired(
        both, only_after, only_before, len(pairs) - both - only_after - only_before
    )
    verdict = decide(estimate, low, high, config.regression_threshold)
    tallies = _tally(before, scorers), _tally(after, scorers)
    return Comparison(name, *tallies, len(pairs), estimate, low, high, verdict)


def _verdicts(trials: list[TrialRecord], scorers: list[str]) -> dict[tuple[str, int], bool | None]:
    """(case, repeat) -> pass, fail (an errored trial too), or None (no gating scorer counted)."""
    return {
        (t.case_id, t.repeat): False if t.status == "error" else trial_verdict(t, scorers)
        for t in trials
    }


def _tally(trials: list[TrialRecord], scorers: list[str]) -> Tally:
    """k passing of n with a verdict, errored trials among the n (as failing)."""
    found = [v for v in _verdicts(trials, scorers).values() if v is not None]
    errors = sum(t.status == "error" for t in trials)
    return Tally(k=sum(found), n=len(found), errors=errors)


def live_score(verdicts: list[LiveVerdict]) -> tuple[int, int]:
    """(killed, mutants)."""
    return sum(v.status == "killed" for v in verdicts), len(verdicts)


def live_run_options(
    plan: Any,
    policy: GateConfig,
    cases: str | None,
    repeats: int,
    timeout_s: float,
    scorers: str | None,
) -> tuple[RunOptions, GateConfig, list[str] | None]:
    """(the options both arms run with, the policy that decides -- its gating scorers replaced
    by `--scorers` when given --, the scorers given); exit 2 for options `ops-eval run` would
    refuse or a scorer that does not exist."""
    from ..base.inputs import bad_input, id_list
    from ..running.options import check_options

    options = RunOptions(
        set_path=Path(plan.evalset.path),
        cases=id_list("--cases", cases, "case"),
        repeats=repeats,
        timeout_s=timeout_s,
    )
    check_options(options)
    if chosen := id_list("--scorers", scorers, "scorer"):
        from ..scorers import registered

        unknown = [n for n in chosen if n not in registered()]
        if unknown:
            raise bad_input(f"--scorers: {', '.join(unknown)}: no such scorer")
        policy = policy.model_copy(update={"gating_scorers": chosen})
    return options, policy, chosen


def live_folder(runs_dir: Path) -> Path:
    return runs_dir / f"mutate-{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}"


def mutate_live(
    options: RunOptions,
    mutants: Sequence[Mutant],
    config: GateConfig,
    folder: Path,
    chooser: Callable[..., Any] | None = None,
    *,
    summary: Summary | None = None,
    out: TextIO | None = None,
    judge: Opener = judged,
) -> list[LiveVerdict]:
    """Run the unmutated agent, then each mutant (named on `out` as it starts), into `folder`;
    each mutant's verdict. `summary` and `judge` (what opens the run's judge: the project's, as
    `ops-eval run` opens it) are each run's, as `execute` takes them."""
    _, unmutated, _ = execute(
        replace(options, output=folder / "unmutated.json"),
        chooser=chooser,
        summary=summary,
        judge=judge,
    )
    verdicts = []
    for mutant in mutants:
        print(f"mutant {mutant.name}: {mutant.bug}", file=out or sys.stdout, flush=True)
        with mutant.applied():
            _, mutated, _ = execute(
                replace(options, output=folder / f"{mutant.name}.json"),
                chooser=chooser,
                summary=summary,
                judge=judge,
            )
        verdicts.append(live_verdict(mutant, unmutated, mutated, config))
    return verdicts


def _rate(tally: Any) -> str:
    """`9/15 (60%) 1 err`: errored trials (a timeout, say) are among the n, as failing."""
    rate = f"{tally.k}/{tally.n}" + (f" ({tally.rate:.0%})" if tally.n else "")
    return rate + (f" {tally.errors} err" if tally.errors else "")


def live_lines(verdicts: Sequence[LiveVerdict], eval_set: str, folder: Path) -> list[str]:
    """The table of `ops-eval mutate --live`: each mutant against the unmutated agent, the
    categories and cases that moved, and the score."""
    width = max(len(v.mutant.name) for v in verdicts) + 2
    lines = [
        f"\n{'mutant':<{width}}{'unmutated':<22}{'mutated':<22}{'difference (95% CI)':<30}verdict"
    ]
    for v in verdicts:
        c = v.comparison
        diff = f"{c.estimate:+.1%} [{c.low:+.1%}, {c.high:+.1%}]"
        lines.append(
            f"{v.mutant.name:<{width}}{_rate(c.baseline):<22}{_rate(c.candidate):<22}"
            f"{diff:<30}{v.status}"
        )
        for cat in v.categories:
            if cat.verdict in ("regressed", "inconclusive_noise"):
                said = f"{cat.estimate:+.1%} [{cat.low:+.1%}, {cat.high:+.1%}]"
                lines.append(
                    f"{'':<{width}}  category {cat.name}: {_rate(cat.baseline)} -> "
                    f"{_rate(cat.candidate)}, {said} {cat.verdict}"
                )
        lines += [
            f"{'':<{width}}  {flip.case_id}: {flip.direction} ({flip.baseline} -> "
            f"{flip.candidate}) {flip.divergence}"
            for flip in v.flips
        ]
    killed, counted = live_score(list(verdicts))
    lines.append(
        f"instruction mutation score of {eval_set}: {killed}/{counted} killed (a regression the "
        f"gate would flag); records in {folder}"
    )
    return lines


def play_live(
    plan: Any,
    policy: GateConfig,
    mutants: Sequence[Mutant],
    wanted: tuple[str | None, int, float, str | None],
    summary: Summary,
    say: Callable[[str], Any] = print,
) -> Any:
    """`ops-eval mutate --live` once its options are checked: `wanted` (--cases, --repeats,
    --timeout, --scorers) played into a new folder of the runs folder, the table said line by
    line; the ledger's entry for it (`ledger.entry_for`)."""
    from ..base.settings import current
    from .ledger import entry_for
    from .mutants.instruction import instruction_mutants

    options, policy, chosen = live_run_options(plan, policy, *wanted)
    if chosen:
        say(f"a trial's verdict here: the scorers {', '.join(chosen)} (--scorers)")
    folder = live_folder(current().runs_dir)
    verdicts = mutate_live(options, mutants, policy, folder, summary=summary)
    for line in live_lines(verdicts, plan.evalset.display, folder):
        say(line)
    model = verdicts[0].model if verdicts else "unknown"
    complete = len(mutants) == len(instruction_mutants())
    return entry_for(plan.evalset, "live", model, verdicts, complete)
