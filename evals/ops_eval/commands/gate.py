"""`ops-eval gate`: is a run worse than its baseline, by more than noise?

    ops-eval gate [RUN] [--baseline RUN | --pinned NAME] [--allow-change KIND,...]
                  [--suite-threshold X] [--regression-threshold X] [--require-baseline]
                  [--format text|json|github]

RUN is a run record's path or run id (default: the newest run). Every input is checked before
anything is recorded; each decision is appended to the gate ledger (`deciding.ledger`), which is
what an override (`gate_override`) and the next baseline choice read (`baseline`).

Exit codes: 0 pass, improved or inconclusive (said loudly), or overridden; 1 regressed, below
the suite threshold, a required case failed in any trial, a gating scorer's judge is not
calibrated (`judge_check.py`), or the judge budget blocked a call; 2 bad or incompatible input,
or no baseline where one is required.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..base.exits import OpsEvalError
from ..base.inputs import number_option
from ..deciding.gate.changes import BLOCKING, KINDS


def _allowed(raw: list[str] | None) -> list[str]:
    from ..base.inputs import bad_input

    names = list(
        dict.fromkeys(n.strip() for item in raw or [] for n in item.split(",") if n.strip())
    )
    unknown = [n for n in names if n not in KINDS]
    if unknown:
        raise bad_input(f"--allow-change: no kind {', '.join(unknown)} (kinds: {', '.join(KINDS)})")
    return names


def _policy(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """(the gate file's path, the policy as applied -- flags included, the sha256 of the
    file's policy without flags); OpsEvalError (exit 2) for a file `ops-eval validate` would
    flag: one that does not read, or a policy that cannot gate (`validation.gate_rules`:
    scorers, thresholds, and the required cases against the sets beside it)."""
    from ..base.inputs import bad_input
    from ..validation.gate_config import gate_file
    from ..validation.gate_rules import checked_policy

    path = gate_file()
    shipped, problems = checked_policy(path, [])
    if problems or shipped is None:
        more = f" (and {len(problems) - 1} more: `ops-eval validate`)" if problems[1:] else ""
        raise bad_input(f"{problems[0].render()}{more}")
    config = shipped.tightened(args.suite_threshold, args.regression_threshold)
    return path, config, shipped.digest()


def decide_gate(args: argparse.Namespace) -> Any:
    """Read, check, compare and record; the Decision. OpsEvalError for bad input (exit 2) or a
    candidate with no verdict (exit 3); a decision the ledger could not take is returned
    marked unrecorded (exit 3)."""
    from ..base.inputs import bad_input
    from ..base.settings import current
    from ..deciding.gate.baseline import choose_baseline
    from ..deciding.gate.changes import changes
    from ..deciding.gate.compare import evaluate
    from ..deciding.gate.judge_check import check_judges
    from ..deciding.gate.outcomes import judgeable
    from ..deciding.gate.reader_check import reader_warnings
    from ..deciding.gate.render import Decision
    from ..deciding.ledger.chain import default_ledger
    from ..deciding.ledger.entries import OverrideEntry, VerdictEntry, find_override
    from ..results.runs import file_sha256, load, partial, resolve_run

    allowed = _allowed(args.allow_change)
    config_path, config, shipped_sha = _policy(args)
    runs_dir = current().runs_dir
    ledger = default_ledger()
    entries = ledger.entries()  # a broken ledger is refused before anything is decided
    cand_path = resolve_run(args.run, runs_dir)
    candidate = load(cand_path, "candidate")
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
    judgeable(candidate, config.gating_scorers, "candidate")
    judges = check_judges(candidate, config)  # a calibration log it cannot trust: exit 2
    readers = reader_warnings(candidate, config)  # warnings only: the exit is the same
    chosen, skipped = choose_baseline(
        candidate,
        cand_path,
        explicit=args.baseline,
        pinned=args.pinned,
        ledger=ledger,
        runs_dir=runs_dir,
        config=config,
        allowed=allowed,
        policies={shipped_sha, config.digest()},
    )
    if chosen is None and args.require_baseline:
        raise bad_input(
            f"no baseline for run {candidate.run_id}: no pin and no eligible earlier run of its "
            f"eval set, model and cases ({len(skipped)} passed over: `ops-eval gate` without "
            "--require-baseline lists why), and none given (--baseline, --pinned)"
        )
    baseline = chosen.record if chosen else None
    changed = changes(baseline, candidate) if baseline else []
    blocked = [c for c in changed if c.blocking and c.name not in allowed]
    if blocked:
        names = ",".join(c.name for c in blocked)
        detail = "; ".join(c.show() for c in blocked)
        raise bad_input(
            f"incompatible runs: {detail}. Their pass rates measure different things; "
            f"name the change to compare anyway: --allow-change {names}"
        )
    result = evaluate(candidate, baseline, config)
    result.failures += judges.failures
    verdict = VerdictEntry(
        candidate=candidate.run_id,
        candidate_sha256=file_sha256(cand_path),
        baseline=baseline.run_id if baseline else None,
        baseline_sha256=file_sha256(chosen.path) if chosen else None,
        policy_sha256=config.digest(),
        allowed=sorted(allowed),
        verdict=result.verdict,
        passed=result.passed,
        failures=result.failures,
    )
    decision = Decision(
        candidate=candidate,
        candidate_path=cand_path,
        baseline=baseline,
        baseline_path=chosen.path if chosen else None,
        baseline_how=chosen.how
        if chosen
        else (
            f"no eligible earlier run or pin; {len(skipped)} passed over, below"
            if skipped
            else "no earlier run of this eval set, model and cases"
        ),
        changed=changed,
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


def run(args: argparse.Namespace) -> int:
    from ..deciding.gate.render import as_json, github_lines, text_lines

    try:
        decision = decide_gate(args)
    except OpsEvalError as exc:
        if args.format == "github":  # the job's summary shows why the gate did not decide
            from ..deciding.gate.render import workflow_message

            print(f"::error title=ops-eval gate::{workflow_message(str(exc))}")
        raise
    if decision.unrecorded:
        print(f"error: the decision was not recorded: {decision.unrecorded}", file=sys.stderr)
    if args.format == "json":
        print(as_json(decision))
    else:
        for line in github_lines(decision) if args.format == "github" else text_lines(decision):
            print(line)
    return decision.exit_code


def add_parser(subparsers: Any) -> None:
    gate = subparsers.add_parser(
        "gate", help="is a run worse than its baseline, by more than noise? (exit 1 if so)"
    )
    gate.add_argument("run", nargs="?", help="run record path or run id (default: the newest)")
    which = gate.add_mutually_exclusive_group()
    which.add_argument("--baseline", metavar="RUN", help="compare with this run (path or id)")
    which.add_argument("--pinned", metavar="NAME", help="compare with the baseline pinned as NAME")
    gate.add_argument(
        "--allow-change",
        action="append",
        metavar="KIND",
        help=f"compare although this changed (comma-separated; blocking kinds: "
        f"{', '.join(BLOCKING)})",
    )
    gate.add_argument(
        "--suite-threshold",
        type=number_option(fraction=True),
        metavar="X",
        help="raise the pass rate required",
    )
    gate.add_argument(
        "--regression-threshold",
        type=number_option(fraction=True),
        metavar="X",
        help="lower the drop allowed (stricter only)",
    )
    gate.add_argument(
        "--require-baseline", action="store_true", help="exit 2 when no baseline is found"
    )
    gate.add_argument("--format", choices=["text", "json", "github"], default="text")
    gate.set_defaults(handler=run)
