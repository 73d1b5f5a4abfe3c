"""One gate decision, from the command's flags to the ledger: every input checked before
anything is recorded (the allowed changes, the gate file as `ops-eval validate` would check it,
the ledger, the candidate run -- whole, not a shard, not interrupted -- and its judges), the
baseline chosen, blocking changes refused, the comparison made, and the verdict appended.

Exit codes, as `Decision.exit_code` and OpsEvalError carry them: 0 pass, improved or
inconclusive (said loudly), or overridden; 1 regressed, below the suite threshold, a required
case failed in any trial, a gating scorer's judge is not calibrated (`judging.gate_check`), or the
judge budget blocked a call; 2 bad or incompatible input, or no baseline where one is required;
3 a decision the ledger could not take (returned marked `unrecorded`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...base.exits import OpsEvalError
from ...base.inputs import bad_input
from .changes import KINDS

if TYPE_CHECKING:
    from collections.abc import Callable

    from ...results.records import RunRecord
    from ...validation.gate_config import GateConfig
    from .render import Decision, JudgeCheck


def allowed_changes(raw: list[str] | None) -> list[str]:
    """The kinds of change `--allow-change` names (comma-separated, repeatable), each once."""
    names = list(
        dict.fromkeys(n.strip() for item in raw or [] for n in item.split(",") if n.strip())
    )
    unknown = [n for n in names if n not in KINDS]
    if unknown:
        raise bad_input(f"--allow-change: no kind {', '.join(unknown)} (kinds: {', '.join(KINDS)})")
    return names


def gate_policy(suite: float | None, regression: float | None) -> tuple[Path, Any, str]:
    """(the gate file's path, the policy as applied -- flags included, the sha256 of the
    file's policy without flags); OpsEvalError (exit 2) for a file `ops-eval validate` would
    flag: one that does not read, or a policy that cannot gate (`validation.gate_rules`:
    scorers, thresholds, and the required cases against the sets beside it)."""
    from ...validation.gate_config import gate_file
    from ...validation.gate_rules import checked_policy

    path = gate_file()
    shipped, problems = checked_policy(path, [])
    if problems or shipped is None:
        more = f" (and {len(problems) - 1} more: `ops-eval validate`)" if problems[1:] else ""
        raise bad_input(f"{problems[0].render()}{more}")
    return path, shipped.tightened(suite, regression), shipped.digest()


def decide_gate(
    run: str | None,
    *,
    baseline: str | None = None,
    pinned: str | None = None,
    allow_change: list[str] | None = None,
    suite_threshold: float | None = None,
    regression_threshold: float | None = None,
    require_baseline: bool = False,
    check_judges: Callable[[RunRecord, GateConfig], JudgeCheck],
) -> Decision:
    """Read, check, compare and record; the Decision. OpsEvalError for bad input (exit 2) or a
    candidate with no verdict (exit 3); a decision the ledger could not take is returned
    marked unrecorded (exit 3). `check_judges` is the judge check the command hands
    (`judging.gate_check.check_judges`: the judge sits above this layer)."""
    from ...base.settings import current
    from ...results.runs import load, resolve_run
    from ..ledger.chain import default_ledger
    from ..ledger.entries import OverrideEntry, find_override
    from .compare import evaluate
    from .outcomes import judgeable
    from .reader_check import reader_warnings
    from .render import Decision

    allowed = allowed_changes(allow_change)
    config_path, config, shipped_sha = gate_policy(suite_threshold, regression_threshold)
    runs_dir = current().runs_dir
    ledger = default_ledger()
    entries = ledger.entries()  # a broken ledger is refused before anything is decided
    cand_path = resolve_run(run, runs_dir)
    candidate = _whole(load(cand_path, "candidate"))
    judgeable(candidate, config.gating_scorers, "candidate")
    judges = check_judges(candidate, config)  # a calibration log it cannot trust: exit 2
    readers = reader_warnings(candidate, config)  # warnings only: the exit is the same
    chosen, skipped = _chosen(
        candidate, cand_path, ledger, runs_dir, config, allowed, {shipped_sha, config.digest()},
        explicit=baseline, pinned=pinned, required=require_baseline,
    )  # fmt: skip
    base = chosen.record if chosen else None
    changed = _compatible(base, candidate, allowed)
    shared = _shared(base, candidate, config)
    result = evaluate(candidate, base, config, shared.shared if shared else None)
    result.failures += judges.failures
    verdict = _verdict(candidate, cand_path, chosen, config, allowed, result)
    decision = Decision(
        candidate=candidate,
        candidate_path=cand_path,
        baseline=base,
        baseline_path=chosen.path if chosen else None,
        baseline_how=chosen.how if chosen else _no_baseline(skipped),
        changed=changed,
        shared=shared,
        allowed=allowed,
        config=config,
        config_path=config_path,
        result=result,
        override=None if result.passed else find_override(entries, verdict),
        other_overrides=sum(
            isinstance(e, OverrideEntry) and e.candidate == candidate.run_id for e in entries
        ),
        skipped=skipped,
        judges=judges,
        readers=readers,
        trust=ledger.trust(),
    )
    try:
        ledger.append(verdict)
    except OpsEvalError as exc:  # decided, but not kept: said, and exit 3
        decision.unrecorded = str(exc)
    return decision


def _whole(candidate: Any) -> Any:
    """The candidate, refused when it is a shard or was interrupted: the gate decides whole
    runs only."""
    from ...results.runs import partial

    if candidate.shard is not None:
        raise bad_input(
            f"candidate run {candidate.run_id} is shard {candidate.shard.index}/"
            f"{candidate.shard.count} of a run, a slice of its trials: `ops-eval merge` its "
            "shards, then gate the merged record"
        )
    if candidate.interrupted is not None:
        raise bad_input(
            f"candidate run {candidate.run_id}: {partial(candidate)}; the gate decides on whole "
            "runs only; run it again"
        )
    return candidate


def _chosen(
    candidate: Any,
    cand_path: Path,
    ledger: Any,
    runs_dir: Path,
    config: Any,
    allowed: list[str],
    policies: set[str],
    *,
    explicit: str | None,
    pinned: str | None,
    required: bool,
) -> tuple[Any, list[Any]]:
    """(the baseline chosen or None, the runs passed over); OpsEvalError (exit 2) when none
    is found and one is `required`."""
    from .baseline import choose_baseline

    chosen, skipped = choose_baseline(
        candidate,
        cand_path,
        explicit=explicit,
        pinned=pinned,
        ledger=ledger,
        runs_dir=runs_dir,
        config=config,
        allowed=allowed,
        policies=policies,
    )
    if chosen is None and required:
        raise bad_input(
            f"no baseline for run {candidate.run_id}: no pin and no eligible earlier run of its "
            f"eval set, model and cases ({len(skipped)} passed over: `ops-eval gate` without "
            "--require-baseline lists why), and none given (--baseline, --pinned)"
        )
    return chosen, skipped


def _no_baseline(skipped: list[Any]) -> str:
    if skipped:
        return f"no eligible earlier run or pin; {len(skipped)} passed over, below"
    return "no earlier run of this eval set, model and cases"


def _compatible(baseline: Any, candidate: Any, allowed: list[str]) -> list[Any]:
    """What changed between the runs; OpsEvalError (exit 2) for a blocking change not allowed."""
    from .changes import changes

    changed = changes(baseline, candidate) if baseline else []
    blocked = [c for c in changed if c.blocking and c.name not in allowed]
    if blocked:
        names = ",".join(c.name for c in blocked)
        detail = "; ".join(c.show() for c in blocked)
        raise bad_input(
            f"incompatible runs: {detail}. Their pass rates measure different things; "
            f"name the change to compare anyway: --allow-change {names}"
        )
    return changed


def _shared(baseline: Any, candidate: Any, config: Any) -> Any:
    """The cases both runs played at the same hash (`results.shared_cases.Shared`), or None for
    an older record (compared as a whole); OpsEvalError (exit 2) when they share none, or none
    of the shared cases has a verdict on both sides -- there is then nothing to compare."""
    from ...results.shared_cases import restricted, shared_cases
    from .outcomes import judgeable

    shared = shared_cases(baseline, candidate) if baseline else None
    if shared is None:
        return None
    if not shared.shared:
        detail = "; ".join(shared.lines())
        raise bad_input(
            f"incompatible runs: no case is shared at the same version by baseline "
            f"{baseline.run_id} and candidate {candidate.run_id} ({detail}); there is nothing "
            "to compare: gate against a run of these cases"
        )
    for record, label in ((baseline, "baseline"), (candidate, "candidate")):
        judgeable(restricted(record, shared.shared), config.gating_scorers, f"{label} (shared)")
    return shared


def _verdict(
    candidate: Any, cand_path: Path, chosen: Any, config: Any, allowed: list[str], result: Any
) -> Any:
    """The ledger's entry of this decision: what was compared with what, under which policy."""
    from ...results.runs import file_sha256
    from ..ledger.entries import VerdictEntry

    return VerdictEntry(
        candidate=candidate.run_id,
        candidate_sha256=file_sha256(cand_path),
        baseline=chosen.record.run_id if chosen else None,
        baseline_sha256=file_sha256(chosen.path) if chosen else None,
        policy_sha256=config.digest(),
        allowed=sorted(allowed),
        verdict=result.verdict,
        passed=result.passed,
        failures=result.failures,
    )
